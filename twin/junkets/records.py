"""Records of junkets (Malta reg 25), and the junkets' KPIs built from them alone.

Entities by role: ``leader`` (a junket leader), ``representative``, ``junket`` (one visit of a
group: ``J3``), ``member`` (a junket member, ``J3-M2``; not of the slot population),
``player`` (whoever bets at a junket room table), ``table`` (``JR-1``), ``desk``.

Dates of the leader's licensing (applied, issued, services start) are calendar dates
(``YYYY-MM-DD``) in fields: those before the run starts are recorded at t = 0. A notice's
``sent`` is a local ISO datetime with its offset (a notice sent before t = 0 is recorded at
t = 0). Money is the floor's cents.
"""

from __future__ import annotations

from typing import Any

from twin.records import Record, record


@record("junket_leader_applied", roles=("leader",))
class JunketLeaderApplied(Record):
    """The licensee applied to the Board for a junket leader's licence and gave the
    Secretary the leader's particulars (reg 25(2)): name, address (a company's registered
    address), identification (a company's registration) number, a copy of the service
    agreement and the proposed date services start."""

    leader: str
    leader_kind: str  # "person" or "company"
    name: str
    address: str
    id_number: str
    agreement_supplied: bool
    proposed_start: str  # date
    applied: str  # date


@record("junket_leader_licensed", roles=("leader",))
class JunketLeaderLicensed(Record):
    """The Board issued the leader's licence; it ends ``services_end`` ("" open) at the
    latest (reg 25(5)). ``issued`` is a date."""

    leader: str
    licence_number: str
    issued: str
    services_end: str


@record("junket_licence_renewed", roles=("leader",))
class JunketLicenceRenewed(Record):
    """The Board renewed the leader's licence on ``renewed`` (a date) for a further term."""

    leader: str
    licence_number: str
    renewed: str


@record("junket_representative_registered", roles=("leader", "representative"))
class JunketRepresentativeRegistered(Record):
    """A person representing the leader in Malta (reg 25(4), 25(6)(ii))."""

    leader: str
    representative: str
    name: str
    address: str
    id_number: str


@record("junket_services_started", roles=("leader",))
class JunketServicesStarted(Record):
    leader: str
    started: str  # date


@record("junket_services_ended", roles=("leader",))
class JunketServicesEnded(Record):
    """The leader's services under the agreement ended on ``ended`` (a date)."""

    leader: str
    ended: str


@record("junket_notified", roles=("junket", "leader", "members"))
class JunketNotified(Record):
    """The notice of a junket to the Board's Secretary (reg 25(6), 25(7)): the leader and its
    licence number, the representatives in Malta, each member's name, place of residence
    and identification number (aligned with ``members``), the arrival and the stay, the
    casino's registration number of the junket, and whether the agreement (a leader's
    junket) or the junket agreement or schedule (the licensee's own) went with it."""

    junket: str
    organiser: str  # "leader" or "licensee"
    leader: str
    licence_number: str
    representatives: tuple[str, ...]  # "name|address|id number" each
    members: tuple[str, ...]
    member_names: tuple[str, ...]
    member_residences: tuple[str, ...]
    member_id_numbers: tuple[str, ...]
    arrival: str  # local ISO datetime
    stay_hours: float
    registration: str
    agreement_attached: bool
    sent: str  # local ISO datetime


@record("junket_dispensation", roles=("junket",))
class JunketDispensation(Record):
    """The Board dispensed with the 48 hours' notice for a justifiable reason (reg 25(6)
    proviso): the particulars are due before junket gaming starts."""

    junket: str
    reason: str


@record("junket_arrived", roles=("junket", "leader", "members"))
class JunketArrived(Record):
    junket: str
    leader: str  # "" for a junket the licensee organised
    registration: str
    members: tuple[str, ...]
    stay_hours: float


@record("junket_member_arrived", roles=("member", "junket"))
class JunketMemberArrived(Record):
    """A member's particulars as the casino identified them on arrival."""

    member: str
    junket: str
    name: str
    id_number: str  # passport number
    nationality: str
    domicile: str  # country code
    residence: str  # country code
    address: str


@record("junket_deposit_lodged", roles=("member", "junket", "desk"))
class JunketDepositLodged(Record):
    """A member lodged front money with the licensee, available for gaming (reg 25(8))."""

    member: str
    junket: str
    desk: str
    amount_cents: int


@record("junket_chips_issued", roles=("member", "junket", "desk"))
class JunketChipsIssued(Record):
    """Non-negotiable chips of the junket series ``series`` issued to a member."""

    member: str
    junket: str
    desk: str
    series: str
    amount_cents: int


@record("junket_chips_approved")
class JunketChipsApproved(Record):
    """The Board's approval of the junkets' series of non-negotiable chips for use in the
    casino (reg 23(1)), recorded as the junket room starts."""

    series: tuple[str, ...]


@record("junket_tokens_bought", roles=("member", "junket", "desk"))
class JunketTokensBought(Record):
    """A member bought machine tokens at a cash desk, paying with ``paid_with`` ("junket"
    chips or "cash")."""

    member: str
    junket: str
    desk: str
    paid_with: str
    amount_cents: int


@record("junket_table_played", roles=("player", "table", "junket"))
class JunketTablePlayed(Record):
    """A session at a junket room table: ``rounds`` rounds of ``bet`` staked with ``chips``
    ("junket": the non-negotiable series of ``junket``; "cash": ordinary cash chips).
    ``staked_cents`` is the rolling turnover, ``net_cents`` the player's net result."""

    player: str
    table: str
    junket: str
    chips: str
    game: str
    bet: str
    rounds: int
    staked_cents: int
    net_cents: int
    started: float  # when the session began (simulation seconds)


@record("junket_chips_redeemed", roles=("member", "junket", "desk"))
class JunketChipsRedeemed(Record):
    """At departure a member's remaining chips and tokens are redeemed, with the rebate."""

    member: str
    junket: str
    desk: str
    chips_cents: int
    rebate_cents: int


@record("junket_settled", roles=("junket", "leader"))
class JunketSettled(Record):
    """The junket's account at departure: the leader's commission on rolling turnover and
    the members' rebates on their losses."""

    junket: str
    leader: str
    turnover_cents: int
    player_net_cents: int
    commission_cents: int
    rebate_cents: int


@record("junket_departed", roles=("junket", "members"))
class JunketDeparted(Record):
    junket: str
    members: tuple[str, ...]


class JunketKpis:
    """KPI section "junkets": junkets, members, deposits, rolling turnover, the house's win
    at the junket tables, commission, rebates, and the net to the house."""

    name = "junkets"
    reads: tuple[type[Record], ...] = (
        JunketArrived,
        JunketDepositLodged,
        JunketTablePlayed,
        JunketSettled,
    )

    def __init__(self) -> None:
        self.junkets = 0
        self.members = 0
        self.deposits = 0
        self.turnover = 0
        self.win = 0
        self.commission = 0
        self.rebates = 0
        self.settled = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, JunketArrived):
            self.junkets += 1
            self.members += len(rec.members)
        elif isinstance(rec, JunketDepositLodged):
            self.deposits += rec.amount_cents
        elif isinstance(rec, JunketTablePlayed):
            if rec.chips == "junket":  # rolling turnover: the junket chips staked
                self.turnover += rec.staked_cents
            self.win -= rec.net_cents
        elif isinstance(rec, JunketSettled):
            self.settled += 1
            self.commission += rec.commission_cents
            self.rebates += rec.rebate_cents

    def report(self, end: float) -> dict[str, Any]:
        return {
            "junkets": self.junkets,
            "settled": self.settled,
            "members": self.members,
            "deposits_cents": self.deposits,
            "rolling_turnover_cents": self.turnover,
            "win_cents": self.win,
            "commission_cents": self.commission,
            "rebates_cents": self.rebates,
            "net_to_house_cents": self.win - self.commission - self.rebates,
        }


__all__ = [
    "JunketArrived",
    "JunketChipsApproved",
    "JunketChipsIssued",
    "JunketChipsRedeemed",
    "JunketDeparted",
    "JunketDepositLodged",
    "JunketDispensation",
    "JunketKpis",
    "JunketLeaderApplied",
    "JunketLeaderLicensed",
    "JunketLicenceRenewed",
    "JunketMemberArrived",
    "JunketNotified",
    "JunketRepresentativeRegistered",
    "JunketServicesEnded",
    "JunketServicesStarted",
    "JunketSettled",
    "JunketTablePlayed",
    "JunketTokensBought",
]
