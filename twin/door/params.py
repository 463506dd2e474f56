"""The ruleset parameters the door works to, each declared once (issue 26)."""

from __future__ import annotations

from twin.rules import Rule

ADMISSION_MIN_AGE = Rule[int](
    "admission_min_age_years", "years", "the youngest age the casino may admit"
)
