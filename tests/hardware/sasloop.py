"""An in-process SMIB for the SAS loop's checks: it polls a view's gaming machine directly
(the machine's own ``answer``, no line) and hands what it read to the SMIB book as the link
would, so that each check of :mod:`twin.hardware.loop` runs on exact, known traffic. The
real loop (a pty, the reference SMIB, a broker) is tested in ``test_sas_closed_loop.py``."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from twin import api
from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.hardware.book import Birth, Event, Meters
from twin.hardware.loop import BILL_CODES, GAME_ENDED, HANDPAY_PENDING, LINK_LOST, SasView
from twin.hardware.machine import HardwareFloor
from twin.hardware.sas.bcd import from_bcd
from twin.hardware.sas.polls import BILL_ACCEPTED_EXCEPTIONS
from twin.hardware.sas.rom import rom_program
from twin.records import MemorySink

from .floors import scenario


def sas_scenario(folder: Path, *, seconds: float, faults: str = "", **kw: object) -> Path:
    """The hardware tests' tiny floor with machine A-001 on a SAS line as SMIB SAS-001
    (``faults``: lines of its ``[sas.faults]`` table)."""
    path = scenario(folder, seconds=seconds, **kw)  # type: ignore[arg-type]
    src = path.read_text().replace(  # a crew that keeps the floor playing all hour
        "crew = { attendant = 1, technician = 1, inspector = 1 }",
        "crew = { attendant = 3, technician = 2, inspector = 3 }",
    )
    src += '\n[[sas]]\nmachine = "A-001"\nsmib = "SAS-001"\nmax_delay_s = 5.0\n'
    if faults:
        src += "[sas.faults]\n" + faults + "\n"
    path.write_text(src)
    return path


@dataclass
class Polled:
    """A SMIB that reads ``view``'s machine by calling its ``answer``; switches: ``forget``
    (codes read and never reported), ``misdata`` (data reported instead), ``misread``
    (added to a meter it reports), ``delay`` (seconds added to each event's arrival)."""

    view: SasView
    floor: HardwareFloor
    smib: str = "SAS-001"
    forget: frozenset[int] = frozenset()
    misdata: dict[str, int] = field(default_factory=dict)
    misread: dict[str, int] = field(default_factory=dict)
    delay: float = 0.0
    eid: int = 0
    last: dict[str, int] = field(default_factory=dict)

    @property
    def address(self) -> int:
        return self.view.machine.address

    def _meters(self) -> dict[str, int]:
        out = self.view.accounts.readings()
        for k, d in self.misread.items():
            out[k] += d
        return out

    def birth(self) -> None:
        book = self.floor.book
        seed = 0x1234
        program = rom_program(seed, self.view.machine.rom_signature(seed))
        acc = self.view.accounts
        book.birth(Birth(self.smib, 1, self.view.machine.serial, program,
                         acc.denomination_cents, "x", self.eid))  # fmt: skip
        self.last = self._meters()
        book.meters(Meters(self.smib, "birth", 0, self.eid, acc.meter_digits,
                           tuple(sorted(self.last.items()))))  # fmt: skip

    def _event(self, code: int, name: str, data: dict[str, int]) -> None:
        now = self._meters()
        deltas = tuple(sorted((k, v - self.last.get(k, 0)) for k, v in now.items()
                              if v > self.last.get(k, 0)))  # fmt: skip
        self.last = now
        self.eid += 1
        self.floor.book.event(Event(
            self.smib, self.eid, 1, code, name, 0, deltas, json.dumps(data), False, "",
            time.monotonic() + self.delay,
        ))  # fmt: skip

    def poll_all(self) -> int:
        """General polls until no activity; every exception read and reported (or forgotten);
        then the meters, as a 7F event when they moved. Returns the exceptions read."""
        m, a, read = self.view.machine, self.address, 0
        while True:
            reply = m.answer(bytes([0x80 | a]))
            assert reply is not None
            code = reply[0]
            if code == 0:
                break
            read += 1
            data: dict[str, int] = {}
            if code in BILL_CODES:
                r48 = m.answer(bytes([a, 0x48]))  # a different poll: the implied ACK
                assert r48 is not None
                # the code names the bill; 48 (the *last* bill) only for 4F (another value)
                by_code = {c: u * 100 for u, c in BILL_ACCEPTED_EXCEPTIONS.items()}
                data["cents"] = by_code.get(code) or _bill_cents(r48)
            elif code == HANDPAY_PENDING:
                r1b = m.answer(bytes([a, 0x1B]))
                assert r1b is not None
                data["credits"] = from_bcd(r1b[4:9])
            else:
                m.answer(bytes([a, 0x1A]))  # credits: acknowledges the exception
            data.update(self.misdata)
            if code not in self.forget:
                self._event(code, f"exception_{code:02x}", data)
        if self._meters() != self.last:
            self._event(GAME_ENDED, "game_ended", {})
        return read

    def link_lost(self) -> None:
        self._event(LINK_LOST, "sas_link_lost", {"silent_polls": 10})

    def closing(self) -> None:
        self.poll_all()
        acc = self.view.accounts
        self.floor.book.meters(Meters(self.smib, "read_meters", 0, self.eid, acc.meter_digits,
                                      tuple(sorted(self._meters().items()))))  # fmt: skip


def _bill_cents(r48: bytes) -> int:
    from twin.hardware.sas.polls import BILL_DENOMINATION_CODES

    units = {c: u for u, c in BILL_DENOMINATION_CODES.items()}[from_bcd(r48[3:4])]
    return units * 100


class LoopRun:
    """A casino with a [[sas]] machine, advanced step by step with a :class:`Polled` SMIB
    reading it between steps; :meth:`findings` after :meth:`finish`."""

    def __init__(self, path: Path, **polled: object) -> None:
        self.sink = MemorySink()
        self.casino = Casino(api.prepare(path), sinks=[self.sink])
        hw = self.casino.hardware
        assert hw is not None
        self.floor = hw
        self.view = hw.loops["SAS-001"].view
        self.smib = Polled(self.view, hw, **polled)  # type: ignore[arg-type]
        self.smib.birth()

    def run(self, step: float = 5.0, until: float | None = None) -> None:
        end = self.casino.end if until is None else until
        t = self.casino.env.now
        while t < end:
            t = min(end, t + step)
            self.casino.advance(t)
            self.smib.poll_all()

    def finish(self) -> list[Finding]:
        self.smib.closing()
        self.casino.finish()
        return [r for r in self.sink.records if isinstance(r, Finding)]

    def hw_findings(self) -> list[Finding]:
        return [f for f in self.finish() if f.control.startswith("HW.")]
