"""The documented cases: each passes against the oracle, the loader rejects malformed files
(naming file, line and case), quotes are found in their seeds, and the JSON Schema agrees.

Holds: oracle.suite.cases, oracle.models.case, oracle.models.caseparts, oracle.models.casevalues,
    oracle.suite.safeyaml, oracle.diagnose.casecheck, oracle.commands.cases
"""

from __future__ import annotations

import json
import textwrap
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from pydantic import ValidationError

from oracle.cli import main
from oracle.diagnose.casecheck import check_case
from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    EMPTY_ORDER_RULES,
    REFERENCE_LENGTH_RULES,
    SMOOTHING_METHODS,
)
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.profiles import PROFILES
from oracle.models import case as case_model
from oracle.suite import cases as casefiles
from oracle.suite.cases import (
    CaseFileError,
    load_case_file,
    load_cases,
    validate,
)

CASES_DIR = Path(__file__).resolve().parents[2] / "cases"
SCHEMA_PATH = Path(casefiles.__file__).parents[1] / "models" / "schemas" / "case.schema.json"


def _load_all():
    try:
        return load_cases(CASES_DIR), None
    except CaseFileError as exc:  # reported by test_case_directory_is_valid
        return [], exc


ALL_CASES, LOAD_ERROR = _load_all()
RUNS = [pytest.param(case, profile, id=f"{case.id}[{profile}]") for case in ALL_CASES for profile in case.profiles]


# -- the repository's cases ----------------------------------------------------


def test_case_directory_is_valid():
    assert LOAD_ERROR is None, str(LOAD_ERROR)
    assert validate(CASES_DIR) == []


@pytest.mark.parametrize("case, profile", RUNS)
def test_case_passes_against_the_oracle(case, profile):
    outcome = check_case(case, profile)
    assert outcome.passed, (
        f"{case.id} under {profile} ({case.path.name}:{case.line}):\n  "
        + "\n  ".join(outcome.failures)
        + f"\n  expected: {outcome.expected}\n  actual:   {outcome.actual}"
    )


REQUIRED_IDS = [
    # MATLAB
    "matlab-summary-bleu4", "matlab-summary-bleu2", "matlab-identical-candidate-one", "matlab-both-empty-nan",
    "matlab-short-candidate-zero", "matlab-weights-normalised-equal", "matlab-weights-negative-rejected",
    "matlab-ignorecase-default", "matlab-ignorecase-true",
    # the article and its sacrebleu table
    "sacrebleu-table-the-the-the", "article-precision-denominator-error",
    # the tutorial
    "tutorial-worked-example-0464", "tutorial-bp-tie-shorter",
    # NLTK brevity penalty
    "nltk-bp-paper-12-of-12-15-17", "nltk-bp-shorter-12-of-28-28", "nltk-bp-closest-12-of-13-2",
    "nltk-bp-mteval-7-of-11-8", "nltk-bp-mteval-7-of-11-8-6-7", "nltk-bp-tie-12-of-13-11", "nltk-bp-tie-12-of-11-13",
    # NLTK modified precision
    "nltk-precision-the-the-the", "nltk-precision-of-the", "nltk-precision-hyp1-unigram",
    "nltk-precision-hyp2-unigram", "nltk-precision-hyp1-bigram", "nltk-precision-hyp2-bigram",
    # NLTK sentence and corpus BLEU
    "nltk-sentence-bleu4", "nltk-sentence-bleu2", "nltk-sentence-bleu3", "nltk-corpus-bleu4",
    "nltk-corpus-custom-weights", "nltk-corpus-bleu2", "nltk-corpus-bleu3", "nltk-corpus-bleu5",
    # NLTK smoothing (nltk-smoothing-2-orders is cited by oracle/smoothing.py)
    "nltk-smoothing-1-epsilon", "nltk-smoothing-2-orders", "nltk-smoothing-3-worked-example",
    # mlpack
    "mlpack-bp-ratio-below-one", "mlpack-uniform-weights", "mlpack-shortest-reference",
]


def test_required_cases_are_present():
    ids = {case.id for case in ALL_CASES}
    missing = [i for i in REQUIRED_IDS if i not in ids]
    assert not missing, f"required cases missing: {missing}"


def test_every_case_kind_and_every_file_is_used():
    assert {case.kind for case in ALL_CASES} == set(casefiles.KINDS)
    assert {case.path.name for case in ALL_CASES} == {
        "matlab.yaml", "nlp-article-sacrebleu.yaml", "mlpack.yaml", "nltk.yaml", "bleu-tutorial.yaml", "papineni.yaml",
        "sacrebleu-tests.yaml", "nltk-tests.yaml", "tensorflow-nmt.yaml",
    }


def test_quotes_appear_in_their_seeds(seeds_dir):
    problems = casefiles.quote_problems(ALL_CASES, seeds_dir)
    assert not problems, "\n".join(str(p) for p in problems)


def test_quote_matching_ignores_whitespace_runs_only(seeds_dir, tmp_path):
    (tmp_path / "s.txt").write_text("score =\n   0.7825\n", encoding="utf-8")
    case = ALL_CASES[0]
    good = _replace(case, source=_replace(case.source, quote="score = 0.7825", seed="s.txt"))
    bad = _replace(case, source=_replace(case.source, quote="score=0.7825", seed="s.txt"))
    assert casefiles.quote_problems([good], tmp_path) == []
    [problem] = casefiles.quote_problems([bad], tmp_path)
    assert "does not appear in seed s.txt" in problem.bare_message and problem.case_id == case.id


# -- the checker itself: a wrong expectation must fail ---------------------------


def _case(case_id):
    return next(case for case in ALL_CASES if case.id == case_id)


def _replace(model, **changes):
    """A copy of a case (or a part of one) with some fields changed: what a document that says otherwise holds."""
    return model.model_copy(update=changes)


def test_checker_fails_a_wrong_score():
    case = _case("matlab-summary-bleu4")
    wrong = _replace(case, expect=_replace(case.expect, score=Decimal("0.7830")))
    outcome = check_case(wrong, "matlab")
    assert not outcome.passed
    assert "score: expected 0.783 ± 0.00005, got 0.78254" in outcome.failures[0]


def test_checker_fails_wrong_statistics_and_precisions():
    case = _case("tutorial-worked-example-0464")
    stats = _replace(case.expect.statistics, ref_len=6, precisions=((1, Fraction(3, 5)), (2, Fraction(1, 3))))
    outcome = check_case(_replace(case, expect=_replace(case.expect, statistics=stats)), "papineni")
    assert not outcome.passed
    assert any(f.startswith("ref_len: expected 6, got 4") for f in outcome.failures)
    assert any(f.startswith("precision 2: expected 1/3 (exact), got 1/2") for f in outcome.failures)


def test_checker_fails_a_rejection_that_does_not_happen_and_an_unexpected_one():
    case = _case("matlab-weights-negative-rejected")
    accepted = _replace(case, options=_replace(case.options, weights=(Fraction(1, 2), Fraction(1, 2))))
    outcome = check_case(accepted, "matlab")
    assert not outcome.passed and "expected the input to be rejected" in outcome.failures[0]
    scored = _case("matlab-summary-bleu2")
    broken = _replace(scored, options=_replace(scored.options, weights=(Decimal(-1), Decimal(1))))
    outcome = check_case(broken, "matlab")
    assert not outcome.passed and "the oracle rejected the input" in outcome.failures[0]


def test_checker_nan_and_exact():
    nan_case = _case("matlab-both-empty-nan")
    assert check_case(nan_case, "matlab").passed
    assert not check_case(nan_case, "nltk").passed  # nltk: both empty scores 0
    exact_case = _case("papineni-weights-as-given")
    off_by_a_little = _replace(exact_case, expect=_replace(exact_case.expect, score=Fraction(7000001, 10000000)))
    assert not check_case(off_by_a_little, "papineni").passed


# -- the case model's helpers ----------------------------------------------------


def test_numbers_are_exact_decimals_and_fraction_strings_exact():
    case = _case("matlab-summary-bleu4")
    assert case.expect.score == Decimal("0.7825") and isinstance(case.expect.score, Decimal)
    assert case.expect.tolerance == Decimal("0.00005")
    assert case.expect.statistics.bp == Fraction(1)
    tutorial = _case("tutorial-worked-example-0464")
    assert tutorial.options.weights == (Fraction(1, 3),) * 3
    assert tutorial.expect.statistics.precisions == ((1, Fraction(3, 5)), (2, Fraction(1, 2)), (3, Fraction(1, 3)))


def test_source_seed_defaults_to_the_files_and_may_be_overridden():
    assert _case("matlab-summary-bleu4").source.seed == "000_57c522b03cf4596a.txt"
    assert _case("matlab-ignorecase-true").source.seed == "003_e6acea343dc236b7.txt"


def test_oracle_kwargs_and_the_request_split_protocol_fields_from_conventions(tmp_path):
    path = _write(tmp_path, "x.yaml", _file(_case_text(options="""
        options:
          weights: ["1/2", 0.5]
          smoothing: {method: floor, value: 0}
          lowercase: true
          reference_length: shortest
          both_empty: zero
    """)))
    [case] = load_case_file(path)
    assert case.convention_overrides() == {"reference_length": "shortest", "both_empty": "zero"}
    kwargs = case.oracle_kwargs()
    assert kwargs["level"] == "sentence" and kwargs["weights"] == [Fraction(1, 2), Decimal("0.5")]
    assert kwargs["smoothing"] == {"method": "floor", "value": 0} and kwargs["lowercase"] is True
    assert kwargs["reference_length"] == "shortest"
    item = case.request_under("papineni")
    fields = item.request.replay_payload()
    assert fields["weights"] == [0.5, 0.5] and fields["smoothing"] == {"method": "floor", "value": 0.0}
    # the rule a request can carry travels where it differs from the profile's; one it cannot makes the case unsendable
    assert fields["lowercase"] is True and fields["conventions"] == {"reference_length": "shortest"}
    assert item.invalid == ("the case needs both_empty=zero, a convention a protocol-v1 request cannot carry (it "
                            "carries empty_order, reference_length, no_match, case_fold)")
    assert fields["segments"] == [{"hypothesis": ["a", "b", "c", "d"], "references": [["a", "b", "c", "d"]]}]
    assert item.overrides == {"reference_length": "shortest", "both_empty": "zero"} and item.profiles == ("papineni",)
    assert item.document == {"score": 1.0, "tolerance": None}  # "1", exact: compared under the run's contract
    options = case.options_for_oracle("papineni")
    assert options.reference_length == "shortest" and options.both_empty == "zero" and options.lowercase is True


def test_the_request_under_a_profile_takes_its_defaults_for_what_the_case_leaves_out():
    case = _case("matlab-summary-bleu4")  # sets no weights, smoothing or lowercase
    fields = case.request_under("sacrebleu").request.replay_payload()
    assert fields["weights"] == [0.25] * 4 and fields["smoothing"] == {"method": "exp"} and fields["lowercase"] is False
    assert case.request_under("nltk").request.smoothing.method == "none"


def test_oracle_arguments_by_level():
    hyp, refs = _case("matlab-summary-bleu4").input.oracle_arguments()
    assert hyp[:2] == ["The", "fast"] and len(refs) == 2 and refs[0][0] == "The"
    hyps, refs = _case("papineni-corpus-micro-average").input.oracle_arguments()
    assert hyps == [["a", "b"], ["c", "d", "e", "f"]] and refs == [[["a", "b"]], [["c", "x", "y", "z"]]]


def test_cases_are_frozen():
    case = ALL_CASES[0]
    with pytest.raises(ValidationError, match="frozen"):
        case.id = "other"  # type: ignore[misc]


# -- loader rejections: file, line, case id and message ---------------------------


def _case_text(*, case_id="t-one", options="", expect='expect: {score: "1", exact: true}', extra="", segments=None,
               level="sentence", kind="value", note=""):
    """One case as YAML text (an item of `cases:`); block arguments are dedented and indented into place."""
    block = lambda text, n: textwrap.indent(textwrap.dedent(text).strip("\n"), " " * n) + "\n"  # noqa: E731
    segments = segments if segments is not None else "- hypothesis: [a, b, c, d]\n  references: [[a, b, c, d]]"
    text = (
        f"  - id: {case_id}\n"
        "    title: A test case\n"
        '    source: {document: "Doc", section: "Sec", quote: "q"}\n'
        "    profiles: [papineni]\n"
        f"    kind: {kind}\n"
        "    input:\n"
        f"      level: {level}\n"
    )
    if segments.strip().startswith("["):
        text += f"      segments: {segments.strip()}\n"
    else:
        text += "      segments:\n" + block(segments, 8)
    for part in (options, expect, extra):
        if part.strip():
            text += block(part, 4)
    if note:
        text += f"    note: {note}\n"
    return text


def _file(*case_texts, header='document: "Doc"\nseed: "000_57c522b03cf4596a.txt"\ncases:\n'):
    return header + "".join(case_texts)


def _write(directory, name, text):
    path = Path(directory) / name
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(text, needle, occurrence=1):
    seen = 0
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in the text")


def _rejects(tmp_path, text, message, *, needle, case_id="t-one", name="bad.yaml"):
    path = _write(tmp_path, name, text)
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    error = info.value
    assert message in error.bare_message, f"{error.bare_message!r} lacks {message!r}"
    assert error.path == path
    assert error.line == _line_of(text, needle), f"line {error.line}, expected the line of {needle!r}:\n{text}"
    assert error.case_id == case_id
    assert str(error).startswith(f"{path}:{error.line}")
    assert isinstance(error, ValueError) and isinstance(error, BleuOracleError)
    return error


def test_the_test_helpers_build_a_valid_file(tmp_path):
    [case] = load_case_file(_write(tmp_path, "ok.yaml", _file(_case_text())))
    assert case.id == "t-one" and case.expect.score == 1 and case.line == 4


def test_rejects_unknown_fields_at_every_level(tmp_path):
    _rejects(tmp_path, _file(_case_text(extra="colour: blue")), "unknown field `colour` in a case", needle="colour")
    _rejects(tmp_path, _file(_case_text()) .replace('quote: "q"}', 'quote: "q", page: 3}'),
             "unknown field `source.page`", needle="page: 3")
    _rejects(
        tmp_path,
        _file(_case_text(options="options: {weight: [1]}")),
        "unknown field `options.weight`",
        needle="weight:",
    )
    _rejects(
        tmp_path,
        _file(_case_text(expect='expect: {score: "1", exact: true, tol: 1}')),
        "unknown field `expect.tol`",
        needle="tol:",
    )
    _rejects(tmp_path, _file(_case_text(expect="expect: {statistics: {hyp_len: 2, bleu: 1}}")),
             "unknown field `expect.statistics.bleu`", needle="bleu:")
    _rejects(tmp_path, _file(_case_text(options="options: {smoothing: {method: floor, eps: 1}}")),
             "unknown field `options.smoothing.eps`", needle="eps:")
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: [a]
          references: [[a]]
          weight: 1""")), "unknown field `input.segments[0].weight`", needle="weight: 1")
    text = _file(_case_text()).replace("cases:", "comment: hi\ncases:")
    _rejects(tmp_path, text, "unknown field `comment` in a case file", needle="comment", case_id=None)


def test_rejects_missing_required_fields(tmp_path):
    text = _file(_case_text()).replace("    kind: value\n", "")
    _rejects(tmp_path, text, "`kind` is required in a case", needle="- id: t-one")
    text = _file(_case_text()).replace(', quote: "q"', "")
    _rejects(tmp_path, text, "`source.quote` is required in `source`", needle="source:")
    _rejects(
        tmp_path, _file(_case_text(kind="statement")), "`note` is required in a statement case", needle="- id: t-one"
    )
    _rejects(
        tmp_path, _file(_case_text(kind="document-error")), "and what the document got wrong", needle="- id: t-one"
    )
    # `seed` is optional (a case file of one's own cites its document by title or URL); `cases` is not
    _rejects(tmp_path, 'document: "Doc"\n', "`cases` is required in a case file", needle="document", case_id=None)
    _rejects(tmp_path, _file(""), "`cases` must be a non-empty list", needle="cases:", case_id=None)


def test_rejects_duplicate_ids_naming_both_places(tmp_path):
    text = _file(_case_text(), _case_text())
    path = _write(tmp_path, "dup.yaml", text)
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    error = info.value
    assert error.line == _line_of(text, "- id: t-one", 2)
    assert f"duplicate case id `t-one` (also at {path}:{_line_of(text, '- id: t-one', 1)})" in error.bare_message


def test_rejects_duplicate_ids_across_files(tmp_path):
    _write(tmp_path, "a.yaml", _file(_case_text()))
    b = _write(tmp_path, "b.yaml", _file(_case_text(case_id="t-two"), _case_text()))
    with pytest.raises(CaseFileError) as info:
        load_cases(tmp_path)
    error = info.value
    assert error.path == b and error.case_id == "t-one"
    assert error.line == _line_of(b.read_text(), "- id: t-one")
    assert f"also at {tmp_path / 'a.yaml'}:4" in error.bare_message


def test_rejects_retired_ids(tmp_path):
    path = _write(tmp_path, "a.yaml", _file(_case_text()))
    _write(tmp_path, "retired.yaml", "retired:\n  - id: t-one\n    reason: replaced by t-two\n")
    with pytest.raises(CaseFileError) as info:
        load_cases(tmp_path)
    error = info.value
    assert error.path == path and error.line == 4 and error.case_id == "t-one"
    assert "case id `t-one` is retired" in error.bare_message and "replaced by t-two" in error.bare_message
    assert "retired.yaml:2" in error.bare_message


def test_rejects_a_malformed_retired_file(tmp_path):
    _write(tmp_path, "a.yaml", _file(_case_text()))
    _write(tmp_path, "retired.yaml", "retired:\n  - id: t-x\n")
    [problem] = validate(tmp_path)
    assert "`retired[0].reason` is required in `retired[0]`" in problem.bare_message and problem.line == 2


def test_rejects_malformed_ids(tmp_path):
    _rejects(
        tmp_path,
        _file(_case_text(case_id="Bad_Id")),
        "`id` must be lowercase letters",
        needle="Bad_Id",
        case_id="Bad_Id",
    )
    _rejects(
        tmp_path, _file(_case_text(case_id="a--b")), "`id` must be lowercase letters", needle="a--b", case_id="a--b"
    )


def test_rejects_malformed_tokens(tmp_path):
    _rejects(
        tmp_path,
        _file(
            _case_text(
                segments="""
        - hypothesis: [a, 1]
          references: [[a]]"""
            )
        ),
        "`input.segments[0].hypothesis[1]` must be a string token (got number 1; quote it",
        needle="hypothesis",
    )
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: [the, cat]
          references:
            - [the, cat]
            - [sat, on, the, mat]""")), "`input.segments[0].references[1][1]` must be a string token (got boolean True",
             needle="[sat, on")
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: ["a b"]
          references: [[a]]""")), "must be a non-empty token without whitespace (got 'a b')", needle="hypothesis")
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: [""]
          references: [[a]]""")), "must be a non-empty token without whitespace (got '')", needle="hypothesis")
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: a b
          references: [[a]]""")), "`input.segments[0].hypothesis` must be a list of tokens", needle="hypothesis")
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: [a]
          references: []""")), "`input.segments[0].references` must be a non-empty list", needle="references")


def test_rejects_bad_levels_and_segment_counts(tmp_path):
    _rejects(
        tmp_path,
        _file(_case_text(level="document")),
        "`input.level` must be one of 'corpus', 'sentence' (got 'document')",
        needle="level:",
    )
    _rejects(tmp_path, _file(_case_text(segments="""
        - hypothesis: [a]
          references: [[a]]
        - hypothesis: [b]
          references: [[b]]""")), "exactly one segment at sentence level (got 2)", needle="segments:")
    _rejects(
        tmp_path,
        _file(_case_text(level="corpus", segments="[]")),
        "`input.segments` must be a non-empty list",
        needle="segments:",
    )


def test_rejects_bad_profiles_and_kinds(tmp_path):
    text = _file(_case_text()).replace("profiles: [papineni]", "profiles: [papineni, bogus]")
    _rejects(tmp_path, text, "`profiles[1]` must be one of", needle="profiles:")
    text = _file(_case_text()).replace("profiles: [papineni]", "profiles: []")
    _rejects(tmp_path, text, "`profiles` must be a non-empty list", needle="profiles:")
    _rejects(
        tmp_path,
        _file(_case_text(kind="example")),
        "`kind` must be one of 'value', 'statement', 'document-error' (got 'example')",
        needle="kind:",
    )


def test_rejects_malformed_expected_values(tmp_path):
    def expect(body):
        return _file(_case_text(expect="expect:\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "  ")))

    _rejects(
        tmp_path,
        expect("score: 0.5\ntolerance: -1"),
        "`expect.tolerance` must be a non-negative number (got -1)",
        needle="tolerance",
    )
    _rejects(
        tmp_path,
        expect("score: 0.5\ntolerance: small"),
        "`expect.tolerance` must be a non-negative number (got 'small')",
        needle="tolerance",
    )
    _rejects(
        tmp_path, expect("score: 0.5"), "`expect.score` is a number: `expect.tolerance` is required", needle="score"
    )
    _rejects(tmp_path, expect('score: "1"'), "is an exact fraction: add `exact: true`", needle="score")
    _rejects(
        tmp_path,
        expect('score: "one"\nexact: true'),
        '`expect.score` must be a number, "NaN", or an exact fraction',
        needle="score",
    )
    _rejects(
        tmp_path,
        expect("score: 0.5\nexact: true\ntolerance: 0.1"),
        "`expect.exact: true` needs the score as a fraction string",
        needle="exact",
    )
    _rejects(
        tmp_path,
        expect("score: -0.5\ntolerance: 0.1"),
        "`expect.score` must be a finite non-negative number",
        needle="score",
    )
    _rejects(
        tmp_path,
        expect('score: "1"\nexact: true\ntolerance: 0.1'),
        "`expect.tolerance` is given but no expected value",
        needle="tolerance",
    )
    _rejects(
        tmp_path, expect("rejected: false"), "`expect.rejected` must be true when given (got False)", needle="rejected"
    )
    _rejects(
        tmp_path,
        expect('rejected: true\nscore: "0"\nexact: true'),
        "`expect.rejected` cannot be combined with `expect.score`",
        needle="score",
    )
    _rejects(tmp_path, expect("note_only: 1"), "unknown field `expect.note_only`", needle="note_only")
    _rejects(tmp_path, expect("{}"), "`expect` must state at least one of", needle="{}")
    _rejects(
        tmp_path,
        expect("statistics: {matches: [3], totals: [2]}"),
        "`expect.statistics.matches[0]` must not exceed `totals[0]` (got 3 > 2)",
        needle="statistics",
    )
    _rejects(
        tmp_path,
        expect("statistics: {matches: [1, 2], totals: [2]}"),
        "must have one entry per order (got 2 and 1)",
        needle="statistics",
    )
    _rejects(
        tmp_path,
        expect("statistics: {hyp_len: -1}"),
        "`expect.statistics.hyp_len` must be a non-negative integer (got -1)",
        needle="statistics",
    )
    _rejects(
        tmp_path,
        expect("statistics: {hyp_len: 2.5}"),
        "`expect.statistics.hyp_len` must be a non-negative integer (got 2.5)",
        needle="statistics",
    )
    _rejects(
        tmp_path,
        expect('statistics: {precisions: {0: "1"}}'),
        "keys must be n-gram orders 1, 2, ... (got 0)",
        needle="statistics",
    )
    _rejects(
        tmp_path,
        expect('statistics: {precisions: ["1/0"]}'),
        "`expect.statistics.precisions[0]` must be a number or an exact fraction",
        needle="statistics",
    )
    _rejects(
        tmp_path,
        expect("statistics: {bp: 0.5}"),
        "`expect.statistics.bp` is a number: `expect.tolerance` is required",
        needle="statistics",
    )
    _rejects(tmp_path, expect("statistics: {}"), "`expect.statistics` must state at least one of", needle="statistics")


def test_rejects_malformed_options(tmp_path):
    _rejects(
        tmp_path,
        _file(_case_text(options="options: {weights: []}")),
        "`options.weights` must be a non-empty list",
        needle="weights",
    )
    _rejects(
        tmp_path,
        _file(_case_text(options="options: {weights: [a]}")),
        "`options.weights[0]` must be a number or a fraction string",
        needle="weights",
    )
    _rejects(tmp_path, _file(_case_text(options="options: {smoothing: {method: magic}}")),
             "`options.smoothing.method` must be one of", needle="smoothing")
    _rejects(tmp_path, _file(_case_text(options="options: {smoothing: {method: exp, value: 1}}")),
             "`options.smoothing.value` is not a parameter of 'exp'", needle="smoothing")
    _rejects(
        tmp_path,
        _file(_case_text(options="options: {lowercase: 1}")),
        "`options.lowercase` must be true or false",
        needle="lowercase",
    )
    _rejects(tmp_path, _file(_case_text(options="options: {reference_length: nearest}")),
             "`options.reference_length` must be one of 'closest', ", needle="reference_length")


def test_rejects_python_object_tags_with_the_line(tmp_path):
    text = _file(_case_text()).replace('title: A test case', 'title: !!python/object/apply:os.system ["echo hi"]')
    path = _write(tmp_path, "evil.yaml", text)
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    assert "YAML tag `!!python/object/apply:os.system` is not allowed" in info.value.bare_message
    assert info.value.path == path and info.value.line == _line_of(text, "python/object")
    for tag in ("!!python/name:os.system", "!!python/object:builtins.dict", "!custom"):
        text = _file(_case_text()).replace("title: A test case", f"title: {tag} x")
        path = _write(tmp_path, "evil.yaml", text)
        with pytest.raises(CaseFileError) as info:
            load_case_file(path)
        assert "is not allowed" in info.value.bare_message and info.value.line == _line_of(text, tag)


def test_rejects_duplicate_mapping_keys(tmp_path):
    text = _file(_case_text()).replace("kind: value", "kind: value\n    kind: statement")
    path = _write(tmp_path, "dup.yaml", text)
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    assert info.value.bare_message == f"duplicate key `kind` (first at line {_line_of(text, 'kind: value')})"
    assert info.value.line == _line_of(text, "kind: statement")


def test_rejects_merge_keys_invalid_yaml_and_empty_files(tmp_path):
    text = _file(_case_text()).replace("kind: value", "<<: {kind: value}")
    path = _write(tmp_path, "merge.yaml", text)
    with pytest.raises(CaseFileError, match="merge keys"):
        load_case_file(path)
    path = _write(tmp_path, "syntax.yaml", 'document: "Doc"\nseed: [unclosed\n')
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    assert "invalid YAML" in info.value.bare_message and info.value.line is not None
    path = _write(tmp_path, "empty.yaml", "")
    with pytest.raises(CaseFileError, match="the file is empty"):
        load_case_file(path)
    path = _write(tmp_path, "list.yaml", "- a\n- b\n")
    with pytest.raises(CaseFileError, match="a case file must be a mapping"):
        load_case_file(path)


def test_scientific_notation_and_special_numbers(tmp_path):
    path = _write(
        tmp_path,
        "ok.yaml",
        _file(_case_text(expect="expect: {score: 0.5, tolerance: 5e-1}", options="options: {weights: [.inf]}")),
    )
    [case] = load_case_file(path)
    assert case.expect.tolerance == Decimal("0.5") and case.options.weights == (Decimal("Infinity"),)


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(CaseFileError, match="no such case file or directory"):
        load_cases(tmp_path / "nope")
    assert "no such case file or directory" in validate(tmp_path / "nope")[0].bare_message
    with pytest.raises(CaseFileError, match="no case files"):
        load_cases(tmp_path)


def test_validate_lists_every_problem(tmp_path):
    _write(tmp_path, "a.yaml", _file(_case_text(level="document"), _case_text(case_id="t-two", kind="statement")))
    _write(tmp_path, "b.yaml", "document: [\n")
    problems = validate(tmp_path)
    assert len(problems) == 3
    assert {p.case_id for p in problems} == {"t-one", "t-two", None}


def test_default_directory_is_the_bundled_one_that_cases_links_to(cases_dir):
    # package data, so a wheel carries the cases; the repository's cases/ is a link to it
    assert casefiles.DEFAULT_CASES_DIR == cases_dir.resolve()
    assert cases_dir.is_symlink() and casefiles.DEFAULT_CASES_DIR.parts[-3:] == ("oracle", "suite", "data")
    assert [c.id for c in load_cases()] == [c.id for c in ALL_CASES]


# -- the JSON Schema -----------------------------------------------------------


def _schema():
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_every_case_file_validates_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install jsonschema)")
    schema = _schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(CASES_DIR.glob("*.yaml")):
        errors = sorted(validator.iter_errors(casefiles.read_plain(path)), key=lambda e: list(e.path))
        assert not errors, f"{path.name}: " + "; ".join(f"{list(e.path)}: {e.message[:160]}" for e in errors[:5])


def test_the_schema_rejects_what_the_loader_rejects(tmp_path):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install jsonschema)")
    validator = jsonschema.Draft202012Validator(_schema())
    bad = {
        "unknown field": _file(_case_text(extra="colour: blue")),
        "token not a string": _file(
            _case_text(
                segments="""
            - hypothesis: [a, 1]
              references: [[a]]"""
            )
        ),
        "token with whitespace": _file(
            _case_text(
                segments="""
            - hypothesis: ["a b"]
              references: [[a]]"""
            )
        ),
        "bad level": _file(_case_text(level="document")),
        "negative tolerance": _file(_case_text(expect="expect: {score: 0.5, tolerance: -1}")),
        "rejected with a score": _file(_case_text(expect='expect: {rejected: true, score: "1", exact: true}')),
        "bad id": _file(_case_text(case_id="Bad_Id")),
        "explained_by in a documented file": _file(
            _case_text(extra="explained_by: {name: x, change: [[computation, y]]}")
        ),
        "a repeated profile": _file(_case_text()).replace("profiles: [papineni]", "profiles: [papineni, papineni]"),
    }
    for what, text in bad.items():
        path = _write(tmp_path, "bad.yaml", text)
        with pytest.raises(CaseFileError):
            load_case_file(path)
        assert list(validator.iter_errors(casefiles.read_plain(path))), f"the schema accepts a file with {what}"


def test_the_committed_schema_is_the_generated_one():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == case_model.render_schema(), (
        f"{SCHEMA_PATH} is stale: run `python -m oracle.models.case`")


def test_the_schema_is_written_where_the_module_writes_it(tmp_path):
    written = case_model.write_schema(tmp_path / "case.schema.json")
    assert written.read_text(encoding="utf-8") == case_model.render_schema()
    assert case_model.SCHEMA_PATH == SCHEMA_PATH.resolve()


def test_the_schema_names_every_field_of_the_models_and_what_each_requires():
    defs = _schema()["$defs"]
    for model in (case_model.CaseFile, case_model.Case, case_model.CaseSource, case_model.CaseInput,
                  case_model.CaseSegment, case_model.CaseOptions, case_model.CaseSmoothing, case_model.CaseExpect,
                  case_model.ExpectedStatistics, case_model.ExplainedBy, case_model.RetiredFile, case_model.RetiredId):
        schema = defs[model.__name__]
        assert list(schema["properties"]) == list(model.model_fields), model.__name__
        assert set(schema.get("required", ())) == {n for n, f in model.model_fields.items() if f.is_required()}
        assert schema["additionalProperties"] is False, model.__name__
    assert set(defs["Case"]["required"]) == {"id", "title", "source", "profiles", "kind", "input", "expect"}
    assert set(defs["CaseFile"]["required"]) == {"document", "cases"}


def test_the_options_a_case_may_set_are_the_protocols_three_and_every_convention():
    from dataclasses import fields

    from oracle.formulas.conventions import Options

    assert set(case_model.CaseOptions.model_fields) == {f.name for f in fields(Options)} | {"weights"}
    assert set(case_model.CONVENTION_FIELDS) == {f.name for f in fields(Options)} - {
        "weights",
        "smoothing",
        "lowercase",
    }


def test_schema_and_models_agree_with_the_formulas_on_the_allowed_values():
    schema = _schema()
    case, options = schema["$defs"]["Case"]["properties"], schema["$defs"]["CaseOptions"]["properties"]
    assert set(case["profiles"]["items"]["enum"]) == set(PROFILES)
    assert case["kind"]["enum"] == list(casefiles.KINDS)
    assert set(schema["$defs"]["CaseInput"]["properties"]["level"]["enum"]) == set(casefiles.LEVELS)
    assert set(schema["$defs"]["CaseSmoothing"]["properties"]["method"]["enum"]) == set(SMOOTHING_METHODS)
    assert set(options["reference_length"]["enum"]) == set(REFERENCE_LENGTH_RULES)
    assert set(options["empty_order"]["enum"]) == set(EMPTY_ORDER_RULES)
    assert set(options["both_empty"]["enum"]) == set(BOTH_EMPTY_RULES)
    # every other convention override with a documented set of rules has the same enum
    from oracle.formulas import conventions

    for name in case_model.CONVENTION_FIELDS:
        rules = getattr(conventions, f"{name.upper()}_RULES", None)
        if rules is not None:
            assert set(options[name]["enum"]) - {None} == set(rules), name
    assert schema["$defs"]["caseId"]["pattern"] == casefiles.ID_PATTERN.pattern


# -- the CLI verb ------------------------------------------------------------------


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_list(capsys):
    code, out, _ = _run(["cases", "list"], capsys)
    assert code == 0
    first = out.splitlines()[0].split("\t")
    assert len(first) == 4 and first[0] == ALL_CASES[0].id and first[1] == ALL_CASES[0].level
    assert len(out.splitlines()) == len(ALL_CASES)
    code, out, _ = _run(["cases", "list", "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["id"] for r in rows] == [c.id for c in ALL_CASES]
    assert set(rows[0]) == {"id", "level", "profiles", "title", "kind", "file", "line"}


def test_cli_validate_passes_on_the_repository(capsys):
    code, out, _ = _run(
        ["cases", "validate", "--id", "matlab-summary-bleu4", "--id", "nltk-bp-tie-12-of-13-11"], capsys
    )
    assert code == 0, out
    assert "PASS matlab-summary-bleu4 [matlab]" in out and "2 passed, 0 failed" in out


def test_cli_validate_reports_a_failure_with_expected_and_actual(tmp_path, capsys):
    _write(tmp_path, "a.yaml", _file(_case_text(expect='expect: {score: "1/2", exact: true}')))
    code, out, _ = _run(["cases", "validate", "--cases", str(tmp_path)], capsys)
    assert code == 1
    assert "FAIL t-one [papineni]" in out and "score: expected 1/2 (exact), got 1" in out
    assert "expected: score 1/2 (exact)" in out and "actual:   score 1" in out


def test_cli_validate_exits_2_on_a_malformed_file(tmp_path, capsys):
    _write(tmp_path, "a.yaml", _file(_case_text(level="document")))
    code, _, err = _run(["cases", "validate", "--cases", str(tmp_path)], capsys)
    assert code == 2 and "a.yaml:" in err and "`input.level` must be one of" in err
    code, _, err = _run(["cases", "list", "--cases", str(tmp_path / "missing")], capsys)
    assert code == 2 and "no such case file or directory" in err
    code, _, err = _run(["cases", "validate", "--id", "no-such-case"], capsys)
    assert code == 2 and "unknown case id" in err


def test_cli_help_documents_the_verb(capsys):
    with pytest.raises(SystemExit) as info:
        main(["cases", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0 and "validate" in out and "Exit codes" in out


def test_every_case_gives_its_request_under_each_of_its_profiles():
    for case in ALL_CASES:
        for profile in case.profiles:
            item = case.request_under(profile)
            if item.request is None:  # an infinite weight a document expects refused: protocol v1 cannot carry it
                assert "cannot be expressed in protocol v1" in item.invalid and case.expect.rejected, case.id
                continue
            fields = item.request.replay_payload()
            assert fields["level"] == case.level, case.id
            assert set(fields) - {"conventions"} == {"level", "segments", "weights", "smoothing", "lowercase"}, case.id
            assert all(isinstance(w, float) for w in fields["weights"]), case.id


@pytest.mark.parametrize("text,message", [
    ("document: x\nseed: s.txt\ncases:\n  - &a {id: a}\n  - *a\n", ":5: YAML aliases"),
    ("document: x\nseed: s.txt\ncases: " + "[" * 100 + "]" * 100 + "\n", ":3: nesting deeper than 64 levels"),
])
def test_case_files_refuse_aliases_and_deep_nesting(tmp_path, text, message):
    # a 513-byte alias bomb used to hang `cases list`; the loader refuses aliases before anything expands
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    with pytest.raises(CaseFileError, match=message):
        load_case_file(path)


def test_the_strict_loader_refuses_before_composing_and_reads_with_libyaml_where_present():
    import yaml

    from oracle.formulas.errors import BleuValueError
    from oracle.suite.safeyaml import MAX_DEPTH, StrictSafeLoader, UnsafeYamlError, load_yaml

    inner = MAX_DEPTH - 1  # the mapping is the first level
    assert load_yaml("a: " + "[" * inner + "]" * inner) == {"a": _nested(inner - 1)}
    with pytest.raises(UnsafeYamlError, match=":1: nesting deeper than 64"):
        load_yaml("a: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH)
    # a nest far past any C stack: refused from the parser's events (or by libyaml's own limit), never composed
    with pytest.raises(BleuValueError, match="nesting"):
        load_yaml("[" * 200_000 + "]" * 200_000)
    with pytest.raises(UnsafeYamlError, match=":2: YAML aliases"):
        load_yaml("a: &x [1, 2]\nb: *x\n")
    assert load_yaml("a: &x [1, 2]\n") == {"a": [1, 2]}  # an anchor alone expands nothing
    if getattr(yaml, "__with_libyaml__", False):
        assert issubclass(StrictSafeLoader, yaml.CSafeLoader)


def _nested(depth):
    return [] if depth == 0 else [_nested(depth - 1)]


def test_a_case_file_of_ones_own_cites_any_document_without_a_seed(tmp_path):
    """A user's file names its document by URL; no bundled seed, so no quote check; it loads and runs."""
    from oracle.suite import cases as casefiles

    (tmp_path / "mine.yaml").write_text(
        'document: "https://example.org/my-bleu-notes"\n'
        "cases:\n"
        "  - id: my-perfect-match\n"
        "    title: identical hypothesis and reference score 1\n"
        '    source: {document: "https://example.org/my-bleu-notes", section: "1", quote: "identical is 1"}\n'
        "    profiles: [papineni]\n"
        "    kind: value\n"
        "    input: {level: sentence, segments: [{hypothesis: [a, b, c, d], references: [[a, b, c, d]]}]}\n"
        '    expect: {score: "1", exact: true}\n', encoding="utf-8")
    assert casefiles.validate(tmp_path) == []
    [case] = casefiles.load_cases(tmp_path)
    assert case.source.seed is None and case.source.document.startswith("https://")
    assert casefiles.quote_problems([case]) == []


def test_validate_reports_every_problem_of_a_case_at_once(tmp_path):
    """Three independent mistakes in one case (id, profile, tolerance), each with its line."""
    from oracle.suite import cases as casefiles

    (tmp_path / "bad.yaml").write_text(
        'document: "my notes"\n'
        "cases:\n"
        "  - id: Bad_Id\n"
        "    title: three mistakes\n"
        '    source: {document: "my notes", section: "1", quote: "q"}\n'
        "    profiles: [nosuch]\n"
        "    kind: value\n"
        "    input: {level: sentence, segments: [{hypothesis: [a], references: [[a]]}]}\n"
        "    expect: {score: 1.5}\n", encoding="utf-8")
    problems = casefiles.validate(tmp_path)
    messages = [(p.line, p.bare_message) for p in problems]
    assert len(problems) == 3, messages
    assert [line for line, _ in messages] == [3, 6, 9]
    assert "`id`" in messages[0][1] and "profiles[0]" in messages[1][1] and "tolerance" in messages[2][1]


def test_cli_validate_reports_every_problem_of_a_file_at_once(tmp_path, capsys):
    """Three mistakes that each used to stop the reading of the file or of the case (an unknown file-level
    field, a missing required field of one case, a bad token in another case): all three are listed, each
    with file:line and case id, and the exit code is 2."""
    path = tmp_path / "three.yaml"
    path.write_text(
        'document: "my notes"\n'
        "colour: blue\n"  # line 2
        "cases:\n"
        "  - id: first-case\n"  # line 4: no `kind`
        "    title: no kind\n"
        '    source: {document: "my notes", section: "1", quote: "q"}\n'
        "    profiles: [papineni]\n"
        "    input: {level: sentence, segments: [{hypothesis: [a], references: [[a]]}]}\n"
        '    expect: {score: "1", exact: true}\n'
        "  - id: second-case\n"
        "    title: a token with a space\n"
        '    source: {document: "my notes", section: "1", quote: "q"}\n'
        "    profiles: [papineni]\n"
        "    kind: value\n"
        '    input: {level: sentence, segments: [{hypothesis: ["a b"], references: [[a]]}]}\n'  # line 15
        '    expect: {score: "1", exact: true}\n', encoding="utf-8")
    code, out, err = _run(["cases", "validate", "--cases", str(path)], capsys)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert lines == [
        f"error: {path}:2: unknown field `colour` in a case file (its fields are `document`, `seed`, `found_by`, "
        "`cases`)",
        f"error: {path}:4, case first-case: `kind` is required in a case",
        f"error: {path}:15, case second-case: `input.segments[0].hypothesis[0]` must be a non-empty token "
        "without whitespace (got 'a b')",
    ], err
    assert "3 problem(s)" in err and "Traceback" not in err
    with pytest.raises(CaseFileError, match="unknown field `colour`"):  # the library call still raises the first
        load_case_file(path)


def test_every_segment_and_token_of_a_case_is_checked(tmp_path):
    _write(tmp_path, "bad.yaml", _file(_case_text(level="corpus", segments="""
            - hypothesis: [a, 1]
              references: [["b c"]]
            - hypothesis: 3
              references: [[a]]""")))
    messages = sorted(p.bare_message.split(" must ")[0] for p in validate(tmp_path))
    assert messages == ["`input.segments[0].hypothesis[1]`", "`input.segments[0].references[0][0]`",
                        "`input.segments[1].hypothesis`"], messages


def test_a_duplicate_id_is_listed_beside_the_problems_of_other_cases(tmp_path):
    """The file's own rules (ids unique) are checked on the cases that are valid by themselves, so a broken case
    elsewhere in the file does not hide a duplicate."""
    text = _file(_case_text(kind="statement"), _case_text(case_id="t-two"), _case_text(case_id="t-two"))
    _write(tmp_path, "a.yaml", text)
    problems = validate(tmp_path)
    assert [(p.line, p.case_id) for p in problems] == [(_line_of(text, "- id: t-one"), "t-one"),
                                                       (_line_of(text, "- id: t-two", 2), "t-two")]
    assert problems[0].bare_message.startswith("`note` is required in a statement case")
    assert (
        problems[1].bare_message
        == f"duplicate case id `t-two` (also at {tmp_path / 'a.yaml'}:{_line_of(text, '- id: t-two')})"
    )


def test_each_problem_is_at_the_line_of_its_own_node_in_block_style(tmp_path):
    """Counted by hand in the text below: a token on its own line, a precision given by order, a smoothing
    parameter, a repeated profile."""
    text = _file(_case_text(segments="""
        - hypothesis: [a, b]
          references:
            - [a, b]
            - - a
              - 7""", options="""
        options:
          smoothing:
            method: exp
            k: 1""", expect="""
        expect:
          statistics:
            precisions:
              1: "1"
              2: one""")).replace("profiles: [papineni]", "profiles:\n      - papineni\n      - papineni")
    _write(tmp_path, "a.yaml", text)
    found = {p.bare_message.split("`")[1]: p.line for p in validate(tmp_path)}
    assert found == {"profiles[1]": _line_of(text, "- papineni", 2),
                     "input.segments[0].references[1][1]": _line_of(text, "- 7"),
                     "options.smoothing.k": _line_of(text, "k: 1"),
                     "expect.statistics.precisions.2": _line_of(text, "2: one")}, found


def test_a_found_by_file_lists_every_case_its_provenance_refuses_at_once(tmp_path):
    text = _file(_case_text(expect="expect: {rejected: true}"), _case_text(case_id="t-two"),
                 header='document: "bleu-oracle fuzz against x 1"\nfound_by: fuzz\ncases:\n')
    text = text.replace('quote: "q"}', 'quote: "q", seed: "s.txt"}', 1)
    _write(tmp_path, "a.yaml", text)
    problems = [(p.case_id, p.line, p.bare_message.split(":")[0]) for p in validate(tmp_path)]
    assert problems == [
        ("t-one", _line_of(text, "- id: t-one"), "`explained_by` is required in a case found by fuzzing"),
        (
            "t-one",
            _line_of(text, 'seed: "s.txt"'),
            "`source.seed` names a seed document; a `found_by` file quotes no document",
        ),
        ("t-one", _line_of(text, "rejected"), "`expect.rejected`"),
        ("t-two", _line_of(text, "- id: t-two"), "`explained_by` is required in a case found by fuzzing"),
    ], problems


def test_a_case_file_of_ones_own_runs_from_anywhere_through_the_cli(tmp_path, capsys):
    """A file citing a URL, no seed, passed as --cases FILE: `cases validate` runs it; `cases list` lists it;
    a failing expectation in it is exit 1 (a deviation), not a configuration error."""
    mine = tmp_path / "elsewhere" / "mine.yaml"
    mine.parent.mkdir()
    text = (
        'document: "https://example.org/my-bleu-notes"\n'
        "cases:\n"
        "  - id: my-half-match\n"
        "    title: two of four unigrams match, no bigram\n"
        '    source: {document: "https://example.org/my-bleu-notes", section: "Example 2", quote: "1/2 and 0"}\n'
        "    profiles: [papineni]\n"
        "    kind: value\n"
        "    input: {level: sentence, segments: [{hypothesis: [a, b, x, y], references: [[a, b, c, d]]}]}\n"
        "    expect: {statistics: {matches: [2, 1, 0, 0], totals: [4, 3, 2, 1], bp: \"1\"}}\n"
        "    note: counted by hand\n")
    mine.write_text(text, encoding="utf-8")
    code, out, err = _run(["cases", "validate", "--cases", str(mine)], capsys)
    assert code == 0, out + err
    assert "PASS my-half-match [papineni]" in out and "1 passed, 0 failed" in out
    code, out, _ = _run(["cases", "list", "--cases", str(mine)], capsys)
    assert code == 0 and out.split("\t")[0] == "my-half-match"
    mine.write_text(text.replace("matches: [2, 1, 0, 0]", "matches: [2, 0, 0, 0]"), encoding="utf-8")
    code, out, _ = _run(["cases", "validate", "--cases", str(mine)], capsys)
    assert code == 1 and "FAIL my-half-match [papineni]" in out
    code, _, err = _run(["cases", "validate", "--cases", str(CASES_DIR / "retired.yaml")], capsys)
    assert code == 2 and "lists retired ids, not cases" in err


def test_cli_id_takes_globs_on_list_and_validate_and_q_leaves_out_passes(capsys):
    expected = sorted(c.id for c in ALL_CASES if c.id.startswith("matlab-"))
    assert len(expected) > 1
    code, out, _ = _run(["cases", "list", "--id", "matlab-*"], capsys)
    assert code == 0 and sorted(line.split("\t")[0] for line in out.splitlines()) == expected
    code, out, _ = _run(["cases", "validate", "--id", "matlab-*", "-q"], capsys)
    runs = sum(len(c.profiles) for c in ALL_CASES if c.id.startswith("matlab-"))
    assert (
        code == 0
        and "PASS" not in out
        and out == f"{runs} passed, 0 failed ({len(expected)} cases, {runs} case/profile runs)\n"
    )
    code, out, _ = _run(["cases", "validate", "--id", "matlab-*"], capsys)
    assert code == 0 and out.count("PASS matlab-") >= len(expected)
    code, _, err = _run(["cases", "list", "--id", "matlab-*", "--id", "no-such-*"], capsys)
    assert code == 2 and "unknown case id(s): no-such-*" in err


def test_an_effective_order_case_asks_for_it_where_the_profile_does_not_leave_empty_orders_out():
    """sacrebleu's raw_corpus_bleu tests: corpus BLEU with use_effective_order=True (empty_order: skip)."""
    case = _case("sacrebleu-test-effective-order-short")
    assert case.level == "corpus" and case.convention_overrides() == {"empty_order": "skip"}
    for profile in ("sacrebleu", "papineni", "mteval"):  # at corpus level each counts an empty order otherwise
        item = case.request_under(profile)
        assert item.invalid is None and item.request.chosen_conventions == {"empty_order": "skip"}, profile


def test_an_override_equal_to_the_profiles_own_rule_travels_nowhere(tmp_path):
    path = _write(tmp_path, "x.yaml", _file(_case_text(options="""
        options:
          empty_order: skip
    """)))
    [case] = load_case_file(path)  # a sentence-level case: sacrebleu leaves empty orders out there already
    assert case.level == "sentence"
    same = case.request_under("sacrebleu")
    assert same.invalid is None and same.request.conventions is None and "conventions" not in same.request.to_json()
    assert case.request_under("papineni").request.chosen_conventions == {"empty_order": "skip"}
