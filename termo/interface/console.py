"""The console the interactive game talks through: rows of tiles, line readers for a pipe or a
terminal, the commands both prompts take and the loop that reads them (`termo.interface.play`).
Nothing here knows a game's rules."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

# Terminal colours for the tiles (background green / yellow / dark grey, bold white letters).
_ANSI_TILE = {"G": "\x1b[1;97;42m", "Y": "\x1b[1;30;43m", "B": "\x1b[1;97;100m"}
_ANSI_RESET = "\x1b[0m"

COMMANDS = {
    "?": "help", "help": "help", "ajuda": "help",
    "list": "list", "listar": "list", "ls": "list",
    "undo": "undo", "voltar": "undo",
    "new": "new", "nova": "new", "novo": "new",
    "quit": "quit", "exit": "quit", "sair": "quit", "q": "quit",
}

EXIT_STATUS = ("Exit status, the same piped and on a terminal: 0 when every line was taken, 2 when "
               "some line was rejected (a bad word or colours), 130 on Ctrl-C.")




def render_row(word: str, pattern: str, color: bool = False) -> str:
    """One board row: coloured tiles on a terminal, else the word and the squares."""
    from termo.core.feedback import render_squares

    if color:
        tiles = "".join(
            f"{_ANSI_TILE[p]} {ch.upper()} {_ANSI_RESET}" for ch, p in zip(word, pattern)
        )
        return tiles
    return f"{word.upper()}  {render_squares(pattern)}"


def lines_reader(lines: Iterable[str], write: Callable[[str], None]) -> Callable[[str], str | None]:
    """A `read(prompt)` over an iterable of lines that echoes ``prompt + line`` on one line."""
    iterator = iter(lines)

    def read(prompt: str) -> str | None:
        try:
            line = next(iterator)
        except StopIteration:
            return None
        line = line.rstrip("\r\n")
        write(f"{prompt}{line}\n")
        return line

    return read


def decoded_lines(stream, encoding: str | None = None) -> Iterator[str]:
    """The lines of a text ``stream`` (a pipe, a file), read as bytes and decoded one line at a
    time, bytes that are not valid in ``encoding`` (default: the stream's, else UTF-8) replaced
    by U+FFFD: a bad byte spoils its own line only, never the lines before or after it."""
    raw = getattr(stream, "buffer", None)
    if raw is None:  # a stream with no bytes below it (io.StringIO, a test): already text
        yield from stream
        return
    encoding = encoding or getattr(stream, "encoding", None) or "utf-8"
    for line in raw:
        yield line.decode(encoding, errors="replace")


def terminal_reader(stream=None) -> Callable[[str], str | None]:
    """A `read(prompt)` on the terminal with line editing (`input`); EOF gives None.

    Bytes typed that are not valid text become U+FFFD (``stream``, the terminal's stdin, is
    told to replace them; a line that still cannot be decoded reads as U+FFFD), so a stray byte
    is one rejected guess, never the end of the game in progress."""
    try:  # line editing and history when available
        import readline  # noqa: F401
    except ImportError:  # pragma: no cover - platform dependent
        pass
    if stream is not None and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="replace")
        except (ValueError, OSError):  # pragma: no cover - a stream that cannot be changed
            pass

    def read(prompt: str) -> str | None:
        try:
            return input(prompt)
        except EOFError:
            print()  # end the prompt's line before the goodbye
            return None
        except UnicodeDecodeError:
            return "\ufffd"

    return read


def command_loop(play, prompt: Callable[[], str], take: Callable[[str], None]) -> bool:
    """Read ``play``'s lines until quit or the end of input: blank lines skipped, commands run by
    ``play.command``, any other line handed to ``take``. False on Ctrl-C (after a new line, so
    the shell prompt is on a line of its own), else True. The loop of `termo.interface.play.Play`,
    for any number of boards."""
    try:
        while True:
            line = play.read(prompt())
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            name = play.command(line)
            if name == "quit":
                break
            if name is None:
                take(line)
    except EOFError:
        pass
    except KeyboardInterrupt:
        play.write("\n")
        return False
    return True
