"""``twin smib compare``: a ledger checked against what the emulated SMIBs really sent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from twin.errors import InputError
from twin.hardware.protocol import event_digest
from twin.hardware.records import (
    SmibClosed,
    SmibCountersReset,
    SmibEvent,
    SmibEventConflict,
    SmibEventsLost,
    SmibMessageRejected,
    SmibOnline,
)
from twin.hardware.truth import (
    TruthLog,
    compare,
    compare_files,
    ranges,
    read_truth,
    split_series,
)
from twin.ledger import Ledger
from twin.records import Record

OK = "nothing missing, nothing doubled, nothing undeclared\n"


def digest(eid: int, tag: str = "") -> str:
    """The digest of a made-up event ``eid`` (``tag`` tells two contents apart)."""
    data = {"tag": tag} if tag else {}
    return event_digest(
        {"eid": eid, "code": 0x7F, "name": "game_ended", "epoch": 0, "deltas": {}, "data": data}
    )


def sent(eid: int, tag: str = "", *, phantom: bool = False, smib: str = "S-001") -> dict[str, Any]:
    return {
        "kind": "event",
        "smib": smib,
        "bd": 1,
        "eid": eid,
        "digest": digest(eid, tag),
        "code": 0x11 if phantom else 0x7F,
        "name": "slot_door_opened" if phantom else "game_ended",
        "phantom": phantom,
    }


class Book:
    """Records of one SMIB as a link would write them (seq numbered in order)."""

    def __init__(self, smib: str = "S-001") -> None:
        self.smib = smib
        self.recs: list[Record] = []

    def _add(self, cls: type[Record], **kw: Any) -> Book:
        self.recs.append(cls(seq=len(self.recs), t=float(len(self.recs)), smib=self.smib, **kw))
        return self

    def online(self, last_eid: int = 0, bd: int = 1) -> Book:
        return self._add(
            SmibOnline, bd=bd, serial="SN", program="p", denom_cents=25, paytable="g",
            last_eid=last_eid,
        )  # fmt: skip

    def event(self, eid: int, tag: str = "", series: int = 0) -> Book:
        return self._add(
            SmibEvent, eid=eid, bd=1, code=0x7F, name="game_ended", epoch=0, meters=(),
            deltas=(), data="{}", replay=False, series=series, digest=digest(eid, tag),
        )  # fmt: skip

    def lost(self, first: int, last: int, series: int = 0) -> Book:
        return self._add(
            SmibEventsLost, from_eid=first, to_eid=last, reason="replay asked 5 times",
            series=series,
        )  # fmt: skip

    def conflict(self, eid: int, first: str, second: str, series: int = 0) -> Book:
        return self._add(
            SmibEventConflict, series=series, eid=eid, bd=1, first_digest=digest(eid, first),
            second_digest=digest(eid, second), applied=True, code=0x7F, name="game_ended",
        )  # fmt: skip

    def too_large(self) -> Book:
        return self._add(
            SmibMessageRejected, topic="csn/v1/smib/S-001/up/evt", reason="too_large",
            detail="2000000 bytes; at most 8192 on evt",
        )  # fmt: skip

    def reset(self, old_eid: int, last_eid: int, series: int = 1) -> Book:
        return self._add(
            SmibCountersReset, old_series=series - 1, series=series, old_bd=3, bd=2,
            old_eid=old_eid, last_eid=last_eid, why="eid went back",
        )  # fmt: skip

    def closed(self, last_eid: int, series: int = 0) -> Book:
        return self._add(
            SmibClosed, series=series, last_eid=last_eid, online=True, applied=0, lost=0
        )

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.to_json()) for r in self.recs]


def line(**kw: int) -> str:
    c = {"sent": 0, "run": 0, "applied": 0, "lost": 0, "conflicts": 0, "refused": 0}
    c.update({"before": 0, "after": 0, **kw})
    forged = f" ({kw['forged']} forged)" if kw.get("forged") else ""
    return (
        f"S-001: sent {c['sent']}{forged}, in the run {c['run']}, applied {c['applied']}, "
        f"declared lost {c['lost']}, conflicts {c['conflicts']}, refused {c['refused']}, "
        f"before the run {c['before']}, after the run {c['after']}\n"
    )


def test_all_applied() -> None:
    book = Book().online().event(1).event(2).event(3).closed(3)
    r = compare(book.bodies(), [sent(1), sent(2), sent(3)])
    assert r.ok
    assert r.render() == line(sent=3, run=3, applied=3) + OK


def test_a_lost_range_is_declared() -> None:
    book = Book().online().event(1).event(2).lost(3, 4).event(5).closed(5)
    r = compare(book.bodies(), [sent(e) for e in range(1, 6)])
    assert r.render() == line(sent=5, run=5, applied=3, lost=2) + OK


def test_a_conflict_with_the_phantom_first() -> None:
    """The forged event came first and stands; the real one under its eid is refused as a
    conflict: both are declared."""
    book = Book().online().event(1).event(2, "forged").conflict(2, "forged", "").event(3)
    book.closed(3)
    truth = [sent(1), sent(2, "forged", phantom=True), sent(2), sent(3)]
    r = compare(book.bodies(), truth)
    assert r.render() == line(sent=4, forged=1, run=4, applied=2, conflicts=2) + OK


def test_a_phantom_refused_as_too_large() -> None:
    book = Book().online().event(1).too_large().event(2).event(3).closed(3)
    truth = [sent(1), sent(2, "forged", phantom=True), sent(2), sent(3)]
    r = compare(book.bodies(), truth)
    assert r.render() == line(sent=4, forged=1, run=4, applied=3, refused=1) + OK


def test_a_phantom_applied_without_a_conflict_is_a_problem() -> None:
    book = Book().online().event(1).event(2, "forged").closed(2)
    truth = [sent(1), sent(2, "forged", phantom=True), sent(2)]
    r = compare(book.bodies(), truth)
    assert not r.ok
    assert r.render() == (
        line(sent=3, forged=1, run=3, applied=1)
        + "S-001: eids 2: missing (neither applied nor declared)\n"
        + "S-001: eids 2: a forged event applied without a conflict\n"
    )


def test_a_doubled_event() -> None:
    book = Book().online().event(1).event(2).event(2).event(3).closed(3)
    r = compare(book.bodies(), [sent(1), sent(2), sent(3)])
    assert r.render() == line(sent=3, run=3, applied=2) + "S-001: eids 2: applied twice\n"
    assert [(p.kind, p.eids) for p in r.problems] == [("doubled", (2,))]


def test_a_missing_event() -> None:
    book = Book().online().event(1).event(2).event(5).closed(6)
    r = compare(book.bodies(), [sent(e) for e in range(1, 7)])
    assert r.render() == (
        line(sent=6, run=6, applied=3)
        + "S-001: eids 3..4, 6: missing (neither applied nor declared)\n"
    )
    assert r.to_json()["problems"] == [
        {"smib": "S-001", "kind": "missing", "series": 0, "eids": [3, 4, 6]}
    ]


def test_a_foreign_event_is_undeclared() -> None:
    book = Book().online().event(1).event(2, "never sent").closed(2)
    r = compare(book.bodies(), [sent(1)])
    assert r.render() == line(sent=1, run=1, applied=1) + (
        "S-001: eids 2: applied but never sent (undeclared)\n"
    )


def test_a_counters_reset_makes_two_series() -> None:
    """The board came back from a backup taken after event 2, having sent 1..4: it sends
    3..5 again (other content); the ledger's series 1 starts after the reset's last_eid."""
    book = Book().online()
    for e in range(1, 5):
        book.event(e)
    book.reset(old_eid=4, last_eid=2)
    for e in range(3, 6):
        book.event(e, "again", series=1)
    book.closed(5, series=1)
    truth = [sent(e) for e in range(1, 5)] + [sent(e, "again") for e in range(3, 6)]
    assert [[e["eid"] for e in s] for s in split_series(truth)] == [[1, 2, 3, 4], [3, 4, 5]]
    r = compare(book.bodies(), truth)
    assert r.render() == line(sent=7, run=7, applied=7) + OK
    # the same events all in series 0 of the ledger: the second copies are missing
    flat = Book().online()
    for e in range(1, 5):
        flat.event(e)
    flat.closed(4)
    r = compare(flat.bodies(), truth)
    assert r.render() == line(sent=7, run=4, applied=4, after=3) + OK


def test_events_before_the_birth_and_after_smib_closed_are_not_checked() -> None:
    book = Book().online(last_eid=2).event(3).closed(4)
    r = compare(book.bodies(), [sent(e) for e in range(1, 8)])
    assert r.render() == (
        line(sent=7, run=2, applied=1, before=2, after=3)
        + "S-001: eids 4: missing (neither applied nor declared)\n"
    )


def test_a_smib_never_online_and_a_run_cut_short() -> None:
    r = compare(Book().online().event(1).bodies(), [sent(1), sent(2), sent(1, smib="S-002")])
    assert r.render() == (
        line(sent=2, run=1, applied=1, after=1)
        + "S-002: sent 1, in the run 0, applied 0, declared lost 0, conflicts 0, refused 0, "
        "before the run 0, after the run 1\n"
        "S-001: the ledger has no smib_closed (a run cut short): its last window ends at the "
        "last eid applied or declared lost\n"
        "S-002: never online in the ledger\n"
    )


def test_ranges() -> None:
    assert ranges([61, 60, 3, 1, 2, 9]) == "1..3, 9, 60..61"
    assert ranges([]) == ""


def test_truth_log_lines(tmp_path: Path) -> None:
    path = tmp_path / "truth.jsonl"
    log = TruthLog(path)
    evt = {"eid": 4, "code": 0x7F, "name": "game_ended", "epoch": 0, "deltas": {}, "data": {}}
    log.birth("S-001", 2, 3)
    log.event("S-001", 2, evt)
    log.restore("S-001", 9, 4, 3)
    assert path.read_text().splitlines() == [  # flushed per line, before it is closed
        '{"kind":"birth","smib":"S-001","bd":2,"last_eid":3}',
        '{"kind":"event","smib":"S-001","bd":2,"eid":4,"digest":"'
        + event_digest(evt)
        + '","code":127,"name":"game_ended","phantom":false}',
        '{"kind":"restore","smib":"S-001","from_eid":9,"to_eid":4,"bd":3}',
    ]
    log.close()
    assert len(read_truth(path)) == 3
    bad = {
        '{"kind":"event","smib":"S-001","eid":"4","digest":"ab"}': "line 1: eid: expected a "
        "whole number, found '4'",
        '{"kind":"event","smib":"S-001","eid":4}': "line 1: expected the key 'digest', found "
        '\'{"kind":"event","smib":"S-001","eid":4}\'',
        "[1]": "line 1: expected an event, birth or restore line, found '[1]'",
    }
    for text, message in bad.items():
        path.write_text(text + "\n")
        with pytest.raises(InputError) as info:
            read_truth(path)
        assert str(info.value) == f"{path}: {message}"
    with pytest.raises(InputError, match=r"--truth: expected a file that can be written"):
        TruthLog(tmp_path / "no-such-folder" / "t.jsonl")


def _write_ledger(path: Path, book: Book) -> None:
    with Ledger(path) as ledger:
        for rec in book.recs:
            ledger.accept(rec)


def _write_truth(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_compare_files_reads_a_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "run.incomplete"
    run.mkdir()
    _write_ledger(run / "ledger.sqlite", Book().online().event(1).closed(1))
    _write_truth(tmp_path / "t.jsonl", [{"kind": "birth", "smib": "S-001", "bd": 1}, sent(1)])
    assert compare_files(run, tmp_path / "t.jsonl").ok
    assert compare_files(run / "ledger.sqlite", tmp_path / "t.jsonl").ok
    with pytest.raises(InputError, match=r"a run folder with a ledger.sqlite, or a ledger"):
        compare_files(tmp_path, tmp_path / "t.jsonl")


def _twin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], capture_output=True, text=True, timeout=60
    )


def test_smib_compare_cli_exit_codes(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.sqlite"
    _write_ledger(ledger, Book().online().event(1).event(2).closed(3))
    good, bad, broken = tmp_path / "good.jsonl", tmp_path / "bad.jsonl", tmp_path / "x.jsonl"
    _write_truth(good, [sent(1), sent(2)])
    _write_truth(bad, [sent(1), sent(2), sent(3)])
    broken.write_text(json.dumps(sent(1)) + "\n{not json\n")

    proc = _twin("smib", "compare", str(ledger), "--truth", str(good))
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        line(sent=2, run=2, applied=2) + OK,
        "",
    )
    proc = _twin("smib", "compare", str(ledger), "--truth", str(bad))
    assert (proc.returncode, proc.stdout) == (
        1,
        line(sent=3, run=3, applied=2) + "S-001: eids 3: missing (neither applied nor declared)\n",
    )
    proc = _twin("smib", "compare", str(ledger), "--truth", str(bad), "--json")
    doc = json.loads(proc.stdout)
    assert (proc.returncode, doc["ok"], doc["problems"]) == (
        1,
        False,
        [{"smib": "S-001", "kind": "missing", "series": 0, "eids": [3]}],
    )
    assert doc["smibs"]["S-001"]["applied"] == 2
    proc = _twin("smib", "compare", str(ledger), "--truth", str(broken))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"twin: error: {broken}: line 2: expected a JSON object, found 'not JSON "
        "(Expecting property name enclosed in double quotes)'\n"
    )
    proc = _twin("smib", "compare", str(tmp_path / "none.sqlite"), "--truth", str(good))
    assert (proc.returncode, proc.stderr) == (
        2,
        f"twin: error: {tmp_path / 'none.sqlite'}: expected a ledger file, found 'no such file'\n",
    )
    proc = _twin("smib", "compare", str(ledger), "--truth", str(tmp_path / "none.jsonl"))
    assert (proc.returncode, proc.stderr) == (
        2,
        f"twin: error: {tmp_path / 'none.jsonl'}: --truth: expected a truth file (JSON Lines), "
        "found 'no such file'\n",
    )
