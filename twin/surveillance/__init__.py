"""The closed-circuit camera and audio system (the ``surveillance`` department, reg 27): one
camera per area of the run, a recording per segment, the daily retention pass, the cases that
hold recordings as evidence and the requests of the police and the Board.

Built from ``[surveillance]``, after the door, the pit and the AML desk whose records show the
breaches it keeps recordings of (when present); it starts as the floor opens.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.surveillance import injections
from twin.surveillance.kpis import SurveillanceKpis
from twin.surveillance.model import Surveillance
from twin.surveillance.section import SurveillanceConfig, check


def build(site: Site) -> Iterable[Department]:
    config = site.section(SurveillanceConfig)
    assert config is not None
    surveillance = Surveillance(site, config)
    site.provide(surveillance)
    return (surveillance,)


PLAN = Plan(
    "surveillance",
    ("surveillance",),
    build,
    uses=("door", "cage", "pit", "aml"),
    check=check,
    check_injections=injections.validate,
    kpis=SurveillanceKpis,
)

__all__ = ["PLAN", "Surveillance", "SurveillanceConfig", "SurveillanceKpis"]
