"""Junkets (the ``junkets`` department, reg 25): junket leaders and representatives, their
notices to the Board, the junket room, members' front money, rolling chips and settlement.

Built from ``[junkets]``; its junket room is on the entrance notice (the pit's, or the notice
board's), which it provides to the pit.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.junkets import injections
from twin.junkets.model import Guest, Junkets, validate_injections
from twin.junkets.records import JunketKpis
from twin.junkets.room import JunketRoom
from twin.junkets.section import JunketsConfig
from twin.pit.section import TablesConfig


def build(site: Site) -> Iterable[Department]:
    config = site.section(JunketsConfig)
    assert config is not None
    junkets = Junkets(site.world, config, site.rules, duration_hours=site.scenario.duration_hours,
                      source=site.source)  # fmt: skip
    site.provide(junkets)
    site.provide(junkets.junket_room(site.section(TablesConfig)))
    return (junkets,)


def _check_injections(site: Site) -> None:
    validate_injections(site.scenario.inject, site.find(Junkets), site.source)


PLAN = Plan("junkets", ("junkets",), build, check_injections=_check_injections, kpis=JunketKpis)

__all__ = ["PLAN", "Guest", "JunketRoom", "Junkets", "injections"]
