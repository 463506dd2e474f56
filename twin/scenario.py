"""The scenario: a TOML file describing a casino floor, its patrons, staff and faults.

``load_scenario(path)`` reads and validates a scenario file. Every problem, from a missing
file to a cross-field inconsistency, is reported as exactly one ``twin.errors.InputError``
naming the file, the key path (``floor.banks[0].hopper_capacity_coins``), what was expected
and what was found. See ``scenarios/default.toml`` for a commented example of every key.

All models are frozen pydantic models with ``extra="forbid"`` and strict types (a quoted
``"40"`` is not an integer; an integer is accepted where a number is expected). Money is
in integer cents throughout.
"""

from __future__ import annotations

import hashlib
import math
import re
import tomllib
import types
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
)

from twin.clock import Clock, OpeningHours
from twin.dists import Distribution, Lognormal, Normal, Triangular, Uniform, expect, invalid
from twin.errors import InputError

__all__ = [
    "Bank",
    "DispatchConfig",
    "FaultsConfig",
    "FloorConfig",
    "FloorPolicy",
    "OpeningHoursConfig",
    "PatronsConfig",
    "PopulationConfig",
    "Progressive",
    "RoleConfig",
    "RulesetConfig",
    "Scenario",
    "ScenarioInfo",
    "Segment",
    "Shift",
    "StaffConfig",
    "StaffTiming",
    "load_scenario",
    "load_toml_model",
    "parse_scenario",
    "translate_validation_error",
    "with_settings",
]

RULESETS = ("malta-1998", "singapore-2010")
IDENT_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]*$"
_IDENT = re.compile(IDENT_PATTERN)
_HHMM = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")
SHARE_TOLERANCE = 1e-9


class _Model(BaseModel):
    """Base of every scenario model: frozen, no unknown keys, strict types, finite floats."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class _Plain(str):
    """A string shown without quotes in an InputError's "found" part."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


# --- constrained field types ---------------------------------------------------------------

PositiveInt = Annotated[int, expect("a positive integer", lambda v: v > 0)]
NonNegativeInt = Annotated[int, expect("an integer >= 0", lambda v: v >= 0)]
PositiveFloat = Annotated[float, expect("a positive number", lambda v: v > 0)]
NonNegativeFloat = Annotated[float, expect("a number >= 0", lambda v: v >= 0)]
Ident = Annotated[
    str, expect(f"an identifier matching {IDENT_PATTERN}", lambda v: bool(_IDENT.match(v)))
]
NonEmptyStr = Annotated[str, expect("a non-empty string", lambda v: bool(v.strip()))]


def _parse_hhmm(value: object) -> object:
    if isinstance(value, time) and value.second == 0 and value.microsecond == 0:
        return value.replace(tzinfo=None)
    if isinstance(value, str):
        m = _HHMM.match(value)
        if m:
            return time(int(m.group(1)), int(m.group(2)))
    raise invalid('a time "HH:MM" (00:00 to 23:59)')


HHMM = Annotated[time, BeforeValidator(_parse_hhmm)]


def _check_zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid("an IANA time zone such as 'Europe/Malta'") from None
    return value


def _resolve_game(value: object, info: ValidationInfo) -> object:
    if not isinstance(value, str | Path) or not str(value):
        raise invalid("a path to a game file (a string)")
    base = (info.context or {}).get("base_dir")
    path = Path(value)
    if not path.is_absolute():
        path = (Path(base) if base is not None else Path.cwd()) / path
    path = path.resolve()
    if not path.is_file():
        raise invalid(f"an existing game file (looked for {path})")
    return path


def _support_at_least(lowest: float, what: str) -> AfterValidator:
    def check(d: Distribution) -> Distribution:
        lo = d.support[0]
        if lo < lowest:
            hint = " (give a normal a min)" if d.dist == "normal" else ""
            raise invalid(f"a distribution of {what}{hint}", found=_Plain(f"values down to {lo:g}"))
        return d

    return AfterValidator(check)


NonNegativeDist = Annotated[Distribution, _support_at_least(0.0, "values >= 0")]
BetUnitsDist = Annotated[Distribution, _support_at_least(1.0, "values >= 1")]


# --- [scenario] ----------------------------------------------------------------------------


class OpeningHoursConfig(_Model):
    """Daily opening hours; ``open == close`` means always open, ``close < open`` wraps."""

    open: HHMM = time(0, 0)
    close: HHMM = time(0, 0)


class ScenarioInfo(_Model):
    """The ``[scenario]`` table."""

    name: NonEmptyStr
    description: str = ""
    start: datetime
    timezone: Annotated[str, AfterValidator(_check_zone)]
    duration_hours: PositiveFloat
    seed: NonNegativeInt
    gaming_day_start: HHMM = time(6, 0)
    opening_hours: OpeningHoursConfig = OpeningHoursConfig()

    @model_validator(mode="after")
    def _check_start(self) -> ScenarioInfo:
        if self.start.tzinfo is None:
            zone = ZoneInfo(self.timezone)
            local = self.start.replace(tzinfo=zone)
            back = local.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
            if back != self.start:
                raise invalid(
                    f"a local time that exists in {self.timezone} (not skipped by a DST change)",
                    key="start",
                    found=self.start,
                )
        return self

    @property
    def start_datetime(self) -> datetime:
        """The start as an aware datetime in ``timezone``."""
        zone = ZoneInfo(self.timezone)
        if self.start.tzinfo is None:
            return self.start.replace(tzinfo=zone)
        return self.start.astimezone(zone)


# --- [ruleset] -----------------------------------------------------------------------------


def _check_overrides(value: object) -> object:
    if not isinstance(value, dict):
        raise invalid("a table of key = number, string or boolean")
    for k, v in value.items():
        if not isinstance(v, bool | int | float | str) or (
            isinstance(v, float) and not math.isfinite(v)
        ):
            raise invalid("a number, string or boolean", key=_key_part(k), found=v)
    return dict(value)


class RulesetConfig(_Model):
    """The ``[ruleset]`` table: which regulation applies, and free-form overrides."""

    name: Literal["malta-1998", "singapore-2010"]
    overrides: Annotated[dict[str, bool | int | float | str], BeforeValidator(_check_overrides)] = (
        Field(default_factory=dict, strict=False)
    )


# --- [floor] -------------------------------------------------------------------------------


class Progressive(_Model):
    """A linked progressive jackpot (``[[floor.progressives]]``)."""

    id: Ident
    reset_cents: PositiveInt
    increment_bp: Annotated[int, expect("an integer from 1 to 10000", lambda v: 1 <= v <= 10000)]


#: the most machines one bank may hold: more than any casino floor (the largest have a few
#: thousand machines in all); a larger count is a typo or a unit slip, refused at once
MAX_BANK_MACHINES = 20_000


class Bank(_Model):
    """A bank of identical machines (``[[floor.banks]]``)."""

    id: Ident
    zone: Ident
    count: Annotated[
        int,
        expect(
            f"an integer from 1 to {MAX_BANK_MACHINES:,} (machines in one bank)",
            lambda v: 1 <= v <= MAX_BANK_MACHINES,
        ),
    ]
    game: Annotated[Path, BeforeValidator(_resolve_game)]
    #: other approved pay tables the operator may install on this bank instead of ``game``
    #: (issue 12): of ``game`` and these, each machine runs the one with the lowest designed
    #: return that still meets the ruleset's ``min_rtp`` (the most hold the rules allow), or
    #: the highest return when none meets it. Empty: the bank runs ``game``.
    pay_tables: tuple[Annotated[Path, BeforeValidator(_resolve_game)], ...] = Field(
        default=(), strict=False
    )
    denomination_cents: PositiveInt
    max_bet_units: PositiveInt
    hopper_capacity_coins: PositiveInt
    hopper_standard_fill_coins: PositiveInt
    hopper_initial_coins: NonNegativeInt
    hopper_pay_limit_credits: PositiveInt
    jackpot_limit_cents: PositiveInt
    coin_acceptor: bool = True
    bill_acceptor: bool = True
    bill_denominations_cents: tuple[PositiveInt, ...] = Field(default=(), strict=False)
    # how many digits the machine's meters have: a fact of the hardware (SAS meters hold at
    # most 18), not a rule; the regulation's minimum (min_meter_digits) is the ruleset's, and a
    # machine with fewer digits is a finding of 4(a)/4(c), not an input error
    meter_digits: Annotated[
        int, expect("an integer from 1 to 18 (a SAS meter's width)", lambda v: 1 <= v <= 18)
    ] = 8
    progressive: Ident | None = None
    manufacturer: NonEmptyStr = "Acme Gaming Ltd"
    model: NonEmptyStr = "AX-100"
    manufactured: date = date(2025, 1, 1)
    promotional: bool = False  # an approved promotional/tournament machine (Sched. 1 item 15)
    asset_prefix: Ident = "AN"  # each machine's asset number is <asset_prefix>-<machine id>

    @model_validator(mode="before")
    @classmethod
    def _default_initial(cls, data: Any) -> Any:
        if (
            isinstance(data, dict)
            and "hopper_initial_coins" not in data
            and "hopper_standard_fill_coins" in data
        ):
            return {**data, "hopper_initial_coins": data["hopper_standard_fill_coins"]}
        return data

    @model_validator(mode="after")
    def _check(self) -> Bank:
        cap = self.hopper_capacity_coins
        if self.hopper_standard_fill_coins > cap:
            raise invalid(
                f"at most hopper_capacity_coins ({cap})",
                key="hopper_standard_fill_coins",
                found=self.hopper_standard_fill_coins,
            )
        if self.hopper_initial_coins > cap:
            raise invalid(
                f"at most hopper_capacity_coins ({cap})",
                key="hopper_initial_coins",
                found=self.hopper_initial_coins,
            )
        for i, bill in enumerate(self.bill_denominations_cents):
            if bill % self.denomination_cents:
                raise invalid(
                    f"a multiple of denomination_cents ({self.denomination_cents})",
                    key=f"bill_denominations_cents[{i}]",
                    found=bill,
                )
        if self.bill_acceptor and not self.bill_denominations_cents:
            raise invalid(
                "a non-empty array when bill_acceptor = true",
                key="bill_denominations_cents",
                found=[],
            )
        return self

    def machine_ids(self) -> list[str]:
        """``["A-001", "A-002", ...]``: the bank id, a dash, the 1-based number (3 digits)."""
        return [f"{self.id}-{n:03d}" for n in range(1, self.count + 1)]


class FloorPolicy(_Model):
    """``[floor.policy]``: the slot floor's own procedures (issue 34). Every key defaults to
    what the ruleset says (None); the controls read only the ruleset and the records, so a
    procedure looser than the law is a legal scenario whose breaches the controls find, and a
    stricter one is clean and shows its cost (longer hand-pay waits, less hold)."""

    #: a hand pay of more than this amount is witnessed by an attendant and two Board
    #: inspectors together, in cents of the regulation's currency like the ruleset's
    #: ``hand_pay_second_inspector_above_cents`` (Lm for Malta, converted exactly to the
    #: floor's cents at the ruleset's exchange rate); 0: never a second inspector; None: the
    #: ruleset's
    hand_pay_second_inspector_above_cents: NonNegativeInt | None = None
    #: how often, in hours, the Board inspectors on duty challenge every machine for its
    #: program signature (0: only at installation, conversion, return and closing); None: the
    #: ruleset's ``program_verification_hours``
    program_verification_hours: NonNegativeFloat | None = None
    #: the least designed return of the pay table the operator installs on a bank with
    #: ``pay_tables`` (it installs the leanest meeting it, or the richest when none does);
    #: None: the ruleset's ``min_rtp``
    min_rtp: Annotated[float, expect("a number in [0, 1]", lambda v: 0 <= v <= 1)] | None = None


class FloorConfig(_Model):
    """The ``[floor]`` table. ``drop_collection``: the local time ("HH:MM") of the daily drop,
    when a drop team empties every machine's drop bucket and bill stacker (none if absent);
    ``policy``: the floor's own procedures (:class:`FloorPolicy`, default the ruleset's)."""

    coin_pay_seconds: PositiveFloat = 0.125
    banks: Annotated[
        tuple[Bank, ...], expect("at least one [[floor.banks]] table", lambda v: len(v) > 0)
    ] = Field(strict=False)
    progressives: tuple[Progressive, ...] = Field(default=(), strict=False)
    drop_collection: HHMM | None = None
    policy: FloorPolicy = Field(default_factory=FloorPolicy)

    @model_validator(mode="after")
    def _check(self) -> FloorConfig:
        _check_unique([b.id for b in self.banks], "banks", "id", "bank id")
        _check_unique([p.id for p in self.progressives], "progressives", "id", "progressive id")
        known = [p.id for p in self.progressives]
        for i, bank in enumerate(self.banks):
            if bank.progressive is not None and bank.progressive not in known:
                raise invalid(
                    _one_of(known, "a progressive id from [[floor.progressives]]"),
                    key=f"banks[{i}].progressive",
                    found=bank.progressive,
                )
        return self


# --- [patrons] -----------------------------------------------------------------------------


class Segment(_Model):
    """A patron segment (``[[patrons.segments]]``)."""

    name: NonEmptyStr
    share: Annotated[float, expect("a number in (0, 1]", lambda v: 0 < v <= 1)]
    bankroll_cents: NonNegativeDist
    session_minutes: NonNegativeDist
    spin_seconds: NonNegativeDist
    bet_units: BetUnitsDist
    loss_limit_share: Annotated[float, expect("a number in (0, 1]", lambda v: 0 < v <= 1)] = 1.0
    win_goal_multiple: Annotated[float, expect("a number > 1", lambda v: v > 1)] = 3.0
    pays_with_bills_share: Annotated[float, expect("a number in [0, 1]", lambda v: 0 <= v <= 1)] = (
        0.7
    )
    zones: tuple[Ident, ...] = Field(default=(), strict=False)


#: Ages an adult member of the population may have (years); minors are drawn apart
#: (``minor_share``, ``minor_age``). Legal age is a ruleset matter, the door's a policy.
AGE_RANGE = (18.0, 110.0)
#: Without a [patrons.population] size: the expected arrivals of this many days, at least
#: ``MIN_DEFAULT_MEMBERS`` members.
DEFAULT_MEMBER_DAYS = 4
MIN_DEFAULT_MEMBERS = 100
MAX_MEMBERS = 9_999_999


def _check_age(d: Distribution) -> Distribution:
    lo, hi = d.support
    if lo < AGE_RANGE[0] or hi > AGE_RANGE[1]:
        hint = " (give a normal a min and a max)" if d.dist == "normal" else ""
        raise invalid(
            f"a distribution of ages within [{AGE_RANGE[0]:g}, {AGE_RANGE[1]:g}]{hint}",
            found=_Plain(f"values from {lo:g} to {hi:g}"),
        )
    return d


def _check_minor_age(d: Distribution) -> Distribution:
    lo, hi = d.support
    if lo < 0 or hi > AGE_RANGE[0]:
        raise invalid(
            f"a distribution of ages within [0, {AGE_RANGE[0]:g}]",
            found=_Plain(f"values from {lo:g} to {hi:g}"),
        )
    return d


def _check_propensity(d: Distribution) -> Distribution:
    lo = d.support[0]
    if lo < 0 or not d.mean > 0:
        raise invalid(
            "a distribution of values >= 0 with a positive mean",
            found=_Plain(f"values down to {lo:g}, mean {d.mean:g}"),
        )
    return d


Share = Annotated[float, expect("a number in [0, 1]", lambda v: 0 <= v <= 1)]


def _check_shares(value: dict[str, float]) -> dict[str, float]:
    if not value:
        raise invalid("a non-empty table of name = share")
    for name in value:
        if not _IDENT.match(name):
            raise invalid(
                f"a name matching {IDENT_PATTERN}", key=_key_part(name), found=_Plain(name)
            )
    total = math.fsum(value.values())
    if abs(total - 1.0) > SHARE_TOLERANCE:
        raise invalid("shares summing to 1", found=_Plain(f"shares summing to {total:.12g}"))
    return value


Shares = Annotated[dict[str, Share], AfterValidator(_check_shares)]


class PopulationConfig(_Model):
    """The ``[patrons.population]`` table: the people who visit, again and again.

    Every key is optional. ``size`` defaults to the expected arrivals of
    ``DEFAULT_MEMBER_DAYS`` days (at least ``MIN_DEFAULT_MEMBERS``); see
    ``PatronsConfig.members``. Attributes are drawn independently of each other; a member's
    segment comes from the segment shares.
    """

    size: (
        Annotated[
            int, expect(f"an integer from 1 to {MAX_MEMBERS}", lambda v: 1 <= v <= MAX_MEMBERS)
        ]
        | None
    ) = None
    age: Annotated[Distribution, AfterValidator(_check_age)] = Normal.model_validate(
        {"mean": 45.0, "sd": 15.0, "min": 18.0, "max": 90.0}
    )
    residency: Shares = Field(default_factory=lambda: {"local": 1.0}, strict=False)
    nationalities: Shares | None = Field(default=None, strict=False)
    visit_propensity: Annotated[Distribution, AfterValidator(_check_propensity)] = Lognormal(
        median=1.0, sigma=1.0
    )
    self_excluded_share: Share = 0.0
    barred_share: Share = 0.0
    #: members under age (the world as it is, issue 34): this share of the members has an
    #: age drawn from ``minor_age`` instead of ``age``; what the door does with them is the
    #: door's policy ([entrance.policy]), what the law says is the ruleset's
    minor_share: Share = 0.0
    minor_age: Annotated[Distribution, AfterValidator(_check_minor_age)] = Uniform(
        low=14.0, high=18.0
    )


def _check_24(value: tuple[float, ...]) -> tuple[float, ...]:
    if len(value) != 24:
        raise invalid(
            "exactly 24 numbers (one per local hour 0..23)",
            found=_Plain(f"{len(value)} numbers"),
        )
    return value


class PatronsConfig(_Model):
    """The ``[patrons]`` table."""

    arrivals_per_hour: Annotated[
        tuple[NonNegativeFloat, ...],
        AfterValidator(_check_24),
    ] = Field(strict=False)
    max_wait_minutes: NonNegativeFloat
    segments: Annotated[
        tuple[Segment, ...],
        expect("at least one [[patrons.segments]] table", lambda v: len(v) > 0),
    ] = Field(strict=False)
    population: PopulationConfig = PopulationConfig()

    @model_validator(mode="after")
    def _check(self) -> PatronsConfig:
        _check_unique([s.name for s in self.segments], "segments", "name", "segment name")
        total = math.fsum(s.share for s in self.segments)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise invalid(
                "segment shares summing to 1",
                key="segments",
                found=_Plain(f"shares summing to {total:.12g}"),
            )
        return self

    @property
    def expected_arrivals_per_day(self) -> float:
        """Mean arrivals over one local day (sum of the 24 hourly means)."""
        return math.fsum(self.arrivals_per_hour)

    @property
    def members(self) -> int:
        """The population's size: ``population.size``, or by default the expected arrivals
        of ``DEFAULT_MEMBER_DAYS`` days, rounded up, at least ``MIN_DEFAULT_MEMBERS``."""
        if self.population.size is not None:
            return self.population.size
        days = DEFAULT_MEMBER_DAYS * self.expected_arrivals_per_day
        return min(MAX_MEMBERS, max(MIN_DEFAULT_MEMBERS, math.ceil(days)))


# --- [staff] -------------------------------------------------------------------------------


_PREFIX = re.compile(r"^[A-Z][A-Z0-9]*$")
#: The roles the floor's machines call on, and the jobs each is needed for.
ROLES_NEEDED = {
    "attendant": "hand pays and hopper fills",
    "inspector": "hand pays and hopper fills",
    "technician": "repairs and door checks",
}
#: Every kind of job the floor files (``twin.jobs``): a machine's own during play, then the
#: daily drop (``[floor] drop_collection``) and a machine taken out of operation and placed
#: back (``[[removals]]``, the ``remove_machine`` and ``return_machine`` commands).
JobKind = Literal[
    "hand_pay",
    "hopper_fill",
    "repair",
    "door_check",
    "drop_collection",
    "machine_removal",
    "machine_return",
]
JOB_KINDS: tuple[JobKind, ...] = get_args(JobKind)
#: The default ``[staff.dispatch] priority``: the kinds filed during play, highest first. The
#: kinds it does not list (by default drop_collection, machine_removal and machine_return) come
#: after every listed kind, in request order between them, as they always have; a scenario
#: that lists them gives them their own place.
DEFAULT_PRIORITY: tuple[JobKind, ...] = JOB_KINDS[:4]


class RoleConfig(_Model):
    """A role on the floor (``[[staff.roles]]``): jobs name it by ``id``.

    Members' ids are ``<prefix>-<shift>-NN``; ``employer`` is "licensee" or "board" (the
    gaming Board's inspectors, who are not the licensee's employees).
    """

    id: Ident
    prefix: Annotated[
        str, expect("capital letters and digits, starting with a letter", _PREFIX.match)
    ]
    title: NonEmptyStr
    employer: Literal["licensee", "board"] = "licensee"


DEFAULT_ROLES = (
    RoleConfig(id="attendant", prefix="ATT", title="Slot attendant"),
    RoleConfig(id="technician", prefix="TEC", title="Slot technician"),
    RoleConfig(id="inspector", prefix="INS", title="Board inspector", employer="board"),
)


class Shift(_Model):
    """A staff shift (``[[staff.shifts]]``); ``end < start`` wraps past midnight and
    ``end == start`` is round the clock. ``crew`` maps role ids to head counts."""

    name: Ident
    start: HHMM
    end: HHMM
    crew: dict[str, NonNegativeInt] = Field(strict=False)

    def count(self, role: str) -> int:
        return self.crew.get(role, 0)


class StaffTiming(_Model):
    """Task durations in minutes (``[staff.timing]``)."""

    walk_minutes: NonNegativeDist = Triangular(low=0.5, mode=1.5, high=4.0)
    hand_pay_minutes: NonNegativeDist = Triangular(low=3.0, mode=6.0, high=15.0)
    hopper_fill_minutes: NonNegativeDist = Triangular(low=4.0, mode=7.0, high=15.0)
    repair_minutes: NonNegativeDist = Lognormal(median=15.0, sigma=0.8)


class DispatchConfig(_Model):
    """``[staff.dispatch]``: job kinds by priority (first = highest; a kind not listed comes
    after every listed kind, in request order: see :data:`DEFAULT_PRIORITY`), and the kinds
    that wait for an operator to assign staff instead of being dispatched automatically."""

    priority: tuple[JobKind, ...] = Field(default=DEFAULT_PRIORITY, strict=False)
    operator: tuple[JobKind, ...] = Field(default=(), strict=False)

    @model_validator(mode="after")
    def _check(self) -> DispatchConfig:
        _check_unique(list(self.priority), "priority", "", "job kind")
        _check_unique(list(self.operator), "operator", "", "job kind")
        return self


class StaffConfig(_Model):
    """The ``[staff]`` table."""

    roles: tuple[RoleConfig, ...] = Field(default=DEFAULT_ROLES, strict=False)
    shifts: Annotated[
        tuple[Shift, ...], expect("at least one [[staff.shifts]] table", lambda v: len(v) > 0)
    ] = Field(strict=False)
    timing: StaffTiming = StaffTiming()
    dispatch: DispatchConfig = Field(default_factory=DispatchConfig)

    @model_validator(mode="after")
    def _check(self) -> StaffConfig:
        _check_unique([r.id for r in self.roles], "roles", "id", "role id")
        _check_unique([r.prefix for r in self.roles], "roles", "prefix", "member id prefix")
        _check_unique([s.name for s in self.shifts], "shifts", "name", "shift name")
        ids = [r.id for r in self.roles]
        for i, s in enumerate(self.shifts):
            for role in s.crew:
                if role not in ids:
                    raise invalid(
                        _one_of(ids, "a role id of [[staff.roles]]"),
                        key=f"shifts[{i}].crew.{_key_part(role)}",
                        found=role,
                    )
        return self

    def head_count(self, role: str) -> int:
        """Members of ``role`` over all shifts."""
        return sum(s.count(role) for s in self.shifts)


# --- [faults] ------------------------------------------------------------------------------


def _resolve_optional_game(value: object, info: ValidationInfo) -> object:
    return None if value is None else _resolve_game(value, info)


class Inject(_Model):
    """A violation made to happen on purpose, to prove that a control detects it.

    ``kind`` names an injection (see ``twin.slots.injections``; checked before t = 0);
    ``machine`` the
    target; ``at_hours`` when it happens; ``game``, ``meter``, ``amount`` are kind-specific.
    """

    kind: Ident
    machine: Ident | None = None
    #: the entity an injection off the slot floor acts on (a table, a patron, a junket, a
    #: cheque...); each kind says what it takes and checks it before t = 0
    target: Ident | None = None
    at_hours: NonNegativeFloat = 0.0
    game: Annotated[Path | None, BeforeValidator(_resolve_optional_game)] = None
    meter: Ident | None = None
    amount: int = 0


class Conversion(_Model):
    """An approved conversion (``[[conversions]]``): at ``at_hours`` a technician changes
    ``machine``'s program to ``game``, which the Board approved with the floor."""

    machine: Ident
    at_hours: NonNegativeFloat = 0.0
    game: Annotated[Path, BeforeValidator(_resolve_game)]


class Removal(_Model):
    """A machine taken out of operation (``[[removals]]``, First Schedule item 20(c)): at
    ``at_hours`` (once its patron has left) it is emptied, read, recorded and disconnected;
    at ``return_hours`` it is placed back. ``sold``: it leaves the licensee's ownership and
    does not come back."""

    machine: Ident
    at_hours: NonNegativeFloat
    reason: NonEmptyStr = "repair"
    return_hours: PositiveFloat | None = None
    sold: bool = False


class Promotion(_Model):
    """A promotion (``[[promotions]]``) on the promotional machines of bank ``bank``: while a
    patron plays one, it awards ``award_cents`` at random moments, ``mean_hours`` apart on
    average, paid by an attendant and confirmed by a Board inspector (Sched. 1 item 16)."""

    id: Ident
    bank: Ident
    type: NonEmptyStr  # the type of promotion: "double jackpots", "four-of-a-kind bonus"...
    award: NonEmptyStr  # a description of the award
    award_cents: PositiveInt
    mean_hours: PositiveFloat


# -- hardware-backed machines (issue 8) ---------------------------------------------------------

SMIB_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
_SMIB_ID = re.compile(SMIB_ID_PATTERN)
SmibId = Annotated[
    str, expect(f"a SMIB id matching {SMIB_ID_PATTERN}", lambda v: bool(_SMIB_ID.match(v)))
]


class HardwareBinding(_Model):
    """``[[hardware]]``: machine ``machine`` of the floor is the real (or emulated) machine
    behind SMIB ``smib`` (its MQTT user); ``mode`` "mirror" (real people play it; its data
    feeds every control) or "drive" (simulated patrons play it through bench commands)."""

    machine: Ident
    smib: SmibId
    mode: Literal["mirror", "drive"] = "mirror"
    #: the serial number the Board registered for the machine behind it (a bench's own
    #: machine); default: the one the floor gives the machine
    serial: NonEmptyStr | None = None


# -- end hardware ----------------------------------------------------------------------------------

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

    casino: Ident = "home"
    non_gaming_zones: tuple[Ident, ...] = Field(default=(), strict=False)
    directors: tuple[Ident, ...] = Field(default=(), strict=False)
    self_exclusion_requests_per_1000_visits: NonNegativeFloat = 0.0
    staff_play_attempts_per_day: NonNegativeFloat = 0.0
    authorised_visits_per_day: NonNegativeFloat = 0.0
    authorisation_hours: PositiveFloat = 2.0
    peers: tuple[PeerCasino, ...] = Field(default=(), strict=False)
    policy: DoorPolicy = Field(default_factory=DoorPolicy)

    @model_validator(mode="after")
    def _check(self) -> EntranceConfig:
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


# [tables] (regs 21, 23, 26): the pit and the card room
Cents = Annotated[int, expect("a positive integer (cents)", lambda v: v > 0)]


class TableConfig(_Model):
    """A gaming table (``[[tables.tables]]``): its game file (resolved like a slot game), the
    stakes it opens with, its hours (local; ``close <= open`` wraps past midnight), the asset
    id of its wheel or shoe (``equipment``) and its chip float (``tray_cents``)."""

    id: Ident
    game: Annotated[Path, BeforeValidator(_resolve_game)]
    min_stake_cents: Cents
    max_stake_cents: Cents
    open: HHMM
    close: HHMM
    equipment: Ident
    tray_cents: Cents = 500_000

    @model_validator(mode="after")
    def _check(self) -> TableConfig:
        if self.max_stake_cents < self.min_stake_cents:
            raise invalid(f"at least min_stake_cents ({self.min_stake_cents})",
                          key="max_stake_cents", found=self.max_stake_cents)  # fmt: skip
        if self.open == self.close:
            raise invalid("a closing time other than the opening time", key="close",
                          found=_Plain(self.close.strftime("%H:%M")))  # fmt: skip
        return self


class StakeChange(_Model):
    """``[[tables.stake_changes]]``: at ``at_hours`` table ``table`` changes its minimum
    and/or maximum stake; ``authorised``: with the Board's authorisation (reg 21(3))."""

    at_hours: NonNegativeFloat
    table: Ident
    min_stake_cents: Cents | None = None
    max_stake_cents: Cents | None = None
    authorised: bool = True

    @model_validator(mode="after")
    def _check(self) -> StakeChange:
        if self.min_stake_cents is None and self.max_stake_cents is None:
            raise invalid("min_stake_cents and/or max_stake_cents", key="min_stake_cents",
                          found=None)  # fmt: skip
        return self


class Equipment(_Model):
    """``[[tables.equipment]]``: a wheel, shoe or table layout by asset id; ``approved``: the
    Board approved it for this casino (reg 23(1))."""

    asset: Ident
    type: Literal["wheel", "shoe", "layout", "shuffler"]
    approved: bool = True


class CardRoomArea(_Model):
    """``[[tables.card_room]]``: an area for card games of equal chance (reg 26).
    ``approved``: the licence or the Board allows it; ``hourly_charge_cents``: the approved
    hourly rate; ``charged_cents``: what the area actually charges an hour (default: the
    approved rate); ``displayed``: the charge is displayed in the area."""

    id: Ident
    seats: PositiveInt
    open: HHMM
    close: HHMM
    approved: bool = True
    hourly_charge_cents: NonNegativeInt
    charged_cents: NonNegativeInt | None = None
    displayed: bool = True

    @property
    def rate_cents(self) -> int:
        return self.hourly_charge_cents if self.charged_cents is None else self.charged_cents


class TablesPolicy(_Model):
    """``[tables.policy]``: what this casino's entrance notice shows (issue 34). The Board's
    requirement is ``[tables] notice_conditions`` and ``entrance_fee_cents`` (reg 22(b), (c));
    by default the notice shows exactly that. A policy that leaves out a condition or shows
    another fee is a casino whose notice falls short of the Board's requirement."""

    notice_conditions: tuple[NonEmptyStr, ...] | None = Field(default=None, strict=False)
    notice_entrance_fee_cents: NonNegativeInt | None = None


class TablesConfig(_Model):
    """The ``[tables]`` table: the pit and the card room (regs 21, 22, 23, 26).

    ``share``: the share of visitors who play at a table instead of the slot floor (drawn on
    each visit's own stream ``table:<n>``); ``card_room_share``: of those, the share who go
    to the card room. ``board_minimum_cents``: the Board's minimum stake per game id
    (reg 21(1)); ``authorised_maximum_cents``: the maximum stake the Board authorised per game
    id (reg 21(3)). Chips: ``chip_series`` the series the Board approved, ``chips_in_play``
    the series the pit uses. ``device_share``: the share of table players who are cheats
    carrying a device (reg 23(5)), ``counterfeit_share``: who present unapproved chips.
    """

    share: Share
    card_room_share: Share = 0.0
    stake_cents: NonNegativeDist
    stretch_minutes: NonNegativeDist
    buy_in_stakes: Annotated[Distribution, _support_at_least(1.0, "values >= 1")]
    drop_collection: HHMM
    hold_confidence: Annotated[float, expect("a number in (0.5, 1)", lambda v: 0.5 < v < 1)] = 0.99
    board_minimum_cents: dict[str, Cents] = Field(strict=False)
    authorised_maximum_cents: dict[str, Cents] = Field(strict=False)
    chip_series: tuple[Ident, ...] = Field(strict=False)
    chips_in_play: Ident
    equipment: tuple[Equipment, ...] = Field(default=(), strict=False)
    tables: Annotated[
        tuple[TableConfig, ...], expect("at least one [[tables.tables]]", lambda v: len(v) > 0)
    ] = Field(strict=False)
    stake_changes: tuple[StakeChange, ...] = Field(default=(), strict=False)
    card_room: tuple[CardRoomArea, ...] = Field(default=(), strict=False)
    notice_conditions: tuple[NonEmptyStr, ...] = Field(default=(), strict=False)
    entrance_fee_cents: NonNegativeInt = 0
    device_share: Share = 0.0
    device_sanctions: tuple[
        Literal["void_wagers", "play_ban", "eviction", "police_complaint"], ...
    ] = Field(default=("void_wagers", "eviction", "police_complaint"), strict=False)
    counterfeit_share: Share = 0.0
    drop_team: tuple[Ident, ...] = Field(default=("attendant", "inspector"), strict=False)
    policy: TablesPolicy = Field(default_factory=TablesPolicy)

    @property
    def shown_conditions(self) -> tuple[str, ...]:
        """The conditions the casino's entrance notice shows (its policy; default: the
        Board's requirement)."""
        shown = self.policy.notice_conditions
        return self.notice_conditions if shown is None else shown

    @property
    def shown_entrance_fee_cents(self) -> int:
        """The entrance fee the casino's notice shows (default: the one the Board approved)."""
        fee = self.policy.notice_entrance_fee_cents
        return self.entrance_fee_cents if fee is None else fee

    @model_validator(mode="after")
    def _check(self) -> TablesConfig:
        _check_unique([t.id for t in self.tables], "tables", "id", "table id")
        _check_unique([e.asset for e in self.equipment], "equipment", "asset", "asset id")
        _check_unique([a.id for a in self.card_room], "card_room", "id", "card room area id")
        assets = [e.asset for e in self.equipment]
        for i, t in enumerate(self.tables):
            if t.equipment not in assets:
                raise invalid(_one_of(assets, "an asset of [[tables.equipment]]"),
                              key=f"tables[{i}].equipment", found=t.equipment)  # fmt: skip
        ids = [t.id for t in self.tables]
        for i, c in enumerate(self.stake_changes):
            if c.table not in ids:
                raise invalid(_one_of(ids, "a table id"), key=f"stake_changes[{i}].table",
                              found=c.table)  # fmt: skip
        if self.card_room_share > 0 and not self.card_room:
            raise invalid("a [[tables.card_room]] area when card_room_share > 0",
                          key="card_room", found=[])  # fmt: skip
        return self


# [cage] (regs 23(4), 37-43): cage, cash desks, drop and count


#: The particulars of reg 38(2) the cashier copies from a cheque or card (the field of
#: ``gaming_payment_accepted`` each fills): (b)(i) the name of the account holder (cheques),
#: (b)(ii)-(iii) the credit institution and, for a cheque, the address where the account is
#: held, (b)(iv) the account number, (b)(v) the cheque's or card's number, and (d) whether a
#: guarantee card was produced (cheques). (a) the time of acceptance, (c) the amount and (e)
#: the substitute's link are written by the cage's own system, on no checklist.
PaymentParticular = Literal[
    "account_holder", "bank", "bank_address", "account_number", "number", "guarantee_card"
]
PAYMENT_PARTICULARS: tuple[PaymentParticular, ...] = get_args(PaymentParticular)


class CagePolicy(_Model):
    """``[cage.policy]``: the cage's own procedures (issue 34). How long the licensee keeps
    its books, each in years, by default the ruleset's period
    (``cheque_record_retention_years``, ``accounts_retention_years``,
    ``internal_audit_retention_years``): a shorter period is a casino that destroys its books
    too early, found when the Board asks for a volume the law says must still exist. What
    the cashier records of each cheque and card payment (``payment_particulars``), by
    default every particular reg 38(2) requires."""

    payment_records_years: NonNegativeInt | None = None
    accounts_years: NonNegativeInt | None = None
    internal_audit_years: NonNegativeInt | None = None
    #: the cashier's checklist: which particulars of reg 38(2)(b) and (d) the cashier copies
    #: from the cheque or card into the record of each gaming cheque and card payment
    #: (``gaming_payment_accepted``); default every one the regulation requires. A particular
    #: left off is missing from every such record (found under 38(2), MT98.R38.2, on each).
    payment_particulars: tuple[PaymentParticular, ...] = Field(
        default=PAYMENT_PARTICULARS, strict=False
    )

    @model_validator(mode="after")
    def _check(self) -> CagePolicy:
        _check_unique(list(self.payment_particulars), "payment_particulars", "", "particular")
        return self


class CageConfig(_Model):
    """``[cage]``: the cage and cash desks, the books and the count of the slot drop (see
    docs/scenario-cage.md). Rates are per day; shares in [0, 1]; money in cents."""

    visit_share: Share = 0.05  # visitors who buy in at the cage before play
    methods: Shares = Field(
        default_factory=lambda: {"cash": 0.6, "cheque": 0.15, "credit_card": 0.15,
                                 "debit_card": 0.1},
        strict=False,
    )  # fmt: skip
    chips_share: Share = 0.5  # buy-ins taken in chips (the rest in cash)
    buy_in_cents: NonNegativeDist = Lognormal(median=20000.0, sigma=0.6)
    redeem_share: Share = 0.6  # chip buyers who redeem chips after play
    cheque_redeemed_share: Share = 0.1  # cheques taken back by the drawer for cash after play
    substitute_share: Share = 0.05  # cheques replaced after play by a larger substitute cheque
    guarantee_card_share: Share = 0.7
    transaction_minutes: NonNegativeDist = Triangular(low=1.0, mode=2.0, high=5.0)
    float_cents: NonNegativeInt = 5_000_000  # the cage's cash at opening
    banking_time: HHMM = time(11, 0)  # cheques banked, card batches submitted, daily
    dishonour_rate: Share = 0.03  # cheques refused by the drawee bank at first presentation
    represented_paid_share: Share = 0.5  # dishonoured cheques paid when presented again
    represent_days: PositiveInt = 3  # days from a refusal to the second presentation
    reconcile_time: HHMM = time(6, 30)  # the daily cage reconciliation
    count_time: HHMM = time(5, 0)  # the count of the slot drop collected since the last
    unclaimed_per_day: NonNegativeFloat = 2.0
    unclaimed_cents: NonNegativeDist = Lognormal(median=500.0, sigma=1.0)
    unclaimed_chips_share: Share = 0.4
    register_minutes: NonNegativeDist = Triangular(low=5.0, mode=15.0, high=45.0)
    financial_year_end_month: Annotated[
        int, expect("a month number from 1 to 12", lambda v: 1 <= v <= 12)
    ] = 12  # the financial year ends on the last day of this month
    statements_after_days: NonNegativeInt = 75  # year end to audited statements lodged
    archive_years: NonNegativeInt = 11  # the casino's books began this many years before t = 0
    retention_time: HHMM = time(7, 0)  # the daily pass of the retention schedule
    record_requests_per_day: NonNegativeFloat = 1.0  # Board inspectors' requests
    produce_minutes: NonNegativeDist = Triangular(low=5.0, mode=20.0, high=60.0)

    policy: CagePolicy = Field(default_factory=CagePolicy)

    @model_validator(mode="after")
    def _check_methods(self) -> CageConfig:
        known = ("cash", "cheque", "credit_card", "debit_card")
        for name in self.methods:
            if name not in known:
                raise invalid(
                    "one of " + ", ".join(known), key=f"methods.{_key_part(name)}",
                    found=_Plain(name),
                )  # fmt: skip
        return self


# [[junkets]] and [junket_leaders] (reg 25)
# [junkets] (reg 25): junket leaders, the junket room, and the junkets' schedules
# (a [junkets] section with [[junkets.leaders]] and [[junkets.schedules]]; docs/scenario-junkets.md)

CountryCode = Annotated[
    str, expect("an ISO 3166 alpha-2 country code such as 'IT'",
                lambda v: len(v) == 2 and v.isascii() and v.isupper())
]  # fmt: skip
_JUNKET_PREFIX = re.compile(r"^[A-Z]{1,4}$")


def _resolve_table_game(value: object, info: ValidationInfo) -> object:
    if not isinstance(value, str | Path) or not str(value):
        raise invalid("a path to a table game file (a string)")
    base = (info.context or {}).get("base_dir")
    path = Path(value)
    if not path.is_absolute():
        path = (Path(base) if base is not None else Path.cwd()) / path
    return path.resolve()


class JunketRepresentative(_Model):
    """A person representing a junket leader in Malta (reg 25(4), 25(6)(ii))."""

    name: NonEmptyStr
    address: NonEmptyStr
    id_number: NonEmptyStr


class JunketLeader(_Model):
    """``[[junkets.leaders]]``: a junket leader (a person or a company) under a service
    agreement with the licensee, and its licence (reg 25(2)-(5)). Dates are calendar dates;
    those before the run starts are recorded at t = 0 with their dates as fields."""

    id: Ident
    kind: Literal["person", "company"] = "person"
    name: NonEmptyStr
    #: a person's address, a company's registered address
    address: NonEmptyStr
    #: a person's identification number, a company's registration number
    id_number: NonEmptyStr
    representatives: tuple[JunketRepresentative, ...] = Field(default=(), strict=False)
    #: the day the licensee applied for the leader's licence with its particulars (reg 25(2))
    applied: date
    agreement_supplied: bool = True  # a copy of the service agreement went with them
    licence_number: NonEmptyStr
    licence_issued: date
    #: renewals of the licence by the Board (reg 25(5)), each for a further term
    renewals: tuple[date, ...] = Field(default=(), strict=False)
    services_start: date
    #: the end of the leader's services as the licence specifies it (None: open-ended)
    services_end: date | None = None

    @model_validator(mode="after")
    def _dates(self) -> JunketLeader:
        if self.licence_issued < self.applied:
            raise invalid(f"a date on or after applied ({self.applied})",
                          key="licence_issued", found=self.licence_issued)  # fmt: skip
        if self.services_end is not None and self.services_end <= self.services_start:
            raise invalid(f"a date after services_start ({self.services_start})",
                          key="services_end", found=self.services_end)  # fmt: skip
        for i, r in enumerate(self.renewals):
            before = self.renewals[i - 1] if i else self.licence_issued
            if r <= before:
                raise invalid(f"a date after {before}", key=f"renewals[{i}]", found=r)
        return self


class JunketSchedule(_Model):
    """``[[junkets.schedules]]``: junkets arriving on a schedule, ``every_days`` apart from
    ``first_arrival_hours`` (hours after the run starts); junket ``k`` is ``<prefix><k>``
    and its members ``<prefix><k>-M<n>``. ``leader`` omitted: junkets the licensee organises
    itself (reg 25(7))."""

    prefix: Annotated[
        str, expect("1 to 4 capital letters", lambda v: bool(_JUNKET_PREFIX.match(v)))
    ]
    leader: Ident | None = None
    first_arrival_hours: NonNegativeFloat
    every_days: PositiveInt = 7
    count: PositiveInt | None = None  # how many junkets (default: as many as the run holds)
    members: PositiveInt = 6
    stay_hours: PositiveFloat = 48.0
    #: hours before arrival the licensee notifies the Board (reg 25(6): at least 48); the
    #: desk's ``[junkets.policy] notice_hours``, when set, replaces it
    notice_hours: NonNegativeFloat = 72.0
    #: the Board dispensed with the 48 hours (reg 25(6) proviso): the particulars are due
    #: before junket gaming starts
    dispensation: bool = False
    countries: tuple[CountryCode, ...] = Field(default=("IT",), strict=False, min_length=1)
    deposit_cents: PositiveInt  # each member's front-money deposit, in the floor's cents
    stake_cents: PositiveInt  # each round's stake of rolling (junket) chips
    session_hours: PositiveFloat = 2.0
    rest_hours: PositiveFloat = 3.0  # mean rest between a member's sessions
    #: machine tokens each member buys at a cash desk with junket chips (0: none)
    tokens_cents: NonNegativeInt = 0
    commission_bp: NonNegativeInt = 0  # the leader's commission on rolling turnover
    rebate_bp: NonNegativeInt = 0  # rebate on each member's net loss
    #: the share of members domiciled in the ruleset's junket_home_country (Malta) though
    #: resident abroad (in one of ``countries``); drawn per member on the junket's own
    #: stream (junket, "domicile"), only when above 0
    home_domiciled_share: Share = 0.0

    def junket_ids(self, duration_hours: float) -> list[str]:
        """The ids of the junkets that arrive before the run ends (at most ``count``)."""
        out: list[str] = []
        k = 0
        while self.count is None or k < self.count:
            if self.first_arrival_hours + 24.0 * self.every_days * k >= duration_hours:
                break
            k += 1
            out.append(f"{self.prefix}{k}")
        return out


class JunketPolicy(_Model):
    """``[junkets.policy]``: the junket desk's own procedures (issue 34). The controls of reg
    25 read only the ruleset and the records, never this: a desk looser than the law is a
    legal scenario whose breaches are found, a stricter one is clean and shows its cost.

    ``notice_hours`` and ``leader_notice_days`` are the desk's working numbers: when set, the
    desk acts exactly that long ahead for every junket and every leader; None keeps each
    schedule's ``notice_hours`` and each leader's ``applied`` date (the scenario's, which
    the law bounds: reg 25(6)'s 48 hours, 25(2)'s 14 days). ``max_representatives`` and
    ``accept_home_residents`` are what the desk accepts, by default the law."""

    #: hours before each junket's arrival the desk notifies the Board (reg 25(6), 25(7));
    #: None: each schedule's ``notice_hours``
    notice_hours: NonNegativeFloat | None = None
    #: days before a leader's services start the desk gives the Board the leader's
    #: particulars, its application (reg 25(2)); None: each leader's ``applied`` date
    leader_notice_days: NonNegativeInt | None = None
    #: the most representatives of a leader the desk registers, the first the leader names
    #: (reg 25(4)); None: the ruleset's ``junket_max_representatives``
    max_representatives: NonNegativeInt | None = None
    #: reg 25(1): junket members "shall be domiciled and resident outside Malta". The
    #: members' residence is scenario data (a schedule's ``countries``); whom the desk
    #: accepts is policy. False (the law): the desk turns away, before the junket is
    #: notified, every member resident in the ruleset's ``junket_home_country``; True: it
    #: accepts them. (The domicile is not on the particulars the desk sees: a member domiciled
    #: in Malta though resident abroad, ``home_domiciled_share``, comes either way.)
    accept_home_residents: bool = False


class JunketsConfig(_Model):
    """``[junkets]``: the junket room (its tables play ``game``), the front-money desk, the
    junket leaders and the schedules of junkets, and the desk's procedures (``policy``)."""

    #: a table game file, relative to the scenario's folder (read when the casino is built)
    game: Annotated[Path, BeforeValidator(_resolve_table_game)]
    bet: Ident | None = None  # the bet junket players make (default: the game's main bet)
    tables: PositiveInt = 1
    desk: Ident = "FM-1"
    #: the Board's minimum stake (reg 21(1)) and authorised maximum (reg 21(3)) of the junket
    #: room's game, for a casino without a [tables] section (with one, the Board's figures
    #: are [tables].board_minimum_cents / authorised_maximum_cents, which must name the game)
    board_minimum_cents: Cents | None = None
    authorised_maximum_cents: Cents | None = None
    #: the stakes of the junket room's tables, as the entrance notice lists them (reg 22(a));
    #: default: the lowest and the highest ``stake_cents`` of the schedules
    min_stake_cents: Cents | None = None
    max_stake_cents: Cents | None = None
    leaders: tuple[JunketLeader, ...] = Field(default=(), strict=False)
    schedules: tuple[JunketSchedule, ...] = Field(default=(), strict=False, min_length=1)
    policy: JunketPolicy = Field(default_factory=JunketPolicy)

    @property
    def room_stakes(self) -> tuple[int, int]:
        """The junket room tables' minimum and maximum stake (cents)."""
        stakes = [s.stake_cents for s in self.schedules] or [0]
        lo = self.min_stake_cents if self.min_stake_cents is not None else min(stakes)
        hi = self.max_stake_cents if self.max_stake_cents is not None else max(stakes)
        return lo, hi

    @model_validator(mode="after")
    def _refs(self) -> JunketsConfig:
        lo, hi = self.board_minimum_cents, self.authorised_maximum_cents
        if (lo is None) != (hi is None):
            key = "authorised_maximum_cents" if hi is None else "board_minimum_cents"
            raise invalid("a value too (the Board's minimum and authorised maximum go "
                          "together)", key=key, found=MISSING)  # fmt: skip
        if lo is not None and hi is not None and hi < lo:
            raise invalid(f"an amount >= board_minimum_cents ({lo})",
                          key="authorised_maximum_cents", found=hi)  # fmt: skip
        low, high = self.room_stakes
        if self.min_stake_cents is not None and self.max_stake_cents is not None and high < low:
            raise invalid(f"an amount >= min_stake_cents ({low})", key="max_stake_cents",
                          found=high)  # fmt: skip
        for i, s in enumerate(self.schedules):
            if not low <= s.stake_cents <= high:
                raise invalid(f"a stake within the junket room's stakes ({low}-{high} cents)",
                              key=f"schedules[{i}].stake_cents", found=s.stake_cents)  # fmt: skip
        _check_unique([x.id for x in self.leaders], "leaders", "id", "leader id")
        _check_unique([x.prefix for x in self.schedules], "schedules", "prefix", "prefix")
        leaders = [x.id for x in self.leaders]
        for i, s in enumerate(self.schedules):
            if s.leader is not None and s.leader not in leaders:
                raise invalid(_one_of(leaders, "the id of a junket leader"),
                              key=f"schedules[{i}].leader", found=s.leader)  # fmt: skip
            if s.leader is None and s.commission_bp:
                raise invalid(
                    "0 (a junket the licensee organises has no leader to pay)",
                    key=f"schedules[{i}].commission_bp", found=s.commission_bp,
                )  # fmt: skip
        return self


# [premium] premium players and deposit accounts (Singapore, issue 11)
#: To whom the premium desk provides credit (the operator's or an international market
#: agent's) as a deposit: reg 2A(1)(e) allows it only for a patron who is neither a citizen
#: nor a permanent resident of Singapore, and 2A(2) limits citizens and PRs to 2A(1)(a)-(d).
CreditTo = Literal["foreigners", "everyone", "nobody"]


class PremiumPolicy(_Model):
    """``[premium.policy]``: the operator's own premium desk (issue 34). Every key defaults
    to what the ruleset requires; the SG10 controls read only the ruleset and the records, so
    a desk looser than the law is a legal scenario whose breaches are found (a desk granting
    the status from S$50,000: SG10.R3 on each such grant; credit to everyone: SG10.R2A.1e on
    each credit to a citizen or PR), and one that gives no credit is clean and shows its cost
    (no credit extended)."""

    #: the balance (cents) from which the desk grants, keeps, renews and restores the status
    #: (regs 3, 4(2)-(4)) and that the desk asks players to keep on the account; None: the
    #: ruleset's ``min_balance_cents``
    min_balance_cents: NonNegativeInt | None = None
    #: to whom the desk provides credit as a deposit (reg 2A(1)(e), 2A(2)): "foreigners" (the
    #: law: neither citizens nor permanent residents), "everyone", or "nobody"
    credit_to: CreditTo = "foreigners"


class PremiumConfig(_Model):
    """The premium-player room (``[premium]``, docs/scenario-premium.md): ``players``
    premium players (ids PP0001...) whose deposit accounts opened up to ``history_months``
    before the start (their history is recorded at t = 0), a share of them citizens and
    permanent residents, playing ``table_game`` at ``tables`` tables of the room."""

    players: Annotated[int, expect("an integer from 1 to 999", lambda v: 1 <= v <= 999)] = 40
    history_months: Annotated[int, expect("an integer from 0 to 120", lambda v: 0 <= v <= 120)] = 24
    citizen_share: Share = 0.2
    pr_share: Share = 0.15
    table_game: Annotated[Path, BeforeValidator(_resolve_game)]
    tables: Annotated[int, expect("an integer from 1 to 20", lambda v: 1 <= v <= 20)] = 2
    #: a player's mean visits to the room a week (each a session of ``session_rounds``)
    visits_per_week: NonNegativeFloat = 2.0
    session_rounds: PositiveInt = 60
    #: a player's stake a round, as a share of the chips drawn for the session
    stake_share: Annotated[float, expect("a share in (0, 1]", lambda v: 0 < v <= 1)] = 0.02
    #: mean days between a player's account events other than play (top-ups, withdrawals...)
    days_between_events: PositiveFloat = 12.0
    policy: PremiumPolicy = Field(default_factory=PremiumPolicy)

    @model_validator(mode="after")
    def _shares(self) -> PremiumConfig:
        if self.citizen_share + self.pr_share > 1:
            raise invalid(
                "citizen_share + pr_share at most 1",
                key="pr_share",
                found=self.citizen_share + self.pr_share,
            )
        return self


# [aml] (regs 45-51): the anti-money-laundering function, and launderers (issue 11)

#: the laundering strategies the twin knows (twin.aml.launderers)
STRATEGIES = ("structuring", "minimal_play", "chip_passing", "junket_abuse", "slot_bill_route")


class LaundererGroup(_Model):
    """``[[aml.launderers]]``: ``count`` launderers of one ``strategy``, each making
    ``visits`` laundering visits, the first within ``first_days`` of the start, then one
    every ``gap_days``; ``amount_cents`` the money laundered on a visit (or on a gaming day
    of visits, for the strategies that split a day into visits)."""

    strategy: Annotated[str, expect("one of " + ", ".join(STRATEGIES), lambda v: v in STRATEGIES)]
    count: Annotated[int, expect("an integer from 1 to 500", lambda v: 1 <= v <= 500)] = 1
    visits: Annotated[int, expect("an integer from 1 to 100", lambda v: 1 <= v <= 100)] = 4
    first_days: NonNegativeFloat = 7.0
    gap_days: NonNegativeDist = Triangular(low=2.0, mode=4.0, high=10.0)
    amount_cents: NonNegativeDist = Triangular(low=500_000.0, mode=800_000.0, high=1_500_000.0)
    play_minutes: NonNegativeDist = Triangular(low=5.0, mode=10.0, high=25.0)


class AmlPolicy(_Model):
    """``[aml.policy]``: the licensee's own AML procedure (issue 34). Every key defaults to
    what the ruleset requires; the controls read only the ruleset, so a procedure looser than
    the law is a legal scenario whose breaches are found, and a stricter one is clean and
    shows its cost (identifications, reports)."""

    #: the amount above which the desk identifies, in cents of the regulation's currency
    #: (like the ruleset's ``aml_id_threshold_cents``; None: the ruleset's)
    id_threshold_cents: NonNegativeInt | None = None
    #: the desk's window for adding up (None: the ruleset's ``aml_session_is_gaming_day`` and
    #: ``aml_aggregate_in_out_separately``)
    session_is_gaming_day: bool | None = None
    aggregate_in_out_separately: bool | None = None
    #: whether the licensee appoints (and notifies) a Reporting Officer (reg 50(1))
    appoint_reporting_officer: bool = True


class AmlConfig(_Model):
    """``[aml]`` (docs/scenario-aml.md): the licensee's anti-money-laundering function and
    the launderers the twin sends in. Shares in [0, 1]; money in cents of the floor's
    currency. Needs the ``[entrance]`` (sessions begin at the door, reg 45) and ``[cage]``
    sections."""

    #: the Reporting Officer (50(1)): a named manager with office hours, every day
    officer: NonEmptyStr = "MLRO-01"
    officer_name: NonEmptyStr = "Reporting Officer"
    officer_grade: NonEmptyStr = "Senior Manager"
    officer_designation: NonEmptyStr = "Money Laundering Reporting Officer"
    appointed_days_before: NonNegativeInt = 400
    office_opens: HHMM = time(9, 0)
    office_closes: HHMM = time(17, 0)
    evaluation_minutes: NonNegativeDist = Triangular(low=10.0, mode=30.0, high=90.0)
    report_minutes: NonNegativeDist = Triangular(low=10.0, mode=20.0, high=60.0)
    #: employees trained before the start; the rest come on shift untrained (reg 48)
    trained_share: Share = 1.0
    #: the chance an employee notices a red flag in front of them, trained or not
    notice_trained: Share = 0.7
    notice_untrained: Share = 0.15
    #: a cash-out from this amount, after wagering less than ``minimal_play_ratio`` x the
    #: chips and tokens bought in the window, is a red flag ("minimal_play")
    flag_min_cents: NonNegativeInt = 100_000
    minimal_play_ratio: NonNegativeFloat = 0.25
    #: ``near_threshold_count`` buy-ins or cash-outs in one window, each between
    #: ``near_threshold_share`` of the identification threshold and the threshold
    near_threshold_share: Share = 0.75
    near_threshold_count: PositiveInt = 2
    #: the Reporting Officer reports when the patron's reports reach this many (a cash-out
    #: that does not cross-reference to its buy-in, or not from winnings, at once)
    reports_to_suspect: PositiveInt = 2
    launderers: tuple[LaundererGroup, ...] = Field(default=(), strict=False)
    policy: AmlPolicy = Field(default_factory=AmlPolicy)

    @model_validator(mode="after")
    def _office(self) -> AmlConfig:
        if self.office_closes <= self.office_opens:
            raise invalid(
                f"a time after office_opens ({self.office_opens:%H:%M})",
                key="office_closes", found=self.office_closes.strftime("%H:%M"),
            )  # fmt: skip
        return self


# -- end of the rest of the casino -----------------------------------------------------------------


class FaultsConfig(_Model):
    """Mean time between faults per machine in hours (0 disables); door checks per day."""

    tilt_mtbf_hours: NonNegativeFloat = 400.0
    coin_in_jam_mtbf_hours: NonNegativeFloat = 900.0
    bill_jam_mtbf_hours: NonNegativeFloat = 700.0
    hopper_jam_mtbf_hours: NonNegativeFloat = 1200.0
    reverse_coin_mtbf_hours: NonNegativeFloat = 2000.0
    ram_error_mtbf_hours: NonNegativeFloat = 0.0
    power_loss_mtbf_hours: NonNegativeFloat = 5000.0
    door_checks_per_day: NonNegativeFloat = 0.3


# --- the scenario --------------------------------------------------------------------------


class Scenario(_Model):
    """A whole scenario file. Attribute paths mirror TOML key paths."""

    scenario: ScenarioInfo
    ruleset: RulesetConfig
    floor: FloorConfig
    patrons: PatronsConfig
    staff: StaffConfig
    faults: FaultsConfig = FaultsConfig()
    inject: tuple[Inject, ...] = Field(default=(), strict=False)
    conversions: tuple[Conversion, ...] = Field(default=(), strict=False)
    promotions: tuple[Promotion, ...] = Field(default=(), strict=False)
    removals: tuple[Removal, ...] = Field(default=(), strict=False)
    hardware: tuple[HardwareBinding, ...] = Field(default=(), strict=False)  # issue 8
    # -- issue 10: the rest of the casino (each section optional) --
    # entrance
    entrance: EntranceConfig | None = None

    # tables
    tables: TablesConfig | None = None
    # cage
    cage: CageConfig | None = None

    # junkets

    # premium (issue 11)

    junkets: JunketsConfig | None = None
    premium: PremiumConfig | None = None
    # anti-money laundering (issue 11)
    aml: AmlConfig | None = None
    # -- end issue 10 --

    _source_path: Path | None = PrivateAttr(default=None)
    _source_sha256: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        machine_ids = set(self.all_machine_ids())
        for i, inj in enumerate(self.inject):
            if inj.machine is not None and inj.machine not in machine_ids:
                raise invalid(
                    "the id of a machine on the floor (e.g. "
                    f"{sorted(machine_ids)[0] if machine_ids else 'A-001'})",
                    key=f"inject[{i}].machine",
                    found=inj.machine,
                )
        promotional = {b.id for b in self.floor.banks if b.promotional}
        for i, promo in enumerate(self.promotions):
            if promo.bank not in promotional:
                raise invalid(
                    f"the id of a bank with promotional = true ({', '.join(sorted(promotional))})"
                    if promotional else "the id of a bank with promotional = true (none is)",
                    key=f"promotions[{i}].bank",
                    found=promo.bank,
                )  # fmt: skip
        for i, rem in enumerate(self.removals):
            if rem.machine not in machine_ids:
                raise invalid(
                    "the id of a machine on the floor", key=f"removals[{i}].machine",
                    found=rem.machine,
                )  # fmt: skip
            if rem.machine in {h.machine for h in self.hardware}:
                raise invalid(
                    "a simulated machine (a hardware-bound one is taken out on the bench)",
                    key=f"removals[{i}].machine", found=rem.machine,
                )  # fmt: skip
            if rem.sold and rem.return_hours is not None:
                raise invalid(
                    "no return_hours for a machine sold (it leaves the licensee's ownership)",
                    key=f"removals[{i}].return_hours", found=rem.return_hours,
                )  # fmt: skip
            if rem.return_hours is not None and rem.return_hours <= rem.at_hours:
                raise invalid(
                    f"a time after at_hours ({rem.at_hours:g})",
                    key=f"removals[{i}].return_hours", found=rem.return_hours,
                )  # fmt: skip
            for hours, key in ((rem.at_hours, "at_hours"), (rem.return_hours, "return_hours")):
                if hours is not None and hours * 3600.0 >= self.duration_seconds:
                    raise invalid(
                        f"a time before the run ends (under {self.duration_seconds / 3600.0:g} h)",
                        key=f"removals[{i}].{key}", found=hours,
                    )  # fmt: skip
        self._check_hardware(machine_ids)
        for i, conv in enumerate(self.conversions):
            if conv.machine not in machine_ids:
                raise invalid(
                    "the id of a machine on the floor", key=f"conversions[{i}].machine",
                    found=conv.machine,
                )  # fmt: skip
        if machine_ids:
            for role, jobs in ROLES_NEEDED.items():
                if self.staff.head_count(role) == 0:
                    crews = {r.id: self.staff.head_count(r.id) for r in self.staff.roles}
                    raise invalid(
                        f"a role {role!r} with a head count > 0 in some shift's crew "
                        f"({jobs} on the floor's {len(machine_ids)} machines need one)",
                        key="staff.shifts",
                        found=_Plain(
                            "crews over all shifts: "
                            + ", ".join(f"{k} = {v}" for k, v in crews.items())
                        ),
                    )
        zones = self.zones()
        for i, seg in enumerate(self.patrons.segments):
            for j, zone in enumerate(seg.zones):
                if zone not in zones:
                    raise invalid(
                        _one_of(zones, "a zone of a floor bank"),
                        key=f"patrons.segments[{i}].zones[{j}]",
                        found=zone,
                    )
        if self.aml is not None:
            for name in ("entrance", "cage"):
                if getattr(self, name) is None:
                    raise invalid(
                        f"a [{name}] section beside [aml] (sessions begin at the door, reg "
                        "45; chips are bought and cashed at the cage)",
                        key="aml", found=_Plain(f"no [{name}]"),
                    )  # fmt: skip
        return self

    def _check_hardware(self, machine_ids: set[str]) -> None:
        """Each ``[[hardware]]`` names a machine of the floor, once, and a SMIB, once."""
        machines: set[str] = set()
        smibs: set[str] = set()
        for i, hw in enumerate(self.hardware):
            if hw.machine not in machine_ids:
                raise invalid(
                    "the id of a machine on the floor (e.g. "
                    f"{sorted(machine_ids)[0] if machine_ids else 'A-001'})",
                    key=f"hardware[{i}].machine",
                    found=hw.machine,
                )
            if hw.machine in machines:
                raise invalid("a machine bound to one SMIB only", key=f"hardware[{i}].machine",
                              found=hw.machine)  # fmt: skip
            if hw.smib in smibs:
                raise invalid("a SMIB bound to one machine only", key=f"hardware[{i}].smib",
                              found=hw.smib)  # fmt: skip
            machines.add(hw.machine)
            smibs.add(hw.smib)

    # provenance

    @property
    def source_path(self) -> Path | None:
        """The absolute path of the file this scenario was loaded from (None if built in memory)."""
        return self._source_path

    @property
    def source_sha256(self) -> str | None:
        """SHA-256 (hex) of the scenario file's bytes, unchanged by ``with_overrides``."""
        return self._source_sha256

    # time

    @property
    def seed(self) -> int:
        return self.scenario.seed

    @property
    def timezone(self) -> str:
        return self.scenario.timezone

    @property
    def duration_hours(self) -> float:
        return self.scenario.duration_hours

    @property
    def duration_seconds(self) -> float:
        return self.scenario.duration_hours * 3600.0

    @property
    def start_datetime(self) -> datetime:
        """The start, timezone-aware, in the scenario's zone."""
        return self.scenario.start_datetime

    @property
    def gaming_day_start(self) -> time:
        return self.scenario.gaming_day_start

    @property
    def opening_hours(self) -> OpeningHours:
        oh = self.scenario.opening_hours
        return OpeningHours(open=oh.open, close=oh.close)

    def clock(self) -> Clock:
        """A ``twin.clock.Clock`` for this scenario's start, zone, gaming day and hours."""
        return Clock(
            self.start_datetime,
            self.timezone,
            gaming_day_start=self.gaming_day_start,
            opening_hours=self.opening_hours,
        )

    # floor

    def zones(self) -> list[str]:
        """The floor's zones in order of first appearance among the banks."""
        return list(dict.fromkeys(b.zone for b in self.floor.banks))

    def all_machine_ids(self) -> list[str]:
        """Every machine id, bank by bank in file order."""
        return [mid for bank in self.floor.banks for mid in bank.machine_ids()]

    @property
    def machine_count(self) -> int:
        return sum(b.count for b in self.floor.banks)

    def bank(self, bank_id: str) -> Bank:
        """The bank with id ``bank_id`` (KeyError if none)."""
        for b in self.floor.banks:
            if b.id == bank_id:
                return b
        raise KeyError(bank_id)

    def progressive(self, progressive_id: str) -> Progressive:
        """The progressive with id ``progressive_id`` (KeyError if none)."""
        for p in self.floor.progressives:
            if p.id == progressive_id:
                return p
        raise KeyError(progressive_id)

    # overrides

    def with_overrides(
        self, seed: int | None = None, duration_hours: float | None = None
    ) -> Scenario:
        """A copy with a different seed and/or duration (the CLI's --seed/--hours/--days).

        Bad values raise ``InputError`` with source "command line" and the scenario key.
        """
        update: dict[str, Any] = {}
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise InputError("command line", "scenario.seed", "an integer >= 0", seed)
            update["seed"] = seed
        if duration_hours is not None:
            if (
                isinstance(duration_hours, bool)
                or not isinstance(duration_hours, int | float)
                or not math.isfinite(duration_hours)
                or duration_hours <= 0
            ):
                raise InputError(
                    "command line", "scenario.duration_hours", "a positive number", duration_hours
                )
            update["duration_hours"] = float(duration_hours)
        if not update:
            return self
        info = self.scenario.model_copy(update=update)
        return self.model_copy(update={"scenario": info})


# --- loading -------------------------------------------------------------------------------


def load_scenario(path: str | Path, overrides: Iterable[tuple[str, Any]] = ()) -> Scenario:
    """Read, parse and validate a scenario file; any problem raises one ``InputError``.

    Game paths are resolved relative to the scenario file's directory. ``overrides`` are
    ``(key path, value)`` pairs (``twin.overrides``) set before validation; an invalid value
    is reported against the override that set it.
    """
    source = str(path)
    file = Path(path)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise InputError(source, "", "an existing scenario file", _Plain("no such file")) from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(source, "", "a readable scenario file", _Plain(reason)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            source, "", "UTF-8 encoded TOML", _Plain(f"an invalid byte at offset {exc.start}")
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, "", "valid TOML", _Plain(_toml_reason(str(exc)))) from None
    scenario = _validate_with_overrides(data, overrides, source, file.resolve().parent)
    scenario._source_path = file.resolve()
    scenario._source_sha256 = hashlib.sha256(raw).hexdigest()
    return scenario


def _validate_with_overrides(
    data: Mapping[str, Any],
    overrides: Iterable[tuple[str, Any]],
    source: str,
    base_dir: Path | None,
) -> Scenario:
    from twin import overrides as ov

    pairs = list(overrides)
    doc = ov.apply(data, pairs) if pairs else dict(data)
    try:
        return parse_scenario(doc, source=source, base_dir=base_dir)
    except InputError as exc:
        for key, value in pairs:
            # the key it set, one inside it, or one it made up (--set foo.bar=4: `foo`)
            made = key.startswith((f"{exc.key}.", f"{exc.key}[")) and not ov.exists(data, key)
            if exc.key == key or exc.key.startswith((f"{key}.", f"{key}[")) or made:
                raise InputError(
                    f"{ov.SOURCE} (--set {key}={value!r})", exc.key, exc.expected, exc.found
                ) from None
        raise


def with_settings(scenario: Scenario, overrides: Iterable[tuple[str, Any]]) -> Scenario:
    """A copy of an already validated ``scenario`` with ``overrides`` set, validated again."""
    pairs = list(overrides)
    if not pairs:
        return scenario
    data = _listify(scenario.model_dump(mode="python"))
    base = scenario.source_path.parent if scenario.source_path is not None else None
    source = str(scenario.source_path or "<scenario>")
    out = _validate_with_overrides(data, pairs, source, base)
    out._source_path = scenario._source_path
    out._source_sha256 = scenario._source_sha256
    return out


_M = TypeVar("_M", bound=BaseModel)


def load_toml_model(path: Path, model: type[_M]) -> _M:
    """A TOML file validated against ``model`` (a pydantic model of a whole file): any
    problem, from an unreadable file to a bad value, is one ``InputError`` naming the file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, "", "a readable UTF-8 TOML file", str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, "", "valid TOML", str(exc)) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise translate_validation_error(exc, path, model) from None


def _listify(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _listify(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_listify(v) for v in value]
    return value


def parse_scenario(
    data: Mapping[str, Any], *, source: str | Path = "<scenario>", base_dir: Path | None = None
) -> Scenario:
    """Validate already-parsed TOML data (game paths relative to ``base_dir``, default cwd)."""
    try:
        return Scenario.model_validate(
            dict(data), context={"base_dir": base_dir if base_dir is not None else Path.cwd()}
        )
    except ValidationError as exc:
        raise translate_validation_error(exc, source, Scenario) from None


def _toml_reason(message: str) -> str:
    m = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if m is None:
        m2 = re.search(r"\(at end of document\)", message)
        reason = message.replace("(at end of document)", "").strip()
        return f"at end of document: {reason}" if m2 else message
    reason = (message[: m.start()] + message[m.end() :]).strip()
    return f"line {m.group(1)}, column {m.group(2)}: {reason}"


# --- pydantic ValidationError -> InputError ------------------------------------------------


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


MISSING = _Missing()

_TYPE_NAMES: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "string_type": "a string",
    "bool_type": "a boolean (true or false)",
    "bool_parsing": "a boolean (true or false)",
    "tuple_type": "an array",
    "list_type": "an array",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "datetime_type": "a TOML datetime such as 2026-03-02T10:00:00 (not quoted)",
    "datetime_parsing": "a TOML datetime such as 2026-03-02T10:00:00 (not quoted)",
    "date_type": "a TOML date such as 2025-06-01 (not quoted)",
    "date_parsing": "a TOML date such as 2025-06-01 (not quoted)",
    "date_from_datetime_inexact": "a TOML date such as 2025-06-01 (not quoted)",
    "time_type": 'a time "HH:MM"',
    "path_type": "a path (a string)",
}

_PRIMITIVE_TAGS = {"int", "float", "str", "bool", "none", "list", "tuple", "dict", "is-instance"}


def translate_validation_error(
    exc: ValidationError, source: str | Path, root: type[BaseModel]
) -> InputError:
    """Turn the first error of ``exc`` (validating ``root``) into an ``InputError``."""
    err = exc.errors(include_url=False)[0]
    etype = err["type"]
    ctx: dict[str, Any] = dict(err.get("ctx") or {})
    found: object = err.get("input")
    key, parent = _key_path(root, err["loc"])

    if etype == "expected":
        expected = str(ctx["expected"])
        if "key" in ctx:
            key = _join(key, str(ctx["key"]))
        if "found" in ctx:
            found = ctx["found"]
    elif etype == "extra_forbidden":
        allowed = ", ".join(_aliases(parent)) if parent is not None else "?"
        expected = f"no such key (allowed: {allowed})"
    elif etype == "missing":
        expected = "a value for this required key"
        found = MISSING
    elif etype == "literal_error":
        expected = "one of " + str(ctx.get("expected", "")).replace(" or ", ", ")
    elif etype == "union_tag_invalid":
        key = _join(key, "dist")
        expected = "one of " + str(ctx.get("expected_tags", ""))
        found = ctx.get("tag")
    elif etype == "union_tag_not_found":
        tags = ", ".join(f"'{t}'" for t in _DIST_TAGS)
        expected = f"a distribution table with a 'dist' key (one of {tags})"
    elif etype in _TYPE_NAMES:
        expected = _TYPE_NAMES[etype]
        if etype in ("model_attributes_type", "model_type") and _is_distribution_key(
            root, err["loc"]
        ):
            expected = 'a distribution table such as { dist = "fixed", value = 1 }'
    else:
        msg = str(err.get("msg", "a valid value"))
        expected = msg[len("Input should be ") :] if msg.startswith("Input should be ") else msg
    return InputError(source, key, expected, found)


_DIST_TAGS = ("fixed", "uniform", "exponential", "lognormal", "normal", "triangular", "choice")


def _key_part(k: object) -> str:
    if isinstance(k, int):
        return f"[{k}]"
    s = str(k)
    return s if re.fullmatch(r"[A-Za-z0-9_-]+", s) else '"' + s.replace('"', '\\"') + '"'


def _join(path: str, part: str) -> str:
    if not path:
        return part
    if part.startswith("["):
        return path + part
    return f"{path}.{part}"


def _aliases(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _unwrap(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _model_field(model: type[BaseModel], name: str) -> Any:
    for fname, f in model.model_fields.items():
        if name in (fname, f.alias):
            return f.annotation
    return None


def _key_path(
    root: type[BaseModel], loc: Sequence[int | str]
) -> tuple[str, type[BaseModel] | None]:
    """The human key path of a pydantic ``loc``, and the model owning its last element.

    Walks the schema alongside ``loc`` to drop the tags pydantic inserts for unions
    (a distribution's ``dist`` value, ``'int'``/``'str'`` alternatives, validator names).
    """
    path = ""
    cur: Any = root
    owner: type[BaseModel] | None = None
    for part in loc:
        cur = _unwrap(cur)
        if _is_union(cur):
            members = [_unwrap(m) for m in get_args(cur)]
            picked = None
            for m in members:
                if isinstance(m, type) and issubclass(m, BaseModel):
                    tag = m.model_fields.get("dist")
                    if tag is not None and tag.default == part:
                        picked = m
            if picked is not None:
                cur = picked
                continue
            if isinstance(part, str) and (part in _PRIMITIVE_TAGS or "[" in part):
                continue
            non_none = [m for m in members if m is not type(None)]
            cur = non_none[0] if len(non_none) == 1 else None
        if isinstance(cur, type) and issubclass(cur, BaseModel):
            owner = cur
            path = _join(path, _key_part(part))
            cur = _model_field(cur, str(part))
            continue
        origin = get_origin(cur)
        args = get_args(cur)
        if origin in (tuple, list) and isinstance(part, int):
            path = _join(path, _key_part(part))
            cur = args[0] if args else None
        elif origin is dict:
            path = _join(path, _key_part(part))
            cur = args[1] if len(args) == 2 else None
        else:
            path = _join(path, _key_part(part))
            cur = None
    return path, owner


def _is_distribution_key(root: type[BaseModel], loc: Sequence[int | str]) -> bool:
    cur: Any = root
    for part in loc:
        cur = _unwrap(cur)
        if isinstance(cur, type) and issubclass(cur, BaseModel):
            cur = _model_field(cur, str(part))
        elif get_origin(cur) in (tuple, list):
            cur = get_args(cur)[0]
        else:
            return False
    cur = _unwrap(cur)
    return _is_union(cur) and any(
        isinstance(m, type) and issubclass(m, BaseModel) and "dist" in m.model_fields
        for m in (_unwrap(a) for a in get_args(cur))
    )


# --- small helpers used by validators ------------------------------------------------------


def _check_unique(values: list[str], array: str, field: str, what: str) -> None:
    seen: dict[str, int] = {}
    for i, v in enumerate(values):
        if v in seen:
            raise invalid(
                f"a unique {what} (already used by {array}[{seen[v]}])",
                key=f"{array}[{i}].{field}" if field else f"{array}[{i}]",
                found=v,
            )
        seen[v] = i


def _one_of(options: Sequence[str], fallback: str) -> str:
    if not options:
        return f"{fallback} (none defined)"
    return "one of " + ", ".join(repr(o) for o in options)
