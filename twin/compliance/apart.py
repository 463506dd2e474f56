"""End-of-run computations in a second process (issue 31).

At the end of a run with a sink process the run's process only waits while the sink process
runs the end-of-run checks, so the machine's second core is idle. Some of those checks rest
on one pure computation whose result the checkers share through ``ctx.shared`` (the
randomness audit of every machine: :attr:`Checker.finish_shared`). The sink process forks once
more and computes those in the fork while it finishes the other checkers; the checkers that
need them finish last, and the findings are put back in the checkers' order, so the ledger is
the one the same checks give in a single process (a test).
"""

from __future__ import annotations

import os
import pickle
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from twin.compliance.context import CheckContext

#: (key in ``ctx.shared``, the function of the context that computes its value)
Job = tuple[str, Callable[[CheckContext], Any]]


class ApartError(RuntimeError):
    """An end-of-run computation failed in its second process (with its traceback)."""


def compute_apart(ctx: CheckContext, jobs: Sequence[Job]) -> Callable[[], dict[str, Any]]:
    """Start computing ``jobs`` in a fork of this process; the function returned waits for
    them and gives ``{key: value}`` (it raises :class:`ApartError` if one failed)."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the fork (its work is checked through its answer)
        try:
            os.close(readable)
            try:
                payload = pickle.dumps(("ok", {key: fn(ctx) for key, fn in jobs}), protocol=5)
            except BaseException:
                payload = pickle.dumps(("error", traceback.format_exc()))
            with os.fdopen(writable, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)  # never back into the sink process's code
    os.close(writable)

    def result() -> dict[str, Any]:
        with os.fdopen(readable, "rb") as got:
            data = got.read()
        os.waitpid(pid, 0)
        if not data:
            raise ApartError("the second process of the end-of-run checks ended without answer")
        status, value = pickle.loads(data)
        if status != "ok":
            raise ApartError(f"an end-of-run computation failed in its second process:\n{value}")
        out: dict[str, Any] = value
        return out

    return result
