"""Every record kind of the twin, registered by importing this module.

Importing it registers every record class, so a ledger can be read back on its own
(``twin ledger export``, ``twin state``, metrics rebuilt from a ledger): the kernel's and the
domain libraries' kinds below, and each department's ``records`` module, found through the
registry of departments (a new department's kinds need no line here). A test walks the package
and fails when a module defines a record kind that this module does not register.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from twin.commands import CommandAccepted, CommandRejected
from twin.compliance.findings import Finding
from twin.departments import plans
from twin.hardware import records as hardware_records
from twin.injections import InjectionIdle
from twin.machines import events as machine_events
from twin.machines import verification
from twin.records import Record, kinds


def _department_records() -> tuple[ModuleType, ...]:
    found = []
    for plan in plans():
        try:
            found.append(importlib.import_module(f"twin.{plan.name}.records"))
        except ModuleNotFoundError as exc:
            if exc.name != f"twin.{plan.name}.records":
                raise
    return tuple(found)


#: The modules that define record kinds (imported for their registrations).
MODULES: tuple[ModuleType, ...] = (
    machine_events,
    verification,
    hardware_records,
    *_department_records(),
)

#: Every record kind by name.
ALL: dict[str, type[Record]] = kinds()

__all__ = ["ALL", "MODULES", "CommandAccepted", "CommandRejected", "Finding", "InjectionIdle"]
