"""The interactive game behind `termo play` (rules §9), for one board or several, as a testable class.

`Play` reads lines from an *input* and writes text through a *writer*; it never touches the
terminal itself. The input is either an iterable of lines (a pipe, a test script) or a callable
``read(prompt) -> str | None`` (a terminal; ``None`` = end of input). With an iterable the
prompt and the line read are echoed as one line, so piped transcripts stay readable
(`termo.interface.console`).

A game is the mode of one board: the position (`termo.interface.positions`) is one board's
session or several boards' states, and the advisor (`termo.interface.suggest.Advisor`) the one
that suggests for it. Commands, at either prompt: ``help``/``?``, ``list`` (one board: ``list
[n]``, the n most likely candidates, 20 by default; several: every board's candidates), ``undo``,
``new``, ``quit`` (Portuguese forms ``listar``, ``voltar``, ``nova``, ``sair`` too). A word outside
the probe list is accepted with a warning; impossible colours are rejected with the reason; a
turn that would leave no candidate is reported and not applied.

One board: the player types a guess (accents optional) and then its colours (or both on one line:
``tarso BBGBY`` / ``tarso:BBGBY``); in hard mode (``Config(hard=True)``) a guess that breaks the
rule is rejected with the reason. All green wins and ends the game with a summary. While the
rounds follow the advisor's stored strategy tree its move is shown at once, marked "from the
stored ... tree"; once the player leaves the tree the live ranking answers.

Several boards: each turn the guess is typed once with the colours of every board still unsolved,
on one line (``tarso BBBBB/BYBBB``, ``tarso:BBBBB/BYBBB`` or ``tarso BBBBB BYBBB``; a solved
board's slot is ``-`` or left out), or the guess alone (each unsolved board's colours are then
asked in turn), or the colours alone (the suggested word was played). The boards are drawn side
by side (as many as the width allows per line), a solved board marked with its turn.
"""

from __future__ import annotations

import contextlib
import shutil
import textwrap
from typing import Callable, Iterable

from termo.core.errors import TermoError
from termo.engine.session import EMPTY_RESULT_HINT
from termo.interface.console import COMMANDS, command_loop, lines_reader, render_row
from termo.interface.positions import SOLVED_SLOT, OneBoard
from termo.interface.suggest import Advisor
from termo.interface.text import format_board_line, format_decision

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

BOARDS_HELP = """\
Type the word you played, then the colours of every board still unsolved, in board order:
  tarso BBBBB/BYBBB   (or tarso:BBBBB/BYBBB, or tarso BBBBB BYBBB)
  {colours}.
  A solved board takes no colours: write '-' in its slot, or leave it out.
  The word alone (tarso) asks each board's colours in turn; the colours alone mean you
  played the suggested word.
Commands: help, ?                     this help
          list                        every board's candidates
          undo, voltar                take back the last turn
          new, nova                   start a new game
          quit, sair, q               leave (Ctrl-D works too)
          an empty line at a board's colours prompt cancels that guess"""

ADVERSARY_HELP = """\
Type the word you play: the game colours it itself (it keeps the largest group of answers).
  Colours typed after the word must be the game's own (tyler BBBBB checks them).
Commands: help, ?, list [n], undo, new, quit (as in any game)"""

GAP = "   "  # between two boards on a line


class Play:
    """One interactive session: several games, one configuration, one board or several.

    ``game`` is the advisor's game or mode; `busy(label)` returns a context manager around every
    solver call; it yields a progress callback ``(done, total)`` or None (the CLI shows a spinner
    or a bar on a terminal). ``session``: a one-board `Session` to play on (tests)."""

    def __init__(
        self,
        game,
        advisor: Advisor,
        input: Iterable[str] | Callable[[str], str | None],
        write: Callable[[str], None],
        *,
        color: bool = False,
        busy: Callable[[str], contextlib.AbstractContextManager] | None = None,
        session=None,
        error: Callable[[str], None] | None = None,
        width: int | None = None,
        piped: bool | None = None,
    ):
        self.advisor = advisor
        self.mode = advisor.mode
        self.game = self.mode.game
        self.write = write
        self.read = input if callable(input) else lines_reader(input, write)
        self.color = color
        self.busy = busy or (lambda label: contextlib.nullcontext(None))
        self.position = (OneBoard(self.mode, session=session) if session is not None
                         else advisor.position(getattr(advisor.config, "hard", False)))
        self.boards = self.mode.boards
        self.games_won = 0
        # errors and warnings (stderr in the CLI; the same writer by default)
        self.error_write = error or write
        self.width = width  # None: the terminal's width, read when needed
        self.piped = (not callable(input)) if piped is None else piped
        self.rejected = 0  # lines rejected this session (the session then exits with 2)
        self.suggested: str | None = None  # the word suggested for the next guess
        self.source: dict = {}  # where that suggestion came from: {"source": "tree"|"live", ...}

    @property
    def session(self):
        """The single-board session (one board: the game's; several: the boards' checks)."""
        return self.position.session

    # ------------------------------------------------------------------ output
    def error(self, text: str, rejected: bool = True) -> None:
        """A message about a line that was not taken (or a warning, ``rejected=False``)."""
        if rejected:
            self.rejected += 1
        self.error_write(text + "\n")

    def wrapped(self, text: str, indent: str = "  ") -> str:
        """``text`` wrapped by whole words to the terminal width."""
        return textwrap.fill(text, width=max(20, self.columns()), subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False)

    def columns(self) -> int:
        return self.width or shutil.get_terminal_size((80, 24)).columns

    def say(self, text: str = "") -> None:
        self.write(text + "\n")

    def show_board(self, counts: bool = False) -> None:
        """One board: its rows so far (``counts``: the candidates each left); several: the boards
        side by side, as many per line as the width allows."""
        if self.boards > 1:
            return self.show_boards()
        for rnd in self.session.rounds:
            row = "  " + render_row(rnd.guess, rnd.pattern, self.color)
            if counts and not rnd.won:
                row += f"   {rnd.before} -> {rnd.after} candidates"
            self.say(row)

    def cell_width(self) -> int:
        n = self.game.word_length
        return 3 * n if self.color else 3 * n + 2  # coloured tiles " X ", or the word, two spaces and the squares

    def board_cells(self, board: int) -> list[str]:
        """The lines of one of several boards: its header, one row per turn it played, its status."""
        width, state, rows = self.cell_width(), self.position.state, self.position.rows
        solved_on = state.solved_on[board]
        mark = f"board {board + 1}" + (f" ✓ {solved_on}" if solved_on is not None else "")
        cells = [mark.ljust(width)]
        for word, patterns in rows:
            pattern = patterns[board]
            cells.append(render_row(word, pattern, self.color) if pattern is not None else " " * width)
        if solved_on is None:
            cells.append(f"{state.n_candidates(board)} left".ljust(width))
        else:
            cells.append(("✓ " + rows[solved_on - 1][0].upper()).ljust(width))
        return cells

    def show_boards(self) -> None:
        width = self.cell_width()
        per_line = max(1, (self.columns() + len(GAP)) // (width + len(GAP)))
        for first in range(0, self.boards, per_line):
            columns = [self.board_cells(b) for b in range(first, min(first + per_line, self.boards))]
            for cells in zip(*columns):
                self.say(("  " + GAP.join(cells)).rstrip())
            if first + per_line < self.boards:
                self.say()

    def show_suggestion(self) -> None:
        position = self.position
        if self.boards > 1:
            label = "searching the opener" if not position.played else f"thinking about {len(position.state.unsolved)} boards"
        elif position.played:
            label = f"thinking about {self.session.n_candidates} candidates"
        else:
            label = "searching the opener"
        self.suggested = None
        try:
            walked = self.advisor.tree_move(self.session) if self.boards == 1 and position.played else None
            if walked is not None:  # the stored tree answers at once: no busy display
                decision, source = walked
            else:
                with self.busy(label) as progress:
                    decision, source = self.advisor.move(position, progress=progress)
                if self.boards == 1:
                    source = {"source": "live"} if getattr(self.advisor, "tree", None) is not None else {}
        except TermoError as err:
            self.say(f"no suggestion: {err}")
            return
        data = decision.as_dict()
        self.suggested = data["word"]
        self.source = source
        for line in self.suggestion_lines(data, source):
            self.say(line)

    def suggestion_lines(self, data: dict, source: dict) -> list[str]:
        """What the game prints about a suggestion (``data``: `Decision.as_dict`)."""
        turn, tries = self.position.played + 1, self.mode.max_turns
        if self.boards > 1:
            lines = [f"for guess {turn}/{tries}: {data['word']}  ({data.get('reason', '')})"]
            if data.get("expected") is not None:
                lines.append(f"  expected {float(data['expected']):.3f} (objective {data.get('objective')})")
            alternatives = [a["word"] for a in (data.get("alternatives") or [])[:5]]
            if alternatives:
                lines.append("  alternatives: " + " ".join(alternatives))
            return lines
        lines = format_decision(data, max_alternatives=5, uniform=self.game.uniform_prior)
        if self.position.played:
            lines = lines[1:]  # the candidate count was just shown
        if source.get("source") == "tree":
            lines.insert(0, f"(from the stored {source.get('tree')} tree)")
        return [f"for guess {turn}/{tries}:"] + ["  " + line for line in lines]

    def show_candidates(self, limit: int = 8) -> None:
        """One board: the candidates left (listed when at most ``limit``); several: each unsolved
        board's count and its ``limit`` most likely."""
        if self.boards > 1:
            for board in self.position.view(sample=limit):
                if not board["solved"]:
                    self.say("  " + format_board_line(board, limit))
            return
        n = self.session.n_candidates
        text = f"{n} {'candidate' if n == 1 else 'candidates'} left"
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
        if name is None or (len(parts) > 1 and (name != "list" or self.boards > 1)):
            return None
        if name == "help":
            text = ADVERSARY_HELP if self.game.feedback.adversary else HELP if self.boards == 1 else BOARDS_HELP
            self.say(text.format(colours=self.game.colour_hint))
        elif name == "list":
            self.list_candidates(parts[1:])
        elif name == "undo":
            self.undo()
        elif name == "new":
            self.new_game()
        return name

    def list_candidates(self, args: list[str]) -> None:
        if self.boards > 1:
            return self.show_candidates(limit=40)
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
        position = self.position
        if self.boards > 1:
            word = position.rows[-1][0] if position.rows else None
            if not position.undo():
                self.say("nothing to undo")
                return
            self.say(f"undid {word}")
            if position.rows:
                self.show_boards()
            return self.show_suggestion()
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
        self.position.reset()
        self.suggested = None
        self.say("new game")
        self.show_suggestion()

    # ------------------------------------------------------------------ turns
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
        if self.position.over:
            self.error("this game is over: type new, undo or quit")
            return
        if self.boards > 1:
            return self.read_turn(line)
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
        guess = self.checked_guess(guess_text)
        if guess is not None:
            self.colour_round(guess, colours)

    def checked_guess(self, text: str):
        """The `Guess` of ``text`` (its warnings said), or None when it is refused (said)."""
        try:
            guess = self.session.check_guess(text)
        except TermoError as err:
            self.error(f"! {err}")
            return None
        for warning in guess.warnings:
            self.error(f"warning: {warning}", rejected=False)
        return guess

    def colour_round(self, guess, colours: str | None) -> None:
        """One board: ask the colours of ``guess`` until a round is played (or cancelled); a game
        that colours the guesses itself (the adversary) plays the round at once."""
        if self.game.feedback.adversary:
            try:
                outcome = self.session.play(guess.word, colours)
            except TermoError as err:
                return self.error(f"! {err}")
            return self.after_round(outcome)
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

    # ------------------------------------------------------------ several boards' turns
    def colours_of(self, text: str):
        """The pattern ``text`` spells (``None`` for the solved slot), or raise TermoError."""
        if text.strip() == SOLVED_SLOT:
            return None
        return self.game.parse_colours(text)

    def slots(self, text: str) -> list[str] | None:
        """The colour slots of ``text`` (split at '/' or spaces), or None when it is no colours."""
        parts = [p for p in (text.split("/") if "/" in text else text.split()) if p.strip()]
        if not parts:
            return None
        try:
            for part in parts:
                self.colours_of(part)
        except TermoError:
            return None
        return [p.strip() for p in parts]

    def per_board(self, slots: list[str]) -> list:
        """One pattern per board from the slots typed: one per board, or one per unsolved board."""
        unsolved = self.position.state.unsolved
        if len(slots) == self.boards:
            return [self._board_colours(b, s) for b, s in enumerate(slots)]
        if len(slots) == len(unsolved):
            patterns = [None] * self.boards
            for board, slot in zip(unsolved, slots):
                patterns[board] = self._board_colours(board, slot)
            return patterns
        raise TermoError(f"{len(slots)} colour patterns for {self.boards} boards ({len(unsolved)} unsolved): "
                         f"give one per board, in board order ('{SOLVED_SLOT}' or nothing for a solved board)")

    def _board_colours(self, board: int, text: str):
        try:
            return self.colours_of(text)
        except TermoError as err:
            raise TermoError(f"board {board + 1}: {err}") from None

    def read_turn(self, line: str) -> None:
        """Several boards: a whole turn, a guess alone, or colours for the suggestion."""
        word, colours = self.split_line(line)
        word, colours = word.strip(), (colours.strip() or None) if colours is not None else None
        if colours is None and self.slots(word) is not None and self.game.index_of(word) is None:
            if self.suggested is None:
                self.error(f"! {word!r} looks like colours, but there is no suggested word: type the word first")
                return
            self.say(f"taken as colours for {self.suggested}")
            word, colours = self.suggested, word
        guess = self.checked_guess(word)
        if guess is None:
            return
        if colours is None:
            return self.ask_boards(guess.word)
        slots = self.slots(colours)
        if slots is None:  # one board left: its colours may hold spaces (B B Y B B); else each slot's error
            one = len(self.position.state.unsolved) == 1 and "/" not in colours
            slots = [colours] if one else colours.replace("/", " ").split()
        try:
            self.play_turn(guess.word, self.per_board(slots))
        except TermoError as err:
            self.error(f"! {err}")

    def ask_boards(self, word: str) -> None:
        """Ask each unsolved board's colours for ``word`` in turn, then play the turn."""
        while True:
            patterns = [None] * self.boards
            for board in self.position.state.unsolved:
                pattern = self.ask_board(word, board)
                if pattern is None:
                    return
                patterns[board] = pattern
            try:
                return self.play_turn(word, patterns)
            except TermoError as err:
                self.error(f"! {err}; type the colours again")

    def ask_board(self, word: str, board: int) -> str | None:
        """One board's colours for ``word`` (None: the guess was cancelled or a command ran)."""
        while True:
            text = self.read(f"board {board + 1} colours for {word}> ")
            if text is None:
                raise EOFError
            if not text.strip():
                self.say("guess cancelled")
                return None
            name = self.command(text.strip())
            if name == "quit":
                raise EOFError
            if name is not None:
                return None
            try:
                pattern = self.colours_of(text)
            except TermoError as err:
                self.error(f"! board {board + 1}: {err}")
                continue
            if pattern is None:
                self.error(f"! board {board + 1} is not solved: give its colours")
                continue
            return pattern

    def play_turn(self, word: str, patterns: list) -> None:
        """Apply one turn of several boards (TermoError, nothing changed, when any part is wrong)."""
        self.position.play(word, patterns)
        state = self.position.state
        self.show_boards()
        tries = self.mode.max_turns
        if state.won:
            self.games_won += 1
            self.say(f"all {self.boards} boards solved in {state.turns}/{tries} (score {sum(state.solved_on)})")
            self.say("type new for another game, or quit")
            return
        if state.out_of_turns:
            left = ", ".join(f"board {b['board']}: {' '.join(b['sample'][:3])}"
                             for b in self.position.view(3) if not b["solved"])
            self.say(f"out of tries ({tries}); answers left were like {left}")
            self.say("type new for another game, undo, or quit")
            return
        self.show_candidates()
        self.show_suggestion()

    # -------------------------------------------------------------------- loop
    def banner(self) -> str:
        """The first line of a session: the game and the configuration."""
        config = self.advisor.config
        if self.boards == 1:
            return f"termo play ({config.describe(self.game)}); type help for help"
        title = self.mode.shown
        return (f"termo play {title} ({self.boards} boards of {self.game.shown}, "
                f"{self.mode.max_turns} tries; level {config.level}, objective {config.objective}); "
                f"type help for help")

    def prompt(self) -> str:
        return "> " if self.position.over else f"guess {self.position.played + 1}> "

    def run(self) -> int:
        """Play until quit or end of input; returns the exit code, the same piped and on a
        terminal: 0 when every line was taken, 2 when some line was rejected (a bad word,
        impossible colours, ...: scripts notice), 130 on Ctrl-C (EXIT_STATUS)."""
        self.say(self.banner())
        self.show_suggestion()
        if not command_loop(self, self.prompt, self.read_round):
            return 130
        self.say("bye")
        return 2 if self.rejected else 0


__all__ = ["ADVERSARY_HELP", "BOARDS_HELP", "HELP", "Play"]
