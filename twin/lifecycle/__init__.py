"""Machines through their whole life (the ``lifecycle`` department, issue 27): the Board's
register and certificate, the reserve store, acquisitions, moves, replacements, conversions,
repairs, EPROMs, suspensions and disposals, and the internal controls manual.

Built from ``[lifecycle]``, after the staff (who do the works) and the slot floor (whose
machines they are); it starts after the floor opens.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.lifecycle import injections
from twin.lifecycle.kpis import LifecycleKpis
from twin.lifecycle.model import Lifecycle
from twin.lifecycle.section import LifecycleConfig, check
from twin.slots import Slots
from twin.staff import Dispatcher


def build(site: Site) -> Iterable[Department]:
    config = site.section(LifecycleConfig)
    assert config is not None
    lifecycle = Lifecycle(site, config, site.need(Slots), site.need(Dispatcher))
    site.provide(lifecycle)
    return (lifecycle,)


PLAN = Plan(
    "lifecycle",
    ("lifecycle",),
    build,
    needs=("staff", "slots"),
    needs_why="the staff do the works on the slot floor's machines",
    check=check,
    check_injections=injections.validate,
    kpis=LifecycleKpis,
)

__all__ = ["PLAN", "Lifecycle", "LifecycleConfig", "LifecycleKpis"]
