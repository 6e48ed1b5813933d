"""The sorted-runs approximate pass of backends/numpy_sweep.py against a plain-Python oracle."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from backends import numpy_sweep as ns


def oracle(rows, w):
    """H of every probe: bucket masses by a dict, then -sum m log2 m."""
    out = []
    for g in range(rows.shape[1]):
        mass = defaultdict(float)
        for j in range(rows.shape[0]):
            mass[int(rows[j, g])] += float(w[j])
        out.append(-sum(m * math.log2(m) for m in mass.values() if m > 0))
    return np.asarray(out)


@pytest.mark.parametrize("m,n_bins", [(2, 6561), (7, 729), (24, 6561), (40, 243)])
def test_sorted_runs_equal_the_oracle(m, n_bins):
    rng = np.random.default_rng(m)
    rows = rng.integers(0, min(n_bins, 3 * m), size=(m, 300)).astype(np.uint16)
    w = rng.random(m)
    w[0] = 0.0  # a zero-weight member
    w /= w.sum()
    got = ns._approx_sorted(rows, w)
    assert np.max(np.abs(got - oracle(rows, w))) < 1e-13
    assert ns.APPROX_MARGIN > 1e-13  # well inside the margin the contenders filter allows
