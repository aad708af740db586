"""SIGTERM and ^C during a run: stop between two steps while judging, wait while the report is being finished.

`stopped_by_signals()` makes SIGTERM behave as ^C does (an exception at the next step, which the session turns
into an "interrupted" footer and exit 143, 130 for ^C). `signals_deferred()` is for the last part of a run,
deriving summary.md and junit.xml and publishing the report: a signal then is remembered, the work finishes (a
report is never left with results.jsonl alone), and the block then raises `Interrupted` with the signal's exit
code. The same block, given the exception a run is ending on, keeps a second signal from cutting the clean-up
short (processes killed, a staging directory removed). Both act only in the main thread, where Python runs signal
handlers.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

#: The signals a run stops on, and the exit codes they end it with (128 + the signal).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
INTERRUPTED_CODES = frozenset(128 + signum for signum in STOP_SIGNALS)


class Interrupted(BaseException):
    """Raised by a signal handler (SIGTERM) to stop a run between two requests; carries the exit code. A
    BaseException, as KeyboardInterrupt is: code that turns an implementation's exceptions into error replies must
    not swallow it."""

    def __init__(self, exit_code: int):
        super().__init__(f"interrupted (exit {exit_code})")
        self.exit_code = exit_code


def exit_code_of(exc: BaseException) -> int:
    """The exit code an interruption stands for: 128 + the signal (130 for ^C)."""
    return getattr(exc, "exit_code", 128 + signal.SIGINT)


#: The stop signals received while `stopped_by_signals` is in force: a library that swallows every exception
#: (some catch BaseException around their imports) cannot make the run forget one (`raise_if_stopped`).
_received: list[int] = []


def raise_if_stopped() -> None:
    """`Interrupted` if a stop signal came during this run and its exception was lost on the way (a checkpoint:
    the session calls it after each record, the report after each column)."""
    if _received:
        raise Interrupted(128 + _received[0])


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """While a run goes on, SIGTERM stops it like ^C does: the implementation is stopped, the footer
    says "interrupted", the exit code is 143 (130 for ^C). Only in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        _received.append(signum)
        raise Interrupted(128 + signum)

    def on_int(signum: int, frame: FrameType | None) -> None:
        _received.append(signum)
        raise KeyboardInterrupt

    unraisable = sys.unraisablehook

    def on_unraisable(args: sys.UnraisableHookArgs) -> None:
        # the signal's exception raised where Python cannot propagate it (a destructor, a callback inside a C
        # extension such as pydantic-core): the stop is remembered in `_received` and the run stops at its next
        # checkpoint (`raise_if_stopped`), so Python's "Exception ignored in ... Traceback" would only be noise
        if _received and args.exc_type is not None and issubclass(args.exc_type, (KeyboardInterrupt, Interrupted)):
            return
        unraisable(args)

    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, on_term),
                signal.SIGINT: signal.signal(signal.SIGINT, on_int)}
    sys.unraisablehook = on_unraisable
    _received.clear()
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        sys.unraisablehook = unraisable


def is_interruption(exc: BaseException | None) -> bool:
    """`exc` is a run being stopped by a signal (^C's KeyboardInterrupt, SIGTERM's `Interrupted`)."""
    return isinstance(exc, (KeyboardInterrupt, Interrupted))


@contextlib.contextmanager
def signals_deferred(*, stopping: BaseException | None = None) -> Iterator[list[int]]:
    """SIGTERM and ^C wait until the block is done; then, if one came, `Interrupted` with its exit code. The
    yielded list holds the signals received so far (a long block may look at it to cut its work short).

    `stopping`: the exception a run is ending on, around the clean-up it runs then (its processes killed, its
    staging directory removed). A clean-up begun must finish: a second ^C or a supervisor's repeated SIGTERM
    once cut it short, leaving a staging directory of cut streams. When the run is already stopping on a signal,
    one that comes meanwhile adds nothing (no second `Interrupted`: the first one's exit code stands)."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    received: list[int] = []

    def remember(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = {signum: signal.signal(signum, remember) for signum in STOP_SIGNALS}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if received and not is_interruption(stopping):
        raise Interrupted(128 + received[0])
