"""The entrance: regs 20(1)-(2) and 24(1)-(4) of the Malta regulations.

Who is "specified in section 26 of the Act" is known to the checkers from the records alone:
the Board's list at the start of the run (``person_listed``: barred under the Act,
self-excluded), every self-exclusion request since (``self_exclusion_requested``: the person
is excluded from that instant, reg 24(3)), and age under ``admission_min_age_years`` (the age
on ``patron_arrived``, the person's true age, not the document's). Who may not gamble comes
from ``staff_registered`` (the Board's register: the licensee's employees and directors, the
Board's inspectors, and the peer casinos' employees and directors, each with their casino)
and from everyone who came on shift.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial

from twin.compliance.registry import Checker, Kind, control
from twin.door.params import ADMISSION_MIN_AGE
from twin.door.records import (
    S26,
    BoardNotified,
    CasinoLicensed,
    EntrantPlayed,
    EntryAdmitted,
    GamingAreaDeclared,
    IdChecked,
    NoticeCopied,
    PersonListed,
    PersonRecognised,
    SelfExclusionRequested,
    StaffRegistered,
    VisitAuthorised,
)
from twin.machines.events import MachineInstalled
from twin.patrons.records import PatronArrived, SessionStarted
from twin.records import Record

T = "tests/test_entrance.py::"
P = "tests/test_door_policy.py::"
LISTING = ("person_listed", "self_exclusion_requested", "id_checked")


class Listing:
    """Who is a person of s.26 of the Act, and since which record (its seq)."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        self.why: dict[str, tuple[str, int]] = {}  # person -> (category, seq that shows it)

    def accept(self, rec: Record) -> None:
        if isinstance(rec, PersonListed):
            self.why.setdefault(rec.person, (rec.category, rec.seq))
        elif isinstance(rec, SelfExclusionRequested):
            self.why.setdefault(rec.person, ("self_excluded", rec.seq))
        elif isinstance(rec, IdChecked) and 0 <= rec.age < int(
            self.checker.ctx.rule(ADMISSION_MIN_AGE)
        ):  # the age on the document the door checked: all the casino knows of it
            self.why.setdefault(rec.person, ("under_age", rec.seq))

    def get(self, person: str) -> tuple[str, int] | None:
        return self.why.get(person)


@control(
    "MT98.R20.1",
    kind=Kind.RUNTIME,
    title="Barred persons kept out of the gaming area",
    reads=(
        *LISTING,
        "patron_arrived",
        "gaming_area_declared",
        "machine_installed",
        "entry_admitted",
        "session_started",
        "entrant_played",
        "person_recognised",
    ),
    params=(ADMISSION_MIN_AGE.key,),
    test=T + "test_injection_finds_exactly_its_control[R20.1]",
    checks={
        "the approved layout marks the gaming area, and every gaming machine stands in it "
        "(not in a bar or restaurant zone)": T + "test_machine_outside_the_gaming_area",
        "no person of s.26 (under age, barred under the Act, self-excluded) is admitted to the "
        "gaming area": T + "test_injection_finds_exactly_its_control[R20.1]",
        "... nor present in it (a slot session, play) at any time, whatever the door checked": T
        + "test_unidentified_entrant",
        "a person who entered on another person's identity document is found when the casino's "
        "surveillance recognises them inside (person_recognised), never from the twin's truth "
        "(document_borrowed)": T + "test_injection_finds_exactly_its_control[R20.1]",
        "bars and restaurants are outside the gaming area (reg 20(2)): being there is not "
        "being in the gaming area": T + "test_injection_finds_exactly_its_control[R24.2]",
    },
    unchecked=(
        "table games' allocation in the gaming area: the pit's tables are not in the door's "
        "layout record (the pit's own checks)",
        "'unless otherwise declared by the Board': no Board declaration of a bar as gaming "
        "area is modelled",
        "the categories of s.26 of the Act (not in the text) are read as under age, barred "
        "under the Act and self-excluded (admission_min_age_years is a reading)",
        "under age is known only from the age on a document the door checked: a minor who "
        "came in unchecked, or on an adult's document and was never recognised, is not found "
        "(the casino could not know; reg 45 finds the unchecked entry)",
        "a casino whose layout declares no gaming area (no [entrance] in the twin) is not "
        "checked: nothing marks where the gaming area is (not exercised, not clean)",
    ),
    observes=(),
    needs="a gaming area declared by the approved layout, and a machine or a person in it",
)
class GamingAreaKeptClear(Checker):
    def setup(self) -> None:
        self.listing = Listing(self)
        self.home = ""
        self.gaming: frozenset[str] = frozenset()
        self.other: frozenset[str] = frozenset()
        self.declared = -1
        self.machines: list[MachineInstalled] = []
        self.entered: dict[str, int] = {}  # person -> seq of their latest arrival or entry

    def on_record(self, rec: Record) -> None:
        self.listing.accept(rec)
        if isinstance(rec, GamingAreaDeclared):
            self.home, self.declared = rec.casino, rec.seq
            self.gaming, self.other = frozenset(rec.gaming_zones), frozenset(rec.other_zones)
            for m in self.machines:
                self.placed(m)
        elif isinstance(rec, MachineInstalled):
            self.machines.append(rec)
            if self.declared >= 0:
                self.placed(rec)
        elif not self.home:
            return
        elif isinstance(rec, PatronArrived):
            self.entered[rec.patron] = rec.seq
        elif isinstance(rec, EntryAdmitted):
            if rec.casino == self.home:
                self.entered[rec.person] = rec.seq
                if rec.area not in self.other and rec.area != "premises":
                    self.present(rec.person, rec, "admitted to")
        elif isinstance(rec, SessionStarted):
            self.present(rec.patron, rec, f"playing machine {rec.machine} in")
        elif isinstance(rec, EntrantPlayed) and rec.casino == self.home:
            self.present(rec.person, rec, f"playing {rec.game} in")
        elif (
            isinstance(rec, PersonRecognised)
            and rec.casino == self.home
            and rec.area not in self.other
            and rec.area != "premises"
        ):
            doing = f"recognised (admitted as {rec.entered_as}) in"
            self.present(rec.person, rec, doing, rec.entered_as)

    def placed(self, m: MachineInstalled) -> None:
        self.observed()  # a machine's place checked against the declared gaming area
        if m.zone not in self.gaming or m.zone in self.other:
            self.report_once(
                ("zone", m.machine),
                (m.machine,),
                f"machine {m.machine} stands in zone {m.zone!r}, outside the gaming area of "
                f"the approved layout ({', '.join(sorted(self.gaming))})",
                (self.declared, m.seq),
            )

    def present(self, person: str, rec: Record, doing: str, entered_as: str = "") -> None:
        self.observed()  # a person in the declared gaming area, checked against s.26
        why = self.listing.get(person)
        if why is None:
            return
        category, seq = why
        entry = self.entered.get(entered_as or person)
        self.report_once(
            (person, entry),
            (person, self.home),
            f"{person} ({category.replace('_', ' ')}) was {doing} the gaming area of {self.home}",
            tuple(s for s in (seq, entry, rec.seq) if s is not None),
        )


@control(
    "MT98.R24.2",
    kind=Kind.RUNTIME,
    title="Barred persons not admitted to casino premises",
    reads=(*LISTING, "patron_arrived", "casino_licensed", "entry_admitted", "session_started"),
    params=(ADMISSION_MIN_AGE.key,),
    test=T + "test_injection_finds_exactly_its_control[R24.2]",
    checks={
        "knowingly: no casino's door admits anyone (to any part of the premises, a bar "
        "included) whom its id check found to be of s.26": T
        + "test_injection_finds_exactly_its_control[R24.2]",
        "recklessly: this casino's door admits no one whose checked document shows an age "
        "under the ruleset's, or whom the Board's list names, whatever its own procedure "
        "looked at (a door policy looser than the law)": "tests/test_door_policy.py::"
        "test_a_door_that_admits_from_16_is_found_on_each_admitted_minor",
        "recklessly: a person of s.26 let in (an admission or a slot session) with no id "
        "check of that person at that door (anyone else let in unidentified is reg 45's "
        "finding, MT98.R45)": T + "test_unidentified_entrant",
        "a person of s.26 who arrives and plays a machine with no id check at the door is "
        "found (each arrival needs its own check)": T + "test_unidentified_entrant",
    },
    unchecked=(
        "'allow to remain': in the twin no one becomes listed while inside (requests are made "
        "at a door before admission; a peer's copy names a member drawn among those outside), "
        "and the records of leaving the premises are not complete (a table visit ends in the "
        "pit's records)",
    ),
    observes=("entry_admitted",),
    needs="a person admitted at a door, or a visitor of a casino with a door who played",
)
class ListedKeptOut(Checker):
    def setup(self) -> None:
        self.listing = Listing(self)
        self.board: dict[str, tuple[str, int]] = {}  # the Board's list: person -> (category, seq)
        self.home = ""
        self.checked: dict[tuple[str, str], IdChecked] = {}  # (casino, person) -> latest
        self.arrived: dict[str, int] = {}  # person -> arrival seq, until its id check

    def on_record(self, rec: Record) -> None:
        self.listing.accept(rec)
        if isinstance(rec, PersonListed):
            self.board.setdefault(rec.person, (rec.category, rec.seq))
        elif isinstance(rec, CasinoLicensed):
            if rec.home:
                self.home = rec.casino
        elif isinstance(rec, IdChecked):
            self.checked[(rec.casino, rec.person)] = rec
            if rec.casino == self.home:
                self.arrived.pop(rec.person, None)
        elif isinstance(rec, PatronArrived):
            if self.home:
                self.arrived[rec.patron] = rec.seq
        elif isinstance(rec, EntryAdmitted):
            idc = self.checked.get((rec.casino, rec.person))
            if idc is None or idc.t != rec.t:
                self.unidentified(rec.person, rec.casino, rec)
                return
            known = [c for c in idc.found if c in S26]
            if known:
                self.report(
                    (rec.person, rec.casino),
                    f"{rec.casino}'s door found {rec.person} {', '.join(known)} and let them "
                    f"into the {rec.area} all the same",
                    (idc.seq, rec.seq),
                )
            elif rec.casino == self.home:
                self.reckless(rec, idc)
        elif isinstance(rec, SessionStarted):
            if self.home:
                self.observed()  # a session of a casino with a door: was its player let in?
            seq = self.arrived.pop(rec.patron, None)
            if seq is not None:
                self.unidentified(rec.patron, self.home, rec, seq)

    def reckless(self, rec: EntryAdmitted, idc: IdChecked) -> None:
        """This casino's door let in a person of s.26 whom its id check did not find but could
        have: the document it read shows an age under the ruleset's, or the Board's list names
        the person (a door whose own procedure is looser than the law)."""
        least = int(self.ctx.rule(ADMISSION_MIN_AGE))
        shown: list[str] = []
        evidence = [idc.seq, rec.seq]
        if 0 <= idc.age < least:
            shown.append(f"a document of age {idc.age} (the law: {least})")
        listed = self.board.get(rec.person)
        if listed is not None:
            shown.append(f"{listed[0].replace('_', ' ')} on the Board's list")
            evidence.append(listed[1])
        if shown:
            self.report(
                (rec.person, rec.casino),
                f"{rec.casino}'s door let {rec.person} into the {rec.area} although its id "
                f"check had {' and '.join(shown)} before it (checked: "
                f"{', '.join(idc.checked) or 'nothing'})",
                tuple(evidence),
            )

    def unidentified(self, person: str, casino: str, rec: Record, *more: int) -> None:
        why = self.listing.get(person)
        if why is None:
            return  # no one of s.26: an unidentified entrant is reg 45's (MT98.R45)
        self.report(
            (person, casino),
            f"{person} ({why[0].replace('_', ' ')}) went in at {casino} with no id check at "
            "the door",
            (*more, why[1], rec.seq),
        )


@control(
    "MT98.R24.3",
    kind=Kind.RUNTIME,
    title="Self-exclusion requests: notify everyone immediately",
    reads=(
        "casino_licensed",
        "self_exclusion_requested",
        "board_notified",
        "notice_copied",
        "id_checked",
        "entry_admitted",
    ),
    test=T + "test_injection_finds_exactly_its_control[R24.3]",
    checks={
        "on a written request, the Board is notified in writing at the same instant": T
        + "test_notice_parts",
        "a copy goes to every other casino licensee of the scenario, in writing, at the same "
        "instant": T + "test_injection_finds_exactly_its_control[R24.3]",
        "a licensee whose own procedure notifies the Board and copies the others later is "
        "found on each request made to it": P
        + "test_a_licensee_that_copies_late_is_found_on_each_request",
        "then no casino admits the person (an admission by a door that did not know: the "
        "notice failed it; one that knew is reg 24(2))": T
        + "test_injection_finds_exactly_its_control[R24.3]",
    },
    unchecked=(
        "'every other casino licensee in Malta' is the scenario's [[entrance.peers]]",
        "a request not in writing sets off no duty under 24(3); the twin's requests are all "
        "in writing",
        "the notice's contents (beyond naming the person and the request) are not modelled",
    ),
)
class SelfExclusionNotified(Checker):
    def setup(self) -> None:
        self.casinos: list[str] = []
        self.requests: dict[int, SelfExclusionRequested] = {}
        self.board: dict[int, list[BoardNotified]] = defaultdict(list)
        self.copies: dict[int, list[NoticeCopied]] = defaultdict(list)
        self.since: dict[str, int] = {}  # person -> seq of their first request
        self.checked: dict[tuple[str, str], IdChecked] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicensed):
            self.casinos.append(rec.casino)
        elif isinstance(rec, SelfExclusionRequested):
            if not rec.in_writing:
                return
            self.requests[rec.seq] = rec
            self.since.setdefault(rec.person, rec.seq)
            self.ctx.after(0.0, partial(self.notified, rec.seq))
        elif isinstance(rec, BoardNotified):
            self.board[rec.request].append(rec)
        elif isinstance(rec, NoticeCopied):
            self.copies[rec.request].append(rec)
        elif isinstance(rec, IdChecked):
            self.checked[(rec.casino, rec.person)] = rec
        elif isinstance(rec, EntryAdmitted):
            seq = self.since.get(rec.person)
            if seq is None:
                return
            idc = self.checked.get((rec.casino, rec.person))
            if idc is not None and idc.t == rec.t and "self_excluded" in idc.found:
                return  # the door knew: reg 24(2)
            self.report(
                (rec.person, rec.casino),
                f"{rec.person} asked for self-exclusion at "
                f"{self.requests[seq].casino} and was admitted at {rec.casino} afterwards",
                (seq, rec.seq),
            )

    def notified(self, seq: int) -> None:
        req = self.requests[seq]
        wrong: list[str] = []
        board = [b for b in self.board.get(seq, ()) if b.t == req.t and b.in_writing]
        if not board:
            wrong.append("the Board was not notified in writing at once")
        sent = {c.to_casino for c in self.copies.get(seq, ()) if c.t == req.t and c.in_writing}
        missing = [c for c in self.casinos if c != req.casino and c not in sent]
        if missing:
            wrong.append(f"no copy went at once to {', '.join(missing)}")
        if wrong:
            self.report(
                (req.person, req.casino, *missing),
                f"{req.casino} received {req.person}'s written self-exclusion request: "
                + "; ".join(wrong),
                (seq,),
            )


@control(
    "MT98.R24.1",
    kind=Kind.RUNTIME,
    title="Licensee, directors, employees and inspectors may not gamble",
    reads=("staff_registered", "entrant_played", "session_started"),
    test=T + "test_injection_finds_exactly_its_control[R24.1]",
    checks={
        "no director, employee or Board inspector plays in this casino or any peer": T
        + "test_injection_finds_exactly_its_control[R24.1]",
        "off-duty staff who try are refused (no finding on the default scenario)": T
        + "test_staff_attempts_are_refused_and_visits_authorised",
        "a peer casino's employee or director (on the Board's register: staff_registered "
        "with the peer's casino) who plays here is found on each play": P
        + "test_a_door_that_skips_the_staff_register_lets_peer_staff_play",
    },
    unchecked=(
        "the exceptions (a) and (b) (play in the performance of functions or the course of "
        "employment): the twin models no such play, so none is exempted",
        "'a casino licensee' as a legal person: its directors stand for it",
        "Board inspectors posted at the peers are not on the register (the twin gives the "
        "peers employees and directors only)",
    ),
)
class StaffNeverGamble(Checker):
    def setup(self) -> None:
        self.register: dict[str, tuple[str, int]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, StaffRegistered):
            self.register[rec.person] = (rec.category, rec.seq)
            return
        person = rec.entity("person") if isinstance(rec, EntrantPlayed) else rec.entity("patron")
        category, seq = self.register.get(person, ("", -1))
        if not category and person in self.ctx.roles:
            category = "inspector" if self.ctx.is_inspector(person) else "employee"
        if not category:
            return
        where = rec.casino if isinstance(rec, EntrantPlayed) else "this casino's slot floor"
        self.report(
            (person,),
            f"{person} ({category}) took part in gaming at {where}",
            tuple(s for s in (seq, rec.seq) if s >= 0),
        )


@control(
    "MT98.R24.4",
    kind=Kind.RUNTIME,
    title="Employees visit other casinos only with prior authorisation",
    reads=("staff_registered", "visit_authorised", "entry_admitted"),
    test=T + "test_injection_finds_exactly_its_control[R24.4]",
    checks={
        "every entry of a licensee's employee at another casino follows an authorisation "
        "of that licensee for that casino, given before the visit (one visit each)": T
        + "test_injection_finds_exactly_its_control[R24.4]",
        "a licensee whose own procedure sends its employees to peers with no authorisation "
        "is found on each visit": P + "test_unauthorised_peer_visits_are_found_on_each_visit",
        "a peer's employee (the Board's register names their casino) let in here with no "
        "authorisation of their licensee is found": P
        + "test_a_door_that_skips_the_staff_register_lets_peer_staff_play",
    },
    unchecked=(
        "'the prior authorisation of the casino licensee' is read as the employee's own "
        "licensee's (the twin records no authorisation by the casino visited)",
        "who authorised ('any person acting on his behalf'): the authorisation record is "
        "the licensee's; its signatory is not checked",
        "Board inspectors and directors are not casino employees: their visits are not "
        "checked here",
    ),
)
class EmployeeVisitsAuthorised(Checker):
    def setup(self) -> None:
        self.employer: dict[str, str] = {}
        self.authorised: dict[tuple[str, str], list[int]] = defaultdict(list)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, StaffRegistered):
            if rec.category == "employee":
                self.employer[rec.person] = rec.casino
        elif isinstance(rec, VisitAuthorised):
            if self.employer.get(rec.employee) == rec.casino:
                self.authorised[(rec.employee, rec.to_casino)].append(rec.seq)
        elif isinstance(rec, EntryAdmitted):
            home = self.employer.get(rec.person)
            if home is None or rec.casino == home:
                return
            granted = self.authorised.get((rec.person, rec.casino))
            if granted:
                granted.pop(0)
                return
            self.report(
                (rec.person, rec.casino),
                f"{home}'s employee {rec.person} visited {rec.casino} with no prior authorisation",
                (rec.seq,),
            )
