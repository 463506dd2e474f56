"""What an emulated SMIB really sent (its truth log), and a ledger checked against it.

:class:`TruthLog` is written by the emulator (``twin smib emulate --truth FILE``) as things
happen: JSON Lines, flushed per line, one line per event the machine created (``phantom``
true for a forged one; replays are not new events), per birth and per restore of the
board's state from a backup::

    {"kind": "event", "smib": .., "bd": .., "eid": .., "digest": .., "code": .., "name": ..,
     "phantom": false}
    {"kind": "birth", "smib": .., "bd": .., "last_eid": ..}
    {"kind": "restore", "smib": .., "from_eid": .., "to_eid": .., "bd": ..}

:func:`compare` (``twin smib compare LEDGER --truth FILE``) checks, per SMIB, that every event
it sent during the run is, in the ledger, applied exactly once or declared (lost, or refused
as a conflict), and that nothing else was applied undeclared. The truth's events of a SMIB
fall into *series*: a new one starts where an eid is not above every eid before it (the
board's counters went back); the ledger's records carry their ``series``. Series k's window
runs from the ``last_eid`` of the SMIB's first ``smib_online`` (series 0) or of the
``smib_counters_reset`` that started it (exclusive) up to the ``old_eid`` of the reset that
ended it, or the ``last_eid`` of ``smib_closed`` (inclusive); events outside are before or
after the run and are not checked. Without a ``smib_closed`` (a run that was cut short) the
last window ends at the last eid the ledger applied or declared lost.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from twin.errors import InputError
from twin.hardware.protocol import event_digest

#: the ledger record kinds the comparison reads
KINDS = (
    "smib_online",
    "smib_event",
    "smib_events_lost",
    "smib_event_conflict",
    "smib_counters_reset",
    "smib_closed",
    "smib_message_rejected",
)
#: the outcome of a truth event in the run that is a problem
PROBLEMS = ("missing", "doubled", "foreign", "phantom_applied", "not_in_ledger")
_PROBLEM_WORDS = {
    "missing": "missing (neither applied nor declared)",
    "doubled": "applied twice",
    "foreign": "applied but never sent (undeclared)",
    "phantom_applied": "a forged event applied without a conflict",
    "not_in_ledger": "never online in the ledger",
}


# -- the truth log (written by the emulator) ---------------------------------------------------


class TruthLog:
    """A JSON Lines file of what the emulators sent; thread-safe, flushed per line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fh: IO[str] = path.open("w", encoding="utf-8")
        except OSError as exc:
            raise InputError(path, "--truth", "a file that can be written", exc.strerror) from None
        self._lock = threading.Lock()

    def write(self, doc: Mapping[str, Any]) -> None:
        line = json.dumps(doc, separators=(",", ":")) + "\n"
        with self._lock:
            if self._fh.closed:
                return
            self._fh.write(line)
            self._fh.flush()

    def event(self, smib: str, bd: int, evt: Mapping[str, Any], *, phantom: bool = False) -> None:
        self.write(
            {
                "kind": "event",
                "smib": smib,
                "bd": bd,
                "eid": evt["eid"],
                "digest": event_digest(evt),
                "code": evt["code"],
                "name": evt.get("name", ""),
                "phantom": phantom,
            }
        )

    def birth(self, smib: str, bd: int, last_eid: int) -> None:
        self.write({"kind": "birth", "smib": smib, "bd": bd, "last_eid": last_eid})

    def restore(self, smib: str, from_eid: int, to_eid: int, bd: int) -> None:
        self.write(
            {"kind": "restore", "smib": smib, "from_eid": from_eid, "to_eid": to_eid, "bd": bd}
        )

    def close(self) -> None:
        with self._lock:
            self._fh.close()


def read_truth(path: Path) -> list[dict[str, Any]]:
    """The lines of a truth log; InputError naming the file and line when one is not a
    truth line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "--truth", "a truth file (JSON Lines)", "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise InputError(path, "--truth", "a readable truth file (JSON Lines)", why) from None
    out: list[dict[str, Any]] = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"line {no}", "a JSON object", f"not JSON ({exc.msg})") from None
        if not isinstance(doc, dict) or doc.get("kind") not in ("event", "birth", "restore"):
            raise InputError(path, f"line {no}", "an event, birth or restore line", line[:60])
        need = {"smib": str, "eid": int, "digest": str} if doc["kind"] == "event" else {"smib": str}
        for key, kind in need.items():
            if key not in doc:
                raise InputError(path, f"line {no}", f"the key {key!r}", line[:60])
            if not isinstance(doc[key], kind) or isinstance(doc[key], bool):
                what = "a whole number" if kind is int else "a string"
                raise InputError(path, f"line {no}: {key}", what, doc[key])
        out.append(doc)
    return out


def ledger_file(path: Path) -> Path:
    """The ledger of a run folder (complete or ``.incomplete``), or ``path`` itself."""
    if path.is_dir():
        inner = path / "ledger.sqlite"
        if not inner.is_file():
            raise InputError(
                path, "", "a run folder with a ledger.sqlite, or a ledger", "none in it"
            )
        return inner
    return path


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """The SMIB records of a ledger (a run folder, an ``.incomplete`` one, or the file), as
    their JSON bodies in seq order; InputError when it is not a ledger."""
    from twin.ledger import read_rows

    return [json.loads(body) for _s, _t, _k, body in read_rows(ledger_file(path), kinds=KINDS)]


# -- the comparison ----------------------------------------------------------------------------


@dataclass
class SmibTally:
    """What became of one SMIB's events."""

    sent: int = 0  # events in the truth (phantoms included)
    phantoms: int = 0
    in_run: int = 0
    applied: int = 0  # real events applied exactly once
    lost: int = 0  # declared lost
    conflicts: int = 0  # declared by a smib_event_conflict
    refused: int = 0  # phantoms refused by the link (too_large)
    unseen: int = 0  # phantoms the ledger never saw (a broker that refuses large packets)
    before: int = 0
    after: int = 0

    def line(self, smib: str) -> str:
        ph = f" ({self.phantoms} forged)" if self.phantoms else ""
        unseen = f", forged ones never seen {self.unseen}" if self.unseen else ""
        return (
            f"{smib}: sent {self.sent}{ph}, in the run {self.in_run}, applied {self.applied}, "
            f"declared lost {self.lost}, conflicts {self.conflicts}, refused {self.refused}"
            f"{unseen}, before the run {self.before}, after the run {self.after}"
        )


@dataclass(frozen=True)
class Problem:
    smib: str
    kind: str  # one of PROBLEMS
    series: int
    eids: tuple[int, ...]

    def line(self) -> str:
        where = f" (series {self.series})" if self.series else ""
        eids = f": eids {ranges(self.eids)}" if self.eids else ""
        return f"{self.smib}{eids}{where}: {_PROBLEM_WORDS[self.kind]}"


@dataclass
class Comparison:
    smibs: dict[str, SmibTally] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def render(self) -> str:
        lines = [t.line(s) for s, t in self.smibs.items()]
        lines += self.notes
        if self.ok:
            lines.append("nothing missing, nothing doubled, nothing undeclared")
        else:
            lines += [p.line() for p in self.problems]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "smibs": {s: vars(t) for s, t in self.smibs.items()},
            "problems": [
                {"smib": p.smib, "kind": p.kind, "series": p.series, "eids": list(p.eids)}
                for p in self.problems
            ],
            "notes": self.notes,
        }


def ranges(eids: Iterable[int]) -> str:
    """``1, 3..5, 9``: sorted eids with runs compressed."""
    out: list[str] = []
    run: list[int] = []
    for e in sorted(set(eids)):
        if run and e == run[-1] + 1:
            run.append(e)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}..{run[-1]}")
        run = [e]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}..{run[-1]}")
    return ", ".join(out)


def split_series(events: Iterable[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """A SMIB's truth events in series: a new series starts at an event whose eid is not
    above every real eid before it (a forged event, sent under the next eid, raises no bar:
    the real event that reuses its eid stays in its series)."""
    series: list[list[Mapping[str, Any]]] = [[]]
    top = 0  # the highest real eid of the current series
    for evt in events:
        if evt["eid"] <= top:
            series.append([])
            top = 0
        if not evt.get("phantom", False):
            top = evt["eid"]
        series[-1].append(evt)
    return series


@dataclass
class _Ledger:
    """One SMIB's records, indexed."""

    online: list[Mapping[str, Any]] = field(default_factory=list)
    events: dict[tuple[int, int], list[str]] = field(default_factory=lambda: defaultdict(list))
    lost: list[Mapping[str, Any]] = field(default_factory=list)
    conflicts: list[Mapping[str, Any]] = field(default_factory=list)
    resets: list[Mapping[str, Any]] = field(default_factory=list)
    closed: list[Mapping[str, Any]] = field(default_factory=list)
    too_large: int = 0

    def base(self) -> int:
        """The series the run started in."""
        if self.resets:
            return int(self.resets[0]["old_series"])
        for s, _e in self.events:
            return s
        for rec in (*self.lost, *self.closed):
            return int(rec["series"])
        return 0

    def top(self, series: int) -> int:
        """The last eid the ledger applied or declared in ``series`` (0: none)."""
        eids = [e for s, e in self.events if s == series]
        eids += [int(r["to_eid"]) for r in self.lost if r["series"] == series]
        return max(eids, default=0)

    def window(self, series: int, k: int) -> tuple[int, int] | None:
        """(after, up_to) of ``series`` (the k-th of the run), or None when the ledger never
        saw it."""
        if k == 0:
            if not self.online:
                return None
            low = int(self.online[0]["last_eid"])
        else:
            into = [r for r in self.resets if r["series"] == series]
            if not into:
                return None
            low = int(into[0]["last_eid"])
        out_of = [r for r in self.resets if r["old_series"] == series]
        if out_of:
            return low, int(out_of[0]["old_eid"])
        closed = [r for r in self.closed if r["series"] == series]
        if closed:
            return low, int(closed[-1]["last_eid"])
        return low, max(low, self.top(series))

    def covered(self, series: int, eid: int) -> bool:
        return any(r["series"] == series and r["from_eid"] <= eid <= r["to_eid"] for r in self.lost)

    def conflict(self, series: int, eid: int, role: str, digest: str) -> bool:
        return any(
            r["series"] == series and r["eid"] == eid and r[role] == digest for r in self.conflicts
        )


def _index(records: Iterable[Mapping[str, Any]]) -> dict[str, _Ledger]:
    out: dict[str, _Ledger] = defaultdict(_Ledger)
    for r in records:
        book = out[r["smib"]]
        kind = r["kind"]
        if kind == "smib_online":
            book.online.append(r)
        elif kind == "smib_event":
            book.events[(int(r.get("series", 0)), int(r["eid"]))].append(str(r.get("digest", "")))
        elif kind == "smib_events_lost":
            book.lost.append({**r, "series": r.get("series", 0)})
        elif kind == "smib_event_conflict":
            book.conflicts.append(r)
        elif kind == "smib_counters_reset":
            book.resets.append(r)
        elif kind == "smib_closed":
            book.closed.append(r)
        elif kind == "smib_message_rejected" and r.get("reason") == "too_large":
            book.too_large += 1
    return out


def compare(records: Iterable[Mapping[str, Any]], truth: Iterable[Mapping[str, Any]]) -> Comparison:
    """Check ``records`` (a ledger's SMIB records, as JSON bodies) against ``truth`` (the
    lines of a truth log): see the module docstring."""
    books = _index(records)
    by_smib: dict[str, list[Mapping[str, Any]]] = {}
    for line in truth:
        if line["kind"] == "event":
            by_smib.setdefault(line["smib"], []).append(line)
    result = Comparison()
    for smib, events in by_smib.items():
        tally = SmibTally(sent=len(events), phantoms=sum(bool(e.get("phantom")) for e in events))
        result.smibs[smib] = tally
        book = books.get(smib)
        if book is None or not book.online:
            tally.after = tally.sent
            result.problems.append(Problem(smib, "not_in_ledger", 0, ()))
            continue
        _compare_smib(smib, events, book, tally, result)
    return result


def _compare_smib(
    smib: str,
    events: list[Mapping[str, Any]],
    book: _Ledger,
    tally: SmibTally,
    result: Comparison,
) -> None:
    bad: dict[tuple[str, int], list[int]] = defaultdict(list)
    known: set[str] = {str(e["digest"]) for e in events}
    base = book.base()
    too_large = book.too_large
    checked: set[int] = set()
    for k, group in enumerate(split_series(events)):
        series = base + k
        window = book.window(series, k)
        if window is None:
            tally.after += len(group)
            continue
        checked.add(series)
        low, high = window
        for evt in group:
            eid, digest = int(evt["eid"]), str(evt["digest"])
            if eid <= low:
                tally.before += 1
                continue
            if eid > high:
                tally.after += 1
                continue
            tally.in_run += 1
            there = book.events.get((series, eid), [])
            if evt.get("phantom", False):
                if digest in there:
                    if book.conflict(series, eid, "first_digest", digest):
                        tally.conflicts += 1
                    else:
                        bad[("phantom_applied", series)].append(eid)
                elif book.conflict(series, eid, "second_digest", digest):
                    tally.conflicts += 1
                elif too_large > 0:
                    too_large -= 1
                    tally.refused += 1
                else:
                    tally.unseen += 1
                continue
            if len(there) > 1:
                continue  # doubled: said once below, from the ledger's side
            if there == [digest]:
                tally.applied += 1
            elif not there and book.covered(series, eid):
                tally.lost += 1
            elif book.conflict(series, eid, "second_digest", digest):
                tally.conflicts += 1
            else:
                bad[("missing", series)].append(eid)
    for (series, eid), digests in sorted(book.events.items()):
        if series not in checked:
            continue
        if len(digests) > 1:
            bad[("doubled", series)].append(eid)
        for d in digests:
            if d not in known and not book.conflict(series, eid, "first_digest", d):
                bad[("foreign", series)].append(eid)
    for kind in ("missing", "doubled", "foreign", "phantom_applied"):
        for (what, series), eids in sorted(bad.items()):
            if what == kind:
                result.problems.append(Problem(smib, kind, series, tuple(sorted(set(eids)))))
    if not book.closed:
        result.notes.append(
            f"{smib}: the ledger has no smib_closed (a run cut short): its last window ends "
            "at the last eid applied or declared lost"
        )


def compare_files(ledger: Path, truth: Path) -> Comparison:
    """:func:`compare` of a ledger (a run folder, an ``.incomplete`` one, or the file) and
    a truth log; InputError for a file that is not one."""
    lines = read_truth(truth)
    return compare(read_ledger(ledger), lines)


__all__ = [
    "KINDS",
    "PROBLEMS",
    "Comparison",
    "Problem",
    "SmibTally",
    "TruthLog",
    "compare",
    "compare_files",
    "ledger_file",
    "ranges",
    "read_ledger",
    "read_truth",
    "split_series",
]
