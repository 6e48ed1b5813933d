"""The interactive session of a mode of several boards (`termo play --game quarteto`, docs/modes.md).

`ModePlay` reads lines from an input and writes text through a writer, as the one-board
`termo.interface.play.Play` does (an iterable of lines is echoed after its prompt; a callable
``read(prompt)`` is a terminal). Each turn the player types the guess once and the colours of
every board still unsolved:

* on one line: ``tarso BBBBB/BYBBB`` (also ``tarso:BBBBB/BYBBB`` or ``tarso BBBBB BYBBB``), one
  pattern per board in board order; a solved board's slot is ``-`` or left out altogether;
* the guess alone (``tarso``): each unsolved board's colours are then asked in turn;
* the colours alone (``BBBBB/BYBBB``): the suggested word was played.

Every colour notation of the game works per board. The boards are drawn side by side (as many
as the width allows per line), each with its tiles, a solved board marked with its turn. After
each turn the solver's next guess is shown with each board's candidates. Commands: ``help``,
``list``, ``undo``, ``new``, ``quit`` (and their Portuguese forms, `termo.interface.play.COMMANDS`).
"""

from __future__ import annotations

import contextlib
import shutil
from typing import Callable, Iterable

from termo.core.errors import TermoError
from termo.interface.modes import SOLVED_SLOT, boards_view, decide, format_board_line
from termo.interface.play import COMMANDS, EXIT_STATUS, command_loop, lines_reader, render_row  # noqa: F401 - EXIT_STATUS re-exported

HELP = """\
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

GAP = "   "  # between two boards on a line


class ModePlay:
    """One interactive session of ``mode`` with ``solver`` (a `termo.engine.multi.level2.MultiSolver`);
    ``busy(label)`` wraps each solver call and yields a progress callback or None."""

    def __init__(self, mode, solver, input: Iterable[str] | Callable[[str], str | None], write: Callable[[str], None],
                 *, color: bool = False, busy=None, error: Callable[[str], None] | None = None,
                 width: int | None = None, piped: bool | None = None):
        from termo.engine.multi.boards import BoardsState

        self.mode = mode
        self.game = mode.game
        self.solver = solver
        self.write = write
        self.read = input if callable(input) else lines_reader(input, write)
        self.color = color
        self.busy = busy or (lambda label: contextlib.nullcontext(None))
        self.error_write = error or write
        self.width = width
        self.piped = (not callable(input)) if piped is None else piped
        self.start = BoardsState.start(mode)
        self.states = [self.start]  # the state before each turn, then the current one
        self.rows: list[tuple[str, tuple]] = []  # per turn: the guess and each board's pattern (None: solved)
        self.rejected = 0
        self.suggested: str | None = None

    # ------------------------------------------------------------------ output
    @property
    def state(self):
        return self.states[-1]

    def say(self, text: str = "") -> None:
        self.write(text + "\n")

    def error(self, text: str, rejected: bool = True) -> None:
        if rejected:
            self.rejected += 1
        self.error_write(text + "\n")

    def cell_width(self) -> int:
        n = self.game.word_length
        return 3 * n if self.color else 3 * n + 2  # coloured tiles " X ", or the word, two spaces and the squares

    def board_cells(self, board: int) -> list[str]:
        """The lines of one board: its header, one row per turn it played, its status."""
        width = self.cell_width()
        solved_on = self.state.solved_on[board]
        mark = f"board {board + 1}" + (f" ✓ {solved_on}" if solved_on is not None else "")
        cells = [mark.ljust(width)]
        for word, patterns in self.rows:
            pattern = patterns[board]
            cells.append(render_row(word, pattern, self.color) if pattern is not None else " " * width)
        if solved_on is None:
            n = self.state.n_candidates(board)
            cells.append(f"{n} left".ljust(width))
        else:
            cells.append(("✓ " + self.rows[solved_on - 1][0].upper()).ljust(width))
        return cells

    def show_boards(self) -> None:
        """Every board side by side, as many per line as the terminal width allows."""
        total = self.width or shutil.get_terminal_size((80, 24)).columns
        width = self.cell_width()
        per_line = max(1, (total + len(GAP)) // (width + len(GAP)))
        boards = list(range(self.mode.boards))
        for first in range(0, len(boards), per_line):
            columns = [self.board_cells(b) for b in boards[first:first + per_line]]
            for cells in zip(*columns):
                self.say(("  " + GAP.join(cells)).rstrip())
            if first + per_line < len(boards):
                self.say()

    def show_suggestion(self) -> None:
        state = self.state
        self.suggested = None
        label = "searching the opener" if not self.rows else f"thinking about {len(state.unsolved)} boards"
        try:
            with self.busy(label) as progress:
                data = decide(self.solver, state, progress)
        except TermoError as err:
            self.say(f"no suggestion: {err}")
            return
        self.suggested = data["word"]
        self.say(f"for guess {state.turns + 1}/{self.mode.max_turns}: {data['word']}  ({data.get('reason', '')})")
        if data.get("expected") is not None:
            self.say(f"  expected {float(data['expected']):.3f} (objective {data.get('objective')})")
        alternatives = [a["word"] for a in (data.get("alternatives") or [])[:5]]
        if alternatives:
            self.say("  alternatives: " + " ".join(alternatives))

    def show_candidates(self, sample: int = 8) -> None:
        for board in boards_view(self.state, sample=sample):
            if not board["solved"]:
                self.say("  " + format_board_line(board, sample))

    # --------------------------------------------------------------- commands
    def command(self, line: str) -> str | None:
        """Run ``line`` if it is a command; returns its name, or None."""
        parts = line.split()
        name = COMMANDS.get(parts[0].lower()) if parts else None
        if name is None or len(parts) > 1:
            return None
        if name == "help":
            self.say(HELP.format(colours=self.game.colour_hint))
        elif name == "list":
            self.show_candidates(sample=40)
        elif name == "undo":
            self.undo()
        elif name == "new":
            self.states, self.rows = [self.start], []
            self.say("new game")
            self.show_suggestion()
        return name

    def undo(self) -> None:
        if not self.rows:
            self.say("nothing to undo")
            return
        word, _ = self.rows.pop()
        self.states.pop()
        self.say(f"undid {word}")
        if self.rows:
            self.show_boards()
        self.show_suggestion()

    # ------------------------------------------------------------------ turns
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
        unsolved = self.state.unsolved
        if len(slots) == self.mode.boards:
            return [self._board_colours(b, s) for b, s in enumerate(slots)]
        if len(slots) == len(unsolved):
            patterns = [None] * self.mode.boards
            for board, slot in zip(unsolved, slots):
                patterns[board] = self._board_colours(board, slot)
            return patterns
        raise TermoError(f"{len(slots)} colour patterns for {self.mode.boards} boards ({len(unsolved)} unsolved): "
                         f"give one per board, in board order ('{SOLVED_SLOT}' or nothing for a solved board)")

    def _board_colours(self, board: int, text: str):
        try:
            return self.colours_of(text)
        except TermoError as err:
            raise TermoError(f"board {board + 1}: {err}") from None

    def split(self, line: str) -> tuple[str, str | None]:
        """``word colours...`` / ``word:colours`` -> (word, colours); a lone token -> (token, None)."""
        if ":" in line:
            word, _, colours = line.partition(":")
            return word.strip(), colours.strip() or None
        parts = line.split(None, 1)
        return (parts[0], parts[1]) if len(parts) > 1 else (line.strip(), None)

    def read_turn(self, line: str) -> None:
        """A line that is no command: a whole turn, a guess alone, or colours for the suggestion."""
        if self.state.over:
            self.error("this game is over: type new, undo or quit")
            return
        word, colours = self.split(line)
        if colours is None and self.slots(word) is not None and self.game.index_of(word) is None:
            if self.suggested is None:
                self.error(f"! {word!r} looks like colours, but there is no suggested word: type the word first")
                return
            self.say(f"taken as colours for {self.suggested}")
            word, colours = self.suggested, word
        try:
            guess = self.state.session.check_guess(word)
        except TermoError as err:
            self.error(f"! {err}")
            return
        for warning in guess.warnings:
            self.error(f"warning: {warning}", rejected=False)
        if colours is None:
            return self.ask_boards(guess.word)
        slots = self.slots(colours)
        if slots is None:  # one board left: its colours may hold spaces (B B Y B B); else each slot's error
            slots = [colours] if len(self.state.unsolved) == 1 and "/" not in colours else colours.replace("/", " ").split()
        try:
            self.play(guess.word, self.per_board(slots))
        except TermoError as err:
            self.error(f"! {err}")

    def ask_boards(self, word: str) -> None:
        """Ask each unsolved board's colours for ``word`` in turn, then play the turn."""
        while True:
            patterns = [None] * self.mode.boards
            for board in self.state.unsolved:
                pattern = self.ask_board(word, board)
                if pattern is None:
                    return
                patterns[board] = pattern
            try:
                return self.play(word, patterns)
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

    def play(self, word: str, patterns: list) -> None:
        """Apply one turn (TermoError, nothing changed, when any part is wrong) and report."""
        state = self.state.apply(word, patterns)
        self.states.append(state)
        self.rows.append((word, tuple(patterns)))
        self.after_turn()

    def after_turn(self) -> None:
        state = self.state
        self.show_boards()
        if state.won:
            self.say(f"all {self.mode.boards} boards solved in {state.turns}/{self.mode.max_turns} "
                     f"(score {sum(state.solved_on)})")
            self.say("type new for another game, or quit")
            return
        if state.out_of_turns:
            left = ", ".join(f"board {b['board']}: {' '.join(b['sample'][:3])}"
                             for b in boards_view(state, 3) if not b["solved"])
            self.say(f"out of tries ({self.mode.max_turns}); answers left were like {left}")
            self.say("type new for another game, undo, or quit")
            return
        self.show_candidates()
        self.show_suggestion()

    # -------------------------------------------------------------------- loop
    def run(self) -> int:
        """Play until quit or end of input; 0 when every line was taken, 2 when some was rejected."""
        title = self.mode.title or self.mode.label
        self.say(f"termo play {title} ({self.mode.boards} boards of {self.game.title or self.game.label}, "
                 f"{self.mode.max_turns} tries; level {self.solver.level}, objective {self.solver.objective.name}); "
                 f"type help for help")
        self.show_suggestion()
        if not command_loop(self, lambda: "> " if self.state.over else f"guess {self.state.turns + 1}> ",
                            self.read_turn):
            return 130
        self.say("bye")
        return 2 if self.rejected else 0
