"""`termo serve`: the web board and the JSON API, served by the web front end's own program.

The command checks its options and binds the listening socket here (so that every refusal is
the CLI's one line and exit code 2), then becomes ``python -m web`` (`web.__main__`) with
``os.execv``: the same process (PID, streams, signals, exit status), the socket handed over by
its descriptor. Loopback (127.0.0.1) by default: the board is a personal tool. Any other
address is served too, with a warning line on stderr first (the API has no accounts; anyone
who can reach the port can use the machine's CPU).
"""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from cli.common import fail
from termo.core.safe_text import one_line
from termo.interface.requests import parse_int
from cli.options import root_backend


def is_loopback(address: str) -> bool:
    """Whether ``address`` is this machine only: ``localhost``, 127.0.0.0/8 or ::1."""
    import ipaddress

    if address.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


def serve_command(
    ctx: typer.Context,
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
        today_source = today_source.strip()
    address = host.strip()
    if not address:
        fail("--host must be an address, e.g. 127.0.0.1")
    sock = _bind(address, port_number)  # first: an address that cannot be served is one line, no warning
    if not is_loopback(address):
        typer.echo(one_line(f"warning: listening on {address}, not on loopback: anyone who can reach port "
                            f"{sock.getsockname()[1]} of this machine can use the board and the API (no accounts, "
                            f"no TLS)"), err=True)
    _become_web_program(sock, address, threads, warm_games, today_source, root_backend(ctx))


def register(app: typer.Typer) -> None:
    """Add `serve` to the root app."""
    app.command("serve")(serve_command)


def _warm_games(text: str) -> tuple[str, ...]:
    """``--warm``: the games to prepare at start, in the board's order (all, none, or a list)."""
    from termo.games import GAME_NAMES

    games = tuple(GAME_NAMES)  # the games the board serves, in its order (`web.warmup.GAMES`)
    value = text.strip().lower()
    if value == "all":
        return games
    if value == "none":
        return ()
    names = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [name for name in names if name not in games]
    if not names or unknown:
        fail(f"--warm must be all, none or games among {', '.join(games)}, not {text!r}")
    return tuple(name for name in games if name in names)


def _bind(address: str, port_number: int):
    """The socket bound to ``address``:``port_number`` (here, so that a taken port is one line
    and exit code 2)."""
    import socket

    shown = f"[{address}]" if ":" in address else address
    try:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        infos = socket.getaddrinfo(address, port_number, family, socket.SOCK_STREAM)
        sock = socket.socket(infos[0][0], socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(infos[0][4])
    except OSError as err:  # the port is taken, the address is not this machine's, ...
        from cli.common import os_error_message

        reason = os_error_message(err) if not isinstance(err, socket.gaierror) else "unknown address"
        fail(f"cannot listen on {shown}:{port_number}: {reason}")
    return sock


def _become_web_program(sock, address: str, workers: int, warm: tuple[str, ...], today_source, backend) -> None:
    """Replace this process with the web front end (`web.__main__`), ``sock`` inherited; the
    root ``--backend`` becomes the server's ``$TERMO_BACKEND`` (the library's default backend).

    The program runs as ``python -m web`` would, on this process's import path (as
    multiprocessing's spawned children do), so that it is this installation's ``web`` package,
    not a ``web`` folder of the current directory."""
    import sys

    os.set_inheritable(sock.fileno(), True)
    options = [f"--host={address}", f"--workers={workers}", f"--warm={','.join(warm) or 'none'}",
               f"--fd={sock.fileno()}"]
    if today_source is not None:
        options.append(f"--today-source={today_source}")
    program = f"import runpy, sys; sys.path[:] = {sys.path!r}; runpy.run_module('web', run_name='__main__', alter_sys=True)"
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    environment = {**os.environ, "TERMO_BACKEND": backend} if backend else dict(os.environ)
    os.execve(sys.executable, [sys.executable, "-c", program, *options], environment)
