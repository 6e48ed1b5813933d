"""`termo serve`: the web board and the JSON API (`web.app`), served by uvicorn.

Loopback (127.0.0.1) by default: the board is a personal tool. Any other address is served too,
with a warning line on stderr first (the API has no accounts; anyone who can reach the port can
use the machine's CPU). Only the names the server is bound to are answered (`web.app.AllowedHosts`).
The connections' timeouts and bound are `web.connections`'. SIGTERM stops the server as Ctrl-C
does (the worker processes with it), and the workers end by themselves if the server is killed.
"""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from cli.common import fail, one_line
from cli.limits import parse_int

def is_loopback(address: str) -> bool:
    """Whether ``address`` is this machine only: ``localhost``, 127.0.0.0/8 or ::1."""
    import ipaddress

    if address.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


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


def _terminated(signum, frame) -> None:
    """SIGTERM after uvicorn's graceful stop (it raises the signal again), or before it started:
    a normal exit, so the worker pools are shut down as on Ctrl-C."""
    raise SystemExit(128 + signum)


def serve_command(
    host: Annotated[str, typer.Option("--host", metavar="ADDRESS",
                                      help="Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every "
                                           "interface, with a warning).")] = "127.0.0.1",
    port: Annotated[str, typer.Option("--port", metavar="PORT", help="TCP port (1 to 65535; 0: a free port, printed).")] = "8000",
    workers: Annotated[str, typer.Option("--workers", metavar="N",
                                         help="Workers per lane (1 to 8): threads for quick questions, processes for "
                                              "level-3 searches, openers and partitions (each holds its own solvers).")] = "2",
    today_source: Annotated[Optional[str], typer.Option(
        "--today-source", metavar="URL|FILE", show_default=False,
        help="Where today's official Nerdle answer is read (the /nerdle/today page; $TERMO_TODAY_SOURCE).")] = None,
    warm: Annotated[str, typer.Option(
        "--warm", metavar="all|none|GAME,...",
        help="What to prepare before saying ready (kernels, matrices, worker processes): every game (all), "
             "none (each game is prepared by its first question), or the games named, comma-separated.")] = "all",
) -> None:
    """Serve the board (http://HOST:PORT/, one page per game) and the JSON API (/api/..., /docs)."""
    port_number = parse_int("port", port, 0, 65535)
    warm_games = _warm_games(warm)
    threads = parse_int("workers", workers, 1, 8, "each search process holds its own solvers: up to ~1 GB for Nerdle")
    if today_source is not None:
        if not today_source.strip():
            fail("--today-source must be a URL or a file")
        os.environ["TERMO_TODAY_SOURCE"] = today_source.strip()  # read by web.nerdle_routes per request
    address = host.strip()
    if not address:
        fail("--host must be an address, e.g. 127.0.0.1")
    if not is_loopback(address):
        typer.echo(one_line(f"warning: listening on {address}, not on loopback: anyone who can reach port "
                            f"{port_number} of this machine can use the board and the API (no accounts, "
                            f"no TLS)"), err=True)
    import signal
    import socket

    from web.app import create_app
    from web.connections import Server, config
    from web.jobs import Jobs

    shown = f"[{address}]" if ":" in address else address
    try:  # bound here, so that a taken port is one line and exit code 2
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        infos = socket.getaddrinfo(address, port_number, family, socket.SOCK_STREAM)
        sock = socket.socket(infos[0][0], socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(infos[0][4])
    except OSError as err:  # the port is taken, the address is not this machine's, ...
        from cli.common import os_error_message

        reason = os_error_message(err) if not isinstance(err, socket.gaierror) else "unknown address"
        fail(f"cannot listen on {shown}:{port_number}: {reason}")
    port_number = sock.getsockname()[1]  # the free port the system chose for --port 0
    jobs = Jobs(workers=threads)
    if jobs.workers < threads:
        typer.echo("warning: numba has no thread-safe threading layer here (tbb or omp): searches run "
                   "one at a time (--workers 1)", err=True)
    app = create_app(jobs, warm=warm_games, allowed_hosts=allowed_hosts(address))
    typer.echo(f"termo: serving the board on http://{shown}:{port_number}/ (API: /api, docs: /docs); "
               f"Ctrl-C stops", err=True)
    server = Server(config(app, log_level="warning", access_log=False))
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        with sock:
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


def register(app: typer.Typer) -> None:
    """Add `serve` to the root app."""
    app.command("serve")(serve_command)


def _warm_games(text: str) -> tuple[str, ...]:
    """``--warm``: the games to prepare at start, in the board's order (all, none, or a list)."""
    from web.warmup import GAMES

    value = text.strip().lower()
    if value == "all":
        return GAMES
    if value == "none":
        return ()
    names = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [name for name in names if name not in GAMES]
    if not names or unknown:
        fail(f"--warm must be all, none or games among {', '.join(GAMES)}, not {text!r}")
    return tuple(name for name in GAMES if name in names)
