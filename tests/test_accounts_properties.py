"""Properties of the account replay on generated timelines: the ledger never goes negative,
the qualifying balance is part of the balance, every premium day lies in exactly one period
that names it, and no day depends on what happens after it (a replay to an earlier date is a
prefix of a longer one)."""

from __future__ import annotations

from datetime import date, timedelta
from itertools import pairwise
from typing import Any

from accounts_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from twin.accounts.forms import FORMS

AMOUNTS = (1, 5_000_000, 9_999_999, 10_000_000, 10_000_001, 25_000_000)
ACTIONS = ("deposit", "drawdown", "cheque", "clear", "dishonour", "residency", "close")

action = st.tuples(
    st.integers(min_value=0, max_value=200),  # days since the previous event
    st.sampled_from(ACTIONS),
    st.sampled_from(FORMS),
    st.sampled_from(AMOUNTS),
    st.sampled_from(("foreigner", "citizen", "pr")),
)


def build(steps: list[tuple[int, str, str, int, str]], first: str) -> dict[str, Any]:
    """A valid timeline from raw steps (a step the account cannot take is skipped)."""
    day = date(2013, 1, 1)
    events: list[dict[str, Any]] = [{"date": day.isoformat(), "type": "open_account"}]
    is_open, balance, residency = True, 0, first
    pending: dict[str, int] = {}
    n = 0
    for gap, kind, form, amount, where in steps:
        day += timedelta(days=gap)
        d = day.isoformat()
        if kind == "residency":
            if where != residency:
                events.append({"date": d, "type": "residency_change", "to": where})
                residency = where
            continue
        if not is_open:
            events.append({"date": d, "type": "open_account"})
            is_open, balance, pending = True, 0, {}
        if kind == "deposit":
            events.append({"date": d, "type": "deposit", "form": form, "amount_cents": amount})
            balance += amount
        elif kind == "drawdown" and balance:
            take = min(balance, amount)
            events.append({"date": d, "type": "drawdown", "amount_cents": take})
            balance -= take
        elif kind == "cheque":
            n += 1
            pending[f"C{n}"] = amount
            events.append(
                {
                    "date": d,
                    "type": "cheque_received",
                    "ref": f"C{n}",
                    "kind": "personal_cheque",
                    "amount_cents": amount,
                }
            )
        elif kind in ("clear", "dishonour") and pending:
            ref = sorted(pending)[0]
            got = pending.pop(ref)
            if kind == "clear":
                balance += got
            events.append(
                {
                    "date": d,
                    "type": "cheque_cleared" if kind == "clear" else "cheque_dishonoured",
                    "ref": ref,
                }
            )
        elif kind == "close":
            events.append({"date": d, "type": "close_account"})
            is_open = False
    return {
        "patron": "P",
        "residency": [{"from": "2013-01-01", "value": first}],
        "events": events,
    }


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(action, min_size=1, max_size=12),
    first=st.sampled_from(("foreigner", "citizen", "pr")),
    literal=st.booleans(),
    new_account=st.booleans(),
)
def test_replay_invariants(
    steps: list[tuple[int, str, str, int, str]], first: str, literal: bool, new_account: bool
) -> None:
    doc = build(steps, first)
    r = run(doc, sg_4_2_literal=literal, sg_reg3_requires_new_account=new_account)
    assert r.days[0].date == date(2013, 1, 1)
    assert all(b.date - a.date == timedelta(days=1) for a, b in pairwise(r.days))
    for d in r.days:
        assert 0 <= d.qualifying_balance_cents <= d.balance_cents
        covering = [
            p
            for p in r.periods
            if p.start <= d.date <= p.last_day and (p.ended is None or d.date < p.ended)
        ]
        if d.premium_player:
            assert len(covering) == 1, d
            assert covering[0].basis == d.basis
            assert covering[0].last_day == d.period_last_day
        else:
            assert covering == [], d
            assert d.period_last_day is None
    for p in r.periods:
        assert p.last_day >= p.start
        assert p.ended is None or p.start <= p.ended <= p.last_day + timedelta(days=1)
    # no look-ahead: stopping earlier gives the same days
    cut = r.days[len(r.days) // 2].date
    shorter = run(
        doc, until=cut.isoformat(), sg_4_2_literal=literal, sg_reg3_requires_new_account=new_account
    )
    assert shorter.days == r.days[: len(shorter.days)]
