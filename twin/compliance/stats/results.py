"""The result of every test, the standard normal's functions and the checks of the input."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import ndtr


@dataclass(frozen=True, slots=True)
class TestResult:
    """The outcome of one statistical test.

    ``statistic`` is the test statistic (chi-square, z, or the sample odds ratio for Fisher's
    exact test); ``dof`` the degrees of freedom of its chi-square reference distribution, or
    ``0.0`` for tests without one (z tests, Fisher); ``p_value`` the two-sided / upper-tail
    p-value as appropriate to the test; ``n`` the number of observations used; ``detail`` a
    short human-readable account (method, pooling, why a test was not run).
    """

    __test__ = False  # not a pytest test class, despite the name

    name: str
    statistic: float
    dof: float
    p_value: float
    n: int
    detail: str


# The standard normal's cdf, survival function and density, each the very number
# ``sps.norm.cdf/sf/pdf(x)`` gives (the same ``ndtr``; the density by scipy's formula on a
# one-element array, as ``pdf`` evaluates it: a numpy scalar can round differently) without
# the distribution machinery around them (~70 us a call; the tail tests make thousands).
_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _norm_cdf(x: float) -> float:
    return float(ndtr(x))


def _norm_sf(x: float) -> float:
    return float(ndtr(-x))


def _norm_pdf(x: float) -> float:
    a = np.array([x], np.float64)
    return float((np.exp(-(a**2) / 2.0) / _SQRT_2PI)[0])


def _not_run(name: str, n: int, detail: str) -> TestResult:
    return TestResult(name=name, statistic=0.0, dof=0.0, p_value=1.0, n=n, detail=detail)


def _as_1d_float(values: npt.ArrayLike, what: str) -> npt.NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be finite")
    return arr


def _as_counts(values: npt.ArrayLike, what: str, ndim: int) -> npt.NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{what} must be {ndim}-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{what} must be finite and non-negative")
    if np.any(arr != np.round(arr)):
        raise ValueError(f"{what} must be whole counts")
    return arr
