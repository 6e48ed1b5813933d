"""The second-guess study (games-rules §3, the Habr entropy study), for any game and opener.

With a prior over the answers (the study: uniform, ``t = inf``) and every probe allowed as a guess:

1. the initial uncertainty ``H0 = log2 N`` over the ``N`` answers;
2. the opener's bits, number of groups, worst group and the bits left in the worst case
   (``log2`` of the worst group), with its rank among all probes by entropy, minimax and expected
   remaining (and the best probe of each criterion, unless ``compare=False``);
3. for the opener's ``patterns`` most probable feedback patterns (the win pattern excluded; order:
   probability desc, size desc, code asc), the ``top`` second guesses by entropy over the answers
   that pattern leaves, each flagged with whether it can still be the answer.

All metrics and orders are those of :mod:`termo.engine.partition` (bits in the engine's float convention,
the §5.2 order for entropy ties). :func:`write_second_guess` writes ``second-guess-<game>.json``,
``.md`` and ``.png`` into a folder. The study's own figures (on wordly.org's lists, which are not
available offline) are attached for the game they were published for, for comparison only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Optional

from termo.core.errors import TermoError

# The Habr study's published figures (wordly.org/ru lists: 602 answers); other lists differ.
PUBLISHED = {
    "wordle-ru": {
        "source": "Habr entropy study on wordly.org/ru (602 answers, over 4,000 allowed words)",
        "answers": 602,
        "initial_bits": 9.23,
        "opener": "норка",
        "opener_bits": 5.69,
        "opener_largest_group": 43,
        "opener_worst_case_bits_left": 5.43,
    },
}


def default_out_dir() -> Path:
    """Where reports go unless told: ``<cache dir>/results`` (outside any checkout of the project)."""
    from termo.core.paths import cache_dir

    return cache_dir() / "results"


def second_guess_study(game, opener: Optional[str] = None, patterns: int = 5, top: int = 5, t: float = math.inf,
                       compare: bool = True, backend=None,
                       progress: Optional[Callable[[int, int], None]] = None) -> dict:
    """The study as plain data (see the module docstring); ``opener`` defaults to the game's
    default opener, else the best probe by entropy. TermoError for a bad opener or count."""
    from termo.core.feedback import decode
    from termo.engine.partition import State, groups_of, guess_codes, guess_metrics, make_state, ranking, sweeper_for

    if patterns < 1:
        raise TermoError(f"--patterns must be at least 1, not {patterns}")
    if top < 1:
        raise TermoError(f"--top must be at least 1, not {top}")
    state = make_state(game, (), t)
    sweeper = sweeper_for(state)
    steps = patterns + (2 if compare else 1)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, steps)

    if opener is None:
        opener = game.default_opener
    if opener is not None:
        guess, codes = guess_codes(state, opener)  # a bad opener fails before any sweep
    whole = ranking(state, backend=backend, sweeper=sweeper) if compare or opener is None else None
    tick()
    if opener is None:
        opener = game.probes[int(whole.entropy_order[0])]
        guess, codes = guess_codes(state, opener)
    metrics, warnings = guess_metrics(state, opener)
    if compare and guess.probe is not None:
        for by in ("entropy", "minimax", "remaining"):
            metrics[f"rank_by_{by}"] = whole.rank_of(guess.probe, by)
    tick()
    rows = []
    groups = [g for g in groups_of(state, codes) if g["code"] != game.win_code]
    host_xp = _xp()
    for number, group in enumerate(groups[:patterns], start=1):
        members = host_xp.asarray(group["members"], dtype=host_xp.int64)
        sub = State(game, members, state.t, state.prior, (f"{guess.word}:{decode(group['code'], game.word_length)}",))
        best = ranking(sub, backend=backend, sweeper=sweeper).top("entropy", top)
        for row in best:
            row.pop("candidates", None)
        rows.append({
            "rank": number,
            "pattern": decode(group["code"], game.word_length),
            "code": group["code"],
            "answers": group["size"],
            "probability": group["weight"],
            "bits_left": math.log2(group["size"]),
            "second_guesses": best,
            "answers_among_top": sum(1 for r in best if r["can_be_answer"]),
        })
        tick()
    data = {
        "game": game.label,
        "title": game.shown,
        "description": game.description,
        "answers": game.n_answers,
        "probes": game.n_probes,
        "t": state.t,
        "prior": "uniform" if (game.uniform_prior or math.isinf(state.t)) else f"softmax(-ICF/{state.t:g})",
        "initial_bits": math.log2(game.n_answers),
        "opener": metrics,
        "patterns": rows,
        "warnings": list(warnings),
    }
    if compare:
        data["best_openers"] = {by: whole.top(by, 1)[0] for by in ("entropy", "minimax", "remaining")}
    if game.label in PUBLISHED:
        data["published"] = PUBLISHED[game.label]
        data["note"] = ("the published figures were measured on other word lists; "
                        f"these results use {game.description or game.label} and differ from them")
    return data


def _xp():
    from backends import host

    return host().xp


def second_guess_markdown(data: dict) -> str:
    """The study's tables in markdown."""
    from termo.analysis.report import markdown_table

    op = data["opener"]
    lines = [
        f"## Second guesses after {op['word']} ({data['title']}, {data['answers']} answers, "
        f"{data['probes']} probes, prior {data['prior']})",
        "",
        f"- initial uncertainty log2 N = {data['initial_bits']:.4f} bits",
        f"- opener {op['word']}: {op['bits']:.4f} bits, {op['groups']} groups, worst group {op['largest_group']} "
        f"({op['worst_case_bits_left']:.4f} bits left in the worst case), expected remaining "
        f"{op['expected_remaining']:.4f}, can be the answer: {'yes' if op['can_be_answer'] else 'no'}",
    ]
    if "rank_by_entropy" in op:
        lines.append(f"- opener's rank among all {data['probes']} probes: {op['rank_by_entropy']} by entropy, "
                     f"{op['rank_by_minimax']} by minimax, {op['rank_by_remaining']} by expected remaining")
    best = data.get("best_openers")
    if best:
        lines += ["", "### Best openers by criterion", "",
                  markdown_table(["criterion", "word", "bits", "groups", "largest", "E[remaining]", "can be answer"],
                                 [[by, r["word"], r["bits"], r["groups"], r["largest_group"], r["expected_remaining"],
                                   r["can_be_answer"]] for by, r in best.items()])]
    pub = data.get("published")
    if pub:
        lines += ["", f"Published ({pub['source']}): H0 {pub['initial_bits']} bits, {pub['opener']} "
                      f"{pub['opener_bits']} bits, worst group {pub['opener_largest_group']}, "
                      f"{pub['opener_worst_case_bits_left']} bits left. {data['note'][:1].upper()}{data['note'][1:]}."]
    lines += ["", f"### Top second guesses for the {len(data['patterns'])} most probable patterns", ""]
    table = []
    for p in data["patterns"]:
        for r in p["second_guesses"]:
            table.append([p["pattern"] if r["rank"] == 1 else "", p["answers"] if r["rank"] == 1 else "",
                          f"{p['probability']:.4f}" if r["rank"] == 1 else "", r["rank"], r["word"], r["bits"],
                          r["groups"], r["largest_group"], r["expected_remaining"], r["can_be_answer"]])
    lines.append(markdown_table(["pattern", "answers", "P", "#", "second guess", "bits", "groups", "largest",
                                 "E[remaining]", "can be answer"], table))
    return "\n".join(lines)


def second_guess_plot(data: dict, path: str | Path) -> str:
    """One panel per pattern: the bits of its top second guesses (green: can be the answer, gold:
    cannot), the dashed line at log2(answers left), the most any guess can get."""
    from termo.core.plots import GOLD, GREEN, SLATE, _pyplot

    plt = _pyplot()
    pats = data["patterns"]
    n = max(1, len(pats))
    fig, axes = plt.subplots(n, 1, figsize=(7.5, 1.0 + 1.7 * n), squeeze=False)
    for ax, p in zip(axes[:, 0], pats):
        rows = p["second_guesses"]
        ys = list(range(len(rows)))[::-1]
        ax.barh(ys, [r["bits"] for r in rows], color=[GREEN if r["can_be_answer"] else GOLD for r in rows])
        ax.set_yticks(ys, [r["word"] for r in rows])
        ax.axvline(p["bits_left"], color=SLATE, linestyle="--", linewidth=1)
        ax.set_title(f"{p['pattern']}: {p['answers']} answers (P = {p['probability']:.3f})", fontsize=10)
        ax.set_xlim(0, max(p["bits_left"], max((r["bits"] for r in rows), default=0)) * 1.05 or 1)
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("bits of the second guess (dashed: log2 answers left); green = can be the answer")
    fig.suptitle(f"{data['title']}: second guesses after {data['opener']['word']}", fontsize=12)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return str(path)


def write_second_guess(data: dict, out_dir: str | Path | None = None, plot: bool = True) -> dict:
    """Write ``second-guess-<game>.json``, ``.md`` and ``.png`` into ``out_dir`` (default:
    :func:`default_out_dir`); returns the paths written."""
    from termo.analysis.report import write_report

    out = Path(out_dir) if out_dir is not None else default_out_dir()
    out.mkdir(parents=True, exist_ok=True)
    name = f"second-guess-{data['game']}"
    plots = [second_guess_plot(data, out / f"{name}.png")] if plot and data["patterns"] else []
    return write_report(out, name, data, second_guess_markdown(data), plots)
