"""A crash record's root cause: what kills the implementation's process, from probes sent to processes of their own
(issue 36: "errors get a cause", for crashes).

The pure tests drive `crash_cause` with processes simulated here from a stated rule (the process dies on the
requests the rule names, given the request and its position in its process), so each expected name is the rule's:
an input feature (`crash-when-...`), a position (`crash-after-<n>-requests`), or neither
(`crash-no-input-feature`). The end-to-end tests run fakes that die on an empty segment
(tests/fakes/crash_empty_segment.py) and on the third request of each process (tests/fakes/crash_third.py).

Holds: oracle.harness.crashcauses
"""

from __future__ import annotations

import yaml
from fakes.harness import check, fake, results, run_cli

from oracle.harness.crashcauses import (
    MAX_STARTS,
    SHRINK_STARTS,
    TIMEOUT_HANGS,
    crash_cause,
    hinted,
)
from oracle.harness.gate import cause_keys
from oracle.models.outcomes import Outcome
from oracle.models.protocol import ScoreRequest
from oracle.models.results import Classification, Record


def request(**fields):
    base = {"level": "corpus", "segments": [{"hypothesis": ["a"], "references": [["a"]]}], "weights": [1.0],
            "smoothing": {"method": "none"}}
    return ScoreRequest.model_validate({**base, **fields})


class Processes:
    """Processes that die where `dies(request, n)` holds (`n`: the request's position in its process, from 1),
    with at most `max_starts` starts; what they were asked, and how many died."""

    def __init__(self, dies, max_starts=MAX_STARTS):
        self.dies, self.max_starts = dies, max_starts
        self.starts = self.deaths = 0
        self.position = None
        self.asked = []

    def fresh(self):
        if self.starts >= self.max_starts:
            return False
        self.starts += 1
        self.position = 0
        return True

    def ask(self, probe):
        if self.position is None and not self.fresh():
            return None
        self.position += 1
        self.asked.append((probe, self.position))
        died = bool(self.dies(probe, self.position))
        if died:
            self.deaths += 1
            self.position = None
        return died


def empty_segment(r, _position=None):
    return any(not s.hypothesis and s.references and not any(s.references) for s in r.segments)


EMPTY_AMONG_OTHERS = request(segments=[{"hypothesis": [], "references": [[]]},
                                       {"hypothesis": ["a"], "references": [["a"]]}])


def test_a_crash_on_an_input_feature_is_named_by_it_from_both_sides_of_the_boundary():
    """The process dies on an empty segment, whichever request it is: the input kills a fresh process as its first
    request; the hypothesis given a token is answered, so is the reference given one (together: one segment's
    emptiness, as for errors); the three inputs renamed (a -> ax, ay, az) hold an empty segment and die too."""
    processes = Processes(empty_segment)
    cause = crash_cause(EMPTY_AMONG_OTHERS, processes, methods=("none",))
    assert cause is not None and cause.name == "crash-when-segment-empty", cause
    renamed_asked = [p for p, _ in processes.asked if any("ax" in s.hypothesis for s in p.segments)]
    assert renamed_asked and all(empty_segment(p) for p in renamed_asked)
    assert processes.starts <= MAX_STARTS


def test_features_of_one_input_that_other_inputs_with_them_do_not_share_name_nothing():
    """The process dies where a hypothesis is empty AND a reference holds the token "boom" (a string no feature of
    the catalogue speaks of). Without the empty hypothesis the input is answered, so the feature search alone
    would say `crash-when-hypothesis-empty`; but the same input with "boom" renamed ("boomx"), still holding an
    empty hypothesis, is answered: no input feature of the catalogue separates it."""
    def boom(r, _position):
        return any(not s.hypothesis for s in r.segments) and any(
            "boom" in ref for s in r.segments for ref in s.references)
    failing = request(segments=[{"hypothesis": [], "references": [["boom"]]}], weights=[0.5, 0.5])
    cause = crash_cause(failing, Processes(boom), methods=("none",))
    assert cause is not None and cause.name == "crash-no-input-feature", cause
    assert "hypothesis-empty" in cause.description and "renamed" in cause.description


def test_a_crash_on_the_third_request_of_a_process_is_named_by_its_position():
    """The process dies on its third request whatever it is (tests/fakes/crash_third.py): a fresh process answers
    the input twice and dies on it the third time; another fresh process does the same with another input."""
    processes = Processes(lambda _r, position: position == 3)
    cause = crash_cause(request(segments=[{"hypothesis": ["b", "c"], "references": [["c"]]}]), processes)
    assert cause is not None and cause.name == "crash-after-2-requests", cause
    assert processes.deaths == 2 and processes.starts == 2


def test_a_crash_that_depends_on_the_input_and_the_position_is_not_named_by_either():
    """The process dies on its third request only where the input holds the token "b": with another input
    (renamed, "bx") the third request is answered, so the position alone does not name it."""
    processes = Processes(lambda r, position: position == 3 and any("b" in s.hypothesis for s in r.segments))
    cause = crash_cause(request(segments=[{"hypothesis": ["b"], "references": [["b"]]}]), processes)
    assert cause is not None and cause.name == "crash-no-input-feature", cause


def test_a_crash_the_probes_never_see_again_names_no_feature():
    """The run's process died (on its seq 2, say: tests/fakes/hang_seq2.py hangs so), a fresh one never does:
    eight requests answered, and the name says no input feature separates it."""
    processes = Processes(lambda _r, _position: False)
    cause = crash_cause(request(), processes)
    assert cause is not None and cause.name == "crash-no-input-feature"
    assert "not reproduced" in cause.description and len(processes.asked) == 8


def test_a_hang_costs_at_most_two_hangs_and_its_input_s_features_are_not_searched():
    """A timeout: each probe that hangs costs the run's --timeout. The input hanging a fresh process as its first
    request keeps the name `timeout` (one hang spent); one hanging on the second request whatever it is, two."""
    on_input = Processes(empty_segment)
    cause = crash_cause(EMPTY_AMONG_OTHERS, on_input, outcome="timeout")
    assert cause is not None and cause.name == "timeout" and on_input.deaths == 1
    on_second = Processes(lambda _r, position: position == 2)
    cause = crash_cause(request(), on_second, outcome="timeout")
    assert cause is not None and cause.name == "timeout-after-1-requests" and on_second.deaths == 2 <= TIMEOUT_HANGS


def test_the_process_starts_are_bounded_and_the_shrink_spends_only_its_share():
    """A shrink that would ask forever (every candidate kills the process): it is answered True at most
    SHRINK_STARTS times, and the whole search starts at most MAX_STARTS processes."""
    kills = []

    def shrink(failing, still_fails):
        kills.extend(still_fails(failing) for _ in range(100))
        return failing
    processes = Processes(empty_segment)
    cause = crash_cause(EMPTY_AMONG_OTHERS, processes, methods=("none",), shrink=shrink)
    assert 0 < sum(kills) <= SHRINK_STARTS
    assert processes.starts <= MAX_STARTS
    assert cause is not None and cause.name == "crash-when-segment-empty"
    starved = Processes(empty_segment, max_starts=1)
    assert crash_cause(EMPTY_AMONG_OTHERS, starved) is None or starved.starts == 1


def test_a_death_not_probed_takes_a_probed_cause_only_where_it_holds():
    hints = (("crash-when-segment-empty",), ("crash-after-2-requests",))  # (causes as the budget keeps them: parts)
    by_features = hinted(EMPTY_AMONG_OTHERS, None, hints)
    assert by_features is not None and by_features.name == "crash-when-segment-empty"
    assert by_features.description.startswith("the implementation's process dies where ")  # its features in words
    by_position = hinted(request(), 2, hints)
    assert by_position is not None and by_position.name == "crash-after-2-requests"
    # it answered 2 requests and died on its process's third
    assert by_position.description == ("the process dies on its request 3 whatever it is (this one did so on its "
                                       "request 3)")
    assert hinted(request(), 2, (("timeout-after-2-requests",),), outcome="timeout").description.startswith(
        "the process hangs on its request 3")
    assert hinted(request(), 4, hints) is None
    assert hinted(request(), None, hints) is None


def crash_record(name):
    return Record(id="random-0-3", kind="example", outcome=Outcome.CRASH,
                  classification=Classification(name=name, scope="outcome"))


def test_a_baseline_lists_a_crash_by_its_cause_and_by_the_key_written_before():
    assert cause_keys(crash_record("crash-when-segment-empty")) == ["cause:crash-when-segment-empty", "cause:crash"]
    assert cause_keys(crash_record("crash")) == ["cause:crash"]


def test_a_crash_on_an_empty_segment_is_named_by_it_and_its_baseline_holds_on_another_seed(tmp_path):
    """Every crashing example of the fake is named crash-when-segment-empty (probed, or as its kind's probed one
    where it holds an empty segment); a baseline written from seed 0 lists that cause, not `cause:crash`, and gates
    seed 1, whose crashes are other inputs, green. (No series: a series step is not probed.)"""
    command = fake("crash_empty_segment")
    first = tmp_path / "seed0"
    flags = ("--max-restarts", 50, "--series-length", 0)
    assert check(first, command, "--seed", 0, *flags, examples=60) == 1
    crashes = [r for r in results(first).records if r.outcome == "crash"]
    assert crashes and {r.classification.name for r in crashes} == {"crash-when-segment-empty"}
    assert any(r.shrunk is not None and r.shrunk.request.segments == EMPTY_AMONG_OTHERS.segments[:1]
               for r in crashes)
    baseline = tmp_path / "baseline.yaml"
    assert run_cli("baseline", "write", "--from", first, "--out", baseline) == 0
    document = yaml.safe_load(baseline.read_text())
    assert [e["id"] for e in document["entries"]] == ["cause:crash-when-segment-empty"]
    document["entries"][0]["reason"] = "the fake divides by an empty segment's length, unhandled (planted)"
    baseline.write_text(yaml.safe_dump(document))
    second = tmp_path / "seed1"
    assert check(second, command, "--seed", 1, *flags, "--baseline", baseline, examples=60) == 0
    assert any(r.outcome == "crash" for r in results(second).records)


def test_a_crash_on_the_third_request_is_named_by_its_position_in_a_run(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("crash_third"), "--max-restarts", 20, "--series-length", 0, examples=12) == 1
    crashes = [r for r in results(report).records if r.outcome == "crash" and r.kind == "example"]
    assert crashes and {r.classification.name for r in crashes} == {"crash-after-2-requests"}
    assert not any(r.classification.name.startswith("crash-when-") for r in results(report).records
                   if r.classification is not None)
