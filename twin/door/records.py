"""Records of the entrance (regs 20 and 24): who came to which casino's door, what the door
checked, who it refused and why, self-exclusion requests and the notices they set off, and
employees' visits to other casinos.

``casino`` names the casino whose door (or licensee) acts: this licensee's casino or a peer
of the scenario's ``[[entrance.peers]]`` (every casino shares one Board). ``person`` is who
the door identified (a population member ``P000123``, a staff member ``ATT-day-01`` or a
director): the holder of the identity document it checked (``document``), which is all a door
can know. Who really stood there when the document was borrowed is the twin's truth
(``document_borrowed``), never read by a checker; a casino learns it only when its
surveillance recognises the person inside (``person_recognised``). Reasons and categories:
``under_age``, ``barred`` (under the Act), ``self_excluded`` (the persons of s.26 of the Act),
``employee``, ``inspector``, ``director`` (reg 24(1): they never gamble).
"""

from __future__ import annotations

from twin.records import Record, record

#: The categories of persons specified in section 26 of the Act (regs 20(1), 24(2)).
S26 = ("under_age", "barred", "self_excluded")
#: The people who may not participate in gaming in any casino (reg 24(1)).
STAFF = ("employee", "inspector", "director")


@record("casino_licensed", roles=("casino",))
class CasinoLicensed(Record):
    """A casino licensee in Malta under the scenario's Board (``home``: this licensee)."""

    casino: str
    home: bool


@record("gaming_area_declared", roles=("casino",))
class GamingAreaDeclared(Record):
    """The approved layout's gaming area (reg 20(1)): the zones where machines and tables
    stand, and the zones outside it (bars, restaurants, reg 20(2))."""

    casino: str
    gaming_zones: tuple[str, ...]
    other_zones: tuple[str, ...]


@record("person_listed", roles=("person",))
class PersonListed(Record):
    """The Board's list at the start of the run: a person barred under the Act or
    self-excluded (``category``), known to every casino's door."""

    person: str
    category: str


@record("staff_registered", roles=("person", "casino"))
class StaffRegistered(Record):
    """Someone who may not gamble (reg 24(1)): ``category`` employee or director of the
    licensee of ``casino``, or a Board inspector posted there; ``role`` their staff role."""

    person: str
    casino: str
    category: str
    role: str


@record("id_checked", roles=("casino", "person"))
class IdChecked(Record):
    """The door identified an entrant: ``checked`` names what it looked at (the document's
    age, the Board's list of persons barred under the Act, its own self-exclusion list, the
    register of those who may not gamble); ``found`` the categories it found (empty: none).
    ``visit`` is the member's visit number (0: not a population visit); ``age`` the age on
    the document (-1 when the entrant is not a population member); ``purpose`` "play" or
    "visit" (an employee's visit)."""

    casino: str
    person: str
    document: str
    visit: int
    purpose: str
    age: int
    checked: tuple[str, ...]
    found: tuple[str, ...]


@record("entrant_waiting", roles=("casino", "person"))
class EntrantWaiting(Record):
    """An entrant (visit ``visit``) waits at ``casino``'s door for the operator to identify
    them and let them in or turn them away (``[entrance] operator = ["identification"]``;
    never written otherwise)."""

    casino: str
    person: str
    visit: int


@record("entry_refused", roles=("casino", "person"))
class EntryRefused(Record):
    """The door turned the entrant away; ``reason`` the first of ``found`` (in the order
    under_age, barred, self_excluded, employee, inspector, director)."""

    casino: str
    person: str
    visit: int
    reason: str


@record("entry_admitted", roles=("casino", "person"))
class EntryAdmitted(Record):
    """The door let the entrant in: ``area`` "gaming" (the gaming area), a non-gaming zone
    (a bar, a restaurant) or "premises" (a visit without play, at a peer)."""

    casino: str
    person: str
    visit: int
    purpose: str
    area: str


@record("entrant_played", roles=("casino", "person"))
class EntrantPlayed(Record):
    """A person took part in gaming at ``casino`` outside the slot floor's own sessions (at a
    peer's tables or machines, or one not seated by the floor)."""

    casino: str
    person: str
    game: str


@record("self_exclusion_requested", roles=("casino", "person"))
class SelfExclusionRequested(Record):
    """A person asked the licensee of ``casino`` by notice (``in_writing``) to ban their own
    admission (reg 24(3))."""

    casino: str
    person: str
    in_writing: bool


@record("board_notified", roles=("casino", "person"))
class BoardNotified(Record):
    """The licensee of ``casino`` notified the Board of ``person``'s self-exclusion request
    (``request``: the request's seq)."""

    casino: str
    person: str
    request: int
    in_writing: bool


@record("notice_copied", roles=("casino", "to_casino", "person"))
class NoticeCopied(Record):
    """A copy of the notice of ``person``'s self-exclusion, sent by the licensee of
    ``casino`` to the licensee of ``to_casino``, which puts the person on its list on
    receipt."""

    casino: str
    to_casino: str
    person: str
    request: int
    in_writing: bool


@record("visit_authorised", roles=("employee", "casino", "to_casino"))
class VisitAuthorised(Record):
    """The licensee of ``casino`` authorised its employee to visit ``to_casino`` (reg 24(4));
    ``by`` who authorised it on the licensee's behalf."""

    employee: str
    casino: str
    to_casino: str
    by: str


@record("person_recognised", roles=("casino", "person", "entered_as"))
class PersonRecognised(Record):
    """The casino's surveillance recognised ``person`` in ``area`` of ``casino``, who had been
    admitted as ``entered_as`` (another person's identity document): what a casino sees of a
    borrowed document, and only when it sees it."""

    casino: str
    person: str
    entered_as: str
    area: str


# --- the twin's truth ------------------------------------------------------------------------


@record("document_borrowed", roles=("casino", "person", "document"), truth=True)
class DocumentBorrowed(Record):
    """What happened (unseen by the door): ``person`` showed ``document``'s identity document
    at ``casino``'s door. The door's records name ``document``."""

    casino: str
    person: str
    document: str


__all__ = [
    "S26",
    "STAFF",
    "BoardNotified",
    "CasinoLicensed",
    "DocumentBorrowed",
    "EntrantPlayed",
    "EntrantWaiting",
    "EntryAdmitted",
    "EntryRefused",
    "GamingAreaDeclared",
    "IdChecked",
    "NoticeCopied",
    "PersonListed",
    "PersonRecognised",
    "SelfExclusionRequested",
    "StaffRegistered",
    "VisitAuthorised",
]
