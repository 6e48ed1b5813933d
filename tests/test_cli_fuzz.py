"""Fuzzed command lines (hypothesis): whatever text reaches `suggest`, `feedback`, `partition`,
`rank` and `play` (piped) in a few games — control characters, surrogates (bytes that were not
UTF-8), very long strings, emoji, colours in every accepted form, odd option values — the exit
code is 0 or 2, stderr holds at most one line besides warnings (exactly one ``termo: error:``
line on exit 2, with no control character), and stdout is valid JSON with ``--json``.

The CLI runs in-process through `cli.app.main` with stdout/stderr captured and the fake solver
(tests/fake_solver.py) behind `suggest`/`play`, so the default run stays within ~20 s;
``test_fuzz_many`` (marked slow) runs the same properties on many more examples.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import termo.interface.suggest
from fake_solver import FakeSolver

GAMES = ("termo", "nerdle-mini", "wordle", "wordle-ru")
COLOURS = "GYBgybvapc210.-" + "\U0001f7e9\U0001f7e8\u2b1b\u2b1c\U0001f7e2\U0001f7e1"
EMOJI = "😀🟩🟨⬛👨‍👩‍👧🇧🇷"
CONTROL = "\x00\x07\x08\t\n\r\x1b\x7f\x85\x9b\u2028\u2029\u202e\u200b\ufeff"
SURROGATES = "\udcff\udce9\udc80"


class AnyGameFake(FakeSolver):
    """The fake solver, with an opener every game has (its first probe)."""

    def opener(self, optimal=False, progress=None):
        from termo.core.decision import Decision

        everything = range(self.game.n_answers)
        return Decision(choice=self._choice(0, everything), reason="fake opener",
                        candidates=self.game.n_answers, alternatives=())


@pytest.fixture(autouse=True, scope="module")
def fake_solver():
    original = termo.interface.suggest._make_solver
    termo.interface.suggest._make_solver = AnyGameFake
    yield
    termo.interface.suggest._make_solver = original


def _game(name):
    from termo.games import get_game

    return get_game(name)


def _words(name, k=40):
    game = _game(name)
    step = max(1, game.n_probes // k)
    return list(game.probes[::step][:k])


WORDS = {name: _words(name) for name in GAMES}

# ----------------------------------------------------------------------------- strategies

any_char = st.characters(blacklist_categories=())  # every code point, surrogates included
odd_text = st.one_of(
    st.text(any_char, max_size=12),
    st.text(st.sampled_from(CONTROL + SURROGATES + EMOJI + COLOURS + "aé ç:-=+*/0123456789"), max_size=16),
    st.builds(lambda c, n: c * n, st.sampled_from("a9:🟩\x1b"), st.integers(200, 3000)),  # very long
)
colours = st.text(st.sampled_from(COLOURS + " "), min_size=0, max_size=9)


def guess_text(game):
    words = st.sampled_from(WORDS[game])
    return st.one_of(words, words, words.map(str.upper), odd_text)


def history_item(game):
    return st.one_of(st.builds(lambda g, c: f"{g}:{c}", guess_text(game), colours), odd_text)


def true_item(game, secret):
    """A round with the colours ``secret`` really gives (so that histories often stay valid)."""
    from termo.core.feedback import colours as true_colours

    g = _game(game)

    def item(word, squares):
        pattern = true_colours(g.normalize(word), g.normalize(secret))
        if squares:
            pattern = pattern.translate(str.maketrans("GYB", "\U0001f7e9\U0001f7e8\u2b1b"))
        return f"{word}:{pattern}"

    return st.builds(item, st.sampled_from(WORDS[game]), st.booleans())


def history(game, secret, max_size):
    return st.lists(st.one_of(true_item(game, secret), true_item(game, secret), history_item(game)),
                    max_size=max_size)


number_text = st.one_of(st.integers(-5, 10).map(str), st.integers(1, 300).map(str), st.integers(-10**30, 10**30).map(str),
                        st.sampled_from(["inf", "nan", "1e400", "0x10", "1_000", "", " 3 ", "٣", "9" * 5000]),
                        odd_text)


def options(names):
    return st.lists(st.tuples(st.sampled_from(names), number_text), max_size=2).map(
        lambda pairs: [x for name, value in pairs for x in (name, value)])


@st.composite
def command_lines(draw):
    game = draw(st.sampled_from(GAMES))
    secret = draw(st.sampled_from(_game(game).answers))
    kind = draw(st.sampled_from(["suggest", "feedback", "partition", "rank", "play"]))
    json_flag = draw(st.booleans())
    if kind == "suggest":
        args = ["suggest", *draw(history(game, secret, 7)),
                *draw(options(["--level", "--beam", "--depth", "--t", "--opener"]))]
    elif kind == "feedback":
        args = ["feedback", draw(guess_text(game)), draw(guess_text(game))]
    elif kind == "partition":
        args = ["partition", draw(guess_text(game)), *draw(history(game, secret, 3)),
                *draw(options(["--t"]))]
    elif kind == "rank":
        args = ["rank", *draw(history(game, secret, 3)),
                *draw(options(["--top", "--t", "--by"]))]
    else:
        args = ["play", "--level", draw(st.sampled_from(["1", "2", "3"])), *draw(options(["--beam", "--depth"]))]
        json_flag = False
    if json_flag:
        args.append("--json")
    args += ["--game", game]
    stdin = b""
    if kind == "play":
        lines = draw(st.lists(st.one_of(
            history_item(game).map(lambda t: t.encode("utf-8", "surrogatepass")),
            true_item(game, secret).map(lambda t: t.encode("utf-8")),
            st.binary(max_size=20),
            st.sampled_from([b"undo", b"list", b"list 99999999999999999999", b"new", b"help", b"\xff\xfe", b"quit"])),
            max_size=8))
        stdin = b"\n".join(lines) + b"\n"
    return args, stdin


# ----------------------------------------------------------------------------- the property


def run_main(args, stdin: bytes):
    from cli.app import main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def _control(line: str) -> bool:
    return any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029\u202e" or 0xD800 <= ord(c) <= 0xDFFF
               for c in line)


def check(args, stdin):
    code, out, err = run_main(args, stdin)
    assert code in (0, 2), (args, code, err)
    assert "Traceback" not in err and "internal error" not in err, (args, err)
    lines = [line for line in err.splitlines()
             if not line.startswith("warning: ") and not line.startswith("termo: compiling")]
    if args[0] == "play":  # a piped game reports each rejected line on stderr and ends with 2
        assert not any(_control(line) for line in lines), (args, lines)
        assert (code == 2) == bool(lines), (args, code, err)
        return
    assert len(lines) <= 1, (args, err)
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("termo: error: "), (args, err)
        assert not _control(lines[0]), (args, lines[0])
        assert len(lines[0]) < 2100, args
    if "--json" in args and code == 0:
        json.loads(out)


FAST = settings(max_examples=300, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(command_lines())
def test_fuzz_command_lines(case):
    check(*case)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(command_lines())
def test_fuzz_many(case):
    check(*case)


@pytest.mark.parametrize("args, stdin", [
    (["suggest", "tarso:🟩🟨⬛⬜🟢", "--json"], b""),
    (["suggest", "tarso:vapc0", "filme:2 1 0 . -", "--json"], b""),
    (["feedback", "\x1b[31mtarso", "tarso", "--json"], b""),
    (["rank", "--top", "9" * 5000, "--game", "nerdle-mini"], b""),
    (["partition", "a" * 3000, "--json"], b""),
    (["play", "--level", "1"], b"tarso BBBBB\n\xff\xfe\xfd\n\x1b[2J\nfilme BBBYY\nlist 99999999999999999999\n"),
])
def test_known_cases(args, stdin):
    check(args, stdin)
