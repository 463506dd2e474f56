"""SIGINT and SIGTERM as one clean stop (issue 33).

:func:`install` makes both signals raise :class:`Interrupted` in the main thread (not
``KeyboardInterrupt``, which click turns into an abort of its own). Code that must not be
cut in two — a ledger commit, opening a run folder with its ledger, putting a finished run
in place — runs under :func:`deferred`: a signal that comes then waits until the block ends
and is raised there. Without :func:`install` (the twin used as a library) nothing changes
but that :func:`deferred` blocks run to their end before a signal is seen.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """The process was asked to stop by ``signum``. ``out`` is the folder a run left
    (``complete``: the finished run; else its side folder, marked incomplete)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)  # re-made from its args by SimPy: they must be the signal
        self.signum = int(signum)
        self.out: Path | None = None
        self.complete = False

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """130 for SIGINT, 143 for SIGTERM (128 + the signal, as a shell reports it)."""
        return 128 + self.signum

    def describe(self) -> str:
        """How a run's INCOMPLETE marker names the stop."""
        return "KeyboardInterrupt" if self.signum == signal.SIGINT else f"{self.name} (terminated)"


_depth = 0
_pending: int | None = None


#: how soon a signal that came during a finalizer is delivered again
REDELIVER_SECONDS = 0.005


def _in_finalizer(frame: FrameType | None) -> bool:
    """Whether the main thread is inside an object's ``__del__`` (or a weakref callback of the
    import system's): an exception raised there is printed ("Exception ignored in ...", with a
    traceback) and dropped, and the stop with it."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__":
            return True
        if code.co_name == "cb" and code.co_filename.startswith("<frozen importlib"):
            return True  # the import lock's weakref callback: its exception is ignored too
        frame = frame.f_back
    return False


def _handler(signum: int, frame: FrameType | None) -> None:
    global _pending
    if _depth:
        if _pending is None:
            _pending = signum
        return
    if _in_finalizer(frame):
        # deliver it again just after the finalizer (a daemon timer: at the interpreter's
        # exit, when nothing is left to stop, it is not waited for)
        timer = threading.Timer(REDELIVER_SECONDS, os.kill, (os.getpid(), signum))
        timer.daemon = True
        timer.start()
        return
    raise Interrupted(signum)


def install() -> Callable[[], None]:
    """Route SIGINT and SIGTERM to :class:`Interrupted`; returns what puts the handlers
    back (a no-op outside the main thread, or when they are already installed)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    if signal.getsignal(signal.SIGINT) is _handler:
        return lambda: None
    old = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, _handler)

    def restore() -> None:
        global _pending
        for s, h in old.items():
            signal.signal(s, h)
        _pending = None

    return restore


def quiet() -> None:
    """Ignore further signals (the process is already stopping and saying why)."""
    if threading.current_thread() is threading.main_thread():
        for s in SIGNALS:
            signal.signal(s, signal.SIG_IGN)


@contextmanager
def deferred(*, raise_pending: bool = True) -> Iterator[None]:
    """Run the block whole: a signal that comes meanwhile is raised when it ends (not at all
    with ``raise_pending=False``: cleanup after a stop already under way)."""
    global _depth, _pending
    _depth += 1
    try:
        yield
    except BaseException:
        _depth -= 1
        if _depth == 0:
            _pending = None  # the block failed: that failure is what is reported
        raise
    _depth -= 1
    if _depth == 0 and _pending is not None:
        signum, _pending = _pending, None
        if raise_pending:
            raise Interrupted(signum)


def stopped_by(exc: BaseException) -> Interrupted | None:
    """The :class:`Interrupted` behind ``exc`` (itself, or what it was raised while
    handling), if any."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, Interrupted):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


__all__ = ["SIGNALS", "Interrupted", "deferred", "install", "quiet", "stopped_by"]
