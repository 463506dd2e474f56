"""Out of operation and back (Malta 20(c): the dates; reg 36: who empties it): the
:class:`~twin.machines.cabinet.Cabinet`'s processes ``leave_floor`` and ``return_to_floor``
and the steps around them (``disconnect``, ``reconnect``, ``place_back``,
``wait_in_operation``), as a mixin the cabinet inherits.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import simpy

from twin.jobs import JOB_ROLES, MACHINE_REMOVAL, MACHINE_RETURN, JobSpec
from twin.machines.accounting import SlotAccounts
from twin.machines.events import (
    HopperFilled,
    MachineReachable,
    MachineRemoved,
    MachineReturned,
    MachineUnreachable,
    MoneyRemoved,
)
from twin.machines.misconduct import Misconduct
from twin.machines.sas import Door
from twin.machines.spec import Crew, MachineSpec, Proc, Sampler
from twin.records import Record
from twin.world import World

OUTSIDER = "OUTSIDER"  # someone who is not an employee of the licensee (injections only)


class OutOfOperation:
    """A machine taken out of operation and placed back (:class:`Cabinet
    <twin.machines.cabinet.Cabinet>` inherits it; its state and the steps it shares are the
    cabinet's, declared here)."""

    # the cabinet's state this uses (set in ``Cabinet.__init__``)
    world: World
    env: simpy.Environment
    spec: MachineSpec
    id: str
    crew: Crew
    accounts: SlotAccounts
    patron: str | None
    down: set[str]
    # out of operation (20(c)): why no new patron may take it (None: in operation), and
    # whether it is on the floor and connected at all
    withdrawn: str | None
    present: bool
    _back: simpy.Event | None

    if TYPE_CHECKING:  # the cabinet's steps this uses (defined in ``Cabinet``)

        def emit(self, cls: type[Record], **fields: Any) -> None: ...
        def take(self, misconduct: Misconduct) -> bool: ...
        def read_meters(self) -> None: ...
        def open_door(self, door: Door, by: str) -> None: ...
        def close_door(self, door: Door, by: str) -> None: ...
        def _empty(self, staff: str, witness: str, reason: str) -> None: ...
        def _minutes(self, dist: Sampler) -> float: ...

    def leave_floor(self, reason: str, returning: bool) -> Proc:
        """The machine is taken out of operation.

        No new patron may take it; the one playing finishes their session and is paid. Once
        it is idle, an attendant, a technician and a Board inspector come together: the
        attendant empties the drop bucket, the bill stacker and the hopper (``money_removed``,
        the inspector witnessing), the meters are read a last time, the removal is recorded
        with its date (``machine_removed``) and the technician disconnects the machine (the
        floor system loses it: ``machine_unreachable``). ``returning``: the licensee keeps it.
        """
        env = self.env
        self.withdrawn = reason
        while self.patron is not None or self.down:  # a session, hand pay or repair first
            yield env.timeout(60.0)
        alone = self.take(Misconduct.REMOVAL_WITHOUT_INSPECTOR)  # injected: no inspector
        roles = tuple(r for r in JOB_ROLES[MACHINE_REMOVAL] if not (alone and r == "inspector"))
        job = self.crew.service.request(JobSpec(MACHINE_REMOVAL, self.id, roles))
        got: dict[str, str] = yield job.assigned
        attendant, tech, inspector = got["attendant"], got["technician"], got.get("inspector", "")
        yield env.timeout(self._minutes(self.crew.timing.walk))
        emptier = OUTSIDER if self.take(Misconduct.HOPPER_EMPTIED_BY_OUTSIDER) else attendant
        self._empty(emptier, inspector, "machine_removed")
        # injected (item 9(a)): the machine is wheeled away with its hopper still full
        unsecured = self.take(Misconduct.REMOVAL_CONTENTS_UNSECURED)
        if self.accounts.hopper_level > 0 and not unsecured:
            self.open_door(Door.SLOT, tech)
            coins = self.accounts.take_from_hopper(self.accounts.hopper_level)
            self.emit(
                MoneyRemoved,
                container="hopper",
                coins=coins,
                cents=coins * self.spec.denomination_cents,
                staff=emptier,
                witness=inspector,
                reason="hopper_emptied",
            )
            yield env.timeout(self._minutes(self.crew.timing.hopper_fill))
            self.close_door(Door.SLOT, tech)
        self.read_meters()
        self.emit(
            MachineRemoved,
            date=self.world.clock.at(env.now).date().isoformat(),
            reason=reason,
            returning=returning,
            asset_number=self.spec.asset_number,
            registration=self.spec.registration,
            technician=tech,
            attendant=attendant,
            witness=inspector,
            hopper_left=self.accounts.hopper_level,
        )
        self.disconnect()
        self.crew.service.complete(job)

    def disconnect(self) -> None:
        """Unplugged and taken away: out of operation, and silent to the floor system."""
        if self.withdrawn is None:
            self.withdrawn = "disconnected"
        self.present = False
        self.emit(MachineUnreachable)

    def reconnect(self) -> None:
        """Back on the floor and heard from again (still out of operation until placed back)."""
        self.present = True
        self.emit(MachineReachable)

    def return_to_floor(self) -> Proc:
        """The machine is placed back into operation: the technician connects it, the
        attendant loads the hopper's standard fill (a certified fill, the inspector
        witnessing), the return is recorded with its date (``machine_returned``) and the
        meters are read; then patrons may take it again."""
        env = self.env
        job = self.crew.service.request(JobSpec(MACHINE_RETURN, self.id, JOB_ROLES[MACHINE_RETURN]))
        got: dict[str, str] = yield job.assigned
        attendant, tech, inspector = got["attendant"], got["technician"], got["inspector"]
        yield env.timeout(self._minutes(self.crew.timing.walk))
        self.reconnect()
        if self.take(Misconduct.RETAG_ON_RETURN):  # injected: back with a new asset number
            self.spec = replace(self.spec, asset_number=self.spec.asset_number + "-N")
        coins = min(
            self.spec.hopper_standard_fill, self.spec.hopper_capacity - self.accounts.hopper_level
        )
        if coins > 0:
            self.open_door(Door.SLOT, tech)
            yield env.timeout(self._minutes(self.crew.timing.hopper_fill))
            self.accounts.fill_hopper(coins)
            self.emit(
                HopperFilled,
                reason="return",
                coins=coins,
                certified_coins=coins,
                hopper_level=self.accounts.hopper_level,
                attendant=attendant,
                inspector=inspector,
                requested_t=env.now,
            )
            self.close_door(Door.SLOT, tech)
        self.emit(
            MachineReturned,
            date=self.world.clock.at(env.now).date().isoformat(),
            asset_number=self.spec.asset_number,
            registration=self.spec.registration,
            technician=tech,
            attendant=attendant,
            witness=inspector,
        )
        self.read_meters()
        self.crew.service.complete(job)
        self.place_back()

    def place_back(self) -> None:
        """In operation again: patrons may take it, its faults and checks resume."""
        self.withdrawn = None
        back, self._back = self._back, None
        if back is not None:
            back.succeed()

    def wait_in_operation(self) -> Proc:
        """Until the machine is in operation (faults and door checks pause while it is out)."""
        while self.withdrawn is not None:
            if self._back is None:
                self._back = self.env.event()
            yield self._back
