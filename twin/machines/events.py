"""Records of what happens at and to a slot machine.

``entities`` is always ``(machine_id, ...)``, followed by the patron and staff involved.
Amounts are integer credits of the machine's denomination unless the name ends in ``_cents``.
"""

from __future__ import annotations

from twin.records import Record, record


@record("machine_installed")
class MachineInstalled(Record):
    bank: str
    zone: str
    game_id: str
    game_signature: str
    denomination_cents: int
    max_bet_units: int
    registration: str
    serial: str
    hopper_coins: int
    progressive: str
    meter_digits: int
    manufacturer: str
    model: str
    manufactured: str
    certified_min_payout_bp: int  # the certificate's minimum payout, basis points
    certificate: tuple[tuple[str, str], ...]  # reg 28(4) particulars; () when there is none
    paytable_displayed: bool
    promotional: bool
    bill_denominations_cents: tuple[int, ...]


@record("machine_exception")
class MachineException(Record):
    """A SAS general exception (doors, tilts, hopper empty, hand pay pending...)."""

    code: int
    name: str


@record("coins_accepted")
class CoinsAccepted(Record):
    coins: int
    to_hopper: int
    to_drop: int


@record("bill_accepted")
class BillAccepted(Record):
    bill_cents: int
    credits: int


@record("games_played")
class GamesPlayed(Record):
    """A stretch of play on one machine, committed when it ends."""

    games: int
    bet_units: int
    wagered: int
    won: int
    games_won: int
    free_games: int
    credits: int
    stop: str


@record("machine_locked")
class MachineLocked(Record):
    """A win at or above the jackpot limit (or a progressive hit) locked the machine."""

    reason: str
    win: int
    prize_cents: int


@record("hand_paid")
class HandPaid(Record):
    """A jackpot or credit payout paid by an attendant, certified by a Board inspector."""

    reason: str
    credits: int
    cents: int
    attendant: str
    inspector: str
    requested_t: float


@record("hopper_paid")
class HopperPaid(Record):
    coins: int
    requested: int
    hopper_level: int


@record("hopper_filled")
class HopperFilled(Record):
    """Coins put into the hopper by an attendant, the count certified by a Board inspector."""

    reason: str
    coins: int
    certified_coins: int
    hopper_level: int
    attendant: str
    inspector: str
    requested_t: float


@record("short_pay_completed")
class ShortPayCompleted(Record):
    """The rest of a payout the hopper could not finish, paid after the fill."""

    coins: int
    short_coins: int


@record("cashed_out")
class CashedOut(Record):
    credits: int
    hopper_coins: int
    hand_paid: int
    short_paid: int


@record("tilt_repaired")
class TiltRepaired(Record):
    code: int
    name: str
    technician: str
    requested_t: float


@record("progressive_hit")
class ProgressiveHit(Record):
    link: str
    prize_cents: int
    reset_cents: int


@record("meters_read")
class MetersRead(Record):
    """A meter reading (rolled, by name) with the identity and program the machine reports.

    Taken at the start of every gaming day and at the end of a run.
    """

    meters: tuple[tuple[str, int], ...]
    hopper_level: int
    registration: str
    serial: str
    program_signature: str


@record("outcome_tally")
class OutcomeTally(Record):
    """Cumulative base-game outcomes for the randomness audit, read with the meters.

    ``stop_counts[d][s]``: games in which draw ``d`` (reel, or table outcome) landed on ``s``;
    ``transitions``: counts of consecutive (lost, lost), (lost, won), (won, lost), (won, won);
    ``by_bet``: (bet units, games, games won) for each bet level played.
    """

    program_signature: str
    stop_counts: tuple[tuple[int, ...], ...]
    transitions: tuple[int, int, int, int]
    by_bet: tuple[tuple[int, int, int], ...]
