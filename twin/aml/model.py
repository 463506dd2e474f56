"""The anti-money-laundering function of the licensee (Malta regs 45-51).

The ``AmlDesk`` department is built by the assembly from the scenario's ``[aml]`` section
(docs/scenario-aml.md). It watches the records of money changing form on the floor, as the
licensee's staff see it, and does what regs 46-51 ask:

* **Windows.** Transactions are added up per patron over a *window*: the gaming session
  (the patron's visit, from admission at the door to leaving; the default reading of
  "any one gaming session" in 46(4)) or the casino's gaming day (ruleset switch
  ``aml_session_is_gaming_day``). Buy-ins and cash-outs are added separately
  (``aml_aggregate_in_out_separately``; false adds them together).
* **Buy-ins** (46(1)): chips bought at a cash desk (``cage_transaction`` "buy_in" for chips),
  cash for chips at a table (``table_stretch.buy_in_cents``), notes into a machine's bill
  acceptor (``bill_accepted``: cash for tokens, i.e. credits). **Cash-outs** (46(2)):
  chips redeemed at a cash desk, a machine's cash-out (``cashed_out``) and a jackpot paid
  by hand (``hand_paid``, "jackpot" or "progressive").
* **Who it is** at a slot machine: the staff see a person there only through the floor's
  session record (``session_started`` to ``patron_left``: notes and coins fed in the instant
  a session begins are its own) or when an attendant pays someone by hand. Notes, coins,
  play and cash-outs at a machine no session explains are anonymous: no one's transactions.
* **Identification** (46(1), (2), (4)): a transaction above the threshold
  (``aml_id_threshold_cents``, Lm 2,000, compared exactly in the floor's currency), or one
  that takes its window's total past it, and every later one in that window, is covered by
  an ``identification_recorded`` with the particulars the door read (47(1)).
* **Cross-reference** (46(3)): at an identified cash-out, the identity is matched to the
  window's buy-ins of the same person and the chips' source checked against the records of
  play (``cash_out_cross_referenced``). A cash-out with no buy-in of the person's own
  ("unmatched_cash_out"), or whose chips are not derived from winnings ("not_from_winnings":
  by the ruleset's ``aml_chips_from_net_winnings``, the literal reading, beyond the window's
  net winnings; otherwise beyond its stake and winnings), is a red flag the cashier raises at
  once. The Reporting Officer suspects at once when the source is not shown at all (no
  buy-in, or more than the stake and winnings); chips within the stake but not won count as
  one report on the patron.
* **Red flags** (49(2)): employees who see a cash-out from ``flag_min_cents`` after
  wagering less than ``minimal_play_ratio`` x the window's buy-ins ("minimal_play"), or one
  larger than the window's buy-ins and winnings ("chips_unexplained", below the
  threshold), or ``near_threshold_count`` buy-ins (or cash-outs) in a window each just
  below the threshold ("near_threshold"), notice it with a chance that depends on their
  AML training (``notice_trained`` / ``notice_untrained``).
* **Reports** (46(5), 49, 50, 51): the employee reports to the Reporting Officer; the
  patron's particulars are recorded on suspicion; the Officer, in office hours, evaluates
  each report against the patron's earlier reports and transactions and, on suspicion,
  reports to a Police Inspector and to the Board's Money Laundering Liaison Officer with the
  contents of reg 51 (an unexplained source of chips at once; otherwise from
  ``reports_to_suspect`` reports on the patron).
* **Training and appointment** (48, 50(1), 50(2)(d)): the Reporting Officer appointed and
  notified before t = 0; every employee's last AML course recorded when first seen on
  shift, and refreshed before ``aml_training_interval_months`` run out.
* **Retention** (47(2)): monthly volumes of identification records kept
  ``id_record_retention_years`` from their last entry, then destroyed.

The desk never reads ``laundering_act`` (the twin's truth) or any launderer's plan: it
knows only what the staff see.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Mapping
from datetime import date, datetime, time, timedelta
from fractions import Fraction
from typing import Any

import numpy as np
import simpy
from dateutil.relativedelta import relativedelta

from twin.aml.cases import Case, Particulars, Seated, Seen, View, Window, _Armed
from twin.aml.params import (
    AGGREGATE_IN_OUT_SEPARATELY,
    CHIPS_FROM_NET_WINNINGS,
    ID_RECORD_RETENTION,
    ID_THRESHOLD,
    POLICE_MIN_RANK,
    RULES,
    SESSION_IS_GAMING_DAY,
    TRAINING_INTERVAL,
)
from twin.aml.records import (
    AmlTrainingCompleted,
    CashOutCrossReferenced,
    IdentificationRecorded,
    InternalReport,
    RedFlagObserved,
    ReportingOfficerAppointed,
    ReportingOfficerNotified,
    RoEvaluation,
    SuspicionReported,
)
from twin.aml.section import AmlConfig
from twin.cage import retention_ends
from twin.cage.records import CageTransaction, RecordDestroyed, RecordVolume
from twin.door.records import EntryAdmitted, IdChecked
from twin.errors import InputError
from twin.machines.events import BillAccepted, CashedOut, CoinsAccepted, GamesPlayed, HandPaid
from twin.pit.records import TableStretch
from twin.records import Record
from twin.rules import RuleSource
from twin.staff import Dispatcher
from twin.staff.records import ShiftStarted
from twin.world import World, quantize

Proc = Generator[simpy.events.Event, Any, Any]

#: the ruleset parameters the desk works to
PARAMS = tuple(r.key for r in RULES)
#: years of monthly identification volumes kept from before the run
ARCHIVE_YEARS = 6


#: what the desk reads of the ruleset, through its declarations (``twin.aml.params``)
Rules = RuleSource


class AmlDesk:
    """The licensee's AML function (see the module docstring)."""

    name = "aml"

    def __init__(
        self,
        world: World,
        config: AmlConfig,
        rules: Rules,
        staff: Dispatcher,
        denominations: Mapping[str, int],
        particulars: Callable[[str], Particulars],
        home: str,
        source: str,
        views: tuple[View, ...] = (),
        view_kinds: frozenset[str] | None = None,
    ) -> None:
        for rule in RULES:
            if not rule.given(rules):
                raise InputError(
                    source, "aml", f"a ruleset with {rule.key} (the Malta AML rules, regs 45-51)",
                    "none",
                )  # fmt: skip
        self.world = world
        self.cfg = config
        self.rules = rules
        self.staff = staff
        self.denominations = dict(denominations)
        self.particulars = particulars
        self.home = home
        # the desk works to its own procedure ([aml.policy], issue 34), by default the law's
        policy = config.policy
        self.threshold: Fraction = ID_THRESHOLD.money(rules)
        if policy.id_threshold_cents is not None:  # the same currency as the law's, converted
            self.threshold *= Fraction(policy.id_threshold_cents, ID_THRESHOLD.of(rules))
        # whole cents: above the threshold iff above its floor; "just below" it from the
        # ceiling of its share up to its floor (the same answers as comparing with fractions)
        self._over = math.floor(self.threshold)
        self._near_low = math.ceil(config.near_threshold_share * self.threshold)
        self.by_day = bool(
            SESSION_IS_GAMING_DAY.of(rules)
            if policy.session_is_gaming_day is None
            else policy.session_is_gaming_day
        )
        self.separately = bool(
            AGGREGATE_IN_OUT_SEPARATELY.of(rules)
            if policy.aggregate_in_out_separately is None
            else policy.aggregate_in_out_separately
        )
        #: the Reporting Officer ("" when the licensee appoints none: reports go unevaluated)
        self.officer = config.officer if policy.appoint_reporting_officer else ""
        self.winnings_only = bool(CHIPS_FROM_NET_WINNINGS.of(rules))
        # who the floor's session records put at each machine; notes and coins fed into a
        # machine in the instant before a session begins there (anonymous if none does)
        self.seated: dict[str, str] = {}
        self.held: dict[str, list[tuple[Record, int]]] = {}
        self.armed = _Armed()
        self.views = views
        # what the desk does with each record kind: its own readings (``_SEES``), the views
        # for a kind they may read (``view_kinds``, the kinds the views read; None: any),
        # nothing for the rest (filled in as kinds are first seen)
        self._view_kinds = frozenset() if not views else view_kinds
        self._sees: dict[str, Callable[[AmlDesk, Any], None]] = dict(_SEES)
        self.visit: dict[str, int] = {}  # person -> current visit number
        self.stays: dict[str, tuple[str, str]] = {}  # patron -> (window key, label) of a stay
        self.known: dict[str, Particulars] = {}  # particulars read by another desk
        self.person: dict[str, str] = {}  # patron -> the person across visits (a passport)
        # patron -> their current window: a window once left is never read again (a
        # patron's visits and gaming days only go forward, a stay is for good), so only the
        # current one is kept and the desk's memory does not grow with the run
        self._current: dict[str, Window] = {}
        self.identified: dict[str, IdentificationRecorded] = {}  # last record per patron
        self.trained: dict[str, date] = {}  # employee -> last AML course
        self.untrained: set[str] = set()
        self.seen: set[str] = set()
        self.cases: dict[str, Case] = {}
        self.reports_on: dict[str, list[int]] = {}  # patron -> seqs of internal reports
        self.reported: dict[str, float] = {}  # patron -> first police report t
        self.volumes: dict[str, tuple[date, bool]] = {}  # id -> (last entry, destroyed)
        #: reports waiting for the operator's evaluation ([aml] operator): case -> the case
        self.awaiting: dict[str, Case] = {}
        #: the operator's evaluations: case -> (decision, reasons); and whom each suspicion
        #: was reported to
        self.decided: dict[str, tuple[str, str]] = {}
        self.sent: dict[str, set[str]] = {}
        self._n: dict[str, int] = {}
        world.bus.attach(self)

    # -- helpers ----------------------------------------------------------------------------
    @property
    def env(self) -> simpy.Environment:
        return self.world.env

    def _id(self, prefix: str) -> str:
        n = self._n.get(prefix, 0) + 1
        self._n[prefix] = n
        return f"{prefix}-{n:06d}"

    def _today(self) -> date:
        return self.world.clock.at(self.env.now).date()

    def emit(self, cls: type[Record], **fields: Any) -> Any:
        return self.world.bus.emit(cls, **fields)

    def _minutes(self, dist: Any, rng: np.random.Generator) -> float:
        return quantize(max(0.0, float(dist.sample(rng))) * 60.0)

    def _on(self, role: str) -> str:
        return self.staff.first_on_duty(role)

    # -- the department ---------------------------------------------------------------------
    def start(self) -> None:
        cfg = self.cfg
        appointed = (self._today() - timedelta(days=cfg.appointed_days_before)).isoformat()
        who = {"name": cfg.officer_name, "grade": cfg.officer_grade,
               "designation": cfg.officer_designation}  # fmt: skip
        if self.officer:
            self.emit(ReportingOfficerAppointed, officer=cfg.officer, date=appointed, **who)
        for recipient in ("board_secretary", "commissioner_of_police") if self.officer else ():
            if recipient == "commissioner_of_police" and self.armed.not_notified_police:
                continue
            self.emit(ReportingOfficerNotified, officer=cfg.officer, recipient=recipient,
                      date=appointed, **who)  # fmt: skip
        self._open_archive()
        self.env.process(self.keep_retention())

    def finish(self) -> None:
        pass

    def close(self) -> None:
        pass

    # -- identification volumes (47(2)) -------------------------------------------------------
    def _open_archive(self) -> None:
        start = self._today()
        first = date(start.year, start.month, 1)
        years = int(ID_RECORD_RETENTION.of(self.rules))
        for back in range(ARCHIVE_YEARS * 12, -1, -1):
            month = first - relativedelta(months=back)
            last = month + relativedelta(months=1, days=-1)
            if back and retention_ends(last, years) + relativedelta(months=2) < start:
                continue  # destroyed long ago
            vid = f"identification-{month.year:04d}-{month.month:02d}"
            self.volumes[vid] = (last, False)
            self.emit(RecordVolume, volume=vid, category="identification",
                      first_entry=month.isoformat(), last_entry=last.isoformat(),
                      entries=40, electronic=True)  # fmt: skip

    def keep_retention(self) -> Proc:
        env, clock = self.env, self.world.clock
        years = int(ID_RECORD_RETENTION.of(self.rules))
        while True:
            yield env.timeout(clock.next_local(env.now, time(7, 15)) - env.now)
            today = self._today()
            for vid, (last, destroyed) in sorted(self.volumes.items()):
                if not destroyed and retention_ends(last, years) <= today and last < today:
                    self.destroy(vid)

    def destroy(self, vid: str) -> None:
        last, _ = self.volumes[vid]
        self.volumes[vid] = (last, True)
        self.emit(RecordDestroyed, volume=vid, category="identification",
                  last_entry=last.isoformat(), date=self._today().isoformat(),
                  staff=self.cfg.officer)  # fmt: skip

    def destroy_early(self) -> bool:
        """Injection: the newest archived volume still in its period is destroyed now."""
        held = [(last, v) for v, (last, gone) in self.volumes.items()
                if not gone and last < self._today()]  # fmt: skip
        if not held:
            return False
        self.destroy(max(held)[1])
        return True

    # -- what the staff see -------------------------------------------------------------------
    def accept(self, rec: Record) -> None:
        see = self._sees.get(rec.kind)
        if see is None:
            kinds = self._view_kinds
            see = (
                AmlDesk._through_views
                if kinds is None or rec.kind in kinds
                else AmlDesk._see_nothing
            )
            self._sees[rec.kind] = see
        see(self, rec)

    def _through_views(self, rec: Record) -> None:
        for view in self.views:
            seen = view(rec)
            if seen is not None:
                self._seen(rec, seen)

    def _see_admitted(self, rec: EntryAdmitted) -> None:
        if rec.casino == self.home and rec.purpose == "play":
            self.visit[rec.person] = rec.visit

    def _see_nothing(self, rec: Record) -> None:
        pass

    def _see_cage(self, rec: CageTransaction) -> None:
        if rec.txn_kind == "buy_in" and rec.chips_out_cents > 0:
            self._money_in(rec.patron, rec, rec.amount_cents, rec.cashier)
        elif rec.txn_kind == "redemption":
            self._money_out(rec.patron, rec, rec.amount_cents, rec.cashier)

    def _see_table(self, rec: TableStretch) -> None:
        w = self._window(rec.patron, rec.t)
        if w is None:
            return
        if rec.buy_in_cents > 0:
            self._money_in(rec.patron, rec, rec.buy_in_cents, rec.dealer)
        w.wagered += rec.handle_cents
        w.won += rec.net_cents

    # A slot machine is anonymous: the staff know who plays it only from the floor's session
    # record (session_started to patron_left), or when an attendant pays someone by hand.
    def _slot_in(self, rec: Record, machine: str, cents: int) -> None:
        who = self.seated.get(machine)
        if who is not None:
            self._money_in(who, rec, cents, self._on("attendant"))
            return
        held = self.held.setdefault(machine, [])
        if held and held[0][0].t != rec.t:
            held.clear()  # fed by no one the floor knows: anonymous
        held.append((rec, cents))

    def _see_session(self, rec: Seated) -> None:
        self.seated[rec.machine] = rec.patron
        for fed, cents in self.held.pop(rec.machine, []):
            if fed.t == rec.t:  # fed in the instant the session began: the session's
                self._money_in(rec.patron, fed, cents, self._on("attendant"))

    def _see_left(self, rec: Seated) -> None:
        if rec.machine and self.seated.get(rec.machine) == rec.patron:
            del self.seated[rec.machine]

    def _see_bill(self, rec: BillAccepted) -> None:
        self._slot_in(rec, rec.machine, rec.bill_cents)

    def _see_coins(self, rec: CoinsAccepted) -> None:
        cents = rec.coins * self.denominations.get(rec.machine, 0)
        if cents > 0:
            self._slot_in(rec, rec.machine, cents)

    def _see_played(self, rec: GamesPlayed) -> None:
        who = self.seated.get(rec.machine)
        w = None if who is None else self._window(who, rec.t)
        if w is not None:
            denom = self.denominations.get(rec.machine, 0)
            w.wagered += rec.wagered * denom
            w.won += (rec.won - rec.wagered) * denom

    def _see_cashed_out(self, rec: CashedOut) -> None:
        cents = rec.credits * self.denominations.get(rec.machine, 0)
        who = self.seated.get(rec.machine)
        if who is None and rec.hand_paid > 0:
            who = rec.patron  # the attendant pays the person in front of him
        if cents > 0 and who is not None:
            self._money_out(who, rec, cents, self._on("attendant"))

    def _see_hand_paid(self, rec: HandPaid) -> None:
        if rec.reason in ("jackpot", "progressive") and rec.cents > 0:
            w = self._window(rec.patron, rec.t)
            if w is not None:
                w.won += rec.cents
            self._money_out(rec.patron, rec, rec.cents, rec.attendant)
        else:  # any other hand pay is for the views to read
            self._through_views(rec)

    def _seen(self, rec: Record, seen: Seen) -> None:
        staff = self._on("chief_cashier") or self._on("cashier")
        if seen.what == "arrived":
            self.stays[seen.patron] = (f"{seen.patron}#stay", seen.label or "stay")
            if seen.particulars is not None:
                self.known[seen.patron] = seen.particulars
            if seen.person:
                self.person[seen.patron] = seen.person
        elif seen.what == "in":
            self._money_in(seen.patron, rec, seen.cents, staff)
        elif seen.what == "out":
            self._money_out(seen.patron, rec, seen.cents, staff)
        elif seen.what == "play":
            w = self._window(seen.patron, rec.t)
            if w is not None:
                w.wagered += seen.wagered
                w.won += seen.won

    def _window(self, patron: str, t: float) -> Window | None:
        stay = self.stays.get(patron)
        if stay is not None:  # a stay (a junket's) is one window, whatever the reading
            key, label = stay
        else:
            visit = self.visit.get(patron)
            if visit is None:
                return None  # not admitted through the home door (a test rig, a bench)
            if self.by_day:
                day = self.world.clock.gaming_day(t).isoformat()
                key, label = f"{patron}@{day}", f"gaming day {day}"
            else:
                key, label = f"{patron}#{visit}", f"gaming session (visit {visit})"
        w = self._current.get(patron)
        if w is None or w.key != key:
            w = self._current[patron] = Window(key, label)
        return w

    # -- identification (46(1), (2), (4)) ------------------------------------------------------
    def _money_in(self, patron: str, rec: Record, cents: int, staff: str) -> None:
        w = self._window(patron, rec.t)
        if w is None:
            return
        w.add_in(rec.seq, cents)
        total = w.bought if self.separately else w.bought + w.cashed
        if cents > self._over:
            self._identify(patron, "buy_in", (rec.seq,), cents, w, staff)
        elif total > self._over:
            seqs = tuple(s for s, _ in w.ins) if self.separately else self._all(w)
            self._identify(patron, "aggregate_buy_in", seqs, total, w, staff)
        self._near_threshold(patron, w, w.ins, "buy-ins", staff)

    def _money_out(self, patron: str, rec: Record, cents: int, staff: str) -> None:
        w = self._window(patron, rec.t)
        if w is None:
            return
        w.add_out(rec.seq, cents)
        total = w.cashed if self.separately else w.bought + w.cashed
        over = self._over  # whole cents: above the threshold iff above its floor
        if cents > over:
            self._identify(patron, "cash_out", (rec.seq,), cents, w, staff)
            self._cross_reference(patron, rec, w, staff)
        elif w.cashed > over or total > over:
            seqs = tuple(s for s, _ in w.outs) if self.separately else self._all(w)
            self._identify(patron, "aggregate_cash_out", seqs, total, w, staff)
            self._cross_reference(patron, rec, w, staff)
        self._near_threshold(patron, w, w.outs, "cash-outs", staff)
        if w.cashed < self.cfg.flag_min_cents:
            return
        if w.ins and w.wagered < self.cfg.minimal_play_ratio * w.bought:
            if "minimal_play" not in w.flagged:
                self._notice(
                    staff, patron, "minimal_play", self._all(w), w,
                    f"cashed out {w.cashed} cents in the {w.label} after wagering only "
                    f"{w.wagered} cents of the {w.bought} cents bought",
                )  # fmt: skip
        elif w.cashed > w.bought + max(0, w.won) and "chips_unexplained" not in w.flagged:
            self._notice(
                staff, patron, "chips_unexplained", self._all(w), w,
                f"cashed out {w.cashed} cents in the {w.label}, more than the {w.bought} "
                f"cents bought there and {max(0, w.won)} cents won",
            )  # fmt: skip

    @staticmethod
    def _all(w: Window) -> tuple[int, ...]:
        return tuple(sorted(s for s, _ in (*w.ins, *w.outs)))

    def _identify(
        self,
        patron: str,
        reason: str,
        seqs: tuple[int, ...],
        amount: int,
        w: Window | None,
        staff: str,
    ) -> None:
        base = reason.removeprefix("aggregate_")
        if base in self.armed.skip_id or reason in self.armed.skip_id:
            self.armed.skip_id.discard(base)
            self.armed.skip_id.discard(reason)
            return
        p = self._particulars(patron)
        address = p.address
        if self.armed.blank_address:
            self.armed.blank_address = False
            address = ""
        self.identified[patron] = self.emit(
            IdentificationRecorded, patron=patron, reason=reason, transactions=seqs,
            amount_cents=amount, window="" if w is None else w.label,
            document_type=p.document_type, document_number=p.document_number, name=p.name,
            date_of_birth=p.date_of_birth, nationality=p.nationality, address=address,
            staff=staff,
        )  # fmt: skip

    def _particulars(self, patron: str) -> Particulars:
        known = self.known.get(patron)
        return known if known is not None else self.particulars(patron)

    # -- the source of the chips (46(3)) --------------------------------------------------------
    def _cross_reference(self, patron: str, rec: Record, w: Window, staff: str) -> None:
        if self.armed.skip_cross_reference:
            self.armed.skip_cross_reference = False
            return
        matched = bool(w.ins)
        beyond = w.cashed > w.bought + max(0, w.won)  # more than the stake and winnings
        from_winnings = w.cashed <= max(0, w.won) if self.winnings_only else not beyond
        self.emit(
            CashOutCrossReferenced, patron=patron, cash_out=rec.seq, window=w.label,
            buy_ins=tuple(s for s, _ in w.ins), bought_cents=w.bought, won_cents=w.won,
            cashed_cents=w.cashed, matched=matched, from_winnings=from_winnings, staff=staff,
        )  # fmt: skip
        if not matched and "unmatched_cash_out" not in w.flagged:
            self._raise(staff, patron, "unmatched_cash_out", self._all(w), w,
                        f"cashed out {w.cashed} cents in the {w.label} with no chips or "
                        "tokens bought in it", strong=True)  # fmt: skip
        elif matched and not from_winnings and "not_from_winnings" not in w.flagged:
            what = (f"more than the {w.bought} cents bought and {max(0, w.won)} cents won"
                    if beyond else f"more than the {max(0, w.won)} cents won")  # fmt: skip
            self._raise(staff, patron, "not_from_winnings", self._all(w), w,
                        f"cashed out {w.cashed} cents in the {w.label}: {what}",
                        strong=beyond)  # fmt: skip

    # -- red flags and reports (46(5), 49(2), 50(2)(a)) ----------------------------------------
    def _near_threshold(
        self, patron: str, w: Window, txns: list[tuple[int, int]], what: str, staff: str
    ) -> None:
        flag = "near_threshold"
        if len(txns) < self.cfg.near_threshold_count or flag in w.flagged:
            return  # (too few transactions in the window to have that many near it)
        low, high = self._near_low, self._over
        near = [s for s, c in txns if low <= c <= high]
        if len(near) >= self.cfg.near_threshold_count:
            self._notice(staff, patron, flag, tuple(near), w,
                         f"{len(near)} {what} in the {w.label}, each just below the "
                         "identification threshold")  # fmt: skip

    def _notice(
        self, staff: str, patron: str, flag: str, seqs: tuple[int, ...], w: Window, detail: str
    ) -> None:
        """An employee may notice the red flag (a chance that depends on training)."""
        trained = staff in self.trained and staff not in self.untrained
        p = self.cfg.notice_trained if trained else self.cfg.notice_untrained
        # a draw of this flag on this visit (or stay) alone: the same under any rule, the
        # reading of the window included (common random numbers between a study's arms)
        where = w.key if patron in self.stays else f"visit {self.visit.get(patron, 0)}"
        rng = self.world.streams.keyed(self._who(patron), f"notice:{where}:{flag}")
        if rng.random() >= p:
            return
        self._raise(staff, patron, flag, seqs, w, detail)

    def _raise(
        self,
        staff: str,
        patron: str,
        flag: str,
        seqs: tuple[int, ...],
        w: Window,
        detail: str,
        *,
        strong: bool = False,
    ) -> None:
        w.flagged.add(flag)
        employee = staff or self._on("chief_cashier") or self._on("cashier")
        seen = self.emit(RedFlagObserved, employee=employee, patron=patron, flag=flag,
                         transactions=seqs, detail=detail)  # fmt: skip
        if self.armed.unreported_flag:
            self.armed.unreported_flag = False
            return
        case = self._id("AML")
        report = self.emit(InternalReport, case=case, employee=employee, patron=patron,
                           officer=self.officer, flag=flag, observed=seen.seq,
                           transactions=seqs)  # fmt: skip
        self.reports_on.setdefault(self._who(patron), []).append(report.seq)
        if self.armed.skip_suspicion_id:
            self.armed.skip_suspicion_id = False
        else:
            self._identify(patron, "suspicion", (), 0, None, employee)
        self.cases[case] = Case(case, patron, flag, report, seqs, strong)
        if self.armed.unevaluated_report:
            self.armed.unevaluated_report = False
            return
        if not self.officer:
            return  # no Reporting Officer: nobody evaluates the report
        if "evaluation" in self.cfg.operator:
            self.awaiting[case] = self.cases[case]  # the operator evaluates (twin.aml.actions)
            return
        self.env.process(self.evaluate(self.cases[case]))

    # -- the Reporting Officer (50(2)(b)-(c), 49(1), 51) ---------------------------------------
    def _office_wait(self) -> float:
        """Seconds until the Reporting Officer is next in the office (0 when in)."""
        env, clock, cfg = self.env, self.world.clock, self.cfg
        now = clock.at(env.now).time()
        if cfg.office_opens <= now < cfg.office_closes:
            return 0.0
        return clock.next_local(env.now, cfg.office_opens) - env.now

    def evaluate(self, case: Case) -> Proc:
        env, cfg = self.env, self.cfg
        who = self._who(case.patron)
        n = self.reports_on[who].index(case.report.seq) + 1
        rng = self.world.streams.keyed(who, f"officer:{n}")  # the person's n-th report
        yield env.timeout(self._office_wait())
        yield env.timeout(self._minutes(cfg.evaluation_minutes, rng))
        earlier = self.reports_on.get(who, [])
        strong = case.strong
        suspicious = strong or len(earlier) >= cfg.reports_to_suspect
        if strong:
            reasons = f"{case.flag.replace('_', ' ')}: the source of the chips is not shown (46(3))"
        elif suspicious:
            reasons = (f"{len(earlier)} reports on the patron ("
                       + ", ".join(self.cases[c].flag for c in self._cases_of(case.patron))
                       + ")")  # fmt: skip
        else:
            reasons = "a single red flag, no earlier report: kept on file and watched"
        self.emit(RoEvaluation, case=case.id, officer=cfg.officer, patron=case.patron,
                  decision="suspicious" if suspicious else "no_suspicion", reasons=reasons,
                  considered=tuple(earlier))  # fmt: skip
        if not suspicious:
            return
        yield env.timeout(self._minutes(cfg.report_minutes, rng))
        if self.armed.late_report_hours:
            hours, self.armed.late_report_hours = self.armed.late_report_hours, 0
            yield env.timeout(hours * 3600.0)
        self.report(case, reasons)

    def _who(self, patron: str) -> str:
        """The person behind ``patron`` across visits (a junket guest's passport)."""
        return self.person.get(patron, patron)

    def _cases_of(self, patron: str) -> list[str]:
        who = self._who(patron)
        return [c for c, k in self.cases.items() if self._who(k.patron) == who]

    def report(self, case: Case, reasons: str) -> None:
        if self.armed.no_reasons:
            self.armed.no_reasons = False
            reasons = ""
        recipients = ["police", "board_mllo"]
        if self.armed.board_not_told:
            self.armed.board_not_told = False
            recipients = ["police"]
        for recipient in recipients:
            rank = str(POLICE_MIN_RANK.of(self.rules)) if recipient == "police" else ""
            self._report_to(case, reasons, recipient, rank)

    def _report_to(self, case: Case, reasons: str, recipient: str, rank: str) -> None:
        """The report of reg 51 on ``case`` to ``recipient`` (a police officer of ``rank``)."""
        cases = [self.cases[c] for c in self._cases_of(case.patron)]
        seqs = tuple(sorted({s for k in cases for s in k.transactions}))
        p = self._particulars(case.patron)
        person = (f"{p.name}, {p.document_type} {p.document_number}, born {p.date_of_birth}, "
                  f"{p.nationality}, {p.address}")  # fmt: skip
        detail = "; ".join(f"{k.flag} (case {k.id})" for k in cases)
        other = (f"{len(cases)} internal reports on the patron; visits: "
                 f"{self.visit.get(case.patron, 0)}; identification records kept")  # fmt: skip
        self.emit(
            SuspicionReported, case=case.id, officer=self.cfg.officer, patron=case.patron,
            recipient=recipient, rank=rank, transactions=seqs, transaction_detail=detail,
            person=person, reasons=reasons, other=other,
        )  # fmt: skip
        self.reported.setdefault(case.patron, self.env.now)

    # -- the operator as the Reporting Officer (twin.aml.actions) ------------------------------
    def evaluation_refusal(self, case: str, decision: str) -> str | None:
        """Why the operator may not evaluate ``case`` with ``decision`` now, or None."""
        if case not in self.awaiting:
            known = ", ".join(sorted(self.awaiting)) or "none"
            return f"no report {case!r} waits for the Reporting Officer (waiting: {known})"
        if decision not in ("suspicious", "no_suspicion"):
            return f"a decision 'suspicious' or 'no_suspicion', not {decision!r}"
        return None

    def operator_evaluates(self, case: str, decision: str, reasons: str) -> None:
        """The Reporting Officer's evaluation of ``case`` (50(2)(b)), in the light of every
        report on the patron so far."""
        c = self.awaiting.pop(case)
        self.decided[case] = (decision, reasons)
        self.emit(RoEvaluation, case=case, officer=self.cfg.officer, patron=c.patron,
                  decision=decision, reasons=reasons,
                  considered=tuple(self.reports_on.get(self._who(c.patron), [])))  # fmt: skip

    def report_refusal(self, case: str, recipient: str) -> str | None:
        """Why the operator may not report ``case`` to ``recipient`` now, or None."""
        decided = self.decided.get(case)
        if decided is None:
            return f"case {case!r} has not been evaluated by the Reporting Officer"
        if decided[0] != "suspicious":
            return f"case {case} was evaluated {decided[0]}: there is no suspicion to report"
        if recipient not in ("police", "board_mllo"):
            return f"a recipient 'police' or 'board_mllo', not {recipient!r}"
        if recipient in self.sent.get(case, set()):
            return f"case {case} was reported to {recipient} already"
        return None

    def operator_reports(self, case: str, recipient: str, rank: str) -> None:
        """The Reporting Officer reports the suspicion of ``case`` to ``recipient``."""
        self.sent.setdefault(case, set()).add(recipient)
        self._report_to(self.cases[case], self.decided[case][1], recipient, rank)

    # -- training (48, 50(2)(d)) -----------------------------------------------------------------
    def _first_sight(self, rec: ShiftStarted) -> None:
        who = rec.member
        if rec.employer == "board" or who in self.seen:
            return
        self.seen.add(who)
        rng = self.world.streams.fresh(who, "aml-training")
        if self.armed.untrained_next:
            self.armed.untrained_next = False
            self.untrained.add(who)
            return
        if rng.random() >= self.cfg.trained_share:
            self.untrained.add(who)
            return
        months = int(TRAINING_INTERVAL.of(self.rules))
        today = self._today()
        span = (today - (today - relativedelta(months=months))).days
        last = today - timedelta(days=int(rng.integers(1, max(2, span - 14))))
        self._trained(who, last)
        due = last + relativedelta(months=months) - timedelta(days=14)
        self.env.process(self.refresh(who, due))

    def _trained(self, who: str, when: date) -> None:
        self.trained[who] = when
        self.emit(AmlTrainingCompleted, employee=who, course="AML", date=when.isoformat(),
                  officer=self.cfg.officer)  # fmt: skip

    def refresh(self, who: str, due: date) -> Proc:
        env, clock = self.env, self.world.clock
        months = int(TRAINING_INTERVAL.of(self.rules))
        while True:
            at = clock.seconds(datetime.combine(due, time(10, 0), tzinfo=clock.zone))
            yield env.timeout(max(0.0, at - env.now))
            self._trained(who, self._today())
            due = self._today() + relativedelta(months=months) - timedelta(days=14)


# what the desk does with each kind of record it reads itself; any other kind goes through
# the views (junkets, premium accounts...) that the departments registered
_SEES: dict[str, Callable[[AmlDesk, Any], None]] = {
    EntryAdmitted.kind: AmlDesk._see_admitted,
    # the floor's slot sessions (twin.patrons.records, a layer above the floor: by kind)
    "session_started": AmlDesk._see_session,
    "patron_left": AmlDesk._see_left,
    IdChecked.kind: AmlDesk._see_nothing,
    ShiftStarted.kind: AmlDesk._first_sight,
    CageTransaction.kind: AmlDesk._see_cage,
    TableStretch.kind: AmlDesk._see_table,
    BillAccepted.kind: AmlDesk._see_bill,
    CoinsAccepted.kind: AmlDesk._see_coins,
    GamesPlayed.kind: AmlDesk._see_played,
    CashedOut.kind: AmlDesk._see_cashed_out,
    HandPaid.kind: AmlDesk._see_hand_paid,
}


__all__ = ["PARAMS", "AmlDesk", "Particulars", "Window"]
