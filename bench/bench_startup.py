"""Benchmark: `termo suggest` as a whole process — the first run, the second, and every run after.

Measured, each as a whole process started from scratch (interpreter start, imports, caches read
from disk, the answer printed), in the order a new user meets them:

* **first run**: a fresh ``TERMO_CACHE_DIR`` (the pattern matrix is built) and an empty numba
  cache (``NUMBA_CACHE_DIR`` pointed at a new temporary folder, so the repository's own
  ``__pycache__`` is left alone): ``termo suggest tarso:BBBBB --json`` (level 3, the default),
  with what it printed on stderr;
* **second run**: the same command with the same two caches, and whether it compiled again
  (kernel signatures numba wrote); then a few other common commands once each, likewise;
* **warm runs**: ``termo suggest tarso:BBBBB --level 2``, ``--level 3``, ``termo --version`` and
  ``python -c pass``, taken in turn (A B C A B C ...), median of ``--repeat`` runs each, wall and
  CPU seconds, and the word each suggestion printed; the caches are the benchmark's own (warmed
  first), so no other process can rewrite them.

``--destermo PATH`` pairs the two suggestions with the public Termo solver Destermo (a checkout
of github.com/Serranegra/Destermo with its own virtual environment, ``PATH/.venv`` unless
``--destermo-python`` says otherwise), asked the same one-shot questions through its command
line: ``python solver.py --nivel 2|3`` with ``tarso``, ``BBBBB`` and ``sair`` on its standard
input (it prints the fixed opener, then its suggestion for the second turn). Its runs join the
same rotation (termo, Destermo, termo, Destermo ...), and the JSON gets, for each level, both
medians, the ratio of the medians and the median of the per-round ratios, wall and CPU, and
whether the two printed the same word in every run. ``targets`` says whether the level-2
suggestion is at least twice as fast as Destermo's (wall, paired), the level-3 suggestion takes
at most 1 s (wall) and ``termo --version`` imports no NumPy (checked in a child of its own).
Two floors join the rotation, ``python -c 'import numpy'`` and ``python -c 'import numpy, typer'``
(with termo's BLAS setting): paired with Destermo's level-2 run, ``floors_against_level2`` gives
their share of its time and what a twice-as-fast answer would have left beyond them.

The children run with bytecode caching on (as an installed package has it), even when the
calling shell sets ``PYTHONDONTWRITEBYTECODE``; the JSON records both. ``--compare PATH`` also
measures another checkout of the project (for example the commit before a change, unpacked with
``git archive``) with this interpreter, its warm runs interleaved with this one's.

Usage: python bench/bench_startup.py [--repeat 7] [--skip-first] [--compare PATH] [--destermo PATH]
       [--caches DIR] [--name startup]
Writes bench/results/<name>.json (median of several runs, machine and backend recorded).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import save, timed_run  # noqa: E402
from cli.app import BLAS_THREADS  # noqa: E402

HISTORY = ["tarso:BBBBB"]
PEER_INPUT = "tarso\nBBBBB\nsair\n"  # Destermo's prompts: the guess, its colours, then quit
TERMO_WORD = re.compile(r"^suggestion:\s+(\S+)", re.M)  # termo suggest's text output
PEER_WORD = re.compile("sugest\u00e3o:" r"\s+(\S+)")  # Destermo's line for the second turn
TARGET_RATIO = 0.5  # a level-2 suggestion at least twice as fast as Destermo's (wall, paired)
TARGET_LEVEL3_S = 1.0  # a level-3 suggestion after tarso:BBBBB in at most a second (wall)
NOTICE = "compiling the search kernels"
# Floors: a process that only starts this Python and imports what any answer computed with NumPy
# (and one parsed by the command line's library) must import, with termo's BLAS setting. Paired
# with Destermo's level-2 run, they say how much of its time such a process has already spent.
FLOORS = {"python -c 'import numpy'": "import numpy", "python -c 'import numpy, typer'": "import numpy, typer"}
# other common commands run once each after the first two, with the same caches: did they compile?
LATER = [
    ["suggest", "tarso:YBBBB"],
    ["suggest", "tarso:BBBBB", "filme:BBBYY"],
    ["suggest", "arara:BBBBB", "--level", "2"],
    ["suggest", "xyzzy:BBBBB"],
]


def termo_command(repo: Path) -> list[str]:
    """How to start `termo` from ``repo``: the console script next to this interpreter when the
    installed package is that checkout, else ``python -m cli`` run from the checkout."""
    script = Path(sys.executable).with_name("termo")
    if script.exists():
        probe = subprocess.run([sys.executable, "-c", "import cli; print(cli.__file__)"], cwd="/",
                               capture_output=True, text=True)
        installed = Path(probe.stdout.strip() or "/").resolve()
        if probe.returncode == 0 and repo.resolve() in installed.parents:
            return [str(script)]
    return [sys.executable, "-m", "cli"]


def child_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "TERMO_BACKEND")}
    env.update(extra)
    return env


def run_once(cmd: list[str], repo: Path, env: dict, stdin: str | None = None, word=None) -> dict:
    """One whole process: wall seconds, CPU seconds (user + system of the child), exit code,
    what it wrote on stderr, and the word ``word`` (a regular expression) finds on its stdout."""
    proc, wall, cpu = timed_run(cmd, cwd=repo, env=env, capture_output=True, text=True, input=stdin)
    row = {"wall_s": wall, "cpu_s": cpu, "returncode": proc.returncode, "stderr": proc.stderr.strip(),
           "stdout_bytes": len(proc.stdout)}
    if word is not None:
        found = word.search(proc.stdout)
        row["word"] = found.group(1) if found else None
    return row


def _compiled_files(folder: Path) -> int:
    """How many compiled kernel signatures numba has written under ``folder``."""
    return sum(1 for _ in folder.rglob("*.nbc")) if folder.exists() else 0


def first_and_second(repo: Path, termo: list[str]) -> dict:
    """The first run with empty caches, then the second with the caches it left; for each,
    how many kernel signatures numba compiled (files it wrote) and whether the notice showed."""
    scratch = Path(tempfile.mkdtemp(prefix="termo-bench-startup-"))
    numba_cache = scratch / "numba-cache"
    try:
        env = child_env(TERMO_CACHE_DIR=str(scratch / "termo-cache"), NUMBA_CACHE_DIR=str(numba_cache))
        cmd = termo + ["suggest", *HISTORY, "--json"]
        rows = []
        for args in [cmd, cmd] + [termo + later for later in LATER]:
            before = _compiled_files(numba_cache)
            row = run_once(args, repo, env)
            row["compiled_signatures"] = _compiled_files(numba_cache) - before
            row["notice"] = NOTICE in row["stderr"]
            row["command"] = "termo " + " ".join(args[len(termo):])
            rows.append(row)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"command": "termo suggest " + " ".join(HISTORY) + " --json", "first": rows[0], "second": rows[1],
            "later": rows[2:]}


def suggest_name(level: int, label: str = "this") -> str:
    """The name of a warm case: ``termo suggest tarso:BBBBB --level N`` (``[label] `` first for
    another checkout)."""
    return ("" if label == "this" else f"[{label}] ") + f"termo suggest {' '.join(HISTORY)} --level {level}"


def peer_name(level: int) -> str:
    return f"destermo solver.py --nivel {level} (tarso, BBBBB)"


def warm_cases(checkouts: dict, scratch: Path, destermo: tuple | None) -> dict:
    """name -> (folder, command, environment, stdin, word pattern): the level-2 suggestion of every
    checkout (and Destermo's), then the level-3 ones, then ``termo --version`` and a bare Python."""
    cases = {}
    envs = {label: child_env(TERMO_CACHE_DIR=str(scratch / label / "termo-cache"),
                             NUMBA_CACHE_DIR=str(scratch / label / "numba-cache")) for label in checkouts}
    for level in (2, 3):
        for label, repo in checkouts.items():
            command = termo_command(repo) + ["suggest", *HISTORY, "--level", str(level)]
            cases[suggest_name(level, label)] = (repo, command, envs[label], None, TERMO_WORD)
        if destermo is not None:
            folder, python = destermo
            cases[peer_name(level)] = (folder, [str(python), "solver.py", "--nivel", str(level)], child_env(),
                                       PEER_INPUT, PEER_WORD)
    for label, repo in checkouts.items():
        cases[("" if label == "this" else f"[{label}] ") + "termo --version"] = (
            repo, termo_command(repo) + ["--version"], envs[label], None, None)
    cases["python -c pass"] = (ROOT, [sys.executable, "-c", "pass"], child_env(), None, None)
    blas = child_env(**BLAS_THREADS)  # as termo's own start sets it (cli.app.BLAS_THREADS)
    for name, code in FLOORS.items():
        cases[name] = (ROOT, [sys.executable, "-c", code], blas, None, None)
    return cases


def warm_runs(checkouts: dict, repeat: int, scratch: Path, destermo: tuple | None = None) -> dict:
    """Whole processes with every cache warm, every command of every checkout (and Destermo's)
    taken in turn (so that a drift of the machine's speed touches them all alike). Each checkout
    gets its own cache folders under ``scratch`` (the matrix and numba's kernels), warmed first:
    other processes on the machine cannot rewrite them between two runs."""
    cases = warm_cases(checkouts, scratch, destermo)
    for repo, cmd, env, stdin, word in cases.values():  # warm-up: caches, kernels, bytecode, page cache
        for _ in range(2):
            run_once(cmd, repo, env, stdin, word)
    samples = {name: [] for name in cases}
    for _ in range(repeat):
        for name, (repo, cmd, env, stdin, word) in cases.items():
            samples[name].append(run_once(cmd, repo, env, stdin, word))
    out = {}
    for name, runs in samples.items():
        walls = [r["wall_s"] for r in runs]
        cpus = [r["cpu_s"] for r in runs]
        out[name] = {
            "median_wall_s": statistics.median(walls),
            "min_wall_s": min(walls),
            "max_wall_s": max(walls),
            "median_cpu_s": statistics.median(cpus),
            "runs_wall_s": walls,
            "runs_cpu_s": cpus,
            "returncodes": sorted({r["returncode"] for r in runs}),
            "notice": any(NOTICE in r["stderr"] for r in runs),
        }
        if "word" in runs[0]:
            out[name]["words"] = sorted({str(r["word"]) for r in runs})
    base = out["python -c pass"]["median_wall_s"]
    for row in out.values():
        row["minus_python_start_s"] = row["median_wall_s"] - base
    return out


def paired_ratio(ours: dict, theirs: dict, kind: str) -> float:
    """The median of the per-round ratios ours / theirs of two warm cases (``kind``: wall or cpu)."""
    return statistics.median(a / b for a, b in zip(ours[f"runs_{kind}_s"], theirs[f"runs_{kind}_s"]))


def against_peer(warm: dict) -> dict:
    """For each level, termo beside Destermo: medians, the ratio of the medians and the median of
    the per-round ratios (termo / Destermo, wall and CPU), and the words each printed."""
    out = {}
    for level in (2, 3):
        ours, theirs = warm[suggest_name(level)], warm[peer_name(level)]
        row = {"termo_median_wall_s": ours["median_wall_s"], "destermo_median_wall_s": theirs["median_wall_s"],
               "termo_median_cpu_s": ours["median_cpu_s"], "destermo_median_cpu_s": theirs["median_cpu_s"],
               "termo_words": ours["words"], "destermo_words": theirs["words"],
               "same_answer": len(ours["words"]) == 1 and ours["words"] == theirs["words"]}
        for kind in ("wall", "cpu"):
            row[f"ratio_of_medians_{kind}"] = ours[f"median_{kind}_s"] / theirs[f"median_{kind}_s"]
            row[f"median_paired_ratio_{kind}"] = paired_ratio(ours, theirs, kind)
            row[f"times_faster_{kind}"] = 1.0 / row[f"median_paired_ratio_{kind}"]
        out[f"level{level}"] = row
    theirs = warm[peer_name(2)]
    out["floors_against_level2"] = floors = {}
    for name in FLOORS:
        ours = warm[name]
        floors[name] = {
            "median_wall_s": ours["median_wall_s"],
            "median_paired_ratio_wall": paired_ratio(ours, theirs, "wall"),
            # what a 2x-faster level-2 answer could spend beyond this floor (negative: nothing)
            "left_for_a_2x_answer_s": TARGET_RATIO * theirs["median_wall_s"] - ours["median_wall_s"],
        }
    return out


VERSION_PROBE = ("import sys, io, contextlib\n"
                 "from cli.app import main\n"
                 "with contextlib.redirect_stdout(io.StringIO()):\n"
                 "    main(['--version'])\n"
                 "print(sorted(m for m in ('numpy', 'numba', 'typer', 'rich') if m in sys.modules))")


def version_imports(repo: Path) -> str:
    """What ``termo --version`` of ``repo`` imported among NumPy, numba, typer and rich."""
    proc = subprocess.run([sys.executable, "-c", VERSION_PROBE], cwd=repo, env=child_env(),
                          capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else f"failed: {proc.stderr.strip()[-200:]}"


def _commit(folder: Path) -> str | None:
    """The commit a git checkout is at (None when it is not one)."""
    proc = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="warm runs of each command (median)")
    parser.add_argument("--skip-first", action="store_true", help="skip the first/second-run measurement")
    parser.add_argument("--compare", metavar="PATH", default=None,
                        help="also measure this other checkout (e.g. an older commit from `git archive`)")
    parser.add_argument("--compare-label", default="before", help="its name in the table and the JSON")
    parser.add_argument("--name", default="startup", help="results file bench/results/<name>.json")
    parser.add_argument("--note", default="", help="free text kept in the JSON (which commits were measured)")
    parser.add_argument("--caches", metavar="DIR", default=None,
                        help="keep the warm runs' cache folders (matrix, numba's kernels) in DIR/<checkout>/ for"
                             " a later run, instead of a temporary folder compiled afresh (minutes) and removed")
    parser.add_argument("--destermo", metavar="PATH", default=None,
                        help="a checkout of Destermo: pair the two suggestions with it (see the module doc)")
    parser.add_argument("--destermo-python", metavar="PYTHON", default=None,
                        help="the interpreter Destermo runs with (default: PATH/.venv/bin/python)")
    args = parser.parse_args()
    checkouts = {"this": ROOT}
    if args.compare:
        checkouts[args.compare_label] = Path(args.compare).resolve()
    destermo = None
    if args.destermo:
        folder = Path(args.destermo).resolve()
        destermo = (folder, Path(args.destermo_python or folder / ".venv" / "bin" / "python"))

    payload: dict = {"checkouts": {k: str(v) for k, v in checkouts.items()}, "backend": "numpy",
                     "repeat": args.repeat, "command": termo_command(ROOT), "note": args.note,
                     "bytecode": {"children": "on (PYTHONDONTWRITEBYTECODE removed from every child's environment)",
                                  "calling_shell_PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE")}}
    if destermo is not None:
        payload["destermo"] = {"folder": str(destermo[0]), "python": str(destermo[1]), "commit": _commit(destermo[0]),
                               "stdin": PEER_INPUT}
    try:
        payload["load_average_before"] = os.getloadavg()
    except OSError:
        pass
    if not args.skip_first:
        payload["cold"] = {}
        for label, repo in checkouts.items():
            cold = first_and_second(repo, termo_command(repo))
            payload["cold"][label] = cold
            for which in ("first", "second"):
                row = cold[which]
                print(f"{'[' + label + '] ' + which + ' run':<44} {row['wall_s']:8.2f} s wall {row['cpu_s']:8.2f} s cpu"
                      f"  {row['compiled_signatures']:3d} kernels compiled, notice {'shown' if row['notice'] else 'none'}"
                      f"  (exit {row['returncode']})")
            if cold["first"]["stderr"]:
                print("    first run's stderr: " + cold["first"]["stderr"].replace("\n", "\n" + " " * 24))
            for row in cold["later"]:
                print(f"    later: {row['command']:<40} {row['wall_s']:7.2f} s  {row['compiled_signatures']:3d} kernels compiled")
    scratch = Path(args.caches) if args.caches else Path(tempfile.mkdtemp(prefix="termo-bench-warm-"))
    try:
        warm = warm_runs(checkouts, args.repeat, scratch, destermo)
    finally:
        if not args.caches:
            shutil.rmtree(scratch, ignore_errors=True)
    payload["warm"] = warm
    print(f"{'warm, whole process (median of ' + str(args.repeat) + ')':<52} {'wall s':>8} {'cpu s':>8} "
          f"{'min':>8} {'max':>8} {'- python':>9}  word")
    for name, row in warm.items():
        print(f"{name:<52} {row['median_wall_s']:8.3f} {row['median_cpu_s']:8.3f} {row['min_wall_s']:8.3f} "
              f"{row['max_wall_s']:8.3f} {row['minus_python_start_s']:9.3f}  {' '.join(row.get('words', []))}")
    payload["version_imports"] = {label: version_imports(repo) for label, repo in checkouts.items()}
    targets = {"version_imports_no_numpy": "numpy" not in payload["version_imports"]["this"]}
    if destermo is not None:
        payload["against_destermo"] = peer = against_peer(warm)
        targets["level2_at_least_2x_faster_than_destermo"] = peer["level2"]["median_paired_ratio_wall"] <= TARGET_RATIO
        targets["same_answers_as_destermo"] = peer["level2"]["same_answer"] and peer["level3"]["same_answer"]
        for level in (2, 3):
            row = peer[f"level{level}"]
            print(f"level {level}: termo {row['termo_median_wall_s']:.3f} s, Destermo {row['destermo_median_wall_s']:.3f} s"
                  f" wall (paired ratio {row['median_paired_ratio_wall']:.2f}, {row['times_faster_wall']:.2f}x); cpu"
                  f" {row['termo_median_cpu_s']:.3f} vs {row['destermo_median_cpu_s']:.3f} s"
                  f" (paired ratio {row['median_paired_ratio_cpu']:.2f}); words {row['termo_words']} vs"
                  f" {row['destermo_words']}")
        for name, row in peer["floors_against_level2"].items():
            print(f"floor {name}: {row['median_wall_s']:.3f} s wall, {row['median_paired_ratio_wall']:.2f} of Destermo's"
                  f" level 2; a 2x answer has {1000 * row['left_for_a_2x_answer_s']:.0f} ms left beyond it")
    targets["level3_at_most_1s"] = warm[suggest_name(3)]["median_wall_s"] <= TARGET_LEVEL3_S
    payload["targets"] = targets
    print("targets: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in targets.items()))
    print("termo --version imports: " + "; ".join(f"{k} {v}" for k, v in payload["version_imports"].items()))
    try:
        payload["load_average_after"] = os.getloadavg()
    except OSError:
        pass
    payload["numba_threads_env"] = os.environ.get("NUMBA_NUM_THREADS")
    save(args.name, payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
