"""SlotAccounts: exact effects of every operation, rollover, and the invariants under random play.

The property test drives one machine's accounts through many complete sessions (money in,
play through a real `BatchedEngine` on a library game so that wins are real, jackpots, cash
out through the hopper and by hand, fills, doors, power resets) and checks
``invariant_violations() == []`` after every single operation, alongside a shadow model of
the credit meter, the hopper and the game counters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from conftest import GAME_IDS, load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twin.machines.accounting import AccountingError, CoinsIn, SlotAccounts
from twin.machines.engine import BatchedEngine, PlayRequest, Stop, UniformTape
from twin.machines.sas import Door, MeterCode

M = MeterCode
BILLS = (500, 1000, 2000, 5000, 10000)


def _accounts(**kw: Any) -> SlotAccounts:
    args: dict[str, Any] = {
        "denomination_cents": 25,
        "hopper_capacity": 100,
        "hopper_level": 50,
        "bill_denominations_cents": (500, 2000),
    }
    args.update(kw)
    return SlotAccounts(**args)


def _nonzero(acc: SlotAccounts) -> dict[str, int]:
    return {code.name: v for code, v in acc.meters.items() if v}


# ---------------------------------------------------------------------------------------------
# Exact effects of each operation
# ---------------------------------------------------------------------------------------------


def test_new_accounts_are_zero_and_balanced() -> None:
    acc = _accounts()
    assert set(acc.meters) == set(MeterCode)
    assert _nonzero(acc) == {}
    assert acc.bills == {500: 0, 2000: 0}
    assert acc.hopper_initial == 50
    assert acc.credits == 0
    assert acc.play_enabled
    assert acc.invariant_violations() == []


def test_insert_coins_fill_the_hopper_then_divert_to_the_drop() -> None:
    acc = _accounts(hopper_level=90)
    assert acc.insert_coins(7) == CoinsIn(to_hopper=7, to_drop=0)
    assert acc.hopper_level == 97
    assert acc.insert_coins(25) == CoinsIn(to_hopper=3, to_drop=22)
    assert acc.hopper_level == 100
    assert acc.insert_coins(5) == CoinsIn(to_hopper=0, to_drop=5)
    assert acc.hopper_level == 100
    assert _nonzero(acc) == {
        "COIN_ACCEPTOR_CREDITS": 37,
        "COINS_TO_DROP_CREDITS": 27,
        "TOTAL_DROP": 27,
        "CURRENT_CREDITS": 37,
    }
    assert acc.insert_coins(0) == CoinsIn(0, 0)
    assert acc.invariant_violations() == []
    with pytest.raises(AccountingError):
        acc.insert_coins(-1)


def test_insert_bill_goes_to_the_drop() -> None:
    acc = _accounts()
    assert acc.insert_bill(500) == 20  # 500 cents at 25 cents a credit
    assert acc.insert_bill(2000) == 80
    assert acc.insert_bill(500) == 20
    assert acc.bills == {500: 2, 2000: 1}
    assert acc.hopper_level == 50  # bills never reach the hopper
    assert _nonzero(acc) == {"BILL_CREDITS": 120, "TOTAL_DROP": 120, "CURRENT_CREDITS": 120}
    assert acc.invariant_violations() == []
    with pytest.raises(AccountingError, match="not accepted"):
        acc.insert_bill(1000)
    assert acc.credits == 120


def test_insert_bill_that_is_not_whole_credits_is_refused_unchanged() -> None:
    acc = _accounts(denomination_cents=3, bill_denominations_cents=(500,))
    with pytest.raises(AccountingError, match="whole number"):
        acc.insert_bill(500)
    assert acc.bills == {500: 0}
    assert _nonzero(acc) == {}


def test_record_play_exact_meters() -> None:
    acc = _accounts()
    acc.insert_coins(40)  # hopper 50 -> 90
    acc.record_play(games=10, wagered=30, won=12, games_won=4)
    assert _nonzero(acc) == {
        "COIN_ACCEPTOR_CREDITS": 40,
        "CURRENT_CREDITS": 22,
        "TOTAL_COIN_IN": 30,
        "TOTAL_COIN_OUT": 12,
        "GAMES_PLAYED": 10,
        "GAMES_WON": 4,
        "GAMES_LOST": 6,
        "GAMES_SINCE_POWER_RESET": 10,
        "GAMES_SINCE_DOOR_CLOSED": 10,
    }
    assert acc.games_won_credits == 12
    assert acc.invariant_violations() == []


@pytest.mark.parametrize(
    ("games", "wagered", "won", "games_won", "why"),
    [
        (3, 30, 0, 4, "bad play batch"),  # more games won than played
        (3, -1, 0, 0, "bad play batch"),
        (3, 3, -1, 0, "bad play batch"),
        (3, 11, 0, 0, "credits would go negative"),
    ],
)
def test_record_play_refuses_impossible_batches(
    games: int, wagered: int, won: int, games_won: int, why: str
) -> None:
    acc = _accounts()
    acc.insert_coins(10)
    before = dict(acc.meters)
    with pytest.raises(AccountingError, match=why):
        acc.record_play(games, wagered, won, games_won)
    assert acc.meters == before


def test_record_jackpot_is_never_on_the_credit_meter() -> None:
    acc = _accounts()
    acc.insert_coins(10)
    acc.record_play(1, 10, 0, 1)  # the locking game: the wager taken, its win hand paid
    acc.record_jackpot(4800)
    assert acc.meters[M.TOTAL_JACKPOT] == 4800
    assert acc.meters[M.TOTAL_COIN_OUT] == 0
    assert acc.credits == 0
    assert acc.games_won_credits == 4800
    assert acc.invariant_violations() == []
    with pytest.raises(AccountingError):
        acc.record_jackpot(0)


def test_pay_from_hopper_pays_what_the_hopper_holds() -> None:
    acc = _accounts(hopper_level=30)
    acc.insert_bill(2000)  # 80 credits
    assert acc.pay_from_hopper(50) == 30  # short pay: the hopper runs empty
    assert acc.hopper_level == 0
    assert acc.credits == 50
    assert acc.meters[M.HOPPER_PAID_CREDITS] == 30
    assert acc.meters[M.TOTAL_CANCELLED_CREDITS] == 30
    assert acc.invariant_violations() == []
    acc.fill_hopper(100)
    assert acc.hopper_fills == 100
    assert acc.pay_from_hopper(50) == 50
    assert acc.hopper_level == 50
    assert acc.credits == 0
    assert acc.meters[M.HOPPER_PAID_CREDITS] == 80
    assert acc.invariant_violations() == []
    with pytest.raises(AccountingError):
        acc.pay_from_hopper(1)  # more than the credits


def test_pay_by_hand_cancels_credits() -> None:
    acc = _accounts()
    acc.insert_bill(2000)
    acc.pay_by_hand(60)
    assert acc.credits == 20
    assert acc.meters[M.HANDPAID_CANCELLED_CREDITS] == 60
    assert acc.meters[M.TOTAL_CANCELLED_CREDITS] == 60
    assert acc.hopper_level == 50
    assert acc.invariant_violations() == []
    with pytest.raises(AccountingError):
        acc.pay_by_hand(21)
    with pytest.raises(AccountingError):
        acc.pay_by_hand(0)


def test_fill_hopper_to_capacity_and_no_further() -> None:
    acc = _accounts(hopper_level=40)
    acc.fill_hopper(60)
    assert acc.hopper_level == 100
    assert acc.hopper_fills == 60
    with pytest.raises(AccountingError, match="overflows"):
        acc.fill_hopper(1)
    with pytest.raises(AccountingError):
        acc.fill_hopper(0)
    assert acc.hopper_level == 100
    assert acc.invariant_violations() == []


def test_closing_the_slot_door_resets_games_since_door() -> None:
    acc = _accounts()
    acc.insert_coins(50)
    acc.record_play(10, 10, 0, 0)
    acc.open_door(Door.SLOT)
    assert not acc.play_enabled
    assert acc.meters[M.GAMES_SINCE_DOOR_CLOSED] == 10  # reset on closing, not opening
    acc.close_door(Door.SLOT)
    assert acc.play_enabled
    assert acc.meters[M.GAMES_SINCE_DOOR_CLOSED] == 0
    assert acc.meters[M.GAMES_PLAYED] == 10
    assert acc.meters[M.GAMES_SINCE_POWER_RESET] == 10
    acc.record_play(3, 3, 0, 0)
    assert acc.meters[M.GAMES_SINCE_DOOR_CLOSED] == 3
    # the other doors do not touch the slot-door meter
    acc.open_door(Door.DROP)
    acc.open_door(Door.LOGIC)
    assert acc.doors_open == {Door.DROP, Door.LOGIC}
    acc.close_door(Door.DROP)
    assert not acc.play_enabled  # the logic door is still open
    acc.close_door(Door.LOGIC)
    assert acc.play_enabled
    assert acc.meters[M.GAMES_SINCE_DOOR_CLOSED] == 3
    assert acc.invariant_violations() == []


def test_doors_cannot_open_twice_or_close_unopened() -> None:
    acc = _accounts()
    acc.open_door(Door.CASHBOX)
    with pytest.raises(AccountingError, match="already open"):
        acc.open_door(Door.CASHBOX)
    acc.close_door(Door.CASHBOX)
    with pytest.raises(AccountingError, match="not open"):
        acc.close_door(Door.CASHBOX)


def test_power_reset_resets_only_games_since_power() -> None:
    acc = _accounts()
    acc.insert_coins(20)
    acc.record_play(7, 7, 2, 1)
    acc.power_reset()
    assert acc.meters[M.GAMES_SINCE_POWER_RESET] == 0
    assert acc.meters[M.GAMES_SINCE_DOOR_CLOSED] == 7
    assert acc.meters[M.GAMES_PLAYED] == 7
    assert acc.credits == 15
    assert acc.invariant_violations() == []


def test_invariant_violations_name_a_broken_identity() -> None:
    acc = _accounts()
    acc.insert_coins(10)
    acc.meters[M.TOTAL_DROP] += 1  # tamper
    assert acc.invariant_violations() == ["drop = coins to drop + bills"]
    acc.meters[M.TOTAL_DROP] -= 1
    acc.hopper_level += 1
    assert acc.invariant_violations() == [
        "hopper = initial + fills + coins in - coins paid - coins removed"
    ]


def test_bill_meter_codes() -> None:
    acc = _accounts()
    assert acc.bill_meter_code(500) == 0x42
    assert acc.bill_meter_code(2000) == 0x44
    assert acc.bill_meter_code(10000) == 0x46
    assert acc.bill_meter_code(20000) == 0x49
    assert acc.bill_meter_code(250) is None
    assert acc.bill_meter_code(300) is None  # 3 units: no SAS bill meter


def test_meters_roll_over_at_their_width() -> None:
    acc = _accounts(
        denomination_cents=1,
        hopper_capacity=10,
        hopper_level=0,
        meter_digits=6,
        bill_denominations_cents=(5000,),
    )
    for _ in range(201):
        acc.insert_bill(5000)
    assert acc.meters[M.BILL_CREDITS] == 1_005_000
    assert acc.reading(M.BILL_CREDITS) == 5_000
    assert acc.reading(M.TOTAL_DROP) == 5_000
    assert acc.reading(M.CURRENT_CREDITS) == 1_005_000  # the credit meter does not roll
    acc.record_play(games=1_000_001, wagered=1_000_003, won=999_999, games_won=1)
    assert acc.reading(M.TOTAL_COIN_IN) == 3
    assert acc.reading(M.TOTAL_COIN_OUT) == 999_999
    assert acc.reading(M.GAMES_PLAYED) == 1
    assert acc.reading(M.GAMES_LOST) == 0
    assert acc.meters[M.GAMES_LOST] == 1_000_000
    readings = acc.readings()
    assert readings["total_coin_in"] == 3
    assert readings["bill_credits"] == 5_000
    assert readings["current_credits"] == 1_004_996
    assert readings["bills_5000"] == 201
    assert set(readings) == {c.name.lower() for c in MeterCode} | {"bills_5000"}
    assert all(0 <= v < 10**6 for k, v in readings.items() if k != "current_credits")
    assert acc.invariant_violations() == []
    wide = _accounts(denomination_cents=1, bill_denominations_cents=(5000,))
    for _ in range(201):
        wide.insert_bill(5000)
    assert wide.reading(M.BILL_CREDITS) == 1_005_000  # 8 digits by default


# ---------------------------------------------------------------------------------------------
# Property: random sessions through a real engine keep the books balanced after every step
# ---------------------------------------------------------------------------------------------

SESSIONS_PER_EXAMPLE = 500
EXAMPLES = 200  # 200 x 500 = 100,000 sessions
TOTAL_SESSIONS = 0


class Driver:
    """Plays sessions on one machine's accounts and checks them after every operation."""

    def __init__(self, acc: SlotAccounts, game_id: str, seed: int, pay_limit: int) -> None:
        self.acc = acc
        self.game = load(game_id)
        self.engine = BatchedEngine(self.game)
        self.rng = np.random.default_rng(seed)
        self.base = UniformTape(np.random.default_rng([seed, 1]))
        self.feature = UniformTape(np.random.default_rng([seed, 2]))
        self.pay_limit = pay_limit
        # shadow model
        self.credits = acc.credits
        self.hopper = acc.hopper_level
        self.games = 0
        self.since_door = 0
        self.since_power = 0
        self.ops = 0
        self.stops: set[Stop] = set()

    def do(self, op: Callable[..., Any], *args: Any) -> Any:
        """Apply one operation and check every invariant right after it."""
        out = op(*args)
        self.ops += 1
        assert self.acc.invariant_violations() == [], (op.__name__, args)
        return out

    def agree(self) -> None:
        """The accounts agree with the shadow model (called once the shadow is updated)."""
        acc = self.acc
        assert acc.credits == self.credits
        assert acc.hopper_level == self.hopper
        m = acc.meters
        assert m[M.GAMES_PLAYED] == self.games
        assert m[M.GAMES_SINCE_DOOR_CLOSED] == self.since_door
        assert m[M.GAMES_SINCE_POWER_RESET] == self.since_power

    def refused(self, op: Callable[..., Any], *args: Any) -> None:
        """An impossible operation raises and changes nothing."""
        acc = self.acc
        before = (dict(acc.meters), dict(acc.bills), acc.hopper_level, set(acc.doors_open))
        with pytest.raises(AccountingError):
            op(*args)
        assert before == (dict(acc.meters), dict(acc.bills), acc.hopper_level, acc.doors_open)
        assert acc.invariant_violations() == []

    # -- the pieces of a session ---------------------------------------------------------
    def money_in(self) -> None:
        acc, rng = self.acc, self.rng
        if rng.random() < 0.6:
            coins = int(rng.integers(0, 400))
            room = acc.hopper_capacity - self.hopper
            got = self.do(acc.insert_coins, coins)
            assert got == CoinsIn(min(coins, room), coins - min(coins, room))
            self.hopper += got.to_hopper
            self.credits += coins
            self.agree()
        if acc.bill_denominations_cents and rng.random() < 0.6:
            for _ in range(int(rng.integers(1, 4))):
                bill = int(rng.choice(acc.bill_denominations_cents))
                credits = self.do(acc.insert_bill, bill)
                assert credits == bill // acc.denomination_cents
                self.credits += credits
                self.agree()

    def maintenance(self) -> None:
        acc, rng = self.acc, self.rng
        x = rng.random()
        if x < 0.08:
            if acc.doors_open and rng.random() < 0.7:
                door = Door(int(rng.choice(sorted(acc.doors_open))))
                self.do(acc.close_door, door)
                if door is Door.SLOT:
                    self.since_door = 0
                self.agree()
            else:
                door = Door(int(rng.choice([d for d in Door if d not in acc.doors_open])))
                self.do(acc.open_door, door)
                assert not acc.play_enabled
        elif x < 0.1:
            self.do(acc.power_reset)
            self.since_power = 0
            self.agree()
        elif x < 0.13:
            room = acc.hopper_capacity - self.hopper
            if room:
                coins = int(rng.integers(1, room + 1))
                self.do(acc.fill_hopper, coins)
                self.hopper += coins
                self.agree()
        elif x < 0.15:
            self.refused(acc.fill_hopper, acc.hopper_capacity - self.hopper + 1)
            self.refused(acc.pay_by_hand, self.credits + 1)
            self.refused(acc.pay_from_hopper, self.credits + 1)
            self.refused(acc.insert_bill, 123)
            self.refused(acc.record_play, 1, self.credits + 1, 0, 0)

    def play(self) -> None:
        acc, rng = self.acc, self.rng
        for _ in range(int(rng.integers(1, 4))):
            if not acc.play_enabled:
                return
            bet = int(rng.integers(1, 6))
            credits = self.credits
            lock = int(rng.integers(1, 200)) * bet if rng.random() < 0.3 else 2**62
            req = PlayRequest(
                credits=credits,
                bet_units=bet,
                max_games=int(rng.integers(0, 300)),
                floor_credits=int(rng.integers(0, credits + 1)) if rng.random() < 0.3 else 0,
                goal_credits=credits * 2 + 1 if rng.random() < 0.5 else 2**62,
                lock_credits=lock,
            )
            r = self.engine.play(req, self.base, self.feature)
            self.stops.add(r.stop)
            if r.games:
                self.do(acc.record_play, r.games, r.wagered, r.won, r.games_won)
                self.credits += r.won - r.wagered
                self.games += r.games
                self.since_door += r.games
                self.since_power += r.games
                self.agree()
                assert acc.credits == r.end_credits
            if r.stop in (Stop.JACKPOT, Stop.PROGRESSIVE):
                prize = int(rng.integers(1000, 50_000)) if r.stop is Stop.PROGRESSIVE else 0
                if r.lock_win + prize:
                    self.do(acc.record_jackpot, r.lock_win + prize)
                    self.agree()
                return
            if rng.random() < 0.2:
                self.maintenance()

    def cash_out(self) -> None:
        acc = self.acc
        credits = self.credits
        if credits == 0:
            return
        by_hopper = min(credits, self.pay_limit)
        expected = min(by_hopper, self.hopper)
        paid = self.do(acc.pay_from_hopper, by_hopper)
        assert paid == expected
        self.credits -= paid
        self.hopper -= paid
        self.agree()
        short = by_hopper - paid
        if short:
            room = acc.hopper_capacity - self.hopper
            if room:
                self.do(acc.fill_hopper, room)
                self.hopper += room
                self.agree()
            expected = min(short, self.hopper)
            assert self.do(acc.pay_from_hopper, short) == expected
            self.credits -= expected
            self.hopper -= expected
            self.agree()
        if self.credits:
            self.do(acc.pay_by_hand, self.credits)
            self.credits = 0
            self.agree()
        assert acc.credits == 0

    def session(self) -> None:
        acc = self.acc
        if acc.doors_open and self.rng.random() < 0.5:  # the technician finishes the job
            for door in sorted(acc.doors_open):
                self.do(acc.close_door, door)
                if door is Door.SLOT:
                    self.since_door = 0
                self.agree()
        self.money_in()
        self.maintenance()
        self.play()
        if self.rng.random() < 0.1:
            self.maintenance()
        self.cash_out()


@settings(
    derandomize=True,
    database=None,
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    game_id=st.sampled_from(GAME_IDS),
    denomination=st.sampled_from([1, 2, 5, 25, 100]),
    bills=st.lists(st.sampled_from(BILLS), unique=True, max_size=4).map(lambda b: tuple(sorted(b))),
    capacity=st.integers(1, 3000),
    level_share=st.floats(0, 1),
    meter_digits=st.sampled_from([6, 8, 10]),
    pay_limit=st.integers(1, 2000),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_sessions_keep_every_invariant(
    game_id: str,
    denomination: int,
    bills: tuple[int, ...],
    capacity: int,
    level_share: float,
    meter_digits: int,
    pay_limit: int,
    seed: int,
) -> None:
    global TOTAL_SESSIONS
    acc = SlotAccounts(
        denomination_cents=denomination,
        hopper_capacity=capacity,
        hopper_level=int(capacity * level_share),
        meter_digits=meter_digits,
        bill_denominations_cents=bills,
    )
    driver = Driver(acc, game_id, seed, pay_limit)
    for _ in range(SESSIONS_PER_EXAMPLE):
        driver.session()
    TOTAL_SESSIONS += SESSIONS_PER_EXAMPLE
    assert driver.ops > SESSIONS_PER_EXAMPLE
    assert acc.meters[M.GAMES_PLAYED] > 0
    for code in MeterCode:
        assert acc.reading(code) == (
            acc.meters[code] if code is M.CURRENT_CREDITS else acc.meters[code] % 10**meter_digits
        )


def test_the_property_covered_100k_sessions() -> None:
    """Runs after the property test in file order: it really drove >= 100,000 sessions."""
    assert EXAMPLES * SESSIONS_PER_EXAMPLE >= 100_000
    if TOTAL_SESSIONS:  # the property test ran in this process (not deselected)
        assert TOTAL_SESSIONS >= 100_000
