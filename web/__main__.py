"""``python -m web``: the web board and the JSON API (`web.app`), served by uvicorn.

`termo serve` checks its options, binds the listening socket (so that a taken port is its own
one-line error) and then becomes this program (``os.execv``: the same process), handing the
socket over with ``--fd``. Run directly, the program binds ``--host``/``--port`` itself.

Only the names the server is bound to are answered (`allowed_hosts`). The connections' timeouts
and bound are `web.connections`'. SIGTERM stops the server as Ctrl-C does (the worker processes
with it), and the workers end by themselves if the server is killed.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys

from termo.games import GAME_NAMES


def allowed_hosts(address: str):
    """The ``Host`` names the server answers to when bound to ``address``: the loopback names
    and ``address`` itself; None (every name) when bound to every interface (0.0.0.0, ::),
    whose names are not known here."""
    import ipaddress

    from web.app import LOOPBACK_HOSTS

    bare = address.strip("[]")
    try:
        ip = ipaddress.ip_address(bare)
    except ValueError:
        return [*LOOPBACK_HOSTS, address.lower()]
    if ip.is_unspecified:
        return None
    return [*LOOPBACK_HOSTS, f"[{ip}]" if ip.version == 6 else str(ip)]


def warm_games(text: str) -> tuple[str, ...]:
    """``--warm``: the games to prepare at start, in the board's order (all, none, or a list)."""
    value = text.strip().lower()
    if value == "all":
        return tuple(GAME_NAMES)
    if value == "none":
        return ()
    names = [part.strip() for part in value.split(",") if part.strip()]
    if not names or any(name not in GAME_NAMES for name in names):
        raise argparse.ArgumentTypeError(f"must be all, none or games among {', '.join(GAME_NAMES)}, not {text!r}")
    return tuple(name for name in GAME_NAMES if name in names)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m web", description="The web board and the JSON API, served by uvicorn.")
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDRESS", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, metavar="PORT", help="TCP port (0: a free port)")
    parser.add_argument("--workers", type=int, default=2, choices=range(1, 9), metavar="N",
                        help="workers per lane (1 to 8)")
    parser.add_argument("--warm", type=warm_games, default="all", metavar="all|none|GAME,...",
                        help="what to prepare before saying ready")
    parser.add_argument("--today-source", metavar="URL|FILE", help="where today's Nerdle answer is read")
    parser.add_argument("--fd", type=int, metavar="FD", help="an inherited socket, already bound (termo serve)")
    return parser.parse_args(argv)


def _terminated(signum, frame) -> None:
    """SIGTERM after uvicorn's graceful stop (it raises the signal again), or before it started:
    a normal exit, so the worker pools are shut down as on Ctrl-C."""
    raise SystemExit(128 + signum)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _listener(options: argparse.Namespace) -> socket.socket:
    """The listening socket: the one handed over (``--fd``), else ``--host``/``--port`` bound here."""
    if options.fd is not None:
        return socket.socket(fileno=options.fd)
    family = socket.AF_INET6 if ":" in options.host else socket.AF_INET
    return socket.create_server((options.host.strip("[]"), options.port), family=family)


def serve(options: argparse.Namespace) -> None:
    """Serve the board and the API on ``options``' socket until Ctrl-C or SIGTERM."""
    from web.app import create_app
    from web.connections import Server, config
    from web.jobs import Jobs

    if options.today_source is not None:
        os.environ["TERMO_TODAY_SOURCE"] = options.today_source  # read by web.routes.puzzles per request
    address = options.host
    sock = _listener(options)
    port_number = sock.getsockname()[1]  # the free port the system chose for --port 0
    shown = f"[{address}]" if ":" in address else address
    jobs = Jobs(workers=options.workers)
    if jobs.workers < options.workers:
        _say("warning: numba has no thread-safe threading layer here (tbb or omp): searches run "
             "one at a time (--workers 1)")
    app = create_app(jobs, warm=options.warm, allowed_hosts=allowed_hosts(address))
    _say(f"termo: serving the board on http://{shown}:{port_number}/ (API: /api, docs: /docs); Ctrl-C stops")
    server = Server(config(app, log_level="warning", access_log=False))
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        with sock:
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv=None) -> int:
    """Serve; the exit status and the last words are `termo serve`'s: 130 on Ctrl-C (143 on
    SIGTERM, `_terminated`), an unexpected error one line on stderr."""
    options = parse_args(argv)
    try:
        serve(options)
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took the signal over, or raised again after it
        return 130
    except OSError as err:  # a file that cannot be read or written, ...
        from termo.core.cache import os_reason

        where = f"{err.filename}: " if err.filename is not None else ""
        _say(f"termo: error: {where}{os_reason(err)}")
        return 2
    except Exception as err:  # noqa: BLE001 - no traceback reaches the user
        if os.environ.get("TERMO_DEBUG"):
            raise
        _say(f"termo: internal error: {type(err).__name__}: {err} (set TERMO_DEBUG=1 for details)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
