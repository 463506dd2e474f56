"""The deposit ledger by form (reg 2A; accounts.md C4b, C4c, C4e), and the catalog ids the
account replay cites."""

from __future__ import annotations

import tomllib
from datetime import date

import pytest
from conftest import REPO

from twin.accounts.ledger import Ledger, LedgerError
from twin.accounts.replay import DECIDED_CONTROLS, FINDING_CONTROLS

D = date(2013, 4, 1)


def test_drawdown_takes_credit_oldest_first_then_the_rest_in_deposit_order() -> None:
    led = Ledger()
    led.deposit("cash", 300, D, allowed=True)
    led.deposit("credit_ima", 200, D, allowed=True)
    led.deposit("chips", 100, D, allowed=True)
    led.deposit("credit_operator", 50, D, allowed=True)
    assert led.drawdown(400) == [("credit_ima", 200), ("credit_operator", 50), ("cash", 150)]
    assert led.by_form() == {"cash": 150, "chips": 100}
    assert led.drawdown(200) == [("cash", 150), ("chips", 50)]
    assert led.balance() == 50


def test_qualifying_balance_by_residency() -> None:
    """C4b: credit counts only while the patron is a foreigner, and money accepted in breach
    of 2A never counts."""
    led = Ledger()
    led.deposit("credit_operator", 500, D, allowed=True)
    led.deposit("cash", 300, D, allowed=True)
    led.deposit("credit_ima", 200, D, allowed=False)
    assert led.balance() == 1000
    assert led.qualifying("foreigner") == 800
    assert led.qualifying("pr") == led.qualifying("citizen") == 300


def test_cheques() -> None:
    """C4c: a personal cheque waits for clearance; a casino cheque counts on acceptance."""
    led = Ledger()
    assert led.receive_cheque("PC1", "personal_cheque", 700, D, allowed=True) is None
    assert led.balance() == 0
    assert led.pending() == ["PC1"]
    led.receive_cheque("CC1", "casino_cheque", 100, D, allowed=True)
    assert led.balance() == 100
    assert led.clear_cheque("PC1", D) == (700, True)
    assert led.balance() == 800
    assert led.clear_cheque("CC1", D) == (0, False)
    with pytest.raises(LedgerError, match="open refs: none"):
        led.clear_cheque("PC1", D)
    with pytest.raises(LedgerError, match="received before"):
        led.receive_cheque("PC1", "personal_cheque", 1, D, allowed=True)
    led.receive_cheque("PC2", "personal_cheque", 5, D, allowed=True)
    assert led.close() == (800, ["PC2"])
    assert led.balance() == 0 and led.pending() == []


def test_overdraw_is_refused() -> None:
    led = Ledger()
    led.deposit("cash", 10, D, allowed=True)
    with pytest.raises(LedgerError, match=r"at most the balance of the account \(10 cents\)"):
        led.drawdown(11)
    assert led.balance() == 10


def test_cited_controls_are_catalogued() -> None:
    with (REPO / "twin" / "data" / "controls.toml").open("rb") as f:
        ids = {c["id"] for c in tomllib.load(f)["control"]}
    assert set(FINDING_CONTROLS) | set(DECIDED_CONTROLS) <= ids
    sg10 = {i for i in ids if i.startswith("SG10.")}
    # every SG10 control is either checked as a finding, decided by the replay, or one of the
    # three deposit-form permissions a timeline cannot check (payee, issuer, chip provenance)
    assert sg10 - set(FINDING_CONTROLS) - set(DECIDED_CONTROLS) == {
        "SG10.R2A.1a",
        "SG10.R2A.1b",
        "SG10.R2A.1c",
    }
