"""Paired differences between two arms, with Student-t confidence intervals.

Replication ``i`` of both arms shares every random stream (common random numbers), so the
difference ``d_i = proposed_i − baseline_i`` is the estimate and its interval is the paired
t interval ``mean(d) ± t(1 − α/2, n − 1) · sd(d) / √n``.

The gain of common random numbers is reported per KPI as the **variance-reduction factor**
``(var(baseline) + var(proposed)) / var(d)``: the variance of a difference between *independent*
arms (the same marginal distributions, no shared streams) divided by the variance the pairing
leaves. Common random numbers do not change either arm's distribution, so the numerator is
what independent arms would give; the width of the interval independent arms would have at the
same ``n`` (Welch) is reported beside the paired one. ``tests/test_study.py`` checks the
factor against arms actually run on independent seeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from scipy import stats


@dataclass(frozen=True, slots=True)
class Difference:
    """One KPI compared: each arm's mean, the paired difference and its interval."""

    kpi: str
    n: int
    baseline_mean: float
    proposed_mean: float
    difference: float
    low: float
    high: float
    half_width: float
    #: the difference as a share of the size of the baseline's mean (None when it is 0)
    relative: float | None
    #: the half-width independent arms of the same n would give (Welch), and the factor
    independent_half_width: float
    variance_reduction: float | None
    #: True when the interval excludes 0: the proposal changes this KPI at this confidence
    significant: bool

    def to_dict(self) -> dict[str, Any]:
        return {k: _json_number(v) for k, v in asdict(self).items()}


def _json_number(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs)


def _var(xs: Sequence[float]) -> float:
    if len(xs) < 2:
        return math.nan
    m = _mean(xs)
    return math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def paired(kpi: str, base: Sequence[float], prop: Sequence[float], confidence: float) -> Difference:
    """The paired comparison of one KPI over replications where both arms have a value."""
    pairs = [
        (b, p) for b, p in zip(base, prop, strict=True) if math.isfinite(b) and math.isfinite(p)
    ]
    n = len(pairs)
    nan = math.nan
    if n == 0:
        return Difference(kpi, 0, nan, nan, nan, nan, nan, nan, None, nan, None, False)
    b = [x for x, _ in pairs]
    p = [y for _, y in pairs]
    d = [y - x for x, y in pairs]
    mb, mp, md = _mean(b), _mean(p), _mean(d)
    if n < 2:
        hw = ihw = math.inf
        vrf = None
    else:
        t = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1))
        vd, vb, vp = _var(d), _var(b), _var(p)
        hw = t * math.sqrt(vd / n)
        ihw = _welch_half_width(vb, vp, n, confidence)
        vrf = (vb + vp) / vd if vd > 0 else (None if vb + vp == 0 else math.inf)
    low, high = md - hw, md + hw
    rel = md / abs(mb) if mb != 0 else None  # a fall is negative, whatever mb's sign
    significant = bool(n >= 2 and (low > 0 or high < 0))
    return Difference(kpi, n, mb, mp, md, low, high, hw, rel, ihw, vrf, significant)


def _welch_half_width(vb: float, vp: float, n: int, confidence: float) -> float:
    se2 = (vb + vp) / n
    if se2 == 0:
        return 0.0
    # Welch-Satterthwaite degrees of freedom for two samples of n
    df = se2**2 / ((vb / n) ** 2 / (n - 1) + (vp / n) ** 2 / (n - 1))
    t = float(stats.t.ppf(0.5 + confidence / 2.0, df))
    return t * math.sqrt(se2)


#: the share of a KPI's level below which a difference counts as negligible: the stopping
#: rule then measures the interval against this share of the level instead of the difference
#: (a proposal that changes a KPI by nothing cannot be known to ±10 % of nothing)
NEGLIGIBLE_SHARE = 0.01


@dataclass(frozen=True, slots=True)
class Precision:
    """How precisely a difference is known, as the stopping rule reads it (issue 32).

    The rule: the interval's half-width is at most ``relative_precision`` × the *yardstick*,
    the size of the difference itself, or, when the difference is smaller than
    :data:`NEGLIGIBLE_SHARE` of the KPI's level (the larger of the two arms' means), that
    share of the level (``floor`` True): a difference of about zero is known precisely when
    it is known to be negligible. A KPI both arms leave at exactly 0 (or exactly equal in
    every replication) is known exactly: half-width 0."""

    kpi: str
    n: int
    half_width: float
    yardstick: float
    #: True when the yardstick is the share of the level (the difference is about zero)
    floor: bool
    #: half-width ÷ yardstick (0 when both are 0; inf when the yardstick is 0 and the
    #: half-width is not, or with fewer than 2 pairs)
    ratio: float
    reached: bool


def precision(diff: Difference, relative_precision: float) -> Precision:
    """The precision of ``diff`` against the stopping rule (see :class:`Precision`)."""
    level = max(abs(diff.baseline_mean), abs(diff.proposed_mean))
    size = abs(diff.difference)
    floor_size = NEGLIGIBLE_SHARE * level if math.isfinite(level) else math.nan
    floor = not size >= floor_size
    yardstick = floor_size if floor else size
    hw = diff.half_width
    if diff.n < 2 or not math.isfinite(hw) or not math.isfinite(yardstick):
        return Precision(diff.kpi, diff.n, hw, yardstick, floor, math.inf, False)
    ratio = (0.0 if hw == 0 else math.inf) if yardstick == 0 else hw / yardstick
    return Precision(diff.kpi, diff.n, hw, yardstick, floor, ratio, ratio <= relative_precision)


def precise_enough(diff: Difference, relative_precision: float) -> bool:
    """Whether the interval's half-width is within ``relative_precision`` of the size of the
    difference (or of :data:`NEGLIGIBLE_SHARE` of the KPI's level when the difference is
    smaller than that): see :class:`Precision`."""
    return precision(diff, relative_precision).reached


__all__ = ["NEGLIGIBLE_SHARE", "Difference", "Precision", "paired", "precise_enough", "precision"]
