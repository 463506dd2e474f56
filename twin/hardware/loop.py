"""The SAS closed loop (issue 30): a simulated machine on a SAS line, a SMIB polling it and
reporting over MQTT, and the twin checking the loop end to end.

A ``[[sas]]`` machine stays simulated: patrons play it, its records feed every control. Its
:class:`SasView` follows those records (a sink on the bus): after each, the view's meters
become the machine's (a copy, so that a poll from the line's thread reads the meters between
two records, never halfway through one) and the record's SAS exception is raised on the
view's :class:`~twin.hardware.sas.gaming.SasGamingMachine` (a bill, a cash out, a hand pay
pending and reset, a door, a tilt...). The view keeps the truth of the machine's side: each
exception raised, when the SMIB acknowledged it on the line (implied ACK) or lost it to a
full queue, and every state of the meters.

:class:`SasLoop` follows what the SMIB reported over MQTT (a watcher of the
:class:`~twin.hardware.book.SmibBook`, in the simulation thread) and says which side went
wrong, with the records that prove it:

* ``HW.sas_lost``: an exception the machine raised never reached the host: never read over
  SAS (the SMIB did not poll it), or read over SAS and never reported over MQTT;
* ``HW.sas_misreported``: the host got an exception the machine never raised, or with other
  data (a bill's value, a hand pay's amount);
* ``HW.sas_meters``: the host's meters (the SMIB's snapshots and the sum of its deltas) were
  never the machine's at any moment;
* ``HW.sas_late``: an exception reached the host later than ``max_delay_s`` after it was
  raised (the SAS read's share and the MQTT report's share are given);
* ``HW.sas_queue_overflow``: the machine's exception queue overflowed (exceptions lost on the
  machine's side before the SMIB read them);
* ``HW.sas_link_lost``: the SMIB reported its SAS line silent (its ``sas_link_lost`` event);
* ``HW.sas_line``: the machine's end of the line saw polls with a bad CRC, or answered more
  than 1 % of polls after the 20 ms deadline.

A tampered program is the book's ``HW.identity`` (the ROM signature the SMIB read does not
match the approved program's, :mod:`twin.hardware.sas.rom`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from twin.hardware.book import Birth, Event, Meters, Result
from twin.hardware.findings import emit
from twin.hardware.protocol import NOT_CUMULATIVE
from twin.hardware.records import SasLineClosed, SmibEvent, SmibMeters, SmibOnline
from twin.hardware.sas.gaming import Handpay, SasGamingMachine
from twin.hardware.sas.line import percentile
from twin.hardware.sas.polls import (
    BILL_ACCEPTED_EXCEPTIONS,
    BILL_ACCEPTED_OTHER,
    BUFFER_OVERFLOW,
    PRIORITY_EXCEPTIONS,
    Pending,
)
from twin.machines.accounting import SlotAccounts
from twin.machines.events import (
    BillAccepted,
    CashedOut,
    MachineException,
    MachineLocked,
)
from twin.machines.sas import ExceptionCode, MeterCode
from twin.records import Record
from twin.world import World

#: SAS exception 66: cash out button pressed (raised for each cash out).
CASH_OUT = 0x66
HANDPAY_PENDING = int(ExceptionCode.HANDPAY_PENDING)
HANDPAY_RESET = int(ExceptionCode.HANDPAY_RESET)
#: The reference SMIB's own events (docs/smib-protocol.md): the line went silent, it came
#: back, meters moved with no exception (play is seen on the meters: no real-time events).
LINK_LOST, LINK_RESTORED, METERS_CHANGED, GAME_ENDED = 0xE0, 0xE1, 0xE2, 0x7F
SMIB_OWN = frozenset({LINK_LOST, LINK_RESTORED, METERS_CHANGED, GAME_ENDED})
BILL_CODES = frozenset({*BILL_ACCEPTED_EXCEPTIONS.values(), BILL_ACCEPTED_OTHER})
#: Meters that only grow (the loop compares these; the credit meter and the games since a
#: door or power event go down).
CUMULATIVE = tuple(c.name.lower() for c in MeterCode if c.name.lower() not in NOT_CUMULATIVE)
#: A reply later than the deadline on more than this share of polls is a finding.
LATE_SHARE = 0.01
#: How many lost or misreported exceptions a finding lists.
LIST_MOST = 10
#: The machine's meter states kept for the host's to match: the states before the host's
#: last match are dropped once there are this many; a host this far behind is compared
#: with the latest only.
TRIM_STATES = 256
KEEP_STATES = 10_000


@dataclass(frozen=True, slots=True)
class _Held:
    """An exception waiting for room in the machine's queue (:meth:`SasView._stack`)."""

    code: int
    data: dict[str, int]
    evidence: int
    sim_t: float
    wall: float


@dataclass
class Raised:
    """One exception the machine raised on the line, and what became of it."""

    n: int
    code: int
    sim_t: float
    wall: float  # time.monotonic() when raised
    evidence: int  # seq of the record that raised it
    data: dict[str, int]
    pending: Pending | None  # None: it joined the same priority exception, still waiting
    delivered: float | None = None  # monotonic time the SMIB acknowledged it on the line
    dropped: bool = False  # pushed out of the full queue before the SMIB read it
    reported: int | None = None  # seq of the SmibEvent that reported it

    @property
    def expected(self) -> bool:
        """The host must see it (SAS sends a joined priority exception once)."""
        return self.pending is not None and not self.dropped


def cumulative(readings: Mapping[str, int]) -> dict[str, int]:
    """The meters of ``readings`` that only grow (bill meters included)."""
    return {k: v for k, v in readings.items() if k in CUMULATIVE or k.startswith("bills_")}


class SasView:
    """The machine's side of one ``[[sas]]`` line (see the module docstring).

    ``source``: the simulated machine's accounts (read in the simulation thread only).
    The line's thread calls the gaming machine; everything shared is under ``lock``.
    """

    def __init__(
        self,
        machine_id: str,
        smib: str,
        source: SlotAccounts,
        game: Any,
        *,
        serial: str,
        address: int,
        program: str | None = None,
        now: Callable[[], float],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.machine_id = machine_id
        self.smib = smib
        self.source = source
        self.lock = threading.RLock()
        self.accounts = SlotAccounts(
            denomination_cents=source.denomination_cents,
            hopper_capacity=source.hopper_capacity,
            hopper_level=source.hopper_level,
            meter_digits=source.meter_digits,
            bill_denominations_cents=source.bill_denominations_cents,
        )
        self.machine = SasGamingMachine.for_game(
            self.accounts, game, address=address, serial=serial[:40], lock=self.lock,
            program=program,
        )  # fmt: skip
        self.machine.on_delivered = self._delivered
        self.machine.exceptions.on_overflow = self._overflowed
        self._now = now
        self._clock = clock
        self.raised: list[Raised] = []
        self.versions: list[dict[str, int]] = []
        self.overflow_events: list[int] = []  # evidence of the overflows
        self._lock_win: int | None = None
        #: bills accepted whose exceptions wait for room in the queue (cents, evidence, sim
        #: time, wall time): see :meth:`_stack`
        self._escrow: list[_Held] = []
        self._open: dict[Pending, Raised] = {}  # in the queue, by what a poll would send
        self._evidence = 0
        self.sync()

    # -- the simulation's side (a sink's accept) ---------------------------------------------

    def sync(self) -> None:
        """The view's meters become the machine's (and a new state when they moved)."""
        src, dst = self.source, self.accounts
        with self.lock:
            dst.meters.update(src.meters)
            dst.bills.update(src.bills)
            dst.hopper_level = src.hopper_level
            dst.doors_open = set(src.doors_open)
            now = cumulative(dst.readings())
        if not self.versions or self.versions[-1] != now:
            self.versions.append(now)

    def on_record(self, rec: Record) -> None:
        """A record of this machine: the meters follow it, then its exception is raised."""
        self.sync()
        self._evidence = rec.seq
        if isinstance(rec, BillAccepted):
            with self.lock:
                code = BILL_ACCEPTED_EXCEPTIONS.get(rec.bill_cents // 100, BILL_ACCEPTED_OTHER)
                self.raise_code(code, {"cents": rec.bill_cents})
        elif isinstance(rec, CashedOut):
            self.raise_code(CASH_OUT)
        elif isinstance(rec, MachineLocked):
            self._lock_win = rec.win
        elif isinstance(rec, MachineException):
            if rec.code == HANDPAY_PENDING:
                self._handpay_pending()
            else:
                self.raise_code(rec.code)

    def _handpay_pending(self) -> None:
        """Exception 51 and long poll 1B's hand pay: the jackpot that locked the machine, or
        the credits it cancels by hand (a credit payout)."""
        win, self._lock_win = self._lock_win, None
        with self.lock:
            if win is not None:
                hp = Handpay(win)
            else:
                hp = Handpay(self.accounts.credits, cancelled_credits=True)
            self.machine.handpay = hp if hp.credits > 0 else None
            self.raise_code(HANDPAY_PENDING, {"credits": hp.credits})

    def raise_code(self, code: int, data: dict[str, int] | None = None) -> None:
        """Raise ``code`` (a bill's with ``data["cents"]``), or hold it while the queue is full
        (:meth:`_stack`); a priority exception is never held."""
        with self.lock:
            held = _Held(code, dict(data or {}), self._evidence, self._now(), self._clock())
            if code in PRIORITY_EXCEPTIONS:
                self._raise(held)
                return
            self._escrow.append(held)
            self._stack()

    def _raise(self, h: _Held) -> None:
        if "cents" in h.data:
            pending = self.machine.bill_accepted(h.data["cents"])
        else:
            pending = self.machine.raise_exception(h.code)
        self._log(h.code, pending, h.data, (h.evidence, h.sim_t, h.wall))

    def storm(self, count: int) -> None:
        """``count`` general tilts at once, straight into the queue (a fault: more than the
        queue holds overflows it)."""
        with self.lock:
            for _ in range(count):
                code = int(ExceptionCode.GENERAL_TILT)
                self._log(code, self.machine.raise_exception(code), {})

    def _log(
        self,
        code: int,
        pending: Pending | None,
        data: dict[str, int],
        when: tuple[int, float, float] | None = None,
    ) -> Raised:
        evidence, sim_t, wall = when or (self._evidence, self._now(), self._clock())
        r = Raised(len(self.raised) + 1, code, sim_t, wall, evidence, data, pending)
        self.raised.append(r)
        if pending is not None:
            self._open[pending] = r
        return r

    def _stack(self) -> None:
        """Held exceptions go into the queue, in order, while it has room. The simulation
        does in one instant what takes a real machine seconds (a patron's whole bankroll of
        bills, then the cash out), so the twin's machine holds what its queue cannot take
        rather than lose it to its own compression of time; the meters already count it (the
        increments reach the host with the first event). A SMIB that does not poll shows as
        exceptions that reach the host late (HW.sas_late) or never (HW.sas_lost), not as an
        overflow; the ``storm`` fault overflows the queue on purpose."""
        queue = self.machine.exceptions
        while self._escrow and len(queue.waiting()) < queue.capacity:
            self._raise(self._escrow.pop(0))

    # -- the line's side (under the lock) -----------------------------------------------------

    def _find(self, p: Pending) -> Raised | None:
        """The exception in the queue as ``p`` (it leaves: delivered or dropped)."""
        return self._open.pop(p, None)

    def _delivered(self, p: Pending) -> None:
        r = self._find(p)
        if r is None and p.code == BUFFER_OVERFLOW:
            r = self._log(BUFFER_OVERFLOW, p, {})  # raised by the queue itself
            self._open.pop(p, None)
        if r is not None:
            r.delivered = self._clock()
        if p.code == HANDPAY_RESET and self.machine.handpay is not None:
            self.machine.handpay = None  # 1B reports the hand pay until its reset is read
        self._stack()

    def _overflowed(self, p: Pending) -> None:
        r = self._find(p)
        if r is not None:
            r.dropped = True
        self.overflow_events.append(self._evidence)

    def snapshot(self) -> list[Raised]:
        """Every exception raised, and those still held (never in the queue: never read), as
        they stand."""
        with self.lock:
            held = [
                Raised(0, h.code, h.sim_t, h.wall, h.evidence, h.data, Pending(h.code, -1))
                for h in self._escrow
            ]
            return [Raised(**vars(r)) for r in self.raised] + held

    def counts(self) -> tuple[int, int, int, int]:
        """(raised, read by the SMIB, dropped by the queue, at the host), as they stand."""
        with self.lock:
            log = self.raised
            return (
                len(log) + len(self._escrow),
                sum(1 for r in log if r.delivered is not None),
                sum(1 for r in log if r.dropped),
                sum(1 for r in log if r.reported is not None),
            )

    def waiting(self) -> int:
        """Exceptions still in the machine's queue or held for it (not yet read)."""
        with self.lock:
            return len(self.machine.exceptions.waiting()) + len(self._escrow)


@dataclass
class _MeterTrouble:
    first_seq: int
    first: str
    count: int = 0
    evidence: list[int] = field(default_factory=list)


class SasLoop:
    """The host's side of one ``[[sas]]`` loop: a watcher of the SMIB's records."""

    def __init__(self, world: World, view: SasView, max_delay_s: float) -> None:
        self.world = world
        self.view = view
        self.smib = view.smib
        self.machine = view.machine_id
        self.max_delay_s = max_delay_s
        self.line_stats: Callable[[], dict[str, Any]] | None = None  # set by the station
        self._host: dict[str, int] | None = None  # the host's meters (cumulative ones)
        self._snap_eid = 0  # the host's meters include every event up to this eid
        self._version = 0  # the earliest state the machine can be in for the host
        self._bad: dict[str, _MeterTrouble] = {}
        self._checked = 0
        self._extra: list[tuple[int, str]] = []  # (seq, what) reported, never raised
        self._late: list[tuple[int, str]] = []
        self._outages = 0
        self._last_seq = 0
        self.to_host: list[float] = []  # seconds from raised to the book, per exception
        self._cursor: dict[int, int] = {}  # code -> where its next report's match may be

    # -- queries (the simulation thread: a test bench waits on them) ---------------------------

    def unreported(self) -> int:
        """Exceptions the machine raised that the host must see and has not (yet) seen."""
        with self.view.lock:
            return sum(1 for r in self.view.raised if r.expected and r.reported is None)

    def meters_agree(self) -> bool:
        """Whether the host's meters are the machine's latest (every meter both hold)."""
        host, versions = self._host, self.view.versions
        if host is None or not versions:
            return False
        last = versions[-1]
        return all(last[k] == x for k, x in host.items() if k in last)

    # -- watcher ------------------------------------------------------------------------------

    def on_birth(self, b: Birth, rec: SmibOnline) -> None:
        return None  # its meters follow as a snapshot (source "birth"), in eid order

    def on_meters(self, m: Meters, rec: SmibMeters) -> None:
        self._snapshot(dict(m.values), m.as_of_eid, rec.seq, "meters")

    def on_result(self, r: Result) -> None:
        return None

    def on_event(self, e: Event, rec: SmibEvent) -> None:
        self._last_seq = rec.seq
        if self._host is not None and e.eid > self._snap_eid:
            for name, delta in e.deltas:
                if name in self._host:
                    self._host[name] += delta
            self._check_meters(rec.seq, f"event {e.eid}")
        if e.code == LINK_LOST:
            self._outages += 1
            self._finding(
                "HW.sas_link_lost",
                f"SMIB {self.smib} reports its SAS line to machine {self.machine} silent "
                f"(event {e.eid}): nothing the machine raised meanwhile could be read",
                (rec.seq,),
                warning=True,
            )
        if e.code in SMIB_OWN:
            return
        self._match(e, rec)

    # -- exceptions -----------------------------------------------------------------------

    def _match(self, e: Event, rec: SmibEvent) -> None:
        data: dict[str, Any] = json.loads(e.data) if e.data else {}
        with self.view.lock:
            # the earliest exception of this code still to reach the host: a cursor per code
            # skips what is settled, so a long run does not scan its whole history each time
            log, i = self.view.raised, self._cursor.get(e.code, 0)
            while i < len(log) and (
                log[i].code != e.code or log[i].reported is not None or not log[i].expected
            ):
                i += 1
            self._cursor[e.code] = i
            r = log[i] if i < len(log) else None
            if r is not None:
                r.reported = rec.seq
                raised = Raised(**vars(r))
        what = f"exception {e.code:#04x} ({e.event or 'unnamed'}), event {e.eid}"
        if r is None:
            self._extra.append((rec.seq, f"{what}: the machine never raised it"))
            return
        wrong = [
            f"{k} {data.get(k)!r} (the machine: {v})"
            for k, v in raised.data.items()
            if k in data and data.get(k) != v
        ]
        missing = [k for k in raised.data if k not in data]
        if wrong or missing:
            said = "; ".join(
                [*wrong, *(f"no {k} (the machine: {raised.data[k]})" for k in missing)]
            )
            self._extra.append((rec.seq, f"{what}: {said}"))
        if e.received and raised.wall:
            total = e.received - raised.wall
            self.to_host.append(time.monotonic() - raised.wall)
            if total > self.max_delay_s:
                read = (raised.delivered or e.received) - raised.wall
                self._late.append(
                    (
                        rec.seq,
                        f"{what} reached the host {total:.2f} s after the machine raised it "
                        f"(read over SAS after {read:.2f} s, reported over MQTT "
                        f"{total - read:.2f} s after that)",
                    )
                )

    # -- meters ----------------------------------------------------------------------------------

    def _snapshot(self, values: dict[str, int], as_of: int, seq: int, what: str) -> None:
        self._host = cumulative(values)
        self._snap_eid = as_of
        self._check_meters(seq, what)

    def _check_meters(self, seq: int, what: str) -> None:
        host = self._host
        if host is None:
            return
        self._checked += 1
        versions = self.view.versions
        # the states the host may still be in: from its last match, at most KEEP_STATES back
        self._version = max(self._version, len(versions) - KEEP_STATES)
        for v in range(self._version, len(versions)):
            state = versions[v]
            if all(state.get(k) == x for k, x in host.items() if k in state):
                self._version = v
                if v > TRIM_STATES:  # the states before it cannot match again
                    del versions[:v]
                    self._version = 0
                return
        latest = versions[-1] if versions else {}
        for k, x in host.items():
            if k in latest and not any(s.get(k) == x for s in versions[self._version :]):
                t = self._bad.get(k)
                if t is None:
                    t = self._bad[k] = _MeterTrouble(seq, f"{what}: the host {x}, the machine "
                                                          f"{latest[k]}")  # fmt: skip
                t.count += 1
                if len(t.evidence) < LIST_MOST:
                    t.evidence.append(seq)

    # -- the end ------------------------------------------------------------------------------

    def finish(self) -> None:
        raised = self.view.snapshot()
        stats = self.line_stats() if self.line_stats is not None else {}
        closed = self.world.bus.emit(
            SasLineClosed,
            machine=self.machine,
            smib=self.smib,
            polls=int(stats.get("polls", 0)),
            replies=int(stats.get("replies", 0)),
            late=int(stats.get("late", 0)),
            bad_crc=self.view.machine.bad_crc_polls,
            median_us=round((stats.get("median_ms") or 0.0) * 1000),
            p99_us=round((stats.get("p99_ms") or 0.0) * 1000),
            raised=len(raised),
            delivered=sum(1 for r in raised if r.delivered is not None),
            dropped=sum(1 for r in raised if r.dropped),
            reported=sum(1 for r in raised if r.reported is not None),
            to_host_p50_us=_us(percentile(self.to_host, 0.5)),
            to_host_p99_us=_us(percentile(self.to_host, 0.99)),
        )
        self._lost(raised)
        dropped = [r for r in raised if r.dropped]
        if dropped:
            self._finding(
                "HW.sas_queue_overflow",
                f"machine {self.machine}'s exception queue overflowed: {len(dropped)} "
                f"exception(s) were lost on the machine's side before SMIB {self.smib} read "
                f"them ({_codes(dropped)}); the SMIB did not poll fast enough",
                tuple(dict.fromkeys(r.evidence for r in dropped[:LIST_MOST])),
            )
        self._listed(
            "HW.sas_misreported",
            f"SMIB {self.smib} reported {len(self._extra)} exception(s) of machine "
            f"{self.machine} other than the machine raised them",
            self._extra,
        )
        self._listed(
            "HW.sas_late",
            f"{len(self._late)} exception(s) of machine {self.machine} reached the host "
            f"more than {self.max_delay_s:g} s after they were raised",
            self._late,
            warning=True,
        )
        self._final_meters()
        for name, t in sorted(self._bad.items()):
            self._finding(
                "HW.sas_meters",
                f"meter {name} of machine {self.machine} as SMIB {self.smib} reported it was "
                f"never the machine's at {t.count} of {self._checked} reports (first at "
                f"{t.first}): the SMIB misread or misreported it",
                tuple(t.evidence),
            )
        self._line(stats, closed.seq)

    def _listed(
        self, control: str, lead: str, items: list[tuple[int, str]], *, warning: bool = False
    ) -> None:
        """One finding for ``items`` (evidence seq, what), the first LIST_MOST of them listed."""
        if items:
            shown = items[:LIST_MOST]
            self._finding(
                control,
                f"{lead}: " + "; ".join(w for _, w in shown),
                tuple(q for q, _ in shown),
                warning=warning,
            )

    def _lost(self, raised: list[Raised]) -> None:
        unread = [r for r in raised if r.expected and r.reported is None and r.delivered is None]
        unsent = [r for r in raised if r.expected and r.reported is None and r.delivered]
        for group, side in (
            (unread, "never read over SAS (the SMIB did not poll them)"),
            (unsent, "read by the SMIB over SAS but never reported over MQTT"),
        ):
            if group:
                self._finding(
                    "HW.sas_lost",
                    f"{len(group)} exception(s) machine {self.machine} raised never reached "
                    f"the host through SMIB {self.smib}: {side}: {_codes(group)}",
                    tuple(dict.fromkeys(r.evidence for r in group[:LIST_MOST])),
                )

    def _final_meters(self) -> None:
        """The host's last meters against the machine's last state (one finding)."""
        host, versions = self._host, self.view.versions
        if host is None or not versions:
            return
        last = versions[-1]
        off = [
            f"{k} (the host {x}, the machine {last[k]})"
            for k, x in sorted(host.items())
            if k in last and last[k] != x and k not in self._bad
        ]
        if off:
            self._finding(
                "HW.sas_meters",
                f"the host's last meters of machine {self.machine} are not the machine's at "
                f"the end of the run: {', '.join(off[:LIST_MOST])}: SMIB {self.smib} did not "
                "report the machine's last changes",
                (self._last_seq,),
            )

    def _line(self, stats: Mapping[str, Any], seq: int) -> None:
        bad, replies, late = (
            self.view.machine.bad_crc_polls,
            stats.get("replies", 0),
            stats.get("late", 0),
        )
        said = []
        if bad:
            said.append(f"{bad} poll(s) with a bad CRC (ignored, as SAS wants)")
        if replies and late > LATE_SHARE * replies:
            said.append(
                f"{late} of {replies} replies after the {stats.get('deadline_ms', 20):g} ms "
                f"deadline (p99 {stats.get('p99_ms')} ms)"
            )
        if said:
            self._finding(
                "HW.sas_line",
                f"the SAS line of machine {self.machine} (SMIB {self.smib}): " + "; ".join(said),
                (seq,),
                warning=True,
            )

    def _finding(
        self, control: str, message: str, evidence: tuple[int, ...], *, warning: bool = False
    ) -> None:
        emit(self.world, (self.machine, self.smib), control, message, evidence, warning=warning)


def _us(seconds: float | None) -> int:
    return 0 if seconds is None else round(seconds * 1e6)


def _codes(group: list[Raised]) -> str:
    shown = ", ".join(f"{r.code:#04x} at {r.sim_t:.0f} s" for r in group[:LIST_MOST])
    return shown + (f" and {len(group) - LIST_MOST} more" if len(group) > LIST_MOST else "")


class SasFeed:
    """The sink that keeps every :class:`SasView` up with its machine's records."""

    def __init__(self, views: Mapping[str, SasView]) -> None:
        self.views = dict(views)

    def accept(self, rec: Record) -> None:
        view = self.views.get(getattr(rec, "machine", ""))
        if view is not None:
            view.on_record(rec)

    def close(self) -> None:
        return None


__all__ = [
    "CUMULATIVE",
    "Raised",
    "SasFeed",
    "SasLoop",
    "SasView",
    "cumulative",
]
