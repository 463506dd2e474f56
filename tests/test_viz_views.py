"""The floor view's layers, one per department, registered by the department's name (issue 26):
every department is drawn by a registered view or named, with why, as not drawn yet; a name is
registered once; the viewer draws the layers of the run's departments in the registry's order.
(That ``twin`` never imports ``viz`` is tests/test_architecture.py's.)"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: real surfaces, no window
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO

import viz.views
from twin.clock import Clock
from twin.departments import opening_order, plans
from viz import palette as P
from viz.app import Viewer, init_pygame, run_departments
from viz.live import open_live
from viz.model import FloorModel
from viz.views import NOT_DRAWN, Registry, View, in_opening_order, registered, views_for
from viz.views.slots import SlotsView

TINY = REPO / "scenarios" / "tiny.toml"


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


class Layer:
    """A stand-in view that notes when it is drawn."""

    def __init__(self, name: str, drawn: list[str]) -> None:
        self.name = name
        self.needs: tuple[str, ...] = ()
        self.drawn = drawn

    def draw(self, viewer: Viewer, surface: pygame.Surface) -> None:
        self.drawn.append(self.name)


def test_every_department_is_drawn_by_its_view_or_named_as_not_drawn_yet() -> None:
    departments = {p.name for p in plans()}
    drawn = set(registered())
    assert "slots" in drawn
    assert not drawn & set(NOT_DRAWN), "a department both drawn and not drawn"
    assert drawn | set(NOT_DRAWN) == departments
    assert all(why.strip() for why in NOT_DRAWN.values())


def test_each_registered_view_is_a_view_of_its_department_reading_the_model_s_attributes() -> None:
    model = FloorModel(Clock(datetime(2026, 3, 2, 10, 0), "Europe/Amsterdam"))
    for name in registered():
        (view,) = views_for([name])
        assert isinstance(view, View) and view.name == name
        missing = [a for a in view.needs if not hasattr(model, a)]
        assert not missing, f"{name} needs what the model lacks: {missing}"


def test_registering_a_name_twice_fails() -> None:
    with pytest.raises(ValueError, match="already registered"):
        viz.views.register("slots")(SlotsView)
    assert registered().count("slots") == 1
    (view,) = views_for(["slots"])
    assert isinstance(view, SlotsView)

    reg = Registry()
    drawn: list[str] = []
    reg.register("door")(lambda: Layer("door", drawn))
    with pytest.raises(ValueError, match="'door' is already registered"):
        reg.register("door")(lambda: Layer("door", drawn))
    with pytest.raises(ValueError, match="named 'slots' registered as 'pit'"):
        reg.register("pit")(SlotsView)
    assert reg.names() == ("door",)


def test_views_for_gives_fresh_layers_of_the_registered_names_in_the_order_asked() -> None:
    reg = Registry()
    drawn: list[str] = []
    for name in ("cage", "door"):
        reg.register(name)(lambda name=name: Layer(name, drawn))
    views = reg.views_for(["door", "pit", "cage", "door"])
    assert [v.name for v in views] == ["door", "cage"]  # pit has no view; door once
    assert reg.views_for(["door"])[0] is not views[0]  # one layer per viewer
    first, second = views_for(["slots"]), views_for(["slots"])
    assert first[0] is not second[0]


def test_departments_are_put_in_the_registry_s_opening_order() -> None:
    assert in_opening_order(reversed(opening_order())) == opening_order()
    assert in_opening_order(["aml", "slots"]) == ("slots", "aml")
    with pytest.raises(ValueError, match="no department is named casino"):
        in_opening_order(["slots", "casino"])


def test_the_viewer_draws_the_run_s_departments_layers_in_the_registry_s_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = open_live(TINY, out=tmp_path, factor=600.0)
    viewer = Viewer(src, (1024, 700))
    # the tiny floor: the slot floor, its patrons and staff, the pit (always there); no door,
    # cage, junkets, premium rooms or AML desk
    assert viewer.departments == run_departments(src) == ("slots", "patrons", "staff", "pit")
    assert [v.name for v in viewer.views] == ["slots", "patrons", "staff", "pit"]
    assert viewer.views[0] is viewer.slots

    reg = Registry()
    drawn: list[str] = []
    for name in ("aml", "door", "slots"):
        reg.register(name)(lambda name=name: Layer(name, drawn))
    monkeypatch.setattr(viz.views, "REGISTRY", reg)
    layered = Viewer(src, (1024, 700), departments=["aml", "pit", "slots", "door"])
    layered.draw()
    assert drawn == ["slots", "door", "aml"]
    src.close()


def test_a_viewer_without_the_slot_floor_s_layer_draws_no_machines(tmp_path: Path) -> None:
    src = open_live(TINY, out=tmp_path, factor=600.0)
    src.seek(1800.0)
    bare = Viewer(src, (1024, 700), departments=["aml"])
    assert bare.views == []
    bare.draw()
    full = Viewer(src, (1024, 700))
    r = full.machine_screen_rect("A-001")
    probe = (r.x + 2, r.bottom - 3)
    assert tuple(bare.screen.get_at(probe))[:3] == P.BACKGROUND
    full.draw()
    assert tuple(full.screen.get_at(probe))[:3] == src.model.machines["A-001"].state.colour
    src.close()


def test_the_lifecycle_layer_rings_a_machine_waiting_for_the_board(tmp_path: Path) -> None:
    """study.toml at 27 h (issue 27): A-005 broke down at 26 h and waits for the Board's
    written approval of its replacement from reserve: the lifecycle layer rings it in the
    Board's colour and its panel lists the store, the work waiting and the certificate."""
    from viz.views.lifecycle import BOARD, LifecycleView

    src = open_live(REPO / "scenarios" / "study.toml", hours=30.0, out=tmp_path, factor=600.0)
    src.seek(27 * 3600.0)
    viewer = Viewer(src, (1280, 800))
    assert [v.name for v in viewer.views] == [
        "slots",
        "patrons",
        "staff",
        "pit",
        "lifecycle",
        "licensing",
    ]
    (layer,) = [v for v in viewer.views if isinstance(v, LifecycleView)]
    assert [text for text, _ in layer.lines(viewer)] == [
        "machines' lives",
        "register: 40 on the floor",
        "reserve store (locked): A-R01, A-R02, B-R01",
        "certificate: on site, shown on request",
        "waiting for the Board (1):",
        "  W01 replacement A-005: since Tue 12:00 (1 h)",
    ]
    viewer.draw()
    ring = viewer.machine_screen_rect("A-005").inflate(4, 4)
    assert tuple(viewer.screen.get_at((ring.x, ring.centery)))[:3] == BOARD
    src.close()


def test_the_lifecycle_layer_draws_nothing_without_a_lifecycle(tmp_path: Path) -> None:
    from viz.views.lifecycle import LifecycleView

    src = open_live(TINY, out=tmp_path, factor=600.0)
    src.seek(600.0)
    viewer = Viewer(src, (1024, 700), departments=["slots", "lifecycle"])
    before = viewer.screen.copy()
    (layer,) = [v for v in viewer.views if isinstance(v, LifecycleView)]
    layer.draw(viewer, viewer.screen)
    assert pygame.image.tobytes(before, "RGB") == pygame.image.tobytes(viewer.screen, "RGB")
    src.close()
