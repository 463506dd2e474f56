"""Ruleset parameters, each declared once (issue 26: one source of truth per fact).

A ruleset file (``twin/data/rulesets/<name>.toml``) states each parameter's value, type and
clause. The code that acts on a parameter declares it once, as a ``Rule``, in the
``params.py`` module of its department (``twin/aml/params.py``, ...; the parameters only the
compliance engine reads in ``twin/compliance/params.py``), and reads it only through that
declaration::

    THRESHOLD = Rule[int]("aml_id_threshold_cents", "money", "identify above this amount")
    cents = THRESHOLD.money(ruleset)  # exact, in the floor's cents
    days = NOTICE.of(ruleset)  # an int, a float, a bool or a str, as the unit says

Reading a parameter the ruleset lacks fails loudly (``InputError`` naming the ruleset, the key
and what was expected), unless the declaration's ``default`` says what absence means (a
parameter only one jurisdiction has, or one only a proposal sets). A declaration whose unit
differs from the file's ``type`` fails loudly too, so renaming or retyping a parameter in a
ruleset file cannot silently turn a rule off.

This module is kernel: it imports nothing of the compliance engine. ``Ruleset``
(``twin.compliance.ruleset``) satisfies ``RuleSource``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Generic, Literal, Protocol, TypeVar, cast

from twin.errors import InputError

__all__ = ["MISSING", "UNITS", "Rule", "RuleSource", "Unit", "declared", "keys"]

Unit = Literal[
    "fraction", "number", "integer", "money", "days", "months", "years", "hours", "bool", "text"
]
UNITS: tuple[Unit, ...] = (
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
_INTS = frozenset({"integer", "money", "days", "months", "years"})
_REALS = frozenset({"fraction", "number"})

T = TypeVar("T")


class _Missing:
    """The default of a required parameter: a ruleset must state it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class _Typed(Protocol):
    @property
    def type(self) -> str: ...


class RuleSource(Protocol):
    """What a declaration reads of a ruleset (``twin.compliance.ruleset.Ruleset``)."""

    @property
    def name(self) -> str: ...

    @property
    def params(self) -> Mapping[str, _Typed]: ...

    def __contains__(self, key: object) -> bool: ...

    def get(self, key: str) -> Any: ...

    def money(self, key: str) -> Fraction: ...

    def cite(self, key: str) -> str: ...


class _Plain(str):
    """A string shown without quotes in an InputError's "found" part."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


_DECLARED: dict[str, Rule[Any]] = {}


@dataclass(frozen=True)
class Rule(Generic[T]):
    """One ruleset parameter as the code reads it: ``key`` (``[params.<key>]``), ``unit``
    (the file's ``type``), ``meaning`` (what the code does with it, for messages) and
    ``default`` (what a ruleset without it means; ``MISSING``: it must state it)."""

    key: str
    unit: Unit
    meaning: str
    default: T | _Missing = MISSING
    #: False for a declaration that is not the code's (a test's): not in ``declared()``
    declare: bool = field(default=True, compare=False, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"rule {self.key!r}: unit {self.unit!r} is not one of {UNITS}")
        if not self.declare:
            return
        if self.key in _DECLARED:
            raise ValueError(
                f"ruleset parameter {self.key!r} declared twice: {_DECLARED[self.key]!r} "
                f"and {self!r} (declare it once, where its department acts on it)"
            )
        _DECLARED[self.key] = self

    @property
    def required(self) -> bool:
        return isinstance(self.default, _Missing)

    def expected(self) -> str:
        """What a ruleset must hold for this declaration, for messages."""
        return f"a [params.{self.key}] table of type {self.unit}: {self.meaning}"

    def given(self, rules: RuleSource) -> bool:
        """Whether ``rules`` states this parameter (with the unit declared)."""
        if self.key not in rules:
            return False
        self._check_unit(rules)
        return True

    def of(self, rules: RuleSource) -> T:
        """The value ``rules`` states (int for integer, money, days, months and years; float
        for fraction and number; hours as written, int or float; bool; str), or the
        declaration's default; ``InputError`` if it states neither or states another type."""
        if self.key not in rules:
            if isinstance(self.default, _Missing):
                raise InputError(
                    f"ruleset {rules.name}",
                    f"params.{self.key}",
                    self.expected(),
                    _Plain("no such table"),
                )
            return self.default
        self._check_unit(rules)
        value = rules.get(self.key)
        if self.unit in _INTS:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.unit in _REALS:
            ok = isinstance(value, float)
        elif self.unit == "hours":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif self.unit == "bool":
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise InputError(f"ruleset {rules.name}", f"params.{self.key}", self.expected(), value)
        return cast(T, value)

    def money(self, rules: RuleSource) -> Fraction:
        """A money parameter in the floor's cents, exactly (``Ruleset.money``); absent with a
        default, the default (read as the floor's cents)."""
        if self.unit != "money":
            raise TypeError(f"rule {self.key!r} is a {self.unit}, not money")
        if self.key not in rules:
            return Fraction(cast(int, self.of(rules)))
        self._check_unit(rules)
        return rules.money(self.key)

    def cite(self, rules: RuleSource) -> str:
        """The clause of ``rules`` that names this parameter (InputError if it has none)."""
        if self.key not in rules:
            self.of(rules)  # raises for a required parameter
            return ""
        return rules.cite(self.key)

    def _check_unit(self, rules: RuleSource) -> None:
        found = rules.params[self.key].type
        if found != self.unit:
            raise InputError(
                f"ruleset {rules.name}",
                f"params.{self.key}",
                self.expected(),
                _Plain(f"a table of type {found}"),
            )


def declared() -> dict[str, Rule[Any]]:
    """Every declaration made so far, by key (import ``twin.compliance.declared`` first to
    have them all)."""
    return dict(_DECLARED)


def keys(*rules: Rule[Any]) -> tuple[str, ...]:
    """The keys of ``rules``, in order (a control's ``params``)."""
    return tuple(r.key for r in rules)
