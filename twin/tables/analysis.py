"""``twin table FILE``: the exact analysis of a table game file, optionally checked by play.

Per bet: how it pays, the exact house edge (a fraction and a percent), the standard
deviation of the net per unit staked, the law itself; with ``simulate = N``, N rounds played
the long way (a wheel spun, coups dealt, hands played card by card: the kind's simulator,
not a draw from the derived law) on a seeded stream, with the observed edge and its 95 %
interval (normal approximation: mean +- 1.96 s / sqrt(N)).
"""

from __future__ import annotations

from fractions import Fraction
from math import sqrt
from typing import Any

import numpy as np

from twin.tables.games import SIMULATE, TableGame

Z95 = 1.959963984540054  # the two-sided 95 % normal quantile


def analyse(game: TableGame, simulate: int = 0, seed: int = 0) -> dict[str, Any]:
    """The analysis as a JSON-ready dict (fractions as "p/q" strings)."""
    bets = []
    for i, (name, law) in enumerate(game.bets.items()):
        edge = law.house_edge
        doc: dict[str, Any] = {
            "name": name,
            "pays": law.pays,
            "house_edge_exact": str(edge),
            "house_edge_percent": round(float(edge) * 100, 6),
            "sd_per_unit": round(sqrt(law.variance), 6),
            "outcomes": [
                {"net": str(n), "probability": str(p)}
                for n, p in zip(law.nets, law.probs, strict=True)
            ],
        }
        if simulate:
            rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
            nets = SIMULATE[game.kind](game, name, rng, simulate)
            doc["simulation"] = simulated(nets, edge, seed)
        bets.append(doc)
    return {
        "game": {
            "id": game.id,
            "name": game.name,
            "kind": game.kind,
            "file": str(game.path),
            "rounds_per_hour": game.rounds_per_hour,
            "seats": game.seats,
            "main_bet": game.main_bet,
        },
        "rules": dict(game.rules),
        "bets": bets,
    }


def simulated(nets: np.ndarray, edge: Fraction, seed: int) -> dict[str, Any]:
    n = int(nets.shape[0])
    mean = float(nets.mean())
    half = Z95 * float(nets.std(ddof=1)) / sqrt(n) if n > 1 else float("inf")
    lo, hi = -mean - half, -mean + half
    return {
        "rounds": n,
        "seed": seed,
        "edge_percent": round(-mean * 100, 6),
        "ci95_percent": [round(lo * 100, 6), round(hi * 100, 6)],
        "exact_inside": bool(lo <= float(edge) <= hi),
    }


def render_text(doc: dict[str, Any]) -> str:
    g = doc["game"]
    lines = [
        f"{g['name']} ({g['id']}): {g['kind']}, {g['file']}",
        f"{g['rounds_per_hour']:g} rounds an hour, {g['seats']} seats, main bet {g['main_bet']}",
        "rules: "
        + (", ".join(f"{k} = {_toml(v)}" for k, v in doc["rules"].items()) or "(defaults)"),
    ]
    for b in doc["bets"]:
        lines += [
            "",
            f"{b['name']}: pays {b['pays']}",
            f"  house edge {b['house_edge_exact']}",
            f"             = {b['house_edge_percent']:.4f} %",
            f"  standard deviation per unit {b['sd_per_unit']:.4f}",
        ]
        s = b.get("simulation")
        if s:
            lo, hi = s["ci95_percent"]
            verdict = "inside" if s["exact_inside"] else "OUTSIDE"
            lines.append(
                f"  simulated {s['rounds']} rounds (seed {s['seed']}): edge "
                f"{s['edge_percent']:.4f} %, 95 % interval [{lo:.4f}, {hi:.4f}] % "
                f"(the exact edge is {verdict})"
            )
    return "\n".join(lines)


def _toml(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


__all__ = ["analyse", "render_text"]
