"""Edge cases of Singapore reg 4 (with 2A, 2B and 3), derived from the text and accounts.md.

Each test says why the expected timeline is right. Replays go through the same path as
``twin account`` (timeline validation, ruleset overrides, replay); ``test_accounts_cli.py``
runs the command itself.
"""

from __future__ import annotations

import pytest
from accounts_helpers import (
    S100K,
    becomes,
    cheque,
    cleared,
    close,
    dep,
    dishonoured,
    draw,
    findings,
    on,
    open_,
    periods,
    run,
    status,
    timeline,
)

# --- the minimum balance (reg 2, C3) -------------------------------------------------------


def test_minimum_is_inclusive_at_qualification() -> None:
    """Reg 2: the minimum balance is "not less than $100,000". S$99,999.99 does not qualify
    under reg 3; one more cent, S$100,000.00, does, on the day it arrives (C2, C3)."""
    r = run(
        timeline(
            open_("2013-04-01"),
            dep("2013-04-01", S100K - 1),
            dep("2013-04-03", 1),
        ),
        until="2013-04-03",
    )
    assert status(r, "2013-04-01") == (False, "reg 3", None, S100K - 1, S100K - 1)
    assert status(r, "2013-04-02") == (False, "reg 3", None, S100K - 1, S100K - 1)
    assert status(r, "2013-04-03") == (True, "reg 3 + 4(1)", "2014-04-02", S100K, S100K)
    assert "S$99,999.99" in on(r, "2013-04-01").reason


def test_minimum_is_inclusive_at_the_anniversary() -> None:
    """Reg 4(4): "$100,000 or more" on the anniversary renews. A balance of exactly
    S$100,000 renews; S$99,999.99 lets the status lapse (4(5)) on the anniversary, after the
    period kept it through its last day (C4d)."""
    exact = run(timeline(open_("2013-04-01"), dep("2013-04-01", S100K)), until="2014-04-01")
    assert status(exact, "2014-03-31") == (True, "reg 3 + 4(1)", "2014-03-31", S100K, S100K)
    assert status(exact, "2014-04-01") == (True, "reg 4(4)", "2015-03-31", S100K, S100K)
    short = run(
        timeline(open_("2013-04-01"), dep("2013-04-01", S100K), draw("2013-04-02", 1)),
        until="2014-04-01",
    )
    assert status(short, "2014-03-31") == (True, "reg 3 + 4(1)", "2014-03-31", S100K - 1, S100K - 1)
    assert status(short, "2014-04-01") == (False, "reg 4(5)", None, S100K - 1, S100K - 1)


def test_end_of_day_balance_decides() -> None:
    """C2: status on a day is decided on its end-of-day balance. S$100,000 deposited and
    drawn down the same day never qualifies; a drawdown and a top-up on one day that leave
    S$100,000 at the end of it start no spell below the minimum, so no 4(2) restart.

    This is accounts.md's reading, not the only one: reg 3 qualifies the patron when he
    "provides a deposit ... which satisfies the minimum balance", and Illustration 1 shows
    that drawing it down afterwards does not undo that; read so, the same-day drawdown would
    still leave a premium player. The day-granular replay follows C2."""
    same_day = run(
        timeline(open_("2013-04-01"), dep("2013-04-01", S100K), draw("2013-04-01", S100K)),
        until="2013-04-02",
    )
    assert status(same_day, "2013-04-01") == (False, "reg 3", None, 0, 0)
    assert same_day.periods == ()
    intraday = run(
        timeline(
            open_("2013-04-01"),
            dep("2013-04-01", S100K),
            draw("2013-05-01", 5_000_000),
            dep("2013-05-01", 5_000_000),
        ),
        until="2013-05-02",
    )
    assert status(intraday, "2013-05-01") == (True, "reg 3 + 4(1)", "2014-03-31", S100K, S100K)
    assert len(intraday.periods) == 1


def test_a_deposit_accumulates_to_the_first_qualification() -> None:
    """Reg 3 qualifies the patron "when he opens a deposit account ... and provides a
    deposit ... which satisfies the minimum balance" - the minimum *balance*: an account
    opened with S$60,000 qualifies on the day a further S$40,000 brings it to S$100,000.
    (C6 is about a *fresh* qualification; this account never qualified before.)"""
    r = run(
        timeline(open_("2013-04-01"), dep("2013-04-01", 6_000_000), dep("2013-04-10", 4_000_000)),
        until="2013-04-10",
    )
    assert status(r, "2013-04-09") == (False, "reg 3", None, 6_000_000, 6_000_000)
    assert status(r, "2013-04-10") == (True, "reg 3 + 4(1)", "2014-04-09", S100K, S100K)


# --- forms of deposit (reg 2A, C4b, C4c, C4e) ----------------------------------------------


def test_credit_for_a_citizen_counts_for_nothing_and_is_a_finding() -> None:
    """Reg 2A(1)(e) and 2A(2): credit may form the deposit "if and only if" the patron is
    neither a citizen nor a PR. A citizen's S$200,000 of operator credit stays on the balance
    but counts towards no balance test (C4b), so no qualification, and SG10.R2A.1e is raised
    on the day. S$100,000 in cash later qualifies him on its own."""
    r = run(
        timeline(
            open_("2013-04-01"),
            dep("2013-04-01", 2 * S100K, "credit_operator"),
            dep("2013-04-05", S100K, "cash"),
            residency="citizen",
        ),
        until="2013-04-05",
    )
    assert status(r, "2013-04-01") == (False, "reg 3", None, 2 * S100K, 0)
    assert findings(r) == [("SG10.R2A.1e", "2013-04-01")]
    assert "neither a citizen nor a permanent resident" in r.findings[0].message
    assert "events[1]" in r.findings[0].message
    assert status(r, "2013-04-05") == (True, "reg 3 + 4(1)", "2014-04-04", 3 * S100K, S100K)


def test_agent_credit_for_a_pr_is_a_finding() -> None:
    """The same for a PR and credit from a licensed international market agent (2A(2))."""
    r = run(
        timeline(open_("2013-04-01"), dep("2013-04-01", S100K, "credit_ima"), residency="pr"),
        until="2013-04-01",
    )
    assert findings(r) == [("SG10.R2A.1e", "2013-04-01")]
    assert status(r, "2013-04-01") == (False, "reg 3", None, S100K, 0)


def test_a_foreigner_may_combine_credit_and_cash() -> None:
    """Reg 2A(3) (SG10.R2A.3, a permission): a foreigner's S$60,000 of agent credit plus
    S$40,000 in cash is a qualifying S$100,000, with no finding."""
    r = run(
        timeline(
            open_("2013-04-01"),
            dep("2013-04-01", 6_000_000, "credit_ima"),
            dep("2013-04-01", 4_000_000, "cash"),
        ),
        until="2013-04-01",
    )
    assert status(r, "2013-04-01") == (True, "reg 3 + 4(1)", "2014-03-31", S100K, S100K)
    assert r.findings == ()


def test_personal_cheque_counts_from_clearance() -> None:
    """Reg 2A(1)(d), C4c: a personal cheque counts only "after the cheque has been deposited
    with and cleared by an authorised bank". Received on 2 May, cleared on 6 May: the balance
    is S$0 from 2 to 5 May and the patron qualifies on 6 May (the clearance date)."""
    r = run(
        timeline(
            open_("2013-05-02"),
            cheque("2013-05-02", "PC1", S100K),
            cleared("2013-05-06", "PC1"),
        ),
        until="2013-05-06",
    )
    for d in ("2013-05-02", "2013-05-05"):
        assert status(r, d) == (False, "reg 3", None, 0, 0)
    assert status(r, "2013-05-06") == (True, "reg 3 + 4(1)", "2014-05-05", S100K, S100K)
    assert periods(r)[0][0] == "2013-05-06"
    assert r.findings == ()


def test_dishonoured_personal_cheque_never_counts() -> None:
    """A dishonoured personal cheque was never cleared, so it never counted (2A(1)(d))."""
    r = run(
        timeline(
            open_("2013-05-02"),
            cheque("2013-05-02", "PC1", S100K),
            dishonoured("2013-05-07", "PC1"),
        ),
        until="2013-05-08",
    )
    assert all(not d.premium_player and d.balance_cents == 0 for d in r.days)
    assert "never counted" in on(r, "2013-05-07").reason
    assert r.periods == ()


def test_personal_cheque_credited_without_clearance_is_a_finding() -> None:
    """A ``deposit`` in the form ``personal_cheque`` is a cheque credited with no record of its
    clearance: it counts towards no balance test, and SG10.R2A.1d (the catalog's example:
    a patron treated as a premium player on the day he hands over the cheque)."""
    r = run(
        timeline(open_("2013-05-02"), dep("2013-05-02", S100K, "personal_cheque")),
        until="2013-05-02",
    )
    assert status(r, "2013-05-02") == (False, "reg 3", None, S100K, 0)
    assert findings(r) == [("SG10.R2A.1d", "2013-05-02")]


def test_casino_cheque_counts_from_acceptance_and_a_cleared_cheque_restores_a_dip() -> None:
    """2A(1)(c): an accepted casino cheque counts from acceptance, no clearance needed (C4c).
    A later personal cheque that clears while the balance is below the minimum is an
    "additional deposit in accordance with regulation 2A" (4(2)(c)): the period restarts on
    the clearance day, not the day the cheque was received."""
    r = run(
        timeline(
            open_("2013-05-02"),
            cheque("2013-05-02", "CC1", S100K, kind="casino_cheque"),
            draw("2013-06-01", 5_000_000),
            cheque("2013-06-10", "PC2", 5_000_000),
            cleared("2013-06-14", "PC2"),
            cleared("2013-06-20", "CC1"),
        ),
        until="2013-06-20",
    )
    assert status(r, "2013-05-02") == (True, "reg 3 + 4(1)", "2014-05-01", S100K, S100K)
    assert status(r, "2013-06-13") == (True, "reg 3 + 4(1)", "2014-05-01", 5_000_000, 5_000_000)
    assert status(r, "2013-06-14") == (True, "reg 4(2)", "2014-06-13", S100K, S100K)
    assert status(r, "2013-06-20") == (True, "reg 4(2)", "2014-06-13", S100K, S100K)


def test_dishonoured_casino_cheque_comes_off_the_balance() -> None:
    """A casino cheque counted from acceptance and later dishonoured: what of it is still on
    the account comes off (the twin does not model the patron's debt for what was drawn)."""
    r = run(
        timeline(
            open_("2013-05-02"),
            dep("2013-05-02", S100K),
            cheque("2013-05-03", "CC1", 5_000_000, kind="casino_cheque"),
            draw("2013-05-04", 2_000_000),
            dishonoured("2013-05-10", "CC1"),
        ),
        until="2013-05-10",
    )
    # C4e: the drawdown took the oldest non-credit money first (the cash), so the cheque's
    # S$50,000 is still whole when it is dishonoured
    assert status(r, "2013-05-09") == (True, "reg 3 + 4(1)", "2014-05-01", 13_000_000, 13_000_000)
    assert status(r, "2013-05-10") == (True, "reg 3 + 4(1)", "2014-05-01", 8_000_000, 8_000_000)
    assert "S$50,000 of it comes off the balance" in on(r, "2013-05-10").reason


def test_drawdown_takes_credit_first() -> None:
    """C4e: a drawdown takes credit-funded money first. A foreigner with S$60,000 of operator
    credit and S$60,000 cash draws S$50,000: S$10,000 credit and S$60,000 cash remain. On
    becoming a PR the credit stops counting (2A(1)(e)): the qualifying balance is S$60,000."""
    r = run(
        timeline(
            open_("2013-05-02"),
            dep("2013-05-02", 6_000_000, "credit_operator"),
            dep("2013-05-02", 6_000_000, "cash"),
            draw("2013-05-03", 5_000_000),
            becomes("2013-05-10", "pr"),
        ),
        until="2013-05-10",
    )
    assert (
        "(taken: S$50,000 on credit granted by the casino operator)" in on(r, "2013-05-03").reason
    )
    assert status(r, "2013-05-09")[3:] == (7_000_000, 7_000_000)
    assert status(r, "2013-05-10")[3:] == (7_000_000, 6_000_000)


# --- residency (reg 4(3)) ------------------------------------------------------------------


def _foreign_premium(*more: dict[str, object]) -> dict[str, object]:
    return timeline(open_("2013-04-01"), dep("2013-04-01", 2 * S100K), *more)


def test_foreigner_becomes_pr_without_a_new_deposit() -> None:
    """Reg 4(3) (the catalog's example): a foreign premium player with S$200,000 in cash
    becomes a PR on 10 Jun 2013 and provides no new deposit: the status ceases "upon his
    becoming" a PR, on 10 Jun itself (C4d), although the existing balance is above the
    minimum (an existing balance is not a new deposit). A cash deposit on 1 Jul does not bring
    it back: 4(2) cannot undo a 4(3) cessation, and a fresh reg 3 qualification needs a new
    account (C6); with ``sg_reg3_requires_new_account`` false, that top-up qualifies afresh."""
    doc = _foreign_premium(becomes("2013-06-10", "pr"), dep("2013-07-01", S100K))
    r = run(doc, until="2013-07-01")
    assert status(r, "2013-06-09") == (True, "reg 3 + 4(1)", "2014-03-31", 2 * S100K, 2 * S100K)
    assert status(r, "2013-06-10") == (False, "reg 4(3)", None, 2 * S100K, 2 * S100K)
    assert status(r, "2013-07-01") == (False, "reg 4(3)", None, 3 * S100K, 3 * S100K)
    assert periods(r) == [("2013-04-01", "2014-03-31", "reg 3 + 4(1)", "2013-06-10", "reg 4(3)")]
    assert "needs a newly opened account" in on(r, "2013-07-01").reason
    loose = run(doc, until="2013-07-01", sg_reg3_requires_new_account=False)
    assert status(loose, "2013-07-01") == (True, "reg 3 + 4(1)", "2014-06-30", 3 * S100K, 3 * S100K)


def test_foreigner_becomes_pr_with_a_qualifying_new_deposit() -> None:
    """Reg 4(3): a new deposit on becoming a PR, in the forms of 2A(1)(a)-(d), that satisfies
    the minimum balance keeps the status "for a period of 12 months starting from the date he
    so provides" it: 10 Jun 2013 to 9 Jun 2014, replacing the period to 31 Mar 2014."""
    r = run(
        _foreign_premium(becomes("2013-06-10", "pr"), dep("2013-06-10", S100K, "bank_draft")),
        until="2014-06-10",
    )
    assert status(r, "2013-06-10") == (True, "reg 4(3)", "2014-06-09", 3 * S100K, 3 * S100K)
    assert status(r, "2014-06-10") == (True, "reg 4(4)", "2015-06-09", 3 * S100K, 3 * S100K)
    assert periods(r)[:2] == [
        ("2013-04-01", "2014-03-31", "reg 3 + 4(1)", "2013-06-10", "reg 4(3)"),
        ("2013-06-10", "2014-06-09", "reg 4(3)", "2014-06-10", "reg 4(4)"),
    ]


def test_new_deposit_below_the_minimum_under_both_readings() -> None:
    """A new S$50,000 on top of S$200,000: under the default reading
    (``reg4_3_new_deposit_must_meet_minimum``) the new deposit itself must satisfy the
    minimum, so the status ceases; under the other reading the balance after it suffices."""
    doc = _foreign_premium(becomes("2013-06-10", "pr"), dep("2013-06-10", 5_000_000))
    assert status(run(doc, until="2013-06-10"), "2013-06-10")[:3] == (False, "reg 4(3)", None)
    loose = run(doc, until="2013-06-10", reg4_3_new_deposit_must_meet_minimum=False)
    assert status(loose, "2013-06-10")[:3] == (True, "reg 4(3)", "2014-06-09")


def test_new_deposit_on_credit_does_not_save_a_new_pr() -> None:
    """4(3) names the forms of 2A(1)(a)-(d): credit cannot be the new deposit, and a PR may
    not deposit credit at all (SG10.R2A.1e)."""
    r = run(
        _foreign_premium(becomes("2013-06-10", "pr"), dep("2013-06-10", S100K, "credit_ima")),
        until="2013-06-10",
    )
    assert status(r, "2013-06-10") == (False, "reg 4(3)", None, 3 * S100K, 2 * S100K)
    assert findings(r) == [("SG10.R2A.1e", "2013-06-10")]


def test_residency_list_alone_triggers_4_3() -> None:
    """A change given only in ``residency`` applies from the start of its day, with the same
    effect as a ``residency_change`` event (accounts.md lists both)."""
    doc = _foreign_premium(draw("2013-06-20", 1))
    doc["residency"].append({"from": "2013-06-10", "value": "citizen"})
    r = run(doc, until="2013-06-10")
    assert status(r, "2013-06-10")[:2] == (False, "reg 4(3)")
    assert on(r, "2013-06-10").reason.startswith("became a citizen of Singapore")


def test_pr_becoming_citizen_keeps_the_status() -> None:
    """4(3)(a) covers only a patron "who is neither a citizen ... nor a permanent resident":
    a PR who becomes a citizen keeps the status."""
    r = run(
        timeline(
            open_("2013-04-01"), dep("2013-04-01", S100K), becomes("2013-06-10", "citizen"),
            residency="pr",
        ),
        until="2013-06-10",
    )  # fmt: skip
    assert status(r, "2013-06-10")[:3] == (True, "reg 3 + 4(1)", "2014-03-31")


# --- closure (reg 4(6)) and a new account --------------------------------------------------


def test_closure_then_a_new_account() -> None:
    """4(6): closing the account ends the status "immediately upon the closing" (C4d: on the
    day). The balance is paid out. A new account with S$100,000 on 5 Mar qualifies afresh
    under reg 3 (a new account, as C6 asks), with a new 12-month period."""
    r = run(
        timeline(
            open_("2013-01-10"),
            dep("2013-01-10", 2 * S100K),
            close("2013-03-01"),
            open_("2013-03-05"),
            dep("2013-03-05", S100K),
        ),
        until="2013-03-05",
    )
    assert status(r, "2013-02-28") == (True, "reg 3 + 4(1)", "2014-01-09", 2 * S100K, 2 * S100K)
    assert status(r, "2013-03-01") == (False, "reg 4(6)", None, 0, 0)
    assert status(r, "2013-03-04") == (False, "reg 4(6)", None, 0, 0)
    assert status(r, "2013-03-05") == (True, "reg 3 + 4(1)", "2014-03-04", S100K, S100K)
    assert periods(r) == [
        ("2013-01-10", "2014-01-09", "reg 3 + 4(1)", "2013-03-01", "reg 4(6)"),
        ("2013-03-05", "2014-03-04", "reg 3 + 4(1)", None, None),
    ]


def test_closure_and_a_new_account_on_the_same_day() -> None:
    """Events of one day apply in file order: the old status ends on closing, the new account
    qualifies at the end of the day."""
    r = run(
        timeline(
            open_("2013-01-10"),
            dep("2013-01-10", S100K),
            close("2013-03-01"),
            open_("2013-03-01"),
            dep("2013-03-01", S100K),
        ),
        until="2013-03-01",
    )
    assert status(r, "2013-03-01") == (True, "reg 3 + 4(1)", "2014-02-28", S100K, S100K)
    assert [p[3:] for p in periods(r)] == [("2013-03-01", "reg 4(6)"), (None, None)]


def test_new_account_after_a_lapse_qualifies_under_reg_3() -> None:
    """C6: after a lapse beyond 4(2)'s reach, a newly opened account is the way back."""
    r = run(
        timeline(
            open_("2013-01-10"),
            dep("2013-01-10", S100K),
            draw("2013-01-11", S100K),
            close("2014-03-01"),
            open_("2014-03-02"),
            dep("2014-03-02", S100K),
        ),
        until="2014-03-02",
    )
    assert status(r, "2014-01-10")[:2] == (False, "reg 4(5)")
    assert status(r, "2014-03-01")[:2] == (False, "reg 4(6)")
    assert status(r, "2014-03-02")[:3] == (True, "reg 3 + 4(1)", "2015-03-01")


# --- renewals (reg 4(4), C1) ---------------------------------------------------------------


def test_chained_renewals() -> None:
    """4(4)(a) then (c), "and so on": S$100,000 left untouched from 31 Jan 2013 renews on
    every anniversary: 31 Jan 2014, 31 Jan 2015, 31 Jan 2016, each period ending the day
    before the next anniversary (C1)."""
    r = run(timeline(open_("2013-01-31"), dep("2013-01-31", S100K)), until="2016-02-01")
    assert periods(r) == [
        ("2013-01-31", "2014-01-30", "reg 3 + 4(1)", "2014-01-31", "reg 4(4)"),
        ("2014-01-31", "2015-01-30", "reg 4(4)", "2015-01-31", "reg 4(4)"),
        ("2015-01-31", "2016-01-30", "reg 4(4)", "2016-01-31", "reg 4(4)"),
        ("2016-01-31", "2017-01-30", "reg 4(4)", None, None),
    ]
    assert all(d.premium_player for d in r.days)


def test_renewal_after_a_4_2_restart_uses_the_4_2_anniversary() -> None:
    """4(4)(b): after a 4(2) restart the next renewal test falls on the anniversary of the 4(2)
    date, not of the first qualification (the catalog's example of testing the wrong
    anniversary). Balance below the minimum on the old anniversary does not matter."""
    r = run(
        timeline(
            open_("2013-01-10"),
            dep("2013-01-10", S100K),
            draw("2013-03-01", 1_000_000),
            dep("2013-03-15", 1_000_000),
            draw("2014-01-05", 1_000_000),
            dep("2014-02-01", 1_000_000),
        ),
        until="2014-03-15",
    )
    assert status(r, "2014-01-10")[:3] == (True, "reg 4(2)", "2014-03-14")
    assert status(r, "2014-02-01")[:3] == (True, "reg 4(2)", "2015-01-31")
    assert status(r, "2014-03-15")[:3] == (True, "reg 4(2)", "2015-01-31")


def test_leap_day_start_follows_calendar_months() -> None:
    """C1 with calendar arithmetic (dateutil): a period starting 29 Feb 2012 has its
    anniversary on 28 Feb 2013 (there is no 29 Feb), so its last day is 27 Feb 2013; the
    renewed period starts on 28 Feb 2013 and keeps that date (4(4)(c): the day after the end
    of the further period)."""
    r = run(timeline(open_("2012-02-29"), dep("2012-02-29", S100K)), until="2014-02-28")
    assert periods(r)[:3] == [
        ("2012-02-29", "2013-02-27", "reg 3 + 4(1)", "2013-02-28", "reg 4(4)"),
        ("2013-02-28", "2014-02-27", "reg 4(4)", "2014-02-28", "reg 4(4)"),
        ("2014-02-28", "2015-02-27", "reg 4(4)", None, None),
    ]


def test_topup_on_the_anniversary_is_a_4_2_restart() -> None:
    """A balance below the minimum restored by a deposit on the anniversary itself meets both
    4(2) and 4(4); both give a period from that day. The replay names 4(2), since the top-up
    ends a spell below the minimum."""
    r = run(
        timeline(
            open_("2013-01-10"),
            dep("2013-01-10", S100K),
            draw("2013-06-01", 1),
            dep("2014-01-10", 1),
        ),
        until="2014-01-10",
    )
    assert status(r, "2014-01-09")[:3] == (True, "reg 3 + 4(1)", "2014-01-09")
    assert status(r, "2014-01-10")[:3] == (True, "reg 4(2)", "2015-01-09")


# --- the 12-month boundary of reg 2B under both readings (C4, C5, C6) -----------------------


BOUNDARY = [
    # (sg_4_2_literal, sg_reg3_requires_new_account, top-up day, expected status that day)
    (True, True, "2014-07-15", (True, "reg 4(2)", "2015-07-14")),
    (True, True, "2014-07-16", (False, "reg 4(5)", None)),
    (True, False, "2014-07-15", (True, "reg 4(2)", "2015-07-14")),
    (True, False, "2014-07-16", (True, "reg 3 + 4(1)", "2015-07-15")),
    (False, True, "2014-07-15", (False, "reg 4(5)", None)),
    (False, True, "2014-07-16", (False, "reg 4(5)", None)),
    (False, False, "2014-07-15", (True, "reg 3 + 4(1)", "2015-07-14")),
    (False, False, "2014-07-16", (True, "reg 3 + 4(1)", "2015-07-15")),
]


@pytest.mark.parametrize(("literal", "new_account", "topup", "expected"), BOUNDARY)
def test_2b_boundary_after_a_lapse(
    literal: bool, new_account: bool, topup: str, expected: tuple[bool, str, str | None]
) -> None:
    """The catalog's SG10.R2B case: qualified on 1 Jul 2013, the balance falls below the
    minimum on 15 Jul 2013 and the status lapses on the anniversary, 1 Jul 2014 (4(5)). A
    top-up to S$100,000 on 15 Jul 2014 ends a spell of 15 Jul 2013 .. 14 Jul 2014, which "does
    not exceed a continuous period of 12 months" (C4: restored on start + 12 months); on
    16 Jul 2014 it does exceed it.
    - sg_4_2_literal (C5) true: 4(2) revives the lapsed status on 15 Jul but not on 16 Jul;
      false: 4(2) never revives a lapsed status.
    - sg_reg3_requires_new_account (C6) true: without 4(2), a top-up of this account does
      nothing; false: it qualifies afresh under reg 3 (a new 12-month period from that day).
    """
    r = run(
        timeline(
            open_("2013-07-01"),
            dep("2013-07-01", S100K),
            draw("2013-07-15", S100K),
            dep(topup, S100K),
        ),
        until=topup,
        sg_4_2_literal=literal,
        sg_reg3_requires_new_account=new_account,
    )
    assert status(r, "2014-06-30")[:3] == (True, "reg 3 + 4(1)", "2014-06-30")
    assert status(r, "2014-07-01")[:3] == (False, "reg 4(5)", None)
    assert status(r, topup)[:3] == expected


@pytest.mark.parametrize(
    ("topup", "expected"),
    [
        ("2013-07-10", (True, "reg 4(2)", "2014-07-09")),
        ("2013-07-11", (True, "reg 3 + 4(1)", "2013-12-31")),
    ],
)
def test_2b_boundary_within_a_period_when_the_limit_is_6_months(
    topup: str, expected: tuple[bool, str, str]
) -> None:
    """The regulator's what-if ``max_below_months = 6``: a spell from 10 Jan 2013 restored on
    10 Jul 2013 (start + 6 months) restarts the period under 4(2); restored a day later it
    does not, and the running period keeps its last day (4(1) "unless otherwise expressly
    provided in this regulation": 2B limits 4(2), it does not end a current period)."""
    r = run(
        timeline(
            open_("2013-01-01"),
            dep("2013-01-01", S100K),
            draw("2013-01-10", 1),
            dep(topup, 1),
        ),
        until=topup,
        max_below_months=6,
    )
    assert status(r, topup)[:3] == expected


def test_2b_milestone_is_marked_on_the_day_after_the_limit() -> None:
    """The table marks the first day a spell exceeds reg 2B (start + 12 months + 1 day)."""
    r = run(
        timeline(open_("2013-07-01"), dep("2013-07-01", S100K), draw("2013-07-15", S100K)),
        until="2014-07-17",
    )
    marked = [d.date.isoformat() for d in r.days if "(reg 2B)" in d.reason]
    assert marked == ["2014-07-16"]
    assert on(r, "2014-07-16").changed and not on(r, "2014-07-17").changed
