"""The ruleset parameters the surveillance department keeps its recordings to, each declared
once (issue 26): the retention pass obeys it and the control of reg 27 reads the same one."""

from __future__ import annotations

from twin.rules import Rule

#: reg 27: recordings of gaming are kept in the casino "for a period of seven days" (calendar
#: days from the moment a recording is complete, through the run's clock)
RECORDING_RETENTION = Rule[int](
    "recording_retention_days", "days", "how long recordings of gaming are kept"
)
