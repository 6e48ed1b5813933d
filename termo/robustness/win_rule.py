"""The greedy tree under a win rule other than the exact one (Nerdle's commutative rule).

Under such a rule a probe also wins against answers other than itself (``9+1=10`` against
``1+9=10``): the pattern matrix holds the win code off the answer diagonal. Two things of the
greedy tail (docs/rules.md §5.2, §5.3, §6.1) then need the game's own rule:

* a two-member state whose played member (the more common one, first index on ties) also wins
  against the other costs one guess, not ``1 + f·w_min/Σw`` (:func:`won_pairs`);
* §5.2 puts *candidates* (members of the state) before other probes. The sweep kernels read
  "candidate" as "wins against a member", which is the same thing under the exact rule but not
  here, and their full-split shortcut reads it as membership: when the kernel's pick is a
  non-member that wins against a member, the state's first probe is recomputed here with
  membership (:func:`candidates_first`). Every other pick is already the §5.2 first probe.
  Only the probes near the top of the sweep's entropy are weighed again (a backend's
  ``probes_at_least`` finds them; any probe tied for the top is among them).

Both are plain host arrays on small inputs (the cases are rare); under the exact rule neither
is ever called (``GreedyTreeEvaluator`` checks the matrix once).
"""

from __future__ import annotations

from backends import host
from backends.constants import ROUND_STEP

np = host().xp  # host NumPy (through the backend layer)


def has_equivalent_wins(matrix, n_answers: int, win_code: int) -> bool:
    """Does some probe win against an answer other than itself?"""
    return int(np.count_nonzero(np.asarray(matrix) == win_code)) > int(n_answers)


def won_pairs(matrix, prior, members, offsets, values, win_code: int) -> None:
    """Set ``values[s] = 1`` for every two-member state ``s`` won by its played member."""
    offsets = np.asarray(offsets)
    two = np.nonzero((offsets[1:] - offsets[:-1]) == 2)[0]
    if two.shape[0] == 0:
        return
    a = members[offsets[two]]
    b = members[offsets[two] + 1]
    pa, pb = prior[a], prior[b]
    first = (pa > pb) | ((pa == pb) & (a < b))
    played = np.where(first, a, b)
    other = np.where(first, b, a)
    won = np.asarray(matrix)[played, other] == win_code
    values[two[won]] = 1.0


def entropies(matrix, state, prior, n_bins: int, probes=None):
    """Entropy (bits) of every probe over ``state`` (member indices) under ``prior``; of the
    probes ``probes`` only (in that order) when given."""
    matrix = np.asarray(matrix)
    state = np.asarray(state, dtype=np.int64)
    w = np.asarray(prior, dtype=np.float64)[state]
    total = float(w.sum())
    w = w / total if total > 0 else np.full(state.shape[0], 1.0 / state.shape[0])
    rows = matrix if probes is None else matrix[np.asarray(probes, dtype=np.int64)]
    codes = rows[:, state].astype(np.int64)  # probes × members
    n_probes = codes.shape[0]
    keys = (np.arange(n_probes, dtype=np.int64)[:, None] * n_bins + codes).ravel()
    uniq, inverse = np.unique_inverse(keys)
    mass = np.bincount(inverse, weights=np.broadcast_to(w, codes.shape).ravel())
    terms = np.where(mass > 0, -mass * np.log2(np.where(mass > 0, mass, 1.0)), 0.0)
    return np.bincount(uniq // n_bins, weights=terms, minlength=n_probes)


def first_probe(matrix, state, prior, probe_prior, n_bins: int, probes=None) -> int:
    """The §5.2 first probe over ``state``, candidates being the members of ``state``.

    ``probes`` (sorted indices), when given, must hold every probe whose entropy ties for the
    top of the 1e-9 grid: only they are weighed (the same pick, for a fraction of the work)."""
    h = entropies(matrix, state, prior, n_bins, probes)
    ids = np.arange(h.shape[0]) if probes is None else np.asarray(probes, dtype=np.int64)
    key = np.rint(h / ROUND_STEP)
    tied = ids[np.nonzero(key == key.max())[0]]
    member = np.zeros(np.asarray(matrix).shape[0], dtype=bool)
    member[np.asarray(state, dtype=np.int64)] = True
    pp = np.asarray(probe_prior, dtype=np.float64)
    return int(min(tied.tolist(), key=lambda g: (not member[g], -pp[g], g)))


# A probe tied for the top of the grid is within 2 grid steps of the sweep's best entropy in any
# summation order (they differ by ~1e-13): the probes at least this far below it are enough.
NEAR_TOP = 10 * ROUND_STEP


def candidates_first(matrix, members, offsets, prior, probe_prior, best, win_code: int, n_bins: int,
                     best_h=None, near=None):
    """``best`` (one probe per state) with every pick that is a non-member winning against a
    member replaced by the §5.2 first probe under membership (see the module doc).

    With ``best_h`` (the sweep's entropy of each pick) and ``near(state, floor_h)`` (every probe
    with an entropy of at least ``floor_h`` over ``state``, and possibly more: a backend's
    ``probes_at_least``), only the probes near the top are weighed again."""
    matrix = np.asarray(matrix)
    best = np.asarray(best, dtype=np.int64, copy=True)
    offsets = np.asarray(offsets)
    for s in range(best.shape[0]):
        state = members[offsets[s] : offsets[s + 1]]
        g = int(best[s])
        if np.any(state == g) or not np.any(matrix[g, state] == win_code):
            continue
        probes = None if near is None or best_h is None else near(state, float(best_h[s]) - NEAR_TOP)
        best[s] = first_probe(matrix, state, prior, probe_prior, n_bins, probes)
    return best


__all__ = ["has_equivalent_wins", "won_pairs", "entropies", "first_probe", "candidates_first"]
