"""Machine states and their colours: the Okabe-Ito palette (safe for the common forms of
colour blindness), each state also marked by a glyph so colour is never the only cue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

Colour = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class State:
    key: str
    label: str
    colour: Colour
    glyph: str  # drawn on the machine when zoomed in ("" for none)


IDLE: Final = State("idle", "idle", (150, 150, 150), "")
IN_PLAY: Final = State("in_play", "in play", (0, 114, 178), "")
TILT: Final = State("tilt", "tilt", (213, 94, 0), "T")
HOPPER_EMPTY: Final = State("hopper_empty", "hopper empty", (230, 159, 0), "H")
DOOR_OPEN: Final = State("door_open", "door open", (86, 180, 233), "D")
HAND_PAY: Final = State("hand_pay", "awaiting hand pay", (240, 228, 66), "$")
LOCKED: Final = State("locked", "locked for jackpot", (204, 121, 167), "J")
OFFLINE: Final = State("offline", "offline / removed", (25, 25, 25), "X")

#: In the order of the legend; when a machine is in several, the first listed in
#: :data:`PRECEDENCE` is shown.
STATES: Final = (IDLE, IN_PLAY, TILT, HOPPER_EMPTY, DOOR_OPEN, HAND_PAY, LOCKED, OFFLINE)
PRECEDENCE: Final = (OFFLINE, LOCKED, HAND_PAY, HOPPER_EMPTY, TILT, DOOR_OPEN, IN_PLAY, IDLE)
BY_KEY: Final = {s.key: s for s in STATES}

BACKGROUND: Final[Colour] = (245, 245, 240)
PANEL: Final[Colour] = (255, 255, 255)
PANEL_EDGE: Final[Colour] = (90, 90, 90)
TEXT: Final[Colour] = (20, 20, 20)
MUTED: Final[Colour] = (95, 95, 95)
ZONE: Final[Colour] = (228, 226, 218)
ZONE_EDGE: Final[Colour] = (170, 165, 150)
BANK_EDGE: Final[Colour] = (120, 120, 120)
SELECT: Final[Colour] = (0, 0, 0)
STAFF: Final[Colour] = (255, 255, 255)  # a white dot, outlined
#: a patron: a diamond, outlined, in the palette's bluish green (no machine state uses it)
PATRON: Final[Colour] = (0, 158, 115)
ENTRANCE: Final[Colour] = (90, 90, 90)
FINDING: Final[Colour] = (213, 94, 0)
GOOD: Final[Colour] = (0, 158, 115)


def state_of(
    down: frozenset[str] | set[str] | tuple[str, ...], playing: bool, locked: bool
) -> State:
    """The state a machine is drawn in, from its down reasons (as ``twin state`` names them),
    whether a patron is playing it and whether a jackpot locked it."""
    if not down and not locked:
        return IN_PLAY if playing else IDLE
    if "removed" in down or "unreachable" in down:
        return OFFLINE
    if locked:
        return LOCKED
    if "hand_pay" in down:
        return HAND_PAY
    if "hopper_empty" in down:
        return HOPPER_EMPTY
    if any(r.startswith("tilt:") for r in down):
        return TILT
    if any(r.startswith("door:") for r in down):
        return DOOR_OPEN
    return IN_PLAY if playing else IDLE


# -- the hall (issue 32) -----------------------------------------------------------------------

TABLE_OPEN: Final[Colour] = (0, 110, 70)  # baize green: an open table
TABLE_CLOSED: Final[Colour] = (175, 175, 170)
TABLE_EDGE: Final[Colour] = (60, 45, 30)
CARD_ROOM: Final[Colour] = (120, 90, 160)
CAGE: Final[Colour] = (235, 225, 200)
WINDOW_BUSY: Final[Colour] = (240, 228, 66)
WINDOW_IDLE: Final[Colour] = (255, 255, 255)
WINDOW_CLOSED: Final[Colour] = (120, 120, 120)
COUNT_ACTIVE: Final[Colour] = (86, 180, 233)
ROOM: Final[Colour] = (236, 233, 225)
#: a refused entrant walking away from the door
REFUSED: Final[Colour] = (213, 94, 0)


@dataclass(frozen=True, slots=True)
class RoleStyle:
    """How a member of a staff role is drawn: a shape (``circle``, ``square``, ``triangle``,
    ``down``, ``diamond``, ``cross``, ``star``) in a colour, outlined in black; filled when
    busy, the outline only when idle at their post."""

    role: str
    label: str
    shape: str
    colour: Colour


#: The roles the scenarios define (``[[staff.roles]]``), and those a scenario may add; a role
#: not listed is drawn by :func:`role_style`'s fallback.
ROLES: Final = (
    RoleStyle("attendant", "attendant", "circle", (255, 255, 255)),
    RoleStyle("technician", "technician", "square", (230, 159, 0)),
    RoleStyle("inspector", "Board inspector", "triangle", (204, 121, 167)),
    RoleStyle("dealer", "dealer", "down", (0, 114, 178)),
    RoleStyle("cashier", "cashier", "diamond", (240, 228, 66)),
    RoleStyle("chief_cashier", "chief cashier", "star", (213, 94, 0)),
    RoleStyle("supervisor", "supervisor", "star", (86, 180, 233)),
    RoleStyle("surveillance", "surveillance", "cross", (25, 25, 25)),
)
ROLE_BY_ID: Final = {r.role: r for r in ROLES}


def role_style(role: str) -> RoleStyle:
    """The style of ``role``; a role no scenario here defines is a grey cross."""
    got = ROLE_BY_ID.get(role)
    return (
        got if got is not None else RoleStyle(role, role.replace("_", " "), "cross", (95, 95, 95))
    )
