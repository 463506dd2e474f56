"""The slot floor as a department: the approved programs, the machines the operator installs,
the Board's register, conversions, removals and returns, the daily meter readings and drop
collections, promotions, and the machines a SMIB plays for (issue 8, bound by the assembly).

Built first (every other department may use it), from ``[floor]``, ``[faults]``,
``[[removals]]``, ``[[promotions]]`` and ``[[hardware]]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import time
from fractions import Fraction
from pathlib import Path
from typing import Protocol

import simpy

from twin.department import Rules, Site
from twin.injections import InjectionIdle
from twin.jobs import REPAIR
from twin.machines.facts import FloorFacts
from twin.machines.identity import ManufacturerCertificate, certificate
from twin.machines.machine import (
    Crew,
    Disruption,
    EngineKind,
    MachineSpec,
    SlotMachine,
    Timing,
)
from twin.machines.misconduct import AWAITS
from twin.machines.par import Game, load_game
from twin.machines.progressive import ProgressiveLink
from twin.machines.protocol import Machine
from twin.machines.sas import ExceptionCode
from twin.machines.verification import ProgramConverted, ProgramVerifier
from twin.slots.floor import SlotFloor
from twin.slots.params import (
    HAND_PAY_SECOND_INSPECTOR_ABOVE,
    MIN_RTP,
    PROGRAM_VERIFICATION_HOURS,
)
from twin.slots.promotions import PromotionDesk
from twin.slots.section import Bank, HardwareBinding, SasBinding, SlotScenario
from twin.staff import Dispatcher


class Hardware(Protocol):
    """The SMIB-backed machines the assembly binds (``twin.hardware.machine.HardwareFloor``)."""

    def on_floor(self) -> Sequence[Machine]: ...

    def install(self) -> None: ...

    def ask_meters(self) -> None: ...


#: Binds the machines of ``[[hardware]]`` (their specs by id) to their SMIBs, and the
#: simulated machines of ``[[sas]]`` (by id) to their SAS lines (issue 30).
Binder = Callable[
    [
        Mapping[str, MachineSpec],
        tuple[HardwareBinding, ...],
        Mapping[str, SlotMachine],
        tuple[SasBinding, ...],
    ],
    Hardware,
]


@dataclass(frozen=True)
class SlotOptions:
    """How the assembly asks for the slot floor to be built: the play engine, programs
    already loaded (replications share them), the binder of SMIB-backed machines, and the
    ruleset's money conversion and registration prefix."""

    money: Callable[[str], Fraction]
    exchange_rate: Fraction
    registration_prefix: str
    engine: EngineKind = "batched"
    games: dict[Path, Game] | None = None
    bind: Binder | None = None


class Slots:
    """The slot floor department (``name`` "slots")."""

    name = "slots"

    def __init__(
        self,
        site: Site,
        scenario: SlotScenario,
        staff: Dispatcher,
        *,
        rules: Rules,
        money: Callable[[str], Fraction],
        exchange_rate: Fraction,
        registration_prefix: str,
        engine: EngineKind = "batched",
        games: dict[Path, Game] | None = None,
        bind: Binder | None = None,
    ) -> None:
        self.world = site.world
        self.scenario = scenario
        self.rules = rules
        self.staff = staff
        self.games = games if games is not None else {}
        for bank in scenario.floor.banks:
            for path in (bank.game, *bank.pay_tables):
                if path not in self.games:
                    self.games[path] = load_game(path)
        self.facts = FloorFacts()
        for game in self.games.values():
            self.facts.worksheets[game.signature] = game
            self.facts.programs[game.signature] = game
        for inj in scenario.inject:
            if inj.game is not None:
                self.load_injected_game(inj.game)
        self.links = {
            p.id: ProgressiveLink(p.id, p.reset_cents, p.increment_bp)
            for p in scenario.floor.progressives
        }
        self.facts.approved_links = {
            p.id: (p.reset_cents, p.increment_bp) for p in scenario.floor.progressives
        }
        t = scenario.staff.timing
        # the floor works to its own procedures ([floor.policy], issue 34), by default the law's
        policy = scenario.floor.policy
        self.crew = Crew(
            staff,
            Timing(t.walk_minutes, t.hand_pay_minutes, t.hopper_fill_minutes, t.repair_minutes),
            self._second_inspector_above(
                policy.hand_pay_second_inspector_above_cents, money, exchange_rate
            ),
        )
        self._registration_prefix = registration_prefix
        self._engine: EngineKind = engine
        self.machines: list[SlotMachine] = []
        for bank in scenario.floor.banks:
            game = self.pay_table(bank)
            for n, mid in enumerate(bank.machine_ids(), start=1):
                spec = self._spec(bank, game, mid, f"{bank.id}-{n:04d}", f"{bank.id}{n:05d}")
                self.facts.register[spec.registration] = game.signature
                link = self.links[bank.progressive] if bank.progressive else None
                self.machines.append(
                    SlotMachine(self.world, spec, self.crew, engine=engine, link=link)
                )
        # -- hardware-backed machines (issue 8): bound machines leave the simulated list --------
        self.hardware: Hardware | None = None
        if (scenario.hardware or scenario.sas) and bind is not None:
            bound = {h.machine for h in scenario.hardware}
            specs = {m.id: m.spec for m in self.machines if m.id in bound}
            self.machines = [m for m in self.machines if m.id not in bound]
            # a [[sas]] machine stays simulated: its line answers from its meters (issue 30)
            on_line = {b.machine for b in scenario.sas}
            served = {m.id: m for m in self.machines if m.id in on_line}
            self.hardware = bind(specs, scenario.hardware, served, scenario.sas)
        on_floor: list[Machine] = [*self.machines]
        if self.hardware is not None:
            on_floor += self.hardware.on_floor()
        self.floor = SlotFloor(self.world.env, on_floor)
        hours = policy.program_verification_hours
        if hours is None:
            hours = PROGRAM_VERIFICATION_HOURS.of(rules)
        self.verifier = ProgramVerifier(
            self.world, lambda: staff.on_duty("inspector"), self.machines, hours
        )
        f = scenario.faults
        self._disruptions = [
            Disruption("tilt", ExceptionCode.GENERAL_TILT, f.tilt_mtbf_hours),
            Disruption("coin_in_jam", ExceptionCode.COIN_IN_TILT, f.coin_in_jam_mtbf_hours),
            Disruption("bill_jam", ExceptionCode.BILL_JAM, f.bill_jam_mtbf_hours),
            Disruption("hopper_jam", ExceptionCode.COIN_OUT_TILT, f.hopper_jam_mtbf_hours),
            Disruption("reverse_coin", ExceptionCode.REVERSE_COIN_IN, f.reverse_coin_mtbf_hours),
            Disruption("ram_error", ExceptionCode.CMOS_RAM_ERROR_NO_DATA, f.ram_error_mtbf_hours),
            Disruption("power_loss", ExceptionCode.AC_POWER_LOST, f.power_loss_mtbf_hours),
        ]
        self._by_id = {m.id: m for m in self.machines}
        self._removals: dict[str, simpy.Event] = {}  # taken out, not yet sent back
        self.sold: set[str] = set()  # machines that left the licensee's ownership

    @property
    def env(self) -> simpy.Environment:
        return self.world.env

    def _second_inspector_above(
        self, policy: int | None, money: Callable[[str], Fraction], rate: Fraction
    ) -> Fraction | None:
        """The floor's cents above which a hand pay needs two Board inspectors (None: never):
        the policy's amount or else the ruleset's, both in the regulation's currency."""
        above = HAND_PAY_SECOND_INSPECTOR_ABOVE
        if policy is None:  # a proposal's rule: two inspectors above an amount (0: never)
            return above.money(self.rules) if above.of(self.rules) > 0 else None
        return Fraction(policy) / rate if policy > 0 else None

    def pay_table(self, bank: Bank) -> Game:
        """The program the operator installs on ``bank``: of its game and its other approved
        pay tables, the one with the lowest designed return that meets the floor policy's
        ``min_rtp``, by default the ruleset's (the most hold the rules allow; a link's
        increment counts, as in 1(a)), or the highest return when none does. A rule change
        therefore changes what the floor plays, not only the verdict (issue 12)."""
        first = self.games[bank.game]
        least = self.scenario.floor.policy.min_rtp
        if least is None and MIN_RTP.given(self.rules):
            least = MIN_RTP.of(self.rules)
        if not bank.pay_tables or least is None:
            return first
        floor = Fraction(str(least))
        link = Fraction(0)
        if bank.progressive is not None:
            link = Fraction(self.facts.approved_links[bank.progressive][1], 10_000)

        def rtp(game: Game) -> Fraction:
            analysis = self.facts.analysis(game.signature)
            assert analysis is not None  # every pay table is a known program
            return analysis.rtp + link

        options = [self.games[p] for p in (bank.game, *bank.pay_tables)]
        legal = [g for g in options if rtp(g) >= floor]
        if legal:
            return min(legal, key=rtp)
        return max(options, key=rtp)

    def _certificate(self, bank: Bank, game: Game, serial: str) -> ManufacturerCertificate:
        """The manufacturer's certificate (reg 28(4)) for a bank's machine and program."""
        analysis = self.facts.analysis(game.signature)
        assert analysis is not None
        link = self.facts.approved_links.get(bank.progressive or "")
        return certificate(
            manufacturer=bank.manufacturer,
            model=bank.model,
            serial=serial,
            manufactured=bank.manufactured.isoformat(),
            analysis=analysis,
            game_name=game.name,
            max_bet_units=bank.max_bet_units,
            cost=game.cost,
            increment_bp=link[1] if link else None,
        )

    def _spec(self, bank: Bank, game: Game, mid: str, reg: str, serial: str) -> MachineSpec:
        """The spec of machine ``mid`` of ``bank``'s type running ``game``."""
        serial = f"{bank.model}-{serial}"
        return MachineSpec(
            id=mid,
            bank=bank.id,
            zone=bank.zone,
            game=game,
            denomination_cents=bank.denomination_cents,
            max_bet_units=bank.max_bet_units,
            hopper_capacity=bank.hopper_capacity_coins,
            hopper_standard_fill=bank.hopper_standard_fill_coins,
            hopper_initial=bank.hopper_initial_coins,
            hopper_pay_limit_credits=bank.hopper_pay_limit_credits,
            jackpot_limit_cents=bank.jackpot_limit_cents,
            coin_acceptor=bank.coin_acceptor,
            bill_acceptor=bank.bill_acceptor,
            bill_denominations_cents=tuple(bank.bill_denominations_cents),
            meter_digits=bank.meter_digits,
            progressive=bank.progressive,
            registration=f"{self._registration_prefix}-{reg}",
            serial=serial,
            coin_pay_seconds=self.scenario.floor.coin_pay_seconds,
            manufacturer=bank.manufacturer,
            model=bank.model,
            manufactured=bank.manufactured.isoformat(),
            certificate=self._certificate(bank, game, serial),
            promotional=bank.promotional,
            asset_number=f"{bank.asset_prefix}-{mid}",
        )

    # -- machines off the floor and coming onto it (the lifecycle department, issue 27) ------

    def make_machine(self, bank_id: str, machine_id: str) -> SlotMachine:
        """A machine of bank ``bank_id``'s type, off the floor (a reserve machine, or one
        acquired): its own streams (by id), so no other machine's outcomes change."""
        bank = next(b for b in self.scenario.floor.banks if b.id == bank_id)
        game = self.pay_table(bank)
        tail = machine_id.replace("-", "")
        spec = self._spec(bank, game, machine_id, f"{bank.id}-{tail}", tail)
        link = self.links[bank.progressive] if bank.progressive else None
        m = SlotMachine(self.world, spec, self.crew, engine=self._engine, link=link)
        m.present = False
        m.withdrawn = "reserve"
        return m

    def bring_in(self, m: SlotMachine, zone: str) -> None:
        """``m`` joins the floor in ``zone`` (a replacement): installed, filled and run."""
        if m.spec.zone != zone:
            m.spec = replace(m.spec, zone=zone)
        m.present = True
        m.withdrawn = None
        self.machines.append(m)
        self._by_id[m.id] = m
        self.floor.add(m)
        m.install(self._installers())
        self.env.process(
            m.run_disruptions(self._disruptions, self.scenario.faults.door_checks_per_day)
        )
        self.verifier.machines.append(m)
        self.verifier.verify(m, "install")

    def send_away(self, m: SlotMachine) -> None:
        """``m`` (taken out) leaves the floor's list: to the store, or for good."""
        self.floor.drop(m)

    def relocate(self, m: SlotMachine, zone: str) -> None:
        """``m`` (free, out of play for the move) stands in ``zone`` from now."""
        self.floor.drop(m)
        m.spec = replace(m.spec, zone=zone)
        self.floor.add(m)

    def approve_program(self, path: Path) -> Game:
        """A pre-approved configuration (a conversion's program): the Board holds its
        worksheet with the floor's."""
        if path not in self.games:
            self.games[path] = load_game(path)
        game = self.games[path]
        self.facts.worksheets[game.signature] = game
        self.facts.programs[game.signature] = game
        return game

    # -- the Board's programs -----------------------------------------------------------------

    def approved_game(self, path: Path) -> Game | None:
        """The program of game file ``path`` if the Board approved it for this floor."""
        for known, game in self.games.items():
            if known.resolve() == path.resolve() and game.signature in self.facts.worksheets:
                return game
        return None

    def load_injected_game(self, path: Path) -> Game:
        """A program an injection puts on a machine: analysable, but no approved worksheet."""
        for game in self.games.values():
            if game.path == path:
                return game
        game = load_game(path)
        self.games[path] = game
        self.facts.programs[game.signature] = game
        return game

    def convert(
        self,
        m: SlotMachine,
        game: Game,
        approval: str = "",
        by: str | None = None,
        on_done: Callable[[str, str], None] | None = None,
    ) -> simpy.events.ProcessGenerator:
        """A conversion: a technician (or ``by``, someone else) changes the program; the
        Board's register follows once the Board has amended it (the lifecycle department's
        business: here the machine's registration is amended at once), the new program is
        verified. ``approval``: the Board's written approval ("" none); ``on_done`` is called
        with who did it and the program before."""
        before = self.facts.register.get(m.spec.registration, m.game.signature)

        def done(tech: str) -> None:
            m.swap_program(game)
            self.facts.register[m.spec.registration] = game.signature
            inspectors = self.staff.on_duty("inspector")
            self.world.bus.emit(
                ProgramConverted, machine=m.id, from_signature=before,
                to_signature=game.signature, game_id=game.id, technician=tech,
                inspector=inspectors[0] if inspectors else "", approval=approval,
            )  # fmt: skip
            if on_done is not None:
                on_done(tech, before)

        yield from m.service(REPAIR, done, by or "")
        self.verifier.verify(m, "conversion")

    # -- machines out of operation and back (First Schedule item 20(c)) ----------------------

    def take_out(self, m: SlotMachine, reason: str, returning: bool) -> None:
        """``m`` is taken out of operation (no new patron from now; emptied, read, recorded
        and disconnected once idle); ``returning``: the licensee keeps it, else it leaves the
        licensee's ownership."""
        m.withdrawn = reason
        done = self.env.event()
        if returning:
            self._removals[m.id] = done
        else:
            self.sold.add(m.id)
        self.env.process(self._take_out(m, reason, returning, done))

    def _take_out(
        self, m: SlotMachine, reason: str, returning: bool, done: simpy.Event
    ) -> simpy.events.ProcessGenerator:
        yield from m.leave_floor(reason, returning)
        done.succeed()

    @property
    def removals_open(self) -> frozenset[str]:
        """Machines taken out (or being taken out) by a recorded removal, not yet sent back."""
        return frozenset(self._removals)

    def put_back(self, machine_id: str) -> None:
        """Place the machine back into operation once its removal is complete."""
        removing = self._removals.pop(machine_id)
        self.env.process(self._put_back(self.machine(machine_id), removing))

    def _put_back(self, m: SlotMachine, removing: simpy.Event) -> simpy.events.ProcessGenerator:
        if not removing.triggered:
            yield removing
        yield from m.return_to_floor()
        self.verifier.verify(m, "return")  # the Board checks the program, as after any work

    def machine(self, machine_id: str) -> SlotMachine:
        return self._by_id[machine_id]

    @property
    def by_id(self) -> Mapping[str, SlotMachine]:
        """The simulated machines by id."""
        return self._by_id

    @property
    def machine_ids(self) -> frozenset[str]:
        return frozenset(self._by_id)

    # -- the floor's day ------------------------------------------------------------------------

    def install(self) -> None:
        """At opening, once the first shift is on duty: every machine installed, filled and
        set running (its faults and door checks)."""
        fill_by = self._installers()
        if self.hardware is not None:  # issue 8
            self.hardware.install()
        for m in self.machines:
            m.install(fill_by)
            self.env.process(
                m.run_disruptions(self._disruptions, self.scenario.faults.door_checks_per_day)
            )

    def start(self) -> None:
        """The floor's routines: daily meter readings and drop collections, and the Board's
        program checks (at install, then every ``program_verification_hours``)."""
        env = self.env
        env.process(self.read_meters_daily())
        if self.scenario.floor.drop_collection is not None:
            env.process(self.collect_drops_daily(self.scenario.floor.drop_collection))
        self.verifier.verify_all("install")
        env.process(self.verifier.verify_programs())

    def start_promotions(self) -> None:
        """The scenario's promotions, each on the machines of its bank."""
        desk = PromotionDesk(self.world)
        for promo in self.scenario.promotions:
            for m in self.machines:
                if m.spec.bank == promo.bank:
                    self.env.process(desk.run_promotion(m, promo))

    def _installers(self) -> tuple[str, str] | None:
        """An attendant and an inspector on duty at opening: they make the first fills."""
        attendants, inspectors = self.staff.on_duty("attendant"), self.staff.on_duty("inspector")
        if not attendants or not inspectors:
            return None
        return attendants[0], inspectors[0]

    def read_meters_daily(self) -> simpy.events.ProcessGenerator:
        """Every machine's meters are read at the start of each gaming day."""
        env = self.env
        clock = self.world.clock
        while True:
            yield env.timeout(clock.next_local(env.now, clock.gaming_day_start) - env.now)
            for m in self.machines:
                if m.present:
                    m.read_meters()
            if self.hardware is not None:  # issue 8: the SMIBs answer through the inbox
                self.hardware.ask_meters()

    def collect_drops_daily(self, at: time) -> simpy.events.ProcessGenerator:
        """Every day at ``at`` (local) the drop team empties every machine's drop."""
        env = self.env
        while True:
            yield env.timeout(self.world.clock.next_local(env.now, at) - env.now)
            for m in self.machines:
                if m.present and m.withdrawn is None:
                    env.process(m.collect_drop())

    def read_closing_meters(self) -> None:
        """The end of the run: every machine still on the floor is read."""
        for m in self.machines:
            if m.present:  # one taken away cannot be read
                m.read_meters()

    def finish(self) -> None:
        """After the other departments' closing: an injection that never took effect says
        so, and the Board checks every program one last time."""
        for m in self.machines:  # one record per armed misconduct that never happened
            for misconduct in list(m.armed):
                waits = AWAITS.get(misconduct, "did what it spoils")
                self.world.bus.emit(
                    InjectionIdle,
                    machine=m.id,
                    injection=misconduct.value,
                    reason=f"armed, but {m.id} never {waits} before the run ended",
                )
        self.verifier.verify_all("closing")


__all__ = ["Binder", "Hardware", "SlotOptions", "Slots"]
