"""Nerdle equations: the answer-set generator, the guess validator and the commutative key.

Pure functions over strings; arithmetic is exact (``fractions.Fraction`` and integer ratios),
and nothing is ever handed to ``eval``.

The rules (rules §12.1)
--------------------------
An equation is ``LEFT=RIGHT`` over the symbols ``0-9 + - * / =`` with exactly one ``=``; the
right side is a single number. The switchable rules, all on by default (:class:`Rules`):

* ``no_unary_signs``: the left side is numbers joined by *binary* ``+ - * /``; no sign before a
  number (off: one ``+`` or ``-`` may precede any number on the left, as in ``-3+9=6``, ``5*-1``).
* ``no_leading_zeros``: no number on either side starts with ``0`` unless it is ``0`` itself
  (off: ``07`` is a number, and the right side may be zero-padded, ``1+6=07``).
* ``no_lone_zero``: no operand of the left side is 0. A "lone 0" is an operand whose value is
  zero: ``0`` (and ``00`` or ``-0`` where other rules are off). So ``0+12=12``, ``12*0=0`` and
  ``5-0-5=0`` are excluded (examples of any size), while a 0 inside a number (``10-5=5``) and
  a right side of ``0`` (``10-5-5=0``) are fine. Off, the Classic set grows from 17,723 to 67,346.
* ``needs_operator``: the left side holds at least one operator (off: ``n=n``). A lone number
  ``n=n`` has an odd number of tiles, so this rule changes nothing at 6 or 8 tiles (it does at 7).
* ``precedence``: ``*`` and ``/`` bind before ``+`` and ``-``, left to right within a level
  (off: strictly left to right).
* ``rational_steps``: ``/`` need not divide exactly at each step; only the final value of the
  left side must be the whole number on the right (``7/2*4=14`` is true). Off: every ``/`` must
  come out whole. Division by zero is always excluded.
* ``zero_right``: the right side may be ``0``.
* ``unsigned_right``: the right side is the canonical form of a *non-negative* integer (off: a
  negative result written with ``-``, as in ``1-9=-8``).

Counts (``tiles`` = 8: Classic, 6: Mini). Classic: **17,723**, the published count. Mini:
**206**, and the rules say why. With 6 tiles the left side has at most 4 tiles (``=`` and a digit
follow it), so it is one operation on two numbers: ``a?b=cc`` (3 + 2 tiles) or ``a?bb=c`` /
``aa?b=c`` (4 + 1 tiles); ``a?b?c`` would leave no tile for the result. One-digit operands are
1-9 (0 is a lone zero). Then ``a-b`` and ``a/b`` are below 10, and ``a?bb`` and ``aa+b``, ``aa*b``
never give one digit (``a/bb`` is below 1), so only four shapes are left, two per fact:

* ``a+b=cc`` (45: the ordered pairs of digits with a sum of 10 to 18) and its inverse ``cc-b=a``
  (the same 45 facts);
* ``a*b=cc`` (58: the 81 ordered pairs but the 23 whose product is below 10) and its inverse
  ``cc/b=a`` (58).

45 + 45 + 58 + 58 = 206 (:func:`shapes` gives the table; the tests check it).

Speed: :func:`generate` enumerates left-side *prefixes* (all but the last operator and number)
with their evaluation state, then solves for the last number: for ``+ - *`` the result is ``A + B*x``,
so only the numbers ``x`` whose result fits the right side are visited (a bisection over the
sorted operands); for ``/`` (``A + B/x``) every number is tried with integer arithmetic. Classic
takes about a second.

Typed guesses (:func:`equation_error`) must satisfy the same rules as answers: a guess is valid
exactly when it is a member of the generated set for its tile count, which the tests check. The
real game accepts only true equations; holding guesses to the answer rules as well keeps the
probe list (the answer list) equal to the set of typeable guesses, and every rejection says why.

Commutative equivalence (rules §12.1, :func:`commutative_key`)
----------------------------------------------------------------
Parse the left side with precedence into a left-associative tree. A *move* swaps the two operands
of one ``+`` or ``*`` node and writes the result back without parentheses (operands of ``+`` are
whole terms, operands of ``*`` whole factors: precedence is respected). A move keeps the value,
the tiles and the right side, and its written form is again an equation: ``c+(a-b)`` is written
``c+a-b``, which evaluates the same. Two equations are *equivalent* when a chain of moves (or
their reverses) leads from one to the other.

The classes are exactly described by the key. Write the left side as signed terms
``t1 ± t2 ± ...`` (``t1`` positive) and each term as factors ``f1 (*|/) f2 ...`` (``f1``
multiplied). A ``+`` move takes a ``+`` term and puts it first; a ``*`` move takes a ``*`` factor
of a term and puts it first in that term; nothing else moves. So a class keeps: the multiset of
its ``+`` terms, the *sequence* of its ``-`` terms, and in each term the multiset of multiplied
factors and the sequence of divisors. Conversely, from any arrangement the moves reach every
form that puts the ``+`` terms first, in any order, then the ``-`` terms (and likewise the ``*``
factors before the divisors inside each term), so two equations that keep the same things meet
in a common form. The key is that invariant plus the right side::

    key = (sorted + term keys, tuple of - term keys in order, right side)
    term key = (sorted multiplied factors, tuple of divisors in order)

Hence ``12+34=46`` ~ ``34+12=46``; ``2*3+4=10`` ~ ``4+3*2=10`` ~ ``4+2*3=10``; ``a-b+c`` ~ ``c+a-b``
~ ``a+c-b`` (the ``+`` node of ``(a-b)+c`` has operands ``a-b`` and ``c``); but ``10-2-3=5`` is
not ``10-3-2=5`` and ``8/2/2=2`` is not equivalent to any reordering of its divisors: no ``+`` or
``*`` node relates them, and subtraction and division do not commute.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import lru_cache

from termo.core.errors import TermoError
from termo.core.messages import Message as M

DIGITS = "0123456789"
OPERATORS = "+-*/"
SYMBOLS = DIGITS + OPERATORS + "="


@dataclass(frozen=True)
class Rules:
    """The answer rules for ``tiles`` tiles; every switch is one published rule (module docstring)."""

    tiles: int = 8
    no_unary_signs: bool = True
    no_leading_zeros: bool = True
    no_lone_zero: bool = True
    needs_operator: bool = True
    precedence: bool = True
    rational_steps: bool = True
    zero_right: bool = True
    unsigned_right: bool = True


RULE_NAMES = tuple(f.name for f in fields(Rules) if f.name != "tiles")
CLASSIC = Rules(tiles=8)
MINI = Rules(tiles=6)


# --- numbers ----------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _operands(rules: Rules, width: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Every operand the rules allow on the left, exactly ``width`` tiles, sorted by value."""
    found = []
    signs = ("",) if rules.no_unary_signs else ("", "+", "-")
    for sign in signs:
        digits = width - len(sign)
        if digits < 1:
            continue
        first = 10 ** (digits - 1) if (rules.no_leading_zeros and digits > 1) else 0
        for n in range(first, 10**digits):
            if n == 0 and rules.no_lone_zero:
                continue
            found.append((-n if sign == "-" else n, sign + str(n).zfill(digits)))
    found.sort()
    return tuple(t for _, t in found), tuple(v for v, _ in found)


def _right_text(rules: Rules, value: int, width: int) -> str | None:
    """The right side showing ``value`` in exactly ``width`` tiles, or None if the rules forbid it."""
    if value == 0 and not rules.zero_right:
        return None
    if value < 0 and rules.unsigned_right:
        return None
    sign = "-" if value < 0 else ""
    digits = str(-value if value < 0 else value)
    room = width - len(sign)
    if len(digits) > room or (len(digits) < room and rules.no_leading_zeros):
        return None
    return sign + digits.zfill(room)


def _right_bounds(rules: Rules, width: int) -> tuple[int, int]:
    """Values whose right side might fit ``width`` tiles (a superset; _right_text decides)."""
    low = 0 if rules.unsigned_right else -(10 ** (width - 1) - 1)
    return low, 10**width - 1


# --- evaluation state ---------------------------------------------------------------------------
# A left-side prefix is evaluated to (total, term): its value is total + term, where ``term`` is
# the product still open to ``*`` and ``/``. Strictly left to right, total stays 0.
def _step(rules: Rules, state, op: str, x: int):
    total, term = state
    if op == "/":
        if x == 0:
            return None
        quotient = term / x
        if not rules.rational_steps and quotient.denominator != 1:
            return None
        return total, quotient
    if op == "*":
        return total, term * x
    if not rules.precedence:
        return total, (term + x if op == "+" else term - x)
    return total + term, Fraction(x if op == "+" else -x)


def _prefixes(rules: Rules, max_width: int) -> dict[int, list]:
    """Every left-side prefix up to ``max_width`` tiles ending in a number: width -> [(text, state)]."""
    states: dict[int, list] = {w: [] for w in range(1, max_width + 1)}
    zero = Fraction(0)
    for w in range(1, max_width + 1):
        texts, values = _operands(rules, w)
        states[w].extend((t, (zero, Fraction(v))) for t, v in zip(texts, values))
    for w in range(1, max_width + 1):
        for text, state in states[w]:
            for k in range(1, max_width - w):
                texts, values = _operands(rules, k)
                bucket = states[w + 1 + k]
                for op in OPERATORS:
                    for t, v in zip(texts, values):
                        nxt = _step(rules, state, op, v)
                        if nxt is not None:
                            bucket.append((text + op + t, nxt))
    return states


def _finish(rules: Rules, prefix: str, state, op: str, k: int, r: int, out: list) -> None:
    """Append every ``prefix op x = right`` with ``x`` of ``k`` tiles and a right side of ``r``."""
    total, term = state
    texts, values = _operands(rules, k)
    if op in "+-":
        a, b = total + term, Fraction(1 if op == "+" else -1)
    else:
        a, b = total, term
    an, ad, bn, bd = a.numerator, a.denominator, b.numerator, b.denominator
    low, high = _right_bounds(rules, r)
    head = prefix + op
    if op == "/":  # value a + b/x: try every x, in integers
        p, q, d = an * bd, bn * ad, ad * bd
        whole_steps = not rules.rational_steps
        for t, x in zip(texts, values):
            if x == 0 or (whole_steps and bn % (bd * x)):
                continue
            num, den = p * x + q, d * x
            if num % den == 0:
                right = _right_text(rules, num // den, r)
                if right is not None:
                    out.append(head + t + "=" + right)
        return
    # value a + b*x: only the x that put it in [low, high]
    if b == 0:
        lo_i, hi_i = (0, len(values)) if (ad == 1 and low <= an <= high) else (0, 0)
    else:
        ends = ((low - a) / b, (high - a) / b)
        lo_i = bisect_left(values, math.ceil(min(ends)))
        hi_i = bisect_right(values, math.floor(max(ends)))
    p, q, d = an * bd, bn * ad, ad * bd
    for i in range(lo_i, hi_i):
        num = p + q * values[i]
        if num % d == 0:
            right = _right_text(rules, num // d, r)
            if right is not None:
                out.append(head + texts[i] + "=" + right)


def generate(rules: Rules = CLASSIC) -> list[str]:
    """Every equation of ``rules.tiles`` tiles that the rules allow, sorted ascending."""
    n = rules.tiles
    if n < 3:
        return []
    out: list[str] = []
    if not rules.needs_operator:  # a lone number on the left
        for p in range(1, n - 1):
            texts, values = _operands(rules, p)
            for t, v in zip(texts, values):
                right = _right_text(rules, v, n - 1 - p)
                if right is not None:
                    out.append(t + "=" + right)
    states = _prefixes(rules, n - 4)
    for p, bucket in states.items():
        for k in range(1, n - 2 - p):
            r = n - 2 - p - k
            for op in OPERATORS:
                for text, state in bucket:
                    _finish(rules, text, state, op, k, r, out)
    out.sort()
    return out


def shapes(rules: Rules = MINI) -> dict[str, int]:
    """How many equations of each shape (digits as ``n``: ``n+n=nn``) the rules give."""
    table: dict[str, int] = {}
    for eq in generate(rules):
        shape = "".join("n" if ch in DIGITS else ch for ch in eq)
        table[shape] = table.get(shape, 0) + 1
    return dict(sorted(table.items()))


# --- parsing and validation ---------------------------------------------------------------------
class _Reject(Exception):
    """A reason why a text is not a valid equation (internal)."""


def _number_error(text: str, rules: Rules) -> None:
    digits = text.lstrip("+-")
    if rules.no_leading_zeros and len(digits) > 1 and digits[0] == "0":
        raise _Reject(M(f"leading zero in {text}", "eq.leading_zero", number=text))


def _parse_left(left: str, rules: Rules) -> tuple[list[int], list[str]]:
    """The numbers and operators of a left side (numbers carry their unary sign)."""
    if not left:
        raise _Reject(M("nothing before '='", "eq.empty_left"))
    numbers: list[int] = []
    ops: list[str] = []
    i, n = 0, len(left)
    while True:
        start = i
        if i < n and left[i] in "+-" and i + 1 < n and left[i + 1] in DIGITS:
            if rules.no_unary_signs:
                raise _Reject(M(f"no unary signs: {left[i]!r} before a number"
                                + (" at the start" if i == 0 else f" after {left[i - 1]!r}"), "eq.unary", sign=left[i]))
            i += 1
        if i >= n:
            raise _Reject(M(f"the left side ends with {left[-1]!r}", "eq.left_ends", symbol=left[-1]))
        if left[i] not in DIGITS:
            if i == 0:
                raise _Reject(M(f"the left side starts with {left[i]!r}", "eq.left_starts", symbol=left[i]))
            raise _Reject(M(f"two operators in a row ({left[i - 1]}{left[i]})", "eq.two_operators",
                            ops=left[i - 1] + left[i]))
        while i < n and left[i] in DIGITS:
            i += 1
        text = left[start:i]
        _number_error(text, rules)
        value = int(text)
        if value == 0 and rules.no_lone_zero:
            raise _Reject(M("lone 0 on the left side" + ("" if text == "0" else f" ({text})"), "eq.lone_zero"))
        numbers.append(value)
        if i == n:
            break
        if left[i] not in OPERATORS:
            raise _Reject(M(f"{left[i]!r} on the left side", "eq.left_symbol", symbol=left[i]))
        ops.append(left[i])
        i += 1
    if not ops and rules.needs_operator:
        raise _Reject(M("the left side needs an operator", "eq.needs_operator"))
    return numbers, ops


def _evaluate(numbers: list[int], ops: list[str], rules: Rules) -> Fraction:
    state = (Fraction(0), Fraction(numbers[0]))
    for op, x in zip(ops, numbers[1:]):
        nxt = _step(rules, state, op, x)
        if nxt is None:
            if x == 0:
                raise _Reject(M("division by zero", "eq.division_by_zero"))
            raise _Reject(M(f"a division does not come out whole ({state[1]}/{x})", "eq.division_not_whole",
                            division=f"{state[1]}/{x}"))
        state = nxt
    return state[0] + state[1]


def _parse_right(right: str, rules: Rules) -> int:
    if not right:
        raise _Reject(M("nothing after '='", "eq.empty_right"))
    body = right[1:] if right[0] == "-" else right
    if not body or any(ch not in DIGITS for ch in body):
        raise _Reject(M("the right side must be a single number", "eq.right_single"))
    if right[0] == "-" and rules.unsigned_right:
        raise _Reject(M(f"the right side cannot be negative ({right})", "eq.right_negative", number=right))
    _number_error(right, rules)
    value = int(right)
    if right[0] == "-" and value == 0:
        raise _Reject(M("the right side cannot be -0", "eq.right_minus_zero"))
    if value == 0 and not rules.zero_right:
        raise _Reject(M("the right side cannot be 0", "eq.right_zero"))
    return value


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def equation_error(text: str, rules: Rules = CLASSIC) -> str | None:
    """None when ``text`` is a true equation of ``rules.tiles`` tiles under ``rules``; else why not."""
    if len(text) != rules.tiles:
        return M(f"an equation here has {rules.tiles} symbols, not {len(text)}", "eq.length", n=rules.tiles,
                 got=len(text))
    for ch in text:
        if ch not in SYMBOLS:
            return M(f"{ch!r} is not a Nerdle symbol (use 0-9 + - * / =)", "eq.symbol", char=ch)
    if text.count("=") != 1:
        return M("needs exactly one '='", "eq.one_equals")
    left, _, right = text.partition("=")
    if not left:
        return M("nothing before '='", "eq.empty_left")
    try:
        target = _parse_right(right, rules)
        numbers, ops = _parse_left(left, rules)
        value = _evaluate(numbers, ops, rules)
    except _Reject as why:
        return why.args[0]
    if value != target:
        return M(f"the left side is {_show(value)}, not {target}", "eq.value", value=_show(value), target=target)
    return None


def evaluate(left: str, rules: Rules = CLASSIC) -> Fraction:
    """The exact value of a left side (TermoError with the reason if it is not well formed)."""
    try:
        numbers, ops = _parse_left(left, rules)
        return _evaluate(numbers, ops, rules)
    except _Reject as why:
        raise TermoError(f"{left!r}: {why}") from None


# --- commutative equivalence --------------------------------------------------------------------
def _split(text: str, ops: str) -> list[tuple[str, str]]:
    """``text`` cut at the operators in ``ops``: [(operator before, piece)], the first with ''."""
    parts: list[tuple[str, str]] = []
    op, start = "", 0
    for i, ch in enumerate(text):
        if ch in ops:
            parts.append((op, text[start:i]))
            op, start = ch, i + 1
    parts.append((op, text[start:]))
    return parts


def _term_key(term: str) -> tuple:
    factors = _split(term, "*/")
    multiplied = sorted(f for op, f in factors if op != "/")
    divisors = tuple(f for op, f in factors if op == "/")
    return tuple(multiplied), divisors


def commutative_key(equation: str) -> tuple:
    """A key equal for two equations exactly when one is a commutative rearrangement of the other
    (module docstring): (sorted ``+`` terms, ``-`` terms in order, right side), each term as
    (sorted ``*`` factors, divisors in order). The left side must be numbers and binary operators."""
    if equation.count("=") != 1:
        raise TermoError(f"{equation!r}: needs exactly one '='")
    left, _, right = equation.partition("=")
    terms = _split(left, "+-")
    if any(not t or not f for _, t in terms for _, f in _split(t, "*/")):
        raise TermoError(f"{equation!r}: the left side must be numbers joined by + - * /")
    added = sorted(_term_key(t) for op, t in terms if op != "-")
    subtracted = tuple(_term_key(t) for op, t in terms if op == "-")
    return tuple(added), subtracted, right
