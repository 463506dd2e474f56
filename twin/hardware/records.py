"""Records of the hardware link: what each SMIB said, what the twin made of it.

Written by :class:`twin.hardware.book.SmibBook` in the simulation thread (never by paho's
thread). Each names the SMIB in the ``smib`` role.
"""

from __future__ import annotations

from twin.records import Record, record


@record("smib_online", roles=("smib",))
class SmibOnline(Record):
    """A SMIB's birth: a new session ``bd`` (or a rebirth of it), with its identity."""

    smib: str
    bd: int
    serial: str
    program: str
    denom_cents: int
    paytable: str
    last_eid: int


@record("smib_offline", roles=("smib",))
class SmibOffline(Record):
    """The session ``bd`` ended: ``lost`` (its will: no clean disconnect) or ``offline``."""

    smib: str
    bd: int
    state: str


@record("smib_event", roles=("smib",))
class SmibEvent(Record):
    """One machine event, applied exactly once (in ``eid`` order)."""

    smib: str
    eid: int
    bd: int
    code: int
    name: str
    epoch: int
    meters: tuple[str, ...]  # the meters the event moved ...
    deltas: tuple[int, ...]  # ... and by how much
    data: str  # canonical JSON of the event's data
    replay: bool
    series: int = 0  # the SMIB's eid series: +1 each time its counters went back
    digest: str = ""  # protocol.event_digest of its content (one eid, one content)


@record("smib_message_rejected", roles=("smib",))
class SmibMessageRejected(Record):
    """A message refused by the link (``smib``: the id it claimed, or its topic's)."""

    smib: str
    topic: str
    reason: str  # the reason's class: invalid_json, schema, unknown_smib, ...
    detail: str


@record("smib_meters", roles=("smib",))
class SmibMeters(Record):
    """A cumulative meter snapshot (readings rolled over at ``10 ** digits``)."""

    smib: str
    source: str  # birth or meters
    epoch: int
    as_of_eid: int
    digits: int
    meters: tuple[str, ...]
    values: tuple[int, ...]
    late: bool  # older than events already applied (a delayed copy): not reconciled


@record("smib_reconciled", roles=("smib",))
class SmibReconciled(Record):
    """Two snapshots of one epoch against the events between them."""

    smib: str
    epoch: int
    from_eid: int  # the earlier snapshot's as_of_eid
    to_eid: int  # the later snapshot's as_of_eid
    events: int
    ok: bool
    mismatches: tuple[str, ...]  # "meter: meters moved X, events say Y"
    evidence: tuple[int, ...]  # seq of the two snapshots


@record("smib_meter_reset", roles=("smib",))
class SmibMeterReset(Record):
    """The meters started a new epoch (RAM clear): nothing reconciles across it."""

    smib: str
    old_epoch: int
    new_epoch: int


@record("smib_events_lost", roles=("smib",))
class SmibEventsLost(Record):
    """Events ``from_eid``..``to_eid`` will never arrive: the SMIB could not replay them."""

    smib: str
    from_eid: int
    to_eid: int
    reason: str
    series: int = 0


@record("smib_request", roles=("smib",))
class SmibRequest(Record):
    """A command the link sent down to a SMIB (a replay, a rebirth)."""

    smib: str
    cmd_id: str
    cmd: str
    args: str  # canonical JSON
    why: str


@record("smib_command_result", roles=("smib",))
class SmibCommandResult(Record):
    """A SMIB's answer to a command."""

    smib: str
    cmd_id: str
    result: str
    reason: str


@record("smib_event_conflict", roles=("smib",))
class SmibEventConflict(Record):
    """Event ``eid`` came again with other content: the first stands, the second is refused."""

    smib: str
    series: int
    eid: int
    bd: int  # the session the second copy claimed
    first_digest: str  # the event that stands (applied, or held to be applied)
    second_digest: str  # the refused one
    applied: bool  # whether the first had already been applied when the second came
    code: int  # the second copy's code and name, for people
    name: str


@record("smib_counters_reset", roles=("smib",))
class SmibCountersReset(Record):
    """The SMIB's session number or event ids went back (a state file restored from a backup,
    a board replaced under the same id), confirmed by a rebirth: a new eid series starts."""

    smib: str
    old_series: int
    series: int
    old_bd: int
    bd: int
    old_eid: int  # the last eid applied (or declared lost) before
    last_eid: int  # the eid the new series starts after
    why: str


@record("smib_closed", roles=("smib",))
class SmibClosed(Record):
    """The run's last word on a SMIB: every event up to ``last_eid`` of ``series`` is applied
    or declared lost; what it sent after that (if anything) came after the run."""

    smib: str
    series: int
    last_eid: int
    online: bool
    applied: int  # events applied in the run
    lost: int  # events declared lost in the run


@record("sas_line_closed", roles=("machine", "smib"))
class SasLineClosed(Record):
    """The end of a ``[[sas]]`` line (issue 30): what its machine's end saw (polls, replies,
    late replies, polls with a bad CRC, reply times in microseconds) and what became of the
    exceptions the machine raised (delivered: read by the SMIB; dropped: lost to a full
    queue; reported: reached the host), and how long an exception took from the machine to
    the host's book (median, p99; microseconds, 0 without any)."""

    machine: str
    smib: str
    polls: int
    replies: int
    late: int
    bad_crc: int
    median_us: int
    p99_us: int
    raised: int
    delivered: int
    dropped: int
    reported: int
    to_host_p50_us: int  # from the machine raising an exception to the host's book
    to_host_p99_us: int


__all__ = [
    "SasLineClosed",
    "SmibClosed",
    "SmibCommandResult",
    "SmibCountersReset",
    "SmibEvent",
    "SmibEventConflict",
    "SmibEventsLost",
    "SmibMessageRejected",
    "SmibMeterReset",
    "SmibMeters",
    "SmibOffline",
    "SmibOnline",
    "SmibReconciled",
    "SmibRequest",
]
