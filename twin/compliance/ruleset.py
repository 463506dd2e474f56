"""Rulesets: every number a regulation names, as data, with the clause that names it.

A ruleset is a TOML file (``twin/data/rulesets/<name>.toml``) with a ``[meta]`` table and one
``[params.<key>]`` table per parameter::

    [params.min_rtp]
    value = 0.85
    type = "fraction"       # fraction, number, integer, money, days, months, years, hours,
    min = 0.0               #   bool or text; min/max (optional) bound numeric values
    max = 1.0
    cite = "First Schedule, item (1)(a)"
    controls = ["MT98.S1.1a"]
    doc = "Minimum designed payout of a machine, as a fraction of money inserted."
    reading = false         # true: the number is the twin's reading, not the text's
    behaviour = "..."       # optional: what the simulated operation does with the value (a
                            #   parameter that changes behaviour, not only verdicts; issue 12)

The code reads a parameter only through its declaration (``twin.rules.Rule``, in the
``params.py`` of the department that acts on it): ``RULE.of(ruleset)``, ``RULE.money(ruleset)``,
``ctx.rule(RULE)`` in a checker; a missing or retyped parameter is then an ``InputError``.
A proposed rule change is an override (``[ruleset] overrides`` in a scenario, validated
against each parameter's type and bounds) or a whole ruleset file (``load_ruleset_file``).
Every problem is one ``InputError`` naming the source, the key path, what was expected and
what was found.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib.resources import files
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from twin.errors import InputError

__all__ = [
    "PARAM_TYPES",
    "RULESETS",
    "Param",
    "ParamType",
    "Ruleset",
    "load_ruleset",
    "load_ruleset_file",
]

RULESETS = ("malta-1998", "singapore-2010")

ParamType = Literal[
    "fraction", "number", "integer", "money", "days", "months", "years", "hours", "bool", "text"
]
PARAM_TYPES: tuple[ParamType, ...] = (
    "fraction",
    "number",
    "integer",
    "money",
    "days",
    "months",
    "years",
    "hours",
    "bool",
    "text",
)
_REAL_TYPES = frozenset({"fraction", "number"})
_INT_TYPES = frozenset({"integer", "money", "days", "months", "years"})
_INT_NOUNS = {
    "integer": "an integer",
    "money": "a whole number of cents",
    "days": "a whole number of days",
    "months": "a whole number of months",
    "years": "a whole number of years",
}
_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_CONTROL = re.compile(r"^[A-Z][A-Z0-9]*\.[A-Za-z0-9]+(\.[A-Za-z0-9]+)*$")

Scalar = bool | int | float | str


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a ruleset: its value and where the regulation names it."""

    key: str
    value: Scalar
    type: ParamType
    cite: str
    doc: str
    controls: tuple[str, ...]
    reading: bool
    min: float | int | None = None
    max: float | int | None = None
    #: what the simulated operation does with the value ("" when only checkers read it)
    behaviour: str = ""

    def expected(self) -> str:
        """What a valid value of this parameter is, phrased to complete "expected ..."."""
        return _expected(self.type, self.min, self.max)

    def check(self, value: object) -> Scalar | None:
        """``value`` normalised for this parameter (ints to float for reals), or None."""
        return _normalise(self.type, self.min, self.max, value)


@dataclass(frozen=True, slots=True)
class Jurisdiction:
    """Details of the place the regulation governs, for records and reports.

    ``registration_prefix``: how the Board's registration numbers of machines begin;
    ``floor_currency``: the currency the casino trades in today (ISO 4217), which may differ
    from the regulation's own ``currency`` (Malta's 1998 text is in liri; the floor in euro);
    ``date_format``: how reports write a date (``strftime``).
    """

    registration_prefix: str = ""
    floor_currency: str = ""
    date_format: str = "%Y-%m-%d"
    #: the parameter holding how many units of the regulation's currency make one unit of the
    #: floor's (Malta: ``lm_per_eur``, Lm 0.4293 = EUR 1); "" when the two are the same
    exchange_rate_param: str = ""


class Ruleset:
    """A loaded, validated ruleset, with any overrides applied. Read-only."""

    __slots__ = (
        "_defaults",
        "_money",
        "currency",
        "jurisdiction",
        "name",
        "overridden",
        "params",
        "source",
        "title",
    )

    name: str
    title: str
    currency: str
    jurisdiction: Jurisdiction
    source: str
    params: Mapping[str, Param]
    overridden: frozenset[str]
    _defaults: Mapping[str, Scalar]
    _money: dict[str, Fraction]

    def __init__(
        self,
        name: str,
        title: str,
        currency: str,
        params: Mapping[str, Param],
        *,
        overridden: frozenset[str] = frozenset(),
        defaults: Mapping[str, Scalar] | None = None,
        source: str = "",
        jurisdiction: Jurisdiction | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(
            self, "jurisdiction", jurisdiction or Jurisdiction(floor_currency=currency)
        )
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "currency", currency)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "params", MappingProxyType(dict(params)))
        object.__setattr__(self, "overridden", frozenset(overridden))
        base = {k: p.value for k, p in params.items()} if defaults is None else dict(defaults)
        object.__setattr__(self, "_defaults", MappingProxyType(base))
        # money parameters in the floor's cents, worked out once each (the ruleset is
        # read-only; the compliance checkers ask for them on every money record)
        object.__setattr__(self, "_money", {})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Ruleset is read-only (cannot set {name!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        # MappingProxyType does not pickle; rebuild from plain dicts (e.g. for worker processes)
        args = (
            self.name,
            self.title,
            self.currency,
            dict(self.params),
            self.overridden,
            dict(self._defaults),
            self.source,
            self.jurisdiction,
        )
        return (_rebuild, args)

    def __repr__(self) -> str:
        extra = f", overridden={sorted(self.overridden)}" if self.overridden else ""
        return f"Ruleset({self.name!r}, {len(self.params)} params{extra})"

    def _param(self, key: str) -> Param:
        try:
            return self.params[key]
        except KeyError:
            hint = difflib.get_close_matches(key, list(self.params), n=1)
            more = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise KeyError(f"no parameter {key!r} in ruleset {self.name!r}{more}") from None

    def __contains__(self, key: object) -> bool:
        return key in self.params

    def get(self, key: str) -> Any:
        """The value of ``key`` (after overrides); KeyError naming the key and the ruleset."""
        return self._param(key).value

    def exchange_rate(self) -> Fraction:
        """Units of the regulation's currency per unit of the floor's, exactly (from the
        decimal written in the ruleset: 0.4293 is 4293/10000, not a binary float)."""
        key = self.jurisdiction.exchange_rate_param
        return Fraction(1) if not key else Fraction(repr(float(self.get(key))))

    def money(self, key: str) -> Fraction:
        """The money parameter ``key``, stated in the regulation's currency, in the floor's
        cents: exact, so ``cents > rs.money(k)``, ``cents <= rs.money(k)`` and
        ``cents >= rs.money(k)`` each compare as the clause reads (Lm 2,000 is
        EUR 4,658.7468...: EUR 4,658.75 exceeds it, EUR 4,658.74 does not).

        This is the one place the twin converts between the two currencies."""
        cents: Fraction | None = self._money.get(key)
        if cents is None:
            p = self._param(key)
            if p.type != "money":
                raise TypeError(f"{self.name}.{key} is a {p.type}, not money")
            cents = Fraction(int(p.value)) / self.exchange_rate()
            self._money[key] = cents
        return cents

    def money_text(self, key: str, *, least: bool = False) -> str:
        """``key`` as the clause states it and, exactly, in the floor's currency, for
        messages: "MTL 2,000.00 (EUR 4,658.7468…)" (never rounded to a cent on the wrong
        side of the rule); ``least``: a minimum, also giving its first whole cent ("MTL
        1,000.00 (EUR 2,329.3734…: EUR 2,329.38 at least)")."""
        reg = int(self.get(key))
        own = f"{self.currency} {reg / 100:,.2f}"
        floor = self.jurisdiction.floor_currency
        if not self.jurisdiction.exchange_rate_param or floor == self.currency:
            return own
        cents = self.money(key)
        tenths = math.floor(cents * 100 + Fraction(1, 2))  # ten-thousandths of the unit
        text = f"{floor} {tenths // 10_000:,}.{tenths % 10_000:04d}"
        if cents * 100 != tenths:
            text += "…"
        if least and cents.denominator != 1:
            first = math.ceil(cents)
            text += f": {floor} {first // 100:,}.{first % 100:02d} at least"
        return f"{own} ({text})"

    def cite(self, key: str) -> str:
        """The clause that names ``key`` (e.g. "First Schedule, item (1)(a)")."""
        return self._param(key).cite

    def default(self, key: str) -> Any:
        """The value of ``key`` in the ruleset file, before any override."""
        self._param(key)
        return self._defaults[key]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: identity, every value, and each override with its default."""
        return {
            "name": self.name,
            "title": self.title,
            "currency": self.currency,
            "params": {k: p.value for k, p in self.params.items()},
            "overridden": {
                k: {
                    "value": self.params[k].value,
                    "default": self._defaults[k],
                    "cite": self.params[k].cite,
                }
                for k in sorted(self.overridden)
            },
        }


def _rebuild(
    name: str,
    title: str,
    currency: str,
    params: dict[str, Param],
    overridden: frozenset[str],
    defaults: dict[str, Scalar],
    source: str,
    jurisdiction: Jurisdiction,
) -> Ruleset:
    return Ruleset(
        name,
        title,
        currency,
        params,
        overridden=overridden,
        defaults=defaults,
        source=source,
        jurisdiction=jurisdiction,
    )


# --- loading -------------------------------------------------------------------------------


def load_ruleset(
    name: str,
    overrides: Mapping[str, object] | None = None,
    *,
    source: str = "<ruleset>",
    key_prefix: str = "ruleset.overrides",
) -> Ruleset:
    """The packaged ruleset ``name`` with ``overrides`` applied (errors name ``source`` and
    the key path ``<key_prefix>.<key>``, e.g. ``overrides.min_balance_cents`` for the
    overrides of an account timeline)."""
    if not isinstance(name, str) or name not in RULESETS:
        expected = "one of " + ", ".join(repr(n) for n in RULESETS)
        raise InputError(source, "ruleset.name", expected, name)
    return _apply(_packaged(name), overrides, source, key_prefix)


def load_ruleset_file(
    path: str | Path,
    overrides: Mapping[str, object] | None = None,
    *,
    source: str | None = None,
) -> Ruleset:
    """A ruleset file given by path (e.g. a proposed rule change), validated like a packaged
    one; errors name the file and the key path (``params.min_rtp.value``). ``overrides``
    are applied after, with errors naming ``source`` (default: the file)."""
    base = _parse_bytes(_read(Path(path)), str(path))
    return _apply(base, overrides, str(path) if source is None else source, "ruleset.overrides")


@cache
def _packaged(name: str) -> Ruleset:
    resource = files("twin").joinpath("data", "rulesets", f"{name}.toml")
    where = str(resource)
    try:
        raw = resource.read_bytes()
    except OSError as exc:  # pragma: no cover - a broken installation
        raise InputError(where, "", "a packaged ruleset file", exc.strerror or repr(exc)) from None
    ruleset = _parse_bytes(raw, where)
    if ruleset.name != name:
        raise InputError(where, "meta.name", repr(name), ruleset.name)
    return ruleset


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, "", "an existing ruleset file", _Plain("no such file")) from None
    except OSError as exc:
        raise InputError(
            path, "", "a readable ruleset file", _Plain(exc.strerror or type(exc).__name__)
        ) from None


def _parse_bytes(raw: bytes, source: str) -> Ruleset:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            source, "", "UTF-8 encoded TOML", _Plain(f"an invalid byte at offset {exc.start}")
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, "", "valid TOML", _Plain(str(exc))) from None
    try:
        model = _RulesetFile.model_validate(data)
    except ValidationError as exc:
        # imported here: the scenario module may itself come to use rulesets
        from twin.scenario import translate_validation_error

        raise translate_validation_error(exc, source, _RulesetFile) from None
    params = {
        key: Param(
            key=key,
            value=_stored(p.type, p.value),
            type=p.type,
            cite=p.cite,
            doc=p.doc,
            controls=p.controls,
            reading=p.reading,
            min=p.min,
            max=p.max,
            behaviour=p.behaviour,
        )
        for key, p in model.params.items()
    }
    meta = model.meta
    _check_exchange_rate(meta, params, source)
    where = Jurisdiction(
        meta.registration_prefix, meta.floor_currency, meta.date_format, meta.exchange_rate_param
    )
    return Ruleset(meta.name, meta.title, meta.currency, params, source=source, jurisdiction=where)


def _apply(
    base: Ruleset, overrides: Mapping[str, object] | None, source: str, prefix: str
) -> Ruleset:
    if not overrides:
        return base
    if not isinstance(overrides, Mapping):
        raise InputError(source, prefix, "a table of key = value", overrides)
    params = dict(base.params)
    for key, value in overrides.items():
        path = f"{prefix}.{key}"
        param = params.get(key) if isinstance(key, str) else None
        if param is None:
            raise InputError(source, path, _unknown(base, str(key)), key)
        got = param.check(value)
        if got is None:
            raise InputError(source, path, param.expected(), value)
        params[key] = Param(
            key=key,
            value=got,
            type=param.type,
            cite=param.cite,
            doc=param.doc,
            controls=param.controls,
            reading=param.reading,
            min=param.min,
            max=param.max,
            behaviour=param.behaviour,
        )
    return Ruleset(
        base.name,
        base.title,
        base.currency,
        params,
        overridden=base.overridden | frozenset(overrides),
        defaults=base._defaults,
        source=base.source,
        jurisdiction=base.jurisdiction,
    )


def _unknown(base: Ruleset, key: str) -> str:
    close = difflib.get_close_matches(key, list(base.params), n=1)
    if close:
        return f"a parameter of {base.name} (did you mean {close[0]}?)"
    sample = ", ".join(list(base.params)[:3])
    return f"a parameter of {base.name} (e.g. {sample}, ...)"


# --- values, types and bounds --------------------------------------------------------------


def _fmt(x: float | int) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _bounds(lo: float | int | None, hi: float | int | None) -> str:
    if lo is not None and hi is not None:
        return f" from {_fmt(lo)} to {_fmt(hi)}"
    if lo is not None:
        return f" >= {_fmt(lo)}"
    if hi is not None:
        return f" <= {_fmt(hi)}"
    return ""


def _expected(kind: ParamType, lo: float | int | None, hi: float | int | None) -> str:
    if kind == "bool":
        return "a boolean (true or false)"
    if kind == "text":
        return "a string"
    if kind == "fraction":
        return "a fraction" + _bounds(0.0 if lo is None else lo, 1.0 if hi is None else hi)
    if kind == "number":
        return "a number" + _bounds(lo, hi)
    if kind == "hours":
        return "a number of hours" + _bounds(lo, hi)
    return _INT_NOUNS[kind] + _bounds(lo, hi)


def _normalise(
    kind: ParamType, lo: float | int | None, hi: float | int | None, value: object
) -> Scalar | None:
    """``value`` as stored for a parameter of this kind and bounds, or None if invalid."""
    if kind == "bool":
        return value if isinstance(value, bool) else None
    if kind == "text":
        return value if isinstance(value, str) else None
    if isinstance(value, bool):
        return None
    out: int | float
    if kind in _INT_TYPES:
        if not isinstance(value, int):
            return None
        out = value
    elif kind == "hours":  # whole or fractional hours, kept as given
        if not isinstance(value, int | float) or not math.isfinite(value):
            return None
        out = value
    else:
        if not isinstance(value, int | float) or not math.isfinite(value):
            return None
        out = float(value)
        if kind == "fraction" and not 0.0 <= out <= 1.0:
            return None
    if (lo is not None and out < lo) or (hi is not None and out > hi):
        return None
    return out


def _stored(kind: ParamType, value: Scalar) -> Scalar:
    """A validated value as stored: reals (fraction, number) as float."""
    if kind in _REAL_TYPES and not isinstance(value, bool) and isinstance(value, int):
        return float(value)
    return value


# --- the file schema (pydantic) ------------------------------------------------------------


class _Plain(str):
    """A string shown without quotes in an InputError's "found" part."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


def _invalid(expected: str, *, key: str | None = None, found: object = None) -> Exception:
    ctx: dict[str, Any] = {"expected": expected}
    if key is not None:
        ctx["key"] = key
    if found is not None:
        ctx["found"] = found
    return PydanticCustomError("expected", "expected {expected}", ctx)


def _scalar(value: object) -> object:
    if isinstance(value, bool | int | str) or (isinstance(value, float) and math.isfinite(value)):
        return value
    raise _invalid("a boolean, number or string")


def _bound(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _invalid("a finite number")
    return value


def _check_exchange_rate(meta: _Meta, params: Mapping[str, Param], source: str) -> None:
    """Two currencies need a rate between them, held by a positive ``number`` parameter."""
    key = meta.exchange_rate_param
    where = "meta.exchange_rate_param"
    if not key:
        if meta.currency != meta.floor_currency:
            expected = f"the parameter converting {meta.currency} to {meta.floor_currency}"
            raise InputError(source, where, expected, _Plain("none"))
        return
    p = params.get(key)
    if p is None or p.type != "number" or not float(p.value) > 0:
        found = "no such parameter" if p is None else f"a {p.type} of {p.value!r}"
        raise InputError(source, where, "a positive number parameter", _Plain(f"{key} ({found})"))


def _nonempty(value: object) -> object:
    if not isinstance(value, str) or not value.strip():
        raise _invalid("a non-empty string")
    return value


def _controls(value: object) -> object:
    if not isinstance(value, list | tuple):
        raise _invalid('an array of control ids such as "MT98.S1.1a"')
    for i, item in enumerate(value):
        if not isinstance(item, str) or not _CONTROL.match(item):
            raise _invalid('a control id such as "MT98.S1.1a"', key=f"[{i}]", found=item)
    return tuple(value)


_NonEmpty = Annotated[str, BeforeValidator(_nonempty)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class _Meta(_Model):
    name: _NonEmpty
    title: _NonEmpty
    currency: _NonEmpty
    registration_prefix: _NonEmpty
    floor_currency: _NonEmpty
    date_format: _NonEmpty
    exchange_rate_param: str = ""


class _ParamFile(_Model):
    value: Annotated[Any, BeforeValidator(_scalar)]
    type: ParamType
    min: Annotated[Any, BeforeValidator(_bound)] = None
    max: Annotated[Any, BeforeValidator(_bound)] = None
    cite: _NonEmpty
    controls: Annotated[tuple[str, ...], BeforeValidator(_controls)] = Field(strict=False)
    doc: _NonEmpty
    reading: bool = False
    behaviour: str = ""

    @model_validator(mode="after")
    def _check(self) -> _ParamFile:
        numeric = self.type not in ("bool", "text")
        for side in ("min", "max"):
            bound = getattr(self, side)
            if bound is None:
                continue
            if not numeric:
                raise _invalid(f"no {side} for type {self.type}", key=side, found=bound)
            if self.type in _INT_TYPES and not isinstance(bound, int):
                raise _invalid(f"an integer {side} for type {self.type}", key=side, found=bound)
            if self.type == "fraction" and not 0.0 <= bound <= 1.0:
                raise _invalid(f"a {side} from 0 to 1 for a fraction", key=side, found=bound)
        if self.min is not None and self.max is not None and self.min > self.max:
            raise _invalid(f"a max >= min ({_fmt(self.min)})", key="max", found=self.max)
        if _normalise(self.type, self.min, self.max, self.value) is None:
            expected = _expected(self.type, self.min, self.max)
            raise _invalid(expected, key="value", found=self.value)
        return self


def _check_key(value: object) -> object:
    if not isinstance(value, dict):
        raise _invalid("a table of [params.<key>] tables")
    for key in value:
        if not _KEY.match(key):
            raise _invalid("a snake_case parameter name", key=key, found=key)
    return value


class _RulesetFile(_Model):
    meta: _Meta
    params: Annotated[dict[str, _ParamFile], BeforeValidator(_check_key)] = Field(strict=False)
