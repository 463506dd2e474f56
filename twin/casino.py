"""The Casino: a validated scenario assembled into a SimPy world.

``Casino(scenario, env=...)`` builds everything before t = 0 (games loaded and checked, staff
pools, machines, floor, arrivals, injections validated) in an environment it is given. Its
lifecycle is ``start()`` (processes started, the floor opens at t = 0), ``advance(until)``
any number of times (a clock driver in ``twin.drivers`` decides when), and ``finish()`` once
(the closing meter readings and the compliance engine's end-of-run checks). ``run()`` does
all three with the fast driver. Sinks (ledger, metrics, viewers) are attached to the record
bus; the only way in while it runs is the inbox (``casino.inbox.put(command)`` from any
thread).
"""

from __future__ import annotations

import time as wall
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from datetime import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import simpy

from twin.commands import Command, CommandAccepted, CommandRejected
from twin.compliance.engine import ComplianceEngine, FloorFacts
from twin.compliance.ruleset import load_ruleset
from twin.departments import Department
from twin.drivers import Driver, FastDriver, Progress, fewer_collections
from twin.inbox import Envelope, Inbox
from twin.machines.identity import ManufacturerCertificate, certificate
from twin.machines.machine import (
    Crew,
    Disruption,
    EngineKind,
    MachineSpec,
    SlotMachine,
    Timing,
)
from twin.machines.par import Game, load_game
from twin.machines.progressive import ProgressiveLink
from twin.machines.promotions import PromotionDesk
from twin.machines.protocol import Machine
from twin.machines.sas import ExceptionCode
from twin.machines.verification import ProgramConverted, ProgramVerifier
from twin.patrons.patron import Arrivals
from twin.patrons.population import Population
from twin.patrons.venue import Visitor
from twin.records import RecordBus, Sink
from twin.scenario import Bank, Scenario
from twin.slots import injections as inject
from twin.slots.actions import ConvertProgram, RemoveMachine, ReturnMachine
from twin.slots.floor import SlotFloor
from twin.staff.dispatch import Dispatcher, Shift
from twin.staff.roles import Role, member_ids
from twin.streams import Streams
from twin.world import World, quantize

if TYPE_CHECKING:
    from twin.aml.model import Particulars
    from twin.cage.model import Cage
    from twin.hardware.machine import HardwareFloor
    from twin.pit.notice import NoticeBoard
    from twin.pit.pit import Pit


@dataclass(frozen=True, slots=True)
class RunOutcome:
    records: int
    wall_seconds: float
    sim_seconds: float


class Casino:
    def __init__(
        self,
        scenario: Scenario,
        *,
        sinks: Iterable[Sink] = (),
        engine: EngineKind = "batched",
        games: dict[Path, Game] | None = None,
        compliance: bool = True,
        controls: Iterable[str] | None = None,
        env: simpy.Environment | None = None,
        inbox: Inbox | None = None,
    ) -> None:
        self.scenario = scenario
        source = str(scenario.source_path or "<scenario>")
        env = env if env is not None else simpy.Environment()
        if env.now != 0:
            raise ValueError(f"a casino starts at t = 0; the environment is at {env.now}")
        self.inbox = inbox if inbox is not None else Inbox()
        clock = scenario.clock()
        bus = RecordBus(lambda: env.now, sinks)
        self.world = World(env=env, clock=clock, streams=Streams(scenario.seed), bus=bus)
        self.ruleset = load_ruleset(
            scenario.ruleset.name, scenario.ruleset.overrides, source=source
        )
        self.games = games if games is not None else {}
        for bank in scenario.floor.banks:
            for path in (bank.game, *bank.pay_tables):
                if path not in self.games:
                    self.games[path] = load_game(path)
        for conv in scenario.conversions:  # programs approved for conversions
            if conv.game not in self.games:
                self.games[conv.game] = load_game(conv.game)
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
        staff = scenario.staff
        t = staff.timing
        self.staff = Dispatcher(
            self.world,
            [Role(r.id, r.prefix, r.title, r.employer) for r in staff.roles],
            priority=staff.dispatch.priority,
            operator=staff.dispatch.operator,
        )
        self.shifts: list[Shift] = []
        for s in staff.shifts:
            members: list[str] = []
            for r in staff.roles:
                for mid in member_ids(r.prefix, s.name, s.count(r.id)):
                    self.staff.enlist(mid, r.id, s.name)
                    members.append(mid)
            self.shifts.append(Shift(s.name, s.start, s.end, tuple(members)))
        # the floor works to its own procedures ([floor.policy], issue 34), by default the law's
        policy = scenario.floor.policy
        self.crew = Crew(
            self.staff,
            Timing(t.walk_minutes, t.hand_pay_minutes, t.hopper_fill_minutes, t.repair_minutes),
            self._second_inspector_above(policy.hand_pay_second_inspector_above_cents),
        )
        self.machines: list[SlotMachine] = []
        prefix = self.ruleset.jurisdiction.registration_prefix
        for bank in scenario.floor.banks:
            game = self.pay_table(bank)
            for n, mid in enumerate(bank.machine_ids(), start=1):
                spec = MachineSpec(
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
                    registration=f"{prefix}-{bank.id}-{n:04d}",
                    serial=f"{bank.model}-{bank.id}{n:05d}",
                    coin_pay_seconds=scenario.floor.coin_pay_seconds,
                    manufacturer=bank.manufacturer,
                    model=bank.model,
                    manufactured=bank.manufactured.isoformat(),
                    certificate=self._certificate(bank, game, f"{bank.model}-{bank.id}{n:05d}"),
                    promotional=bank.promotional,
                    asset_number=f"{bank.asset_prefix}-{mid}",
                )
                self.facts.register[spec.registration] = game.signature
                link = self.links[bank.progressive] if bank.progressive else None
                self.machines.append(
                    SlotMachine(self.world, spec, self.crew, engine=engine, link=link)
                )
        # -- hardware-backed machines (issue 8): bound machines leave the simulated list --------
        self.hardware: HardwareFloor | None = None
        if scenario.hardware:
            from twin.hardware.machine import HardwareFloor, bindings_from

            bound = {h.machine for h in scenario.hardware}
            specs = {m.id: m.spec for m in self.machines if m.id in bound}
            self.machines = [m for m in self.machines if m.id not in bound]
            self.hardware = HardwareFloor(self.world, specs, bindings_from(scenario.hardware))
        on_floor: list[Machine] = [*self.machines]
        if self.hardware is not None:
            on_floor += self.hardware.on_floor()
        # -- end hardware -----------------------------------------------------------------------
        self.floor = SlotFloor(env, on_floor)
        hours = policy.program_verification_hours
        if hours is None:
            hours = (
                self.ruleset.get("program_verification_hours")
                if ("program_verification_hours" in self.ruleset)
                else 0
            )
        self.verifier = ProgramVerifier(
            self.world, lambda: self.staff.on_duty("inspector"), self.machines, hours
        )
        self.population = Population.build(scenario.patrons, self.world.streams)
        self.arrivals = Arrivals(self.world, self, scenario.patrons, self.population)
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
        self._started = False
        self._finished: RunOutcome | None = None
        self.wall_seconds = 0.0
        # -- the rest of the casino (issue 10): each part from its own scenario section -------
        self.departments: list[Department] = []
        # entrance (regs 20, 22, 24): self.entrance, the door
        from twin.door.injections import validate_entrance
        from twin.door.model import Door
        from twin.errors import InputError

        self.entrance: Door | None = None
        if scenario.entrance is not None:
            if "admission_min_age_years" not in self.ruleset:
                raise InputError(source, "entrance", "a ruleset with admission_min_age_years",
                                 self.ruleset.name)  # fmt: skip
            self.entrance = Door(
                self.world,
                scenario.entrance,
                self.population,
                self.staff,
                admission_age=int(self.ruleset.get("admission_min_age_years")),
                gaming_zones=[b.zone for b in scenario.floor.banks],
                source=source,
            )
            self.departments.append(self.entrance)
        validate_entrance(self, source)

        # junkets (reg 25): self.junkets (built here, started after the cage: its junket room
        # is on the entrance notice, which the pit or the notice board exhibits)
        from twin.junkets.model import Junkets, validate_injections

        self.junkets: Junkets | None = None
        junket_room = None
        if scenario.junkets is not None:
            self.junkets = Junkets(
                self.world, scenario.junkets, self.ruleset,
                duration_hours=scenario.duration_hours, source=source,
            )  # fmt: skip
            junket_room = self.junkets.junket_room(scenario.tables)

        # table pit and card room (regs 21, 23, 26): self.pit
        self.pit: Pit | None = None
        self.notice_board: NoticeBoard | None = None  # the entrance notice without a pit
        if scenario.tables is not None:
            from twin.pit.pit import Pit

            self.pit = Pit(self.world, scenario.tables, self.staff, source=source,
                           duration=scenario.duration_seconds,
                           junket_room=junket_room)  # fmt: skip
            self.departments.append(self.pit)
        else:  # a casino without tables still exhibits its entrance notice (reg 22)
            from twin.pit.notice import NoticeBoard

            self.notice_board = NoticeBoard(self.world, junket_room)
            self.departments.append(self.notice_board)
        from twin.pit import injections as inject_tables

        inject_tables.validate(self, source)

        # cage, cash desks, drop and count (regs 23(4), 37-43): self.cage
        self.cage: Cage | None = None
        if scenario.cage is not None:
            from twin.cage.model import PARAMS, Cage

            self.cage = Cage(
                self.world, scenario.cage, scenario, self.staff, self._by_id,
                {k: int(self.ruleset.get(k)) for k in PARAMS if k in self.ruleset}, source,
            )  # fmt: skip
            self.departments.append(self.cage)

        if self.junkets is not None:
            self.departments.append(self.junkets)
        validate_injections(scenario.inject, self.junkets, source)

        # premium players and their deposit accounts (Singapore, issue 11): self.premium
        from twin.accounts.replay import AccountRules
        from twin.errors import InputError
        from twin.premium.injections import KINDS as PREMIUM_INJECTIONS
        from twin.premium.model import PremiumRoom

        self.premium: PremiumRoom | None = None
        if scenario.premium is not None:
            if "min_balance_cents" not in self.ruleset:
                raise InputError(
                    source, "premium", "a ruleset of premium-player deposit accounts "
                    "(singapore-2010)", self.ruleset.name,
                )  # fmt: skip
            self.premium = PremiumRoom(
                self.world, scenario.premium, AccountRules.from_params(self.ruleset.get),
                clock.at(0.0), source,
            )  # fmt: skip
            self.departments.append(self.premium)
        for i, inj in enumerate(scenario.inject):
            if inj.kind in PREMIUM_INJECTIONS and self.premium is None:
                raise InputError(source, f"inject[{i}].kind", "a [premium] section", inj.kind)

        # anti-money laundering (Malta regs 45-51, issue 11): self.aml, self.launderers
        from twin.aml.launderers import Launderers
        from twin.aml.model import AmlDesk
        from twin.junkets.model import aml_view as junket_aml_view

        self.aml: AmlDesk | None = None
        self.launderers: Launderers | None = None
        if scenario.aml is not None:
            assert self.entrance is not None and self.cage is not None  # the scenario says so
            self.aml = AmlDesk(
                self.world, scenario.aml, self.ruleset, self.staff,
                {m.id: m.spec.denomination_cents for m in self.machines}, self.particulars,
                self.entrance.home.id, source,
                views=() if self.junkets is None else (junket_aml_view,),
            )  # fmt: skip
            self.departments.append(self.aml)
            if scenario.aml.launderers:
                self.launderers = Launderers(
                    self.world, scenario.aml, self.population, self, self.floor, self.cage,
                    self.pit, self.aml.threshold,
                    int(self.ruleset.get("admission_min_age_years")), self.junkets, source,
                )  # fmt: skip
                self.departments.append(self.launderers)

        # -- end of the rest of the casino -----------------------------------------------------
        inject.validate(self, source)
        self.compliance: ComplianceEngine | None = None
        if compliance:
            self.compliance = ComplianceEngine(
                bus, self.ruleset, clock, env, self.facts, controls=controls
            )
            bus.attach(self.compliance)

    def _second_inspector_above(self, policy: int | None) -> Fraction | None:
        """The floor's cents above which a hand pay needs two Board inspectors (None: never):
        the policy's amount or else the ruleset's, both in the regulation's currency."""
        key = "hand_pay_second_inspector_above_cents"
        if policy is None:  # a proposal's rule: two inspectors above an amount (0: never)
            return (
                self.ruleset.money(key)
                if key in self.ruleset and self.ruleset.get(key) > 0
                else None
            )
        return Fraction(policy) / self.ruleset.exchange_rate() if policy > 0 else None

    def pay_table(self, bank: Bank) -> Game:
        """The program the operator installs on ``bank``: of its game and its other approved
        pay tables, the one with the lowest designed return that meets the floor policy's
        ``min_rtp``, by default the ruleset's (the most hold the rules allow; a link's
        increment counts, as in 1(a)), or the highest return when none does. A rule change
        therefore changes what the floor plays, not only the verdict (issue 12)."""
        first = self.games[bank.game]
        least = self.scenario.floor.policy.min_rtp
        if least is None and "min_rtp" in self.ruleset:
            least = float(self.ruleset.get("min_rtp"))
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

    def approved_game(self, path: Path) -> Game | None:
        """The program of game file ``path`` if the Board approved it for this floor."""
        for known, game in self.games.items():
            if known.resolve() == path.resolve() and game.signature in self.facts.worksheets:
                return game
        return None

    def convert(self, m: SlotMachine, game: Game) -> simpy.events.ProcessGenerator:
        """An approved conversion: the program changes, the Board's register follows, and the
        new program is verified."""
        before = self.facts.register.get(m.spec.registration, m.game.signature)

        def done(tech: str) -> None:
            self.facts.register[m.spec.registration] = game.signature
            inspectors = self.staff.on_duty("inspector")
            self.world.bus.emit(
                ProgramConverted, machine=m.id, from_signature=before,
                to_signature=game.signature, game_id=game.id, technician=tech,
                inspector=inspectors[0] if inspectors else "",
            )  # fmt: skip

        yield from m.convert_program(game, done)
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
    def machine_ids(self) -> frozenset[str]:
        return frozenset(self._by_id)

    def load_injected_game(self, path: Path) -> Game:
        """A program an injection puts on a machine: analysable, but no approved worksheet."""
        for game in self.games.values():
            if game.path == path:
                return game
        game = load_game(path)
        self.games[path] = game
        self.facts.programs[game.signature] = game
        return game

    @property
    def env(self) -> simpy.Environment:
        return self.world.env

    @property
    def bus(self) -> RecordBus:
        return self.world.bus

    def attach(self, sink: Sink) -> None:
        self.world.bus.attach(sink)

    def closing_after(self, t: float) -> float:
        """Simulation time of the next closing (infinity for a casino that never closes)."""
        hours = self.world.clock.opening_hours
        if hours.open == hours.close:
            return float("inf")
        return self.world.clock.next_local(t, hours.close)

    @property
    def end(self) -> float:
        """The scenario's last instant (its duration, in simulation seconds)."""
        return self.scenario.duration_seconds

    def start(self) -> None:
        """Start every process; the floor opens at t = 0 (idempotent).

        The calling thread becomes the simulation thread: the only one that touches SimPy.
        Static ``[[inject]]`` entries are applied now, through the inbox (before the floor
        opens); the others are scheduled through it at their time.
        """
        if self._started:
            return
        self._started = True
        env = self.env
        self.inbox.attach(env, self._on_command)
        env.process(self.staff.keep_roster(self.shifts))
        for inj in self.scenario.inject:
            cmd = inject.InjectViolation.from_scenario(inj)
            if inject.INJECTIONS[inj.kind].static:
                self.inbox.deliver_now(cmd, source="scenario")
            else:
                self.inbox.schedule(quantize(inj.at_hours * 3600.0), cmd, source="scenario")
        for conv in self.scenario.conversions:
            at = quantize(conv.at_hours * 3600.0)
            self.inbox.schedule(at, ConvertProgram(conv.machine, conv.game), source="scenario")
        for rem in self.scenario.removals:
            at = quantize(rem.at_hours * 3600.0)
            removal = RemoveMachine(rem.machine, rem.reason, returning=not rem.sold)
            self.inbox.schedule(at, removal, source="scenario")
            if rem.return_hours is not None:
                back = quantize(rem.return_hours * 3600.0)
                self.inbox.schedule(back, ReturnMachine(rem.machine), source="scenario")
        env.process(self.open_floor())

    def advance(self, until: float) -> None:
        """Process every event before ``until`` (starting first if needed)."""
        if self._finished is not None:
            raise RuntimeError("the run is finished")
        self.start()
        self.inbox.check_thread()
        if until < self.env.now:
            raise ValueError(f"cannot go back in time: now {self.env.now}, asked for {until}")
        t0 = wall.perf_counter()
        with fewer_collections():
            self.env.run(until=until)
        self.wall_seconds += wall.perf_counter() - t0

    def finish(self) -> RunOutcome:
        """End the run once: every machine's meters are read and the end-of-run checks run."""
        if self._finished is not None:
            return self._finished
        self.start()
        t0 = wall.perf_counter()
        if self.hardware is not None:  # issue 8: the SMIBs' closing meters, then drive checks
            self.hardware.closing()
        self.inbox.deliver_pending()  # nothing that came in is lost
        if self.hardware is not None:
            self.hardware.finish()
        with fewer_collections():
            for m in self.machines:
                if m.present:  # one taken away cannot be read
                    m.read_meters()
            for dept in self.departments:  # issue 10: closing counts, period-end tasks
                dept.finish()
            inject.report_idle(self)  # an injection that never took effect says so
            self.verifier.verify_all("closing")
            if self.compliance is not None:
                self.compliance.finish()
        self.wall_seconds += wall.perf_counter() - t0
        self._finished = RunOutcome(self.world.bus.count, self.wall_seconds, self.env.now)
        return self._finished

    def run(
        self,
        until: float | None = None,
        progress: Progress | None = None,
        driver: Driver | None = None,
    ) -> RunOutcome:
        """Start, drive to ``until`` (default: the scenario's end) and finish."""
        self.start()
        end = self.end if until is None else until
        (driver if driver is not None else FastDriver(progress)).drive(self, end)
        return self.finish()

    # -- the visit around the slot floor (twin.patrons.venue.Hall) ----------------------------
    # A hook with nothing to do must not yield: a floor without these parts keeps its timeline.

    def particulars(self, person: str) -> Particulars:
        """What ``person``'s identity document shows (the AML desk records it, reg 47)."""
        from twin.aml.model import Particulars

        try:
            index = int(person.removeprefix("P")) - 1
            m = self.population.member(index) if person.startswith("P") else None
        except (ValueError, IndexError):
            m = None
        if m is None:
            return Particulars("document", person, f"holder of {person}", "unknown", "unknown",
                               "unknown")  # fmt: skip
        local = m.residency == "local"
        born = self.world.clock.at(0.0).year - m.age
        return Particulars(
            document_type="identity card" if local else "passport",
            document_number=f"{'ID' if local else 'PP'}-{m.id}",
            name=f"holder of {m.id}",
            date_of_birth=f"{born}",
            nationality=m.nationality or m.residency,
            address=f"an address in {m.residency}",
        )

    def admit(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, bool]:
        """The door (regs 20, 22, 24): True when the visitor may go in."""
        if self.entrance is not None:
            return (yield from self.entrance.admit(visitor))
        return True  # no [entrance]: nothing to do, and no yield

    def before_play(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, None]:
        """The cage before play (cheques, cards, chips)."""
        if self.cage is not None:
            yield from self.cage.before_play(visitor)
        return None

    def play_elsewhere(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, bool]:
        """The table pit or the card room instead of the slot floor: True when played there."""
        if self.pit is None:
            return False
        return (yield from self.pit.play(visitor.id, visitor.visit_number))

    def after_play(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, None]:
        """The cage after play (chips redeemed)."""
        if self.cage is not None:
            yield from self.cage.after_play(visitor)
        return None

    def _on_command(self, envelope: Envelope) -> None:
        """Apply a command from the inbox, or refuse it; either way, record it."""
        if self.hardware is not None and self.hardware.handle(envelope):
            return  # issue 8: a message of the SMIB link, applied by its book
        cmd = envelope.command
        bus = self.world.bus
        name = cmd.name if isinstance(cmd, Command) else type(cmd).__name__
        args = cmd.args_json() if isinstance(cmd, Command) else "{}"
        reason = cmd.check(self) if isinstance(cmd, Command) else "not a command"
        if reason is not None:
            bus.emit(
                CommandRejected,
                source=envelope.source,
                number=envelope.number,
                command=name,
                args=args,
                reason=reason,
            )
            return
        bus.emit(
            CommandAccepted, source=envelope.source, number=envelope.number, command=name, args=args
        )
        assert isinstance(cmd, Command)
        cmd.apply(self)

    def open_floor(self) -> simpy.events.ProcessGenerator:
        """At t = 0, once the first shift is on duty: install the machines and open."""
        yield self.env.timeout(0)
        env = self.env
        fill_by = self._installers()
        if self.hardware is not None:  # issue 8
            self.hardware.install()
        for m in self.machines:
            m.install(fill_by)
            env.process(
                m.run_disruptions(self._disruptions, self.scenario.faults.door_checks_per_day)
            )
        env.process(self.arrivals.arrive())
        env.process(self.read_meters_daily())
        if self.scenario.floor.drop_collection is not None:
            env.process(self.collect_drops_daily(self.scenario.floor.drop_collection))
        self.verifier.verify_all("install")
        env.process(self.verifier.verify_programs())
        for dept in self.departments:  # issue 10: door, pit, cage, junkets
            dept.start()
        desk = PromotionDesk(self.world)
        for promo in self.scenario.promotions:
            for m in self.machines:
                if m.spec.bank == promo.bank:
                    env.process(desk.run_promotion(m, promo))

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


__all__ = ["Casino", "RunOutcome"]
