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


__all__ = [
    "SmibCommandResult",
    "SmibEvent",
    "SmibEventsLost",
    "SmibMessageRejected",
    "SmibMeterReset",
    "SmibMeters",
    "SmibOffline",
    "SmibOnline",
    "SmibReconciled",
    "SmibRequest",
]
