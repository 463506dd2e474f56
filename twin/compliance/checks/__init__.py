"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    cage,
    identity,
    meters,
    outcomes,
    payouts,
    programs,
    randomness,
)

__all__ = ["cage", "identity", "meters", "outcomes", "payouts", "programs", "randomness"]
