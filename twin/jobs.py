"""Jobs: how a machine (or a table, the cage) asks the floor's people for work to be done.

A kernel module: the machines that file jobs and the staff that do them both depend on it,
and neither on the other.

A machine knows *what* a job needs (its kind and the roles that must be present together);
it does not know who works on the floor, their shifts, or how jobs are queued. It files a
``JobSpec`` with a ``Service``, waits on the handle's ``assigned`` event (which fires with the
assignment ``{role: member id}``, every role at once), does the work, and calls
``complete(handle)``. ``twin.staff.dispatch.Dispatcher`` implements the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import simpy

#: The kinds of job a slot machine files, and the roles each needs by default.
HAND_PAY = "hand_pay"
HOPPER_FILL = "hopper_fill"
REPAIR = "repair"
DOOR_CHECK = "door_check"
#: the daily drop: empty the drop bucket and the bill stacker, a Board inspector witnessing
DROP_COLLECTION = "drop_collection"
#: a machine taken out of operation (emptied, read, disconnected) and placed back (20(c))
MACHINE_REMOVAL = "machine_removal"
MACHINE_RETURN = "machine_return"
#: the lifecycle's works (issue 27): a technician's work on a machine (a repair of a part, a
#: move, a fault), a master EPROM out of the secure area under dual control, the seal checks
MACHINE_WORK = "machine_work"
EPROM_CUSTODY = "eprom_custody"
SEAL_CHECK = "seal_check"
JOB_ROLES: Mapping[str, tuple[str, ...]] = {
    HAND_PAY: ("attendant", "inspector"),
    HOPPER_FILL: ("attendant", "inspector"),
    REPAIR: ("technician",),
    DOOR_CHECK: ("technician",),
    DROP_COLLECTION: ("attendant", "inspector"),
    MACHINE_REMOVAL: ("attendant", "technician", "inspector"),
    MACHINE_RETURN: ("attendant", "technician", "inspector"),
    MACHINE_WORK: ("technician",),
    EPROM_CUSTODY: ("technician", "attendant"),
    SEAL_CHECK: ("technician", "inspector"),
}


@dataclass(frozen=True, slots=True)
class JobSpec:
    """A piece of work at a machine: ``roles`` must all be staffed at once (all or nothing);
    a role named twice needs two members of it (``twin.staff.dispatch.slot_names``)."""

    kind: str
    machine: str
    roles: tuple[str, ...]


class JobHandle(Protocol):
    """A filed job. ``assigned`` fires with ``{role: member id}`` when the job starts."""

    @property
    def id(self) -> str: ...

    @property
    def spec(self) -> JobSpec: ...

    @property
    def assigned(self) -> simpy.Event: ...


class Service(Protocol):
    """Whoever staffs jobs (the dispatcher)."""

    def request(self, spec: JobSpec) -> JobHandle: ...

    def complete(self, handle: JobHandle) -> None: ...
