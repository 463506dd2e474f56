"""The floor view: one pygame window (or an off-screen surface, for tests and benchmarks).

Keys: space pause/resume; ``.`` or ``S`` step a simulated minute; ``+``/``-`` speed ×1 to
×10,000; mouse wheel or ``[``/``]`` zoom; right/middle drag or arrow keys pan; ``0`` fit the
floor; left click a machine for its meter panel, a table or a cage window for its panel (Esc
closes it). With a machine selected in a
live run: ``O`` opens its slot door, ``C`` closes it, ``A`` sends idle staff to its oldest
job that waits for an operator. In a replay, click the time bar to jump; ``,``/``.`` move an
hour. ``Q`` quits.

The floor is drawn in layers, one per department of the run that has a view
(:mod:`viz.views`, registered by the department's name), in the registry's opening order (and
then, for the layers that have one, their ``draw_over`` pass: the patrons and the staff, over
every department's places); the viewer keeps the frame around them: the plan's geometry (the
slot floor, and the hall below its entrance: :func:`viz.layout.hall`), the bars, the sidebar
(each department's key figures, where the patrons are, the staff's legend), the selected
machine and its meter panel, the selected table's or cage window's panel.

The top bar says how the run keeps the asked speed: the speed achieved over the last two
seconds against the one asked, how far simulated time is behind where the asked speed would
have it, plainly when the simulation cannot keep up, and the frames drawn a second.
"""

from __future__ import annotations

import time as wall
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

import pygame

from viz import palette as P
from viz.layout import HallPlan, Plan, hall, plan
from viz.model import MachineView
from viz.sources import SPEEDS, Source
from viz.views import View, in_opening_order, views_for
from viz.views.slots import PATRON_SIDE, WALK_SECONDS, SlotsView

SIDEBAR = 330
TOPBAR = 40
TICKER = 150
TIMEBAR = 34
PANEL_W = 340
#: wall seconds of frames the frame rate is measured over
FPS_WINDOW = 1.0
#: the longest frame the window's loop lets the schedule count (see :meth:`Viewer.frame`)
MAX_FRAME_SECONDS = 0.25
Surface = pygame.surface.Surface


class Text:
    """Rendered text, cached (a frame draws the same labels again and again)."""

    def __init__(self) -> None:
        self.fonts: dict[int, pygame.font.Font] = {}
        self.cache: dict[tuple[str, int, P.Colour, bool], Surface] = {}

    def font(self, size: int) -> pygame.font.Font:
        f = self.fonts.get(size)
        if f is None:
            f = self.fonts[size] = pygame.font.Font(None, size)
        return f

    def render(
        self, text: str, size: int = 20, colour: P.Colour = P.TEXT, bold: bool = False
    ) -> Surface:
        key = (text, size, colour, bold)
        s = self.cache.get(key)
        if s is None:
            if len(self.cache) > 4000:
                self.cache.clear()
            f = self.font(size)
            f.set_bold(bold)
            s = self.cache[key] = f.render(text, True, colour)
            f.set_bold(False)
        return s

    def draw_w(
        self,
        surface: Surface,
        text: str,
        pos: tuple[int, int],
        size: int = 20,
        colour: P.Colour = P.TEXT,
        bold: bool = False,
    ) -> int:
        """Draw one line; the width used."""
        s = self.render(text, size, colour, bold)
        surface.blit(s, pos)
        return s.get_width()

    def draw(
        self,
        surface: Surface,
        text: str,
        pos: tuple[int, int],
        size: int = 20,
        colour: P.Colour = P.TEXT,
        bold: bool = False,
        width: int | None = None,
    ) -> int:
        """Draw one line (clipped to ``width``); the height used."""
        s = self.render(text, size, colour, bold)
        if width is not None and s.get_width() > width:
            surface.blit(s, pos, pygame.Rect(0, 0, width, s.get_height()))
        else:
            surface.blit(s, pos)
        return s.get_height()


class Viewer:
    """Draws a :class:`~viz.sources.Source` and turns input into its controls and commands."""

    def __init__(
        self,
        source: Source,
        size: tuple[int, int] = (1280, 800),
        *,
        surface: Surface | None = None,
        title: str = "",
        departments: Iterable[str] | None = None,
    ) -> None:
        self.source = source
        self.size = size
        self.screen = surface if surface is not None else pygame.Surface(size)
        self.text = Text()
        self.title = title
        self.selected: str | None = None
        #: the selected table (``("table", id)``) or cage window (``("window", index)``)
        self.selected_place: tuple[str, str] | None = None
        self.zoom = 1.0
        self.pan = (0.0, 0.0)
        self.dragging = False
        self.message = ""
        self.running = True
        self.frames = 0
        self.extra: Callable[[Viewer], None] | None = None  # a drill draws its own panel
        self.draw_seconds = 0.0  # wall time of the last drawing
        #: the wall seconds of the recent frames (``frame``'s ``wall_dt``), for the frame rate
        self.frame_times: deque[float] = deque()
        self._frame_sum = 0.0
        #: the departments of the run (by default, :func:`run_departments`), in the registry's
        #: opening order
        self.departments = in_opening_order(
            run_departments(source) if departments is None else departments
        )
        #: the floor view's layers: the registered views of those departments, in that order
        self.views: list[View] = views_for(self.departments)
        #: whether the plan has the hall below the entrance: a run whose opening records show a
        #: door, a cage, tables or junket leaders (the pit is always there, with or without
        #: tables; a replay runs every department's layer, which find nothing of most)
        names = set(self.departments)
        known = source.model.hall  # what the records at the opening say the run has
        self.has_hall = (
            ("door" in names and known.door)
            or ("cage" in names and known.cage)
            or ("pit" in names and bool(known.tables))
            or ("junkets" in names and bool(known.junket_leaders))
            or ("premium" in names and known.premium)
        )
        self.plan: Plan = plan(
            ((m.id, m.bank, m.zone) for m in source.model.machines.values()),
            hall=self.has_hall,
            premium_tables=len(known.table_list("premium")) if "premium" in names else 0,
        )
        self._hall: HallPlan | None = None
        self._hall_key: tuple[object, ...] = ()
        self._windows = 4  # the cage's windows drawn: at least 4, more if more cashiers came
        #: where the sidebar's staff legend drew each role's marker (its centre)
        self.legend_at: dict[str, tuple[int, int]] = {}
        #: the slot floor's layer (a fresh one, not drawn, in a run without a slot floor)
        slots = [v for v in self.views if isinstance(v, SlotsView)]
        self.slots: SlotsView = slots[0] if slots else SlotsView()
        self.fit()

    # -- geometry --------------------------------------------------------------------------------
    @property
    def floor_rect(self) -> pygame.Rect:
        w, h = self.size
        bottom = TICKER + (TIMEBAR if not self.source.live else 0)
        return pygame.Rect(0, TOPBAR, w - SIDEBAR, h - TOPBAR - bottom)

    def fit(self) -> None:
        r = self.floor_rect
        self.zoom = min((r.w - 20) / self.plan.width, (r.h - 20) / self.plan.height)
        self.pan = (
            self.plan.width / 2 - (r.w / 2) / self.zoom,
            self.plan.height / 2 - (r.h / 2) / self.zoom,
        )

    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        r = self.floor_rect
        return (r.x + (x - self.pan[0]) * self.zoom, r.y + (y - self.pan[1]) * self.zoom)

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        r = self.floor_rect
        return (self.pan[0] + (sx - r.x) / self.zoom, self.pan[1] + (sy - r.y) / self.zoom)

    def zoom_at(self, factor: float, at: tuple[float, float] | None = None) -> None:
        r = self.floor_rect
        sx, sy = at if at is not None else r.center
        wx, wy = self.to_world(sx, sy)
        self.zoom = max(0.05, min(self.zoom * factor, 12.0))
        self.pan = (wx - (sx - r.x) / self.zoom, wy - (sy - r.y) / self.zoom)

    def machine_screen_rect(self, machine: str) -> pygame.Rect:
        x, y, w, h = self.plan.machines[machine]
        sx, sy = self.to_screen(x, y)
        return pygame.Rect(
            int(sx), int(sy), max(1, round(w * self.zoom)), max(1, round(h * self.zoom))
        )

    def world_rect(self, rect: tuple[float, float, float, float]) -> pygame.Rect:
        """A world rectangle on screen."""
        x, y, w, h = rect
        sx, sy = self.to_screen(x, y)
        return pygame.Rect(
            int(sx), int(sy), max(1, round(w * self.zoom)), max(1, round(h * self.zoom))
        )

    @property
    def hall_plan(self) -> HallPlan | None:
        """Where the hall's departments are (None: the run has none), made again only when
        the tables known or the cage's windows change."""
        if not self.has_hall:
            return None
        model = self.source.model
        hall_state = model.hall
        cashiers = sum(1 for r in model.on_duty.values() if r == "cashier")
        self._windows = max(self._windows, cashiers)
        key = (tuple((t, tv.kind) for t, tv in hall_state.tables.items()), self._windows)
        if self._hall is None or key != self._hall_key:
            self._hall_key = key
            self._hall = hall(
                self.plan,
                [t for t, tv in hall_state.tables.items() if tv.kind == "table"],
                [t for t, tv in hall_state.tables.items() if tv.kind == "card_room"],
                [t for t, tv in hall_state.tables.items() if tv.kind == "junket"],
                self._windows,
                [t for t, tv in hall_state.tables.items() if tv.kind == "premium"],
            )
        return self._hall

    @property
    def fps(self) -> float | None:
        """Frames a second over the last :data:`FPS_WINDOW` wall seconds of frames (None
        before two frames)."""
        if len(self.frame_times) < 2 or self._frame_sum <= 0:
            return None
        return len(self.frame_times) / self._frame_sum

    @property
    def machine_side(self) -> int:
        """A machine's side in pixels at this zoom."""
        return max(1, round(8 * self.zoom))

    # -- input -------------------------------------------------------------------------------------
    def handle(self, ev: pygame.event.Event) -> None:
        if ev.type == pygame.QUIT:
            self.running = False
        elif ev.type == pygame.KEYDOWN:
            self.key(ev.key, ev.unicode if hasattr(ev, "unicode") else "")
        elif ev.type == pygame.MOUSEBUTTONDOWN:
            if ev.button == 1:
                self.click(ev.pos)
            elif ev.button in (2, 3):
                self.dragging = True
            # (buttons 4 and 5 are the wheel's legacy events; MOUSEWHEEL below handles it)
        elif ev.type == pygame.MOUSEBUTTONUP and ev.button in (2, 3):
            self.dragging = False
        elif ev.type == pygame.MOUSEMOTION and self.dragging:
            dx, dy = ev.rel
            self.pan = (self.pan[0] - dx / self.zoom, self.pan[1] - dy / self.zoom)
        elif ev.type == pygame.MOUSEWHEEL:
            self.zoom_at(1.2 if ev.y > 0 else 1 / 1.2, pygame.mouse.get_pos())

    def key(self, key: int, char: str = "") -> None:
        src = self.source
        step = 60.0 / self.zoom
        if key in (pygame.K_q,):
            self.running = False
        elif key == pygame.K_ESCAPE:
            if self.selected is None and self.selected_place is None:
                self.running = False
            self.selected = None
            self.selected_place = None
        elif key == pygame.K_SPACE:
            src.paused = not src.paused
        elif key == pygame.K_s or (key == pygame.K_PERIOD and src.live):
            src.step()
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS) or char == "+":
            src.factor = _next_speed(src.factor, +1)
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS) or char == "-":
            src.factor = _next_speed(src.factor, -1)
        elif key == pygame.K_RIGHTBRACKET:
            self.zoom_at(1.25)
        elif key == pygame.K_LEFTBRACKET:
            self.zoom_at(1 / 1.25)
        elif key == pygame.K_0:
            self.fit()
        elif key == pygame.K_LEFT:
            self.pan = (self.pan[0] - step, self.pan[1])
        elif key == pygame.K_RIGHT:
            self.pan = (self.pan[0] + step, self.pan[1])
        elif key == pygame.K_UP:
            self.pan = (self.pan[0], self.pan[1] - step)
        elif key == pygame.K_DOWN:
            self.pan = (self.pan[0], self.pan[1] + step)
        elif key == pygame.K_COMMA and not src.live:
            src.seek(src.t - 3600)
        elif key == pygame.K_PERIOD and not src.live:
            src.seek(src.t + 3600)
        elif src.live and self.selected is not None and key in (pygame.K_o, pygame.K_c, pygame.K_a):
            self.operator_action(key)

    def operator_action(self, key: int) -> None:
        """Operator commands on the selected machine: into the inbox, and so into the ledger."""
        from twin.slots.actions import CloseDoor, OpenDoor
        from twin.staff.actions import AssignJob

        m = self.selected
        assert m is not None
        if key == pygame.K_o:
            self.source.put(OpenDoor(m, "slot", "operator"))
            self.message = f"open_door {m} sent"
        elif key == pygame.K_c:
            self.source.put(CloseDoor(m, "slot", "operator"))
            self.message = f"close_door {m} sent"
        else:
            model = self.source.model
            jobs = [j for j in model.jobs.values() if j.machine == m and j.mode == "operator"]
            if not jobs:
                self.message = f"no job on {m} waits for an operator"
                return
            job = min(jobs, key=lambda j: j.t)
            members = {}
            for role in job.roles:
                idle = model.idle_staff(role)
                if not idle:
                    self.message = f"{job.id}: no {role} is free"
                    return
                members[role] = idle[0]
            self.source.put(AssignJob(job.id, members))
            self.message = f"assign_job {job.id} sent"

    def click(self, pos: tuple[int, int]) -> None:
        src = self.source
        bar = self.timebar_rect
        if bar is not None and bar.collidepoint(pos):
            share = (pos[0] - bar.x) / max(1, bar.w)
            src.seek(share * src.end)
            return
        if not self.floor_rect.collidepoint(pos):
            return
        wx, wy = self.to_world(*pos)
        self.selected = self.plan.machine_at(wx, wy)
        self.selected_place = None
        hp = self.hall_plan
        if self.selected is None and hp is not None:
            table = hp.table_at(wx, wy)
            window = hp.window_at(wx, wy)
            if table is not None:
                self.selected_place = ("table", table)
            elif window is not None:
                self.selected_place = ("window", str(window))

    # -- the loop ------------------------------------------------------------------------------
    def frame(
        self, wall_dt: float, budget: float | None = None, longest: float | None = None
    ) -> None:
        """Advance the source by one frame's worth of time and draw.

        ``budget``: wall seconds the simulation may take this frame. By default the frame
        aims at 60 frames a second, or at 30 from x1,000 up (fast-forwarding favours the
        simulation): what the last drawing left of that, at least 4 ms. ``longest``: the
        most of ``wall_dt`` the source's schedule counts (the window's loop passes
        :data:`MAX_FRAME_SECONDS`: a stall, a window dragged, is neither caught up nor called
        lag); the frame rate counts the whole ``wall_dt``.
        """
        if budget is None:
            target = 1 / 30 if self.source.factor >= 1000 else 1 / 60
            budget = max(0.004, target - self.draw_seconds)
        self.frame_times.append(wall_dt)
        self._frame_sum += wall_dt
        while len(self.frame_times) > 2 and self._frame_sum - self.frame_times[0] >= FPS_WINDOW:
            self._frame_sum -= self.frame_times.popleft()
        self.source.tick(wall_dt if longest is None else min(wall_dt, longest), budget)
        t0 = wall.perf_counter()
        self.draw()
        self.draw_seconds = wall.perf_counter() - t0
        self.frames += 1

    def run(self, fps: int = 60) -> None:
        clock = pygame.time.Clock()
        display = pygame.display.get_surface()
        last = wall.perf_counter()
        while self.running:
            for ev in pygame.event.get():
                self.handle(ev)
            now = wall.perf_counter()
            self.frame(now - last, longest=MAX_FRAME_SECONDS)
            last = now
            if display is not None:
                if display is not self.screen:
                    display.blit(self.screen, (0, 0))
                pygame.display.flip()
            clock.tick(fps)
        self.source.close()

    # -- drawing --------------------------------------------------------------------------------
    def draw(self) -> None:
        s = self.screen
        self.source.model.settle(self.source.t)
        s.fill(P.BACKGROUND)
        self.draw_floor(s)
        self.draw_topbar(s)
        self.draw_sidebar(s)
        self.draw_ticker(s)
        if self.timebar_rect is not None:
            self.draw_timebar(s)
        if self.selected is not None:
            self.draw_meter_panel(s, self.source.model.machines[self.selected])
        elif self.selected_place is not None:
            self.draw_place_panel(s)
        if self.extra is not None:
            self.extra(self)

    def draw_floor(self, s: Surface) -> None:
        """The departments' layers of the floor view, in the registry's order, and the
        selected machine's frame over them."""
        for view in self.views:
            view.draw(self, s)
        for view in self.views:
            over = getattr(view, "draw_over", None)
            if over is not None:
                over(self, s)
        if self.selected is not None:
            r = self.floor_rect
            s.set_clip(r)
            sr = self.machine_screen_rect(self.selected).inflate(6, 6)
            pygame.draw.rect(s, P.SELECT, sr, 2)
            s.set_clip(None)

    # -- the slot floor's layer (viz.views.slots), as the viewer has always offered it ------------
    def staff_position(self, member: str) -> tuple[float, float] | None:
        """Where a busy member is drawn (see :meth:`SlotsView.staff_position`)."""
        return self.slots.staff_position(self, member)

    def _corner(self, machine: str) -> tuple[float, float] | None:
        return self.slots.corner(self, machine)

    def seat(self, machine: str) -> tuple[float, float] | None:
        """Where a seated patron is drawn (see :meth:`SlotsView.seat`)."""
        return self.slots.seat(self, machine)

    def patron_position(self, patron: str) -> tuple[float, float] | None:
        """Where a walking patron is drawn (see :meth:`SlotsView.patron_position`)."""
        return self.slots.patron_position(self, patron)

    def diamond(self, radius: int) -> Surface:
        """A patron's marker (see :meth:`SlotsView.diamond`)."""
        return self.slots.diamond(radius)

    def draw_patrons(self, s: Surface) -> None:
        self.slots.draw_patrons(self, s)

    def draw_staff(self, s: Surface) -> None:
        self.slots.draw_staff(self, s)

    def speed_text(self) -> tuple[str, str, bool]:
        """The top bar's account of the pace: the speed (asked, and achieved over the last
        seconds), how far behind the asked speed the run is ("" when it is not), and whether
        to say it in the warning colour (the run cannot keep the asked speed)."""
        src = self.source
        if src.live and getattr(src, "finished", False):
            return "RUN ENDED", "", False
        if src.paused:
            return "PAUSED", "", False
        if not src.live:
            return f"x{src.factor:,.0f}", "", False
        got = getattr(src, "achieved", None)
        speed = f"x{src.factor:,.0f} asked"
        if got is not None:
            speed += f", x{got:,.{1 if got < 10 else 0}f} achieved"
        behind = float(getattr(src, "behind_seconds", 0.0))
        if behind < 1.0:
            return speed, "", False
        short = not getattr(src, "keeping_up", True)
        lag = f"behind by {duration(behind)} simulated"
        if short:
            lag += f": cannot keep x{src.factor:,.0f}"
        return speed, lag, short

    def draw_topbar(self, s: Surface) -> None:
        w = self.size[0]
        src = self.source
        pygame.draw.rect(s, P.PANEL, (0, 0, w, TOPBAR))
        pygame.draw.line(s, P.PANEL_EDGE, (0, TOPBAR - 1), (w, TOPBAR - 1))
        when = src.model.clock.at(src.t)
        mode = "LIVE" if src.live else "REPLAY"
        t = self.text
        x = 10
        t.draw(s, mode, (x, 10), 24, P.FINDING if src.live else P.GOOD, True)
        x += t.render(mode, 24, P.TEXT, True).get_width() + 12
        t.draw(s, f"{when:%a %d %b %Y  %H:%M:%S}", (x, 10), 26, P.TEXT, True)
        x += t.render(f"{when:%a %d %b %Y  %H:%M:%S}", 26, P.TEXT, True).get_width() + 14
        speed, lag, short = self.speed_text()
        x += t.draw_w(s, speed, (x, 12), 20, P.TEXT) + 12
        if lag:
            x += t.draw_w(s, lag, (x, 12), 20, P.FINDING if short else P.MUTED, bold=short) + 12
        fps = self.fps
        x += t.draw_w(s, "-- fps" if fps is None else f"{fps:.0f} fps", (x, 12), 20, P.MUTED) + 12
        if self.title and x < w - 60:
            t.draw(s, self.title, (x, 12), 20, P.MUTED, width=w - x - 10)

    def department_lines(self) -> list[tuple[str, P.Colour]]:
        """Each department's key figures, from the records (the sidebar's)."""
        model = self.source.model
        hall = model.hall
        names = set(self.departments)
        out: list[tuple[str, P.Colour]] = []
        if "door" in names and hall.door:
            refused = sum(hall.refusals.values())
            why = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(hall.refusals.items()))
            out.append((f"door: {hall.entries:,} in, queue {len(hall.at_door)}", P.TEXT))
            out.append((f"  {refused} refused" + (f" ({why})" if why else ""), P.MUTED))
        tables = hall.table_list("table")
        if "pit" in names and tables:
            open_ = [tv for tv in tables if tv.open]
            seated = sum(tv.seated for tv in tables)
            drop = sum(tv.drop_cents for tv in tables)
            out.append((f"pit: {len(open_)}/{len(tables)} tables open, {seated} seated", P.TEXT))
            out.append((f"  drop since count EUR {drop / 100:,.0f}", P.MUTED))
            for room in hall.table_list("card_room"):
                state = "open" if room.open else "closed"
                out.append((f"  card room {room.id}: {state}, {room.seated} seated", P.MUTED))
        if "cage" in names and hall.cage:
            n = sum(1 for r in model.on_duty.values() if r == "cashier")
            out.append((f"cage: {hall.transactions:,} transactions, {n} windows, queue 0", P.TEXT))
            for k in sorted(hall.txn_count):
                out.append((
                    f"  {k.replace('_', ' ')}: {hall.txn_count[k]}, "
                    f"EUR {hall.txn_cents[k] / 100:,.0f}",
                    P.MUTED,
                ))  # fmt: skip
            if hall.count_t >= 0:
                out.append((
                    f"  count {model.clock.at(hall.count_t):%a %H:%M}: {hall.counted:,}, "
                    f"EUR {hall.counted_cents / 100:,.0f}, variance "
                    f"EUR {hall.count_variance_cents / 100:,.2f}",
                    P.FINDING if hall.count_variance_cents else P.MUTED,
                ))  # fmt: skip
        if "junkets" in names and (hall.junket_leaders or hall.junkets):
            members = sum(len(m) for _l, m in hall.junkets.values())
            out.append((
                f"junkets: {len(hall.junkets)} groups in ({members} members), "
                f"{hall.junket_groups} over the run",
                P.TEXT,
            ))  # fmt: skip
            if hall.junkets:
                seated = sum(tv.seated for tv in hall.table_list("junket"))
                queue = "" if hall.seat_queue is None else f", {hall.seat_queue} waiting for a seat"
                out.append((f"  {seated} at the junket tables{queue}", P.MUTED))
        figures = []
        if "premium" in names and hall.premium:
            figures.append(model.premium_figures())
        if "aml" in names and hall.aml:
            figures.append(model.aml_figures())
        if "surveillance" in names and hall.cameras:
            figures.append(model.surveillance_figures())
        for head, *rest in figures:
            out.append((head, P.TEXT))
            out.extend((line, P.MUTED) for line in rest)
        return out

    def staff_roles(self) -> list[tuple[P.RoleStyle, int, int]]:
        """The legend's rows: each role with members on duty, how many and how many busy (a
        job, a table with players, a window serving), in the palette's order (a role the
        palette does not know last, as a grey cross)."""
        model = self.source.model
        busy = {m for m, (_at, b) in self.staff_places().items() if b} | model.busy
        on: dict[str, list[str]] = {}
        for member, role in model.on_duty.items():
            on.setdefault(role, []).append(member)
        order = [r.role for r in P.ROLES]
        roles = sorted(on, key=lambda r: (order.index(r) if r in order else len(order), r))
        return [(P.role_style(r), len(on[r]), sum(1 for m in on[r] if m in busy)) for r in roles]

    def staff_places(self) -> dict[str, tuple[tuple[float, float], bool]]:
        """Where the staff's layer draws each member, and whether busy (empty without it)."""
        from viz.views.staff import StaffView

        view = next((v for v in self.views if isinstance(v, StaffView)), None)
        return {} if view is None else view.places(self)

    def draw_sidebar(self, s: Surface) -> None:
        from viz.views.staff import marker

        w, h = self.size
        x0 = w - SIDEBAR
        pygame.draw.rect(s, P.PANEL, (x0, TOPBAR, SIDEBAR, h - TOPBAR))
        pygame.draw.line(s, P.PANEL_EDGE, (x0, TOPBAR), (x0, h))
        t = self.text
        model = self.source.model
        x, y = x0 + 10, TOPBAR + 6
        width = SIDEBAR - 16
        k = model.kpis
        hold = "-" if k.hold_percent is None else f"{k.hold_percent:.1f}%"
        y += t.draw(s, "Key figures", (x, y), 20, P.TEXT, True) + 1
        for line, colour in (
            (f"visitors {k.visitors:,}, inside {k.on_floor:,}", P.TEXT),
            (f"slots: {k.games:,} games, coin in EUR {k.coin_in_cents / 100:,.0f}, "
             f"hold {hold}", P.TEXT),
            (f"hand pays {k.hand_pays}, fills {k.fills}, findings {k.findings}",
             P.FINDING if k.findings else P.TEXT),
            (f"operator commands {k.commands} ok, {k.refused} refused", P.TEXT),
            *self.department_lines(),
        ):  # fmt: skip
            t.draw(s, line, (x, y), 17, colour, width=width)
            y += 16
        y += 5
        y += t.draw(s, "Where the patrons are", (x, y), 20, P.TEXT, True) + 1
        where = [(k2, v) for k2, v in model.whereabouts().items()]
        for i, (label, n) in enumerate(where):
            cx = x + (i % 2) * (width // 2)
            t.draw(s, f"{n:,} {label}", (cx, y), 16, P.TEXT, width=width // 2 - 4)
            if i % 2 == 1 or i == len(where) - 1:
                y += 16
        waits = [f"{what} {'-' if n is None else n}" for what, n in model.waiting_for().items()]
        for i in range(0, len(waits), 2):
            head = "waiting for: " if i == 0 else "  "
            t.draw(s, head + ", ".join(waits[i : i + 2]), (x, y), 16, P.TEXT, width=width)
            y += 16
        y += 5
        y += t.draw(s, "Staff by role (on duty / busy)", (x, y), 20, P.TEXT, True) + 2
        roles = self.staff_roles()
        self.legend_at = {}
        for i, (style, on, busy) in enumerate(roles):
            cx = x + (i % 2) * (width // 2)
            marker(s, style, (cx + 7, y + 8), 5, True)
            self.legend_at[style.role] = (cx + 7, y + 8)
            t.draw(s, f"{style.label} {on}/{busy}", (cx + 18, y + 1), 16, P.TEXT,
                   width=width // 2 - 20)  # fmt: skip
            if i % 2 == 1 or i == len(roles) - 1:
                y += 17
        y += 5
        queues = model.queues()
        y += t.draw(s, "Queues for staff", (x, y), 20, P.TEXT, True) + 1
        if not queues:
            t.draw(s, "nobody waits", (x, y), 16, P.MUTED)
            y += 16
        for kind, jobs in sorted(queues.items()):
            oldest = model.t - jobs[0].t
            mode = " (operator)" if any(j.mode == "operator" for j in jobs) else ""
            t.draw(s, f"{kind.replace('_', ' ')}: {len(jobs)} waiting, oldest "
                   f"{oldest / 60:.0f} min{mode}", (x, y), 16, width=width)  # fmt: skip
            y += 16
            for j in jobs[:2]:
                if j.mode == "operator":
                    t.draw(s, f"  {j.id} at {j.machine}", (x, y), 15, P.MUTED)
                    y += 15
        y += 5
        y += t.draw(s, "Machines", (x, y), 20, P.TEXT, True) + 2
        counts = model.counts()
        for i, st in enumerate(P.STATES):
            cx = x + (i % 2) * (width // 2)
            pygame.draw.rect(s, st.colour, (cx, y + 1, 14, 14))
            pygame.draw.rect(s, (0, 0, 0), (cx, y + 1, 14, 14), 1)
            if st.glyph:
                g = t.render(st.glyph, 14, (255, 255, 255) if st is P.OFFLINE else (0, 0, 0), True)
                s.blit(g, (cx + 7 - g.get_width() // 2, y + 2))
            t.draw(s, f"{st.label} {counts.get(st.key, 0):,}", (cx + 19, y + 1), 16,
                   width=width // 2 - 22)  # fmt: skip
            if i % 2 == 1:
                y += 17
        y += 3
        s.blit(self.diamond(5), (x + 2, y + 3))
        t.draw(s, "patron (refused: orange); staff: filled busy", (x + 18, y + 1), 16,
               width=width - 18)  # fmt: skip
        y += 19
        help_lines = [
            "space pause  S step 1 min  +/- speed  0 fit",
            "wheel or [ ] zoom, drag/arrows pan, Q quit",
            "click a machine, table or cage window; Esc",
        ]
        if self.source.live:
            help_lines.append("machine selected: O open door C close A assign")
        else:
            help_lines.append("click the time bar to jump   , . one hour")
        for line in help_lines:
            if y < h - 16:
                t.draw(s, line, (x, y), 15, P.MUTED, width=width)
            y += 15

    def draw_place_panel(self, s: Surface) -> None:
        """The selected table's or cage window's panel, where the meter panel goes."""
        from viz.views.cage import CageView
        from viz.views.pit import PitView

        assert self.selected_place is not None
        what, key = self.selected_place
        lines: list[str] = []
        if what == "table" and key in self.source.model.hall.tables:
            if self.source.model.hall.tables[key].kind == "premium":
                from viz.views.premium import PremiumView

                lines = PremiumView().lines(self, key)
            else:
                lines = PitView().lines(self, key)
        elif what == "window":
            lines = CageView().lines(self, int(key))
        if not lines:
            return
        r = self.floor_rect
        sizes = [22] + [18] * (len(lines) - 1)
        high = sum(self.text.render(line, z, P.TEXT, i == 0).get_height() + 2
                   for i, (line, z) in enumerate(zip(lines, sizes, strict=True)))  # fmt: skip
        panel = pygame.Rect(r.right - PANEL_W - 8, r.y + 8, PANEL_W, 16 + high)
        pygame.draw.rect(s, P.PANEL, panel)
        pygame.draw.rect(s, P.PANEL_EDGE, panel, 2)
        y = panel.y + 8
        for i, (line, z) in enumerate(zip(lines, sizes, strict=True)):
            y += 2 + self.text.draw(s, line, (panel.x + 10, y), z, P.TEXT, bold=i == 0,
                                    width=PANEL_W - 20)  # fmt: skip

    def draw_ticker(self, s: Surface) -> None:
        w, h = self.size
        y0 = h - TICKER
        pygame.draw.rect(s, P.PANEL, (0, y0, w - SIDEBAR, TICKER))
        pygame.draw.line(s, P.PANEL_EDGE, (0, y0), (w - SIDEBAR, y0))
        t = self.text
        model = self.source.model
        t.draw(s, "Records and findings", (10, y0 + 6), 20, P.TEXT, True)
        if self.message:
            t.draw(s, self.message, (260, y0 + 8), 18, P.MUTED)
        lines = list(model.ticker)[-7:]
        y = y0 + 28
        for when, line, finding in lines:
            stamp = f"{model.clock.at(when):%H:%M:%S}"
            t.draw(s, stamp, (10, y), 18, P.MUTED)
            t.draw(s, line, (80, y), 18, P.FINDING if finding else P.TEXT, width=w - SIDEBAR - 90)
            y += 17

    @property
    def timebar_rect(self) -> pygame.Rect | None:
        if self.source.live:
            return None
        w, h = self.size
        return pygame.Rect(70, h - TICKER - TIMEBAR + 8, w - SIDEBAR - 90, 16)

    def draw_timebar(self, s: Surface) -> None:
        bar = self.timebar_rect
        assert bar is not None
        src = self.source
        w = self.size[0]
        pygame.draw.rect(s, P.PANEL, (0, bar.y - 8, w - SIDEBAR, TIMEBAR))
        self.text.draw(s, "time", (12, bar.y), 18, P.MUTED)
        pygame.draw.rect(s, (225, 225, 225), bar)
        share = src.t / src.end if src.end else 0.0
        pygame.draw.rect(s, (0, 114, 178), (bar.x, bar.y, int(bar.w * share), bar.h))
        for f in src.model.findings:
            fx = bar.x + int(bar.w * float(f["t"]) / src.end) if src.end else bar.x
            pygame.draw.line(s, P.FINDING, (fx, bar.y - 4), (fx, bar.bottom + 3), 2)
        pygame.draw.rect(s, P.PANEL_EDGE, bar, 1)
        start, end = src.model.clock.at(0.0), src.model.clock.at(src.end)
        self.text.draw(s, f"{start:%a %H:%M}", (bar.x + 4, bar.y + 1), 16, (255, 255, 255))
        self.text.draw(s, f"{end:%a %H:%M}", (bar.right - 64, bar.y + 1), 16, P.MUTED)

    def draw_meter_panel(self, s: Surface, m: MachineView) -> None:
        """The machine's meters as an attendant's meter display shows them, its hopper and
        its recent history."""
        r = self.floor_rect
        panel = pygame.Rect(r.right - PANEL_W - 8, r.y + 8, PANEL_W, r.h - 16)
        pygame.draw.rect(s, P.PANEL, panel)
        pygame.draw.rect(s, P.PANEL_EDGE, panel, 2)
        t = self.text
        st = m.machine_state(self.source.model.t)
        x, y = panel.x + 10, panel.y + 8
        y += t.draw(s, f"{m.id}  bank {m.bank}, zone {m.zone}", (x, y), 24, P.TEXT, True)
        pygame.draw.rect(s, m.state.colour, (panel.right - 30, panel.y + 8, 18, 18))
        pygame.draw.rect(s, (0, 0, 0), (panel.right - 30, panel.y + 8, 18, 18), 1)
        y += (
            t.draw(s, f"{m.game}, {m.denomination_cents} c   {m.state.label}", (x, y), 18, P.MUTED)
            + 2
        )
        status = st.status if st.installed else "not installed"
        y += t.draw(s, f"status: {status}", (x, y), 18, width=PANEL_W - 20)
        doors = ", ".join(st.doors_open) or "none"
        y += t.draw(s, f"credits {st.credits:,}   doors open: {doors}", (x, y), 18)
        owed = f" ({st.hopper_owed} owed)" if st.hopper_owed else ""
        y += t.draw(s, f"hopper {st.hopper_level:,} coins{owed}", (x, y), 18)
        if m.patron:
            y += t.draw(s, f"player {m.patron}", (x, y), 18)
        if m.staff:
            y += t.draw(
                s,
                "staff: " + ", ".join(f"{k} ({v})" for k, v in m.staff.items()),
                (x, y),
                18,
                width=PANEL_W - 20,
            )
        y += 4
        # the meter display: black face, amber digits, as on the machine
        meters = [(n, v) for n, v in st.meters if not n.startswith("bills_") or v]
        face = pygame.Rect(x - 2, y, PANEL_W - 16, 20 + 17 * len(meters))
        pygame.draw.rect(s, (15, 15, 15), face)
        t.draw(s, "SAS METERS", (x + 4, y + 3), 17, (240, 228, 66), True)
        y += 20
        for name, value in meters:
            if y > panel.bottom - 120:
                break
            t.draw(s, name, (x + 4, y), 17, (230, 159, 0))
            v = t.render(f"{value:>10,}", 17, (240, 228, 66))
            s.blit(v, (face.right - v.get_width() - 6, y))
            y += 17
        y += 8
        y += t.draw(s, "History", (x, y), 19, P.TEXT, True)
        for line in m.history_lines(self.source.model.clock):
            if y > panel.bottom - 18:
                break
            y += t.draw(
                s, line, (x, y), 16, P.FINDING if "FINDING" in line else P.TEXT, width=PANEL_W - 20
            )

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(self.screen, str(path))
        return path


def duration(seconds: float) -> str:
    """Simulated seconds said plainly: ``4.2 s``, ``12 min 30 s``, ``3 h 05 min``."""
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        m, sec = divmod(int(seconds), 60)
        return f"{m} min {sec:02d} s"
    h, rest = divmod(int(seconds), 3600)
    return f"{h} h {rest // 60:02d} min"


def run_departments(source: Source) -> tuple[str, ...]:
    """The departments of ``source``'s run in the registry's opening order: those its scenario
    asks for, live; every department, in a replay (a ledger does not name them; a layer whose
    department did not run finds nothing of it in the records)."""
    from twin.departments import opening_order, plans

    scenario = getattr(getattr(source, "casino", None), "scenario", None)
    if scenario is None:
        return opening_order()
    present = {p.name for p in plans() if p.present(scenario)}
    return tuple(name for name in opening_order() if name in present)


def _next_speed(factor: float, direction: int) -> float:
    if direction > 0:
        return next((s for s in SPEEDS if s > factor), SPEEDS[-1])
    return next((s for s in reversed(SPEEDS) if s < factor), SPEEDS[0])


def init_pygame(headless: bool) -> None:
    """Display and fonts only (no audio); ``headless`` uses SDL's dummy video driver."""
    import os

    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    pygame.display.init()
    pygame.font.init()


def open_window(size: tuple[int, int], caption: str) -> Surface:
    pygame.display.set_caption(caption)
    return pygame.display.set_mode(size)


__all__ = ["PATRON_SIDE", "WALK_SECONDS", "Viewer", "init_pygame", "open_window", "run_departments"]
