"""A tiny stand-in for `termo.engine.solver.Solver` so the UI tests run without the engine.

It plays the lowest-ICF candidate (level 1: the lowest index), and `tarso` as the opener; it
records every call so tests can check what the UI asked for."""

from __future__ import annotations

from termo.core.decision import Choice, Decision


class FakeSolver:
    calls: list = []

    def __init__(self, game, level, config):
        self.game, self.level, self.config = game, level, config

    def _choice(self, index: int, candidates) -> Choice:
        return Choice(index, self.game.probes[index], bits=1.5, expected=2.0 if self.level == 3 else None,
                      is_candidate=index in candidates)

    def decide(self, candidates, turn, allowed=None):  # candidates are legal in hard mode too
        cands = [int(c) for c in candidates]
        FakeSolver.calls.append(("decide", self.level, len(cands), turn))
        order = sorted(cands, key=lambda i: (self.game.icf[i], i))
        return Decision(
            choice=self._choice(order[0], cands),
            reason=f"fake level {self.level}",
            candidates=len(cands),
            alternatives=tuple(self._choice(i, cands) for i in order[1:4]),
        )

    def opener(self, optimal=False, progress=None):
        FakeSolver.calls.append(("opener", self.level, optimal))
        if progress is not None:
            progress(1, 1)
        index = self.game.index_of("tosar" if optimal else "tarso")
        everything = range(self.game.n_answers)
        return Decision(
            choice=self._choice(index, everything),
            reason="fake opener" + (" (optimal)" if optimal else ""),
            candidates=self.game.n_answers,
            alternatives=(self._choice(self.game.index_of("tirão"), everything),),
        )


def install(monkeypatch) -> list:
    """Make every `Advisor` build `FakeSolver`s; returns the call log."""
    import termo.interface.suggest

    FakeSolver.calls = []
    monkeypatch.setattr(termo.interface.suggest, "_make_solver", FakeSolver)
    return FakeSolver.calls
