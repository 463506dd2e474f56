"""Distribution value objects: theory agrees with seeded samples; bad parameters rejected.

Statistical checks: for each distribution, 200,000 seeded draws; the sample mean must lie
within 4 standard errors (sqrt(variance / n)) of the theoretical mean, and the sample
variance within 4 standard errors of the theoretical variance, the standard error of a
variance being sqrt((m4 - s^4) / n) with m4 the sample fourth central moment. Under the
normal approximation each check fails by chance with probability about 6.3e-5
(two-sided 4 sigma), so the ~26 checks below together would fail for about one seed in
600. The seeds are fixed, so the outcome is deterministic: a failure means a wrong formula
or a wrong sampler, not bad luck.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from twin.dists import (
    Choice,
    Distribution,
    Exponential,
    Fixed,
    Lognormal,
    Normal,
    Triangular,
    Uniform,
    parse_distribution,
)

N = 200_000

CASES: list[tuple[str, dict[str, Any]]] = [
    ("fixed", {"dist": "fixed", "value": 3.5}),
    ("uniform", {"dist": "uniform", "low": 3.5, "high": 7}),
    ("exponential", {"dist": "exponential", "mean": 12}),
    ("lognormal", {"dist": "lognormal", "median": 6000, "sigma": 0.7}),
    ("normal", {"dist": "normal", "mean": 30, "sd": 10}),
    ("normal-min", {"dist": "normal", "mean": 30, "sd": 10, "min": 25}),
    ("normal-max", {"dist": "normal", "mean": 30, "sd": 10, "max": 22}),
    ("normal-both", {"dist": "normal", "mean": 30, "sd": 10, "min": 20, "max": 35}),
    ("triangular", {"dist": "triangular", "low": 2, "mode": 5, "high": 15}),
    ("triangular-edge", {"dist": "triangular", "low": 0, "mode": 0, "high": 1}),
    ("choice", {"dist": "choice", "values": [1, 2, 3, 5], "weights": [50, 25, 15, 10]}),
    ("choice-equal", {"dist": "choice", "values": [1, 2, 3]}),
    ("choice-single", {"dist": "choice", "values": [7]}),
]


@pytest.mark.parametrize(("label", "spec"), CASES, ids=[c[0] for c in CASES])
def test_samples_agree_with_theory(label: str, spec: dict[str, Any]) -> None:
    d = parse_distribution(spec)
    seed = sum(label.encode())  # a fixed seed per case
    x = d.sample_many(np.random.default_rng(seed), N)
    assert x.shape == (N,)
    assert x.dtype == np.float64
    lo, hi = d.support
    assert x.min() >= lo
    assert x.max() <= hi
    if d.variance == 0.0:
        assert np.all(x == d.mean)
        return
    m = float(x.mean())
    s2 = float(x.var(ddof=1))
    m4 = float(np.mean((x - m) ** 4))
    se_mean = math.sqrt(d.variance / N)
    se_var = math.sqrt(max(m4 - s2 * s2, 0.0) / N)
    assert abs(m - d.mean) < 4 * se_mean, (m, d.mean, se_mean)
    assert abs(s2 - d.variance) < 4 * se_var, (s2, d.variance, se_var)


@pytest.mark.parametrize(("label", "spec"), CASES, ids=[c[0] for c in CASES])
def test_single_draws(label: str, spec: dict[str, Any]) -> None:
    d = parse_distribution(spec)
    rng = np.random.default_rng(7)
    draws = [d.sample(rng) for _ in range(200)]
    assert all(type(v) is float for v in draws)
    lo, hi = d.support
    assert all(lo <= v <= hi for v in draws)
    again = np.random.default_rng(7)
    assert draws == [d.sample(again) for _ in range(200)]
    assert d.sample_many(rng, 0).shape == (0,)


def test_exact_formulas() -> None:
    assert Uniform(low=2, high=8).mean == 5.0
    assert Uniform(low=2, high=8).variance == 3.0
    assert Exponential(mean=4).variance == 16.0
    ln = Lognormal(median=100, sigma=0.5)
    assert ln.mean == pytest.approx(100 * math.exp(0.125))
    assert ln.variance == pytest.approx((math.exp(0.25) - 1) * 100**2 * math.exp(0.25))
    tri = Triangular(low=0, mode=3, high=6)
    assert tri.mean == 3.0
    assert tri.variance == pytest.approx(36 / 24)
    ch = Choice(values=(0, 10), weights=(3, 1))
    assert ch.weights == (0.75, 0.25)
    assert ch.mean == 2.5
    assert ch.variance == pytest.approx(0.75 * 6.25 + 0.25 * 56.25)
    assert Fixed(value=2).variance == 0.0


def test_clipped_normal_moments() -> None:
    plain = Normal(mean=5, sd=2)
    assert (plain.mu, plain.mean, plain.variance) == (5.0, 5.0, 4.0)
    # Clipping at the mean: X = max(Z, 0), E = phi(0) = 1/sqrt(2 pi), E[X^2] = 1/2.
    half = Normal(mean=0, sd=1, min=0)
    e = 1 / math.sqrt(2 * math.pi)
    assert half.mean == pytest.approx(e)
    assert half.variance == pytest.approx(0.5 - e * e)
    # Symmetric clipping keeps the mean and shrinks the variance.
    both = Normal(mean=3, sd=1, min=2, max=4)
    assert both.mean == pytest.approx(3.0)
    assert 0 < both.variance < 1
    # Bounds far away change nothing.
    far = Normal(mean=3, sd=1, min=-100, max=100)
    assert far.mean == pytest.approx(3.0)
    assert far.variance == pytest.approx(1.0)


def test_normal_serialises_with_toml_names() -> None:
    d = Normal(mean=1, sd=2, min=0)
    assert d.model_dump() == {"dist": "normal", "mean": 1.0, "sd": 2.0, "min": 0.0, "max": None}
    assert parse_distribution(d.model_dump()) == d


def test_distribution_alias_is_usable_in_models() -> None:
    from pydantic import BaseModel

    class Holder(BaseModel):
        d: Distribution

    h = Holder.model_validate({"d": {"dist": "exponential", "mean": 2}})
    assert isinstance(h.d, Exponential)


def test_frozen() -> None:
    d = Uniform(low=1, high=2)
    with pytest.raises(ValidationError):
        d.low = 0  # type: ignore[misc]


INVALID: list[tuple[dict[str, Any], tuple[str, ...], str]] = [
    ({"dist": "uniform", "low": 2, "high": 2}, ("uniform",), "high"),
    ({"dist": "uniform", "low": 3, "high": 1}, ("uniform",), "high"),
    ({"dist": "uniform", "low": "1", "high": 2}, ("uniform", "low"), ""),
    ({"dist": "exponential", "mean": 0}, ("exponential", "mean"), ""),
    ({"dist": "exponential", "mean": -1}, ("exponential", "mean"), ""),
    ({"dist": "lognormal", "median": 100, "sigma": 0}, ("lognormal", "sigma"), ""),
    ({"dist": "lognormal", "median": -5, "sigma": 1}, ("lognormal", "median"), ""),
    ({"dist": "normal", "mean": 0, "sd": 0}, ("normal", "sd"), ""),
    ({"dist": "normal", "mean": 0, "sd": 1, "min": 2, "max": 1}, ("normal",), "max"),
    ({"dist": "normal", "mean": 0, "sd": 1, "min": 1, "max": 1}, ("normal",), "max"),
    ({"dist": "triangular", "low": 0, "mode": 2, "high": 1}, ("triangular",), "mode"),
    ({"dist": "triangular", "low": 0, "mode": -1, "high": 1}, ("triangular",), "mode"),
    ({"dist": "triangular", "low": 1, "mode": 1, "high": 1}, ("triangular",), "high"),
    ({"dist": "choice", "values": []}, ("choice", "values"), ""),
    ({"dist": "choice", "values": [1, 2], "weights": [1]}, ("choice", "weights"), ""),
    ({"dist": "choice", "values": [1, 2], "weights": [1, 0]}, ("choice", "weights"), "[1]"),
    ({"dist": "choice", "values": [1, 2], "weights": [1, -2]}, ("choice", "weights"), "[1]"),
    ({"dist": "fixed", "value": float("nan")}, ("fixed", "value"), ""),
    ({"dist": "uniform", "low": 0, "high": float("inf")}, ("uniform", "high"), ""),
    ({"dist": "fixed", "value": True}, ("fixed", "value"), ""),
    ({"dist": "fixed", "value": 1, "extra": 2}, ("fixed", "extra"), ""),
    ({"dist": "fixed"}, ("fixed", "value"), ""),
    ({"dist": "gamma", "shape": 2}, (), ""),
    ({"value": 2}, (), ""),
]


@pytest.mark.parametrize(("spec", "loc", "key"), INVALID)
def test_invalid_parameters_rejected(spec: dict[str, Any], loc: tuple[str, ...], key: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_distribution(spec)
    err = info.value.errors()[0]
    assert err["loc"] == loc
    assert (err.get("ctx") or {}).get("key", "") == key


def test_direct_construction_validates() -> None:
    with pytest.raises(ValidationError):
        Uniform(low=5, high=1)
    with pytest.raises(ValidationError):
        Triangular(low=0, mode=5, high=1)
    with pytest.raises(ValidationError):
        Normal(mean=0, sd=-1)


def test_equality_and_hash_ignore_sampling_cache() -> None:
    a = Choice(values=(1, 2, 3), weights=(1, 1, 2))
    b = parse_distribution({"dist": "choice", "values": [1, 2, 3], "weights": [2, 2, 4]})
    assert a == b
    assert hash(a) == hash(b)
    assert a != Choice(values=(1, 2, 4), weights=(1, 1, 2))


def test_a_choice_draw_is_the_value_searchsorted_finds_for_the_same_uniform() -> None:
    """One draw bisects the cumulative probabilities as Python floats: the same value
    ``searchsorted(side="right")`` picks for the same uniform, on the boundaries too."""
    ch = Choice(values=(5, 1, 7, 3), weights=(1, 2, 3, 4))
    cum = np.cumsum(np.asarray(ch.probabilities))
    cum[-1] = 1.0
    values = np.asarray(ch.values, np.float64)

    class Fixed:
        def __init__(self, u: float) -> None:
            self.u = u

        def random(self) -> float:
            return self.u

    us = [0.0, 0.1, 0.3, 0.6, float(np.nextafter(0.1, 0.0)), float(np.nextafter(0.3, 1.0))]
    us += np.random.default_rng(3).random(2000).tolist()
    for u in us:
        want = float(values[int(np.searchsorted(cum, u, side="right"))])
        assert ch.sample(Fixed(u)) == want, u  # type: ignore[arg-type]
    assert ch.sample(Fixed(0.1)) == 1.0 and ch.sample(Fixed(0.0)) == 5.0
