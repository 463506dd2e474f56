"""A machine's accounting: meters, credit meter, hopper, drop, bill stacker and doors.

This is what a machine *is* to the accounting department and to the regulator, kept apart
from what drives its play (the simulation engine, or later a real SMIB over MQTT). Every
mutation goes through a named method, and the meter invariants hold after each one.

Units: meters count credits of the machine's denomination (SAS units); one coin is one
credit. Meters are non-resettable and roll over at ``10**digits``: ``reading()`` gives the
rolled value a SAS poll would return, while the raw totals are kept for the invariants.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from twin.machines.sas import BILL_METER_CODES, Door, MeterCode

M = MeterCode
_CREDITS = M.CURRENT_CREDITS  # the one meter that never rolls over
#: every meter with its name in readings, in the codes' order
_NAMES = tuple((code, code.name.lower()) for code in MeterCode)


class AccountingError(RuntimeError):
    """An operation the physical machine could not perform (a model bug, never user input)."""


@dataclass(frozen=True, slots=True)
class CoinsIn:
    to_hopper: int
    to_drop: int


@dataclass
class SlotAccounts:
    """Meters, hopper, credits and doors of one machine."""

    denomination_cents: int
    hopper_capacity: int
    hopper_level: int
    meter_digits: int = 8
    bill_denominations_cents: tuple[int, ...] = ()
    meters: dict[MeterCode, int] = field(default_factory=dict)
    bills: dict[int, int] = field(default_factory=dict)
    hopper_fills: int = 0  # coins added by fills, ever
    hopper_initial: int = 0
    hopper_removed: int = 0  # coins taken out of the hopper other than by paying, ever
    drop_bucket_coins: int = 0  # coins in the drop bucket now (emptied by a drop collection)
    cash_box: dict[int, int] = field(default_factory=dict)  # bills in the stacker now, by cents
    doors_open: set[Door] = field(default_factory=set)
    games_won_credits: int = 0  # total won = coin out + jackpot (kept to check the meters)

    def __post_init__(self) -> None:
        for code in MeterCode:
            self.meters.setdefault(code, 0)
        for cents in self.bill_denominations_cents:
            self.bills.setdefault(cents, 0)
        self.hopper_initial = self.hopper_level

    @property
    def rollover(self) -> int:
        """Meters roll over to zero at this value (10 ** digits)."""
        return int(10**self.meter_digits)

    # -- reading ---------------------------------------------------------------------------
    @property
    def credits(self) -> int:
        return self.meters[M.CURRENT_CREDITS]

    def reading(self, code: MeterCode) -> int:
        """The meter as the machine displays it: rolled over at its width."""
        if code is M.CURRENT_CREDITS:
            return self.meters[code]
        return self.meters[code] % self.rollover

    def readings(self) -> dict[str, int]:
        """All meters by name (rolled), plus the bill meters as ``bills_<cents>``."""
        m = self.meters
        roll = self.rollover
        out = {name: m[code] if code is _CREDITS else m[code] % roll for code, name in _NAMES}
        for cents, count in sorted(self.bills.items()):
            out[f"bills_{cents}"] = count % roll
        return out

    def bill_meter_code(self, cents: int) -> int | None:
        units, rest = divmod(cents, 100)
        return BILL_METER_CODES.get(units) if rest == 0 else None

    @property
    def play_enabled(self) -> bool:
        return not self.doors_open

    # -- money in --------------------------------------------------------------------------
    def insert_coins(self, coins: int) -> CoinsIn:
        """Coins go to the hopper until it is full, then are diverted to the drop bucket."""
        self._need(coins >= 0, "coins must be non-negative")
        to_hopper = min(coins, self.hopper_capacity - self.hopper_level)
        to_drop = coins - to_hopper
        self.hopper_level += to_hopper
        m = self.meters
        m[M.COIN_ACCEPTOR_CREDITS] += coins
        m[M.COINS_TO_DROP_CREDITS] += to_drop
        m[M.TOTAL_DROP] += to_drop
        m[M.CURRENT_CREDITS] += coins
        self.drop_bucket_coins += to_drop
        return CoinsIn(to_hopper, to_drop)

    def insert_bill(self, cents: int) -> int:
        """A bill goes to the drop box; returns the credits it gave."""
        if cents not in self.bills:  # (the message made only when it is needed)
            raise AccountingError(f"bill of {cents} cents not accepted")
        credits, rest = divmod(cents, self.denomination_cents)
        self._need(rest == 0, "bill is not a whole number of credits")
        self.bills[cents] += 1
        self.cash_box[cents] = self.cash_box.get(cents, 0) + 1
        m = self.meters
        m[M.BILL_CREDITS] += credits
        m[M.TOTAL_DROP] += credits
        m[M.CURRENT_CREDITS] += credits
        return credits

    # -- play ------------------------------------------------------------------------------
    def record_play(self, games: int, wagered: int, won: int, games_won: int) -> None:
        """Apply a batch of games: ``won`` credits went to the credit meter (coin out).

        A batch is committed when it ends, which may be the instant a door opened: the
        machine guarantees that no game *started* while play was disabled.
        """
        self._need(0 <= games_won <= games and wagered >= 0 and won >= 0, "bad play batch")
        m = self.meters
        self._need(m[M.CURRENT_CREDITS] - wagered + won >= 0, "credits would go negative")
        m[M.TOTAL_COIN_IN] += wagered
        m[M.TOTAL_COIN_OUT] += won
        m[M.GAMES_PLAYED] += games
        m[M.GAMES_WON] += games_won
        m[M.GAMES_LOST] += games - games_won
        m[M.GAMES_SINCE_POWER_RESET] += games
        m[M.GAMES_SINCE_DOOR_CLOSED] += games
        m[M.CURRENT_CREDITS] += won - wagered
        self.games_won_credits += won

    def record_jackpot(self, credits: int) -> None:
        """A win paid by hand (jackpot lock-up or progressive): never on the credit meter.

        Counted when the hand pay is made (item 4(b): the jackpot meter counts the coins paid
        by means of a hand pay), not when the machine locks.
        """
        self._need(credits > 0, "jackpot must be positive")
        self.meters[M.TOTAL_JACKPOT] += credits
        self.games_won_credits += credits

    # -- money out -------------------------------------------------------------------------
    def pay_from_hopper(self, coins: int) -> int:
        """Cash out ``coins`` credits through the hopper; returns the coins actually paid."""
        self._need(0 <= coins <= self.credits, "hopper pay exceeds credits")
        paid = min(coins, self.hopper_level)
        self.hopper_level -= paid
        m = self.meters
        m[M.HOPPER_PAID_CREDITS] += paid
        m[M.TOTAL_CANCELLED_CREDITS] += paid
        m[M.CURRENT_CREDITS] -= paid
        return paid

    def pay_by_hand(self, credits: int) -> None:
        """Cancel ``credits`` from the credit meter as a hand pay (credit payout)."""
        self._need(0 < credits <= self.credits, "hand pay exceeds credits")
        m = self.meters
        m[M.HANDPAID_CANCELLED_CREDITS] += credits
        m[M.TOTAL_CANCELLED_CREDITS] += credits
        m[M.CURRENT_CREDITS] -= credits

    def fill_hopper(self, coins: int) -> None:
        self._need(coins > 0, "fill must be positive")
        self._need(self.hopper_level + coins <= self.hopper_capacity, "fill overflows hopper")
        self.hopper_level += coins
        self.hopper_fills += coins

    # -- containers emptied (reg 36: only the licensee's people) --------------------------------
    def empty_drop_bucket(self) -> int:
        """Take every coin out of the drop bucket; returns how many."""
        coins, self.drop_bucket_coins = self.drop_bucket_coins, 0
        return coins

    def empty_cash_box(self) -> int:
        """Take every bill out of the stacker; returns their value in cents."""
        cents = sum(c * n for c, n in self.cash_box.items())
        self.cash_box = {}
        return cents

    def take_from_hopper(self, coins: int) -> int:
        """Take up to ``coins`` coins out of the hopper by hand; returns how many."""
        self._need(coins >= 0, "coins must be non-negative")
        took = min(coins, self.hopper_level)
        self.hopper_level -= took
        self.hopper_removed += took
        return took

    # -- doors and power -------------------------------------------------------------------
    def open_door(self, door: Door) -> None:
        if door in self.doors_open:
            raise AccountingError(f"{door.name} door already open")
        self.doors_open.add(door)

    def close_door(self, door: Door) -> None:
        if door not in self.doors_open:
            raise AccountingError(f"{door.name} door not open")
        self.doors_open.discard(door)
        if door is Door.SLOT:
            self.meters[M.GAMES_SINCE_DOOR_CLOSED] = 0

    def power_reset(self) -> None:
        self.meters[M.GAMES_SINCE_POWER_RESET] = 0

    # -- tampering (violation injection only) ------------------------------------------------
    def tamper_meter(self, code: MeterCode, delta: int) -> None:
        """A meter changed by ``delta`` with nothing behind it: wound back or skewed.

        Breaks the invariants on purpose; only violation injection calls it. The credit meter
        is a count of credits the machine holds: wound back below zero it shows zero.
        """
        self.meters[code] += delta
        if code is M.CURRENT_CREDITS and self.meters[code] < 0:
            self.meters[code] = 0

    def tamper_bill_meter(self, cents: int, delta: int) -> None:
        """The bill meter of ``cents`` bills changed by ``delta`` (violation injection only)."""
        self.bills[cents] = self.bills.get(cents, 0) + delta

    # -- invariants ------------------------------------------------------------------------
    def invariant_violations(self) -> list[str]:
        """Every accounting identity that does not hold (empty when the books balance)."""
        m = self.meters
        bad: list[str] = []

        def check(ok: bool, what: str) -> None:
            if not ok:
                bad.append(what)

        check(
            self.games_won_credits == m[M.TOTAL_COIN_OUT] + m[M.TOTAL_JACKPOT],
            "total won = coin out + jackpot",
        )
        check(
            m[M.TOTAL_CANCELLED_CREDITS]
            == m[M.HOPPER_PAID_CREDITS] + m[M.HANDPAID_CANCELLED_CREDITS],
            "cancelled = hopper paid + hand-paid cancelled",
        )
        coins_to_hopper = m[M.COIN_ACCEPTOR_CREDITS] - m[M.COINS_TO_DROP_CREDITS]
        check(coins_to_hopper >= 0, "coins to drop <= coins accepted")
        check(
            self.hopper_level
            == self.hopper_initial
            + self.hopper_fills
            + coins_to_hopper
            - m[M.HOPPER_PAID_CREDITS]
            - self.hopper_removed,
            "hopper = initial + fills + coins in - coins paid - coins removed",
        )
        check(0 <= self.hopper_level <= self.hopper_capacity, "0 <= hopper <= capacity")
        bill_credits = sum(c * n for c, n in self.bills.items()) // self.denomination_cents
        check(m[M.BILL_CREDITS] == bill_credits, "bill credits = sum of bills by denomination")
        check(
            m[M.TOTAL_DROP] == m[M.COINS_TO_DROP_CREDITS] + m[M.BILL_CREDITS],
            "drop = coins to drop + bills",
        )
        check(
            m[M.CURRENT_CREDITS]
            == m[M.COIN_ACCEPTOR_CREDITS]
            + m[M.BILL_CREDITS]
            + m[M.TOTAL_COIN_OUT]
            - m[M.TOTAL_COIN_IN]
            - m[M.TOTAL_CANCELLED_CREDITS],
            "credits = coins + bills + coin out - coin in - cancelled",
        )
        check(m[M.CURRENT_CREDITS] >= 0, "credits >= 0")
        check(m[M.GAMES_PLAYED] == m[M.GAMES_WON] + m[M.GAMES_LOST], "played = won + lost")
        check(
            m[M.GAMES_SINCE_DOOR_CLOSED] <= m[M.GAMES_PLAYED]
            and m[M.GAMES_SINCE_POWER_RESET] <= m[M.GAMES_PLAYED],
            "games since door/power <= games played",
        )
        check(all(v >= 0 for v in m.values()), "meters >= 0")
        return bad

    @staticmethod
    def _need(ok: bool, what: str) -> None:
        if not ok:
            raise AccountingError(what)
