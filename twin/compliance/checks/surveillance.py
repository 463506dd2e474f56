"""The recordings of the closed-circuit camera and audio system (Malta reg 27): kept in the
casino for seven days, and a recording of a breach until the investigation or proceedings are
over.

Readings: a recording's seven days run from the moment it is made (its segment ends, the
``recording_made`` record) and are calendar days through the run's clock (made 28 February
2028 at 00:00, it may be recycled from 6 March 2028 at 00:00; made 27 December, from 3
January; across a DST change, seven calendar days, not 168 hours). A recording is "of a
breach" when a case the licensee opened holds it (``case_opened``, ``recording_held``) and
until that case closes (``case_closed``). One recycling is one finding: of the proviso when a
case held the recording, else of the seven days.
"""

from __future__ import annotations

from datetime import datetime

from dateutil.relativedelta import relativedelta

from twin.compliance.registry import Checker, Kind, control
from twin.records import Record
from twin.surveillance.params import RECORDING_RETENTION
from twin.surveillance.records import (
    CaseClosed,
    CaseOpened,
    RecordingHeld,
    RecordingMade,
    RecordingProduced,
    RecordingRecycled,
    RecordingRequested,
    RecordingRequestRefused,
)

T = "tests/test_surveillance.py::"
INJ = T + "test_injected_violation_is_found"
C = INJ + "["


def may_recycle_from(made: datetime, days: int) -> datetime:
    """The first moment a recording made at ``made`` (local, aware) may be recycled: ``days``
    calendar days later, the same wall time."""
    return made + relativedelta(days=days)


@control(
    "MT98.R27",
    kind=Kind.RECORD,
    title="Keep surveillance recordings seven days, longer if evidence",
    reads=(
        "recording_made",
        "recording_recycled",
        "case_opened",
        "recording_held",
        "case_closed",
        "recording_requested",
        "recording_produced",
        "recording_request_refused",
    ),
    params=(RECORDING_RETENTION.key,),
    observes=("recording_recycled", "recording_produced", "recording_request_refused"),
    needs="a recording recycled or requested, with a [surveillance] section",
    test=INJ,
    checks={
        "(a) every recording is kept seven days: one recycled before the retention days after "
        "it was made is a finding citing the recording's records": C + "R27.a]",
        "the seven days are calendar days through the clock (a month's end, a leap day, a DST "
        "change)": T + "test_seven_days_are_calendar_days",
        "(b) proviso: a recording held as evidence is not recycled before its case is over": C
        + "R27.b]",
        "(c) kept means producible: a request for a recording inside its seven days, or held "
        "as evidence, is answered with that recording": C + "R27.c]",
    },
    unchecked=(
        "'kept in the casino': where the media are kept is not modelled (a recording is kept "
        "or recycled)",
        "the camera and the audio system apart: a recording stands for a camera's video and "
        "audio together",
        "whether every recording that shows a breach is held: the checker holds the licensee to "
        "the cases it opened (the department opens one for each AML report, unapproved item, "
        "device and barred person's attempt to enter); it does not judge what a recording shows",
        "how long an investigation or proceedings need ('such period as may be necessary'): "
        "the case's length is the scenario's; the checker holds only that nothing held is "
        "recycled before its case closes",
    ),
)
class RecordingRetention(Checker):
    def setup(self) -> None:
        self.days = self.ctx.rule(RECORDING_RETENTION)
        self.made: dict[str, RecordingMade] = {}
        self.by_day: dict[tuple[str, str], list[str]] = {}  # (camera, date) -> recordings
        self.recycled: set[str] = set()
        self.holds: dict[str, dict[str, int]] = {}  # recording -> open case -> seq of the hold
        self.cases: dict[str, tuple[str, ...]] = {}  # open case -> its recordings
        self.requests: dict[str, RecordingRequested] = {}

    def _until(self, made: RecordingMade) -> float:
        clock = self.ctx.clock
        return clock.seconds(may_recycle_from(clock.at(made.t), self.days))

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, RecordingMade):
            self.made[rec.recording] = rec
            self.by_day.setdefault((rec.camera, rec.date), []).append(rec.recording)
        elif isinstance(rec, CaseOpened):
            self.cases[rec.case] = rec.recordings
            for rid in rec.recordings:
                self.holds.setdefault(rid, {})[rec.case] = rec.seq
        elif isinstance(rec, RecordingHeld):
            self.cases.setdefault(rec.case, ())
            self.holds.setdefault(rec.recording, {})[rec.case] = rec.seq
        elif isinstance(rec, CaseClosed):
            for rid in (*self.cases.pop(rec.case, ()), *rec.recordings):
                self.holds.get(rid, {}).pop(rec.case, None)
        elif isinstance(rec, RecordingRecycled):
            self._recycled(rec)
        elif isinstance(rec, RecordingRequested):
            self.requests[rec.request] = rec
        elif isinstance(rec, RecordingProduced | RecordingRequestRefused):
            self._answered(rec)

    def _recycled(self, rec: RecordingRecycled) -> None:
        rid = rec.recording
        self.recycled.add(rid)
        made = self.made.get(rid)
        cited = (rec.seq,) if made is None else (made.seq, rec.seq)
        when = self.ctx.clock.iso(rec.t)
        held = self.holds.get(rid, {})
        if held:
            case, seq = min(held.items())
            self.report(
                (rid, case),
                f"recording {rid} of camera {rec.camera}, held as evidence in case {case}, was "
                f"recycled on {when} while the case was open",
                (*cited, seq),
            )
        elif made is not None and rec.t < self._until(made):
            self.report(
                (rid,),
                f"recording {rid} of camera {rec.camera}, made on {self.ctx.clock.iso(made.t)}, "
                f"was recycled on {when}, before its {self.days} days (it could go from "
                f"{self.ctx.clock.iso(self._until(made))})",
                cited,
            )

    def _answered(self, rec: RecordingProduced | RecordingRequestRefused) -> None:
        asked = self.requests.get(rec.request)
        produced = set(rec.recordings) if isinstance(rec, RecordingProduced) else set()
        owed = [
            rid
            for rid in self.by_day.get((rec.camera, rec.date), [])
            if rid not in produced and (self.holds.get(rid) or rec.t < self._until(self.made[rid]))
        ]
        if not owed:
            return
        answer = (
            f"refused ({rec.reason})"
            if isinstance(rec, RecordingRequestRefused)
            else "answered without it"
        )
        by = f" by the {asked.by}" if asked is not None else ""
        self.report(
            (rec.request, *owed),
            f"request {rec.request}{by} for camera {rec.camera}'s recordings of {rec.date} was "
            f"{answer}, but {', '.join(owed)} was inside its {self.days} days or held as "
            "evidence",
            (
                *((asked.seq,) if asked is not None else ()),
                rec.seq,
                *(self.made[rid].seq for rid in owed),
            ),
        )
