"""The desk's working papers (``twin.aml.model.AmlDesk``): what it reads of the floor's
sessions, a patron's particulars, what the staff see in another part's records, the
transactions of one window, a case reported to the Reporting Officer, and the misconduct
injections arm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from twin.aml.records import InternalReport
from twin.records import Record


class Seated(Protocol):
    """What the desk reads of the floor's ``session_started`` and ``patron_left`` records
    (who the floor puts at which machine, and when)."""

    @property
    def t(self) -> float: ...
    @property
    def patron(self) -> str: ...
    @property
    def machine(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Particulars:
    """What an identification document shows (the assembly looks it up, reg 47(1))."""

    document_type: str
    document_number: str
    name: str
    date_of_birth: str
    nationality: str
    address: str


@dataclass(frozen=True, slots=True)
class Seen:
    """What the staff see in a record of a part of the casino the desk does not know by
    itself (a junket desk's deposits and redemptions: ``twin.aml.views.junket_view``).

    ``what``: "arrived" (``patron`` begins a stay that is one window, its ``particulars``
    read from the document shown), "in" (cash for chips or tokens, ``cents``), "out" (chips
    or tokens for cash, ``cents``), "play" (``wagered`` and the net result ``won``).
    ``person``: who the patron is across visits (a passport), for the Reporting Officer."""

    what: str
    patron: str
    cents: int = 0
    wagered: int = 0
    won: int = 0
    particulars: Particulars | None = None
    person: str = ""
    label: str = ""


View = Callable[[Record], "Seen | None"]


@dataclass
class Window:
    """One patron's transactions in one window (a session or a gaming day)."""

    key: str
    label: str
    ins: list[tuple[int, int]] = field(default_factory=list)  # (seq, cents)
    outs: list[tuple[int, int]] = field(default_factory=list)
    wagered: int = 0
    won: int = 0  # net result of play, cents (negative: lost)
    flagged: set[str] = field(default_factory=set)
    bought: int = 0  # the cents of ``ins``, added up as they come (``add_in``)
    cashed: int = 0  # the cents of ``outs`` (``add_out``)

    def add_in(self, seq: int, cents: int) -> None:
        self.ins.append((seq, cents))
        self.bought += cents

    def add_out(self, seq: int, cents: int) -> None:
        self.outs.append((seq, cents))
        self.cashed += cents


@dataclass
class Case:
    id: str
    patron: str
    flag: str
    report: InternalReport
    transactions: tuple[int, ...]
    strong: bool = False  # a suspicion at once (the chips' source not shown at all)


@dataclass
class _Armed:
    """Injected misconduct waiting for its moment (twin.aml.injections)."""

    skip_id: set[str] = field(default_factory=set)  # reasons whose next identification is skipped
    skip_cross_reference: bool = False
    skip_suspicion_id: bool = False
    blank_address: bool = False
    unreported_flag: bool = False
    unevaluated_report: bool = False
    board_not_told: bool = False
    no_reasons: bool = False
    late_report_hours: int = 0
    untrained_next: bool = False
    not_notified_police: bool = False
