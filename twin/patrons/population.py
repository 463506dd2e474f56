"""The patron population: people with stable ids and attributes who visit again and again.

Members are drawn once, before t = 0, from the one stream ("population", "members"): its
seed sequence spawns one child generator per attribute, and each attribute is drawn for all
members in a single numpy call. A member's attributes therefore depend only on the seed and
on the member's number: a population of 20,001 has the same first 20,000 members as one of
20,000 (each attribute is a prefix-stable sequence of its own), and 20,000 members cost a
few milliseconds.

Who arrives is chosen with probability proportional to ``propensity`` among the members not
inside the casino: a draw on the static cumulative weights (bisection, O(log N)), redrawn
when it lands on someone inside. After ``MAX_REDRAWS`` misses (a floor holding most of the
population's weight) it falls back to an exact O(N) draw among those outside, which has the
same distribution. Members never drawn again are not a cost.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from twin.patrons.section import PatronsConfig, Segment
from twin.streams import Streams

#: Redraws on the static weights before the exact fallback over those outside.
MAX_REDRAWS = 64

#: The children of the population's seed sequence, one per attribute (order is fixed).
_ATTRIBUTES = (
    "segment",
    "age",
    "residency",
    "nationality",
    "propensity",
    "self_excluded",
    "barred",
)


def member_id(index: int) -> str:
    """The stable id of the member at 0-based ``index``: ``P000001``, ``P000002``..."""
    return f"P{index + 1:06d}"


@dataclass(frozen=True, slots=True)
class Member:
    """One member of the population, as drawn at the start (never changes during a run)."""

    id: str
    age: int
    residency: str
    nationality: str  # "" when the scenario gives no nationalities
    segment: str
    propensity: float  # relative frequency of visits
    self_excluded: bool
    barred: bool


def _categorical(rng: np.random.Generator, shares: list[float], n: int) -> np.ndarray:
    """``n`` indices into ``shares``, each with probability proportional to its share."""
    cum = np.cumsum(np.asarray(shares, dtype=np.float64))
    cum /= cum[-1]
    idx = np.searchsorted(cum, rng.random(n), side="right")
    return np.minimum(idx, len(shares) - 1)


class Population:
    """The members, and who of them is inside now and how often each has come."""

    def __init__(
        self,
        segments: tuple[Segment, ...],
        *,
        segment: np.ndarray,
        age: np.ndarray,
        residency: tuple[str, ...],
        residency_index: np.ndarray,
        nationality: tuple[str, ...],
        nationality_index: np.ndarray,
        propensity: np.ndarray,
        self_excluded: np.ndarray,
        barred: np.ndarray,
    ) -> None:
        self.segments = segments
        self.size = len(propensity)
        self._segment: list[int] = segment.tolist()
        self._age: list[int] = age.tolist()
        self._residency_names = residency
        self._residency: list[int] = residency_index.tolist()
        self._nationality_names = nationality
        self._nationality: list[int] = nationality_index.tolist()
        self._propensity: list[float] = propensity.tolist()
        self._self_excluded: list[bool] = self_excluded.tolist()
        self._barred: list[bool] = barred.tolist()
        self._weights = propensity
        self._cum: list[float] = np.cumsum(propensity).tolist()
        self._total = self._cum[-1] if self._cum else 0.0
        self._inside = [False] * self.size
        self._visits = [0] * self.size
        self._outside_drawable = int(np.count_nonzero(propensity > 0))
        self.inside_count = 0
        self._members: dict[int, Member] = {}

    @classmethod
    def build(cls, config: PatronsConfig, streams: Streams) -> Population:
        """Draw ``config.members`` members from the stream ("population", "members")."""
        pop = config.population
        n = config.members
        seq = streams.seed_sequence("population", "members")
        rngs = dict(
            zip(
                _ATTRIBUTES,
                (np.random.Generator(np.random.PCG64(s)) for s in seq.spawn(len(_ATTRIBUTES))),
                strict=True,
            )
        )
        segments = config.segments
        residency = tuple(pop.residency)
        nationalities = pop.nationalities or {"": 1.0}
        nationality = tuple(nationalities)
        age = np.floor(pop.age.sample_many(rngs["age"], n)).astype(np.int64)
        if pop.minor_share > 0:  # a stream of its own: a population without minors is unchanged
            young = streams.stream("population", "minors")
            minor = young.random(n) < pop.minor_share
            ages = np.floor(pop.minor_age.sample_many(young, int(minor.sum()))).astype(np.int64)
            age[minor] = ages
        return cls(
            segments,
            segment=_categorical(rngs["segment"], [s.share for s in segments], n),
            age=age,
            residency=residency,
            residency_index=_categorical(
                rngs["residency"], [pop.residency[r] for r in residency], n
            ),
            nationality=nationality,
            nationality_index=_categorical(
                rngs["nationality"], [nationalities[c] for c in nationality], n
            ),
            propensity=pop.visit_propensity.sample_many(rngs["propensity"], n),
            self_excluded=rngs["self_excluded"].random(n) < pop.self_excluded_share,
            barred=rngs["barred"].random(n) < pop.barred_share,
        )

    # -- reading ---------------------------------------------------------------------------
    def member(self, index: int) -> Member:
        """The member at 0-based ``index`` (ids are ``member_id(index)``); made once, on the
        first ask (the door, the visit and the desks ask several times a visit)."""
        known = self._members.get(index)
        if known is not None:
            return known
        if not 0 <= index < self.size:
            raise IndexError(f"no member at index {index} (the population has {self.size})")
        made = self._members[index] = Member(
            id=member_id(index),
            age=self._age[index],
            residency=self._residency_names[self._residency[index]],
            nationality=self._nationality_names[self._nationality[index]],
            segment=self.segments[self._segment[index]].name,
            propensity=self._propensity[index],
            self_excluded=self._self_excluded[index],
            barred=self._barred[index],
        )
        return made

    def index_of(self, person: str) -> int | None:
        """The index of the member whose id is ``person`` (None: nobody of the population)."""
        digits = person[1:]
        if person[:1] != "P" or not (digits.isascii() and digits.isdigit()):
            return None
        index = int(digits) - 1
        return index if 0 <= index < self.size and member_id(index) == person else None

    def listed(self) -> list[int]:
        """The indices, in order, of the members barred or self-excluded."""
        barred, excluded = self._barred, self._self_excluded
        return [i for i in range(self.size) if barred[i] or excluded[i]]

    def segment_of(self, index: int) -> Segment:
        return self.segments[self._segment[index]]

    def visits(self, index: int) -> int:
        """How many visits the member has begun so far."""
        return self._visits[index]

    def is_inside(self, index: int) -> bool:
        return self._inside[index]

    # -- who comes -------------------------------------------------------------------------
    def pick_outside(self, rng: np.random.Generator) -> int | None:
        """A member not inside, with probability proportional to propensity (None if none).

        Draws uniforms from ``rng`` only (its own stream), so who arrives never disturbs any
        other draw of the run.
        """
        if self._outside_drawable == 0:
            return None
        cum, inside, size = self._cum, self._inside, self.size
        for _ in range(MAX_REDRAWS):
            i = bisect.bisect_right(cum, rng.random() * self._total)
            if i < size and not inside[i]:  # (i == size only if u * total rounds up)
                return i
        outside = np.cumsum(np.where(np.asarray(inside, dtype=bool), 0.0, self._weights))
        while True:
            i = int(np.searchsorted(outside, rng.random() * outside[-1], side="right"))
            if i < size:
                return i

    def enter(self, index: int) -> int:
        """The member comes in: returns the number of this visit (1, 2, 3...)."""
        if self._inside[index]:
            raise ValueError(f"{member_id(index)} is already inside")
        self._inside[index] = True
        self.inside_count += 1
        if self._propensity[index] > 0:
            self._outside_drawable -= 1
        self._visits[index] += 1
        return self._visits[index]

    def leave(self, index: int) -> None:
        """The member goes home."""
        if not self._inside[index]:
            raise ValueError(f"{member_id(index)} is not inside")
        self._inside[index] = False
        self.inside_count -= 1
        if self._propensity[index] > 0:
            self._outside_drawable += 1


__all__ = ["MAX_REDRAWS", "Member", "Population", "member_id"]
