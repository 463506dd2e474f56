"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import (
    identity,
    junkets,  # issue 10: junkets (reg 25)
    meters,
    outcomes,
    payouts,
    programs,
    randomness,
)

__all__ = ["identity", "junkets", "meters", "outcomes", "payouts", "programs", "randomness"]
