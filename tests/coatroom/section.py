"""The ``[coat_check]`` section."""

from __future__ import annotations

from typing import ClassVar

from twin.scenario import PositiveFloat, PositiveInt, _Model


class CoatCheckConfig(_Model):
    """A coat every ``every_minutes``, for ``fee_cents``."""

    department: ClassVar[str] = "coat_check"

    fee_cents: PositiveInt = 200
    every_minutes: PositiveFloat = 15.0
