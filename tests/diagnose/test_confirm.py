"""A failure is confirmed before it is reported: its expectation is the oracle's own, recomputed where it came from
the search cache, and its request is sent once more, so that an implementation answering one request two ways is
named `nondeterministic` (not shrunk, not searched for a cause, its reproduction line saying it may pass).

Holds: oracle.diagnose.repeat
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

import pytest
from fakes.harness import check, deviations, fake, results, run_cli

from oracle.diagnose.judge import Contract
from oracle.diagnose.repeat import answered_otherwise, described, without_note
from oracle.harness import diagnosis
from oracle.models.protocol import Statistics

NONDETERMINISTIC = fake("nondeterministic")


@dataclass(frozen=True)
class Answer:
    """A reply as the judge reads it (`oracle.diagnose.judge.Answered`)."""

    score: float | None = None
    statistics: Statistics | None = None
    kind: str = "score"
    message: str = ""


def counted(matches: int) -> Statistics:
    return Statistics(hyp_len=2, ref_len=2, matches=(matches,), totals=(2,), bp=1.0)


def comparable(report):
    """A run's lines without clock readings, seq numbers and the report's own path."""

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in ("seq", "duration", "wall", "started",
                                                                        "finished")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value.replace(str(report), "REPORT") if isinstance(value, str) else value

    lines = (report / "results.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    return [clean(json.loads(line)) for line in lines]


# -- two answers to one request --------------------------------------------------------------------


def test_two_scores_differ_beyond_the_numeric_contract_only():
    contract = Contract()  # |a - e| <= 1e-12 + 1e-9 |e|
    assert answered_otherwise(Answer(0.41), Answer(0.38), contract)
    assert not answered_otherwise(Answer(0.41), Answer(0.41 * (1 + 1e-10)), contract)
    assert answered_otherwise(Answer(0.41), Answer(0.41 * (1 + 1e-8)), contract)
    assert not answered_otherwise(Answer(float("nan")), Answer(float("nan")), contract)
    assert answered_otherwise(Answer(float("nan")), Answer(0.0), contract)
    assert not answered_otherwise(Answer(0.41), Answer(0.38), Contract(rel=0.1))  # a run's looser contract


def test_other_statistics_or_another_kind_of_answer_differ_but_not_other_words_or_no_answer():
    assert answered_otherwise(Answer(0.5, counted(1)), Answer(0.5, counted(2)), Contract())
    assert answered_otherwise(Answer(0.5, counted(1)), Answer(0.5), Contract())
    assert answered_otherwise(Answer(kind="error", message="boom"), Answer(0.5), Contract())
    assert answered_otherwise(Answer(kind="rejected", message="no"), Answer(0.5), Contract())
    # two errors (or refusals) with other words are alike: a message may carry an address or a time
    assert not answered_otherwise(Answer(kind="error", message="at 0x7f1"), Answer(kind="error", message="at 0x7f2"),
                                  Contract())
    # a request that got no answer the second time says nothing about the first answer
    for unanswered in ("crash", "timeout", "protocol-error"):
        assert not answered_otherwise(Answer(0.5), Answer(kind=unanswered), Contract())


def test_both_answers_are_named_in_the_order_they_came():
    assert described(Answer(0.41), Answer(0.38)) == "nondeterministic: the same request answered 0.41 and 0.38"
    assert described(Answer(kind="error", message="transient"), Answer(0.5)) == (
        "nondeterministic: the same request answered error (transient) and 0.5")
    line = "bleu-oracle check --replay '{\"a\": 1}'"
    assert without_note(line + "  # nondeterministic: the same request answered 1 and 2") == (
        line, "  # nondeterministic: the same request answered 1 and 2")
    assert without_note(line) == (line, "")


# -- an implementation that answers one request two ways ---------------------------------------------

ANSWERED = re.compile(r"nondeterministic: the same request answered (\S+) and (\S+)")


def test_records_answered_two_ways_are_named_nondeterministic_with_both_answers(tmp_path):
    """tests/fakes/nondeterministic.py answers about one input in three x0.9 the first time a process gets it, and
    right the second: every deviation is that, named so with both scores, not shrunk, its reproduction saying it may
    pass. Cases, examples, series and relations alike."""
    report = tmp_path / "report"
    assert run_cli("check", "--command", NONDETERMINISTIC, "--examples", 40, "--report", report, "--quiet") == 1
    found = deviations(report)
    assert {r.kind for r in found} >= {"case", "example", "series", "metamorphic"}
    for record in found:
        assert record.outcome == "fail" and record.classification.name == "nondeterministic", record.id
        first, again = (float(x) for x in ANSWERED.search(record.message).groups())
        assert first == pytest.approx(0.9 * again, rel=1e-12)  # wrong, then right
        if record.kind != "metamorphic":  # (a relation's answers are its related input's)
            assert first == record.actual.score
            assert again == pytest.approx(record.expected.score, rel=1e-9)
        assert record.shrunk is None
        assert "  # nondeterministic: the same request answered" in record.reproduce
        assert record.reproduce.endswith("this line may pass; run it more than once")
    footer = results(report).footer
    assert [cause.name for cause in footer.causes] == ["nondeterministic"]


def test_the_printed_reproduction_says_the_request_was_answered_two_ways(tmp_path, capsys):
    assert run_cli("check", "--command", NONDETERMINISTIC, "--examples", 5, "--report", tmp_path / "r") == 1
    out = capsys.readouterr().out
    assert "root cause: nondeterministic: the same request answered " in out
    reproductions = [line for line in out.splitlines() if line.strip().startswith("reproduce:")]
    assert reproductions and all("# nondeterministic: the same request answered" in line and "may pass" in line
                                 for line in reproductions)


def test_an_error_once_and_a_score_the_other_time_is_nondeterministic(tmp_path):
    report = tmp_path / "report"
    command = fake("nondeterministic", "--flaky-errors")
    assert run_cli("check", "--command", command, "--no-cases", "--examples", 10, "--report", report, "--quiet") == 1
    errors = [r for r in deviations(report) if r.outcome == "error"]
    assert errors and all(r.classification.name == "nondeterministic" for r in errors)
    assert all(re.search(r"answered error \(transient failure on call 1 of this input\) and (0\.\d+|1\.0)$",
                         r.message) for r in errors)


def test_jobs_write_what_one_process_writes_for_a_nondeterministic_implementation(tmp_path):
    """The fake's turns depend on how often a process got the same input, not on the other requests: a worker
    answers each of its examples as the single process does."""
    assert check(tmp_path / "one", NONDETERMINISTIC, examples=24) == 1
    assert check(tmp_path / "two", NONDETERMINISTIC, "--jobs", 2, examples=24) == 1
    assert comparable(tmp_path / "two") == comparable(tmp_path / "one")
    assert {r.classification.name for r in deviations(tmp_path / "two")} == {"nondeterministic"}


def test_a_deterministic_mutant_writes_the_records_it_wrote_before_requests_were_sent_again(tmp_path, monkeypatch):
    """mutant_no_clipping answers every request alike: sending its failures once more changes no record (but the
    seq numbers of the requests after them), and nothing is named nondeterministic. The first run must really
    send some failure again (else the two runs would be the same run, and the comparison could not fail): the
    re-sends are counted."""
    report = tmp_path / "again"
    sent_again = []
    answered = diagnosis.answered_again

    def counted_resend(*args, **kwargs):
        sent_again.append(args[0])
        return answered(*args, **kwargs)

    monkeypatch.setattr(diagnosis, "answered_again", counted_resend)
    assert check(report, fake("mutant_no_clipping"), "--seed", 7, examples=40) == 1
    named = {r.classification.name for r in deviations(report)}
    assert named and "nondeterministic" not in named
    assert sent_again, "no failure was sent again: the comparison below would compare a run with itself"
    monkeypatch.setattr(diagnosis, "answered_again", lambda *args, **kwargs: None)  # as before: nothing sent again
    assert check(tmp_path / "once", fake("mutant_no_clipping"), "--seed", 7, examples=40) == 1
    assert comparable(report) == comparable(tmp_path / "once")


# -- the search cache is not the last word on a failure ------------------------------------------------


def newest_entries(directory):
    """Each example's newest entry body in the run directory's logs (docs/checking.md: the highest generation, then
    the later log by modification time, then the later entry in its log)."""
    logs = sorted(directory.glob("*.log"), key=lambda log: (log.stat().st_mtime_ns, log.name))
    newest = {}
    for log in logs:
        rest = log.read_bytes().partition(b"\n")[2]
        while rest:
            described, _, rest = rest.partition(b"\n")
            header = json.loads(described)
            body, rest = rest[:header["length"]], rest[header["length"] + 1:]
            if header["index"] not in newest or header["generation"] >= newest[header["index"]][0]:
                newest[header["index"]] = header["generation"], body
    return {index: body for index, (_, body) in newest.items()}


def poison(directory, index):
    """Halve every expected score in example `index`'s entry in the run directory's logs and write its log back
    with the entry's checksum recomputed as `oracle.harness.searchcache` computes it (docs/checking.md: sha256 of
    the index in decimal, a newline and the body): a consistent entry whose expectations the oracle does not give.
    Returns how many were changed."""
    changed = 0
    for log in sorted(directory.glob("*.log")):
        head, _, rest = log.read_bytes().partition(b"\n")
        out = [head + b"\n"]
        while rest:
            described, _, rest = rest.partition(b"\n")
            header = json.loads(described)
            body, rest = rest[:header["length"]], rest[header["length"] + 1:]
            if header["index"] == index:
                content_line, _, lines = body.partition(b"\n")
                content = json.loads(content_line)
                for value in content["values"]:
                    expected = value.get("expected")
                    if expected and not expected["rejected"] and isinstance(expected.get("score"), float) \
                            and expected["score"]:
                        expected["score"] /= 2
                        expected["score_exact"] = repr(expected["score"])
                        changed += 1
                body = json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n" + lines
                header = {**header, "length": len(body), "sha256": hashlib.sha256(
                    f"{index}\n{header['generation']}\n".encode() + body).hexdigest()}
            out.append(json.dumps(header, separators=(",", ":")).encode("ascii") + b"\n" + body + b"\n")
        log.write_bytes(b"".join(out))
    return changed


@pytest.mark.parametrize("flags", [(), ("--jobs", "2")])
def test_an_altered_cached_expectation_is_recomputed_discarded_and_said_once(tmp_path, monkeypatch, capsys, flags):
    """Two entries' expectations altered consistently (the checksum fits): the warm run judges the clean fake as the
    cold run did (exit 0, the same records), says so in one warning line naming the cache, and leaves no altered
    value in the cache; the run after it has nothing to say."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("BLEU_ORACLE_SEARCH_CACHE", str(cache))
    assert check(tmp_path / "cold", fake("clean"), *flags, examples=12) == 0
    (directory,) = (path for path in cache.iterdir() if path.is_dir())  # (the marker, CACHEDIR.TAG, beside it)
    written = newest_entries(directory)
    assert poison(directory, 2) and poison(directory, 5)
    capsys.readouterr()
    assert check(tmp_path / "warm", fake("clean"), *flags, examples=12) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1 and str(cache) in warned[0] and "discarded" in warned[0]
    assert comparable(tmp_path / "warm") == comparable(tmp_path / "cold")
    assert check(tmp_path / "after", fake("clean"), *flags, examples=12) == 0
    assert "warning" not in capsys.readouterr().err
    assert comparable(tmp_path / "after") == comparable(tmp_path / "cold")
    # the altered entries were discarded and computed again: the cache is what the cold run wrote
    assert newest_entries(directory) == written


# -- once an example of a block was answered two ways ----------------------------------------------------


def test_after_an_example_answered_two_ways_its_block_shrinks_nothing_and_says_so_in_its_hints():
    from oracle.harness.transport import NONDETERMINISTIC_KIND, SHRINK_BLOCK, shrink_allowed, shrink_hints

    score = ("fail", "score", None)
    earlier = {1: [NONDETERMINISTIC_KIND]}
    assert shrink_allowed(3, score, earlier, 1) is False
    assert shrink_hints(3, score, earlier, {})[0] == ("nondeterministic",)  # (a hint is a cause's parts)
    assert shrink_allowed(1, score, earlier, 1) is True  # only examples before it count
    assert shrink_allowed(0, score, earlier, 1) is True
    assert shrink_allowed(SHRINK_BLOCK + 3, score, earlier, 1) is True  # nor another block's
    assert ("nondeterministic",) not in shrink_hints(SHRINK_BLOCK + 3, score, earlier, {})


def test_a_failure_answered_alike_after_one_answered_two_ways_is_classified_cheaply(tmp_path):
    """With --sticky, a third of the inputs are wrong on their first two calls: sent once more, answered alike. After
    an example of their block was answered two ways, they are neither shrunk nor searched among every explanation
    (the record says why), in the same records with --jobs 2 as with one process."""
    command = fake("nondeterministic", "--sticky")
    assert check(tmp_path / "one", command, examples=40) == 1
    found = deviations(tmp_path / "one")
    first = min(int(r.id.split("~")[0].rsplit("-", 1)[1]) for r in found if r.cause == "nondeterministic")
    cheap = [r for r in found if r.cause == "unexplained" and "not searched" in r.classification.description]
    assert cheap and all(r.shrunk is None for r in cheap)
    assert all(int(r.id.split("~")[0].rsplit("-", 1)[1]) > first for r in cheap)
    assert check(tmp_path / "two", command, "--jobs", 2, examples=40) == 1
    assert comparable(tmp_path / "two") == comparable(tmp_path / "one")
