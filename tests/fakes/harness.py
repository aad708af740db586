"""Helpers for the check/runner/baseline/report tests: fake commands and an in-process CLI.

`run_cli` runs `oracle.cli.main` with only the `check`, `fuzz`, `baseline` and `merge` verbs, so
these tests do not depend on the other verbs importing cleanly.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

FAKES = Path(__file__).resolve().parent


def benchmark_module(name):
    """benchmarks/<name>.py as a module (benchmarks/ is not a package), for the tests of its tables and parts."""
    import importlib.util  # noqa: PLC0415 - only these tests need it

    spec = importlib.util.spec_from_file_location(name, FAKES.parents[1] / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)  # a module's dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def attribution_module():
    """benchmarks/attribution.py as a module."""
    return benchmark_module("attribution")


def fake(name, *flags):
    """The --command string that runs tests/fakes/<name>.py with this Python."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *flags])


def fake_argv(name, *flags):
    return [sys.executable, str(FAKES / f"{name}.py"), *flags]


def run_cli(*argv):
    """Run `bleu-oracle VERB ...` in process; returns the exit code (argparse's SystemExit included)."""
    from oracle.cli import main

    try:
        return main([str(a) for a in argv], verbs=("check", "fuzz", "baseline", "merge"))
    except SystemExit as exc:
        return exc.code


def check(report, command, *more, examples=30, timeout=5):
    """`bleu-oracle check --command COMMAND --no-cases --examples N --report DIR --quiet ...`."""
    return run_cli("check", "--command", command, "--no-cases", "--examples", examples, "--timeout", timeout,
                   "--report", report, "--quiet", *more)


def results(report):
    from oracle.harness.events import read_results

    return read_results(Path(report) / "results.jsonl")


def deviations(report):
    return [r for r in results(report).records if not r.good]


def check_against_baseline(name, report, baseline):
    """`check --impl NAME --baseline FILE`: (exit code, records, records of error outcomes, ids the gate failed)."""
    code = run_cli("check", "--impl", name, "--baseline", baseline, "--report", report, "--quiet")
    records = results(report).records
    errors = [r for r in records if r.outcome in ("error", "crash", "timeout", "protocol-error")]
    gating = [r.id for r in records if r.baseline is not None and r.baseline.status != "known"]
    return code, records, errors, gating


def real_bug_check(report, collection, bug, examples=None):
    """`check` of a real-bug collection's fake (tests/fakes/realbleu.py, realbleu_heldoutN.py for `heldoutN`) with
    `bug` switched on ("clean": its clean twin), no case file: on `examples` random examples (`check`'s helper above,
    its 5 s timeout), or (None) on every random example of `check`'s defaults and its default timeout."""
    command = fake("realbleu" if collection == "realbleu" else f"realbleu_{collection}", bug)
    if examples is not None:
        return check(report, command, examples=examples)
    return run_cli("check", "--command", command, "--no-cases", "--report", report, "--quiet")


def clean_twin_tests(collection, twin):
    """A real-bug collection's clean twin under `check`, as a pytest test by name (its test module takes it with
    `globals().update(...)`, one line a set); `twin` says which run:

    - "conforms": a whole `check` at its defaults (a slow test): exit 0 and no deviating record;
    - (examples, bug): on that many random examples the clean twin exits 0 with no deviating record, and `bug`, one
      of the collection's, exits 1 on the same examples (they can fail)."""
    import pytest  # noqa: PLC0415 - only these tests need it

    if twin == "conforms":
        @pytest.mark.slow
        def test_the_clean_twin_conforms(tmp_path):
            assert real_bug_check(tmp_path / "report", collection, "clean") == 0
            assert not deviations(tmp_path / "report")

        return {test_the_clean_twin_conforms.__name__: test_the_clean_twin_conforms}
    examples, bug = twin

    def test_the_clean_twin_passes_check_and_a_bug_fails_it(tmp_path):
        assert real_bug_check(tmp_path / "clean", collection, "clean", examples) == 0
        assert not deviations(tmp_path / "clean")
        assert real_bug_check(tmp_path / "bug", collection, bug, examples) == 1, f"{bug} passes {examples} examples"

    return {test_the_clean_twin_passes_check_and_a_bug_fails_it.__name__:
            test_the_clean_twin_passes_check_and_a_bug_fails_it}


def collection_tests(collection, bugs, *, spellings=None, twin=None):
    """The checks every held-out set passes beyond its switches (`Switches`), as pytest tests by name: its test module
    takes them with one line, `globals().update(collection_tests(...))`.

    - `benchmarks/attribution.py --real --collection NAME` reads this table (each bug's thread and fits, compared by
      value: it imports the fake as a script module), counts as the same mechanism exactly `spellings` (none unless a
      post-hoc reading was added and says so: each held-out set's `SAME_MECHANISM_*` was empty when its fits were
      committed), and refuses an unknown bug name (exit 2) before any check runs, listing every bug of the set;
    - with `twin`, the clean twin under `check` (`clean_twin_tests`); without, the set's own tests run it where they
      need it, or nowhere."""

    def test_attribution_runs_this_collection_with_its_recorded_spellings_only(capsys):
        attribution = attribution_module()
        table = attribution.real_bugs(collection)  # the fake imported as a script module: compare by value
        assert {name: (bug.url, bug.fits) for name, bug in table.items()} == {
            name: (bug.url, bug.fits) for name, bug in bugs.items()}
        assert attribution.SPELLINGS[collection] == (spellings or {})
        assert attribution.main(["--real", "--collection", collection, "--only", "no-such-bug"]) == 2
        refused = capsys.readouterr().err
        assert "no-such-bug" in refused and refused.rsplit("known: ", 1)[-1].strip() == ", ".join(bugs), refused

    found = {test_attribution_runs_this_collection_with_its_recorded_spellings_only.__name__:
             test_attribution_runs_this_collection_with_its_recorded_spellings_only}
    if twin is not None:
        found |= clean_twin_tests(collection, twin)
    return found


def score_request(segments, weights=(0.25, 0.25, 0.25, 0.25), smoothing=None, level="corpus", lowercase=False):
    """A protocol-v1 score request of `segments` ((hypothesis tokens, [reference tokens, ...]) pairs), as the real-bug
    collections' tests send it to their fakes."""
    return {"cmd": "score", "seq": 1, "level": level, "weights": list(weights), "lowercase": lowercase,
            "smoothing": smoothing or {"method": "none"},
            "segments": [{"hypothesis": h, "references": r} for h, r in segments]}


class Switches:
    """A real-bug collection's switch table, and the checks every held-out set's switches pass (its test module
    makes them its own tests with `globals().update(SWITCHES.tests())`, one line a set):

    - each switch changes some answer to `requests` against the clean twin (a score, a statistic, or an error);
    - each conditional switch (`conditional`: bug -> (its feature, inputs without it)) answers as the clean twin on
      every input without its feature;
    - each unconditional switch changes the answer to `neutral`, an input without any conditional feature;
    - the table is the collection: every conditional and unconditional switch is one of its bugs, none both, and
      (`complete`) together they are all of them.

    `wrapper(bug)` is the collection's wrapper (one process: None is the clean twin) and `answer(request, wrapper,
    with_stats=True)` its protocol loop's answer; the requests are sent to one wrapper in turn, state carried from
    one to the next, or (`fresh`) each to a wrapper of its own."""

    def __init__(self, bugs, wrapper, answer, requests, conditional, *, unconditional=(), neutral=None,
                 complete=True, fresh=False):
        self.bugs, self.wrapper, self.answer, self.requests = bugs, wrapper, answer, requests
        self.conditional, self.unconditional, self.neutral = conditional, frozenset(unconditional), neutral
        self.complete, self.fresh = complete, fresh
        if self.unconditional and neutral is None:
            raise ValueError("unconditional switches are checked on a `neutral` input")

    def replies(self, bug, requests):
        """The replies to `requests` in turn, each as JSON text or "error: ExceptionType" (the protocol loop turns
        any exception into an error reply)."""
        import json  # noqa: PLC0415 - only these tests need it

        wrapper = None if self.fresh else self.wrapper(bug)
        out = []
        for request in requests:
            try:
                answered = self.answer(request, self.wrapper(bug) if self.fresh else wrapper, with_stats=True)
                out.append(json.dumps(answered, sort_keys=True))
            except Exception as exc:  # noqa: BLE001 - the protocol loop turns any exception into an error reply
                out.append(f"error: {type(exc).__name__}")
        return out

    def tests(self):
        """The checks as pytest test functions, by name, each switch a parameter."""
        import pytest  # noqa: PLC0415 - only these tests need it

        @pytest.mark.parametrize("bug", sorted(self.bugs))
        def test_each_switch_changes_some_answer(bug):
            assert self.replies(bug, self.requests) != self.replies(None, self.requests), (
                f"{bug} answers every request as clean does")

        @pytest.mark.parametrize("bug", sorted(self.conditional))
        def test_a_conditional_switch_answers_as_clean_without_its_feature(bug):
            feature, neutrals = self.conditional[bug]
            assert self.replies(bug, neutrals) == self.replies(None, neutrals), (
                f"{bug} changes an input without {feature}")

        def test_the_switch_table_is_the_collection():
            named = set(self.conditional) | self.unconditional
            assert named <= set(self.bugs) and not set(self.conditional) & self.unconditional
            assert named == set(self.bugs) or not self.complete, sorted(set(self.bugs) - named)

        found = {test.__name__: test for test in (test_each_switch_changes_some_answer,
                                                  test_a_conditional_switch_answers_as_clean_without_its_feature,
                                                  test_the_switch_table_is_the_collection)}
        if self.unconditional:
            @pytest.mark.parametrize("bug", sorted(self.unconditional))
            def test_an_unconditional_switch_changes_the_neutral_input(bug):
                assert self.replies(bug, [self.neutral]) != self.replies(None, [self.neutral]), (
                    f"{bug} answers the neutral input as clean does")

            found[test_an_unconditional_switch_changes_the_neutral_input.__name__] = (
                test_an_unconditional_switch_changes_the_neutral_input)
        return found
