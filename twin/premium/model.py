"""The premium-player room of a Singapore casino and its deposit accounts (issue 11).

Premium players (``PP0001``...) open deposit accounts with the operator, deposit in the forms
reg 2A allows them (cash, cashier's orders, bank drafts, transfers, chips, traveller's
cheques, accepted casino cheques, personal cheques that count once cleared, and, for
foreigners only, credit from the operator or an international market agent), play roulette
in the room on chips drawn from the account, top up, withdraw, change residency and close
their accounts. Each player's accounts opened up to ``history_months`` before the start:
that history is recorded at t = 0 with its calendar dates, so anniversaries, spells below
the minimum and lapses fall inside a 90-day run.

The operator's status desk decides every player's status at the end of each day (C2) with
``twin.accounts.replay.Stepper`` fed the very records the room emits, and records each
decision (``premium_status_decided``); injections make the desk decide wrongly. The desk
works to its own procedure, ``[premium.policy]`` (issue 34): the minimum balance from which
it grants and keeps the status (and that players are asked to keep), and to whom it gives
credit as a deposit; by default both are the law's. The desk counts a deposit towards the
status as reg 2A allows it (credit given to a citizen or PR counts towards nothing).
Randomness: each player's own streams (``(player, "premium")`` in the run, ``(player,
"history")`` before it) and each table's own stream for its outcomes.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from typing import Any

import numpy as np
import simpy
from dateutil.relativedelta import relativedelta

from twin.accounts.forms import ALLOWED_FORMS
from twin.accounts.replay import AccountRules, DayStatus, Stepper
from twin.premium.records import (
    OPERATOR,
    ChequeCleared,
    ChequeDishonoured,
    ChequeReceived,
    CreditExtended,
    CreditRepaid,
    DepositAccountClosed,
    DepositAccountOpened,
    DepositMade,
    Drawdown,
    PremiumDayClosed,
    PremiumPlayed,
    PremiumPlayerRegistered,
    PremiumStatusDecided,
    ResidencyChanged,
    account_event,
)
from twin.records import Record
from twin.tables.games import TableGame, load_table_game
from twin.world import World

__all__ = ["MISCONDUCTS", "PremiumPlayer", "PremiumRoom"]

ONE_DAY = timedelta(days=1)
K = 100_000  # S$1,000 in cents: amounts are whole thousands
#: when a day's account business, a visit's chips and its return happen (local time)
BUSINESS, PLAY, CASH_IN = time(12, 0), time(20, 0), time(23, 0)
#: forms a deposit (not a cheque, not credit) is made in, by residency
_PLAIN = ("cash", "cashiers_order", "bank_draft", "eft", "travellers_cheque")
_PAYABLE = frozenset({"cashiers_order", "bank_draft", "eft"})
R3 = "reg 3 + 4(1)"

#: what an injection makes the status desk (or the cashier) do wrong, once
MISCONDUCTS = (
    "bank_draft_to_third_party",  # SG10.R2A.1a
    "chips_from_uncleared_cheque",  # SG10.R2A.1b
    "casino_cheque_payable_to_another",  # SG10.R2A.1c
    "personal_cheque_counted_uncleared",  # SG10.R2A.1d
    "credit_to_citizen",  # SG10.R2A.1e
    "mixed_forms_refused",  # SG10.R2A.3
    "requalified_after_long_dip",  # SG10.R2B
    "qualified_below_minimum",  # SG10.R3
    "downgraded_in_first_period",  # SG10.R4.1
    "requalify_keeps_old_expiry",  # SG10.R4.2
    "kept_after_residency_change",  # SG10.R4.3
    "renewed_below_minimum",  # SG10.R4.4
    "kept_after_lapse",  # SG10.R4.5
    "kept_after_closure",  # SG10.R4.6
)

Belief = tuple[bool, str, date | None]  # premium, basis, period last day


@dataclass
class PremiumPlayer:
    """A premium player (or a patron who may become one) and the operator's books on them."""

    id: str
    residency: str
    rng: np.random.Generator
    dormant: bool = False
    open_day: date | None = None  # the day they (re)open an account
    dormant_day: date | None = None  # from this day the account is drawn down and left
    account: str | None = None
    accounts: int = 0
    stepper: Stepper | None = None
    events: int = 0  # events of the player's timeline so far
    cheques: dict[str, date] = field(default_factory=dict)  # waiting personal cheques
    refs: int = 0
    credit: dict[str, int] = field(default_factory=dict)  # lender -> outstanding cents
    truth: Belief = (False, "reg 3", None)
    belief: Belief = (False, "reg 3", None)
    forced: tuple[Belief, date] | None = None  # the desk's wrong belief, until that day
    held: bool = False  # an injection took the player over: no behaviour of their own
    visits: int = 0

    @property
    def balance(self) -> int:
        ledger = self.stepper.ledger if self.stepper is not None else None
        return ledger.balance() if ledger is not None else 0

    def qualifying(self) -> int:
        ledger = self.stepper.ledger if self.stepper is not None else None
        return ledger.qualifying(self.residency) if ledger is not None else 0


class PremiumRoom:
    """The premium-player room, its cage's deposit accounts and the operator's status desk."""

    name = "premium"

    def __init__(
        self, world: World, cfg: Any, rules: AccountRules, start: datetime, source: str
    ) -> None:
        self.world = world
        self.cfg = cfg
        self.rules = rules  # the law (injections set their scenes by it)
        #: the desk's own procedure ([premium.policy], issue 34): the status decided (and the
        #: balance players are asked to keep) from the policy's minimum, by default the law's
        policy = cfg.policy
        self.desk = rules
        if policy.min_balance_cents is not None:
            self.desk = replace(rules, min_balance_cents=policy.min_balance_cents)
        self.credit_to: str = policy.credit_to
        self.game: TableGame = load_table_game(cfg.table_game)  # InputError before t = 0
        self.bet = self.game.bet(self.game.main_bet)
        self.tables = [f"PR-{i + 1:02d}" for i in range(cfg.tables)]
        self.first_day: date = start.date()
        self.armed: list[str] = []
        self.players: list[PremiumPlayer] = []
        self._extra = 0
        self._days_closed = 0
        for i in range(cfg.players):
            self.players.append(self._player(f"PP{i + 1:04d}", history=True))

    # -- the players -----------------------------------------------------------------------

    def _player(self, pid: str, *, history: bool) -> PremiumPlayer:
        cfg = self.cfg
        rng = self.world.streams.stream(pid, "history" if history else "premium")
        u = rng.random()
        residency = (
            "citizen"
            if u < cfg.citizen_share
            else ("pr" if u < cfg.citizen_share + cfg.pr_share else "foreigner")
        )
        p = PremiumPlayer(pid, residency, rng)
        if not history:
            return p
        span = max(
            (self.first_day - (self.first_day - relativedelta(months=cfg.history_months))).days, 1
        )
        if rng.random() < 0.1 or cfg.history_months == 0:
            p.open_day = self.first_day + timedelta(days=int(rng.integers(1, 75)))
        else:
            p.open_day = self.first_day - timedelta(days=int(rng.integers(1, span + 1)))
        p.dormant = rng.random() < 0.2
        if p.dormant:
            p.dormant_day = p.open_day + timedelta(days=int(rng.integers(30, 120)))
        return p

    # -- the department ---------------------------------------------------------------------

    def start(self) -> None:
        """The history before t = 0 (recorded now with its dates), then the days of the run."""
        bus = self.world.bus
        for p in self.players:
            bus.emit(PremiumPlayerRegistered, player=p.id, residency=p.residency,
                     day=(p.open_day or self.first_day).isoformat())  # fmt: skip
            day = p.open_day
            while day is not None and day < self.first_day:
                self._live_day(p, day, history=True)
                self._decide(p, day)
                day += ONE_DAY
            p.rng = self.world.streams.stream(p.id, "premium")
        self.world.env.process(self.keep_days())

    def finish(self) -> None:
        """Nothing is due at the end: each day was decided at its midnight."""

    def _at(self, day: date, when: time) -> float:
        return self.world.clock.seconds(datetime.combine(day, when))

    def keep_days(self) -> Generator[simpy.events.Event, Any, None]:
        """Each day of the run: the players' business and visits; at midnight, the desk."""
        env = self.world.env
        day = self.first_day
        while True:
            for p in list(self.players):
                if not p.held:
                    env.process(self.live(p, day))
            yield env.timeout(max(self._at(day + ONE_DAY, time(0, 0)) - env.now, 0.0))
            self.close_day(day)
            day += ONE_DAY

    def live(self, p: PremiumPlayer, day: date) -> Generator[simpy.events.Event, Any, None]:
        """One day of a player: business at noon, a visit to the room in the evening."""
        env = self.world.env
        wait = self._at(day, BUSINESS) - env.now
        if wait < 0:
            return
        yield env.timeout(wait)
        self._live_day(p, day, history=False)
        if p.account is None or not p.belief[0]:
            return
        if p.rng.random() >= self.cfg.visits_per_week / 7.0 or p.balance < 10 * K:
            return
        yield env.timeout(self._at(day, PLAY) - env.now)
        if p.account is None or p.held:
            return
        yield from self.visit(p, day)

    def close_day(self, day: date) -> None:
        """Midnight: the desk decides every player's status at the end of ``day``."""
        for p in self.players:
            if p.stepper is not None:
                self._decide(p, day)
        self._days_closed += 1
        self.world.bus.emit(
            PremiumDayClosed, day=day.isoformat(),
            accounts_open=sum(1 for p in self.players if p.account is not None),
            premium_players=sum(1 for p in self.players if p.belief[0]),
        )  # fmt: skip

    # -- account business -------------------------------------------------------------------

    def _emit(self, cls: type[Record], p: PremiumPlayer, **fields: Any) -> Record:
        rec = self.world.bus.emit(cls, player=p.id, **fields)
        ev = account_event(rec, p.events)
        if ev is not None:
            if p.stepper is None:
                p.stepper = Stepper(p.residency, self.desk)
            p.events += 1
            p.stepper.apply(ev)
        return rec

    def open_account(self, p: PremiumPlayer, day: date) -> None:
        p.accounts += 1
        p.account = f"{p.id}-A{p.accounts}"
        self._emit(DepositAccountOpened, p, account=p.account, day=day.isoformat())

    def close_account(self, p: PremiumPlayer, day: date) -> None:
        assert p.account is not None
        paid = p.balance
        self._emit(DepositAccountClosed, p, account=p.account, day=day.isoformat(),
                   paid_out_cents=paid)  # fmt: skip
        p.account, p.cheques = None, {}

    def deposit(
        self, p: PremiumPlayer, day: date, form: str, amount: int, *, payee: str | None = None,
        provenance: str = "",
    ) -> None:  # fmt: skip
        assert p.account is not None
        if payee is None:
            payee = OPERATOR if form in _PAYABLE else ""
        self._emit(DepositMade, p, account=p.account, day=day.isoformat(), form=form,
                   amount_cents=amount, payee=payee, provenance=provenance)  # fmt: skip

    def cheque(self, p: PremiumPlayer, day: date, kind: str, amount: int, payee: str = "") -> str:
        assert p.account is not None
        p.refs += 1
        ref = f"{p.account}-C{p.refs}"
        personal = kind == "personal_cheque"
        self._emit(
            ChequeReceived, p, account=p.account, day=day.isoformat(), ref=ref, cheque_kind=kind,
            amount_cents=amount, issuer="player's bank" if personal else "casino abroad",
            payee=payee or (OPERATOR if personal else p.id),
        )  # fmt: skip
        if personal:
            p.cheques[ref] = day + timedelta(days=3)
        return ref

    def credit(self, p: PremiumPlayer, day: date, lender: str, amount: int) -> None:
        assert p.account is not None
        self._emit(CreditExtended, p, account=p.account, day=day.isoformat(), lender=lender,
                   agent="IMA-01" if lender == "ima" else "", amount_cents=amount)  # fmt: skip
        p.credit[lender] = p.credit.get(lender, 0) + amount

    def drawdown(self, p: PremiumPlayer, day: date, amount: int, purpose: str) -> None:
        assert p.account is not None
        self._emit(Drawdown, p, account=p.account, day=day.isoformat(), amount_cents=amount,
                   purpose=purpose)  # fmt: skip

    def change_residency(self, p: PremiumPlayer, day: date, to: str) -> None:
        self._emit(ResidencyChanged, p, day=day.isoformat(), from_residency=p.residency,
                   to_residency=to)  # fmt: skip
        p.residency = to

    def _amount(self, p: PremiumPlayer, low: int, high: int) -> int:
        return int(p.rng.integers(low, high + 1)) * K

    def _live_day(self, p: PremiumPlayer, day: date, *, history: bool) -> None:
        """The player's account business of ``day`` (drawn from the player's stream)."""
        rng = p.rng
        for ref, due in sorted(p.cheques.items()):
            if due == day and p.account is not None:
                del p.cheques[ref]
                cls = ChequeDishonoured if rng.random() < 0.03 else ChequeCleared
                extra = {"bank": "authorised bank"} if cls is ChequeCleared else {}
                self._emit(cls, p, account=p.account, day=day.isoformat(), ref=ref, **extra)
        if p.account is None:
            if p.open_day == day:
                self._first_deposit(p, day)
            return
        if p.dormant_day is not None and day >= p.dormant_day:
            if day == p.dormant_day and p.balance > 20 * K:
                self.drawdown(p, day, p.balance - 20 * K, "withdrawal")
            elif rng.random() < 1 / 1500:  # a dormant account comes back to life
                p.dormant_day = None
                self.deposit(p, day, "cash", self._amount(p, 100, 200))
            return
        if history and rng.random() < self.cfg.visits_per_week / 7.0 and p.belief[0]:
            self._play_off_record(p, day)
        if rng.random() >= 1.0 / self.cfg.days_between_events:
            return
        self._business(p, day)

    def _first_deposit(self, p: PremiumPlayer, day: date) -> None:
        rng = p.rng
        self.open_account(p, day)
        u = rng.random()
        if self.gives_credit(p) and u < 0.35:
            lender = OPERATOR if rng.random() < 0.5 else "ima"
            self.credit(p, day, lender, self._amount(p, 50, 150))
            self.deposit(p, day, "cash", self._amount(p, 50, 150))
        elif u < 0.5:
            self.cheque(p, day, "personal_cheque", self._amount(p, 100, 300))
        elif u < 0.6:
            self.cheque(p, day, "casino_cheque", self._amount(p, 100, 300))
        elif u < 0.7:
            self.deposit(p, day, "cash", self._amount(p, 60, 90))  # more follows
            self.cheque(p, day, "personal_cheque", self._amount(p, 40, 80))
        else:
            form = _PLAIN[int(rng.integers(0, len(_PLAIN)))]
            self.deposit(p, day, form, self._amount(p, 100, 400))

    def _business(self, p: PremiumPlayer, day: date) -> None:
        rng = p.rng
        u = rng.random() * 10
        foreign = p.residency == "foreigner"
        if u < 4.5:  # a top-up
            form = _PLAIN[int(rng.integers(0, len(_PLAIN)))]
            if rng.random() < 0.25:
                self.cheque(p, day, "personal_cheque", self._amount(p, 20, 120))
            else:
                self.deposit(p, day, form, self._amount(p, 20, 120))
        elif u < 7.0:  # a withdrawal
            bal = p.balance
            take = (int(bal * (0.1 + 0.3 * rng.random())) // K) * K
            if rng.random() < 0.9:  # most keep the minimum balance on the account
                take = min(take, max(bal - self.desk.min_balance_cents, 0))
            if take > 0:
                self.drawdown(p, day, take, "withdrawal")
        elif u < 8.2:  # credit, to whom the desk's policy gives it (the law: foreigners)
            if self.gives_credit(p):
                lender = OPERATOR if rng.random() < 0.5 else "ima"
                self.credit(p, day, lender, self._amount(p, 30, 100))
        elif u < 9.0:  # credit repaid from outside the account
            if not p.credit:
                return
            lender = sorted(p.credit)[0]
            amount = p.credit.pop(lender)
            assert p.account is not None
            self.world.bus.emit(
                CreditRepaid, player=p.id, account=p.account, day=day.isoformat(),
                lender=lender, amount_cents=amount,
            )  # fmt: skip
        elif u < 9.06:  # becomes a PR (or a citizen)
            if p.residency == "citizen":
                return
            self.change_residency(p, day, "pr" if foreign else "citizen")
            if rng.random() < 0.5:
                self.deposit(p, day, "cash", self._amount(p, 100, 200))
        elif u < 9.12:  # closes the account; may come back with a new one
            self.close_account(p, day)
            if rng.random() < 0.5:
                p.open_day = day + timedelta(days=int(rng.integers(20, 120)))

    def gives_credit(self, p: PremiumPlayer) -> bool:
        """Whether the desk provides credit as a deposit to ``p`` ([premium.policy]
        ``credit_to``; the law, reg 2A(1)(e) and 2A(2): only to foreigners)."""
        if self.credit_to == "foreigners":
            return ALLOWED_FORMS[p.residency] >= {"credit_operator", "credit_ima"}
        return self.credit_to == "everyone"

    def _play_off_record(self, p: PremiumPlayer, day: date) -> None:
        """A visit of the player's history: chips drawn and returned, no session record."""
        chips = (p.balance * 3 // 10 // K) * K
        if chips <= 0:
            return
        net = self._net(p.rng, chips)
        self.drawdown(p, day, chips, "chips")
        if chips + net > 0:
            self.deposit(p, day, "chips", chips + net, provenance="gaming")

    def _net(self, rng: np.random.Generator, chips: int) -> int:
        stake = max((int(chips * self.cfg.stake_share) // 10_000) * 10_000, 10_000)
        rounds = self.cfg.session_rounds
        nets = self.bet.sample_net_cents(rng, np.full(rounds, stake, dtype=np.int64))
        return max(int(nets.sum()), -chips)

    def table_of(self, p: PremiumPlayer) -> str:
        """The table of ``p``'s current (latest) visit: the players take the tables in turn."""
        return self.tables[(p.visits + int(p.id[2:] or 0)) % len(self.tables)]

    def visit(self, p: PremiumPlayer, day: date) -> Generator[simpy.events.Event, Any, None]:
        """A session at a table of the room, on chips drawn from the account."""
        chips = (p.balance * 3 // 10 // K) * K
        if chips <= 0 or p.account is None:
            return
        p.visits += 1
        table = self.table_of(p)
        rng = self.world.streams.stream(table, "outcomes")
        stake = max((int(chips * self.cfg.stake_share) // 10_000) * 10_000, 10_000)
        rounds = self.cfg.session_rounds
        nets = self.bet.sample_net_cents(rng, np.full(rounds, stake, dtype=np.int64))
        net = max(int(nets.sum()), -chips)
        account = p.account
        self.drawdown(p, day, chips, "chips")
        yield self.world.env.timeout(self._at(day, CASH_IN) - self.world.env.now)
        self.world.bus.emit(
            PremiumPlayed, player=p.id, account=account, table=table, game=self.game.id,
            day=day.isoformat(), rounds=rounds, staked_cents=stake * rounds, net_cents=net,
        )  # fmt: skip
        if chips + net > 0 and p.account == account:
            self.deposit(p, day, "chips", chips + net, provenance="gaming")

    # -- the status desk --------------------------------------------------------------------

    def _decide(self, p: PremiumPlayer, day: date) -> None:
        """The desk's decision at the end of ``day`` (C2), recorded when it changes."""
        assert p.stepper is not None
        status = p.stepper.end_day(day)
        truth: Belief = (status.premium_player, status.basis, status.period_last_day)
        before, p.truth = p.truth, truth
        belief = truth
        if p.forced is not None:
            if day <= p.forced[1]:
                belief = p.forced[0]
            else:
                p.forced = None
        if p.forced is None and self.armed and p.held:
            belief = self._misjudge(p, day, status, before, truth)
        self._record(p, day, belief)

    def _record(self, p: PremiumPlayer, day: date, belief: Belief) -> None:
        old, p.belief = p.belief, belief
        if belief == old:
            return
        premium, basis, last = belief
        if premium:
            decision = "renewed" if basis == "reg 4(4)" else "granted"
            assert last is not None
            start = last + ONE_DAY - relativedelta(months=self.rules.period_months)
            self._emit(PremiumStatusDecided, p, account=p.account or "", day=day.isoformat(),
                       decision=decision, basis=basis, period_start=start.isoformat(),
                       period_last_day=last.isoformat())  # fmt: skip
        elif old[0]:
            self._emit(PremiumStatusDecided, p, account=p.account or "", day=day.isoformat(),
                       decision="ended", basis=basis, period_start="",
                       period_last_day="")  # fmt: skip

    def _force(self, p: PremiumPlayer, belief: Belief, until: date, kind: str) -> Belief:
        self.armed.remove(kind)
        p.forced = (belief, until)
        return belief

    def _misjudge(
        self, p: PremiumPlayer, day: date, status: DayStatus, before: Belief, truth: Belief
    ) -> Belief:
        """An armed misconduct of the desk, if today is the day it spoils."""
        armed = self.armed
        year = day + relativedelta(months=self.rules.period_months) - ONE_DAY
        far = day + relativedelta(years=5)
        lost = before[0] and not truth[0]
        if lost and truth[1] == "reg 4(5)":
            if "renewed_below_minimum" in armed:
                return self._force(p, (True, "reg 4(4)", year), year, "renewed_below_minimum")
            if "kept_after_lapse" in armed:
                return self._force(p, p.belief, far, "kept_after_lapse")
        if lost and truth[1] == "reg 4(6)" and "kept_after_closure" in armed:
            return self._force(p, p.belief, far, "kept_after_closure")
        if lost and truth[1] == "reg 4(3)" and "kept_after_residency_change" in armed:
            return self._force(p, p.belief, far, "kept_after_residency_change")
        restarted = before[0] and truth[0] and truth[1] == "reg 4(2)" and truth[2] != before[2]
        if restarted and "requalify_keeps_old_expiry" in armed:
            assert before[2] is not None
            return self._force(p, before, before[2], "requalify_keeps_old_expiry")
        minimum = self.rules.min_balance_cents
        below = status.qualifying_balance_cents < minimum
        if truth[0] and truth[1] == R3 and below and "downgraded_in_first_period" in armed:
            assert truth[2] is not None
            down: Belief = (False, "reg 4(5)", None)
            return self._force(p, down, truth[2], "downgraded_in_first_period")
        if (
            not truth[0] and truth[1] == "reg 3" and p.account is not None
            and status.balance_cents > 0 and below and "qualified_below_minimum" in armed
        ):  # fmt: skip
            return self._force(p, (True, R3, year), year, "qualified_below_minimum")
        if truth[0] and not before[0] and truth[1] == R3 and "mixed_forms_refused" in armed:
            ledger = p.stepper.ledger if p.stepper is not None else None
            forms = set(ledger.by_form()) if ledger is not None else set()
            if len(forms) > 1 and forms & {"credit_operator", "credit_ima"}:
                assert truth[2] is not None
                return self._force(p, (False, "reg 3", None), truth[2], "mixed_forms_refused")
        if (
            not truth[0] and truth[1] == "reg 4(5)" and not below and p.held
            and "requalified_after_long_dip" in armed
        ):  # fmt: skip
            return self._force(p, (True, "reg 4(2)", year), year, "requalified_after_long_dip")
        return truth

    # -- injections (twin.premium.injections) ---------------------------------------------------

    def today(self) -> date:
        return self.world.clock.at(self.world.env.now).date()

    def newcomer(self, residency: str) -> PremiumPlayer:
        """A new patron of the room (``PPX001``...), on streams of their own."""
        self._extra += 1
        p = PremiumPlayer(f"PPX{self._extra:03d}", residency, self.world.streams.stream(
            f"PPX{self._extra:03d}", "premium"))  # fmt: skip
        p.held = True
        self.players.append(p)
        self.world.bus.emit(PremiumPlayerRegistered, player=p.id, residency=residency,
                            day=self.today().isoformat())  # fmt: skip
        return p

    def pick(self, test: Any) -> PremiumPlayer | None:
        """The first player (in id order) the test accepts; taken over (held) if found."""
        for p in self.players:
            if not p.held and p.account is not None and p.stepper is not None and test(p):
                p.held = True
                return p
        return None

    def later(self, days: int, fn: Any) -> None:
        """``fn(day)`` at noon ``days`` days from today."""
        env = self.world.env
        day = self.today() + timedelta(days=days)

        def wait() -> Generator[simpy.events.Event, Any, None]:
            yield env.timeout(max(self._at(day, BUSINESS) - env.now, 0.0))
            fn(day)

        env.process(wait())
