"""What a family of solvers supports, declared once by the family (`termo.engine.factory` for one
board, `termo.engine.multi.factory` for several) and read by the one door (`termo.interface`),
which refuses an option a family does not support with one line instead of keeping deny-lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from termo.core.errors import TermoError


@dataclass(frozen=True)
class Supports:
    """The levels, objectives and options a family of solvers takes."""

    levels: tuple[int, ...]  # the levels it decides at
    objectives: tuple[str, ...]  # what it can minimise (the first is the default)
    hard: bool = False  # hard mode (greens stay, revealed letters are reused)
    trees: bool = False  # stored strategy trees walked (--tree, --no-tree)
    search_options: bool = False  # the level-3 search's --beam and --depth
    opener_choice: bool = False  # --opener optimal (the configuration's optimum as the first guess)
    candidate_list: bool = False  # --list N (the most likely candidates beside the answer)
    exact: bool = False  # a proved optimum (`termo optimal`)
    feedback: tuple[str, ...] = ("honest",)  # the feedback models it plays (`termo.core.feedback_model`)

    def level_text(self) -> str:
        """``2 or 3``, ``1, 2 or 3``: the levels as a sentence says them."""
        names = [str(n) for n in self.levels]
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"

    def check_level(self, level, game=None) -> int:
        """``level`` as an int if the family decides at it; TermoError otherwise ("level must be 2 or 3
        for fibble, not 1"; coded ``option.level`` when ``game`` names where)."""
        if level in self.levels:
            return int(level)
        if game is None:
            raise TermoError(f"level must be {self.level_text()}, not {level!r}")
        raise TermoError(f"level must be {self.level_text()} for {game.label}, not {level!r}", "option.level",
                         {"value": level})
