"""Rendering of an exact `Analysis`: a readable text report and a JSON-ready dict.

Percentages are shown with 4 decimals; "1 in N" is ``1 / probability``. Exact values are kept
as fraction strings ``"num/den"`` in the JSON form so a reader can re-check them.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from twin.machines.analysis import Analysis

__all__ = ["render_text", "to_json_dict"]


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:9.4f} %"


def _one_in(p: Fraction) -> str:
    if p == 0:
        return "never"
    return f"1 in {float(1 / p):,.2f} ({float(p) * 100:.4f} %)"


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def render_text(a: Analysis) -> str:
    """Multi-line human-readable report of an analysis."""
    out = [f"PAR sheet {a.game_id}: {a.name}"]
    out.append(f"  file          {a.path}")
    out.append(f"  signature     {a.signature[:16]}…")
    if a.kind == "reels":
        out.append(
            f"  layout        {a.reels} reels × {a.rows} rows, {a.lines} lines, "
            f"wager = bet units × {a.cost} credits"
        )
        out.append(
            f"  cycle         {a.cycle:,} weighted combinations "
            f"({a.combinations:,} stop combinations)"
        )
    else:
        out.append(f"  layout        outcome table, wager = bet units × {a.cost} credits")
        out.append(f"  cycle         {a.cycle:,} (total weight of {a.combinations} outcomes)")
    out.append("Return to player (excluding any progressive prize)")
    if a.kind == "reels":
        out.append(f"  line pays     {_pct(a.line_return)}")
        out.append(f"  scatter pays  {_pct(a.scatter_return)}")
        out.append(f"  free spins    {_pct(a.feature_return)}")
    else:
        out.append(f"  outcome table {_pct(a.table_return)}")
    out.append(f"  total         {_pct(a.rtp)}   exact {_frac(a.rtp)}")
    out.append(f"Hit frequency   {_one_in(a.hit_rate)}")
    if a.has_feature:
        out.append(
            f"Free spins      trigger {_one_in(a.trigger_rate)}; "
            f"retrigger per spin {float(a.retrigger_rate) * 100:.4f} %"
        )
        out.append(
            f"                mean {float(a.feature_spins_mean):.4f} spins, "
            f"mean feature win {float(a.feature_win_mean):,.4f} credits per unit bet"
        )
    if a.progressive_rate > 0:
        out.append(f"Progressive     {_one_in(a.progressive_rate)} games (base game)")
        if a.progressive_per_game != a.progressive_rate:
            out.append(
                f"                {float(a.progressive_per_game):.8f} hits per game incl. feature"
            )
    out.append(f"Std deviation   {a.sd:.4f} × wager per game (variance {float(a.variance):.4f})")
    if a.has_feature:
        out.append(
            f"Max win         base {a.max_base_win:,}; one free spin {a.max_free_spin_win:,}; "
            f"bound {a.max_win:,} credits per unit bet"
        )
        out.append(
            f"                (bound = base + free spin × {a.feature_spin_cap} spins, a feature "
            "length exceeded with probability < 1e-6)"
        )
    else:
        out.append(f"Max win         {a.max_win:,} credits per unit bet")
    return "\n".join(out) + "\n"


def to_json_dict(a: Analysis) -> dict[str, Any]:
    """JSON-ready dict: floats for reading, ``"num/den"`` strings for the exact values."""
    return {
        "game": {
            "id": a.game_id,
            "name": a.name,
            "path": a.path,
            "signature": a.signature,
            "kind": a.kind,
            "cost": a.cost,
            "reels": a.reels,
            "rows": a.rows,
            "lines": a.lines,
        },
        "combinations": a.combinations,
        "cycle": a.cycle,
        "rtp": float(a.rtp),
        "rtp_exact": _frac(a.rtp),
        "rtp_parts": {
            "line": float(a.line_return),
            "scatter": float(a.scatter_return),
            "feature": float(a.feature_return),
            "table": float(a.table_return),
        },
        "rtp_parts_exact": {
            "line": _frac(a.line_return),
            "scatter": _frac(a.scatter_return),
            "feature": _frac(a.feature_return),
            "table": _frac(a.table_return),
        },
        "hit_rate": float(a.hit_rate),
        "hit_rate_exact": _frac(a.hit_rate),
        "hit_one_in": float(1 / a.hit_rate) if a.hit_rate else None,
        "progressive_rate": float(a.progressive_rate),
        "progressive_rate_exact": _frac(a.progressive_rate),
        "progressive_per_game": float(a.progressive_per_game),
        "feature": {
            "trigger_rate": float(a.trigger_rate),
            "trigger_rate_exact": _frac(a.trigger_rate),
            "retrigger_rate": float(a.retrigger_rate),
            "mean_spins": float(a.feature_spins_mean),
            "mean_win": float(a.feature_win_mean),
            "spin_cap": a.feature_spin_cap,
        },
        "variance": float(a.variance),
        "variance_exact": _frac(a.variance),
        "sd": a.sd,
        "max_base_win": a.max_base_win,
        "max_free_spin_win": a.max_free_spin_win,
        "max_win": a.max_win,
    }
