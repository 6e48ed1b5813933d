"""The interactive solving session behind `termo play` (rules §9), as a testable class.

`Play` reads lines from an *input* and writes text through a *writer*; it never touches the
terminal itself. The input is either an iterable of lines (a pipe, a test script) or a callable
``read(prompt) -> str | None`` (a terminal; ``None`` = end of input). With an iterable the
prompt and the line read are echoed as one line, so piped transcripts stay readable.

A game: the opener is suggested; each round the player types a guess (accents optional) and then
its colours (or both on one line: ``tarso BBGBY`` / ``tarso:BBGBY``); the candidates are filtered
and the next guess suggested. Commands, at either prompt: ``help``/``?``, ``list [n]`` (the n
most likely candidates, 20 by default), ``undo``, ``new``, ``quit`` (Portuguese forms
``listar``, ``voltar``, ``nova``, ``sair`` too). A word outside the probe list is accepted with a
warning; impossible colours are rejected with the reason; a round that would leave no candidate
is reported and not applied; in hard mode (``Config(hard=True)``) a guess that breaks the rule
is rejected with the reason and nothing is applied. All green wins and ends the game with a
summary; end of input ends the session cleanly. While the rounds follow the advisor's stored
strategy tree (`termo.interface.suggest.Advisor.tree`) its move is shown at once, marked "from the stored
... tree"; once the player leaves the tree the live ranking answers.
"""

from __future__ import annotations

import contextlib
import shutil
import textwrap
from typing import Callable, Iterable, Iterator

from termo.core.errors import TermoError
from termo.engine.session import EMPTY_RESULT_HINT, Session
from termo.interface.suggest import Advisor, format_decision

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

HELP = """\
Type the word you played (accents optional), then the colours the game showed:
  {colours}.
  Both on one line works too: tarso BBGBY  (or tarso:BBGBY)
  Colours alone (BBGBY) mean you played the suggested word.
  At the colours prompt you may retype the whole line (word and colours).
Commands: help, ?, ajuda               this help
          list [n], listar, ls         the n most likely candidates (20)
          undo, voltar                 take back the last round
          new, nova, novo              start a new game
          quit, exit, sair, q          leave (Ctrl-D works too)
          an empty line at the colours prompt cancels that guess"""


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


class Play:
    """One interactive session: several games, one configuration.

    `busy(label)` returns a context manager around every solver call; it yields a progress
    callback ``(done, total)`` or None (the CLI shows a spinner or a bar on a terminal).
    """

    def __init__(
        self,
        game,
        advisor: Advisor,
        input: Iterable[str] | Callable[[str], str | None],
        write: Callable[[str], None],
        *,
        color: bool = False,
        busy: Callable[[str], contextlib.AbstractContextManager] | None = None,
        session: Session | None = None,
        error: Callable[[str], None] | None = None,
        width: int | None = None,
        piped: bool | None = None,
    ):
        self.game = game
        self.advisor = advisor
        self.write = write
        self.read = input if callable(input) else lines_reader(input, write)
        self.color = color
        self.busy = busy or (lambda label: contextlib.nullcontext(None))
        self.session = session or Session(game, hard=getattr(advisor.config, "hard", False))
        self.games_won = 0
        # errors and warnings (stderr in the CLI; the same writer by default)
        self.error_write = error or write
        self.width = width  # None: the terminal's width, read when needed
        self.piped = (not callable(input)) if piped is None else piped
        self.rejected = 0  # lines rejected this session (the session then exits with 2)
        self.suggested: str | None = None  # the word suggested for the next guess
        self.source: dict = {}  # where that suggestion came from: {"source": "tree"|"live", ...}

    # ------------------------------------------------------------------ output
    def error(self, text: str, rejected: bool = True) -> None:
        """A message about a line that was not taken (or a warning, ``rejected=False``)."""
        if rejected:
            self.rejected += 1
        self.error_write(text + "\n")

    def wrapped(self, text: str, indent: str = "  ") -> str:
        """``text`` wrapped by whole words to the terminal width."""
        width = self.width or shutil.get_terminal_size((80, 24)).columns
        return textwrap.fill(text, width=max(20, width), subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False)

    def say(self, text: str = "") -> None:
        self.write(text + "\n")

    def show_board(self, counts: bool = False) -> None:
        for rnd in self.session.rounds:
            row = "  " + render_row(rnd.guess, rnd.pattern, self.color)
            if counts and not rnd.won:
                row += f"   {rnd.before} -> {rnd.after} candidates"
            self.say(row)

    def show_suggestion(self) -> None:
        session = self.session
        if session.rounds:
            label = f"thinking about {session.n_candidates} candidates"
        else:
            label = "searching the opener"
        self.suggested = None
        try:
            walked = self.advisor.tree_move(session) if session.rounds and hasattr(self.advisor, "tree_move") else None
            if walked is not None:  # the stored tree answers at once: no busy display
                decision, source = walked
            else:
                with self.busy(label) as progress:
                    decision = self.advisor.next_move(session, progress=progress)
                source = {"source": "live"} if getattr(self.advisor, "tree", None) is not None else {}
        except TermoError as err:
            self.say(f"no suggestion: {err}")
            return
        self.suggested = decision.choice.word
        self.source = source
        lines = format_decision(decision.as_dict(), max_alternatives=5, uniform=self.game.uniform_prior)
        if session.rounds:
            lines = lines[1:]  # the candidate count was just shown
        if source.get("source") == "tree":
            lines.insert(0, f"(from the stored {source.get('tree')} tree)")
        self.say(f"for guess {session.turn}/{self.game.max_turns}:")
        for line in lines:
            self.say("  " + line)

    def show_candidates(self, limit: int = 8) -> None:
        n = self.session.n_candidates
        word = "candidate" if n == 1 else "candidates"
        text = f"{n} {word} left"
        if n <= limit:
            text += ": " + ", ".join(self.session.most_likely(None))
        self.say(self.wrapped(text))

    # --------------------------------------------------------------- commands
    def command(self, line: str) -> str | None:
        """Run `line` if it is a command; returns its name, or None if it is not one."""
        parts = line.split()
        if not parts:
            return None
        name = COMMANDS.get(parts[0].lower())
        if name is None or (len(parts) > 1 and name != "list"):
            return None
        if name == "help":
            self.say(HELP.format(colours=self.game.colour_hint))
        elif name == "list":
            self.list_candidates(parts[1:])
        elif name == "undo":
            self.undo()
        elif name == "new":
            self.new_game()
        return name

    def list_candidates(self, args: list[str]) -> None:
        n = 20
        if args:
            try:
                n = int(args[0])
                if n < 1:
                    raise ValueError
            except ValueError:
                self.error(f"list takes a positive number, not {args[0]!r}")
                return
        words = self.session.most_likely(n)
        total = self.session.n_candidates
        likely = "first" if self.game.uniform_prior else "most likely"  # a uniform prior: list order
        shown = f"the {len(words)} {likely} of " if len(words) < total else ""
        self.say(self.wrapped(f"{shown}{total} candidates: " + ", ".join(words)))

    def undo(self) -> None:
        rnd = self.session.undo()
        if rnd is None:
            self.say("nothing to undo")
            return
        self.say(f"undid {rnd.guess} {rnd.pattern}")
        self.show_board()
        if self.session.rounds:
            self.show_candidates()
        self.show_suggestion()

    def new_game(self) -> None:
        self.session.reset()
        self.suggested = None
        self.say("new game")
        self.show_suggestion()

    # ------------------------------------------------------------------ rounds
    @staticmethod
    def split_line(line: str) -> tuple[str, str | None]:
        """``word colours`` / ``word:colours`` -> (word, colours); a lone token -> (token, None)."""
        if ":" in line:
            guess_text, _, colours = line.partition(":")
            return guess_text.strip(), colours
        if len(line.split()) > 1:
            guess_text, colours = line.split(None, 1)
            return guess_text, colours
        return line.strip(), None

    def as_colours(self, text: str) -> str | None:
        """The pattern ``text`` spells, or None when it is not a line of colours."""
        try:
            return self.game.parse_colours(text)
        except TermoError:
            return None

    def read_round(self, line: str) -> None:
        """Handle a line that is not a command: a guess, maybe with its colours, or colours
        alone for the suggested word."""
        if self.session.over:
            self.error("this game is over: type new, undo or quit")
            return
        guess_text, colours = self.split_line(line)
        if colours is None and self.as_colours(guess_text) is not None:
            known = self.game.index_of(guess_text.strip().lower()) is not None
            if self.suggested is not None:
                # colours alone: the player played the suggested word
                note = (f" (to play the word {guess_text.strip().lower()!r}, type its colours "
                        "after it on the same line)") if known else ""
                self.say(f"taken as colours for {self.suggested}{note}")
                guess_text, colours = self.suggested, guess_text
            elif not known:
                self.error(f"! {guess_text!r} looks like colours, but there is no suggested word "
                           "to colour: type the word you played first")
                return
        try:
            guess = self.session.check_guess(guess_text)
        except TermoError as err:
            self.error(f"! {err}")
            return
        for warning in guess.warnings:
            self.error(f"warning: {warning}", rejected=False)
        while True:
            if colours is None:
                colours = self.read(f"colours for {guess.word}> ")
                if colours is None:
                    raise EOFError
                if not colours.strip():
                    self.say("guess cancelled")
                    return
                if self.command(colours) is not None:
                    if COMMANDS.get(colours.split()[0].lower()) == "quit":
                        raise EOFError
                    return
                word_text, more = self.split_line(colours)
                if more is not None:
                    # a word and its colours: always a full round (the whole line retyped)
                    return self.read_round(colours)
                if self.as_colours(word_text) is None and self.game.index_of(word_text.lower()) is not None:
                    # a word alone where colours were expected: a new guess in its place
                    self.say(f"taken as a new guess: {word_text.lower()}")
                    return self.read_round(word_text)
            try:
                outcome = self.session.play(guess.word, colours)
            except TermoError as err:
                self.error(f"! {err}")
                colours = None
                continue
            if outcome.status == "empty":
                self.error(
                    f"! no candidate gives {outcome.round.pattern} for {guess.word} "
                    f"(of {outcome.round.before}): {EMPTY_RESULT_HINT}.\n"
                    "  retype the colours, or undo an earlier round"
                )
                colours = None
                continue
            self.after_round(outcome)
            return

    def after_round(self, outcome) -> None:
        rnd = outcome.round
        if outcome.status != "won":
            self.show_board()  # the whole board so far, not only the latest row
        if outcome.status == "won":
            self.games_won += 1
            n = len(self.session.rounds)
            self.say(f"solved in {n}/{self.game.max_turns}: {rnd.guess}!")
            self.show_board(counts=True)
            self.say("type new for another game, or quit")
            return
        self.show_candidates()
        if self.session.out_of_turns:
            self.say(
                f"out of tries ({self.game.max_turns}); "
                + ("some answers left were: " if self.game.uniform_prior else "the most likely answers were: ")
                + ", ".join(self.session.most_likely(5))
            )
            self.say("type new for another game, undo, or quit")
            return
        self.show_suggestion()

    # -------------------------------------------------------------------- loop
    def run(self) -> int:
        """Play until quit or end of input; returns the exit code, the same piped and on a
        terminal: 0 when every line was taken, 2 when some line was rejected (a bad word,
        impossible colours, ...: scripts notice), 130 on Ctrl-C (EXIT_STATUS)."""
        self.say(f"termo play ({self.advisor.config.describe(self.game)}); type help for help")
        self.show_suggestion()
        if not command_loop(self, lambda: "> " if self.session.over else f"guess {self.session.turn}> ",
                            self.read_round):
            return 130
        self.say("bye")
        return 2 if self.rejected else 0


def command_loop(play, prompt: Callable[[], str], take: Callable[[str], None]) -> bool:
    """Read ``play``'s lines until quit or the end of input: blank lines skipped, commands run by
    ``play.command``, any other line handed to ``take``. False on Ctrl-C (after a new line, so
    the shell prompt is on a line of its own), else True. The loop of `Play` and of several
    boards' `termo.interface.mode_play.ModePlay`."""
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
