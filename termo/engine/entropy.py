"""Entropy sweeps: the information of every probe over candidate sets (rules §5.1), batched.

For a candidate set S with weights ``w_c = prior[c] / Σ_S prior`` (uniform when that sum is 0),
probe g splits S into buckets by feedback code; ``H(g) = −Σ_b P_b log2 P_b`` with ``P_b`` the
bucket weight. A *sweep* computes H for every probe.

:class:`Sweeper` runs sweeps for one game and one prior on a backend. It prepares the tables
the sweeps read once (:class:`backends.base.SweepTables`: the matrix on the backend's device,
the host matrix and its answers-major copy, the prior and the tie-break prior) and asks the
backend for each operation: ``probe_entropies`` (every probe over one set), ``top_probes``
(the first k of the §5.2 order over one set), ``sweep_top_k`` (the batched sweeps of many
states, the first k of each) and ``probe_entropy`` (one probe, the reference's float order).

* NumPy: compiled host kernels, one parallel pass over the probes for a big set or one pass
  per state for a batch, each keeping only the first k probes of the §5.2 order; until the
  process has loaded numba, questions about *one* set are answered by whole-array NumPy
  versions of the same kernels (bit for bit the same floats), so a one-question process never
  pays the ~2 s of importing and loading numba.
* JAX, CuPy, array-api-strict: one shared array-API implementation; the codes ``M[:, S]`` are
  gathered on the device, bucket weights come from ``Backend.row_histogram``, and H, the §5.2
  keys and the top-k are reduced there too: the host gets the (states, k) result of a batch.
  Values agree with NumPy to ~1e-15 (summation order); the order of equal keys is exact.
"""

from __future__ import annotations

from backends import get_backend, host
from backends.base import SweepTables

def _matrices(game, backend):
    """(device matrix, host matrix, host transposed matrix) of ``game``; the transposed copy
    (answers × probes, contiguous rows per answer) is cached on disk by ``termo.engine.matrix``."""
    from termo.engine.matrix import answers_major_matrix, pattern_matrix, verify_ahead

    verify_ahead(game)  # the answers-major layout checked on another core while the other loads
    hb = host()
    host_m = _read_only(hb.to_numpy(pattern_matrix(game, backend=hb)))
    dev_m = pattern_matrix(game, backend=backend)  # on NumPy: the host matrix itself
    return dev_m, host_m, _read_only(answers_major_matrix(game))


def _read_only(arr):
    """A read-only view: the kernels then see one array type whether the matrix was just built
    (writable) or memory-mapped from the disk cache (read-only). numba compiles one version per
    argument type, so mixing the two compiled every kernel a second time in the second process."""
    if not arr.flags.writeable:
        return arr
    view = arr.view()
    view.flags.writeable = False
    return view


class Sweeper:
    """Entropy sweeps of one game under one prior on one backend."""

    def __init__(self, game, prior, backend=None):
        xp = host().xp
        self.game = game
        self.backend = get_backend(backend)
        self.prior = xp.asarray(prior, dtype=xp.float64)
        n_extra = game.n_probes - game.n_answers
        self.probe_prior = xp.concat([self.prior, xp.zeros(n_extra, dtype=xp.float64)])
        self.n_bins = game.n_patterns
        self.matrix_dev, self.matrix, self.matrix_t = _matrices(game, self.backend)
        self.tables = SweepTables(self.matrix_dev, self.matrix, self.matrix_t, self.prior, self.probe_prior,
                                  self.n_bins)

    # -- one set ------------------------------------------------------------------------------
    def entropies(self, candidates):
        """H (bits) of every probe over ``candidates`` (ascending answer indices), host float64."""
        xp = host().xp
        cand = xp.asarray(candidates, dtype=xp.int64)
        if cand.shape[0] <= 1:
            return xp.zeros(self.game.n_probes, dtype=xp.float64)
        return self.backend.probe_entropies(self.tables, cand)

    def entropy_of(self, probe: int, candidates) -> float:
        """H of one probe over ``candidates`` (host, exact same formula as the sweeps)."""
        xp = host().xp
        cand = xp.asarray(candidates, dtype=xp.int64)
        return self.backend.table_probe_entropy(self.tables, cand, int(probe))

    def top(self, candidates, k: int):
        """The first ``k`` probes of the §5.2 order over ``candidates``: (indices, entropies)."""
        xp = host().xp
        cand = xp.asarray(candidates, dtype=xp.int64)
        return self.backend.top_probes(self.tables, cand, int(k))

    # -- many sets ----------------------------------------------------------------------------
    def sweep(self, members, offsets, state_ids, k: int):
        """Batched sweeps: the first ``k`` probes (indices, entropies; -1 padded) of each state
        ``members[offsets[s]:offsets[s+1]]`` for ``s`` in ``state_ids``."""
        xp = host().xp
        state_ids = xp.asarray(state_ids, dtype=xp.int64)
        return self.backend.sweep_top_k(self.tables, members, offsets, state_ids, int(k))
