"""``twin account``, run as a real subprocess: the three Illustrations of the Singapore Casino
Control (Credit) Regulations 2010 exactly, the output formats of accounts.md, and one-line input
errors with exit code 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "accounts"
S100K = 10_000_000


def twin(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # this checkout's package, whichever folder the command runs from
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "twin", *map(str, args)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )


def account_json(file: Path, *args: str) -> dict[str, Any]:
    p = twin("account", file, "--json", *args)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


def dates(first: str, last: str) -> list[str]:
    a, b = date.fromisoformat(first), date.fromisoformat(last)
    return [(a + timedelta(days=i)).isoformat() for i in range((b - a).days + 1)]


def by_date(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["date"]: d for d in doc["days"]}


# --- the Illustrations ---------------------------------------------------------------------


def test_illustration_1() -> None:
    """Patron A deposits $100,000 on 2 Jan 2012 and qualifies that day (reg 3); draws down
    $100,000 on 4 Jan 2012 (balance $0) and keeps the status, which "will cease on 1st January
    2013" (reg 4(1), C1: the period's last day is 2 Jan 2012 + 12 months - 1 day). On 2 Jan
    2013, the anniversary, the balance is $0: no renewal under 4(4), the status has lapsed."""
    doc = account_json(DATA / "illustration_1.json", "--until", "2013-01-03")
    assert doc["patron"] == "A"
    assert [d["date"] for d in doc["days"]] == dates("2012-01-02", "2013-01-03")
    assert len(doc["days"]) == 368  # 2012 is a leap year
    days = by_date(doc)
    for d in dates("2012-01-02", "2013-01-01"):
        assert days[d]["premium_player"] is True, d
        assert days[d]["basis"] == "reg 3 + 4(1)"
        assert days[d]["period_last_day"] == "2013-01-01"
        want = S100K if d < "2012-01-04" else 0
        assert (days[d]["balance_cents"], days[d]["qualifying_balance_cents"]) == (want, want)
    for d in ("2013-01-02", "2013-01-03"):
        assert days[d]["premium_player"] is False
        assert days[d]["basis"] == "reg 4(5)"
        assert days[d]["period_last_day"] is None
        assert days[d]["balance_cents"] == 0
    assert days["2012-01-02"]["reason"] == (
        "opened a deposit account; deposited S$100,000 in cash; the account's qualifying "
        "balance of S$100,000 meets the minimum balance of S$100,000: qualifies as a premium "
        "player (reg 3) for 12 months, to 2013-01-01 (reg 4(1))"
    )
    assert days["2012-01-04"]["reason"].startswith("drew down S$100,000; ")
    assert doc["periods"] == [
        {
            "start": "2012-01-02",
            "last_day": "2013-01-01",
            "basis": "reg 3 + 4(1)",
            "ended": "2013-01-02",
            "end_basis": "reg 4(5)",
        }
    ]
    assert doc["findings"] == []


def test_illustration_1_closure_is_the_earlier_end(tmp_path: Path) -> None:
    """Illustration 1: the status ceases on 1 Jan 2013 "or upon the closure of Patron A's
    account ..., whichever is the earlier". Closing on 1 Jun 2012 ends it that day (4(6), C4d:
    an event-driven cessation takes effect on the event day)."""
    src = json.loads((DATA / "illustration_1.json").read_text())
    src["events"].append({"date": "2012-06-01", "type": "close_account"})
    f = tmp_path / "closed.json"
    f.write_text(json.dumps(src))
    days = by_date(account_json(f, "--until", "2012-06-02"))
    assert days["2012-05-31"]["premium_player"] is True
    for d in ("2012-06-01", "2012-06-02"):
        assert days[d]["premium_player"] is False
        assert days[d]["basis"] == "reg 4(6)"


def test_illustration_2a() -> None:
    """Patron B deposits $100,000 on 2 Jan 2012 (qualifies, reg 3), draws down $20,000 on
    4 Jan 2012 (balance $80,000, below the minimum) and deposits $30,000 on 6 Jan 2012
    (balance $110,000): he "re-qualifies as a premium player on 6th January 2012" under 4(2),
    and the status "will cease on 5th January 2013" (6 Jan 2012 + 12 months - 1 day)."""
    doc = account_json(DATA / "illustration_2a.json", "--until", "2013-01-05")
    days = by_date(doc)
    assert [d["date"] for d in doc["days"]] == dates("2012-01-02", "2013-01-05")
    expect = {
        "2012-01-02": (S100K, True, "reg 3 + 4(1)", "2013-01-01"),
        "2012-01-03": (S100K, True, "reg 3 + 4(1)", "2013-01-01"),
        "2012-01-04": (8_000_000, True, "reg 3 + 4(1)", "2013-01-01"),
        "2012-01-05": (8_000_000, True, "reg 3 + 4(1)", "2013-01-01"),
        "2012-01-06": (11_000_000, True, "reg 4(2)", "2013-01-05"),
    }
    for d, (bal, premium, basis, last) in expect.items():
        got = days[d]
        assert (
            got["balance_cents"],
            got["premium_player"],
            got["basis"],
            got["period_last_day"],
        ) == (bal, premium, basis, last), d
    for d in dates("2012-01-06", "2013-01-05"):
        assert days[d]["premium_player"] is True
        assert days[d]["period_last_day"] == "2013-01-05"
    assert days["2012-01-06"]["reason"] == (
        "deposited S$30,000 in cash; an additional deposit brings the balance back to "
        "S$110,000, ending the spell below the minimum from 2012-01-04 within reg 2B: premium "
        "player for 12 months from today, to 2013-01-05 (reg 4(2))"
    )
    assert doc["periods"] == [
        {
            "start": "2012-01-02",
            "last_day": "2013-01-01",
            "basis": "reg 3 + 4(1)",
            "ended": "2012-01-06",
            "end_basis": "reg 4(2)",
        },
        {
            "start": "2012-01-06",
            "last_day": "2013-01-05",
            "basis": "reg 4(2)",
            "ended": None,
            "end_basis": None,
        },
    ]
    assert doc["findings"] == []


def test_illustration_2b() -> None:
    """Patron B (of 2A) does nothing after 6 Jan 2012. The balance is $110,000 on 5 Jan 2013
    (the last day of the 4(2) period) and on 6 Jan 2013, the anniversary of the 4(2) date: he
    "re-qualifies as a premium player on 6th January 2013 without having to furnish another
    $100,000" (4(4)(b)), for a further period to 5 Jan 2014."""
    doc = account_json(DATA / "illustration_2b.json", "--until", "2013-01-07")
    days = by_date(doc)
    assert days["2013-01-05"] == {
        "date": "2013-01-05",
        "balance_cents": 11_000_000,
        "qualifying_balance_cents": 11_000_000,
        "premium_player": True,
        "basis": "reg 4(2)",
        "period_last_day": "2013-01-05",
        "reason": "no change: premium player until 2013-01-05 (reg 4(2))",
    }
    assert days["2013-01-06"] == {
        "date": "2013-01-06",
        "balance_cents": 11_000_000,
        "qualifying_balance_cents": 11_000_000,
        "premium_player": True,
        "basis": "reg 4(4)",
        "period_last_day": "2014-01-05",
        "reason": "the balance of S$110,000 on the anniversary is at least S$100,000: premium "
        "player for a further 12 months, to 2014-01-05 (reg 4(4))",
    }
    assert days["2013-01-07"]["basis"] == "reg 4(4)"
    assert [(p["start"], p["last_day"], p["basis"], p["ended"]) for p in doc["periods"]] == [
        ("2012-01-02", "2013-01-01", "reg 3 + 4(1)", "2012-01-06"),
        ("2012-01-06", "2013-01-05", "reg 4(2)", "2013-01-06"),
        ("2013-01-06", "2014-01-05", "reg 4(4)", None),
    ]
    assert doc["periods"][1]["end_basis"] == "reg 4(4)"


# --- formats -------------------------------------------------------------------------------


def test_default_until_is_the_last_event_plus_13_months() -> None:
    doc = account_json(DATA / "illustration_2a.json")
    assert doc["days"][0]["date"] == "2012-01-02"
    assert doc["days"][-1]["date"] == "2013-02-06"  # 6 Jan 2012 + 13 months
    assert set(doc) == {"patron", "days", "periods", "findings"}
    assert set(doc["days"][0]) == {
        "date",
        "balance_cents",
        "qualifying_balance_cents",
        "premium_player",
        "basis",
        "period_last_day",
        "reason",
    }


def test_text_table_has_a_line_for_each_day_that_changed() -> None:
    p = twin("account", DATA / "illustration_1.json", "--until", "2013-01-10")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("Premium-player status of patron A")
    table = [line for line in lines if line[:4] in ("date", "2012", "2013")]
    assert [line.split()[0] for line in table] == [
        "date",
        "2012-01-02",
        "2012-01-04",
        "2013-01-02",
        "2013-01-05",
    ]
    assert table[2].split()[1:6] == ["S$0", "S$0", "yes", "reg", "3"]
    assert "no longer a premium player (reg 4(5))" in table[3]
    assert "reg 4(2) can no longer apply (reg 2B)" in table[4]
    assert "  2012-01-02 to 2013-01-01 (reg 3 + 4(1)); ended 2013-01-02 (reg 4(5))" in lines
    assert lines[-2:] == ["Findings:", "  none"]


def test_overrides_in_the_file_change_the_replay(tmp_path: Path) -> None:
    """A regulator's what-if: with a minimum balance of S$150,000, Patron A's S$100,000 does
    not qualify."""
    src = json.loads((DATA / "illustration_1.json").read_text())
    src["overrides"] = {"min_balance_cents": 15_000_000}
    f = tmp_path / "raised.json"
    f.write_text(json.dumps(src))
    doc = account_json(f, "--until", "2012-01-03")
    assert [d["premium_player"] for d in doc["days"]] == [False, False]
    assert doc["days"][0]["basis"] == "reg 3"
    assert doc["periods"] == []
    p = twin("account", f, "--until", "2012-01-02")
    assert "overridden: min_balance_cents=15000000" in p.stdout


# --- input errors --------------------------------------------------------------------------


def _write(tmp_path: Path, doc: object) -> Path:
    f = tmp_path / "timeline.json"
    f.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return f


def _base(*extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "patron": "P-0001",
        "residency": [{"from": "2013-04-01", "value": "foreigner"}],
        "events": [
            {"date": "2013-04-01", "type": "open_account"},
            {"date": "2013-04-01", "type": "deposit", "form": "cash", "amount_cents": 20000000},
            *extra,
        ],
    }


@pytest.mark.parametrize(
    ("doc", "key", "expected", "found"),
    [
        (
            _base({"date": "2013-02-30", "type": "drawdown", "amount_cents": 100}),
            "events[2].date",
            "an ISO calendar date YYYY-MM-DD",
            "'2013-02-30'",
        ),
        (
            _base({"date": "2013-04-02", "type": "withdrawal", "amount_cents": 100}),
            "events[2].type",
            "one of 'open_account', 'close_account', 'deposit'",
            "'withdrawal'",
        ),
        (
            _base({"date": "2013-04-02", "type": "deposit", "form": "cash", "amount_cents": -5}),
            "events[2].amount_cents",
            "a positive whole number of cents",
            "-5",
        ),
        (
            _base({"date": "2013-04-02", "type": "cheque_cleared", "ref": "PC9"}),
            "events[2].ref",
            "the ref of a cheque received into the open account",
            "'PC9'",
        ),
        (
            _base({"date": "2013-04-02", "type": "deposit", "form": "gold", "amount_cents": 5}),
            "events[2].form",
            "one of 'cash'",
            "'gold'",
        ),
        (
            _base({"date": "2013-04-02", "type": "drawdown", "amount_cents": 20000001}),
            "events[2].amount_cents",
            "at most the balance of the account (20000000 cents)",
            "20000001",
        ),
        (
            _base({"date": "2013-03-31", "type": "drawdown", "amount_cents": 1}),
            "events[2].date",
            "a date on or after 2013-04-01 (events are in date order)",
            "'2013-03-31'",
        ),
        (
            {**_base(), "overrides": {"sg_4_2_literal": "yes"}},
            "overrides.sg_4_2_literal",
            "a boolean (true or false)",
            "'yes'",
        ),
        (
            {**_base(), "residency": [{"from": "2013-04-01", "value": "tourist"}]},
            "residency[0].value",
            "one of 'foreigner', 'citizen', 'pr'",
            "'tourist'",
        ),
        (
            {
                **_base(),
                "events": [
                    {"date": "2013-04-01", "type": "deposit", "form": "cash", "amount_cents": 1}
                ],
            },
            "events[0].type",
            "an open_account before any other account event",
            "'deposit'",
        ),
        (
            _base({"date": "2013-04-02", "type": "residency_change", "to": "foreigner"}),
            "events[2].to",
            "a residency other than foreigner",
            "'foreigner'",
        ),
    ],
    ids=[
        "bad-date",
        "unknown-type",
        "negative-amount",
        "unknown-cheque",
        "unknown-form",
        "overdrawn",
        "out-of-order",
        "bad-override",
        "bad-residency",
        "no-account",
        "same-residency",
    ],
)
def test_malformed_timeline_is_one_line_and_exit_2(
    tmp_path: Path, doc: dict[str, Any], key: str, expected: str, found: str
) -> None:
    f = _write(tmp_path, doc)
    p = twin("account", f)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert "Traceback" not in p.stderr
    assert lines[0].startswith(f"twin: error: {f}: {key}: expected {expected}")
    assert lines[0].endswith(f", found {found}")


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    f = _write(tmp_path, '{"patron": "P", "events": [}')
    p = twin("account", f)
    assert p.returncode == 2
    assert p.stderr == (
        f"twin: error: {f}: expected valid JSON, found Expecting value at line 1 column 28\n"
    )


def test_missing_file_and_bad_until(tmp_path: Path) -> None:
    p = twin("account", tmp_path / "nope.json")
    assert p.returncode == 2
    assert p.stderr.endswith("expected an existing timeline file, found no such file\n")
    for until, expected in (
        ("2013-13-01", "an ISO date YYYY-MM-DD"),
        ("2011-12-31", "a date on or after the first event (2012-01-02)"),
    ):
        p = twin("account", DATA / "illustration_1.json", "--until", until)
        assert p.returncode == 2
        assert p.stderr == (
            f"twin: error: command line: --until: expected {expected}, found '{until}'\n"
        )


# --- the README's examples are real --------------------------------------------------------


def _readme_block(command: str) -> str:
    """The console output the README shows under ``$ <command>``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"$ {command}\n") + len(command) + 3
    return text[start : text.index("```", start)]


def test_readme_example_table_is_the_real_output(tmp_path: Path) -> None:
    """The README's table is what accounts.md's example timeline gives (the README shows
    that timeline as ``timeline.json``; tests/test_readme.py runs the README's own copy)."""
    shutil.copy(DATA / "accounts_md_example.json", tmp_path / "timeline.json")
    command = "twin account timeline.json --until 2013-07-01"
    p = twin(*command.split()[1:], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == _readme_block(command)


def test_readme_example_error_is_the_real_message(tmp_path: Path) -> None:
    doc = json.loads((DATA / "accounts_md_example.json").read_text())
    doc["events"][3]["ref"] = "PC9"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    p = twin("account", "bad.json", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr == _readme_block("twin account bad.json")


def test_accounts_md_example_output() -> None:
    """accounts.md's example: S$200,000 cash qualifies on 1 Apr 2013 (reg 3 + 4(1), to
    31 Mar 2014); the patron becomes a PR on 10 Jun 2013 with no new deposit, so the period
    ends that day under 4(3) - the ``periods`` entry accounts.md shows."""
    doc = account_json(DATA / "accounts_md_example.json")
    assert doc["days"][0] == {
        "date": "2013-04-01",
        "balance_cents": 20000000,
        "qualifying_balance_cents": 20000000,
        "premium_player": True,
        "basis": "reg 3 + 4(1)",
        "period_last_day": "2014-03-31",
        "reason": "opened a deposit account; deposited S$200,000 in cash; the account's "
        "qualifying balance of S$200,000 meets the minimum balance of S$100,000: qualifies as "
        "a premium player (reg 3) for 12 months, to 2014-03-31 (reg 4(1))",
    }
    assert doc["periods"] == [
        {
            "start": "2013-04-01",
            "last_day": "2014-03-31",
            "basis": "reg 3 + 4(1)",
            "ended": "2013-06-10",
            "end_basis": "reg 4(3)",
        }
    ]
    assert doc["findings"] == []
    assert doc["days"][-1]["date"] == "2014-08-01"
