"""The licensing department's layer of the viewer (issue 28): :class:`viz.model.LicensingState`
kept from the records alone, and the Licences panel drawn on a real (headless) surface, for a
record stream made here and for the licensing test floor (tests/licensing_floor.py) run live."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: real surfaces, no window
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO
from licensing_floor import TINY, scenario_data

from twin.casino import Casino
from twin.clock import Clock
from twin.departments import parse_scenario
from twin.licensing.records import (
    CaseOpened,
    GroundReported,
    LicenceAction,
    LicenceCeased,
    LicenceIssued,
    LicenceOnFile,
    LicenceSuspended,
    LicensingOnFile,
    RoleAssigned,
    ShowCauseIssued,
    SuspensionEnded,
    TermComplied,
)
from twin.metrics import Metrics
from twin.records import Record, RecordBus
from twin.staff.records import DutyMissed, ShiftStarted
from viz import palette as P
from viz.app import Viewer, init_pygame
from viz.live import open_live
from viz.model import FloorModel, LicensingCase, LicensingState
from viz.sources import LiveSource
from viz.views.licensing import BARRED, CASE, COVER, PANEL_WIDTH, LicensingView

DAY = 86400.0


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


class Feed:
    """Real records, numbered by a bus at times set by the test, into a :class:`FloorModel`."""

    def __init__(self) -> None:
        self.now = 0.0
        self.model = FloorModel(Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta"))
        self.bus = RecordBus(lambda: self.now, [self.model])

    def __call__(self, cls: type[Record], at_days: float | None = None, **fields: object) -> None:
        if at_days is not None:
            self.now = at_days * DAY
        self.bus.emit(cls, **fields)


def _licence(feed: Feed, cls: type[Record], member: str, licence: str, kind: str) -> None:
    extra = {"application": "LA-0001"} if cls is LicenceIssued else {}
    feed(cls, member=member, licence=licence, licence_kind=kind, functions=("attendant",),
         casino="Casino Tiny", conditions=(), issued="2026-01-05", valid_from="2026-01-05",
         renewal=False, **extra)  # fmt: skip


def _case(feed: Feed, case: str, member: str, ground: str) -> None:
    feed(GroundReported, member=member, case=case, ground=ground, in_writing=True, known_t=0.0)


def _action(feed: Feed, case: str, member: str, outcome: str, term_due_t: float = -1.0) -> None:
    feed(LicenceAction, member=member, case=case, licence="", outcome=outcome, role="",
         condition="", until_t=-1.0, term_due_t=term_due_t, under="18(4)")  # fmt: skip


def _role(feed: Feed, member: str, role: str, previous: str, reason: str) -> None:
    feed(RoleAssigned, member=member, role=role, previous=previous, reason=reason)


def _missed(feed: Feed, member: str, reason: str) -> None:
    feed(DutyMissed, role="attendant", shift="day", member=member, reason=reason, hours=12.0)


def test_the_model_keeps_licences_bars_cover_and_open_cases_from_the_records() -> None:
    """Every record the state reads, once: licences on file and issued, ceased, suspended and
    back; duty missed (until the member comes on duty); cover in and out (a variation is no
    cover); cases reported, given a show-cause date, acted on (a suspension closes a case, a
    condition leaves it open until its term is complied with), dispensed with."""
    feed = Feed()
    _missed(feed, "ATT-day-09", "employment not begun")  # no [licensing] seen yet
    assert not feed.model.licensing.active
    feed(LicensingOnFile, casino="Casino Tiny", form_documents=("photo",),
         roles=("attendant",), ladders=("slots",), grades=(1,))  # fmt: skip
    for member, licence, kind in (
        ("ATT-day-01", "EL-0001", "full"),
        ("ATT-day-02", "EL-0002", "full"),
        ("ATT-day-03", "EL-0003", "provisional"),
        ("TEC-day-01", "EL-0004", "full"),
        ("ATT-night-01", "EL-0005", "full"),
    ):
        _licence(feed, LicenceOnFile, member, licence, kind)
    _licence(feed, LicenceIssued, "ATT-day-09", "EL-0006", "provisional")
    feed(LicenceCeased, 2.0, member="ATT-day-03", licence="EL-0003", licence_kind="provisional",
         reason="full_issued")  # fmt: skip
    _licence(feed, LicenceIssued, "ATT-day-03", "EL-0007", "full")
    feed(LicenceSuspended, 3.0, member="ATT-night-01", licence="EL-0005", case="LC-0009",
         until_t=5 * DAY)  # fmt: skip
    feed(SuspensionEnded, 5.0, member="ATT-night-01", licence="EL-0005", case="LC-0009")
    feed(LicenceSuspended, member="ATT-day-02", licence="EL-0002", case="LC-0001", until_t=-1.0)
    _missed(feed, "ATT-day-02", "licence suspended")
    feed(ShiftStarted, 6.0, role="attendant", shift="day", member="ATT-day-09", name="",
         employer="licensee")  # fmt: skip
    _role(feed, "ATT-day-01", "technician", "attendant", "cover")
    _role(feed, "TEC-day-01", "attendant", "technician", "cover")
    _role(feed, "TEC-day-01", "technician", "attendant", "cover_end")
    _role(feed, "ATT-day-03", "technician", "attendant", "variation")
    _case(feed, "LC-0001", "ATT-day-02", "bankruptcy")  # shown cause, suspended: closed
    feed(ShowCauseIssued, member="ATT-day-02", case="LC-0001", ground="bankruptcy",
         period_days=21, due_t=27 * DAY)  # fmt: skip
    _action(feed, "LC-0001", "ATT-day-02", "suspend")
    _case(feed, "LC-0002", "ATT-day-01", "condition_breach")  # a condition: open to its term
    feed(ShowCauseIssued, member="ATT-day-01", case="LC-0002", ground="condition_breach",
         period_days=21, due_t=28 * DAY)  # fmt: skip
    _action(feed, "LC-0002", "ATT-day-01", "condition", term_due_t=32 * DAY)
    _case(feed, "LC-0003", "TEC-day-01", "unsuitable")  # dispensed with
    feed(CaseOpened, member="TEC-day-01", case="LC-0003", ground="unsuitable", dispensed=True)
    _case(feed, "LC-0004", "ATT-day-03", "contravention")  # a variation, complied with
    _action(feed, "LC-0004", "ATT-day-03", "vary", term_due_t=40 * DAY)
    feed(TermComplied, member="ATT-day-03", case="LC-0004")
    _case(feed, "LC-0005", "ATT-night-01", "false_information")  # opened, asked to show cause
    feed(CaseOpened, member="ATT-night-01", case="LC-0005", ground="false_information",
         dispensed=False)  # fmt: skip
    feed(ShowCauseIssued, member="ATT-night-01", case="LC-0005", ground="false_information",
         period_days=21, due_t=29 * DAY)  # fmt: skip
    _case(feed, "LC-0006", "TEC-day-01", "bankruptcy")  # just reported
    _action(feed, "LC-0007", "TEC-day-01", "cancel")  # a case never reported: nothing

    lic = feed.model.licensing
    assert lic == LicensingState(
        active=True,
        licences={
            "EL-0001": "full",
            "EL-0002": "suspended",
            "EL-0003": "ceased",
            "EL-0004": "full",
            "EL-0005": "full",
            "EL-0006": "provisional",
            "EL-0007": "full",
        },
        kinds={
            "EL-0001": "full",
            "EL-0002": "full",
            "EL-0003": "provisional",
            "EL-0004": "full",
            "EL-0005": "full",
            "EL-0006": "provisional",
            "EL-0007": "full",
        },
        barred={"ATT-day-02": "licence suspended"},
        covering={"ATT-day-01": "technician"},
        cases={
            "LC-0002": LicensingCase("ATT-day-01", "condition_breach", 6 * DAY, 28 * DAY, 32 * DAY),
            "LC-0005": LicensingCase("ATT-night-01", "false_information", 6 * DAY, 29 * DAY),
            "LC-0006": LicensingCase("TEC-day-01", "bankruptcy", 6 * DAY),
        },
    )
    assert lic.counts() == {"full": 4, "provisional": 1, "suspended": 1, "ceased": 1}
    assert list(feed.model.ticker) == [  # a suspension is news
        (3 * DAY, "ATT-night-01: licence EL-0005 suspended", False),
        (5 * DAY, "ATT-day-02: licence EL-0002 suspended", False),
    ]


def _floor(days: float) -> tuple[LiveSource, Metrics]:
    """The licensing test floor (``days`` of it) run live for the viewer, with its KPIs."""
    sc = parse_scenario(scenario_data(days=days), source=str(TINY), base_dir=TINY.parent)
    casino = Casino(sc)
    metrics = Metrics()
    casino.attach(metrics)
    layout = [(m.id, m.spec.bank, m.spec.zone) for m in casino.machines]
    model = FloorModel(casino.world.clock, layout)
    return LiveSource(casino, model, factor=600.0), metrics


def test_the_licensing_layer_draws_the_licences_panel_of_the_licensing_floor() -> None:
    """The licensing floor on day 12.5 (Saturday 14 March, 22:00): ATT-day-05 (17, refused)
    has no licence, ATT-day-01 and TEC-day-01 cover each other's grades, and the two grounds
    wait for their holders to show cause; the panel says so at the floor's top left."""
    src, _ = _floor(13.0)
    src.seek(12.5 * DAY)
    viewer = Viewer(src, (1280, 800))
    assert [v.name for v in viewer.views] == ["slots", "patrons", "staff", "pit", "licensing"]
    (layer,) = [v for v in viewer.views if isinstance(v, LicensingView)]
    assert layer.lines(viewer) == [
        ("Licences", P.TEXT),
        ("full 13, provisional 0, suspended 0, ceased 3", P.MUTED),
        ("may not work now (1):", BARRED),
        ("  ATT-day-05: no licence in force", BARRED),
        ("covering another grade (2):", COVER),
        ("  ATT-day-01 as technician", COVER),
        ("  TEC-day-01 as attendant", COVER),
        ("open cases (2):", CASE),
        ("  LC-0001 ATT-night-03 condition breach: show cause by Thu 26 Mar", CASE),
        ("  LC-0002 ATT-day-03 bankruptcy: show cause by Fri 27 Mar", CASE),
    ]
    viewer.draw()
    r = viewer.floor_rect
    box = pygame.Rect(r.x + 8, r.y + 8, PANEL_WIDTH, 18 * 10 + 10)  # the panel: ten lines
    screen = viewer.screen
    assert tuple(screen.get_at(box.topleft))[:3] == P.PANEL_EDGE
    assert tuple(screen.get_at((box.right - 1, box.bottom - 1)))[:3] == P.PANEL_EDGE
    assert tuple(screen.get_at((box.x + 2, box.bottom - 2)))[:3] == P.PANEL
    assert tuple(screen.get_at((box.x + 2, box.bottom + 1)))[:3] not in (P.PANEL, P.PANEL_EDGE)
    inside = screen.subsurface(box.inflate(-4, -4))
    colours = {tuple(inside.get_at((x, y)))[:3] for x in range(inside.get_width())
               for y in range(inside.get_height())}  # fmt: skip
    assert {BARRED, COVER, CASE} <= colours  # the sections' text
    src.close()


def test_the_viewer_s_licences_agree_with_the_licensing_kpis_at_the_end_of_the_month() -> None:
    """The whole floor (thirty days) through the viewer's model: at the end, its licences by
    state are the KPIs' (ATT-night-03's 18(5) suspension outlasts the month), no case is open
    and nobody covers; three members may not work, each for their reason."""
    src, metrics = _floor(30.0)
    src.seek(src.end)
    src.close()
    lic = src.model.licensing
    kpis = metrics.kpis(src.end).sections["licensing"]
    assert lic.counts() == kpis["licences_by_state"]
    assert lic.counts() == {"full": 11, "provisional": 0, "suspended": 1, "ceased": 4}
    assert lic.barred == {
        "ATT-day-05": "no licence in force",
        "ATT-night-03": "licence suspended",
        "TEC-night-02": "employment ended",
    }
    assert lic.covering == {} and lic.cases == {}


def test_the_licensing_layer_draws_nothing_without_licensing(tmp_path: Path) -> None:
    src = open_live(REPO / "scenarios" / "tiny.toml", out=tmp_path, factor=600.0)
    src.seek(600.0)
    viewer = Viewer(src, (1024, 700), departments=["slots", "licensing"])
    before = viewer.screen.copy()
    (layer,) = [v for v in viewer.views if isinstance(v, LicensingView)]
    layer.draw(viewer, viewer.screen)
    assert pygame.image.tobytes(before, "RGB") == pygame.image.tobytes(viewer.screen, "RGB")
    assert src.model.licensing == LicensingState()
    src.close()
