"""The table pit and the card room (regs 21, 22, 23, 26; drop and count).

A :class:`Pit` is a department built from the scenario's ``[tables]`` section. Tables open
by their schedule once a dealer (staff role ``dealer``) is free and a Board inspector is on
duty to supervise; players sit up to the game's seats. A player's stretch is a number of
rounds at the game's pace at one stake on the game's main bet; the outcomes are drawn from
the table's own stream ``(table id, "outcomes")`` through the bet's exact law, so they do
not depend on who sits. A buy-in puts cash in the table's drop box and takes chips out of its
tray; the table card keeps the opening inventory, fills, credits and closing inventory. The
drop boxes are collected daily by the drop team and counted; the count is reconciled against
the table card, and a variance is recorded and investigated.

Everything the Board determined, approved or authorised (minimum stakes, authorised maxima,
equipment and chips, card room areas and rates, what the entrance notice must show) is
recorded at t = 0, so the checkers judge from records alone.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from twin.errors import InputError
from twin.pit.notice import emit_room_board, emit_room_stakes
from twin.pit.records import (
    BoardMinimumStake,
    CardRoomApproved,
    CardRoomOpened,
    CardRoomSession,
    CountVarianceInvestigated,
    DeviceCarried,
    DeviceDetected,
    DeviceSanction,
    EntranceNotice,
    GamingItemsApproved,
    NoticeRequirements,
    PitConfigured,
    PlayRefused,
    StakesAuthorised,
    TableClosed,
    TableCount,
    TableFill,
    TableFillRequested,
    TableOpened,
    TableStakes,
    TableStretch,
    UnapprovedItemDetected,
    UnapprovedItemReported,
)
from twin.pit.section import CardRoomArea, TableConfig, TablesConfig
from twin.staff import Dispatcher
from twin.tables.games import BetLaw, TableGame, load_table_game
from twin.world import World, quantize

if TYPE_CHECKING:
    from twin.junkets import JunketRoom  # the junkets provide it (the pit uses them)

Proc = Generator[simpy.events.Event, Any, Any]

#: Injections a table can be armed with (consumed by its next player unless stated).
WAGER_BELOW_MINIMUM = "wager_below_minimum"
UNDETECTED_DEVICE = "undetected_device"
DEVICE_SEEN_AFTER_PLAY = "device_detected_after_play"
DEVICE_WITHOUT_SANCTION = "device_without_sanction"
UNREPORTED_COUNTERFEIT = "unreported_counterfeit_chips"
NOTICE_NOT_UPDATED = "notice_not_updated"
COUNT_WITHOUT_STAFF = "table_count_without_staff"

#: a cheat's device and a counterfeit chip series (what players bring)
DEVICE = "card-counting computer"
COUNTERFEIT_SERIES = "COUNTERFEIT"
#: minutes between attempts to open a table that found no dealer or inspector
RETRY_MINUTES = 15.0


@dataclass
class Table:
    """A table and its table card."""

    cfg: TableConfig
    game: TableGame
    law: BetLaw
    rng: np.random.Generator
    min_stake: int
    max_stake: int
    equipment: str
    chips: str
    tray: int
    is_open: bool = False
    closes_at: float = 0.0
    dealer: str = ""
    seated: int = 0
    # the table card of the period since the last count
    opening: int = 0
    fills: int = 0
    credits: int = 0
    drop: int = 0  # cash in the drop box
    card_drop: int = 0  # buy-ins written on the card
    armed: dict[str, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.cfg.id

    @property
    def seats(self) -> int:
        return self.game.seats

    @property
    def pace(self) -> float:
        return self.game.rounds_per_hour


@dataclass
class CardRoom:
    cfg: CardRoomArea
    rate: int
    is_open: bool = False
    closes_at: float = 0.0
    seated: int = 0

    @property
    def id(self) -> str:
        return self.cfg.id


class Pit:
    """The table pit and the card room: a department of the casino."""

    name = "pit"

    def __init__(
        self,
        world: World,
        config: TablesConfig,
        staff: Dispatcher,
        *,
        source: str,
        duration: float,
        junket_room: JunketRoom | None = None,
    ) -> None:
        self.world = world
        self.junket_room = junket_room  # the junket room's tables, on the notice too (reg 22)
        self.env = world.env
        self.config = config
        self.staff = staff
        self.source = source
        if "dealer" not in staff.roles or not any(
            m.role == "dealer" for m in staff.members.values()
        ):
            raise InputError(source, "staff.shifts", "a role 'dealer' with a head count > 0 in "
                             "some shift's crew (the tables need dealers)", None)  # fmt: skip
        for role in config.drop_team:
            if role not in staff.roles:
                raise InputError(source, "tables.drop_team", f"role ids of [[staff.roles]] "
                                 f"({', '.join(sorted(staff.roles))})", role)  # fmt: skip
        games: dict[str, TableGame] = {}
        self.tables: dict[str, Table] = {}
        for i, t in enumerate(config.tables):
            key = str(t.game)
            game = games.get(key)
            if game is None:
                game = games[key] = load_table_game(t.game)
            for what, table in (
                ("board_minimum_cents", config.board_minimum_cents),
                ("authorised_maximum_cents", config.authorised_maximum_cents),
            ):
                if game.id not in table:
                    raise InputError(source, f"tables.{what}", f"a value for game {game.id!r} "
                                     f"(played at table {t.id})", None)  # fmt: skip
            self.tables[t.id] = Table(
                cfg=t, game=game, law=game.bet(game.main_bet),
                rng=world.streams.stream(t.id, "outcomes"),
                min_stake=t.min_stake_cents, max_stake=t.max_stake_cents,
                equipment=t.equipment, chips=config.chips_in_play, tray=t.tray_cents,
                opening=t.tray_cents,
            )  # fmt: skip
            del i
        self.games = {g.id: g for g in games.values()}
        for i, c in enumerate(config.stake_changes):
            if c.at_hours * 3600.0 >= duration:
                raise InputError(source, f"tables.stake_changes[{i}].at_hours",
                                 f"a time before the run ends (under {duration / 3600.0:g} h)",
                                 c.at_hours)  # fmt: skip
        self.rooms = {a.id: CardRoom(a, a.rate_cents) for a in config.card_room}
        self.banned: set[str] = set()
        self.dealers_busy: set[str] = set()
        self._notice_key: tuple[Any, ...] | None = None
        self.no_notice = False  # the casino exhibits no entrance notice at all (injected)
        #: fills and credits waiting for the operator ([tables] operator): table -> the
        #: request's (amount, credit)
        self.requests: dict[str, tuple[int, bool]] = {}
        #: fills and credits the operator made that are not on the table card yet: table ->
        #: (fills, credits) in cents
        self.unentered: dict[str, tuple[int, int]] = {}

    # -- the department ----------------------------------------------------------------------

    def start(self) -> None:
        bus = self.world.bus
        cfg = self.config
        bus.emit(PitConfigured, tables=tuple(self.tables), hold_confidence=cfg.hold_confidence)
        for gid in self.games:
            bus.emit(BoardMinimumStake, game=gid, min_stake_cents=cfg.board_minimum_cents[gid])
        inspector = self._inspector()
        for gid in self.games:
            bus.emit(StakesAuthorised, game=gid, table="", min_stake_cents=0,
                     max_stake_cents=cfg.authorised_maximum_cents[gid],
                     inspector=inspector)  # fmt: skip
        junket_room = self.junket_room
        if junket_room is not None and junket_room.game not in self.games:
            emit_room_board(junket_room, self.world, inspector)
        approved = tuple(e.asset for e in cfg.equipment if e.approved)
        bus.emit(GamingItemsApproved, equipment=approved, chip_series=cfg.chip_series)
        bus.emit(NoticeRequirements, conditions=cfg.notice_conditions,
                 entrance_fee_cents=cfg.entrance_fee_cents)  # fmt: skip
        for a in cfg.card_room:
            if a.approved:
                bus.emit(CardRoomApproved, area=a.id, hourly_charge_cents=a.hourly_charge_cents)
        for t in self.tables.values():
            self._emit_stakes(t, "licence")
        if junket_room is not None:
            emit_room_stakes(junket_room, self.world)
        self.post_notice(force=True)
        env = self.env
        for t in self.tables.values():
            env.process(self.run_table(t))
        for room in self.rooms.values():
            env.process(self.run_card_room(room))
        env.process(self.collect_drops_daily())
        env.process(self.post_notice_daily())
        for c in cfg.stake_changes:
            env.process(self.change_stakes_at(c.at_hours * 3600.0, c.table, c.min_stake_cents,
                                              c.max_stake_cents, c.authorised))  # fmt: skip

    def finish(self) -> None:
        """The closing count of every table with anything on its card."""
        for t in self.tables.values():
            if t.drop or t.fills or t.credits or t.tray != t.opening:
                self.count(t)

    def table(self, table_id: str) -> Table:
        return self.tables[table_id]

    # -- staff -------------------------------------------------------------------------------

    def _inspector(self) -> str:
        on = self.staff.on_duty("inspector")
        return on[0] if on else ""

    def _free_dealer(self) -> str:
        for d in self.staff.on_duty("dealer"):
            if d not in self.dealers_busy:
                return d
        return ""

    def _relieve(self, t: Table) -> None:
        """A dealer gone off duty is relieved by a free one (else stays on overtime)."""
        if t.dealer in self.staff.on_duty("dealer"):
            return
        new = self._free_dealer()
        if new:
            self.dealers_busy.discard(t.dealer)
            self.dealers_busy.add(new)
            t.dealer = new

    # -- stakes and the entrance notice --------------------------------------------------------

    def _emit_stakes(self, t: Table, reason: str) -> None:
        self.world.bus.emit(TableStakes, table=t.id, game=t.game.id, min_stake_cents=t.min_stake,
                            max_stake_cents=t.max_stake, reason=reason)  # fmt: skip

    def notice_content(self) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
        """Per game: the lowest minimum and the highest maximum in force at its tables (the
        junket room's among them)."""
        of: dict[str, list[tuple[int, int]]] = {}
        for t in self.tables.values():
            of.setdefault(t.game.id, []).append((t.min_stake, t.max_stake))
        room = self.junket_room
        if room is not None and not room.off_notice:
            of.setdefault(room.game, []).extend(
                [(room.min_stake_cents, room.max_stake_cents)] * len(room.tables)
            )
        games = tuple(of)
        mins = tuple(min(lo for lo, _ in of[g]) for g in games)
        maxs = tuple(max(hi for _, hi in of[g]) for g in games)
        return games, mins, maxs

    def post_notice(self, *, force: bool = False) -> None:
        """Exhibit the entrance notice (reg 22) when its content changed (or ``force``)."""
        if self.no_notice:
            return
        games, mins, maxs = self.notice_content()
        key = (games, mins, maxs)
        if not force and key == self._notice_key:
            return
        self._notice_key = key
        cfg = self.config
        self.world.bus.emit(EntranceNotice, games=games, min_stakes_cents=mins,
                            max_stakes_cents=maxs, conditions=cfg.shown_conditions,
                            entrance_fee_cents=cfg.shown_entrance_fee_cents,
                            displayed=True)  # fmt: skip

    def post_notice_daily(self) -> Proc:
        """The notice is exhibited again as the casino opens each day."""
        clock = self.world.clock
        hours = clock.opening_hours
        if hours.open == hours.close:
            return
        while True:
            yield self.env.timeout(clock.next_local(self.env.now, hours.open) - self.env.now)
            self.post_notice(force=True)

    def change_stakes_at(
        self, at: float, table: str, new_min: int | None, new_max: int | None, authorised: bool
    ) -> Proc:
        yield self.env.timeout(quantize(at))
        self.change_stakes(self.tables[table], new_min, new_max, authorised=authorised)

    def change_stakes(
        self,
        t: Table,
        new_min: int | None,
        new_max: int | None,
        *,
        authorised: bool,
        notice: bool = True,
    ) -> None:
        lo = t.min_stake if new_min is None else new_min
        hi = t.max_stake if new_max is None else new_max
        if authorised:
            self.world.bus.emit(StakesAuthorised, game=t.game.id, table=t.id, min_stake_cents=lo,
                                max_stake_cents=hi, inspector=self._inspector())  # fmt: skip
        t.min_stake, t.max_stake = lo, hi
        self._emit_stakes(t, "change")
        if notice:
            self.post_notice()
        else:
            self._notice_key = self.notice_content()  # the notice is left as it was

    # -- tables --------------------------------------------------------------------------------

    def run_table(self, t: Table) -> Proc:
        """Open and close the table by its schedule, for the whole run."""
        env = self.env
        clock = self.world.clock
        bus = self.world.bus
        while True:
            opens = clock.next_local(env.now, t.cfg.open)
            closes = clock.next_local(env.now, t.cfg.close)
            if opens < closes:  # closed now: wait for the opening
                yield env.timeout(opens - env.now)
                continue
            dealer, inspector = self._free_dealer(), self._inspector()
            if not dealer or not inspector:
                yield env.timeout(min(RETRY_MINUTES * 60.0, closes - env.now))
                continue
            self.dealers_busy.add(dealer)
            t.dealer, t.is_open, t.closes_at = dealer, True, closes
            bus.emit(TableOpened, table=t.id, game=t.game.id, dealer=dealer, inspector=inspector,
                     equipment=t.equipment, chip_series=t.chips,
                     inventory_cents=t.tray)  # fmt: skip
            yield env.timeout(closes - env.now)
            t.is_open = False
            while t.seated:  # stretches end by the closing; wait for the last to settle
                yield env.timeout(1.0)
            bus.emit(TableClosed, table=t.id, dealer=t.dealer, inventory_cents=t.tray)
            self.dealers_busy.discard(t.dealer)
            t.dealer = ""

    def _fill(self, t: Table, amount: int, *, credit: bool = False) -> None:
        if amount <= 0:
            return
        if credit:
            t.tray -= amount
            t.credits += amount
        else:
            t.tray += amount
            t.fills += amount
        self.world.bus.emit(TableFill, table=t.id, dealer=t.dealer, amount_cents=amount,
                            credit=credit)  # fmt: skip

    def _keep_tray(self, t: Table) -> None:
        par = t.cfg.tray_cents
        if t.tray < par // 4:
            self._fill_or_ask(t, par - t.tray, credit=False)
        elif t.tray > 2 * par:
            self._fill_or_ask(t, t.tray - par, credit=True)

    def _fill_or_ask(self, t: Table, amount: int, *, credit: bool) -> None:
        """Fill (or credit) the tray at once, or, when the operator makes it ([tables]
        operator), ask for it (once: a request waits until the operator makes it)."""
        if ("credit" if credit else "fill") not in self.config.operator:
            self._fill(t, amount, credit=credit)
        elif t.id not in self.requests:
            self.requests[t.id] = (amount, credit)
            self.world.bus.emit(TableFillRequested, table=t.id, dealer=t.dealer,
                                amount_cents=amount, credit=credit)  # fmt: skip

    # -- the operator's fills and credits (twin.pit.actions) ----------------------------------
    def fill_refusal(self, table: str, amount: int, credit: bool) -> str | None:
        """Why the operator may not fill (credit) ``table`` with ``amount`` now, or None."""
        asked = self.requests.get(table)
        what = "credit" if credit else "fill"
        if asked is None or asked[1] != credit:
            known = ", ".join(f"{k} ({'credit' if c else 'fill'})"
                              for k, (_, c) in sorted(self.requests.items()))  # fmt: skip
            return f"no {what} of table {table!r} is asked for (asked: {known or 'none'})"
        if amount <= 0:
            return f"a {what} of {amount} cents"
        if credit and amount > self.tables[table].tray:
            return f"a credit of {amount} cents from a tray of {self.tables[table].tray}"
        return None

    def operator_fill(self, table: str, amount: int, credit: bool) -> None:
        """The chips go between the cage and the tray with their slip (a ``table_fill``
        record); the dealer enters them on the table card when the operator says so."""
        del self.requests[table]
        t = self.tables[table]
        t.tray += -amount if credit else amount
        self.world.bus.emit(TableFill, table=t.id, dealer=t.dealer, amount_cents=amount,
                            credit=credit)  # fmt: skip
        fills, credits = self.unentered.get(table, (0, 0))
        self.unentered[table] = (fills, credits + amount) if credit else (fills + amount, credits)

    def card_refusal(self, table: str) -> str | None:
        if table not in self.unentered:
            return f"no fill or credit of table {table!r} waits to be entered on its table card"
        return None

    def enter_on_card(self, table: str) -> None:
        """The dealer enters the fills and credits made on the table card."""
        fills, credits = self.unentered.pop(table)
        t = self.tables[table]
        t.fills += fills
        t.credits += credits

    def play(self, patron: str, visit: int) -> Generator[simpy.events.Event, Any, bool]:
        """The hall's ``play_elsewhere`` for visit number ``visit`` of ``patron``: a share of
        visitors play at a table or in the card room, the choice drawn on the visit's own new
        stream ``(patron, "table:<visit>")``; True when the visitor played here (or was
        refused play, being barred)."""
        cfg = self.config
        rng = self.world.streams.fresh(patron, f"table:{visit}")
        if not rng.random() < cfg.share:
            return False
        if patron in self.banned:
            self.world.bus.emit(PlayRefused, patron=patron, reason="barred (reg 23(6))")
            return True
        room_u, pick_u = rng.random(), rng.random()
        stake_want = cfg.stake_cents.sample(rng)
        buy_in_stakes = max(1, round(cfg.buy_in_stakes.sample(rng)))
        minutes = max(0.0, cfg.stretch_minutes.sample(rng))
        cheat = bool(rng.random() < cfg.device_share)
        counterfeit = bool(rng.random() < cfg.counterfeit_share)
        if room_u < cfg.card_room_share:
            return (yield from self.sit_in_card_room(patron, minutes, pick_u))
        t = self._pick_table(stake_want, pick_u)
        if t is None:
            return False
        return (
            yield from self.sit_at_table(
                t, patron, stake_want, buy_in_stakes, minutes, cheat, counterfeit
            )
        )

    def _pick_table(self, stake: float, u: float) -> Table | None:
        open_ = [t for t in self.tables.values() if t.is_open and t.seated < t.seats]
        fits = [t for t in open_ if t.min_stake <= stake <= t.max_stake] or open_
        if not fits:
            return None
        return fits[min(int(u * len(fits)), len(fits) - 1)]

    def sit_at_table(
        self,
        t: Table,
        patron: str,
        stake_want: float,
        buy_in_stakes: int,
        minutes: float,
        cheat: bool,
        counterfeit: bool,
    ) -> Generator[simpy.events.Event, Any, bool]:
        env = self.env
        bus = self.world.bus
        self._relieve(t)
        armed = t.armed
        for flag in (UNREPORTED_COUNTERFEIT,):
            if flag in armed:
                counterfeit = True
        if {UNDETECTED_DEVICE, DEVICE_WITHOUT_SANCTION, DEVICE_SEEN_AFTER_PLAY} & armed.keys():
            cheat = True
        if counterfeit:  # the dealer refuses chips the Board never approved
            report = armed.pop(UNREPORTED_COUNTERFEIT, None) is None
            item = f"chips:{COUNTERFEIT_SERIES}"
            seen = bus.emit(UnapprovedItemDetected, table=t.id, patron=patron, dealer=t.dealer,
                            item=item)  # fmt: skip
            inspector = self._inspector()
            if report and inspector:
                bus.emit(UnapprovedItemReported, table=t.id, patron=patron, dealer=t.dealer,
                         inspector=inspector, item=item, detected_seq=seen.seq)  # fmt: skip
            return True
        late = False  # a device surveillance finds only on review, after the stretch
        if cheat:
            if armed.pop(UNDETECTED_DEVICE, None) is not None:  # missed: the cheat plays
                bus.emit(DeviceCarried, table=t.id, patron=patron, device=DEVICE,
                         detected="never")  # fmt: skip
            elif armed.pop(DEVICE_SEEN_AFTER_PLAY, None) is not None:
                late = True
            else:
                bus.emit(DeviceCarried, table=t.id, patron=patron, device=DEVICE,
                         detected="before_play")  # fmt: skip
                sanction = armed.pop(DEVICE_WITHOUT_SANCTION, None) is None
                self._detected(t, patron, 0, sanction=sanction)
                return True
        stake = int(min(max(round(stake_want), t.min_stake), t.max_stake))
        below = armed.pop(WAGER_BELOW_MINIMUM, None)
        if below is not None:
            stake = below if below > 0 else max(1, self.config.board_minimum_cents[t.game.id] // 2)
        rounds = max(1, round(minutes / 60.0 * t.pace))
        rounds = min(rounds, int((t.closes_at - env.now) * t.pace / 3600.0))
        if rounds <= 0:
            return False
        buy_in = stake * buy_in_stakes
        played = yield from self._stretch(t, patron, stake, rounds, buy_in, buy_in)
        if late:  # surveillance's review finds the device the player held while playing
            bus.emit(DeviceCarried, table=t.id, patron=patron, device=DEVICE,
                     detected="after_play")  # fmt: skip
            self._detected(t, patron, played.seq, sanction=True)
        return True

    def _detected(self, t: Table, patron: str, stretch: int, *, sanction: bool) -> None:
        """Surveillance detects a device (before play, or on review of ``stretch``); the
        licensee applies the sanctions of reg 23(6) unless ``sanction`` is False."""
        bus = self.world.bus
        seen = bus.emit(DeviceDetected, table=t.id, patron=patron, device=DEVICE,
                        by="surveillance", stretch=stretch)  # fmt: skip
        if not sanction:
            return
        for s in self.config.device_sanctions:
            bus.emit(DeviceSanction, patron=patron, sanction=s, detected_seq=seen.seq)
            if s in ("play_ban", "eviction"):
                self.banned.add(patron)

    def _stretch(
        self, t: Table, patron: str, stake: int, rounds: int, chips_cents: int, buy_in: int
    ) -> Generator[simpy.events.Event, Any, TableStretch]:  # fmt: skip
        """Up to ``rounds`` rounds at ``stake`` with ``chips_cents`` in hand (``buy_in`` of
        them bought for cash at the table, into the drop box): the rounds stop when the
        chips no longer cover a stake. The table's tray pays and takes the results."""
        env = self.env
        t.seated += 1
        if buy_in:
            if t.tray < buy_in:
                self._fill(t, buy_in - t.tray + t.cfg.tray_cents)
            t.drop += buy_in
            t.card_drop += buy_in
            t.tray -= buy_in
        nets = t.law.sample_net_cents(t.rng, np.full(rounds, stake, dtype=np.int64))
        chips = chips_cents + np.cumsum(nets)
        short = np.nonzero(chips[:-1] < stake)[0]
        played = int(short[0]) + 1 if short.size else rounds
        net = int(chips[played - 1]) - chips_cents
        yield env.timeout(quantize(played * 3600.0 / t.pace))
        if t.tray < net:
            self._fill(t, net - t.tray + t.cfg.tray_cents // 2)
        t.tray -= net
        handle = stake * played
        law = t.law
        rec: TableStretch = self.world.bus.emit(
            TableStretch, table=t.id, game=t.game.id, patron=patron, dealer=t.dealer,
            bet=law.name, stake_cents=stake, rounds=played, buy_in_cents=buy_in,
            handle_cents=handle, net_cents=net, theo_cents=round(handle * law.house_edge),
            var_cents2=round(stake * stake * played * law.variance), chip_series=t.chips,
        )  # fmt: skip
        t.seated -= 1
        self._keep_tray(t)
        return rec

    def play_chips(
        self, patron: str, chips_cents: int, stake_cents: int, rounds: int, u: float
    ) -> Generator[simpy.events.Event, Any, TableStretch | None]:
        """Play ``rounds`` rounds at ``stake_cents`` (held to a table's limits) with chips the
        patron already holds (bought at the cage, or passed on): no cash goes into the drop
        box. Returns the stretch played, or None when no table is open. ``u`` picks the table
        among those whose limits fit the stake (a uniform of the caller's stream)."""
        env = self.env
        t = self._pick_table(float(stake_cents), u)
        if t is None:
            return None
        self._relieve(t)
        stake = int(min(max(stake_cents, t.min_stake), t.max_stake))
        rounds = min(rounds, int((t.closes_at - env.now) * t.pace / 3600.0))
        if rounds <= 0 or chips_cents < stake:
            return None
        return (yield from self._stretch(t, patron, stake, rounds, chips_cents, 0))

    # -- drop and count ---------------------------------------------------------------------

    def collect_drops_daily(self) -> Proc:
        env = self.env
        while True:
            at = self.world.clock.next_local(env.now, self.config.drop_collection)
            yield env.timeout(at - env.now)
            for t in self.tables.values():
                self.count(t)

    def count(self, t: Table) -> None:
        """The drop box collected and counted; the count reconciled with the table card."""
        team = tuple(on[0] for role in self.config.drop_team if (on := self.staff.on_duty(role)))
        if t.armed.pop(COUNT_WITHOUT_STAFF, None) is not None:  # the inspector counts alone
            team = tuple(p for p in team if p in self.staff.on_duty("inspector"))
        win = t.tray + t.credits - t.opening - t.fills + t.drop
        variance = t.drop - t.card_drop
        bus = self.world.bus
        bus.emit(TableCount, table=t.id, game=t.game.id, members=team, opening_cents=t.opening,
                 fills_cents=t.fills, credits_cents=t.credits, closing_cents=t.tray,
                 drop_cents=t.drop, card_drop_cents=t.card_drop, win_cents=win,
                 variance_cents=variance)  # fmt: skip
        if variance:
            bus.emit(CountVarianceInvestigated, table=t.id, members=team,
                     variance_cents=variance,
                     finding=f"drop box {t.id}: counted {t.drop} cents, the table card's "
                     f"buy-ins {t.card_drop} cents")  # fmt: skip
        t.opening, t.fills, t.credits, t.drop, t.card_drop = t.tray, 0, 0, 0, 0
        self.unentered.pop(t.id, None)  # the card is closed: what it lacks stays off it

    # -- the card room ------------------------------------------------------------------------

    def run_card_room(self, room: CardRoom) -> Proc:
        env = self.env
        clock = self.world.clock
        while True:
            opens = clock.next_local(env.now, room.cfg.open)
            closes = clock.next_local(env.now, room.cfg.close)
            if opens < closes and room.cfg.open != room.cfg.close:
                yield env.timeout(opens - env.now)
                continue
            room.is_open, room.closes_at = True, closes
            self.world.bus.emit(CardRoomOpened, area=room.id, displayed=room.cfg.displayed,
                                displayed_rate_cents=room.cfg.hourly_charge_cents)  # fmt: skip
            yield env.timeout(closes - env.now)
            room.is_open = False

    def sit_in_card_room(
        self, patron: str, minutes: float, u: float
    ) -> Generator[simpy.events.Event, Any, bool]:
        env = self.env
        rooms = [r for r in self.rooms.values() if r.is_open and r.seated < r.cfg.seats]
        if not rooms:
            return False
        room = rooms[min(int(u * len(rooms)), len(rooms) - 1)]
        seconds = quantize(min(max(60.0, minutes * 60.0), room.closes_at - env.now))
        if seconds <= 0:
            return False
        room.seated += 1
        yield env.timeout(seconds)
        room.seated -= 1
        hours = math.ceil(Fraction(seconds) / 3600)
        self.world.bus.emit(CardRoomSession, area=room.id, patron=patron, seconds=seconds,
                            hours_billed=hours, rate_cents=room.rate,
                            charged_cents=room.rate * hours)  # fmt: skip
        return True


__all__ = ["CardRoom", "Pit", "Table"]
