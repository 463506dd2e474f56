"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    cage,
    entrance,
    identity,
    junkets,
    meters,
    outcomes,
    payouts,
    premium,
    programs,
    randomness,
    tables,
)

__all__ = [
    "cage",
    "entrance",
    "identity",
    "junkets",
    "meters",
    "outcomes",
    "payouts",
    "premium",
    "programs",
    "randomness",
    "tables",
]
