"""The Casino: a validated scenario assembled into a SimPy world, department by department.

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
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import simpy

from twin import injections
from twin.aml import AmlDesk, Launderers
from twin.cage import Cage
from twin.commands import Command, CommandAccepted, CommandRejected
from twin.compliance.engine import ComplianceEngine
from twin.compliance.ruleset import load_ruleset
from twin.department import Department, Site
from twin.departments import Scenario, opening_order, plans
from twin.door import Door
from twin.drivers import Driver, FastDriver, Progress, fewer_collections
from twin.inbox import Envelope, Inbox
from twin.junkets import Junkets
from twin.machines.facts import FloorFacts
from twin.machines.machine import EngineKind, MachineSpec, SlotMachine
from twin.machines.par import Game
from twin.machines.verification import ProgramVerifier
from twin.patrons.patron import Arrivals
from twin.patrons.population import Population
from twin.patrons.venue import Host, Visitor
from twin.pit import NoticeBoard, Pit
from twin.premium import PremiumRoom
from twin.records import RecordBus, Sink
from twin.slots import Slots
from twin.slots.actions import RemoveMachine, ReturnMachine
from twin.slots.floor import SlotFloor
from twin.slots.model import SlotOptions
from twin.slots.section import HardwareBinding, SasBinding
from twin.staff import Roster
from twin.staff.dispatch import Dispatcher
from twin.streams import Streams
from twin.world import World, quantize

if TYPE_CHECKING:
    from twin.hardware.machine import HardwareFloor

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RunOutcome:
    records: int
    wall_seconds: float
    sim_seconds: float


class Casino:
    """A scenario's casino: the kernel (world, ruleset, inbox) and the departments the
    registry (``twin.departments``) builds from the scenario's sections, in the order their
    needs imply, each from a :class:`twin.department.Site` that finds what was built before
    it by type. The casino routes a visit through its departments (door, cage, pit) and
    applies what comes in through the inbox."""

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
        attach_checks: bool = True,
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
        self.site = site = Site(self.world, self.ruleset, scenario, source)
        self._slots: Slots | None = None
        site.provide(Host(venue=self, hall=self))  # what patrons see, where visits pass
        self._hardware: HardwareFloor | None = None
        site.provide(
            SlotOptions(
                money=self.ruleset.money,
                exchange_rate=self.ruleset.exchange_rate(),
                registration_prefix=self.ruleset.jurisdiction.registration_prefix,
                engine=engine,
                games=games,
                bind=self._bind_hardware,
            )
        )
        built: dict[str, list[Department]] = {}
        registry = plans(type(scenario))
        for plan in registry:  # each after what it needs and uses
            if plan.present(scenario):
                built[plan.name] = list(plan.build(site))
        for plan in registry:  # an injection's targets, once everything is built
            if plan.check_injections is not None:
                plan.check_injections(site)
        injections.validate(scenario.inject, self.end, source)
        #: the departments with processes of their own, in the registry's opening order
        self.departments: list[Department] = [
            d for name in opening_order(type(scenario)) for d in built.get(name, ())
        ]
        self.staff = site.need(Dispatcher)
        self.shifts = list(site.need(Roster))
        self.population = site.need(Population)
        self.arrivals = site.need(Arrivals)
        self._started = False
        self._finished: RunOutcome | None = None
        self.wall_seconds = 0.0
        self._door, self._pit, self._cage = self.find(Door), self.find(Pit), self.find(Cage)
        self.compliance: ComplianceEngine | None = None
        if compliance:
            self.compliance = ComplianceEngine(
                self.ruleset, clock, self.slots.facts, controls=controls
            )
            if attach_checks:  # else a sink process runs them (twin.sinkproc)
                bus.attach(self.compliance)
                bus.attach_producer(self.compliance)

    def _bind_hardware(
        self,
        specs: Mapping[str, MachineSpec],
        entries: tuple[HardwareBinding, ...],
        served: Mapping[str, SlotMachine],
        sas: tuple[SasBinding, ...],
    ) -> HardwareFloor:
        """The machines of ``[[hardware]]`` bound to their SMIBs (issue 8), and the simulated
        machines of ``[[sas]]`` on their SAS lines (issue 30)."""
        from twin.hardware.machine import HardwareFloor, bindings_from

        self._hardware = HardwareFloor(self.world, specs, bindings_from(entries), served, sas)
        return self._hardware

    def find(self, kind: type[T]) -> T | None:
        """The department or service of type ``kind`` (None when this casino has none)."""
        return self.site.find(kind)

    def need(self, kind: type[T]) -> T:
        """The department or service of type ``kind``, which every casino has."""
        return self.site.need(kind)

    # -- the departments, by name (None when the scenario has none) -------------------------

    @property
    def hardware(self) -> HardwareFloor | None:
        return self._hardware

    @property
    def entrance(self) -> Door | None:
        return self._door

    @property
    def pit(self) -> Pit | None:
        return self._pit

    @property
    def notice_board(self) -> NoticeBoard | None:
        return self.find(NoticeBoard)

    @property
    def cage(self) -> Cage | None:
        return self._cage

    @property
    def junkets(self) -> Junkets | None:
        return self.find(Junkets)

    @property
    def premium(self) -> PremiumRoom | None:
        return self.find(PremiumRoom)

    @property
    def aml(self) -> AmlDesk | None:
        return self.find(AmlDesk)

    @property
    def launderers(self) -> Launderers | None:
        return self.find(Launderers)

    # -- the slot floor (``self.slots``) ------------------------------------------------------

    @property
    def slots(self) -> Slots:
        """The slot floor department (every casino has one)."""
        if self._slots is None:
            self._slots = self.site.need(Slots)
        return self._slots

    @property
    def machines(self) -> list[SlotMachine]:
        return self.slots.machines

    @property
    def floor(self) -> SlotFloor:
        return self.slots.floor

    @property
    def facts(self) -> FloorFacts:
        return self.slots.facts

    @property
    def verifier(self) -> ProgramVerifier:
        return self.slots.verifier

    @property
    def games(self) -> dict[Path, Game]:
        return self.slots.games

    def machine(self, machine_id: str) -> SlotMachine:
        return self.slots.machine(machine_id)

    @property
    def machine_ids(self) -> frozenset[str]:
        return self.slots.machine_ids

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
            cmd = injections.InjectViolation.from_scenario(inj)
            if injections.INJECTIONS[inj.kind].static:
                self.inbox.deliver_now(cmd, source="scenario")
            else:
                self.inbox.schedule(quantize(inj.at_hours * 3600.0), cmd, source="scenario")
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
            self.slots.read_closing_meters()
            for dept in self.departments:  # closing counts, period-end tasks
                dept.finish()
            self.slots.finish()  # idle injections; the Board's closing program checks
            # the end-of-run checks; every finding not yet numbered is numbered now
            self.world.bus.finish_producers(self.env.now)
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

    def admit(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, bool]:
        """The door (regs 20, 22, 24): True when the visitor may go in."""
        if self._door is not None:
            return (yield from self._door.admit(visitor))
        return True  # no [entrance]: nothing to do, and no yield

    def before_play(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, None]:
        """The cage before play (cheques, cards, chips)."""
        if self._cage is not None:
            yield from self._cage.before_play(visitor)
        return None

    def play_elsewhere(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, bool]:
        """The table pit or the card room instead of the slot floor: True when played there."""
        if self._pit is None:
            return False
        return (yield from self._pit.play(visitor.id, visitor.visit_number))

    def after_play(self, visitor: Visitor) -> Generator[simpy.events.Event, Any, None]:
        """The cage after play (chips redeemed)."""
        if self._cage is not None:
            yield from self._cage.after_play(visitor)
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
        self.slots.install()
        self.env.process(self.arrivals.arrive())
        self.slots.start()
        for dept in self.departments:  # door, pit, cage, junkets, premium, AML desk...
            dept.start()
        self.slots.start_promotions()


__all__ = ["Casino", "RunOutcome"]
