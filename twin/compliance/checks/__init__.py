"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    aml,
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
    "aml",
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
