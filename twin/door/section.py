"""The ``[entrance]`` section (regs 20, 22, 24): the door, its lists and its policy.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, get_args

from pydantic import (
    Field,
    model_validator,
)

from twin.dists import expect, invalid
from twin.scenario import (
    Ident,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    _check_unique,
    _Model,
)

# -- the rest of the casino (issue 10): one section each -------------------------------------------
# [entrance] (regs 20, 22, 24)


#: The most employees or directors a peer casino may have (its register is listed at t = 0).
MAX_PEER_STAFF = 10_000
PeerStaff = Annotated[
    int,
    expect(f"an integer from 0 to {MAX_PEER_STAFF}", lambda v: 0 <= v <= MAX_PEER_STAFF),
]


class PeerCasino(_Model):
    """``[[entrance.peers]]``: another casino licensee in Malta under the same Board, with a
    door of its own that sees ``visits_per_hour`` of the population's visits while the floor
    is open (a light process: no floor of its own is simulated). Its ``employees`` and
    ``directors`` are on the Board's register of those who may not gamble (reg 24(1));
    ``staff_play_attempts_per_day`` of them, off duty, try to enter this casino as a player."""

    id: Ident
    visits_per_hour: NonNegativeFloat = 20.0
    employees: PeerStaff = 0
    directors: PeerStaff = 0
    staff_play_attempts_per_day: NonNegativeFloat = 0.0

    @model_validator(mode="after")
    def _check(self) -> PeerCasino:
        if self.staff_play_attempts_per_day > 0 and self.employees + self.directors == 0:
            raise invalid(
                "0 for a peer with no employees or directors (set employees or directors)",
                key="staff_play_attempts_per_day",
                found=self.staff_play_attempts_per_day,
            )
        return self


#: What a door can look at in an id check (an ``id_checked`` record lists what it did).
DoorCheck = Literal["document_age", "board_list", "exclusion_list", "staff_register"]
DOOR_CHECKS: tuple[DoorCheck, ...] = get_args(DoorCheck)
#: What the licensee does about employees' visits to peer casinos (``[entrance.policy]``).
PeerVisits = Literal["authorised", "unauthorised", "none"]


class DoorPolicy(_Model):
    """``[entrance.policy]``: this casino's own door procedure (issue 34). The default is what
    the ruleset requires: the ruleset's ``admission_min_age_years`` and every check, a written
    self-exclusion request notified and copied at once, employees' visits to peers authorised
    beforehand. A policy looser than the law is a legal scenario whose breaches the controls
    find (they read the ruleset, never this); a stricter one is clean and shows its cost (more
    refusals, no visits)."""

    #: the age from which the door admits (None: the ruleset's ``admission_min_age_years``)
    admission_min_age_years: (
        Annotated[int, expect("an integer from 0 to 110", lambda v: 0 <= v <= 110)] | None
    ) = None
    #: what the door looks at in each id check ("staff_register": the Board's register of
    #: every casino's employees, directors and inspectors, the peers' included)
    checks: tuple[DoorCheck, ...] = Field(default=DOOR_CHECKS, strict=False)
    #: how long the licensee takes to notify the Board of a written self-exclusion request
    #: made here and send the copies to every other licensee (0: at once, as reg 24(3) says)
    copy_notice_minutes: NonNegativeInt = 0
    #: employees' visits to a peer casino (reg 24(4)): "authorised" beforehand by the
    #: licensee (the law), "unauthorised" (they go with no authorisation), "none" (the
    #: licensee authorises none, and no employee visits a peer)
    peer_visits: PeerVisits = "authorised"

    @model_validator(mode="after")
    def _check(self) -> DoorPolicy:
        _check_unique(list(self.checks), "checks", "", "check")
        return self


#: The door's acts that can wait for an operator's command (``[entrance] operator``):
#: "identification", each entrant of this casino identified and admitted or refused by the
#: operator (the commands of twin.door.actions).
OperatorAct = Literal["identification"]


class EntranceConfig(_Model):
    """``[entrance]``: the door (regs 20, 24). ``casino`` is this licensee's casino id;
    ``non_gaming_zones`` the zones of the approved layout outside the gaming area (bars,
    restaurants: reg 20(2)); ``directors`` the licensee's directors (reg 24(1));
    ``self_exclusion_requests_per_1000_visits`` written self-exclusion requests made at a door
    (this casino's or a peer's) per 1,000 visits of people not yet excluded;
    ``staff_play_attempts_per_day`` off-duty employees, inspectors or directors who try to
    enter a casino (this one or a peer) as a player; ``authorised_visits_per_day`` employees'
    visits to a peer with the licensee's prior authorisation, given ``authorisation_hours``
    before the visit."""

    department: ClassVar[str] = "door"

    casino: Ident = "home"
    non_gaming_zones: tuple[Ident, ...] = Field(default=(), strict=False)
    directors: tuple[Ident, ...] = Field(default=(), strict=False)
    self_exclusion_requests_per_1000_visits: NonNegativeFloat = 0.0
    staff_play_attempts_per_day: NonNegativeFloat = 0.0
    authorised_visits_per_day: NonNegativeFloat = 0.0
    authorisation_hours: PositiveFloat = 2.0
    peers: tuple[PeerCasino, ...] = Field(default=(), strict=False)
    policy: DoorPolicy = Field(default_factory=DoorPolicy)
    #: the door's acts that wait for an operator's command instead of being done by the door
    #: at once (a drill's hook, like ``staff.dispatch.operator``); default none
    operator: tuple[OperatorAct, ...] = Field(default=(), strict=False)

    @model_validator(mode="after")
    def _check(self) -> EntranceConfig:
        _check_unique(list(self.operator), "operator", "", "act")
        _check_unique([p.id for p in self.peers], "peers", "id", "casino id")
        for i, p in enumerate(self.peers):
            if p.id == self.casino:
                raise invalid(
                    f"a casino id other than this casino's ({self.casino})",
                    key=f"peers[{i}].id",
                    found=p.id,
                )
        _check_unique(list(self.non_gaming_zones), "non_gaming_zones", "", "zone")
        _check_unique(list(self.directors), "directors", "", "director id")
        return self
