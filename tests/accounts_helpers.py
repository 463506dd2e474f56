"""Builders for account timelines in tests, and a replay through the same path as the CLI."""

from __future__ import annotations

from datetime import date
from typing import Any

from twin.accounts.replay import AccountRules, DayStatus, Replay, replay
from twin.accounts.timeline import parse_timeline
from twin.compliance.ruleset import load_ruleset

S100K = 10_000_000  # S$100,000 in cents

Event = dict[str, Any]


def open_(d: str) -> Event:
    return {"date": d, "type": "open_account"}


def close(d: str) -> Event:
    return {"date": d, "type": "close_account"}


def dep(d: str, amount: int, form: str = "cash") -> Event:
    return {"date": d, "type": "deposit", "form": form, "amount_cents": amount}


def draw(d: str, amount: int) -> Event:
    return {"date": d, "type": "drawdown", "amount_cents": amount}


def cheque(d: str, ref: str, amount: int, kind: str = "personal_cheque") -> Event:
    return {"date": d, "type": "cheque_received", "ref": ref, "kind": kind, "amount_cents": amount}


def cleared(d: str, ref: str) -> Event:
    return {"date": d, "type": "cheque_cleared", "ref": ref}


def dishonoured(d: str, ref: str) -> Event:
    return {"date": d, "type": "cheque_dishonoured", "ref": ref}


def becomes(d: str, to: str) -> Event:
    return {"date": d, "type": "residency_change", "to": to}


def timeline(
    *events: Event, residency: str = "foreigner", overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "patron": "P-0001",
        "residency": [{"from": events[0]["date"], "value": residency}],
        "events": list(events),
    }
    if overrides is not None:
        doc["overrides"] = overrides
    return doc


def run(doc: dict[str, Any], until: str | None = None, **overrides: Any) -> Replay:
    """Replay ``doc`` as ``twin account`` does (its overrides, then ``overrides``)."""
    t = parse_timeline(doc, "test.json")
    merged = {**t.overrides, **overrides}
    rs = load_ruleset("singapore-2010", merged, source="test.json", key_prefix="overrides")
    return replay(t, AccountRules.from_params(rs.get), date.fromisoformat(until) if until else None)


def on(result: Replay, d: str) -> DayStatus:
    """The status line of day ``d``."""
    want = date.fromisoformat(d)
    for day in result.days:
        if day.date == want:
            return day
    raise AssertionError(f"no day {d} in the replay")


def status(result: Replay, d: str) -> tuple[bool, str, str | None, int, int]:
    """(premium, basis, period last day, balance, qualifying balance) on day ``d``."""
    s = on(result, d)
    last = s.period_last_day.isoformat() if s.period_last_day else None
    return s.premium_player, s.basis, last, s.balance_cents, s.qualifying_balance_cents


def periods(result: Replay) -> list[tuple[str, str, str, str | None, str | None]]:
    """(start, last_day, basis, ended, end_basis) of every period."""
    return [
        (
            p.start.isoformat(),
            p.last_day.isoformat(),
            p.basis,
            p.ended.isoformat() if p.ended else None,
            p.end_basis,
        )
        for p in result.periods
    ]


def findings(result: Replay) -> list[tuple[str, str]]:
    return [(f.control, f.date.isoformat()) for f in result.findings]
