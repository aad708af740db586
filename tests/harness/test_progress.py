"""The progress line of a run: done/total with the outcomes so far, every tenth of the run when stderr is not a
terminal, rewritten in place when it is, and nothing at all when it is off (-q).

Holds: oracle.harness.progress
"""

import io

import pytest

from oracle.harness.progress import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_off_a_terminal_it_prints_every_tenth_and_the_last(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(20, enabled=True)
    for outcome in ["pass"] * 19 + ["fail"]:
        progress.update(outcome)
    progress.finish()
    # 20 requests: every 2nd (20 // 10) prints, ten lines; outcomes tallied in name order
    lines = err.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0] == "check: 2/20 (pass 2)" and lines[-1] == "check: 20/20 (fail 1 pass 19)"


def test_on_a_terminal_it_rewrites_one_line(monkeypatch):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(3, enabled=True, label="fuzz")
    progress.update("pass")
    progress.note("a note")
    progress.update("crash")
    progress.finish()
    assert err.getvalue() == ("\rfuzz: 1/3 (pass 1)\x1b[K" "\r\x1b[K" "a note\n"
                              "\rfuzz: 2/3 (crash 1 pass 1)\x1b[K" "\n")


@pytest.mark.parametrize("tty", [False, True])
def test_off_it_prints_nothing_but_still_counts(monkeypatch, tty):
    err = Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(5, enabled=False)
    progress.update("pass")
    progress.note("hidden")
    progress.finish()
    assert err.getvalue() == "" and progress.done == 1 and progress.counts == {"pass": 1}
