"""The command line as a process of its own, for the tests of the long chunked runs (kills,
resumes, local Dask workers): ``python -m cli ARGS`` from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def termo_process(args, progress_interval: str | None = None, **kw) -> subprocess.Popen:
    """``termo ARGS`` started from the checkout (its data folder), stdout and stderr piped;
    ``progress_interval`` sets $TERMO_PROGRESS_INTERVAL; ``kw`` goes to Popen."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TERMO_DATA_DIR", str(REPO / "data"))
    if progress_interval is not None:
        env["TERMO_PROGRESS_INTERVAL"] = progress_interval
    return subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
