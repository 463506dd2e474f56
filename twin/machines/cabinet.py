"""The slot machine's cabinet: its SimPy processes around its accounting, but for play.

Processes are generator methods named after activities: ``cash_out``, ``pay_by_hand``,
``fill_hopper``, ``collect_drop``, ``run_disruptions``, ``repair``; ``leave_floor`` and
``return_to_floor`` (out of operation and back) are inherited from
:class:`twin.machines.out_of_operation.OutOfOperation`; the program and play are
:class:`twin.machines.machine.SlotMachine`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import simpy

from twin.jobs import (
    DOOR_CHECK,
    DROP_COLLECTION,
    HAND_PAY,
    HOPPER_FILL,
    JOB_ROLES,
    REPAIR,
    JobHandle,
    JobSpec,
)
from twin.machines.accounting import SlotAccounts
from twin.machines.adaptive import AdaptivePayTable
from twin.machines.engine import (
    BatchedEngine,
    PerSpinEngine,
    PlayResult,
    Stop,
    StretchTally,
    UniformTape,
)
from twin.machines.events import (
    BillAccepted,
    CashedOut,
    CoinsAccepted,
    HandPaid,
    HopperFilled,
    HopperPaid,
    MachineException,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    MoneyRemoved,
    OutcomeTally,
    ProgressiveHit,
    ShortPayCompleted,
    TiltRepaired,
)
from twin.machines.misconduct import Misconduct
from twin.machines.out_of_operation import OUTSIDER, OutOfOperation
from twin.machines.par import Game
from twin.machines.progressive import ProgressiveLink
from twin.machines.sas import Door, ExceptionCode
from twin.machines.spec import Crew, Disruption, EngineKind, MachineSpec, Proc, Sampler
from twin.machines.verification import rom_signature
from twin.monitor import LevelMonitor
from twin.records import Record
from twin.world import LateTimeout, World, quantize


class Cabinet(OutOfOperation):
    """The machine as the floor's staff meet it: its accounts (meters, hopper, credits,
    doors), its records and exceptions, money in, hand pays, cash out and hopper fills, the
    drop, out of operation and back, doors, tilts and repairs. :class:`SlotMachine
    <twin.machines.machine.SlotMachine>` adds the program and its play."""

    def __init__(
        self,
        world: World,
        spec: MachineSpec,
        crew: Crew,
        *,
        engine: EngineKind = "batched",
        link: ProgressiveLink | None = None,
    ) -> None:
        self.world = world
        self.env = world.env
        self.spec = spec
        self.id = spec.id
        self.crew = crew
        self.link = link
        self.accounts = SlotAccounts(
            denomination_cents=spec.denomination_cents,
            hopper_capacity=spec.hopper_capacity,
            hopper_level=spec.hopper_initial,
            meter_digits=spec.meter_digits,
            bill_denominations_cents=spec.bill_denominations_cents,
        )
        streams = world.streams
        self.engine_kind = engine
        self.game = spec.game  # the program the machine really runs
        self.reported_signature = spec.game.signature  # what it tells a signature check
        self._batched = BatchedEngine(spec.game)
        self._per_spin = PerSpinEngine(spec.game)
        self.tally = StretchTally(spec.game)
        self.by_bet: dict[int, list[int]] = {}
        # deliberate violations armed by ``twin.slots.injections`` (each consumed when it happens)
        self.armed: dict[Misconduct, int] = {}
        self.hidden_meters: set[str] = set()
        self._at_max_bet: tuple[int, Game, BatchedEngine] | None = None
        self._swap_pending: tuple[Game, str | None] | None = None
        self.forced_bet_units: int | None = None
        self.adaptive: AdaptivePayTable | None = None  # injected: pays follow the hold
        base_rng = streams.stream(spec.id, "games")
        feature_rng = streams.stream(spec.id, "features")
        self._base_tape = UniformTape(base_rng)
        self._feature_tape = UniformTape(feature_rng)
        self._base_rng = base_rng
        self._feature_rng = feature_rng
        self.service_rng = streams.stream(spec.id, "service")
        self.patron: str | None = None
        self.down: set[str] = set()
        self._ready: simpy.Event | None = None
        self._player: simpy.Process | None = None
        self._busy_with: simpy.Event | None = None  # set during a procedure
        self.downtime = LevelMonitor(lambda: self.env.now)
        self._door_holders: dict[Door, str] = {}
        # out of operation (20(c)): why no new patron may take it (None: in operation), and
        # whether it is on the floor and connected at all
        self.withdrawn: str | None = None
        self.present = True
        self._back: simpy.Event | None = None

    # -- records -------------------------------------------------------------------------
    def emit(self, cls: type[Record], **fields: Any) -> None:
        """A record about this machine (its ``machine`` role filled in)."""
        self.world.bus.emit(cls, machine=self.id, **fields)

    def exception(self, code: ExceptionCode, *, patron: str = "", staff: str = "") -> None:
        """A SAS exception, naming the patron at the machine or the staff member who caused it."""
        self.world.bus.emit(
            MachineException,
            machine=self.id,
            patron=patron,
            staff=staff,
            code=int(code),
            name=code.name.lower(),
        )

    def arm(self, misconduct: Misconduct, amount: int = 0) -> None:
        """Arm a deliberate violation (violation injection only)."""
        self.armed[misconduct] = amount

    def take(self, misconduct: Misconduct) -> bool:
        """Whether ``misconduct`` was armed; it is consumed."""
        return self.armed.pop(misconduct, None) is not None

    def answer_signature_challenge(self, seed: int) -> str:
        """SAS ROM signature (long poll 0x21): the seeded signature of the program it runs.
        Pays chosen by the wager (``play_other_program_from``) or by the hold (``adaptive``)
        are a setting of the approved image, as a DIP switch or an operator menu: the image,
        and so the answer, stay the approved ones (item 3(a)'s breach, not a program swap)."""
        return rom_signature(seed, self.game.signature)

    def install(self, fill_by: tuple[str, str] | None = None) -> None:
        """Put the machine on the floor; its first hopper load is a certified fill."""
        s = self.spec
        self.emit(
            MachineInstalled,
            bank=s.bank,
            zone=s.zone,
            game_id=s.game.id,
            game_signature=s.game.signature,
            denomination_cents=s.denomination_cents,
            max_bet_units=s.max_bet_units,
            registration=s.registration,
            serial=s.serial,
            hopper_coins=self.accounts.hopper_level,
            progressive=s.progressive or "",
            meter_digits=s.meter_digits,
            manufacturer=s.manufacturer,
            model=s.model,
            manufactured=s.manufactured,
            certified_min_payout_bp=s.certified_min_payout_bp,
            certificate=s.certificate.particulars() if s.certificate is not None else (),
            paytable_displayed=s.paytable_displayed,
            promotional=s.promotional,
            asset_number=s.asset_number,
            bill_denominations_cents=s.bill_denominations_cents if s.bill_acceptor else (),
        )
        self.read_meters()  # the opening reading: every meter at zero
        if fill_by is not None and self.accounts.hopper_level > 0:
            attendant, inspector = fill_by
            level = self.accounts.hopper_level
            self.emit(
                HopperFilled,
                reason="new",
                coins=level,
                certified_coins=level,
                hopper_level=level,
                attendant=attendant,
                inspector=inspector,
                requested_t=self.env.now,
            )

    def read_meters(self) -> None:
        """A meter reading and the outcome tally, as a SMIB or an inspector would take them."""
        meters = tuple(
            sorted(
                (k, v) for k, v in self.accounts.readings().items() if k not in self.hidden_meters
            )
        )
        self.emit(
            MetersRead,
            meters=meters,
            hopper_level=self.accounts.hopper_level,
            registration=self.spec.registration,
            serial=self.spec.serial,
            asset_number=self.spec.asset_number,
            program_signature=self.reported_signature,
        )
        t = self.tally
        tr = t.transitions
        pays = t.pays
        n = len(pays)
        self.emit(
            OutcomeTally,
            program_signature=self.reported_signature,
            stop_counts=tuple(tuple(c.tolist()) for c in t.stop_counts),
            transitions=(int(tr[0]), int(tr[1]), int(tr[2]), int(tr[3])),
            by_bet=tuple((b, g, w) for b, (g, w) in sorted(self.by_bet.items())),
            selected_won=t.credits,
            best_line_pays=tuple(zip(pays, t.classes[:n].tolist(), strict=True)),
            scatter_counts=tuple(t.classes[n:].tolist()),
            feature_stop_counts=tuple(tuple(c.tolist()) for c in t.feature_stop_counts),
            feature_best_line_pays=(
                tuple(zip(pays, t.feature_classes[:n].tolist(), strict=True))
                if t.feature_classes.size
                else ()
            ),
            feature_scatter_counts=tuple(t.feature_classes[n:].tolist()),
        )

    # -- availability ----------------------------------------------------------------------
    @property
    def available(self) -> bool:
        return not self.down and self.withdrawn is None

    def mark_down(self, reason: str) -> None:
        if not self.down:
            self.downtime.set(1)
        self.down.add(reason)

    def mark_up(self, reason: str) -> None:
        self.down.discard(reason)
        if not self.down:
            self.downtime.set(0)
            if self._ready is not None:
                ready, self._ready = self._ready, None
                ready.succeed()

    def wait_ready(self) -> Proc:
        while self.down:
            if self._ready is None:
                self._ready = self.env.event()
            yield self._ready

    # -- money in --------------------------------------------------------------------------
    def insert_coins(self, patron: str, coins: int) -> None:
        got = self.accounts.insert_coins(coins)
        self.world.bus.emit(
            CoinsAccepted,
            machine=self.id,
            patron=patron,
            coins=coins,
            to_hopper=got.to_hopper,
            to_drop=got.to_drop,
        )

    def insert_bill(self, patron: str, cents: int) -> None:
        credits = self.accounts.insert_bill(cents)
        self.world.bus.emit(
            BillAccepted, machine=self.id, patron=patron, bill_cents=cents, credits=credits
        )

    # -- hand pays -------------------------------------------------------------------------
    def pay_jackpot(self, patron: str, r: PlayResult) -> Generator[simpy.events.Event, Any, int]:
        """A locked machine waits for an attendant and an inspector to pay the win by hand."""
        credits = r.lock_win
        reason = "jackpot"
        if r.stop is Stop.PROGRESSIVE:
            assert self.link is not None, "progressive hit on a machine with no link"
            prize_credits, prize_cents = self.link.hit(self.spec.denomination_cents)
            self.emit(
                ProgressiveHit,
                patron=patron,
                link=self.link.id,
                prize_cents=prize_cents,
                reset_cents=self.link.reset_cents,
            )
            credits += prize_credits
            reason = "progressive"
        self.emit(
            MachineLocked,
            patron=patron,
            reason=reason,
            win=credits,
            prize_cents=credits * self.spec.denomination_cents,
        )
        yield from self.pay_by_hand(patron, reason, credits)
        return credits

    def pay_by_hand(self, patron: str, reason: str, credits: int) -> Proc:
        """Hand pay: the machine is locked until an attendant pays and an inspector certifies."""
        env = self.env
        requested = env.now
        self.mark_down("hand_pay")
        self.exception(ExceptionCode.HANDPAY_PENDING, patron=patron)
        crew = self.crew
        if self.take(Misconduct.UNPAID_HAND_PAY):
            yield env.event()  # nobody ever comes: the machine stays locked
        above = crew.second_inspector_above_cents
        two = above is not None and credits * self.spec.denomination_cents > above
        job, attendant, inspector = yield from self._attendant_and_inspector(
            HAND_PAY,
            without_inspector=self.take(Misconduct.HAND_PAY_WITHOUT_INSPECTOR),
            outsider=self.take(Misconduct.HAND_PAY_BY_OUTSIDER),
            inspectors=2 if two else 1,
        )
        yield env.timeout(self._minutes(crew.timing.walk) + self._minutes(crew.timing.hand_pay))
        if reason == "credit_payout":
            # the machine pays what its credit meter holds (less, if it was wound back)
            credits = min(credits, self.accounts.credits)
            if credits:
                self.accounts.pay_by_hand(credits)
        else:
            # the jackpot (hand pay) meter counts the coins paid by hand pay, when paid
            self.accounts.record_jackpot(credits)
        if credits:
            self.emit(
                HandPaid,
                patron=patron,
                reason=reason,
                credits=credits,
                cents=credits * self.spec.denomination_cents,
                attendant=attendant,
                inspector=inspector,
                requested_t=requested,
            )
        self.exception(ExceptionCode.HANDPAY_RESET, patron=patron)
        crew.service.complete(job)
        self.mark_up("hand_pay")

    def _attendant_and_inspector(
        self,
        kind: str,
        *,
        without_inspector: bool = False,
        outsider: bool = False,
        inspectors: int = 1,
    ) -> Generator[simpy.events.Event, Any, tuple[JobHandle, str, str]]:
        """File a job for an attendant and a Board inspector (``inspectors`` of them); all
        come together.

        ``without_inspector``/``outsider`` are injected violations: the job needs no inspector,
        or someone who is not the licensee's employee does the attendant's job.
        """
        roles = tuple(
            r
            for r in JOB_ROLES[kind]
            if not (r == "inspector" and without_inspector) and not (r == "attendant" and outsider)
        )
        if "inspector" in roles:
            roles += ("inspector",) * (inspectors - 1)
        job = self.crew.service.request(JobSpec(kind, self.id, roles))
        got: dict[str, str] = yield job.assigned
        attendant = OUTSIDER if outsider else got["attendant"]
        return job, attendant, got.get("inspector", "")

    # -- cash out and hopper -----------------------------------------------------------------
    def cash_out(
        self, patron: str, limit: int | None = None
    ) -> Generator[simpy.events.Event, Any, int]:
        """Credits paid by the hopper up to the hopper-pay limit (``limit`` credits instead,
        when given: a test bench's), the rest by hand."""
        credits = self.accounts.credits
        if credits == 0:
            return 0
        if self.take(Misconduct.UNDOCUMENTED_PAYOUT):
            # injected: the whole payout is made by hand off the books: the meter cancels
            # the credits as a hand pay, but no slip, no hand pay and no cash-out is recorded
            self.accounts.pay_by_hand(credits)
            return credits
        by_hopper = min(credits, self.spec.hopper_pay_limit_credits if limit is None else limit)
        by_hand = credits - by_hopper
        paid = yield from self._pay_coins(by_hopper)
        # still owed by the hopper: what it could not pay because it ran dry (a meter wound
        # back while the coins dropped holds fewer credits: those are not owed)
        short = min(by_hopper - paid, self.accounts.credits)
        self.world.bus.emit(
            HopperPaid,
            machine=self.id,
            patron=patron,
            coins=paid,
            requested=paid + short,
            hopper_level=self.accounts.hopper_level,
        )
        owed = short
        if owed and self.take(Misconduct.SHORT_PAY_WITHOUT_FILL):
            # injected: the short pay is settled by hand and the hopper is never filled
            self.exception(ExceptionCode.HOPPER_EMPTY, patron=patron)
            self.emit(ShortPayCompleted, patron=patron, coins=0, short_coins=owed)
            by_hand += owed  # paid with the credit payout below
            owed = short = 0
        after_fill = 0
        while owed:
            # the hopper ran dry mid-payout: tilt, wait for a fill, then finish the payout
            self.exception(ExceptionCode.HOPPER_EMPTY, patron=patron)
            self.mark_down("hopper_empty")
            yield from self.fill_hopper("empty", patron)
            owed = min(owed, self.accounts.credits)  # no more than the meter holds now
            got = yield from self._pay_coins(owed)
            after_fill += got
            owed -= got
            if owed:
                self.emit(
                    HopperPaid,
                    patron=patron,
                    coins=got,
                    requested=owed + got,
                    hopper_level=self.accounts.hopper_level,
                )
        if short:
            self.emit(ShortPayCompleted, patron=patron, coins=after_fill, short_coins=short)
            self.mark_up("hopper_empty")
        by_hand = min(by_hand, self.accounts.credits)  # (less if the meter was wound back)
        if by_hand:
            yield from self.pay_by_hand(patron, "credit_payout", by_hand)
        self.world.bus.emit(
            CashedOut,
            machine=self.id,
            patron=patron,
            credits=credits,
            hopper_coins=by_hopper,
            hand_paid=by_hand,
            short_paid=short,
        )
        return credits

    def _pay_coins(self, coins: int) -> Generator[simpy.events.Event, Any, int]:
        """The hopper drops up to ``coins`` coins; returns how many it paid.

        The meters and the hopper change when the coins have dropped, the instant the
        ``hopper_paid`` (or ``short_pay_completed``) record is written: a meter reading taken
        while they drop shows the credits still on the machine, as the ledger does, so every
        reading agrees with the records before it (the money book and ``twin state`` rely on
        that).
        """
        dropping = min(coins, self.accounts.hopper_level)
        yield self.env.timeout(quantize(dropping * self.spec.coin_pay_seconds))
        # no more than the meter and the hopper hold now (an injected removal or rollback
        # may have taken some while the coins dropped)
        return self.accounts.pay_from_hopper(min(coins, self.accounts.credits))

    def fill_hopper(self, reason: str, patron: str = "", coins: int | None = None) -> Proc:
        """A hopper fill: an attendant brings the standard fill (``coins``, when given: a
        test bench's), an inspector certifies it."""
        env = self.env
        requested = env.now
        crew = self.crew
        job, attendant, inspector = yield from self._attendant_and_inspector(
            HOPPER_FILL,
            without_inspector=self.take(Misconduct.FILL_WITHOUT_INSPECTOR),
        )
        yield env.timeout(self._minutes(crew.timing.walk) + self._minutes(crew.timing.hopper_fill))
        coins = min(
            self.spec.hopper_standard_fill if coins is None else coins,
            self.spec.hopper_capacity - self.accounts.hopper_level,
        )
        self.accounts.fill_hopper(coins)
        self.emit(
            HopperFilled,
            patron=patron,
            reason=reason,
            coins=coins,
            certified_coins=coins - self.armed.pop(Misconduct.FILL_MISCOUNTED, 0),
            hopper_level=self.accounts.hopper_level,
            attendant=attendant,
            inspector=inspector,
            requested_t=requested,
        )
        crew.service.complete(job)

    # -- the drop (reg 36: only the licensee's people remove money) ----------------------------
    def collect_drop(self) -> Proc:
        """The drop team empties the drop bucket and the bill stacker, an inspector witnessing.

        Each container emptied is a ``MoneyRemoved`` record naming who took what; the doors
        are opened and closed by the same person (SAS door exceptions).
        """
        env = self.env
        job: JobHandle | None = None
        if self.take(Misconduct.DROP_BY_OUTSIDER):
            staff, witness = OUTSIDER, ""  # injected: someone not acting for the licensee
        else:
            job = self.crew.service.request(
                JobSpec(DROP_COLLECTION, self.id, JOB_ROLES[DROP_COLLECTION])
            )
            got: dict[str, str] = yield job.assigned
            staff, witness = got["attendant"], got.get("inspector", "")
        yield env.timeout(self._minutes(self.crew.timing.walk))
        self._empty(staff, witness, "drop_collection")
        if job is not None:
            self.crew.service.complete(job)

    def _empty(self, staff: str, witness: str, reason: str) -> None:
        """``staff`` empties the drop bucket and the bill stacker, each door opened and closed
        by them, one ``money_removed`` record a container."""
        acc = self.accounts
        containers = (
            (Door.DROP, "drop_bucket", self.spec.coin_acceptor),
            (Door.CASHBOX, "cash_box", self.spec.bill_acceptor),
        )
        for door, container, fitted in containers:
            if not fitted or door in acc.doors_open:
                continue
            self.open_door(door, staff)
            if door is Door.DROP:
                coins = acc.empty_drop_bucket()
                cents = coins * self.spec.denomination_cents
            else:
                coins, cents = 0, acc.empty_cash_box()
            self.emit(
                MoneyRemoved,
                container=container,
                coins=coins,
                cents=cents,
                staff=staff,
                witness=witness,
                reason=reason,
            )
            self.close_door(door, staff)

    # -- doors, tilts and repairs --------------------------------------------------------------
    def interrupt_play(self) -> None:
        """Stop the stretch in play (the game in progress completes). Once: a second call
        in the same instant (a door and a tilt together) would reach the player after it
        had already stopped, in the middle of its cash-out."""
        if self._player is not None and self._player.is_alive:
            self._player.interrupt("disabled")
            self._player = None

    def door_holder(self, door: Door) -> str | None:
        """Who opened ``door`` (None while it is closed)."""
        return self._door_holders.get(door)

    def open_door(self, door: Door, by: str) -> None:
        """Opening a door disables play at once (the game in progress completes)."""
        self.accounts.open_door(door)
        self._door_holders[door] = by
        self.exception(door.opened_code, staff=by)
        self.mark_down(f"door:{door.name.lower()}")
        self.interrupt_play()

    def close_door(self, door: Door, by: str) -> None:
        self.accounts.close_door(door)
        self._door_holders.pop(door, None)
        self.exception(door.closed_code, staff=by)
        self.mark_up(f"door:{door.name.lower()}")

    def tilt(self, code: ExceptionCode) -> None:
        self.exception(code)
        if self.take(Misconduct.PLAY_THROUGH_TILT):
            return  # injected: the machine reports the tilt but goes on taking wagers
        self.mark_down(f"tilt:{code.name.lower()}")
        if code is ExceptionCode.AC_POWER_LOST:
            self.accounts.power_reset()
        self.interrupt_play()

    def repair(self, code: ExceptionCode) -> Proc:
        """A technician comes, opens the slot door, clears the fault and closes the door."""
        requested = self.env.now

        def cleared(tech: str) -> None:
            if code is ExceptionCode.AC_POWER_LOST:
                self.exception(ExceptionCode.AC_POWER_APPLIED, staff=tech)
            self.emit(
                TiltRepaired,
                code=int(code),
                name=code.name.lower(),
                technician=tech,
                requested_t=requested,
            )

        yield from self._work_inside(REPAIR, 1.0, cleared)
        self.mark_up(f"tilt:{code.name.lower()}")

    def check_door(self) -> Proc:
        """A routine inspection: a technician opens and closes the slot door."""
        yield from self._work_inside(DOOR_CHECK, 0.5, None)

    def service(
        self, kind: str, done: Callable[[str], None] | None = None, by: str = ""
    ) -> Generator[simpy.events.Event, Any, str]:
        """Work on the machine with its slot door open (a repair of a part, a conversion's
        sealing): a technician is dispatched (or ``by``, someone who is not on the roster,
        comes); ``done`` is called with who did it before the door closes. Returns who did."""
        if not by:
            who: list[str] = []

            def finished(tech: str) -> None:
                who.append(tech)
                if done is not None:
                    done(tech)

            yield from self._work_inside(kind, 1.0, finished)
            return who[0]
        env = self.env
        self.open_door(Door.SLOT, by)
        yield env.timeout(max(quantize(self._minutes(self.crew.timing.repair)), 1 / 64))
        if done is not None:
            done(by)
        self.close_door(Door.SLOT, by)
        return by

    def _work_inside(self, kind: str, share: float, done: Callable[[str], None] | None) -> Proc:
        """A technician walks over, works with the slot door open, closes it and leaves.

        The work takes ``share`` of a repair-time draw (at least one tick); ``done`` is
        called with the technician's id just before the door closes.
        """
        env = self.env
        crew = self.crew
        job = crew.service.request(JobSpec(kind, self.id, JOB_ROLES[kind]))
        got: dict[str, str] = yield job.assigned
        tech = got["technician"]
        yield env.timeout(self._minutes(crew.timing.walk))
        self.open_door(Door.SLOT, tech)
        stolen = self.armed.pop(Misconduct.TECHNICIAN_TAKES_COINS, None)
        if stolen:
            self.accounts.take_from_hopper(stolen)  # injected: pocketed, no record of it
        yield env.timeout(max(quantize(self._minutes(crew.timing.repair) * share), 1 / 64))
        if done is not None:
            done(tech)
        self.close_door(Door.SLOT, tech)
        crew.service.complete(job)

    def run_disruptions(self, kinds: list[Disruption], door_checks_per_day: float) -> Proc:
        """Faults and routine door checks, each kind from its own stream, fired at LOW priority."""
        env = self.env
        streams = self.world.streams
        active = [d for d in kinds if d.mtbf_hours > 0]
        # a kind that never occurs draws nothing: its stream is not made
        rngs = {d.name: streams.stream(self.id, f"fault:{d.name}") for d in active}
        door_rng = streams.stream(self.id, "door_checks")
        next_at: dict[str, float] = {
            d.name: env.now + quantize(rngs[d.name].exponential(d.mtbf_hours * 3600))
            for d in active
        }
        if door_checks_per_day > 0:
            next_at["door_check"] = env.now + quantize(
                door_rng.exponential(86400 / door_checks_per_day)
            )
        by_name = {d.name: d for d in active}
        while next_at:
            name = min(next_at, key=lambda k: (next_at[k], k))
            at = next_at[name]
            # a fault due while another was being repaired comes now, not in the past
            yield LateTimeout(env, max(0.0, at - env.now))
            # never start a fault in the middle of a hand pay, fill or repair already under way,
            # nor on a machine out of operation (off the floor, or being taken off)
            yield from self.wait_in_operation()
            yield from self.wait_ready()
            if name == "door_check":
                yield env.process(self.check_door())
                next_at[name] = env.now + quantize(
                    door_rng.exponential(86400 / door_checks_per_day)
                )
            else:
                d = by_name[name]
                self.tilt(d.code)
                yield env.process(self.repair(d.code))
                next_at[name] = env.now + quantize(rngs[name].exponential(d.mtbf_hours * 3600))

    def _minutes(self, dist: Sampler) -> float:
        return quantize(max(0.0, dist.sample(self.service_rng)) * 60.0)
