"""The ``[staff]`` section: roles, shifts, timing and dispatch.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import (
    Field,
    model_validator,
)

from twin.dists import Lognormal, Triangular, expect, invalid
from twin.scenario import (
    HHMM,
    Ident,
    NonEmptyStr,
    NonNegativeDist,
    NonNegativeInt,
    _check_unique,
    _key_part,
    _Model,
    _one_of,
)

_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")
#: The roles the floor's machines call on, and the jobs each is needed for.
ROLES_NEEDED = {
    "attendant": "hand pays and hopper fills",
    "inspector": "hand pays and hopper fills",
    "technician": "repairs and door checks",
}
#: Every kind of job the floor files (``twin.jobs``): a machine's own during play, then the
#: daily drop (``[floor] drop_collection``) and a machine taken out of operation and placed
#: back (``[[removals]]``, the ``remove_machine`` and ``return_machine`` commands).
JobKind = Literal[
    "hand_pay",
    "hopper_fill",
    "repair",
    "door_check",
    "drop_collection",
    "machine_removal",
    "machine_return",
    "machine_work",
    "eprom_custody",
    "seal_check",
]
JOB_KINDS: tuple[JobKind, ...] = get_args(JobKind)
#: The default ``[staff.dispatch] priority``: the kinds filed during play, highest first. The
#: kinds it does not list (by default drop_collection, machine_removal and machine_return) come
#: after every listed kind, in request order between them, as they always have; a scenario
#: that lists them gives them their own place.
DEFAULT_PRIORITY: tuple[JobKind, ...] = JOB_KINDS[:4]


class RoleConfig(_Model):
    """A role on the floor (``[[staff.roles]]``): jobs name it by ``id``.

    Members' ids are ``<prefix>-<shift>-NN``; ``employer`` is "licensee" or "board" (the
    gaming Board's inspectors, who are not the licensee's employees).
    """

    id: Ident
    prefix: Annotated[
        str, expect("capital letters and digits, starting with a letter", _PREFIX.match)
    ]
    title: NonEmptyStr
    employer: Literal["licensee", "board"] = "licensee"


DEFAULT_ROLES = (
    RoleConfig(id="attendant", prefix="ATT", title="Slot attendant"),
    RoleConfig(id="technician", prefix="TEC", title="Slot technician"),
    RoleConfig(id="inspector", prefix="INS", title="Board inspector", employer="board"),
)


class Shift(_Model):
    """A staff shift (``[[staff.shifts]]``); ``end < start`` wraps past midnight and
    ``end == start`` is round the clock. ``crew`` maps role ids to head counts."""

    name: Ident
    start: HHMM
    end: HHMM
    crew: dict[str, NonNegativeInt] = Field(strict=False)

    def count(self, role: str) -> int:
        return self.crew.get(role, 0)


class StaffTiming(_Model):
    """Task durations in minutes (``[staff.timing]``)."""

    walk_minutes: NonNegativeDist = Triangular(low=0.5, mode=1.5, high=4.0)
    hand_pay_minutes: NonNegativeDist = Triangular(low=3.0, mode=6.0, high=15.0)
    hopper_fill_minutes: NonNegativeDist = Triangular(low=4.0, mode=7.0, high=15.0)
    repair_minutes: NonNegativeDist = Lognormal(median=15.0, sigma=0.8)


class DispatchConfig(_Model):
    """``[staff.dispatch]``: job kinds by priority (first = highest; a kind not listed comes
    after every listed kind, in request order: see :data:`DEFAULT_PRIORITY`), and the kinds
    that wait for an operator to assign staff instead of being dispatched automatically."""

    priority: tuple[JobKind, ...] = Field(default=DEFAULT_PRIORITY, strict=False)
    operator: tuple[JobKind, ...] = Field(default=(), strict=False)

    @model_validator(mode="after")
    def _check(self) -> DispatchConfig:
        _check_unique(list(self.priority), "priority", "", "job kind")
        _check_unique(list(self.operator), "operator", "", "job kind")
        return self


class StaffConfig(_Model):
    """The ``[staff]`` table."""

    department: ClassVar[str] = "staff"

    roles: tuple[RoleConfig, ...] = Field(default=DEFAULT_ROLES, strict=False)
    shifts: Annotated[
        tuple[Shift, ...], expect("at least one [[staff.shifts]] table", lambda v: len(v) > 0)
    ] = Field(strict=False)
    timing: StaffTiming = StaffTiming()
    dispatch: DispatchConfig = Field(default_factory=DispatchConfig)

    @model_validator(mode="after")
    def _check(self) -> StaffConfig:
        _check_unique([r.id for r in self.roles], "roles", "id", "role id")
        _check_unique([r.prefix for r in self.roles], "roles", "prefix", "member id prefix")
        _check_unique([s.name for s in self.shifts], "shifts", "name", "shift name")
        ids = [r.id for r in self.roles]
        for i, s in enumerate(self.shifts):
            for role in s.crew:
                if role not in ids:
                    raise invalid(
                        _one_of(ids, "a role id of [[staff.roles]]"),
                        key=f"shifts[{i}].crew.{_key_part(role)}",
                        found=role,
                    )
        return self

    def head_count(self, role: str) -> int:
        """Members of ``role`` over all shifts."""
        return sum(s.count(role) for s in self.shifts)
