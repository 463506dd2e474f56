"""The slot floor's injected violations: misconduct armed on a machine (its next hand pay,
fill, drop...), meters tampered with, programs swapped or rigged, identities changed, links
skimmed. Each is registered with :func:`twin.injections.injection`; the floor also refuses an
injection command that names a machine, meter or game it does not have (:func:`_refusal`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import simpy

from twin.department import Site, Venue
from twin.errors import InputError
from twin.injections import InjectViolation, injection, refusal
from twin.machines.misconduct import Misconduct
from twin.machines.sas import Door, ExceptionCode, MeterCode
from twin.slots.model import Slots

if TYPE_CHECKING:
    from twin.machines.machine import SlotMachine


@refusal
def _refusal(venue: Venue, inj: InjectViolation) -> str | None:
    """Why the floor refuses an injection naming a machine, a meter or a game it lacks."""
    slots = venue.need(Slots)
    if inj.machine is not None and inj.machine not in slots.machine_ids:
        return f"no machine {inj.machine!r} on the floor"
    if inj.meter is not None and not _known_meter(inj.meter):
        return f"no meter {inj.meter!r} (a meter name such as total_coin_in, or bills_<cents>)"
    if inj.game is not None and not Path(inj.game).is_file():
        return f"no game file {inj.game}"
    if inj.kind in ("suppressed_combination", "biased_free_spin_reel"):
        bad = _check_rigging(venue, inj)
        if bad is not None:
            return bad
    if (
        inj.kind in _NEEDS_LINK
        and inj.machine is not None
        and slots.machine(inj.machine).link is None
    ):
        return f"{inj.machine} is on no progressive link"
    return None


def validate(site: Site) -> None:
    """The meters the scenario's injections name exist (before t = 0)."""
    for i, inj in enumerate(site.scenario.inject):
        if inj.meter is not None and not _known_meter(inj.meter):
            raise InputError(
                site.source, f"inject[{i}].meter", "a meter name such as total_coin_in", inj.meter
            )


_NEEDS_LINK = frozenset({"progressive_skim", "progressive_reset_change"})


def _known_meter(meter: str) -> bool:
    return re.fullmatch(r"bills_\d+", meter) is not None or meter.upper() in MeterCode.__members__


def _machine(venue: Venue, inj: InjectViolation) -> SlotMachine:
    assert inj.machine is not None
    return venue.need(Slots).machine(inj.machine)


def _arm(misconduct: Misconduct, doc: str) -> None:
    def apply(venue: Venue, inj: InjectViolation) -> None:
        _machine(venue, inj).arm(misconduct, inj.amount)

    injection(misconduct.value, doc)(apply)


M = Misconduct
_arm(M.HAND_PAY_WITHOUT_INSPECTOR, "the machine's next hand pay is made with no Board inspector")
_arm(M.HAND_PAY_BY_OUTSIDER, "the next hand pay is made by someone not employed by the licensee")
_arm(M.UNPAID_HAND_PAY, "the next hand pay is never made: the machine stays locked")
_arm(M.FILL_WITHOUT_INSPECTOR, "the next hopper fill is made with no Board inspector present")
_arm(M.FILL_MISCOUNTED, "the next fill's certified coins differ from the coins put in (amount)")
_arm(M.SECONDARY_DECISION, "after selecting a winning outcome the machine shows a loss")
_arm(
    M.UNDOCUMENTED_PAYOUT,
    "the next cash-out is paid by hand off the books: the meter cancels the credits, but no "
    "slip, hand pay or cash-out is recorded",
)
_arm(M.SHORT_PAY_WITHOUT_FILL, "the next hopper-empty short pay is settled by hand, no fill")
_arm(M.DROP_BY_OUTSIDER, "the next drop is emptied by someone not acting for the licensee")
_arm(
    M.REMOVAL_CONTENTS_UNSECURED,
    "the next time the machine is taken out of operation it leaves with its hopper still full "
    "(item 9(a))",
)
_arm(
    M.REMOVAL_WITHOUT_INSPECTOR,
    "the next time the machine is taken out of operation no Board inspector is present while "
    "its contents are secured (item 9(b))",
)


@injection(
    "technician_takes_coins",
    "a technician sent to check the slot door pockets `amount` hopper coins, unrecorded",
    needs=("machine", "amount"),
)
def _technician_takes_coins(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    m.arm(Misconduct.TECHNICIAN_TAKES_COINS, inj.amount)
    venue.env.process(m.check_door())


_arm(M.UNRECORDED_PROMOTIONAL_PAYOUT, "the next promotional payout is paid but never documented")
_arm(
    M.UNCONFIRMED_PROMOTIONAL_PAYOUT,
    "the next promotional payout is made with no Board inspector confirming it is due",
)


_arm(M.SHORTENED_WIN, "after selecting a win the machine shows a smaller one (still a win)")


_arm(
    M.HOPPER_EMPTIED_BY_OUTSIDER,
    "when the machine is next taken out of operation, someone not acting for the licensee "
    "empties its drop and hopper",
)
_arm(
    M.RETAG_ON_RETURN,
    "when the machine is next placed back into operation it carries a new asset number "
    "(recorded on its return)",
)


@injection(
    "unrecorded_removal",
    "once its patron has left, the machine is disconnected and taken off the floor with no "
    "record, and put back `amount` hours later (0 means 8), again with no record",
)
def _unrecorded_removal(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    hours = inj.amount if inj.amount > 0 else 8

    def away() -> Generator[simpy.events.Event, Any, None]:
        m.withdrawn = "taken away"  # no new patron; the one playing finishes
        while m.patron is not None or m.down:
            yield venue.env.timeout(60.0)
        m.disconnect()
        yield venue.env.timeout(hours * 3600.0)
        m.reconnect()
        m.place_back()

    venue.env.process(away())


@injection(
    "meter_rollback", "a meter is wound back by `amount` credits", needs=("machine", "meter")
)
def _meter_rollback(venue: Venue, inj: InjectViolation) -> None:
    assert inj.meter is not None
    _tamper(_machine(venue, inj), MeterCode[inj.meter.upper()], -inj.amount)


def _tamper(m: SlotMachine, code: MeterCode, delta: int) -> None:
    """Change a meter; a changed credit meter also ends the stretch being played (the
    machine plans its next games from the credits it now shows)."""
    m.accounts.tamper_meter(code, delta)
    if code is MeterCode.CURRENT_CREDITS:
        m.interrupt_play()


@injection(
    "meter_skew", "a meter counts `amount` credits that never happened", needs=("machine", "meter")
)
def _meter_skew(venue: Venue, inj: InjectViolation) -> None:
    assert inj.meter is not None
    _tamper(_machine(venue, inj), MeterCode[inj.meter.upper()], inj.amount)


@injection(
    "phantom_credits",
    "the credit meter jumps by `amount` credits no game paid and no money put in",
    needs=("machine", "amount"),
)
def _phantom_credits(venue: Venue, inj: InjectViolation) -> None:
    _tamper(_machine(venue, inj), MeterCode.CURRENT_CREDITS, inj.amount)


@injection("play_through_tilt", "a general tilt that does not stop play until it is repaired")
def _play_through_tilt(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    m.arm(Misconduct.PLAY_THROUGH_TILT)
    m.tilt(ExceptionCode.GENERAL_TILT)
    venue.env.process(m.repair(ExceptionCode.GENERAL_TILT))


@injection(
    "bill_meter_skew",
    "the bill meter of `meter` (bills_<cents>) is off by `amount`",
    needs=("machine", "meter"),
)
def _bill_meter_skew(venue: Venue, inj: InjectViolation) -> None:
    assert inj.meter is not None
    cents = int(inj.meter.removeprefix("bills_"))
    _machine(venue, inj).accounts.tamper_bill_meter(cents, inj.amount)


@injection("missing_meter", "the machine stops reporting meter `meter`", needs=("machine", "meter"))
def _missing_meter(venue: Venue, inj: InjectViolation) -> None:
    assert inj.meter is not None
    _machine(venue, inj).hidden_meters.add(inj.meter.lower())


@injection("silent_door", "the slot door is opened and closed with no record")
def _silent_door(venue: Venue, inj: InjectViolation) -> None:
    acc = _machine(venue, inj).accounts
    acc.open_door(Door.SLOT)
    acc.close_door(Door.SLOT)


@injection("unrepaired_tilt", "a general tilt that nobody ever repairs")
def _unrepaired_tilt(venue: Venue, inj: InjectViolation) -> None:
    _machine(venue, inj).tilt(ExceptionCode.GENERAL_TILT)


@injection(
    "swap_game",
    "the machine silently runs another program (`game`), and says so",
    needs=("machine", "game"),
)
def _swap_game(venue: Venue, inj: InjectViolation) -> None:
    assert inj.game is not None
    _machine(venue, inj).swap_program(venue.need(Slots).load_injected_game(inj.game))


@injection(
    "tampered_game",
    "the machine runs another program (`game`) but reports the approved signature",
    needs=("machine", "game"),
)
def _tampered_game(venue: Venue, inj: InjectViolation) -> None:
    assert inj.game is not None
    m = _machine(venue, inj)
    m.swap_program(venue.need(Slots).load_injected_game(inj.game), m.spec.game.signature)


@injection(
    "wager_dependent",
    "from `amount` bet units up the machine plays `game` (same reels, other pays)",
    needs=("machine", "game", "amount"),
)
def _wager_dependent(venue: Venue, inj: InjectViolation) -> None:
    assert inj.game is not None
    _machine(venue, inj).play_other_program_from(
        inj.amount, venue.need(Slots).load_injected_game(inj.game)
    )


def _overstated(m: SlotMachine, bp: int) -> object:
    cert = m.spec.certificate
    assert cert is not None
    pct = (m.spec.certified_min_payout_bp + bp) / 100
    return replace(cert, minimum_payout_percent=f"{pct:.2f}")


def _foreign(m: SlotMachine) -> object:
    cert = m.spec.certificate
    assert cert is not None
    return replace(cert, serial=cert.serial + "-0")


def _static_spec(
    kind: str, doc: str, change: Callable[[SlotMachine, InjectViolation], dict[str, object]]
) -> None:
    def apply(venue: Venue, inj: InjectViolation) -> None:
        m = _machine(venue, inj)
        m.spec = replace(m.spec, **change(m, inj))  # type: ignore[arg-type]

    injection(kind, doc, static=True)(apply)


_static_spec(
    "no_registration",
    "the machine shows no Board registration number",
    lambda m, i: {"registration": ""},
)
_static_spec("no_serial", "the machine carries no serial number", lambda m, i: {"serial": ""})
_static_spec(
    "no_certificate",
    "the machine has no manufacturer's certificate",
    lambda m, i: {"certificate": None},
)
_static_spec(
    "no_prize_display",
    "the machine does not display its prizes and rules",
    lambda m, i: {"paytable_displayed": False},
)
_static_spec(
    "short_meters",
    "the machine's meters have `amount` digits",
    lambda m, i: {"meter_digits": i.amount},
)
_static_spec(
    "foreign_certificate",
    "the machine's certificate is another machine's (its serial differs)",
    lambda m, i: {"certificate": _foreign(m)},
)
_static_spec(
    "certificate_overstates_payout",
    "the certificate's minimum payout is `amount` basis points above the true return",
    lambda m, i: {"certificate": _overstated(m, i.amount)},
)


@injection("unregistered_machine", "the machine is not in the Board's register", static=True)
def _unregistered(venue: Venue, inj: InjectViolation) -> None:
    venue.need(Slots).facts.register.pop(_machine(venue, inj).spec.registration, None)


@injection("renumber", "the machine's registration number changes with no record")
def _renumber(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    m.spec = replace(m.spec, registration=m.spec.registration + "-X")


@injection("retag_asset", "the machine's asset number is changed (re-tagged), with no record")
def _retag_asset(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    m.spec = replace(m.spec, asset_number=m.spec.asset_number + "-R")


@injection("reserial", "the machine's serial number is changed (re-stamped), with no record")
def _reserial(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    m.spec = replace(m.spec, serial=m.spec.serial + "-S")


@injection("unapproved_link", "the machine's progressive link was never approved", static=True)
def _unapproved_link(venue: Venue, inj: InjectViolation) -> None:
    link = _machine(venue, inj).spec.progressive
    venue.need(Slots).facts.approved_links.pop(link or "", None)


@injection("progressive_skim", "the link's increment is quietly cut by `amount` basis points")
def _progressive_skim(venue: Venue, inj: InjectViolation) -> None:
    link = _machine(venue, inj).link
    assert link is not None
    link.increment_bp -= inj.amount


@injection("progressive_reset_change", "the link's reset value is changed by `amount` cents")
def _progressive_reset(venue: Venue, inj: InjectViolation) -> None:
    link = _machine(venue, inj).link
    assert link is not None
    link.reset_cents += inj.amount


@injection(
    "stake_above_max",
    "the machine takes `amount` units more than its maximum bet on every game",
    static=True,
)
def _stake_above_max(venue: Venue, inj: InjectViolation) -> None:
    m = _machine(venue, inj)
    m.spec = replace(m.spec, max_bet_units=m.spec.max_bet_units + inj.amount)
    m.forced_bet_units = m.spec.max_bet_units


@injection(
    "adaptive_paytable",
    "the machine scales its pays with its recent hold (by 1 + `amount` x the hold's excess over "
    "the theoretical; `amount` 0 means 4), still reporting the approved program",
)
def _adaptive_paytable(venue: Venue, inj: InjectViolation) -> None:
    from twin.machines.adaptive import AdaptivePayTable

    m = _machine(venue, inj)
    m.adaptive = AdaptivePayTable(m.game, gain=float(inj.amount) if inj.amount > 0 else 4.0)


@injection(
    "suppressed_combination",
    "the machine never selects the line combination paying `amount` per unit line bet (0: "
    "the top-paying one): when its stops show it, the next lower paying combination is "
    "shown instead; it still reports the approved program",
)
def _suppressed_combination(venue: Venue, inj: InjectViolation) -> None:
    from twin.machines.rigging import suppressed_combination

    m = _machine(venue, inj)
    m.swap_program(suppressed_combination(m.game, inj.amount))


@injection(
    "biased_free_spin_reel",
    "the machine's free spins play a first reel on which `amount` stops (0 means 4) never "
    "land, their weight on their neighbours; it still reports the approved program",
)
def _biased_free_spin_reel(venue: Venue, inj: InjectViolation) -> None:
    from twin.machines.rigging import biased_free_spin_reel

    m = _machine(venue, inj)
    m.swap_program(biased_free_spin_reel(m.game, inj.amount if inj.amount > 0 else 4))


def _check_rigging(venue: Venue, inj: InjectViolation) -> str | None:
    """Why a rigged program cannot be built for the target machine's game (None: it can)."""
    from twin.machines.rigging import biased_free_spin_reel, suppressed_combination

    if inj.machine is None:
        return None
    game = venue.need(Slots).machine(inj.machine).game
    try:
        if inj.kind == "suppressed_combination":
            suppressed_combination(game, inj.amount)
        elif inj.kind == "biased_free_spin_reel":
            biased_free_spin_reel(game, inj.amount if inj.amount > 0 else 4)
    except ValueError as err:
        return str(err)
    return None


__all__: list[str] = []
