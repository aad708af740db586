"""`bleu-oracle cases export`: flagged test vectors that validate against their own schema (checked with an
independent validator), give an implementation of a profile every case `check` judges it on with the same
expected values, say what each vector needs (in agreement with the rule `check` applies), and carry the
curated discrepancies' examples as known-bug vectors.

Holds: oracle.commands.cases, oracle.models.export, oracle.reports.export
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import math
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from oracle.cli import main
from oracle.diagnose import discrepancies
from oracle.formulas.profiles import PROFILES
from oracle.harness.requests import not_applicable_reason, request_from_json
from oracle.models import export
from oracle.models.protocol import Capabilities
from oracle.reports.export import FIXED_NOTES, RENAMED_FLAGS
from oracle.suite.cases import load_cases
from oracle.textio import read_lines

ROOT = Path(__file__).resolve().parents[2]


def _shipped(name):
    """A module of the Python pack as it ships (packs/python/bleu_oracle_vectors/NAME.py), as a consumer runs it."""
    spec = importlib.util.spec_from_file_location(f"pack_{name}", ROOT / f"packs/python/bleu_oracle_vectors/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


needs_met = _shipped("needs").applies  # a consumer's filter
whose_answer = _shipped("answers").whose_answer  # a consumer's failure message
acceptable_convention = _shipped("answers").acceptable_convention  # a consumer's acceptance of a convention's value


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    assert main(["cases", "export", "--out", str(out), "-q"]) == 0
    assert main(["cases", "export", "--out", str(out), "--all-profiles", "-q"]) == 0
    return out


def read(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_committed_schema_is_the_generated_one():
    assert export.SCHEMA_PATH.read_text(encoding="utf-8") == export.render_schema(), (
        "run `python -m oracle.models.export`"
    )


def test_every_file_validates_against_the_schema_written_beside_it(exported):
    schema = read(exported / "suite.schema.json")
    Draft202012Validator.check_schema(schema)
    names = sorted(path.name for path in exported.glob("*.json") if path.name != "suite.schema.json")
    assert names == sorted(["suite.json", *(f"{profile}.json" for profile in PROFILES)])  # --all-profiles: each
    for name in names:
        suite = read(exported / name)
        assert not list(Draft202012Validator(schema).iter_errors(suite)), name
        assert suite["format"] == "bleu-oracle-suite/3" and suite["profile"] == (None if name == "suite.json"
                                                                                 else name.removesuffix(".json"))


def test_a_repeated_profile_is_written_once_and_the_summary_says_what_was_written(tmp_path, capsys):
    assert main(["cases", "export", "--out", str(tmp_path), "--profile", "nltk", "--profile", "nltk"]) == 0
    out = capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nltk.json", "suite.schema.json"]
    count = read(tmp_path / "nltk.json")["count"]
    assert out.startswith(f"{tmp_path / 'nltk.json'}: {count} vectors (under nltk), ") and "left out:" in out


def test_the_version_and_the_count_head_the_file(exported):
    """As Unicode's conformance files do: the first lines say what the file is and how many entries it holds."""
    lines = (exported / "papineni.json").read_text(encoding="utf-8").splitlines()
    suite = read(exported / "papineni.json")
    assert lines[1:5] == [' "format": "bleu-oracle-suite/3",', f' "suite_version": "{suite["suite_version"]}",',
                          f' "oracle_version": "{suite["oracle_version"]}",', f' "count": {len(suite["vectors"])},']


def test_the_zero_and_nan_rules_are_in_the_file_and_in_the_schema(exported):
    suite, schema = read(exported / "papineni.json"), read(exported / "suite.schema.json")
    assert "epsilon" in suite["contract"]["zero"] and "NaN matches only NaN" in suite["contract"]["nan"]
    expected = schema["$defs"]["Expected"]["properties"]
    assert "any answer but 0 fails" in expected["score_exact"]["description"]
    assert "NaN matches only NaN" in json.dumps(expected["score"])
    assert "any answer but 0 fails" in schema["description"]


def test_every_case_and_profile_is_exported_or_left_out_with_a_reason(exported):
    suite = read(exported / "suite.json")
    pairs = {(c.id, p) for c in load_cases() for p in c.profiles}
    exported_pairs = {(v["id"], v["profile"]) for v in suite["vectors"] if v["origin"] == "case"}
    left_out = [c for c in suite["left_out"] if "stateful plan" not in c["reason"]]  # a curated discrepancy's
    left = {(c["id"], c["profile"]) for c in left_out}
    assert exported_pairs | left == pairs and not exported_pairs & left
    assert all("protocol v1" in c["reason"] for c in left_out)  # infinite and NaN weights


@pytest.mark.parametrize("profile", ["papineni", "mteval"])
def test_a_profile_gets_every_case_check_judges_it_on_with_the_same_expected_values(exported, tmp_path, profile):
    """The export's promise: an implementation of the profile iterating over its file, keeping the vectors
    whose needs its capabilities meet, runs exactly the cases `check` judges (here the oracle under the
    profile; under mteval it takes uniform weights only, so the needs filter leaves some vectors out), each
    with the expected value `check` holds it to."""
    report = tmp_path / "report"
    assert main(["check", "--impl", "oracle", "--profile", profile, "--examples", "0",
                 "--report", str(report), "--quiet"]) == 0
    header, *records = [json.loads(line) for line in read_lines(report / "results.jsonl")]
    judged = {r["id"]: r for r in records if r.get("kind") == "case" and r["outcome"] != "not-applicable"}
    suite = read(exported / f"{profile}.json")
    cases = [v for v in suite["vectors"] if v["origin"] == "case"]
    applicable = {v["id"]: v for v in cases if needs_met(v["needs"], header["capabilities"])}
    assert set(applicable) == set(judged)
    assert len(judged) > 13 * 5  # more than the 13 of 92 the first export gave a papineni implementation
    assert profile == "papineni" or len(applicable) < len(cases)
    for case_id, record in judged.items():
        want, got = record["expected"], applicable[case_id]["expected"]
        assert got["rejected"] == want["rejected"], case_id
        assert got["score_exact"] == want.get("score_exact"), case_id
        assert got["statistics"] == want.get("statistics"), case_id


CAPABILITY_SETS = [
    {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 10, "smoothing": ["none", "floor", "exp"],
     "statistics": True, "lowercase": True},  # examples/node-bleu
    {"levels": ["sentence"], "weights": "uniform", "max_order": 4, "orders": [4], "smoothing": ["none"],
     "statistics": False, "lowercase": False, "max_references": 1},
    {"levels": ["corpus"], "weights": "any", "max_order": 4, "smoothing": ["none", "exp"], "statistics": True,
     "lowercase": True, "same_reference_count": True, "forbidden_token_characters": " \t\n.,", "empty_tokens": False,
     "tokenizers": ["13a"], "conventions": {"empty_order": ["zero", "skip"]},  # sacrebleu's switch
     "forbidden_text_sequences": ["-\n"]},  # mteval-v13a.pl's
]


def test_a_text_vector_needs_an_input_format_that_can_carry_its_texts():
    """A text holding `-\\n` (13a's end-of-line hyphenation) is not applicable to mteval-v13a.pl's declaration
    (`forbidden_text_sequences: ["-\\n"]`): the packs' filter says so from `needs` alone, as check does."""
    from oracle.reports.export import needs_of

    mteval_like = {"levels": ["corpus"], "weights": "uniform", "max_order": 4, "smoothing": ["none"],
                   "statistics": False, "lowercase": False, "tokenizers": ["13a"], "forbidden_text_sequences": ["-\n"]}
    for text, carried in (("state-\nof-the-art", False), ("state- of-the-art", True), ("line\nbreak", True)):
        request = request_from_json({"level": "corpus", "weights": [0.25] * 4, "tokenize": "13a",
                                     "smoothing": {"method": "none"}, "lowercase": False,
                                     "segments": [{"hypothesis": text, "references": ["state of the art"]}]})
        needs = needs_of(request).model_dump(mode="json")
        assert needs["texts"] == [text, "state of the art"]
        assert (not_applicable_reason(request, Capabilities.model_validate(mteval_like)) is None) is carried
        assert needs_met(needs, mteval_like) is carried, text
        assert needs_met(needs, {k: v for k, v in mteval_like.items() if k != "forbidden_text_sequences"})


@pytest.mark.parametrize("capabilities", CAPABILITY_SETS)
def test_needs_say_what_check_decides_from_the_capabilities(exported, capabilities):
    """A consumer filtering by `needs` keeps exactly the vectors check would send an implementation declaring
    these capabilities: `needs` carries everything the rule reads."""
    for name in ("papineni.json", "mteval.json"):
        suite = read(exported / name)
        for v in suite["vectors"]:
            request = request_from_json(v["request"])
            reason = not_applicable_reason(request, Capabilities.model_validate(capabilities))
            assert needs_met(v["needs"], capabilities) == (reason is None), (v["id"], reason)


def test_every_curated_discrepancy_of_the_profile_is_a_known_bug_vector(exported):
    suite = read(exported / "papineni.json")
    entries = [e for e in discrepancies.models() if e.profile == "papineni"]
    vectors = {v["id"]: v for v in suite["vectors"] if v["origin"] == "discrepancy"}
    # an example that is a stateful plan is left out with the reason: a vector is one call
    planned = {e.id for e in entries if "stateful" in e.example.request}
    assert planned == {c["id"] for c in suite["left_out"] if "stateful plan" in c["reason"]}
    entries = [e for e in entries if e.id not in planned]
    assert set(vectors) == {e.id for e in entries} and entries
    for entry in entries:
        note = suite["notes"][f"known-bug:{entry.id}"]
        assert f"known-bug:{entry.id}" in vectors[entry.id]["flags"]
        assert note["bug_type"] == "known-bug" and note["upstream"] == entry.upstream.text()
        assert [link["url"] for link in note["links"]] == [t.url for t in entry.upstream.threads()]
        assert vectors[entry.id]["request"] == request_from_json(entry.example.request).replay_payload()
    # the oracle's value the curators recorded on each example is the vector's expectation
    for entry in entries:
        want, got = entry.example.oracle.get("score"), vectors[entry.id]["expected"]["score"]
        if want is not None:
            assert (math.isnan(float(got)) and math.isnan(float(want))) or abs(float(got) - float(want)) <= 1e-12


def test_notes_are_defined_once_and_every_flag_refers_to_one(exported):
    for name in ["suite.json", *(f"{profile}.json" for profile in PROFILES)]:
        suite = read(exported / name)
        flags = {flag for v in suite["vectors"] for flag in v["flags"]}
        assert flags == set(suite["notes"]), name  # every flag defined, every note used


def test_a_convention_split_lists_each_answer_with_its_conventions(exported):
    """Hand derivation (nltk-bp-closest-12-of-13-2): twelve "a" against thirteen "a" and two "a"; every
    clipped precision is 1. The closest reference (13) gives BP = exp(1 - 13/12) = exp(-1/12); the
    shortest (2) is shorter than c = 12, so BP = 1 and BLEU = 1."""
    suite = read(exported / "papineni.json")
    [v] = [v for v in suite["vectors"] if v["id"] == "nltk-bp-closest-12-of-13-2"]
    assert v["result"] == "acceptable" and "convention-split:reference_length" in v["flags"]
    by_rule = {a["conventions"]["reference_length"]: a for a in v["answers"]}
    assert by_rule["closest"]["score"] == pytest.approx(math.exp(-1 / 12), rel=1e-12)
    assert by_rule["shortest"]["score"] == 1.0
    assert "papineni" in by_rule["closest"]["profiles"] and "mlpack" in by_rule["shortest"]["profiles"]
    assert v["expected"]["score"] == pytest.approx(math.exp(-1 / 12), rel=1e-12)
    for v in suite["vectors"]:
        if v["result"] == "acceptable":
            # the conventions split, or the documents leave the input undefined
            # (tests/diagnose/test_undefined_inputs.py)
            assert any(f.startswith("convention-split:") or f == "undefined-input" for f in v["flags"]), v["id"]
            assert any("papineni" in a["profiles"] for a in v["answers"]), v["id"]
        else:
            assert not v["answers"], v["id"]


def test_a_wrong_answer_is_named_by_the_convention_and_the_profiles_whose_answer_it_is(exported):
    """The packs' `whose_answer`, which the consumer tests add to a failure's message, from the vector's own
    `answers`, judged under the contract. nltk-bp-closest-12-of-13-2 (derived above): the closest reference
    gives exp(-1/12), the shortest (mlpack, tensorflow-nmt) 1. papineni-both-empty-nan: nothing to count, 0/0;
    profiles with both_empty zero answer 0. papineni-empty-order-zero: a sentence without 4-grams, 0, which
    sacrebleu's sentence rule (skip the empty order) makes 1."""
    papineni, sacrebleu = read(exported / "papineni.json"), read(exported / "sacrebleu.json")
    contract = papineni["contract"]
    vectors = {v["id"]: v for v in papineni["vectors"]}
    split = vectors["nltk-bp-closest-12-of-13-2"]
    shortest = "; your answer is the `reference_length=shortest` one: mlpack, tensorflow-nmt"
    assert whose_answer(split, 1.0, contract) == whose_answer(split, 1 - 1e-10, contract) == shortest
    assert whose_answer(split, math.exp(-1 / 12), contract) == ""  # the file's profile's answer: not another's
    assert whose_answer(split, 0.5, contract) == whose_answer(split, ValueError("no"), contract) == ""
    both_empty = vectors["papineni-both-empty-nan"]
    assert whose_answer(both_empty, 0.0, contract).startswith("; your answer is the `both_empty=zero` one: nltk, ")
    assert whose_answer(both_empty, 1e-13, contract) == ""  # the zero rule: 1e-13 is not 0
    assert whose_answer(vectors["papineni-empty-order-zero"], 1.0, contract) == (
        "; your answer is the `sentence_empty_order=skip` one: sacrebleu")
    # the other way round, in sacrebleu's file: papineni's rule is not set (null), said `unset`, not `null`
    [skipped] = [v for v in sacrebleu["vectors"] if v["id"] == "papineni-empty-order-zero"]
    assert whose_answer(skipped, 0.0, contract).startswith("; your answer is the `sentence_empty_order=unset` one: "
                                                           "papineni, ")


def test_on_an_undefined_input_a_named_conventions_value_is_acceptable_and_nothing_else_is(exported):
    """The packs' `acceptable_convention`, with which the consumer tests accept an answer the documents leave open
    (PROTOCOL.md, "Inputs the documents leave undefined"). protocol-empty-corpus: no segment, so c = r = 0 and
    no n-gram; the conventions give 0 (empty-corpus-zero) or NaN (empty-corpus-nan, 0/0). protocol-zero-weights:
    "the cat sat the mat" against "the cat sat on the mat", c = 5, r = 6, so BP = exp(1 - 6/5) = exp(-0.2)
    = 0.8187307530779818 and exp(sum 0 * log p_n) = 1: BLEU = BP (zero-weights-bp, the formula's value, nltk's
    sentence_bleu); 0 (zero-weights-counted); NaN (zero-weights-nan)."""
    papineni = read(exported / "papineni.json")
    contract, vectors = papineni["contract"], {v["id"]: v for v in papineni["vectors"]}
    empty, weightless = vectors["protocol-empty-corpus"], vectors["protocol-zero-weights"]
    assert empty["result"] == weightless["result"] == "acceptable" and empty["expected"]["rejected"]
    assert acceptable_convention(empty, 0.0, contract) == "empty-corpus-zero"
    assert acceptable_convention(empty, math.nan, contract) == "empty-corpus-nan"
    assert acceptable_convention(weightless, math.exp(-0.2), contract) == "zero-weights-bp"
    assert acceptable_convention(weightless, 0, contract) == "zero-weights-counted"
    # a refusal is `expected` (not a convention's value), and any other number is no convention's
    for got in (ValueError("empty"), 0.5, 1e-13, math.exp(-0.2) * (1 + 1e-6)):
        assert acceptable_convention(empty, got, contract) is None
        assert acceptable_convention(weightless, got, contract) is None
    # on a vector whose answer the documents define, no answer is a convention's: the consumer test judges it
    assert acceptable_convention(vectors["nltk-bp-closest-12-of-13-2"], 1.0, contract) is None


def test_the_exact_zero_and_zero_over_zero_are_flagged(exported):
    suite = read(exported / "papineni.json")
    for v in suite["vectors"]:
        exact = v["expected"]["score_exact"]
        assert ("exact-zero" in v["flags"]) == (exact == "0"), v["id"]
        assert ("zero-over-zero" in v["flags"]) == (exact == "NaN"), v["id"]
    assert suite["notes"]["exact-zero"]["bug_type"] == "edge-case"
    assert "zero-over-zero" in suite["notes"] and "0/0" in suite["notes"]["zero-over-zero"]["description"]


#: Words a programming language gives a meaning to: a flag named so, printed in a test title, reads as a bug of
#: the test (`undefined` in a node test's name looks like a missing variable; `None`, `NaN`, `null` likewise).
LANGUAGE_WORDS = {"undefined", "null", "none", "nan", "true", "false", "infinity", "nil", "void", "this", "self",
                  *(word.lower() for word in keyword.kwlist)}


def test_no_flag_is_a_word_a_language_gives_a_meaning_to(exported):
    """Flags appear in consumers' test titles in every language: neither a flag nor any part of one
    (convention-split:NAME, known-bug:ID) is undefined, null, None, NaN, true, false or a Python keyword."""
    for name in ["suite.json", *(f"{profile}.json" for profile in PROFILES)]:
        suite = read(exported / name)
        for flag in {flag for v in suite["vectors"] for flag in v["flags"]} | set(suite["notes"]):
            assert not {flag.lower(), *flag.lower().split(":")} & LANGUAGE_WORDS, (name, flag)


def test_the_renamed_flags_are_gone_and_docs_vectors_maps_each_old_name_to_its_new_one():
    """Consumers of format 2 filter on `zero` and `undefined`: docs/vectors.md says what each is called now."""
    docs = (ROOT / "docs" / "vectors.md").read_text(encoding="utf-8")
    for old, new in RENAMED_FLAGS.items():
        assert old not in FIXED_NOTES and new in FIXED_NOTES
        assert f"| `{old}` | `{new}` |" in docs, (old, new)


def test_a_documented_value_travels_with_its_tolerance(exported):
    suite = read(exported / "suite.json")
    [case] = [c for c in suite["vectors"] if c["id"] == "matlab-summary-bleu4"]
    # the MATLAB page prints 0.7825: printed with half a unit of the last digit
    assert case["printed"]["score"] == 0.7825 and case["printed"]["tolerance"] == pytest.approx(0.00005)
    assert abs(case["expected"]["score"] - 0.7825) <= 0.00005
    assert case["conventions"]["weight_normalisation"] == "normalise" and case["profile"] == "matlab"
    assert case["request"]["level"] == "sentence" and "cmd" not in case["request"]
    assert "bleuEvaluationScore" in case["source"]["document"] or case["source"]["quote"]
    assert case["needs"]["level"] == "sentence" and case["needs"]["references"] == 2
    assert "printed-rounded" in case["flags"]


def test_a_profile_and_all_profiles_are_one_choice(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["cases", "export", "--out", str(tmp_path), "--profile", "nltk", "--all-profiles"])
    assert exit_.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_an_unknown_profile_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["cases", "export", "--out", str(tmp_path), "--profile", "papineny"])
    assert exit_.value.code == 2 and "invalid choice: 'papineny'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
