"""Items 1(c) and 1(e): the outcome shown, and pay tables that must not follow the hold."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import besides_absent
from scipy import stats as sps
from test_controls import CASES, run_floor

from twin.compliance.checks.outcomes import adaptation_test
from twin.machines.adaptive import AdaptivePayTable, scaled_pays
from twin.machines.analysis import analyse, win_distribution
from twin.machines.par import load_game

GAMES_DIR = Path(__file__).resolve().parents[1] / "scenarios" / "games"

GAMES = Path(__file__).resolve().parent.parent / "scenarios" / "games"


def test_a_shortened_win_is_found_by_its_amount(tmp_path: Path) -> None:
    """The machine shows as many winning games as it selected, but fewer credits: only the
    amount check can see it."""
    casino, _ = run_floor(tmp_path, CASES["S1.1c.amount"])
    assert casino.compliance is not None
    (f,) = besides_absent(casino)
    assert f.control == "MT98.S1.1c" and f.subjects == ("A-002",)
    shown = [int(x) for x in f.message.split() if x.isdigit()]
    games_shown, credits_shown, games_selected, credits_selected = shown
    assert games_shown == games_selected
    assert credits_shown < credits_selected


def test_scaled_pays_keep_the_reels_and_the_signature() -> None:
    game = load_game(GAMES / "classic-3reel.toml")
    half = scaled_pays(game, 0.5)
    assert half.signature == game.signature and half.base is game.base
    assert game.line_pay is not None and half.line_pay is not None
    assert np.array_equal(half.line_pay, game.line_pay // 2)
    assert analyse(half).rtp < analyse(game).rtp


def test_adaptive_program_pays_less_after_a_low_hold_and_more_after_a_high_one() -> None:
    game = load_game(GAMES / "classic-3reel.toml")
    prog = AdaptivePayTable(game, window=100)
    assert prog.factor() == 1.0 and prog.batched().game is game
    prog.observe(100, 300, 600)  # hold -100 %: it has paid far too much
    assert prog.factor() == 0.5
    assert prog.batched().game.line_pay is not None
    prog.observe(100, 300, 0)  # the window drops the first stretch: hold 100 %
    assert len(prog.recent) == 1 and prog.factor() == 1.5


def _fair_stretches(
    rng: np.random.Generator, law: object, count: int
) -> list[tuple[int, int, int]]:
    from test_stats import _pmf_totals

    out = []
    for _ in range(count):
        games = int(rng.integers(20, 400))
        bet = int(rng.integers(1, 4))
        out.append((bet, games, bet * int(_pmf_totals(law, games, 1, rng)[0])))
    return out


def test_adaptation_test_holds_its_level_on_fair_stretches() -> None:
    """400 fair machines of 40 stretches each (classic-3reel, 20 to 400 games, 1 to 3 units):
    the rejections at 0.05 lie in the binomial 99.9 % interval of 0.05 or below it (the test
    is Bonferroni over two windows, so at most 0.05). A correct test fails this by chance
    with probability below 0.1 %; the seed is fixed."""
    game = load_game(GAMES / "classic-3reel.toml")
    a, law = analyse(game), win_distribution(game)
    rng = np.random.default_rng(31)
    mean, var = float(a.rtp) * a.cost, float(a.variance) * a.cost**2
    p = [adaptation_test(_fair_stretches(rng, law, 40), mean, var).p_value for _ in range(400)]
    hi = sps.binom.ppf(0.999, 400, 0.05)
    assert np.count_nonzero(np.array(p) <= 0.05) <= hi


def test_adaptation_test_sees_pays_that_follow_the_hold() -> None:
    """The same stretches played by an adaptive program (window 300 games): rejected at
    1e-3 (deterministic, seed fixed)."""
    game = load_game(GAMES / "classic-3reel.toml")
    a = analyse(game)
    prog = AdaptivePayTable(game, window=300)
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(40):
        variant = prog.batched().game
        games, bet = int(rng.integers(100, 400)), 1
        won = int(_totals(variant, games, rng))
        prog.observe(games, games * bet * game.cost, won)
        rows.append((bet, games, won))
    res = adaptation_test(rows, float(a.rtp) * a.cost, float(a.variance) * a.cost**2)
    assert res.p_value < 1e-3, res
    assert res.statistic < 0 and not math.isnan(res.statistic)


def _totals(game: object, games: int, rng: np.random.Generator) -> float:
    from test_stats import _pmf_totals

    return float(_pmf_totals(win_distribution(game), games, 1, rng)[0])  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["adaptive_paytable", "shortened_win"])
def test_new_injections_are_registered(kind: str) -> None:
    from twin.injections import INJECTIONS

    assert kind in INJECTIONS


@pytest.mark.parametrize("setting", ["randomness_confidence", "randomness_fdr"])
def test_randomness_confidence_and_fdr_both_change_the_findings(
    tmp_path: Path, setting: str
) -> None:
    """Wager-dependent pays on B-001: at the ruleset's defaults it is reported under 1(b) and
    1(b)(iii) (test_controls.py, case S1.1b.iii), its dependence test at some p among 8
    tests of one machine of 14. A per-machine confidence of 1 - p (Holm: p / 8 for the
    smallest of 8) or a floor false-discovery rate of p (against the machine's Bonferroni
    8 p) each alone removes the finding: neither setting overrides the other, and nothing
    else is found (the wager-dependent pays are a setting of the approved image, whose
    signature challenge answers as approved; 3(a)'s payback test does not see this change in
    a day)."""
    from dataclasses import replace

    base, _ = run_floor(tmp_path, CASES["S1.1b.iii"])
    assert base.compliance is not None
    msg = next(f.message for f in besides_absent(base) if f.control == "MT98.S1.1b.iii")
    got = re.search(r"p = ([0-9.e+-]+)", msg)
    assert got is not None, msg
    p = float(got.group(1))
    value = 1.0 - p if setting == "randomness_confidence" else p
    casino, _ = run_floor(tmp_path, replace(CASES["S1.1b.iii"], overrides={setting: value}))
    assert casino.compliance is not None
    found = {f.control for f in besides_absent(casino)}
    assert found == set()  # none of 1(b)


@pytest.mark.parametrize("factor", [0.5, 0.7, 1.3, 1.5])
def test_scaled_pays_are_the_same_for_the_batched_kernel_and_the_per_spin_reference(
    factor: float,
) -> None:
    """A self-adjusting program scales every pay: the batched kernel's pay table and the pays
    the per-spin reference reads must scale alike, or the two engines disagree under the
    injection (they once did: only the kernel's table was scaled)."""
    for name in ("classic-3reel", "video-5reel"):
        game = scaled_pays(load_game(GAMES_DIR / f"{name}.toml"), factor)
        rng = np.random.default_rng(7)
        u = rng.random((400, game.draws_per_spin))
        batch = game.evaluate(u)
        one = [game.evaluate_one(row.tolist())[0] for row in u]
        assert batch.win_units.tolist() == one, name


def test_adaptation_p_value_does_not_depend_on_how_many_orderings_are_drawn_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The permutation test draws its orderings in blocks bounded by BLOCK_CELLS (its memory
    stays flat however long the run); the orderings, and so the p-value, are the same
    whatever the bound. Fair stretches, so that many blocks are drawn."""
    import twin.compliance.checks.outcomes as outcomes

    game = load_game(GAMES / "classic-3reel.toml")
    a, law = analyse(game), win_distribution(game)
    rows = _fair_stretches(np.random.default_rng(3), law, 300)
    mean, var = float(a.rtp) * a.cost, float(a.variance) * a.cost**2
    wide = adaptation_test(rows, mean, var)
    monkeypatch.setattr(outcomes, "BLOCK_CELLS", 300 * 33)  # blocks of 32, 33, 33, ...: other cuts
    narrow = adaptation_test(rows, mean, var)
    assert (narrow.p_value, narrow.statistic) == (wide.p_value, wide.statistic)


def test_a_program_of_another_reel_layout_under_the_approved_signature_is_found() -> None:
    """``tampered_game`` with a program whose reels differ from the approved one's (low-return:
    one reel of 4 stops, under classic-3reel's signature: 3 reels of 22): the tally cannot be
    compared stop by stop, and that alone shows the outcomes do not come from the program
    reported (item 1(b)(ii)); the audit used to stop the run's checks with a ValueError."""
    import tomllib

    from twin.casino import Casino
    from twin.departments import parse_scenario

    small = Path(__file__).resolve().parent.parent / "scenarios" / "small.toml"
    data = tomllib.loads(small.read_text(encoding="utf-8"))
    data["inject"] = [{"kind": "tampered_game", "machine": "B-003",
                       "game": "games/low-return.toml", "at_hours": 1.0}]  # fmt: skip
    casino = Casino(parse_scenario(data, source=str(small), base_dir=small.parent))
    casino.run()
    assert casino.compliance is not None
    got = {f.control: f.message for f in casino.compliance.findings if f.subjects[:1] == ("B-003",)}
    assert (
        "the outcomes land on reels of [4] stops; the program reported has reels of "
        "[22, 22, 22]" in got["MT98.S1.1b.ii"]
    )
