"""Make the README's screenshots (headless): ``python -m viz.screenshots docs``.

The live view of the default floor (600 machines) a few hours in, a machine's meter panel, a
replay of a finished run at a chosen time, and a drill's score screen.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from twin import api
from viz.app import Viewer, init_pygame
from viz.drill import DrillScreen, find_drill, play_script, start_attempt
from viz.live import open_live
from viz.sources import ReplaySource

SIZE = (1280, 800)


def main(out: Path) -> list[Path]:
    init_pygame(headless=True)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="viz-shots-"))
    shots: list[Path] = []
    try:
        src = open_live(None, out=work / "live", factor=2000.0)
        viewer = Viewer(src, SIZE, title="default, seed 20260302")
        src.seek(3.5 * 3600)
        viewer.draw()
        shots.append(viewer.screenshot(out / "viz-live.png"))
        busy = max(
            src.model.machines.values(),
            key=lambda m: (bool(m.patron), dict(m.machine_state(src.t).meters)["games_played"]),
        )
        viewer.zoom_at(3.0, viewer.machine_screen_rect(busy.id).center)
        viewer.selected = busy.id
        viewer.draw()
        shots.append(viewer.screenshot(out / "viz-meter-panel.png"))
        src.close()

        large = open_live(
            Path(__file__).resolve().parent.parent / "scenarios" / "large.toml", factor=2000.0
        )
        viewer = Viewer(large, SIZE, title="large (2,500 machines), fitted")
        large.seek(2 * 3600)
        viewer.draw()
        shots.append(viewer.screenshot(out / "viz-live-2500.png"))
        large.close()

        run = work / "run"
        api.run(None, hours=6, out=run)
        replay = ReplaySource(run / "ledger.sqlite")
        viewer = Viewer(
            replay, SIZE, title="replay: a 6-hour run of the default floor, from its ledger"
        )
        replay.seek(4.25 * 3600)
        viewer.draw()
        shots.append(viewer.screenshot(out / "viz-replay.png"))

        attempt = start_attempt(find_drill("jackpot-hand-pay"), out=work / "drill")
        viewer = Viewer(attempt.source, SIZE, title="drill: Jackpot hand pay")
        screen = DrillScreen(attempt)
        screen.attach(viewer)
        play_script(attempt, [("wait", 1020), ("key", "2"), ("wait", 720)], screen)
        viewer.draw()
        shots.append(viewer.screenshot(out / "viz-drill-score.png"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return shots


if __name__ == "__main__":
    for shot in main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(shot)
