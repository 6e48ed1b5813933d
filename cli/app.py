"""The ``termo`` command: a root typer app; each topic registers its commands from its own module.

Start-up is kept short, because ``termo suggest`` is often a whole process for one answer: the
typer app (and every command module) is built on first use (``cli.app.app``), and :func:`main`
first tries a direct call. Converting parameters through typer costs ~0.4 s (it builds a
pydantic adapter per parameter); the commands named in :data:`DIRECT_COMMANDS` take only text
and flags, so when the command line is plainly one of them — known options with their values,
``--opt=value``, flags, positional arguments, the options' environment variables — the command
function is called with exactly the keyword arguments typer would pass. Anything else (help, a
root option, an unknown or malformed option, a type other than text or a flag) goes through
typer, which also reports every usage error. ``tests/test_startup.py`` runs the same command
lines both ways and compares what they print.
"""

import importlib
import inspect
import os
import sys
import typing

COMMAND_MODULES = (
    "cli.foundation_commands",
    "cli.solver_commands",
    "cli.bench_commands",
    "cli.robustness_commands",
    "cli.partition_commands",
    "cli.optimal_commands",
    "cli.tree_commands",
    "cli.openers_commands",
    "cli.serve_commands",
    "cli.nerdle_commands",
    "cli.review_commands",
)
# command name -> (module, function): commands whose parameters are all text, flags or a list of
# texts, safe to call without typer's parameter conversion
DIRECT_COMMANDS = {"suggest": ("cli.solver_commands", "suggest_command")}

_app = None


def _build_app():
    from typing import Annotated, Optional

    import typer

    from cli.options import RootOptions
    from termo import __version__

    app = typer.Typer(
        name="termo",
        help="Solver suite for Termo (term.ooo, Portuguese Wordle) and other Wordle-family games.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )

    def _version(value: bool) -> None:
        if value:
            typer.echo(f"termo {__version__}")
            raise typer.Exit()

    @app.callback()
    def root(
        ctx: typer.Context,
        version: Annotated[
            Optional[bool],
            typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit."),
        ] = None,
        backend: Annotated[
            Optional[str],
            typer.Option(
                "--backend",
                help="Array backend for every command: numpy (default), jax, cupy, array-api-strict, auto.",
                show_default=False,
            ),
        ] = None,
    ) -> None:
        """Solver suite for Termo (term.ooo, Portuguese Wordle) and other Wordle-family games."""
        if backend:
            from backends.registry import check_name

            check_name(backend)  # a wrong name is one line and exit 2, even for a command without arrays
        ctx.obj = RootOptions(backend=backend or None)  # every command's context inherits it
        _register_warm_ups()

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def _register_warm_ups() -> None:
    """Register every command's kernel warm-up (`termo.interface.warm_up`) before a command runs
    a kernel; ``--version`` and ``--help`` answer before this and import no array library."""
    import termo.interface.warm_up  # noqa: F401


def get_app():
    """The root typer app (built, with every command module imported, on first use)."""
    global _app
    if _app is None:
        _app = _build_app()
    return _app


def __getattr__(name):
    if name == "app":
        return get_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------- direct calls


def _parameter_table(func):
    """How the command line maps to ``func``'s keyword arguments, read from its typer
    annotations: ``(options, argument, envvars)``, or None when typer is needed. A
    ``typer.Context`` parameter is left out (`context_arguments`)."""
    import typer.models as tm

    from cli.options import is_context

    options: dict = {}  # "--name" -> (parameter, None for a value, or the flag's value)
    argument = None
    envvars: dict = {}
    # the signature typer reads (an option group's parameters in place, `cli.options.with_options`)
    for name, parameter in inspect.signature(func, eval_str=True).parameters.items():
        hint = parameter.annotation
        if is_context(hint):
            continue
        info = next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, tm.ParameterInfo)), None)
        if info is None or parameter.kind is not parameter.POSITIONAL_OR_KEYWORD:
            return None
        base = typing.get_args(hint)[0]
        if isinstance(info, tm.ArgumentInfo):
            if argument is not None or base not in (typing.Optional[typing.List[str]], typing.Optional[list[str]]):
                return None
            argument = name
            continue
        if not isinstance(info, tm.OptionInfo) or _needs_typer(info):
            return None
        # in Annotated, typer.Option's first positional argument is the first option name
        decls = ([info.default] if isinstance(info.default, str) else []) + list(info.param_decls or ())
        if not decls or not all(isinstance(d, str) and d.startswith("-") for d in decls):
            return None  # names derived from the parameter: left to typer
        if base in (bool, typing.Optional[bool]):
            for decl in decls:
                on, _, off = decl.partition("/")
                options[on.strip()] = (name, True)
                if off:
                    options[off.strip()] = (name, False)
        elif base in (str, typing.Optional[str]):
            for decl in decls:
                options[decl] = (name, None)
        else:
            return None
        if info.envvar:
            if not isinstance(info.envvar, str) or base not in (str, typing.Optional[str]):
                return None
            envvars[name] = info.envvar
    return options, argument, envvars


def context_arguments(func) -> dict:
    """``func``'s ``typer.Context`` parameters, each None: a direct call has no root context
    (the root options are in the keyword arguments already, `direct_call`)."""
    from cli.options import is_context

    parameters = inspect.signature(func, eval_str=True).parameters.values()
    return {p.name: None for p in parameters if is_context(p.annotation)}


def _needs_typer(info) -> bool:
    """An option typer must handle itself (callbacks, prompts, counts, parsers, hidden values);
    ``--backend``'s callback is what a direct call does already (`direct_call`)."""
    from cli.options import backend_callback

    callback = getattr(info, "callback", None)
    return bool((callback is not None and callback is not backend_callback) or getattr(info, "is_eager", False)
                or getattr(info, "prompt", False) or getattr(info, "count", False)
                or getattr(info, "parser", None) or getattr(info, "default_factory", None)
                or not getattr(info, "expose_value", True))


def _root_options(args):
    """The root options before the command (only ``--backend``), or None for anything else."""
    root: dict = {}
    while args and args[0].startswith("-"):
        token = args.pop(0)
        if token.startswith("--backend="):
            root["backend"] = token.split("=", 1)[1]
        elif token == "--backend" and args:
            root["backend"] = args.pop(0)
        else:
            return None  # --version, --help, ...: typer
    return root


def direct_call(args):
    """``(function, kwargs, environment)`` when ``args`` is plainly a call of a direct command,
    else None; ``environment`` holds what the root options say, as the options' environment
    variables (``TERMO_BACKEND``): a root ``--backend`` reaches the command's own ``--backend``
    parameter (when not typed after the command), as on the typer path (`cli.options`)."""
    args = list(args)
    root = _root_options(args)
    if root is None or not args or args[0] not in DIRECT_COMMANDS:
        return None
    environ = {"TERMO_BACKEND": root["backend"]} if root.get("backend") else {}
    module_name, func_name = DIRECT_COMMANDS[args[0]]
    func = getattr(importlib.import_module(module_name), func_name)
    table = _parameter_table(func)
    if table is None:
        return None
    options, argument, envvars = table
    kwargs: dict = {}
    positional: list = []
    rest = list(args[1:])
    while rest:
        token = rest.pop(0)
        if not token.startswith("-") or token == "-":
            positional.append(token)
            continue
        name, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
        if name not in options:
            return None  # --help, "--", an unknown option, "-l2" ...: typer decides
        param, flag = options[name]
        if flag is not None:
            if eq:
                return None
            kwargs[param] = flag
            continue
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        kwargs[param] = value
    if positional and argument is None:
        return None
    if argument is not None:
        kwargs[argument] = positional or None
    for param, var in envvars.items():
        value = environ.get(var) or os.environ.get(var)
        if param not in kwargs and value:
            kwargs[param] = value
    return func, kwargs, environ


# ----------------------------------------------------------------------------- entry point


# termo does no BLAS work (its heavy loops are numba kernels with their own threads and NumPy
# element-wise calls): OpenBLAS's thread pool, started when NumPy loads, would only cost CPU time
# (~0.15 s of a 2-core machine at every start). A value the user set is kept.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}


class Terminated(BaseException):
    """SIGTERM as an exception (not an `Exception`: no handler of errors swallows it), so the
    running command unwinds: its ``finally`` blocks run, a local Dask cluster's worker processes
    are shut down (`termo optimal --rank --workers N` once left them computing for 20 minutes),
    a progress bar stops; then the exit code is 143 (128 + SIGTERM), as the default action's."""


def _terminated(signum, frame) -> None:
    raise Terminated()


def main(argv: typing.Optional[typing.List[str]] = None) -> int:
    """Entry point: usage errors, library errors and file-system errors become one stderr line
    and exit code 2 (`cli.common.one_line`: escaped, echoed input cut); a closed stdout pipe
    ends quietly with 141 (128 + SIGPIPE, like the tools of a shell pipeline); SIGTERM stops the
    command as Ctrl-C does (:class:`Terminated`), 143."""
    import signal

    try:
        previous = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # called off the main thread (a test's helper thread): the default stays
        previous = None
    try:
        return _main(argv)
    except Terminated:
        from cli.common import echo_error

        echo_error("termo: terminated")
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class _ClosedOutput:
    """Standard output that the caller closed (``termo ... >&-``): the first write raises, so the
    answer is not dropped in silence (one stderr line, exit 2)."""

    encoding, errors = "utf-8", "strict"

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.EBADF, "standard output is closed: the answer cannot be written")

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        pass


def _closed_streams() -> None:
    """A standard stream the caller closed: its descriptor is pointed at the null device (so no
    file opened later takes its number); a closed stderr then discards what it is sent (the
    answer is still printed), and a closed stdout is `_ClosedOutput`."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_WRONLY)  # the lowest free descriptor: this one, or a lower closed one
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        os.set_inheritable(fd, True)  # as a standard stream is (`termo serve` execs the web program)
        setattr(sys, name, _ClosedOutput() if name == "stdout" else open(fd, "w", encoding="utf-8", closefd=False))


def _main(argv: typing.Optional[typing.List[str]] = None) -> int:
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    _closed_streams()
    import typer

    from cli.common import USER_ERRORS, check_arguments, discard_stdout, echo_error, os_error_message

    # typer vendors click: find its usage-error base class through a public subclass.
    click_error = next(cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "ClickException")
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        check_arguments(args)
        direct = direct_call(args)
        if direct is not None:
            func, kwargs, environ = direct
            if environ.get("TERMO_BACKEND"):
                from backends.registry import check_name

                check_name(environ["TERMO_BACKEND"])
            _register_warm_ups()
            result = func(**context_arguments(func), **kwargs)
        else:
            result = get_app()(args=args, standalone_mode=False)
        code = int(result or 0) if isinstance(result, int) else 0
    except typer.Exit as done:
        code = done.exit_code
    except typer.Abort:
        echo_error("termo: aborted")
        return 130
    except click_error as err:  # bad option, missing argument, ...
        if type(err).__name__ != "NoArgsIsHelpError":  # that one has printed the help already
            echo_error(f"termo: error: {err.format_message()}")
        return err.exit_code
    except USER_ERRORS as err:
        echo_error(f"termo: error: {err}")
        return 2
    except KeyboardInterrupt:
        echo_error("termo: interrupted")
        return 130
    except BrokenPipeError:  # the reader went away (`termo ... | head`): nothing to say
        discard_stdout()
        return 141
    except OSError as err:  # a full disk, a folder that cannot be written, ...
        echo_error(f"termo: error: {os_error_message(err)}")
        return _flush_stdout(2, report=False)
    except SystemExit:  # typer's own answer to a closed pipe: sys.exit(1), streams wrapped
        if _unwrap_pacified_streams():
            discard_stdout()
            return 141
        raise
    except Exception as err:  # noqa: BLE001 - no traceback reaches the user
        if os.environ.get("TERMO_DEBUG"):
            raise
        echo_error(f"termo: internal error: {type(err).__name__}: {err} (set TERMO_DEBUG=1 for details)")
        return 1
    return _flush_stdout(code)


def _flush_stdout(code: int, report: bool = True) -> int:
    """Flush what the command printed, so that a failing stdout (a full disk, a closed pipe) is
    reported here as one line (unless ``report`` is off: already said), never by Python at
    exit; returns the exit code."""
    from cli.common import discard_stdout, echo_error, os_error_message

    try:
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
        return 141 if report else code
    except OSError as err:
        if report:
            echo_error(f"termo: error: {os_error_message(err)}")
        discard_stdout()
        return 2
    except (AttributeError, ValueError):  # a closed or replaced stdout: nothing left to flush
        pass
    return code


def _unwrap_pacified_streams() -> bool:
    """Undo click's ``PacifyFlushWrapper`` of sys.stdout/sys.stderr (what typer installs on a
    broken pipe); True when there was one."""
    found = False
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if type(stream).__name__ == "PacifyFlushWrapper":
            setattr(sys, name, getattr(stream, "wrapped", stream))
            found = True
    return found


def run() -> None:
    """The console script: :func:`main`, then the end of the process without the interpreter's
    teardown (:func:`exit_now`)."""
    exit_now(main())


def exit_now(code: int) -> None:
    """End the process with ``code`` as the interpreter would, less its teardown.

    Python's own exit clears every module and object one by one: ~30 ms of a one-shot level-2
    answer, ~150 ms of a level-3 one (numba's compiled code), `bench/bench_startup.py`. When no
    thread but daemons is left (a one-shot question), what that exit does for the program is done
    here: the ``atexit`` functions run (Dask's and multiprocessing's clean-ups, `weakref.finalize`
    such as temporary folders), standard output and error are flushed; then ``os._exit``. termo
    closes every file it writes before the command returns (atomic writes). A thread that is not
    a daemon (a pool's worker, a server's), a flush that fails, or ``TERMO_DEBUG`` set (a
    teardown's own errors shown) leaves the exit to the interpreter, which waits for the threads."""
    import atexit
    import threading

    current = threading.current_thread()
    others = [t for t in threading.enumerate() if t is not current and not t.daemon]
    if os.environ.get("TERMO_DEBUG") or others or not hasattr(atexit, "_run_exitfuncs"):
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed or broken stream: the interpreter says what it says
        sys.exit(code)
    os._exit(code)
