"""An error record's root cause: the input feature on which the implementation answers error, confirmed on the
failing input and its neighbours, named by a stable string that a baseline lists as `cause:error-when-...`.
An end-to-end test also runs a fake that takes the logarithm of every precision unguarded
(tests/fakes/error_log_of_zero.py).

The pure tests drive `error_cause` with an `ask` written here from a stated rule (the implementation errs exactly
where the rule holds), so the expected name is the rule's, not the code's. The end-to-end test runs a fake that
answers error on an empty segment (tests/fakes/error_empty_segment.py); another a fake that reads a text request's
reference texts back from a file (tests/fakes/text_lines_read_back.py).

Holds: oracle.diagnose.errorcauses
"""

from __future__ import annotations

import re

import pytest
import yaml
from fakes.harness import check, fake, results, run_cli

from oracle.diagnose.errorcauses import DISJUNCTION_PROBES, FACE_PROBES, MAX_PROBE_TOKENS, MAX_PROBES
from oracle.diagnose.mechanisms.errors import describe, error_cause, hinted, holds
from oracle.models.protocol import ScoreRequest

METHODS = ("none", "floor", "add-k", "exp", "chen-cherry-6")


def request(**fields):
    base = {"level": "corpus", "segments": [{"hypothesis": ["a"], "references": [["a"]]}], "weights": [1.0],
            "smoothing": {"method": "none"}}
    return ScoreRequest.model_validate({**base, **fields})


def asking(rule):
    """An `ask` that errs where `rule(request)` holds, recording what it was asked."""
    asked = []

    def ask(probe):
        asked.append(probe)
        return bool(rule(probe))
    ask.asked = asked
    return ask


def method6_below_three(r):
    """nltk's method6 reads p_n[2]: an IndexError below three orders, whatever else the input holds."""
    return r.smoothing.method == "chen-cherry-6" and len(r.weights) < 3


def no_references(r):
    return any(not s.references for s in r.segments)


def empty_segment(r):
    return any(not s.hypothesis and s.references and not any(s.references) for s in r.segments)


def empty_hypothesis(r):
    return any(not s.hypothesis for s in r.segments)


def short_hypothesis(r):
    return any(len(s.hypothesis) < len(r.weights) for s in r.segments)


def _ngrams(tokens, n):
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def log_of_zero(r):
    """BLEU's sum of w_n log(m_n / l_n) taken unguarded over every order of a token request, m_n and l_n summed over
    its segments (a corpus's statistics): an order with n-grams none of which is in its segment's references (log 0),
    or with no n-gram (division by 0), errs. (Clipping does not decide whether m_n is 0: one occurrence in a reference
    is a match.)"""
    for n in range(1, len(r.weights) + 1):
        grams = [(g, s) for s in r.segments for g in _ngrams(s.hypothesis, n)]
        if not grams or not any(g in _ngrams(ref, n) for g, s in grams for ref in s.references):
            return True
    return False


#: Where a reader cuts a line: every line end `str.splitlines` takes other than LF (CR LF as one), or a lone CR, the
#: one universal newlines take beside LF (Python's documentation of `str.splitlines` and of `open`'s `newline`)
SPLITLINES_LINE_END = re.compile("\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
LONE_CR = re.compile("\r(?!\n)")


def _tokens_of_side(r, side):
    return [t for s in r.segments for seq in ((s.hypothesis,) if side == "hypothesis" else s.references) for t in seq]


def universal_newlines_references(r):
    """A scorer that writes each reference stream as a file and reads it back with universal newlines, the hypotheses
    taken from a stream as sent (sockeye's smart_open before `newline='\n'`): a lone CR in a reference's token cuts
    its stream longer than the hypotheses', and zip_longest raises; CR LF, U+2028, a hypothesis's CR answer."""
    return any(LONE_CR.search(t) for t in _tokens_of_side(r, "references"))


def universal_newlines_both(r):
    """The same reader on both sides, the two line counts compared: a lone CR in any token errs."""
    return any(LONE_CR.search(t) for side in ("hypothesis", "references") for t in _tokens_of_side(r, side))


def splitlines_references(r):
    """A reader of the reference files alone by `str.splitlines`: any of its line ends in a reference's token errs."""
    return any(SPLITLINES_LINE_END.search(t) for t in _tokens_of_side(r, "references"))


def splitlines_both(r):
    """`str.splitlines` on both files, the line counts asserted equal: a line end in
    one side's token alone errs (the inputs here hold one on one side only)."""
    return any(SPLITLINES_LINE_END.search(t) for side in ("hypothesis", "references") for t in _tokens_of_side(r, side))


def _named_by_its_neighbours(rule, failing, name):
    """An implementation that errs exactly where `rule` holds, asked about its failing input `failing`: the error's
    cause is `name`, found within the probe bound, and `name`'s feature holds on the input as the rule does."""
    ask = asking(rule)
    cause = error_cause(failing, ask, methods=METHODS)
    assert cause is not None and cause.name == name, cause
    assert 0 < len(ask.asked) <= MAX_PROBES
    assert holds(name, failing) and rule(failing)


@pytest.mark.parametrize(("rule", "failing", "name"), [
    # "a b" against "c" at order 2: no unigram matches (m_1 = 0 of 2). The reference lengthened to "c c" still
    # matches nothing and errs, so its shortness is no part of it; the hypothesis given as a second reference
    # matches every order and is answered
    (log_of_zero, request(segments=[{"hypothesis": ["a", "b"], "references": [["c"]]}], weights=[0.5, 0.5]),
     "error-when-precision-zero"),
    # "a b" against "a c": m_1 = 1 of 2, m_2 = 0 of 1 ("a b" is not "a c"): one order unmatched is enough
    (log_of_zero, request(segments=[{"hypothesis": ["a", "b"], "references": [["a", "c"]]}], weights=[0.5, 0.5]),
     "error-when-precision-zero"),
    # nltk's shrunk IndexError: order 2 still errs, order 3 is answered, and so is method "none" at order 1
    (method6_below_three, request(smoothing={"method": "chen-cherry-6", "alpha": 5.0}),
     "error-when-smoothing-chen-cherry-6-and-order-below-3"),
    # nltk's refused input (seed 11): an empty hypothesis without references; giving the segment a reference is
    # answered, a token in the hypothesis is not, the six weights (one zero) are no part of it
    (no_references, request(level="sentence", segments=[{"hypothesis": [], "references": []}],
                            weights=[0.0, 0.3333333333333333, 0.3333333333333333, 0.003, 0.1, 0.25]),
     "error-when-references-missing"),
    # the empty segment among others: the hypothesis given a token is answered, so is the reference given one;
    # each alone is one segment's emptiness
    (empty_segment, request(segments=[{"hypothesis": [], "references": [[]]},
                                      {"hypothesis": ["a"], "references": [["a"]]}]), "error-when-segment-empty"),
    # an empty hypothesis against a non-empty reference: the reference is no part of it
    (empty_hypothesis, request(segments=[{"hypothesis": [], "references": [["a"], []]}]),
     "error-when-hypothesis-empty"),
    # at order 1 "empty" and "shorter than the order" have one neighbour (one token): at order 2 the one token
    # still errs, so the cause is the length against the order
    (short_hypothesis, request(segments=[{"hypothesis": [], "references": [["a"]]}]),
     "error-when-hypothesis-shorter-than-order"),
    (short_hypothesis, request(segments=[{"hypothesis": ["a"], "references": [["a", "b"]]}], weights=[0.5, 0.5]),
     "error-when-hypothesis-shorter-than-order"),
    # mteval-v13a.pl's driver cannot send a text holding "-\n" (its SGML reader joins whitespace first): keeping one
    # segment of two, or lengthening the short reference, must not take the hyphen away with it
    (lambda r: any("-\n" in t for s in r.segments for t in (s.hypothesis, *s.references)),
     request(tokenize="13a", weights=[0.25] * 4, segments=[{"hypothesis": "the cat", "references": ["the cat"]},
                                                          {"hypothesis": "", "references": ["re-\n well-\nknown"]}]),
     "error-when-text-hyphen-before-line-break"),
    # a reader of one segment a line cannot take any line break: the hyphen's neighbour (a space before the
    # line break) still errs
    (lambda r: any("\n" in t for s in r.segments for t in (s.hypothesis, *s.references)),
     request(tokenize="13a", segments=[{"hypothesis": "well-\nknown", "references": ["well known"]}]),
     "error-when-text-line-break"),
    # a caller that writes each segment as a line and reads the reference file back with universal newlines
    # (zip_longest's EOFError on streams of different lengths): a lone CR in a reference errs. Its neighbour, the CR
    # made a space, is answered (a token holding whitespace is still sent): the line end, not the whitespace; and of
    # the line end's faces, the reference's CR made U+2028 ("a\u2028b", no line end for universal newlines) is
    # answered, and so is the CR moved to the hypothesis ("a\r" against "a b"): a reference's lone CR
    (universal_newlines_references,
     request(segments=[{"hypothesis": ["a", "b"], "references": [["a\rb"]]}]),
     "error-when-reference-token-with-carriage-return"),
    # a whitespace-splitting caller errs on any whitespace: the line end made a space still errs, so the cause is
    # the broader feature
    (lambda r: any(t.split() != [t] for s in r.segments for t in (*s.hypothesis, *(x for ref in s.references
                                                                                 for x in ref))),
     request(segments=[{"hypothesis": ["a\u2028b"], "references": [["a"]]}]), "error-when-token-with-whitespace"),
    # str.splitlines on texts, NEL in a hypothesis: the line break's neighbour (LF and CR made spaces; there are
    # none) is the request itself, the line end's is answered
    (lambda r: any("\x85" in t for s in r.segments for t in (s.hypothesis, *s.references)),
     request(tokenize="13a", segments=[{"hypothesis": "a\x85b", "references": ["a b"]}]), "error-when-text-line-end"),
    (lambda r: r.level == "corpus" and not r.segments,
     request(segments=[], weights=[0.0, 0.25, 1.0, 0.0], smoothing={"method": "chen-cherry-3"}),
     "error-when-corpus-empty"),
])
def test_the_cause_is_the_feature_whose_neighbours_are_answered(rule, failing, name):
    _named_by_its_neighbours(rule, failing, name)


def test_a_neighbour_answered_for_another_reason_is_told_apart():
    """nltk answers 0 before its smoothing when no unigram matches: keeping only the empty reference of a method6
    input at order 2 is answered, though the references are no part of the IndexError. The input with every other
    feature taken away still errs without the second reference, so "several references" is not named."""
    def nltk(r):
        if no_references(r):
            return True
        if not any(t in ref for s in r.segments for t in s.hypothesis for ref in s.references):
            return False  # p_1 = 0: nltk returns 0 first
        return method6_below_three(r)
    failing = request(level="sentence", segments=[{"hypothesis": ["x-y"], "references": [[], ["on", "x-y"]]}],
                      weights=[0.5, 0.5], smoothing={"method": "chen-cherry-6", "alpha": 1.0})
    cause = error_cause(failing, asking(nltk), methods=METHODS)
    assert cause is not None and cause.name == "error-when-smoothing-chen-cherry-6-and-order-below-3"


def test_no_feature_where_no_neighbour_is_answered():
    """An implementation that errs on everything: nothing of the input separates failing from passing, so no
    feature is named; what the probes found is (every-input-errors: `error-on-every-input-asked`, no feature in it)."""
    cause = error_cause(request(segments=[{"hypothesis": [], "references": [[]]}]), asking(lambda r: True),
                        methods=METHODS)
    assert cause is not None and cause.features == () and cause.name == "error-on-every-input-asked"


def test_a_cause_must_hold_on_the_original_input_too():
    """The shrunk input's hypothesis is empty, the original's is not: the original erred for another reason, and
    an empty hypothesis is not its cause."""
    original = request(segments=[{"hypothesis": ["b"], "references": [["a"]]}])
    shrunk = request(segments=[{"hypothesis": [], "references": [["a"]]}])
    assert error_cause(shrunk, asking(empty_hypothesis), also_failing=(original,), methods=METHODS) is None


def test_a_neighbour_that_cannot_be_asked_confirms_nothing():
    """An implementation of method6 only (`none` not among its methods, so not asked) and of orders 1 and 2 only:
    neither the smoothing nor the order can be taken away, so no cause is confirmed."""
    def ask(r):
        if r.smoothing.method != "chen-cherry-6" or len(r.weights) > 2:
            return None
        return True
    assert error_cause(request(smoothing={"method": "chen-cherry-6", "alpha": 5.0}), ask,
                       methods=("chen-cherry-6",)) is None


def test_an_order_without_a_match_is_held_on_both_sides_of_its_boundary():
    # one match is the boundary: "a b" against "a c" has m_2 = 0 of 1 (holds); against "a b" m_2 = 1 (does not).
    # An order with no n-gram at all ("a" at order 2: 0 of 0) has precision 0 as well, as nltk's m / max(1, l) and
    # the papineni profile read it; so has an empty hypothesis
    name = "error-when-precision-zero"
    assert describe(name) == ("the implementation answers error where an order's precision is 0 (none of its "
                              "hypothesis n-grams matches, or it has none)")
    assert holds(name, request(segments=[{"hypothesis": ["a", "b"], "references": [["a", "c"]]}], weights=[0.5, 0.5]))
    assert not holds(name, request(segments=[{"hypothesis": ["a", "b"], "references": [["a", "b"]]}],
                                   weights=[0.5, 0.5]))
    assert holds(name, request(segments=[{"hypothesis": ["a"], "references": [["a", "b"]]}], weights=[0.5, 0.5]))
    assert not holds(name, request(segments=[{"hypothesis": ["a"], "references": [["a", "b"]]}]))
    assert holds(name, request(segments=[{"hypothesis": [], "references": [["a"]]}]))
    # over the corpus: a second segment that matches at order 2 lifts the first one's zero
    assert not holds(name, request(segments=[{"hypothesis": ["a", "b"], "references": [["a", "c"]]},
                                             {"hypothesis": ["d", "e"], "references": [["d", "e"]]}],
                                   weights=[0.5, 0.5]))
    # case folded where the request folds it: "A" matches "a" under lowercase, not without
    assert holds(name, request(segments=[{"hypothesis": ["A"], "references": [["a"]]}]))
    assert not holds(name, request(segments=[{"hypothesis": ["A"], "references": [["a"]]}], lowercase=True))
    # a text request, split as its tokenizer splits it: "a b" against "a c" at order 2 again
    assert holds(name, request(tokenize="none", segments=[{"hypothesis": "a b", "references": ["a c"]}],
                               weights=[0.5, 0.5]))


def test_a_cause_names_its_features_and_is_held_by_inputs_alike():
    name = "error-when-smoothing-chen-cherry-6-and-order-below-3"
    assert describe(name) == ("the implementation answers error where the smoothing is chen-cherry-6 and the order "
                              "(the number of weights) is below 3")
    corpus = request(segments=[{"hypothesis": ["b", "c"], "references": [["c"], ["b"]]}] * 2, weights=[0.5, 0.5],
                     smoothing={"method": "chen-cherry-6", "alpha": 0.01})
    assert holds(name, corpus)
    assert not holds(name, corpus.model_copy(update={"weights": (0.25,) * 4}))
    assert not holds("error-when-no-such-feature", corpus) and not holds("error", corpus)
    # (hints are causes as the budget keeps them: their parts)
    assert hinted(corpus, [("error-when-references-missing",), (name,)]) == name
    assert hinted(corpus, [("error-when-references-missing",), ("segment_totals_floor=1",)]) is None


def test_an_error_on_an_empty_segment_is_named_by_it_and_its_baseline_holds_on_another_seed(tmp_path):
    """The fake answers error on a segment whose hypothesis and references are all empty. Every error record is
    named error-when-segment-empty (not `error`), and a baseline written from seed 0 gates seed 1, whose errors
    are other inputs, green."""
    command = fake("error_empty_segment")
    first = tmp_path / "seed0"
    assert check(first, command, "--seed", 0, examples=60) == 1
    errors = [r for r in results(first).records if r.outcome == "error"]
    assert errors and {r.classification.name for r in errors} == {"error-when-segment-empty"}
    assert all(empty_segment(r.shrunk.request if r.shrunk and r.shrunk.steps else r.request) for r in errors)
    baseline = tmp_path / "baseline.yaml"
    assert run_cli("baseline", "write", "--from", first, "--out", baseline) == 0
    document = yaml.safe_load(baseline.read_text())
    assert [e["id"] for e in document["entries"]] == ["cause:error-when-segment-empty"]
    document["entries"][0]["reason"] = "the fake divides by an empty segment's length (planted)"
    baseline.write_text(yaml.safe_dump(document))
    second = tmp_path / "seed1"
    assert check(second, command, "--seed", 1, "--baseline", baseline, examples=60) == 0
    assert any(r.outcome == "error" for r in results(second).records)


def test_an_unguarded_log_of_a_zero_precision_is_named_by_it(tmp_path):
    """The fake sums w_n log(m_n / l_n) over every order unguarded (tests/fakes/error_log_of_zero.py): it errs on an
    order whose n-grams none matches, and on one without n-grams. The run's errors are named by a precision of 0,
    each record so named erring by the rule written here (hand-counted n-grams, where its shrunk input is one
    segment of tokens); an order without n-grams, which only a longer hypothesis takes away, may be named by the
    hypothesis's length instead."""
    report = tmp_path / "report"
    assert check(report, fake("error_log_of_zero"), examples=60) == 1
    errors = [r for r in results(report).records if r.outcome == "error"]
    names = {r.classification.name for r in errors}
    assert "error-when-precision-zero" in names, names
    for record in errors:
        shrunk = record.shrunk.request if record.shrunk and record.shrunk.steps else record.request
        if record.classification.name == "error-when-precision-zero" and len(shrunk.segments) == 1 \
                and shrunk.tokenize is None and not shrunk.lowercase:
            assert log_of_zero(shrunk), shrunk


def chen_cherry_4_log_one(r):
    """nltk #2204: method 4 divides by ln(c), guarded against c = 0 only: a one-token hypothesis with an unmatched
    order errs (here every order is unmatched where no hypothesis token is in a reference)."""
    return r.smoothing.method == "chen-cherry-4" and any(
        len(s.hypothesis) == 1 and not any(s.hypothesis[0] in ref for ref in s.references) for s in r.segments)


def test_a_one_token_hypothesis_is_a_feature_of_its_own():
    # the shrunk input of the real bug: "a" against an empty reference at order 1. "Shorter than the order" does not
    # hold at order 1; "a a" (two tokens) is answered, so is the reference given "a" (it matches: nothing to smooth),
    # so is the smoothing "none"; every order up to 5 still errs (one token, ln 1 = 0)
    failing = request(level="sentence", segments=[{"hypothesis": ["a"], "references": [[]]}],
                      smoothing={"method": "chen-cherry-4", "k": 5.0})
    cause = error_cause(failing, asking(chen_cherry_4_log_one), methods=METHODS)
    assert cause is not None
    # the reference given "a" is answered because "a" then matches: the rule's unmatched order, confirmed by the
    # hypothesis given as a second reference beside the empty one (answered), not the empty reference (before the
    # precision-zero feature this was named "...-and-reference-empty-and-...")
    assert cause.name == "error-when-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero"
    # at order 2 the same hypothesis is shorter than the order, and that names it (the family's first feature)
    cause = error_cause(failing.model_copy(update={"weights": (0.5, 0.5)}), asking(short_hypothesis), methods=METHODS)
    assert cause is not None and cause.name == "error-when-hypothesis-shorter-than-order"


def test_an_order_bound_the_original_input_does_not_hold_is_no_part_of_the_cause():
    """torchtext #2095: n-grams keyed by ' '.join and split back on ' ', so a token holding k spaces makes an n-gram
    k pieces longer, indexing past the last order where n + k exceeds it. The shrunk input (one space, order 1)
    needs order 1 (at order 2 it is answered), the original (two spaces) errs at order 2 too: the order is no part
    of the cause, the whitespace is."""
    def split_back(r):
        n = len(r.weights)
        return any(len(t.split(" ")) > n for s in r.segments for t in s.hypothesis)
    shrunk = request(segments=[{"hypothesis": [" a"], "references": [[]]}])
    original = request(segments=[{"hypothesis": ["a  b"], "references": [["c"]]}], weights=[0.5, 0.5])
    assert error_cause(shrunk, asking(split_back), methods=METHODS).name == (
        "error-when-token-with-whitespace-and-order-below-2")
    cause = error_cause(shrunk, asking(split_back), also_failing=(original,), methods=METHODS)
    assert cause is not None and cause.name == "error-when-token-with-whitespace"


def references_all_empty(r):
    """sacrebleu 2.0 (the code mjpost/sacrebleu #175 changes): a segment's empty references are left out and a
    segment left with none is refused; an empty reference beside a non-empty one is not."""
    return any(s.references and not any(s.references) for s in r.segments)


def one_reference(r):
    """pycocoevalcap before tylin/coco-caption #15: `assert(len(ref) > 1)` on every segment."""
    return any(len(s.references) == 1 for s in r.segments)


@pytest.mark.parametrize(("rule", "failing", "name"), [
    # the held-out bug's shrunk input: "a" against one empty reference. "a" against "a" is answered (a reference no
    # longer empty) and so is "a" against the empty one and the hypothesis (precision no longer 0); neither says
    # which: "a" against the empty reference and "z" (matching nothing: the precision still 0, a reference still
    # empty) is answered, "a" against two empty references (no longer one reference) errs
    (references_all_empty, request(segments=[{"hypothesis": ["a"], "references": [[]]}]),
     "error-when-references-all-empty"),
    (references_all_empty, request(segments=[{"hypothesis": ["a", "b"], "references": [[], []]},
                                             {"hypothesis": ["a"], "references": [["a"]]}], weights=[0.5, 0.5]),
     "error-when-references-all-empty"),
    # a reader that refuses any empty reference: "a" against the empty one and "z" still errs, "a" against "a" is
    # answered
    (lambda r: any(not x for s in r.segments for x in s.references),
     request(segments=[{"hypothesis": ["a"], "references": [[]]}]), "error-when-reference-empty"),
    # the held-out bug's shrunk input: an empty hypothesis against "a". The one reference given twice is answered
    # (nothing else changes); "a" against "a" (hypothesis no longer empty) still errs
    (one_reference, request(segments=[{"hypothesis": [], "references": [["a"]]}]), "error-when-references-one"),
    # "b" against "a": the hypothesis as a second reference is answered too, but it also makes the one reference two
    (one_reference, request(segments=[{"hypothesis": ["b"], "references": [["a"]]}]), "error-when-references-one"),
    (one_reference, request(segments=[{"hypothesis": ["a"], "references": [["a"]]},
                                      {"hypothesis": ["a"], "references": [["a"], ["b"]]}]),
     "error-when-references-one"),
])
def test_every_reference_empty_and_one_reference_are_features(rule, failing, name):
    _named_by_its_neighbours(rule, failing, name)


def test_every_reference_empty_and_one_reference_are_held_by_inputs_alike():
    assert describe("error-when-references-all-empty") == (
        "the implementation answers error where a segment's every reference is empty")
    assert describe("error-when-references-one") == (
        "the implementation answers error where a segment has exactly one reference")
    assert holds("error-when-references-all-empty", request(segments=[{"hypothesis": [], "references": [[], []]}]))
    assert not holds("error-when-references-all-empty",
                     request(segments=[{"hypothesis": [], "references": [[], ["a"]]}]))
    assert not holds("error-when-references-all-empty", request(segments=[{"hypothesis": ["a"], "references": []}]))
    assert holds("error-when-references-one", request(segments=[{"hypothesis": ["a"], "references": [["a"]]},
                                                                {"hypothesis": ["a"], "references": [[], ["a"]]}]))
    assert not holds("error-when-references-one", request(segments=[{"hypothesis": ["a"], "references": [[], []]}]))


def test_a_feature_whose_neighbour_adds_a_match_is_asked_again_with_one_matching_nothing():
    """A rule that needs both an empty reference and an unmatched order: "a b" against an empty reference and "a c"
    at order 2 (m_2 = 0 of 1). The empty reference lengthened by the hypothesis's first token ("a") adds no bigram
    match, but at order 1 "a" vs "a" would; here the hypothesis given as a reference is answered (m_2 = 1), and so
    is the empty reference given "z" (still m_2 = 0, no reference empty): both features are needed."""
    def rule(r):
        return any(not x for s in r.segments for x in s.references) and log_of_zero(r)
    failing = request(segments=[{"hypothesis": ["a", "b"], "references": [[], ["a", "c"]]}], weights=[0.5, 0.5])
    cause = error_cause(failing, asking(rule), methods=METHODS)
    assert cause is not None and cause.name == "error-when-reference-empty-and-precision-zero"
    # at order 1, "b" against an empty reference and "a": the empty reference given "b" (the hypothesis's token)
    # matches; given "z" it does not, and is answered
    failing = request(segments=[{"hypothesis": ["b"], "references": [[], ["a"]]}])
    cause = error_cause(failing, asking(rule), methods=METHODS)
    assert cause is not None and cause.name == "error-when-reference-empty-and-precision-zero"


@pytest.mark.parametrize(("fake_name", "rule", "name"), [
    ("error_references_all_empty", references_all_empty, "error-when-references-all-empty"),
    ("error_one_reference", one_reference, "error-when-references-one"),
])
def test_an_error_on_empty_references_or_one_reference_is_named_by_it(tmp_path, fake_name, rule, name):
    """The fakes answer error on a segment whose references are all empty (sacrebleu #175), and on a segment of one
    reference (coco-caption #15): the run's errors are named by that feature, each record so named holding it."""
    report = tmp_path / "report"
    assert check(report, fake(fake_name), examples=60) == 1
    errors = [r for r in results(report).records if r.outcome == "error"]
    names = [r.classification.name for r in errors]
    assert names and names.count(name) > len(names) / 2, names
    for record in errors:
        shrunk = record.shrunk.request if record.shrunk and record.shrunk.steps else record.request
        if record.classification.name == name and hasattr(shrunk, "segments"):  # a long input is kept omitted
            assert rule(shrunk), shrunk


# -- r = 0: the reference the length rule picks is empty in every segment ------------------------------------------


def hand_r(r, rule="closest"):
    """The corpus reference length r summed by hand from each segment's reference lengths, by the rules as the
    papineni profile's documents state them (docs: 'closest to the hypothesis length; ties go to the shorter' or
    '... to the longer'; 'the shortest reference'), for a token request."""
    total = 0
    for s in r.segments:
        h, lengths = len(s.hypothesis), [len(x) for x in s.references]
        if rule == "shortest":
            total += min(lengths)
        else:
            nearest = min(abs(n - h) for n in lengths)
            tied = [n for n in lengths if abs(n - h) == nearest]
            total += min(tied) if rule == "closest" else max(tied)
    return total


def divides_by_r(r):
    """The planted bp-ratio-division (tensorflow/nmt #483, huggingface/evaluate #764): `ratio = c / r` unguarded, so a
    ZeroDivisionError where r = 0 (closest, ties to the shorter, as the fake sums it); c = 0 (1 / ratio) also errs."""
    return hand_r(r) == 0 or sum(len(s.hypothesis) for s in r.segments) == 0


def any_reference_empty(r):
    """A reader that refuses any empty reference (nltk's `reference-tokens-as-references` on a first reference
    without tokens)."""
    return any(not x for s in r.segments for x in s.references)


#: The three inputs that separate the three features (closest, ties to the shorter), r by hand beside each:
#: "a" against "": |0 - 1| = 1, the only reference: r = 0; every reference empty, a reference empty
ONE_EMPTY = request(segments=[{"hypothesis": ["a"], "references": [[]]}])
#: "a" against "" and "b c d": |0 - 1| = 1 < |3 - 1| = 2, the empty one is picked: r = 0; a reference is empty,
#: not every one
EMPTY_PICKED_BESIDE_LONG = request(segments=[{"hypothesis": ["a"], "references": [[], ["b", "c", "d"]]}])
#: "a b" against "" and "c d": |0 - 2| = 2 > |2 - 2| = 0, "c d" is picked: r = 2; a reference is empty all the same
EMPTY_NOT_PICKED = request(segments=[{"hypothesis": ["a", "b"], "references": [[], ["c", "d"]]}])


def test_r_zero_is_held_where_the_rule_picks_an_empty_reference_in_every_segment():
    r_zero, all_empty, one_empty = ("error-when-reference-length-zero", "error-when-references-all-empty",
                                    "error-when-reference-empty")
    assert describe(r_zero) == ("the implementation answers error where the reference length r is 0: in every "
                                "segment the reference the length rule picks is empty")
    assert [hand_r(q) for q in (ONE_EMPTY, EMPTY_PICKED_BESIDE_LONG, EMPTY_NOT_PICKED)] == [0, 0, 2]
    assert [holds(r_zero, q) for q in (ONE_EMPTY, EMPTY_PICKED_BESIDE_LONG, EMPTY_NOT_PICKED)] == [True, True, False]
    assert [holds(all_empty, q) for q in (ONE_EMPTY, EMPTY_PICKED_BESIDE_LONG, EMPTY_NOT_PICKED)] == [True, False,
                                                                                                      False]
    assert all(holds(one_empty, q) for q in (ONE_EMPTY, EMPTY_PICKED_BESIDE_LONG, EMPTY_NOT_PICKED))
    # a tie: "a" against "" and "b b" is 1 from each; closest takes the shorter (r = 0), closest-longer the longer
    # (r = 2), which the request's own convention asks for
    tie = request(segments=[{"hypothesis": ["a"], "references": [[], ["b", "b"]]}])
    longer = request(segments=[{"hypothesis": ["a"], "references": [[], ["b", "b"]]}],
                     conventions={"reference_length": "closest-longer"})
    assert (hand_r(tie), hand_r(longer, "closest-longer")) == (0, 2)
    assert holds(r_zero, tie) and not holds(r_zero, longer)
    # under shortest the empty reference is always picked: "a b" against "" and "c d" has r = 0
    shortest = request(segments=[{"hypothesis": ["a", "b"], "references": [[], ["c", "d"]]}],
                       conventions={"reference_length": "shortest"})
    assert hand_r(shortest, "shortest") == 0 and holds(r_zero, shortest)
    # over the corpus: "a" against "" (0) beside "b" against "b" (1): r = 1, though a segment's every reference is
    # empty
    two = request(segments=[{"hypothesis": ["a"], "references": [[]]}, {"hypothesis": ["b"], "references": [["b"]]}])
    assert hand_r(two) == 1 and not holds(r_zero, two) and holds(all_empty, two)


@pytest.mark.parametrize(("rule", "failing", "name"), [
    # "a" against "": r = 0, and every reference is empty. The empty reference joined by "z z" (1 from "a" as the
    # empty one is: the tie goes to the shorter, r stays 0) still errs, so every reference empty is no part of it;
    # joined by "z" (|1 - 1| = 0: r = 1, a reference still empty, no match added) it is answered
    (divides_by_r, ONE_EMPTY, "error-when-reference-length-zero"),
    # "a" against "" and "b c d": r = 0 with a reference that is not empty; "z" beside them is picked (r = 1)
    (divides_by_r, EMPTY_PICKED_BESIDE_LONG, "error-when-reference-length-zero"),
    # "a" against "" (r = 0) and "b" against "" and "c c c" (|0 - 1| = 1 < 2: r = 0): the second segment given "z"
    # (r = 1) is answered, every reference of the first still empty
    (divides_by_r, request(segments=[{"hypothesis": ["a"], "references": [[]]},
                                     {"hypothesis": ["b"], "references": [[], ["c", "c", "c"]]}], weights=[0.5, 0.5]),
     "error-when-reference-length-zero"),
    # the same two inputs against a reader of any empty reference: "z" beside "" still errs, "a" for "" is answered
    (any_reference_empty, ONE_EMPTY, "error-when-reference-empty"),
    (any_reference_empty, EMPTY_PICKED_BESIDE_LONG, "error-when-reference-empty"),
    # and against sacrebleu 2.0's refusal of a segment whose references are all empty: "z z" beside "" is answered
    (references_all_empty, ONE_EMPTY, "error-when-references-all-empty"),
])
def test_r_zero_is_told_from_a_reference_empty_and_every_reference_empty(rule, failing, name):
    _named_by_its_neighbours(rule, failing, name)


def test_r_zero_is_not_named_without_a_neighbour_that_separates_it():
    """"" against "" and "a": r = 0 (|0 - 0| = 0), but under closest no reference added beside an empty hypothesis is
    picked over the empty one, so no neighbour takes r = 0 away keeping a reference empty: an implementation that errs
    exactly where r = 0 is named by the empty reference (its neighbour, "a" for "", answered), not by r = 0."""
    failing = request(segments=[{"hypothesis": [], "references": [[], ["a"]]}])
    assert hand_r(failing) == 0
    cause = error_cause(failing, asking(lambda r: hand_r(r) == 0), methods=METHODS)
    assert cause is not None and cause.name == "error-when-reference-empty"


def test_a_brevity_penalty_divided_by_r_is_named_by_r_zero(tmp_path):
    """plantedbleu's bp-ratio-division takes `c / r` unguarded: its run's errors where r = 0 are named by r = 0, not
    by every reference of a segment being empty (the name it had before r = 0 was a feature), and each record so
    named has r = 0 by hand (its token requests; a text request is split by its tokenizer)."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", "bp-ratio-division"), examples=60) == 1
    errors = [r for r in results(report).records if r.outcome == "error"]
    names = [r.classification.name for r in errors]
    assert "error-when-reference-length-zero" in names and "error-when-references-all-empty" not in names, names
    for record in errors:
        shrunk = record.shrunk.request if record.shrunk and record.shrunk.steps else record.request
        if record.classification.name == "error-when-reference-length-zero" and hasattr(shrunk, "segments") \
                and not shrunk.is_text:  # (a long input is kept omitted)
            assert hand_r(shrunk) == 0, shrunk


def _sentences_of(value) -> int:
    """A segmenter's count of sentences, written here apart from the code: a text split after '.', '!' or '?'
    followed by whitespace (nltk's sent_tokenize on plain prose); a token list cut after each token ending in one,
    one more sentence where tokens follow the last end."""
    if isinstance(value, str):
        return len([piece for piece in re.split(r"(?<=[.!?])\s+", value.strip()) if piece]) or 1
    ends = [i for i, token in enumerate(value) if token[-1:] in ".!?"]
    return len(ends) + (not ends or ends[-1] != len(value) - 1)


def sentence_counts_differ(r):
    """A wrapper that cuts each text into sentences and hands them to a corpus BLEU paired by position, which
    refuses lists of different lengths (nltk's corpus_bleu assert)."""
    return any(_sentences_of(ref) != _sentences_of(s.hypothesis) for s in r.segments for ref in s.references)


@pytest.mark.parametrize("failing", [
    # ["a", "b."]: one sentence (its only end is its last token); ["a.", "b."]: two. The reference given twice
    # (one reference -> two) and the level changed still err; every end a comma (["a", "b,"] against ["a,", "b,"]:
    # one sentence each) is answered
    request(segments=[{"hypothesis": ["a", "b."], "references": [["a.", "b."]]}]),
    # "It rained. We stayed in." is two sentences, "It rained and we stayed in." one; with every end a comma both are
    # one, their 13a tokens as many as before
    request(tokenize="13a", segments=[{"hypothesis": "It rained. We stayed in.",
                                       "references": ["It rained and we stayed in."]}]),
    # the second of two segments differs ("Yes! Go" is two, "Yes go" one): keeping one segment alone is no cure
    # where that segment is the second, so "several segments" is no part of it
    request(tokenize="13a", segments=[{"hypothesis": "ok", "references": ["ok"]},
                                      {"hypothesis": "Yes! Go", "references": ["Yes go"]}]),
])
def test_sentence_counts_that_differ_between_the_sides_are_a_feature(failing):
    _named_by_its_neighbours(sentence_counts_differ, failing, "error-when-sentence-counts-differ")


def test_sentence_counts_held_only_where_they_differ():
    name = "error-when-sentence-counts-differ"
    # two sentences each side ("a. b" and "c. d"), or one each (no end at all): not held
    assert not holds(name, request(segments=[{"hypothesis": ["a.", "b"], "references": [["c.", "d"]]}]))
    assert not holds(name, request(tokenize="13a", segments=[{"hypothesis": "a b", "references": ["c d"]}]))
    # an end as the last token adds no sentence: ["a", "b."] and ["a", "b"] are one each
    assert not holds(name, request(segments=[{"hypothesis": ["a", "b."], "references": [["a", "b"]]}]))
    # one of two references differs: ["a.", "b"] is two, ["a", "b"] one
    assert holds(name, request(segments=[{"hypothesis": ["a.", "b"], "references": [["a.", "b"], ["a", "b"]]}]))


# -- the batch's and the lengths' shapes: one segment, a tie for the closest length, streams, a disjunction ---------


def one_segment(r):
    """An in-graph metric squeezing every axis of size 1 (the fifth held-out set's `single-segment-batch-squeezed`,
    whose commit is cited in its own files only): a batch of one segment loses its batch axis."""
    return len(r.segments) == 1


def squeezed(r):
    """The same squeeze on both axes: a batch of one segment, or one whose longest text (the padded length) is one
    token, loses that axis (realbleu_heldout5's single-segment-batch-squeezed, `_squeezed`)."""
    lengths = [len(x) for s in r.segments for x in (s.hypothesis, *s.references)]
    return len(r.segments) == 1 or max(lengths) == 1


def sacrebleu_1_0_closest(r):
    """sacrebleu 1.0.x's ref_stats, walked by hand: per segment, the references in order, `closest_len` replaced by a
    strictly closer reference, and on an equally close shorter one set to the built-in `len`; the next equally close
    reference compares an int with it, and the corpus sum adds it: either raises TypeError (so it errs where a
    segment ends with, or meets again, `len`)."""
    for s in r.segments:
        c, closest_diff, closest_len = len(s.hypothesis), None, None
        for reference in s.references:
            diff = abs(c - len(reference))
            if closest_diff is None or diff < closest_diff:
                closest_diff, closest_len = diff, len(reference)
            elif diff == closest_diff:
                if closest_len is len:
                    return True
                if len(reference) < closest_len:
                    closest_len = len
        if closest_len is len:
            return True
    return False


def any_closest_tie(r):
    """A rule that cannot choose between two references equally close to the hypothesis length, one shorter and one
    longer, nearer than any other, whatever their order."""
    for s in r.segments:
        c, lengths = len(s.hypothesis), [len(x) for x in s.references]
        if lengths:
            d = min(abs(n - c) for n in lengths)
            if d and c - d in lengths and c + d in lengths:
                return True
    return False


def references_as_streams(r):
    """A sacrebleu wrapper's mistake (the fifth held-out set's control): each segment's references passed as one
    reference stream, so sacrebleu 1.4's `zip_longest(*fhs)` raises unless every segment has as many references as
    there are segments."""
    return any(len(s.references) != len(r.segments) for s in r.segments)


#: a hypothesis of 2 tokens against references of 3 and 1 tokens: |3 - 2| = |1 - 2| = 1, no reference nearer: a tie,
#: the longer listed first (sacrebleu 1.0.x stores `len` at the second reference, and the corpus sum raises)
TIE_LONGER_FIRST = request(segments=[{"hypothesis": ["a", "b"], "references": [["a", "b", "c"], ["a"]]}])
#: the same references, the shorter first: a tie, which sacrebleu 1.0.x walks without harm (the longer is not shorter)
TIE_SHORTER_FIRST = request(segments=[{"hypothesis": ["a", "b"], "references": [["a"], ["a", "b", "c"]]}])
#: the tie with a reference of the hypothesis's length after it: |2 - 2| = 0 is nearer, no tie for the closest
TIE_THEN_EXACT = request(segments=[{"hypothesis": ["a", "b"], "references": [["a", "b", "c"], ["a"], ["b", "a"]]}])


def test_the_shape_features_are_held_as_stated():
    sentence = request(level="sentence", segments=[{"hypothesis": ["a", "b"], "references": [["a"], ["c", "d"]]}])
    two = request(segments=[{"hypothesis": ["a"], "references": [["a"], ["b"]]},
                            {"hypothesis": ["b"], "references": [["b"], ["c"]]}])
    # one segment: a sentence request's one, a corpus of one; not two
    assert holds("error-when-segments-one", sentence) and not holds("error-when-segments-one", two)
    # a tie by the lengths (2 against 3 and 1), the order told apart; no tie where a reference of length 2 follows
    assert holds("error-when-closest-reference-tied-longer-first", TIE_LONGER_FIRST)
    assert not holds("error-when-closest-reference-tied-longer-first", TIE_SHORTER_FIRST)
    assert holds("error-when-closest-reference-tied", TIE_SHORTER_FIRST)
    assert not holds("error-when-closest-reference-tied", TIE_THEN_EXACT)
    # equal lengths are no tie of a shorter and a longer one ("a b" against "c d" and "e f": distance 0)
    assert not holds("error-when-closest-reference-tied", request(segments=[
        {"hypothesis": ["a", "b"], "references": [["c", "d"], ["e", "f"]]}]))
    # in a text request the lengths are the tokenizer's: 13a splits "b." into "b" and ".", so "a b." is 3 tokens
    # against the hypothesis's 2, "a" 1 token: a tie, the longer first
    text = request(tokenize="13a", segments=[{"hypothesis": "a b", "references": ["a b.", "a"]}])
    assert holds("error-when-closest-reference-tied-longer-first", text)
    # two references against one segment, or two segments of two and one: not as many as the segments
    assert holds("error-when-references-not-as-many-as-segments", sentence)
    assert not holds("error-when-references-not-as-many-as-segments", two)
    assert holds("error-when-references-not-as-many-as-segments", request(segments=[
        {"hypothesis": ["a"], "references": [["a"], ["b"]]}, {"hypothesis": ["b"], "references": [["b"]]}]))
    # the longest text one token: "a" against "b"; not where every text is empty (its longest is 0), nor against "b c"
    one = "error-when-segments-one-or-longest-text-one-token"
    assert holds(one, request(segments=[{"hypothesis": ["a"], "references": [["b"]]},
                                        {"hypothesis": [], "references": [["c"]]}]))
    assert not holds(one, request(segments=[{"hypothesis": [], "references": [[]]},
                                            {"hypothesis": [], "references": [[]]}]))
    assert not holds(one, request(segments=[{"hypothesis": ["a"], "references": [["b", "c"]]},
                                            {"hypothesis": ["a"], "references": [["b"]]}]))
    assert holds(one, sentence)  # (one segment: the disjunction's other half)
    assert describe(one) == ("the implementation answers error where either the corpus has exactly one segment (a "
                             "sentence request's one, or a corpus of one), or the longest hypothesis or reference has "
                             "exactly one token (every text at most one)")


@pytest.mark.parametrize(("rule", "failing", "name"), [
    # a sentence request, and a corpus of one: the segment given twice (a corpus of two) is answered
    (one_segment, request(level="sentence", segments=[{"hypothesis": [], "references": [["a"]]}]),
     "error-when-segments-one"),
    (one_segment, request(segments=[{"hypothesis": ["a", "b"], "references": [["a"]]}], weights=[0.5, 0.5]),
     "error-when-segments-one"),
    # the references swapped (the shorter first, the tie kept) are answered: the order is the trigger
    (sacrebleu_1_0_closest, TIE_LONGER_FIRST, "error-when-closest-reference-tied-longer-first"),
    (sacrebleu_1_0_closest, request(segments=[{"hypothesis": ["a", "b"], "references": [["c", "d", "e"], ["f"]]},
                                              {"hypothesis": ["a"], "references": [["a"]]}], weights=[0.5, 0.5]),
     "error-when-closest-reference-tied-longer-first"),
    # swapped, still a tie: still errs; the longer reference given a token more (no tie) is answered
    (any_closest_tie, TIE_SHORTER_FIRST, "error-when-closest-reference-tied"),
    (any_closest_tie, TIE_LONGER_FIRST, "error-when-closest-reference-tied"),
    # two segments of three references: one segment of three still errs (3 is not 1), so do two of one reference
    # (1 is not 2); three segments, each of the same three references, are answered
    (references_as_streams, request(segments=[{"hypothesis": ["a"], "references": [["a"], ["b"], ["c"]]},
                                              {"hypothesis": ["b"], "references": [["b"], ["c"], ["d"]]}]),
     "error-when-references-not-as-many-as-segments"),
])
def test_the_shape_of_the_batch_and_the_lengths_names_the_error(rule, failing, name):
    _named_by_its_neighbours(rule, failing, name)


def test_a_trigger_of_two_features_is_named_by_their_disjunction_each_half_confirmed_on_both_sides():
    """The squeeze errs on "" against "a" at sentence level for two reasons at once: one segment, and the longest
    text one token. Neither feature alone separates it (the segment given twice still errs: its longest text is one
    token; "a" lengthened to "z a" still errs: one segment); the two taken away together are answered."""
    failing = request(level="sentence", segments=[{"hypothesis": [], "references": [["a"]]}])
    ask = asking(squeezed)
    cause = error_cause(failing, ask, methods=METHODS)
    assert cause is not None and cause.name == "error-when-segments-one-or-longest-text-one-token", cause
    assert 0 < len(ask.asked) <= MAX_PROBES + DISJUNCTION_PROBES
    # both sides of each half's boundary were asked: one segment whose texts are longer (errs), two segments of one
    # token (errs), two segments whose longest text is two tokens (answered)
    shapes = {(len(p.segments), max(len(x) for s in p.segments for x in (s.hypothesis, *s.references)), squeezed(p))
              for p in ask.asked}
    assert {(1, 2, True), (2, 1, True), (2, 2, False)} <= shapes, shapes
    # a rule that no pair explains (every request errs but the floor whose reference "z" matches nothing, which no
    # neighbour asked here is) names nothing, and says what the probes showed: each feature the input holds was taken
    # away and it still erred (every request erring, the floor too: `error-on-every-input-asked`, every-input-errors)
    def all_but_the_unmatched_floor(r):
        return not (len(r.segments) == 1 and r.segments[0].hypothesis == ("a",)
                    and r.segments[0].references == (("z",),))
    known: list[str] = []
    assert error_cause(failing, asking(all_but_the_unmatched_floor), methods=METHODS, known=known) is None
    assert len(known) == 1 and known[0].startswith("no input feature separates it"), known
    assert "it still errs without each of: " in known[0] and "the corpus has exactly one segment" in known[0], known
    # where one of the two alone separates, it alone names it (the squeeze on the batch axis only)
    assert error_cause(failing, asking(one_segment), methods=METHODS).name == "error-when-segments-one"


def test_a_neighbour_too_long_to_ask_is_not_asked():
    """An error not shrunk on a drawn long example: an input over MAX_PROBE_TOKENS tokens is not searched (nothing is
    sent, its record says so), and a neighbour over it is not asked."""
    half = MAX_PROBE_TOKENS // 2 + 1  # (the hypothesis and its reference: MAX_PROBE_TOKENS + 2 tokens)
    long_segment = {"hypothesis": ["a"] * half, "references": [["a"] * half]}
    failing = request(segments=[long_segment])
    ask = asking(one_segment)
    known: list[str] = []
    assert error_cause(failing, ask, methods=METHODS, known=known) is None and ask.asked == []
    assert known == [f"not searched: its input holds {2 * half} tokens, over the {MAX_PROBE_TOKENS} a neighbour "
                     "asked may hold"]
    # a shorter input's neighbour over the bound (the one segment given twice) is not asked either
    half = MAX_PROBE_TOKENS // 4 + 1
    failing = request(segments=[{"hypothesis": ["a"] * half, "references": [["a"] * half]}])
    ask = asking(one_segment)
    assert error_cause(failing, ask, methods=METHODS) is None
    assert ask.asked and all(len(p.segments) == 1 for p in ask.asked)
    # (nor is it named an error on every input: a feature's neighbour was not asked, every-input-errors)


def test_an_error_on_one_segment_batches_is_named_by_it(tmp_path):
    """The fake answers error on every request of one segment (a sentence request always): the run's errors are
    named `error-when-segments-one`, each record so named holding it."""
    report = tmp_path / "report"
    assert check(report, fake("error_one_segment"), examples=60) == 1
    errors = [r for r in results(report).records if r.outcome == "error"]
    names = [r.classification.name for r in errors]
    assert names and set(names) == {"error-when-segments-one"}, names
    for record in errors:
        if record.classification.name == "error-when-segments-one" and hasattr(record.request, "segments"):
            assert len(record.request.segments) == 1, record.id


# -- a cause told from its broader and narrower neighbours: an order bound against the texts' lengths, and the
# quantifier of a per-segment feature (issue 36, error-faces) -------------------------------------------------------


def ngram_above_order_one_formed(r):
    """An n-gram builder that raises for every order above 1 (a name unbound in its list comprehension): it errs only
    where such an n-gram is formed, an order of 2 or more and some hypothesis or reference of 2 tokens or more."""
    return len(r.weights) >= 2 and any(len(x) >= 2 for s in r.segments for x in (s.hypothesis, *s.references))


def ngram_above_order_two_formed(r):
    """The same for orders above 2: an order of 3 or more and a text of 3 tokens or more."""
    return len(r.weights) >= 3 and any(len(x) >= 3 for s in r.segments for x in (s.hypothesis, *s.references))


def order_above_one(r):
    """A rule refusing any order above 1 whatever the texts (a scorer of unigrams only, checking its arguments)."""
    return len(r.weights) >= 2


def every_hypothesis_empty(r):
    """A brevity penalty r / c on the corpus's summed lengths, unguarded: it errs only where c = 0, every hypothesis of
    the corpus empty (a corpus with one non-empty hypothesis has c > 0)."""
    return all(not s.hypothesis for s in r.segments)


#: "" against "a b" at order 2 (uniform weights): the one text of two tokens forms the bigram "a b"
EMPTY_AGAINST_TWO = request(segments=[{"hypothesis": [], "references": [["a", "b"]]}], weights=[0.5, 0.5])
#: "" against "a b c" at order 3: the one text of three tokens forms a trigram
EMPTY_AGAINST_THREE = request(segments=[{"hypothesis": [], "references": [["a", "b", "c"]]}],
                              weights=[1 / 3, 1 / 3, 1 / 3])
#: one segment, "" against "a", at sentence level: "a hypothesis is empty" and "every hypothesis is empty" are one input
EMPTY_SENTENCE = request(level="sentence", segments=[{"hypothesis": [], "references": [["a"]]}])


@pytest.mark.parametrize(("rule", "failing", "name"), [
    # the builder of bigrams: at order 1 ("" against "a b", weights (1,)) no bigram is built, answered: the order is
    # above 1; the order kept at 2, the reference cut to "a" forms no bigram, answered: a text longer than 1 too
    (ngram_above_order_one_formed, EMPTY_AGAINST_TWO, "error-when-order-above-1-and-text-longer-than-1"),
    # a refusal of every order above 1: the same cut reference at order 2 still errs, so the order alone stays
    (order_above_one, EMPTY_AGAINST_TWO, "error-when-order-above-1"),
    # the builder of trigrams: order 2 answered (order above 2), "a b c" cut to "a b" at order 3 answered
    (ngram_above_order_two_formed, EMPTY_AGAINST_THREE, "error-when-order-above-2-and-text-longer-than-2"),
    # c = 0: the one segment given twice still errs (both empty), corpus level still errs; one more segment whose
    # hypothesis is "a" (c = 1) is answered: every hypothesis, not some
    (every_hypothesis_empty, EMPTY_SENTENCE, "error-when-hypotheses-all-empty"),
    (every_hypothesis_empty, request(segments=[{"hypothesis": [], "references": [[]]}]),
     "error-when-hypotheses-all-empty"),
    # an empty hypothesis anywhere: the second segment's "a" beside the empty one still errs, the broader name stays
    (empty_hypothesis, EMPTY_SENTENCE, "error-when-hypothesis-empty"),
    (empty_hypothesis, request(segments=[{"hypothesis": [], "references": [[]]}]), "error-when-hypothesis-empty"),
])
def test_a_cause_is_told_from_its_broader_and_narrower_neighbours(rule, failing, name):
    _named_by_its_neighbours(rule, failing, name)


def test_the_probes_that_tell_the_faces_apart_are_on_both_sides_of_the_boundary():
    # the order bound: the failing input's order (2) kept, every text cut to one token ("" against "a"): sent once
    ask = asking(ngram_above_order_one_formed)
    error_cause(EMPTY_AGAINST_TWO, ask, methods=METHODS)
    cut = [p for p in ask.asked if len(p.weights) == 2 and max(len(x) for s in p.segments for x in s.references) == 1]
    assert len(cut) == 1 and cut[0].segments[0].references == (("a",),), cut
    # the quantifier: a corpus of two segments, the failing one ("" against "a") and one whose hypothesis is not empty,
    # every other feature kept (its reference "a"): sent once
    ask = asking(every_hypothesis_empty)
    error_cause(EMPTY_SENTENCE, ask, methods=METHODS)
    mixed = [p for p in ask.asked if len(p.segments) == 2 and {len(s.hypothesis) for s in p.segments} == {0, 1}]
    assert len(mixed) == 1 and mixed[0].level == "corpus", mixed
    assert [s.references for s in mixed[0].segments] == [(("a",),), (("a",),)]
    assert mixed[0].segments[1].hypothesis == ("a",)
    # within the bound (MAX_PROBES, and the faces' allowance)
    assert len(ask.asked) <= MAX_PROBES + FACE_PROBES


def test_the_faces_are_held_and_described_as_stated():
    every = "error-when-hypotheses-all-empty"
    both_empty = request(segments=[{"hypothesis": [], "references": [["a"]]}, {"hypothesis": [], "references": [[]]}])
    one_empty = request(segments=[{"hypothesis": [], "references": [["a"]]}, {"hypothesis": ["b"], "references": [[]]}])
    assert holds(every, both_empty) and holds(every, EMPTY_SENTENCE)
    assert not holds(every, one_empty) and holds("error-when-hypothesis-empty", one_empty)
    assert not holds(every, request(segments=[]))  # (no segment: c = 0, but no hypothesis to be empty)
    assert describe(every) == "the implementation answers error where every hypothesis of the corpus is empty (c = 0)"
    # a text longer than k: "" against "a b" holds it at 1, not at 2; a text request counts its tokenizer's tokens
    # ("a." is "a" and "." under 13a: two)
    longer = "error-when-order-above-1-and-text-longer-than-1"
    assert holds(longer, EMPTY_AGAINST_TWO)
    assert not holds(longer, request(segments=[{"hypothesis": ["a"], "references": [["b"]]}], weights=[0.5, 0.5]))
    assert not holds(longer, EMPTY_AGAINST_TWO.model_copy(update={"weights": (1.0,)}))
    assert not holds("error-when-text-longer-than-2", EMPTY_AGAINST_TWO)
    assert holds(longer, request(tokenize="13a", segments=[{"hypothesis": "a.", "references": ["b"]}],
                                 weights=[0.5, 0.5]))
    assert describe(longer) == ("the implementation answers error where the order (the number of weights) is above 1 "
                                "and a hypothesis or reference has more than 1 token(s) (with the order above 1, an "
                                "n-gram of order 2 is formed)")


#: a lone CR inside a reference's token ("a\rb"), the hypothesis "a b": a line end on the references' side alone
CR_IN_REFERENCE = request(segments=[{"hypothesis": ["a", "b"], "references": [["a\rb"]]}])
#: the same CR in the hypothesis's token
CR_IN_HYPOTHESIS = request(segments=[{"hypothesis": ["a\rb"], "references": [["a", "b"]]}])
#: NEL in a reference's token: a line end for str.splitlines, none for universal newlines
NEL_IN_REFERENCE = request(segments=[{"hypothesis": ["a", "b"], "references": [["a\x85b"]]}])


# -- a line end's trigger at its own boundary: which reader cuts there, on which side (issue 36, error-boundaries) --


@pytest.mark.parametrize(("rule", "failing", "name"), [
    # the reference file read with universal newlines: the reference's CR made U+2028 is answered (no line end for
    # that reader), the CR moved to the hypothesis ("a\r" against "a b") is answered: a reference's lone CR
    (universal_newlines_references, CR_IN_REFERENCE, "error-when-reference-token-with-carriage-return"),
    # universal newlines on both files: the CR moved to the hypothesis still errs, U+2028 in its place is answered
    (universal_newlines_both, CR_IN_REFERENCE, "error-when-token-with-carriage-return"),
    (universal_newlines_both, CR_IN_HYPOTHESIS, "error-when-token-with-carriage-return"),
    # str.splitlines on the reference files alone: U+2028 still errs, the line end moved to the hypothesis answers
    (splitlines_references, CR_IN_REFERENCE, "error-when-reference-token-with-line-end"),
    (splitlines_references, NEL_IN_REFERENCE, "error-when-reference-token-with-line-end"),
    # str.splitlines on both files: U+2028 errs, the line end moved errs: the broader
    # name is confirmed and stays
    (splitlines_both, CR_IN_REFERENCE, "error-when-token-with-line-end"),
    (splitlines_both, CR_IN_HYPOTHESIS, "error-when-token-with-line-end"),
    (splitlines_both, NEL_IN_REFERENCE, "error-when-token-with-line-end"),
])
def test_a_line_end_is_named_at_the_reader_and_the_side_its_probes_confirm(rule, failing, name):
    ask = asking(rule)
    cause = error_cause(failing, ask, methods=METHODS)
    assert cause is not None and cause.name == name, cause
    assert 0 < len(ask.asked) <= MAX_PROBES + FACE_PROBES
    assert holds(name, failing) and rule(failing)


def test_the_probes_that_tell_a_line_end_apart_are_on_both_sides_of_its_boundaries():
    """Each face is named only on probes sent and answered: the reader's (the lone CR made U+2028, every token and
    the other side kept) and the side's (the reference's CR made a space, the hypothesis's first token given it)."""
    ask = asking(universal_newlines_references)
    error_cause(CR_IN_REFERENCE, ask, methods=METHODS)
    sent = [(p.segments[0].hypothesis, p.segments[0].references) for p in ask.asked if len(p.segments) == 1]
    assert (("a", "b"), (("a\u2028b",),)) in sent, sent
    assert (("a\r", "b"), (("a b",),)) in sent, sent
    # an empty hypothesis ("" against "a\rb") is given a token of a letter found nowhere and the CR ("z\r"): asked
    # where its emptiness is no part of the cause (the hypothesis given a token still errs), and answered
    failing = request(segments=[{"hypothesis": [], "references": [["a\rb"]]}])
    ask = asking(universal_newlines_references)
    assert error_cause(failing, ask, methods=METHODS).name == "error-when-reference-token-with-carriage-return"
    assert any(p.segments[0].hypothesis == ("z\r",) and p.segments[0].references == (("a b",),) for p in ask.asked)
    # where that emptiness is part of the cause (a reader erring on an empty hypothesis with a reference's CR), the
    # probe is not asked (it would take the emptiness away too), and the CR made U+2028 alone names the reader only
    both = lambda r: universal_newlines_references(r) and any(not s.hypothesis for s in r.segments)  # noqa: E731
    assert error_cause(failing, asking(both), methods=METHODS).name == (
        "error-when-hypothesis-empty-and-token-with-carriage-return")


def chen_cherry_4_divides_by_log_c(r):
    """nltk's method4 (`incvnt = i + 1 * self.k / math.log(hyp_len)`, hyp_len the corpus's hypothesis length c,
    guarded against c = 0 only): chen-cherry-4, c = 1 over the corpus, and an order with n-grams none of which match
    divides by ln(1) = 0, however many segments hold the corpus."""
    if r.smoothing.method != "chen-cherry-4" or sum(len(s.hypothesis) for s in r.segments) != 1:
        return False
    for n in range(1, len(r.weights) + 1):
        grams = [(g, s) for s in r.segments for g in _ngrams(s.hypothesis, n)]
        if grams and not any(g in _ngrams(ref, n) for g, s in grams for ref in s.references):
            return True
    return False


def test_the_segment_count_is_not_named_for_a_corpus_total_it_took_away():
    """"a" against "b" under chen-cherry-4: the one segment given twice (c = 2) is answered, but so would any second
    segment with a hypothesis token; the segment beside one of an empty hypothesis (c = 1 kept, two segments) still
    errs: the count is no part of it, and the trigger is named without it (its other parts, each confirmed: the
    hypothesis given a second token answers, smoothing none answers, the hypothesis as a reference answers)."""
    failing = request(smoothing={"method": "chen-cherry-4"}, segments=[{"hypothesis": ["a"], "references": [["b"]]}])
    ask = asking(chen_cherry_4_divides_by_log_c)
    cause = error_cause(failing, ask, methods=(*METHODS, "chen-cherry-4"))
    assert cause is not None and cause.name == (
        "error-when-hypothesis-one-token-and-smoothing-chen-cherry-4-and-precision-zero"), cause
    beside = [p for p in ask.asked if len(p.segments) == 2 and p.segments[1].hypothesis == ()]
    assert beside and beside[0].segments[1].references == (("b",),) and chen_cherry_4_divides_by_log_c(beside[0])
    # where the count alone is the trigger, both of its neighbours answer and it stays named
    assert error_cause(failing, asking(one_segment), methods=METHODS).name == "error-when-segments-one"


def test_the_line_end_faces_are_held_and_described_as_stated():
    assert holds("error-when-reference-token-with-carriage-return", CR_IN_REFERENCE)
    assert not holds("error-when-reference-token-with-carriage-return", CR_IN_HYPOTHESIS)
    assert holds("error-when-hypothesis-token-with-carriage-return", CR_IN_HYPOTHESIS)
    assert not holds("error-when-token-with-carriage-return", NEL_IN_REFERENCE)
    assert not holds("error-when-token-with-carriage-return",
                     request(segments=[{"hypothesis": ["a"], "references": [["a\r\nb"]]}]))  # (CR LF: LF's line)
    assert holds("error-when-reference-token-with-line-end", NEL_IN_REFERENCE)
    assert not holds("error-when-hypothesis-token-with-line-end", NEL_IN_REFERENCE)
    assert describe("error-when-reference-token-with-carriage-return") == (
        "the implementation answers error where a reference's token holds a carriage return not followed by LF (a "
        "line end for universal newlines and str.splitlines, none for a reader of LF alone)")


def test_a_feature_read_off_an_input_the_oracle_refuses_does_not_hold_and_a_bug_of_ours_propagates(monkeypatch):
    """The features that tokenize or count the input read the oracle's refusal as "does not hold" (a corpus without
    segments, a segment without references: `bleu.corpus_statistics` refuses both); a ValueError that is no refusal of
    the oracle's is a bug of the diagnosis and propagates (`check` exits 4), as around every other call into the oracle
    (`expect.ORACLE_REFUSALS`)."""
    from oracle.diagnose import errorcauses

    assert errorcauses.zero_precision(request(segments=[{"hypothesis": ["a"], "references": [["b"]]}]))
    assert not errorcauses.zero_precision(request(segments=[]))
    assert not errorcauses.zero_precision(request(segments=[{"hypothesis": ["a"], "references": []}]))

    def broken(*args, **kwargs):
        raise ValueError("a bug of ours")

    monkeypatch.setattr(errorcauses.bleu, "corpus_statistics", broken)
    with pytest.raises(ValueError, match="a bug of ours"):
        errorcauses.zero_precision(request())
    monkeypatch.setattr(ScoreRequest, "tokenized", lambda self, *args: broken())
    for feature in (errorcauses.sentence_counts_differ, errorcauses.reference_length_zero):
        with pytest.raises(ValueError, match="a bug of ours"):
            feature(request(tokenize="13a", segments=[{"hypothesis": "a.", "references": ["b"]}]))


# -- a text's line end at its own boundary: which reader, which side (a text request's faces, leftovers16) ----------


def text_request(hypothesis, references):
    return request(tokenize="13a", segments=[{"hypothesis": hypothesis, "references": references}])


def reads_back(reader, sides):
    """tests/fakes/text_lines_read_back.py's rule: each side's texts written one a line and read back by `reader`
    (universal newlines, `str.splitlines`, LF alone) on `sides`; it errs where a file reads back more lines."""
    from fakes.text_lines_read_back import errs

    return lambda r: errs(r, reader, sides)


#: a lone CR inside a reference's text ("a\rb"), the hypothesis "a b"
TEXT_CR_IN_REFERENCE = text_request("a b", ["a\rb"])
TEXT_CR_IN_HYPOTHESIS = text_request("a\rb", ["a b"])
TEXT_LF_IN_REFERENCE = text_request("a b", ["a\nb"])
TEXT_NEL_IN_REFERENCE = text_request("a b", ["a\x85b"])
TEXT_LS_IN_HYPOTHESIS = text_request("a\u2028b", ["a b"])


@pytest.mark.parametrize(("reader", "sides", "failing", "name"), [
    # universal newlines on the reference files: the reference's CR made U+2028 ("a\u2028b": no line end for that
    # reader) answers, the CR moved to the hypothesis ("a\r b" against "a b") answers: a reference's lone CR
    ("universal", "references", TEXT_CR_IN_REFERENCE, "error-when-reference-text-with-carriage-return"),
    ("universal", "hypothesis", TEXT_CR_IN_HYPOTHESIS, "error-when-hypothesis-text-with-carriage-return"),
    # on both files: the CR moved to the hypothesis still errs, U+2028 in its place answers
    ("universal", "both", TEXT_CR_IN_REFERENCE, "error-when-text-with-carriage-return"),
    ("universal", "both", TEXT_CR_IN_HYPOTHESIS, "error-when-text-with-carriage-return"),
    # an LF is a line end for every reader: no reader face; the LF moved to the hypothesis answers for the reference
    # reader, errs for both
    ("universal", "references", TEXT_LF_IN_REFERENCE, "error-when-reference-text-line-break"),
    ("lf", "references", TEXT_LF_IN_REFERENCE, "error-when-reference-text-line-break"),
    ("universal", "both", TEXT_LF_IN_REFERENCE, "error-when-text-line-break"),
    # str.splitlines on the reference files: U+2028 still errs (no CR face), the CR moved to the hypothesis answers
    ("splitlines", "references", TEXT_CR_IN_REFERENCE, "error-when-reference-text-line-break"),
    ("splitlines", "both", TEXT_CR_IN_REFERENCE, "error-when-text-line-break"),
    # the other line ends (NEL, U+2028): str.splitlines' alone, told by their side only
    ("splitlines", "references", TEXT_NEL_IN_REFERENCE, "error-when-reference-text-line-end"),
    ("splitlines", "hypothesis", TEXT_LS_IN_HYPOTHESIS, "error-when-hypothesis-text-line-end"),
    ("splitlines", "both", TEXT_NEL_IN_REFERENCE, "error-when-text-line-end"),
])
def test_a_text_line_end_is_named_at_the_reader_and_the_side_its_probes_confirm(reader, sides, failing, name):
    rule = reads_back(reader, sides)
    ask = asking(rule)
    cause = error_cause(failing, ask, methods=METHODS)
    assert cause is not None and cause.name == name, cause
    assert 0 < len(ask.asked) <= MAX_PROBES + FACE_PROBES
    assert holds(name, failing) and rule(failing)


def test_the_probes_that_tell_a_text_line_end_apart_are_on_both_sides_of_its_boundaries():
    """Each face is named only on probes sent, one on each side of its boundary, what each gets derived from the
    fake's rule by hand: universal newlines on the reference files, "a b" against "a\\rb"."""
    rule = reads_back("universal", "references")
    ask = asking(rule)
    error_cause(TEXT_CR_IN_REFERENCE, ask, methods=METHODS)
    sent = {(p.segments[0].hypothesis, p.segments[0].references): rule(p) for p in ask.asked if len(p.segments) == 1}
    # the reader's boundary: the CR made U+2028, a line end for str.splitlines alone: "a\u2028b\n" reads back one
    # line with universal newlines, answered; the failing CR, two lines ("a", "b"), errs
    assert sent[("a b", ("a\u2028b",))] is False
    # the side's boundary: the reference's CR made a space and the hypothesis given it after its first word,
    # "a\r b": the hypotheses are not read back, answered (the reference side, read back, errs where it holds it)
    assert sent[("a\r b", ("a b",))] is False
    assert rule(TEXT_CR_IN_REFERENCE)
    # with both sides read back, the same two probes: U+2028 answers, the moved CR errs ("a\r b\n": "a", " b")
    both = asking(reads_back("universal", "both"))
    error_cause(TEXT_CR_IN_REFERENCE, both, methods=METHODS)
    answered = {(p.segments[0].hypothesis, p.segments[0].references): reads_back("universal", "both")(p)
                for p in both.asked if len(p.segments) == 1}
    assert answered[("a b", ("a\u2028b",))] is False and answered[("a\r b", ("a b",))] is True
    # an empty hypothesis is given a letter found nowhere, the CR after it and a space ("z\r "): a CR at a text's end
    # would meet the writer's LF (CR LF, one line end) and be answered for that reason alone
    empty = asking(rule)
    assert error_cause(text_request("", ["a\rb"]), empty, methods=METHODS).name == (
        "error-when-reference-text-with-carriage-return")
    assert any(p.segments[0].hypothesis == "z\r " and p.segments[0].references == ("a b",) for p in empty.asked)
    assert not reads_back("universal", "hypothesis")(text_request("z\r", ["a b"]))  # the LF after it: one line
    assert reads_back("universal", "hypothesis")(text_request("z\r ", ["a b"]))


def test_the_text_line_end_faces_are_held_and_described_as_stated():
    assert holds("error-when-reference-text-with-carriage-return", TEXT_CR_IN_REFERENCE)
    assert not holds("error-when-reference-text-with-carriage-return", TEXT_CR_IN_HYPOTHESIS)
    assert not holds("error-when-reference-text-with-carriage-return", CR_IN_REFERENCE)  # (a token's: not a text's)
    assert not holds("error-when-text-with-carriage-return", TEXT_LF_IN_REFERENCE)
    assert not holds("error-when-text-with-carriage-return", text_request("a", ["a\r\nb"]))  # (CR LF: LF's line)
    assert holds("error-when-reference-text-line-break", TEXT_CR_IN_REFERENCE)
    assert holds("error-when-reference-text-line-end", TEXT_NEL_IN_REFERENCE)
    assert not holds("error-when-reference-text-line-end", TEXT_LF_IN_REFERENCE)
    assert describe("error-when-hypothesis-text-line-end") == (
        "the implementation answers error where a hypothesis's text holds a line end other than LF and CR (VT, FF, "
        "U+001C-U+001E, NEL, U+2028, U+2029)")


def test_a_text_reader_of_the_reference_files_is_named_at_the_references_side(tmp_path):
    """tests/fakes/text_lines_read_back.py with universal newlines on the reference files: every error is a reference
    text holding LF or a lone CR (the hypotheses are never read back), so each error record's cause is a reference
    face: `reference-text-with-carriage-return` where the shrunk input's line end is a lone CR (U+2028 in its place
    and the CR in the hypothesis both answer), else `reference-text-line-break` (an LF is a line end for every
    reader: told by its side alone); never the broader `text-line-break`, nor a hypothesis's face."""
    assert check(tmp_path, fake("text_lines_read_back", "universal", "references"), "--seed", 0, examples=40) == 1
    errors = [r for r in results(tmp_path).records if r.outcome == "error"]
    assert errors
    assert {r.classification.name for r in errors} <= {"error-when-reference-text-with-carriage-return",
                                                       "error-when-reference-text-line-break"}, errors
# -- an error on every input (issue 36, every-input-errors) ------------------------------------------------------------

#: The failing input's floors as docs/mechanisms.md states them, written out by hand: one segment whose hypothesis is
#: the one token "a" and whose one reference is "a" (a match) or "z" (none), order 1 (weight 1), no smoothing; each at
#: the corpus level and at the sentence level.
#: At the failing input's own order too (with its weights), where it has more than one.
FLOORS = [request(level=level, segments=[{"hypothesis": ["a"], "references": [[reference]]}], weights=weights)
          for weights in ([1.0], [0.5, 0.5]) for reference in ("a", "z") for level in ("corpus", "sentence")]


def _same_request(a, b):
    return a.model_dump(exclude={"seq"}) == b.model_dump(exclude={"seq"})


def test_an_error_on_every_input_asked_is_named_so_and_its_floor_was_asked():
    """An implementation that errs on every request: no feature separates its failing input, every neighbour asked
    errs, and so do both floors (asked, as written out above): named error-on-every-input-asked, no feature in it."""
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["c"]]}], weights=[0.5, 0.5],
                      smoothing={"method": "add-k", "k": 1}, lowercase=True)
    ask = asking(lambda r: True)
    cause = error_cause(failing, ask, methods=METHODS)
    assert cause is not None and cause.name == "error-on-every-input-asked" and cause.features == ()
    assert cause.answered == 0 and cause.probes == len(ask.asked) > 2
    floors = [probe for probe in ask.asked
              if any(_same_request(probe, floor.model_copy(update={"lowercase": True})) for floor in FLOORS)]
    assert len(floors) == 8
    assert "none answered" in cause.description and "floor" in describe("error-on-every-input-asked")


def test_an_error_answered_on_its_floor_is_not_named_on_every_input():
    """Errs on everything but the floor itself (one segment of one matching token, order 1): every neighbour the
    search asks errs, but a probe was answered, so the name is not given, and nothing else is confirmed either."""
    def everything_but_the_floor(r):
        return not (len(r.segments) == 1 and r.segments[0].hypothesis == ("a",)
                    and r.segments[0].references == (("a",),) and len(r.weights) == 1)
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["c"], ["b", "d"]]}] * 2,
                      weights=[0.5, 0.5])
    known = []
    cause = error_cause(failing, asking(everything_but_the_floor), methods=METHODS, known=known)
    assert cause is None or cause.name != "error-on-every-input-asked", cause


def test_an_error_answered_where_no_token_matches_is_not_named_on_every_input():
    """A precision returned as 0 whose logarithm raises, where a zero guard answers an order with no match first:
    errs wherever every order has a match, answered where one has none. The floor whose token matches nothing is
    answered, so the name is not given."""
    def every_order_matched(r):
        return all(any(t in ref for s in r.segments for t in s.hypothesis for ref in s.references)
                   for _ in r.weights)
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["c", "b"], ["b"]]}] * 2)
    cause = error_cause(failing, asking(every_order_matched), methods=METHODS)
    assert cause is None or cause.name != "error-on-every-input-asked", cause


@pytest.mark.parametrize("weights", [[0.5, 0.5], [1.0]])
def test_an_error_answered_where_an_earlier_order_has_no_match_is_not_named_on_every_input(weights):
    """Totals one order short, read where the last order is reached: errs unless an order before the last has no
    match (a zero guard answers it first). At order 1 every input errs; the floor at order 2 (the failing input's
    own, or 2 where its own is 1) whose token matches nothing is answered, so the name is not given."""
    def last_order_reached(r):
        return all(any(t in ref for s in r.segments for t in s.hypothesis for ref in s.references)
                   for _ in r.weights[:-1])
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["c", "b"]]}] * 2, weights=weights)
    cause = error_cause(failing, asking(last_order_reached), methods=METHODS)
    assert cause is None or cause.name != "error-on-every-input-asked", cause


def test_an_error_whose_feature_could_not_be_taken_away_is_not_named_on_every_input():
    """Errs on one segment; the failing input's neighbour of two segments is over MAX_PROBE_TOKENS and is not asked.
    Every input asked erred (each of one segment, the floors too), but a feature was not taken away: not named."""
    half = MAX_PROBE_TOKENS // 4 + 1
    failing = request(segments=[{"hypothesis": ["a"] * half, "references": [["a"] * half]}])
    assert error_cause(failing, asking(one_segment), methods=METHODS) is None


def test_an_error_on_empty_segments_keeps_its_predicate_name():
    """Errs exactly on an empty segment: a neighbour is answered, so the predicate is named, not every input."""
    failing = request(segments=[{"hypothesis": [], "references": [[]]}])
    cause = error_cause(failing, asking(empty_segment), methods=METHODS)
    assert cause is not None and cause.name == "error-when-segment-empty"


def test_a_death_on_every_input_is_not_named_as_an_error_on_every_input():
    """The crash search (CRASH_PREFIX) has its own names: the floor is never asked there."""
    from oracle.diagnose.errorcauses import CRASH_PREFIX
    ask = asking(lambda r: True)
    cause = error_cause(request(segments=[{"hypothesis": ["b"], "references": [["c"]]}] * 2), ask,
                        methods=METHODS, prefix=CRASH_PREFIX)
    assert cause is None or not cause.name.startswith("error")


def test_error_on_every_input_holds_on_any_request_and_names_later_errors_by_hint():
    any_request = request(segments=[{"hypothesis": ["x"], "references": [["y"], ["z"]]}])
    assert holds("error-on-every-input-asked", any_request)
    assert hinted(any_request, [("error-when-references-missing",), ("error-on-every-input-asked",)]) \
        == "error-on-every-input-asked"
    assert hinted(any_request, [("error",)]) is None


def test_an_implementation_that_errs_on_every_input_is_named_so_and_its_later_errors_are_not_probed(tmp_path):
    """tests/fakes/error_every_input.py answers error on every score request. Every error record is named
    error-on-every-input-asked; in each block of 50 examples the failures probed are the shrunk ones (their descriptions
    count the inputs asked), and every other says it was named without probes or a search of its own."""
    report = tmp_path / "report"
    assert check(report, fake("error_every_input"), examples=120) == 1
    records = results(report).records
    errors = [r for r in records if r.outcome == "error"]
    assert errors and {r.classification.name for r in errors} == {"error-on-every-input-asked"}
    probed = [r for r in errors if "input(s) asked" in r.classification.description]
    hinted_ = [r for r in errors if "without probes or a search of its own" in r.classification.description]
    assert len(probed) + len(hinted_) == len(errors)
    assert 1 <= len(probed) <= 3 * 3 and len(hinted_) > len(errors) // 2
    assert not [r for r in records if r.outcome == "pass" and r.kind == "example"]


# -- an error on nearly every input: its exemptions and its order threshold (issue 36, near-every-errors) ---------


def _counts_in_force(r):
    """(matched, total) n-grams over the corpus of each order whose weight is above 0, clipped to each n-gram's
    largest count in one reference, no smoothing (the tests below send `none`): written out here, not the oracle's."""
    from collections import Counter

    def grams(tokens, n):
        return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    pairs = []
    for n, w in enumerate(r.weights, start=1):
        if w <= 0:
            continue
        matched = total = 0
        for s in r.segments:
            hypothesis = grams(list(s.hypothesis), n)
            most = Counter()
            for reference in s.references:
                for gram, k in grams(list(reference), n).items():
                    most[gram] = max(most[gram], k)
            matched += sum(min(k, most[gram]) for gram, k in hypothesis.items())
            total += sum(hypothesis.values())
        pairs.append((matched, total))
    return pairs


def precision_returned_zero(r):
    """p_n returned as 0, its logarithm taken past a guard that answers 0 where an order in force has no n-gram or
    no match: errs exactly where every order in force has a match."""
    return all(m > 0 and t > 0 for m, t in _counts_in_force(r))


def integer_division(r):
    """p_n = m // l past the same guard: errs where every order in force has a match and some has fewer matches
    than n-grams (m // l = 0 below 1)."""
    pairs = _counts_in_force(r)
    return all(m > 0 and t > 0 for m, t in pairs) and any(m < t for m, t in pairs)


def first_order_guarded(r):
    """A near rule: a guard on order 1 alone (nltk's `if p_numerators[1] == 0: return 0`) before a logarithm that
    raises on every input: errs unless order 1's precision is 0. Another order without a match does not stop it."""
    pairs = _counts_in_force(r)
    return bool(pairs) and pairs[0][0] > 0


def test_an_error_answered_only_where_an_order_has_no_match_is_named_unless_precision_zero():
    """A precision returned as 0 past a zero guard (the staged fake's `return:stage_precision:188:4:0`): no feature
    separates its failing input (every one lacks the guard's zero), but every input answered has an order without a
    match: `error-unless-precision-zero`. Both sides asked: the hypothesis made unmatched and the order raised past
    it (answered), the floor of one matching token (errs). The order raised is not `order-below-k` (its answer is the
    guard's: it gains a zero precision)."""
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["b", "c"]]}], weights=[0.5, 0.5])
    ask = asking(precision_returned_zero)
    cause = error_cause(failing, ask, methods=METHODS)
    assert cause is not None and cause.name == "error-unless-precision-zero", cause
    assert any(not precision_returned_zero(p) for p in ask.asked) and any(precision_returned_zero(p) for p in ask.asked)
    assert "answers error on every input asked but where an order in force" in cause.description


def test_an_error_past_an_integer_division_is_named_unless_precision_zero_or_every_precision_one():
    """`m // l`: answered where an order has no match (the guard) and where every precision is 1 (log 1 = 0):
    neither exemption alone separates the inputs asked, the two do."""
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["b", "d"]]}])
    cause = error_cause(failing, asking(integer_division), methods=METHODS)
    assert cause is not None and cause.name == "error-unless-precision-zero-or-precisions-all-one", cause


def test_an_error_answered_only_where_the_first_order_has_no_match_is_not_named_unless_precision_zero():
    """The near rule: every input answered has an order without a match, but the order raised past the hypothesis (a
    zero precision at the added order, order 1 matched) still errs, so "unless an order's precision is 0" is refuted;
    the narrower exemption, order 1's, is named."""
    failing = request(segments=[{"hypothesis": ["b", "c"], "references": [["b", "c"]]}], weights=[0.5, 0.5])
    cause = error_cause(failing, asking(first_order_guarded), methods=METHODS)
    assert cause is not None and cause.name == "error-unless-unigram-precision-zero", cause


@pytest.mark.parametrize(("bound", "expected"), [(1, "error-when-order-above-1"), (2, "error-when-order-above-2")])
def test_an_error_above_an_order_met_at_order_four_is_named_by_its_threshold(bound, expected):
    """Errs exactly where the order is above `bound`, whatever else the input holds (statistics kept for `bound`
    orders only): met at order 4, the order is lowered while it errs and named at the first order answered (order 3
    errs too, which one step down could not tell)."""
    failing = request(segments=[{"hypothesis": ["b", "c", "d", "e", "f"], "references": [["b", "c", "d", "e"]]}],
                      weights=[0.25] * 4)
    cause = error_cause(failing, asking(lambda r: len(r.weights) > bound), methods=METHODS)
    assert cause is not None and cause.name == expected, cause


def test_an_unless_name_holds_where_no_exemption_does_and_names_later_errors_by_hint():
    matched = request(segments=[{"hypothesis": ["b"], "references": [["b"]]}], weights=[1.0])
    unmatched = request(segments=[{"hypothesis": ["b"], "references": [["c"]]}], weights=[1.0])
    short = request(segments=[{"hypothesis": ["b"], "references": [["b"]]}], weights=[0.5, 0.5])
    assert holds("error-unless-precision-zero", matched)
    assert not holds("error-unless-precision-zero", unmatched) and not holds("error-unless-precision-zero", short)
    assert not holds("error-unless-precision-zero-or-precisions-all-one", matched)
    assert hinted(matched, [("error-unless-precision-zero",)]) == "error-unless-precision-zero"
    assert hinted(unmatched, [("error-unless-precision-zero",)]) is None


@pytest.mark.parametrize(("fake_name", "expected"), [
    ("error_guarded_log_of_zero", "error-unless-precision-zero"),
    ("error_guarded_integer_division", "error-unless-precision-zero-or-precisions-all-one"),
    ("error_order_above_one", "error-when-order-above-1"),
])
def test_an_implementation_erring_on_nearly_every_input_is_named_by_what_separates_it(tmp_path, fake_name, expected):
    """Each fake errs on nearly every input, by its stated rule (tests/fakes/fakebleu.py, `guarded_log_error`, and an
    IndexError above order 1); most of its error records (a majority) are named by the rule's boundary, and no record
    it answered is (an error name only ever on an error record)."""
    report = tmp_path / "report"
    assert check(report, fake(fake_name), examples=120) == 1
    records = results(report).records
    errors = [r for r in records if r.outcome == "error"]
    named = [r for r in errors if r.classification.name == expected]
    assert errors and len(named) * 2 > len(errors), {r.classification.name for r in errors}
    assert not [r for r in records if r.outcome != "error" and r.classification is not None
                and r.classification.name == expected]


def loop_over_four_orders(r):
    """sacrebleu 2.0.0's combination over the default 4 orders (realbleu's max-order-constant-4): below order 4 it
    reads a weight that is not there (IndexError), unless an order in force before it has no match (a zero guard
    returns 0 first)."""
    pairs = _counts_in_force(r)
    return len(r.weights) < 4 and all(m > 0 and t > 0 for m, t in pairs)


def test_an_order_raised_answered_with_a_zero_precision_is_asked_again_without_one():
    """One token each side at order 1: raised to order 2, a one-token hypothesis has no bigram, a zero precision the
    guard answers. That answer could be the guard's or the order's; asked again on an input holding no exemption (every
    order matched but one n-gram), orders 2 and 3 err there and order 4 is answered: `error-when-order-below-4`, not the
    guard's exemption."""
    failing = request(segments=[{"hypothesis": ["a"], "references": [["a"]]}], weights=[1.0])
    cause = error_cause(failing, asking(loop_over_four_orders), methods=METHODS)
    assert cause is not None and cause.name == "error-when-order-below-4", cause
