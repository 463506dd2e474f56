"""Scenario files for runs with hardware-backed machines (written into a test's folder)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "scenarios" / "tiny.toml"
GAME = REPO / "scenarios" / "games" / "classic-3reel.toml"


def scenario(
    folder: Path,
    *,
    seconds: float,
    machines: int = 4,
    bindings: tuple[tuple[str, str, str], ...] = (),
    arrivals: float | None = None,
    quick_patrons: bool = False,
    faults: bool = True,
    name: str = "hw.toml",
) -> Path:
    """tiny.toml for ``seconds``, ``machines`` machines, ``[[hardware]]`` (machine, smib,
    mode) bindings; ``arrivals`` per hour all day; ``quick_patrons``: sessions of seconds."""
    src = TINY.read_text()
    src = src.replace("duration_hours = 2.0", f"duration_hours = {seconds / 3600!r}")
    src = src.replace('"games/classic-3reel.toml"', f'"{GAME}"')
    src = src.replace("count = 4", f"count = {machines}")
    if arrivals is not None:
        hourly = ", ".join([repr(float(arrivals))] * 24)
        src = re.sub(
            r"arrivals_per_hour = \[.*?\]", f"arrivals_per_hour = [{hourly}]", src, flags=re.S
        )
    if quick_patrons:  # sessions of seconds, paid with bills
        src = src.replace("share = 1.0\n", "share = 1.0\npays_with_bills_share = 1.0\n", 1)
        src = src.replace("median = 30, sigma = 0.5", "median = 0.1, sigma = 0.1")
        src = src.replace("low = 3.5, high = 7.0", "low = 0.1, high = 0.2")
    if not faults:
        src += (
            "\n[faults]\ntilt_mtbf_hours = 0.0\ncoin_in_jam_mtbf_hours = 0.0\n"
            "bill_jam_mtbf_hours = 0.0\nhopper_jam_mtbf_hours = 0.0\n"
            "reverse_coin_mtbf_hours = 0.0\npower_loss_mtbf_hours = 0.0\n"
            "door_checks_per_day = 0.0\n"
        )
    for machine, smib, mode in bindings:
        src += f'\n[[hardware]]\nmachine = "{machine}"\nsmib = "{smib}"\nmode = "{mode}"\n'
    path = folder / name
    path.write_text(src)
    return path
