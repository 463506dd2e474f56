"""Every implemented control, proven both ways on the same small floor.

The floor of tests/data/controls.toml runs clean (no finding besides those its missing door
check and AML function imply, issue 25); then, one case at a time, a single injected
violation must produce exactly the expected controls' findings — no more, no fewer — each
naming the machine and citing records that exist in the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import besides_absent

from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.compliance.registry import registry
from twin.departments import Scenario, load_scenario, parse_scenario
from twin.records import MemorySink

ROOT = Path(__file__).resolve().parent.parent
FLOOR = Path(__file__).resolve().parent / "data" / "controls.toml"
CLASSIC = ROOT / "scenarios" / "games" / "classic-3reel.toml"
LOW = ROOT / "scenarios" / "games" / "low-return.toml"


def classic_variant(tmp: Path, name: str, edit: Callable[[str], str]) -> Path:
    text = CLASSIC.read_text().replace('id = "classic-3reel"', f'id = "{name}"')
    changed = edit(text)
    assert changed != text.replace('id = "classic-3reel"', f'id = "{name}"'), name
    path = tmp / f"{name}.toml"
    path.write_text(changed)
    return path


def biased(text: str) -> str:  # reel 1: the first BAR stop 5 -> 9 (of 64)
    return text.replace("weights = [2, 2, 5, 2, 4,", "weights = [2, 2, 9, 2, 4,", 1)


def dead_seven(text: str) -> str:  # reel 1: the SEVEN stop all but never lands
    old = "weights = [2, 2, 5, 2, 4, 2, 3, 2, 5, 2, 3, 2, 4, 2, 5, 2, 3, 2, 5, 2, 3, 2]"
    new = (
        "weights = [1, "
        + ", ".join(
            str(w * 1000) for w in [2, 5, 2, 4, 2, 3, 2, 5, 2, 3, 2, 4, 2, 5, 2, 3, 2, 5, 2, 3, 2]
        )
        + "]"
    )
    return text.replace(old, new, 1)


def halved_pays(text: str) -> str:
    return re.sub(
        r"\[pays\].*",
        "[pays]\nCHERRY = { 1 = 1, 2 = 3, 3 = 10 }\nBAR = { 3 = 8 }\n"
        "BAR2 = { 3 = 15 }\nBAR3 = { 3 = 25 }\nSEVEN = { 3 = 125 }\n",
        text,
        flags=re.S,
    )


def no_single_cherry(text: str) -> str:  # the commonest win removed: fewer games won
    return text.replace("CHERRY = { 1 = 2, 2 = 6, 3 = 20 }", "CHERRY = { 2 = 6, 3 = 20 }", 1)


GAMES: dict[str, Callable[[str], str]] = {
    "no-single-cherry": no_single_cherry,
    "biased": biased,
    "dead-seven": dead_seven,
    "halved": halved_pays,
}


@dataclass(frozen=True)
class Case:
    controls: frozenset[str]
    inject: dict[str, Any] | None  # None: the violation is a stricter ruleset alone
    overrides: dict[str, Any] = field(default_factory=dict)
    game: str | None = None  # a variant of the classic game (GAMES), or "low-return"
    targets: frozenset[str] | None = None  # machines findings may name (default: the target)

    def may_name(self) -> frozenset[str]:
        if self.targets is not None:
            return self.targets
        assert self.inject is not None
        return frozenset({self.inject["machine"]})


LINK = frozenset({"P-001", "P-002", "P-003", "P-004"})
VIDEO = frozenset({"A-001", "A-002", "A-003", "A-004"})


CASES: dict[str, Case] = {
    "R28.3a": Case(
        frozenset({"MT98.R28.3a"}), {"kind": "unregistered_machine", "machine": "B-002"}
    ),
    "R28.3b": Case(
        frozenset({"MT98.R28.3a", "MT98.R28.3b"}), {"kind": "no_registration", "machine": "B-002"}
    ),
    "R28.3c": Case(
        frozenset({"MT98.R28.3c", "MT98.R28.3f"}), {"kind": "no_serial", "machine": "B-002"}
    ),
    "R28.3d": Case(
        frozenset({"MT98.R28.3d", "MT98.R28.3f"}),
        {"kind": "stake_above_max", "machine": "B-001", "amount": 30},
        overrides={"max_stake_cents": 326},  # Lm 3.26 = EUR 7.59
    ),
    "R28.3e": Case(
        frozenset({"MT98.R28.3e"}),
        None,
        overrides={"max_prize_cents": 214650},  # Lm 2,146.50 = EUR 5,000
        targets=LINK | VIDEO,
    ),
    "R28.3f": Case(frozenset({"MT98.R28.3f"}), {"kind": "no_certificate", "machine": "A-001"}),
    "R28.3f.match": Case(
        frozenset({"MT98.R28.3f"}), {"kind": "foreign_certificate", "machine": "A-001"}
    ),
    "R29": Case(
        frozenset({"MT98.R29", "MT98.S1.1d"}), {"kind": "no_prize_display", "machine": "A-003"}
    ),
    "R36": Case(frozenset({"MT98.R36"}), {"kind": "drop_by_outsider", "machine": "B-001"}),
    "R36.hopper": Case(
        frozenset({"MT98.R36"}),
        {"kind": "technician_takes_coins", "machine": "B-001", "amount": 40, "at_hours": 2.0},
    ),
    "R36.phantom": Case(
        frozenset({"MT98.R36", "MT98.S1.10a"}),
        {"kind": "phantom_credits", "machine": "B-001", "amount": 99575, "at_hours": 3.5},
    ),
    # a program swap: reg 30(2) (not its registered specs), items 11(a) (a conversion without
    # the Board's approval) and 14(a) (its operation altered), no worksheet, below 85 %
    "S1.1a": Case(
        frozenset({"MT98.S1.1a", "MT98.R30.2", "MT98.S1.11a", "MT98.S1.14a", "MT98.S1.20a"}),
        {"kind": "swap_game", "machine": "B-003", "at_hours": 2.0},
        game="low-return",
    ),
    "S1.1b.i": Case(
        frozenset(
            {
                "MT98.S1.1b",
                "MT98.S1.1b.i",
                "MT98.S1.1b.ii",
                "MT98.R30.2",
                "MT98.S1.11a",
                "MT98.S1.14a",
                "MT98.S1.20a",
            }
        ),
        {"kind": "tampered_game", "machine": "B-004"},
        game="dead-seven",
    ),
    "S1.1b.ii": Case(
        frozenset(
            {
                "MT98.S1.1b",
                "MT98.S1.1b.ii",
                "MT98.R30.2",
                "MT98.S1.11a",
                "MT98.S1.14a",
                "MT98.S1.20a",
            }
        ),
        {"kind": "tampered_game", "machine": "B-004"},
        game="biased",
    ),
    "S1.1b.iii": Case(
        # the approved program kept (its signature answers), fewer wins from 3 units: 3(a)'s
        # payback test does not see it in a day (69 % against 93 % over some 740 games is
        # within the noise of a classic game); 1(b)(iii) sees the hit frequency
        frozenset({"MT98.S1.1b", "MT98.S1.1b.iii"}),
        {"kind": "wager_dependent", "machine": "B-001", "amount": 3},
        game="no-single-cherry",
    ),
    "S1.3a": Case(
        # the approved program kept, halved pays from 2 units: the payback depends on the
        # wager (3(a)); the hit frequency does not (no 1(b)(iii)); the day's hold is low (20(f))
        frozenset({"MT98.S1.3a", "MT98.S1.20f"}),
        {"kind": "wager_dependent", "machine": "B-002", "amount": 2},
        game="halved",
    ),
    "S1.1b.i.combination": Case(
        frozenset({"MT98.S1.1b", "MT98.S1.1b.i"}),
        # three cherries (pay 20, about 16 a day) never selected while their stops land
        {"kind": "suppressed_combination", "machine": "B-002", "amount": 20},
    ),
    "S1.1b.free": Case(
        frozenset({"MT98.S1.1b", "MT98.S1.1b.i", "MT98.S1.1b.ii"}),
        {"kind": "biased_free_spin_reel", "machine": "A-001", "amount": 4},
    ),
    "S1.1c": Case(
        frozenset({"MT98.S1.1c"}),
        {"kind": "secondary_decision", "machine": "A-002", "at_hours": 3.0},
    ),
    "S1.1c.amount": Case(
        frozenset({"MT98.S1.1c"}),
        {"kind": "shortened_win", "machine": "A-002", "at_hours": 3.0},
    ),
    "S1.1e": Case(  # the approved program kept, its payback by the hold: also 3(a)
        frozenset({"MT98.S1.1e", "MT98.S1.3a"}),
        # a strong adaptation (gain 8): within one day, the detector finds the default gain
        # of 4 on about a third of seeds (tests/test_controls_slow.py measures its power)
        {"kind": "adaptive_paytable", "machine": "B-003", "amount": 8},
    ),
    "S1.2a": Case(
        frozenset({"MT98.S1.2a", "MT98.S1.3b"}),
        {"kind": "unapproved_link", "machine": "P-001"},
        targets=LINK,
    ),
    "S1.2a.inc": Case(
        frozenset({"MT98.S1.2a.inc"}),
        {"kind": "progressive_skim", "machine": "P-001", "amount": 100},
        targets=LINK,
    ),
    "S1.2b": Case(
        frozenset({"MT98.S1.2b", "MT98.S1.2a.inc"}),
        {"kind": "progressive_reset_change", "machine": "P-001", "amount": 10000},
        targets=LINK,
    ),
    "S1.4a": Case(
        frozenset({"MT98.S1.4a", "MT98.S1.4b"}),
        {
            "kind": "meter_rollback",
            "machine": "B-001",
            "meter": "total_coin_in",
            "amount": 100,
            "at_hours": 3.0,
        },
    ),
    "S1.4a.digits": Case(
        frozenset({"MT98.S1.4a", "MT98.S1.4c"}),
        {"kind": "short_meters", "machine": "B-001", "amount": 5},
    ),
    "S1.4b": Case(
        frozenset({"MT98.S1.4b"}),
        {
            "kind": "meter_skew",
            "machine": "B-001",
            "meter": "total_coin_out",
            "amount": 50,
            "at_hours": 3.0,
        },
    ),
    "S1.4b.undocumented": Case(  # paid by hand off the books: meter up, no record
        frozenset({"MT98.S1.4b", "MT98.S1.4d"}),
        {"kind": "undocumented_payout", "machine": "B-001", "at_hours": 2.0},
    ),
    "S1.4c": Case(
        frozenset({"MT98.S1.4c"}), {"kind": "silent_door", "machine": "B-001", "at_hours": 5.0}
    ),
    "S1.4d": Case(
        frozenset({"MT98.S1.4d"}),
        {"kind": "unrepaired_tilt", "machine": "A-004", "at_hours": 1.0},
        overrides={"tilt_repair_max_hours": 2},
    ),
    "S1.4d.play": Case(
        frozenset({"MT98.S1.4d"}),
        {"kind": "play_through_tilt", "machine": "B-001", "at_hours": 3.5},
    ),
    "S1.7a": Case(
        frozenset({"MT98.S1.7a"}), {"kind": "short_pay_without_fill", "machine": "B-001"}
    ),
    "S1.7b": Case(
        frozenset({"MT98.S1.7b", "MT98.S1.8"}),
        {"kind": "fill_without_inspector", "machine": "B-001"},
    ),
    "S1.7b.count": Case(
        frozenset({"MT98.S1.7b"}), {"kind": "fill_miscounted", "machine": "B-001", "amount": 5}
    ),
    "S1.8": Case(frozenset({"MT98.S1.8"}), {"kind": "unpaid_hand_pay", "machine": "A-001"}),
    "S1.8.outsider": Case(
        frozenset({"MT98.S1.8"}), {"kind": "hand_pay_by_outsider", "machine": "A-001"}
    ),
    "S1.10a": Case(
        frozenset({"MT98.S1.10a", "MT98.S1.8"}),
        {"kind": "hand_pay_without_inspector", "machine": "A-001"},
    ),
    "S1.15": Case(
        frozenset({"MT98.S1.15", "MT98.R30.2", "MT98.S1.11a", "MT98.S1.14a", "MT98.S1.20f"}),
        {"kind": "swap_game", "machine": "G-001", "at_hours": 1.0},
        game="classic-3reel",
    ),
    "S1.16": Case(
        frozenset({"MT98.S1.16"}), {"kind": "unrecorded_promotional_payout", "machine": "G-002"}
    ),
    "S1.16.confirmed": Case(
        frozenset({"MT98.S1.16"}), {"kind": "unconfirmed_promotional_payout", "machine": "G-001"}
    ),
    "S1.20b": Case(
        frozenset({"MT98.S1.20b", "MT98.R28.3f"}),
        {"kind": "certificate_overstates_payout", "machine": "A-002", "amount": 100},
    ),
    "S1.20c": Case(
        frozenset({"MT98.S1.20c", "MT98.R28.3b"}),
        {"kind": "renumber", "machine": "A-002", "at_hours": 2.0},
    ),
    "R28.3c.permanent": Case(
        frozenset({"MT98.R28.3c", "MT98.S1.20c"}),
        {"kind": "reserial", "machine": "B-001", "at_hours": 2.0},
    ),
    "S1.20c.asset": Case(
        frozenset({"MT98.S1.20c", "MT98.S1.20c.asset"}),
        {"kind": "retag_asset", "machine": "A-002", "at_hours": 2.0},
    ),
    "S1.20d": Case(
        frozenset({"MT98.S1.20d"}),
        {"kind": "missing_meter", "machine": "A-002", "meter": "total_drop"},
    ),
    "S1.20e": Case(
        frozenset({"MT98.S1.20e"}),
        {"kind": "bill_meter_skew", "machine": "A-002", "meter": "bills_500", "amount": 2},
    ),
    "S1.20f": Case(
        frozenset(
            {"MT98.S1.1a", "MT98.R30.2", "MT98.S1.11a", "MT98.S1.14a", "MT98.S1.20a", "MT98.S1.20f"}
        ),
        {"kind": "tampered_game", "machine": "B-002"},
        game="halved",
    ),
}


def run_floor(tmp: Path, case: Case | None) -> tuple[Casino, MemorySink]:
    sc = case_scenario(tmp, case)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    return casino, sink


def case_scenario(tmp: Path, case: Case | None, *more: Case) -> Scenario:
    """The test floor with ``case``'s injection and overrides (None: clean), and those of
    ``more`` cases after it."""
    import tomllib

    data = tomllib.loads(FLOOR.read_text())
    for c in (case, *more) if case is not None else ():
        data["ruleset"]["overrides"].update(c.overrides)
        if c.inject is None:
            continue
        inj = dict(c.inject)
        if c.game == "low-return":
            inj["game"] = str(LOW)
        elif c.game == "classic-3reel":
            inj["game"] = str(CLASSIC)
        elif c.game is not None:
            inj["game"] = str(classic_variant(tmp, c.game, GAMES[c.game]))
        data.setdefault("inject", []).append(inj)
    return parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)


def test_the_floor_runs_clean(tmp_path: Path) -> None:
    casino, _ = run_floor(tmp_path, None)
    assert casino.compliance is not None
    assert besides_absent(casino) == []
    assert set(casino.compliance.counts()) == {c for c in registry() if c.startswith("MT98.")}


#: test modules of the parts around the slot floor, each proving the injected violation of its
#: controls on a floor of its own (issue 10, 11); each names them in ``INJECTED_CONTROLS``
PART_TESTS = (
    "test_aml", "test_cage", "test_entrance", "test_junkets", "test_pit", "test_premium",
    "test_lifecycle_register", "test_lifecycle_works", "test_lifecycle_eproms",
    "test_licensing_board", "test_licensing_work",
    "test_surveillance",
)  # fmt: skip


def test_every_implemented_control_has_an_injection_case() -> None:
    import importlib

    covered = set().union(*(c.controls for c in CASES.values()))
    for name in PART_TESTS:
        part = importlib.import_module(name)
        assert not covered & part.INJECTED_CONTROLS, name  # each proven in one place
        covered |= part.INJECTED_CONTROLS
    assert covered == set(registry())


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_injected_violation_is_found(tmp_path: Path, case_id: str) -> None:
    case = CASES[case_id]
    casino, sink = run_floor(tmp_path, case)
    assert casino.compliance is not None
    findings = besides_absent(casino)
    assert {f.control for f in findings} == case.controls, [
        (f.control, f.message) for f in casino.compliance.findings
    ]
    seqs = {r.seq for r in sink.records}
    targets = case.may_name()
    for f in findings:
        assert isinstance(f, Finding)
        assert f.subjects[0] in targets, f
        assert f.evidence and set(f.evidence) <= seqs, f
        assert f.message and f.at.startswith("2026-03-0")
        assert all(sink.records[s].seq == s for s in f.evidence)


def test_min_rtp_override_flags_exactly_the_games_below_it(tmp_path: Path) -> None:
    """min_rtp = 0.90 on a floor with every shipped game: the progressive game (88.36 % +
    the link's 1.5 % = 89.86 %), low-return (82 %) and the lean pay table classic-3reel-87
    (86.75 %) fall below it; nothing else does (classic-3reel-90 returns 90.17 %)."""
    import tomllib

    data = tomllib.loads(FLOOR.read_text())
    games = sorted((ROOT / "scenarios" / "games").glob("*.toml"))
    data["floor"]["banks"] = [bank for bank in data["floor"]["banks"] if bank["id"] in ("P",)] + [
        {
            **data["floor"]["banks"][1],
            "id": f"X{i}",
            "count": 1,
            "game": str(g),
            "promotional": g.stem == "promo-tournament",
        }
        for i, g in enumerate(games)
    ]
    data["ruleset"]["overrides"]["min_rtp"] = 0.90
    data.pop("promotions")  # the floor's promotion runs on bank G, which is replaced here
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    casino = Casino(sc, controls=["MT98.S1.1a"])
    casino.run(until=60.0)
    assert casino.compliance is not None
    flagged = {f.subjects[0] for f in casino.compliance.findings}
    by_game = {m.id: m.spec.game.id for m in casino.machines}
    assert {by_game[m] for m in flagged} == {"progressive-link", "low-return", "classic-3reel-87"}
    # the four linked machines (89.86 % with the link) and the unlinked copy (88.36 %)
    assert len([m for m in flagged if by_game[m] == "progressive-link"]) == 5


def test_default_min_rtp_flags_only_the_low_return_game(tmp_path: Path) -> None:
    """At the regulation's 85 %, of the shipped games only low-return (82 %) is flagged."""
    import tomllib

    data = tomllib.loads(FLOOR.read_text())
    games = sorted((ROOT / "scenarios" / "games").glob("*.toml"))
    data["floor"]["banks"] = [
        {**data["floor"]["banks"][1], "id": f"X{i}", "count": 1, "game": str(g)}
        for i, g in enumerate(games)
    ]
    data.pop("promotions")  # the floor's promotion runs on bank G, which is replaced here
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    casino = Casino(sc, controls=["MT98.S1.1a"])
    casino.run(until=60.0)
    assert casino.compliance is not None
    by_game = {m.id: m.spec.game.id for m in casino.machines}
    assert [by_game[f.subjects[0]] for f in casino.compliance.findings] == ["low-return"]
    assert load_scenario(FLOOR).ruleset.name == "malta-1998"


def test_readme_documents_every_injection() -> None:
    readme = (ROOT / "README.md").read_text()
    from twin.injections import INJECTIONS

    for kind, spec in INJECTIONS.items():
        assert f"| `{kind}` | {spec.doc} |" in readme, kind


def test_default_scenario_runs_clean() -> None:
    """The shipped default floor, a full day under every control: not one finding."""
    casino = Casino(load_scenario(ROOT / "scenarios" / "default.toml"))
    casino.run()
    assert casino.compliance is not None
    assert casino.compliance.findings == []
    assert sum(casino.compliance.counts().values()) == 0


def test_certificate_carries_every_particular_of_reg_28_4() -> None:
    """(i) manufacturer, (ii) brand, (iii) serial, (iv) model, (v) date, (vi) minimum payout
    and how it is calculated, (vii) type, theme, increment, program, max bet, top jackpot."""
    casino = Casino(load_scenario(FLOOR))
    linked = casino.machine("P-001").spec.certificate
    plain = casino.machine("B-001").spec.certificate
    assert linked is not None and plain is not None
    assert dict(plain.particulars()) == {
        "manufacturer": "Acme Gaming Ltd",
        "brand": "Acme",
        "serial": "AX-100-B00001",
        "model": "AX-100",
        "manufactured": "2025-01-01",
        "minimum_payout_percent": "92.85",  # 30427/32768 = 92.8558 %, floored
        "payout_calculation": plain.payout_calculation,
        "game_type": "reels",
        "game_theme": "Lucky Sevens",
        "progressive_increment_bp": "",
        "program_serial": casino.machine("B-001").spec.game.signature,
        "max_bet_credits": "3",
        "highest_jackpot_credits": "750",
    }
    assert "262,144" in plain.payout_calculation  # 64 ** 3 weighted stops
    assert linked.progressive_increment_bp == 150
    assert casino.machine("B-001").spec.certified_min_payout_bp == 9285


def test_a_run_checks_only_its_own_regulation() -> None:
    """Under singapore-2010 none of the Malta controls applies (and none crashes for want of
    a Malta parameter), only the Singapore ones (nothing to breach on a floor without a
    premium room); under malta-1998 all of Malta's do."""
    import tomllib

    data = tomllib.loads(FLOOR.read_text())
    data["ruleset"] = {"name": "singapore-2010"}
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    casino = Casino(sc)
    casino.run(until=3600.0)
    assert casino.compliance is not None
    assert casino.compliance.counts() == {c: 0 for c in registry() if c.startswith("SG10.")}
    malta = Casino(load_scenario(FLOOR))
    assert malta.compliance is not None
    assert set(malta.compliance.counts()) == {c for c in registry() if c.startswith("MT98.")}
