"""A run's output folder, written so that it never lies and never loses a user's file.

A run writes into ``<out>.incomplete/`` beside the folder it was asked for, with a file
``INCOMPLETE`` that says so from the first moment. Only when the run has finished and every
file is written is the folder renamed to ``<out>`` and the marker removed; an older run's
folder is replaced only then. An interrupted or killed run leaves ``<out>.incomplete/``,
whose marker says what happened, and whose ledger ``twin ledger verify`` reports as never
closed. Nothing is deleted before the new run has validated.

The folder is the twin's alone. A finished folder holds :data:`OWNED` (``.twin-run.json``),
which lists the files the twin wrote there: only such a folder is ever replaced (with
``--force``, or the default folder), and only when it holds nothing else; a folder of the
user's (no :data:`OWNED`) is used only when it is empty, and a file added to a run's folder
makes the next run refuse, naming it. ``.``, ``..``, ``""`` and any folder that contains the
working directory are refused outright.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from twin.errors import InputError

MARKER = "INCOMPLETE"
LEDGER = "ledger.sqlite"
#: the file that makes a folder a run's (the twin's own): the names of the files it wrote
OWNED = ".twin-run.json"


def _shown(names: list[str], most: int = 5) -> str:
    head = ", ".join(names[:most])
    return head + (f", ... ({len(names)} in all)" if len(names) > most else "")


def _entries(folder: Path) -> list[str]:
    """The names in ``folder`` (folders with a trailing ``/``), sorted."""
    return sorted(p.name + ("/" if p.is_dir() and not p.is_symlink() else "")
                  for p in folder.iterdir())  # fmt: skip


def owned_files(folder: Path) -> set[str] | None:
    """The files the twin wrote in ``folder`` (its own markers included), or None when the
    folder is not a run's (no readable :data:`OWNED`)."""
    try:
        doc = json.loads((folder / OWNED).read_text(encoding="utf-8"))
        files = doc["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return {*files, OWNED, MARKER}


def added_files(folder: Path) -> list[str]:
    """What is in ``folder`` that the twin did not write there (all of it when the folder is
    not a run's)."""
    own = owned_files(folder) or set()
    return [e for e in _entries(folder) if e.rstrip("/") not in own]


def check_out(out: str | Path, option: str = "--out") -> None:
    """Refuse ``.``, ``..``, ``""`` and any path that contains the working directory: a run
    folder is replaced as a whole, so it must never be one of those (InputError, exit 2)."""
    raw = str(out)
    if raw.strip() == "":
        raise InputError(option, "", "a folder for the run's files alone", raw)
    here = Path.cwd().resolve()
    where = Path(raw).expanduser().resolve()
    if where == here or where in here.parents:
        what = (
            "the working directory"
            if where == here
            else f"{where}, which holds the working directory"
        )
        raise InputError(option, "", f"a folder for the run's files alone, not {what}", raw)


class RunFolder:
    """Where one run writes: checked up front, filled in a side folder, then put in place."""

    def __init__(self, out: Path, *, replace: bool, guard: str = LEDGER) -> None:
        """``guard``: the file whose presence marks a finished result that only ``replace``
        may overwrite (a run's ledger; a study's ``compare.json``)."""
        check_out(out)
        self.out = Path(out)
        self.work = self.out.with_name(self.out.name + ".incomplete")
        if self.out.is_symlink() or (self.out.exists() and not self.out.is_dir()):
            raise InputError(self.out, "--out", "a folder",
                             "a symbolic link" if self.out.is_symlink() else "a file")  # fmt: skip
        if self.out.is_dir():
            self._check_existing(guard, replace)
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

    def _check_existing(self, guard: str, replace: bool) -> None:
        """An existing ``out``: empty, or an earlier run's holding only its own files (and
        then only with ``replace``); anything else is the user's and is not touched."""
        try:
            entries = _entries(self.out)
        except OSError as exc:
            raise InputError(self.out, "--out", "a readable folder",
                             exc.strerror or str(exc)) from None  # fmt: skip
        if not entries:
            return
        if owned_files(self.out) is None:
            raise InputError(
                self.out, "--out",
                f"a new or empty folder, or an earlier run's (it has no {OWNED}; "
                "a folder of yours is never emptied, even with --force)",
                f"a folder holding {_shown(entries)}",
            )  # fmt: skip
        if not replace:
            what = "a ledger" if guard == LEDGER else f"an earlier {guard}"
            raise InputError(
                self.out / guard, "--out", f"a folder without {what} (or --force)", what
            )
        added = added_files(self.out)
        if added:
            raise InputError(
                self.out, "--out",
                "an earlier run's folder holding only the files the run wrote (move yours "
                "out of it, or choose another --out)",
                f"files that are not the run's: {_shown(added)}",
            )  # fmt: skip

    def open(self) -> Path:
        """Create the side folder with its marker; returns it (an old one is cleared)."""
        work = self.work
        if work.is_symlink() or (work.exists() and not work.is_dir()):
            # not a side folder this tool left: the user's, so it is not ours to delete
            raise InputError(self.out, "--out",
                             f"nothing but a run's side folder at {work}",
                             "a file" if work.is_file() else "something else")  # fmt: skip
        if work.is_dir() and not (work / MARKER).is_file() and any(work.iterdir()):
            raise InputError(self.out, "--out",
                             f"nothing but a run's side folder at {work} (with its {MARKER})",
                             f"a folder holding {_shown(_entries(work))}")  # fmt: skip
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
        """Put the finished folder in place of ``out`` (replacing an earlier run's, whose own
        files alone are deleted), then remove the marker. A file added to ``out`` while
        this run ran leaves the finished run where it is, still marked, and raises."""
        from twin import __version__

        work = self.work
        names = sorted(p.name for p in work.iterdir() if p.name not in (MARKER, OWNED))
        doc = {"written_by": f"casino-twin {__version__}", "files": names}
        (work / OWNED).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        old: Path | None = None
        if self.out.exists():
            added = added_files(self.out)
            if added:
                self.interrupted(f"finished, but {self.out} now holds files that are not a "
                                 f"run's ({_shown(added)}); it was left as it is")  # fmt: skip
                raise InputError(
                    self.out, "--out",
                    f"a folder holding only a run's files (the finished run is in {work})",
                    f"files added during the run: {_shown(added)}",
                )  # fmt: skip
            old = self.out.with_name(f"{self.out.name}.replaced-{os.getpid()}")
            self.out.rename(old)
        work.rename(self.out)
        (self.out / MARKER).unlink()
        if old is not None:
            own = owned_files(old) or set()
            for entry in old.iterdir():  # only what a run wrote; nothing else was there
                if entry.name in own:
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry, ignore_errors=True)
                    else:
                        entry.unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # not empty: something came that is not ours
                old.rmdir()
        return self.out


__all__ = ["LEDGER", "MARKER", "OWNED", "RunFolder", "added_files", "check_out", "owned_files"]
