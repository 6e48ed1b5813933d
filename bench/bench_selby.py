"""The exact solver against Alex Selby's C++ program on the same question -> bench/results/exact-selby.json.

The question: English Wordle on the original lists (2,315 answers, 12,972 guesses), first word
`salet` fixed, the proved optimum over every later guess — 7920 guesses in normal mode, 8122 in
hard mode. Selby's program (github alex1770/wordle, a peer, never a dependency) is built from
its source in a scratch folder with its own make line (``g++ -std=c++17 -O3``) and run as
``wordle -a wordlist_orig_all -h wordlist_orig_hidden -w salet [-H]``; termo as ``termo optimal
--game wordle --opener salet [--hard] --json``, once as is (it also gives level 3's value for
the same opener, ``beam``) and once with ``--no-beam`` (the same work as Selby's: the proof and
the strategy tree). Every run is a whole process; the three are taken in turn (A B C A B C ...)
after a warm-up of each, so a drift of the machine's speed touches them alike, and the ratio
termo/Selby is taken pair by pair. CPU seconds (user + system of the child) are the figure to
compare on a shared machine; wall seconds are what that run got. Both sides must print the
same total, and termo must say it is proved.

Usage: python bench/bench_selby.py --selby-src DIR [--repeats 7] [--modes normal,hard]
(DIR: a checkout of github.com/alex1770/wordle; nothing is downloaded here.)
"""

from __future__ import annotations

import argparse
import json
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

EXPECT = {"normal": 7920, "hard": 8122}  # Selby's published optima from salet
SELBY_TOTAL = re.compile(r"First guess salet\s*=\s*(\d+)")


def build_selby(src: Path, scratch: Path) -> tuple[Path, str]:
    """Selby's ``wordle`` built in ``scratch`` from ``src/wordle.cpp``; (binary, compiler line)."""
    cpp = src / "wordle.cpp"
    if not cpp.exists():
        raise SystemExit(f"{cpp} not found: --selby-src must be a checkout of alex1770/wordle")
    shutil.copy(cpp, scratch / "wordle.cpp")
    for name in ("wordlist_orig_all", "wordlist_orig_hidden"):
        shutil.copy(src / name, scratch / name)
    cmd = ["g++", "-std=c++17", "-O3", "-DCOMMITDESC=\"local\"", "-o", "wordle", "wordle.cpp", "-lpthread"]
    subprocess.run(cmd, cwd=scratch, check=True)
    version = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return scratch / "wordle", " ".join(cmd) + f"  ({version})"


def same_lists(src: Path) -> bool:
    """Selby's original lists are ours (data/wordle_en_*.txt), as sets."""
    def words(path: Path) -> set:
        return {w.strip() for w in path.read_text().split() if w.strip()}

    return (words(src / "wordlist_orig_all") == words(ROOT / "data" / "wordle_en_allowed.txt")
            and words(src / "wordlist_orig_hidden") == words(ROOT / "data" / "wordle_en_answers.txt"))


def termo_command() -> list[str]:
    script = Path(sys.executable).with_name("termo")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli"]


def commands(mode: str, selby: Path) -> dict:
    hard = ["--hard"] if mode == "hard" else []
    base = termo_command() + ["optimal", "--game", "wordle", "--opener", "salet", *hard, "--json"]
    return {"termo": base, "termo --no-beam": base + ["--no-beam"],
            "selby": [str(selby), "-a", "wordlist_orig_all", "-h", "wordlist_orig_hidden", "-w", "salet",
                      *(["-H"] if mode == "hard" else [])]}


def run(name: str, cmd: list[str], cwd: Path, env: dict) -> dict:
    proc, wall, cpu = timed_run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    if name == "selby":
        found = SELBY_TOTAL.search(proc.stdout)
        total, proved = (int(found.group(1)) if found else None), True  # -w: an exhaustive search, a proof
    else:
        data = json.loads(proc.stdout)
        total, proved = int(data["total"]), bool(data["proved"])
    return {"wall_s": wall, "cpu_s": cpu, "total": total, "proved": proved}


def measure(mode: str, selby: Path, scratch: Path, repeats: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cases = commands(mode, selby)
    for name, cmd in cases.items():  # warm-up: bytecode, numba's cache, the matrix, the page cache
        run(name, cmd, scratch, env)
    samples: dict = {name: [] for name in cases}
    for _ in range(repeats):
        for name, cmd in cases.items():
            samples[name].append(run(name, cmd, scratch, env))
    out: dict = {"commands": {name: " ".join(cmd[-8:]) for name, cmd in cases.items()}}
    for name, runs in samples.items():
        cpus, walls = [r["cpu_s"] for r in runs], [r["wall_s"] for r in runs]
        out[name] = {"median_cpu_s": statistics.median(cpus), "min_cpu_s": min(cpus), "max_cpu_s": max(cpus),
                     "median_wall_s": statistics.median(walls), "runs_cpu_s": cpus, "runs_wall_s": walls,
                     "totals": sorted({r["total"] for r in runs}), "proved": all(r["proved"] for r in runs)}
    for name in ("termo", "termo --no-beam"):
        ratios = [a["cpu_s"] / b["cpu_s"] for a, b in zip(samples[name], samples["selby"])]
        out[f"cpu ratio {name} / selby"] = {"median": statistics.median(ratios), "min": min(ratios),
                                           "max": max(ratios)}
    out["same_total"] = all(out[n]["totals"] == [EXPECT[mode]] for n in cases) and out["termo"]["proved"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selby-src", type=Path, required=True, help="a checkout of github.com/alex1770/wordle")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--modes", default="normal,hard")
    parser.add_argument("--name", default="exact-selby")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="termo-bench-selby-"))
    try:
        binary, build = build_selby(args.selby_src.resolve(), scratch)
        payload = {"question": "English Wordle, original lists, first word salet, proved optimum",
                   "selby_build": build, "same_lists": same_lists(args.selby_src.resolve()),
                   "repeats": args.repeats, "backend": "numpy",
                   "bytecode_caching": "on (PYTHONDONTWRITEBYTECODE removed from the children's environment)",
                   "load_average_before": list(os.getloadavg())}
        for mode in args.modes.split(","):
            payload[mode] = measure(mode, binary, scratch, args.repeats)
        payload["load_average_after"] = list(os.getloadavg())
        save(args.name, payload)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
