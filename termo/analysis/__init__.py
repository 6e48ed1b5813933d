"""The analysis suite: lockstep evaluation of policies on batteries of secrets, the temperature
sweep, the extended probe space and the opener experiments (rules §7), with JSON/markdown/PNG reports.

Modules: :mod:`~termo.analysis.lockstep` (many games at once, one decision per distinct state),
:mod:`~termo.analysis.battery` (secrets and metrics), :mod:`~termo.analysis.strategies`
(policies), :mod:`~termo.analysis.worlds` (full, open and closed worlds),
:mod:`~termo.analysis.experiments` and :mod:`~termo.analysis.openers` (the experiments),
:mod:`~termo.analysis.opener_cache` (the level-2 opener on disk), :mod:`~termo.analysis.report`,
:mod:`~termo.analysis.opener_reports` and :mod:`~termo.core.plots` (output).
"""
