"""A checker fed records directly, on a bare context (no casino): the records fed in order, the
clock moved to each, the findings kept as (subjects, message, evidence). Calendar tests of a
checker's deadlines use it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from twin.clock import Clock
from twin.compliance.context import CheckContext
from twin.compliance.ruleset import load_ruleset
from twin.machines.facts import FloorFacts
from twin.records import Record


class Fed:
    """A checker on a bare context: records fed in order (the clock moved to each), findings
    kept as (subjects, message, evidence)."""

    def __init__(
        self, make: Callable[[CheckContext], Any], overrides: dict[str, Any] | None = None
    ):
        ruleset = load_ruleset("malta-1998", overrides)
        self.clock = Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta")
        self.ctx = CheckContext(ruleset, self.clock, FloorFacts())
        self.found: list[tuple[tuple[str, ...], str, tuple[int, ...]]] = []
        self.ctx.report = lambda control, entities, message, evidence, warning=False: (  # type: ignore[method-assign]
            self.found.append((entities, message, tuple(sorted(set(evidence)))))
        )
        self.checker = make(self.ctx)
        self.seq = 0

    def t(self, when: datetime) -> float:
        return self.clock.seconds(when)

    def feed(self, cls: type[Record], at: float, **fields: Any) -> Record:
        self.ctx.run_timers(at)  # what fell due before the record
        self.seq += 1
        rec = cls(seq=self.seq, t=at, **fields)
        self.checker.on_record(rec)
        return rec

    def end(self, at: float) -> None:
        self.ctx.run_timers(at)
        self.checker.finish()
