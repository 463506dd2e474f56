"""Patrons: arrivals, attributes and how they play (the ``patrons`` department).

Its plan draws the population from ``[patrons]`` and provides it, with the arrivals that
bring its members to the casino (the hall the assembly provides routes each visit).
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.patrons.patron import Arrivals
from twin.patrons.population import Population, member_id
from twin.patrons.section import PatronsConfig
from twin.patrons.venue import Floor, Hall, Host, Visitor


def build(site: Site) -> Iterable[Department]:
    patrons = site.section(PatronsConfig)
    assert patrons is not None  # a scenario always has [patrons]
    population = Population.build(patrons, site.world.streams)
    site.provide(population)
    site.provide(Arrivals(site.world, site.need(Host).venue, patrons, population))
    return ()


PLAN = Plan("patrons", ("patrons",), build, uses=("slots",), always=True)

__all__ = ["PLAN", "Floor", "Hall", "Host", "Population", "Visitor", "member_id"]
