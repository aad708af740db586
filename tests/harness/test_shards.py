"""`--shard K/N` and `bleu-oracle merge`: N shards together do the work of one run, and their merge is that run.

The proofs run a fake with a planted deviation (ties go to the longer reference), so the verdict is 1, cases
are judged and not applicable, examples are shrunk and classified, and metamorphic relations are checked: the
unsharded run against the merge of its three shards, record for record (durations, timestamps and the
protocol's seq numbers aside, as for --jobs), footer for footer, summary for summary, exit code for exit code.

Holds: oracle.harness.shards, oracle.harness.merge, oracle.commands.merge
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fakes.harness import fake, results, run_cli

from oracle.formulas.errors import BleuValueError
from oracle.harness.events import iter_results
from oracle.harness.gate import BaselineTracker
from oracle.harness.merge import _merged, _reproduce
from oracle.harness.shards import MAX_SHARDS, ExampleShare, Shard, parse_shard, worker_of
from oracle.harness.transport import SHRINK_BLOCK
from oracle.models.results import Record

MUTANT = fake("mutant_ties_longer")
#: enough examples for failures (shrunk, classified) and relations (every third passing one), in three blocks of
#: SHRINK_BLOCK examples (0-49, 50-99, 100): a shard takes whole blocks, so fewer would all be shard 1's
EXAMPLES = 101


def _check(report, *more, examples=EXAMPLES, command=MUTANT, quiet=True):
    return run_cli("check", "--command", command, "--examples", examples, "--timeout", 10, "--report", report,
                   *(["--quiet"] if quiet else []), *more)


def _comparable(report):
    """Every line of a report's stream without what a clock or a process decides."""

    def without(value):
        if isinstance(value, dict):
            return {k: without(v) for k, v in value.items()
                    if k not in ("seq", "duration", "wall", "started", "finished")}
        if isinstance(value, list):
            return [without(v) for v in value]
        return value

    # a reproduce line names a replay file inside the run's own report directory (--jobs: another directory)
    text = re.sub(r"[^\s\"']*/replay/", "REPLAY/", (Path(report) / "results.jsonl").read_text(encoding="utf-8"))
    # JSON Lines: a record ends at "\n" only (a token's U+2028 or NEL is written as it is, and str.splitlines would
    # cut the record there)
    return [without(json.loads(line)) for line in text.split("\n") if line]


def _merge(*argv):
    return run_cli("merge", *argv)


@pytest.fixture(scope="module")
def sharded_run(tmp_path_factory):
    """The mutant's run unsharded (its report moved aside to whole-alone, so that the merge can be written where
    it was: reproduction lines name the report directory) and as shards 1/3, 2/3, 3/3. What the unsharded run
    printed is kept in whole-console.txt."""
    root = tmp_path_factory.mktemp("sharded")
    console = io.StringIO()
    with contextlib.redirect_stdout(console):
        codes = {"whole": _check(root / "whole", quiet=False)}
    (root / "whole-console.txt").write_text(console.getvalue(), encoding="utf-8")
    (root / "whole").rename(root / "whole-alone")
    for k in (1, 2, 3):
        codes[k] = _check(root / f"shard-{k}", "--shard", f"{k}/3")
    return root, codes


def test_a_merged_record_is_the_shards_record_gated_by_the_merges_baseline():
    """`merge` builds each record anew (`stages.built_record`, as a session does) from the shard's: every field is
    the shard's but the gate's (its key and status under the merge's baseline) and the reproduction line. A field
    the merge left behind would be lost from every merged stream (the whole-stream comparison above leaves out the
    durations). Hand-derived gate: a failing case no baseline entry lists is keyed by its id and "new" (gate.py)."""
    line = next(r for r in iter_results(Path(__file__).parents[1] / "report_data" / "data" / "runs" / "ignite-micro")
                if isinstance(r, Record) and r.id == "both-empty")
    shard = Record.model_validate({**line.model_dump(mode="json"), "convention": "a-convention", "duration": 0.25,
                                   "wall": 0.5, "order": 2, "stderr": "warned", "related": line.request.model_dump(),
                                   "shrunk": {"request": line.request.model_dump(), "steps": 1, "queries": 3},
                                   "baseline_key": "old-key", "baseline": {"status": "known", "reason": "old"}})
    unset = [name for name, field in Record.model_fields.items()
             if name != "type" and getattr(shard, name) == field.get_default(call_default_factory=True)]
    assert not unset, f"give the sample record every field: {unset}"
    merged = _merged(shard, BaselineTracker(), "merged-report")
    gate_and_reproduction = {"baseline_key", "baseline", "reproduce"}
    assert merged.model_dump(exclude=gate_and_reproduction) == shard.model_dump(exclude=gate_and_reproduction)
    assert (merged.baseline_key, merged.baseline.status, shard.outcome.value) == ("both-empty", "new", "fail")


def test_a_shard_is_k_of_n_and_the_shards_partition_every_position():
    assert parse_shard("2/3") == Shard(2, 3) and str(Shard(2, 3)) == "2/3"
    assert parse_shard(" 1/1 ").whole
    for text in ("0/3", "4/3", "3", "1/0", "-1/2", "a/b", "1/2/3", f"1/{MAX_SHARDS + 1}", ""):
        with pytest.raises(BleuValueError, match="--shard"):
            parse_shard(text)
    for count in range(1, 6):
        shares = [list(Shard(k, count).select(range(20))) for k in range(1, count + 1)]
        assert sorted(p for share in shares for p in share) == list(range(20))  # each position exactly once
        assert max(map(len, shares)) - min(map(len, shares)) <= 1  # dealt round-robin
    assert list(Shard(2, 3).select("abcdefg")) == ["b", "e"]
    for count in range(1, 6):  # random examples: whole blocks of SHRINK_BLOCK, each example exactly once
        owners = [[k for k in range(1, count + 1) if Shard(k, count).owns_example(i)] for i in range(400)]
        assert all(len(o) == 1 for o in owners)
        assert all(owners[i] == owners[i - i % SHRINK_BLOCK] for i in range(400))
    # how many a shard owns, counted without walking them (a --examples of 10**9 is counted at once)
    for count in range(1, 6):
        for k in range(1, count + 1):
            for n in (0, 1, SHRINK_BLOCK - 1, SHRINK_BLOCK, 3 * SHRINK_BLOCK + 7, 400):
                assert Shard(k, count).examples_owned(n) == sum(Shard(k, count).owns_example(i) for i in range(n))
    assert Shard(1, 1).examples_owned(10**9) == 10**9
    assert sum(Shard(k, 3).examples_owned(10**9) for k in (1, 2, 3)) == 10**9



def test_jobs_deal_each_run_of_consecutive_examples_one_to_each_worker_in_a_turned_order():
    """`worker_of`: with J workers, indices qJ .. qJ + J - 1 go one to each worker (they go side by side), the order
    turned by floor(frac(q / golden ratio) * J). By hand for J = 2: frac(q * 0.6180339887) for q = 0..4 is 0, 0.618,
    0.236, 0.854, 0.472; times 2, floored: turns 0, 1, 0, 1, 0; worker (index + turn) mod 2."""
    assert [worker_of(i, 2) for i in range(10)] == [0, 1, 1, 0, 0, 1, 1, 0, 0, 1]
    assert [worker_of(i, 1) for i in range(5)] == [0] * 5
    for workers in range(1, 9):
        for start in range(0, 400, workers):
            assert sorted(worker_of(i, workers) for i in range(start, start + workers)) == list(range(workers))
        share = ExampleShare(0, 1, workers - 1, workers)  # (next_owned: the walk ends for any worker, at any index)
        assert all(worker_of(share.next_owned(i), workers) == workers - 1 for i in range(0, 50, 7))
    # what index mod J gave worker 1 of 2 alone: every odd index (a text request each), every I mod 10 = 5 (a
    # series); each now split within a tenth of even (the same with 3 workers and I mod 3 = 2: all of one class)
    for workers, residue, modulus in ((2, 1, 2), (2, 5, 10), (2, 11, 12), (3, 2, 3), (4, 1, 2)):
        counts = [sum(1 for i in range(residue, 2000, modulus) if worker_of(i, workers) == w) for w in range(workers)]
        even = len(range(residue, 2000, modulus)) / workers
        assert all(abs(count - even) <= even / 10 for count in counts), (workers, residue, modulus, counts)

@pytest.mark.parametrize("spec", ["0/3", "4/3", "x", "1/0"])
def test_an_invalid_shard_is_one_line_and_exit_2(tmp_path, capsys, spec):
    assert _check(tmp_path / "r", "--shard", spec) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--shard" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists(), "nothing ran"


def test_check_in_three_shards_merged_is_the_unsharded_run(sharded_run):
    root, codes = sharded_run
    assert codes == {"whole": 1, 1: 1, 2: 1, 3: 1}
    assert _merge(root / "shard-1", root / "shard-2", root / "shard-3", "--report", root / "whole", "-q") == 1
    alone, merged = _comparable(root / "whole-alone"), _comparable(root / "whole")
    records = [line for line in alone if line["type"] == "record"]
    assert {r["kind"] for r in records} == {"case", "example", "metamorphic", "series"}
    assert any(r["outcome"] == "fail" and r.get("shrunk") and r.get("classification") for r in records)
    assert any(r["outcome"] == "not-applicable" for r in records)
    assert [r["id"] for r in merged[1:-1]] == [r["id"] for r in records]
    assert merged == alone  # header, every record, footer (counts, gate, causes, coverage, examples)
    assert (root / "whole" / "summary.md").read_text() == (root / "whole-alone" / "summary.md").read_text()
    assert "- shard 2/3 of a run" in (root / "shard-2" / "summary.md").read_text()
    shard_ids = [r.id for k in (1, 2, 3) for r in results(root / f"shard-{k}").records]
    assert sorted(shard_ids) == sorted(r["id"] for r in records), "together the shards did exactly the run's work"


def test_the_merge_prints_what_the_unsharded_check_prints(sharded_run, capsys):
    """merge's console is check's, read from the merged report as check's is from its own (`oracle.reports.console`:
    summary.md's groups): each deviation group with its root cause, inputs and reproductions, the run's root causes,
    the verdict and the reports; only the verdict's speaker differs, and each ends with advice of its own (merge's
    names the merged report: a baseline is written from it)."""
    root, _ = sharded_run
    alone = (root / "whole-console.txt").read_text(encoding="utf-8").splitlines()
    assert alone[-1].startswith("next: ")  # (check's advice after its console: what to do with this run)
    assert any(line.startswith("FAIL x") for line in alone) and any(line.startswith("root causes: ")
                                                                    for line in alone)
    capsys.readouterr()
    assert _merge(root / "shard-1", root / "shard-2", root / "shard-3", "--report", root / "whole") == 1
    merged = capsys.readouterr().out.splitlines()
    assert merged[:-1] == [line.replace("bleu-oracle check: ", "bleu-oracle merge: 3 shard(s): ", 1)
                           if line.startswith("bleu-oracle check: ") else line for line in alone[:-1]]
    assert merged[-1].startswith("next: ") and f"baseline write --from {root / 'whole'}" in merged[-1], merged[-1]


def test_the_merge_gates_every_record_by_the_baseline_as_the_unsharded_run(sharded_run, tmp_path):
    """A reviewed baseline forgiving the deviations, plus an entry for a case id no shard ran (stale over the
    whole run; a shard alone could not say so): the unsharded gate and the merged one agree."""
    root, _ = sharded_run
    assert run_cli("baseline", "write", "--from", root / "whole-alone" / "results.jsonl",
                   "--out", tmp_path / "b.yaml", "-q") == 0
    text = (tmp_path / "b.yaml").read_text().replace("reason: |-\n    TODO", "reason: ties go to the longer reference")
    baseline = tmp_path / "b.yaml"
    baseline.write_text(text)
    assert _check(tmp_path / "gated", "--baseline", baseline) == 0
    assert _merge(root / "shard-1", root / "shard-2", root / "shard-3", "--baseline", baseline,
                  "--report", tmp_path / "merged", "-q") == 0
    gated, merged = _comparable(tmp_path / "gated"), _comparable(tmp_path / "merged")
    assert [line.get("baseline") for line in merged] == [line.get("baseline") for line in gated]
    assert merged[-1] == gated[-1]

    baseline.write_text(text + "- {id: no-such-case, outcome: fail, reason: a case since retired}\n")
    assert _merge(root / "shard-1", root / "shard-2", root / "shard-3", "--baseline", baseline,
                  "--report", tmp_path / "merged", "-q") == 1
    assert results(tmp_path / "merged").footer.baseline.stale == ("no-such-case",)


def test_jobs_within_a_shard_draw_the_shards_examples(sharded_run, tmp_path):
    """The partition does not depend on --jobs: shard 2/3 in two processes writes shard 2/3's stream."""
    root, _ = sharded_run
    assert _check(tmp_path / "jobs", "--shard", "2/3", "--jobs", "2") == 1
    assert _comparable(tmp_path / "jobs") == _comparable(root / "shard-2")


def test_fuzz_in_shards_merged_is_the_unsharded_search(tmp_path, capsys):
    """The merged stream is the unsharded one, and merge prints what the unsharded fuzz printed (its root causes,
    each with its smallest example), the verdict said by merge."""
    def fuzz(report, *more):
        return run_cli("fuzz", "--command", MUTANT, "--examples", 60, "--report", report, *more)  # 2 blocks

    capsys.readouterr()
    assert fuzz(tmp_path / "whole") == 1
    alone = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  smallest (random-") for line in alone)
    (tmp_path / "whole").rename(tmp_path / "whole-alone")
    assert [fuzz(tmp_path / f"s{k}", "--shard", f"{k}/2", "-q") for k in (1, 2)] in ([0, 1], [1, 0], [1, 1])
    assert _merge(tmp_path / "s2", tmp_path / "s1", "--report", tmp_path / "whole") == 1  # any order
    assert _comparable(tmp_path / "whole") == _comparable(tmp_path / "whole-alone")
    assert capsys.readouterr().out.splitlines() == [
        line.replace("bleu-oracle fuzz: ", "bleu-oracle merge: 2 shard(s): ", 1) for line in alone]


def test_a_shard_that_judges_nothing_is_no_error_but_a_run_that_judges_nothing_is(tmp_path, capsys):
    """One example, two shards: shard 2 has nothing to judge and exits 0; the merge is the one-example run. No
    example at all and no case: each shard exits 0, the merge exits 2 as the unsharded run does."""
    assert _check(tmp_path / "a1", "--no-cases", "--shard", "1/2", examples=1) in (0, 1)
    assert _check(tmp_path / "a2", "--no-cases", "--shard", "2/2", examples=1) == 0
    assert results(tmp_path / "a2").records == []
    assert _merge(tmp_path / "a1", tmp_path / "a2", "--report", tmp_path / "a", "-q") == results(
        tmp_path / "a1").footer.exit_code
    assert [_check(tmp_path / f"e{k}", "--no-cases", "--shard", f"{k}/2", examples=0) for k in (1, 2)] == [0, 0]
    capsys.readouterr()
    assert _merge(tmp_path / "e1", tmp_path / "e2", "--report", tmp_path / "e", "-q") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nothing was judged" in err
    assert _check(tmp_path / "alone", "--no-cases", examples=0) == 2
    assert results(tmp_path / "e").footer == results(tmp_path / "alone").footer.model_copy(
        update={"duration": results(tmp_path / "e").footer.duration,
                "finished": results(tmp_path / "e").footer.finished})
    assert _merge(tmp_path / "e1", tmp_path / "e2", "--report", tmp_path / "e", "--allow-empty", "-q") == 0


@pytest.mark.slow
@pytest.mark.heavy  # five runs restarting a crashing process: 19 s (CI runs it; the README command stays under 10 min)
def test_crashes_merge_as_one_process_records_them_and_a_spent_restart_budget_is_said(tmp_path, capsys):
    """An implementation that crashes on one input in four: within the restart budget the merge is the
    unsharded run, crashes included; each shard has its own budget, so a shard that spends it is named."""
    crashing = fake("crash_some")

    def run(report, *more):
        return _check(report, "--no-cases", *more, command=crashing)

    assert run(tmp_path / "whole", "--max-restarts", 500) == 1
    (tmp_path / "whole").rename(tmp_path / "whole-alone")
    for k in (1, 2):
        run(tmp_path / f"s{k}", "--max-restarts", 500, "--shard", f"{k}/2")
    assert _merge(tmp_path / "s1", tmp_path / "s2", "--report", tmp_path / "whole", "-q") == 1
    merged = _comparable(tmp_path / "whole")
    assert any(line.get("outcome") == "crash" for line in merged)
    assert merged == _comparable(tmp_path / "whole-alone")
    assert "restart budget" not in capsys.readouterr().err

    for k in (1, 2):
        run(tmp_path / f"t{k}", "--max-restarts", 0, "--shard", f"{k}/2")
    assert _merge(tmp_path / "t1" / "results.jsonl", tmp_path / "t2", "--report", tmp_path / "t", "-q") == 1
    notes = [line for line in capsys.readouterr().err.splitlines() if "restart budget" in line]
    assert notes and all(str(tmp_path) in line for line in notes)


def _edited(source: Path, target: Path, edit) -> Path:
    """A copy of a shard's report directory whose results.jsonl lines went through `edit(lines)`."""
    shutil.copytree(source, target)
    path = target / "results.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
    path.write_text("".join(json.dumps(line) + "\n" for line in edit(lines)))
    return target


def _header(change):
    def edit(lines):
        change(lines[0])
        return lines
    return edit


def test_mismatched_missing_duplicated_or_incomplete_shards_are_refused_naming_the_directory(
        sharded_run, tmp_path, capsys):
    root, _ = sharded_run
    one, two, three = (root / f"shard-{k}" for k in (1, 2, 3))
    seed = _edited(two, tmp_path / "seed", _header(lambda h: h["settings"].update(seed=7)))
    version = _edited(two, tmp_path / "version",
                      _header(lambda h: h["implementation"].update(version=h["implementation"]["version"] + ".1")))
    suite = _edited(two, tmp_path / "suite", _header(lambda h: h.update(suite_version="0")))
    profile = _edited(two, tmp_path / "profile", _header(lambda h: h.update(judged_profile="sacrebleu")))
    cut = _edited(two, tmp_path / "cut", lambda lines: lines[:-1])
    stopped = _edited(two, tmp_path / "stopped", lambda lines: [*lines[:-1], {**lines[-1], "interrupted": True}])
    series = _edited(two, tmp_path / "series", _header(lambda h: h["settings"].update(series_length=6)))
    halves = _edited(two, tmp_path / "halves", _header(lambda h: h["settings"].update(shard="2/2")))
    cases = [
        ((one, seed, three), "seed", seed),
        ((one, series, three), "--series-length", series),
        ((one, version, three), "implementation", version),
        ((one, suite, three), "suite version", suite),
        ((one, profile, three), "judged profile", profile),
        ((one, cut, three), "no footer", cut),
        ((one, stopped, three), "interrupted", stopped),
        ((one, halves, three), "split it the same number of ways", halves),
        ((one, three), "shard 2/3 missing", one),
        ((one, two, two, three), "both shard 2/3", two),
        ((one, two, three, root / "whole-alone"), "not a shard's run", root / "whole-alone"),
        ((one, two, tmp_path / "nowhere"), "no results.jsonl", tmp_path / "nowhere"),
    ]
    for directories, words, named in cases:
        capsys.readouterr()
        assert _merge(*directories, "--report", tmp_path / "out", "-q") == 2, words
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and words in err and str(named) in err, (words, err)
        assert not (tmp_path / "out").exists(), "nothing is written for refused inputs"
    assert _merge(one, two, three, "--report", two, "-q") == 2, "the merged report over a shard's own"
    gated = _edited(two, tmp_path / "gated", _header(lambda h: h["settings"].update(baseline="b.yaml")))
    capsys.readouterr()
    assert _merge(one, gated, three, "--report", tmp_path / "out", "-q") == 1
    assert "run with --baseline b.yaml; the merge gates with none" in capsys.readouterr().err


def test_shard_and_replay_or_fuzz_write_cases_are_refused(tmp_path, capsys):
    assert _check(tmp_path / "r", "--shard", "1/2", "--replay", '{"level": "sentence"}') == 2
    assert run_cli("fuzz", "--command", MUTANT, "--shard", "1/2", "--write-cases", tmp_path / "c.yaml",
                   "--report", tmp_path / "f", "-q") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--replay" in err[0] and "--write-cases" in err[1]


def test_a_replay_file_is_named_in_the_merged_report():
    """An input too long for a command line is kept in the shard's report (replay/ID.json) and copied into the
    merged one: its reproduction line names the merged report's copy."""
    record = Record(id="random-0-5", kind="example", outcome="fail",
                    reproduce="bleu-oracle check --command 'python3 b.py' --profile nltk "
                              "--replay shard-2/replay/random-0-5.json")
    assert _reproduce(record, "out/report") == ("bleu-oracle check --command 'python3 b.py' --profile nltk "
                                                "--replay out/report/replay/random-0-5.json")
    inline = record.model_copy(update={"reproduce": "bleu-oracle check --replay '{\"level\": \"corpus\"}'"})
    assert _reproduce(inline, "out/report") == inline.reproduce


WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "sharded-check.yml"


def _step(job, words):
    return next(step for step in job["steps"] if words in step.get("run", "") or words in step.get("uses", ""))


@pytest.mark.slow  # four shard jobs of two processes each, then the merge: about 17 s here
def test_the_sharded_workflow_runs_its_shards_and_merges_their_artifacts(tmp_path):
    """examples/ci/sharded-check.yml as GitHub Actions would run it, on this machine: each matrix job's check
    script (bash -e) in a directory of its own, its uploaded path put where download-artifact extracts it
    (PATH/ARTIFACT-NAME), then the merge job's script, whose exit code is the gate."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    count = int(workflow["env"]["SHARDS"])
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    assert shard_job["strategy"]["matrix"]["shard"] == list(range(1, count + 1))
    assert merge_job["needs"] == "shard"
    check_step, upload = _step(shard_job, "bleu-oracle check"), _step(shard_job, "actions/upload-artifact")
    download, merge_step = _step(merge_job, "actions/download-artifact"), _step(merge_job, "bleu-oracle merge")
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("entries: []\n")
    env = {**os.environ, **workflow["env"], "COMMAND": MUTANT, "EXAMPLES": "8", "BASELINE": str(baseline),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    downloaded = tmp_path / "merge" / download["with"]["path"]
    for k in range(1, count + 1):
        job = tmp_path / f"shard-job-{k}"
        job.mkdir()
        done = subprocess.run(["bash", "-e", "-c", check_step["run"]], cwd=job, env={**env, "SHARD": str(k)},
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        name = upload["with"]["name"].replace("${{ matrix.shard }}", str(k))
        assert fnmatch.fnmatch(name, download["with"]["pattern"])
        shutil.copytree(job / upload["with"]["path"], downloaded / name)
    done = subprocess.run(["bash", "-e", "-c", merge_step["run"]], cwd=tmp_path / "merge", env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr  # the mutant deviates: the merge fails the gate
    merged = results(tmp_path / "merge" / "bleu-oracle-report")
    assert merged.footer.examples == 8 and merged.header.settings.shard is None
