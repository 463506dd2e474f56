"""Injections of the junkets (reg 25): each arms one misconduct on a junket or a leader
(``target``) before the floor opens, so that exactly one control sees it (reg 25's, or for
the junket room's stakes and chips, R21.1, R21.3 and R23.1). ``junket_room_off_notice``
(no target) leaves the junket room off the entrance notice (R22).

Targets are checked before t = 0 (``twin.junkets.model.validate_injections``).
"""

from __future__ import annotations

from twin.department import Venue
from twin.injections import InjectViolation, injection
from twin.junkets.model import OFF_NOTICE, JunketMisconduct, Junkets

J = JunketMisconduct

#: injection kind -> what it does (the README's table)
DOCS: dict[JunketMisconduct, str] = {
    J.LATE_APPLICATION: "the junket leader `target`'s particulars reach the Board one day "
    "less than the ruleset's days before its services start (MT98.R25.2)",
    J.THIRD_REPRESENTATIVE: "junket leader `target` registers one representative more than "
    "the ruleset allows (MT98.R25.4)",
    J.SERVICES_ENDED: "junket leader `target`'s services end the day the run starts, and its "
    "junkets keep coming (MT98.R25.5)",
    J.RESIDENT_MEMBER: "junket `target`'s last member resides in Malta (MT98.R25.1)",
    J.LATE_NOTICE: "junket `target` is notified one hour less than the ruleset's hours before "
    "it arrives (MT98.R25.6)",
    J.MISSING_PARTICULAR: "junket `target`'s notice leaves out its last member's "
    "identification number (MT98.R25.6)",
    J.SCHEDULE_NOT_SENT: "the licensee's own junket `target` is notified without its junket "
    "agreement or schedule (MT98.R25.7)",
    J.SHORT_DEPOSIT: "junket `target`'s first member lodges `amount` cents (default: the "
    "most whole cents below the ruleset's minimum, converted exactly) (MT98.R25.8)",
    J.CASH_CHIPS: "junket `target`'s first member plays a session with cash chips (MT98.R25.9a)",
    J.CASH_TOKENS: "junket `target`'s first member pays for machine tokens in cash, not junket "
    "chips (MT98.R25.9a)",
    J.CHIPS_TO_OUTSIDER: "junket `target`'s first member hands junket chips to a local friend, "
    "who bets them at the junket table (MT98.R25.9b)",
    J.STAKE_BELOW_MINIMUM: "junket `target`'s first member's first session is played at one "
    "cent below the Board's minimum stake of the junket room's game (MT98.R21.1)",
    J.STAKE_ABOVE_MAXIMUM: "junket `target`'s first member's first session is played at one "
    "cent above the Board's authorised maximum of the junket room's game (MT98.R21.3)",
    J.UNAPPROVED_CHIPS: "junket `target`'s series of non-negotiable chips is left out of the "
    "Board's approval of the junkets' chips, and issued all the same (MT98.R23.1)",
}
OFF_NOTICE_DOC = (
    "the entrance notice leaves out the junket room's tables (its game and stakes), listing "
    "only the pit's (MT98.R22)"
)


def _arm(misconduct: JunketMisconduct) -> None:
    def apply(venue: Venue, inj: InjectViolation) -> None:
        junkets = venue.find(Junkets)
        assert junkets is not None and inj.target is not None  # checked before t = 0
        junkets.arm(inj.target, misconduct, inj.amount)

    injection(misconduct.value, DOCS[misconduct], needs=("target",), static=True)(apply)


for _m in JunketMisconduct:
    _arm(_m)


@injection(OFF_NOTICE, OFF_NOTICE_DOC, needs=(), static=True)
def _off_notice(venue: Venue, inj: InjectViolation) -> None:
    junkets = venue.find(Junkets)
    if junkets is not None and junkets.room is not None:
        junkets.room.off_notice = True


__all__ = ["DOCS", "OFF_NOTICE_DOC"]
