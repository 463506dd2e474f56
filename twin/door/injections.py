"""Injected violations at the entrance (regs 20 and 24), each producing exactly its finding.

``target`` names the person (or, for a late notice, the peer casino); without it the
injection picks one deterministically. Every kind needs an ``[entrance]`` section (checked
before t = 0, with its target).
"""

from __future__ import annotations

from twin.department import Site, Venue
from twin.door.model import Door
from twin.errors import InputError
from twin.injections import InjectViolation, injection


def _listed(door: Door) -> str | None:
    """The first member on the Board's list (barred or self-excluded), if any."""
    people = door.people
    for i in range(people.size):
        m = people.member(i)
        if m.barred or m.self_excluded:
            return m.id
    return None


def _unlisted(door: Door, purpose: str) -> str:
    """A member not inside the casino, not listed and of age (the stream ("entrance",
    "inject:<purpose>"), so the run's other draws are untouched)."""
    rng = door.world.streams.stream("entrance", f"inject:{purpose}")
    for _ in range(10_000):
        i = door.people.pick_outside(rng)
        if i is None:
            break
        m = door.people.member(i)
        listed = m.barred or m.self_excluded
        if listed or m.age < door.admission_age:
            continue
        if not any(m.id in c.excluded for c in door.casinos.values()):
            return m.id
    raise RuntimeError("no member outside who could be admitted")


def _staff(door: Door) -> str:
    directors = door.config.directors
    return directors[0] if directors else door.employees()[0]


@injection(
    "entrance_admit_listed",
    "a listed member (target, default the first barred or self-excluded member) comes to the "
    "door; the id check finds them listed and the door lets them into a bar all the same "
    "(MT98.R24.2)",
    needs=(),
)
def _admit_listed(venue: Venue, inj: InjectViolation) -> None:
    door = venue.find(Door)
    if door is None:
        return
    person = inj.target or _listed(door)
    assert person is not None
    venue.env.process(door.let_listed_into_bar(person))


@injection(
    "entrance_borrowed_id",
    "a listed member (target, default the first barred or self-excluded member) shows another "
    "member's identity document, passes the door as that member and plays in the gaming area; "
    "surveillance recognises them 10 minutes later (MT98.R20.1)",
    needs=(),
)
def _borrowed_id(venue: Venue, inj: InjectViolation) -> None:
    door = venue.find(Door)
    if door is None:
        return
    person = inj.target or _listed(door)
    assert person is not None
    venue.env.process(door.borrowed_document(person, _unlisted(door, "document")))


@injection(
    "entrance_late_notice",
    "a member asks this casino in writing for self-exclusion; the copy of the notice to the peer "
    "(target, default the first peer) is sent `amount` minutes late (0: never), and meanwhile "
    "the member is admitted at that peer (MT98.R24.3)",
    needs=(),
)
def _late_notice(venue: Venue, inj: InjectViolation) -> None:
    door = venue.find(Door)
    if door is None:
        return
    peer = inj.target or door.config.peers[0].id
    venue.env.process(door.late_copy(_unlisted(door, "request"), peer, inj.amount))


@injection(
    "entrance_staff_plays",
    "someone who may not gamble (target: an employee, inspector or director; default the "
    "first director, else the first employee) is let in at this casino's door and plays "
    "(MT98.R24.1)",
    needs=(),
)
def _staff_plays(venue: Venue, inj: InjectViolation) -> None:
    door = venue.find(Door)
    if door is None:
        return
    door.staff_at_door(door.home, inj.target or _staff(door), plays=True)


@injection(
    "entrance_unauthorised_visit",
    "an employee (target, default the first employee) visits the first peer casino with no "
    "authorisation of the licensee (MT98.R24.4)",
    needs=(),
)
def _unauthorised_visit(venue: Venue, inj: InjectViolation) -> None:
    door = venue.find(Door)
    if door is None:
        return
    peer = door.casinos[door.config.peers[0].id]
    door.employee_visit(peer, inj.target or door.employees()[0])


KINDS = (
    "entrance_admit_listed",
    "entrance_borrowed_id",
    "entrance_late_notice",
    "entrance_staff_plays",
    "entrance_unauthorised_visit",
)


def validate(site: Site) -> None:
    """Check the entrance's ``[[inject]]`` entries before t = 0 (one precise error)."""
    door, source = site.find(Door), site.source
    for i, inj in enumerate(site.scenario.inject):
        if inj.kind not in KINDS:
            continue
        key = f"inject[{i}]"
        if door is None:
            raise InputError(source, f"{key}.kind", f"an [entrance] section for {inj.kind}",
                             inj.kind)  # fmt: skip
        members = {door.people.member(j).id: j for j in range(door.people.size)}
        peers = [p.id for p in door.config.peers]
        kind, target = inj.kind, inj.target
        if kind in ("entrance_admit_listed", "entrance_borrowed_id"):
            if kind == "entrance_admit_listed" and not door.config.non_gaming_zones:
                raise InputError(source, "entrance.non_gaming_zones",
                                 f"a bar or restaurant zone for {kind}", [])  # fmt: skip
            if target is None:
                if _listed(door) is None:
                    raise InputError(source, f"{key}.target",
                                     "a barred or self-excluded member (the population has "
                                     "none: raise self_excluded_share)", None)  # fmt: skip
            else:
                m = door.people.member(members[target]) if target in members else None
                if m is None or not (m.barred or m.self_excluded):
                    raise InputError(source, f"{key}.target",
                                     "a barred or self-excluded member", target)  # fmt: skip
        elif kind in ("entrance_late_notice", "entrance_unauthorised_visit"):
            if not peers:
                raise InputError(source, "entrance.peers", f"a peer casino for {kind}", [])
            if kind == "entrance_late_notice":
                if target is not None and target not in peers:
                    raise InputError(source, f"{key}.target", f"a peer ({', '.join(peers)})",
                                     target)  # fmt: skip
                if inj.amount < 0:
                    raise InputError(source, f"{key}.amount", "minutes >= 0", inj.amount)
            elif target is not None and door.register.get(target) != "employee":
                raise InputError(source, f"{key}.target", "an employee of the licensee",
                                 target)  # fmt: skip
            elif target is None and not door.employees():
                raise InputError(source, f"{key}.target", "an employee (the roster has none)",
                                 None)  # fmt: skip
        elif kind == "entrance_staff_plays":
            if target is not None and target not in door.register:
                raise InputError(source, f"{key}.target",
                                 "an employee, inspector or director", target)  # fmt: skip
            if target is None and not door.register:
                raise InputError(source, f"{key}.target", "someone on the staff register",
                                 None)  # fmt: skip


__all__ = ["KINDS", "validate"]
