"""Metrics: the run's KPIs, built from records alone.

:class:`Metrics` is a sink. Everything it reports comes from the records it is handed, so
the KPIs of a run can be rebuilt from its ledger (``Metrics.from_records(read(ledger))``)
and equal the live ones. Money is integer cents; times are simulation seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from twin.commands import CommandAccepted, CommandRejected
from twin.department import KpiSection
from twin.departments import opening_order, plans
from twin.jobs import HAND_PAY, HOPPER_FILL
from twin.machines.events import (
    GamesPlayed,
    MachineException,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    ShortPayCompleted,
    TiltRepaired,
)
from twin.machines.sas import ExceptionCode
from twin.patrons.census import Census, PopulationSummary
from twin.patrons.records import PatronArrived, PatronLeft, SessionStarted
from twin.records import Record
from twin.staff.kpis import StaffKpis
from twin.staff.records import JobCompleted, JobRequested, JobStarted, ShiftEnded, ShiftStarted

E = ExceptionCode

_STAFF_RECORDS = (ShiftStarted, ShiftEnded, JobRequested, JobStarted, JobCompleted)

_TILTS = (
    E.GENERAL_TILT,
    E.COIN_IN_TILT,
    E.COIN_OUT_TILT,
    E.BILL_JAM,
    E.REVERSE_COIN_IN,
    E.CMOS_RAM_ERROR_NO_DATA,
    E.AC_POWER_LOST,
)

#: Exceptions that take a machine out of play until cleared, and the reason they set.
_DOWN_BY: dict[int, str] = {
    int(E.HANDPAY_PENDING): "hand_pay",
    int(E.HOPPER_EMPTY): "hopper_empty",
    **{int(c): f"tilt:{c.name.lower()}" for c in _TILTS},
    int(E.SLOT_DOOR_OPENED): "door:slot",
    int(E.DROP_DOOR_OPENED): "door:drop",
    int(E.CARD_CAGE_OPENED): "door:card_cage",
    int(E.CASHBOX_DOOR_OPENED): "door:cashbox",
}
_UP_BY: dict[int, str] = {
    int(E.HANDPAY_RESET): "hand_pay",
    int(E.SLOT_DOOR_CLOSED): "door:slot",
    int(E.DROP_DOOR_CLOSED): "door:drop",
    int(E.CARD_CAGE_CLOSED): "door:card_cage",
    int(E.CASHBOX_DOOR_CLOSED): "door:cashbox",
}


@dataclass(frozen=True, slots=True)
class MachineSummary:
    """One machine at the end of the run, as its last meter reading shows it."""

    game: str
    denomination_cents: int
    meters: Mapping[str, int]
    hopper_level: int
    downtime_seconds: float


@dataclass(frozen=True, slots=True)
class Kpis:
    """The floor's key figures for the run."""

    visitors: int
    walkaways: int
    spins: int
    coin_in_cents: int
    coin_out_cents: int
    jackpot_cents: int
    casino_win_cents: int
    hold_percent: float | None
    hand_pays: int  # completed hand-pay jobs
    hopper_fills: int  # completed hopper-fill jobs (the first load of a new machine aside)
    staff_jobs: Mapping[str, Mapping[str, Any]]  # per job kind: waits, service, completion
    utilisation: Mapping[str, Mapping[str, Any]]  # per role, overtime included
    mean_occupied_machines: float
    machine_downtime_seconds: float
    commands_accepted: int
    commands_rejected: int
    #: the KPIs of the parts around the slot floor (issue 10), by section name
    sections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Machine:
    denomination: int = 0
    game: str = ""
    meters: dict[str, int] = field(default_factory=dict)
    hopper_level: int = 0
    down: set[str] = field(default_factory=set)
    down_since: float = 0.0
    downtime: float = 0.0


def _sections() -> list[KpiSection]:
    """A fresh KPI section of each department that declares one, in the registry's order."""
    by_name = {p.name: p for p in plans()}
    return [k() for name in opening_order() if (k := by_name[name].kpis) is not None]


class Metrics:
    """A sink that keeps the run's KPIs up to date from the record stream."""

    def __init__(self) -> None:
        self._machines: dict[str, _Machine] = {}
        self.visitors = 0
        self.walkaways = 0
        self.spins = 0
        self.coin_in = 0
        self.coin_out = 0
        self.jackpot = 0
        self.staff = StaffKpis()
        self._sessions: dict[str, float] = {}  # patron -> session start
        self._occupied_area = 0.0
        self.accepted = 0
        self.rejected = 0
        self.now = 0.0
        self.census = Census()
        self.sections = _sections()
        self._section_reads: dict[type[Record], list[KpiSection]] = {}
        self._sections_seen: set[str] = set()  # a department absent from the run reports nothing
        for sec in self.sections:
            for cls in sec.reads:
                self._section_reads.setdefault(cls, []).append(sec)

    @classmethod
    def from_records(cls, records: Iterable[Record]) -> Metrics:
        """The metrics of a finished run rebuilt from its records (a ledger, say)."""
        m = cls()
        for rec in records:
            m.accept(rec)
        return m

    def accept(self, rec: Record) -> None:
        self.now = rec.t
        readers = self._section_reads.get(type(rec))
        if readers is not None:
            for sec in readers:
                sec.accept(rec)
                self._sections_seen.add(sec.name)
        if isinstance(rec, GamesPlayed):
            d = self._machines[rec.machine].denomination
            self.spins += rec.games
            self.coin_in += rec.wagered * d
            self.coin_out += rec.won * d
        elif isinstance(rec, MachineException):
            self._exception(rec)
        elif isinstance(rec, PatronArrived):
            self.visitors += 1
            self.census.accept(rec)
        elif isinstance(rec, SessionStarted):
            self._sessions[rec.patron] = rec.t
        elif isinstance(rec, PatronLeft):
            if rec.reason == "no_machine":
                self.walkaways += 1
            start = self._sessions.pop(rec.patron, None)
            if start is not None:
                self._occupied_area += rec.t - start
        elif isinstance(rec, _STAFF_RECORDS):
            self.staff.accept(rec)
        elif isinstance(rec, MachineLocked):
            self.jackpot += rec.win * self._machines[rec.machine].denomination
        elif isinstance(rec, ShortPayCompleted):
            self._up(rec.machine, "hopper_empty", rec.t)
        elif isinstance(rec, TiltRepaired):
            self._up(rec.machine, f"tilt:{rec.name}", rec.t)
        elif isinstance(rec, MetersRead):
            m = self._machines[rec.machine]
            m.meters = dict(rec.meters)
            m.hopper_level = rec.hopper_level
        elif isinstance(rec, MachineInstalled):
            self._machines[rec.machine] = _Machine(rec.denomination_cents, rec.game_id)
        elif isinstance(rec, CommandAccepted):
            self.accepted += 1
        elif isinstance(rec, CommandRejected):
            self.rejected += 1

    def close(self) -> None:
        pass

    def _exception(self, rec: MachineException) -> None:
        down = _DOWN_BY.get(rec.code)
        if down is not None:
            m = self._machines[rec.machine]
            if not m.down:
                m.down_since = rec.t
            m.down.add(down)
            return
        up = _UP_BY.get(rec.code)
        if up is not None:
            self._up(rec.machine, up, rec.t)

    def _up(self, machine: str, reason: str, t: float) -> None:
        m = self._machines[machine]
        if reason in m.down:
            m.down.discard(reason)
            if not m.down:
                m.downtime += t - m.down_since

    # -- results -------------------------------------------------------------------------------

    def _downtime(self, m: _Machine, end: float) -> float:
        return m.downtime + (end - m.down_since if m.down else 0.0)

    def machines(self, end: float | None = None) -> dict[str, MachineSummary]:
        end = self.now if end is None else end
        return {
            mid: MachineSummary(
                m.game, m.denomination, dict(m.meters), m.hopper_level, self._downtime(m, end)
            )
            for mid, m in self._machines.items()
        }

    def population(self, members: int) -> PopulationSummary:
        """Who came, of a population of ``members``."""
        return self.census.summary(members)

    def kpis(self, end: float | None = None) -> Kpis:
        """The KPIs at ``end`` (default: the last record's time), sessions still open counted
        up to ``end``."""
        end = self.now if end is None else end
        occupied = self._occupied_area + sum(end - s for s in self._sessions.values())
        win = self.coin_in - self.coin_out - self.jackpot
        staff = self.staff.report(end)
        jobs = staff.jobs_dict()
        return Kpis(
            visitors=self.visitors,
            walkaways=self.walkaways,
            spins=self.spins,
            coin_in_cents=self.coin_in,
            coin_out_cents=self.coin_out,
            jackpot_cents=self.jackpot,
            casino_win_cents=win,
            hold_percent=round(100.0 * win / self.coin_in, 4) if self.coin_in else None,
            hand_pays=int(jobs.get(HAND_PAY, {}).get("completed", 0)),  # type: ignore[call-overload]
            hopper_fills=int(jobs.get(HOPPER_FILL, {}).get("completed", 0)),  # type: ignore[call-overload]
            staff_jobs=jobs,
            utilisation=staff.roles_dict(),
            mean_occupied_machines=round(occupied / end, 3) if end > 0 else 0.0,
            machine_downtime_seconds=round(
                sum(self._downtime(m, end) for m in self._machines.values()), 3
            ),
            commands_accepted=self.accepted,
            commands_rejected=self.rejected,
            sections={  # a section with nothing to say (an empty report) is left out
                s.name: rep
                for s in self.sections
                if s.name in self._sections_seen and (rep := s.report(end))
            },
        )


__all__ = ["Kpis", "MachineSummary", "Metrics"]
