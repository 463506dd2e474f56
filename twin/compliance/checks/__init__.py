"""Every implemented control's checker; importing this package registers them all."""

from twin.compliance.checks import identity, meters, outcomes, payouts, programs, randomness
from twin.compliance.checks import junkets  # issue 10: junkets (reg 25)

__all__ = ["identity", "meters", "outcomes", "payouts", "programs", "randomness", "junkets"]
