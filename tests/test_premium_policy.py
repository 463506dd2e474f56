"""Issue 34: the premium desk works to its own procedure (``[premium.policy]``), the SG10
controls to the law (singapore-2010) and the records.

Policy-only scenarios (no ``[[inject]]``) on scenarios/singapore.toml for 45 days: a desk that
grants the status from S$50,000 is found under reg 3 on each grant the law does not make; a
desk that gives credit as a deposit to everyone is found under 2A(1)(e) on each credit to a
citizen or permanent resident; a desk that gives no credit at all is clean and shows its
cost (no credit extended); the same scenario with the default policy is clean.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from datetime import date
from typing import Any

import pytest
from test_premium import SG, casino, findings

from twin.accounts.replay import AccountRules, replay
from twin.accounts.timeline import AccountEvent, Timeline
from twin.casino import Casino
from twin.errors import InputError
from twin.metrics import Metrics
from twin.premium.records import (
    CreditExtended,
    PremiumPlayerRegistered,
    PremiumStatusDecided,
    ResidencyChanged,
    account_event,
)
from twin.records import MemorySink

DAYS = 45
LAW = 10_000_000  # S$100,000 in cents: singapore-2010's min_balance_cents
R3 = "reg 3 + 4(1)"


def run(**policy: Any) -> tuple[Casino, MemorySink]:
    """45 days of the shipped Singapore scenario, its desk working to ``policy``."""
    premium = tomllib.loads(SG.read_text())["premium"]
    c, sink = casino(DAYS, premium=premium | {"policy": policy})
    c.run()
    return c, sink


def credit_by_residency(sink: MemorySink) -> dict[str, list[CreditExtended]]:
    """Each credit given as a deposit, by the residency of its player on that day."""
    residency: dict[str, str] = {}
    out: dict[str, list[CreditExtended]] = {}
    for r in sink.records:
        if isinstance(r, PremiumPlayerRegistered):
            residency[r.player] = r.residency
        elif isinstance(r, ResidencyChanged):
            residency[r.player] = r.to_residency
        elif isinstance(r, CreditExtended):
            out.setdefault(residency[r.player], []).append(r)
    return out


def credit_kpi(c: Casino, sink: MemorySink) -> int:
    kpis = Metrics.from_records(sink.records).kpis(c.end).sections["premium"]
    extended: int = kpis["credit"]["extended_cents"]
    return extended


@pytest.fixture(scope="module")
def default() -> tuple[Casino, MemorySink]:
    return run()


def test_the_default_desk_is_the_law_and_clean(default: tuple[Casino, MemorySink]) -> None:
    _, sink = default
    assert findings(sink) == []
    given = credit_by_residency(sink)
    assert set(given) == {"foreigner"} and len(given["foreigner"]) > 0
    # the same run as a scenario with no policy at all (the ledger's head)
    bare, bare_sink = casino(DAYS)
    bare.run()
    assert bare_sink.records == sink.records


def test_a_desk_granting_from_50000_is_found_under_reg_3_on_each_such_grant() -> None:
    _, sink = run(min_balance_cents=5_000_000)
    found = findings(sink)
    assert Counter(f.control for f in found) == {"SG10.R3": 4, "SG10.R4.2": 4}
    # the grants the law does not make: the desk's grants under reg 3 on a day the account's
    # qualifying balance (the law's replay of the player's records) was below S$100,000
    events: dict[str, list[AccountEvent]] = {}
    residency: dict[str, str] = {}
    grants: list[PremiumStatusDecided] = []
    for r in sink.records:
        if isinstance(r, PremiumPlayerRegistered):
            residency[r.player] = r.residency
        elif isinstance(r, PremiumStatusDecided) and r.decision == "granted" and r.basis == R3:
            grants.append(r)
        player = r.entity("player")
        ev = account_event(r, len(events.get(player, ()))) if player else None
        if ev is not None:
            events.setdefault(player, []).append(ev)
    end = date.fromisoformat(max(g.day for g in grants))
    balance: dict[tuple[str, str], int] = {}
    for player, evs in events.items():
        if evs[0].date > end:
            continue
        tl = Timeline("records", player, ((evs[0].date, residency[player]),), tuple(evs), {})  # type: ignore[arg-type]
        for d in replay(tl, AccountRules(), until=end).days:
            balance[(player, d.date.isoformat())] = d.qualifying_balance_cents
    below = {g.seq for g in grants if balance[(g.player, g.day)] < LAW}
    assert len(below) == 4
    r3 = [f for f in found if f.control == "SG10.R3"]
    granted = {g.seq for g in grants}
    # each such grant, once: the finding's evidence cites the desk's decision
    assert [len(set(f.evidence) & granted) for f in r3] == [1] * len(r3)
    assert {s for f in r3 for s in f.evidence if s in granted} == below
    for f in r3:
        assert "the operator granted the status" in f.message
        cents = int(f.message.split("qualifying balance of ")[1].split(" cents")[0])
        assert 5_000_000 <= cents < LAW
    # and the periods the law restarts under 4(2) (a top-up after a dip below S$100,000)
    # that the desk, whose minimum the balance never left, kept running: SG10.R4.2
    for f in found:
        if f.control == "SG10.R4.2":
            assert "runs under reg 4(2)" in f.message and "the operator states" in f.message


def test_a_desk_giving_credit_to_everyone_is_found_on_each_credit_to_a_citizen_or_pr() -> None:
    _, sink = run(credit_to="everyone")
    found = findings(sink)
    given = credit_by_residency(sink)
    local = given.get("citizen", []) + given.get("pr", [])
    assert len(local) == 38 and {"citizen", "pr"} <= set(given)
    assert Counter(f.control for f in found) == {"SG10.R2A.1e": 38}
    assert sorted(f.evidence for f in found) == sorted((r.seq,) for r in local)
    assert all("allow it only for a patron who is neither" in f.message for f in found)


def test_a_desk_giving_no_credit_is_clean_and_lends_nothing(
    default: tuple[Casino, MemorySink],
) -> None:
    c, sink = run(credit_to="nobody")
    assert findings(sink) == []
    assert credit_by_residency(sink) == {}
    assert credit_kpi(c, sink) == 0 < credit_kpi(*default)


def test_a_desk_stricter_on_the_minimum_is_found_the_status_is_the_law_s() -> None:
    """Reg 3: a patron *qualifies* at the minimum balance; a desk that grants only from
    S$150,000 does not give the status the law gives (SG10.R3 'did not grant')."""
    _, sink = run(min_balance_cents=15_000_000)
    r3 = [f for f in findings(sink) if f.control == "SG10.R3"]
    assert len(r3) == 11
    assert all("the operator did not grant the status" in f.message for f in r3)


@pytest.mark.parametrize(
    ("policy", "key", "found"),
    [
        ({"credit_to": "citizens"}, "premium.policy.credit_to", "citizens"),
        ({"min_balance_cents": -1}, "premium.policy.min_balance_cents", "-1"),
        ({"min_balance_cents": "100000"}, "premium.policy.min_balance_cents", "100000"),
        ({"min_balance": 5_000_000}, "premium.policy.min_balance", "5000000"),
    ],
)
def test_a_bad_premium_policy_is_one_precise_error(
    policy: dict[str, Any], key: str, found: str
) -> None:
    premium = tomllib.loads(SG.read_text())["premium"]
    with pytest.raises(InputError) as err:
        casino(1, premium=premium | {"policy": policy})
    assert err.value.key == key and found in str(err.value)


def test_compare_the_150k_proposal_with_the_desk_adapting_or_keeping_100k() -> None:
    """``twin compare --operators keep``: under the S$150,000 proposal a desk that keeps
    granting from S$100,000 is found under the status controls; a desk that adapts is clean."""
    from pathlib import Path

    from twin.experiments import Plan, compare, load_arm
    from twin.experiments.arms import kept_policies
    from twin.experiments.report import render_text

    root = Path(__file__).resolve().parent.parent
    base = load_arm("singapore-2010", "baseline")
    prop = load_arm(root / "scenarios" / "proposals" / "premium-min-balance-150k.toml", "proposed")
    kept = tuple(kept_policies(SG, base, 24.0))
    assert kept == (("premium.policy.min_balance_cents", LAW),)

    def study(operators: str) -> Any:
        plan = Plan(str(SG), base, prop, replications=2, root_seed=1, hours=24.0,
                    min_replications=2, operators=operators, kept=kept)  # fmt: skip
        return compare(plan, workers=0)

    def found(result: Any, arm: str) -> Counter[str]:
        obs = getattr(result, arm)
        return Counter({k.removeprefix("findings."): v for o in obs for k, v in o.values.items()
                        if k.startswith("findings.") and v})  # fmt: skip

    adapt, keep = study("adapt"), study("keep")
    assert found(adapt, "baseline") == found(adapt, "proposed") == Counter()
    assert found(keep, "baseline") == Counter()
    # over the 2 replications: grants from S$100,000 (reg 3), periods restarted at S$100,000
    # (4(2)) and first periods running from the desk's day, not the law's later one (4(1))
    assert found(keep, "proposed") == Counter({"SG10.R3": 14, "SG10.R4.2": 9, "SG10.R4.1": 3})
    assert "premium.policy.min_balance_cents = 10000000" in render_text(keep)
