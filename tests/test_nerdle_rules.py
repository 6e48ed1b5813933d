"""Nerdle: the answer-set rules, the guess validator, the commutative key and the game plugin.

Oracles written here, apart from termo.games.equations: a regex tokeniser and a two-pass
evaluator over Fractions (``_left_value``/``_right_value``); a brute force over every string of
Mini's shape; a parse-tree implementation of the commutative *moves* (swap the operands of one
``+`` or ``*`` node, write back without parentheses); the published numbers.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from termo.core.errors import TermoError
from termo.core.feedback import colours
from termo.games import equations as E
from termo.games import get_game
from termo.games.nerdle import CLASSIC_FILE, MINI_FILE, MINI_OPENER
from termo.core.paths import data_dir

SEVEN = replace(E.CLASSIC, tiles=7)


# --- an independent checker -------------------------------------------------------------------
def _left_value(lhs: str, rules: E.Rules):
    """Exact value of a left side under ``rules``, or None when the rules reject it."""
    operand = r"[0-9]+" if rules.no_unary_signs else r"[+-]?[0-9]+"
    if not re.fullmatch(rf"{operand}(?:[-+*/]{operand})*", lhs):
        return None
    first = re.match(operand, lhs)
    pairs = [("", first.group())] + re.findall(rf"([-+*/])({operand})", lhs[first.end():])
    for _, text in pairs:
        digits = text.lstrip("+-")
        if rules.no_leading_zeros and len(digits) > 1 and digits.startswith("0"):
            return None
        if rules.no_lone_zero and int(digits) == 0:
            return None
    if rules.needs_operator and len(pairs) == 1:
        return None
    values = [Fraction(int(text)) for _, text in pairs]
    ops = [op for op, _ in pairs[1:]]

    def divide(a, b):
        if b == 0 or (not rules.rational_steps and (a / b).denominator != 1):
            raise ZeroDivisionError
        return a / b

    try:
        if not rules.precedence:
            acc = values[0]
            for op, x in zip(ops, values[1:]):
                acc = {"+": acc + x, "-": acc - x, "*": acc * x}[op] if op != "/" else divide(acc, x)
            return acc
        terms, signs = [values[0]], [1]  # pass 1: products and quotients; pass 2: the sum
        for op, x in zip(ops, values[1:]):
            if op == "*":
                terms[-1] *= x
            elif op == "/":
                terms[-1] = divide(terms[-1], x)
            else:
                terms.append(x)
                signs.append(1 if op == "+" else -1)
        return sum(s * t for s, t in zip(signs, terms))
    except ZeroDivisionError:
        return None


def _right_value(rhs: str, rules: E.Rules):
    if not re.fullmatch(r"[0-9]+" if rules.unsigned_right else r"-?[0-9]+", rhs):
        return None
    digits = rhs.lstrip("-")
    if rules.no_leading_zeros and len(digits) > 1 and digits.startswith("0"):
        return None
    value = int(rhs)
    if (rhs.startswith("-") and value == 0) or (value == 0 and not rules.zero_right):
        return None
    return value


def _is_true(eq: str, rules: E.Rules) -> bool:
    if len(eq) != rules.tiles or eq.count("=") != 1:
        return False
    lhs, _, rhs = eq.partition("=")
    left, right = _left_value(lhs, rules), _right_value(rhs, rules)
    return left is not None and right is not None and left == right


def _brute_force(rules: E.Rules) -> list[str]:
    """Every string LEFT=RIGHT of ``rules.tiles`` tiles the checker accepts (small tile counts)."""
    lefts, rights = {}, {}
    for p in range(1, rules.tiles - 1):
        for chars in itertools.product("0123456789+-*/", repeat=p):
            v = _left_value("".join(chars), rules)
            if v is not None and v.denominator == 1:
                lefts.setdefault(p, {}).setdefault(int(v), []).append("".join(chars))
        for chars in itertools.product("0123456789-", repeat=rules.tiles - 1 - p):
            v = _right_value("".join(chars), rules)
            if v is not None:
                rights.setdefault(p, {}).setdefault(v, []).append("".join(chars))
    found = []
    for p, by_value in lefts.items():
        for v, ls in by_value.items():
            found += [left + "=" + right for left in ls for right in rights.get(p, {}).get(v, [])]
    return sorted(found)


@pytest.fixture(scope="module")
def classic():
    return E.generate(E.CLASSIC)


@pytest.fixture(scope="module")
def mini():
    return E.generate(E.MINI)


# --- the answer set -------------------------------------------------------------------------------
def test_classic_count_is_the_published_17723(classic):
    assert len(classic) == 17_723
    assert classic == sorted(set(classic))


def test_every_classic_equation_is_true_under_an_independent_checker(classic):
    bad = [eq for eq in classic if not _is_true(eq, E.CLASSIC)]
    assert bad == []
    assert {"48-32=16", "52-34=18", "11+11=22", "7/2*4=14", "10-5-5=0"} <= set(classic)
    assert not {"5-5+0=0", "12+0=012", "1-9+0=-8"} & set(classic)


def test_mini_count_and_its_explanation(mini):
    assert len(mini) == 206
    assert E.shapes() == {"n*n=nn": 58, "n+n=nn": 45, "nn-n=n": 45, "nn/n=n": 58}
    # two forms per fact: a+b=cc with cc-b=a, a*b=cc with cc/b=a
    sums = {eq for eq in mini if "+" in eq}
    assert {f"{eq[4:]}-{eq[2]}={eq[0]}" for eq in sums} == {eq for eq in mini if "-" in eq}
    products = {eq for eq in mini if "*" in eq}
    assert {f"{eq[4:]}/{eq[2]}={eq[0]}" for eq in products} == {eq for eq in mini if "/" in eq}


@pytest.mark.parametrize("rule", (None,) + E.RULE_NAMES)
def test_mini_equals_a_brute_force_over_every_string(rule):
    """Every rule set (the published one, and each rule switched off) against all strings."""
    rules = E.MINI if rule is None else replace(E.MINI, **{rule: False})
    generated = E.generate(rules)
    assert generated == _brute_force(rules)
    assert all(E.equation_error(eq, rules) is None for eq in generated)


@pytest.mark.slow
@pytest.mark.parametrize("rule", (None,) + E.RULE_NAMES)
def test_seven_tiles_equal_a_brute_force_over_every_string(rule):
    """Three-number left sides (precedence, steps) against every string of 7 tiles (~4 s each)."""
    rules = SEVEN if rule is None else replace(SEVEN, **{rule: False})
    assert E.generate(rules) == _brute_force(rules)


MINI_COUNTS = {None: 206, "no_unary_signs": 586, "no_leading_zeros": 587, "no_lone_zero": 476,
               "unsigned_right": 242}  # the other rules change nothing at 6 tiles (see below)
SEVEN_COUNTS = {None: 6661, "no_unary_signs": 7552, "no_leading_zeros": 8041, "no_lone_zero": 11857,
                "needs_operator": 7561, "precedence": 6792, "rational_steps": 6567, "zero_right": 6371,
                "unsigned_right": 6706}


@pytest.mark.parametrize("rule", E.RULE_NAMES)
def test_each_rule_switched_off_changes_the_count(rule):
    """At 7 tiles every rule matters. At 6 the left side is one operation on two numbers, so
    precedence and fractional steps cannot matter, a 0 result would need a lone zero, and n=n has
    an odd tile count: those four keep 206."""
    assert len(E.generate(replace(SEVEN, **{rule: False}))) == SEVEN_COUNTS[rule] != SEVEN_COUNTS[None]
    assert len(E.generate(replace(E.MINI, **{rule: False}))) == MINI_COUNTS.get(rule, 206)


def test_needs_operator_adds_exactly_the_lone_numbers():
    """n=n has an odd tile count: nothing at 6 or 8 tiles, the 900 abc=abc at 7."""
    extra = set(E.generate(replace(SEVEN, needs_operator=False))) - set(E.generate(SEVEN))
    assert extra == {f"{n}={n}" for n in range(100, 1000)}


def test_lone_zero_means_an_operand_that_is_zero(classic):
    assert {"10-5-5=0", "100-99=1", "10+10=20"} <= set(classic)
    assert not {"5-5+0=0", "0+10-5=5", "12*0+5=5"} & set(classic)
    assert all(not re.search(r"(^|[-+*/])0([-+*/=])", eq.split("=")[0] + "=") for eq in classic)
    relaxed = set(E.generate(replace(E.MINI, no_lone_zero=False))) - set(E.generate(E.MINI))
    assert {"12*0=0", "0*15=0", "0/12=0", "90*0=0"} <= relaxed
    assert all(re.search(r"(^|[-+*/])0([-+*/=])", eq.split("=")[0] + "=") for eq in relaxed)


CLASSIC_COUNTS = {"no_unary_signs": 44558, "no_leading_zeros": 42939, "no_lone_zero": 67346,
                  "needs_operator": 17723, "precedence": 19921, "rational_steps": 17447,
                  "zero_right": 17356, "unsigned_right": 20355}


@pytest.mark.slow
@pytest.mark.parametrize("rule", E.RULE_NAMES)
def test_each_rule_switched_off_at_classic_size(rule):
    rules = replace(E.CLASSIC, **{rule: False})
    generated = E.generate(rules)
    assert len(generated) == CLASSIC_COUNTS[rule]
    assert all(_is_true(eq, rules) for eq in generated)


@pytest.mark.parametrize("name, rules", [(CLASSIC_FILE, E.CLASSIC), (MINI_FILE, E.MINI)])
def test_shipped_lists_are_the_generator_output(name, rules):
    text = (data_dir() / name).read_text(encoding="utf-8")
    assert text == "\n".join(E.generate(rules)) + "\n"


# --- typed guesses --------------------------------------------------------------------------------
@pytest.mark.parametrize("text, reason", [
    ("12+34=46", None),
    ("7/2*4=14", None),
    ("12+34=47", "the left side is 46, not 47"),
    ("15/2+1=8", "the left side is 17/2, not 8"),
    ("12+3=15", "an equation here has 8 symbols, not 7"),
    ("12+34+46", "needs exactly one '='"),
    ("1=1=1+00", "needs exactly one '='"),
    ("07+34=41", "leading zero in 07"),
    ("12+3=015", "leading zero in 015"),
    ("10*0+8=8", "lone 0 on the left side"),
    ("12/0+3=3", "lone 0 on the left side"),
    ("-1+12=11", "no unary signs: '-' before a number at the start"),
    ("20+-4=16", "no unary signs: '-' before a number after '+'"),
    ("12**3=36", "two operators in a row (**)"),
    ("*12+3=15", "the left side starts with '*'"),
    ("12+34+=4", "the left side ends with '+'"),
    ("=12+3456", "nothing before '='"),
    ("1234567=", "nothing after '='"),
    ("12=3+4+5", "the right side must be a single number"),
    ("12345=12", "the left side needs an operator"),
    ("1x+34=46", "'x' is not a Nerdle symbol (use 0-9 + - * / =)"),
])
def test_equation_error_cases(text, reason):
    assert E.equation_error(text) == reason


@pytest.mark.parametrize("text, reason", [
    ("4*7=28", None),
    ("1-9=-8", "the right side cannot be negative (-8)"),
    ("1+6=07", "leading zero in 07"),
    ("1+2=3", "an equation here has 6 symbols, not 5"),
])
def test_equation_error_mini(text, reason):
    assert E.equation_error(text, E.MINI) == reason


@pytest.mark.parametrize("rule, text, reason", [
    ("no_lone_zero", "12/0+3=3", "division by zero"),   # a 0 divisor is a lone zero otherwise
    ("no_lone_zero", "12*0+3=3", None),
    ("rational_steps", "7/2*4=14", "a division does not come out whole (7/2)"),
    ("no_unary_signs", "20+-4=16", None),
    ("unsigned_right", "10-19=-9", None),
    ("no_leading_zeros", "07+34=41", None),
    ("precedence", "2+3*4=20", None),
])
def test_equation_error_with_a_rule_off(rule, text, reason):
    rules = replace(E.CLASSIC, **{rule: False})
    assert E.equation_error(text, rules) == reason
    if reason is None:  # accepted only with the rule off
        assert E.equation_error(text) is not None


def test_evaluate_is_exact():
    assert E.evaluate("7/2*4") == 14 and E.evaluate("15/2+1") == Fraction(17, 2)
    assert E.evaluate("2+3*4") == 14 and E.evaluate("2+3*4", replace(E.CLASSIC, precedence=False)) == 20
    with pytest.raises(TermoError, match="division by zero"):
        E.evaluate("1/0", replace(E.CLASSIC, no_lone_zero=False))


def test_every_answer_is_a_valid_guess(classic, mini):
    assert [eq for eq in classic if E.equation_error(eq) is not None] == []
    assert [eq for eq in mini if E.equation_error(eq, E.MINI) is not None] == []


@functools.lru_cache(maxsize=None)
def _classic_set() -> frozenset:
    return frozenset(get_game("nerdle").answers)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=E.SYMBOLS, min_size=8, max_size=8))
def test_a_guess_is_valid_exactly_when_it_is_an_answer_random(text):
    assert (E.equation_error(text) is None) == (text in _classic_set()) == _is_true(text, E.CLASSIC)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 17_722), st.integers(0, 7), st.integers(0, 7), st.sampled_from(E.SYMBOLS))
def test_a_guess_is_valid_exactly_when_it_is_an_answer_mutated(i, a, b, symbol):
    eq = list(get_game("nerdle").answers[i])
    eq[a], eq[b] = eq[b], eq[a]
    for text in ("".join(eq), "".join(eq[:a] + [symbol] + eq[a + 1:])):
        assert (E.equation_error(text) is None) == (text in _classic_set()) == _is_true(text, E.CLASSIC)


# --- commutative equivalence ----------------------------------------------------------------------
def _tree(lhs: str):
    """Left-associative parse with precedence: ('n', text) or (op, left, right)."""
    tokens = re.findall(r"[0-9]+|[-+*/]", lhs)

    def term(i):
        node, i = ("n", tokens[i]), i + 1
        while i < len(tokens) and tokens[i] in "*/":
            node, i = (tokens[i], node, ("n", tokens[i + 1])), i + 2
        return node, i

    node, i = term(0)
    while i < len(tokens):
        right, j = term(i + 1)
        node, i = (tokens[i], node, right), j
    return node


def _write(node) -> str:
    return node[1] if node[0] == "n" else _write(node[1]) + node[0] + _write(node[2])


def _swapped(node):
    """Every tree with the operands of exactly one + or * node swapped."""
    if node[0] == "n":
        return
    op, left, right = node
    if op in "+*":
        yield (op, right, left)
    for new in _swapped(left):
        yield (op, new, right)
    for new in _swapped(right):
        yield (op, left, new)


def _moves(eq: str) -> set[str]:
    lhs, _, rhs = eq.partition("=")
    return {_write(t) + "=" + rhs for t in _swapped(_tree(lhs))}


def _closure(eq: str) -> set[str]:
    seen, todo = {eq}, [eq]
    while todo:
        for nxt in _moves(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


K = E.commutative_key


@pytest.mark.parametrize("a, b, same", [
    ("12+34=46", "34+12=46", True),
    ("2*3+4=10", "4+3*2=10", True),
    ("2*3+4=10", "4+2*3=10", True),
    ("2*3+4=10", "3*2+4=10", True),
    ("20-8+3=15", "3+20-8=15", True),   # (20-8)+3: the + node's operands are 20-8 and 3
    ("20-8+3=15", "20+3-8=15", True),
    ("10-2-3=5", "10-3-2=5", False),    # no + or * node: subtraction does not commute
    ("8/2/2=2", "8/2/2=2", True),
    ("24/2/3=4", "24/3/2=4", False),    # nor does division
    ("6/2*3=9", "3*6/2=9", True),
    ("12+34=46", "12+34=47", False),    # the right side is part of the key
    ("2*3+4=10", "2+3*4=14", False),
])
def test_commutative_key_cases(a, b, same):
    assert (K(a) == K(b)) is same
    assert bool(_closure(a) & _closure(b)) is same


def test_commutative_classes_of_the_classic_answers(classic):
    """Moves keep an answer an answer and keep its key; each key class is one class under moves:
    the forward move closures of its members meet (they all reach the class's normal forms)."""
    answers = set(classic)
    groups: dict = {}
    for eq in classic:
        groups.setdefault(K(eq), []).append(eq)
    for group in groups.values():
        common = None
        for eq in group:
            reach = _closure(eq)
            assert reach <= answers and {K(r) for r in reach} == {K(eq)}
            common = reach if common is None else common & reach
        assert common
    sizes = Counter(len(g) for g in groups.values())
    assert sum(k * v for k, v in sizes.items()) == 17_723 and sizes[1] < 17_723


_NUMBERS = st.sampled_from(["1", "2", "3", "4", "6", "12"])
_TERM = st.lists(st.tuples(st.sampled_from("*/"), _NUMBERS), min_size=1, max_size=3)
_EXPR = st.lists(st.tuples(st.sampled_from("+-"), _TERM), min_size=1, max_size=3)


def _repaired(expr):
    """The same signed terms and factors, rotated so that the first term is added and each
    term's first factor multiplied (no unary signs); None if there is no such term/factor."""
    def rotate(items, ok):
        for k, item in enumerate(items):
            if ok(item):
                return items[k:] + items[:k]
        return None
    terms = [(s, rotate(list(t), lambda f: f[0] == "*")) for s, t in expr]
    if any(t is None for _, t in terms):
        return None
    return rotate(terms, lambda term: term[0] == "+")


def _text(expr) -> str:
    out = []
    for i, (sign, term) in enumerate(expr):
        out.append(("" if i == 0 else sign) + "".join(("" if j == 0 else op) + n for j, (op, n) in enumerate(term)))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(_EXPR, st.lists(st.integers(0, 50), max_size=6))
def test_key_and_value_are_invariant_under_random_swaps(expr, picks):
    expr = _repaired(expr)
    assume(expr is not None)
    eq = _text(expr) + "=0"
    value = _left_value(eq[:-2], E.CLASSIC)
    for pick in picks:
        options = sorted(_moves(eq))
        if not options:
            break
        nxt = options[pick % len(options)]
        assert K(nxt) == K(eq)
        assert _left_value(nxt[:-2], E.CLASSIC) == value
        eq = nxt


@settings(max_examples=300, deadline=None)
@given(_EXPR, st.data())
def test_equal_keys_exactly_when_moves_connect_them(expr, data):
    """For a random rearrangement of terms and factors: equal keys <=> the move closures meet,
    and equal keys give equal values."""
    expr = _repaired(expr)
    assume(expr is not None)
    terms = _repaired(data.draw(st.permutations([(s, data.draw(st.permutations(t))) for s, t in expr])))
    a, b = _text(expr) + "=0", _text(terms) + "=0"
    same = K(a) == K(b)
    assert same == bool(_closure(a) & _closure(b))
    if same:
        assert _left_value(a[:-2], E.CLASSIC) == _left_value(b[:-2], E.CLASSIC)


def test_commutative_key_rejects_malformed():
    for text in ("12+34", "1=2=3", "12++3=15", "+12=12"):
        with pytest.raises(TermoError):
            K(text)


# --- the plugin -----------------------------------------------------------------------------------
def test_nerdle_game():
    g = get_game("nerdle")
    assert (g.name, g.key, g.title, g.word_length, g.max_turns, g.language) == ("nerdle", "nerdle", "Nerdle", 8, 6, "en")
    assert g.n_answers == g.n_probes == 17_723 and g.code_dtype == "uint16"
    assert g.symbols == "0123456789+-*/=" and g.unit == "symbols" and g.uniform_prior
    assert set(g.icf) == {0.0} and g.win_rule == "commutative" and g.default_opener == "54-38=16"
    i, j = g.index_of("12+34=46"), g.index_of("34+12=46")
    assert g.wins(i, j) and g.wins(j, i) and not g.wins(i, g.index_of("10-2-3=5"))
    assert not g.wins(g.index_of("10-2-3=5"), g.index_of("10-3-2=5"))
    assert g.index_of(" 12 + 34 = 46 ") == i and g.index_of("2×3+4=10") == g.index_of("2*3+4=10")
    assert g.index_of("12÷4+3=6") == g.index_of("12/4+3=6")
    assert get_game("nerdle", extended=True).answers == g.answers


def test_strict_mode_has_no_win_classes():
    g = get_game("nerdle", strict=True)
    assert g.win_rule == "exact" and g.probe_win_keys is None and g.win_classes == ()
    assert not g.wins(g.index_of("12+34=46"), g.index_of("34+12=46"))
    assert get_game("nerdle").win_classes


def test_nerdle_mini_game():
    g = get_game("nerdle-mini")
    assert (g.name, g.title, g.word_length, g.n_answers, g.code_dtype) == ("nerdle-mini", "Nerdle Mini", 6, 206, "uint16")
    assert g.default_opener == MINI_OPENER == "4*7=28" and g.index_of(MINI_OPENER) is not None
    assert g.wins(g.index_of("4*7=28"), g.index_of("7*4=28"))


def test_typed_guesses_outside_the_list_get_the_reason():
    g = get_game("nerdle")
    with pytest.raises(TermoError, match="leading zero in 07"):
        g.check_guess_text(g.normalize("07+34=41"))
    with pytest.raises(TermoError, match="the left side is 46, not 47"):
        g.check_guess_text("12+34=47")
    with pytest.raises(TermoError, match="guesses here have 8"):
        g.check_guess_text("1+2=3")


# --- published numbers -------------------------------------------------------------------------
def _groups(game, opener: str, commutative: bool) -> Counter:
    i = game.index_of(opener)
    return Counter("win" if commutative and game.wins(i, j) else colours(opener, a)
                   for j, a in enumerate(game.answers_norm))


@pytest.mark.parametrize("opener, groups, expected", [("52-34=18", 1703, 33), ("11+11=22", 415, 319)])
def test_published_partitions(opener, groups, expected):
    """The Italian solver's figures: groups and Σ n_b² / N after the opener's feedback.

    Both match exactly (33.05 and 319.14 rounded). They match the written-form groups *and* the
    commutative ones: neither opener has a rearrangement other than itself (52-34=18 has no + or
    *, and swapping 11+11 gives 11+11), so the two rules give the same groups for them and these
    figures cannot tell the rules apart."""
    g = get_game("nerdle")
    written, commutative = _groups(g, opener, False), _groups(g, opener, True)
    assert [a for a in g.answers if K(a) == K(opener)] == [opener]
    for c in (written, commutative):
        assert len(c) == groups
        assert round(sum(n * n for n in c.values()) / g.n_answers) == expected


def _entropy(counts: Counter, n: int) -> float:
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def test_published_best_classic_opener_entropy():
    """maxjiang216/nerdle-solver: 48-32=16 at 9.78 bits (the engine finds it the maximum)."""
    g = get_game("nerdle")
    assert round(_entropy(_groups(g, "48-32=16", True), g.n_answers), 2) == 9.78


def test_mini_opener_has_the_largest_entropy():
    g = get_game("nerdle-mini")
    bits = {p: _entropy(_groups(g, p, True), g.n_answers) for p in g.probes}
    best = max(bits, key=bits.get)
    assert best == MINI_OPENER and round(bits[best], 4) == 5.8106
    assert sorted(bits.values())[-2] < bits[best]
