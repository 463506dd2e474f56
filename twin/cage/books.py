"""The cage's books: the financial year and its audited statements (reg 42), and the archive
of monthly volumes kept under the retention schedule, destroyed only past their period and
produced to Board inspectors on request (37(3)-(4), 43).

:class:`CageBooks` is the base of :class:`twin.cage.model.Cage`: it holds the cage's helpers
(its clock, ids, staff on duty, records) and the books; the cash desks, banking, the daily
reconciliation, unclaimed money and the count of the slot drop are the cage's own
(``twin.cage.model``).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

import numpy as np
import simpy
from dateutil.relativedelta import relativedelta

from twin.cage.params import ACCOUNTS_RETENTION, CHEQUE_RECORD_RETENTION, INTERNAL_AUDIT_RETENTION
from twin.cage.records import (
    FinancialStatementsLodged,
    FinancialYearEnded,
    RecordDestroyed,
    RecordsNotProduced,
    RecordsProduced,
    RecordsRequested,
    RecordVolume,
)
from twin.cage.section import CageConfig
from twin.records import Record
from twin.staff import Dispatcher
from twin.world import World, quantize

Proc = Generator[simpy.events.Event, Any, Any]

#: Retention categories and the ruleset parameter (years) that governs each.
RETENTION = {
    "payment_records": CHEQUE_RECORD_RETENTION.key,  # reg 37(3)
    "accounts": ACCOUNTS_RETENTION.key,  # reg 43(1), bound: from the last entry
    "internal_audit": INTERNAL_AUDIT_RETENTION.key,  # reg 43(3)
}


def retention_ends(last_entry: date, years: int) -> date:
    """The first day a record whose period began on ``last_entry`` may be destroyed: the
    period of ``years`` years beginning with that date has expired (calendar years)."""
    return last_entry + relativedelta(years=years)


def month_label(d: date) -> str:
    return f"{d.year:04d}-{d.month:02d}"


@dataclass
class Volume:
    id: str
    category: str
    last_entry: date
    destroyed: bool = False


@dataclass
class _Armed:
    """Injected misconduct waiting for its moment (twin.cage.injections)."""

    pocket_next_item: bool = False
    skip_next_writeoff: bool = False
    missing_particulars: bool = False
    unregistered_dishonour: bool = False
    misdated_evidence_days: int = 0
    unauthorised_payout: bool = False
    late_statements_days: int = 0
    shortage_cents: int = 0
    drop_skim_cents: int = 0
    fired: list[str] = field(default_factory=list)


class CageBooks:
    """The books of the cage department and its helpers (the base of ``Cage``, which sets
    these attributes up)."""

    world: World
    cfg: CageConfig
    staff: Dispatcher
    rng: np.random.Generator
    armed: _Armed
    params: dict[str, int]
    keep: dict[str, int]
    volumes: dict[str, Volume]
    periods: dict[str, Volume]
    _n: dict[str, int]
    _pending_requests: dict[str, Volume]

    # -- helpers -----------------------------------------------------------------------------
    @property
    def env(self) -> simpy.Environment:
        return self.world.env

    def _id(self, prefix: str) -> str:
        n = self._n.get(prefix, 0) + 1
        self._n[prefix] = n
        return f"{prefix}-{n:06d}"

    def _today(self) -> date:
        return self.world.clock.at(self.env.now).date()

    def _on(self, role: str, skip: Sequence[str] = ()) -> str:
        people = [p for p in self.staff.on_duty(role) if p not in skip]
        return people[0] if people else ""

    def _cashier(self) -> str:
        people = self.staff.on_duty("cashier")
        if not people:
            return ""
        return people[int(self.rng.integers(len(people)))]

    def _minutes(self, dist: Any, rng: np.random.Generator) -> simpy.events.Timeout:
        return self.env.timeout(quantize(max(0.0, float(dist.sample(rng))) * 60.0))

    def emit(self, cls: type[Record], **fields: Any) -> Any:
        return self.world.bus.emit(cls, **fields)

    # -- the financial year (42) -----------------------------------------------------------------
    def _year_end_before(self, d: date) -> date:
        m = self.cfg.financial_year_end_month
        for year in (d.year, d.year - 1):
            end = date(year, m, 1) + relativedelta(months=1, days=-1)
            if end < d:
                return end
        raise AssertionError("unreachable")

    def _open_years(self) -> None:
        start = self._today()
        last = self._year_end_before(start)
        self._year_ended(last)
        self.env.process(self.close_years(last))

    def _year_ended(self, end: date) -> None:
        year = f"FY{end.year}" if end.month == 12 else f"FY{end.year - 1}/{end.year % 100:02d}"
        self.emit(FinancialYearEnded, year=year, end_date=end.isoformat())
        lodge = end + timedelta(days=self.cfg.statements_after_days)
        lodge += timedelta(days=self.armed.late_statements_days)
        if lodge < self._today():
            self._lodge(year, lodge)
        else:
            self.env.process(self.lodge_on(year, lodge))

    def close_years(self, last: date) -> Proc:
        env, clock = self.env, self.world.clock
        end = last
        while True:
            end = end + relativedelta(years=1)
            at = datetime.combine(end + timedelta(days=1), time(0, 0), tzinfo=clock.zone)
            yield env.timeout(max(0.0, clock.seconds(at) - env.now))
            self._year_ended(end)

    def lodge_on(self, year: str, when: date) -> Proc:
        env, clock = self.env, self.world.clock
        at = datetime.combine(when, time(10, 0), tzinfo=clock.zone)
        yield env.timeout(max(0.0, clock.seconds(at) - env.now))
        if self.armed.late_statements_days:
            days, self.armed.late_statements_days = self.armed.late_statements_days, 0
            yield env.timeout(days * 86400.0)
            when = self._today()
        self._lodge(year, when)

    def _lodge(self, year: str, when: date) -> None:
        self.emit(FinancialStatementsLodged, year=year, lodged_date=when.isoformat(),
                  accounting_standards="IAS", auditing_standards="ISA", audited=True,
                  companies_act=True)  # fmt: skip

    # -- books kept and destroyed (37(3), 43(1), 43(3)), produced on request ---------------------
    def _open_archive(self) -> None:
        """The monthly volumes of the last ``archive_years`` years (from before t = 0)."""
        start = self._today()
        first = date(start.year, start.month, 1)
        for back in range(self.cfg.archive_years * 12, 0, -1):
            month = first - relativedelta(months=back)
            last = month + relativedelta(months=1, days=-1)
            label = month_label(month)
            for category, electronic in (
                ("payment_records", True), ("accounts", False), ("internal_audit", False)
            ):  # fmt: skip
                years = self.params[RETENTION[category]]
                if retention_ends(last, years) + relativedelta(months=2) < start:
                    continue  # destroyed long ago, as the law allows
                vid = f"{category}-{label}"
                if retention_ends(last, self.keep[category]) + relativedelta(months=2) < start:
                    # destroyed long ago under the casino's own shorter period
                    self.periods[vid] = Volume(vid, category, last, destroyed=True)
                    continue
                self.volumes[vid] = self.periods[vid] = Volume(vid, category, last)
                self.emit(RecordVolume, volume=vid, category=category,
                          first_entry=month.isoformat(), last_entry=last.isoformat(),
                          entries=1 if category == "internal_audit" else 30,
                          electronic=electronic)  # fmt: skip

    def keep_retention(self) -> Proc:
        env, clock = self.env, self.world.clock
        while True:
            yield env.timeout(clock.next_local(env.now, self.cfg.retention_time) - env.now)
            today = self._today()
            for vol in self.volumes.values():
                years = self.keep[vol.category]
                if not vol.destroyed and retention_ends(vol.last_entry, years) <= today:
                    self.destroy(vol)

    def destroy(self, vol: Volume) -> None:
        vol.destroyed = True
        self.emit(RecordDestroyed, volume=vol.id, category=vol.category,
                  last_entry=vol.last_entry.isoformat(), date=self._today().isoformat(),
                  staff=self._on("chief_cashier"))  # fmt: skip

    def destroy_early(self, category: str) -> bool:
        """Injection: the newest volume of ``category`` is destroyed, in its period."""
        held = [v for v in self.volumes.values() if v.category == category and not v.destroyed]
        if not held:
            return False
        self.destroy(max(held, key=lambda v: v.last_entry))
        return True

    def answer_requests(self) -> Proc:
        env = self.env
        rate = self.cfg.record_requests_per_day
        if rate <= 0:
            return
        rng = self.world.streams.stream("cage", "requests")
        while True:
            yield env.timeout(quantize(float(rng.exponential(86400.0 / rate))))
            inspector = self._on("inspector")
            today = self._today()
            due = [
                v for v in self.periods.values()
                if retention_ends(v.last_entry, self.params[RETENTION[v.category]])
                > today
            ]  # fmt: skip
            if not inspector or not due:
                continue
            vol = due[int(rng.integers(len(due)))]
            request = self._id("REQ")
            self.emit(RecordsRequested, request=request, volume=vol.id, inspector=inspector,
                      category=vol.category, last_entry=vol.last_entry.isoformat())  # fmt: skip
            if vol.destroyed:
                self.emit(RecordsNotProduced, request=request, volume=vol.id,
                          reason="destroyed")  # fmt: skip
                continue
            self._pending_requests[request] = vol
            env.process(self.produce(request, vol, rng))

    def produce(self, request: str, vol: Volume, rng: np.random.Generator) -> Proc:
        yield self._minutes(self.cfg.produce_minutes, rng)
        if request in self._pending_requests:
            self._produce(request, vol)

    def _produce(self, request: str, vol: Volume) -> None:
        del self._pending_requests[request]
        self.emit(RecordsProduced, request=request, volume=vol.id, hard_copy=True,
                  staff=self._on("chief_cashier") or self._cashier())  # fmt: skip


__all__ = ["CageBooks", "Proc", "Volume", "month_label", "retention_ends"]
