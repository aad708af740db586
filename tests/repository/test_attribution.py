"""benchmarks/attribution.py's table (issue 36): the one Markdown table `--real` and the one-bug fakes print, from
stubbed runs (no `check` is run here), and the one-bug fakes' `PLANTED_FITS`, judged before any run."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from fakes.harness import attribution_module, benchmark_module

ROOT = Path(__file__).resolve().parents[2]


def _found(*causes):
    return {"names": Counter(), "causes": [{"name": name, "records": records} for name, records in causes] or None}


def _cost(attribution, requests, tokens, implementation, wrapper, child, started=1, exited=1):
    return attribution.ProcessCost(started=started, exited=exited, requests=requests, tokens=tokens,
                                   implementation_cpu=implementation, wrapper_cpu=wrapper, child_cpu=child)


def _stubbed(attribution):
    """command -> what the stubbed `check` of it gives: (exit code or None on timeout, wall s, child CPU s, found)"""
    accused = {"id": "random-0-7", "name": "float32", "where": "record fits", "input": "{...}"}
    x_buggy = {**_found(("b + a-cause", 5), ("unexplained", 2)), "state_or_float32": [accused, accused],
               "cost": _cost(attribution, 400, 9000, 1.0, 0.5, 3.5)}
    x_fixed = {**_found(), "cost": _cost(attribution, 200, 6000, 0.5, 0.5, 2.0)}
    # y's own bug is state (its kind): the name it gives is no accusation
    y_buggy = {**_found(("spelt", 3), ("other", 3)),
               "state_or_float32": [{**accused, "name": "earlier-answer-returned"}],
               "cost": _cost(attribution, 100, 100, 0.8, 0.1, 1.2, started=3, exited=2)}
    y_fixed = {**_found(), "cost": _cost(attribution, 100, 100, 0.4, 0.1, 2.1)}
    return {
        "x-buggy": (1, 6.0, 3.0, x_buggy),
        "x-fixed": (0, 2.0, 1.5, x_fixed),
        "y-buggy": (1, 4.0, 1.0, y_buggy),  # a tie: the first listed is the main cause
        "y-fixed": (0, 4.0, 2.0, y_fixed),
        "z-buggy": (None, 300.0, 120.5, _found()),  # killed at the timeout: no footer, no cost
        "z-fixed": (0, 2.5, 1.0, _found()),
    }


# Written by hand from _stubbed: x's main cause holds the accepted part `a-cause` (fits), wall 6.0/2.0 = 3.00, CPU
# 3.0/1.5 = 2.00; y's `spelt` is not accepted but is the spelling of `ideal` (fits no, same mechanism yes), wall
# 4.0/4.0 = 1.00, CPU 1.0/2.0 = 0.50; z timed out (no cause), wall 300.0/2.5 = 120.00, CPU 120.5/1.0 = 120.50.
# The split: x requests 400/200 = 2.00, tokens 9000/6000 = 1.50, runner CPU (child - implementation - wrapper)
# (3.5-1.0-0.5)/(2.0-0.5-0.5) = 2.0/1.0 = 2.00, implementation 1.0/0.5 = 2.00; y requests 100/100 = 1.00, tokens 1.00,
# runner (1.2-0.8-0.1)/(2.1-0.4-0.1) = 0.3/1.6 = 0.1875 (0.19), implementation 0.8/0.4 = 2.00; z none.
# Footer: exit 1 for x and y (2/3), fits x (1/3), with spellings x and y (2/3), one timeout; wall ratios 3, 1, 120
# (median 3.00), CPU ratios 2, 0.5, 120.5 (median 2.00). Max per column: wall 120 (z), child CPU 120.5 (z), requests
# 2 (x), tokens 1.5 (x), runner 2 (x), implementation 2 (x and y: the first listed); over 3x: z's wall and child
# CPU only; wrappers' own CPU max 0.5; y's failing run started 3 processes and 2 exited: one killed. Accusations:
# x (stateless: its kind k1 and fit a-cause) names float32 twice; y's kind is `state`, not counted; z (k3, fit c)
# counted, names nothing.
EXPECTED = """\
| bug | kind | caught | main cause | fits | fits, same mechanism | fits, or a narrower trigger \
| other causes (records) | wall s failing / fixed \
| child CPU s failing / fixed | requests failing / fixed | tokens sent failing / fixed | runner CPU s failing / fixed \
| implementation CPU s failing / fixed | state or float32 named |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| mutant_x | k1 | yes | `b + a-cause` | yes | yes | yes | `unexplained` x2 | 6.0 / 2.0 = 3.00 | 3.0 / 1.5 = 2.00 \
| 400 / 200 = 2.00 | 9,000 / 6,000 = 1.50 | 2.0 / 1.0 = 2.00 | 1.0 / 0.5 = 2.00 | `float32` x2 |
| planted:y | state | yes | `spelt` | no | yes | yes | `other` x3 | 4.0 / 4.0 = 1.00 | 1.0 / 2.0 = 0.50 \
| 100 / 100 = 1.00 | 100 / 100 = 1.00 | 0.3 / 1.6 = 0.19 | 0.8 / 0.4 = 2.00 \
| (`earlier-answer-returned` x1; its bug is state or float32) |
| planted:z | k3 | timeout | - | no | no | no | - | 300.0 / 2.5 = 120.00 | 120.5 / 1.0 = 120.50 | - | - | - | - | - |

caught 2/3, fits 1/3 (2/3 with the catalogue's spellings of the same mechanisms; 2/3 with narrower triggers too), \
timeouts 1; ratio failing/fixed: wall median 3.00 max 120.00, child CPU median 2.00 max 120.50
max ratio failing/fixed per column: wall 120.00 (planted:z), child CPU 120.50 (planted:z), requests 2.00 (mutant_x), \
tokens sent 1.50 (mutant_x), runner CPU 2.00 (mutant_x), implementation CPU 2.00 (mutant_x); the wrappers' own CPU, \
in no figure: max 0.50 s a run
over 3x by column: wall: planted:z 120.00; child CPU: planted:z 120.50; requests: none; tokens sent: none; \
runner CPU: none; implementation CPU: none
implementation processes killed by check (CPU in no figure): planted:y (failing) 1
state/float32 accusations on stateless float64 runs: 1 (mutant_x: float32 x2); 2 of 3 runs counted as stateless \
float64
- mutant_x: random-0-7 `float32` (record fits): {...}
- mutant_x: random-0-7 `float32` (record fits): {...}
"""


def test_the_table_of_stubbed_runs_is_the_hand_written_one(capsys):
    attribution = attribution_module()
    calls = []
    stubbed = _stubbed(attribution)

    def runner(command, report, examples, timeout):
        calls.append((command, examples, timeout))
        return stubbed[command]

    bugs = [attribution.Attributed("mutant_x", "k1", "x-buggy", "x-fixed", ("a-cause",), {}),
            attribution.Attributed("planted:y", "state", "y-buggy", "y-fixed", ("ideal",), {"ideal": ("spelt",)}),
            attribution.Attributed("planted:z", "k3", "z-buggy", "z-fixed", ("c",), {})]
    runs = attribution.run_table(bugs, 40, 300.0, runner=runner)
    assert capsys.readouterr().out == EXPECTED
    # each bug's failing run, then its fixed twin's, with the examples and the timeout given
    assert calls == [(f"{name}-{side}", 40, 300.0) for name in "xyz" for side in ("buggy", "fixed")]
    assert [run.fit for run in runs] == [True, False, False]


def test_a_narrower_trigger_holds_every_feature_of_an_accepted_one():
    """`narrower_trigger`, on names written by hand: the features of an accepted trigger and more, in any order
    (the eighth session's one-token corpus crash, its fit spelt without `segments-one`), a disjunction whose halves
    are each accepted (`bp-ratio-division`'s "r = 0 or c = 0"), against a half that is not, a broader trigger, the
    other prefix, and a name that is no trigger."""
    narrower = attribution_module().narrower_trigger
    one_token = ("error-when-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero",)
    assert narrower("error-when-segments-one-and-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero",
                    one_token)
    assert narrower("name + error-when-precision-zero-and-smoothing-chen-cherry-4-and-hypothesis-one-token", one_token)
    assert not narrower("error-when-hypothesis-one-token-and-smoothing-chen-cherry-4", one_token)  # broader
    assert not narrower("crash-when-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero", one_token)
    halves = ("error-when-reference-empty", "error-when-hypothesis-empty")
    assert narrower("error-when-hypothesis-empty-or-reference-empty", halves)
    assert narrower("error-when-hypothesis-empty-or-reference-empty-and-segments-one", halves)
    assert not narrower("error-when-hypothesis-empty-or-segments-one", halves)  # one half accepted, not the other
    assert not narrower("other-counting-of-matches", halves)
    assert not narrower(None, halves)
    # a narrower face holds the feature it narrows (every hypothesis empty: some hypothesis is), not the other way
    assert narrower("error-when-hypotheses-all-empty", ("error-when-hypothesis-empty",))
    assert narrower("error-when-hypotheses-all-empty-and-references-one", ("error-when-hypothesis-empty",))
    assert not narrower("error-when-hypothesis-empty", ("error-when-hypotheses-all-empty",))
    assert not narrower("error-when-hypotheses-all-empty", ("error-when-reference-empty",))


def test_every_one_bug_fake_has_fits_and_a_kind_and_its_commands():
    attribution = attribution_module()
    names = attribution.one_bug_implementations()
    assert set(attribution.PLANTED_FITS) == set(names)
    entries = attribution.one_bug_table_entries(names)
    assert entries is not None and [e.name for e in entries] == names
    assert all(e.fits and e.kind != "-" and e.spellings == attribution.SAME_MECHANISM_PLANTED for e in entries)
    # the two post-hoc spellings (benchmarks/README.md): bp-ratio-division's r = 0, and eos-on-hypotheses' broad
    # special token refined by the probe (real-misses), each the only fake it can count for
    assert attribution.SAME_MECHANISM_PLANTED == {"error-when-reference-empty": ("error-when-reference-length-zero",),
                                                  "special-token-on-hypotheses": ("end-token-on-hypotheses",)}
    assert [e.name for e in entries if set(e.fits) & set(attribution.SAME_MECHANISM_PLANTED)] == [
        "planted:bp-ratio-division", "planted:eos-on-hypotheses"]
    clip = next(e for e in entries if e.name == "planted:clip-lt")
    assert clip.buggy.endswith("plantedbleu.py clip-lt") and clip.fixed.endswith("plantedbleu.py clean")
    assert set(attribution.PLANTED_CONTROLS) <= set(names)
    # a real bug keeps its own fits and spellings; an unknown name is no entry
    real = attribution.one_bug_table_entries(["real:percent-scale"])
    assert real is not None and real[0].fits == attribution.real_bugs()["percent-scale"].fits
    assert attribution.one_bug_table_entries(["mutant_bp_missing", "no-such-fake"]) is None
    assert attribution.main(["--only", "no-such-fake"]) == 2


def test_every_planted_fit_is_a_name_check_can_give():
    """A misspelt fit would count a named bug as a miss: each is a catalogue name, a member of one of its families
    (a smoothing reading, an error or crash trigger) or the pseudo-class of an outcome that is not a wrong number."""
    from oracle.diagnose.attribute import NON_SCORE_CLASSES  # noqa: PLC0415 - the oracle, only for this test
    from oracle.diagnose.mechanisms import lookup  # noqa: PLC0415

    attribution = attribution_module()
    families = ("smoothing=", "error-when-", "crash-after-")
    def given(part):  # (`lookup`: a catalogue name, or a member of a family such as a searched cap)
        return lookup(part) is not None or part in NON_SCORE_CLASSES or part.startswith(families)

    for name, accepted in attribution.PLANTED_FITS.items():
        for cause in accepted:  # a pair (two stages wrong in one plant) is each of its parts
            assert all(given(part) for part in cause.split(" + ")), (name, cause)
    assert lookup("no-such-mechanism") is None
    assert not given("reference-length-of-first-reference + no-such-mechanism".split(" + ")[1])


# -- the cost split and the accusation check (issue 36), from hand-made inputs ---------------------------------

#: Two runs' processes as rusage_wrapper.py logs them: three started, two exited (the second was killed), one blank line
PROCESS_LOG = """\
{"event": "start", "pid": 1}
{"event": "start", "pid": 2}
{"event": "exit", "pid": 1, "lines": 5, "bytes": 100, "tokens": 40, "commands": {"start": 1, "score": 3, "stop": 1}, \
"cpu": 0.25, "own_cpu": 0.05, "status": 0}

{"event": "start", "pid": 3}
{"event": "exit", "pid": 3, "lines": 2, "bytes": 30, "tokens": 10, "commands": {"start": 1, "score": 1}, "cpu": 0.5, \
"own_cpu": 0.05, "status": -9}
"""


def test_the_process_log_is_summed_by_hand():
    attribution = attribution_module()
    cost = attribution.read_process_log(PROCESS_LOG, child_cpu=2.0)
    # by hand: 3 starts, 2 exits; score requests 3 + 1 = 4 (start and stop lines are not requests); tokens 40 + 10;
    # implementation 0.25 + 0.5 = 0.75 s; wrappers 0.05 + 0.05 = 0.1 s; runner 2.0 - 0.75 - 0.1 = 1.15 s
    assert (cost.started, cost.exited, cost.requests, cost.tokens) == (3, 2, 4, 50)
    assert abs(cost.implementation_cpu - 0.75) < 1e-9 and abs(cost.wrapper_cpu - 0.1) < 1e-9
    assert abs(cost.runner_cpu - 1.15) < 1e-9
    # the old column: check and implementation, the wrappers' own taken out: 2.0 - 0.1
    assert abs(attribution.cpu_split_child(cost, 2.0) - 1.9) < 1e-9
    empty = attribution.read_process_log("", child_cpu=1.5)
    assert (empty.started, empty.requests, empty.implementation_cpu, empty.runner_cpu) == (0, 0, 0.0, 1.5)


def _wrapper_module():
    return benchmark_module("rusage_wrapper")


def test_tokens_of_a_request_counted_by_hand():
    wrapper = _wrapper_module()
    tokens = {"cmd": "score", "segments": [{"hypothesis": ["a", "b"], "references": [["a"], ["b", "c", "d"]]},
                                           {"hypothesis": [], "references": [[]]}]}
    assert wrapper.tokens_of(tokens) == 2 + 1 + 3  # the second segment is empty
    text = {"cmd": "score", "tokenize": "13a",
            "segments": [{"hypothesis": "the cat  sat", "references": ["a cat", ""]}]}
    assert wrapper.tokens_of(text) == 3 + 2 + 0  # whitespace-separated words
    assert wrapper.tokens_of({"cmd": "stop"}) == 0 and wrapper.tokens_of(None) == 0


def test_the_wrapper_relays_counts_and_logs_its_process(tmp_path):
    log = tmp_path / "processes.jsonl"
    # the implementation: writes back what it read, then exits 3
    child = [sys.executable, "-c", "import sys\nsys.stdout.write(sys.stdin.read())\nsys.exit(3)"]
    sent = ('{"cmd": "start", "protocol": 1}\n'
            '{"cmd": "score", "seq": 1, "segments": [{"hypothesis": ["a", "b"], "references": [["a"]]}]}\n'
            '{"cmd": "stop"}\n')
    done = subprocess.run([sys.executable, "-S", str(ROOT / "benchmarks" / "rusage_wrapper.py"), str(log), *child],
                          input=sent, capture_output=True, text=True, timeout=60)
    # the lines reach the implementation as sent; its own output and exit code are check's
    assert done.stdout == sent and done.returncode == 3
    start, end = (json.loads(line) for line in log.read_text().splitlines())
    assert start["event"] == "start" and end["event"] == "exit"
    assert end["lines"] == 3 and end["bytes"] == len(sent.encode()) and end["tokens"] == 3  # 2 + 1
    assert end["commands"] == {"start": 1, "score": 1, "stop": 1} and end["status"] == 3
    assert end["cpu"] > 0 and end["own_cpu"] > 0


def test_state_and_float32_names_found_in_records_and_the_cover():
    attribution = attribution_module()
    records = [
        {"id": "a", "outcome": "fail", "classification": {"name": "earlier-answer-returned", "fits": []},
         "request": {"x": 1}},
        {"id": "b", "outcome": "fail", "classification": {"name": "weights=normalise",
                                                          "fits": ["no-brevity-penalty + float32"]},
         "shrunk": {"request": {"y": 2}}, "request": {"x": 2}},
        {"id": "c", "outcome": "fail", "classification": {"name": "no-brevity-penalty", "fits": []}},
        {"id": "d", "outcome": "pass"},
    ]
    causes = [{"name": "float32", "records": 2, "alternatives": ["lengths-kept-by-reset"]},
              {"name": "no-brevity-penalty", "records": 1, "alternatives": []}]
    found = attribution.state_or_float32_names(records, causes)
    # the state kind: oracle/diagnose/mechanisms/state.py declares earlier-answer-returned and lengths-kept-by-reset
    assert [(f["id"], f["name"], f["where"], f["input"]) for f in found] == [
        ("a", "earlier-answer-returned", "record name", '{"x": 1}'),
        ("b", "float32", "record fits", '{"y": 2}'),  # the shrunk input where there is one
        ("-", "float32", "run cause (2 records)", "-"),
        ("-", "lengths-kept-by-reset", "run cause alternative (2 records)", "-"),
    ]


def test_which_fakes_count_as_stateless_float64():
    attribution = attribution_module()
    assert attribution.stateless_float64("structure", ("references-transposed",))
    assert not attribution.stateless_float64("state", ("references-cached-from-first-request",))  # a real bug's kind
    assert not attribution.stateless_float64("stateful", ("lengths-kept-by-reset",))  # PLANTED_KINDS' section
    assert not attribution.stateless_float64("numbers", ("float32",))
    # a fit of kind state makes the bug a state bug whatever its section says
    assert not attribution.stateless_float64("sizes", ("references-kept-from-first-request",))
