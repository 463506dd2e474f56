"""Every record kind of the twin, registered in one place.

Importing this module registers every record class, so a ledger can be read back on its own
(``twin ledger export``, ``twin state``, metrics rebuilt from a ledger). A test walks the
package and fails when a module defines a record kind that is not listed here.
"""

from __future__ import annotations

from twin.aml import records as aml_events
from twin.cage import records as cage_events
from twin.commands import CommandAccepted, CommandRejected
from twin.compliance.findings import Finding
from twin.door import records as entrance_events
from twin.hardware import records as hardware_records
from twin.injections import InjectionIdle
from twin.junkets import records as junket_events
from twin.machines import events as machine_events
from twin.machines import verification
from twin.patrons import events as patron_events
from twin.pit import records as table_events
from twin.premium import records as premium_events
from twin.records import Record, kinds
from twin.slots import promotions
from twin.staff import events as staff_events

#: The modules that define record kinds (imported for their registrations).
MODULES = (
    machine_events,
    promotions,
    verification,
    patron_events,
    staff_events,
    hardware_records,
    # issue 10: entrance
    entrance_events,
    # issue 10: tables
    table_events,
    # issue 10: cage
    cage_events,
    # issue 10: junkets
    junket_events,
    # issue 11: premium
    premium_events,
    # issue 11: anti-money laundering
    aml_events,
)

#: Every record kind by name.
ALL: dict[str, type[Record]] = kinds()

__all__ = ["ALL", "MODULES", "CommandAccepted", "CommandRejected", "Finding", "InjectionIdle"]
