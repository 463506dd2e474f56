"""The entrance (regs 20 and 24): every entrant identified, refused with the reason or let in.

One ``Door`` department holds the door of this licensee's casino and those of the peer
casinos of the scenario (other licensees in Malta under the same Board). Each casino keeps
its own self-exclusion list; the Board's list of persons barred under the Act and of those
self-excluded before the run is known to every door from the start.

- A population member's visit to this casino passes ``Door.admit`` (the Hall hook): the door
  checks the document's age against ``admission_min_age_years``, the Board's list, its own
  self-exclusion list and the register of those who may not gamble, and refuses with the
  reason or admits to the gaming area. A member not excluded may hand in a written
  self-exclusion request (``self_exclusion_requests_per_1000_visits``): the licensee
  notifies the Board in writing and sends a copy to every other casino at the same instant;
  each puts the person on its list on receipt, and the person is refused at every door from
  then on.
- Each peer's door sees a share of the population's visits (``visits_per_hour`` while the
  floor is open; members not inside this casino), with the same checks and requests.
- Off-duty employees, inspectors and the licensee's directors now and then try to enter a
  casino as players (``staff_play_attempts_per_day``): the door refuses them (reg 24(1)).
  Each peer has employees and directors of its own on the Board's register (``employees``,
  ``directors`` of ``[[entrance.peers]]``), who now and then try to play at this casino (the
  peer's ``staff_play_attempts_per_day``); this door finds them on that register.
- Employees visit peers only with the licensee's prior written authorisation
  (``authorised_visits_per_day``, ``authorisation_hours`` ahead; reg 24(4)).

This casino's door and licensee follow ``[entrance.policy]`` (issue 34): the admission age
and what the id check looks at, how long the notice of a written self-exclusion request made
here takes to reach the Board and the other licensees (``copy_notice_minutes``), and whether
employees' visits to peers are authorised beforehand (``peer_visits``). The peers follow the
law.

Draws: the stream ("entrance", <purpose>) and, per peer, (peer id, <purpose>); never a
visitor's own stream, so the slot floor's draws are untouched. The population is read
through :class:`People` (``twin.patrons.population.Population`` is one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import simpy

from twin.door.records import (
    BoardNotified,
    CasinoLicensed,
    DocumentBorrowed,
    EntrantPlayed,
    EntrantWaiting,
    EntryAdmitted,
    EntryRefused,
    GamingAreaDeclared,
    IdChecked,
    NoticeCopied,
    PersonListed,
    PersonRecognised,
    SelfExclusionRequested,
    StaffRegistered,
    VisitAuthorised,
)
from twin.door.section import DOOR_CHECKS, EntranceConfig
from twin.errors import InputError
from twin.records import Record
from twin.staff import Dispatcher
from twin.world import World, quantize

Proc = Generator[simpy.events.Event, Any, Any]

#: What a door checks of every entrant (an id check record lists these).
CHECKED: tuple[str, ...] = DOOR_CHECKS
#: The order in which reasons are given (the first found is the refusal's reason).
ORDER = ("under_age", "barred", "self_excluded", "employee", "inspector", "director")
#: The area a player is admitted to.
GAMING = "gaming"
#: How long a person let into a bar by an injection stays (seconds).
BAR_STAY = 1800.0
#: how long after admission the casino's surveillance recognises a person who came in on
#: another person's identity document (the injection ``entrance_borrowed_id``)
RECOGNISED_AFTER = 600.0


class Person(Protocol):
    """A member of the population as the door sees them."""

    @property
    def id(self) -> str: ...
    @property
    def age(self) -> int: ...
    @property
    def self_excluded(self) -> bool: ...
    @property
    def barred(self) -> bool: ...


class People(Protocol):
    """The population: members by index, and a pick among those not inside this casino."""

    @property
    def size(self) -> int: ...

    def member(self, index: int) -> Person: ...

    def index_of(self, person: str) -> int | None:
        """The index of the member with id ``person`` (None: not of the population)."""
        ...

    def listed(self) -> list[int]:
        """The indices, in order, of the members barred or self-excluded."""
        ...

    def pick_outside(self, rng: np.random.Generator) -> int | None: ...


class Entrant(Protocol):
    """A visit at the door (``twin.patrons.venue.Visitor``)."""

    @property
    def id(self) -> str: ...
    @property
    def visit_number(self) -> int: ...


@dataclass
class Waiting:
    """An entrant waiting for the operator: their visit, and what the id check found (None
    before the operator checked the document)."""

    done: simpy.events.Event
    visit: int
    found: tuple[str, ...] | None = None


@dataclass
class CasinoDoor:
    """One casino's door: its id and its own self-exclusion list (from requests it received
    and notices it was sent)."""

    id: str
    home: bool
    visits_per_hour: float = 0.0
    excluded: set[str] = field(default_factory=set)


class Door:
    """The entrance department: this casino's door and its peers' (see the module doc)."""

    name = "entrance"

    def __init__(
        self,
        world: World,
        config: EntranceConfig,
        people: People,
        staff: Dispatcher,
        *,
        admission_age: int,
        gaming_zones: Sequence[str],
        source: str,
    ) -> None:
        self.world = world
        self.config = config
        self.people = people
        self.staff = staff
        # this casino's door follows its own policy (issue 34), whose default is the law
        # (``admission_age``: the ruleset's); the peers' doors follow the law
        policy = config.policy
        self.law_age = admission_age
        self.admission_age = (
            admission_age
            if policy.admission_min_age_years is None
            else policy.admission_min_age_years
        )
        self.checks = tuple(c for c in CHECKED if c in policy.checks)
        self.gaming_zones = tuple(sorted(set(gaming_zones)))
        for i, zone in enumerate(config.non_gaming_zones):
            if zone in self.gaming_zones:
                raise InputError(
                    source,
                    f"entrance.non_gaming_zones[{i}]",
                    "a zone outside the gaming area (a bank's zone is gaming area: "
                    f"{', '.join(self.gaming_zones)})",
                    zone,
                )
        for i, d in enumerate(config.directors):
            if d in staff.members:
                raise InputError(
                    source,
                    f"entrance.directors[{i}]",
                    "a director's id that is not a staff member's",
                    d,
                )
        self.home = CasinoDoor(config.casino, True)
        self.casinos: dict[str, CasinoDoor] = {self.home.id: self.home}
        for p in config.peers:
            self.casinos[p.id] = CasinoDoor(p.id, False, p.visits_per_hour)
        #: who may not gamble: person -> category (employee, inspector, director)
        self.register: dict[str, str] = {}
        for mid, m in sorted(staff.members.items()):
            employer = staff.roles[m.role].employer
            self.register[mid] = "inspector" if employer == "board" else "employee"
        for d in config.directors:
            self.register[d] = "director"
        #: the peers' employees and directors: peer id -> their ids (the Board's register)
        self.peer_staff: dict[str, tuple[str, ...]] = {}
        #: the Board's register of every casino's staff: person -> category
        self.board_register: dict[str, str] = dict(self.register)
        for i, p in enumerate(config.peers):
            staff_of = peer_staff(p.id, p.employees, p.directors)
            for person, category in staff_of:
                if person in self.board_register:
                    raise InputError(
                        source,
                        f"entrance.peers[{i}].id",
                        "a peer id whose staff ids (<id>-E0001, <id>-D01) are not already "
                        "this casino's staff, directors or another peer's",
                        p.id,
                    )
                self.board_register[person] = category
            self.peer_staff[p.id] = tuple(person for person, _ in staff_of)
        policy_visits = policy.peer_visits
        self.visits_authorised = policy_visits == "authorised"
        self.visits_made = policy_visits != "none"
        self.notice_minutes = policy.copy_notice_minutes
        self.request_share = config.self_exclusion_requests_per_1000_visits / 1000.0
        streams = world.streams
        self._requests = streams.stream("entrance", "requests")
        self._staff_rng = streams.stream("entrance", "staff_attempts")
        self._visits_rng = streams.stream("entrance", "employee_visits")
        #: entries by casino, refusals by (casino kind, reason): kept for tests and summaries
        self.counts: Counter[str] = Counter()
        #: injected (twin.aml.injections): the next visitor admitted here is let in unidentified
        self.unidentified_next = False
        #: entrants waiting for the operator ([entrance] operator): person -> their wait
        self.waiting: dict[str, Waiting] = {}

    # -- the department ----------------------------------------------------------------------
    def start(self) -> None:
        """At t = 0: the casinos, the layout, the Board's list and the register; then the
        peers' doors, staff attempts and employees' visits."""
        bus = self.world.bus
        env = self.world.env
        for c in self.casinos.values():
            bus.emit(CasinoLicensed, casino=c.id, home=c.home)
        bus.emit(
            GamingAreaDeclared,
            casino=self.home.id,
            gaming_zones=self.gaming_zones,
            other_zones=tuple(self.config.non_gaming_zones),
        )
        people = self.people
        for i in people.listed():
            m = people.member(i)
            if m.barred:
                bus.emit(PersonListed, person=m.id, category="barred")
            if m.self_excluded:
                bus.emit(PersonListed, person=m.id, category="self_excluded")
        for pid, category in self.register.items():
            role = self.staff.members[pid].role if pid in self.staff.members else "director"
            bus.emit(StaffRegistered, person=pid, casino=self.home.id, category=category, role=role)
        for peer, ids in self.peer_staff.items():
            for pid in ids:
                category = self.board_register[pid]
                bus.emit(StaffRegistered, person=pid, casino=peer, category=category,
                         role=category)  # fmt: skip
        for c in self.casinos.values():
            if not c.home and c.visits_per_hour > 0:
                env.process(self.peer_arrivals(c))
        if self.config.staff_play_attempts_per_day > 0 and self.register:
            env.process(self.staff_attempts())
        for p in self.config.peers:
            if p.staff_play_attempts_per_day > 0:
                env.process(self.peer_staff_attempts(p.id, p.staff_play_attempts_per_day))
        if self.config.authorised_visits_per_day > 0 and len(self.casinos) > 1 and self.visits_made:
            env.process(self.employee_visits())

    def finish(self) -> None:
        """Nothing is due at the end of a run."""

    # -- identification ----------------------------------------------------------------------
    def member(self, person: str) -> Person | None:
        i = self.people.index_of(person)
        return None if i is None else self.people.member(i)

    def looks_at(self, casino: CasinoDoor) -> tuple[str, ...]:
        """What ``casino``'s door checks: this casino's, its policy's; a peer's, everything."""
        return self.checks if casino.home else CHECKED

    def check(self, casino: CasinoDoor, person: str, purpose: str) -> tuple[str, ...]:
        """The categories the door finds for ``person`` (document and lists), looking only
        at what its procedure checks."""
        found: list[str] = []
        looks = self.looks_at(casino)
        age = self.admission_age if casino.home else self.law_age
        m = self.member(person)
        excluded = "exclusion_list" in looks and person in casino.excluded
        if m is not None:
            if "document_age" in looks and m.age < age:
                found.append("under_age")
            if "board_list" in looks and m.barred:
                found.append("barred")
            if ("board_list" in looks and m.self_excluded) or excluded:
                found.append("self_excluded")
        elif excluded:
            found.append("self_excluded")
        if purpose == "play" and "staff_register" in looks and person in self.board_register:
            found.append(self.board_register[person])
        return tuple(found)

    def identify(
        self,
        casino: CasinoDoor,
        person: str,
        visit: int,
        purpose: str,
        document: str | None = None,
    ) -> tuple[str, ...]:
        """Check ``document`` (default: the person's own) and record the id check."""
        doc = person if document is None else document
        found = self.check(casino, doc, purpose)
        m = self.member(doc)
        self.world.bus.emit(
            IdChecked,
            casino=casino.id,
            person=person,
            document=doc,
            visit=visit,
            purpose=purpose,
            age=-1 if m is None else m.age,
            checked=self.looks_at(casino),
            found=found,
        )
        return found

    def refuse(self, casino: CasinoDoor, person: str, visit: int, found: tuple[str, ...]) -> None:
        reason = min(found, key=ORDER.index)
        self.counts[f"refused:{reason}"] += 1
        self.world.bus.emit(EntryRefused, casino=casino.id, person=person, visit=visit,
                            reason=reason)  # fmt: skip

    def let_in(self, casino: CasinoDoor, person: str, visit: int, purpose: str, area: str) -> None:
        self.counts[f"admitted:{casino.id}"] += 1
        self.world.bus.emit(EntryAdmitted, casino=casino.id, person=person, visit=visit,
                            purpose=purpose, area=area)  # fmt: skip

    def wants_exclusion(self, casino: CasinoDoor) -> bool:
        """Does this entrant (not excluded) hand in a written self-exclusion request?"""
        if self.request_share <= 0:
            return False
        rng = self._requests if casino.home else self.world.streams.stream(casino.id, "requests")
        return bool(rng.random() < self.request_share)

    # -- this casino's door (the Hall hook) ---------------------------------------------------
    def admit(self, visitor: Entrant) -> Generator[simpy.events.Event, Any, bool]:
        """Identify a member's visit: refuse with the reason, or admit to the gaming area."""
        home = self.home
        person, visit = visitor.id, visitor.visit_number
        if "identification" in self.config.operator:  # the operator identifies and decides
            wait = self.waiting[person] = Waiting(self.world.env.event(), visit)
            self.world.bus.emit(EntrantWaiting, casino=home.id, person=person, visit=visit)
            admitted: bool = yield wait.done
            return admitted
        # injected (reg 45): a visitor the door would admit is let in with no id check
        skip = self.unidentified_next and not self.check(home, person, "play")
        found = () if skip else self.identify(home, person, visit, "play")
        if not found and self.wants_exclusion(home):
            if skip:  # a written request is taken from an identified person: not this one
                skip = False
                self.identify(home, person, visit, "play")
            self.request(home, person)
            found = ("self_excluded",)
        if found:
            self.refuse(home, person, visit, found)
            return False
        if skip:
            self.unidentified_next = False
        self.let_in(home, person, visit, "play", GAMING)
        return True
        yield  # the door takes no time: the floor's timeline is unchanged

    # -- the operator at the door (twin.door.actions) -----------------------------------------
    def refusal(self, person: str, act: str) -> str | None:
        """Why the operator may not ``act`` ("check", "admit", "refuse") on ``person`` now."""
        wait = self.waiting.get(person)
        if wait is None:
            known = ", ".join(sorted(self.waiting)) or "nobody"
            return f"{person!r} is not waiting at the door (waiting: {known})"
        if act == "check" and wait.found is not None:
            return f"{person}'s identity document was checked already"
        return None

    def check_waiting(self, person: str) -> None:
        """The operator checks the waiting entrant's document (an ``id_checked`` record)."""
        wait = self.waiting[person]
        wait.found = self.identify(self.home, person, wait.visit, "play")

    def decide(self, person: str, admit: bool) -> None:
        """The operator lets the waiting entrant in, or turns them away: for the first reason
        the id check found, "not_identified" with no id check, "door_decision" with none."""
        wait = self.waiting.pop(person)
        if admit:
            self.let_in(self.home, person, wait.visit, "play", GAMING)
        elif wait.found:
            self.refuse(self.home, person, wait.visit, wait.found)
        else:
            reason = "not_identified" if wait.found is None else "door_decision"
            self.counts[f"refused:{reason}"] += 1
            self.world.bus.emit(EntryRefused, casino=self.home.id, person=person,
                                visit=wait.visit, reason=reason)  # fmt: skip
        wait.done.succeed(admit)

    # -- self-exclusion (reg 24(3)) -----------------------------------------------------------
    def request(
        self, casino: CasinoDoor, person: str, late: dict[str, int] | None = None
    ) -> Record:
        """``person`` asks ``casino``'s licensee in writing to ban their admission: the
        licensee notifies the Board and copies every other casino at once, or, this casino's,
        after its policy's ``copy_notice_minutes`` (``late``: peer -> minutes the copy is held
        back by an injection, 0 never sent)."""
        bus = self.world.bus
        req = bus.emit(SelfExclusionRequested, casino=casino.id, person=person, in_writing=True)
        self.counts["self_exclusion_requests"] += 1
        casino.excluded.add(person)
        delay = self.notice_minutes if casino.home else 0
        if delay > 0:
            self.world.env.process(self.notify_later(casino, person, req.seq, delay))
        else:
            self.notify(casino, person, req.seq)
        for other in self.casinos.values():
            if other is casino:
                continue
            held = (late or {}).get(other.id)
            if held is None and delay > 0:
                held = delay
            if held is None:
                self.copy(casino, other, person, req.seq)
            elif held > 0:
                self.world.env.process(self.copy_later(casino, other, person, req.seq, held))
        return req

    def notify(self, casino: CasinoDoor, person: str, request: int) -> None:
        self.world.bus.emit(BoardNotified, casino=casino.id, person=person, request=request,
                            in_writing=True)  # fmt: skip

    def notify_later(self, casino: CasinoDoor, person: str, request: int, minutes: int) -> Proc:
        yield self.world.env.timeout(quantize(minutes * 60.0))
        self.notify(casino, person, request)

    def copy(self, sender: CasinoDoor, to: CasinoDoor, person: str, request: int) -> None:
        self.world.bus.emit(NoticeCopied, casino=sender.id, to_casino=to.id, person=person,
                            request=request, in_writing=True)  # fmt: skip
        to.excluded.add(person)

    def copy_later(
        self, sender: CasinoDoor, to: CasinoDoor, person: str, request: int, minutes: int
    ) -> Proc:
        yield self.world.env.timeout(quantize(minutes * 60.0))
        self.copy(sender, to, person, request)

    # -- the peers' doors -------------------------------------------------------------------
    def peer_arrivals(self, peer: CasinoDoor) -> Proc:
        """Members come to ``peer``'s door at its rate while the floor is open."""
        env = self.world.env
        clock = self.world.clock
        times = self.world.streams.stream(peer.id, "arrivals")
        who = self.world.streams.stream(peer.id, "who")
        rate = peer.visits_per_hour / 3600.0
        while True:
            yield env.timeout(quantize(times.exponential(1.0 / rate)))
            if not clock.is_open(env.now):
                continue
            index = self.people.pick_outside(who)
            if index is None:
                continue
            self.peer_visit(peer, self.people.member(index).id)

    def peer_visit(self, peer: CasinoDoor, person: str) -> bool:
        """A member at a peer's door: identified, refused or admitted (True)."""
        found = self.identify(peer, person, 0, "play")
        if not found and self.wants_exclusion(peer):
            self.request(peer, person)
            found = ("self_excluded",)
        if found:
            self.refuse(peer, person, 0, found)
            return False
        self.let_in(peer, person, 0, "play", GAMING)
        return True

    # -- those who never gamble (reg 24(1)) and employees' visits (reg 24(4)) ----------------
    def employ(self, person: str) -> None:
        """``person`` becomes one of the licensee's employees (a hire, on the day employment
        starts): on the casino's register and the Board's from now, as those on the staff at
        t = 0 are. They stay on it while suspended (still employed: they may not gamble)."""
        self.register.setdefault(person, "employee")
        self.board_register.setdefault(person, "employee")

    def off_duty(self, person: str) -> bool:
        m = self.staff.members.get(person)
        return m is None or not m.on_duty

    def staff_attempts(self) -> Proc:
        """Now and then an off-duty employee, inspector or director tries to play somewhere."""
        env = self.world.env
        rng = self._staff_rng
        mean = 86400.0 / self.config.staff_play_attempts_per_day
        people = sorted(self.register)
        casinos = sorted(self.casinos)
        while True:
            yield env.timeout(quantize(rng.exponential(mean)))
            u, v = rng.random(), rng.random()
            free = [p for p in people if self.off_duty(p)]
            if not free:
                continue
            person = free[min(int(u * len(free)), len(free) - 1)]
            casino = self.casinos[casinos[min(int(v * len(casinos)), len(casinos) - 1)]]
            self.staff_at_door(casino, person, plays=False)

    def peer_staff_attempts(self, peer: str, per_day: float) -> Proc:
        """Now and then one of ``peer``'s employees or directors tries to play at this
        casino (the stream (peer id, "staff_attempts"))."""
        env = self.world.env
        rng = self.world.streams.stream(peer, "staff_attempts")
        mean = 86400.0 / per_day
        staff = self.peer_staff[peer]
        while True:
            yield env.timeout(quantize(rng.exponential(mean)))
            u = rng.random()
            self.staff_at_door(self.home, staff[min(int(u * len(staff)), len(staff) - 1)],
                               plays=False)  # fmt: skip

    def staff_at_door(self, casino: CasinoDoor, person: str, *, plays: bool) -> None:
        """``person`` (on the register) asks to play at ``casino``: refused, unless an
        injection lets them in (``plays``), when they play."""
        found = self.identify(casino, person, 0, "play")
        if found and not plays:
            self.refuse(casino, person, 0, found)
            return
        self.let_in(casino, person, 0, "play", GAMING)
        self.world.bus.emit(EntrantPlayed, casino=casino.id, person=person, game="slots")

    def employees(self) -> list[str]:
        return sorted(p for p, c in self.register.items() if c == "employee")

    def employee_visits(self) -> Proc:
        """An off-duty employee is authorised to visit a peer, and visits it later (with no
        authorisation if the policy's ``peer_visits`` is "unauthorised": the same visits)."""
        env = self.world.env
        rng = self._visits_rng
        mean = 86400.0 / self.config.authorised_visits_per_day
        peers = sorted(c for c in self.casinos if c != self.home.id)
        staff = self.employees()
        while True:
            yield env.timeout(quantize(rng.exponential(mean)))
            u, v = rng.random(), rng.random()
            free = [p for p in staff if self.off_duty(p)]
            if not free:
                continue
            person = free[min(int(u * len(free)), len(free) - 1)]
            peer = self.casinos[peers[min(int(v * len(peers)), len(peers) - 1)]]
            if self.visits_authorised:
                self.world.bus.emit(VisitAuthorised, employee=person, casino=self.home.id,
                                    to_casino=peer.id, by="licensee")  # fmt: skip
                self.counts["visits_authorised"] += 1
            env.process(self.visit_later(peer, person))

    def visit_later(self, peer: CasinoDoor, person: str) -> Proc:
        yield self.world.env.timeout(quantize(self.config.authorisation_hours * 3600.0))
        self.employee_visit(peer, person)

    def employee_visit(self, peer: CasinoDoor, person: str) -> None:
        """An employee at a peer's door, to visit (not to play)."""
        self.identify(peer, person, 0, "visit")
        self.let_in(peer, person, 0, "visit", "premises")

    # -- injected misconduct (twin.door.injections) -----------------------------------------
    def let_listed_into_bar(self, person: str) -> Proc:
        """The door finds ``person`` listed and lets them into a bar all the same."""
        found = self.identify(self.home, person, 0, "play")
        self.let_in(self.home, person, 0, "play", self.config.non_gaming_zones[0])
        assert found  # the injection picks a listed person
        yield self.world.env.timeout(BAR_STAY)

    def borrowed_document(self, person: str, document: str) -> Proc:
        """``person`` shows ``document``'s identity document, passes as its holder, and plays;
        the casino's surveillance recognises them after ``RECOGNISED_AFTER`` seconds."""
        home = self.home.id
        self.world.bus.emit(DocumentBorrowed, casino=home, person=person, document=document)
        self.identify(self.home, document, 0, "play")  # the door sees the document only
        self.let_in(self.home, document, 0, "play", GAMING)
        self.world.bus.emit(EntrantPlayed, casino=home, person=document, game="slots")
        yield self.world.env.timeout(RECOGNISED_AFTER)
        self.world.bus.emit(PersonRecognised, casino=home, person=person, entered_as=document,
                            area=GAMING)  # fmt: skip

    def late_copy(self, person: str, peer: str, minutes: int) -> Proc:
        """``person`` asks this casino for self-exclusion; the copy to ``peer`` is held back
        ``minutes`` (0: never sent), and meanwhile the person goes to ``peer``'s door."""
        self.identify(self.home, person, 0, "play")
        self.request(self.home, person, late={peer: minutes})
        self.refuse(self.home, person, 0, ("self_excluded",))
        wait = minutes * 30.0 if minutes > 0 else 1800.0
        yield self.world.env.timeout(quantize(wait))
        self.peer_visit(self.casinos[peer], person)


def peer_staff(peer: str, employees: int, directors: int) -> list[tuple[str, str]]:
    """A peer's staff on the Board's register, (id, category): its employees
    ``<peer>-E0001``..., then its directors ``<peer>-D01``..."""
    return [(f"{peer}-E{n:04d}", "employee") for n in range(1, employees + 1)] + [
        (f"{peer}-D{n:02d}", "director") for n in range(1, directors + 1)
    ]


class EntranceKpis:
    """The KPI section "entrance", from records alone."""

    name = "entrance"
    reads: tuple[type[Record], ...] = (
        CasinoLicensed,
        EntryAdmitted,
        EntryRefused,
        SelfExclusionRequested,
        BoardNotified,
        NoticeCopied,
        VisitAuthorised,
        EntrantPlayed,
    )

    def __init__(self) -> None:
        self.home = ""
        self.entries: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()
        self.peer_refusals: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.board = 0
        self.copies = 0
        self.authorised = 0
        self.employee_visits = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicensed):
            if rec.home:
                self.home = rec.casino
        elif isinstance(rec, EntryAdmitted):
            self.entries[rec.casino] += 1
            if rec.purpose == "visit":
                self.employee_visits += 1
        elif isinstance(rec, EntryRefused):
            (self.refusals if rec.casino == self.home else self.peer_refusals)[rec.reason] += 1
        elif isinstance(rec, SelfExclusionRequested):
            self.requests[rec.casino] += 1
        elif isinstance(rec, BoardNotified):
            self.board += 1
        elif isinstance(rec, NoticeCopied):
            self.copies += 1
        elif isinstance(rec, VisitAuthorised):
            self.authorised += 1

    def report(self, end: float) -> dict[str, Any]:
        home = self.home
        if not home:
            return {}  # no [entrance] in the scenario
        return {
            "casino": home,
            "entries": self.entries.get(home, 0),
            "refusals": sum(self.refusals.values()),
            "refusals_by_reason": dict(sorted(self.refusals.items())),
            "self_exclusion_requests": sum(self.requests.values()),
            "self_exclusion_requests_here": self.requests.get(home, 0),
            "board_notices": self.board,
            "notice_copies": self.copies,
            "peer_entries": {c: n for c, n in sorted(self.entries.items()) if c != home},
            "peer_refusals_by_reason": dict(sorted(self.peer_refusals.items())),
            "visits_authorised": self.authorised,
            "employee_visits": self.employee_visits,
        }


__all__ = ["CHECKED", "CasinoDoor", "Door", "EntranceKpis", "Entrant", "People", "Person"]
