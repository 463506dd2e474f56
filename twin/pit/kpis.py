"""The KPI section "tables": the pit and the card room, built from records alone.

Per game: tables, open hours, rounds, handle, drop, win (from the counts) and hold against
theoretical. The theoretical win of a stretch is its handle times the bet's house edge; the
variance of the table's win over a stretch is ``stake**2 * rounds * variance`` of the bet's
law (both carried by the stretch record). The band is the normal approximation of the win
over all the game's rounds at the pit's ``hold_confidence``: a game whose counted win falls
outside it is flagged (a warning, not a finding: no catalogued control reads table hold).

Devices: the twin's truth (``device_carried``, which no checker reads) against what
surveillance detected, before play or only after the wagers were settled, and what it missed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from twin.pit.records import (
    CardRoomSession,
    CountVarianceInvestigated,
    DeviceCarried,
    PitConfigured,
    TableClosed,
    TableCount,
    TableOpened,
    TableStretch,
)
from twin.records import Record


@dataclass
class _Game:
    tables: set[str]
    open_seconds: float = 0.0
    stretches: int = 0
    rounds: int = 0
    handle: int = 0
    drop: int = 0
    win: int = 0
    theo: int = 0
    var: int = 0


def hold_band(theo: int, var: int, confidence: float) -> tuple[float, float]:
    """The interval of the win (cents) the game should fall in at ``confidence``."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * math.sqrt(var)
    return theo - half, theo + half


class TablesKpis:
    """The KPI section of the table pit and the card room."""

    name = "tables"
    reads: tuple[type[Record], ...] = (
        PitConfigured,
        TableOpened,
        TableClosed,
        TableStretch,
        TableCount,
        CountVarianceInvestigated,
        CardRoomSession,
        DeviceCarried,
    )

    def __init__(self) -> None:
        self.confidence = 0.99
        self.configured = False
        self.games: dict[str, _Game] = {}
        self.opened: dict[str, tuple[str, float]] = {}  # table -> (game, opened at)
        self.rooms: dict[str, dict[str, int | float]] = {}
        self.variances: list[dict[str, Any]] = []
        self.investigated = 0
        self.devices = {"carried": 0, "before_play": 0, "after_play": 0, "never": 0}

    def _game(self, game: str) -> _Game:
        g = self.games.get(game)
        if g is None:
            g = self.games[game] = _Game(set())
        return g

    def accept(self, rec: Record) -> None:
        if isinstance(rec, PitConfigured):
            self.configured = True
            self.confidence = rec.hold_confidence
        elif isinstance(rec, TableOpened):
            self.opened[rec.table] = (rec.game, rec.t)
            self._game(rec.game).tables.add(rec.table)
        elif isinstance(rec, TableClosed):
            got = self.opened.pop(rec.table, None)
            if got is not None:
                self._game(got[0]).open_seconds += rec.t - got[1]
        elif isinstance(rec, TableStretch):
            g = self._game(rec.game)
            g.stretches += 1
            g.rounds += rec.rounds
            g.handle += rec.handle_cents
            g.theo += rec.theo_cents
            g.var += rec.var_cents2
        elif isinstance(rec, TableCount):
            g = self._game(rec.game)
            g.drop += rec.drop_cents
            g.win += rec.win_cents
            if rec.variance_cents:
                self.variances.append(
                    {"table": rec.table, "t": rec.t, "variance_cents": rec.variance_cents}
                )
        elif isinstance(rec, CountVarianceInvestigated):
            self.investigated += 1
        elif isinstance(rec, DeviceCarried):
            self.devices["carried"] += 1
            self.devices[rec.detected] += 1
        elif isinstance(rec, CardRoomSession):
            room = self.rooms.setdefault(rec.area, {"sessions": 0, "hours": 0, "charged_cents": 0})
            room["sessions"] += 1
            room["hours"] += rec.hours_billed
            room["charged_cents"] += rec.charged_cents

    def report(self, end: float) -> dict[str, Any]:
        if not self.configured:
            return {}
        games: dict[str, Any] = {}
        warnings: list[str] = []
        for gid, g in sorted(self.games.items()):
            still = sum(end - t0 for game, t0 in self.opened.values() if game == gid)
            lo, hi = hold_band(g.theo, g.var, self.confidence)
            inside = g.var == 0 or lo <= g.win <= hi
            games[gid] = {
                "tables": len(g.tables),
                "open_hours": round((g.open_seconds + still) / 3600.0, 3),
                "stretches": g.stretches,
                "rounds": g.rounds,
                "handle_cents": g.handle,
                "drop_cents": g.drop,
                "win_cents": g.win,
                "hold_percent": round(100.0 * g.win / g.drop, 3) if g.drop else None,
                "win_of_handle_percent": round(100.0 * g.win / g.handle, 3) if g.handle else None,
                "theoretical_win_cents": g.theo,
                "theoretical_percent": round(100.0 * g.theo / g.handle, 3) if g.handle else None,
                "band_cents": [round(lo), round(hi)],
                "inside_band": inside,
            }
            if not inside:
                warnings.append(
                    f"table hold of {gid}: win {g.win / 100:,.2f} outside its "
                    f"{self.confidence:.0%} band [{lo / 100:,.2f}, {hi / 100:,.2f}] around the "
                    f"theoretical {g.theo / 100:,.2f}"
                )
        lines = [
            f"  tables {gid}: {v['tables']} tables, {v['open_hours']:.1f} h open, "
            f"{v['rounds']:,} rounds; drop {v['drop_cents'] / 100:,.2f}, win "
            f"{v['win_cents'] / 100:,.2f} (hold {v['hold_percent']}% of drop, "
            f"{v['win_of_handle_percent']}% of handle; theoretical {v['theoretical_percent']}%, "
            f"band {v['band_cents'][0] / 100:,.2f} to {v['band_cents'][1] / 100:,.2f}: "
            f"{'inside' if v['inside_band'] else 'OUTSIDE'})"
            for gid, v in games.items()
        ]
        for area, r in sorted(self.rooms.items()):
            lines.append(
                f"  card room {area}: {r['sessions']} sessions, {r['hours']} h charged "
                f"{int(r['charged_cents']) / 100:,.2f}"
            )
        lines.append(
            f"  table count variances: {len(self.variances)} ({self.investigated} investigated)"
        )
        d = self.devices
        lines.append(
            f"  devices carried to the tables: {d['carried']} (detected before play "
            f"{d['before_play']}, after play {d['after_play']}, missed {d['never']})"
        )
        return {
            "games": games,
            "card_room": {a: dict(r) for a, r in sorted(self.rooms.items())},
            "count_variances": list(self.variances),
            "count_variances_investigated": self.investigated,
            "devices": {
                "carried": d["carried"],
                "detected_before_play": d["before_play"],
                "detected_after_play": d["after_play"],
                "missed": d["never"],
            },
            "lines": lines,
            "warnings": warnings,
        }


__all__ = ["TablesKpis", "hold_band"]
