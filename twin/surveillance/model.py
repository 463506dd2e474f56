"""The closed-circuit camera and audio system (the ``surveillance`` department, Malta reg 27).

Each camera of the run (``twin.surveillance.section.cameras``) records from t = 0, one
recording per ``segment_hours``, segments aligned to local midnight through the run's clock
(the first runs from the start of the run to the first boundary); a recording is made when its
segment ends (``recording_made``; the one in progress when the run ends is never made).

Retention (reg 27): at ``retention_time`` every day the licensee recycles each recording whose
period has passed (``recording_retention_days`` calendar days after it was made, through the
clock: seven days across a month's end or a DST change are seven calendar days) and that no
open case holds (``recording_recycled``).

Evidence (reg 27, proviso): the department reads the world's bus for the records that show a
breach of the Act, the regulations or any other law, and opens a case (``case_opened``) for
each, holding the recordings that cover the moment of that record (``recording_held``) until
the case closes (``case_closed``, ``case_days_<cause>`` calendar days later; a case may close
after the run): AML reports (``internal_report``, ``suspicion_reported``: cause "aml"; the
recordings of the places and moments of the transactions the report names, as the department
saw them on the bus in the last ``WHERE_HOURS``: a machine's bank, a table, the cage; every
camera at the moment of the report when it knows none), the pit's ``unapproved_item_reported`` and
``device_detected`` (cause "pit", the table's camera), and the door's ``entry_refused`` of a
person barred under the Act at this casino's door (cause "door", the entrance's camera; a
refusal for self-exclusion or age is the door working, not a breach). Scenario cases
(``[[surveillance.cases]]``) are incidents or police cases on cameras (default: all). A
recording still being made when its case opens is held when it is made. The compliance
engine's findings open no case: what the department does must not depend on the controls a
run checks.

Requests (``[[surveillance.requests]]``): the police or the Board ask for a camera's recordings
of a past date; the licensee produces those it still has (``recording_produced``) or refuses
(``recording_request_refused``) with the reason "recycled after its period" (every one was
recycled) or "not recorded" (none was made of that date).

Injections (``twin.surveillance.injections``) arm a deviation by name (:meth:`arm`); the pass
or the request it spoils takes it once.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import simpy
from dateutil.relativedelta import relativedelta

from twin.aml.records import InternalReport, SuspicionReported
from twin.cage.records import CageTransaction
from twin.department import Site
from twin.door.records import EntryRefused
from twin.injections import Deviations, InjectionIdle
from twin.machines.events import BillAccepted, CashedOut, CoinsAccepted, HandPaid
from twin.pit.records import DeviceDetected, TableStretch, UnapprovedItemReported
from twin.records import Record
from twin.surveillance.params import RECORDING_RETENTION
from twin.surveillance.records import (
    CameraInstalled,
    CaseClosed,
    CaseOpened,
    RecordingHeld,
    RecordingMade,
    RecordingProduced,
    RecordingRecycled,
    RecordingRequested,
    RecordingRequestRefused,
)
from twin.surveillance.section import (
    CaseConfig,
    RequestConfig,
    SurveillanceConfig,
    cameras,
)
from twin.world import quantize

#: the refusal's reason when every recording of the date was recycled
RECYCLED = "recycled after its period"
NOT_RECORDED = "not recorded"
#: the door's refusals that show a breach: a person barred under the Act tried to enter
BREACH_REFUSALS = frozenset({"barred"})
#: how long the department remembers where a transaction was made (an AML report names
#: transactions of its window: a session, a gaming day, a junket's stay)
WHERE_HOURS = 96.0
#: the records of money in or out whose place an AML report may need (machines, tables, cage)
MONEY_RECORDS = (BillAccepted, CoinsAccepted, CashedOut, HandPaid, CageTransaction, TableStretch)

# what ``Surveillance.accept`` does with a record of a class, decided once per class (the
# same ``isinstance`` tests, in the same order, as for each record)
_NONE, _MONEY, _REPORT, _PIT, _REFUSED = range(5)
_ROUTES: dict[type, int] = {}


def _route(cls: type) -> int:
    if issubclass(cls, MONEY_RECORDS):
        return _MONEY
    if issubclass(cls, InternalReport | SuspicionReported):
        return _REPORT
    if issubclass(cls, UnapprovedItemReported | DeviceDetected):
        return _PIT
    if issubclass(cls, EntryRefused):
        return _REFUSED
    return _NONE


@dataclass
class Recording:
    """One camera's recording of one segment."""

    id: str
    camera: str
    start_t: float
    end_t: float = -1.0
    made: bool = False
    recycled: bool = False
    holds: set[str] = field(default_factory=set)  # the open cases holding it


@dataclass
class Case:
    id: str
    recordings: tuple[str, ...]
    open: bool = True


class Surveillance(Deviations):
    """The surveillance department (``name`` "surveillance")."""

    name = "surveillance"

    def __init__(self, site: Site, config: SurveillanceConfig) -> None:
        self.world = site.world
        self.env = site.world.env
        self.clock = site.world.clock
        self.config = config
        self.cameras = cameras(site.scenario)
        self.retention_days = RECORDING_RETENTION.of(site.rules)
        entrance = getattr(site.scenario, "entrance", None)
        self.casino = entrance.casino if entrance is not None else ""
        self.recordings: dict[str, Recording] = {}
        self.current: dict[str, Recording] = {}  # camera -> the recording being made
        self.by_camera: dict[str, list[Recording]] = {c: [] for c in self.cameras}
        self.cases: dict[str, Case] = {}
        self.armed: dict[str, str] = {}  # deviation -> its target ("" the first to come)
        self.passes = 0
        self.where: dict[int, tuple[float, str]] = {}  # seq -> (t, camera) of money records
        self._where_order: deque[int] = deque()
        self._bank_of: dict[str, str] = {}  # machine -> its bank's camera id
        site.world.bus.attach(self)

    # -- helpers --------------------------------------------------------------------------------

    def emit(self, cls: type[Record], **fields: Any) -> Any:
        return self.world.bus.emit(cls, **fields)

    def _begin(self, camera: str, t: float) -> Recording:
        rid = f"{camera}/{self.clock.at(t):%Y%m%d-%H%M}"
        rec = Recording(rid, camera, float(t))
        self.recordings[rid] = rec
        self.current[camera] = rec
        self.by_camera[camera].append(rec)
        return rec

    def may_recycle_t(self, rec: Recording) -> float:
        """The first moment ``rec``'s period allows it to be recycled: the retention days
        after it was made, in calendar days through the clock."""
        return self.clock.add(rec.end_t, relativedelta(days=self.retention_days))

    def covering(self, camera: str, t: float) -> Recording | None:
        """``camera``'s recording of the moment ``t`` (None before t = 0 or once recycled)."""
        for rec in reversed(self.by_camera[camera]):
            if rec.start_t <= t and (not rec.made or t < rec.end_t):
                return None if rec.recycled else rec
        return None

    # -- the department -------------------------------------------------------------------------

    def start(self) -> None:
        for cam, area in self.cameras.items():
            self.emit(CameraInstalled, camera=cam, area=area,
                      segment_hours=self.config.segment_hours)  # fmt: skip
            self._begin(cam, self.env.now)
        self.env.process(self.record())
        self.env.process(self.retain_daily())
        for c in self.config.cases:
            self.env.process(self.scenario_case(c))
        for r in self.config.requests:
            self.env.process(self.request(r))

    def finish(self) -> None:
        """An armed deviation whose moment never came says so."""
        for deviation, target in sorted(self.armed.items()):
            self.emit(InjectionIdle, machine=target, injection=f"surveillance_{deviation}",
                      reason=f"armed, but no {deviation.replace('_', ' ')} came before the "
                      "run ended")  # fmt: skip

    def close(self) -> None:
        pass

    # -- recording ------------------------------------------------------------------------------

    def record(self) -> simpy.events.ProcessGenerator:
        env, clock = self.env, self.clock
        bounds = self.config.boundaries()
        while True:
            nxt = min(clock.next_local(env.now, b) for b in bounds)
            yield env.timeout(nxt - env.now)
            for cam in self.cameras:
                self._made(self.current[cam])
                self._begin(cam, env.now)

    def _made(self, rec: Recording) -> None:
        rec.end_t = self.env.now
        rec.made = True
        start = self.clock.at(rec.start_t)
        self.emit(RecordingMade, recording=rec.id, camera=rec.camera,
                  date=start.date().isoformat(), start=start.isoformat(timespec="seconds"),
                  end=self.clock.iso(rec.end_t), start_t=rec.start_t)  # fmt: skip
        for case in sorted(rec.holds):
            self.emit(RecordingHeld, recording=rec.id, camera=rec.camera, case=case)

    # -- retention ------------------------------------------------------------------------------

    def retain_daily(self) -> simpy.events.ProcessGenerator:
        env, clock = self.env, self.clock
        while True:
            yield env.timeout(clock.next_local(env.now, self.config.retention_time) - env.now)
            self.retention_pass()

    def retention_pass(self) -> None:
        now = self.env.now
        self.passes += 1
        early = self._early()
        for cam in self.cameras:
            for rec in self.by_camera[cam]:
                if not rec.made or rec.recycled:
                    continue
                due = self.may_recycle_t(rec) <= now and not rec.holds
                if due or rec is early or (rec.holds and self.take("evidence_recycled", cam)):
                    self._recycle(rec)

    def _early(self) -> Recording | None:
        """The routine recording the deviation ``recycled_early`` recycles at the third pass:
        the oldest one kept of its camera (default the first) that no case holds."""
        if self.passes < 3 or "recycled_early" not in self.armed:
            return None
        target = self.armed["recycled_early"] or next(iter(self.cameras))
        for rec in self.by_camera.get(target, []):
            if rec.made and not rec.recycled and not rec.holds:
                self.take("recycled_early", target)
                return rec
        return None

    def _recycle(self, rec: Recording) -> None:
        rec.recycled = True
        self.emit(RecordingRecycled, recording=rec.id, camera=rec.camera)

    # -- evidence -------------------------------------------------------------------------------

    def accept(self, rec: Record) -> None:
        """Records that show a breach open a case holding the recordings of that moment; the
        places of money records are remembered a while, for the AML reports that name them."""
        cls = type(rec)
        route = _ROUTES.get(cls)
        if route is None:
            route = _ROUTES[cls] = _route(cls)
        if route == _MONEY:
            self._remember(rec)
        elif route == _NONE:
            return
        elif route == _REPORT:
            assert isinstance(rec, InternalReport | SuspicionReported)
            spots = [self.where[s] for s in rec.transactions if s in self.where]
            if not spots:  # no place known: every camera, at the report
                spots = [(rec.t, cam) for cam in self.cameras]
            self.open_case("aml", rec, spots, self.config.case_days_aml)
        elif route == _PIT:
            assert isinstance(rec, UnapprovedItemReported | DeviceDetected)
            cams = self._at(f"table-{rec.table}")
            self.open_case("pit", rec, [(rec.t, c) for c in cams], self.config.case_days_pit)
        elif route == _REFUSED:
            assert isinstance(rec, EntryRefused)
            if rec.reason in BREACH_REFUSALS and rec.casino == self.casino:
                cams = self._at("entrance")
                self.open_case("door", rec, [(rec.t, c) for c in cams], self.config.case_days_door)

    def _remember(self, rec: Record) -> None:
        if isinstance(rec, CageTransaction):
            cam = "cage"
        elif isinstance(rec, TableStretch):
            cam = f"table-{rec.table}"
            cam = cam if cam in self.cameras else f"cardroom-{rec.table}"
        else:  # a machine's: its bank's camera (the place of each machine, looked up once)
            machine = rec.entity("machine")
            places = self._bank_of
            if machine in places:
                cam = places[machine]
            else:
                cam = places[machine] = f"bank-{machine.rpartition('-')[0]}"
        if cam not in self.cameras:
            return
        self.where[rec.seq] = (rec.t, cam)
        order = self._where_order
        order.append(rec.seq)
        horizon = rec.t - WHERE_HOURS * 3600.0
        while order and self.where[order[0]][0] < horizon:
            del self.where[order.popleft()]

    def _at(self, camera: str) -> tuple[str, ...]:
        """``camera``, or every camera when the run has none of that place."""
        return (camera,) if camera in self.cameras else tuple(self.cameras)

    def scenario_case(self, c: CaseConfig) -> simpy.events.ProcessGenerator:
        yield self.env.timeout(quantize(c.at_hours * 3600.0))
        incident = quantize((c.at_hours if c.incident_hours is None else c.incident_hours) * 3600)
        cams = c.cameras or tuple(self.cameras)
        days = c.days or self.config.case_days_incident
        self.open_case(c.cause, None, [(incident, cam) for cam in cams], days)

    def open_case(
        self, cause: str, rec: Record | None, spots: list[tuple[float, str]], days: int
    ) -> None:
        """Open a case holding the recordings of each (moment, camera) of ``spots``."""
        cid = f"SC-{len(self.cases) + 1:04d}"
        held: dict[str, Recording] = {}
        for t, cam in spots:
            r = self.covering(cam, t)
            if r is not None:
                held.setdefault(r.id, r)
        until = self.clock.add(self.env.now, relativedelta(days=days))
        case = self.cases[cid] = Case(cid, tuple(held))
        self.emit(CaseOpened, case=cid, cause=cause,
                  evidence_kind="scenario" if rec is None else rec.kind,
                  evidence=() if rec is None else (rec.seq,),
                  incident_t=min(t for t, _ in spots),
                  cameras=tuple(dict.fromkeys(cam for _, cam in spots)),
                  recordings=case.recordings,
                  until=self.clock.at(until).date().isoformat())  # fmt: skip
        for r in held.values():
            r.holds.add(cid)
            if r.made:
                self.emit(RecordingHeld, recording=r.id, camera=r.camera, case=cid)
        self.env.process(self._close_at(case, until))

    def _close_at(self, case: Case, until: float) -> simpy.events.ProcessGenerator:
        yield self.env.timeout(until - self.env.now)
        case.open = False
        for rid in case.recordings:
            self.recordings[rid].holds.discard(case.id)
        self.emit(CaseClosed, case=case.id, recordings=case.recordings)

    # -- requests -------------------------------------------------------------------------------

    def request(self, r: RequestConfig) -> simpy.events.ProcessGenerator:
        yield self.env.timeout(quantize(r.at_hours * 3600.0))
        rid = r.id or ""
        day = r.date.isoformat()
        self.emit(RecordingRequested, request=rid, by=r.by, camera=r.camera, date=day)
        made = [
            rec for rec in self.by_camera[r.camera]
            if rec.made and self.clock.at(rec.start_t).date() == r.date
        ]  # fmt: skip
        kept = tuple(rec.id for rec in made if not rec.recycled)
        if kept and self.take("request_refused", r.camera, rid):
            kept = ()
            reason = RECYCLED
        else:
            reason = RECYCLED if made else NOT_RECORDED
        if kept:
            self.emit(RecordingProduced, request=rid, camera=r.camera, date=day, recordings=kept)
        else:
            self.emit(RecordingRequestRefused, request=rid, camera=r.camera, date=day,
                      reason=reason)  # fmt: skip


__all__ = ["BREACH_REFUSALS", "NOT_RECORDED", "RECYCLED", "Surveillance"]
