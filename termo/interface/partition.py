"""The front ends' door to how a guess splits the candidates (`termo.engine.partition`: ``termo
partition``, ``termo rank``, ``POST /api/partition``) and to the second-guess study built on it
(`termo.analysis.second_guess`: ``termo bench second-guess``)."""

from __future__ import annotations

from termo.analysis.second_guess import second_guess_markdown, second_guess_study, write_second_guess
from termo.engine.partition import check_criterion, guess_metrics, make_state, rank_probes

__all__ = ["check_criterion", "guess_metrics", "make_state", "rank_probes", "second_guess_markdown",
           "second_guess_study", "write_second_guess"]
