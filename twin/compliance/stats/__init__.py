"""Statistical tests behind the RNG and hold controls of the Malta Gaming Act Regs 1998.

First Schedule, item 1(b), requires a random selection process that "shall fulfil 95%
confidence limits" for: (i) every combination available on each play, (ii) a constant
probability of a symbol appearing in a position, and (iii) no detectable pattern or dependency
upon any previous game outcome, the amount wagered or the style of play. Item 20(f) requires
large variances between actual and theoretical hold to be investigated. This module holds the
statistics those controls use; it is pure (numpy / scipy only) and knows nothing of records.

* (ii) constant stop probability: :func:`stop_frequency_test` (chi-square goodness of fit of
  one reel's observed stop counts against its weights). A stop with zero weight that was
  observed is reported as an outright failure, which also covers the converse of (i).
* (iii) no dependency: :func:`independence_test` (previous outcome x current outcome, bet
  level x outcome, play style x outcome) and :func:`runs_test` (serial pattern in a win/loss
  sequence).
* Many machines, reels and tests at once: :func:`holm` (family-wise error) and
  :func:`benjamini_hochberg` (false-discovery rate).
* Item 20(f): :func:`hold_band`, :func:`effective_games` and :func:`hold_variance_test`.

"95% confidence limits" is read as: each test is run at significance level ``alpha = 0.05``,
so a fair machine fails a single test with probability about 5 %. Over a floor of machines
that is many false alarms; combine the p-values with :func:`holm` or
:func:`benjamini_hochberg` before raising findings.

Every test returns a :class:`TestResult`; a test that cannot be run on the data (too few
observations, all outcomes equal) returns ``p_value = 1.0`` (never rejects) and says why in
``detail``. Invalid input (negative counts, mismatched shapes, NaN) raises ``ValueError``.

The tests live in :mod:`.results` (the result), :mod:`.rng` (item 1(b)), :mod:`.multiple`
(many tests at once), :mod:`.hold` and :mod:`.tails` (item 20(f)); this package re-exports
their public API.
"""

from __future__ import annotations

from twin.compliance.stats.hold import effective_games, hold_band, hold_variance_test
from twin.compliance.stats.multiple import benjamini_hochberg, holm, select_then_test
from twin.compliance.stats.results import TestResult
from twin.compliance.stats.rng import (
    bonferroni,
    combination_tests,
    independence_test,
    independence_tests,
    pool_cells,
    runs_test,
    stop_frequency_test,
    stop_frequency_tests,
)
from twin.compliance.stats.tails import (
    WinLaw,
    hold_tail_test,
    hold_tail_tests,
    win_cgf,
    win_cgfs,
    win_tails,
)

__all__ = [
    "TestResult",
    "WinLaw",
    "benjamini_hochberg",
    "bonferroni",
    "combination_tests",
    "effective_games",
    "hold_band",
    "hold_tail_test",
    "hold_tail_tests",
    "hold_variance_test",
    "holm",
    "independence_test",
    "independence_tests",
    "pool_cells",
    "runs_test",
    "select_then_test",
    "stop_frequency_test",
    "stop_frequency_tests",
    "win_cgf",
    "win_cgfs",
    "win_tails",
]
