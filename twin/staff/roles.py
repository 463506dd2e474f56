"""Roles on the floor and the people who hold them: stable ids and display names.

A role is data (``[[staff.roles]]`` in a scenario): an id that jobs refer to, the prefix of
its members' ids (``ATT-day-01``), a title, and who employs its holders (the licensee, or the
gaming Board for its inspectors). A member's display name is a pure function of the member
id (a stable hash into small name lists), so naming people draws nothing from any stream.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

Employer = Literal["licensee", "board"]


@dataclass(frozen=True, slots=True)
class Role:
    id: str
    prefix: str
    title: str
    employer: Employer = "licensee"


DEFAULT_ROLES: tuple[Role, ...] = (
    Role("attendant", "ATT", "Slot attendant"),
    Role("technician", "TEC", "Slot technician"),
    Role("inspector", "INS", "Board inspector", "board"),
)

_GIVEN = (
    "Anna", "Carmel", "Daniel", "Elena", "Francesca", "George", "Joseph", "Karen", "Luke",
    "Maria", "Mark", "Nadia", "Paul", "Rita", "Simon", "Theresa", "Wei", "Mei", "Arjun", "Siti",
)  # fmt: skip
_FAMILY = (
    "Abela", "Borg", "Camilleri", "Farrugia", "Galea", "Grech", "Mifsud", "Pace", "Vella",
    "Zammit", "Tan", "Lim", "Ng", "Wong", "Kumar", "Rahman", "Ong", "Chua", "Cassar", "Spiteri",
)  # fmt: skip


def display_name(member_id: str) -> str:
    """A deterministic display name for a member id (no random stream is consumed)."""
    h = hashlib.sha256(member_id.encode("utf-8")).digest()
    given = _GIVEN[int.from_bytes(h[:4], "big") % len(_GIVEN)]
    family = _FAMILY[int.from_bytes(h[4:8], "big") % len(_FAMILY)]
    return f"{given} {family}"


def member_ids(prefix: str, shift: str, count: int) -> tuple[str, ...]:
    """The ids of a shift's members of one role: ``ATT-day-01``, ``ATT-day-02`` ..."""
    return tuple(f"{prefix}-{shift}-{n:02d}" for n in range(1, count + 1))
