"""The premium room (the ``premium`` department, Singapore 2010): premium players, their
deposit accounts, what they pay in and draw, their status each period, and credit.

Built from ``[premium]``, under a ruleset of premium-player deposit accounts.
"""

from __future__ import annotations

from collections.abc import Iterable

from twin.department import Department, Plan, Site
from twin.errors import InputError
from twin.premium import injections
from twin.premium.model import PremiumRoom
from twin.premium.params import MIN_BALANCE, account_rules
from twin.premium.records import PremiumKpis
from twin.premium.section import PremiumConfig


def build(site: Site) -> Iterable[Department]:
    config = site.section(PremiumConfig)
    assert config is not None
    if not MIN_BALANCE.given(site.rules):
        raise InputError(
            site.source, "premium", "a ruleset of premium-player deposit accounts "
            "(singapore-2010)", site.rules.name,
        )  # fmt: skip
    room = PremiumRoom(site.world, config, account_rules(site.rules),
                       site.world.clock.at(0.0), site.source)  # fmt: skip
    site.provide(room)
    return (room,)


PLAN = Plan("premium", ("premium",), build, check_injections=injections.validate, kpis=PremiumKpis)

__all__ = ["PLAN", "PremiumRoom"]
