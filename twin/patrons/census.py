"""Who came: a summary of the population's visits, computed from records alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from twin.patrons.records import PatronArrived
from twin.records import Record


@dataclass(frozen=True, slots=True)
class PopulationSummary:
    """The population in a run.

    ``members`` is the population's size (not in the records: the caller gives it);
    ``visits`` the visits begun; ``visitors`` the distinct members who came at least once.
    ``residency_shares`` are shares of distinct visitors, by residency, sorted by name;
    ``local_share`` is the share whose residency is ``"local"``.
    """

    members: int
    visits: int
    visitors: int
    visits_per_visitor_p50: float
    visits_per_visitor_max: int
    local_share: float
    residency_shares: tuple[tuple[str, float], ...]


class Census:
    """Counts visits per member from ``patron_arrived`` records as they come (a sink's part)."""

    def __init__(self) -> None:
        self.per_member: Counter[str] = Counter()
        self.residency: dict[str, str] = {}

    def accept(self, rec: Record) -> None:
        if isinstance(rec, PatronArrived):
            self.per_member[rec.patron] += 1
            self.residency[rec.patron] = rec.residency

    def summary(self, members: int) -> PopulationSummary:
        visitors = len(self.per_member)
        counts = np.fromiter(self.per_member.values(), dtype=np.int64, count=visitors)
        by_residency = Counter(self.residency.values())
        shares = tuple(sorted((r, n / visitors) for r, n in by_residency.items()))
        return PopulationSummary(
            members=members,
            visits=int(counts.sum()),
            visitors=visitors,
            visits_per_visitor_p50=float(np.median(counts)) if visitors else 0.0,
            visits_per_visitor_max=int(counts.max()) if visitors else 0,
            local_share=by_residency.get("local", 0) / visitors if visitors else 0.0,
            residency_shares=shares,
        )


def summarize_population(records: Iterable[Record], members: int) -> PopulationSummary:
    """Summarise the ``patron_arrived`` records of a run (other records are ignored)."""
    census = Census()
    for rec in records:
        census.accept(rec)
    return census.summary(members)


__all__ = ["Census", "PopulationSummary", "summarize_population"]
