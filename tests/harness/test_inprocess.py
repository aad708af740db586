"""An adapter driven in this process (`oracle.harness.inprocess`): what its library writes on file descriptor 2 itself.

A compiled library writes past `sys.stderr`: bleuscore's Rust panic handler prints `thread '<unnamed>' (16489)
panicked at crates/bleuscore/src/bleu.rs:80:66` on the process's stderr for every empty input, and a report
column ran in process printed those lines over the report's progress lines (36 KB in the regeneration of
2026-11-30). With a log, the library's descriptor-level writes go to the log while it answers, and nowhere else.
"""

from __future__ import annotations

import os

import pytest

from oracle.adapters.base import Implementation, ScoreAnswer
from oracle.harness.gate import BaselineTracker
from oracle.harness.inprocess import InProcessImplementation, transport_for
from oracle.harness.session import SessionSettings, run_session
from oracle.harness.stages import Item
from oracle.models.protocol import ScoreRequest
from oracle.models.results import RunSettings
from oracle.signals import Interrupted

PANIC = b"thread '<unnamed>' panicked at bleu.rs:80:66: called `Option::unwrap()` on a `None` value\n"


class Panicking(Implementation):
    """Writes a panic message straight to file descriptor 2 (as a Rust panic hook does), then answers 1.0 (its
    hypothesis is its reference: unigrams all match, BP 1)."""

    name, version = "panicking", "0"
    capabilities = {"levels": ["sentence", "corpus"], "weights": "any", "max_order": 4, "smoothing": ["none"],
                    "statistics": False, "lowercase": False}

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        os.write(2, PANIC)
        return ScoreAnswer(1.0)


def _open_descriptors() -> set[str]:
    """The file descriptors this process has open (Linux: /proc/self/fd)."""
    return set(os.listdir("/proc/self/fd"))


COMMAND = {"cmd": "score", "seq": 1, "level": "sentence", "weights": [1.0], "smoothing": {"method": "none"},
           "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]}


def test_a_library_writing_on_descriptor_2_writes_into_the_log_and_not_on_stderr(tmp_path, capfd):
    log = tmp_path / "column.stderr"
    transport = transport_for(Panicking(), stderr_log=log)
    before = _open_descriptors()
    transport.start()
    first = transport.request(COMMAND)
    second = transport.request({**COMMAND, "seq": 2})
    os.write(2, b"the runner's own line\n")  # after the answers: descriptor 2 is this process's own again
    assert (first.kind, first.score, second.kind) == ("score", 1.0, "score")
    assert first.stderr == second.stderr == ""  # kept off the records (a panic's thread id changes run to run)
    assert log.read_bytes() == PANIC * 2  # appended, request after request
    assert capfd.readouterr().err == "the runner's own line\n"
    assert len(_open_descriptors() - before) == 1  # the log, opened once for every answer, until the stop
    transport.stop()
    assert _open_descriptors() == before


def test_without_a_log_the_library_writes_on_this_process_stderr(capfd):
    transport = InProcessImplementation(Panicking())
    transport.start()
    assert transport.request(COMMAND).kind == "score"
    assert capfd.readouterr().err == PANIC.decode()


class Failing(Implementation):
    """Writes a panic message on file descriptor 2, then raises `raised` in `score` (`where` "score") or while it
    describes itself (`where` "handshake")."""

    name, version = "failing", "0"
    capabilities = Panicking.capabilities

    def __init__(self, raised: BaseException, where: str) -> None:
        self.raised, self.where = raised, where

    def handshake(self) -> dict:
        if self.where == "handshake":
            os.write(2, PANIC)
            raise self.raised
        return super().handshake()

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        os.write(2, PANIC)
        raise self.raised


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd to count open files by")
@pytest.mark.parametrize(("raised", "where", "ends"), [
    (RuntimeError("the library crashed"), "score", 1),              # an error reply each; the run goes on to its end
    (Interrupted(143), "score", 143),                               # a stop signal while it answers: the run stops
    (RuntimeError("the library crashed"), "handshake", 3),          # no handshake: the run ends undriven
    (Interrupted(143), "handshake", Interrupted),                   # a stop signal while it describes itself
], ids=["score-raises", "score-stopped", "handshake-raises", "handshake-stopped"])
def test_the_log_is_closed_however_the_run_of_an_adapter_in_process_ends(tmp_path, raised, where, ends) -> None:
    """The column's log is opened once for the run (not once an answer) and closed at its end, a crash of the library
    or a stop signal in it too: the files this process has open are the same before the run and after it."""
    settings = SessionSettings(command="failing", report=str(tmp_path), timings=False, quiet=True)
    log = tmp_path / "column.stderr"
    item = Item("one", "example", ScoreRequest.model_validate(COMMAND))

    def run():
        return run_session(settings, [], recorded=RunSettings(verb="report"), tracker=BaselineTracker(None), total=2,
                           work=lambda session: [session.evaluate(item) for _ in range(2)], report_dir=tmp_path,
                           transport=InProcessImplementation(Failing(raised, where), stderr_log=log))

    before = _open_descriptors()
    if isinstance(ends, int):
        code, _ = run()
        assert code == ends
    else:
        with pytest.raises(ends):
            run()
    assert _open_descriptors() == before
    assert log.read_bytes().startswith(PANIC)  # (the library did write into the log)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd to count open files by")
def test_the_log_is_closed_when_the_run_fails_between_the_handshake_and_its_work(tmp_path, monkeypatch) -> None:
    """A run that fails after the handshake and before its work starts (here the session cannot be made; a header that
    cannot be written likewise) stops the implementation: the in-process column's log is closed, as a process would be
    stopped."""
    from oracle.harness import session as session_module

    def broken(*args, **kwargs):
        raise RuntimeError("no session")

    monkeypatch.setattr(session_module, "Session", broken)
    settings = SessionSettings(command="panicking", report=str(tmp_path), timings=False, quiet=True)
    before = _open_descriptors()
    with pytest.raises(RuntimeError, match="no session"):
        run_session(settings, [], recorded=RunSettings(verb="report"), tracker=BaselineTracker(None), total=0,
                    work=lambda session: None, report_dir=tmp_path,
                    transport=InProcessImplementation(Panicking(), stderr_log=tmp_path / "column.stderr"))
    assert _open_descriptors() == before
