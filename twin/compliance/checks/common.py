"""Shapes shared by several checkers."""

from __future__ import annotations

from twin.compliance.registry import Checker
from twin.machines.events import MachineInstalled, MetersRead
from twin.records import Record


class ReadingDiffersFromInstall(Checker):
    """A meter reading that reports something other than the machine was installed with.

    Subclasses say what differs (``difference``) and why it matters (``consequence``); the
    finding cites the installation record and the reading, once per machine.
    """

    consequence = ""

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        raise NotImplementedError

    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MetersRead)
        m = rec.machine
        inst = self.ctx.installed.get(m)
        if inst is None:
            return
        what = self.difference(inst, rec)
        if what is not None:
            self.report_once(m, (m,), f"machine {m} {what} {self.consequence}", (inst.seq, rec.seq))
