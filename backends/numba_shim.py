"""numba for the kernel modules, imported only when a kernel first runs, or plain-Python stand-ins.

Every kernel module (the package ``backends/kernels/``) takes ``njit``,
``prange``, ``HAVE_NUMBA``, ``int_dict`` and ``get_num_threads`` from here, so one switch rules
them all:

* ``TERMO_NO_NUMBA=1``, or numba not installed: ``njit`` returns the function itself (with
  ``.py_func``), ``prange`` is ``range``, ``int_dict()`` a plain dict; numba is never imported.
* Otherwise ``njit`` wraps each kernel in a :class:`LazyKernel` and numba is *not* imported yet.
  Importing numba costs ~0.5 s and its first typing ~1.3 s more (scipy, the registries), which a
  process that answers from the pure-NumPy paths (``backends/numpy_sweep.py``) never pays. The
  first kernel call (or :func:`load`) imports numba once, makes every kernel defined so far a
  numba dispatcher with its own options (``cache=True``: numba's on-disk cache, keyed by the
  source file's stamp and each signature, so an edited kernel is recompiled and an unchanged
  one loaded) and rebinds the module globals that named a lazy kernel or ``prange`` — compiled
  kernels then see each other as dispatchers, exactly as if numba had been imported at the top.
  Kernels defined after that are plain numba dispatchers.

While numba really compiles (a cache miss, not a cache load) one line goes to stderr, once per
process, terminal or not (:func:`compile_notice`): during the warm-ups it states the compile still
ahead (the estimates the warm-ups registered with, of those not finished yet); a kernel no warm-up
compiled says it takes a few seconds. Each compilation is the step :data:`COMPILE_STEP` of
:mod:`backends.status`, which a progress display names while it lasts.

numba compiles a kernel for each argument-type signature the first time it is called with it,
so a first command used to compile what *it* needed and a later one (another state size, the
parallel variant, another entry point) compiled again. A *warm-up* (:func:`register_warm_up`:
the domain registers one that runs the common commands' code paths on the real game) runs
when numba first loads in a process whose numba cache has not been warmed for these kernel
sources: everything common compiles in that one sitting, then a stamp next to numba's own
index files (keyed like them: the kernel files' size and mtime, numba, Python, the CPU) says
so, and later processes only load. ``termo.interface.warm_up`` registers one per kind of command (the
level-2/3 search on both code widths, ``partition``, the exact solver, the full-beam evaluations
of ``openers`` and ``robustness``), so that the first run compiles every command's kernels and
no later command compiles again (``bench/bench_warmup.py`` measures it from an empty cache).
The warm-up only speeds things up: a kernel it missed is still compiled when called, with the
same stderr line.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.abc
import importlib.util
import os
import platform
import sys
import threading
import time

ENV_VAR = "TERMO_NO_NUMBA"
DISABLED = os.environ.get(ENV_VAR, "").strip() not in ("", "0")
HAVE_NUMBA = not DISABLED and importlib.util.find_spec("numba") is not None

# what a compile says (compile_notice): the warm-ups' remaining estimate, or a kernel no warm-up compiled
COMPILE_NOTICE = "termo: compiling the search kernels {what} ({estimate}; later runs reuse them)\u2026"
WARM_UP_WHAT = "once, for every command"
STRAY_WHAT = "this command needs"
FEW_SECONDS = "a few seconds"

COMPILE_STEP = "compiling the search kernels"  # what a spinner says while numba compiles ours

WARM_UP_VERSION = "1"  # bump when the warm-up workload changes what it covers

_lock = threading.RLock()
# remaining: the estimated seconds of the warm-ups still to finish while they run (None otherwise)
_state = {"numba": None, "failed": False, "noticed": False, "remaining": None}
_pending: list["LazyKernel"] = []
_kernel_modules: set = set()  # modules whose kernels come from here: only their compiles are noticed
_warm_ups: list = []  # (callback, kernel source files it covers, estimated compile seconds from empty)


def _plain_prange(*args):
    """``range`` for kernels run as Python (numba's ``prange`` replaces it when numba loads)."""
    return range(*args)


prange = _plain_prange if HAVE_NUMBA else range


def _interpreted(fn):
    fn.py_func = fn
    return fn


def njit(*args, **options):
    """``numba.njit`` (lazily; see the module doc), or the function itself without numba."""
    if len(args) == 1 and callable(args[0]) and not options:
        return _decorate(args[0], {})
    if args:  # an explicit signature: keep numba's eager meaning
        options = dict(options, signature_or_function=args[0])

    def wrap(fn):
        return _decorate(fn, options)

    return wrap


def _decorate(fn, options):
    if not HAVE_NUMBA or _state["failed"]:
        return _interpreted(fn)
    _kernel_modules.add(fn.__module__)
    numba = _state["numba"]
    if numba is not None:
        return numba.njit(**options)(fn)
    with _lock:
        if _state["numba"] is not None:
            return _state["numba"].njit(**options)(fn)
        kernel = LazyKernel(fn, options)
        _pending.append(kernel)
        return kernel


class LazyKernel:
    """A kernel whose numba dispatcher is made when the first kernel runs (see :func:`load`).

    Calling it calls the dispatcher; any other attribute (``signatures``, ``stats``,
    ``parallel_diagnostics`` ...) is the dispatcher's; ``py_func`` is the plain function."""

    def __init__(self, fn, options):
        self._dispatcher = None
        self._options = options
        self.py_func = fn
        functools.update_wrapper(self, fn)

    @property
    def dispatcher(self):
        if self._dispatcher is None:
            load()
        return self._dispatcher if self._dispatcher is not None else self.py_func

    def __call__(self, *args, **kwargs):
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_dispatcher", "_options", "py_func"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __repr__(self) -> str:
        return f"<LazyKernel {self.py_func.__module__}.{self.py_func.__qualname__}>"

    def __reduce__(self):  # pickled by reference, like a module-level function
        return (_kernel_named, (self.py_func.__module__, self.py_func.__qualname__))


def _kernel_named(module: str, name: str):
    """The kernel ``module.name`` (what a pickled `LazyKernel` stands for)."""
    import importlib

    return getattr(importlib.import_module(module), name)


def loaded() -> bool:
    """Has numba been imported and the kernels bound in this process?"""
    return _state["numba"] is not None


def load():
    """Import numba and bind every kernel (idempotent); the numba module, or None without it."""
    if _state["numba"] is not None or not HAVE_NUMBA or _state["failed"]:
        return _state["numba"]
    with _lock:
        if _state["numba"] is not None or _state["failed"]:
            return _state["numba"]
        try:
            with _scipy_hidden():
                import numba
                from numba.core.registry import cpu_target

                cpu_target.target_context.refresh()  # numba's own start-up, done here, SciPy unseen
        except Exception:  # noqa: BLE001 - an installed numba that cannot start: interpret
            _state["failed"] = True
            _bind({k: k.py_func for k in _pending}, range)
            return None
        _install_notice(numba)
        for kernel in _pending:
            kernel._dispatcher = numba.njit(**kernel._options)(kernel.py_func)
        stamp_dirs = _cache_dirs()
        _bind({k: k._dispatcher for k in _pending}, numba.prange)
        _state["numba"] = numba
        _run_warm_ups(numba, stamp_dirs)
        return numba


class _HideSciPy(importlib.abc.MetaPathFinder):
    """Makes ``scipy`` unimportable while it is on ``sys.meta_path``."""

    def find_spec(self, name, path, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError(f"{name} is not imported while numba starts")
        return None


@contextlib.contextmanager
def _scipy_hidden():
    """numba imports SciPy when it starts (0.1–0.3 s; its BLAS serves ``np.dot`` and
    ``np.linalg`` in compiled code, which no kernel here calls), unless SciPy cannot be found.
    While numba starts it cannot; after, it imports as usual (the jax extra needs it). Where SciPy
    is already imported this changes nothing."""
    finder = _HideSciPy()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _bind(replacement: dict, real_prange) -> None:
    """Rebind, in every module that defined a lazy kernel, the globals naming one (or prange)."""
    global prange
    namespaces = {id(k.py_func.__globals__): k.py_func.__globals__ for k in _pending}
    for space in namespaces.values():
        for name, value in list(space.items()):
            if isinstance(value, LazyKernel) and value in replacement:
                space[name] = replacement[value]
            elif value is _plain_prange:
                space[name] = real_prange
    prange = real_prange
    _pending.clear()


def _install_notice(numba) -> None:
    """One stderr line when numba starts compiling one of our kernels (a cache miss, not a cache
    load) in this process; numba's own uncached helpers (typed containers) do not count."""
    from numba.core import event

    from backends import status

    class _Notice(event.Listener):
        @staticmethod
        def _ours(ev) -> bool:
            dispatcher = (ev.data or {}).get("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", None)
            return module in _kernel_modules  # not numba's own helpers (typed containers ...)

        def on_start(self, ev):
            if self._ours(ev):
                notice_compiling()
                status.begin(COMPILE_STEP)

        def on_end(self, ev):
            if self._ours(ev):
                status.end(COMPILE_STEP)

    event.register("numba:compile", _Notice())


def compile_notice(seconds: float | None = None) -> str:
    """The line a compile prints: ``seconds`` is the compile still ahead while the warm-ups run
    (about that, rounded to 10 s; under 10 s, a few seconds); None: a kernel outside the warm-ups
    (a few seconds)."""
    if seconds is None:
        return COMPILE_NOTICE.format(what=STRAY_WHAT, estimate=FEW_SECONDS)
    estimate = FEW_SECONDS if seconds < 10 else f"about {int(round(seconds, -1))} s"
    return COMPILE_NOTICE.format(what=WARM_UP_WHAT, estimate=estimate)


def notice_compiling(seconds: float | None = None) -> None:
    """Say (once per process) that the kernels are being compiled: one stderr line
    (:func:`compile_notice` of ``seconds``, by default the warm-ups' remaining estimate while they
    run), through the progress display shown (above its bar), else straight to file descriptor 2
    so that it shows whatever wraps ``sys.stderr`` (:func:`backends.status.say`)."""
    with _lock:
        if _state["noticed"]:
            return
        _state["noticed"] = True
        if seconds is None:
            seconds = _state["remaining"]
    from backends import status

    status.say(compile_notice(seconds))


def register_warm_up(callback, sources, seconds: float | None = None) -> None:
    """Run ``callback()`` when numba first loads with a cache not yet warmed for ``sources``
    (kernel module files); see the module doc. ``seconds``: what it compiles from an empty cache
    (the notice's estimate; None: not counted)."""
    _warm_ups.append((callback, tuple(os.path.realpath(str(p)) for p in sources), seconds))


def _cache_dirs() -> dict:
    """Kernel source file -> the folder where numba keeps its cached kernels."""
    dirs = {}
    for kernel in _pending:
        cache = getattr(kernel._dispatcher, "_cache", None)
        path = getattr(cache, "_cache_path", None)
        source = getattr(kernel.py_func, "__code__", None)
        if path and source is not None:
            dirs.setdefault(os.path.realpath(source.co_filename), path)
    return dirs


def _module_of(source: str):
    """The module whose file is ``source`` (imported now if it is not yet), or None."""
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and os.path.realpath(path) == source:
            return module
    for entry in sys.path:
        root = os.path.realpath(entry or os.getcwd())
        if source.startswith(root + os.sep) and source.endswith(".py"):
            name = source[len(root) + 1:-3].replace(os.sep, ".")
            try:
                import importlib

                return importlib.import_module(name)
            except Exception:  # noqa: BLE001 - not importable from here: no stamp, no warm-up
                return None
    return None


def _cache_dir_of(source: str):
    """Where numba caches the kernels of the module ``source`` (a kernel module not imported when
    numba loaded: its kernels are plain dispatchers, not in the pending list), or None."""
    module = _module_of(source)
    for value in vars(module).values() if module is not None else ():
        path = getattr(getattr(value, "_cache", None), "_cache_path", None)
        if path:
            return path
    return None


def _cache_dir_beside(source: str, cache_dirs: dict):
    """numba's cache folder of a kernel module in the folder of ``source``, or None: numba keeps
    the kernels of every module of one folder in one cache folder (each of its cache locators,
    in-tree ``__pycache__``, ``NUMBA_CACHE_DIR`` or the user-wide one, goes by the source's folder),
    so a module need not be imported to know where its kernels are."""
    folder = os.path.dirname(source)
    return next((path for known, path in cache_dirs.items() if os.path.dirname(known) == folder), None)


def warm_up_stamp(sources, cache_dirs):
    """The stamp file of a warm-up over ``sources``, or None when there is nowhere to put it.
    Its folder is numba's cache folder of the first source that has one (a kernel module):
    a kernel module bound already, else one beside it, else the module itself (imported)."""
    folder = next((cache_dirs[s] for s in sources if s in cache_dirs), None)
    if folder is None and sources:
        folder = _cache_dir_beside(sources[0], cache_dirs) or _cache_dir_of(sources[0])
        if folder is not None:
            cache_dirs[sources[0]] = folder
    if folder is None:
        return None
    numba = _state["numba"]
    key = [WARM_UP_VERSION, getattr(numba, "__version__", ""), sys.version, platform.machine()]
    try:
        from numba.core.registry import cpu_target

        key.append(repr(cpu_target.target_context.codegen().magic_tuple()))
    except Exception:  # noqa: BLE001 - an older or newer numba: the CPU is left out of the key
        pass
    for source in sources:
        try:
            st = os.stat(source)
        except OSError:
            return None
        key.append(f"{source}:{st.st_mtime_ns}:{st.st_size}")
    digest = hashlib.sha256("\n".join(key).encode("utf-8")).hexdigest()[:20]
    return os.path.join(folder, f"termo-warm-up-{digest}.stamp")


def _run_warm_ups(numba, cache_dirs) -> None:
    """Run the warm-ups whose stamp is missing, the remaining estimate kept for the notice; each
    stamp records how long its warm-up took (wall and CPU seconds, what ``bench/bench_warmup.py``
    reads back)."""
    pending = []
    for callback, sources, seconds in list(_warm_ups):
        stamp = warm_up_stamp(sources, cache_dirs)
        if stamp is not None and not os.path.exists(stamp):
            pending.append((callback, stamp, seconds or 0.0))
    _state["remaining"] = sum(s for _, _, s in pending)
    try:
        for callback, stamp, seconds in pending:
            _warm_up_once(callback, stamp)
            _state["remaining"] = max(0.0, _state["remaining"] - seconds)
    finally:
        _state["remaining"] = None


def _warm_up_once(callback, stamp: str) -> None:
    try:  # nowhere to write the stamp: numba cannot cache either, so warming up is no use
        os.makedirs(os.path.dirname(stamp), exist_ok=True)
        with open(stamp + ".tmp", "w", encoding="utf-8") as fh:
            fh.write("warming up\n")
    except OSError:
        return
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        callback()
    except Exception:  # noqa: BLE001 - the warm-up only saves time; the command goes on
        return
    try:
        with open(stamp + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(f"{getattr(callback, '__name__', 'warm-up')} wall_s {time.perf_counter() - wall:.1f} "
                     f"cpu_s {time.process_time() - cpu:.1f}\n")
        os.replace(stamp + ".tmp", stamp)
    except OSError:
        pass


def int_dict():
    """An int64 → int64 dictionary the compiled kernels accept (a plain dict when interpreted)."""
    numba = load()
    if numba is None:
        return {}
    from numba import types
    from numba.typed import Dict

    return Dict.empty(key_type=types.int64, value_type=types.int64)


def get_num_threads() -> int:
    """numba's thread count (loads numba), 1 when the kernels are interpreted."""
    numba = load()
    return numba.get_num_threads() if numba is not None else 1
