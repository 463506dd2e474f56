"""The cage and the count (the ``cage`` department, regs 23(4) and 37-43): cash desks,
cheques and cards, the drop and its count, the books, unclaimed money and records kept.

Built from ``[cage]``; its cashiers are the staff's, and it counts the slot floor's drops.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.cage import actions, injections  # noqa: F401  (registers its commands, injections)
from twin.cage.books import retention_ends
from twin.cage.model import Cage
from twin.cage.params import RULES as CAGE_RULES
from twin.cage.records import CageKpis
from twin.cage.section import CageConfig
from twin.department import Department, Plan, Site
from twin.slots import Slots
from twin.staff import Dispatcher
from twin.staff.section import StaffConfig


def build(site: Site) -> Iterable[Department]:
    config, crews = site.section(CageConfig), site.section(StaffConfig)
    assert config is not None and crews is not None
    slots = site.need(Slots)
    params = {r.key: r.of(site.rules) for r in CAGE_RULES if r.given(site.rules)}
    cage = Cage(site.world, config, crews, site.need(Dispatcher),
                slots.by_id, params, site.source)  # fmt: skip
    site.provide(cage)
    return (cage,)


PLAN = Plan("cage", ("cage",), build, needs=("staff", "slots"), kpis=CageKpis)

__all__ = ["PLAN", "Cage", "retention_ends"]
