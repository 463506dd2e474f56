"""How long a run's ledger must be kept: the retention periods of the books it holds.

A ledger is the casino's books for the run. It is append-only and hash-chained, so nothing
in it can be destroyed without ``twin ledger verify`` naming the first missing row: the
periods are kept by construction, and the question left is until when. Each record kind
belongs to one class of the regulation's books (the first class that claims it):

* payment records (regs 37(3)-(4)): the records of regs 38-40 on each gaming cheque and card
  payment, kept ``cheque_record_retention_years`` (5) from the day of the record;
* accounts and records of all gaming operations (reg 43(1)): everything else, kept
  ``accounts_retention_years`` (10); the ledger is one bound volume, so from its last entry.

Dates are local calendar dates of the run's clock (the ledger's ``start`` and ``timezone``)
and the periods are calendar years (``dateutil.relativedelta``): a period of years that
begins on 29 February ends on 28 February. ``retention(path, ruleset)`` answers per class:
how many records, the first and last dates, the first day any of them and all of them may
be destroyed; the ledger as a whole may be destroyed only when every class allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from twin.cage.books import retention_ends
from twin.cage.params import ACCOUNTS_RETENTION, CHEQUE_RECORD_RETENTION
from twin.clock import Clock
from twin.compliance.ruleset import Ruleset
from twin.errors import InputError
from twin.ledger import read_meta, read_rows
from twin.rules import Rule

#: The record kinds of reg 37's payment records (the records regs 38-40 require).
PAYMENT_KINDS = frozenset({
    "gaming_payment_accepted", "cheque_redeemed", "payments_banked", "banking_evidence",
    "payment_refusal_recorded", "cheque_returned", "cheque_represented",
    "dishonoured_cheque_entered", "dishonoured_cheque_paid",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class RetentionClass:
    """One class of books in a ledger and its period."""

    name: str
    cite: str
    param: str
    years: int
    from_last_entry: bool  # a bound volume: the period runs from its last entry
    records: int
    first: date | None
    last: date | None

    @property
    def any_destroyable_from(self) -> date | None:
        """The first day some record of the class may be destroyed."""
        if self.first is None or self.last is None:
            return None
        return retention_ends(self.last if self.from_last_entry else self.first, self.years)

    @property
    def all_destroyable_from(self) -> date | None:
        """The first day every record of the class may be destroyed."""
        return None if self.last is None else retention_ends(self.last, self.years)

    def to_dict(self) -> dict[str, Any]:
        def iso(d: date | None) -> str | None:
            return None if d is None else d.isoformat()

        return {
            "class": self.name, "cite": self.cite, "param": self.param, "years": self.years,
            "from": "last entry" if self.from_last_entry else "each record's date",
            "records": self.records, "first": iso(self.first), "last": iso(self.last),
            "any_destroyable_from": iso(self.any_destroyable_from),
            "all_destroyable_from": iso(self.all_destroyable_from),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class Retention:
    ledger: str
    classes: tuple[RetentionClass, ...]

    @property
    def destroyable_from(self) -> date | None:
        """The first day the whole ledger may be destroyed (every class allows)."""
        ends = [c.all_destroyable_from for c in self.classes if c.records]
        return max((d for d in ends if d is not None), default=None)

    def to_dict(self, as_of: date | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ledger": self.ledger,
            "classes": [c.to_dict() for c in self.classes],
            "destroyable_from": None
            if self.destroyable_from is None
            else self.destroyable_from.isoformat(),
        }
        if as_of is not None:
            out["as_of"] = as_of.isoformat()
            out["may_be_destroyed"] = self.may_be_destroyed(as_of)
        return out

    def may_be_destroyed(self, as_of: date) -> bool:
        d = self.destroyable_from
        return d is not None and as_of >= d


def retention(path: Path, ruleset: Ruleset) -> Retention:
    """The retention classes of the ledger at ``path`` under ``ruleset`` (its periods)."""
    meta = read_meta(path)
    for key in ("start", "timezone"):
        if key not in meta:
            raise InputError(path, f"meta.{key}", "a ledger written by `twin run`", None)
    clock = Clock(datetime.fromisoformat(meta["start"]), meta["timezone"])
    spans: dict[str, list[date]] = {"payment": [], "accounts": []}
    counts = {"payment": 0, "accounts": 0}
    for _seq, t, kind, _body in read_rows(path):
        cls = "payment" if kind in PAYMENT_KINDS else "accounts"
        day = clock.at(t).date()
        span = spans[cls]
        if not span:
            span += [day, day]
        else:
            span[1] = day  # rows come in seq order, so in time order
        counts[cls] += 1
    params: Mapping[str, tuple[str, str, Rule[int], bool]] = {
        "payment": ("payment records", "reg 37(3)-(4)", CHEQUE_RECORD_RETENTION, False),
        "accounts": (
            "accounts and records of gaming operations", "reg 43(1)",
            ACCOUNTS_RETENTION, True,
        ),
    }  # fmt: skip
    classes = []
    for cls, (name, cite, param, bound) in params.items():
        if not param.given(ruleset):
            raise InputError(f"ruleset {ruleset.name}", param.key, "a retention period", None)
        span = spans[cls]
        classes.append(
            RetentionClass(
                name, cite, param.key, param.of(ruleset), bound, counts[cls],
                span[0] if span else None, span[1] if span else None,
            )
        )  # fmt: skip
    return Retention(str(path), tuple(classes))


def render(r: Retention, as_of: date | None = None) -> str:
    lines = [f"{r.ledger}: retention under the ruleset's periods (calendar years)"]
    for c in r.classes:
        if not c.records:
            lines.append(f"  {c.name} ({c.cite}): none")
            continue
        since = "the last entry" if c.from_last_entry else "each record's date"
        lines.append(
            f"  {c.name} ({c.cite}): {c.records:,} records, {c.first} to {c.last}; kept "
            f"{c.years} years from {since}: the first may be destroyed from "
            f"{c.any_destroyable_from}, all from {c.all_destroyable_from}"
        )
    lines.append(
        f"  the ledger (one hash-chained volume) may be destroyed from {r.destroyable_from}"
    )
    if as_of is not None:
        verdict = "may be destroyed" if r.may_be_destroyed(as_of) else "must be kept"
        lines.append(f"  on {as_of}: it {verdict}")
    return "\n".join(lines) + "\n"


__all__ = ["PAYMENT_KINDS", "Retention", "RetentionClass", "render", "retention"]
