"""Records of staff on and off duty, and of the jobs they are dispatched to.

Entities are named by role: ``member``; a job's ``job_id``, ``machine`` and ``members``
(aligned with its ``roles``).
"""

from __future__ import annotations

from twin.records import Record, record


@record("shift_started", roles=("member",))
class ShiftStarted(Record):
    """A member comes on duty. ``employer``: "licensee" or "board" (a Board inspector)."""

    role: str
    shift: str
    member: str
    name: str
    employer: str


@record("shift_ended", roles=("member",))
class ShiftEnded(Record):
    """A member goes off duty; ``overtime_s`` worked past the end of the shift to finish a job."""

    role: str
    shift: str
    member: str
    overtime_s: float


@record("duty_missed", roles=("member",))
class DutyMissed(Record):
    """A member's shift comes on but they may not work it: ``reason`` (no licence in force,
    employment not begun, a suspension)."""

    role: str
    shift: str
    member: str
    reason: str
    hours: float  # the shift's length


@record("job_requested", roles=("job_id", "machine"))
class JobRequested(Record):
    """A job is filed: it needs every role in ``roles`` at once."""

    job_id: str
    job_kind: str
    machine: str
    roles: tuple[str, ...]
    mode: str  # "automatic" or "operator"


@record("job_started", roles=("job_id", "machine", "members"))
class JobStarted(Record):
    """All the job's roles are staffed at once; ``members`` is aligned with ``roles``."""

    job_id: str
    job_kind: str
    machine: str
    roles: tuple[str, ...]
    members: tuple[str, ...]
    requested_t: float
    by: str  # "dispatcher" or "operator"


@record("job_completed", roles=("job_id", "machine", "members"))
class JobCompleted(Record):
    job_id: str
    job_kind: str
    machine: str
    members: tuple[str, ...]
    requested_t: float
    started_t: float
