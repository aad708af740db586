"""`bleu-oracle check` end to end against fake implementations, plus its parts: outcomes, requests, shrinking.

Expected layers come from how each mutant is built (tests/fakes/fakebleu.py),
not from the oracle's output.

Holds: oracle.commands.check, oracle.harness.session, oracle.models.outcomes, oracle.diagnose.judge,
    oracle.diagnose.expect, oracle.harness.shrink, oracle.harness.requests, oracle.diagnose.cover,
    oracle.harness.judging, oracle.harness.reproduction
"""

from __future__ import annotations

import json
import math
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.harness import check, deviations, fake, results, run_cli

from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import Contract, first_divergence, judge
from oracle.harness.requests import case_to_request, is_uniform, not_applicable_reason
from oracle.harness.shrink import shrink
from oracle.harness.transport import Reply
from oracle.models.case import Case
from oracle.models.outcomes import Expected, Outcome
from oracle.models.protocol import Capabilities, ConventionSwitches, ScoreReply, ScoreRequest, Segment, Statistics

ROOT = Path(__file__).resolve().parents[2]

CASES = """\
document: "tiny test document"
seed: "tiny.txt"
cases:
  - id: tiny-exact-match
    title: An exact match scores 1
    source: {document: tiny, section: one, quote: "score 1"}
    profiles: [papineni]
    kind: value
    note: by hand
    input:
      level: corpus
      segments:
        - hypothesis: [the, cat]
          references: [[the, cat]]
    options: {weights: [0.5, 0.5]}
    expect: {score: "1", exact: true, statistics: {hyp_len: 2, ref_len: 2, matches: [2, 1], totals: [2, 1]}}
  - id: tiny-tie
    title: A tie goes to the shorter reference
    source: {document: tiny, section: two, quote: "shorter"}
    profiles: [papineni]
    kind: statement
    note: c = 3, references 2 and 4, both at distance 1
    input:
      level: sentence
      segments:
        - hypothesis: [the, cat, sat]
          references: [[the, cat], [the, cat, sat, mat]]
    options: {weights: [1]}
    expect: {statistics: {ref_len: 2}}
  - id: tiny-negative-weights
    title: Negative weights are rejected
    source: {document: tiny, section: three, quote: "non-negative"}
    profiles: [papineni]
    kind: statement
    note: weights must be non-negative
    input:
      level: corpus
      segments:
        - hypothesis: [the, cat]
          references: [[the, cat]]
    options: {weights: [0.5, -0.5]}
    expect: {rejected: true}
  - id: tiny-override-elsewhere
    title: Under mlpack, ties go to the longer (an override for another profile)
    source: {document: tiny, section: four, quote: "longer"}
    profiles: [mlpack]
    kind: statement
    note: an override for mlpack only
    input:
      level: sentence
      segments:
        - hypothesis: [the, cat, sat]
          references: [[the, cat], [the, cat, sat, mat]]
    options: {weights: [1], reference_length: closest-longer}
    expect: {statistics: {ref_len: 4}}
  - id: tiny-lin
    title: lin-2004 smoothing (not every implementation has it)
    source: {document: tiny, section: five, quote: "lin"}
    profiles: [papineni]
    kind: value
    note: by hand
    input:
      level: sentence
      segments:
        - hypothesis: [the, cat]
          references: [[the, cat]]
    options: {weights: [0.5, 0.5], smoothing: {method: lin-2004}}
    expect: {score: "1", exact: true}
"""

WRONG_DOCUMENT = """\
document: "a document that misprints"
seed: "tiny.txt"
cases:
  - id: tiny-misprinted
    title: The document prints 0.9 for an exact match
    source: {document: tiny, section: one, quote: "0.9"}
    profiles: [papineni]
    kind: value
    note: the printed value is wrong on purpose
    input:
      level: corpus
      segments:
        - hypothesis: [the, cat]
          references: [[the, cat]]
    options: {weights: [0.5, 0.5]}
    expect: {score: 0.9, tolerance: 0.001}
"""


@pytest.fixture
def cases_dir(tmp_path):
    directory = tmp_path / "cases"
    directory.mkdir()
    (directory / "tiny.yaml").write_text(CASES)
    return directory


def outcomes_by_id(report):
    return {r.id: r for r in results(report).records}


def test_check_runs_a_case_file_of_ones_own(tmp_path):
    """--cases FILE: a user's file that cites a URL and names no bundled seed is run like any case; a wrong
    expectation in it is a deviation (exit 1) and the reproduction command names the file."""
    mine = tmp_path / "mine.yaml"
    text = (
        'document: "https://example.org/my-bleu-notes"\n'
        "cases:\n"
        "  - id: my-exact-match\n"
        "    title: an exact match scores 1\n"
        '    source: {document: "https://example.org/my-bleu-notes", section: "2", quote: "scores 1"}\n'
        "    profiles: [papineni]\n"
        "    kind: value\n"
        "    note: by hand\n"
        "    input: {level: corpus, segments: [{hypothesis: [a, b, c, d], references: [[a, b, c, d]]}]}\n"
        '    expect: {score: "1", exact: true}\n')
    mine.write_text(text, encoding="utf-8")
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("clean"), "--cases", mine, "--examples", 0, "--report", report, "--quiet")
    assert code == 0 and outcomes_by_id(report)["my-exact-match"].outcome == "pass"
    mine.write_text(text.replace('score: "1"', 'score: "1/2"'), encoding="utf-8")
    code = run_cli("check", "--command", fake("clean"), "--cases", mine, "--examples", 0, "--report", report, "--quiet")
    record = outcomes_by_id(report)["my-exact-match"]
    assert code == 1 and record.outcome == "fail" and f"--cases {mine}" in record.reproduce


# -- the clean fake passes ---------------------------------------------------------


def test_the_clean_fake_conforms(tmp_path, cases_dir):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("clean"), "--cases", cases_dir, "--examples", 40, "--timeout", 5,
                   "--report", report, "--quiet")
    assert code == 0
    records = outcomes_by_id(report)
    assert records["tiny-exact-match"].outcome == "pass"
    assert records["tiny-tie"].outcome == "pass"
    assert records["tiny-negative-weights"].outcome == "rejected"
    # the case needs ties to the longer reference, which a request may ask for and the fake cannot switch
    assert records["tiny-override-elsewhere"].outcome == "not-applicable"
    assert records["tiny-override-elsewhere"].message == (
        "needs reference_length=closest-longer, which the implementation cannot switch")
    assert records["tiny-lin"].outcome == "not-applicable"
    assert sum(1 for r in records.values() if r.kind == "example" and "~" not in r.id) == 40  # companions aside
    # an input that must be refused (a companion, random-S-I~refused) is rejected; every other example passes
    assert all(r.outcome == ("rejected" if r.id.endswith("~refused") else "pass")
               for r in records.values() if r.kind == "example")
    for name in ("results.jsonl", "summary.md", "junit.xml"):
        assert (report / name).is_file()


def test_the_clean_fake_conforms_under_matlab_and_without_statistics(tmp_path):
    assert check(tmp_path / "a", fake("clean_matlab"), examples=40) == 0
    assert results(tmp_path / "a").header.judged_profile == "matlab"
    assert check(tmp_path / "b", fake("clean", "--no-stats"), examples=40) == 0
    assert check(tmp_path / "c", fake("clean", "--uniform"), examples=40) == 0


# -- every mutant is caught, at the layer its bug is in ------------------------------

MUTANTS = [
    ("mutant_no_clipping", {"matches"}),
    ("mutant_max_ref_sum", {"matches"}),
    ("mutant_ties_longer", {"ref_len"}),
    ("mutant_mean_sentence", {"score"}),
    ("mutant_normalise_weights", {"score"}),
    ("mutant_weights_as_given", {"score"}),
    ("mutant_bp_always", {"bp"}),
    ("mutant_bp_missing", {"bp"}),
    ("mutant_totals_off_by_one", {"totals"}),
    ("mutant_lowercase_ignored", {"matches"}),
    ("mutant_references_lowercased_only", {"matches"}),
    ("mutant_hypothesis_lowercased_only", {"matches"}),
    ("mutant_empty_order_one", {"score"}),
    # float32: the score and BP carry ~1e-7 relative error, far beyond the default rel 1e-9
    ("mutant_float32", {"score", "bp"}),
]


@pytest.fixture(scope="module")
def mutant_run(tmp_path_factory):
    """`check` of a mutant with 40 examples, run once per mutant (per worker: each mutant's tests share an
    xdist_group): the tests below read the same run's records, and none writes to its report."""
    runs = {}

    def run(mutant):
        if mutant not in runs:
            report = tmp_path_factory.mktemp(mutant) / "report"
            runs[mutant] = (check(report, fake(mutant), examples=40), report)
        return runs[mutant]
    return run


def one_run_each(table):
    """`table`'s rows as parameters, each in its mutant's xdist_group, so that its run happens on one worker."""
    return [pytest.param(mutant, expected, id=mutant, marks=pytest.mark.xdist_group(f"check-{mutant}"))
            for mutant, expected in table]


@pytest.mark.parametrize("mutant, layers", one_run_each(MUTANTS))
def test_each_mutant_is_caught_at_its_layer(mutant_run, mutant, layers):
    code, report = mutant_run(mutant)
    assert code == 1
    failing = [r for r in deviations(report) if r.kind != "metamorphic"]  # relations: tested on their own
    assert failing and all(r.outcome == "fail" for r in failing)
    assert {r.layer for r in failing} <= layers, {r.layer for r in failing}
    for record in failing:
        assert record.label == f"fail:{record.layer}"
        assert record.classification.name  # every failing record is classified
        assert record.reproduce.startswith("bleu-oracle check --command ")
        assert "--replay" in record.reproduce or record.kind == "series"  # a series: the whole series again
        if record.layer in ("matches", "totals"):
            assert record.order >= 1
    assert_shrunk_first_of_each_kind(failing)


@pytest.mark.parametrize("mutant, cause", one_run_each([
    ("mutant_references_lowercased_only", "case-folded-references-only"),
    ("mutant_hypothesis_lowercased_only", "case-folded-hypothesis-only"),
    ("mutant_hypothesis_always_lowercased", "case-folded-hypothesis-only"),
]))
def test_case_folded_on_one_side_only_is_one_cause(mutant_run, mutant, cause):
    """Issue 36: a fake that folds one side only, where the request folds both, is one bug with one name. A single
    record fits other mechanisms by chance ("The" against a folded "the" counts 0 matches, as strict clipping's
    m - 1 does), so without a name for one side folded the run came back as four causes, strict-clipping one. The
    same where the fake folds its hypothesis whatever the request asks: its failing records are those whose request
    keeps case (before, `other-counting-of-matches` and four more)."""
    code, report = mutant_run(mutant)
    assert code == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name]
    assert failing and all(cause in r.classification.signature for r in failing)
    assert not any(r.classification.name == "strict-clipping" for r in failing)
    summary = (report / "summary.md").read_text()
    assert f"By root cause: {cause} x{len(failing)}." in summary
    assert "strict-clipping" not in summary


def assert_shrunk_first_of_each_kind(failing):
    """The first failing example of each kind (outcome, layer, order) in each block of examples is shrunk,
    and only it (`check --shrink-first`'s default, 1)."""
    from oracle.harness.transport import SHRINK_BLOCK, failure_kind

    first = {}
    for record in failing:  # (in the stream's order: by example, an example's companions after it)
        index = int(record.id.split("~")[0].rsplit("-", 1)[1])
        kind = failure_kind(record.kind, record.outcome.value, record.layer, record.order), index // SHRINK_BLOCK
        assert (record.shrunk is not None) == (first.setdefault(kind, index) == index), record.id


def _searched_ways(report):
    """(id, root cause, description) of each failing record of a run: what a run must repeat exactly."""
    return [(r.id, r.cause, r.classification.description) for r in deviations(report)]


def test_a_failure_is_searched_among_every_explanation_unless_every_shrunk_one_of_its_kind_stayed_unexplained():
    from oracle.harness.session import search_among_all

    # (hints are causes as their parts: `Classification.parts`)
    unexplained, float32 = ("unexplained",), ("float32",)
    assert not search_among_all((unexplained,))
    assert not search_among_all((unexplained, unexplained))  # (--shrink-first 2: both stayed unexplained)
    assert search_among_all((unexplained, float32))  # one of them was named: the later ones may be too
    assert search_among_all((("statistics-differ",),))  # a pseudo-class is a name: the score agreed
    # what is known of a difference names no mechanism: a kind named so is cut as an unexplained one is
    known = ("other-counting-of-hyp_len", "other-weighting-of-precisions")
    assert not search_among_all((("other-combination",), known))
    assert not search_among_all((("other-counting-of-matches",),))
    assert search_among_all((("other-combination",), ("weights-not-passed-on",)))
    assert search_among_all((("strict-clipping", "other-scale-of-score"),))  # one part names a mechanism


def test_after_its_kind_stayed_unexplained_a_failure_is_searched_among_documented_classes_only(tmp_path):
    """The fake returns the score raised to the power 1.1 (tests/fakes/fakebleu.py), which no explanation names. The
    first failure of each kind in each block of examples is shrunk and searched among every explanation; a later
    failure of its kind in the block, where every shrunk one stayed unexplained, is searched among the documented
    classes only (the fake has none: so it stays unexplained), and its description says that the search among every
    explanation was not run, and why (`session.search_among_all`). Deterministic: a second run, and a run with
    --jobs 2, give the same records the same causes and descriptions."""
    from oracle.harness.session import names_a_mechanism
    from oracle.harness.transport import SHRINK_BLOCK, failure_kind

    command = fake("mutant_unnamed_score_power")
    assert check(tmp_path / "one", command, examples=SHRINK_BLOCK + 10) == 1
    failing = deviations(tmp_path / "one")
    assert failing and {r.outcome for r in failing} == {"fail"}
    assert_shrunk_first_of_each_kind(failing)
    shrunk = {}
    cut = 0
    for record in failing:
        index = int(record.id.split("~")[0].rsplit("-", 1)[1])
        kind = failure_kind(record.kind, record.outcome.value, record.layer, record.order), index // SHRINK_BLOCK
        description = record.classification.description
        if record.shrunk is not None:
            shrunk.setdefault(kind, []).append(record.classification.parts)
            assert "was not run" not in description, record.id
            continue
        if not any(names_a_mechanism(cause) for cause in shrunk[kind]):  # unexplained, or only what is known
            cut += 1
            first = kind[1] * SHRINK_BLOCK
            assert not names_a_mechanism(record.classification.parts), record.id  # what is known of it at most
            assert "the search among every explanation was not run: the shrunk failure" in description, record.id
            assert f"in examples {first}-{first + SHRINK_BLOCK - 1} stayed unexplained" in description, record.id
        else:  # a shrunk one was named (a coincidental fit): the later ones are searched as before
            assert "was not run" not in description, record.id
    assert cut > len(failing) // 2  # (only the first of each kind in a block is shrunk)
    assert check(tmp_path / "again", command, examples=SHRINK_BLOCK + 10) == 1
    assert _searched_ways(tmp_path / "again") == _searched_ways(tmp_path / "one")
    assert check(tmp_path / "two", command, "--jobs", 2, examples=SHRINK_BLOCK + 10) == 1
    assert _searched_ways(tmp_path / "two") == _searched_ways(tmp_path / "one")


@pytest.mark.parametrize("mutant", ["mutant_ties_longer", "mutant_no_clipping", "mutant_bp_missing"])
def test_without_statistics_the_layer_is_the_score(tmp_path, mutant):
    report = tmp_path / "report"
    assert check(report, fake(mutant, "--no-stats"), examples=40) == 1
    assert {r.layer for r in deviations(report)} == {"score"}


def test_a_case_names_the_layer_too(tmp_path, cases_dir):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("mutant_ties_longer"), "--cases", cases_dir, "--examples", 0,
                   "--report", report, "--quiet")
    assert code == 1
    tie = outcomes_by_id(report)["tiny-tie"]
    assert tie.outcome == "fail" and tie.layer == "ref_len"
    assert "expected 2, got 4" in tie.message
    assert "--id tiny-tie" in tie.reproduce


# -- every failing record is classified by root cause ---------------------------------
# The expected class follows from how each mutant is built (tests/fakes/fakebleu.py).

CLASSIFIED_MUTANTS = [
    ("mutant_ties_longer", {"reference_length=closest-longer"}),
    ("mutant_mean_sentence", {"mean-of-sentence-scores"}),
    ("mutant_normalise_weights", {"weights=normalise"}),
    ("mutant_float32", {"float32"}),
]


@pytest.mark.parametrize("mutant, classes", one_run_each(CLASSIFIED_MUTANTS))
def test_failing_records_carry_their_root_cause(mutant_run, mutant, classes):
    code, report = mutant_run(mutant)
    assert code == 1
    records = results(report).records
    failing = [r for r in records if r.outcome == "fail"]
    # a wrong BP under a score of exactly 0 (no match) leaves the score nothing to explain: statistics-differ
    bp_only = [r for r in failing if r.classification.name == "statistics-differ"]
    assert all(r.layer == "bp" and r.oracle_answer() == 0 for r in bp_only), bp_only
    failing = [r for r in failing if r not in bp_only]
    assert failing and {r.classification.name for r in failing} == classes
    for record in failing:
        classification = record.classification
        assert classification.description and classification.scope
        # the explanation's value is the implementation's answer on the shrunk input
        assert classification.value == pytest.approx(record.answer(), rel=1e-5 if "float32" in classes else 1e-9,
                                                      nan_ok=True)
    assert all(r.classification is None for r in records if r.outcome == "pass")


def test_a_case_record_is_classified_and_the_summary_counts_classes(tmp_path, cases_dir, capsys):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("mutant_ties_longer"), "--cases", cases_dir, "--examples", 20,
                   "--report", report)
    assert code == 1
    tie = outcomes_by_id(report)["tiny-tie"]
    assert tie.classification.name == "reference_length=closest-longer"
    assert tie.classification.change == (("reference_length", "closest-longer"),)
    out = capsys.readouterr().out
    assert "root cause: reference_length=closest-longer" in out
    count = sum(1 for r in results(report).records if r.cause
                == "reference_length=closest-longer")
    assert f"root causes: reference_length=closest-longer x{count}" in out
    summary = (report / "summary.md").read_text()
    assert "## Root causes" in summary
    assert f"| `reference_length=closest-longer` | {count} |" in summary
    assert "By root cause: reference_length=closest-longer" in summary
    assert "- root cause: `reference_length=closest-longer`" in summary


@pytest.mark.parametrize(("mutant", "cause", "also"), [
    # a case with one "the" in each of two references, two in the hypothesis: the sum of the references'
    # counts (2) and no clipping at all (2) both give the fake's answer; the run's other records fit the sum only
    ("mutant_max_ref_sum", "clipped-to-reference-sum", "unclipped-matches"),
    # an empty order scored as one: some records' inputs fit skipping it as well
    ("mutant_empty_order_one", "empty_order=one", "empty_order=skip"),
])
def test_summary_md_and_junit_name_each_record_by_the_runs_cause(tmp_path, mutant, cause, also):
    """One bug, one name in every report a user reads: the records whose own first name is another explanation
    that fits them as well are named by the run's cause, saying what else their input fits."""
    report = tmp_path / "report"
    assert run_cli("check", "--command", fake(mutant), "--examples", 40, "--report", report, "--quiet") == 1
    records = [r for r in results(report).records if r.classification is not None and r.classification.name]
    assert any(r.classification.name == also for r in records)  # the records this test is about
    assert all(cause in r.classification.signature for r in records)
    summary = (report / "summary.md").read_text()
    assert f"By root cause: {cause} x{len(records)}." in summary
    assert f"- root cause: `{cause}` (this input fits `{also}` as well): " in summary
    assert f"- root cause: `{also}`" not in summary
    junit = (report / "junit.xml").read_text()
    assert f"root cause: {cause} (this input fits {also} as well): " in junit
    assert f"root cause: {also}:" not in junit


def test_failures_that_are_not_a_wrong_number_get_an_outcome_class(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("crash_third"), "--max-restarts", 0, examples=5) == 1
    crashed = [r for r in results(report).records if r.outcome == "crash"]
    assert crashed and all(r.classification.scope == "outcome" for r in crashed)
    # the first crash is probed in processes of its own (oracle/harness/crashcauses.py): the fake dies on the 3rd
    # request of a process whatever it is sent; the rest, not attempted once no restart is left, stay `crash`
    assert crashed[0].classification.name == "crash-after-2-requests"
    assert all(r.classification.name == "crash" for r in crashed[1:])


def test_float32_passes_under_a_looser_contract(tmp_path):
    # Decided: the default contract (rel 1e-9) is a float64 contract, so float32 arithmetic fails it;
    # single precision is ~6e-8 relative, which a contract of rel 1e-5 accepts.
    assert check(tmp_path / "r", fake("mutant_float32"), "--rel", "1e-5", "--abs", "1e-6", examples=40) == 0


def test_the_wrong_seq_mutant_is_a_protocol_error(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("wrong_seq"), examples=20) == 1
    records = results(report).records
    assert {r.outcome for r in records} == {"protocol-error"}
    assert "wrong seq" in records[0].message


def test_a_rejection_of_a_valid_input_and_a_score_for_an_invalid_one_both_fail(tmp_path, cases_dir):
    # the clean fake with --profile mlpack declared... is judged here against papineni by a command
    # whose declared profile differs; simpler: a fake that rejects everything
    script = tmp_path / "reject_all.py"
    script.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'tests' / 'fakes')!r})\n"
        "import fakebleu\n"
        "fakebleu.answer = lambda request, *a: {'seq': request['seq'], 'rejected': 'I reject everything'}\n"
        "fakebleu.serve()\n"
    )
    report = tmp_path / "report"
    code = run_cli("check", "--command", shlex.join([sys.executable, str(script)]), "--cases", cases_dir,
                   "--examples", 5, "--report", report, "--quiet")
    assert code == 1
    records = outcomes_by_id(report)
    assert records["tiny-negative-weights"].outcome == "rejected"
    assert records["tiny-exact-match"].outcome == "fail" and records["tiny-exact-match"].layer == "rejection"
    assert records["random-0-0"].layer == "rejection"


def test_the_document_value_is_checked_when_the_profile_is_the_cases(tmp_path):
    directory = tmp_path / "cases"
    directory.mkdir()
    (directory / "wrong.yaml").write_text(WRONG_DOCUMENT)
    report = tmp_path / "report"
    assert run_cli("check", "--command", fake("clean"), "--cases", directory, "--examples", 0,
                   "--report", report, "--quiet") == 1
    record = outcomes_by_id(report)["tiny-misprinted"]
    assert record.outcome == "fail" and record.layer == "document"
    # judged against another profile, only the oracle's value counts
    assert run_cli("check", "--command", fake("clean"), "--profile", "matlab", "--cases", directory,
                   "--examples", 0, "--report", report, "--quiet") == 0


def test_profile_overrides_the_declared_one(tmp_path, cases_dir):
    report = tmp_path / "report"
    code = run_cli("check", "--command", fake("clean"), "--profile", "mlpack", "--cases", cases_dir,
                   "--examples", 40, "--report", report, "--quiet")
    assert code == 1
    data = results(report)
    assert data.header.profile == "papineni" and data.header.judged_profile == "mlpack"
    records = outcomes_by_id(report)
    # the mlpack override case differs from mlpack's shortest reference too: it needs a switch the fake lacks
    assert records["tiny-override-elsewhere"].outcome == "not-applicable"
    assert "needs reference_length=closest-longer" in records["tiny-override-elsewhere"].message
    # mlpack takes the shortest reference: the fake's closest diverges at ref_len
    assert "ref_len" in {r.layer for r in data.records if r.kind == "example"}


# -- misbehaving implementations: the run completes, reports are written, exit is non-zero -----


def assert_complete(report):
    data = results(report)
    assert data.footer is not None
    for name in ("summary.md", "junit.xml"):
        assert (report / name).is_file()
    return data


def test_a_crashing_implementation_is_restarted_then_given_up(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("crash_third"), examples=30, timeout=5) == 1
    data = assert_complete(report)
    outcomes = [r.outcome for r in data.records if r.kind != "metamorphic" and "~" not in r.id]  # companions aside
    assert len(outcomes) == 30
    assert outcomes[:3] == ["pass", "pass", "crash"]
    assert data.footer.restarts == 3
    crashes = [r for r in data.records if r.outcome == "crash"]
    assert "RuntimeError" in crashes[0].stderr
    assert crashes[-1].message.startswith("not attempted")
    assert data.footer.counts["crash"] == len(crashes) and len(crashes) > 4


def test_a_hanging_request_times_out_and_the_rest_still_run(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("hang_seq2"), examples=15, timeout=1) == 1
    data = assert_complete(report)
    assert [r.outcome for r in data.records].count("timeout") == 1
    assert data.records[1].outcome == "timeout"
    assert all(r.outcome == ("rejected" if r.id.endswith("~refused") else "pass")
               for r in data.records if r.outcome != "timeout")
    assert data.footer.restarts == 1


def test_garbage_is_a_protocol_error_and_the_run_completes(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("garbage"), examples=15) == 1
    data = assert_complete(report)
    assert {r.outcome for r in data.records} == {"protocol-error"}
    assert "not JSON" in data.records[0].message
    assert data.records[0].actual.raw == "this is not JSON, sorry"


@pytest.mark.parametrize("name, message", [("no_handshake", "no handshake"), ("protocol2", "protocol 2")])
def test_an_implementation_that_cannot_be_driven_exits_3(tmp_path, name, message):
    report = tmp_path / "report"
    assert check(report, fake(name), examples=5, timeout=1) == 3
    data = assert_complete(report)
    assert message in data.header.handshake_error
    assert data.footer.exit_code == 3 and data.records == []
    assert "could not be driven" in (report / "summary.md").read_text()


def test_a_missing_program_exits_3(tmp_path):
    assert check(tmp_path / "r", str(tmp_path / "nothing-here"), examples=5) == 3


def test_a_chatty_implementation_is_fine_and_its_stderr_is_recorded(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("chatty"), examples=10, timeout=10) == 0
    stderr = results(report).records[0].stderr
    assert "chatty stderr line" in stderr and "not kept" in stderr


def test_an_uncaptured_stderr_goes_to_its_log_and_not_into_the_replies(tmp_path):
    """A report column's driver: its stderr is kept off the records (clock readings) and, given a log, written
    there (appended across requests) rather than over the runner's own stderr."""
    from fakes.harness import fake_argv

    from oracle.harness.transport import ImplementationProcess

    log = tmp_path / "driver.stderr"
    command = {"cmd": "score", "seq": 1, "level": "sentence", "weights": [1.0], "smoothing": {"method": "none"},
               "lowercase": False, "segments": [{"hypothesis": ["a"], "references": [["a"]]}]}
    with ImplementationProcess(fake_argv("chatty"), timeout=10, capture_stderr=False, stderr_log=log) as process:
        process.start()
        first = process.request(command)
        second = process.request({**command, "seq": 2})
    assert first.kind == second.kind == "score" and first.stderr == second.stderr == ""
    assert log.read_text(encoding="utf-8").count("chatty stderr line") >= 2


# -- usage and configuration errors exit 2 -------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["check"],
    ["check", "--command", "x", "--impl", "y"],
    ["check", "--command", "x", "--examples", "-1"],
    ["check", "--command", "x", "--timeout", "0"],
    ["check", "--command", "x", "--rel", "-1"],
    ["check", "--command", "x", "--profile", "nope"],
    ["check", "--command", "x", "--cases", "/no/such/dir"],
    ["check", "--command", "x", "--replay", "{not json"],
    ["check", "--command", "x", "--replay", '{"level": "corpus"}'],
    ["check", "--command", "x", "--baseline", "/no/such/baseline.yaml"],
    ["check", "--command", "'unterminated"],
    ["check", "--impl", "no-such-adapter"],
])
def test_usage_errors_exit_2(tmp_path, argv):
    assert run_cli(*argv, "--report", tmp_path / "r") == 2


def test_an_unknown_declared_profile_is_a_configuration_error_unless_given(tmp_path):
    assert check(tmp_path / "a", fake("clean", "--profile", "made-up"), examples=5) == 2
    assert check(tmp_path / "b", fake("clean", "--profile", "made-up"), "--profile", "papineni", examples=5) == 0


# -- determinism, selection, reproduction ----------------------------------------------------


def requests_of(report, kinds=("case", "example", "metamorphic")):
    """The requests sent, without their seq (which counts every request sent before)."""
    return [r.request.model_dump_json(exclude={"seq"}) for r in results(report).records
            if r.kind in kinds and (r.kind != "example" or "~" not in r.id)]  # an example's own request


def test_the_search_is_deterministic_for_a_seed(tmp_path):
    check(tmp_path / "a", fake("clean"), "--seed", 5, examples=25)
    check(tmp_path / "b", fake("clean"), "--seed", 5, examples=25)
    check(tmp_path / "c", fake("clean"), "--seed", 6, examples=25)
    assert requests_of(tmp_path / "a") == requests_of(tmp_path / "b")
    assert requests_of(tmp_path / "a") != requests_of(tmp_path / "c")
    ids = [r.id for r in results(tmp_path / "a").records]
    assert ids[:3] == ["random-5-0", "random-5-1", "random-5-2"]
    assert ids[3].startswith("random-5-2~")  # a metamorphic relation on every third passing example


def test_only_selects_examples_and_cases(tmp_path, cases_dir):
    report = tmp_path / "report"
    run_cli("check", "--command", fake("clean"), "--cases", cases_dir, "--examples", 30, "--seed", 3,
            "--id", "random-3-17", "--id", "tiny-t*", "--report", report, "--quiet")
    assert [r.id for r in results(report).records] == ["tiny-tie", "random-3-17"]
    check(tmp_path / "all", fake("clean"), "--seed", 3, examples=30)
    assert requests_of(tmp_path / "all", kinds=("example",))[17] == requests_of(report)[1]


def _run_reproduction(command, report):
    argv = shlex.split(command)
    assert argv[:2] == ["bleu-oracle", "check"]
    return run_cli(*argv[1:], "--report", report, "--quiet")


def test_the_reproduction_line_replays_the_minimal_input(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("mutant_no_clipping"), examples=30) == 1
    record = deviations(report)[0]
    shrunk = record.shrunk
    assert shrunk.steps > 0 and shrunk.layer == "matches"
    # minimal: one segment, one reference, uniform weights, no smoothing, short sequences
    minimal = record.replay
    assert len(minimal.segments) == 1 and len(minimal.segments[0].references) == 1
    assert minimal.smoothing.method == "none" and len(minimal.weights) == 1
    assert len(minimal.segments[0].hypothesis) <= 2
    replay = tmp_path / "replay"
    assert _run_reproduction(record.reproduce, replay) == 1
    replayed = results(replay).records
    assert len(replayed) == 1 and replayed[0].kind == "replay"
    assert replayed[0].layer == "matches"
    # the same input passes against the clean fake
    assert run_cli("check", "--command", fake("clean"), "--replay", json.dumps(minimal.replay_payload()),
                   "--report", tmp_path / "clean", "--quiet") == 0


def test_a_results_file_can_be_replayed(tmp_path):
    report = tmp_path / "report"
    check(report, fake("mutant_bp_missing"), examples=30)
    failing = len(deviations(report))
    replay = tmp_path / "replay"
    assert run_cli("check", "--command", fake("mutant_bp_missing"), "--replay", report / "results.jsonl",
                   "--report", replay, "--quiet") == 1
    assert len(results(replay).records) == failing
    assert {r.layer for r in results(replay).records} == {"bp"}


def test_check_impl_oracle_drives_the_built_in_server(tmp_path):
    report = tmp_path / "report"
    assert run_cli("check", "--impl", "oracle", "--profile", "nltk", "--no-cases", "--examples", 20,
                   "--report", report, "--quiet") == 0
    data = results(report)
    assert data.header.implementation.name == "oracle" or "oracle" in data.header.implementation.name
    assert data.header.profile == "nltk" and "--profile nltk" in data.header.settings.command


def test_the_real_cli_has_the_verbs(tmp_path):
    report = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "oracle", "check", "--command", fake("clean"), "--no-cases", "--examples", "5",
         "--report", str(report)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "conforming" in done.stdout
    assert "check: 5/5" in done.stderr
    help_text = subprocess.run([sys.executable, "-m", "oracle", "check", "--help"], cwd=ROOT,
                               capture_output=True, text=True, timeout=60).stdout
    for option in ("--impl", "--command", "--profile", "--cases", "--examples", "--seed", "--baseline", "--report",
                   "--junit", "--timeout", "--rel", "--abs", "--replay", "--id", "--max-restarts",
                   "--shrink-budget", "--no-cases", "--quiet"):
        assert option in help_text, option


# -- the parts: numeric contract, layers, requests, shrinking -------------------------------


def test_the_numeric_contract():
    contract = Contract(rel=1e-9, abs=1e-12)
    assert contract.close(1.0, 1.0 + 5e-10)
    assert not contract.close(1.0, 1.0 + 5e-9)
    assert contract.close(0.0, 5e-13) and not contract.close(0.0, 5e-12)
    assert contract.close(math.nan, math.nan)
    assert not contract.close(math.nan, 0.0) and not contract.close(0.0, math.nan)
    assert contract.close(math.inf, math.inf) and not contract.close(math.inf, 1e308)


STATS = {"hyp_len": 5, "ref_len": 6, "matches": [4, 2, 1], "totals": [5, 4, 3], "bp": math.exp(1 - 6 / 5)}


def test_the_first_diverging_layer_follows_the_derivation():
    expected = Statistics(**STATS)

    def divergence(**changes):
        return first_divergence(expected, Statistics(**{**STATS, **changes}))

    assert divergence() is None
    assert divergence(hyp_len=6, matches=[0, 0, 0])[0] == "hyp_len"
    assert divergence(ref_len=5, bp=1.0)[0] == "ref_len"
    # order by order: matches[1] before totals[2], totals[1] before matches[2]
    assert divergence(matches=[4, 3, 1], totals=[5, 4, 2])[:2] == ("matches", 2)
    assert divergence(matches=[4, 2, 0], totals=[5, 3, 3])[:2] == ("totals", 2)
    assert divergence(matches=[4, 2])[:2] == ("matches", 3)
    assert divergence(bp=1.0)[0] == "bp"
    assert divergence(bp=None) is None  # statistics without BP: BP is not compared
    empty = Statistics(hyp_len=0, ref_len=0, matches=[0], totals=[0], bp=math.nan)
    assert first_divergence(empty, empty.model_copy(update={"bp": 1.0})) is None  # 0/0: not compared


def test_judge_maps_replies_to_outcomes():
    expected = Expected(score=0.5, statistics=STATS)
    ok = Reply("score", ScoreReply.from_json({"seq": 1, "score": 0.5, "statistics": dict(STATS)}))
    assert judge(expected, ok).outcome is Outcome.PASS
    assert judge(expected, Reply("score", ScoreReply.from_json({"seq": 1, "score": 0.6}))).layer == "score"
    assert judge(expected, Reply("rejected", message="no")).layer == "rejection"
    assert judge(Expected(rejected=True), Reply("rejected", message="no")).outcome is Outcome.REJECTED
    assert judge(Expected(rejected=True), ok).layer == "rejection"
    for kind, outcome in (("crash", Outcome.CRASH), ("timeout", Outcome.TIMEOUT),
                          ("protocol-error", Outcome.PROTOCOL_ERROR), ("error", Outcome.ERROR),
                          ("unsupported", Outcome.ERROR)):
        assert judge(expected, Reply(kind, message="x")).outcome is outcome
    nan = Expected(score=math.nan)
    assert judge(nan, Reply("score", ScoreReply.from_json({"seq": 1, "score": "NaN"}))).outcome is Outcome.PASS
    assert judge(nan, Reply("score", ScoreReply.from_json({"seq": 1, "score": 0.0}))).outcome is Outcome.FAIL


def test_case_to_request_with_the_real_loader(cases_dir):
    from oracle.suite.cases import load_cases

    items = {c.id: case_to_request(c, seq=0, profile="papineni") for c in load_cases(cases_dir)}
    exact = items["tiny-exact-match"]
    assert exact.request.weights == (0.5, 0.5) and exact.request.level == "corpus"
    assert dict(exact.request.smoothing) == {"method": "none"}
    assert exact.document["score"] == 1.0 and exact.document["tolerance"] is None
    assert exact.document["statistics"]["matches"] == [2, 1]
    assert items["tiny-negative-weights"].document == {"rejected": True}
    assert items["tiny-override-elsewhere"].overrides == {"reference_length": "closest-longer"}
    assert dict(items["tiny-lin"].request.smoothing) == {"method": "lin-2004"}
    # unset options take the judged profile's defaults
    sacre = case_to_request(load_cases(cases_dir)[0], seq=0, profile="sacrebleu")
    assert sacre.request.weights == (0.5, 0.5)


def test_case_to_request_with_a_case_built_from_a_plain_mapping():
    case = Case.model_validate({
        "id": "m", "title": "t", "source": {"document": "d", "section": "s", "quote": "q"}, "profiles": ["nltk"],
        "kind": "value", "input": {"level": "sentence", "segments": [{"hypothesis": ["a"], "references": [["a"]]}]},
        "options": {"smoothing": {"method": "floor"}, "reference_length": "shortest"},
        "expect": {"score": 0.5, "tolerance": 0.01}})
    item = case_to_request(case, seq=0, profile="sacrebleu")
    assert item.request.weights == (0.25,) * 4
    assert dict(item.request.smoothing) == {"method": "floor", "value": 0.1}
    assert item.overrides == {"reference_length": "shortest"}
    assert item.document == {"score": 0.5, "tolerance": 0.01}


def test_applicability():
    caps = Capabilities(levels=["corpus"], weights="uniform", max_order=4, smoothing=["none"], statistics=False,
                        lowercase=False)
    base = ScoreRequest(
        seq=0,
        level="corpus",
        segments=(Segment(hypothesis=("a",), references=(("a",),)),),
        weights=(0.25,) * 4,
        smoothing={"method": "none"},
        lowercase=False,
    )
    assert not_applicable_reason(base, caps) is None
    changed = lambda **kw: ScoreRequest(**{**base.__dict__, **kw})  # noqa: E731
    assert "level" in not_applicable_reason(changed(level="sentence"), caps)
    assert "uniform" in not_applicable_reason(changed(weights=(0.5, 0.5, 0, 0)), caps)
    assert "uniform" in not_applicable_reason(changed(weights=(1.0, 1.0)), caps)  # equal, but not 1/N
    assert "max_order" in not_applicable_reason(changed(weights=(0.2,) * 5), caps)
    assert "smoothing" in not_applicable_reason(changed(smoothing={"method": "exp"}), caps)
    assert "lowercase" in not_applicable_reason(changed(lowercase=True), caps)
    shortest = changed(conventions={"reference_length": "shortest"})
    assert "needs reference_length=shortest, which the implementation cannot switch" in not_applicable_reason(
        shortest, caps)
    switching = caps.model_copy(update={"conventions": ConventionSwitches(reference_length=["shortest"])})
    assert not_applicable_reason(shortest, switching) is None
    assert is_uniform((1 / 3,) * 3) and not is_uniform((1.0, 1.0))


def test_oracle_expected_rejects_what_the_oracle_rejects():
    request = ScoreRequest(
        seq=0,
        level="sentence",
        segments=(Segment(hypothesis=("a",), references=()),),
        weights=(1.0,),
        smoothing={"method": "none"},
        lowercase=False,
    )
    assert oracle_expected(request, "papineni").rejected
    # (a sentence-level request with two segments cannot be built: the protocol model refuses it)
    with pytest.raises(ValueError, match="exactly one segment at sentence level"):
        ScoreRequest(level="sentence", segments=(Segment(hypothesis=("a",), references=(("a",),)),) * 2, weights=(1.0,))


def test_shrink_finds_a_minimal_input():
    # the "bug": fails whenever some hypothesis holds the same token twice
    def fails(request):
        return any(len(s.hypothesis) != len(set(s.hypothesis)) for s in request.segments)

    start = ScoreRequest(
        seq=0,
        level="corpus",
        segments=(
            Segment(hypothesis=("x", "y", "z"), references=(("x", "y"),)),
            Segment(
                hypothesis=("q", "r", "The", "s", "The", "t"), references=(("r", "The"), ("the",), ("u", "v", "w"))
            ),
            Segment(hypothesis=(), references=((),)),
        ),
        weights=(0.1, 0.5, 0.0, 2.0),
        smoothing={"method": "floor", "value": 0.5},
        lowercase=True,
    )
    result = shrink(start, fails, capabilities=Capabilities(levels=["corpus"], weights="any", max_order=4,
                                                             smoothing=["none", "floor"], statistics=False,
                                                             lowercase=True))
    minimal = result.request
    assert minimal.segments == (Segment(hypothesis=("a", "a"), references=((),)),)
    assert minimal.weights == (1.0,) and dict(minimal.smoothing) == {"method": "none"} and minimal.lowercase is False
    assert not result.exhausted and result.steps > 0


def test_shrink_respects_its_budget():
    result = shrink(
        ScoreRequest(
            seq=0,
            level="corpus",
            segments=(Segment(hypothesis=("a", "a", "b"), references=(("a",),)),),
            weights=(1.0,),
            smoothing={"method": "none"},
            lowercase=False,
        ),
        lambda r: True,
        budget=3,
    )
    assert result.queries == 3 and result.exhausted


def test_rename_keeps_what_lowercasing_merges():
    # fails only while a hypothesis token and a reference token differ but fold to the same
    def fails(request):
        s = request.segments[0]
        return request.lowercase and any(
            h != r and h.lower() == r.lower() for h in s.hypothesis for ref in s.references for r in ref
        )

    start = ScoreRequest(
        seq=0,
        level="corpus",
        segments=(Segment(hypothesis=("Ça", "été"), references=(("ça", "x"),)),),
        weights=(1.0,),
        smoothing={"method": "none"},
        lowercase=True,
    )
    minimal = shrink(start, fails).request
    assert minimal.segments == (Segment(hypothesis=("A",), references=(("a",),)),) and minimal.lowercase


def test_the_printed_deviations_are_grouped_by_root_cause_each_input_once(tmp_path, capsys):
    code = run_cli("check", "--command", fake("mutant_ties_longer"), "--no-cases", "--examples", 60,
                   "--report", tmp_path / "r")
    out = capsys.readouterr().out
    assert code == 1
    heads = [line for line in out.splitlines() if line.startswith("FAIL x")]
    assert len(heads) == 1 and "random-0-" in heads[0]  # one root cause: one group
    inputs = [line for line in out.splitlines() if line.strip().startswith("input: ")]
    assert inputs and len(inputs) == len(set(inputs)) <= 3
    assert "root cause: reference_length=closest-longer" in out
    assert not [line for line in out.splitlines() if line.rstrip().endswith(":")]


def test_v_prints_every_distinct_minimal_input_in_full(tmp_path, capsys):
    """Without -v, a group shows at most 3 distinct inputs; -v shows every one the session kept."""
    argv = ["check", "--command", fake("mutant_ties_longer"), "--no-cases", "--examples", 60]
    assert run_cli(*argv, "--report", tmp_path / "a") == 1
    short = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("input: ")]
    assert run_cli(*argv, "--report", tmp_path / "b", "-v") == 1
    full = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("input: ")]
    assert len(short) == 3 and len(full) > 3 and full[:3] == short, (short, full)
    assert len(full) == len(set(full))


def test_the_header_records_the_settings_the_command_line_gave():
    """What results.jsonl's header says of a run is made from its SessionSettings alone (`run_settings`), with what
    only the verb knows added: each value below is the one on the command line (or its documented default)."""
    from oracle.cli import build_parser
    from oracle.commands.common import read_shard_option
    from oracle.harness.session import SessionSettings

    args = build_parser().parse_args(["check", "--command", "my-bleu --fast", "--seed", "4", "--examples", "9",
                                      "--id", "nltk-*", "--strict", "--shard", "1/1", "--baseline", "b.yaml",
                                      "--series-length", "3", "--rel", "1e-5"])
    read_shard_option(args)
    settings = SessionSettings.from_args(args)
    recorded = settings.run_settings("check", ["my-bleu", "--fast"], cases="91 from the bundled suite")
    assert recorded.model_dump(exclude_none=True) == {
        "verb": "check", "seed": 4, "examples": 9, "rel": 1e-5, "abs": 1e-12, "timeout": 10.0, "max_restarts": 3,
        "shrink_budget": 250, "shrink_first": 1, "cases": "91 from the bundled suite", "command": "my-bleu --fast",
        "baseline": "b.yaml", "only": ("nltk-*",), "shard": "1/1", "series_length": 3, "strict": True}
    # a replay draws no random example; fuzz records the series length it runs with (it has no option for it), and
    # adds its own settings
    replay = SessionSettings(command="x", replay="r.json", examples=200).run_settings("check", ["x"])
    assert replay.examples == 0 and replay.replay == "r.json" and replay.shard is None and replay.strict is None
    fuzz = SessionSettings(command="x").run_settings("fuzz", ["x"], write_cases="found.yaml")
    assert fuzz.series_length == SessionSettings(command="x").series_length
    assert fuzz.model_dump()["write_cases"] == "found.yaml"
