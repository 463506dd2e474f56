"""A coat check: a small department built from outside twin (issue 26), to show what adding a
department takes: this package, and one line, its section's field in the composed scenario
(``class WithCoats(Scenario): coat_check: CoatCheckConfig | None = None``)."""

from __future__ import annotations

from collections.abc import Iterable

from coatroom import injections  # noqa: F401  (registers its injection)
from coatroom.model import CoatCheck, CoatKpis
from coatroom.section import CoatCheckConfig
from twin.department import Department, Plan, Site


def build(site: Site) -> Iterable[Department]:
    config = site.section(CoatCheckConfig)
    assert config is not None
    desk = CoatCheck(site.world, config)
    site.provide(desk)
    return (desk,)


PLAN = Plan("coat_check", ("coat_check",), build, uses=("staff",), kpis=CoatKpis)
