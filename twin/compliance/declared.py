"""Every ruleset parameter the code reads, declared (issue 26): importing this module imports
each department's ``params`` module and the compliance engine's, so that
``twin.rules.declared()`` holds every declaration."""

from __future__ import annotations

from typing import Any

import twin.aml.params
import twin.cage.params
import twin.compliance.params
import twin.door.params
import twin.junkets.params
import twin.licensing.params
import twin.lifecycle.params
import twin.premium.params
import twin.slots.params
import twin.surveillance.params
import twin.workdays
from twin.rules import Rule, declared

__all__ = ["MODULES", "every_rule"]

#: the modules that declare ruleset parameters
MODULES = (
    twin.aml.params,
    twin.cage.params,
    twin.compliance.params,
    twin.door.params,
    twin.junkets.params,
    twin.licensing.params,
    twin.lifecycle.params,
    twin.premium.params,
    twin.slots.params,
    twin.workdays,
    twin.surveillance.params,
)


def every_rule() -> dict[str, Rule[Any]]:
    """Every declaration, by key."""
    return declared()
