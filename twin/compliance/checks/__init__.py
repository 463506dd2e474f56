"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    entrance,
    identity,
    meters,
    outcomes,
    payouts,
    programs,
    randomness,
)

__all__ = ["entrance", "identity", "meters", "outcomes", "payouts", "programs", "randomness"]
