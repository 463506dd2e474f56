"""The slot floor (the ``slots`` department): machines, programs, the Board's register,
conversions, removals, drops, meter readings and promotions.

Its plan builds :class:`twin.slots.model.Slots` from ``[floor]``, ``[faults]``,
``[[removals]]``, ``[[promotions]]``, ``[[hardware]]`` and ``[[sas]]``, with the
options the assembly provides (:class:`twin.slots.model.SlotOptions`), and checks what those
sections ask of the rest of the scenario (:func:`twin.slots.section.check`).
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.slots import actions, injections, records  # noqa: F401  (registrations)
from twin.slots.model import SlotOptions, Slots
from twin.slots.section import SlotScenario, check
from twin.staff import Dispatcher


def build(site: Site) -> Iterable[Department]:
    scenario = site.scenario
    assert isinstance(scenario, SlotScenario)
    opts = site.need(SlotOptions)
    slots = Slots(
        site, scenario, site.need(Dispatcher), rules=site.rules, money=opts.money,
        exchange_rate=opts.exchange_rate, registration_prefix=opts.registration_prefix,
        engine=opts.engine, games=opts.games, bind=opts.bind,
    )  # fmt: skip
    site.provide(slots)
    return ()  # its day is the floor's own: the casino opens it (``Slots.install``, ``start``)


PLAN = Plan(
    "slots",
    ("floor", "faults", "promotions", "removals", "hardware", "sas"),
    build,
    needs=("staff",),
    always=True,
    check=check,
    check_injections=injections.validate,
)

__all__ = ["PLAN", "SlotOptions", "Slots"]
