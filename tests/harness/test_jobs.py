"""`check --jobs N`: the search in N worker processes gives the stream one process gives, and stops whole.

Holds: oracle.harness.worker, oracle.harness.worker_process, oracle.adapters.lifetimes, oracle.harness.channel
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from fakes.harness import check, fake, results, run_cli
from fakes.processes import descendants, gone_within, wait_for, with_marker

from oracle.harness.events import ResultsWriter, read_results
from oracle.models.results import parse_line
from oracle.textio import read_lines


def _comparable(report):
    """The records of a run without what legitimately differs between processes: durations and the
    protocol's seq numbers (each implementation process numbers its own requests)."""

    def without_seq(value):
        if isinstance(value, dict):
            return {k: without_seq(v) for k, v in value.items() if k != "seq"}
        if isinstance(value, list):
            return [without_seq(v) for v in value]
        return value

    def without_report_dir(record):  # a reproduce line names a replay file inside the run's own report
        if record.get("reproduce"):
            record["reproduce"] = record["reproduce"].replace(str(report), "REPORT")
        return record

    return [
        without_report_dir(without_seq(r.model_dump(mode="json", exclude={"duration", "wall"})))
        for r in results(report).records
    ]


def test_jobs_write_the_records_one_process_writes_in_the_same_order(tmp_path):
    """A mutant that fails (so examples are shrunk and classified) and cases: --jobs 3 against --jobs 1."""
    one, three = tmp_path / "one", tmp_path / "three"
    assert check(one, fake("mutant_ties_longer"), examples=45) == 1
    assert check(three, fake("mutant_ties_longer"), "--jobs", "3", examples=45) == 1
    single, parallel = _comparable(one), _comparable(three)
    assert [r["id"] for r in parallel] == [r["id"] for r in single]
    assert any(r["outcome"] == "fail" and r["shrunk"] for r in single)
    assert any(r["kind"] == "metamorphic" for r in single)
    assert parallel == single
    footers = read_results(one).footer, read_results(three).footer
    assert footers[0].counts == footers[1].counts and footers[0].coverage == footers[1].coverage
    assert footers[0].examples == footers[1].examples == 45
    summaries = [(d / "summary.md").read_text().replace(str(d), "REPORT") for d in (one, three)]
    assert summaries[0] == summaries[1]
    assert not list(three.glob(".workers")), "the workers' directories are removed"


def test_the_parent_copies_each_record_as_its_worker_wrote_it(tmp_path, monkeypatch):
    """The parent reads each worker's record (for the gate's counts and the run's causes) but builds no record's
    JSON again: it copies the line the worker wrote (issue 39: each record was serialised by its worker, parsed
    and serialised again by the parent). Copying is what building would give: every record line of the stream is
    the JSON `ResultsWriter` builds from the record it reads back as."""
    built = []
    build = ResultsWriter.text
    monkeypatch.setattr(ResultsWriter, "text", staticmethod(lambda line: built.append(line.type) or build(line)))
    assert check(tmp_path, fake("mutant_ties_longer"), "--jobs", "2", examples=30) == 1  # (workers: other processes)
    assert sorted(set(built)) == ["footer", "header"], "the parent built the JSON of a worker's record"
    lines = (tmp_path / "results.jsonl").read_bytes().splitlines()[1:-1]
    assert len(lines) >= 30 and any(b'"outcome":"fail"' in line and b'"shrunk":' in line for line in lines)
    assert all(build(parse_line(json.loads(line))) == line for line in lines)

def test_the_parent_builds_each_workers_record_once(tmp_path, monkeypatch):
    """Issue 39: the parent read each worker's line into its model twice, once for the progress line and once for
    the merge, each whole. Now the progress line reads the plain JSON, and only a shrunk, classified example's record
    (whose root cause the shared restart budget keeps: `BudgetKeeper.read`) is built before the merge too; the merge
    builds a good record light (no request, expectation or answer: the parent copies its line), a failing one whole."""
    from oracle.harness import worker
    from oracle.harness.session import Session

    built, accounted = [], {}
    parse, account = worker.parse_line, Session.account
    monkeypatch.setattr(worker, "parse_line", lambda line, **kw: built.append(line.get("id")) or parse(line, **kw))

    def accounting(self, record, **kw):
        accounted[record.id] = record
        return account(self, record, **kw)

    monkeypatch.setattr(Session, "account", accounting)
    assert check(tmp_path, fake("mutant_ties_longer"), "--jobs", "2", examples=30) == 1
    records = results(tmp_path).records
    named = [r.id for r in records if r.kind in ("example", "series") and r.shrunk and r.classification]
    assert named, "the run shrinks and classifies a failure (else the second count is not tested)"
    # (each worker's footer is built too, by the merge: it has no id)
    assert sorted(i for i in built if i is not None) == sorted([r.id for r in records] + named)
    assert sorted(accounted) == sorted(r.id for r in records)
    good = [r for r in records if r.good and r.baseline is None and r.request is not None]
    failing = [r for r in records if not r.good]
    assert good and failing
    assert all(accounted[r.id].request is None and accounted[r.id].expected is None for r in good)
    assert all(accounted[r.id] == r for r in failing)


def test_the_progress_line_of_jobs_counts_what_one_process_counts(tmp_path, capsys):
    """The progress line's last line (inputs done, records, outcomes) under --jobs 2, read from the workers' lines
    without building their records, is the one process's; and its counts are the footer's."""
    last = []
    for jobs in ("1", "2"):
        report = tmp_path / jobs
        assert run_cli("check", "--command", fake("mutant_ties_longer"), "--no-cases", "--examples", 30,
                       "--timeout", 5, "--report", report, "--jobs", jobs) == 1
        lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("check: ")]
        last.append(lines[-1])
    assert last[0] == last[1]
    counts = read_results(tmp_path / "2").footer.counts
    shown = " ".join(f"{k} {v}" for k, v in sorted(counts.items()) if v)
    assert last[1].startswith("check: 30/30 inputs, ") and last[1].endswith(f"({shown})")


def test_jobs_gate_by_the_baseline_as_one_process_does(tmp_path):
    """A reviewed baseline of the run's causes (each worker gates its records by it as they are built, and searches
    its causes first, as one process does), plus an exact-id entry for a failing example a worker judges (the
    parent must learn the worker saw it, or it is reported stale) and one for an id no run has (stale in both)."""
    first = tmp_path / "first"
    assert check(first, fake("mutant_ties_longer"), examples=45) == 1
    failing = [r.id for r in results(first).records if r.kind == "example" and r.outcome == "fail"]
    assert run_cli("baseline", "write", "--from", first / "results.jsonl", "--out", tmp_path / "b.yaml", "-q") == 0
    baseline = tmp_path / "b.yaml"
    baseline.write_text(baseline.read_text().replace("reason: |-\n    TODO", "reason: ties go to the longer reference")
                        + f"- {{id: {failing[-1]}, outcome: fail, reason: its own entry}}\n"
                        + "- {id: no-such-case, outcome: fail, reason: a case since retired}\n")
    one, three = tmp_path / "one", tmp_path / "three"
    assert check(one, fake("mutant_ties_longer"), "--baseline", baseline, examples=45) == 1
    assert check(three, fake("mutant_ties_longer"), "--baseline", baseline, "--jobs", "3", examples=45) == 1
    single, parallel = _comparable(one), _comparable(three)
    assert any(r.get("baseline", {}).get("status") == "known" for r in single)
    assert parallel == single
    gates = read_results(one).footer.baseline, read_results(three).footer.baseline
    assert gates[0].stale == gates[1].stale == ("no-such-case",)  # (the failing example's entry is not stale)
    assert gates[0] == gates[1]


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--jobs", "0", "must be a positive integer (got 0)"),
    ("--jobs", "100000", "must be at most 256 (got 100000)"),  # ~70 processes were started before
    ("--examples", "999999999999999999999", "must be at most 1,000,000,000"),  # 1.1 GB in 8 s before, silent
    ("--examples", "9" * 5000, "must be at most 1,000,000,000 (got 9999"),
    ("--examples", "abc", "must be a non-negative integer (got 'abc')"),  # never "invalid non_negative_int value"
])
def test_integer_options_are_bounded_and_say_so(tmp_path, option, value, says):
    done = subprocess.run([sys.executable, "-m", "oracle", "check", "--command", fake("clean"), option, value,
                           "--report", str(tmp_path / "r")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and f"argument {option}: {says}" in done.stderr and "Traceback" not in done.stderr


def test_no_more_workers_than_examples(tmp_path):
    """`--jobs 256 --examples 3` deals the 3 examples to 3 workers (the rest would each start an implementation
    to judge nothing), with the records one process writes."""
    from oracle.harness.session import SessionSettings
    from oracle.harness.worker import worker_count

    assert worker_count(SessionSettings(impl="oracle", examples=3, jobs=256)) == 3
    assert worker_count(SessionSettings(impl="oracle", examples=0, jobs=4)) == 1
    assert worker_count(SessionSettings(impl="oracle", examples=1000, jobs=4)) == 4
    # shard 2 of 2 of 60 examples owns the second block of 50 (10 examples)
    assert worker_count(SessionSettings(impl="oracle", examples=60, jobs=256, shard=(1, 2))) == 10
    one, many = tmp_path / "one", tmp_path / "many"
    assert check(one, fake("clean"), examples=3) == 0
    assert check(many, fake("clean"), "--jobs", "256", examples=3) == 0
    assert _comparable(many) == _comparable(one)
    assert read_results(many).footer.examples == 3


def test_sigterm_stops_every_worker_and_implementation_and_keeps_what_was_judged(tmp_path):
    """Each worker's implementation hangs on its 2nd request: SIGTERM to check must stop the workers,
    which stop their implementations; the footer says interrupted, the first examples are kept."""
    report = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", fake("hang_seq2", str(tmp_path)),
                            "--no-cases",
                            "--examples", "6", "--jobs", "2", "--timeout", "60", "--report", str(report), "--quiet"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while time.time() < deadline and len(list(report.glob(".bleu-oracle-partial.*/.workers/*/results.jsonl"))) < 2:
        time.sleep(0.1)
    time.sleep(2.0)  # each worker's first request answered, its second hanging
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 143, err
    assert "Traceback" not in err
    done = read_results(report)
    assert done.footer.interrupted is True
    assert [r.id for r in done.records] == ["random-0-0", "random-0-1"]
    assert not with_marker(str(tmp_path)), "a worker or an implementation of this run is left"
    assert json.loads(list(read_lines(report / "results.jsonl"))[-1])["type"] == "footer"


def test_jobs_spend_one_restart_budget_as_one_process_does(tmp_path, monkeypatch):
    """An implementation that crashes on about one input in four (chosen by the input, so any process
    crashes on it), with --max-restarts 2: after the third crash, one process records every later
    example "not attempted". Two and three workers must record the same, example for example (one
    budget, charged in example order), not two budgets' worth of attempts."""
    streams = {}
    for jobs in (1, 2, 3):
        (tmp_path / str(jobs)).mkdir()
        monkeypatch.chdir(tmp_path / str(jobs))  # the same --report path: reproduce lines name it
        assert check("report", fake("crash_some"), "--jobs", jobs, "--max-restarts", 2, examples=30) == 1
        streams[jobs] = _comparable("report")
    single = streams[1]
    crashed = [r for r in single if r["outcome"] == "crash" and "not attempted" not in r["message"]]
    not_attempted = [r for r in single if "not attempted: the implementation was restarted 2 time(s)" in r["message"]]
    assert len(crashed) >= 3 and not_attempted, "the fake must crash past the budget for this test to mean anything"
    assert single.index(not_attempted[0]) < len(single) - 1
    assert [r["id"] for r in streams[2]] == [r["id"] for r in single]
    assert streams[2] == single
    assert streams[3] == single


def test_kill_9_of_the_parent_leaves_no_worker_and_no_implementation(tmp_path):
    """`check --jobs 2` killed by SIGKILL (no clean-up of its own) mid-search: each worker hears its
    parent die (a parent-death signal, or end of file on its stdin), stops its implementation and
    exits; an implementation whose worker died is signalled too. Nothing of the run is left."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", fake("hang_seq2", str(tmp_path)),
                            "--no-cases", "--examples", "6", "--jobs", "2", "--timeout", "60",
                            "--report", str(tmp_path / "report"), "--quiet"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def searching():
        family = descendants(run.pid)
        workers = [pid for pid, line in family.items() if "oracle.harness.worker_process" in line]
        implementations = [pid for pid, line in family.items() if "hang_seq2" in line]
        return family if len(workers) == 2 and len(implementations) == 3 else None  # the parent's own, and two

    try:
        family = wait_for(searching, 30, "two workers, each with its implementation")
    finally:
        run.kill()
        run.wait()
    left = gone_within(family, 20)
    assert not left, f"left running after kill -9 of the parent: {sorted(left.values())}"
    assert not with_marker(str(tmp_path))


def test_an_implementation_does_not_outlive_its_worker_killed_by_sigkill(tmp_path):
    """A worker killed by SIGKILL runs no clean-up: its implementation, hanging on a request, is
    signalled by the kernel when its parent dies. The run then fails naming the worker."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = fake("hang_seq2", "--hang-note", str(tmp_path))
    run = subprocess.Popen([sys.executable, "-m", "oracle", "check", "--command", command,
                            "--no-cases", "--examples", "6", "--jobs", "2", "--timeout", "60",
                            "--report", str(tmp_path / "report"), "--quiet"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def worker_with_a_hanging_implementation():
            hanging = {int(path.name.split("-")[1]) for path in tmp_path.glob("hanging-*")}
            for pid, line in descendants(run.pid).items():
                below = descendants(pid)
                if "oracle.harness.worker_process" in line and hanging & set(below):
                    return pid, below
            return None

        worker, implementation = wait_for(worker_with_a_hanging_implementation, 30,
                                          "a worker whose implementation hangs on a request")
        os.kill(worker, signal.SIGKILL)
        left = gone_within(implementation, 20)
        assert not left, f"the implementation outlived its worker: {sorted(left.values())}"
    finally:
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
    assert run.returncode in (2, 143), err
    assert not gone_within(with_marker(str(tmp_path)), 20)


def test_the_first_failing_example_of_each_kind_in_each_block_is_shrunk():
    """Hand-derived: with blocks of SHRINK_BLOCK examples and one shrink per kind, example 3 failing at
    `score` after example 1 failed at `score` is not shrunk; one failing at `matches` order 2 is; the same
    kind in the next block is shrunk again; a later failure never changes an earlier answer."""
    from oracle.harness.transport import SHRINK_BLOCK, shrink_allowed

    score, matches2 = ("fail", "score", None), ("fail", "matches", 2)
    earlier = {1: [score]}
    assert shrink_allowed(3, score, earlier, 1) is False
    assert shrink_allowed(3, matches2, earlier, 1) is True
    assert shrink_allowed(3, score, earlier, 2) is True
    assert shrink_allowed(SHRINK_BLOCK + 1, score, earlier, 1) is True
    assert shrink_allowed(1, score, {1: [score], 7: [score]}, 1) is True  # only examples before it count
    assert shrink_allowed(3, score, {1: [matches2, score]}, 1) is False  # any of an example's failures
    assert shrink_allowed(3, score, earlier, 0) is False


def test_a_workers_session_leaves_discrepancies_yaml_to_its_parent(tmp_path, monkeypatch):
    """A session reads discrepancies.yaml before anything starts (an unreadable one is a configuration error then),
    except a `--jobs` worker's (`check_discrepancies=False`: its parent read it already; issue 39, about 60 ms of
    each worker's CPU). Here the file "cannot be read": the parent's session refuses, the worker's runs."""
    from oracle.adapters.base import Implementation
    from oracle.formulas.errors import BleuValueError
    from oracle.harness import session as session_module
    from oracle.harness.gate import BaselineTracker
    from oracle.harness.inprocess import InProcessImplementation
    from oracle.models.results import RunSettings

    class Silent(Implementation):
        name, version = "silent", "0"
        capabilities = {"levels": ["sentence"], "weights": "any", "max_order": 4, "smoothing": ["none"],
                        "statistics": True, "lowercase": True}

    def unreadable():
        raise BleuValueError("discrepancies.yaml: cannot read the discrepancy classes")

    monkeypatch.setattr(session_module.discrepancies, "check", unreadable)
    settings = session_module.SessionSettings(command="silent", report=str(tmp_path), timings=False)

    def run(**check):
        return session_module.run_session(settings, [], recorded=RunSettings(verb="check"), tracker=BaselineTracker(),
                                          total=0, work=lambda session: None, report_dir=tmp_path,
                                          transport=InProcessImplementation(Silent()), **check)

    with pytest.raises(BleuValueError, match="cannot read the discrepancy classes"):
        run()
    code, session = run(check_discrepancies=False)
    assert code == 0 and session is not None


def test_the_progress_lines_cheap_read_of_a_record_line_is_its_json_or_nothing(tmp_path):
    """`worker._counted_fields` reads a record line's id, kind and outcome from its bytes (issue 39: `json.loads` of
    every line was most of the progress line's cost); wherever it answers, the answer is the parsed line's, including
    on lines whose strings hold what its markers look like (escaped in JSON, so never the markers themselves), and
    it answers for the ordinary lines of a run."""
    from oracle.harness.worker import _counted_fields
    from oracle.models.outcomes import Outcome
    from oracle.models.results import Record

    assert check(tmp_path, fake("mutant_ties_longer"), examples=30) == 1
    lines = (tmp_path / "results.jsonl").read_bytes().splitlines()
    assert _counted_fields(lines[0]) is None and _counted_fields(lines[-1]) is None  # (the header, the footer)
    tricky = [Record(id="random-0-7", kind="example", outcome=Outcome.PASS, title='"outcome":"fail" "shrunk":{',
                     message='\\"outcome\\":\\"crash\\"'),
              Record(id='odd"id\\', kind="example", outcome=Outcome.FAIL, message="x"),
              Record(id="back\\slash", kind="tab\tkind", outcome=Outcome.PASS),
              Record(id="random-0-8~swap", kind="metamorphic", outcome=Outcome.ERROR, stderr='{"outcome":"pass"}')]
    lines += [ResultsWriter.text(record) for record in tricky]
    # (no record of ours has an `outcome` key before its own, but a line may: then it is parsed)
    lines.append(b'{"type":"record","id":"random-0-9","kind":"example","request":{"outcome":"pass"},"outcome":"fail"}')
    answered = 0
    for line in lines:
        read = _counted_fields(line)
        if read is not None:
            answered += 1
            parsed = json.loads(line)
            assert read == {name: parsed[name] for name in ("type", "id", "kind", "outcome")}, line[:200]
    records = [line for line in lines if line.startswith(b'{"type":"record"')]
    shrunk = [line for line in records if b'"shrunk":{' in line]
    assert shrunk and all(_counted_fields(line) is None for line in shrunk)
    assert answered >= len(records) - len(shrunk) - len(tricky)
