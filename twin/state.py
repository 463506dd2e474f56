"""A machine's state at any moment, rebuilt from the ledger alone.

:func:`replay` feeds one machine's records, in seq order, through a fresh
:class:`~twin.machines.accounting.SlotAccounts` using the same named methods the machine
called when it wrote them, and returns a frozen :class:`MachineState`: every SAS meter rolled
at the machine's width plus ``bills_<cents>``, the hopper level, the credits, the open doors
and whether the machine is up (and if not, why).

Record → accounting (as in :mod:`twin.machines.machine`):

* ``machine_installed``: denomination, bill denominations, meter digits, hopper coins;
* ``coins_accepted`` → ``insert_coins``; ``bill_accepted`` → ``insert_bill``;
* ``games_played`` → ``record_play``;
* ``hopper_paid`` → ``pay_from_hopper(coins)``; ``requested - coins`` coins are still owed
  when the hopper ran dry. The machine pays what is owed after each fill and only writes a
  ``hopper_paid`` when the fill was not enough; ``short_pay_completed`` (``coins > 0``) is
  where the last of the owed coins left the hopper. (``coins == 0``: the short pay was
  settled by hand with the credit payout instead.)
* ``hopper_filled`` → ``fill_hopper``, except the ``new`` load of the installation (already
  in ``hopper_coins``);
* ``hand_paid`` with reason ``credit_payout`` → ``pay_by_hand``; any other reason (a
  jackpot or progressive win) → ``record_jackpot`` (the hand pay meter counts when paid);
* ``money_removed`` → the drop bucket or cash box emptied, or ``take_from_hopper``;
* ``machine_exception``: door opened/closed → ``open_door``/``close_door``; AC power lost →
  ``power_reset``. Down reasons follow the machine's own: ``hand_pay`` (hand pay pending
  until reset), ``hopper_empty`` (until the short pay completes), ``door:<door>``,
  ``tilt:<name>`` (any other exception, until ``tilt_repaired``);
* ``machine_removed`` → down ``removed`` until ``machine_returned`` (First Schedule 20(c));
  ``machine_unreachable`` → down ``unreachable`` until ``machine_reachable``.

A record counts when it is written, and the machine's own meters change at that instant
too: a hopper payout's credits leave the meter (and its coins the hopper) when the coins have
dropped, the instant ``hopper_paid`` is written, so a meter reading taken while they drop shows
them still on the machine, as this replay does.

The hopper's capacity is not in the ledger; it is learnt from the records (a
``coins_accepted`` that diverted coins to the drop gives it exactly). Every record that
states a result (credits after play, hopper level after a payout or fill, the hopper/drop
split of coins) is checked against the replay; a disagreement raises :class:`ReplayError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from twin.machines.accounting import AccountingError, SlotAccounts
from twin.machines.sas import Door, ExceptionCode
from twin.records import Record

__all__ = [
    "MACHINE_KINDS",
    "MachineReplay",
    "MachineState",
    "ReplayError",
    "machine_of",
    "replay",
]

#: Kinds of the records a machine writes about itself (``twin.machines.events``).
MACHINE_KINDS: Final = frozenset(
    {
        "machine_installed",
        "machine_exception",
        "coins_accepted",
        "bill_accepted",
        "games_played",
        "machine_locked",
        "hand_paid",
        "hopper_paid",
        "hopper_filled",
        "short_pay_completed",
        "cashed_out",
        "tilt_repaired",
        "progressive_hit",
        "meters_read",
        "outcome_tally",
        "money_removed",
        "machine_removed",
        "machine_returned",
        "machine_unreachable",
        "machine_reachable",
    }
)

Doc = Mapping[str, Any]


def machine_of(rec: Record | Doc) -> str | None:
    """The machine a record is about (its ``machine`` role), or None: from a record or its
    parsed JSON body."""
    if isinstance(rec, Mapping):
        named = rec.get("machine")
        return str(named) if named else None
    return rec.entity("machine") or None


class ReplayError(ValueError):
    """The records contradict the accounting (a changed or inconsistent ledger)."""

    def __init__(self, seq: int, message: str) -> None:
        self.seq = seq
        super().__init__(f"row seq={seq}: {message}")


@dataclass(frozen=True, slots=True)
class MachineState:
    """One machine at one moment, as the ledger tells it.

    ``meters``: (name, rolled value) pairs sorted by name, the shape of a ``meters_read``
    record; ``down``: the reasons the machine is out of play (empty when it is up);
    ``hopper_owed``: coins of a short pay still to be paid after a fill; ``seq``: the last
    record of this machine applied (None before installation).
    """

    machine: str
    t: float
    seq: int | None
    installed: bool
    denomination_cents: int
    meters: tuple[tuple[str, int], ...]
    hopper_level: int
    credits: int
    doors_open: tuple[str, ...]
    down: tuple[str, ...]
    hopper_owed: int
    records: int

    @property
    def up(self) -> bool:
        return self.installed and not self.down

    @property
    def status(self) -> str:
        """``up``, ``down (reason, ...)`` or ``not installed``."""
        if not self.installed:
            return "not installed"
        return "up" if not self.down else f"down ({', '.join(self.down)})"

    def meter(self, name: str) -> int:
        return dict(self.meters)[name]

    def to_json(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "t": self.t,
            "seq": self.seq,
            "installed": self.installed,
            "status": "up" if self.up else ("down" if self.installed else "not installed"),
            "down": list(self.down),
            "credits": self.credits,
            "hopper_level": self.hopper_level,
            "hopper_owed": self.hopper_owed,
            "doors_open": list(self.doors_open),
            "denomination_cents": self.denomination_cents,
            "meters": dict(self.meters),
            "records": self.records,
        }


_DOOR_OPENED: Final = {int(d.opened_code): d for d in Door}
_DOOR_CLOSED: Final = {int(d.closed_code): d for d in Door}
_NOT_TILTS: Final = frozenset(
    int(c)
    for c in (
        ExceptionCode.AC_POWER_APPLIED,
        ExceptionCode.HANDPAY_PENDING,
        ExceptionCode.HANDPAY_RESET,
        ExceptionCode.HOPPER_EMPTY,
    )
)


def _doc(rec: Record | Doc) -> Doc:
    if isinstance(rec, Mapping):
        return rec
    doc: dict[str, Any] = json.loads(rec.to_json())
    return doc


class _Replay:
    def __init__(self, machine: str) -> None:
        self.machine = machine
        self.acc: SlotAccounts | None = None
        self.down: set[str] = set()
        self.owed = 0
        self.seq: int | None = None
        self.records = 0

    def state(self, t: float) -> MachineState:
        acc = self.acc
        if acc is None:
            return MachineState(self.machine, t, None, False, 0, (), 0, 0, (), (), 0, 0)
        return MachineState(
            machine=self.machine,
            t=t,
            seq=self.seq,
            installed=True,
            denomination_cents=acc.denomination_cents,
            meters=tuple(sorted(acc.readings().items())),
            hopper_level=acc.hopper_level,
            credits=acc.credits,
            doors_open=tuple(sorted(d.name.lower() for d in acc.doors_open)),
            down=tuple(sorted(self.down)),
            hopper_owed=self.owed,
            records=self.records,
        )

    def apply(self, d: Doc) -> None:
        seq = int(d["seq"])
        kind = d["kind"]
        if kind == "machine_installed":
            if self.acc is not None:
                raise ReplayError(seq, f"machine {self.machine} is installed twice")
            coins = int(d["hopper_coins"])
            self.acc = SlotAccounts(
                denomination_cents=int(d["denomination_cents"]),
                hopper_capacity=coins,  # a lower bound, raised as the records tell more
                hopper_level=coins,
                meter_digits=int(d["meter_digits"]),
                bill_denominations_cents=tuple(int(c) for c in d["bill_denominations_cents"]),
            )
        elif self.acc is None:
            raise ReplayError(seq, f"a {kind} record before machine {self.machine} is installed")
        else:
            try:
                self._account(seq, kind, d, self.acc)
            except AccountingError as exc:
                raise ReplayError(seq, f"{kind} cannot be applied: {exc}") from None
            except (KeyError, TypeError, ValueError) as exc:
                if isinstance(exc, ReplayError):
                    raise
                raise ReplayError(seq, f"{kind} record is malformed: {exc!r}") from None
        self.seq = seq
        self.records += 1

    def _account(self, seq: int, kind: str, d: Doc, acc: SlotAccounts) -> None:
        def agree(what: str, recorded: object, replayed: object) -> None:
            if recorded != replayed:
                raise ReplayError(
                    seq, f"{kind} says {what}={recorded!r}, the replay gives {replayed!r}"
                )

        if kind == "coins_accepted":
            coins, to_hopper, to_drop = int(d["coins"]), int(d["to_hopper"]), int(d["to_drop"])
            room = acc.hopper_level + to_hopper
            acc.hopper_capacity = room if to_drop > 0 else max(acc.hopper_capacity, room)
            got = acc.insert_coins(coins)
            agree("to_hopper/to_drop", (to_hopper, to_drop), (got.to_hopper, got.to_drop))
        elif kind == "bill_accepted":
            agree("credits", int(d["credits"]), acc.insert_bill(int(d["bill_cents"])))
        elif kind == "games_played":
            acc.record_play(int(d["games"]), int(d["wagered"]), int(d["won"]), int(d["games_won"]))
            agree("credits", int(d["credits"]), acc.credits)
        elif kind == "hopper_paid":
            coins = int(d["coins"])
            agree("coins", coins, acc.pay_from_hopper(coins))
            agree("hopper_level", int(d["hopper_level"]), acc.hopper_level)
            self.owed = int(d["requested"]) - coins
        elif kind == "short_pay_completed":
            if int(d["coins"]) > 0:
                owed = self.owed
                agree("coins paid after the fill", owed, acc.pay_from_hopper(owed))
            self.owed = 0
            self.down.discard("hopper_empty")
        elif kind == "hopper_filled":
            if d["reason"] != "new":
                coins = int(d["coins"])
                acc.hopper_capacity = max(acc.hopper_capacity, acc.hopper_level + coins)
                acc.fill_hopper(coins)
                agree("hopper_level", int(d["hopper_level"]), acc.hopper_level)
        elif kind == "hand_paid":
            if d["reason"] == "credit_payout":
                acc.pay_by_hand(int(d["credits"]))
            else:
                acc.record_jackpot(int(d["credits"]))
        elif kind == "machine_exception":
            self._exception(int(d["code"]), str(d["name"]), acc)
        elif kind == "tilt_repaired":
            self.down.discard(f"tilt:{d['name']}")
        elif kind == "money_removed":
            if d["container"] == "hopper":
                agree("coins", int(d["coins"]), acc.take_from_hopper(int(d["coins"])))
            elif d["container"] == "drop_bucket":
                acc.empty_drop_bucket()
            elif d["container"] == "cash_box":
                acc.empty_cash_box()
        elif kind == "machine_removed":
            self.down.add("removed")  # out of operation (20(c)) until it is placed back
        elif kind == "machine_returned":
            self.down.discard("removed")
        elif kind == "machine_unreachable":
            self.down.add("unreachable")
        elif kind == "machine_reachable":
            self.down.discard("unreachable")

    def _exception(self, code: int, name: str, acc: SlotAccounts) -> None:
        if code in _DOOR_OPENED:
            door = _DOOR_OPENED[code]
            acc.open_door(door)
            self.down.add(f"door:{door.name.lower()}")
        elif code in _DOOR_CLOSED:
            door = _DOOR_CLOSED[code]
            acc.close_door(door)
            self.down.discard(f"door:{door.name.lower()}")
        elif code == ExceptionCode.HANDPAY_PENDING:
            self.down.add("hand_pay")
        elif code == ExceptionCode.HANDPAY_RESET:
            self.down.discard("hand_pay")
        elif code == ExceptionCode.HOPPER_EMPTY:
            self.down.add("hopper_empty")
        elif code not in _NOT_TILTS:
            if code == ExceptionCode.AC_POWER_LOST:
                acc.power_reset()
            self.down.add(f"tilt:{name}")


#: One machine's state kept up to date record by record (``apply`` each of its parsed ledger
#: bodies in seq order, ``state(t)`` at any moment): what :func:`replay` does in one go, for a
#: reader that follows a run as it happens (the viewer) and must agree with ``twin state``.
MachineReplay = _Replay


def replay(
    records: Iterable[Record | Doc],
    machine: str,
    *,
    at: float | None = None,
    upto_seq: int | None = None,
) -> MachineState:
    """The state of ``machine`` after every one of its records with ``t <= at`` (and
    ``seq <= upto_seq``); ``at=None`` means the end of the records.

    ``records``: records or parsed ledger bodies in seq order; other machines' records and
    other kinds are skipped. Raises :class:`ReplayError` when the records contradict the
    accounting.
    """
    r = _Replay(machine)
    last_t = 0.0
    for rec in records:
        if isinstance(rec, Mapping):
            seq, t, kind = int(rec["seq"]), float(rec["t"]), rec["kind"]
        else:
            seq, t, kind = rec.seq, rec.t, rec.kind
        if (at is not None and t > at) or (upto_seq is not None and seq > upto_seq):
            continue
        if kind not in MACHINE_KINDS or machine_of(rec) != machine:
            continue
        r.apply(_doc(rec))
        last_t = t
    return r.state(at if at is not None else last_t)
