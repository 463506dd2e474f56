"""What the viewer shows, kept from records alone.

:class:`FloorModel` is a record sink (``accept``) and a reader of ledger bodies (``apply``):
live, it is attached to the casino's record bus and updated on the simulation thread; in a
replay, it is fed the rows of a finished run's ledger. Either way the picture comes from the
records, so a replay shows the world the run saw. Each machine's meters, hopper, credits,
doors and down reasons are kept by :class:`twin.state.MachineReplay`, the same accounting
``twin state`` uses, so the meter panel and ``twin state`` agree by construction (a test holds
them together).

Patrons are kept from their records too: waiting inside for a machine (``patron_arrived``),
walking from the entrance to their machine and then seated at it (``session_started``), and
walking back to the entrance (``patron_left``). The walks are a drawing convention, like the
staff's: the twin does not model them (a session starts when the patron sits down), so each is
drawn over :data:`PATRON_WALK_SECONDS` from the record that starts it. Where a patron is at
time ``t`` depends only on the records up to ``t``, so a replay at ``t`` shows what the live
view showed.

The departments around the slot floor (issue 32) are kept from their records too
(:class:`HallState`): the door's entries and refusals, each table's and card room's state,
dealer and figures, the cage's transactions by window (a cashier's), the count, the junkets
in, the premium room (its players, accounts, deposits and sessions), and the figures of the
AML desk and of surveillance, which have no place on the floor (the sidebar shows them). A
patron refused at the door, or whose visit was a table's or the card room's, leaves no
``patron_left``: the record that ends their visit there (the refusal, the stretch, the
session) takes them off the floor, so "inside" and "waiting" count only who is inside.

Some things the records write only when they end: a stretch at a table, a card room session,
a junket table's session, a wait for a machine. Live, :meth:`FloorModel.observe` reads them
from the live world between steps (read only, on the main thread, while SimPy is not
running): the players seated at each table now, the patrons waiting for a machine, the junket
members waiting for a seat, the premium table each player in the room sits at (a session is
recorded once, at the day's cash-in). A replay derives the same from the whole ledger
(:func:`stays`: a stay began at the patron's record before it), so it shows what the live
view showed (a test holds them together). Apart from :meth:`FloorModel.observe`, nothing
here touches SimPy or the casino's objects.
"""

from __future__ import annotations

import bisect
import json
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from twin.clock import Clock
from twin.machines.sas import ExceptionCode
from twin.records import Record
from twin.state import MACHINE_KINDS, MachineReplay, MachineState
from viz.palette import IDLE, State, state_of

Doc = Mapping[str, Any]

TICKER_LINES = 200
HISTORY_LINES = 14
#: simulated seconds a patron is drawn walking between the entrance and their machine
PATRON_WALK_SECONDS = 60.0
_EXC_NAMES = {int(c): c.name.lower() for c in ExceptionCode}


@dataclass(eq=False, slots=True)
class MachineView:
    """One machine as the viewer knows it."""

    id: str
    bank: str
    zone: str
    game: str = ""
    denomination_cents: int = 0
    replay: MachineReplay | None = None
    patron: str = ""
    seated_t: float = 0.0  # when the patron's session started (their walk in began)
    locked: bool = False
    staff: dict[str, str] = field(default_factory=dict)  # member -> job kind
    #: (time, record body) of its latest notable records; the lines are made when shown
    history: deque[tuple[float, Doc]] = field(default_factory=lambda: deque(maxlen=HISTORY_LINES))
    state: State = IDLE

    def machine_state(self, t: float) -> MachineState:
        """The machine's state now, exactly as ``twin state`` would give it."""
        if self.replay is None:
            return MachineReplay(self.id).state(t)
        return self.replay.state(t)

    def refresh(self) -> bool:
        """Recompute the state drawn; whether it changed."""
        down = self.replay.down if self.replay is not None else set()
        installed = self.replay is not None and self.replay.acc is not None
        before = self.state
        self.state = state_of(down, bool(self.patron), self.locked) if installed else IDLE
        return self.state is not before

    def history_lines(self, clock: Clock) -> list[str]:
        """Its recent history, newest first, one line a record."""
        out = []
        for t, d in reversed(self.history):
            line = describe(d) if d["kind"] != "finding" else f"FINDING {d['control']}"
            out.append(f"{clock.at(t):%H:%M:%S} {line}")
        return out


@dataclass(slots=True)
class WaitingJob:
    id: str
    kind: str
    machine: str
    t: float
    mode: str
    roles: tuple[str, ...]


@dataclass(slots=True)
class Kpis:
    visitors: int = 0
    on_floor: int = 0
    games: int = 0
    coin_in_cents: int = 0
    won_cents: int = 0
    hand_pays: int = 0
    fills: int = 0
    findings: int = 0
    commands: int = 0
    refused: int = 0

    @property
    def hold_percent(self) -> float | None:
        if not self.coin_in_cents:
            return None
        return 100.0 * (self.coin_in_cents - self.won_cents) / self.coin_in_cents


@dataclass(slots=True)
class LifecycleState:
    """Machines' lives as the records tell them (issue 27): the reserve store, the works
    waiting for the Board's written approval, suspended machines, where the certificate is."""

    active: bool = False  # a run with a [lifecycle]: its licence event was seen
    store: set[str] = field(default_factory=set)
    store_locked: bool = True
    #: work -> (matter, machine, requested at)
    awaiting: dict[str, tuple[str, str, float]] = field(default_factory=dict)
    suspended: set[str] = field(default_factory=set)
    certificate_with_board: bool = False
    registered: int = 0


#: the states a licence is counted in (as the licensing KPIs count them)
LICENCE_STATES = ("full", "provisional", "suspended", "ceased")


@dataclass(frozen=True, slots=True)
class LicensingCase:
    """A case on a ground for cancellation or suspension, open since it was reported: the
    show-cause notice's due time once issued, an imposed term's once the Board acts with one
    (-1: none yet)."""

    member: str
    ground: str
    reported_t: float
    show_cause_due_t: float = -1.0
    term_due_t: float = -1.0


@dataclass(slots=True)
class LicensingState:
    """Employees under licence as the records tell them (issue 28): each licence's state,
    who may not work now and why, who covers another grade, the open cases."""

    active: bool = False  # a run with [licensing]: its licensing_on_file was seen
    #: licence -> its state (one of :data:`LICENCE_STATES`); licence -> full or provisional
    licences: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    #: member -> why their last shift came on without them (until they come on duty)
    barred: dict[str, str] = field(default_factory=dict)
    covering: dict[str, str] = field(default_factory=dict)  # member -> the role covered
    cases: dict[str, LicensingCase] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Licences by state, every state named (0 when none)."""
        out = dict.fromkeys(LICENCE_STATES, 0)
        for state in self.licences.values():
            out[state] += 1
        return out


#: simulated seconds a refused entrant is drawn walking away from the door
REFUSED_WALK_SECONDS = 60.0
#: simulated seconds a cage window is drawn serving the patron of its last transaction (the
#: record is written as the transaction completes; about the scenario's mode of 2 minutes)
WINDOW_SHOWN_SECONDS = 120.0
#: simulated seconds the count room is drawn at work after a count's records
COUNT_SHOWN_SECONDS = 1800.0
#: the last players of a table kept for its panel
TABLE_LAST = 8


@dataclass(slots=True)
class TableView:
    """A gaming table, a card room area or a junket room table as its records tell it
    (``kind`` "table", "card_room", "junket" or "premium"); ``seated`` is the live world's
    (:meth:`FloorModel.observe`): a stretch's record is written when it ends."""

    id: str
    kind: str = "table"
    game: str = ""
    open: bool = False
    dealer: str = ""
    inspector: str = ""
    min_stake_cents: int = 0
    max_stake_cents: int = 0
    seats: int = 0  # 0: not known (a replay)
    seated: int = 0
    opened_t: float = -1.0
    stretches: int = 0  # sittings ended (stretches, card room sessions)
    drop_cents: int = 0  # buy-ins into the drop box since the last count
    handle_cents: int = 0
    win_cents: int = 0  # the table's result (the players' net, negated); card room: charges
    last: deque[tuple[float, str, int]] = field(default_factory=lambda: deque(maxlen=TABLE_LAST))


@dataclass(slots=True)
class WindowView:
    """A cage window: the cashier on duty at it, and its last transaction."""

    cashier: str
    served: int = 0
    last_t: float = -1.0
    patron: str = ""
    txn_kind: str = ""
    amount_cents: int = 0


@dataclass(slots=True)
class HallState:
    """The departments around the slot floor (issue 32), from their records: the door, the
    pit's tables and card room, the cage's windows and count room, the junket room."""

    home: str = ""  # this licensee's casino (the door's records name it)
    door: bool = False  # a run with a door: casino_licensed was seen
    entries: int = 0
    refusals: dict[str, int] = field(default_factory=dict)  # reason -> refused
    #: entrants refused, drawn walking away: person -> (reason, when)
    leaving: dict[str, tuple[str, float]] = field(default_factory=dict)
    #: arrived, the door not yet decided (the twin's door takes no time: empty between events)
    at_door: dict[str, float] = field(default_factory=dict)
    tables: dict[str, TableView] = field(default_factory=dict)
    pit_tables: set[str] = field(default_factory=set)  # the pit's (pit_configured)
    cage: bool = False  # a run with a cage: a cashier came on duty or a cage record was seen
    transactions: int = 0
    txn_cents: dict[str, int] = field(default_factory=dict)  # txn_kind -> amount
    txn_count: dict[str, int] = field(default_factory=dict)
    windows: dict[str, WindowView] = field(default_factory=dict)  # cashier -> window
    #: the last count: when, containers and tables counted, cents, variance, the team
    count_t: float = -1.0
    counted: int = 0
    counted_cents: int = 0
    count_variance_cents: int = 0
    count_team: tuple[str, ...] = ()
    #: junkets in the casino: junket -> (leader, members)
    junkets: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    junket_groups: int = 0  # groups come in over the run
    junket_leaders: set[str] = field(default_factory=set)
    #: patrons waiting for a machine now (live, or derived from the whole ledger in a replay)
    machine_queue: int | None = None
    #: live only: junket members waiting for a seat at a junket room table (None: not known)
    seat_queue: int | None = None
    #: the premium room (issue 32): a run with one (its players' registrations were seen)
    premium: bool = False
    premium_players: set[str] = field(default_factory=set)
    #: player -> "premium" or "ended", from the desk's decisions (history included)
    premium_status: dict[str, str] = field(default_factory=dict)
    accounts_open: set[str] = field(default_factory=set)
    #: players in the room now: chips drawn for the evening's session (t > 0), the session
    #: not yet recorded (it is, once, at the day's cash-in): player -> when they came in
    premium_in: dict[str, float] = field(default_factory=dict)
    #: by calendar day (the records' ``day``): deposits made (count, cents), sessions recorded
    deposits_by_day: dict[str, tuple[int, int]] = field(default_factory=dict)
    sessions_by_day: dict[str, int] = field(default_factory=dict)
    premium_sessions: int = 0
    premium_win_cents: int = 0
    #: the AML desk (issue 32, its figures in the sidebar): red flags observed, internal
    #: reports (case -> patron) not yet evaluated, evaluations by decision, suspicion reports
    #: by recipient
    aml: bool = False
    red_flags: int = 0
    aml_open: dict[str, str] = field(default_factory=dict)
    internal_reports: int = 0
    evaluations: dict[str, int] = field(default_factory=dict)
    suspicions: dict[str, int] = field(default_factory=dict)
    #: surveillance (its figures in the sidebar): cameras, recordings made and recycled, the
    #: recordings held as evidence now, the cases open, requests produced or refused
    cameras: set[str] = field(default_factory=set)
    recordings_made: int = 0
    recordings_recycled: int = 0
    held: dict[str, str] = field(default_factory=dict)  # recording -> case
    cases_open: set[str] = field(default_factory=set)
    cases_opened: int = 0
    requests: dict[str, int] = field(default_factory=dict)  # "produced" / "refused" -> count

    def table_list(self, kind: str) -> list[TableView]:
        return [tv for tv in self.tables.values() if tv.kind == kind]


class FloorModel:
    """The floor as the records tell it (see the module docstring)."""

    def __init__(self, clock: Clock, layout: Iterable[tuple[str, str, str]] = ()) -> None:
        self.clock = clock
        self.t = 0.0
        self.seq = 0
        self.machines: dict[str, MachineView] = {}
        for machine, bank, zone in layout:
            self.machines[machine] = MachineView(machine, bank, zone)
        self.order: list[str] = list(self.machines)
        self.jobs: dict[str, WaitingJob] = {}  # waiting for staff
        self.in_service: dict[str, WaitingJob] = {}
        self.on_duty: dict[str, str] = {}  # member -> role
        self.busy: set[str] = set()
        #: member -> walk to a job: (machine walked from, "" for the staff station; machine
        #: walked to; the time the job started); kept while the member is busy
        self.walks: dict[str, tuple[str, str, float]] = {}
        self.last_machine: dict[str, str] = {}  # member -> where their last job was
        #: patrons inside with no machine yet: patron -> when they came in
        self.waiting: dict[str, float] = {}
        #: patrons walking (machine, the time the walk began), from the entrance to their
        #: machine and from it back to the entrance; kept until the walk is over (see settle)
        self.walking_in: dict[str, tuple[str, float]] = {}
        self.walking_out: dict[str, tuple[str, float]] = {}
        self.ticker: deque[tuple[float, str, bool]] = deque(maxlen=TICKER_LINES)
        self.findings: list[Doc] = []
        self.kpis = Kpis()
        self.lifecycle = LifecycleState()
        self.licensing = LicensingState()
        self.hall = HallState()
        self.version = 0  # bumped on every record
        #: machines whose drawing changed since a renderer last cleared this
        self.dirty: set[str] = set(self.machines)

    # -- the sink protocol (live) --------------------------------------------------------------
    def accept(self, rec: Record) -> None:
        doc = rec.payload()
        doc["kind"] = rec.kind
        doc["seq"] = rec.seq
        doc["t"] = rec.t
        self.apply(doc)

    def close(self) -> None:
        pass

    # -- records -------------------------------------------------------------------------------
    def apply(self, d: Doc) -> None:
        kind = str(d["kind"])
        self.t = max(self.t, float(d["t"]))
        self.seq = int(d["seq"])
        self.version += 1
        machine = d.get("machine")
        m = self.machines.get(machine) if isinstance(machine, str) and machine else None
        if kind == "machine_installed":
            assert isinstance(machine, str)
            if m is None:
                m = self.machines[machine] = MachineView(machine, str(d["bank"]), str(d["zone"]))
                self.order.append(machine)
                self.dirty.add(machine)
            m.game = str(d["game_id"])
            m.denomination_cents = int(d["denomination_cents"])
            m.replay = MachineReplay(machine)
        if m is not None and kind in MACHINE_KINDS and m.replay is not None:
            m.replay.apply(d)
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, d, m)
        if m is not None:
            if kind in _NOTABLE:
                m.history.append((float(d["t"]), d))
            if m.refresh():
                self.dirty.add(m.id)

    def settle(self, now: float | None = None) -> None:
        """Bring the picture to ``now`` (live: the clock may be past the last record): walks
        over by then are dropped; a machine whose patron has just reached it is marked for
        redrawing (a seated patron is drawn with the machine)."""
        if now is not None and now > self.t:
            self.t = now
        self._expire(full=True)

    def _expire(self, full: bool = False) -> None:
        """Drop the walks over at ``self.t``: all of them, or (``full`` False, on every
        patron record) those at the front of the dicts, which are in record order."""
        for walks, arriving in ((self.walking_in, True), (self.walking_out, False)):
            if full:
                over = [p for p, (_m, t0) in walks.items() if self._walked(t0)]
            else:
                over = []
                for p, (_m, t0) in walks.items():
                    if not self._walked(t0):
                        break
                    over.append(p)
            for patron in over:
                machine, _t0 = walks.pop(patron)
                if arriving:
                    self.dirty.add(machine)

    def _walked(self, t0: float) -> bool:
        """Whether a walk begun at ``t0`` is over now."""
        return t0 + PATRON_WALK_SECONDS <= self.t

    def seated(self, m: MachineView) -> bool:
        """Whether ``m``'s patron has reached it (their walk in is over)."""
        return bool(m.patron) and self._walked(m.seated_t)

    def patron_walk(self, patron: str) -> tuple[str, float, bool] | None:
        """A walking patron's (machine, share of the walk done, walking in), or None."""
        walk = self.walking_in.get(patron)
        arriving = walk is not None
        if walk is None:
            walk = self.walking_out.get(patron)
        if walk is None:
            return None
        machine, t0 = walk
        if self._walked(t0):
            return None
        return machine, max(0.0, (self.t - t0) / PATRON_WALK_SECONDS), arriving

    def say(self, d: Doc, text: str, finding: bool = False) -> None:
        self.ticker.append((float(d["t"]), text, finding))

    def observe(self, casino: Any) -> None:
        """What the records write only when it ends, read from the live world between steps
        (read only, on the main thread, while SimPy is not running): the players seated at
        each table and card room now, and the patrons waiting for a machine. A replay has no
        live world: it shows what the records say."""
        hall = self.hall
        pit = getattr(casino, "pit", None)
        if pit is not None:
            for tid, table in pit.tables.items():
                tv = hall.tables.setdefault(tid, TableView(tid))
                tv.seated, tv.seats = int(table.seated), int(table.seats)
                if tv.open and table.dealer:  # a relief changes the dealer with no record
                    tv.dealer = str(table.dealer)
            for rid, room in pit.rooms.items():
                tv = hall.tables.setdefault(rid, TableView(rid, "card_room"))
                tv.seated, tv.seats, tv.open = int(room.seated), int(room.cfg.seats), room.is_open
        junkets = getattr(casino, "junkets", None)
        if junkets is not None:
            for table in junkets.tables:
                tv = hall.tables.setdefault(table.id, TableView(table.id, "junket"))
                tv.seated, tv.seats = int(table.seats.count), int(table.seats.capacity)
            hall.seat_queue = sum(len(table.seats.queue) for table in junkets.tables)
        room = getattr(casino, "premium", None)
        if room is not None:
            by_id = {p.id: p for p in room.players}
            seated: dict[str, int] = dict.fromkeys(room.tables, 0)
            for player in hall.premium_in:
                p = by_id.get(player)
                if p is not None:  # the table its visit took
                    seated[room.table_of(p)] += 1
            for tid in room.tables:
                tv = hall.tables.setdefault(tid, TableView(tid, "premium"))
                tv.game, tv.seated = str(room.game.id), seated[tid]
        slots = getattr(casino, "slots", None)
        if slots is not None:
            hall.machine_queue = round(slots.floor.queue.level)

    # -- what the panels ask ---------------------------------------------------------------------
    def whereabouts(self) -> dict[str, int]:
        """Where the patrons inside are, each counted once: at the door, walking to or from a
        machine, seated at one, at a table, in the card room, waiting for a machine (live), and
        the rest (at the cage or between places: the records say where only when it ends)."""
        hall = self.hall
        at_machine = sum(1 for m in self.machines.values() if m.patron)
        walking_in = sum(1 for p in self.walking_in if self.patron_walk(p) is not None)
        tables = sum(tv.seated for tv in hall.table_list("table"))
        rooms = sum(tv.seated for tv in hall.table_list("card_room"))
        queue = hall.machine_queue
        unplaced = len(self.waiting) - len(hall.at_door)
        out = {
            "at the door": len(hall.at_door),
            "at a machine": at_machine - walking_in,
            "walking to a machine": walking_in,
            "at a table": tables,
            "in the card room": rooms,
        }
        if queue is None:
            out["elsewhere (cage, table, queue)"] = max(0, unplaced - tables - rooms)
        else:
            out["waiting for a machine"] = queue
            out["at the cage, between"] = max(0, unplaced - tables - rooms - queue)
        return out

    def waiting_for(self) -> dict[str, int | None]:
        """Who waits, for what: a machine (the slot floor's queue), the door (arrived, not yet
        checked), a table seat (the junket room's tables; the pit's never make a patron wait:
        one who finds no seat plays the slots), a cage window (the twin's cage serves at once:
        0). None: not known (a junket seat's wait is not in the records: live only)."""
        hall = self.hall
        return {
            "a machine": hall.machine_queue,
            "the door": len(hall.at_door),
            "a table seat": hall.seat_queue,
            "a cage window": 0 if hall.cage else None,
        }

    def waiting_label(self) -> str:
        """What the entrance's label says: live, how many wait for a machine (none: no
        label); in a replay, how many are inside not at a machine (the records say where
        only when it ends)."""
        queue = self.hall.machine_queue
        if queue is not None:
            return f"{queue} waiting for a machine" if queue else ""
        n = len(self.waiting) - len(self.hall.at_door)
        return f"{n} inside, not at a machine" if n > 0 else ""

    def today(self) -> str:
        """The calendar day now (ISO, in the scenario's time zone), as the records' ``day``."""
        return self.clock.at(self.t).date().isoformat()

    def premium_figures(self) -> list[str]:
        """The premium room's key figures (the sidebar's), from the records: players with
        premium status, accounts open, players in the room now, deposits and sessions today
        (S$: the room's records are in Singapore cents)."""
        hall = self.hall
        today = self.today()
        status = sum(1 for v in hall.premium_status.values() if v == "premium")
        n, cents = hall.deposits_by_day.get(today, (0, 0))
        sessions = hall.sessions_by_day.get(today, 0)
        return [
            f"premium: {status} of {len(hall.premium_players)} players premium, "
            f"{len(hall.accounts_open)} accounts open",
            f"  {len(hall.premium_in)} in the room; today {n} deposits S$ {cents / 100:,.0f}, "
            f"{sessions} sessions",
            f"  {hall.premium_sessions} sessions over the run, room won "
            f"S$ {hall.premium_win_cents / 100:,.0f}",
        ]

    def aml_figures(self) -> list[str]:
        """The AML desk's key figures (the sidebar's): red flags, internal reports awaiting
        the Reporting Officer's evaluation, evaluations by decision, suspicion reports by
        recipient (the police, the Board's MLLO), all over the run so far."""
        hall = self.hall
        ev = hall.evaluations
        sus = hall.suspicions
        return [
            f"AML: {len(hall.aml_open)} internal reports open of {hall.internal_reports}, "
            f"{hall.red_flags} red flags",
            f"  evaluated {sum(ev.values())} ({ev.get('suspicious', 0)} suspicious), "
            f"reported {sum(sus.values())} (police {sus.get('police', 0)}, "
            f"Board {sus.get('board_mllo', 0)})",
        ]

    def surveillance_figures(self) -> list[str]:
        """Surveillance's key figures (the sidebar's): cameras, recordings kept (made less
        recycled) and held as evidence, cases open, requests for recordings answered."""
        hall = self.hall
        req = hall.requests
        kept = hall.recordings_made - hall.recordings_recycled
        return [
            f"surveillance: {len(hall.cameras)} cameras; recordings {hall.recordings_made:,} "
            f"made, {kept:,} kept, {len(hall.held)} held",
            f"  cases {len(hall.cases_open)} open of {hall.cases_opened}; requests "
            f"{req.get('produced', 0)} produced, {req.get('refused', 0)} refused",
        ]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for m in self.machines.values():
            out[m.state.key] = out.get(m.state.key, 0) + 1
        return out

    def queues(self) -> dict[str, list[WaitingJob]]:
        out: dict[str, list[WaitingJob]] = {}
        for job in sorted(self.jobs.values(), key=lambda j: (j.t, j.id)):
            out.setdefault(job.kind, []).append(job)
        return out

    def idle_staff(self, role: str) -> list[str]:
        return sorted(m for m, r in self.on_duty.items() if r == role and m not in self.busy)

    def staff_by_role(self) -> dict[str, tuple[int, int]]:
        """role -> (on duty, busy)."""
        out: dict[str, tuple[int, int]] = {}
        for member, role in self.on_duty.items():
            on, busy = out.get(role, (0, 0))
            out[role] = (on + 1, busy + (member in self.busy))
        return out


def _on_exception(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    code = int(d["code"])
    if code == ExceptionCode.HANDPAY_RESET and m is not None:
        m.locked = False
    if code not in (ExceptionCode.HANDPAY_RESET,) and m is not None:
        name = str(d["name"]).replace("_", " ")
        if "door" not in name or d.get("staff") in ("", "operator"):
            model.say(d, f"{m.id}: {name}")


def _on_session(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    patron = str(d["patron"])
    model.waiting.pop(patron, None)
    if m is not None:
        m.patron = patron
        m.seated_t = float(d["t"])
        model._expire()
        model.walking_in[patron] = (m.id, m.seated_t)


def _on_left(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.kpis.on_floor = max(0, model.kpis.on_floor - 1)
    patron = str(d["patron"])
    model.waiting.pop(patron, None)
    model.walking_in.pop(patron, None)
    if m is not None and m.patron == patron:
        m.patron = ""
        model._expire()
        model.walking_out[patron] = (m.id, float(d["t"]))


def _on_arrived(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.kpis.visitors += 1
    model.kpis.on_floor += 1
    model.waiting[str(d["patron"])] = float(d["t"])
    if model.hall.door:
        model.hall.at_door[str(d["patron"])] = float(d["t"])


def _on_games(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    denom = m.denomination_cents if m is not None else 0
    model.kpis.games += int(d["games"])
    model.kpis.coin_in_cents += int(d["wagered"]) * denom
    model.kpis.won_cents += int(d["won"]) * denom


def _on_locked(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    if m is not None:
        m.locked = True
        model.say(d, f"{m.id}: locked, {d['reason']} of {_money(int(d['prize_cents']))}")


def _on_hand_paid(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.kpis.hand_pays += 1
    if m is not None:
        m.locked = False
        model.say(d, f"{d['machine']}: hand paid {_money(int(d['cents']))} ({d['reason']})")


def _on_filled(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    if d["reason"] != "new":
        model.kpis.fills += 1
        model.say(d, f"{d['machine']}: hopper filled, {d['coins']} coins")


def _on_job_requested(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    job = WaitingJob(
        str(d["job_id"]),
        str(d["job_kind"]),
        str(d["machine"]),
        float(d["t"]),
        str(d["mode"]),
        tuple(d["roles"]),
    )
    model.jobs[job.id] = job
    if job.mode == "operator":
        model.say(d, f"{job.machine}: {job.kind.replace('_', ' ')} waits for you ({job.id})")


def _on_job_started(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    job = model.jobs.pop(str(d["job_id"]), None)
    if job is not None:
        model.in_service[job.id] = job
    for member in map(str, d["members"]):
        model.busy.add(member)
        if m is not None:
            m.staff[member] = str(d["job_kind"])
            model.walks[member] = (model.last_machine.get(member, ""), m.id, float(d["t"]))


def _on_job_completed(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.in_service.pop(str(d["job_id"]), None)
    for member in map(str, d["members"]):
        model.busy.discard(member)
        model.walks.pop(member, None)
        if m is not None:
            m.staff.pop(member, None)
            model.last_machine[member] = m.id


def _on_shift_started(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.on_duty[str(d["member"])] = str(d["role"])
    if d["role"] == "cashier":
        model.hall.cage = True
    model.licensing.barred.pop(str(d["member"]), None)  # on duty: they may work


def _on_shift_ended(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.on_duty.pop(str(d["member"]), None)


def _on_finding(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.kpis.findings += 1
    model.findings.append(d)
    model.say(d, f"FINDING {d['control']}: {d['message']}", finding=True)
    for subject in d["subjects"]:
        sm = model.machines.get(str(subject))
        if sm is not None:
            sm.history.append((float(d["t"]), d))


def _on_command(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    if d["source"] == "scenario":
        return
    accepted = d["kind"] == "command_accepted"
    if accepted:
        model.kpis.commands += 1
    else:
        model.kpis.refused += 1
    args = _args_text(str(d["args"]))
    verdict = "" if accepted else f" REFUSED: {d['reason']}"
    model.say(d, f"{d['source']}: {d['command']} {args}{verdict}", finding=not accepted)


def _on_removed(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    model.say(d, f"{d['machine']}: {d['kind'].replace('_', ' ')}")


def _on_lifecycle(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    """The lifecycle's records (issue 27) as :class:`LifecycleState`."""
    lc = model.lifecycle
    kind = d["kind"]
    machine = str(d.get("machine", ""))
    if kind == "casino_licence_event":
        lc.active = True
    elif kind == "machine_stored":
        lc.store.add(machine)
        lc.store_locked = bool(d["locked"])
    elif kind == "store_audited":
        lc.store = set(map(str, d["machines"]))
        lc.store_locked = bool(d["locked"])
    elif kind in ("machine_replaced", "machine_disposed"):
        lc.store.discard(machine)
        model.say(d, f"{machine}: {kind.replace('machine_', '')}")
    elif kind == "approval_requested":
        lc.awaiting[str(d["work"])] = (str(d["matter"]), machine, float(d["t"]))
    elif kind == "board_decided":
        lc.registered = int(d["registered"])
        if d["decision"] == "approved":
            lc.awaiting.pop(str(d["work"]), None)
    elif kind == "approval_suspended":
        lc.suspended.add(machine)
        model.say(d, f"{machine}: approval suspended by the Board")
    elif kind == "approval_restored":
        lc.suspended.discard(machine)
    elif kind == "certificate_produced":
        lc.certificate_with_board = not bool(d["returned"])


def _on_licensing(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    """The licensing department's records (issue 28), and the staff's missed duties, as
    :class:`LicensingState` (a member's coming on duty is :func:`_on_shift_started`'s)."""
    lic = model.licensing
    kind = d["kind"]
    member = str(d.get("member", ""))
    if kind == "licensing_on_file":
        lic.active = True
    elif kind in ("employee_licence_on_file", "employee_licence_issued"):
        lic.licences[str(d["licence"])] = lic.kinds[str(d["licence"])] = str(d["licence_kind"])
    elif kind == "employee_licence_ceased":
        lic.licences[str(d["licence"])] = "ceased"
    elif kind == "employee_licence_suspended":
        lic.licences[str(d["licence"])] = "suspended"
        model.say(d, f"{member}: licence {d['licence']} suspended")
    elif kind == "employee_suspension_ended":
        lic.licences[str(d["licence"])] = lic.kinds.get(str(d["licence"]), "full")
    elif kind == "duty_missed":
        lic.barred[member] = str(d["reason"])
    elif kind == "employee_role_assigned":
        if d["reason"] == "cover":
            lic.covering[member] = str(d["role"])
        elif d["reason"] == "cover_end":
            lic.covering.pop(member, None)
    elif kind == "licence_ground_reported":
        lic.cases[str(d["case"])] = LicensingCase(member, str(d["ground"]), float(d["t"]))
    elif kind in ("show_cause_issued", "licence_action") and str(d["case"]) in lic.cases:
        case = str(d["case"])
        if kind == "show_cause_issued":
            lic.cases[case] = replace(lic.cases[case], show_cause_due_t=float(d["due_t"]))
        elif d["outcome"] in ("vary", "condition"):  # open until the term is complied with
            lic.cases[case] = replace(lic.cases[case], term_due_t=float(d["term_due_t"]))
        else:
            del lic.cases[case]
    elif kind == "licence_term_complied" or (kind == "licence_case_opened" and d["dispensed"]):
        lic.cases.pop(str(d["case"]), None)


def _home(model: FloorModel, d: Doc) -> bool:
    """Whether a door record is this casino's (a peer's door is not drawn)."""
    return not model.hall.home or str(d["casino"]) == model.hall.home


def _gone(model: FloorModel, patron: str) -> None:
    """A visit that ends with no ``patron_left`` (refused at the door, or played at a table or
    in the card room): the patron is no longer inside."""
    if model.waiting.pop(patron, None) is not None:
        model.kpis.on_floor = max(0, model.kpis.on_floor - 1)


def _on_door(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    hall = model.hall
    kind = d["kind"]
    if kind == "casino_licensed":
        hall.door = True
        if d["home"]:
            hall.home = str(d["casino"])
        return
    if not _home(model, d):
        return
    person = str(d["person"])
    if kind == "entry_admitted":
        hall.at_door.pop(person, None)
        if d["purpose"] == "play":
            hall.entries += 1
    elif kind == "entry_refused":
        hall.at_door.pop(person, None)
        reason = str(d["reason"])
        hall.refusals[reason] = hall.refusals.get(reason, 0) + 1
        now = float(d["t"])
        over = [p for p, (_r, t0) in hall.leaving.items() if t0 + REFUSED_WALK_SECONDS <= now]
        for p in over:
            del hall.leaving[p]
        hall.leaving[person] = (reason, now)
        _gone(model, person)
        model.say(d, f"door: {person} refused ({reason.replace('_', ' ')})")


def _table(model: FloorModel, tid: str, kind: str = "table") -> TableView:
    tv = model.hall.tables.get(tid)
    if tv is None:
        tv = model.hall.tables[tid] = TableView(tid, kind)
    return tv


def _on_pit(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    kind = d["kind"]
    if kind == "pit_configured":
        for tid in d["tables"]:
            _table(model, str(tid)).kind = "table"
            model.hall.pit_tables.add(str(tid))
    elif kind == "card_room_approved":
        _table(model, str(d["area"]), "card_room")
    elif kind == "table_stakes":
        tid = str(d["table"])
        hall = model.hall
        tv = _table(
            model, tid, "junket" if hall.pit_tables and tid not in hall.pit_tables else "table"
        )
        tv.game = str(d["game"])
        tv.min_stake_cents, tv.max_stake_cents = (
            int(d["min_stake_cents"]),
            int(d["max_stake_cents"]),
        )
    elif kind == "table_opened":
        tv = _table(model, str(d["table"]))
        tv.open, tv.dealer, tv.inspector = True, str(d["dealer"]), str(d["inspector"])
        tv.game, tv.opened_t = str(d["game"]), float(d["t"])
        model.say(d, f"{tv.id}: table opened, dealer {tv.dealer}")
    elif kind == "table_closed":
        tv = _table(model, str(d["table"]))
        tv.open, tv.dealer, tv.inspector, tv.seated = False, "", "", 0
        model.say(d, f"{tv.id}: table closed")
    elif kind == "table_stretch":
        tv = _table(model, str(d["table"]))
        if tv.open:
            tv.dealer = str(d["dealer"])  # a relief is seen in the stretches it deals
        tv.stretches += 1
        tv.drop_cents += int(d["buy_in_cents"])
        tv.handle_cents += int(d["handle_cents"])
        tv.win_cents -= int(d["net_cents"])
        tv.last.append((float(d["t"]), str(d["patron"]), int(d["net_cents"])))
        _gone(model, str(d["patron"]))
    elif kind == "card_room_opened":
        tv = _table(model, str(d["area"]), "card_room")
        tv.open, tv.opened_t = True, float(d["t"])
    elif kind == "card_room_session":
        tv = _table(model, str(d["area"]), "card_room")
        tv.stretches += 1
        tv.win_cents += int(d["charged_cents"])
        tv.last.append((float(d["t"]), str(d["patron"]), -int(d["charged_cents"])))
        _gone(model, str(d["patron"]))
    elif kind == "table_count":
        _table(model, str(d["table"])).drop_cents = 0
        _on_count(model, d, int(d["drop_cents"]), int(d["variance_cents"]), d["members"])
    elif kind in ("play_refused", "device_sanction"):
        _gone(model, str(d["patron"]))
    elif kind in ("device_detected", "unapproved_item_detected"):
        _gone(model, str(d["patron"]))
        model.say(d, f"{d['table']}: {kind.replace('_', ' ')} ({d['patron']})", finding=True)


def _on_count(model: FloorModel, d: Doc, cents: int, variance: int, team: Any) -> None:
    hall = model.hall
    t = float(d["t"])
    if t != hall.count_t:
        if hall.count_t < 0 or t - hall.count_t > COUNT_SHOWN_SECONDS:
            hall.counted = hall.counted_cents = hall.count_variance_cents = 0
        hall.count_t = t
    hall.counted += 1
    hall.counted_cents += cents
    hall.count_variance_cents += variance
    hall.count_team = tuple(map(str, team))


def _on_cage(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    hall = model.hall
    hall.cage = True
    if d["kind"] == "drop_counted":
        team = tuple(d["team"]) + ((str(d["witness"]),) if d["witness"] else ())
        _on_count(model, d, int(d["counted_cents"]), int(d["variance_cents"]), team)
        return
    cashier = str(d["cashier"])
    kind = str(d["txn_kind"])
    hall.transactions += 1
    hall.txn_count[kind] = hall.txn_count.get(kind, 0) + 1
    hall.txn_cents[kind] = hall.txn_cents.get(kind, 0) + int(d["amount_cents"])
    w = hall.windows.get(cashier)
    if w is None:
        w = hall.windows[cashier] = WindowView(cashier)
    w.served += 1
    w.last_t, w.patron, w.txn_kind = float(d["t"]), str(d["patron"]), kind
    w.amount_cents = int(d["amount_cents"])


def _on_junket(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    hall = model.hall
    kind = d["kind"]
    if kind in ("junket_leader_licensed", "junket_representative_registered"):
        hall.junket_leaders.add(str(d["leader"]))
    elif kind == "junket_arrived":
        hall.junkets[str(d["junket"])] = (str(d["leader"]), tuple(map(str, d["members"])))
        hall.junket_groups += 1
        model.say(d, f"junket {d['junket']} arrived, {len(d['members'])} members")
    elif kind == "junket_table_played":
        tv = _table(model, str(d["table"]), "junket")
        tv.stretches += 1
        tv.handle_cents += int(d["staked_cents"])
        tv.win_cents -= int(d["net_cents"])
        tv.last.append((float(d["t"]), str(d["player"]), int(d["net_cents"])))
    elif kind == "junket_departed":
        hall.junkets.pop(str(d["junket"]), None)
        model.say(d, f"junket {d['junket']} departed")


def _on_premium(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    hall = model.hall
    kind = d["kind"]
    player = str(d["player"])
    hall.premium = True
    if kind == "premium_player_registered":
        hall.premium_players.add(player)
    elif kind == "deposit_account_opened":
        hall.accounts_open.add(str(d["account"]))
    elif kind == "deposit_account_closed":
        hall.accounts_open.discard(str(d["account"]))
    elif kind == "premium_status_decided":
        hall.premium_status[player] = "ended" if d["decision"] == "ended" else "premium"
    elif kind == "premium_deposit_made":
        n, cents = hall.deposits_by_day.get(str(d["day"]), (0, 0))
        hall.deposits_by_day[str(d["day"])] = (n + 1, cents + int(d["amount_cents"]))
    elif kind == "premium_drawdown":
        if d["purpose"] == "chips" and float(d["t"]) > 0:  # (history's play is off the room)
            hall.premium_in[player] = float(d["t"])
    elif kind == "premium_played":
        hall.premium_in.pop(player, None)
        day = str(d["day"])
        hall.sessions_by_day[day] = hall.sessions_by_day.get(day, 0) + 1
        hall.premium_sessions += 1
        hall.premium_win_cents -= int(d["net_cents"])
        tv = _table(model, str(d["table"]), "premium")
        tv.game = str(d["game"])
        tv.stretches += 1
        tv.handle_cents += int(d["staked_cents"])
        tv.win_cents -= int(d["net_cents"])
        tv.last.append((float(d["t"]), player, int(d["net_cents"])))


def _on_aml(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    hall = model.hall
    kind = d["kind"]
    hall.aml = True
    if kind == "red_flag_observed":
        hall.red_flags += 1
    elif kind == "internal_report":
        hall.internal_reports += 1
        hall.aml_open[str(d["case"])] = str(d["patron"])
    elif kind == "ro_evaluation":
        hall.aml_open.pop(str(d["case"]), None)
        decision = str(d["decision"])
        hall.evaluations[decision] = hall.evaluations.get(decision, 0) + 1
    elif kind == "suspicion_reported":
        recipient = str(d["recipient"])
        hall.suspicions[recipient] = hall.suspicions.get(recipient, 0) + 1
        model.say(d, f"AML: suspicion of {d['patron']} reported to the {recipient}")


def _on_surveillance(model: FloorModel, d: Doc, m: MachineView | None) -> None:
    hall = model.hall
    kind = d["kind"]
    if kind == "camera_installed":
        hall.cameras.add(str(d["camera"]))
    elif kind == "recording_made":
        hall.recordings_made += 1
    elif kind == "recording_recycled":
        hall.recordings_recycled += 1
    elif kind == "case_opened":
        hall.cases_open.add(str(d["case"]))
        hall.cases_opened += 1
    elif kind == "recording_held":
        hall.held[str(d["recording"])] = str(d["case"])
    elif kind == "case_closed":
        hall.cases_open.discard(str(d["case"]))
        for rec in d["recordings"]:
            if hall.held.get(str(rec)) == str(d["case"]):
                del hall.held[str(rec)]
    elif kind in ("recording_produced", "recording_request_refused"):
        what = "produced" if kind == "recording_produced" else "refused"
        hall.requests[what] = hall.requests.get(what, 0) + 1


_PREMIUM_KINDS = (
    "premium_player_registered", "deposit_account_opened", "deposit_account_closed",
    "premium_status_decided", "premium_deposit_made", "premium_drawdown", "premium_played",
)  # fmt: skip
_AML_KINDS = (
    "reporting_officer_appointed",
    "red_flag_observed",
    "internal_report",
    "ro_evaluation",
    "suspicion_reported",
)
_SURVEILLANCE_KINDS = (
    "camera_installed", "recording_made", "recording_recycled", "case_opened",
    "recording_held", "case_closed", "recording_produced", "recording_request_refused",
)  # fmt: skip

_DOOR_KINDS = ("casino_licensed", "entry_admitted", "entry_refused")
_PIT_KINDS = (
    "pit_configured", "card_room_approved", "table_stakes", "table_opened", "table_closed",
    "table_stretch", "card_room_opened", "card_room_session", "table_count", "play_refused",
    "device_sanction", "device_detected", "unapproved_item_detected",
)  # fmt: skip
_JUNKET_KINDS = (
    "junket_leader_licensed", "junket_representative_registered", "junket_arrived",
    "junket_table_played", "junket_departed",
)  # fmt: skip

_LICENSING_KINDS = (
    "licensing_on_file", "employee_licence_on_file", "employee_licence_issued",
    "employee_licence_ceased", "employee_licence_suspended", "employee_suspension_ended",
    "duty_missed", "employee_role_assigned", "licence_ground_reported", "show_cause_issued",
    "licence_action", "licence_term_complied", "licence_case_opened",
)  # fmt: skip

_LIFECYCLE_KINDS = (
    "casino_licence_event", "machine_stored", "store_audited", "machine_replaced",
    "machine_disposed", "approval_requested", "board_decided", "approval_suspended",
    "approval_restored", "certificate_produced",
)  # fmt: skip

_HANDLERS = {
    "machine_exception": _on_exception,
    "session_started": _on_session,
    "patron_left": _on_left,
    "patron_arrived": _on_arrived,
    "games_played": _on_games,
    "machine_locked": _on_locked,
    "hand_paid": _on_hand_paid,
    "hopper_filled": _on_filled,
    "job_requested": _on_job_requested,
    "job_started": _on_job_started,
    "job_completed": _on_job_completed,
    "shift_started": _on_shift_started,
    "shift_ended": _on_shift_ended,
    "finding": _on_finding,
    "command_accepted": _on_command,
    "command_rejected": _on_command,
    "machine_removed": _on_removed,
    "machine_returned": _on_removed,
    **dict.fromkeys(_LIFECYCLE_KINDS, _on_lifecycle),
    **dict.fromkeys(_LICENSING_KINDS, _on_licensing),
    **dict.fromkeys(_DOOR_KINDS, _on_door),
    **dict.fromkeys(_PIT_KINDS, _on_pit),
    **dict.fromkeys(("cage_transaction", "drop_counted"), _on_cage),
    **dict.fromkeys(_JUNKET_KINDS, _on_junket),
    **dict.fromkeys(_PREMIUM_KINDS, _on_premium),
    **dict.fromkeys(_AML_KINDS, _on_aml),
    **dict.fromkeys(_SURVEILLANCE_KINDS, _on_surveillance),
}


#: kinds worth a line in a machine's history (see :func:`describe`)
_NOTABLE = frozenset(
    {
        "machine_exception", "games_played", "session_started", "patron_left", "hand_paid",
        "hopper_filled", "hopper_paid", "machine_locked", "job_requested", "job_started",
        "job_completed", "tilt_repaired", "money_removed", "cashed_out", "machine_removed",
        "machine_returned", "meters_read",
    }
)  # fmt: skip


def _args_text(args: str) -> str:
    try:
        parsed = json.loads(args)
    except ValueError:
        return args
    if not isinstance(parsed, dict):
        return args
    return " ".join(f"{k}={v}" for k, v in parsed.items() if k != "by")


def _money(cents: int) -> str:
    return f"EUR {cents / 100:,.2f}"


def describe(d: Doc) -> str:
    """One short line for a machine's history (empty: not worth a line)."""
    kind = str(d["kind"])
    if kind == "machine_exception":
        who = f" by {d['staff']}" if d.get("staff") else ""
        return f"{str(d['name']).replace('_', ' ')}{who}"
    if kind == "games_played":
        return f"{d['games']} games, won {d['won']} of {d['wagered']} cr ({d['patron']})"
    if kind == "session_started":
        return f"{d['patron']} sat down"
    if kind == "patron_left":
        return f"{d['patron']} left ({d['reason']})"
    if kind == "hand_paid":
        return f"hand paid {d['credits']} cr by {d['attendant']}, {d['inspector']}"
    if kind == "hopper_filled":
        return f"hopper fill {d['coins']} coins ({d['reason']})"
    if kind == "hopper_paid":
        return f"hopper paid {d['coins']} of {d['requested']} coins"
    if kind == "machine_locked":
        return f"locked: {d['reason']} {d['win']} cr"
    if kind in ("job_requested", "job_started", "job_completed"):
        return f"{kind.split('_')[1]} {d['job_kind'].replace('_', ' ')} {d['job_id']}"
    if kind == "tilt_repaired":
        return f"tilt {d['name']} repaired by {d['technician']}"
    if kind == "money_removed":
        return f"{d['container']} emptied by {d['staff']}"
    if kind in ("cashed_out", "machine_removed", "machine_returned", "meters_read"):
        return kind.replace("_", " ")
    return ""


# -- a finished run, read from its ledger -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    t: float
    kind: str
    body: str


class LedgerReplay:
    """A finished run's ledger, replayed into a :class:`FloorModel` at any chosen time.

    The model at time ``t`` has applied, in seq order, every row with a time ``<= t``: what
    ``twin state --at t`` applies. (Row times are not always in seq order: a record may be
    written with a time earlier than the one before it, so "up to ``t``" is not a prefix of
    the ledger.) Moving forward applies the rows in between when they all come after what was
    applied; otherwise, and when moving back, the model is rebuilt from the first row.
    """

    def __init__(self, path: Path) -> None:
        from datetime import datetime

        from twin.errors import InputError
        from twin.ledger import read_meta, read_rows

        meta = read_meta(path)  # a ledger, or one clear error
        if "start" not in meta or "timezone" not in meta:
            raise InputError(path, "meta", "the run's start and timezone", "a ledger without them")
        self.path = path
        self.meta = meta
        self.clock = Clock(datetime.fromisoformat(meta["start"]), meta["timezone"])
        self.rows = [Row(*r) for r in read_rows(path)]
        if not self.rows:
            raise InputError(path, "records", "a ledger with records", "an empty ledger")
        self.by_t = sorted(self.rows, key=lambda r: (r.t, r.seq))
        self.times = [r.t for r in self.by_t]
        self.end = self.times[-1]
        self.layout = [
            (str(d["machine"]), str(d["bank"]), str(d["zone"]))
            for d in (json.loads(r.body) for r in self.rows if r.kind == "machine_installed")
        ]
        self.model = FloorModel(self.clock, self.layout)
        self.cursor = 0  # rows of by_t applied
        self.last_seq = -1
        self.stays = stays(self.by_t)
        self.stay_starts = [start for start, _end, _where in self.stays]
        self.longest_stay = max((end - start for start, end, _w in self.stays), default=0.0)
        #: the premium room's tables (and game) the ledger's sessions name, in id order: a
        #: replay knows the room's tables from the sessions played at them
        self.premium_tables: dict[str, str] = {}
        for r in self.rows:
            if r.kind == "premium_played":
                d = json.loads(r.body)
                self.premium_tables[str(d["table"])] = str(d["game"])
        self.premium_tables = dict(sorted(self.premium_tables.items()))

    def seek(self, t: float) -> FloorModel:
        """The model after every row with time ``<= t`` (in seq order)."""
        t = max(0.0, min(t, self.end))
        stop = bisect.bisect_right(self.times, t)
        new = self.by_t[self.cursor : stop] if stop >= self.cursor else None
        if new is None or (new and min(r.seq for r in new) < self.last_seq):
            self.model = FloorModel(self.clock, self.layout)
            new = [r for r in self.rows if r.t <= t]
            self.last_seq = -1
        else:
            new = sorted(new, key=lambda r: r.seq)
        for row in new:
            self.model.apply(json.loads(row.body))
            self.last_seq = max(self.last_seq, row.seq)
        self.cursor = stop
        self.model.t = t
        self.model.settle()
        self.place(self.model, t)
        return self.model

    def place(self, model: FloorModel, t: float) -> None:
        """What a live view reads from the live world (:meth:`FloorModel.observe`), from the
        whole ledger: the players seated at each table and card room at ``t``, and the patrons
        waiting for a machine (the stays that began at most the longest stay ago are read:
        per frame, the work does not grow with the ledger)."""
        seated: dict[str, int] = {}
        queue = 0
        first = bisect.bisect_left(self.stay_starts, t - self.longest_stay)
        last = bisect.bisect_right(self.stay_starts, t)
        for start, end, where in self.stays[first:last]:
            if start <= t < end:
                if where:
                    seated[where] = seated.get(where, 0) + 1
                else:
                    queue += 1
        for tid, game in self.premium_tables.items():
            tv = model.hall.tables.setdefault(tid, TableView(tid, "premium"))
            tv.game = game
        for tid, tv in model.hall.tables.items():
            tv.seated = seated.get(tid, 0)
        model.hall.machine_queue = queue


#: the records that place a patron in a visit's course: a stretch at a table, a card room
#: session or a slot session begins at the patron's last of them before it (the door, the cage
#: and the tables take the visit on with no other step in between)
_COURSE = frozenset(
    {
        "patron_arrived", "entry_admitted", "cage_transaction", "table_stretch",
        "card_room_session", "session_started", "patron_left",
    }
)  # fmt: skip


_STAY_KINDS = frozenset(
    {"junket_table_played", "casino_licensed", "premium_drawdown", "premium_played"}
)


def stays(rows: Iterable[Row]) -> list[tuple[float, float, str]]:
    """From a ledger's rows in time order: each stay in a place that its record writes only
    when it ends, as ``(start, end, place)`` sorted by start: a stretch at a table (the table's
    id; it began at the patron's record before it), a card room session (the area; ``seconds``
    long), a junket table's session (its ``started``), a premium room session (from the
    player's chips drawn for it, t > 0, to its record at the cash-in), and a wait for a
    machine (place "": from the patron's record before it to the session's start, or to
    leaving with none)."""
    last: dict[str, float] = {}
    chips: dict[str, float] = {}  # premium player -> when they drew chips for a session
    out: list[tuple[float, float, str]] = []
    home = ""
    for row in rows:
        if row.kind not in _COURSE and row.kind not in _STAY_KINDS:
            continue
        d = json.loads(row.body)
        if row.kind == "premium_drawdown":
            if d["purpose"] == "chips" and row.t > 0:
                chips[str(d["player"])] = row.t
            continue
        if row.kind == "premium_played":
            out.append((chips.pop(str(d["player"]), row.t), row.t, str(d["table"])))
            continue
        if row.kind == "casino_licensed":
            home = str(d["casino"]) if d["home"] else home
            continue
        if row.kind == "entry_admitted" and home and d["casino"] != home:
            continue  # a peer's door
        if row.kind == "junket_table_played":
            out.append((float(d["started"]), row.t, str(d["table"])))
            continue
        patron = str(d.get("patron", d.get("person", "")))
        before = last.get(patron, row.t)
        if row.kind == "table_stretch":
            out.append((before, row.t, str(d["table"])))
        elif row.kind == "card_room_session":
            out.append((row.t - float(d["seconds"]), row.t, str(d["area"])))
        elif (
            row.kind == "session_started"
            or (row.kind == "patron_left" and d["reason"] == "no_machine")
        ) and row.t > before:
            out.append((before, row.t, ""))
        last[patron] = row.t
    out.sort(key=lambda s: s[0])
    return out
