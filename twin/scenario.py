"""The scenario's kernel: a TOML file's time, seed, ruleset and injections, the field types every
section shares, and how a file is read and its errors reported.

Each department owns its section (``twin.<department>.section``); the assembly composes the
whole file's model (``twin.departments.Scenario``). ``load_scenario_as(model, path)`` reads and
validates a scenario file. Every problem, from a missing
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
from datetime import UTC, datetime, time
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    Self,
    TypeVar,
    Union,
    get_args,
    get_origin,
)
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
from twin.dists import Distribution, expect, invalid
from twin.errors import InputError

__all__ = [
    "Inject",
    "OpeningHoursConfig",
    "RulesetConfig",
    "ScenarioBase",
    "ScenarioInfo",
    "load_scenario_as",
    "load_toml_model",
    "parse_scenario_as",
    "translate_validation_error",
    "with_settings",
]

_M = TypeVar("_M", bound=BaseModel)
_S = TypeVar("_S", bound=BaseModel)
_B = TypeVar("_B", bound="ScenarioBase")

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


Cents = Annotated[int, expect("a positive integer (cents)", lambda v: v > 0)]

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


def _resolve_optional_game(value: object, info: ValidationInfo) -> object:
    return None if value is None else _resolve_game(value, info)


class Inject(_Model):
    """A violation made to happen on purpose, to prove that a control detects it.

    ``kind`` names an injection (see ``twin.injections``; checked before t = 0);
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


# --- the scenario --------------------------------------------------------------------------


class ScenarioBase(_Model):
    """The kernel's part of a scenario: its time, seed and ruleset, and the violations to
    inject. Every other section belongs to a department (``twin.<department>.section``); the
    assembly (``twin.departments.Scenario``) composes them, one field each, and validates what
    they ask of each other (:meth:`check_sections`). Attribute paths mirror TOML key paths."""

    scenario: ScenarioInfo
    ruleset: RulesetConfig
    if TYPE_CHECKING:
        #: the violations to inject: a field of the composed scenario, declared there in the
        #: file's order (after ``[faults]``); every department's injections read it
        inject: tuple[Inject, ...]

    _source_path: Path | None = PrivateAttr(default=None)
    _source_sha256: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> ScenarioBase:
        self.check_sections()
        return self

    def check_sections(self) -> None:
        """What the sections ask of each other (the assembly's composed scenario overrides)."""

    def section(self, model: type[_S]) -> _S | None:
        """The section of type ``model`` in this scenario (None when absent): how a department
        reads its own section, or another's, typed."""
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, model):
                return value
        return None

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

    # overrides

    def with_overrides(self, seed: int | None = None, duration_hours: float | None = None) -> Self:
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


def load_scenario_as(
    model: type[_B], path: str | Path, overrides: Iterable[tuple[str, Any]] = ()
) -> _B:
    """Read, parse and validate a scenario file as ``model`` (the assembly's composed
    scenario); any problem raises one ``InputError``.

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
    scenario = _validate_with_overrides(model, data, overrides, source, file.resolve().parent)
    scenario._source_path = file.resolve()
    scenario._source_sha256 = hashlib.sha256(raw).hexdigest()
    return scenario


def _validate_with_overrides(
    model: type[_B],
    data: Mapping[str, Any],
    overrides: Iterable[tuple[str, Any]],
    source: str,
    base_dir: Path | None,
) -> _B:
    from twin import overrides as ov

    pairs = list(overrides)
    doc = ov.apply(data, pairs) if pairs else dict(data)
    try:
        return parse_scenario_as(model, doc, source=source, base_dir=base_dir)
    except InputError as exc:
        for key, value in pairs:
            # the key it set, one inside it, or one it made up (--set foo.bar=4: `foo`)
            made = key.startswith((f"{exc.key}.", f"{exc.key}[")) and not ov.exists(data, key)
            if exc.key == key or exc.key.startswith((f"{key}.", f"{key}[")) or made:
                raise InputError(
                    f"{ov.SOURCE} (--set {key}={value!r})", exc.key, exc.expected, exc.found
                ) from None
        raise


def with_settings(scenario: _B, overrides: Iterable[tuple[str, Any]]) -> _B:
    """A copy of an already validated ``scenario`` with ``overrides`` set, validated again."""
    pairs = list(overrides)
    if not pairs:
        return scenario
    data = _listify(scenario.model_dump(mode="python"))
    base = scenario.source_path.parent if scenario.source_path is not None else None
    source = str(scenario.source_path or "<scenario>")
    out = _validate_with_overrides(type(scenario), data, pairs, source, base)
    out._source_path = scenario._source_path
    out._source_sha256 = scenario._source_sha256
    return out


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


def parse_scenario_as(
    model: type[_B],
    data: Mapping[str, Any],
    *,
    source: str | Path = "<scenario>",
    base_dir: Path | None = None,
) -> _B:
    """Validate already-parsed TOML data (game paths relative to ``base_dir``, default cwd)."""
    try:
        return model.model_validate(
            dict(data), context={"base_dir": base_dir if base_dir is not None else Path.cwd()}
        )
    except ValidationError as exc:
        raise translate_validation_error(exc, source, model) from None


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


def number_entries(data: Any, array: str, prefix: str) -> Any:
    """A section's raw ``data`` with every table of ``array`` that has no ``id`` numbered in
    order (``W01``, ``W02``... for ``prefix`` "W"), before validation: ids for the tables of
    ``[[lifecycle.works]]`` or ``[[licensing.events]]`` that a finding or a target names."""
    if isinstance(data, dict) and isinstance(data.get(array), list):
        entries = [
            {**e, "id": e.get("id", f"{prefix}{n:02d}")} if isinstance(e, dict) else e
            for n, e in enumerate(data[array], start=1)
        ]
        return {**data, array: entries}
    return data


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
