"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    identity,
    meters,
    outcomes,
    payouts,
    programs,
    randomness,
    tables,
)

__all__ = ["identity", "meters", "outcomes", "payouts", "programs", "randomness", "tables"]
