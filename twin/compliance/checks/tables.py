"""The table pit, the junket room and the card room: stakes (reg 21), the entrance notice
(reg 22), equipment, chips and devices (reg 23), card room areas and charges (reg 26).

Everything the Board determined or approved is a record of the run (the pit, or the notice
board of a casino without one, and the junket room emit them at t = 0), so each checker
judges from records alone.

The junket room is part of the casino open for business (reg 25(1): visits "to the casino
for the purpose of junket gaming"; 25(8): deposits "for the purpose of gaming in the
casino"): its game is an authorised game conducted in the casino (reg 21), its tables'
stakes belong on the entrance notice (reg 22(a)), and its junket chips are chips for use in
the casino that the Board approves (reg 23(1)).
"""

from __future__ import annotations

import math
from fractions import Fraction

from twin.compliance.params import DEVICE_SANCTION_MAX_HOURS, UNAPPROVED_REPORT_MAX_HOURS
from twin.compliance.registry import Checker, Kind, control
from twin.junkets.records import JunketChipsApproved, JunketChipsIssued, JunketTablePlayed
from twin.pit.records import (
    BoardMinimumStake,
    CardRoomApproved,
    CardRoomOpened,
    CardRoomSession,
    DeviceDetected,
    DeviceSanction,
    EntranceNotice,
    GamingItemsApproved,
    NoticeRequirements,
    StakesAuthorised,
    TableEquipmentChanged,
    TableOpened,
    TableStakes,
    TableStretch,
    UnapprovedItemDetected,
    UnapprovedItemReported,
)
from twin.records import Record

T = "tests/test_pit.py::"
J = "tests/test_junkets.py::"
JINJ = J + "test_injected_violation_is_found"
INJ = T + "test_injected_violation_is_found"
SANCTIONS = frozenset({"void_wagers", "play_ban", "eviction", "police_complaint"})


def _eur(cents: int) -> str:
    return f"{cents / 100:,.2f}"


def _eur_q(cents: Fraction) -> str:
    """An average stake in euros: exact when whole cents, else to four decimals."""
    if cents.denominator == 1:
        return _eur(int(cents))
    return f"{float(cents) / 100:,.4f}"


@control(
    "MT98.R21.1",
    kind=Kind.RUNTIME,
    title="Respect the Board's minimum stakes",
    reads=("board_minimum_stake", "stakes_authorised", "table_stretch", "junket_table_played"),
    observes=("table_stretch",),
    needs="a wager at a table (the pit's, or the junket room's)",
    test=INJ,
    checks={
        "no wager below the Board's minimum for its game is accepted": INJ + "[R21.1]",
        "the minimum in force is the Board's latest notice (21(2)) or a variation the Board "
        "authorised for the table (21(3))": T + "test_minimum_in_force",
        "no junket room wager (junket_table_played: a stake of staked_cents / rounds) below "
        "the Board's minimum for the junket room's game": JINJ + "[R21.1.junket]",
    },
    unchecked=(
        "21(1)-(2) are the Board's own powers (notices in writing); the twin records them "
        "as given by the scenario and checks only the licensee's side, the wagers",
        "a junket room session is judged by its average stake (staked_cents / rounds): the "
        "junket room records sessions, not rounds (the twin plays each session at one stake)",
    ),
)
class MinimumStakes(Checker):
    def setup(self) -> None:
        self.board: dict[str, tuple[int, int]] = {}  # game -> (minimum, seq of the notice)
        self.varied: dict[str, tuple[int, int]] = {}  # table -> (authorised minimum, seq)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, BoardMinimumStake):
            self.board[rec.game] = (rec.min_stake_cents, rec.seq)
        elif isinstance(rec, StakesAuthorised):
            if rec.table and rec.min_stake_cents > 0:
                self.varied[rec.table] = (rec.min_stake_cents, rec.seq)
        elif isinstance(rec, TableStretch):
            got = self.varied.get(rec.table) or self.board.get(rec.game)
            if got is not None and rec.stake_cents < got[0]:
                self.report(
                    (rec.table, rec.patron, rec.dealer),
                    f"table {rec.table} accepted {rec.rounds} wagers of {_eur(rec.stake_cents)} "
                    f"on {rec.game}, below the minimum stake in force ({_eur(got[0])})",
                    (got[1], rec.seq),
                )
        elif isinstance(rec, JunketTablePlayed) and rec.rounds > 0:
            got = self.varied.get(rec.table) or self.board.get(rec.game)
            if got is None:
                return  # no minimum of the Board's for the game: nothing to judge
            self.observed()
            stake = Fraction(rec.staked_cents, rec.rounds)
            if stake < got[0]:
                self.report(
                    (rec.table, rec.player, rec.junket),
                    f"junket room table {rec.table} accepted {rec.rounds} wagers of "
                    f"{_eur_q(stake)} on {rec.game} from {rec.player} ({rec.junket}), below "
                    f"the minimum stake in force ({_eur(got[0])})",
                    (got[1], rec.seq),
                )


@control(
    "MT98.R21.3",
    kind=Kind.RUNTIME,
    title="Maximum stakes and minimum-stake changes need Board authorisation",
    reads=("board_minimum_stake", "stakes_authorised", "table_stakes", "table_stretch",
           "junket_table_played"),
    observes=("table_stakes", "table_stretch"),
    needs="stakes set at a table, or a wager",
    test=INJ,
    checks={
        "every change of a table's stakes follows the Board's authorisation of exactly those "
        "stakes": INJ + "[R21.3]",
        "a table's maximum is within the maximum authorised for it or its game": INJ + "[R21.3]",
        "a table's minimum below the Board's minimum is an authorised variation": T
        + "test_minimum_varied_without_authorisation",
        "no wager above the authorised maximum is accepted": INJ + "[R21.3]",
        "no junket room wager (junket_table_played: a stake of staked_cents / rounds) above "
        "the maximum authorised for the junket room's game": JINJ + "[R21.3.junket]",
        "the junket room tables' stakes (table_stakes of its tables, as set up) are within "
        "the Board's minimum and authorised maximum of its game": J
        + "test_junket_room_stakes_beyond_the_board",
    },
    unchecked=(
        "a junket room table's stakes changed during the run: the junket room's stakes are "
        "set up once (the twin never changes them)",
        "a junket room session is judged by its average stake (staked_cents / rounds): the "
        "junket room records sessions, not rounds (the twin plays each session at one stake)",
    ),
)  # fmt: skip
class AuthorisedStakes(Checker):
    def setup(self) -> None:
        self.board: dict[str, int] = {}
        self.game_max: dict[str, tuple[int, int]] = {}  # game -> (max, seq)
        self.table_auth: dict[str, tuple[int, int, int]] = {}  # table -> (min, max, seq)
        self.pending: dict[str, StakesAuthorised] = {}  # authorisations not yet used

    def _max(self, table: str, game: str) -> tuple[int, int] | None:
        got = self.table_auth.get(table)
        if got is not None:
            return got[1], got[2]
        return self.game_max.get(game)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, BoardMinimumStake):
            self.board[rec.game] = rec.min_stake_cents
        elif isinstance(rec, StakesAuthorised):
            if rec.table:
                self.pending[rec.table] = rec
            else:
                self.game_max[rec.game] = (rec.max_stake_cents, rec.seq)
        elif isinstance(rec, TableStakes):
            self._stakes(rec)
        elif isinstance(rec, TableStretch):
            cap = self._max(rec.table, rec.game)
            if cap is not None and rec.stake_cents > cap[0]:
                self.report(
                    (rec.table, rec.patron, rec.dealer),
                    f"table {rec.table} accepted wagers of {_eur(rec.stake_cents)} on "
                    f"{rec.game}, above the authorised maximum ({_eur(cap[0])})",
                    (cap[1], rec.seq),
                )
        elif isinstance(rec, JunketTablePlayed) and rec.rounds > 0:
            cap = self._max(rec.table, rec.game)
            if cap is None:
                return  # no maximum of the Board's for the game: nothing to judge
            self.observed()
            stake = Fraction(rec.staked_cents, rec.rounds)
            if stake > cap[0]:
                self.report(
                    (rec.table, rec.player, rec.junket),
                    f"junket room table {rec.table} accepted {rec.rounds} wagers of "
                    f"{_eur_q(stake)} on {rec.game} from {rec.player} ({rec.junket}), above "
                    f"the authorised maximum ({_eur(cap[0])})",
                    (cap[1], rec.seq),
                )

    def _stakes(self, rec: TableStakes) -> None:
        t = rec.table
        auth = self.pending.pop(t, None)
        if auth is not None and (auth.min_stake_cents, auth.max_stake_cents) == (
            rec.min_stake_cents,
            rec.max_stake_cents,
        ):
            self.table_auth[t] = (auth.min_stake_cents, auth.max_stake_cents, auth.seq)
            return
        if rec.reason != "licence":
            self.report(
                (t,),
                f"table {t}'s stakes changed to {_eur(rec.min_stake_cents)}-"
                f"{_eur(rec.max_stake_cents)} without the Board's authorisation",
                (rec.seq,) + ((auth.seq,) if auth is not None else ()),
            )
            self.table_auth.pop(t, None)
        cap = self._max(t, rec.game)
        if cap is None or rec.max_stake_cents > cap[0]:
            allowed = "no maximum" if cap is None else f"a maximum of {_eur(cap[0])}"
            self.report(
                (t,),
                f"table {t} set a maximum stake of {_eur(rec.max_stake_cents)} on {rec.game}; "
                f"the Board authorised {allowed}",
                (rec.seq,) + ((cap[1],) if cap is not None else ()),
            )
        board = self.board.get(rec.game)
        if board is not None and rec.min_stake_cents < board:
            self.report(
                (t,),
                f"table {t} set a minimum stake of {_eur(rec.min_stake_cents)}, below the "
                f"Board's minimum for {rec.game} ({_eur(board)}), with no authorisation",
                (rec.seq,),
            )


#: seconds after the opening (or the start of a run that starts open) R22 looks at the notice
NOTICE_GRACE = 60.0


@control(
    "MT98.R22",
    kind=Kind.PERIODIC,
    title="Entrance notice of games, stakes, conditions and fee",
    reads=("notice_requirements", "table_stakes", "entrance_notice", "table_opened",
           "casino_licensed", "shift_started", "machine_installed"),
    observes=("entrance_notice",),
    test=INJ,
    checks={
        "a notice is displayed whenever the casino is open: at the first minute of the run "
        "open and of each opening (a casino with no notice at all is a finding), before any "
        "table opens, and it is not taken down while open": T + "test_notice_taken_down",
        "a casino with no entrance notice at all (with or without tables)": T
        + "test_no_notice_function",
        "it lists every authorised game with the maximum and minimum stakes in force, updated "
        "when they change": INJ + "[R22]",
        "... the junket room's too (part of the casino open for business: its tables' "
        "table_stakes are among the stakes in force)": JINJ + "[R22.junket]",
        "it shows the licence conditions the Board requires": T + "test_notice_conditions",
        "it shows the entrance fee the Board approved": T + "test_notice_conditions",
        "a notice the casino's policy ([tables.policy]) leaves short of the Board's conditions "
        "or fee, at each posting": T + "test_notice_policy_short_of_the_board",
    },
    unchecked=(
        "'conspicuous place at or near the entrance': the twin has no floor plan; a notice "
        "record is taken as exhibited at the entrance",
        "the slot machines' games and stakes: the twin's notice lists table games only (a "
        "casino without tables exhibits a notice with its junket room's game, or no game)",
    ),
    needs="an opening of the casino, or an entrance notice",
)  # fmt: skip
class EntranceNoticeCheck(Checker):
    def setup(self) -> None:
        self.required: NoticeRequirements | None = None
        self.stakes: dict[str, TableStakes] = {}  # table -> stakes in force
        self.notice: EntranceNotice | None = None
        self._due: int | None = None  # seq of a stakes change a notice must follow
        self.first: int | None = None  # the first record of the run (evidence of a casino)
        clock = self.ctx.clock
        hours = clock.opening_hours
        if clock.is_open(self.ctx.now):
            self.ctx.after(NOTICE_GRACE, self._opened)
        if hours.open != hours.close:
            self._arm()

    def _arm(self) -> None:
        ctx = self.ctx
        at = ctx.clock.next_local(ctx.now, ctx.clock.opening_hours.open)

        def opening() -> None:
            self._opened()
            self._arm()

        ctx.after(at - ctx.now + NOTICE_GRACE, opening)

    def _opened(self) -> None:
        """The casino is open (its first minute): a notice must be displayed."""
        self.observed()
        n = self.notice
        if n is not None and n.displayed:
            return
        day = self.ctx.clock.gaming_day(self.ctx.now).isoformat()
        if n is None:
            ev = () if self.first is None else (self.first,)
            self.report_once(("missing", day), (),
                             "the casino is open with no entrance notice exhibited: no such "
                             "function in this casino", ev)  # fmt: skip
        else:
            self.report_once(("missing", day), (), "the casino opened with the entrance "
                             "notice not displayed", (n.seq,))  # fmt: skip

    def _expected(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for s in self.stakes.values():
            lo, hi = out.get(s.game, (s.min_stake_cents, s.max_stake_cents))
            out[s.game] = (min(lo, s.min_stake_cents), max(hi, s.max_stake_cents))
        return out

    def on_record(self, rec: Record) -> None:
        if self.first is None:
            self.first = rec.seq
        if isinstance(rec, NoticeRequirements):
            self.required = rec
        elif isinstance(rec, TableStakes):
            self.stakes[rec.table] = rec
            if self.notice is not None and rec.reason != "licence":
                self._due = rec.seq
                self.ctx.after(0.0, self._compare)
        elif isinstance(rec, EntranceNotice):
            self.notice = rec
            self._notice(rec)
        elif isinstance(rec, TableOpened) and (self.notice is None or not self.notice.displayed):
            day = self.ctx.clock.gaming_day(rec.t).isoformat()
            self.report_once(("missing", day), (rec.table,),
                             f"table {rec.table} opened with no entrance notice displayed",
                             (rec.seq,))  # fmt: skip

    def _listed(self, n: EntranceNotice) -> dict[str, tuple[int, int]]:
        return {
            g: (lo, hi)
            for g, lo, hi in zip(n.games, n.min_stakes_cents, n.max_stakes_cents, strict=False)
        }

    def _compare(self) -> None:
        n = self.notice
        due, self._due = self._due, None
        if n is None or due is None or n.seq > due:
            return
        want = self._expected()
        if self._listed(n) != want:
            self.report(
                tuple(sorted(want)),
                "the entrance notice was not updated when the stakes changed: it lists "
                f"{self._show(self._listed(n))}, the stakes in force are {self._show(want)}",
                (n.seq, due),
            )

    @staticmethod
    def _show(stakes: dict[str, tuple[int, int]]) -> str:
        shown = "; ".join(f"{g} {_eur(lo)}-{_eur(hi)}" for g, (lo, hi) in sorted(stakes.items()))
        return shown or "no game"

    def _notice(self, n: EntranceNotice) -> None:
        if not n.displayed:
            if self.ctx.clock.is_open(n.t):
                self.report((), "the entrance notice was taken down while the casino was open",
                            (n.seq,))  # fmt: skip
            return
        want = self._expected()
        if self._listed(n) != want or len(n.games) != len(n.min_stakes_cents):
            self.report(
                tuple(sorted(want)),
                f"the entrance notice lists {self._show(self._listed(n))}; the authorised "
                f"games and stakes in force are {self._show(want)}",
                (n.seq,),
            )
        req = self.required
        if req is not None:
            missing = [c for c in req.conditions if c not in n.conditions]
            if missing:
                self.report((), f"the entrance notice omits the licence conditions the Board "
                            f"requires: {'; '.join(missing)}", (req.seq, n.seq))  # fmt: skip
            if n.entrance_fee_cents != req.entrance_fee_cents:
                self.report((), f"the entrance notice shows an entrance fee of "
                            f"{_eur(n.entrance_fee_cents)}; the Board approved "
                            f"{_eur(req.entrance_fee_cents)}", (req.seq, n.seq))  # fmt: skip


@control(
    "MT98.R23.1",
    kind=Kind.RUNTIME,
    title="Only Board-approved equipment, machines and chips",
    reads=(
        "gaming_items_approved",
        "table_opened",
        "table_equipment_changed",
        "table_stretch",
        "junket_chips_approved",
        "junket_chips_issued",
    ),
    observes=("table_opened", "table_equipment_changed", "table_stretch", "junket_chips_issued"),
    needs="a table opened, a wager, or junket chips issued",
    test=INJ,
    checks={
        "every wheel or shoe in use at a table is Board-approved": INJ + "[R23.1]",
        "every chip the pit puts in play is of a Board-approved series": T
        + "test_unapproved_chips_in_play",
        "every junket's non-negotiable chips issued at the front-money desk are of a series "
        "the Board approved (the pit's chip series, or the junkets' approval, "
        "junket_chips_approved)": JINJ + "[R23.1.junket]",
    },
    unchecked=(
        "gaming machines: their approval is checked by the slot controls (reg 28(3), First "
        "Schedule items 1 and 3)",
        "unapproved items a person holds but never gets into play: seen only when staff "
        "detect them, and then a matter of reporting (MT98.R23.3.p)",
        "the junket room's equipment: its tables record no wheel or shoe",
        "the series of the cash chips a junket room session is played with (chips = 'cash', "
        "itself an R25.9a finding): junket_table_played does not name it; junket chips are "
        "checked where they are issued",
    ),
)
class ApprovedItems(Checker):
    def setup(self) -> None:
        self.approved: GamingItemsApproved | None = None
        self.junket_series: set[str] = set()
        self.junket_approval: list[int] = []  # seqs of the Board's approvals of junket chips

    def _junket_chips(self, rec: JunketChipsIssued) -> None:
        ok = self.approved
        if rec.series in self.junket_series or (ok is not None and rec.series in ok.chip_series):
            return
        approvals = [*self.junket_approval, *((ok.seq,) if ok is not None else ())]
        self.report_once(
            ("junket", rec.series),
            (rec.junket, rec.desk),
            f"junket {rec.junket}'s non-negotiable chips of series {rec.series} were issued at "
            f"{rec.desk} for play in the casino; the Board never approved that series",
            (rec.seq, *approvals),
        )

    def _check(self, table: str, kind: str, item: str, rec: Record) -> None:
        ok = self.approved
        allowed = () if ok is None else (ok.equipment if kind == "equipment" else ok.chip_series)
        if item not in allowed:
            self.report_once(
                (table, kind, item),
                (table,),
                f"table {table} has {kind} {item} in play, which the Board never approved",
                (rec.seq,) + ((ok.seq,) if ok is not None else ()),
            )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, GamingItemsApproved):
            self.approved = rec
        elif isinstance(rec, TableOpened):
            self._check(rec.table, "equipment", rec.equipment, rec)
            self._check(rec.table, "chips", rec.chip_series, rec)
        elif isinstance(rec, JunketChipsApproved):
            self.junket_series.update(rec.series)
            self.junket_approval.append(rec.seq)
        elif isinstance(rec, JunketChipsIssued):
            self._junket_chips(rec)
        elif isinstance(rec, TableEquipmentChanged):
            self._check(rec.table, "equipment", rec.equipment, rec)
        elif isinstance(rec, TableStretch):
            self._check(rec.table, "chips", rec.chip_series, rec)


@control(
    "MT98.R23.3.p",
    kind=Kind.RUNTIME,
    title="Report unapproved equipment to a Board inspector",
    reads=("unapproved_item_detected", "unapproved_item_reported"),
    params=(UNAPPROVED_REPORT_MAX_HOURS.key,),
    observes=("unapproved_item_detected",),
    needs="unapproved chips or equipment detected by staff",
    test=INJ,
    checks={
        "staff who detect unapproved chips or equipment held by a person report it to a "
        "Board inspector in time": INJ + "[R23.3.p]",
        "the report is made to a Board inspector (not someone else)": T
        + "test_report_to_someone_not_an_inspector",
    },
    unchecked=("awareness the twin cannot see: only detections at a table are modelled",),
)
class ReportUnapproved(Checker):
    def setup(self) -> None:
        self.open: dict[int, UnapprovedItemDetected] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, UnapprovedItemDetected):
            self.open[rec.seq] = rec
            hours = float(self.ctx.rule(UNAPPROVED_REPORT_MAX_HOURS))
            self.ctx.after(hours * 3600.0, lambda: self._late(rec.seq))
        elif (
            isinstance(rec, UnapprovedItemReported)
            and self.ctx.is_inspector(rec.inspector)
            and rec.detected_seq in self.open
        ):
            del self.open[rec.detected_seq]

    def _late(self, seq: int) -> None:
        d = self.open.pop(seq, None)
        if d is not None:
            hours = self.ctx.rule(UNAPPROVED_REPORT_MAX_HOURS)
            self.report((d.table, d.patron, d.dealer),
                        f"{d.dealer} at table {d.table} found {d.patron} holding {d.item}; no "
                        f"Board inspector was told within {hours} h", (d.seq,))  # fmt: skip

    def finish(self) -> None:
        for seq in sorted(self.open):
            self._late(seq)


@control(
    "MT98.R23.5",
    kind=Kind.RUNTIME,
    title="No cheating or analysis devices at gaming positions",
    reads=("device_detected",),
    test=INJ,
    checks={
        "no wager is settled at a gaming position where a device the casino detected was "
        "held (surveillance stops a device before play, or finds on review that wagers were "
        "settled with it)": INJ + "[R23.5]",
    },
    unchecked=(
        "devices at slot machines and elsewhere in the gaming area: only table players carry "
        "devices in the twin",
        "a device nobody detects: the casino and the Board cannot see it; the twin's truth "
        "(device_carried) measures detection in the KPIs, never in a finding",
        "a device surveillance detects before play is a contravention dealt with under "
        "23(6) (MT98.R23.6), not a finding here",
    ),
    needs="a device detected by surveillance",
)
class NoDevices(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, DeviceDetected)
        if rec.stretch:
            self.report((rec.table, rec.patron),
                        f"{rec.patron} played at table {rec.table} holding a {rec.device} "
                        f"(found by {rec.by} after the wagers were settled)",
                        (rec.stretch, rec.seq))  # fmt: skip


@control(
    "MT98.R23.6",
    kind=Kind.RUNTIME,
    title="Response to a prohibited-device contravention",
    reads=("device_detected", "device_sanction"),
    params=(DEVICE_SANCTION_MAX_HOURS.key,),
    observes=("device_detected",),
    needs="a device detected by surveillance",
    test=INJ,
    checks={
        "each established contravention is answered, in time, by at least one of: void "
        "wagers, play ban, eviction, police complaint": INJ + "[R23.6]",
        "a sanction of another kind does not count": T + "test_unknown_sanction_does_not_count",
    },
    unchecked=(
        "that a ban or eviction is then enforced at the slot floor: the pit refuses a barred "
        "player's table play, the slot floor does not know of bans",
    ),
)
class DeviceResponse(Checker):
    def setup(self) -> None:
        self.open: dict[int, DeviceDetected] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, DeviceDetected):
            self.open[rec.seq] = rec
            hours = float(self.ctx.rule(DEVICE_SANCTION_MAX_HOURS))
            self.ctx.after(hours * 3600.0, lambda: self._late(rec.seq))
        elif isinstance(rec, DeviceSanction) and rec.sanction in SANCTIONS:
            self.open.pop(rec.detected_seq, None)

    def _late(self, seq: int) -> None:
        d = self.open.pop(seq, None)
        if d is not None:
            hours = self.ctx.rule(DEVICE_SANCTION_MAX_HOURS)
            self.report((d.patron, d.table),
                        f"{d.patron} was caught with a {d.device} at table {d.table}; no "
                        f"sanction of reg 23(6) followed within {hours} h", (d.seq,))  # fmt: skip

    def finish(self) -> None:
        for seq in sorted(self.open):
            self._late(seq)


@control(
    "MT98.R26",
    kind=Kind.RUNTIME,
    title="Card room areas and hourly charges",
    reads=("card_room_approved", "card_room_opened", "card_room_session"),
    observes=("card_room_opened", "card_room_session"),
    needs="a card room area opened",
    test=INJ,
    checks={
        "a card room area runs only where the licence or the Board allows": T
        + "test_card_room_rules",
        "its hourly charge is displayed in the area, at the approved rate": T
        + "test_card_room_rules",
        "players are charged the approved rate per hour billed, and the hours billed are "
        "the hours started": INJ + "[R26]",
    },
)
class CardRoom(Checker):
    def setup(self) -> None:
        self.approved: dict[str, CardRoomApproved] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CardRoomApproved):
            self.approved[rec.area] = rec
            return
        if isinstance(rec, CardRoomOpened):
            self._opened(rec)
        elif isinstance(rec, CardRoomSession):
            self._session(rec)

    def _opened(self, rec: CardRoomOpened) -> None:
        a = rec.area
        ok = self.approved.get(a)
        if ok is None:
            self.report_once((a, "approved"), (a,),
                             f"card room area {a} is in use with no approval by the licence or "
                             "the Board", (rec.seq,))  # fmt: skip
            return
        if not rec.displayed:
            self.report_once((a, "displayed"), (a,),
                             f"card room area {a} does not display its hourly charge",
                             (ok.seq, rec.seq))  # fmt: skip
        elif rec.displayed_rate_cents != ok.hourly_charge_cents:
            self.report_once((a, "shown"), (a,),
                             f"card room area {a} displays {_eur(rec.displayed_rate_cents)} an "
                             f"hour; the approved rate is {_eur(ok.hourly_charge_cents)}",
                             (ok.seq, rec.seq))  # fmt: skip

    def _session(self, rec: CardRoomSession) -> None:
        a = rec.area
        ok = self.approved.get(a)
        if ok is None:
            return  # reported as the area opened
        started = math.ceil(Fraction(rec.seconds) / 3600)
        if rec.rate_cents != ok.hourly_charge_cents:
            self.report_once((a, "rate", rec.rate_cents), (a, rec.patron),
                             f"card room area {a} charged {_eur(rec.rate_cents)} an hour; the "
                             f"approved rate is {_eur(ok.hourly_charge_cents)}",
                             (ok.seq, rec.seq))  # fmt: skip
        elif rec.charged_cents != rec.rate_cents * rec.hours_billed or (
            rec.hours_billed != started
        ):
            self.report((a, rec.patron),
                        f"card room area {a} charged {rec.patron} {_eur(rec.charged_cents)} for "
                        f"{rec.seconds / 3600:.2f} h at {_eur(rec.rate_cents)} an hour",
                        (ok.seq, rec.seq))  # fmt: skip
