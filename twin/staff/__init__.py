"""Employees on the floor: roles, shifts and dispatch (the ``staff`` department).

Its plan builds the dispatcher and the shifts from ``[staff]`` and provides them to the
departments built after it; the casino keeps the roster from t = 0.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.staff import actions  # noqa: F401  (registers the operator's command)
from twin.staff.dispatch import Dispatcher, Shift
from twin.staff.roles import Role, display_name, member_ids
from twin.staff.section import StaffConfig


class Roster(list[Shift]):
    """The shifts of the run, each with its members (provided beside the dispatcher)."""


def build(site: Site) -> Iterable[Department]:
    staff = site.section(StaffConfig)
    assert staff is not None  # a scenario always has [staff]
    dispatcher = Dispatcher(
        site.world,
        [Role(r.id, r.prefix, r.title, r.employer) for r in staff.roles],
        priority=staff.dispatch.priority,
        operator=staff.dispatch.operator,
    )
    roster = Roster()
    for s in staff.shifts:
        members: list[str] = []
        for r in staff.roles:
            for mid in member_ids(r.prefix, s.name, s.count(r.id)):
                dispatcher.enlist(mid, r.id, s.name)
                members.append(mid)
        roster.append(Shift(s.name, s.start, s.end, tuple(members)))
    site.provide(dispatcher)
    site.provide(roster)
    return ()


PLAN = Plan("staff", ("staff",), build, always=True)

__all__ = ["PLAN", "Dispatcher", "Roster", "Shift", "display_name"]
