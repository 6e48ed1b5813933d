"""termo.engine.session: parsing history items, validation, filtering (matrix row and slow path), undo,
empty results, wins. A toy game with a plain-Python matrix keeps most tests independent of the
real lexicon; the last ones replay the published transcripts (docs/rules.md §10) on the real game."""

from __future__ import annotations

import pytest

from termo.core.errors import TermoError
from termo.core.feedback import feedback_code, normalize
from termo.games import Game
from termo.games.termo_pt import termo_like
from termo.engine.session import Session, candidates_after, parse_history_item

TOY_ANSWERS = ("arara", "banco", "barra", "carro", "metro", "porta", "ratos", "saúde", "tarso", "termo")
TOY_EXTRAS = ("areio", "ovaxx")


def toy_game(extended: bool = True) -> Game:
    answers = tuple(sorted(TOY_ANSWERS, key=normalize))
    probes = answers + (TOY_EXTRAS if extended else ())
    return termo_like("toy", answers, probes, tuple(float(10 + i) for i in range(len(answers))),
                      extended=extended)


def toy_matrix(game: Game):
    """The pattern matrix by the scalar rule (rows = probes, columns = answers)."""
    import numpy as np

    return np.array(
        [[feedback_code(p, a) for a in game.answers_norm] for p in game.probes_norm], dtype=np.uint8
    )


@pytest.fixture
def game():
    return toy_game()


@pytest.fixture
def session(game):
    return Session(game, matrix=toy_matrix(game))


def brute_force(game, rounds):
    """Answer indices consistent with every (guess, pattern) by the scalar rule."""
    from termo.core.feedback import feedback

    return [i for i, a in enumerate(game.answers) if all(feedback(g, a) == p for g, p in rounds)]


# ------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    "item, expected",
    [
        ("tarso:BBBBB", ("tarso", "BBBBB")),
        ("saúde:ygbbb", ("saúde", "ygbbb")),
        (" tarso : 🟨🟩⬛⬛⬛", ("tarso", " 🟨🟩⬛⬛⬛")),
    ],
)
def test_parse_history_item(item, expected):
    assert parse_history_item(item) == expected


@pytest.mark.parametrize("item", ["tarso", "tarso:", ":BBBBB", "", "  :  "])
def test_parse_history_item_rejects(item):
    with pytest.raises(TermoError, match="guess:colours"):
        parse_history_item(item)


# ---------------------------------------------------------------------------- filtering


def test_filter_matches_brute_force(session, game):
    out = session.play("tarso", "BGGBB")
    assert out.status == "applied"
    assert session.candidate_list() == brute_force(game, [("tarso", "BGGBB")])
    assert out.round.before == 10 and out.round.after == session.n_candidates


def test_every_pattern_of_every_probe_agrees_with_brute_force(game):
    """Each (probe, pattern) that occurs: the session filter = the scalar filter."""
    from termo.core.feedback import feedback

    matrix = toy_matrix(game)
    for probe in game.probes:
        for pattern in sorted({feedback(probe, a) for a in game.answers}):
            if pattern == "GGGGG":
                continue  # a win does not filter (test_win_detection)
            s = Session(game, matrix=matrix)
            s.play(probe, pattern)
            assert s.candidate_list() == brute_force(game, [(probe, pattern)]), (probe, pattern)


def test_accents_optional_and_display_form(session):
    out = session.play("saude", "BGBBB")
    assert out.round.guess == "saúde"
    assert out.round.probe is not None
    assert out.warnings == ()


@pytest.mark.parametrize("pattern", ["pvvcc", "02200", "⬛🟩🟩⬛⬜", " b g g - . "])
def test_pattern_formats(session, game, pattern):
    session.play("tarso", pattern)
    assert session.rounds[-1].pattern == "BGGBB"


def test_unknown_word_slow_path_warns_and_filters(session, game):
    out = session.play("mosca", "BYYBY")  # not in the toy probe list
    assert out.round.probe is None
    assert out.warnings and "not in the word list" in out.warnings[0]
    assert session.candidate_list() == brute_force(game, [("mosca", "BYYBY")])


def test_slow_path_equals_matrix_path(game):
    """A known probe filtered through the scalar path gives the matrix path's answer."""
    matrix = toy_matrix(game)
    for probe in game.probes:
        for answer in game.answers:
            pattern = __import__("termo.core.feedback", fromlist=["feedback"]).feedback(probe, answer)
            s = Session(game, matrix=matrix)
            guess = s.check_guess(probe)
            fast = s.filter(guess, pattern).tolist()
            slow = s.filter(type(guess)(guess.word, guess.norm, None), pattern).tolist()
            assert fast == slow


def test_impossible_pattern_rejected_before_filtering(session):
    with pytest.raises(TermoError, match="impossible colours GGGGY for tarso"):
        session.play("tarso", "GGGGY")
    assert session.rounds == () and session.n_candidates == 10


def test_bad_inputs(session):
    with pytest.raises(TermoError, match="has 4 letters"):
        session.play("casa", "BBBBB")
    with pytest.raises(TermoError, match="letters only"):
        session.play("ca5as", "BBBBB")
    with pytest.raises(TermoError, match="not a colour"):
        session.play("tarso", "BBBBX")
    with pytest.raises(TermoError, match="expected 5"):
        session.play("tarso", "BBBB")


def test_empty_result_reported_and_not_applied(session):
    session.play("tarso", "BGGBB")
    before = session.candidate_list()
    out = session.play("banco", "GGGGB")  # possible pattern, but no toy answer fits it
    assert out.status == "empty" and not out.applied
    assert out.round.after == 0
    assert session.candidate_list() == before
    assert len(session.rounds) == 1


def test_undo_restores_candidates(session):
    assert session.undo() is None
    session.play("tarso", "BGGBB")
    first = session.candidate_list()
    session.play("arara", session_pattern(session, "arara", first))
    assert len(session.rounds) == 2
    undone = session.undo()
    assert undone.guess == "arara"
    assert session.candidate_list() == first
    session.undo()
    assert session.n_candidates == 10 and session.turn == 1


def session_pattern(session, guess, candidates):
    """The pattern `guess` gets against the first remaining candidate (a consistent round)."""
    from termo.core.feedback import feedback

    return feedback(guess, session.game.answers[candidates[0]])


def test_win_detection(session):
    session.play("tarso", "BGGBB")
    n = session.n_candidates
    out = session.play("barra", "GGGGG")  # the answer tarso BGGBB leaves
    assert out.status == "won" and session.won and session.over
    assert session.n_candidates == n  # a winning round does not filter
    with pytest.raises(TermoError, match="already won"):
        session.play("porta", "BBBBB")
    session.undo()
    assert not session.won


def test_all_green_must_fit_the_earlier_rounds(session):
    """A win is checked against the rounds before it: an answer they ruled out cannot win."""
    from termo.core.feedback import feedback

    session.play("tarso", feedback("tarso", "metro"))
    n = session.n_candidates
    with pytest.raises(TermoError, match=r"porta cannot be the answer: round 1 would have coloured tarso"):
        session.play("porta", "GGGGG")
    assert not session.won and session.n_candidates == n and len(session.rounds) == 1
    # a word outside the lists may win (the answer is missing from the lexicon) only when it
    # fits every round; one that does not is refused with the round it breaks
    with pytest.raises(TermoError, match="round 1 would have coloured"):
        session.play("ttttt", "GGGGG")  # letters of the game, a word of no list
    assert session.play("metro", "GGGGG").status == "won"


def test_all_green_follows_the_commutative_win_rule():
    """Nerdle: a rearrangement of the answer wins, so it is not refused (and others are)."""
    from termo.core.feedback import colours
    from termo.games.registry import get_game

    game = get_game("nerdle-mini")
    s = Session(game)
    answer = "7*4=28"
    assert game.wins(game.index_of("4*7=28"), game.index_of(answer))
    s.play("12/3=4", colours("12/3=4", answer))
    assert s.play("4*7=28", "GGGGGG").status == "won"  # the commuted form of a candidate
    s = Session(game)
    s.play("12/3=4", colours("12/3=4", answer))
    with pytest.raises(TermoError, match="cannot be the answer"):
        s.play("12/3=4", "GGGGGG")


def test_replayed_history_refuses_an_impossible_win(game):
    with pytest.raises(TermoError, match=r"round 2 \(porta:GGGGG\): porta cannot be the answer"):
        candidates_after(game, ["tarso:BGBBG", "porta:GGGGG"], matrix=toy_matrix(game))


def test_out_of_turns(game):
    from termo.core.feedback import feedback

    s = Session(game, matrix=toy_matrix(game))
    for _ in range(6):
        assert not s.over
        s.play("areio", feedback("areio", "banco"))  # consistent, never a win
    assert s.out_of_turns and s.over and not s.won and s.turn == 7


def test_reset(session):
    session.play("tarso", "BGGBB")
    session.reset()
    assert session.rounds == () and session.n_candidates == 10


def test_replay_strict_errors_name_the_round(game):
    matrix = toy_matrix(game)
    with pytest.raises(TermoError, match=r"round 2 \(tarso:GGGGY\): impossible"):
        candidates_after(game, ["tarso:BGGBB", "tarso:GGGGY"], matrix=matrix)
    with pytest.raises(TermoError, match=r"round 2 \(banco:GGGGB\) leaves no candidate"):
        candidates_after(game, ["tarso:BGGBB", "banco:GGGGB"], matrix=matrix)
    with pytest.raises(TermoError, match="guess:colours"):
        candidates_after(game, ["tarso"], matrix=matrix)


def test_history_and_most_likely(session, game):
    session.play("tarso", "bggbb")
    assert session.history() == ["tarso:BGGBB"]
    words = session.most_likely(None)
    icf = {game.answers[i]: game.icf[i] for i in range(game.n_answers)}
    assert [icf[w] for w in words] == sorted(icf[w] for w in words)
    assert session.most_likely(1) == words[:1]


# ------------------------------------------------------------------ the real Termo game


@pytest.fixture(scope="module")
def termo():
    from termo.games.termo_pt import termo_game

    return termo_game()


def test_real_transcript_counts(termo):
    assert candidates_after(termo, ["tarso:BBBBB"]).n_candidates == 223
    assert candidates_after(termo, ["tarso:BBBBB", "filme:BBBYY"]).n_candidates == 12
    assert candidates_after(termo, ["tarso:BBGBB"]).n_candidates == 51


def test_real_unknown_word_equals_brute_force(termo):
    from termo.core.feedback import feedback

    s = candidates_after(termo, ["tarso:BBBBB"])
    before = [termo.answers[i] for i in s.candidate_list()]
    assert termo.index_of("quxyz") is None
    out = s.play("quxyz", "BYBBB")
    assert out.round.probe is None and out.warnings
    assert [termo.answers[i] for i in s.candidate_list()] == [
        w for w in before if feedback("quxyz", w) == "BYBBB"
    ]


# ------------------------------------------------------------------------- properties

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_filter_keeps_exactly_the_consistent_answers(termo, data):
    """Two rounds against a random secret, with probes or random letter strings as guesses:
    the session keeps the secret and exactly the answers a brute-force scan keeps."""
    from termo.core.feedback import feedback

    secret = data.draw(st.sampled_from(termo.answers), label="secret")
    word = st.one_of(
        st.sampled_from(termo.probes),
        st.text(alphabet="abcdeilmnorstuz", min_size=5, max_size=5),
    )
    guesses = data.draw(st.lists(word, min_size=1, max_size=2), label="guesses")
    s = Session(termo)
    rounds = []
    for guess in guesses:
        pattern = feedback(guess, secret)
        if pattern == "GGGGG":
            break
        out = s.play(guess, pattern)
        assert out.status == "applied"
        rounds.append((guess, pattern))
    kept = s.candidate_list()
    assert termo.answers.index(secret) in kept or not rounds
    expected = [i for i, a in enumerate(termo.answers) if all(feedback(g, a) == p for g, p in rounds)]
    assert kept == expected
