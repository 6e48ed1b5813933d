"""JAX backend (CPU or GPU), with 64-bit types enabled so entropies stay float64.

On top of the shared array-API operations (:mod:`backends.array_api_ops`) this backend adds
what a compiling library needs to be quick:

* **A persistent compilation cache** in the project's cache directory (``$TERMO_CACHE_DIR``,
  else ``$XDG_CACHE_HOME/termo``, else ``~/.cache/termo``; the same rule as
  ``termo.core.paths.cache_dir``, repeated here because the backends do not import the domain),
  subfolder ``jax-xla``: a second process loads the compiled kernels instead of compiling them.
  ``$JAX_COMPILATION_CACHE_DIR``, when set, wins; ``TERMO_JAX_CACHE=0`` turns the cache off.
  The first time a kernel shape has to be compiled on this machine one line says so on stderr.
  Each start sweeps what a full disk leaves there (zero-byte entries, stale temporaries).
* **Few shapes.** The batched sweeps pad each state to a power-of-two width and each batch to
  one of a few row counts (1, 8, 64, ... up to the batch cap), padding with weight 0: a padded
  member adds exact zeros to every bucket mass and is never a member, so entropies, keys and
  decisions are the same with or without the padding (``tests/test_jax_path.py``).
* **A layout XLA is quick with.** The codes of a batch are gathered as whole rows of the
  answers-major matrix (answers × probes, one contiguous row per member; its device copy is
  made once per sweep table), and the bucket mass of each member is summed pairwise over the
  members of its state (``mass_j = Σ_i w_i·[code_i = code_j]``, one fused pass per member, no
  scatter), so ``H = −Σ_j w_j·log2 mass_j``. States wider than :data:`PAIRWISE_MAX` use a
  histogram over the feedback codes instead. The §5.2 key and the top-k are then reduced on
  the device (``lax.top_k`` over one unique int64 key per probe) and only (rows, k) comes back.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import weakref
from pathlib import Path

import numpy as np

from backends.array_api_ops import flat_bins
from backends.stale import remove_if_stale
from backends.base import Backend
from backends.constants import ROUND_STEP

PAIRWISE_MAX = 64  # widest padded state whose masses are summed pairwise (else: a histogram)
UNROLL_MAX = 16  # up to this width the pairwise sum is unrolled (one fused pass), above a loop
ITERATE_MAX_K = 32  # on the CPU a top-k up to this k is k passes of argmax (see _top_k)
ROW_STEP = 8  # batch row counts are powers of ROW_STEP (1, 8, 64, ...), capped by the cells
CPU_CELLS = 1 << 22  # (row, member, probe) cells per device call on the CPU (~40 MB of temporaries)
GPU_CELLS = 1 << 26  # the same on an accelerator (fewer, larger calls)
CACHE_ENV = "TERMO_JAX_CACHE"
_notice_given = False


# --------------------------------------------------------------------------------------------
# The persistent compilation cache
# --------------------------------------------------------------------------------------------
def xla_cache_dir() -> Path:
    """Where this backend keeps XLA's compiled kernels (see the module doc)."""
    override = os.environ.get("TERMO_CACHE_DIR")
    if override:
        base = Path(override)
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")) / "termo"
    return base / "jax-xla"


def enable_persistent_cache(jax) -> Path | None:
    """Point JAX's persistent compilation cache at :func:`xla_cache_dir` (every entry kept,
    however quick its compile: the small kernels are most of a short process's compile time).
    Returns the folder in use, or None when the cache is off or the folder cannot be made."""
    if os.environ.get(CACHE_ENV, "1").strip() == "0":
        return None
    current = jax.config.values.get("jax_compilation_cache_dir")
    if current:  # the user's own setting ($JAX_COMPILATION_CACHE_DIR) wins
        folder = Path(current)
    else:
        folder = xla_cache_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    sweep_cache_folder(folder)
    return folder


def sweep_cache_folder(folder: Path) -> int:
    """Remove what a full disk or a killed writer leaves in the compilation cache: zero-byte XLA
    entries (``*-cache``, with their ``*-atime``; JAX writes entries in place, warns on every
    later read of an empty one and never replaces it) and stale ``termo-shapes`` temporaries.
    Returns how many files were removed."""
    import time

    removed = 0
    now = time.time()
    try:
        names = list(folder.iterdir())
    except OSError:
        return 0
    for path in names:
        try:
            name = path.name
            if name.endswith("-cache") and path.stat().st_size == 0:
                path.unlink()
                path.with_name(name[: -len("-cache")] + "-atime").unlink(missing_ok=True)
                removed += 1
            elif name.startswith("termo-shapes-") and name.endswith(".tmp"):
                removed += remove_if_stale(path, now)
        except OSError:
            continue
    return removed


def _read_shapes(path: Path) -> set[str]:
    """The shape keys in ``path``: a JSON list of strings; anything else (missing, not JSON,
    nested past the parser's depth, other types) reads as empty and is rewritten later."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return set()
    if not isinstance(data, list) or not all(isinstance(k, str) for k in data):
        return set()
    return set(data)


def _kernel_signature(platform: str, jax_version: str) -> str:
    source = Path(__file__).read_bytes()
    return hashlib.sha256(source + f"|{platform}|{jax_version}".encode()).hexdigest()[:16]


class _CompiledShapes:
    """The kernel shapes already compiled into the persistent cache on this machine (a small
    JSON list beside the cache, keyed by this file, the platform and the JAX version): a shape
    not in it is a real compile, worth one line on stderr the first time in a process."""

    def __init__(self, folder: Path | None, platform: str, jax_version: str) -> None:
        self.path = None if folder is None else folder / f"termo-shapes-{_kernel_signature(platform, jax_version)}.json"
        self.known: set[str] = set()
        self.seen: set[str] = set()
        if self.path is not None:
            self.known = _read_shapes(self.path)

    def before(self, key: str) -> None:
        global _notice_given
        if key in self.seen:
            return
        self.seen.add(key)
        if key not in self.known and not _notice_given:
            _notice_given = True
            where = f"; later runs load them from {self.path.parent}" if self.path is not None else ""
            print(f"termo: JAX is compiling its kernels for this machine (a few seconds, once{where})",
                  file=sys.stderr, flush=True)

    def after(self, key: str) -> None:
        if key in self.known or self.path is None:
            return
        self.known.add(key)
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(sorted(self.known | _read_shapes(self.path))), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:  # a full or read-only disk: the list is only a notice's memory
            try:
                tmp.unlink()
            except OSError:
                pass


# --------------------------------------------------------------------------------------------
# Kernels (pure functions of jax.numpy; compiled with jax.jit, shapes static)
# --------------------------------------------------------------------------------------------
def _masses_entropy(jnp, lax, codes, w, n_bins: int, pairwise: bool = True):
    """H (R, P) of R narrow padded states from their codes (R, W, P) and weights (R, W):
    ``mass_j = Σ_i w_i·[code_i = code_j]`` pairwise, ``H = −Σ_j w_j·log2 mass_j``."""
    n_rows, width, n_probes = codes.shape
    if width <= UNROLL_MAX:  # one fused pass
        mass = jnp.zeros(codes.shape, jnp.float64)
        for i in range(width):
            mass = mass + jnp.where(codes == codes[:, i:i + 1, :], w[:, i:i + 1, None], 0.0)
    else:
        def add_member(i, mass):
            ci = lax.dynamic_slice_in_dim(codes, i, 1, axis=1)  # (R, 1, P)
            wi = lax.dynamic_slice_in_dim(w, i, 1, axis=1)[:, :, None]  # (R, 1, 1)
            return mass + jnp.where(codes == ci, wi, 0.0)

        mass = lax.fori_loop(0, width, add_member, jnp.zeros(codes.shape, jnp.float64))
    wj = w[:, :, None]
    terms = jnp.where(wj > 0.0, wj * jnp.log2(jnp.where(mass > 0.0, mass, 1.0)), 0.0)
    return -jnp.sum(terms, axis=1)


def _wide_entropy(jnp, m, idx, w, n_bins: int):
    """H (R, P) of R wide padded states from the probes-major matrix ``m`` (P, A): the codes of
    each probe row are gathered together and scattered into that row's histogram (XLA's CPU
    scatter is several times quicker with the updates of one histogram adjacent)."""
    n_rows, width = idx.shape
    n_probes = m.shape[0]
    codes = jnp.take(m, idx.reshape(-1), axis=1).reshape(n_probes, n_rows, width)
    base = (jnp.arange(n_probes, dtype=jnp.int32)[:, None, None] * n_rows
            + jnp.arange(n_rows, dtype=jnp.int32)[None, :, None]) * n_bins
    flat = (codes.astype(jnp.int32) + base).reshape(-1)
    weights = jnp.broadcast_to(w[None, :, :], codes.shape).reshape(-1)
    table = jnp.zeros(n_probes * n_rows * n_bins, jnp.float64).at[flat].add(weights)
    table = table.reshape(n_probes, n_rows, n_bins)
    safe = jnp.where(table > 0.0, table, 1.0)
    return (-jnp.sum(jnp.where(table > 0.0, table * jnp.log2(safe), 0.0), axis=2)).T, codes


def _states_entropy(jnp, lax, opts, mat, idx, w):
    """(H (R, P), the codes) of padded states: pairwise on the answers-major matrix ``mat``
    (A, P) for narrow states, a histogram on the probes-major one (P, A) for wide ones."""
    if opts["pairwise"]:
        codes = mat[idx]  # (R, W, P)
        return _masses_entropy(jnp, lax, codes, w, opts["n_bins"], True), codes
    return _wide_entropy(jnp, mat, idx, w, opts["n_bins"])  # codes (P, R, W)


def _entropy_kernel(jnp, lax, opts, mat, idx, w, start):
    """H (R, block) of the probes ``start .. start+block`` (a traced start: one compile per block)."""
    axis = 1 if opts["pairwise"] else 0
    block = lax.dynamic_slice_in_dim(mat, start, opts["block"], axis=axis)
    return _states_entropy(jnp, lax, opts, block, idx, w)[0]


def _top_k(jnp, lax, key, k: int, iterate: bool):
    """Indices (R, k) of the k largest of unique int64 keys (R, P), largest first. XLA's CPU
    ``top_k`` sorts whole rows (~2 ms a row of 6,046); k passes of argmax are far quicker for a
    small k there. On an accelerator ``lax.top_k`` is the quick one."""
    if not iterate:
        return lax.top_k(key, k)[1]
    lowest = jnp.iinfo(jnp.int64).min
    probe = jnp.arange(key.shape[1])[None, :]

    def take_one(i, state):
        key, out = state
        pos = jnp.argmax(key, axis=1)
        return jnp.where(probe == pos[:, None], lowest, key), out.at[:, i].set(pos)

    return lax.fori_loop(0, k, take_one, (key, jnp.zeros((key.shape[0], k), jnp.int64)))[1]


def _sweep_kernel(jnp, lax, opts, mat, idx, w, valid, rank_key):
    """The first ``k`` probes of the §5.2 order of each padded state, and their entropies."""
    k, bits = opts["k"], opts["bits"]
    h, _ = _states_entropy(jnp, lax, opts, mat, idx, w)  # (R, P)
    n_rows = idx.shape[0]
    rows = jnp.broadcast_to(jnp.arange(n_rows)[:, None], idx.shape)
    member = jnp.zeros(h.shape, jnp.int64).at[rows, idx].max(valid.astype(jnp.int64))
    key_h = jnp.round(jnp.maximum(h, 0.0) / ROUND_STEP).astype(jnp.int64)
    key = key_h * (1 << (bits + 1)) + member * (1 << bits) + rank_key[None, :]
    top = _top_k(jnp, lax, key, k, opts["iterate"])  # keys are unique (the rank field): a total order
    return top.astype(jnp.int64), jnp.take_along_axis(h, top, axis=1)


def _best_kernel(jnp, lax, opts, mat, idx, w, valid, rank_key):
    """The first probe of the §5.2 order of each padded state (the full-beam sweeps): a probe
    counts as a member when it gives the win code on some member (Nerdle's equivalent wins)."""
    bits = opts["bits"]
    h, codes = _states_entropy(jnp, lax, opts, mat, idx, w)
    if opts["pairwise"]:  # codes (R, W, P)
        member = jnp.any((codes == opts["win_code"]) & valid[:, :, None], axis=1)
    else:  # codes (P, R, W)
        member = jnp.any((codes == opts["win_code"]) & valid[None, :, :], axis=2).T
    key_h = jnp.round(jnp.maximum(h, 0.0) / ROUND_STEP).astype(jnp.int64)
    key = key_h * (1 << (bits + 1)) + member.astype(jnp.int64) * (1 << bits) + rank_key[None, :]
    pick = jnp.argmax(key, axis=1)  # unique keys: one best
    return pick.astype(jnp.int64), jnp.take_along_axis(h, pick[:, None], axis=1)[:, 0]


class JaxBackend(Backend):
    def __init__(self) -> None:
        import jax

        jax.config.update("jax_enable_x64", True)
        self._cache_folder = enable_persistent_cache(jax)
        import jax.numpy as jnp

        self._jax = jax
        self._jnp = jnp
        device = jax.devices()[0]
        super().__init__(name="jax", xp=jnp, device=device, version=jax.__version__)
        self._shapes = _CompiledShapes(self._cache_folder, device.platform, jax.__version__)
        self._kernels: dict = {}
        self._device_arrays: dict = {}  # (device, what, id) -> (host object, device array, ...)
        self.pad = True  # bucketed shapes (the tests turn it off to compare)

    def asarray(self, obj, dtype=None):
        if isinstance(dtype, str):
            dtype = getattr(self._jnp, dtype)
        if isinstance(obj, np.ndarray) or not isinstance(obj, self._jax.Array):
            # host data straight to the device (``jnp.asarray`` first would compile a copy per shape)
            return self._jax.device_put(np.asarray(obj, dtype=dtype), self.device)
        return self._jax.device_put(self._jnp.asarray(obj, dtype=dtype), self.device)

    def compile(self, func, static_argnames=()):
        return self._jax.jit(func, static_argnames=tuple(static_argnames))

    def on_accelerator(self) -> bool:
        return self.device.platform != "cpu"

    def describe(self) -> dict:
        return {"name": self.name, "version": self.version, "device": f"{self.device.platform}:{self.device.id}",
                "device_kind": getattr(self.device, "device_kind", ""),
                "compilation_cache": str(self._cache_folder) if self._cache_folder else None}

    def row_histogram(self, codes, weights, n_bins: int):
        jnp = self._jnp
        flat, w, rows = flat_bins(jnp, codes, weights, n_bins)
        return jnp.zeros(rows * n_bins, dtype=jnp.float64).at[flat].add(w).reshape(rows, n_bins)

    def stable_top_k(self, keys, k: int):
        jnp = self._jnp
        order = jnp.argsort(jnp.asarray(keys), descending=True, stable=True)
        return order[..., :k].astype(jnp.int64)  # along the last axis (rows of a batch)

    # --- shapes --------------------------------------------------------------------------------
    def bucket(self, n: int) -> int:
        """A state's padded width: a power of two, at least 4 (no padding when ``pad`` is off)."""
        n = max(1, int(n))
        return max(4, 1 << (n - 1).bit_length()) if self.pad else n

    @property
    def cells(self) -> int:
        """(row, member, probe) cells per device call (bigger on an accelerator)."""
        return GPU_CELLS if self.on_accelerator() else CPU_CELLS

    def rows_cap(self, width: int, n_probes: int) -> int:
        """The most states of padded ``width`` in one device call (a power of two)."""
        per = max(1, self.cells // max(1, width * n_probes))
        return 1 << (per.bit_length() - 1)

    def row_bucket(self, n: int, cap: int) -> int:
        """The padded row count of a batch of ``n`` states: 1, 8, 64, ... or ``cap``."""
        if not self.pad:
            return n
        size = 1
        while size < n:
            size *= ROW_STEP
        return min(size, cap)

    def _kernel(self, name: str, **static):
        key = (name,) + tuple(sorted(static.items()))
        fn = self._kernels.get(key)
        if fn is None:
            jax = self._jax
            body = {"entropy": _entropy_kernel, "sweep": _sweep_kernel, "best": _best_kernel}[name]
            fn = self._kernels[key] = jax.jit(functools.partial(body, self._jnp, jax.lax, dict(static)))
        return fn

    def _call(self, name: str, args, **static):
        """Run kernel ``name`` on ``args`` (device arrays), saying so when it must compile."""
        shape_key = json.dumps([name, self.device.platform, sorted(static.items()), [list(a.shape) for a in args]])
        self._shapes.before(shape_key)
        out = self._kernel(name, **static)(*args)
        self._shapes.after(shape_key)
        return out

    def answers_major(self, tables):
        """The answers-major matrix of a sweep table on the device (made once per table)."""
        host_t = tables.matrix_t
        key = (str(self.device), "answers-major", id(host_t))
        entry = self._device_arrays.get(key)
        if entry is not None and entry[0]() is host_t:
            return entry[1]
        dev = self._jax.device_put(np.ascontiguousarray(np.asarray(host_t)), self.device)
        try:
            ref = weakref.ref(host_t)
        except TypeError:
            ref = (lambda obj: (lambda: obj))(host_t)
        self._device_arrays[key] = (ref, dev)
        return dev

    def probes_major(self, tables):
        """The probes-major matrix of a sweep table on this device (its own array when it is one)."""
        if isinstance(tables.matrix, self._jax.Array) and tables.matrix.devices() == {self.device}:
            return tables.matrix
        key = (str(self.device), "probes-major", id(tables.matrix_host))
        entry = self._device_arrays.get(key)
        if entry is not None and entry[0] is tables.matrix_host:
            return entry[1]
        dev = self._jax.device_put(np.asarray(tables.matrix_host), self.device)
        self._device_arrays[key] = (tables.matrix_host, dev)
        return dev

    def _padded_states(self, members, offsets, state_ids, prior, width, n_rows):
        idx = np.zeros((n_rows, width), dtype=np.int64)
        wts = np.zeros((n_rows, width), dtype=np.float64)
        valid = np.zeros((n_rows, width), dtype=bool)
        for r, s in enumerate(state_ids):
            lo, hi = int(offsets[s]), int(offsets[s + 1])
            idx[r, :hi - lo] = members[lo:hi]
            wts[r, :hi - lo] = _weights(prior, members, lo, hi)
            valid[r, :hi - lo] = True
        return idx, wts, valid

    # --- the sweeps ----------------------------------------------------------------------------
    def probe_entropies(self, tables, members):
        """H (bits) of every probe over ``members``: host float64 (see the module doc). A wide
        set is swept in blocks of probes (each block's temporaries within :attr:`cells`)."""
        cand = np.asarray(members, dtype=np.int64)
        n_probes = tables.n_probes
        if cand.shape[0] <= 1:
            return np.zeros(n_probes, dtype=np.float64)
        width = self.bucket(cand.shape[0])
        pairwise = width <= PAIRWISE_MAX
        per_probe = width if pairwise else width + int(tables.n_bins)
        block = min(n_probes, max(1, self.cells // per_probe))
        if block < n_probes:
            block = 1 << (block.bit_length() - 1)
        idx, wts, _ = self._padded_states(cand, np.asarray([0, cand.shape[0]]), [0],
                                          np.asarray(tables.prior, dtype=np.float64), width, 1)
        mat = self.answers_major(tables) if pairwise else self.probes_major(tables)
        args = (mat, self.asarray(idx), self.asarray(wts))
        out = np.empty(n_probes, dtype=np.float64)
        for p0 in range(0, n_probes, block):
            start = min(p0, n_probes - block)  # the last block overlaps the one before
            h = self._call("entropy", args + (self.asarray(np.int64(start)),), n_bins=int(tables.n_bins),
                           pairwise=pairwise, block=block)
            out[start:start + block] = np.asarray(self.to_numpy(h)[0], dtype=np.float64)
        return out

    def sweep_top_k(self, tables, members, offsets, state_ids, k: int):
        """Batched sweeps: the first ``k`` probes of the §5.2 order (host int64 indices and
        float64 entropies, (S, k), -1 padded) of each state ``members[offsets[s]:offsets[s+1]]``,
        ``s`` in ``state_ids``; each chunk of equal padded width is one device computation."""
        members, offsets, state_ids, prior, kk, out_i, out_h = _sweep_request(tables, members, offsets, state_ids, k)
        n_probes = tables.n_probes
        if state_ids.shape[0] == 0 or kk == 0:
            return out_i, out_h
        rank_key, bits = self._rank_key(tables)
        mt = self.answers_major(tables)
        sizes = offsets[state_ids + 1] - offsets[state_ids]
        by_width: dict = {}
        for t, m in enumerate(sizes.tolist()):
            by_width.setdefault(self.bucket(m), []).append(t)
        for width, rows in sorted(by_width.items()):
            cap = (self.rows_cap(width if width <= PAIRWISE_MAX else width + int(tables.n_bins), n_probes)
                   if self.pad else len(rows))
            for c0 in range(0, len(rows), cap):
                chunk = rows[c0:c0 + cap]
                n_rows = self.row_bucket(len(chunk), cap)
                idx, wts, valid = self._padded_states(members, offsets, state_ids[chunk], prior, width, n_rows)
                mat = mt if width <= PAIRWISE_MAX else self.probes_major(tables)
                top, top_h = self._call("sweep", (mat, self.asarray(idx), self.asarray(wts), self.asarray(valid),
                                                  rank_key),
                                        n_bins=int(tables.n_bins), pairwise=width <= PAIRWISE_MAX, k=kk, bits=bits,
                                        iterate=kk <= ITERATE_MAX_K and not self.on_accelerator())
                n = len(chunk)
                out_i[chunk, :kk] = np.asarray(self.to_numpy(top), dtype=np.int64)[:n]
                out_h[chunk, :kk] = np.asarray(self.to_numpy(top_h), dtype=np.float64)[:n]
        return out_i, out_h

    # --- the full-beam sweeps ------------------------------------------------------------------
    def best_probe_plan(self, matrix, probe_prior):
        """The answers-major matrix on the device and the §5.2 rank field of the tie-break prior."""
        from backends.array_api_ops import _check_key_room, _rank_key

        host_m = np.asarray(self.to_numpy(matrix))
        rank_key, bits = _rank_key(probe_prior)
        return {"jax_matrix_t": self._jax.device_put(np.ascontiguousarray(host_m.T), self.device),
                "jax_matrix": matrix if self._on_device(matrix) else self._jax.device_put(host_m, self.device),
                "rank_key": self.asarray(rank_key, dtype="int64"), "bits": bits, "n_probes": int(host_m.shape[0]),
                "check": lambda n_bins: _check_key_room(int(n_bins), bits)}

    def best_probes(self, plan, members, offsets, prior, win_code: int, n_bins: int, **_):
        """(best probe, its entropy) of every state ``members[offsets[s]:offsets[s+1]]`` under the
        plan's tie-break prior (host int64, float64); one device computation per padded chunk."""
        if "jax_matrix_t" not in plan:
            return super().best_probes(plan, members, offsets, prior, win_code, n_bins)
        plan["check"](n_bins)
        from backends.array_api_ops import best_probes_request

        members, offsets, prior, out, out_h = best_probes_request(members, offsets, prior)
        n_probes = plan["n_probes"]
        n_states = out.shape[0]
        by_width: dict = {}
        for t, m in enumerate((offsets[1:] - offsets[:-1]).tolist()):
            by_width.setdefault(self.bucket(m), []).append(t)
        ids = np.arange(n_states, dtype=np.int64)
        for width, rows in sorted(by_width.items()):
            pairwise = width <= PAIRWISE_MAX
            cap = self.rows_cap(width if pairwise else width + int(n_bins), n_probes) if self.pad else len(rows)
            for c0 in range(0, len(rows), cap):
                chunk = rows[c0:c0 + cap]
                n_rows = self.row_bucket(len(chunk), cap)
                idx, wts, valid = self._padded_states(members, offsets, ids[chunk], prior, width, n_rows)
                mat = plan["jax_matrix_t"] if pairwise else plan["jax_matrix"]
                pick, pick_h = self._call("best", (mat, self.asarray(idx), self.asarray(wts),
                                                   self.asarray(valid), plan["rank_key"]),
                                          n_bins=int(n_bins), pairwise=pairwise, bits=plan["bits"],
                                          win_code=int(win_code))
                n = len(chunk)
                out[chunk] = np.asarray(self.to_numpy(pick), dtype=np.int64)[:n]
                out_h[chunk] = np.asarray(self.to_numpy(pick_h), dtype=np.float64)[:n]
        return out, out_h

    def _rank_key(self, tables):
        """(device rank field of the §5.2 key, its bits) for a sweep table, made once."""
        from backends.array_api_ops import _check_key_room, _rank_key

        key = (str(self.device), "rank", id(tables.probe_prior))
        entry = self._device_arrays.get(key)
        if entry is not None and entry[0] is tables.probe_prior:
            return entry[1], entry[2]
        rank_key, bits = _rank_key(tables.probe_prior)
        _check_key_room(int(tables.n_bins), bits)
        dev = self.asarray(rank_key, dtype="int64")
        self._device_arrays[key] = (tables.probe_prior, dev, bits)
        return dev, bits


def _sweep_request(tables, members, offsets, state_ids, k):
    from backends.array_api_ops import sweep_request

    return sweep_request(tables, members, offsets, state_ids, k)


def _weights(prior, members, lo, hi):
    """The state's normalised weights (the same floats as the host kernels')."""
    from backends.array_api_ops import _weights as shared

    return shared(prior, members, lo, hi)
