"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    identity,
    meters,
    outcomes,
    payouts,
    premium,
    programs,
    randomness,
)

__all__ = ["identity", "meters", "outcomes", "payouts", "premium", "programs", "randomness"]
