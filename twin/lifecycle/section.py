"""The ``[lifecycle]`` section: machines through their whole life (Malta regs 30-35, First
Schedule items 9, 11-14, 17-19).

::

    [lifecycle]
    licence = "renewal"          # at t = 0 the licence is renewed: every machine's specs filed
    licensed_machines = 64       # the licence's number (default: the floor's machines)
    board_licence_no = "MGB-L-001"

    [lifecycle.store]            # where reserve machines are kept (reg 31(1), first proviso)
    locked = true
    in_gaming_area = false

    [[lifecycle.reserve]]        # reserve machines of a bank's type, ids A-R01, A-R02 ...
    bank = "A"
    count = 2

    [lifecycle.manual]           # the internal controls procedures manual (item 18)
    topics = [...]               # default: every topic and procedure (MANUAL_TOPICS)
    approved = [...]             # the procedures the Board approved (default: all)

    [[lifecycle.works]]          # what happens to machines, each at its hour
    kind = "conversion"
    machine = "C-002"
    at_hours = 30
    game = "games/classic-3reel-90.toml"

Validated with the same one-line, key-path errors as every scenario section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BeforeValidator, Field, model_validator

from twin.dists import expect, invalid
from twin.scenario import (
    Ident,
    NonEmptyStr,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    _check_unique,
    _Model,
    _one_of,
    _Plain,
    _resolve_optional_game,
    number_entries,
)

#: item 18's day-to-day topics (its list, in its words), then the procedures the workflows
#: follow (items 9(c), 13, 14, 19(b), 19(d), 19(e)); a workflow whose procedure the manual
#: lacks is a finding of item 18
MANUAL_TOPICS: tuple[str, ...] = (
    "cash_variances",
    "complimentary_accounts",
    "customer_complaints",
    "documentation",
    "asset_registers",
    "jackpot_base_values",
    "reel_tape_control",
    "security_seals",
    "machine_statistics",
    "reports",
    "machine_moves",
)
Procedure = Literal[
    "machine_removal",
    "machine_moves",
    "conversions",
    "repairs",
    "eprom_dual_control",
    "eprom_copy_seal",
    "eprom_promo",
]
PROCEDURES: tuple[str, ...] = get_args(Procedure)
#: what the manual covers unless a scenario says otherwise: every topic and procedure, once
DEFAULT_TOPICS: tuple[str, ...] = tuple(dict.fromkeys((*MANUAL_TOPICS, *PROCEDURES)))
#: the procedures the Board must approve (items 9(c), 19(d), 19(e))
BOARD_APPROVED: tuple[str, ...] = ("machine_removal", "eprom_copy_seal", "eprom_promo")

WorkKind = Literal[
    "acquisition",
    "move",
    "replacement",
    "conversion",
    "repair",
    "media_copy",
    "disposal",
    "fault",
    "suspension",
    "certificate_request",
    "manual_request",
    "repair_log_request",
]
WORK_KINDS: tuple[str, ...] = get_args(WorkKind)
#: the works that need the Board's written approval first (items 11(a), 13, 14(c); reg 31(1))
APPROVED_WORKS = frozenset({"move", "replacement", "conversion", "repair"})


class Store(_Model):
    """``[lifecycle.store]``: the premises where reserve machines are kept."""

    id: Ident = "store"
    locked: bool = True
    in_gaming_area: bool = False


class ReserveBatch(_Model):
    """``[[lifecycle.reserve]]``: ``count`` reserve machines of bank ``bank``'s type (its
    program, denomination and cabinet), ids ``<bank>-R01`` ..."""

    bank: Ident
    count: Annotated[int, expect("an integer from 1 to 999", lambda v: 1 <= v <= 999)]

    def machine_ids(self) -> list[str]:
        return [f"{self.bank}-R{n:02d}" for n in range(1, self.count + 1)]


class Manual(_Model):
    """``[lifecycle.manual]``: what the internal controls procedures manual covers, and the
    procedures the Board approved."""

    topics: tuple[NonEmptyStr, ...] = Field(default=DEFAULT_TOPICS, strict=False)
    approved: tuple[NonEmptyStr, ...] = Field(default=BOARD_APPROVED, strict=False)


class Work(_Model):
    """``[[lifecycle.works]]``: one thing that happens to a machine at ``at_hours``.

    The licensee's works: ``acquisition`` (a new ``machine`` of ``bank``'s type into the
    reserve store), ``move`` (to ``zone``), ``replacement`` (floor ``machine`` out to the
    store, reserve ``reserve`` in), ``conversion`` (to program ``game``), ``repair``
    (``part``, ``outcome_affecting``), ``media_copy`` (a copy of the EPROM of ``machine``'s
    program, ``by`` "licensee" or "manufacturer") and ``disposal`` (``method`` "sold" or
    "destroyed"). Others': ``fault`` (an inspection finds ``fault`` on ``machine``; the
    licensee repairs it), ``suspension`` (the Board suspends ``machine``'s approval for
    ``reason``; lifted after ``restore_hours``), ``certificate_request`` (a player asks to
    see the certificate), ``manual_request`` (the Secretary asks for the manual) and
    ``repair_log_request`` (an inspector asks for the list of repairs).

    ``approval``: for works the Board must approve first, "request" (the licensee asks at
    ``at_hours`` and works once it has the written approval), "granted" (approved before
    the run: the work is done at ``at_hours``) or "none" (done without asking: a breach the
    controls find)."""

    id: Ident | None = None
    kind: WorkKind
    at_hours: NonNegativeFloat
    machine: Ident | None = None
    game: Annotated[Path | None, BeforeValidator(_resolve_optional_game)] = None
    bank: Ident | None = None
    zone: Ident | None = None
    reserve: Ident | None = None
    part: NonEmptyStr | None = None
    outcome_affecting: bool = False
    by: Literal["licensee", "manufacturer"] = "licensee"
    method: Literal["sold", "destroyed"] = "sold"
    fault: NonEmptyStr | None = None
    reason: NonEmptyStr | None = None
    restore_hours: PositiveFloat | None = None
    approval: Literal["request", "granted", "none"] = "request"

    @model_validator(mode="after")
    def _check(self) -> Work:
        needs: dict[str, tuple[str, ...]] = {
            "acquisition": ("machine", "bank"),
            "move": ("machine", "zone"),
            "replacement": ("machine", "reserve"),
            "conversion": ("machine", "game"),
            "repair": ("machine", "part"),
            "media_copy": ("machine",),
            "disposal": ("machine",),
            "fault": ("machine", "fault"),
            "suspension": ("machine", "reason"),
        }
        for key in needs.get(self.kind, ()):
            if getattr(self, key) is None:
                raise invalid(f"a {key} for a {self.kind}", key=key, found=_Plain("nothing"))
        return self


class LifecycleConfig(_Model):
    """The ``[lifecycle]`` table."""

    department: ClassVar[str] = "lifecycle"

    licence: Literal["grant", "renewal"] = "renewal"
    licensed_machines: PositiveInt | None = None
    board_licence_no: NonEmptyStr = "MGB-CL-001"
    store: Store = Field(default_factory=Store)
    reserve: tuple[ReserveBatch, ...] = Field(default=(), strict=False)
    manual: Manual = Field(default_factory=Manual)
    works: tuple[Work, ...] = Field(default=(), strict=False)

    @model_validator(mode="before")
    @classmethod
    def _number_works(cls, data: Any) -> Any:
        return number_entries(data, "works", "W")

    @model_validator(mode="after")
    def _check(self) -> LifecycleConfig:
        _check_unique([b.bank for b in self.reserve], "reserve", "bank", "bank")
        _check_unique([w.id or "" for w in self.works], "works", "id", "work id")
        for i, topic in enumerate(self.manual.approved):
            if topic not in self.manual.topics:
                raise invalid(
                    _one_of(list(self.manual.topics), "a topic of the manual"),
                    key=f"manual.approved[{i}]",
                    found=topic,
                )
        return self

    def reserve_ids(self) -> list[str]:
        return [mid for b in self.reserve for mid in b.machine_ids()]


def check(sc: Any) -> None:
    """What ``[lifecycle]`` asks of the floor: reserve batches of a floor bank, works on
    machines that exist by then (a work due after the run's end is a plan that never comes
    in it: a scenario keeps its week of works whatever ``--hours`` a run is given)."""
    lc: LifecycleConfig | None = getattr(sc, "lifecycle", None)
    if lc is None:
        return
    banks = [b.id for b in sc.floor.banks]
    for i, batch in enumerate(lc.reserve):
        if batch.bank not in banks:
            raise invalid(_one_of(banks, "a bank id of [[floor.banks]]"),
                          key=f"lifecycle.reserve[{i}].bank", found=batch.bank)  # fmt: skip
    floor = set(sc.all_machine_ids())
    zones = list(dict.fromkeys(b.zone for b in sc.floor.banks))
    known = floor | set(lc.reserve_ids())
    for i, w in enumerate(lc.works):
        at = f"lifecycle.works[{i}]"
        if w.kind == "acquisition":
            if w.machine in known:
                raise invalid("the id of a machine not yet on the floor or in reserve",
                              key=f"{at}.machine", found=w.machine)  # fmt: skip
            if w.bank not in banks:
                raise invalid(_one_of(banks, "a bank id of [[floor.banks]]"),
                              key=f"{at}.bank", found=w.bank)  # fmt: skip
            known.add(w.machine or "")
            continue
        if w.machine is not None and w.machine not in known:
            raise invalid("the id of a floor machine, a reserve machine or one acquired earlier",
                          key=f"{at}.machine", found=w.machine)  # fmt: skip
        if w.kind == "move" and w.zone not in zones:
            raise invalid(_one_of(zones, "a zone of the floor"), key=f"{at}.zone",
                          found=w.zone)  # fmt: skip
        if w.kind == "replacement" and w.reserve not in known - floor:
            raise invalid("the id of a reserve machine (or one acquired earlier)",
                          key=f"{at}.reserve", found=w.reserve)  # fmt: skip


__all__ = [
    "APPROVED_WORKS",
    "BOARD_APPROVED",
    "MANUAL_TOPICS",
    "PROCEDURES",
    "WORK_KINDS",
    "LifecycleConfig",
    "Manual",
    "ReserveBatch",
    "Store",
    "Work",
    "check",
]
