"""Employees under licence (the ``licensing`` department, issue 28): applications, the
Board's decisions, provisional and full licences and their renewal, functions and grades,
changes and conditions, suspensions and cancellations, and a dispatcher that obeys them.

Built from ``[licensing]`` after the staff, whose members it licenses (and whose roster it
extends with the new hires before the roster starts).
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.door import Door
from twin.licensing import injections
from twin.licensing.kpis import LicensingKpis
from twin.licensing.model import DISPENSABLE, Licensing
from twin.licensing.section import LicensingConfig, check
from twin.staff import Dispatcher, Roster


def build(site: Site) -> Iterable[Department]:
    config = site.section(LicensingConfig)
    assert config is not None
    licensing = Licensing(site, config, site.need(Dispatcher), site.need(Roster),
                          door=site.find(Door))  # fmt: skip
    site.provide(licensing)
    return (licensing,)


PLAN = Plan(
    "licensing",
    ("licensing",),
    build,
    needs=("staff",),
    needs_why="it licenses the staff's members and adds its hires to their roster",
    uses=("door",),
    check=check,
    check_injections=injections.validate,
    kpis=LicensingKpis,
)

__all__ = ["DISPENSABLE", "PLAN", "Licensing", "LicensingConfig", "LicensingKpis"]
