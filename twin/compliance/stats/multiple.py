"""Many tests at once: Holm, Benjamini-Hochberg, and the two levels of a floor's machines."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from twin.compliance.stats.results import _as_1d_float

# --- multiple testing -------------------------------------------------------------------------


def _as_p_values(p_values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    p = _as_1d_float(p_values, "p_values")
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p_values must lie in [0, 1]")
    return p


def holm(p_values: npt.ArrayLike, alpha: float = 0.05) -> npt.NDArray[np.bool_]:
    """Holm's step-down procedure: which hypotheses to reject at family-wise error ``alpha``.

    Sort the ``m`` p-values ascending; reject ``p_(1), ..., p_(k)`` where ``k`` is the first
    rank (1-based) with ``p_(k+1) > alpha / (m - k)``. Controls the probability of any false
    rejection at ``alpha`` under any dependence between the tests; uniformly more powerful
    than Bonferroni. Returns reject flags in the input order; empty input gives an empty array.
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie in (0, 1)")
    p = _as_p_values(p_values)
    m = p.size
    reject = np.zeros(m, dtype=np.bool_)
    order = np.argsort(p, kind="stable")
    thresholds = alpha / (m - np.arange(m))
    fails = np.flatnonzero(p[order] > thresholds)
    k = int(fails[0]) if fails.size else m
    reject[order[:k]] = True
    return reject


def benjamini_hochberg(p_values: npt.ArrayLike, q: float = 0.05) -> npt.NDArray[np.bool_]:
    """Benjamini-Hochberg step-up procedure: reject with false-discovery rate at most ``q``.

    Sort the ``m`` p-values ascending; find the largest rank ``k`` (1-based) with
    ``p_(k) <= k q / m`` and reject the ``k`` smallest. Controls the expected share of false
    rejections among rejections at ``q`` for independent (or positively dependent) tests.
    When every machine is fair it rejects anything with probability at most ``q`` (exactly
    ``q`` for independent continuous p-values), so it then acts as a family-wise control.
    Returns reject flags in the input order; empty input gives an empty array.
    """
    if not 0 < q < 1:
        raise ValueError("q must lie in (0, 1)")
    p = _as_p_values(p_values)
    m = p.size
    reject = np.zeros(m, dtype=np.bool_)
    order = np.argsort(p, kind="stable")
    passes = np.flatnonzero(p[order] <= q * np.arange(1, m + 1) / m)
    if passes.size:
        reject[order[: int(passes[-1]) + 1]] = True
    return reject


# --- many machines: the floor's false discoveries, each machine's own confidence --------------


def select_then_test(
    families: Sequence[Sequence[float]], q: float, alpha: float
) -> list[npt.NDArray[np.bool_]]:
    """Two levels of error control: which machines (families of tests) to report, then which
    of a reported machine's tests fail.

    1. Across the floor: each family's p-value is the Bonferroni ``min(1, k min p)`` of its
       ``k`` tests (valid under any dependence between them); Benjamini-Hochberg at ``q``
       over the families selects the machines to report. The expected share of wrongly
       reported machines is at most ``q``, and a floor of fair machines reports any at all
       with probability at most ``q``.
    2. Within a selected machine: Holm at family-wise level ``alpha`` over its own tests
       marks the tests that fail (the regulation's per-machine confidence limits, ``alpha =
       1 - confidence``). A selected machine none of whose tests fails at ``alpha`` is not
       reported.

    Both settings change the outcome: ``q`` which machines can be reported, ``alpha`` whether
    a selected machine is reported and which of its tests (and so which sub-clauses) are
    named. Returns, per family, the reject flags of its tests (all False when not
    selected).
    """
    if not 0 < q < 1 or not 0 < alpha < 1:
        raise ValueError("q and alpha must lie in (0, 1)")
    fam_p = [min(1.0, len(f) * min(f)) if len(f) else 1.0 for f in families]
    chosen = benjamini_hochberg(fam_p, q) if fam_p else np.zeros(0, np.bool_)
    out = []
    for f, sel in zip(families, chosen.tolist(), strict=True):
        if sel and len(f):
            out.append(holm(f, alpha))
        else:
            out.append(np.zeros(len(f), np.bool_))
    return out
