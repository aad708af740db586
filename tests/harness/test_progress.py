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
    assert lines[0] == "check: 2/20 inputs, 2 records (pass 2)"
    assert lines[-1] == "check: 20/20 inputs, 20 records (fail 1 pass 19)"


def test_on_a_terminal_it_rewrites_one_line(monkeypatch):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(3, enabled=True, label="fuzz")
    progress.update("pass")
    progress.note("a note")
    progress.update("crash")
    progress.finish()
    assert err.getvalue() == ("\rfuzz: 1/3 inputs, 1 records (pass 1)\x1b[K" "\r\x1b[K" "a note\n"
                              "\rfuzz: 2/3 inputs, 2 records (crash 1 pass 1)\x1b[K" "\n")


@pytest.mark.parametrize("tty", [False, True])
def test_off_it_prints_nothing_but_still_counts(monkeypatch, tty):
    err = Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(5, enabled=False)
    progress.update("pass")
    progress.note("hidden")
    progress.finish()
    assert err.getvalue() == "" and progress.done == 1 and progress.counts == {"pass": 1}


def test_a_companions_record_is_counted_in_the_tally_not_as_an_input(monkeypatch):
    """An example with two companions makes three records: the line counts 1 input and 3 records, so that its last
    tally is the summary's (a user saw "291/291 (pass 250 ...)" and then "353 pass")."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(2, enabled=True)
    progress.update("pass")      # example 0
    progress.tally("fail")       # its text companion
    progress.tally("pass")       # its series companion
    progress.update("pass")      # example 1
    assert err.getvalue().splitlines() == ["check: 1/2 inputs, 1 records (pass 1)",
                                           "check: 2/2 inputs, 4 records (fail 1 pass 3)"]
    assert progress.done == 2 and progress.counts == {"pass": 3, "fail": 1}


def test_the_last_inputs_companions_are_on_a_last_line(monkeypatch):
    """The last example's companions come after its own record (and its line): `finish` shows the tally once more,
    so that the last line counts every record; a run whose last line already did prints nothing more."""
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = Progress(1, enabled=True)
    progress.update("pass")
    progress.tally("pass")
    progress.finish()
    assert err.getvalue().splitlines() == ["check: 1/1 inputs, 1 records (pass 1)",
                                           "check: 1/1 inputs, 2 records (pass 2)"]
    err.truncate(0), err.seek(0)
    quiet_end = Progress(1, enabled=True)
    quiet_end.update("pass")
    quiet_end.finish()
    assert err.getvalue().splitlines() == ["check: 1/1 inputs, 1 records (pass 1)"]
