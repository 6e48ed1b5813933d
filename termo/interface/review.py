"""The review request of both front ends (`termo review`, ``POST /api/review``): parse, call, return.

A game comes in one of four shapes (docs/review.md), for a game or a mode of several boards:

* history items ``guess:colours`` (a mode: ``guess:p1/p2/…``, ``-`` for a solved board);
* the answer (a mode: the answers, comma-separated, in board order) and the guesses;
* a share text (`termo.games.share`) and the guesses, the colours read from its grid (with the
  answer too, the colours it gives must be the grid's);
* any of these with ``share=True``: only the game's own share text is written (no review).

`review_request` returns plain data: the study's review (`termo.analysis.review`) with the
history and the game's share text (None while the game is not over), or ``{"share": ...}``.
Every refusal is a `TermoError` (one line; the CLI exits 2, the API answers 422).
"""

from __future__ import annotations

import math

from termo.core.errors import TermoError

SHARE_TEXT_LIMIT = 8_000  # characters of a share text (an Octordle's is about 2,600)


def resolve(name: str | None, share_text: str | None):
    """``(registry name, game or mode, is a mode)`` of a request: ``name``, else the game the
    share text's header names (None with no header: TermoError, the game must be named)."""
    from termo.games.registry import get_mode, mode_name
    from termo.interface.requests import load_game

    if name is None and share_text is not None:
        from termo.games.share import read_header

        name = read_header(share_text).name
        if name is None:
            raise TermoError("the share text has no header naming its game: give the game (--game)", "share.no_header")
    key = mode_name(name)
    if key is not None:
        return key, get_mode(key), True
    game = load_game(name)
    return game.label, game, False


def review_request(name: str | None = None, items=(), *, answer: str | None = None, share_text: str | None = None,
                   hard: bool = False, t=1.0, loss=None, objective: str = "finish", nodes=None,
                   backend=None, share: bool = False, number=None) -> dict:
    """The review (or, with ``share``, the share text) of the game a request gives (see the
    module docstring). ``t``: the prior temperature; ``loss``: a loss's cost in guesses (one
    board; default 7, ``inf``: every answer must be found); ``objective``: a mode's; ``nodes``:
    the exact search's budget per turn (states); ``number``: the puzzle number in the text."""
    from termo.interface.requests import parse_int, parse_loss, parse_t

    if share_text is not None and len(share_text) > SHARE_TEXT_LIMIT:
        raise TermoError(f"the share text is too long: {len(share_text):,} characters, at most {SHARE_TEXT_LIMIT:,}",
                         "share.too_long", {"n": len(share_text), "limit": SHARE_TEXT_LIMIT})
    key, target, is_mode = resolve(name, share_text)
    model = getattr(target, "feedback", None)
    if model is not None and not model.honest:  # Absurdle, Fibble: the review's values assume honest colours
        raise TermoError(f"{key}: a review weighs each guess against honest colours; its colours are "
                         f"{model.describe()} (docs/rules.md §13)", "review.feedback_model", {"game": key})
    grid = None
    if share_text is not None:
        grid = _read_grid(share_text, key, target, is_mode)
        hard = hard or grid.header.hard
        number = grid.header.number if number is None else number
    if is_mode and hard:
        raise TermoError(f"hard mode is for one board; {key} has several", "review.hard_boards", {"game": key})
    number = None if number is None else parse_int("number", number, 0)
    temperature, cost = parse_t(t), parse_loss(loss)  # checked with --share too: a bad option is refused
    budget = None if nodes is None else parse_int("nodes", nodes, 1, 100_000_000)
    objective = _objective(objective, key, is_mode)
    rounds = game_rounds(target, is_mode, list(items or ()), answer, grid)
    rows = checked_rows(target, is_mode, rounds, hard)
    text = _share(key, target, is_mode, rows, hard, number)
    if share:
        if text is None:
            raise TermoError("the game is not over: a share text is written once every board is solved or the tries "
                             "are used up", "review.not_over")
        return {"game": key, "share": text}
    if is_mode:
        from termo.analysis.review import review_mode

        data = review_mode(target, rounds, objective=objective, t=temperature, nodes=budget, backend=backend)
    else:
        from termo.analysis.review import review_game

        data = review_game(target, rounds, hard=hard, t=temperature, loss=cost, nodes=budget,
                           first_nodes=budget, backend=backend)
    data["history"] = [_item(guess, patterns, is_mode) for guess, patterns in rounds]
    data["share"] = text
    return data


def _objective(objective, key: str, is_mode: bool) -> str:
    """A mode's objective (finish, score or win); one board: finish only."""
    name = str(objective).strip().lower()
    if not is_mode:
        if name != "finish":
            from termo.interface.suggest import objective_refused

            raise objective_refused(str(objective), key)
        return name
    from termo.engine.multi.level2 import Objective

    return Objective(name).name


def _read_grid(text: str, key: str, target, is_mode: bool):
    from termo.games.share import read_grid

    game = target.game if is_mode else target
    boards = target.boards if is_mode else 1
    return read_grid(text, boards, game.word_length, target.max_turns, key)


def _item(guess: str, patterns, is_mode: bool) -> str:
    if not is_mode:
        return f"{guess}:{patterns}"
    return f"{guess}:" + "/".join("-" if p is None else p for p in patterns)


# ----------------------------------------------------------------------------- the rounds


def game_rounds(target, is_mode: bool, items: list, answer, grid) -> list:
    """``[(guess, colours), ...]`` (a mode: ``(guess, [colours or None per board])``) from the
    request's items, answer and grid (see the module docstring)."""
    history = [i for i in items if ":" in i]
    if history and len(history) != len(items):
        raise TermoError("give either history items guess:colours or bare guesses (with --answer or a share text), "
                         "not both", "review.mixed_items")
    if history:
        if answer is not None:
            raise TermoError("the history items have their colours: --answer goes with bare guesses", "review.colours_and_answer")
        rounds = [_parse_item(item, target, is_mode) for item in history]
    elif answer is not None:
        rounds = _answer_rounds(target, is_mode, items, answer)
    elif grid is not None:
        if not items:
            raise TermoError("a share text has the colours, not the words: give the guesses too (or the answer and "
                             "the guesses)", "review.share_needs_guesses")
        if len(items) != grid.turns:
            raise TermoError(f"{len(items)} guess{'es' if len(items) != 1 else ''} for a grid of {grid.turns} "
                             f"row{'s' if grid.turns != 1 else ''}", "review.guess_count",
                             {"guesses": len(items), "rows": grid.turns})
        rounds = [(guess, list(row) if is_mode else row[0]) for guess, row in zip(items, grid.rows)]
    elif items:
        raise TermoError("bare guesses need the answer (--answer) or a share text for their colours", "review.needs_colours")
    else:
        raise TermoError("nothing to review: give the rounds played (guess:colours), or the guesses with the answer "
                         "or a share text", "review.nothing")
    if grid is not None:
        _match_grid(target, is_mode, rounds, grid, len(items))
    return rounds


def _parse_item(item: str, target, is_mode: bool):
    if is_mode:
        from termo.interface.positions import parse_turn

        return parse_turn(item, target.boards)
    from termo.engine.session import parse_history_item

    guess, colours = parse_history_item(item)
    return guess.strip(), colours.strip()


def _answer_rounds(target, is_mode: bool, guesses: list, answer: str) -> list:
    """The colours each guess gets against the answer(s); TermoError for a guess after the end."""
    game = target.game if is_mode else target
    answers = [a for a in str(answer).split(",")] if is_mode else [str(answer)]
    if is_mode and len(answers) != target.boards:
        raise TermoError(f"{len(answers)} answer(s) for {target.boards} boards: give one per board, comma-separated, "
                         f"in board order", "review.answer_count", {"n": len(answers), "boards": target.boards})
    norms = [game.word_of(a, role="answer") for a in answers]
    if not guesses:
        raise TermoError("--answer needs the guesses played", "review.answer_needs_guesses")
    solved = [False] * len(norms)
    rounds = []
    for number, guess in enumerate(guesses, start=1):
        if all(solved):
            raise TermoError(f"guess {number} ({guess}) comes after the game was won", "review.after_win",
                             {"n": number, "guess": guess})
        norm = game.word_of(guess)
        patterns = [None if done else colours_of(game, norm, a) for done, a in zip(solved, norms)]
        solved = [done or p == game.win_pattern for done, p in zip(solved, patterns)]
        rounds.append((guess, patterns) if is_mode else (guess, patterns[0]))
    return rounds


def colours_of(game, guess_norm: str, answer_norm: str) -> str:
    """The colours ``guess`` gets against ``answer`` under the game's rules (its win rule too)."""
    from termo.core.feedback import colours

    g, a = game.index_of(guess_norm), game.index_of(answer_norm)
    if g is not None and a is not None and a < game.n_answers and game.wins(g, a):
        return game.win_pattern
    return colours(guess_norm, answer_norm)


def _match_grid(target, is_mode: bool, rounds: list, grid, n_items: int) -> None:
    """The rounds' colours must be the share text's, row for row."""
    if len(rounds) != grid.turns:
        raise TermoError(f"{len(rounds)} guess{'es' if len(rounds) != 1 else ''} for a grid of {grid.turns} "
                         f"row{'s' if grid.turns != 1 else ''}", "review.guess_count",
                         {"guesses": len(rounds), "rows": grid.turns})
    game = target.game if is_mode else target
    for number, ((guess, patterns), row) in enumerate(zip(rounds, grid.rows), start=1):
        given = list(patterns) if is_mode else [patterns]
        for board, (p, want) in enumerate(zip(given, row), start=1):
            p = None if p is None else game.parse_colours(p)
            if p != want:
                where = f"board {board}, " if is_mode else ""
                raise TermoError(f"{where}row {number} ({guess}): the grid shows {want or 'a solved board'}, "
                                 f"the game gives {p or 'a solved board'}", "review.grid_differs",
                                 {"row": number, "guess": guess, "board": board})


def checked_rows(target, is_mode: bool, rounds: list, hard: bool) -> list:
    """The rounds replayed by the game's rules (one line for the first one broken): each turn's
    patterns per board (None once a board is solved)."""
    if is_mode:
        from termo.engine.multi.boards import BoardsState

        state = BoardsState.start(target)
        rows = []
        for number, (guess, patterns) in enumerate(rounds, start=1):
            try:
                before = state
                state = state.apply(guess, patterns)
            except TermoError as err:
                raise TermoError(f"turn {number} ({guess}): {err}", err.code, err.params) from None
            rows.append(tuple(None if before.solved_on[b] is not None else target.game.parse_colours(p)
                              for b, p in enumerate(patterns)))
        return rows
    from termo.engine.session import Session

    if len(rounds) > target.max_turns:
        raise TermoError(f"{len(rounds)} rounds: {target.shown} has {target.max_turns} tries",
                         "review.too_many_rounds", {"rounds": len(rounds), "tries": target.max_turns})
    session = Session(target, hard=hard)
    session.replay([f"{guess}:{colours}" for guess, colours in rounds])
    return [(r.pattern,) for r in session.rounds]


def _share(key: str, target, is_mode: bool, rows: list, hard: bool, number) -> str | None:
    """The game's share text, None while it is not over."""
    from termo.games.share import write_share

    solved = [any(r[b] is not None and set(r[b]) == {"G"} for r in rows) for b in range(len(rows[0]))]
    if not (all(solved) or len(rows) >= target.max_turns):
        return None
    return write_share(key, rows, target.max_turns, hard=hard, number=number)


# ----------------------------------------------------------------------------- text


def format_review(data: dict) -> list[str]:
    """Plain-text lines of a review: a line per turn, then the totals and scores."""
    mode = data.get("mode")
    head = f"{data['title']}: {_result(data)}"
    unit = "expected " + ("guesses" if not mode else {"finish": "turns to finish", "score": "share-card score",
                                                       "win": "chance to lose"}.get(data["objective"], data["objective"]))
    lines = [head + f" ({unit}, this turn included; method: {data['method']})"]
    width = max([len(str(r["guess"])) for r in data["turns"]] + [5])
    for r in data["turns"]:
        colours = r["colours"] if not mode else "/".join("-" if p is None else p for p in r["colours"])
        best = ", ".join(r["best"][:3]) or "-"
        lines.append(f"{r['turn']}. {r['guess']:<{width}} {colours}  {r['method']:<7} best {best} "
                     f"{_num(r['best_value'])}, this {_num(r['guess_value'])}: cost {_num(r['cost'])} "
                     f"({_words(r['verdict'])}); luck {_num(r['luck'], signed=True)} ({_words(r['luck_verdict'])})")
    if data.get("skill") is not None:
        lines.append(f"skill {data['skill']}/99 ({_words(data['verdict'])}, total cost {_num(data['total_cost'])}); "
                     f"luck {data['luck_score']}/99 ({_words(data['luck_verdict'])}, total "
                     f"{_num(data['total_luck'], signed=True)})")
    return lines


def _result(data: dict) -> str:
    tries = data["tries"]
    if not data["over"]:
        return f"in progress, {data['played']}/{tries}"
    if data.get("mode"):
        turns = ["X" if t is None else str(t) for t in data["solved_on"]]
        return f"{'won' if data['won'] else 'lost'}, boards solved on turns {' '.join(turns)} of {tries}"
    return f"{data['played']}/{tries}" if data["won"] else f"X/{tries}"


def _num(value, signed: bool = False) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _words(name) -> str:
    return "-" if name is None else str(name).replace("_", " ")
