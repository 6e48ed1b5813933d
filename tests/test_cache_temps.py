"""A writer killed mid-write leaves its temporary file; the next write of the same file sweeps it up."""

import os
import time

from termo.core.cache import atomic_write_bytes, sweep_stale_temps


def test_stale_temporary_files_are_swept_and_fresh_ones_kept(tmp_path):
    target = tmp_path / "matrix.npy"
    stale = tmp_path / ".matrix.npy.abc123.tmp"
    fresh = tmp_path / ".matrix.npy.def456.tmp"  # a writer at work right now
    other = tmp_path / ".other.npy.ghi789.tmp"  # another file's
    for f in (stale, fresh, other):
        f.write_bytes(b"partial")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    atomic_write_bytes(target, b"data")
    assert target.read_bytes() == b"data"
    assert not stale.exists() and fresh.exists() and other.exists()
    assert sweep_stale_temps(tmp_path / "other.npy") == 1 and not other.exists()
