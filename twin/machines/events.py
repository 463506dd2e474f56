"""Records of what happens at and to a slot machine.

Every record names its ``machine``; the patron and staff involved have roles of their own
(``patron``, ``attendant``, ``inspector``, ``technician``, ``staff``), ``""`` when nobody.
Amounts are integer credits of the machine's denomination unless the name ends in ``_cents``.
"""

from __future__ import annotations

from twin.records import Record, record


@record("machine_installed", roles=("machine",))
class MachineInstalled(Record):
    machine: str
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
    asset_number: str
    bill_denominations_cents: tuple[int, ...]


@record("machine_exception", roles=("machine", "patron", "staff"))
class MachineException(Record):
    """A SAS general exception (doors, tilts, hopper empty, hand pay pending...)."""

    machine: str
    patron: str = ""
    staff: str = ""
    code: int
    name: str


@record("coins_accepted", roles=("machine", "patron"))
class CoinsAccepted(Record):
    machine: str
    patron: str
    coins: int
    to_hopper: int
    to_drop: int


@record("bill_accepted", roles=("machine", "patron"))
class BillAccepted(Record):
    machine: str
    patron: str
    bill_cents: int
    credits: int


@record("games_played", roles=("machine", "patron"))
class GamesPlayed(Record):
    """A stretch of play on one machine, committed when it ends."""

    machine: str
    patron: str
    games: int
    bet_units: int
    wagered: int
    won: int
    games_won: int
    free_games: int
    credits: int
    stop: str


@record("machine_locked", roles=("machine", "patron"))
class MachineLocked(Record):
    """A win at or above the jackpot limit (or a progressive hit) locked the machine."""

    machine: str
    patron: str
    reason: str
    win: int
    prize_cents: int


@record("hand_paid", roles=("machine", "patron", "attendant", "inspector"))
class HandPaid(Record):
    """A jackpot or credit payout paid by an attendant, certified by a Board inspector."""

    machine: str
    patron: str
    reason: str
    credits: int
    cents: int
    attendant: str
    inspector: str
    requested_t: float


@record("hopper_paid", roles=("machine", "patron"))
class HopperPaid(Record):
    machine: str
    patron: str
    coins: int
    requested: int
    hopper_level: int


@record("hopper_filled", roles=("machine", "patron", "attendant", "inspector"))
class HopperFilled(Record):
    """Coins put into the hopper by an attendant, the count certified by a Board inspector."""

    machine: str
    patron: str = ""
    reason: str
    coins: int
    certified_coins: int
    hopper_level: int
    attendant: str
    inspector: str
    requested_t: float


@record("short_pay_completed", roles=("machine", "patron"))
class ShortPayCompleted(Record):
    """The rest of a payout the hopper could not finish, paid after the fill."""

    machine: str
    patron: str
    coins: int
    short_coins: int


@record("cashed_out", roles=("machine", "patron"))
class CashedOut(Record):
    machine: str
    patron: str
    credits: int
    hopper_coins: int
    hand_paid: int
    short_paid: int


@record("tilt_repaired", roles=("machine", "technician"))
class TiltRepaired(Record):
    machine: str
    code: int
    name: str
    technician: str
    requested_t: float


@record("progressive_hit", roles=("machine", "patron", "link"))
class ProgressiveHit(Record):
    machine: str
    patron: str
    link: str
    prize_cents: int
    reset_cents: int


@record("meters_read", roles=("machine",))
class MetersRead(Record):
    """A meter reading (rolled, by name) with the identity and program the machine reports.

    Taken at the start of every gaming day and at the end of a run.
    """

    machine: str
    meters: tuple[tuple[str, int], ...]
    hopper_level: int
    registration: str
    serial: str
    asset_number: str
    program_signature: str


@record("outcome_tally", roles=("machine",))
class OutcomeTally(Record):
    """Cumulative outcomes for the randomness audit, read with the meters.

    ``stop_counts[d][s]``: base games in which draw ``d`` (reel, or table outcome) landed on
    ``s``; ``transitions``: counts of consecutive (lost, lost), (lost, won), (won, lost),
    (won, won) base games; ``by_bet``: (bet units, games, games won) for each bet level
    played; ``selected_won``: credits won by the selected outcomes (progressive prizes apart).

    Combinations (reel games): ``best_line_pays``: (pay per unit line bet of a game's best
    line, base games), for every pay class of the program (0: no line paid);
    ``scatter_counts[c]``: base games with ``c`` scatter symbols in the window (empty without
    a scatter). Free games (games with a feature): ``feature_stop_counts[d][s]`` on the
    feature reels, and ``feature_best_line_pays``/``feature_scatter_counts`` as above.
    """

    machine: str
    program_signature: str
    stop_counts: tuple[tuple[int, ...], ...]
    transitions: tuple[int, int, int, int]
    by_bet: tuple[tuple[int, int, int], ...]
    selected_won: int = 0
    best_line_pays: tuple[tuple[int, int], ...] = ()
    scatter_counts: tuple[int, ...] = ()
    feature_stop_counts: tuple[tuple[int, ...], ...] = ()
    feature_best_line_pays: tuple[tuple[int, int], ...] = ()
    feature_scatter_counts: tuple[int, ...] = ()


@record("money_removed", roles=("machine", "staff", "witness"))
class MoneyRemoved(Record):
    """Money taken out of one of a machine's containers by a person (reg 36).

    ``container``: "drop_bucket" (coins diverted to the drop), "cash_box" (the bill stacker)
    or "hopper"; ``coins`` taken (0 for bills) and their value in ``cents``; ``staff`` who took
    it, ``witness`` who watched (a Board inspector, or ``""``); ``reason``: "drop_collection",
    "hopper_emptied" (the machine leaves the floor), ...
    """

    machine: str
    container: str
    coins: int
    cents: int
    staff: str
    witness: str
    reason: str


# --- removal from operation and return (First Schedule item 20(c); reg 36) -----------------


@record("machine_removed", roles=("machine", "technician", "attendant", "witness"))
class MachineRemoved(Record):
    """A machine taken out of operation (20(c): the date it was removed), after its drop,
    bill stacker and hopper were emptied (reg 36: ``money_removed`` records just before).

    ``date``: the calendar date of the removal (ISO); ``returning``: whether the licensee
    keeps it (repair, storage) or it leaves the licensee's ownership (``False``: sold,
    scrapped); ``asset_number`` and ``registration`` as it left.
    """

    machine: str
    date: str
    reason: str
    returning: bool
    asset_number: str
    registration: str
    technician: str
    attendant: str
    witness: str
    hopper_left: int  # coins still in the hopper as it left (item 9(a): none, when secured)


@record("machine_returned", roles=("machine", "technician", "attendant", "witness"))
class MachineReturned(Record):
    """A machine placed back into operation (20(c): the date it was placed back), with the
    asset number and registration it carries now."""

    machine: str
    date: str
    asset_number: str
    registration: str
    technician: str
    attendant: str
    witness: str


@record("machine_unreachable", roles=("machine",))
class MachineUnreachable(Record):
    """The floor's accounting system lost the machine: it no longer answers its polls (it
    was disconnected and taken away, with or without a record of it)."""

    machine: str


@record("machine_reachable", roles=("machine",))
class MachineReachable(Record):
    """The floor's accounting system hears from the machine again."""

    machine: str
