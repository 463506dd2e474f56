"""Launderers, the AML KPI section and the detection study (issue 11).

The floor is ``scenarios/aml.toml`` (the default casino at a fifth of its size) for four
days, with one launderer of each strategy who comes on the first day (the junket's guest
with the first junket, which arrives at 30 h and settles at 78 h).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from twin.aml.kpis import AmlKpis
from twin.aml.launderers import PIECE_SHARE
from twin.aml.records import (
    IdentificationRecorded,
    LaunderingAct,
    RedFlagObserved,
    SuspicionReported,
)
from twin.aml.section import STRATEGIES
from twin.casino import Casino
from twin.departments import parse_scenario
from twin.door.records import CasinoLicensed, EntryAdmitted
from twin.errors import InputError
from twin.experiments.aml_study import proportion_interval
from twin.pit.records import TableStretch
from twin.records import Record

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"
THRESHOLD = Fraction(2_000_000_000, 4293)  # Lm 2,000 in euro cents, exactly


def data(hours: float = 96.0, **ruleset: Any) -> dict[str, Any]:
    d = tomllib.loads((SCENARIOS / "aml.toml").read_text())
    d["scenario"]["duration_hours"] = hours
    d["aml"]["launderers"] = [
        {"strategy": s, "count": 1, "visits": 2, "first_days": 0.5,
         "gap_days": {"dist": "fixed", "value": 1.0}}
        for s in STRATEGIES
    ]  # fmt: skip
    d["ruleset"].setdefault("overrides", {}).update(ruleset)
    return d


class Keep:
    def __init__(self) -> None:
        self.records: list[Record] = []

    def accept(self, rec: Record) -> None:
        self.records.append(rec)

    def close(self) -> None:
        pass


def run(d: dict[str, Any]) -> tuple[Casino, list[Record]]:
    keep = Keep()
    casino = Casino(parse_scenario(d, source="test", base_dir=SCENARIOS), sinks=[keep])
    casino.run()
    return casino, keep.records


@cache
def session_run() -> tuple[Casino, list[Record]]:
    return run(data())


@cache
def day_run() -> tuple[Casino, list[Record]]:
    return run(data(aml_session_is_gaming_day=True))


def acts(records: list[Record]) -> list[LaunderingAct]:
    return [r for r in records if isinstance(r, LaunderingAct)]


def test_launderers_are_eligible_distinct_and_fixed_by_the_seed() -> None:
    casino, _ = session_run()
    assert casino.launderers is not None
    chosen = casino.launderers.launderers
    assert [lau.strategy for lau in chosen] == list(STRATEGIES)
    people = [lau.index for lau in chosen if lau.index >= 0]  # not the junket's guest
    people += [lau.associate for lau in chosen if lau.associate >= 0]
    assert len(set(people)) == len(people) == 5  # chip passing has an associate
    pop = casino.population
    for i in people:
        m = pop.member(i)
        assert m.age >= 18 and not m.self_excluded and not m.barred
    assert casino.launderers.choose() == chosen  # the stream ("aml", "launderers") alone
    again, _ = run(data(hours=1.0))
    assert again.launderers is not None and again.launderers.launderers == chosen


def test_every_strategy_acts_through_the_door_and_the_cage() -> None:
    casino, records = session_run()
    steps: dict[str, list[str]] = {}
    for a in acts(records):
        steps.setdefault(a.strategy, []).append(a.step)
    assert set(steps) == set(STRATEGIES)
    assert steps["minimal_play"][:2] == ["buy_in", "cash_out"]
    assert steps["slot_bill_route"][:2] == ["bills_in", "cash_out"]
    assert steps["chip_passing"][:3] == ["buy_in", "pass_chips", "cash_out"]
    assert steps["junket_abuse"][:2] == ["front_money", "cash_out"]
    assert steps["structuring"][:2] == ["buy_in", "cash_out"]
    # every launderer came in through the door before the first act
    admitted = {(r.person, r.t) for r in records if isinstance(r, EntryAdmitted)}
    for a in acts(records):
        if a.strategy == "junket_abuse":
            continue  # a junket's guest: through the junket desk, not the door
        before = a.step in ("buy_in", "front_money", "pass_chips")
        who = a.associate if before and a.associate else a.launderer
        assert any(p == who and t <= a.t for p, t in admitted), a
    # the junket's guest was notified to the Board and arrived with the junket
    guest = next(a.associate for a in acts(records) if a.strategy == "junket_abuse")
    notice = next(r for r in records if r.kind == "junket_notified")
    assert guest in notice.members  # type: ignore[attr-defined]
    arrived = [r for r in records if r.kind == "junket_member_arrived" and r.member == guest]  # type: ignore[attr-defined]
    assert len(arrived) == 1
    # pieces of a structured amount and of passed chips stay below the threshold
    for a in acts(records):
        if a.strategy == "structuring" and a.step == "buy_in":
            assert a.amount_cents <= PIECE_SHARE * THRESHOLD
    # a launderer's table play uses chips in hand: no cash into the drop box
    launderers = {a.launderer for a in acts(records)}
    stretches = [r for r in records if isinstance(r, TableStretch) and r.patron in launderers]
    assert stretches and all(s.buy_in_cents == 0 for s in stretches)
    assert casino.compliance is not None and casino.compliance.findings == []


def _aggregates(records: list[Record], patron: str) -> list[str]:
    return [r.reason for r in records
            if isinstance(r, IdentificationRecorded) and r.patron == patron
            and r.reason.startswith("aggregate")]  # fmt: skip


def test_structuring_across_visits_escapes_the_session_but_not_the_gaming_day() -> None:
    """The structurer keeps each visit under the threshold: under the session reading of
    46(4) no transaction of his is ever added up past it; over a gaming day they are."""
    _, by_session = session_run()
    _, by_day = day_run()
    (who,) = {a.launderer for a in acts(by_session) if a.strategy == "structuring"}
    assert _aggregates(by_session, who) == []
    assert "aggregate_buy_in" in _aggregates(by_day, who)
    assert "aggregate_cash_out" in _aggregates(by_day, who)
    # and the same launderer, the same acts: the rules changed nothing the launderer does
    assert [(a.step, a.amount_cents) for a in acts(by_session) if a.launderer == who][:2] == [
        (a.step, a.amount_cents) for a in acts(by_day) if a.launderer == who
    ][:2]


def test_the_kpi_section_matches_the_records() -> None:
    casino, records = session_run()
    kpis = AmlKpis()
    for r in records:
        if isinstance(r, AmlKpis.reads):
            kpis.accept(r)
    doc = kpis.report(casino.env.now)
    police = {r.patron for r in records
              if isinstance(r, SuspicionReported) and r.recipient == "police"}  # fmt: skip
    assert doc["patrons_reported"] == len(police)
    flags = sum(1 for r in records if isinstance(r, RedFlagObserved))
    assert sum(doc["red_flags"].values()) == flags
    assert sum(row["launderers"] for row in doc["strategies"].values()) == 5
    involved = {a.launderer for a in acts(records)} | {a.associate for a in acts(records)}
    assert doc["false_reports"] == len(police - involved)


def _rec(cls: type[Record], seq: int, t: float, **fields: Any) -> Any:
    return cls(seq=seq, t=t, **fields)


def test_detection_arithmetic_exact() -> None:
    """Two launderers of one strategy, one reported through his associate 5 h after his
    first act; an honest patron reported too (a false report)."""
    k = AmlKpis()
    rows = [
        _rec(CasinoLicensed, 90, 0.0, casino="c", home=True),
        _rec(CasinoLicensed, 91, 0.0, casino="peer", home=False),
        _rec(EntryAdmitted, 92, 0.0, casino="peer", person="P7", visit=1, purpose="play",
             area="premises"),  # at a peer: not a patron of this casino
        _rec(EntryAdmitted, 0, 0.0, casino="c", person="P1", visit=1, purpose="play",
             area="gaming"),
        _rec(EntryAdmitted, 1, 0.0, casino="c", person="P9", visit=1, purpose="play",
             area="gaming"),
        _rec(LaunderingAct, 2, 3600.0, launderer="L1", strategy="chip_passing", step="buy_in",
             amount_cents=900_000, associate="A1"),
        _rec(LaunderingAct, 3, 7200.0, launderer="L2", strategy="chip_passing", step="buy_in",
             amount_cents=900_000, associate="A2"),
        _rec(LaunderingAct, 4, 9000.0, launderer="L1", strategy="chip_passing",
             step="cash_out", amount_cents=400_000, associate=""),
    ]  # fmt: skip
    common = {"officer": "RO", "rank": "Inspector", "transactions": (4,),
              "transaction_detail": "x", "person": "x", "reasons": "x", "other": "x"}  # fmt: skip
    rows += [
        _rec(SuspicionReported, 5, 3600.0 * 6, case="C1", patron="A1", recipient="police",
             **common),
        _rec(SuspicionReported, 6, 3600.0 * 6, case="C1", patron="A1",
             recipient="board_mllo", **common),
        _rec(SuspicionReported, 7, 3600.0 * 9, case="C2", patron="P9", recipient="police",
             **common),
    ]  # fmt: skip
    for r in rows:
        k.accept(r)
    doc = k.report(10 * 3600.0)
    row = doc["strategies"]["chip_passing"]
    assert (row["launderers"], row["detected"], row["hours"]) == (2, 1, [5.0])
    assert row["detected_share"] == 0.5 and row["median_hours_to_report"] == 5.0
    assert (doc["honest_patrons"], doc["false_reports"], doc["falsely_reported"]) == (
        2, 1, ["P9"]
    )  # fmt: skip


def test_proportion_interval_is_clopper_pearson() -> None:
    lo, hi = proportion_interval(0, 10, 0.95)
    assert lo == 0.0 and hi == pytest.approx(0.30849, abs=1e-5)
    lo, hi = proportion_interval(5, 10, 0.95)
    assert (lo, hi) == (pytest.approx(0.18709, abs=1e-5), pytest.approx(0.81291, abs=1e-5))
    assert proportion_interval(0, 0, 0.95) == (0.0, 1.0)


def test_aml_needs_the_door_and_the_cage() -> None:
    d = data()
    del d["entrance"]
    with pytest.raises(InputError) as e:
        parse_scenario(d, source="x.toml", base_dir=SCENARIOS)
    assert "[entrance]" in str(e.value) and "aml" in str(e.value)
    d = data()
    d["aml"]["launderers"][0]["strategy"] = "smurfing"
    with pytest.raises(InputError) as e:
        parse_scenario(d, source="x.toml", base_dir=SCENARIOS)
    assert "aml.launderers[0].strategy" in str(e.value) and "structuring" in str(e.value)


def _twin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], cwd=cwd, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip


def test_cli_aml_study_writes_its_tables(tmp_path: Path) -> None:
    out = tmp_path / "study"
    proc = _twin(
        "aml", str(SCENARIOS / "aml.toml"), "--hours", "30", "--replications", "1",
        "--workers", "0", "--proposed", str(SCENARIOS / "proposals" / "aml-gaming-day.toml"),
        "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "| strategy | launderers |" in proc.stdout
    assert (
        "**proposed**: malta-1998 with aml_session_is_gaming_day = True (Aggregate small"
        in proc.stdout
    )
    doc = json.loads((out / "aml.json").read_text())
    assert [a["arm"] for a in doc["arms"]] == ["today", "proposed"]
    assert doc["seeds"] == [1]
    assert (out / "aml.md").read_text() == proc.stdout


def test_cli_aml_bad_input_exits_2(tmp_path: Path) -> None:
    proc = _twin("aml", str(SCENARIOS / "small.toml"), "--hours", "1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "aml.launderers" in proc.stderr and "Traceback" not in proc.stderr
    proc = _twin("aml", "--proposed", "nowhere.toml", "--hours", "1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--proposed" in proc.stderr and "nowhere.toml" in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("literal", [False, True])
def test_junket_front_money_is_identified_and_a_guest_is_known_by_passport(
    literal: bool,
) -> None:
    """Junket front money above the threshold is cash for chips (46(1)): identified from the
    passport. A launderer on two junkets (arriving at 30 h and 198 h, settling at 78 h and
    246 h) has two member ids and one passport. By the earlier reading of 46(3) (the stake
    may come back), the minimal-play flag of the first trip is kept on file, the second makes
    two reports on one person, and the Reporting Officer reports the guest to the police. By
    the literal reading (the chips cashed must be winnings), the front money cashed back
    unplayed is not from winnings: the first trip already makes two reports (not_from_winnings
    and minimal_play), and the guest is reported on each trip."""
    d = data(hours=11 * 24.0, aml_chips_from_net_winnings=literal)
    d["aml"]["launderers"] = [
        {"strategy": "junket_abuse", "count": 1, "visits": 2,
         "play_minutes": {"dist": "fixed", "value": 3.0}},
    ]  # fmt: skip
    d["aml"]["notice_trained"] = 1.0
    casino, records = run(d)
    assert casino.compliance is not None and casino.compliance.findings == []
    ids = [r for r in records if isinstance(r, IdentificationRecorded)]
    for dep in (r for r in records if r.kind == "junket_deposit_lodged"):
        assert dep.amount_cents > THRESHOLD  # type: ignore[attr-defined]
        assert any(i.reason == "buy_in" and i.transactions == (dep.seq,)
                   and i.document_type == "passport" for i in ids)  # fmt: skip
    trips = [a.associate for a in acts(records) if a.step == "front_money"]
    assert len(trips) == 2 and trips[0] != trips[1]
    passports = {
        r.id_number
        for r in records  # type: ignore[attr-defined]
        if r.kind == "junket_member_arrived" and r.member in trips
    }  # type: ignore[attr-defined]
    assert len(passports) == 1
    evals = [r for r in records if r.kind == "ro_evaluation" and r.patron in trips]  # type: ignore[attr-defined]
    police = [r for r in records if isinstance(r, SuspicionReported) and r.recipient == "police"]
    if not literal:
        assert [(e.patron, e.decision) for e in evals] == [  # type: ignore[attr-defined]
            (trips[0], "no_suspicion"), (trips[1], "suspicious"),
        ]  # fmt: skip
        assert [p.patron for p in police if p.patron in trips] == [trips[1]]
    else:
        assert [(e.patron, e.decision) for e in evals] == [  # type: ignore[attr-defined]
            (trips[0], "suspicious"), (trips[0], "suspicious"),
            (trips[1], "suspicious"), (trips[1], "suspicious"),
        ]  # fmt: skip
        assert [p.patron for p in police if p.patron in trips] == [trips[0]] * 2 + [trips[1]] * 2
    assert next(iter(passports)) in next(p.person for p in police if p.patron == trips[1])


def test_cli_aml_compares_several_proposals_on_the_same_seeds(tmp_path: Path) -> None:
    props = SCENARIOS / "proposals"
    proc = _twin(
        "aml", "--hours", "2", "--replications", "2", "--workers", "0", "--json",
        "--proposed", str(props / "aml-gaming-day.toml"),
        "--proposed", str(props / "aml-threshold-lm-1000.toml"), "--out", str(tmp_path / "o"),
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [a["arm"] for a in doc["arms"]] == ["today", "proposed 1", "proposed 2"]
    assert doc["arms"][2]["rules"] == "malta-1998 with aml_id_threshold_cents = 100000"
    assert doc["seeds"] == [1, 2] and all(a["replications"] == 2 for a in doc["arms"])


def test_whether_a_red_flag_is_noticed_depends_on_that_flag_alone() -> None:
    """Common random numbers for studies: each red flag's chance of being noticed is drawn
    for that person, visit and flag alone, so whatever else a rule changes (other flags,
    their order, the window's reading) the same flag on the same visit is noticed, or
    missed, alike. Forty flags
    seen in one order and in the reverse order are noticed alike (a shared stream would
    hand each a different draw)."""
    from twin.aml.model import Window

    def noticed(order: list[int]) -> set[str]:
        d = data(hours=1.0)
        d["aml"]["notice_trained"] = d["aml"]["notice_untrained"] = 0.5
        casino = Casino(parse_scenario(d, source="test", base_dir=SCENARIOS), sinks=[])
        desk = casino.aml
        assert desk is not None
        for k in order:
            w = Window(f"P{k:06d}#1", "gaming session (visit 1)")
            desk._notice("CSH-day-01", f"P{k:06d}", "minimal_play", (), w, "test")
        return {k.patron for k in desk.cases.values()}

    first = noticed(list(range(1, 41)))
    assert 5 < len(first) < 35  # about half
    assert noticed(list(range(40, 0, -1))) == first
