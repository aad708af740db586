"""The catalogue of mechanisms: every name a registry can produce is declared once, with a kind and words to show,
and the conventions' alternatives are generated from the rule tables for the classifier and doctor alike.

The names each registry produces are enumerated here from the registries themselves (and, for the conventions, from
what the classifier generates under every profile, level, smoothing and kind of request), so a mechanism added to a
registry that the catalogue did not pick up fails here. The expected rules come from the rule tables of
`oracle.formulas` (the documents' rules), never from the catalogue.

Holds: oracle.diagnose.mechanisms.model, oracle.diagnose.mechanisms.computations,
    oracle.diagnose.mechanisms.combination, oracle.diagnose.mechanisms.conventions,
    oracle.diagnose.mechanisms.counting, oracle.diagnose.mechanisms.errors, oracle.diagnose.mechanisms.smoothing,
    oracle.diagnose.mechanisms.state, oracle.diagnose.mechanisms.structure, oracle.diagnose.mechanisms.text
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from itertools import combinations
from pathlib import Path

import pytest

from oracle.diagnose import classify, errorcauses, mechanisms
from oracle.diagnose.errorcauses import JOIN, PREFIX
from oracle.diagnose.mechanisms import conventions as convention_module
from oracle.diagnose.mechanisms import errors as error_kind
from oracle.diagnose.mechanisms import needs_evidence
from oracle.diagnose.mechanisms.combination import PARTIAL_NAMES
from oracle.diagnose.mechanisms.computations import (
    BREVITY_PENALTY_ALTERNATIVES,
    COMBINATION_COMPUTATIONS,
    COMPUTATION_DOCS,
    COMPUTATIONS,
)
from oracle.diagnose.mechanisms.counting import (
    CAPPED_SIDES,
    COUNTING_ALTERNATIVES,
    IDENTITY_IGNORED,
    LENGTH_READINGS,
    STAGE_KINDS,
)
from oracle.diagnose.mechanisms.errors import FEATURES, LAST_RESORT, TRIGGER_PREFIXES
from oracle.diagnose.mechanisms.model import KINDS
from oracle.diagnose.mechanisms.state import LENGTH_DEPARTURES
from oracle.diagnose.mechanisms.structure import (
    LEVEL_OPERATORS,
    ONE_SIDE_FOLDS,
    SIDE_OPERATORS,
    SIDE_PAIRS,
    STATISTICS_ONLY,
    STRUCTURES,
)
from oracle.diagnose.mechanisms.text import DEPARTURES
from oracle.diagnose.stale import EARLIER_ANSWER, EXP_CARRIED
from oracle.doctor import search
from oracle.doctor.readings import table_readings
from oracle.formulas.conventions import SMOOTHING_METHODS, Smoothing
from oracle.formulas.profiles import PROFILES
from oracle.models.protocol import ScoreRequest, Segment
from oracle.models.results import parse_cause

LAYERS = ("hyp_len", "ref_len", "matches", "totals")


def _convention_and_smoothing_names() -> set[str]:
    """Every name the classifier's alternatives take: each profile, at each level, under each smoothing method (its
    documented defaults, and a parameter of its own), on tokens and on text, folded or not."""
    found = set()
    for profile in PROFILES.values():
        for lowercase in (False, True):
            options = profile.options.with_changes(lowercase=lowercase)
            for method, defaults in SMOOTHING_METHODS.items():
                for smoothing in (Smoothing(method), Smoothing(method, **{k: v * 3 for k, v in defaults.items()})):
                    for level in ("corpus", "sentence"):
                        for text in (False, True):
                            found |= {name for parts, *_ in classify._convention_changes(
                                options, smoothing, level, profile.options, text=text) for name in parts}
    return found


def _error_names() -> set[str]:
    """Error, crash and hang causes (`errorcauses`, `oracle.harness.crashcauses`' module docstring)."""
    parts = [feature.name for feature in FEATURES] + ["segment-empty", "smoothing-chen-cherry-6", "order-below-3",
                                                      "order-above-1"]
    triggers = {prefix + part for prefix in TRIGGER_PREFIXES for part in parts}
    joined = {PREFIX + JOIN.join(pair) for pair in combinations(parts[:4], 2)}
    deaths = {f"{word}-after-{n}-requests" for word in ("crash", "timeout") for n in (1, 12)}
    return triggers | joined | deaths | {"crash-no-input-feature", "timeout-no-input-feature"}


def every_registry_name() -> set[str]:
    return {
        *(name for name, _ in COMPUTATIONS), *COUNTING_ALTERNATIVES, *LENGTH_READINGS, *IDENTITY_IGNORED, *STAGE_KINDS,
        *(d.name for d in DEPARTURES),
        *LENGTH_DEPARTURES, *ONE_SIDE_FOLDS, *BREVITY_PENALTY_ALTERNATIVES, *classify.STATE_STATISTICS,
        classify.FLOAT32, classify.SMOOTHED_COUNTS, classify.SMALL_WEIGHTS, EARLIER_ANSWER, EXP_CARRIED,
        *(f"other-counting-of-{layer}" for layer in LAYERS), *PARTIAL_NAMES,
        *_convention_and_smoothing_names(), *_error_names(),
    }


def test_every_name_a_registry_produces_is_catalogued_with_a_kind_and_words():
    names = every_registry_name()
    assert len(names) > 150  # the enumeration reaches every registry (about 190 names today)
    for name in sorted(names):
        mechanism = mechanisms.lookup(name)
        assert mechanism is not None, f"{name!r} is produced by a registry but not in the catalogue"
        assert mechanism.kind in KINDS, name
        assert mechanisms.describe(name).strip() and mechanisms.describe(name) != name, name


def test_names_are_unique_across_kinds():
    declared = {module.__name__: {m.name for m in module.MECHANISMS} for module in mechanisms._DECLARING}
    for (one, these), (other, those) in combinations(declared.items(), 2):
        assert not these & those, f"declared both in {one} and {other}: {sorted(these & those)}"
    stems = [m.name for m in mechanisms.CATALOGUE.values() if m.family]
    for name, mechanism in mechanisms.CATALOGUE.items():  # a family's stem never swallows another mechanism's name
        assert mechanism.family or not any(name.startswith(stem) for stem in stems), name


def test_a_mechanism_named_by_two_registries_is_claimed_by_the_specific_kind():
    """A tokenizer departure, a metric state's lengths and a counting alternative are each also tried as a
    computation: their kind is what they are, and a record found either way keeps that way's words."""
    assert {mechanisms.lookup(departure.name).kind for departure in DEPARTURES} == {"text"}
    assert {mechanisms.lookup(name).kind for name in LENGTH_DEPARTURES} == {"state"}
    # case folded on one side only: a text transformation of one side (the structure kind, issue 36), found by the
    # returned matches as a counting alternative, tried right after the case flag's two (counting.py's comment)
    assert {mechanisms.lookup(name).kind for name in ONE_SIDE_FOLDS} == {"structure"}
    assert list(COUNTING_ALTERNATIVES)[:4] == ["case-not-folded", "case-folded-unasked", *ONE_SIDE_FOLDS]
    for name in ONE_SIDE_FOLDS:
        fold = mechanisms.CATALOGUE[name]
        assert fold.route("counting").how is COUNTING_ALTERNATIVES[name][2]
        assert fold.words("counting") == fold.words("computation") == ONE_SIDE_FOLDS[name][0]
    # the request mis-shaped by its caller: the structure kind as well, described by its reshaping's docstring, and
    # named from a score alone only where not declared statistics-only (each of those is one of them)
    assert {mechanisms.lookup(name).kind for name in STRUCTURES} == {"structure"}
    assert all(mechanisms.describe(name) == " ".join(STRUCTURES[name].reshape.__doc__.split()) for name in STRUCTURES)
    assert STATISTICS_ONLY < set(STRUCTURES)
    assert mechanisms.lookup("case-not-folded").kind == "counting"
    both = mechanisms.CATALOGUE["case-not-folded"]
    assert both.words("counting") == COUNTING_ALTERNATIVES["case-not-folded"][0]
    assert both.words("computation") == both.description == COMPUTATION_DOCS["case-not-folded"]
    assert {mechanisms.lookup(name).kind for name in _convention_and_smoothing_names()} == {"convention", "smoothing"}
    assert mechanisms.lookup(PREFIX + "corpus-empty").kind == "error"


def test_names_needing_evidence_are_the_catalogues():
    # docs/mechanisms.md "Choosing a name": float32 and a process's state (one wrong number can fit them by chance),
    # the batch mean at each size tried (2 to 8, 16, 32, 64: one record can fit one size by the choice of size), one
    # segment's length for the corpus's (one number); the flag is the mechanism's, and nothing else lists them
    batch_means = {f"mean-of-scores-of-batches-of-{size}" for size in (2, 3, 4, 5, 6, 7, 8, 16, 32, 64)}
    one_segment = {f"{length}-length-of-{which}-segment-only" for length in ("hypothesis", "reference")
                   for which in ("first", "last")}
    # the operators generated at each level of the request (one can fit a record by chance where what it takes away
    # counted nothing): test_level_operators.py writes each one's reshaping out by hand; the matrix's score variants
    # whose answer is a simple number (a multiple of 1/100, an integer: test_stage_variants.py)
    simple_numbers = {"score-truncated-to-whole-percent", "percent-scale-truncated-to-an-integer"}
    # the counting stages by kind (counting-kinds): one segment's n-gram counts, and no match at all (many bugs give it)
    one_segment_counts = {f"{layer}-of-{which}-segment-only" for layer in ("matches", "totals")
                          for which in ("first", "last")}
    expected = {"float32", "earlier-answer-returned", "exp-halvings-carried-over",
                "references-kept-from-first-request", "statistics-accumulated-across-requests", *batch_means,
                *one_segment, *LEVEL_OPERATORS, *simple_numbers, *one_segment_counts, "no-ngram-ever-matches"}
    assert {m.name for m in mechanisms.CATALOGUE.values() if m.needs_evidence and not m.family} == expected
    assert all(needs_evidence((name,)) for name in expected)
    # a part of a combined cause needs it as the whole does; a name the catalogue does not flag, or does not hold, not
    assert needs_evidence(("reference_length=longest", "float32")) and needs_evidence(("strict-clipping", "float32"))
    assert not any(needs_evidence((name,)) for name in ("strict-clipping", "weights-not-passed-on", "unexplained",
                                                          "agrees", ""))
    assert not needs_evidence(())
    # a family whose parameter is searched for (a cap on one side's lengths): each member, as the records read it
    families = {m.name for m in mechanisms.CATALOGUE.values() if m.needs_evidence and m.family}
    # and the score's free parameters fitted from one record (score-fit: one equation in one unknown has a solution on
    # any record), each member well formed as scorefit's naming scheme writes it
    fitted = {"mean-raised-to-", "brevity-penalty-raised-to-", "score-scaled-by-", "weight-of-order-",
              "brevity-penalty-with-r-as-", "brevity-penalty-with-c-as-", "weights-as-uniform-over-"}
    # and a counting field's arithmetic fitted to one record's integers (counting-fit)
    counted = {f"{field}-fitted-as-" for field in ("hyp_len", "ref_len", "matches", "totals")}
    assert families == set(CAPPED_SIDES) | fitted | counted
    assert all(needs_evidence((f"{stem}7-tokens",)) and not needs_evidence((f"{stem}tokens",)) for stem in CAPPED_SIDES)
    members = ("mean-raised-to-1/2", "brevity-penalty-raised-to-minus-4", "score-scaled-by-the-segment-count",
               "weight-of-order-2-as-0", "brevity-penalty-with-r-as-1", "brevity-penalty-with-c-as-the-order",
               "weights-as-uniform-over-3-orders")
    assert all(needs_evidence((member,)) for member in members)
    assert not any(needs_evidence((f"{stem}x",)) for stem in fitted)
    # each expression of the counting grammar needs evidence, a name outside it not
    assert needs_evidence(("ref_len-fitted-as-longest-reference",))
    assert needs_evidence(("totals-fitted-as-windows-of-width-n+2",))
    assert not needs_evidence(("ref_len-fitted-as-something-else",))


def test_known_names_are_the_replayable_computations():
    # explained_value replays ("computation", name) for each registered computation, the counting alternatives and
    # float32, smoothed counts and small weights (classify's docstring); conventions are option changes instead
    expected = {name for name, _ in COMPUTATIONS} | set(COUNTING_ALTERNATIVES) | set(LENGTH_READINGS) | set(
        IDENTITY_IGNORED) | set(STAGE_KINDS) | {
        classify.FLOAT32, classify.SMOOTHED_COUNTS, classify.SMALL_WEIGHTS}
    assert set(classify.known_names()) == expected
    assert len(classify.known_names()) == len(expected)  # each once


def test_a_computation_registered_anywhere_is_catalogued_by_its_docstring(monkeypatch):
    """A computation another module defines, registered in one of mechanisms/computations.py's lists, needs no
    other edit."""

    def counted_twice(ctx, result):
        """Every n-gram counted twice."""

    registered = (*COMPUTATIONS, ("counted-twice", counted_twice))
    monkeypatch.setattr(mechanisms, "COMPUTATIONS", registered)
    monkeypatch.setitem(COMPUTATION_DOCS, "counted-twice", "Every n-gram counted twice.")
    built = mechanisms._build()
    assert built["counted-twice"].kind == "computation"
    assert built["counted-twice"].description == "Every n-gram counted twice."
    assert built["counted-twice"].route("computation").how is counted_twice


def test_an_input_feature_declared_in_the_catalogue_is_asked_by_the_error_search():
    """The error search (`errorcauses.error_cause`) asks the features the catalogue declares (`mechanisms.errors`),
    with no list of its own: an implementation that errs exactly where a hypothesis holds the token "x" is named by a
    feature "hypothesis-holds-x" added to the declaration, and not without it. Derivation: the failing input, "x"
    against "a" (sentence, BLEU-1), holds other declared features too (one hypothesis token, one reference, sentence
    level, a zero precision), but each of their neighbours keeps the "x" (the token repeated, the reference given
    twice, the corpus level, "x" given as a reference) and errs, so none is part of the cause; only "x" replaced by
    "a" is answered."""
    holds_x = errorcauses.Feature(
        "hypothesis-holds-x", 'a hypothesis holds the token "x"', "token-x",
        lambda r: any("x" in s.hypothesis for s in r.segments),
        errorcauses.one_neighbour(lambda r: errorcauses.tokens_changed(r, lambda t: "a" if t == "x" else t)))
    failing = ScoreRequest(level="sentence", weights=[1.0], segments=[Segment(hypothesis=("x",), references=[("a",)])])

    def ask(request):
        return any("x" in s.hypothesis for s in request.segments)

    declared = errorcauses.Features((*FEATURES, holds_x), LAST_RESORT, TRIGGER_PREFIXES)
    cause = errorcauses.error_cause(failing, ask, declared)
    assert cause is not None and cause.name == PREFIX + "hypothesis-holds-x"
    assert cause.words == 'the implementation answers error where a hypothesis holds the token "x"'
    without = errorcauses.error_cause(failing, ask, errorcauses.Features(FEATURES, LAST_RESORT, TRIGGER_PREFIXES))
    assert without is None or "hypothesis-holds-x" not in without.name



def test_a_process_death_is_named_from_the_error_kinds_one_declaration():
    """`crash-after-<n>-requests` and `crash-no-input-feature` (the names `oracle.harness.gate`'s docstring shows)
    are made and read in `mechanisms.errors` alone, and each name made is the catalogue's: a family member or an
    entry of the error kind."""
    assert error_kind.after_requests_name("crash", 2) == "crash-after-2-requests"
    assert error_kind.after_requests("timeout-after-12-requests") == 12
    assert error_kind.after_requests("crash-after-two-requests") is None
    assert error_kind.after_requests("crash-when-segments-several") is None
    for word in ("crash", "timeout"):
        assert mechanisms.lookup(error_kind.after_requests_name(word, 3)).name == f"{word}-after-"
        assert error_kind.after_requests(error_kind.after_requests_name(word, 3)) == 3
        assert mechanisms.lookup(error_kind.no_feature_name(word)).kind == "error"
    assert error_kind.no_feature_name("crash") == "crash-no-input-feature"


# -- the conventions' alternatives, from the rule tables --------------------------------------------------------


def test_the_classifier_tries_every_other_rule_of_each_table():
    papineni = PROFILES["papineni"].options
    names = {name for parts, *_ in classify._convention_changes(papineni, Smoothing("none"), "corpus", papineni)
             for name in parts}
    # the documents' rules (oracle/formulas/conventions.py) other than papineni's own (closest, zero, smoothed, nan)
    assert {f"reference_length={rule}" for rule in ("closest-longer", "closest-first", "shortest", "longest")} <= names
    assert {"empty_order=skip", "empty_order=one", "no_match=zero", "both_empty=zero", "weights=normalise",
            "segment_totals_floor=1"} <= names
    assert not names & {"reference_length=closest", "empty_order=zero", "no_match=smoothed", "both_empty=nan"}
    assert not any(name.startswith(("token_split=", "case_fold=")) for name in names)  # tokens, case kept


def test_the_catalogue_says_which_computations_are_tried_with_a_convention():
    # docs/mechanisms.md: the score stage's variants and a request mis-shaped by its caller (and references scored one
    # at a time, the best kept) are tried alone, every other computation with a convention or two as well; the
    # classifier reads that from the catalogue
    alone = {name for name, _ in COMBINATION_COMPUTATIONS} | set(STRUCTURES) | {"max-over-single-reference-scores"}
    assert alone and all(not mechanisms.CATALOGUE[name].pairs_with_conventions for name in alone)
    assert {name for name, _ in classify._PAIRED_COMPUTATIONS} == {name for name, _ in COMPUTATIONS} - alone


@pytest.fixture
def catalogue_changed():
    """The classifier keeps its convention candidates per options (`classify._kept_convention_changes`: the catalogue
    is fixed in a run); a test that changes the catalogue has them built afresh, before and after it."""
    classify._kept_convention_changes.cache_clear()
    yield
    classify._kept_convention_changes.cache_clear()


def test_a_rule_added_to_a_convention_is_tried_by_the_classifier_and_doctor(monkeypatch, catalogue_changed):
    """One generator for both searches: a rule the catalogue's convention gains reaches both, with no list of rules
    or conventions of their own (a search that re-listed them would not try it)."""
    convention = convention_module.CONVENTIONS["reference_length"]
    rules = {**convention.rules, "median": "the median reference length"}
    monkeypatch.setitem(convention_module.CONVENTIONS, "reference_length", replace(convention, rules=rules))
    papineni = PROFILES["papineni"].options
    changes = {parts: words for parts, words, *_ in classify._convention_changes(papineni, Smoothing("none"), "corpus",
                                                                                   papineni)}
    assert changes[("reference_length=median",)] == "r is the median reference length"
    reading = next(iter(table_readings()))
    assert ("reference_length", "median") in search.single_changes(reading, references=2, sentence_level=False)


def test_a_convention_added_to_the_catalogue_is_varied_by_the_classifier(monkeypatch, catalogue_changed):
    """The classifier varies every convention the catalogue declares, in its order, with no list of its own: a
    convention declared after the others (here a second name for the Options field reference_length, with one rule)
    is tried, last of the conventions and before the smoothing's readings."""
    second = convention_module.Convention("r_rule", "reference_length", {"shortest": "the shortest reference's"},
                                          "r is ")
    monkeypatch.setitem(convention_module.CONVENTIONS, "r_rule", second)
    papineni = PROFILES["papineni"].options
    parts = [parts for parts, *_ in classify._convention_changes(papineni, Smoothing("none"), "corpus", papineni)]
    conventions = [p for p in parts if not p[0].startswith("smoothing=")]
    assert conventions[-1] == ("r_rule=shortest",)
    assert parts.index(("r_rule=shortest",)) < min(i for i, p in enumerate(parts) if p[0].startswith("smoothing="))


def test_doctor_varies_the_reference_length_only_with_several_references_and_case_only_by_counted_folds():
    reading = next(r for r in table_readings() if r.lowercase)
    one = search.single_changes(reading, references=1, sentence_level=False)
    assert not any(name == "reference_length" for name, _ in one)
    # the streams count unicode and ascii folding only (oracle/doctor/streams.py FOLDS), not casefold
    assert {value for name, value in one if name == "case_fold"} == set(search.FOLDS) - {reading.options.case_fold}


def test_one_float32_tolerance_for_the_classifier_and_doctor():
    assert search.float32_slack() == Decimal(str(classify.FLOAT32_REL_TOLERANCE))
    assert convention_module.CONVENTIONS["weights"].option == "weight_normalisation"


@pytest.mark.parametrize("name, words", [
    # the rule table's words, after the convention's name (oracle/formulas/conventions.py)
    ("reference_length=shortest", "reference_length: the shortest reference"),
    ("segment_totals_floor=1 + float32", "segment_totals_floor: each segment's n-gram total is at least 1 before "
                                          "summing (nltk's modified_precision denominator max(1, ...)); and float32"),
])
def test_an_explanation_is_described_from_the_catalogue(name, words):
    # a written name (a record's, a baseline's) is read into its parts at the boundary, then described part by part
    assert classify.Explanation(parse_cause(name), "").catalogue_description.startswith(words)


def test_the_side_pair_counts_docs_mechanisms_states_are_the_catalogues():
    """docs/mechanisms.md says how many side pairs the pair tier tries and what one more side operator would add;
    the numbers are read here from the catalogue, so that a catalogue grown fails this test instead of leaving them
    stale (as its count of level operators was, 26 for 30)."""
    document = Path(__file__).resolve().parents[2] / "docs" / "mechanisms.md"
    text = " ".join(document.read_text(encoding="utf-8").split())
    assert f"every hypothesis-side operator with every reference-side one ({len(SIDE_PAIRS)} pairs)" in text
    assert f"would add 2 x {len(SIDE_OPERATORS)} pairs to the pair tier" in text
