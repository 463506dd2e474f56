"""Records of staff on and off duty, and of the jobs they are dispatched to.

Every id is also a payload field (``member``, ``job_id``, ``machine``, ``members``), so no
reader depends on the position of an entity.
"""

from __future__ import annotations

from twin.records import Record, record


@record("shift_started")
class ShiftStarted(Record):
    """A member comes on duty. ``employer``: "licensee" or "board" (a Board inspector)."""

    role: str
    shift: str
    member: str
    name: str
    employer: str


@record("shift_ended")
class ShiftEnded(Record):
    """A member goes off duty; ``overtime_s`` worked past the end of the shift to finish a job."""

    role: str
    shift: str
    member: str
    overtime_s: float


@record("job_requested")
class JobRequested(Record):
    """A job is filed: it needs every role in ``roles`` at once."""

    job_id: str
    job_kind: str
    machine: str
    roles: tuple[str, ...]
    mode: str  # "automatic" or "operator"


@record("job_started")
class JobStarted(Record):
    """All the job's roles are staffed at once; ``members`` is aligned with ``roles``."""

    job_id: str
    job_kind: str
    machine: str
    roles: tuple[str, ...]
    members: tuple[str, ...]
    requested_t: float
    by: str  # "dispatcher" or "operator"


@record("job_completed")
class JobCompleted(Record):
    job_id: str
    job_kind: str
    machine: str
    members: tuple[str, ...]
    requested_t: float
    started_t: float
