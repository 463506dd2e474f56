"""The timeline file of one premium-player deposit account (accounts.md, "Timeline file").

JSON: the patron, the patron's residency over time, the events of the account in date order
(several on one day apply in file order) and optional ruleset overrides. Everything is checked
before the replay starts; each problem is one ``InputError`` naming the file, the key path
(``events[3].amount_cents``), what was expected and what was found.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from twin.accounts.forms import ChequeKind, Form, Residency
from twin.accounts.ledger import Ledger, LedgerError
from twin.errors import InputError

__all__ = [
    "EVENT_TYPES",
    "AccountEvent",
    "Timeline",
    "load_timeline",
    "parse_date",
    "parse_timeline",
]

EventType = Literal[
    "open_account",
    "close_account",
    "deposit",
    "cheque_received",
    "cheque_cleared",
    "cheque_dishonoured",
    "drawdown",
    "residency_change",
]
EVENT_TYPES: tuple[EventType, ...] = (
    "open_account",
    "close_account",
    "deposit",
    "cheque_received",
    "cheque_cleared",
    "cheque_dishonoured",
    "drawdown",
    "residency_change",
)

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_date(value: object) -> date | None:
    """``YYYY-MM-DD`` as a calendar date, or None if it is not one."""
    if not isinstance(value, str) or not _ISO.match(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class AccountEvent:
    """One event of the timeline, validated. ``index`` is its position in ``events``."""

    index: int
    date: date
    type: EventType
    form: Form | None = None
    amount_cents: int | None = None
    ref: str | None = None
    kind: ChequeKind | None = None
    to: Residency | None = None

    @property
    def key(self) -> str:
        """The key path of the event in its file (``events[3]``)."""
        return f"events[{self.index}]"


@dataclass(frozen=True, slots=True)
class Timeline:
    """A validated timeline: residency changes (from, value) in date order, the events, and
    the raw ruleset overrides (validated against the ruleset by the caller)."""

    source: str
    patron: str
    residency: tuple[tuple[date, Residency], ...]
    events: tuple[AccountEvent, ...]
    overrides: Mapping[str, object]

    @property
    def first_date(self) -> date:
        return self.events[0].date

    @property
    def last_date(self) -> date:
        return self.events[-1].date


# --- the schema (pydantic) -----------------------------------------------------------------


def _expected(expected: str) -> PydanticCustomError:
    return PydanticCustomError("expected", "expected {expected}", {"expected": expected})


def _date(value: object) -> object:
    if parse_date(value) is None:
        raise _expected("an ISO calendar date YYYY-MM-DD")
    return value


def _amount(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _expected("a positive whole number of cents (an integer > 0)")
    return value


def _text(value: object) -> object:
    if not isinstance(value, str) or not value.strip():
        raise _expected("a non-empty string")
    return value


def _array(value: object) -> object:
    if not isinstance(value, list) or not value:
        raise _expected("a non-empty array")
    return value


def _table(value: object) -> object:
    if not isinstance(value, dict):
        raise _expected("an object of ruleset keys and values")
    return value


_Date = Annotated[str, BeforeValidator(_date)]
_Amount = Annotated[int, BeforeValidator(_amount)]
_Text = Annotated[str, BeforeValidator(_text)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class _ResidencyEntry(_Model):
    from_: _Date = Field(alias="from")  # "from" is a Python keyword
    value: Residency


class _File(_Model):
    patron: _Text
    residency: Annotated[list[_ResidencyEntry], BeforeValidator(_array)]
    events: Annotated[list[Any], BeforeValidator(_array)]
    overrides: Annotated[dict[str, Any], BeforeValidator(_table)] = {}


class _Head(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow", strict=True)
    type: EventType


class _Open(_Model):
    date: _Date
    type: Literal["open_account"]


class _Close(_Model):
    date: _Date
    type: Literal["close_account"]


class _Deposit(_Model):
    date: _Date
    type: Literal["deposit"]
    form: Form
    amount_cents: _Amount


class _ChequeReceived(_Model):
    date: _Date
    type: Literal["cheque_received"]
    ref: _Text
    kind: ChequeKind
    amount_cents: _Amount


class _ChequeCleared(_Model):
    date: _Date
    type: Literal["cheque_cleared"]
    ref: _Text


class _ChequeDishonoured(_Model):
    date: _Date
    type: Literal["cheque_dishonoured"]
    ref: _Text


class _Drawdown(_Model):
    date: _Date
    type: Literal["drawdown"]
    amount_cents: _Amount


class _ResidencyChange(_Model):
    date: _Date
    type: Literal["residency_change"]
    to: Residency


_EVENT_MODELS: dict[str, type[_Model]] = {
    "open_account": _Open,
    "close_account": _Close,
    "deposit": _Deposit,
    "cheque_received": _ChequeReceived,
    "cheque_cleared": _ChequeCleared,
    "cheque_dishonoured": _ChequeDishonoured,
    "drawdown": _Drawdown,
    "residency_change": _ResidencyChange,
}


def _validate(model: type[BaseModel], data: object, source: str, prefix: str) -> Any:
    # imported here: twin.scenario is large and only needed to word a validation error
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        from twin.scenario import translate_validation_error

        err = translate_validation_error(exc, source, model)
        key = err.key
        if prefix:
            key = f"{prefix}.{key}" if key else prefix
        raise InputError(source, key, err.expected, err.found) from None


# --- loading -------------------------------------------------------------------------------


class _Plain(str):
    """A string shown without quotes in an InputError's "found" part."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


def load_timeline(path: str | Path) -> Timeline:
    """Read and validate the timeline file at ``path``."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(p, "", "an existing timeline file", _Plain("no such file")) from None
    except OSError as exc:
        raise InputError(
            p, "", "a readable timeline file", _Plain(exc.strerror or type(exc).__name__)
        ) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(
            p, "", "UTF-8 encoded JSON", _Plain(f"an invalid byte at offset {exc.start}")
        ) from None
    except json.JSONDecodeError as exc:
        found = _Plain(f"{exc.msg} at line {exc.lineno} column {exc.colno}")
        raise InputError(p, "", "valid JSON", found) from None
    return parse_timeline(data, str(p))


def parse_timeline(data: object, source: str) -> Timeline:
    """Validate a decoded timeline document; errors name ``source`` and the key path."""
    if not isinstance(data, dict):
        raise InputError(source, "", "a JSON object with patron, residency and events", data)
    top: _File = _validate(_File, data, source, "")
    residency = tuple((_day(e.from_), e.value) for e in top.residency)  # dates validated above
    for i in range(1, len(residency)):
        if residency[i][0] <= residency[i - 1][0]:
            raise InputError(
                source,
                f"residency[{i}].from",
                f"a date after residency[{i - 1}].from ({residency[i - 1][0].isoformat()})",
                top.residency[i].from_,
            )
    events: list[AccountEvent] = []
    for i, raw in enumerate(top.events):
        key = f"events[{i}]"
        if not isinstance(raw, dict):
            raise InputError(source, key, "an object with date and type", raw)
        _validate(_Head, raw, source, key)
        model = _validate(_EVENT_MODELS[raw["type"]], raw, source, key)
        fields = model.model_dump()
        fields["date"] = _day(fields["date"])
        ev = AccountEvent(index=i, **fields)
        if events and ev.date < events[-1].date:
            raise InputError(
                source,
                f"{key}.date",
                f"a date on or after {events[-1].date.isoformat()} (events are in date order)",
                raw["date"],
            )
        events.append(ev)
    if residency[0][0] > events[0].date:
        raise InputError(
            source,
            "residency[0].from",
            f"a date on or before the first event ({events[0].date.isoformat()})",
            top.residency[0].from_,
        )
    timeline = Timeline(source, top.patron, residency, tuple(events), dict(top.overrides))
    _check_sequence(timeline)
    return timeline


def _day(text: str) -> date:
    d = parse_date(text)
    assert d is not None  # validated by the schema
    return d


def _check_sequence(t: Timeline) -> None:
    """What the schema cannot see: an account open for money to move, cheque refs that
    exist, drawdowns covered by the balance, residency changes that agree with ``residency``.
    The balance is kept by the same ``Ledger`` the replay uses."""
    src = t.source
    ledger: Ledger | None = None
    listed = dict(t.residency)
    current = t.residency[0][1]
    later = list(t.residency[1:])
    for ev in t.events:
        while later and later[0][0] <= ev.date:
            current = later.pop(0)[1]
        k = ev.key
        if ev.type == "open_account":
            if ledger is not None:
                raise InputError(
                    src, f"{k}.type", "no open_account while an account is open", ev.type
                )
            ledger = Ledger()
            continue
        if ev.type == "residency_change":
            assert ev.to is not None
            if ev.date in listed and listed[ev.date] != ev.to:
                expected = f"the residency listed from {ev.date.isoformat()} ({listed[ev.date]})"
                raise InputError(src, f"{k}.to", expected, ev.to)
            if ev.date not in listed and ev.to == current:
                raise InputError(src, f"{k}.to", f"a residency other than {current}", ev.to)
            current = ev.to
            continue
        if ledger is None:
            raise InputError(
                src, f"{k}.type", "an open_account before any other account event", ev.type
            )
        try:
            _apply(ledger, ev)
        except LedgerError as exc:
            field = "amount_cents" if ev.type == "drawdown" else "ref"
            found = ev.amount_cents if ev.type == "drawdown" else ev.ref
            raise InputError(src, f"{k}.{field}", str(exc), found) from None
        if ev.type == "close_account":
            ledger = None


def _apply(ledger: Ledger, ev: AccountEvent) -> None:
    if ev.type == "close_account":
        ledger.close()
    elif ev.type == "deposit":
        assert ev.form is not None and ev.amount_cents is not None
        ledger.deposit(ev.form, ev.amount_cents, ev.date, allowed=True)
    elif ev.type == "drawdown":
        assert ev.amount_cents is not None
        ledger.drawdown(ev.amount_cents)
    elif ev.type == "cheque_received":
        assert ev.ref is not None and ev.kind is not None and ev.amount_cents is not None
        ledger.receive_cheque(ev.ref, ev.kind, ev.amount_cents, ev.date, allowed=True)
    elif ev.type == "cheque_cleared":
        assert ev.ref is not None
        ledger.clear_cheque(ev.ref, ev.date)
    elif ev.type == "cheque_dishonoured":
        assert ev.ref is not None
        ledger.dishonour_cheque(ev.ref)
