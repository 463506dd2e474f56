"""The door (the ``door`` department, regs 20, 22 and 24): identity checks, the Board's lists,
peer casinos and their notices, the staff register.

Built from ``[entrance]``; it needs the staff (who stand at the door) and the patrons (who
come to it); the gaming zones are the slot floor's.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.door import actions, injections  # noqa: F401  (actions: the door's commands)
from twin.door.model import Door, EntranceKpis
from twin.door.params import ADMISSION_MIN_AGE
from twin.door.section import EntranceConfig
from twin.errors import InputError
from twin.patrons import Population
from twin.slots.section import FloorConfig
from twin.staff import Dispatcher


def build(site: Site) -> Iterable[Department]:
    config = site.section(EntranceConfig)
    floor = site.section(FloorConfig)
    assert config is not None and floor is not None
    if not ADMISSION_MIN_AGE.given(site.rules):
        raise InputError(site.source, "entrance", f"a ruleset with {ADMISSION_MIN_AGE.key}",
                         site.rules.name)  # fmt: skip
    door = Door(
        site.world,
        config,
        site.need(Population),
        site.need(Dispatcher),
        admission_age=ADMISSION_MIN_AGE.of(site.rules),
        gaming_zones=[b.zone for b in floor.banks],
        source=site.source,
    )
    site.provide(door)
    return (door,)


PLAN = Plan(
    "door",
    ("entrance",),
    build,
    uses=("staff", "patrons", "slots"),
    check_injections=injections.validate,
    kpis=EntranceKpis,
)

__all__ = ["PLAN", "Door", "EntranceKpis"]
