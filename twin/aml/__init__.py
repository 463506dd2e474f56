"""The anti-money-laundering desk (the ``aml`` department, Malta regs 45-51): identification,
the money trail of each window, suspicion and reports, the records kept; and the launderers
who test it.

Built from ``[aml]``. It needs the door (sessions begin there, reg 45) and the cage (chips
are bought and cashed there); it sees the junket desk when there are junkets, and its
launderers play the slot floor and the tables.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.aml import actions, injections  # noqa: F401  (registers its commands, injections)
from twin.aml.documents import documents
from twin.aml.kpis import AmlKpis
from twin.aml.launderers import Launderers
from twin.aml.model import AmlDesk
from twin.aml.section import AmlConfig
from twin.aml.views import JUNKET_VIEW_KINDS, junket_view
from twin.cage import Cage
from twin.department import Department, Plan, Site
from twin.door import Door
from twin.door.params import ADMISSION_MIN_AGE
from twin.junkets import Junkets
from twin.patrons import Host, Population
from twin.pit import Pit
from twin.slots import Slots
from twin.staff import Dispatcher


def build(site: Site) -> Iterable[Department]:
    config = site.section(AmlConfig)
    assert config is not None
    door, cage, slots = site.need(Door), site.need(Cage), site.need(Slots)
    population, junkets = site.need(Population), site.find(Junkets)
    desk = AmlDesk(
        site.world, config, site.rules, site.need(Dispatcher),
        {m.id: m.spec.denomination_cents for m in slots.machines},
        documents(population, site.world.clock.at(0.0).year), door.home.id, site.source,
        views=() if junkets is None else (junket_view,),
        view_kinds=None if junkets is None else JUNKET_VIEW_KINDS,
    )  # fmt: skip
    site.provide(desk)
    if not config.launderers:
        return (desk,)
    launderers = Launderers(
        site.world, config, population, site.need(Host).hall, slots.floor, cage, site.find(Pit),
        desk.threshold, ADMISSION_MIN_AGE.of(site.rules), junkets, site.source,
    )  # fmt: skip
    site.provide(launderers)
    return (desk, launderers)


PLAN = Plan(
    "aml",
    ("aml",),
    build,
    needs=("door", "cage"),
    needs_why="sessions begin at the door, reg 45; chips are bought and cashed at the cage",
    uses=("staff", "patrons", "slots", "junkets", "pit"),
    kpis=AmlKpis,
)

__all__ = ["PLAN", "AmlDesk", "Launderers"]
