"""Feedback rules (docs/rules.md §1): normalisation, colouring, codes, parsing, plausibility.

This module is the plain-Python reference: the vectorised pattern matrix is tested against it.
Patterns are strings over ``G`` (right place), ``Y`` (elsewhere) and ``B`` (absent).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from itertools import permutations

from termo.core.errors import TermoError
from termo.core.messages import Message, counted, unit_count

COMBINING_CEDILLA = "\u0327"
DIGIT = {"B": 0, "Y": 1, "G": 2}
LETTER = "BYG"

# Colour characters every game accepts (after lower-casing), docs/rules.md §1.4. A game adds its
# own colour letters (`Game.colour_letters`); a letter means a colour only in the game it belongs
# to (Nerdle's ``p`` is purple, Termo's ``p`` is preto), so no letter is read across games.
_GREEN = {"g", "2", "\U0001f7e9", "\U0001f7e2"}
_YELLOW = {"y", "1", "\U0001f7e8", "\U0001f7e1"}
_BLACK = {"b", "0", "\u2b1b", "\u2b1c", "-", "."}
COMMON_COLOURS = {**{c: "G" for c in _GREEN}, **{c: "Y" for c in _YELLOW}, **{c: "B" for c in _BLACK}}
# (character, colour, what it stands for): each game's own colour letters
TERMO_LETTERS = (("v", "G", "verde"), ("a", "Y", "amarelo"), ("p", "B", "preto"), ("c", "B", "cinza"))
NERDLE_LETTERS = (("p", "Y", "purple"), ("\U0001f7ea", "Y", "purple square"), ("\U0001f7e3", "Y", "purple circle"))
RUSSIAN_LETTERS = (("з", "G", "зелёный"), ("ж", "Y", "жёлтый"), ("с", "B", "серый"))
_ALL_GAME_LETTERS = {"Termo": TERMO_LETTERS, "Nerdle": NERDLE_LETTERS, "Russian Wordle": RUSSIAN_LETTERS}
_SQUARE = {"G": "\U0001f7e9", "Y": "\U0001f7e8", "B": "\u2b1b"}


def normalize(word: str, fold_cedilla: bool = True) -> str:
    """Lower-case, strip accents (NFD, drop combining marks); ``ç`` folds to ``c`` unless told not to."""
    if word.isascii():  # nothing to decompose (the same result, ~10 ms less per word list)
        return word.lower()
    decomposed = unicodedata.normalize("NFD", word.lower())
    kept = "".join(
        ch
        for ch in decomposed
        if unicodedata.category(ch) != "Mn" or (not fold_cedilla and ch == COMBINING_CEDILLA)
    )
    return unicodedata.normalize("NFC", kept)


def colours(guess_norm: str, answer_norm: str) -> str:
    """Two-pass colouring of already-normalised words of equal length."""
    n = len(guess_norm)
    result = ["B"] * n
    stock = Counter(answer_norm)
    for i, (g, a) in enumerate(zip(guess_norm, answer_norm)):
        if g == a:
            result[i] = "G"
            stock[g] -= 1
    for i, g in enumerate(guess_norm):
        if result[i] != "G" and stock[g] > 0:
            result[i] = "Y"
            stock[g] -= 1
    return "".join(result)


def feedback(guess: str, answer: str, length: int = 5, fold_cedilla: bool = True) -> str:
    """The colours Termo shows for ``guess`` when the secret is ``answer`` (accents ignored)."""
    g = normalize(guess, fold_cedilla)
    a = normalize(answer, fold_cedilla)
    for label, word in (("guess", g), ("answer", a)):
        if len(word) != length:
            raise TermoError(f"{label} '{word}' has {unit_count(len(word), 'letters')}; expected {length}")
    return colours(g, a)


def encode(pattern: str) -> int:
    """Base-3 code of a pattern, position 0 most significant (``YGBBB`` = 135, ``GGGGG`` = 242)."""
    code = 0
    for ch in pattern:
        code = code * 3 + DIGIT[ch]
    return code


def decode(code: int, length: int = 5) -> str:
    """Inverse of :func:`encode`."""
    if not 0 <= code < 3**length:
        raise TermoError(f"pattern code {code} is out of range for {length} tiles")
    digits = []
    for _ in range(length):
        code, d = divmod(code, 3)
        digits.append(LETTER[d])
    return "".join(reversed(digits))


def feedback_code(guess: str, answer: str, length: int = 5, fold_cedilla: bool = True) -> int:
    """Base-3 code of :func:`feedback`."""
    return encode(feedback(guess, answer, length, fold_cedilla))


def colour_hint(letters=TERMO_LETTERS) -> str:
    """The colour forms a game accepts, for help texts and errors (``letters``: the game's own)."""
    own = [(ch, name) for ch, _, name in letters if ch.isalpha()]
    hint = "G/Y/B, 2/1/0"
    if own:
        hint += ", " + "/".join(ch for ch, _ in own) + " (" + "/".join(name for _, name in own) + ")"
    return hint + " or the coloured squares"


def colours_help() -> str:
    """One sentence for ``--help``: the colour forms of every game (each game's letters are its own)."""
    own = "; ".join(
        f"{name} also " + ", ".join(f"{c}={colour} ({meaning})" for c, colour, meaning in table
                                    if c.isalpha())
        for name, table in _ALL_GAME_LETTERS.items()
    )
    return (f"Colours: G/Y/B, 2/1/0 or the coloured squares in every game (G green, Y yellow or "
            f"purple, B absent); {own}.")


def _not_a_colour(text: str, ch: str, letters, title: str) -> TermoError:
    mine = {c for c, _, _ in letters}
    elsewhere = [
        f"{meaning} in {name}" for name, table in _ALL_GAME_LETTERS.items() if table is not letters
        for c, _, meaning in table if c == ch.lower() and c not in mine
    ]
    where = f" in {title}" if title else ""
    why = f" ({ch.lower()!r} is {', '.join(elsewhere)})" if elsewhere else ""
    return TermoError(
        f"feedback '{text}': character {ch!r} (U+{ord(ch):04X}) is not a colour{where}{why}; "
        f"use {colour_hint(letters)}",
        "colours.bad_char", {"text": text, "char": ch},
    )


def parse_pattern(text: str, length: int = 5, letters=TERMO_LETTERS, title: str = "") -> str:
    """Read feedback typed by a player: G/Y/B, 2/1/0, the coloured squares or circles, and the
    game's own colour ``letters`` ((character, colour, name) triples; default Termo's v/a/p/c);
    spaces ignored. ``title`` names the game in an error."""
    table = {**COMMON_COLOURS, **{ch: colour for ch, colour, _ in letters}}
    out = []
    for ch in "".join(text.split()):
        colour = table.get(ch.lower())
        if colour is None:
            raise _not_a_colour(text, ch, letters, title)
        out.append(colour)
    if len(out) != length:
        raise TermoError(f"feedback '{text}' has {counted(len(out), 'colour')}; expected {length}", "colours.count",
                         {"text": text, "n": len(out), "expected": length})
    return "".join(out)


def render_squares(pattern: str) -> str:
    """The pattern as Termo's coloured squares."""
    return "".join(_SQUARE[ch] for ch in pattern)


def pattern_possible(guess: str, pattern: str, length: int = 5, fold_cedilla: bool = True,
                     normalize=normalize) -> tuple[bool, str]:
    """Can any word at all produce ``pattern`` for ``guess``? (docs/rules.md; no lexicon involved).

    ``normalize=None`` takes ``guess`` as already normalised (any game); otherwise Termo's
    accent folding is applied first. Returns ``(True, "")`` or ``(False, reason)``.
    """
    g = guess if normalize is None else normalize(guess, fold_cedilla)
    if len(g) != length or len(pattern) != length:
        return False, Message(f"guess and pattern must both have {length} letters", "colours.why.length", n=length)
    # 1. For each letter, yellows go to the leftmost non-green copies first.
    seen_black: set[str] = set()
    for letter, mark in zip(g, pattern):
        if mark == "B":
            seen_black.add(letter)
        elif mark == "Y" and letter in seen_black:
            return False, Message(
                f"'{letter}' is marked absent and then present further right; "
                "the game colours the leftmost copy first", "colours.why.absent_then_present", letter=letter
            )
    # 2. Every yellow letter needs its own free (non-green) position holding another letter.
    free = [i for i, mark in enumerate(pattern) if mark != "G"]
    yellows = [g[i] for i, mark in enumerate(pattern) if mark == "Y"]
    if len(yellows) > len(free):
        return False, Message("more yellow letters than free positions", "colours.why.too_many_present")
    for places in permutations(free, len(yellows)):
        if all(g[p] != letter for p, letter in zip(places, yellows)):
            return True, ""
    return False, Message("the yellow letters have no other free position to go to", "colours.why.no_room")
