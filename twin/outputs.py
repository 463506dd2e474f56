"""A run's output folder, written so that it never lies.

A run writes into ``<out>.incomplete/`` beside the folder it was asked for, with a file
``INCOMPLETE`` that says so from the first moment. Only when the run has finished and every
file is written is the marker removed and the folder renamed to ``<out>``; an older run's
folder is replaced only then. An interrupted or killed run leaves ``<out>.incomplete/``,
whose marker says what happened, and whose ledger ``twin ledger verify`` reports as never
closed. Nothing is deleted before the new run has validated.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from twin.errors import InputError

MARKER = "INCOMPLETE"
LEDGER = "ledger.sqlite"


class RunFolder:
    """Where one run writes: checked up front, filled in a side folder, then put in place."""

    def __init__(self, out: Path, *, replace: bool, guard: str = LEDGER) -> None:
        """``guard``: the file whose presence marks a finished result that only ``replace``
        may overwrite (a run's ledger; a study's ``compare.json``)."""
        self.out = Path(out)
        self.work = self.out.with_name(self.out.name + ".incomplete")
        if self.out.exists() and not self.out.is_dir():
            raise InputError(self.out, "--out", "a folder", "a file")
        if (self.out / guard).exists() and not replace:
            what = "a ledger" if guard == LEDGER else f"an earlier {guard}"
            raise InputError(
                self.out / guard, "--out", f"a folder without {what} (or --force)", what
            )
        parent = self.out.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise InputError(parent, "--out", "a folder (or a path that can become one)",
                             "a file") from None  # fmt: skip
        except OSError as exc:
            raise InputError(parent, "--out", "a folder that can be created",
                             exc.strerror or str(exc)) from None  # fmt: skip
        if not os.access(parent, os.W_OK | os.X_OK):
            raise InputError(parent, "--out", "a writable folder", "no write permission")

    def open(self) -> Path:
        """Create the side folder with its marker; returns it (an old one is cleared)."""
        work = self.work
        if work.is_symlink() or (work.exists() and not work.is_dir()):
            # not a side folder this tool left: the user's, so it is not ours to delete
            raise InputError(self.out, "--out",
                             f"nothing but a run's side folder at {work}",
                             "a file" if work.is_file() else "something else")  # fmt: skip
        try:
            if work.exists():
                shutil.rmtree(work)
            work.mkdir()
            (work / MARKER).write_text(
                "This run has not finished: it is running, or it was interrupted or killed.\n"
                "Nothing in this folder is a complete result.\n"
            )
        except OSError as exc:
            # named by the folder asked for; the side folder is how it is written
            raise InputError(self.out, "--out",
                             f"a folder whose side folder {work.name} can be written",
                             exc.strerror or str(exc)) from None  # fmt: skip
        return work

    def interrupted(self, why: str) -> None:
        """Say in the marker how the run ended."""
        try:
            with (self.work / MARKER).open("a") as f:
                f.write(f"Stopped: {why}\n")
        except OSError:
            pass

    def commit(self) -> Path:
        """Remove the marker and put the folder in place of ``out`` (replacing an old run)."""
        (self.work / MARKER).unlink()
        old: Path | None = None
        if self.out.exists():
            old = self.out.with_name(f"{self.out.name}.replaced-{os.getpid()}")
            self.out.rename(old)
        self.work.rename(self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.out


__all__ = ["LEDGER", "MARKER", "RunFolder"]
