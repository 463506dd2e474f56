"""`twin ledger retention`: until when a run's ledger must be kept (regs 37(3) and 43(1))."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

from twin.compliance.ruleset import load_ruleset
from twin.ledger_retention import RetentionClass, retention

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "scenarios" / "tiny.toml"


def _twin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], cwd=cwd, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip


def _cage_floor(tmp: Path) -> Path:
    """The tiny floor with a cage, from 28 February 2028 (a leap year), for two days."""
    text = TINY.read_text()
    for old, new in (
        ("start = 2026-03-02T10:00:00", "start = 2028-02-28T10:00:00"),
        ("duration_hours = 2.0", "duration_hours = 48.0"),
        ('game = "games/', f'game = "{TINY.parent.as_posix()}/games/'),
        ("crew = { attendant = 1, technician = 1, inspector = 1 }",
         "crew = { attendant = 1, technician = 1, inspector = 1, cashier = 1, "
         "chief_cashier = 1 }"),
    ):  # fmt: skip
        assert old in text, old
        text = text.replace(old, new)
    text = text.replace(
        "[[staff.shifts]]",
        """[[staff.roles]]
id = "attendant"
prefix = "ATT"
title = "Slot attendant"
[[staff.roles]]
id = "technician"
prefix = "TEC"
title = "Slot technician"
[[staff.roles]]
id = "inspector"
prefix = "INS"
title = "Board inspector"
employer = "board"
[[staff.roles]]
id = "cashier"
prefix = "CSH"
title = "Cashier"
[[staff.roles]]
id = "chief_cashier"
prefix = "CCH"
title = "Chief Cashier"

[[staff.shifts]]""",
        1,
    )
    text += "\n[cage]\nvisit_share = 0.6\nmethods = { cheque = 0.5, credit_card = 0.5 }\n"
    path = tmp / "cage-floor.toml"
    path.write_text(text)
    return path


def test_periods_are_calendar_years_from_the_record_or_the_last_entry() -> None:
    payments = RetentionClass("payment records", "reg 37(3)-(4)", "p", 5, False, 3,
                              date(2028, 2, 29), date(2028, 3, 1))  # fmt: skip
    assert payments.any_destroyable_from == date(2033, 2, 28)  # no 29 Feb in 2033
    assert payments.all_destroyable_from == date(2033, 3, 1)
    bound = RetentionClass("accounts", "reg 43(1)", "a", 10, True, 9,
                           date(2028, 2, 28), date(2028, 2, 29))  # fmt: skip
    assert bound.any_destroyable_from == bound.all_destroyable_from == date(2038, 2, 28)


def test_a_run_ledger_says_until_when_each_class_is_kept(tmp_path: Path) -> None:
    scenario = _cage_floor(tmp_path)
    run = _twin("run", str(scenario), "--out", str(tmp_path / "r"), "--no-progress", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    ledger = tmp_path / "r" / "ledger.sqlite"
    r = retention(ledger, load_ruleset("malta-1998", {}))
    pay, acc = r.classes
    assert pay.records > 0 and acc.records > 0
    assert pay.first == acc.first == date(2028, 2, 28)
    assert acc.last == date(2028, 3, 1)
    assert pay.any_destroyable_from == date(2033, 2, 28)
    assert acc.all_destroyable_from == r.destroyable_from == date(2038, 3, 1)
    got = _twin("ledger", "retention", str(ledger), "--as-of", "2038-02-28", "--json", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    assert doc["destroyable_from"] == "2038-03-01" and doc["may_be_destroyed"] is False
    assert [c["records"] for c in doc["classes"]] == [pay.records, acc.records]
    later = _twin("ledger", "retention", str(ledger), "--as-of", "2038-03-01", cwd=tmp_path)
    assert "on 2038-03-01: it may be destroyed" in later.stdout
    shorter = load_ruleset("malta-1998", {"accounts_retention_years": 6})
    assert retention(ledger, shorter).destroyable_from == date(2034, 3, 1)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = _twin("ledger", "retention", str(tmp_path / "none.sqlite"), cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    (tmp_path / "x.sqlite").write_text("not a ledger")
    bad = _twin("ledger", "retention", str(tmp_path / "x.sqlite"), cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    date_bad = _twin("ledger", "retention", str(tmp_path / "x.sqlite"), "--as-of", "31/12/2030",
                     cwd=tmp_path)  # fmt: skip
    assert date_bad.returncode == 2
    assert "--as-of: expected a date YYYY-MM-DD, found '31/12/2030'" in date_bad.stderr
