"""An adapter driven in this process (`oracle.harness.inprocess`): what its library writes on file descriptor 2 itself.

A compiled library writes past `sys.stderr`: bleuscore's Rust panic handler prints `thread '<unnamed>' (16489)
panicked at crates/bleuscore/src/bleu.rs:80:66` on the process's stderr for every empty input, and a report
column ran in process printed those lines over the report's progress lines (36 KB in the regeneration of
2026-11-30). With a log, the library's descriptor-level writes go to the log while it answers, and nowhere else.
"""

from __future__ import annotations

import os

from oracle.adapters.base import Implementation, ScoreAnswer
from oracle.harness.inprocess import InProcessImplementation, transport_for
from oracle.models.protocol import ScoreRequest

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


COMMAND = {"cmd": "score", "seq": 1, "level": "sentence", "weights": [1.0], "smoothing": {"method": "none"},
           "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]}


def test_a_library_writing_on_descriptor_2_writes_into_the_log_and_not_on_stderr(tmp_path, capfd):
    log = tmp_path / "column.stderr"
    transport = transport_for(Panicking(), stderr_log=log)
    transport.start()
    first = transport.request(COMMAND)
    second = transport.request({**COMMAND, "seq": 2})
    os.write(2, b"the runner's own line\n")  # after the answers: descriptor 2 is this process's own again
    assert (first.kind, first.score, second.kind) == ("score", 1.0, "score")
    assert first.stderr == second.stderr == ""  # kept off the records (a panic's thread id changes run to run)
    assert log.read_bytes() == PANIC * 2  # appended, request after request
    assert capfd.readouterr().err == "the runner's own line\n"


def test_without_a_log_the_library_writes_on_this_process_stderr(capfd):
    transport = InProcessImplementation(Panicking())
    transport.start()
    assert transport.request(COMMAND).kind == "score"
    assert capfd.readouterr().err == PANIC.decode()
