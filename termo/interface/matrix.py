"""The front ends' door to a game's pattern matrix (`termo.engine.matrix`: ``termo matrix``)."""

from __future__ import annotations

from termo.engine.matrix import build_info

__all__ = ["build_info"]
