"""``termo optimal``: the exact solver (:mod:`termo.exact`), a thin wrapper.

Options are read as text and checked here or by the library: a bad value is one line on stderr
and exit code 2. Progress goes to stderr (a plain line every few seconds at most); the result to
stdout, as text or, with ``--json``, as the plain data of ``ExactResult.as_dict`` plus ``beam``
(level 3's E for the same opener) when an opener is fixed (``--no-beam`` leaves it out). ``--rank N``
ranks every first word (`cli.optimal_rank`, docs/exact.md).

A mode of several boards (``--game quarteto``, history items ``guess:p1/.../pB``) is solved by
the exact joint search over product states (`termo.engine.multi.exact`, docs/modes-solver.md) under
``--objective``: proved, or within ``--time``/``--nodes`` the bracket reached (``lower``, ``upper``,
``gap``). ``--opener WORD --bracket`` brackets a whole two-board game from a fixed first guess
(`cli.optimal_bracket`).
"""

from __future__ import annotations

import sys
import time
from typing import Annotated, List, Optional

import typer

from cli.common import fail, print_json, progress_interval, user_errors
from termo.interface.requests import load_game
from termo.core.safe_text import one_line
from cli.options import BackendOption, GameOption, JsonOption, LossOption, nodes_option
from cli.options import with_options
from termo.interface.requests import parse_int, parse_loss, parse_seconds
from cli.optimal_rank import CLUSTER_OPTIONS, Cluster, RankOption, optimal_rank, rank as ranked_first_words

DEFAULT_TIME = 540.0  # seconds: a mode's default budget (the single-board search's)
OBJECTIVE_TEXT = {"finish": "the turn the last board is solved", "score": "the sum of the boards' solve turns",
                  "win": "the chance of losing"}

MAX_NODES = 10**12
MODE_ALTERNATIVES = 5  # a mode's proved alternatives (the next best first guesses, exact)
MODE_ALTERNATIVES_PRODUCT = 500  # ... for states of at most this many joint tuples (above: the best only)


def _stderr_progress():
    """A progress callback writing at most one line per progress interval to stderr."""
    last = {"t": time.monotonic()}
    interval = progress_interval()

    def report(text: str) -> None:
        now = time.monotonic()
        if now - last["t"] < interval:
            return
        last["t"] = now
        try:
            sys.stderr.write(one_line(f"termo: optimal: {text}") + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    return report


def _parse_time(text: Optional[str]) -> Optional[float]:
    return parse_seconds("time", text)


@user_errors
@with_options("cluster", CLUSTER_OPTIONS)
def optimal_command(
    ctx: typer.Context,
    game: GameOption = None,
    opener: Annotated[Optional[str], typer.Option("--opener", metavar="WORD",
                                                  help="Fix the first guess (default: every first word is ranked "
                                                       "until the best is proved, resumable like --rank 1; with "
                                                       "--time or --nodes, one budgeted search instead).",
                                                  show_default=False)] = None,
    hard: Annotated[bool, typer.Option("--hard", help="Hard mode: greens kept, revealed symbols reused.")] = False,
    t: Annotated[str, typer.Option("--t", "-t", metavar="T", help="Prior temperature: softmax(-ICF/T); 'inf' = uniform (ignored by uniform games).")] = "1",
    time_limit: Annotated[Optional[str], typer.Option("--time", metavar="SECONDS",
                                                      help="Stop after this many seconds with the bounds reached (default 540 when --nodes is not given).",
                                                      show_default=False)] = None,
    nodes: nodes_option("Stop after expanding N states (1 to 10^12); with --bracket: the states each pair of answer "
                        "sets may expand per 1,000 joint tuples (0 to 10^12, default 2,000); Fibble: the honest solver's states per "
                        "100 candidates of a row of the opener (default 2,000).") = None,
    backend: BackendOption = None,
    json_out: JsonOption = False,
    history: Annotated[Optional[List[str]], typer.Argument(
        metavar="HISTORY", help="A mode's turns so far: guess:p1/p2/... (one pattern per board, '-' for a "
                                     "solved board).", show_default=False)] = None,
    objective: Annotated[Optional[str], typer.Option("--objective", metavar="NAME",
                                                     help="A mode's objective: finish (default), score or win.",
                                                     show_default=False)] = None,
    loss: LossOption = "7",
    strict: Annotated[bool, typer.Option("--strict", help="Nerdle: only the written form wins (default: "
                                                          "commutative answers win).")] = False,
    beam: Annotated[bool, typer.Option("--beam/--no-beam", help="With --opener (normal mode): also give level 3's "
                                                                 "value for the same opener, to compare.")] = True,
    rank: RankOption = None,
    bracket: Annotated[bool, typer.Option("--bracket", help="With a mode of two boards and --opener: a proved lower "
                                                            "bound and the exact value of the best strategy found "
                                                            "over every answer pair (docs/modes-solver.md).")] = False,
    challenge: Annotated[bool, typer.Option("--challenge", help="Absurdle: challenge mode, the fewest guesses that "
                                                              "force every target (checkpointed like --rank).")] = False,
    cluster: Cluster = Cluster(),
) -> None:
    """The minimum expected number of guesses, proved by branch and bound (or the bounds reached);
    with --rank N, every first word ranked, the N best proved; for a mode (--game quarteto), the
    proved best expected objective of a state (thousands of joint
    answer tuples), or the bracket reached within --time/--nodes."""
    from termo.interface.exact import beam_value, solve
    from termo.core.prior import parse_temperature

    mode = _mode_named(game)
    if mode is not None:
        if bracket:
            from cli.optimal_bracket import optimal_bracket

            optimal_bracket(mode, opener, history, objective, t, cluster, json_out, nodes)
            return
        if opener is not None:
            fail("--opener with a mode: give --bracket (a whole game from that first guess), or play it as the history")
        cluster.check_unused()
        _optimal_mode(mode, history or [], objective, backend, json_out, time_limit, nodes)
        return
    if bracket:
        fail("--bracket is for a mode of two boards (--game dordle, dueto, ...)")
    g = load_game(game, strict=strict)
    if not g.feedback.honest:  # Absurdle's adversary, Fibble's lies (docs/rules.md §13)
        from cli.optimal_feedback import optimal_feedback

        optimal_feedback(g, hard=hard, challenge=challenge, opener=opener, nodes=nodes, rank=rank, cluster=cluster,
                         json_out=json_out, progress=_stderr_progress())
        return
    if challenge:
        fail("--challenge is Absurdle's challenge mode (--game absurdle)")
    if history:
        fail("a history is for a mode of several boards (--game dueto, quarteto, dordle, ...)")
    if objective is not None and objective != "finish":
        from termo.interface.suggest import objective_refused

        fail(str(objective_refused(objective, game or "termo")))
    temperature = parse_temperature(t)
    loss_cost = parse_loss(loss)
    if rank is None and cluster.status and opener is None and time_limit is None and nodes is None:
        rank = 1  # how far the ranking behind `termo optimal` (no opener) has gone
    if rank is not None:
        if opener is not None or time_limit is not None or nodes is not None:
            fail("--rank ranks every first word until it is proved (resumable): give it without --opener, "
                 "--time or --nodes")
        optimal_rank(g, rank, hard, temperature, loss_cost, cluster, json_out)
        return
    ranked = None
    if opener is None and time_limit is None and nodes is None:
        # every first word: the ranking driver proves the best (resumable), then its proof is shown
        ranked = ranked_first_words(g, 1, hard, temperature, loss_cost, cluster)
        opener = ranked["best"]
    else:
        cluster.check_unused()
    seconds = _parse_time(time_limit)
    node_limit = None if nodes is None else parse_int("nodes", nodes, 1, MAX_NODES)
    result = solve(g, opener=opener, hard=hard, t=temperature, time_limit=seconds, node_limit=node_limit,
                   backend=backend, progress=_stderr_progress(), loss=loss_cost)
    data = result.as_dict()
    data["first_guess"] = g.probes[int(result.tree()["guess"])]
    if ranked is not None:
        data["opener"] = None  # the best over every first word, proved by the ranking
        data["first_words"] = ranked["first_words"]
    data["backend"] = _backend_name(backend)
    if data["opener"] is not None and not hard and beam:
        data["beam"] = beam_value(g, result.opener, temperature, backend)
    if json_out:
        print_json(data)
        return
    _print_text(g, data)


def _mode_named(name):
    """The registry mode ``name`` names (several boards), else None (a single game)."""
    from termo.games.registry import MODE_NAMES, get_mode

    key = str(name).strip().lower().replace("_", "-") if name else ""
    return get_mode(key) if key in MODE_NAMES else None


def _optimal_mode(mode, history, objective, backend, json_out: bool, time_limit, nodes) -> None:
    """The exact value of a mode's state after ``history``: proved, or the bracket reached within
    ``--time``/``--nodes`` (default: 540 s, as for one board)."""
    from termo.interface.exact import MultiExact, check_objective, joint_product, multi_solver
    from termo.interface.positions import position

    goal = check_objective(objective)
    where = position(mode)
    where.replay(history)
    state = where.state
    if state.over:
        fail("the game is over: nothing to solve")
    seconds = _parse_time(time_limit)
    node_limit = None if nodes is None else parse_int("nodes", nodes, 1, MAX_NODES)
    if seconds is None and node_limit is None:
        seconds = DEFAULT_TIME
    boards = [state.candidates[b] for b in state.unsolved]
    solver = multi_solver(mode, level=2, objective=goal.name, backend=backend)
    exact = MultiExact(solver.stats, goal, progress=_stderr_progress())
    alternatives = MODE_ALTERNATIVES if joint_product(boards) <= MODE_ALTERNATIVES_PRODUCT else 0
    result = exact.prove(boards, mode.max_turns - state.turns, time_limit=seconds, node_limit=node_limit,
                         alternatives=alternatives)
    base = goal.base(state.turns, state.solved_on)
    probes = mode.game.probes
    data = {"mode": mode.label, "objective": goal.name, "turn": state.turns + 1, "proved": result.proved,
            "word": None if result.guess is None else probes[int(result.guess)],
            "expected": base + result.upper, "lower": base + result.lower, "upper": base + result.upper,
            "gap": result.gap, "alternatives": [{"word": probes[int(p)], "expected": base + c}
                                                 for p, c in result.ranked[1:]],
            "boards": [len(c) for c in boards], "tuples": joint_product(boards), "states": result.nodes,
            "seconds": round(result.seconds, 3)}
    if json_out:
        print_json(data)
        return
    _print_mode(mode, goal, data)


def _print_mode(mode, goal, data: dict) -> None:
    head = f"{mode.shown}, turn {data['turn']}, objective {goal.name} ({OBJECTIVE_TEXT[goal.name]})"
    if data["proved"]:
        typer.echo(f"{head}: play {data['word']} (expected {data['expected']:.10f}, proved over every guess for "
                   f"independent boards)")
    elif data["word"] is None:
        typer.echo(f"{head}: not proved, no strategy valued within the budget; lower bound {data['lower']:.10f}")
    else:
        typer.echo(f"{head}: play {data['word']} (best found: expected {data['upper']:.10f}; not proved: lower "
                   f"bound {data['lower']:.10f}, gap {data['gap']:.10f}, budget spent)")
    for alt in data["alternatives"]:
        typer.echo(f"  {alt['word']}: {alt['expected']:.10f}")
    typer.echo(f"  {data['tuples']:,} joint answer tuples, {data['states']:,} states expanded in "
               f"{data['seconds']:.1f} s")


def _backend_name(backend) -> str:
    from backends import get_backend

    return get_backend(backend).name


def _print_text(game, data: dict) -> None:
    title = game.shown
    mode = "hard mode" if data["hard"] else "normal mode"
    prior = "uniform prior" if not data["weighted"] else f"prior T={data['t']:g}" if data["t"] is not None else "uniform prior"
    head = f"{title}, {'opener ' + data['opener'] if data['opener'] else 'every first guess'}, {mode}, {prior}:"
    if not data["opener"]:
        head += f" best first guess {data['first_guess']}"
    typer.echo(head)
    if data["proved"]:
        status = "proved optimal"
    else:
        status = f"not proved: gap {data['gap']:.6f} (budget spent)"
    if data["total"] == float("inf"):
        typer.echo(f"  no strategy finds every answer within {data['turns']} guesses (proved; --loss inf)")
    elif not data["weighted"]:
        typer.echo(f"  best strategy: {int(data['total'])} guesses over {data['answers']:,} answers, "
                   f"mean {data['mean']:.6f} ({status})")
        if not data["proved"]:
            typer.echo(f"  lower bound:   {data['lower_total']:.0f} (mean {data['lower']:.6f})")
    else:
        typer.echo(f"  best strategy: expected {data['mean']:.10f} guesses ({status})")
        if not data["proved"]:
            typer.echo(f"  lower bound:   {data['lower']:.10f}")
    if "beam" in data:
        typer.echo(f"  level 3 (beam) for the same opener: {data['beam']:.10f}")
    if data["losses"]:
        typer.echo(f"  answers lost (not found within {data['turns']} guesses): {data['losses']:,}")
    typer.echo(f"  {data['nodes']:,} states expanded in {data['seconds']:.1f} s")


def register(app) -> None:
    """Add ``optimal`` to the root typer app."""
    app.command("optimal")(optimal_command)

