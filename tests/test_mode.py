"""Modes (several boards of one game, one shared turn limit) and their candidate state.

`termo.games.mode.Mode` names the boards and the limit; `termo.engine.multi.boards.BoardsState`
filters every unsolved board by its own colours of one guess. Each board's candidates are
checked against a plain-Python oracle over the answer list (``feedback(guess, answer) ==
pattern`` for every round the board saw); one board is the single-board `Session`, turn for turn.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings, strategies as st

from termo.core.errors import TermoError
from termo.core.feedback import feedback
from termo.core.messages import CATALOGUE, LANGS, render
from termo.engine.multi.boards import BoardsState
from termo.engine.session import Session
from termo.games import get_game
from termo.games.mode import Mode
from termo.games.registry import MODE_NAMES, get_mode

# a few guesses of the word list: the oracle's feedback rows are computed once for each
GUESSES = ("tarso", "ninho", "lindo", "ruído", "fuzil", "chave", "pompa", "gemer", "bicho", "dueto")


@functools.lru_cache(maxsize=1)
def _matrix():
    from termo.engine.matrix import pattern_matrix

    return pattern_matrix(get_game("termo"))


@pytest.fixture(scope="module")
def termo():
    """Termo, its pattern matrix and Dueto (two boards of Termo, seven turns)."""
    game = get_game("termo")
    return game, _matrix(), Mode(game, 2, 7, key="dueto", title="Dueto")


@functools.lru_cache(maxsize=None)
def _row(guess: str) -> tuple[str, ...]:
    """The colours of ``guess`` against every Termo answer, by plain `feedback`."""
    return tuple(feedback(guess, answer) for answer in get_game("termo").answers)


def oracle(rounds) -> list[int]:
    """The answers that would have shown every ``(guess, pattern)`` of ``rounds``."""
    n = get_game("termo").n_answers
    return [i for i in range(n) if all(_row(g)[i] == p for g, p in rounds)]


def answer_index(game, word: str) -> int:
    index = game.index_of(word)
    assert index is not None and game.is_answer_index(index), word
    return index


def play(state, guess, answers):
    """Apply ``guess`` with each unsolved board's colours from its answer (None when solved)."""
    patterns = [None if solved else feedback(guess, answer) for solved, answer in zip(state.solved, answers)]
    return state.apply(guess, patterns), patterns


# ----------------------------------------------------------------------------- the modes


def test_the_registry_modes_have_the_published_boards_and_turns():
    expected = {"dueto": ("termo", 2, 7), "quarteto": ("termo", 4, 9), "dordle": ("wordle", 2, 7),
                "quordle": ("wordle", 4, 9), "octordle": ("wordle", 8, 13), "binerdle": ("nerdle", 2, 7),
                "quad-nerdle": ("nerdle", 4, 10), "sedecordle": ("wordle", 16, 21), "duotrigordle": ("wordle", 32, 37)}
    assert set(MODE_NAMES) == set(expected)
    for name in ("dueto", "quarteto", "quordle"):  # building the Nerdle game costs more: the table says it
        mode = get_mode(name)
        assert (mode.game.label, mode.boards, mode.max_turns) == expected[name]
        summary = mode.summary()
        assert {k: summary[k] for k in ("name", "title", "game", "boards", "turns")} == {
            "name": name, "title": mode.title, "game": expected[name][0], "boards": expected[name][1],
            "turns": expected[name][2]}
        assert (summary["answers"], summary["probes"], summary["length"]) == (
            mode.game.n_answers, mode.game.n_probes, mode.game.word_length)
    from termo.games.registry import _MODES

    assert {name: row[:3] for name, row in _MODES.items()} == expected


def test_quordle_plays_wordle_less_the_ten_blacklisted_answers():
    from termo.engine.matrix import cache_paths, matrix_signature
    from termo.games.wordle_en import QUORDLE_BLACKLIST

    wordle, quordle = get_game("wordle"), get_mode("quordle").game
    assert (quordle.n_answers, quordle.n_probes) == (2305, 12972) and quordle.label == "wordle"
    assert set(wordle.answers) - set(quordle.answers) == set(QUORDLE_BLACKLIST) == {
        "gypsy", "gipsy", "mammy", "agora", "slave", "hussy", "junta", "junto", "welch", "moron"}
    assert set(quordle.probes) == set(wordle.probes) and quordle.probes[:2305] == quordle.answers
    assert all(quordle.index_of(w) >= 2305 for w in QUORDLE_BLACKLIST)  # still typeable guesses
    assert get_mode("quordle").game is quordle  # built once, like the other games
    assert matrix_signature(quordle) != matrix_signature(wordle)  # its own matrix in the cache
    assert cache_paths(quordle) != cache_paths(wordle)
    for name in ("dordle", "octordle"):
        assert get_mode(name).game is wordle


def test_a_mode_name_in_a_one_board_command_says_so(monkeypatch):
    from termo.games.registry import mode_name

    for name in MODE_NAMES:
        with pytest.raises(TermoError, match=f"'{name}' is a mode of .* boards .*termo suggest"):
            get_game(name)
    assert mode_name("Quad_Nerdle") == "quad-nerdle" and mode_name("termo") is None
    monkeypatch.setenv("TERMO_GAME", "quarteto")
    assert mode_name() == "quarteto" and get_mode().boards == 4


def test_a_single_board_mode_is_the_game_itself(termo):
    game = termo[0]
    mode = Mode.single(game)
    assert (mode.game, mode.boards, mode.max_turns, mode.label, mode.title) == (game, 1, 6, "termo", "Termo")
    assert mode.boards == 1 and get_mode("termo") == mode
    assert Mode(game, 3, 8).label == "termo-x3"


def test_a_mode_needs_boards_and_turns(termo):
    game = termo[0]
    for boards, turns in ((0, 7), (2, 0), (True, 7), (2.0, 7)):
        with pytest.raises(TermoError):
            Mode(game, boards, turns)
    with pytest.raises(TermoError) as err:
        get_mode("septeto")
    assert err.value.code == "game.unknown" and "dueto" in err.value.params["choices"]


def test_the_games_do_not_list_the_modes():
    from termo.games import GAME_NAMES

    assert not set(GAME_NAMES) & set(MODE_NAMES)


# ----------------------------------------------------------------------------- two boards of Termo


def test_two_boards_follow_their_own_answers(termo):
    game, matrix, dueto = termo
    answers = ("fuzil", "pompa")
    state = BoardsState.start(dueto, matrix)
    assert state.candidate_lists() == [list(range(game.n_answers))] * 2 and state.turns_left == 7
    rounds = [[], []]
    for guess in ("tarso", "lindo", "chave"):
        before = state
        state, patterns = play(state, guess, answers)
        for board in range(2):
            rounds[board].append((guess, patterns[board]))
            assert state.candidate_lists()[board] == oracle(rounds[board])
            assert answer_index(game, answers[board]) in state.candidate_lists()[board]
        assert before.turns == state.turns - 1  # apply made a new state
    assert state.turns == 3 and state.turns_left == 4 and state.solved == (False, False)


def test_a_solved_board_takes_no_more_colours(termo):
    game, matrix, dueto = termo
    answers = ("fuzil", "pompa")
    state, _ = play(BoardsState.start(dueto, matrix), "tarso", answers)
    state, patterns = play(state, "fuzil", answers)
    assert patterns[0] == "GGGGG" and state.solved == (True, False) and state.solved_on == (2, None)
    assert state.candidate_lists()[0] == [answer_index(game, "fuzil")]
    assert state.unsolved == (1,) and not state.over
    with pytest.raises(TermoError) as err:
        state.apply("pompa", ["GGGGG", "GGGGG"])
    assert err.value.code == "boards.solved_pattern" and err.value.params == {"board": 1}
    state, patterns = play(state, "pompa", answers)
    assert patterns == [None, "GGGGG"] and state.won and state.over and state.solved_on == (2, 3)
    with pytest.raises(TermoError) as err:
        state.apply("tarso", [None, None])
    assert err.value.code == "boards.won"


def test_the_shared_turn_limit(termo):
    _, matrix, dueto = termo
    answers = ("fuzil", "pompa")
    state = BoardsState.start(dueto, matrix)
    for guess in ("tarso", "ninho", "lindo", "ruído", "chave", "gemer", "bicho"):
        assert not state.over
        state, _ = play(state, guess, answers)
    assert state.turns == 7 and state.turns_left == 0 and state.out_of_turns and not state.won
    with pytest.raises(TermoError) as err:
        play(state, "fuzil", answers)
    assert err.value.code == "boards.over" and err.value.params == {"tries": 7}


@pytest.mark.parametrize("patterns,code", [
    (["BBBBB"], "boards.count"),
    (["BBBBB", "BBBBB", "BBBBB"], "boards.count"),
    (["BBBBB", None], "boards.missing_pattern"),
    (["BBBBB", "GGGGX"], "boards.board"),
    (["BBBBB", "GGGGY"], "boards.board"),  # impossible colours: one yellow, no free position
    (["GGGGG", "GGGGG"], "boards.same_answer"),
])
def test_a_wrong_turn_is_rejected_and_changes_nothing(termo, patterns, code):
    _, matrix, dueto = termo
    state = BoardsState.start(dueto, matrix)
    with pytest.raises(TermoError) as err:
        state.apply("tarso", patterns)
    assert err.value.code == code
    assert state.turns == 0 and state.solved == (False, False)
    for lang in LANGS:  # every rejection is a catalogue sentence in each board language
        assert render(err.value.code, err.value.params, lang)


def test_the_nested_reason_of_a_bad_pattern(termo):
    _, matrix, dueto = termo
    with pytest.raises(TermoError) as err:
        BoardsState.start(dueto, matrix).apply("tarso", ["BBBBB", "GGGGY"])
    assert err.value.params["board"] == 2 and err.value.params["error"]["code"] == "colours.impossible"
    assert str(err.value).startswith("board 2: ")


def test_colours_no_answer_shows_are_rejected(termo):
    _, matrix, dueto = termo
    state, _ = play(BoardsState.start(dueto, matrix), "tarso", ("fuzil", "pompa"))
    left = state.candidate_lists()[1]
    shown = {_row("lindo")[i] for i in left}
    empty = next(p for p in _row("lindo") if p not in shown)
    with pytest.raises(TermoError) as err:
        state.apply("lindo", [feedback("lindo", "fuzil"), empty])
    assert err.value.code == "boards.empty" and err.value.params["board"] == 2
    with pytest.raises(TermoError) as err:  # the win pattern for an answer the board has ruled out
        state.apply("tarso", [feedback("tarso", "fuzil"), "GGGGG"])
    assert err.value.code == "boards.empty"


def test_the_new_codes_are_in_the_catalogue():
    for code in ("boards.count", "boards.solved_pattern", "boards.missing_pattern", "boards.board", "boards.empty",
                 "boards.same_answer", "boards.won", "boards.over"):
        assert set(CATALOGUE[code]) == set(LANGS)


# ----------------------------------------------------------------------------- one board = the session


def test_one_board_is_the_single_board_session(termo):
    game, matrix, _ = termo
    answer = "gemer"
    state = BoardsState.start(Mode.single(game), matrix)
    session = Session(game, matrix=matrix)
    for guess in ("tarso", "ninho", "lindo", "gemer"):
        pattern = feedback(guess, answer)
        outcome = session.play(guess, pattern)
        state = state.apply(guess, [pattern])
        assert state.turns == len(session.rounds) and state.won == session.won
        if not outcome.round.won:
            assert state.candidate_lists() == [session.candidate_list()]
    assert state.won and state.solved_on == (4,) and state.candidate_lists() == [[answer_index(game, answer)]]


# ----------------------------------------------------------------------------- any answers, any guesses


@settings(max_examples=15, deadline=None, database=None)
@given(data=st.data())
def test_every_board_matches_the_oracle(data):
    game = get_game("termo")
    boards = data.draw(st.integers(2, 3), label="boards")
    picks = data.draw(st.lists(st.sampled_from(GUESSES + ("acral", "enodo", "abade")), min_size=boards,
                               max_size=boards, unique=True), label="answers")
    guesses = data.draw(st.lists(st.sampled_from(GUESSES), min_size=1, max_size=6), label="guesses")
    state = BoardsState.start(Mode(game, boards, 7), _matrix())
    rounds = [[] for _ in range(boards)]
    for guess in guesses:
        if state.over:
            break
        state, patterns = play(state, guess, picks)
        for board, pattern in enumerate(patterns):
            if pattern is None:
                continue
            rounds[board].append((guess, pattern))
            if pattern == "GGGGG":
                assert state.candidate_lists()[board] == [answer_index(game, picks[board])]
            else:
                assert state.candidate_lists()[board] == oracle(rounds[board])
    assert state.solved == tuple(picks[b] in [g for g, _ in rounds[b]] for b in range(boards))
