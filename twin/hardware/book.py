"""The twin's side of each SMIB, inside the simulation thread.

The link (paho's thread) turns each accepted message into a typed :class:`LinkCommand` and
puts it into the inbox; the inbox hands it to :meth:`SmibBook.handle` in the simulation
thread, which writes the records and findings. The link has already validated the message,
removed duplicates and put events and snapshots in ``eid`` order, so the book only keeps
accounts:

* **reconciliation**: between two snapshots of one epoch, every cumulative meter's delta
  modulo ``10 ** digits`` must equal the sum of the ``deltas`` of the events between them
  (``smib_reconciled``; a mismatch is a finding ``HW.reconcile``);
* **meter reset**: a snapshot of a new epoch (``smib_meter_reset``, finding
  ``HW.meter_reset``): nothing reconciles across it;
* **identity**: a birth whose serial or programme signature differs from the registry is a
  finding ``HW.identity`` (reg 28(3));
* **lost events**: a range the SMIB could not replay (``smib_events_lost``, finding
  ``HW.events_lost``); a reconciliation over it is not ok and says why.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Protocol

import simpy

from twin.clock import Clock
from twin.compliance.findings import Finding, Severity
from twin.hardware.protocol import NOT_CUMULATIVE
from twin.hardware.records import (
    SmibClosed,
    SmibCommandResult,
    SmibCountersReset,
    SmibEvent,
    SmibEventConflict,
    SmibEventsLost,
    SmibMessageRejected,
    SmibMeterReset,
    SmibMeters,
    SmibOffline,
    SmibOnline,
    SmibReconciled,
    SmibRequest,
)
from twin.inbox import Envelope, Inbox
from twin.records import RecordBus, Sink

#: SAS exception 0x70: the machine's exception queue overflowed (events were lost in it).
QUEUE_OVERFLOW = 0x70


@dataclass(frozen=True, slots=True)
class Registered:
    """What the Board's registry says about the machine behind a SMIB."""

    smib: str
    machine: str
    serial: str
    program: str  # the certified programme signature
    #: the SMIB reads the machine over SAS: it reports a ROM signature challenge
    #: (``twin.hardware.sas.rom``), checked against the certified programme's image
    rom: bool = False

    def program_wrong(self, reported: str) -> str | None:
        """What is wrong with the programme a birth reports (None: it is the certified one)."""
        if not self.rom:
            return (
                None
                if reported == self.program
                else (f"programme {reported!r} (certified {self.program!r})")
            )
        from twin.hardware.sas.rom import PREFIX, expected_signature, parse_rom_program

        got = parse_rom_program(reported)
        if got is None:
            return f"programme {reported!r} (expected a ROM signature {PREFIX}:SSSS:CCCC)"
        seed, sig = got
        want = expected_signature(self.program, seed)
        if sig == want:
            return None
        return (
            f"ROM signature {sig:#06x} for seed {seed:#06x} (the certified programme "
            f"{self.program[:16]}... gives {want:#06x}: the machine runs another programme)"
        )


# -- commands from the link --------------------------------------------------------------------


class LinkCommand:
    """A typed message from the link; applied to the book in the simulation thread."""

    name: ClassVar[str] = "link"

    def apply(self, book: SmibBook) -> None:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Birth(LinkCommand):
    name: ClassVar[str] = "smib_birth"
    smib: str
    bd: int
    serial: str
    program: str
    denom_cents: int
    paytable: str
    last_eid: int

    def apply(self, book: SmibBook) -> None:
        book.birth(self)


@dataclass(frozen=True, slots=True)
class Status(LinkCommand):
    name: ClassVar[str] = "smib_status"
    smib: str
    bd: int
    state: str

    def apply(self, book: SmibBook) -> None:
        book.bus.emit(SmibOffline, smib=self.smib, bd=self.bd, state=self.state)
        book.stats[self.smib].online = False


@dataclass(frozen=True, slots=True)
class Event(LinkCommand):
    name: ClassVar[str] = "smib_event"
    smib: str
    eid: int
    bd: int
    code: int
    event: str
    epoch: int
    deltas: tuple[tuple[str, int], ...]
    data: str
    replay: bool
    ts: str = ""  # the SMIB's clock when it sent the event (audit, latency)
    received: float = 0.0  # time.monotonic() when the link accepted it
    series: int = 0
    digest: str = ""

    def apply(self, book: SmibBook) -> None:
        book.event(self)


@dataclass(frozen=True, slots=True)
class Meters(LinkCommand):
    name: ClassVar[str] = "smib_meters"
    smib: str
    source: str
    epoch: int
    as_of_eid: int
    digits: int
    values: tuple[tuple[str, int], ...]

    def apply(self, book: SmibBook) -> None:
        book.meters(self)


@dataclass(frozen=True, slots=True)
class Rejected(LinkCommand):
    name: ClassVar[str] = "smib_rejected"
    smib: str
    topic: str
    reason: str
    detail: str

    def apply(self, book: SmibBook) -> None:
        book.bus.emit(
            SmibMessageRejected,
            smib=self.smib,
            topic=self.topic,
            reason=self.reason,
            detail=self.detail,
        )


@dataclass(frozen=True, slots=True)
class Lost(LinkCommand):
    name: ClassVar[str] = "smib_lost"
    smib: str
    from_eid: int
    to_eid: int
    reason: str
    series: int = 0

    def apply(self, book: SmibBook) -> None:
        book.lost(self)


@dataclass(frozen=True, slots=True)
class Conflict(LinkCommand):
    name: ClassVar[str] = "smib_conflict"
    smib: str
    series: int
    eid: int
    bd: int
    first_digest: str
    second_digest: str
    applied: bool
    code: int
    event: str

    def apply(self, book: SmibBook) -> None:
        book.conflict(self)


@dataclass(frozen=True, slots=True)
class CountersReset(LinkCommand):
    name: ClassVar[str] = "smib_counters_reset"
    smib: str
    old_series: int
    series: int
    old_bd: int
    bd: int
    old_eid: int
    last_eid: int
    why: str

    def apply(self, book: SmibBook) -> None:
        book.counters_reset(self)


@dataclass(frozen=True, slots=True)
class Closed(LinkCommand):
    name: ClassVar[str] = "smib_closed"
    smib: str
    series: int
    last_eid: int
    online: bool
    applied: int
    lost: int

    def apply(self, book: SmibBook) -> None:
        book.bus.emit(
            SmibClosed,
            smib=self.smib,
            series=self.series,
            last_eid=self.last_eid,
            online=self.online,
            applied=self.applied,
            lost=self.lost,
        )


@dataclass(frozen=True, slots=True)
class Request(LinkCommand):
    name: ClassVar[str] = "smib_request"
    smib: str
    cmd_id: str
    cmd: str
    args: str
    why: str

    def apply(self, book: SmibBook) -> None:
        book.bus.emit(
            SmibRequest,
            smib=self.smib,
            cmd_id=self.cmd_id,
            cmd=self.cmd,
            args=self.args,
            why=self.why,
        )


@dataclass(frozen=True, slots=True)
class Result(LinkCommand):
    name: ClassVar[str] = "smib_cmdres"
    smib: str
    cmd_id: str
    result: str
    reason: str
    data: str = "{}"  # canonical JSON of the result's data

    def apply(self, book: SmibBook) -> None:
        book.bus.emit(
            SmibCommandResult,
            smib=self.smib,
            cmd_id=self.cmd_id,
            result=self.result,
            reason=self.reason,
        )
        watcher = book.watchers.get(self.smib)
        if watcher is not None:
            watcher.on_result(self)


# -- the book ------------------------------------------------------------------------------------


@dataclass
class _Snapshot:
    seq: int  # of its smib_meters record
    epoch: int
    as_of_eid: int
    digits: int
    values: dict[str, int]


@dataclass
class _Accounts:
    last: _Snapshot | None = None
    sums: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    events: int = 0
    lost: list[tuple[int, int]] = field(default_factory=list)  # since the last snapshot
    overflows: list[int] = field(default_factory=list)  # eids of SAS 0x70 since then


class Watcher(Protocol):
    """What follows one SMIB's records in the world (a hardware-backed machine)."""

    def on_birth(self, b: Birth, rec: SmibOnline) -> None: ...

    def on_event(self, e: Event, rec: SmibEvent) -> None: ...

    def on_meters(self, m: Meters, rec: SmibMeters) -> None: ...

    def on_result(self, r: Result) -> None: ...


@dataclass
class SmibStats:
    """What the live line shows of one SMIB (simulation thread)."""

    online: bool = False
    events: int = 0
    reconciled: int = 0
    mismatched: int = 0
    reset: bool = False
    lag: float = 0.0  # seconds between the link accepting the last event and the book
    max_lag: float = 0.0
    lost: int = 0  # events declared lost
    conflicts: int = 0  # events refused for another event's eid
    series: int = 0  # +1 each time its counters went back

    @property
    def reconciliation(self) -> str:
        if self.mismatched:
            return f"MISMATCH x{self.mismatched}"
        if self.reset:
            return "reset"
        return f"ok x{self.reconciled}" if self.reconciled else "waiting"


class SmibBook:
    """Sessions, events and meter accounts of every registered SMIB (simulation thread)."""

    def __init__(
        self,
        bus: RecordBus,
        registry: Mapping[str, Registered],
        at: Callable[[float], str],
        now: Callable[[], float],
    ) -> None:
        self.bus = bus
        self.registry = dict(registry)
        self._at = at
        self._now = now
        self._accounts: dict[str, _Accounts] = defaultdict(_Accounts)
        self.applied: dict[str, int] = {}  # smib -> events applied
        self._eid: dict[str, int] = {}  # smib -> the last eid applied (or lost)
        #: smib -> what follows its records (a hardware-backed machine); see :class:`Watcher`
        self.watchers: dict[str, Watcher] = {}
        self.stats: dict[str, SmibStats] = defaultdict(SmibStats)
        #: when a list: (the event's device ``ts``, unix time once its records and the
        #: machine's records derived from it went through every sink) per event (benchmarks)
        self.latencies: list[tuple[str, float]] | None = None

    def handle(self, envelope: Envelope) -> None:
        cmd = envelope.command
        if isinstance(cmd, LinkCommand):
            cmd.apply(self)

    def finding(
        self, smib: str, control: str, severity: Severity, message: str, ev: tuple[int, ...]
    ) -> None:
        now = self._now()
        self.bus.emit(
            Finding,
            subjects=(smib,),
            control=control,
            severity=str(severity),
            at=self._at(now),
            message=message,
            evidence=ev,
            found_t=now,
        )

    # -- what the link delivers ------------------------------------------------------------------

    def birth(self, b: Birth) -> None:
        rec = self.bus.emit(
            SmibOnline,
            smib=b.smib,
            bd=b.bd,
            serial=b.serial,
            program=b.program,
            denom_cents=b.denom_cents,
            paytable=b.paytable,
            last_eid=b.last_eid,
        )
        self.stats[b.smib].online = True
        watcher = self.watchers.get(b.smib)
        if watcher is not None:
            watcher.on_birth(b, rec)
        reg = self.registry.get(b.smib)
        if reg is None:
            return
        wrong = []
        if b.serial != reg.serial:
            wrong.append(f"serial {b.serial!r} (registered {reg.serial!r})")
        program = reg.program_wrong(b.program)
        if program is not None:
            wrong.append(program)
        if wrong:
            self.finding(
                b.smib,
                "HW.identity",
                Severity.BREACH,
                f"SMIB {b.smib} on machine {reg.machine} reports {' and '.join(wrong)}: "
                "only the registered machine running its certified programme may operate "
                "(reg 28(3))",
                (rec.seq,),
            )

    def event(self, e: Event) -> None:
        names = tuple(n for n, _ in e.deltas)
        rec = self.bus.emit(
            SmibEvent,
            smib=e.smib,
            eid=e.eid,
            bd=e.bd,
            code=e.code,
            name=e.event,
            epoch=e.epoch,
            meters=names,
            deltas=tuple(d for _, d in e.deltas),
            data=e.data,
            replay=e.replay,
            series=e.series,
            digest=e.digest,
        )
        self.applied[e.smib] = self.applied.get(e.smib, 0) + 1
        self._eid[e.smib] = max(e.eid, self._eid.get(e.smib, 0))
        watcher = self.watchers.get(e.smib)
        if watcher is not None:
            watcher.on_event(e, rec)
        st = self.stats[e.smib]
        st.events += 1
        if e.received:
            st.lag = time.monotonic() - e.received
            st.max_lag = max(st.max_lag, st.lag)
        if self.latencies is not None:
            self.latencies.append((e.ts, time.time()))
        acc = self._accounts[e.smib]
        if acc.last is not None and e.epoch != acc.last.epoch:
            return  # after a reset: it belongs to the next epoch's first interval
        acc.events += 1
        if e.code == QUEUE_OVERFLOW:
            acc.overflows.append(e.eid)
        for name, delta in e.deltas:
            acc.sums[name] += delta

    def lost(self, lost: Lost) -> None:
        rec = self.bus.emit(
            SmibEventsLost,
            smib=lost.smib,
            from_eid=lost.from_eid,
            to_eid=lost.to_eid,
            reason=lost.reason,
            series=lost.series,
        )
        self._accounts[lost.smib].lost.append((lost.from_eid, lost.to_eid))
        self.stats[lost.smib].lost += lost.to_eid - lost.from_eid + 1
        self._eid[lost.smib] = max(lost.to_eid, self._eid.get(lost.smib, 0))
        self.finding(
            lost.smib,
            "HW.events_lost",
            Severity.WARNING,
            f"events {lost.from_eid}..{lost.to_eid} of SMIB {lost.smib} are lost "
            f"({lost.reason}); the meters still carry their money",
            (rec.seq,),
        )

    def conflict(self, c: Conflict) -> None:
        self.stats[c.smib].conflicts += 1
        rec = self.bus.emit(
            SmibEventConflict,
            smib=c.smib,
            series=c.series,
            eid=c.eid,
            bd=c.bd,
            first_digest=c.first_digest,
            second_digest=c.second_digest,
            applied=c.applied,
            code=c.code,
            name=c.event,
        )
        self.finding(
            c.smib,
            "HW.event_conflict",
            Severity.BREACH,
            f"SMIB {c.smib} sent event {c.eid} again with other content (code {c.code:#04x} "
            f"{c.event or '?'}, digest {c.second_digest}, session {c.bd}); the first "
            f"(digest {c.first_digest}) stands and the second is refused",
            (rec.seq,),
        )

    def counters_reset(self, r: CountersReset) -> None:
        rec = self.bus.emit(
            SmibCountersReset,
            smib=r.smib,
            old_series=r.old_series,
            series=r.series,
            old_bd=r.old_bd,
            bd=r.bd,
            old_eid=r.old_eid,
            last_eid=r.last_eid,
            why=r.why,
        )
        # a new series: its meters reconcile from its own first snapshot
        self._accounts[r.smib] = _Accounts()
        self._eid[r.smib] = r.last_eid
        self.stats[r.smib].reset = True
        self.stats[r.smib].series = r.series
        self.finding(
            r.smib,
            "HW.counters_reset",
            Severity.WARNING,
            f"SMIB {r.smib}'s counters went back ({r.why}): its events are taken as series "
            f"{r.series}, from eid {r.last_eid + 1}; what its meters did across the reset "
            "cannot be reconciled",
            (rec.seq,),
        )

    def meters(self, m: Meters) -> None:
        names = tuple(n for n, _ in m.values)
        applied = self._eid.get(m.smib, m.as_of_eid)
        late = m.as_of_eid < applied
        rec = self.bus.emit(
            SmibMeters,
            smib=m.smib,
            source=m.source,
            epoch=m.epoch,
            as_of_eid=m.as_of_eid,
            digits=m.digits,
            meters=names,
            values=tuple(v for _, v in m.values),
            late=late,
        )
        if late:
            return
        watcher = self.watchers.get(m.smib)
        if watcher is not None:
            watcher.on_meters(m, rec)
        self._eid[m.smib] = m.as_of_eid
        snap = _Snapshot(rec.seq, m.epoch, m.as_of_eid, m.digits, dict(m.values))
        acc = self._accounts[m.smib]
        last = acc.last
        if last is not None and snap.epoch != last.epoch:
            reset = self.bus.emit(
                SmibMeterReset, smib=m.smib, old_epoch=last.epoch, new_epoch=snap.epoch
            )
            self.finding(
                m.smib,
                "HW.meter_reset",
                Severity.WARNING,
                f"the meters of SMIB {m.smib} were reset (epoch {last.epoch} -> {snap.epoch}): "
                f"play between eid {last.as_of_eid} and the reset cannot be reconciled",
                (last.seq, reset.seq),
            )
            self.stats[m.smib].reset = True
        elif last is not None and snap.as_of_eid >= last.as_of_eid:
            self._reconcile(m.smib, last, snap, acc)
        if last is None or snap.epoch != last.epoch or snap.as_of_eid >= last.as_of_eid:
            acc.last = snap
            acc.sums = defaultdict(int)
            acc.events = 0
            acc.lost = []
            acc.overflows = []

    def _reconcile(self, smib: str, a: _Snapshot, b: _Snapshot, acc: _Accounts) -> None:
        width = 10**b.digits
        mismatches: list[str] = []
        lost = [r for r in acc.lost if r[1] > a.as_of_eid and r[0] <= b.as_of_eid]
        for lo, hi in lost:
            mismatches.append(f"events {lo}..{hi} lost: the interval cannot be reconciled")
        if not lost:
            names = sorted((set(a.values) | set(b.values) | set(acc.sums)) - NOT_CUMULATIVE)
            for name in names:
                moved = (b.values.get(name, 0) - a.values.get(name, 0)) % width
                said = acc.sums.get(name, 0) % width
                if moved != said:
                    mismatches.append(f"{name}: meters moved {moved}, events say {said}")
        ok = not mismatches
        rec = self.bus.emit(
            SmibReconciled,
            smib=smib,
            epoch=b.epoch,
            from_eid=a.as_of_eid,
            to_eid=b.as_of_eid,
            events=acc.events,
            ok=ok,
            mismatches=tuple(mismatches),
            evidence=(a.seq, b.seq),
        )
        st = self.stats[smib]
        st.reconciled += 1
        st.reset = False
        if not ok:
            st.mismatched += 1
        if not ok and not lost and acc.overflows:
            self.finding(
                smib,
                "HW.queue_overflow",
                Severity.WARNING,
                f"SMIB {smib}: the machine's exception queue overflowed (SAS 0x70, eid "
                f"{', '.join(map(str, acc.overflows))}), so its events between eid "
                f"{a.as_of_eid} and {b.as_of_eid} are incomplete; the meters count: "
                f"{'; '.join(mismatches)}",
                (a.seq, b.seq, rec.seq),
            )
        elif not ok and not lost:
            self.finding(
                smib,
                "HW.reconcile",
                Severity.BREACH,
                f"SMIB {smib} meters between eid {a.as_of_eid} and {b.as_of_eid} "
                f"(epoch {b.epoch}) do not match its events: {'; '.join(mismatches)}",
                (a.seq, b.seq, rec.seq),
            )


class HardwareWorld:
    """A minimal world for the link on its own: SimPy, the inbox, a bus and the book.

    Simulation time follows the wall clock (seconds since :meth:`start`); :meth:`pump`
    delivers what the link queued. A full run binds a :class:`SmibBook` into the casino
    instead (not built yet).
    """

    def __init__(
        self,
        registry: Mapping[str, Registered],
        sinks: tuple[Sink, ...] = (),
        clock: Clock | None = None,
    ) -> None:
        self._time = time.monotonic
        self.env = simpy.Environment()
        self.bus = RecordBus(lambda: self.env.now, sinks)
        self.inbox = Inbox()
        self.book = SmibBook(
            self.bus,
            registry,
            at=clock.iso if clock is not None else _iso,
            now=lambda: self.env.now,
        )
        self._t0 = self._time()
        self.inbox.attach(self.env, self.book.handle)

    def pump(self) -> int:
        """Deliver what is waiting (in the calling thread: the simulation thread)."""
        before = self.inbox.delivered
        target = max(self._time() - self._t0, self.env.now) + 1e-6
        self.inbox.poll()
        self.env.run(until=target)
        return self.inbox.delivered - before


def _iso(t: float) -> str:
    return (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=t)).isoformat()


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode


def canonical(data: Mapping[str, Any]) -> str:
    """``json.dumps(dict(data), sort_keys=True, separators=(",", ":"))``."""
    return _CANONICAL(data if type(data) is dict else dict(data))
