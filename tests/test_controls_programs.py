"""Program, identity and licence controls read their clause (issue 7).

Each test runs the small floor of tests/data/controls.toml (or a shorter copy of it) with one
change and asserts exactly what the clause says should, and should not, be found.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from twin.casino import Casino
from twin.commands import CommandRejected
from twin.departments import parse_scenario
from twin.errors import InputError
from twin.machines.events import GamesPlayed, MetersRead, ProgressiveHit
from twin.machines.verification import (
    ProgramConverted,
    ProgramVerified,
    rom_signature,
)
from twin.records import MemorySink
from twin.slots.actions import ConvertProgram
from twin.slots.records import PromotionalPayout, PromotionAwarded

ROOT = Path(__file__).resolve().parent.parent
FLOOR = Path(__file__).resolve().parent / "data" / "controls.toml"
GAMES = ROOT / "scenarios" / "games"
LOW = GAMES / "low-return.toml"
VIDEO = GAMES / "video-5reel.toml"


def floor_data(hours: float = 24.0, seed: int | None = None) -> dict[str, Any]:
    data = tomllib.loads(FLOOR.read_text())
    data["scenario"]["duration_hours"] = hours
    if seed is not None:
        data["scenario"]["seed"] = seed
    return data


def convert(data: dict[str, Any], machine: str, at_hours: float, game: Path) -> None:
    """A conversion of ``machine`` to ``game`` at ``at_hours``, under the Board's written
    approval given before the run (a ``[[lifecycle.works]]`` conversion)."""
    work = {"kind": "conversion", "machine": machine, "at_hours": at_hours, "game": str(game),
            "approval": "granted"}  # fmt: skip
    data.setdefault("lifecycle", {}).setdefault("works", []).append(work)


def run(
    data: dict[str, Any], controls: Iterable[str] | None = None
) -> tuple[Casino, MemorySink, dict[str, list[str]]]:
    """Run the floor; findings as {control: [first subject, ...]}."""
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink], controls=controls)
    casino.run()
    assert casino.compliance is not None
    found: dict[str, list[str]] = {}
    for f in casino.compliance.findings:
        found.setdefault(f.control, []).append(f.subjects[0])
    return casino, sink, found


PROGRAM_CONTROLS = ("MT98.S1.1a", "MT98.S1.3a", "MT98.R28.3a", "MT98.R30.2")


# -- program verification: 1(a) and reg 28(3)(a) on what the machine actually runs ---------


def test_the_answer_to_a_signature_challenge_depends_on_the_seed_and_every_program() -> None:
    a, b = "ab" * 32, "cd" * 32
    assert rom_signature(1, a) == rom_signature(1, a)
    assert rom_signature(1, a) != rom_signature(2, a)
    assert rom_signature(1, a) != rom_signature(1, b)


def test_tampered_low_return_program_is_found_under_1a_and_r30_2_from_the_verification() -> None:
    """The machine runs low-return (82 %) while reporting the approved signature: only the
    signature challenge shows it; both 1(a) and reg 30(2) (it no longer matches its
    registration: treated as not registered) name the machine, citing the challenge. A
    program swap is a software change, not a 3(a) finding: 3(a) leaves the machine out of
    its test."""
    data = floor_data(hours=8.0)
    data["inject"] = [
        {"kind": "tampered_game", "machine": "B-003", "game": str(LOW), "at_hours": 2.0}
    ]
    casino, sink, found = run(data, PROGRAM_CONTROLS)
    assert found == {"MT98.S1.1a": ["B-003"], "MT98.R30.2": ["B-003"]}
    # the machine kept reporting the approved program in every meter reading
    approved = casino.machine("B-001").spec.game.signature
    assert {r.program_signature for r in sink.of(MetersRead) if r.machine == "B-003"} == {approved}
    assert casino.compliance is not None
    for f in casino.compliance.findings:
        (cited,) = (sink.records[s] for s in f.evidence)
        assert isinstance(cited, ProgramVerified) and cited.machine == "B-003"
        assert cited.reason == "closing" and cited.t == 8 * 3600.0


def test_tampering_is_found_at_the_first_verification_after_it() -> None:
    """With verification every 2 hours, tampering at 3 h is found by the 4 h challenge."""
    data = floor_data(hours=8.0)
    data["ruleset"]["overrides"]["program_verification_hours"] = 2
    data["inject"] = [
        {"kind": "tampered_game", "machine": "B-003", "game": str(LOW), "at_hours": 3.0}
    ]
    casino, sink, _ = run(data, PROGRAM_CONTROLS)
    assert casino.compliance is not None
    times = {f.control: sink.records[f.evidence[0]].t for f in casino.compliance.findings}
    assert times == {"MT98.S1.1a": 4 * 3600.0, "MT98.R30.2": 4 * 3600.0}


def test_verifications_at_install_on_schedule_and_at_closing() -> None:
    data = floor_data(hours=8.0)
    data["ruleset"]["overrides"]["program_verification_hours"] = 3
    _, sink, found = run(data, PROGRAM_CONTROLS)
    assert found == {}
    mine = [(r.reason, r.t) for r in sink.of(ProgramVerified) if r.machine == "A-001"]
    assert mine == [
        ("install", 0.0),
        ("scheduled", 3 * 3600.0),
        ("scheduled", 6 * 3600.0),
        ("closing", 8 * 3600.0),
    ]
    seeds = [r.seed for r in sink.of(ProgramVerified)]
    assert len(set(seeds)) == len(seeds)  # a fresh seed every time: no replayed answer
    assert all(r.inspector.startswith("INS-") for r in sink.of(ProgramVerified))


def test_an_approved_conversion_raises_neither_3a_nor_1a() -> None:
    """B-003 is converted at 2 h to video-5reel (approved: it runs on bank A): the program
    changes by a recorded software change, the new program is verified, and it returns
    more than 85 %; 3(a) tests each program's play on its own (no change within either)."""
    data = floor_data(hours=8.0)
    convert(data, "B-003", 2.0, VIDEO)
    casino, sink, found = run(data, PROGRAM_CONTROLS)
    assert found == {}
    (conv,) = sink.of(ProgramConverted)
    video = casino.machine("A-001").spec.game.signature
    assert conv.machine == "B-003" and conv.to_signature == video
    assert conv.from_signature == casino.machine("B-001").spec.game.signature
    assert conv.technician and conv.inspector and conv.t > 2 * 3600.0
    after = [r for r in sink.of(ProgramVerified) if r.machine == "B-003" and r.t >= conv.t]
    assert [r.reason for r in after] == ["conversion", "closing"]
    assert all(r.response == rom_signature(r.seed, video) for r in after)
    assert casino.facts.register[casino.machine("B-003").spec.registration] == video
    # the machine says so too: its readings after the conversion report the new program
    last = [r for r in sink.of(MetersRead) if r.machine == "B-003"][-1]
    assert last.program_signature == video


def test_an_approved_conversion_to_a_low_return_program_raises_1a_only() -> None:
    """A recorded conversion is a lawful way to change the payback (no 3(a)); the program it
    puts in must still return 85 % (1(a) cites the conversion record)."""
    data = floor_data(hours=8.0)
    convert(data, "B-003", 2.0, LOW)
    casino, sink, found = run(data, PROGRAM_CONTROLS)
    assert found == {"MT98.S1.1a": ["B-003"]}
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert isinstance(sink.records[f.evidence[0]], ProgramConverted)


def test_the_same_program_swap_without_a_conversion_record_is_found_under_r30_2() -> None:
    """The control for the test above: the same change, made with no record (swap_game). It
    is a software change without the Board's approval (First Schedule 11(a), 14(a)), and the
    machine no longer matches its registration: reg 30(2) treats it as not registered (reg
    28(3)(a) holds: it was installed as registered). It is no 3(a) finding: the payback
    changed by a software change, and 3(a) leaves the swapped machine out."""
    data = floor_data(hours=8.0)
    data["inject"] = [{"kind": "swap_game", "machine": "B-003", "game": str(VIDEO), "at_hours": 2}]
    casino, sink, found = run(data, PROGRAM_CONTROLS)
    assert found == {"MT98.R30.2": ["B-003"]}
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert "reg 30(2)" in f.message
    cited = sink.records[f.evidence[0]]
    assert isinstance(cited, MetersRead) and cited.machine == "B-003"  # it says so itself


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_tampering_detection_does_not_depend_on_the_seed(seed: int) -> None:
    """The challenge is exact (a hash comparison), so detection is deterministic: every seed
    finds the tampered machine at the closing verification, and no other machine."""
    data = floor_data(hours=4.0, seed=seed)
    data["inject"] = [
        {"kind": "tampered_game", "machine": "A-002", "game": str(LOW), "at_hours": 1.0}
    ]
    _, _, found = run(data, PROGRAM_CONTROLS)
    assert found == {"MT98.S1.1a": ["A-002"], "MT98.R30.2": ["A-002"]}


def test_a_conversion_to_an_unapproved_program_is_refused_with_the_reason() -> None:
    data = floor_data(hours=1.0)
    sc = parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.start()
    casino.inbox.put(ConvertProgram("B-003", LOW))
    casino.inbox.put(ConvertProgram("Z-999", VIDEO))
    casino.run()
    reasons = [r.reason for r in sink.of(CommandRejected)]
    assert reasons == [
        f"{LOW} is not a program the Board approved for this floor",
        "no machine 'Z-999' on the floor",
    ]
    assert sink.of(ProgramConverted) == []


def test_a_conversion_of_an_unknown_machine_is_a_scenario_error() -> None:
    data = floor_data()
    convert(data, "Z-999", 0.0, VIDEO)
    with pytest.raises(InputError) as err:
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    assert "lifecycle.works[0].machine" in str(err.value) and "Z-999" in str(err.value)


# -- reg 28(3)(d), (e), (f): configured limits, every prize, certificate particulars --------


def test_the_configured_maximum_stake_is_checked_before_any_play() -> None:
    """Max stake Lm 1.29 (EUR 3.0049; the licence states it in Lm): bank P is configured for
    3 units x 5 credits x 25 cents = 375 cents a game; found at installation (nobody has
    played yet); 100 and 75 are not."""
    data = floor_data(hours=1.0)
    data["ruleset"]["overrides"]["max_stake_cents"] = 129
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent), controls=["MT98.R28.3d"]
    )
    casino.run(until=1.0)
    assert casino.compliance is not None
    assert sorted(f.subjects[0] for f in casino.compliance.findings) == [
        "P-001",
        "P-002",
        "P-003",
        "P-004",
    ]
    assert all("configured" in f.message and "375" in f.message for f in casino.compliance.findings)


def test_a_prize_won_in_the_feature_counts_toward_the_maximum_prize() -> None:
    """Cap Lm 4,293 (EUR 10,000 exactly): bank A's base game pays at most 4,785 x 5 = 23,925
    cents, but with its free-spin feature up to 674,685 x 5 = 3,373,425 cents; only bank A is
    found. Bank P (3 x 5 x 204 x 25 / 5 + the 500,000-cent reset = 515,300) is within it."""
    data = floor_data(hours=1.0)
    data["ruleset"]["overrides"]["max_prize_cents"] = 429_300
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent), controls=["MT98.R28.3e"]
    )
    casino.run(until=1.0)
    assert casino.compliance is not None
    found = casino.compliance.findings
    assert sorted(f.subjects[0] for f in found) == ["A-001", "A-002", "A-003", "A-004"]
    assert all("can pay 3373425 cents" in f.message for f in found)


def grown_link_floor(includes_progressive: bool) -> dict[str, Any]:
    data = floor_data(hours=8.0)
    # bank A's feature can pay more than the cap at install: leave it out
    data["floor"]["banks"] = [b for b in data["floor"]["banks"] if b["id"] != "A"]
    data["floor"]["progressives"][0].update(reset_cents=480_000, increment_bp=1500)
    data["ruleset"]["overrides"].update(
        max_prize_cents=214_650,  # Lm 2,146.50 = EUR 5,000 exactly
        prize_cap_includes_progressive=includes_progressive,
    )
    return data


def test_a_link_whose_prize_grows_past_the_maximum_is_found_when_it_does() -> None:
    """Reset 480,000 cents + 15 % of bets: at installation a P machine can pay 480,000 +
    15,300 = 495,300 cents (within 500,000). The link's prize passes 500,000 while the floor
    plays: found before any machine locks for it, once per climb (again only after a hit
    has reset the link), citing the play that took it over."""
    casino, sink, _ = run(grown_link_floor(True), ["MT98.R28.3e"])
    assert casino.compliance is not None
    findings = casino.compliance.findings
    grown = [f for f in findings if "link link-P's prize has grown to" in f.message]
    locked = [f for f in findings if "awarded a prize of" in f.message]
    assert len(grown) + len(locked) == len(findings)
    assert grown and locked and grown[0].seq < locked[0].seq
    hits = [r.seq for r in sink.of(ProgressiveHit)]
    # once per climb: between the plays that took the prize over, a hit reset the link (the
    # findings themselves are numbered up to an hour of batches later: twin.records.LAG)
    for a, b in itertools.pairwise(grown):
        assert any(a.evidence[0] < h < b.evidence[0] for h in hits)
    for f in grown:
        cited = sink.records[f.evidence[0]]
        assert isinstance(cited, GamesPlayed) and cited.machine == f.subjects[0]


def test_a_growing_link_is_not_capped_when_the_licence_exempts_progressives() -> None:
    _, _, found = run(grown_link_floor(False), ["MT98.R28.3e"])
    assert found == {}


def test_a_certificate_that_names_another_serial_does_not_describe_the_machine() -> None:
    data = floor_data(hours=1.0)
    data["inject"] = [{"kind": "foreign_certificate", "machine": "B-002"}]
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent), controls=["MT98.R28.3f"]
    )
    casino.run(until=1.0)
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert f.message == (
        "machine B-002's manufacturer's certificate does not describe it: serial "
        "'AX-100-B00002-0' (the machine: 'AX-100-B00002')"
    )


# -- First Schedule 20(c): the asset number ------------------------------------------------


def test_machines_carry_an_asset_number_distinct_from_their_id() -> None:
    data = floor_data(hours=1.0)
    data["floor"]["banks"][1]["asset_prefix"] = "MLT"
    casino = Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
    assert casino.machine("A-001").spec.asset_number == "AN-A-001"
    assert casino.machine("B-003").spec.asset_number == "MLT-B-003"


def test_a_retagged_asset_number_is_found_at_the_next_reading() -> None:
    data = floor_data(hours=8.0)
    data["inject"] = [{"kind": "retag_asset", "machine": "B-003", "at_hours": 1.0}]
    casino, sink, found = run(data, ["MT98.S1.20c.asset", "MT98.S1.20c"])
    assert found == {"MT98.S1.20c.asset": ["B-003"], "MT98.S1.20c": ["B-003"]}
    assert casino.compliance is not None
    f = next(f for f in casino.compliance.findings if f.control == "MT98.S1.20c.asset")
    assert "now carries asset number AN-B-003-R (was AN-B-003)" in f.message
    reading = sink.records[max(f.evidence)]
    assert isinstance(reading, MetersRead) and reading.asset_number == "AN-B-003-R"


# -- First Schedule 16: promotional payouts --------------------------------------------------


def test_promotional_payouts_are_documented_with_every_particular() -> None:
    """The floor's promotion on bank G: each award is paid and documented with the machine,
    its denomination, the award, the type of promotion and an on-duty Board inspector."""
    _, sink, found = run(floor_data(hours=12.0), ["MT98.S1.16"])
    assert found == {}
    awards = sink.of(PromotionAwarded)
    payouts = sink.of(PromotionalPayout)
    # every award is paid, but one made in the last minutes may still be under way at the end
    assert awards and len(awards) - 1 <= len(payouts) <= len(awards)
    assert {(p.machine, p.awarded_t) for p in payouts} >= {
        (a.machine, a.t) for a in awards if a.t < 11 * 3600.0
    }
    by_award = {(a.machine, a.t): a for a in awards}
    for p in payouts:
        a = by_award[(p.machine, p.awarded_t)]
        assert (p.patron, p.amount_cents, p.promotion) == (a.patron, 500, "four-of-a-kind bonus")
        assert p.machine.startswith("G-") and p.denomination_cents == 1
        assert p.award == "cash bonus for four of a kind on a promotional machine"
        assert p.inspector.startswith("INS-") and p.attendant.startswith("ATT-")
        assert p.t > p.awarded_t


def test_an_unrecorded_promotional_payout_is_found_when_its_documentation_is_overdue() -> None:
    data = floor_data(hours=12.0)
    data["inject"] = [{"kind": "unrecorded_promotional_payout", "machine": "G-002"}]
    casino, sink, found = run(data, ["MT98.S1.16"])
    assert found == {"MT98.S1.16": ["G-002"]}
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    (award,) = (sink.records[s] for s in f.evidence)
    assert isinstance(award, PromotionAwarded) and award.machine == "G-002"
    first = min(a.t for a in sink.of(PromotionAwarded) if a.machine == "G-002")
    assert award.t == first
    assert f.found_t == first + 4 * 3600.0


def test_an_unconfirmed_promotional_payout_is_found() -> None:
    data = floor_data(hours=12.0)
    data["inject"] = [{"kind": "unconfirmed_promotional_payout", "machine": "G-001"}]
    casino, sink, found = run(data, ["MT98.S1.16"])
    assert found == {"MT98.S1.16": ["G-001"]}
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert "not confirmed by a Board inspector" in f.message
    cited = [sink.records[s] for s in f.evidence]
    assert [type(r) for r in cited] == [PromotionAwarded, PromotionalPayout]
    assert cited[1].inspector == ""


def test_leaving_a_promotional_machine_without_a_cash_out_record_is_not_item_16() -> None:
    """The old reading (a patron leaving a promotional machine with no cash-out record) is
    not what item 16 says: a cash-out is no promotional payout."""
    data = floor_data(hours=12.0)
    data["inject"] = [{"kind": "undocumented_payout", "machine": "G-002"}]
    _, _, found = run(data, ["MT98.S1.16"])
    assert found == {}


def test_a_promotion_on_a_bank_that_is_not_promotional_is_a_scenario_error() -> None:
    data = floor_data()
    data["promotions"][0]["bank"] = "B"
    with pytest.raises(InputError) as err:
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent)
    assert "promotions[0].bank" in str(err.value) and "(G)" in str(err.value)


# -- reg 28(3)(a)-(c) -------------------------------------------------------------------------


def test_a_machine_installed_with_another_program_than_registered_is_found() -> None:
    """Registration authorises one program: B-003's register entry names video-5reel while
    the machine is installed with classic-3reel."""
    data = floor_data(hours=1.0)
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent), controls=["MT98.R28.3a"]
    )
    reg = casino.machine("B-003").spec.registration
    casino.facts.register[reg] = casino.machine("A-001").spec.game.signature
    casino.run(until=1.0)
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert f.subjects == ("B-003",)
    assert f"registration {reg} authorises" in f.message and "classic-3reel" in f.message


def test_a_registration_number_that_changes_is_no_longer_the_one_allocated() -> None:
    data = floor_data(hours=8.0)
    data["inject"] = [{"kind": "renumber", "machine": "A-002", "at_hours": 2.0}]
    casino, sink, found = run(data, ["MT98.R28.3b"])
    assert found == {"MT98.R28.3b": ["A-002"]}
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert "shows registration MGB-A-0002-X" in f.message
    assert isinstance(sink.records[max(f.evidence)], MetersRead)


def test_two_machines_with_the_same_serial_are_found() -> None:
    data = floor_data(hours=1.0)
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent), controls=["MT98.R28.3c"]
    )
    b1, b2 = casino.machine("B-001"), casino.machine("B-002")
    b2.spec = replace(b2.spec, serial=b1.spec.serial)
    casino.run(until=1.0)
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert f.subjects == ("B-002", "B-001")
    assert f.message == "machines B-001 and B-002 carry the same serial AX-100-B00001"


def test_a_certificate_lacking_a_particular_is_found() -> None:
    data = floor_data(hours=1.0)
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent), controls=["MT98.R28.3f"]
    )
    m = casino.machine("B-002")
    assert m.spec.certificate is not None
    m.spec = replace(m.spec, certificate=replace(m.spec.certificate, brand=""))
    casino.run(until=1.0)
    assert casino.compliance is not None
    assert [f.message for f in casino.compliance.findings] == [
        "machine B-002's manufacturer's certificate lacks: brand"
    ]


def test_a_promotional_machine_secretly_running_a_losing_program_is_found() -> None:
    """G-001 runs classic-3reel (which can pay less than the wager) while reporting its
    approved promotional program; before anyone plays, only the signature challenge shows it."""
    data = floor_data(hours=1.0)
    data["inject"] = [
        {"kind": "tampered_game", "machine": "G-001", "game": str(GAMES / "classic-3reel.toml")}
    ]
    casino = Casino(
        parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent),
        sinks=[sink := MemorySink()],
        controls=["MT98.S1.15"],
    )
    casino.run(until=1.0)
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert (
        f.message
        == "promotional machine G-001 runs classic-3reel, which can pay less than the wager"
    )
    assert isinstance(sink.records[f.evidence[0]], ProgramVerified)
    assert sink.of(GamesPlayed) == []


def test_a_conversion_to_a_dearer_program_is_checked_against_the_maximum_stake() -> None:
    """B-003 (25 cents, 3 units) converted to the 20-credit video game takes up to
    3 x 20 x 25 = 1,500 cents a game: above the floor's 1,000, found at the conversion."""
    data = floor_data(hours=4.0)
    convert(data, "B-003", 1.0, VIDEO)
    casino, sink, found = run(data, ["MT98.R28.3d"])
    assert found == {"MT98.R28.3d": ["B-003"]}
    assert casino.compliance is not None
    (f,) = casino.compliance.findings
    assert "configured for stakes of up to 1500 cents" in f.message
    assert isinstance(sink.records[f.evidence[0]], ProgramConverted)


# -- First Schedule 3(a): a payback that changes while the approved program runs ------------


def _stretches(
    rng: Any, n: int, *, switch_at: int | None = None, jackpots: bool = True
) -> list[tuple[int, int, int]]:
    """Stretches of a two-pay game (10 credits a unit bet with probability 0.09, 500 with
    probability 0.0002: return 1.0), as patrons play it: bets of 1-3 units, a bet of 3 ending
    its stretches sooner (the bankroll runs out). From stretch ``switch_at`` on the pay of 10
    becomes 5 (a payback switched from a menu)."""
    out = []
    for j in range(n):
        bet = int(rng.choice([1, 2, 3], p=[0.5, 0.3, 0.2]))
        games = int(rng.integers(20, 600 // bet))
        small = 5 if switch_at is not None and j >= switch_at else 10
        u = rng.random(games)
        units = small * int((u < 0.09).sum()) + (500 * int((u > 0.9998).sum()) if jackpots else 0)
        out.append((bet, games, units * bet))
    return out


RTP, VARIANCE = 1.0, 0.09 * 100 + 0.0002 * 250_000 - 1.0


def test_a_payback_switched_during_play_is_a_change_point() -> None:
    """The same player stream with and without a switch from 100 % to 55 % halfway: the
    change test finds the switch (the time segments), not the unchanged series."""
    import numpy as np

    from twin.compliance.checks.outcomes import payback_change_test

    switched = payback_change_test(
        _stretches(np.random.default_rng(5), 200, switch_at=100), RTP, 1, VARIANCE, 200_000
    )
    kept = payback_change_test(_stretches(np.random.default_rng(5), 200), RTP, 1, VARIANCE)
    assert switched.p_value < 1e-4 < 0.05 < kept.p_value, (switched, kept)
    assert "largest change during play" in switched.detail


def test_the_payback_change_test_holds_its_level_on_fair_stretches() -> None:
    """300 fair series of 60 stretches (heavy-tailed pays, stretch lengths that depend on the
    bet): the share of p-values at or below 0.05 and 0.01 stays within binomial limits of the
    level (a chance failure has probability below 1e-3 for each)."""
    import numpy as np
    from scipy import stats as sps

    from twin.compliance.checks.outcomes import payback_change_test

    rng = np.random.default_rng(2026)
    ps = np.array(
        [payback_change_test(_stretches(rng, 60), RTP, 1, VARIANCE).p_value for _ in range(300)]
    )
    for level in (0.05, 0.01):
        assert (ps <= level).sum() <= sps.binom.ppf(0.999, 300, level), (level, np.sort(ps)[:20])
