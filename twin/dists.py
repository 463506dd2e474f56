"""Probability distributions as frozen value objects, read from scenario tables.

A distribution is written in TOML as an inline table whose ``dist`` key names the family::

    { dist = "fixed", value = 3 }
    { dist = "uniform", low = 3.5, high = 7 }
    { dist = "exponential", mean = 12 }
    { dist = "lognormal", median = 6000, sigma = 0.7 }
    { dist = "normal", mean = 30, sd = 10, min = 1 }          # min/max optional: clipped
    { dist = "triangular", low = 2, mode = 5, high = 15 }
    { dist = "choice", values = [1, 2, 3], weights = [5, 3, 2] }

Every distribution knows its theory (``mean``, ``variance``, ``support``) and draws from a
caller-supplied ``numpy.random.Generator`` (``sample`` for one float, ``sample_many`` for an
array). Parameters are validated when the object is built; a bad parameter raises a pydantic
``ValidationError`` whose error carries ``ctx["expected"]`` (a human phrase) and, for checks
involving several parameters, ``ctx["key"]`` naming the offending parameter, so that
``twin.scenario`` can turn it into a precise ``InputError``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeAlias

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "Choice",
    "Distribution",
    "Exponential",
    "Fixed",
    "Lognormal",
    "Normal",
    "Triangular",
    "Uniform",
    "invalid",
    "parse_distribution",
]


def invalid(expected: str, *, key: str | None = None, found: object = None) -> PydanticCustomError:
    """A validation error phrased for people: ``expected`` completes "expected ...".

    ``key`` (optional) is a key path relative to the object being validated, appended to the
    error's location; ``found`` (optional) replaces the input shown as "found".
    """
    ctx: dict[str, Any] = {"expected": expected}
    if key is not None:
        ctx["key"] = key
    if found is not None:
        ctx["found"] = found
    return PydanticCustomError("expected", "expected {expected}", ctx)


def expect(expected: str, ok: Callable[[Any], bool]) -> AfterValidator:
    """An ``Annotated`` validator raising ``invalid(expected)`` when ``ok(value)`` is false."""

    def check(value: Any) -> Any:
        if not ok(value):
            raise invalid(expected)
        return value

    return AfterValidator(check)


PositiveFloat = Annotated[float, expect("a positive number", lambda v: v > 0)]


class _Base(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        strict=True,
        allow_inf_nan=False,
        serialize_by_alias=True,
    )

    def sample(self, rng: np.random.Generator) -> float:
        """One draw."""
        raise NotImplementedError

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` independent draws as a float64 array."""
        raise NotImplementedError


class Fixed(_Base):
    """Always ``value``."""

    dist: Literal["fixed"] = "fixed"
    value: float

    @property
    def mean(self) -> float:
        return self.value

    @property
    def variance(self) -> float:
        return 0.0

    @property
    def support(self) -> tuple[float, float]:
        return (self.value, self.value)

    def sample(self, rng: np.random.Generator) -> float:
        return self.value

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return np.full(n, self.value, dtype=np.float64)


class Uniform(_Base):
    """Continuous uniform on ``[low, high)``."""

    dist: Literal["uniform"] = "uniform"
    low: float
    high: float

    @model_validator(mode="after")
    def _check(self) -> Uniform:
        if not self.low < self.high:
            raise invalid(f"a number greater than low ({self.low:g})", key="high", found=self.high)
        return self

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2.0

    @property
    def variance(self) -> float:
        return (self.high - self.low) ** 2 / 12.0

    @property
    def support(self) -> tuple[float, float]:
        return (self.low, self.high)

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(self.low, self.high))

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.uniform(self.low, self.high, size=n)


class Exponential(_Base):
    """Exponential with the given ``mean`` (rate ``1/mean``)."""

    dist: Literal["exponential"] = "exponential"
    mean: PositiveFloat

    @property
    def variance(self) -> float:
        return self.mean**2

    @property
    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.exponential(self.mean))

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.exponential(self.mean, size=n)


class Lognormal(_Base):
    """``median * exp(sigma * Z)`` with ``Z`` standard normal (so ``mu = ln(median)``)."""

    dist: Literal["lognormal"] = "lognormal"
    median: PositiveFloat
    sigma: PositiveFloat

    @property
    def mean(self) -> float:
        return self.median * math.exp(self.sigma**2 / 2.0)

    @property
    def variance(self) -> float:
        s2 = self.sigma**2
        return math.expm1(s2) * self.median**2 * math.exp(s2)

    @property
    def support(self) -> tuple[float, float]:
        return (0.0, math.inf)

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.lognormal(math.log(self.median), self.sigma))

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.lognormal(math.log(self.median), self.sigma, size=n)


def _phi(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) if math.isfinite(z) else 0.0


def _cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _z_phi(z: float) -> float:
    """``z * phi(z)``, which tends to 0 at both infinities."""
    return z * _phi(z) if math.isfinite(z) else 0.0


class Normal(_Base):
    """Normal(``mean``, ``sd``) clipped to ``[min, max]`` (either bound optional).

    Clipping (not rejection): a draw beyond a bound is replaced by the bound, so the bounds
    carry probability mass. ``mean`` and ``variance`` are the exact moments of this clipped
    (censored) distribution; without bounds they are ``mean`` and ``sd**2``. The location
    parameter itself is the attribute ``mu`` (written ``mean`` in TOML).
    """

    dist: Literal["normal"] = "normal"
    mu: float = Field(alias="mean")
    sd: PositiveFloat
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _check(self) -> Normal:
        if self.min is not None and self.max is not None and not self.min < self.max:
            raise invalid(f"a number greater than min ({self.min:g})", key="max", found=self.max)
        return self

    def _bounds(self) -> tuple[float, float]:
        lo = -math.inf if self.min is None else self.min
        hi = math.inf if self.max is None else self.max
        return lo, hi

    def _moments(self) -> tuple[float, float]:
        """Exact E[X] and E[X^2] of the clipped normal."""
        lo, hi = self._bounds()
        mu, sd = self.mu, self.sd
        a = (lo - mu) / sd
        b = (hi - mu) / sd
        p_lo = _cdf(a)  # mass clipped onto min
        p_hi = 1.0 - _cdf(b)  # mass clipped onto max
        p_in = _cdf(b) - _cdf(a)
        d_phi = _phi(a) - _phi(b)
        # Integrals of (mu + sd z)^k phi(z) over (a, b) for k = 1, 2.
        m1_in = mu * p_in + sd * d_phi
        m2_in = mu * mu * p_in + 2.0 * mu * sd * d_phi + sd * sd * (p_in + _z_phi(a) - _z_phi(b))
        m1 = m1_in + (lo * p_lo if p_lo > 0 else 0.0) + (hi * p_hi if p_hi > 0 else 0.0)
        m2 = m2_in + (lo * lo * p_lo if p_lo > 0 else 0.0) + (hi * hi * p_hi if p_hi > 0 else 0.0)
        return m1, m2

    @property
    def mean(self) -> float:
        if self.min is None and self.max is None:
            return self.mu
        return self._moments()[0]

    @property
    def variance(self) -> float:
        if self.min is None and self.max is None:
            return self.sd**2
        m1, m2 = self._moments()
        return max(m2 - m1 * m1, 0.0)

    @property
    def support(self) -> tuple[float, float]:
        return self._bounds()

    def sample(self, rng: np.random.Generator) -> float:
        x = float(rng.normal(self.mu, self.sd))
        if self.min is not None and x < self.min:
            return self.min
        if self.max is not None and x > self.max:
            return self.max
        return x

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        x = rng.normal(self.mu, self.sd, size=n)
        if self.min is not None or self.max is not None:
            np.clip(x, self.min, self.max, out=x)
        return x


class Triangular(_Base):
    """Triangular on ``[low, high]`` with peak at ``mode``."""

    dist: Literal["triangular"] = "triangular"
    low: float
    mode: float
    high: float

    @model_validator(mode="after")
    def _check(self) -> Triangular:
        if not self.low < self.high:
            raise invalid(f"a number greater than low ({self.low:g})", key="high", found=self.high)
        if not self.low <= self.mode <= self.high:
            raise invalid(
                f"a number between low and high ({self.low:g}..{self.high:g})",
                key="mode",
                found=self.mode,
            )
        return self

    @property
    def mean(self) -> float:
        return (self.low + self.mode + self.high) / 3.0

    @property
    def variance(self) -> float:
        a, c, b = self.low, self.mode, self.high
        return (a * a + b * b + c * c - a * b - a * c - b * c) / 18.0

    @property
    def support(self) -> tuple[float, float]:
        return (self.low, self.high)

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.triangular(self.low, self.mode, self.high))

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.triangular(self.low, self.mode, self.high, size=n)


class Choice(_Base):
    """One of ``values``, with probabilities proportional to ``weights`` (default equal).

    Weights must be positive; they are stored normalised (summing to 1). Values are floats;
    a caller wanting integers (e.g. bet units) should ``round`` the draw.
    """

    dist: Literal["choice"] = "choice"
    values: tuple[float, ...] = Field(strict=False)
    weights: tuple[float, ...] | None = Field(default=None, strict=False)

    _table: _Table = PrivateAttr()

    @field_validator("values")
    @classmethod
    def _non_empty(cls, values: tuple[float, ...]) -> tuple[float, ...]:
        if not values:
            raise invalid("a non-empty array of numbers")
        return values

    @field_validator("weights")
    @classmethod
    def _normalise(
        cls, weights: tuple[float, ...] | None, info: ValidationInfo
    ) -> tuple[float, ...] | None:
        if weights is None:
            return None
        values = info.data.get("values")
        if values is not None and len(weights) != len(values):
            raise invalid(f"one weight per value ({len(values)} weights)", found=list(weights))
        for i, w in enumerate(weights):
            if not w > 0:
                raise invalid("a positive weight", key=f"[{i}]", found=w)
        total = math.fsum(weights)
        return tuple(w / total for w in weights)

    def model_post_init(self, context: Any, /) -> None:
        self._table = _Table(self.values, self.probabilities)

    @property
    def probabilities(self) -> tuple[float, ...]:
        """The normalised probability of each value."""
        if self.weights is None:
            return tuple(1.0 / len(self.values) for _ in self.values)
        return self.weights

    @property
    def mean(self) -> float:
        return math.fsum(p * v for p, v in zip(self.probabilities, self.values, strict=True))

    @property
    def variance(self) -> float:
        m = self.mean
        return math.fsum(
            p * (v - m) ** 2 for p, v in zip(self.probabilities, self.values, strict=True)
        )

    @property
    def support(self) -> tuple[float, float]:
        return (min(self.values), max(self.values))

    def sample(self, rng: np.random.Generator) -> float:
        # the table straight from pydantic's private values (``self._table`` goes through
        # BaseModel.__getattr__), and a bisection of the same floats: the index
        # ``searchsorted(..., side="right")`` gives, without a numpy call per draw
        t: _Table = self.__pydantic_private__["_table"]  # type: ignore[index]
        return t.value_list[bisect.bisect_right(t.cumulative_list, rng.random())]

    def sample_many(self, rng: np.random.Generator, n: int) -> np.ndarray:
        t = self._table
        idx = np.searchsorted(t.cumulative, rng.random(n), side="right")
        return t.values[idx]


class _Table:
    """Sampling cache of a Choice, derived from its fields (so it never affects equality)."""

    __slots__ = ("cumulative", "cumulative_list", "value_list", "values")

    def __init__(self, values: tuple[float, ...], probabilities: tuple[float, ...]) -> None:
        self.values = np.asarray(values, dtype=np.float64)
        cum = np.cumsum(np.asarray(probabilities, dtype=np.float64))
        cum[-1] = 1.0
        self.cumulative = cum
        self.cumulative_list: list[float] = cum.tolist()  # the same floats, for one draw
        self.value_list: list[float] = self.values.tolist()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Table)

    def __hash__(self) -> int:
        return 0


Distribution: TypeAlias = Annotated[
    Fixed | Uniform | Exponential | Lognormal | Normal | Triangular | Choice,
    Field(discriminator="dist"),
]
"""Any distribution, chosen by its ``dist`` key."""

_ADAPTER: TypeAdapter[Distribution] = TypeAdapter(Distribution)


def parse_distribution(data: object) -> Distribution:
    """Validate a mapping such as ``{"dist": "uniform", "low": 1, "high": 2}``.

    Raises ``pydantic.ValidationError`` on bad input.
    """
    return _ADAPTER.validate_python(data)
