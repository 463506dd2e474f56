"""Junkets (Malta reg 25): leaders and their licences, the notices, the members, their
deposits, dedicated junket chips, play in the junket room, and the junket's account.

The ``Junkets`` department is built from the scenario's ``[junkets]`` section. At t = 0 it
records each leader's application, licence, renewals, representatives and services (dates
before the run as fields of records at t = 0; later ones at their dates). Each scheduled
junket is notified to the Board ``notice_hours`` before it arrives (a notice due before the
run is recorded at t = 0 with its date); its members arrive, each lodges front money at the
desk and receives non-negotiable chips of the junket's own series, buys machine tokens with
them if the schedule says so, and plays sessions at the junket room's tables (a private
salon of the department's own) until the stay ends; then the leader's commission on rolling
turnover and the members' rebates on losses are settled and the chips redeemed.

As it starts (t = 0) the department records the Board's approval of its junkets' chip
series (``junket_chips_approved``, reg 23(1)). The junket room is on the entrance notice:
``junket_room()`` describes it (its game, tables, stakes and the Board's figures for the
game) to whoever exhibits the notice (the pit, or the notice board without one), which
records the junket room tables' stakes (``table_stakes``) and lists them (regs 21, 22).

Junket members are their own entities (``J3-M2``), not members of the slot population.
Every draw is on a stream of its own: members' particulars on ``(junket, "members")`` (who
of them is domiciled in Malta though resident abroad on ``(junket, "domicile")``), a
member's rests on ``(member, "play")``, a table's rounds on ``(table, "outcomes")``.

The desk works to its own procedures (``[junkets.policy]``, issue 34): when it notifies
junkets and sends leaders' particulars (set: for all alike; unset: each schedule's and
leader's own), how many representatives of a leader it registers and whether it accepts
members resident in Malta (unset: the law's). The controls read only the ruleset.

Injections (``twin.junkets.injections``) arm a misconduct on a junket or a leader before t = 0;
they cross the ruleset's numbers, whatever the policy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum

import numpy as np
import simpy
from dateutil.relativedelta import relativedelta

from twin.errors import InputError
from twin.junkets.params import (
    HOME_COUNTRY,
    LEADER_NOTICE_DAYS,
    MAX_REPRESENTATIVES,
    MEMBER_MIN_DEPOSIT,
    NOTICE_HOURS,
    SINGLE_MIN_DEPOSIT,
)
from twin.junkets.records import (
    JunketArrived,
    JunketChipsApproved,
    JunketChipsIssued,
    JunketChipsRedeemed,
    JunketDeparted,
    JunketDepositLodged,
    JunketDispensation,
    JunketLeaderApplied,
    JunketLeaderLicensed,
    JunketLicenceRenewed,
    JunketMemberArrived,
    JunketNotified,
    JunketRepresentativeRegistered,
    JunketServicesEnded,
    JunketServicesStarted,
    JunketSettled,
    JunketTablePlayed,
    JunketTokensBought,
)
from twin.junkets.room import JunketRoom
from twin.junkets.section import JunketLeader, JunketRepresentative, JunketSchedule, JunketsConfig
from twin.pit.section import TablesConfig
from twin.rules import RuleSource
from twin.scenario import Inject
from twin.tables.games import BetLaw, TableGame, load_table_game
from twin.world import World, quantize

#: What the department reads of the ruleset (``twin.compliance.ruleset.Ruleset``): the
#: numbers its injections cross by one, through their declarations (``twin.junkets.params``)
Rules = RuleSource


class JunketMisconduct(StrEnum):
    """What an injection makes go wrong; the value is the injection's kind."""

    # on a leader
    LATE_APPLICATION = "junket_leader_late_application"
    THIRD_REPRESENTATIVE = "junket_third_representative"
    SERVICES_ENDED = "junket_leader_services_ended"
    # on a junket
    RESIDENT_MEMBER = "junket_resident_member"
    LATE_NOTICE = "junket_late_notice"
    MISSING_PARTICULAR = "junket_missing_particular"
    SCHEDULE_NOT_SENT = "junket_schedule_not_sent"
    SHORT_DEPOSIT = "junket_short_deposit"
    CASH_CHIPS = "junket_cash_chips"
    CASH_TOKENS = "junket_cash_tokens"
    CHIPS_TO_OUTSIDER = "junket_chips_to_outsider"
    STAKE_BELOW_MINIMUM = "junket_stake_below_minimum"
    STAKE_ABOVE_MAXIMUM = "junket_stake_above_maximum"
    UNAPPROVED_CHIPS = "junket_unapproved_chips"


#: an injection on the junket room as the entrance notice lists it (no target; reg 22)
OFF_NOTICE = "junket_room_off_notice"

ON_LEADER = frozenset(
    {
        JunketMisconduct.LATE_APPLICATION,
        JunketMisconduct.THIRD_REPRESENTATIVE,
        JunketMisconduct.SERVICES_ENDED,
    }
)


@dataclass(frozen=True, slots=True)
class Member:
    """A junket member's particulars."""

    id: str
    name: str
    id_number: str
    nationality: str
    domicile: str
    residence: str
    address: str


@dataclass
class MemberAccount:
    """A member's junket chips and results during the stay."""

    member: Member
    chips: int = 0  # junket chips in hand
    tokens: int = 0
    net: int = 0  # the member's net result at the tables


@dataclass(frozen=True, slots=True)
class Guest:
    """Someone who joins a junket to launder its front money (``twin.aml.launderers``):
    lodges ``deposit_cents``, plays one short session of ``rounds`` rounds, and takes the
    chips back at settlement. ``act(step, cents, member id)`` records each act as the twin's
    truth (a ``laundering_act``)."""

    label: str
    passport: str
    country: str
    deposit_cents: int
    rounds: int
    act: Callable[[str, int, str], None]


@dataclass
class JunketPlan:
    """One scheduled junket: who, when, and what is armed against it."""

    id: str
    number: int
    schedule: JunketSchedule
    leader: JunketLeader | None
    arrival: float
    members: list[Member]
    armed: dict[JunketMisconduct, int] = field(default_factory=dict)  # misconduct -> amount
    guests: dict[str, Guest] = field(default_factory=dict)  # member id -> a launderer

    @property
    def registration(self) -> str:
        return f"JR-{self.id}"

    @property
    def series(self) -> str:
        """The junket's own series of non-negotiable chips."""
        return f"NN-{self.id}"


class JunketTable:
    """A table of the junket room: its game, the bet played, seats, its outcome stream."""

    def __init__(self, world: World, table_id: str, game: TableGame, bet: str) -> None:
        self.id = table_id
        self.game = game
        self.bet = bet
        self.law: BetLaw = game.bet(bet)
        self.seats = simpy.Resource(world.env, capacity=game.seats)
        self.rng = world.streams.stream(table_id, "outcomes")

    def rounds(self, stake: int, n: int, bankroll: int | None) -> tuple[int, int, int]:
        """Play up to ``n`` rounds of ``stake``; with a ``bankroll`` the player stops when
        the next stake is no longer covered. (rounds played, staked, player's net)."""
        if n <= 0:
            return 0, 0, 0
        nets = self.law.sample_net_cents(self.rng, np.full(n, stake, dtype=np.int64))
        played = n
        if bankroll is not None:
            left = bankroll + np.cumsum(nets)
            short = np.flatnonzero(left < stake)
            if short.size:
                played = int(short[0]) + 1
        return played, played * stake, int(nets[:played].sum())


def _day_start(d: date) -> datetime:
    return datetime.combine(d, time(0))


class Junkets:
    """The junket department (reg 25)."""

    name = "junkets"

    def __init__(
        self,
        world: World,
        config: JunketsConfig,
        ruleset: Rules,
        *,
        duration_hours: float,
        source: str,
    ) -> None:
        self.world = world
        self.config = config
        self.ruleset = ruleset
        self.end = duration_hours * 3600.0
        if not config.game.is_file():
            raise InputError(source, "junkets.game",
                             f"an existing table game file (looked for {config.game})",
                             str(config.game))  # fmt: skip
        self.game = load_table_game(config.game)
        bet = config.bet if config.bet is not None else self.game.main_bet
        if bet not in self.game.bets:
            raise InputError(source, "junkets.bet", f"one of {', '.join(self.game.bets)}", bet)
        self.tables = [
            JunketTable(world, f"JR-{n}", self.game, bet) for n in range(1, config.tables + 1)
        ]
        self.leaders = {x.id: x for x in config.leaders}
        policy = config.policy
        most = policy.max_representatives
        if most is None:
            most = int(MAX_REPRESENTATIVES.of(ruleset))
        #: the representatives the desk registers for each leader (the first it accepts)
        self.representatives = {x.id: x.representatives[:most] for x in config.leaders}
        self.leader_armed: dict[str, dict[JunketMisconduct, int]] = {x: {} for x in self.leaders}
        self.plans: dict[str, JunketPlan] = {}
        self.turnover: dict[str, int] = {}  # junket -> rolling (junket chip) turnover so far
        self.source = source
        self.room: JunketRoom | None = None  # set by junket_room() before t = 0
        for s in config.schedules:
            leader = self.leaders[s.leader] if s.leader is not None else None
            for k, jid in enumerate(s.junket_ids(duration_hours)):
                arrival = quantize((s.first_arrival_hours + 24.0 * s.every_days * k) * 3600.0)
                members = self._accepted(self._particulars(jid, s))
                if members:
                    self.plans[jid] = JunketPlan(jid, k + 1, s, leader, arrival, members)

    def junket_room(self, tables: TablesConfig | None) -> JunketRoom:
        """The junket room as the entrance notice and the stakes see it (before t = 0). The
        Board's figures for its game are ``[tables]``'s with a pit (one place for them),
        ``[junkets]``'s without."""
        cfg, gid, source = self.config, self.game.id, self.source
        if tables is not None:
            for key in ("board_minimum_cents", "authorised_maximum_cents"):
                if getattr(cfg, key) is not None:
                    raise InputError(source, f"junkets.{key}", "no value with a [tables] "
                                     f"section (the Board's figures are tables.{key})",
                                     getattr(cfg, key))  # fmt: skip
                if gid not in getattr(tables, key):
                    raise InputError(source, f"tables.{key}", f"a value for game {gid!r} "
                                     "(played in the junket room)", None)  # fmt: skip
            lo, hi = tables.board_minimum_cents[gid], tables.authorised_maximum_cents[gid]
        elif cfg.board_minimum_cents is None or cfg.authorised_maximum_cents is None:
            raise InputError(source, "junkets.board_minimum_cents", "the Board's minimum stake "
                             f"of the junket room's game {gid!r} (with authorised_maximum_cents"
                             "; a casino without [tables] names them in [junkets])",
                             None)  # fmt: skip
        else:
            lo, hi = cfg.board_minimum_cents, cfg.authorised_maximum_cents
        low, high = cfg.room_stakes
        self.room = JunketRoom(gid, tuple(t.id for t in self.tables), low, high, lo, hi)
        return self.room

    # -- injections ------------------------------------------------------------------------

    def arm(self, target: str, misconduct: JunketMisconduct, amount: int = 0) -> None:
        """Make ``misconduct`` happen to junket or leader ``target`` (before t = 0)."""
        if misconduct in ON_LEADER:
            self.leader_armed[target][misconduct] = amount
        else:
            self.plans[target].armed[misconduct] = amount

    def target_problem(self, kind: str, target: str | None) -> str | None:
        """Why injection ``kind`` cannot act on ``target`` (None: it can)."""
        m = JunketMisconduct(kind)
        if m in ON_LEADER:
            if target not in self.leaders:
                return f"the id of a junket leader ({', '.join(sorted(self.leaders)) or 'none'})"
            return None
        if target not in self.plans:
            return f"a junket arriving during the run ({', '.join(self.plans) or 'none'})"
        plan = self.plans[target]
        if m is JunketMisconduct.SCHEDULE_NOT_SENT and plan.leader is not None:
            return "a junket the licensee organises itself (a schedule without a leader)"
        if m is JunketMisconduct.CASH_TOKENS and plan.schedule.tokens_cents == 0:
            return "a junket whose members buy machine tokens (tokens_cents > 0)"
        below = m is JunketMisconduct.STAKE_BELOW_MINIMUM
        if below and self.room is not None and self.room.board_minimum_cents < 2:
            return "a junket room whose game's Board minimum is at least 2 cents"
        if m is JunketMisconduct.STAKE_ABOVE_MAXIMUM and self.room is not None:
            cap = self.room.authorised_maximum_cents + 1
            if plan.schedule.deposit_cents - plan.schedule.tokens_cents < cap:
                return (f"a junket whose members' chips cover a stake of {cap} cents (one "
                        "above the Board's authorised maximum)")  # fmt: skip
        return None

    def add_guest(self, plan_id: str, guest: Guest) -> str:
        """``guest`` joins junket ``plan_id`` as one more member (before t = 0); the member
        id it has on that junket."""
        plan = self.plans[plan_id]
        drawn = max((int(m.id.rsplit("-M", 1)[1]) for m in plan.members), default=0)
        mid = f"{plan.id}-M{drawn + 1}"
        c = guest.country
        plan.members.append(Member(
            id=mid, name=f"Guest {mid}", id_number=guest.passport, nationality=c, domicile=c,
            residence=c, address=f"{guest.passport[-3:].lstrip('0') or '1'} Main Street, {c}",
        ))  # fmt: skip
        plan.guests[mid] = guest
        return mid

    # -- the department --------------------------------------------------------------------

    def start(self) -> None:
        env = self.world.env
        unapproved = JunketMisconduct.UNAPPROVED_CHIPS
        approved = tuple(p.series for p in self.plans.values() if unapproved not in p.armed)
        self.world.bus.emit(JunketChipsApproved, series=approved)
        for leader in self.leaders.values():
            env.process(self.license_leader(leader))
        for plan in self.plans.values():
            env.process(self.run_junket(plan))

    def finish(self) -> None:
        """Nothing is due at the end: a junket still in the casino is simply not settled."""

    # -- leaders ---------------------------------------------------------------------------

    def _at(self, d: date) -> float:
        """Simulation time of local midnight starting ``d`` (0 for days before the run)."""
        return max(0.0, self.world.clock.seconds(_day_start(d)))

    @staticmethod
    def _application_day(leader: JunketLeader, days: int) -> date:
        """The day the leader's particulars go to the Board ``days`` (calendar) days before
        its services start."""
        return leader.services_start - relativedelta(days=days)

    def license_leader(self, leader: JunketLeader) -> simpy.events.ProcessGenerator:
        """The leader's application, licence, representatives, services, in date order."""
        env, bus, clock = self.world.env, self.world.bus, self.world.clock
        armed = self.leader_armed[leader.id]
        applied = leader.applied
        days = self.config.policy.leader_notice_days  # the desk's procedure (None: `applied`)
        if days is not None:
            applied = self._application_day(leader, days)
        if JunketMisconduct.LATE_APPLICATION in armed:
            days = int(LEADER_NOTICE_DAYS.of(self.ruleset))
            applied = self._application_day(leader, days - 1)
        reps = list(self.representatives[leader.id])
        if JunketMisconduct.THIRD_REPRESENTATIVE in armed:
            most = int(MAX_REPRESENTATIVES.of(self.ruleset))
            while len(reps) <= most:
                n = len(reps) + 1
                reps.append(JunketRepresentative(
                    name=f"Representative {n} of {leader.name}", address="Valletta, MT",
                    id_number=f"{leader.id}-R{n}",
                ))  # fmt: skip
        services_end = leader.services_end
        if JunketMisconduct.SERVICES_ENDED in armed:
            services_end = clock.at(0.0).date()
        yield env.timeout(0)
        events: list[tuple[date, int]] = []  # (date, what: licence, renewal, start, end)
        bus.emit(
            JunketLeaderApplied, leader=leader.id, leader_kind=leader.kind, name=leader.name,
            address=leader.address, id_number=leader.id_number,
            agreement_supplied=leader.agreement_supplied,
            proposed_start=leader.services_start.isoformat(), applied=applied.isoformat(),
        )  # fmt: skip
        events.append((leader.licence_issued, 0))
        events += [(r, 1) for r in leader.renewals]
        events.append((leader.services_start, 2))
        if services_end is not None:
            events.append((services_end, 3))
        last = clock.at(self.end).date()
        for d, what in sorted(events):
            if d > last:
                break
            at = self._at(d)
            if at >= self.end:
                break
            if at > env.now:
                yield env.timeout(at - env.now)
            if what == 0:
                bus.emit(
                    JunketLeaderLicensed, leader=leader.id, licence_number=leader.licence_number,
                    issued=d.isoformat(),
                    services_end=services_end.isoformat() if services_end is not None else "",
                )  # fmt: skip
                for n, rep in enumerate(reps, start=1):
                    bus.emit(
                        JunketRepresentativeRegistered, leader=leader.id,
                        representative=f"{leader.id}-R{n}", name=rep.name, address=rep.address,
                        id_number=rep.id_number,
                    )  # fmt: skip
            elif what == 1:
                bus.emit(JunketLicenceRenewed, leader=leader.id,
                         licence_number=leader.licence_number, renewed=d.isoformat())  # fmt: skip
            elif what == 2:
                bus.emit(JunketServicesStarted, leader=leader.id, started=d.isoformat())
            else:
                bus.emit(JunketServicesEnded, leader=leader.id, ended=d.isoformat())

    # -- junkets ---------------------------------------------------------------------------

    def _particulars(self, jid: str, s: JunketSchedule) -> list[Member]:
        rng = self.world.streams.stream(jid, "members")
        out: list[Member] = []
        for n in range(1, s.members + 1):
            country = s.countries[int(rng.integers(len(s.countries)))]
            mid = f"{jid}-M{n}"
            passport = f"{country}{int(rng.integers(10**7, 10**8))}"
            out.append(Member(
                id=mid, name=f"Guest {mid}", id_number=passport,
                nationality=country, domicile=country, residence=country,
                address=f"{int(rng.integers(1, 200))} Main Street, {country}",
            ))  # fmt: skip
        if s.home_domiciled_share > 0:  # a stream of its own: the other draws stay as they were
            home = str(HOME_COUNTRY.of(self.ruleset))
            where = self.world.streams.stream(jid, "domicile")
            out = [
                replace(m, domicile=home) if where.random() < s.home_domiciled_share else m
                for m in out
            ]
        return out

    def _accepted(self, members: list[Member]) -> list[Member]:
        """The members the desk accepts (reg 25(1)): by default none resident in the
        ruleset's ``junket_home_country``; with ``accept_home_residents`` every one. The
        particulars are drawn first either way: the other draws stay as they were."""
        if self.config.policy.accept_home_residents:
            return members
        home = str(HOME_COUNTRY.of(self.ruleset))
        return [m for m in members if m.residence != home]

    def run_junket(self, plan: JunketPlan) -> simpy.events.ProcessGenerator:
        """Notice, arrival, deposits and chips, play, settlement and departure."""
        env, bus, clock = self.world.env, self.world.bus, self.world.clock
        s = plan.schedule
        armed = plan.armed
        members = list(plan.members)
        if JunketMisconduct.RESIDENT_MEMBER in armed:
            last = members[-1]
            home = str(HOME_COUNTRY.of(self.ruleset))
            members[-1] = Member(last.id, last.name, last.id_number, last.nationality,
                                 last.domicile, home, f"12 Tower Road, Sliema, {home}")  # fmt: skip
        arrival_local = clock.at(plan.arrival)
        ahead = self.config.policy.notice_hours  # the desk's procedure (None: the schedule's)
        sent = arrival_local.astimezone(UTC) - timedelta(
            hours=ahead if ahead is not None else s.notice_hours
        )
        if JunketMisconduct.LATE_NOTICE in armed:
            hours = int(NOTICE_HOURS.of(self.ruleset))
            sent = arrival_local.astimezone(UTC) - timedelta(hours=hours - 1)
        notice_t = clock.seconds(sent)
        yield env.timeout(max(0.0, notice_t))
        if s.dispensation:
            bus.emit(JunketDispensation, junket=plan.id, reason="justifiable reason given")
        leader = plan.leader
        ids = [m.id_number for m in members]
        if JunketMisconduct.MISSING_PARTICULAR in armed:
            ids[-1] = ""
        bus.emit(
            JunketNotified, junket=plan.id, organiser="leader" if leader else "licensee",
            leader=leader.id if leader else "",
            licence_number=leader.licence_number if leader else "",
            representatives=tuple(
                f"{r.name}|{r.address}|{r.id_number}"
                for r in (self.representatives[leader.id] if leader else ())
            ),
            members=tuple(m.id for m in members), member_names=tuple(m.name for m in members),
            member_residences=tuple(m.residence for m in members), member_id_numbers=tuple(ids),
            arrival=arrival_local.isoformat(timespec="seconds"), stay_hours=s.stay_hours,
            registration=plan.registration,
            agreement_attached=JunketMisconduct.SCHEDULE_NOT_SENT not in armed,
            sent=sent.astimezone(clock.zone).isoformat(timespec="seconds"),
        )  # fmt: skip
        yield env.timeout(max(0.0, plan.arrival - env.now))
        bus.emit(JunketArrived, junket=plan.id, leader=leader.id if leader else "",
                 registration=plan.registration, members=tuple(m.id for m in members),
                 stay_hours=s.stay_hours)  # fmt: skip
        accounts = [self._check_in(plan, m, i) for i, m in enumerate(members)]
        departure = plan.arrival + quantize(s.stay_hours * 3600.0)
        stays = [env.process(self.stay(plan, a, i, departure)) for i, a in enumerate(accounts)]
        yield simpy.AllOf(env, stays)
        if departure > env.now:
            yield env.timeout(departure - env.now)
        self._settle(plan, accounts)

    def _check_in(self, plan: JunketPlan, m: Member, i: int) -> MemberAccount:
        """The member's particulars, deposit, junket chips and tokens at the desk."""
        bus = self.world.bus
        s = plan.schedule
        desk = self.config.desk
        bus.emit(JunketMemberArrived, member=m.id, junket=plan.id, name=m.name,
                 id_number=m.id_number, nationality=m.nationality, domicile=m.domicile,
                 residence=m.residence, address=m.address)  # fmt: skip
        deposit = s.deposit_cents
        if i == 0 and JunketMisconduct.SHORT_DEPOSIT in plan.armed:
            amount = plan.armed[JunketMisconduct.SHORT_DEPOSIT]
            least = SINGLE_MIN_DEPOSIT if len(plan.members) == 1 else MEMBER_MIN_DEPOSIT
            deposit = amount if amount > 0 else math.ceil(least.money(self.ruleset)) - 1
        guest = plan.guests.get(m.id)
        if guest is not None:
            deposit = guest.deposit_cents
        bus.emit(JunketDepositLodged, member=m.id, junket=plan.id, desk=desk,
                 amount_cents=deposit)  # fmt: skip
        bus.emit(JunketChipsIssued, member=m.id, junket=plan.id, desk=desk, series=plan.series,
                 amount_cents=deposit)  # fmt: skip
        if guest is not None:
            guest.act("front_money", deposit, m.id)
        acct = MemberAccount(m, chips=deposit)
        if s.tokens_cents > 0:
            cash = i == 0 and JunketMisconduct.CASH_TOKENS in plan.armed
            tokens = min(s.tokens_cents, acct.chips) if not cash else s.tokens_cents
            bus.emit(JunketTokensBought, member=m.id, junket=plan.id, desk=desk,
                     paid_with="cash" if cash else "junket", amount_cents=tokens)  # fmt: skip
            if not cash:
                acct.chips -= tokens
                acct.tokens += tokens
        return acct

    def _session_end(self, start: float, departure: float, hours: float) -> float:
        end = min(departure, start + hours * 3600.0)
        clock = self.world.clock
        oh = clock.opening_hours
        if oh.open != oh.close:
            end = min(end, clock.next_local(start, oh.close))
        return end

    def stay(
        self, plan: JunketPlan, acct: MemberAccount, i: int, departure: float
    ) -> simpy.events.ProcessGenerator:
        """A member's sessions at the junket room's tables until the stay ends."""
        env, clock = self.world.env, self.world.clock
        s = plan.schedule
        rng = self.world.streams.stream(acct.member.id, "play")
        table = self.tables[i % len(self.tables)]
        first = True
        while True:
            rest = quantize(float(rng.exponential(s.rest_hours * 3600.0)))
            start = env.now + rest
            oh = clock.opening_hours
            if oh.open != oh.close and not clock.is_open(start):
                start = clock.next_local(start, oh.open)
            if start >= departure:
                return
            yield env.timeout(start - env.now)
            if acct.chips < s.stake_cents:
                return
            end = self._session_end(env.now, departure, s.session_hours)
            n = int((end - env.now) / 3600.0 * self.game.rounds_per_hour)
            guest = plan.guests.get(acct.member.id)
            if guest is not None:
                if not first:
                    return  # a launderer's show of play: one short session
                n = min(n, guest.rounds)
            if n <= 0:
                return
            cash = first and i == 0 and JunketMisconduct.CASH_CHIPS in plan.armed
            stake = self._stake(plan) if first and i == 0 else s.stake_cents
            with table.seats.request() as seat:
                yield seat
                began = env.now
                played, staked, net = table.rounds(stake, n, None if cash else acct.chips)
                yield env.timeout(quantize(played / self.game.rounds_per_hour * 3600.0))
                self._played(plan, acct.member.id, table, "cash" if cash else "junket",
                             played, staked, net, began)  # fmt: skip
                if not cash:
                    acct.chips += net
                    acct.net += net
            if first and i == 0 and JunketMisconduct.CHIPS_TO_OUTSIDER in plan.armed:
                yield from self.outsider_plays(plan, acct, table)
            first = False

    def _stake(self, plan: JunketPlan) -> int:
        """The first member's first stake: the schedule's, or one cent past the Board's
        figures (injected)."""
        room = self.room
        if room is not None and JunketMisconduct.STAKE_BELOW_MINIMUM in plan.armed:
            return room.board_minimum_cents - 1
        if room is not None and JunketMisconduct.STAKE_ABOVE_MAXIMUM in plan.armed:
            return room.authorised_maximum_cents + 1
        return plan.schedule.stake_cents

    def outsider_plays(
        self, plan: JunketPlan, acct: MemberAccount, table: JunketTable
    ) -> simpy.events.ProcessGenerator:
        """A member hands junket chips to a local friend, who bets them at the table."""
        env = self.world.env
        stake = plan.schedule.stake_cents
        if acct.chips < stake:
            return
        with table.seats.request() as seat:
            yield seat
            began = env.now
            played, staked, net = table.rounds(stake, 10, acct.chips)
            yield env.timeout(quantize(played / self.game.rounds_per_hour * 3600.0))
            self._played(plan, f"{plan.id}-G1", table, "junket", played, staked, net, began)
            acct.chips += net

    def _played(
        self, plan: JunketPlan, player: str, table: JunketTable, chips: str,
        rounds: int, staked: int, net: int, began: float,
    ) -> None:  # fmt: skip
        if chips == "junket":
            self.turnover[plan.id] = self.turnover.get(plan.id, 0) + staked
        self.world.bus.emit(
            JunketTablePlayed, player=player, table=table.id, junket=plan.id, chips=chips,
            game=self.game.id, bet=table.bet, rounds=rounds, staked_cents=staked,
            net_cents=net, started=began,
        )  # fmt: skip

    def _settle(self, plan: JunketPlan, accounts: Sequence[MemberAccount]) -> None:
        """Rebates on losses to the members, chips redeemed, commission to the leader."""
        bus = self.world.bus
        s = plan.schedule
        rebates = 0
        for a in accounts:
            rebate = (-a.net) * s.rebate_bp // 10_000 if a.net < 0 else 0
            rebates += rebate
            bus.emit(JunketChipsRedeemed, member=a.member.id, junket=plan.id,
                     desk=self.config.desk, chips_cents=a.chips + a.tokens,
                     rebate_cents=rebate)  # fmt: skip
            guest = plan.guests.get(a.member.id)
            if guest is not None:
                guest.act("cash_out", a.chips + a.tokens + rebate, a.member.id)
        staked = self.turnover.pop(plan.id, 0)
        commission = staked * s.commission_bp // 10_000 if plan.leader is not None else 0
        bus.emit(
            JunketSettled, junket=plan.id, leader=plan.leader.id if plan.leader else "",
            turnover_cents=staked, player_net_cents=sum(a.net for a in accounts),
            commission_cents=commission, rebate_cents=rebates,
        )  # fmt: skip
        bus.emit(JunketDeparted, junket=plan.id, members=tuple(a.member.id for a in accounts))


def validate_injections(injects: Sequence[Inject], junkets: Junkets | None, source: str) -> None:
    """Every junket injection of the scenario names a target it can act on (before t = 0)."""
    kinds = {m.value for m in JunketMisconduct}
    for i, inj in enumerate(injects):
        if inj.kind not in kinds and inj.kind != OFF_NOTICE:
            continue
        if junkets is None:
            raise InputError(source, f"inject[{i}].kind",
                             "a [junkets] section for a junket injection", inj.kind)  # fmt: skip
        if inj.kind == OFF_NOTICE:
            continue
        problem = junkets.target_problem(inj.kind, inj.target)
        if problem is not None:
            raise InputError(source, f"inject[{i}].target", problem, inj.target)


__all__ = [
    "OFF_NOTICE",
    "ON_LEADER",
    "Guest",
    "JunketMisconduct",
    "JunketPlan",
    "JunketTable",
    "Junkets",
    "Member",
    "MemberAccount",
    "validate_injections",
]
