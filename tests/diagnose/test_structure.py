"""The request's structure as alternatives (issue 36): the classifier names a caller that mis-shapes what it passes
(hypotheses and references swapped, reference lists transposed, pooled or misaligned, strings where token lists are
expected, the tokenizer on one side) by the mechanism, not by `other-counting-of-hyp_len`. Every value is derived by
hand below, under papineni: unigram weights [1] (so the score is BP * m / t), r the closest reference length (ties
to the shorter) summed over segments, BP = 1 if c > r else e^(1 - r/c).

Holds: oracle.diagnose.structure
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import check, deviations, fake

from oracle.diagnose import structure
from oracle.diagnose.classify import AGREES, classify, explained_value
from oracle.diagnose.computations import context_for, result_under, structured_lengths, structured_result
from oracle.diagnose.mechanisms import structure as declared
from oracle.models.protocol import ScoreRequest, Segment


def request(*segments, level="corpus", tokenize=None):
    """A request of (hypothesis, references) pairs: token requests take space-separated words."""
    def tokens(text):
        return text if tokenize is not None else tuple(text.split(" "))

    return ScoreRequest(level=level, weights=[1.0], tokenize=tokenize,
                        segments=[Segment(hypothesis=tokens(h), references=[tokens(r) for r in refs])
                                  for h, refs in segments])


def answer(score, c, r, m, t):
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": [m], "totals": [t]}}


# two segments, one reference each: ("a b" | "a c"), ("d e" | "b f")
TWO = request(("a b", ["a c"]), ("d e", ["b f"]))
# three segments whose references are one line late: ("a b" | "x y z"), ("c d" | "a b"), ("e f" | "c d")
LATE = request(("a b", ["x y z"]), ("c d", ["a b"]), ("e f", ["c d"]))
# three segments whose references are one line early: ("p q" | "a b"), ("a b" | "c d"), ("c d" | "e f")
EARLY = request(("p q", ["a b"]), ("a b", ["c d"]), ("c d", ["e f"]))

CASES = [
    # oracle: c 2, r 3, m 2/2, BP e^(1 - 3/2) = 0.6065. Swapped: "a b c" against "a b": c 3, r 2, m 2/3, BP 1 -> 2/3
    pytest.param(request(("a b", ["a b c"]), level="sentence"), answer(2 / 3, 3, 2, 2, 3), declared.SWAPPED,
                 id="swapped"),
    # oracle: m 1 + 0 of 4, c = r = 4 -> 1/4. Transposed (zip stops at one reference): one segment, "a b" against
    # "a c" and "b f": m 2/2, c 2, r 2 -> 1 (the last segment dropped gives 1/2; pooled gives 2/4 over c 4)
    pytest.param(TWO, answer(1.0, 2, 2, 2, 2), declared.TRANSPOSED, id="transposed"),
    # pooled: "a b" against "a c", "b f": m 2; "d e" against both: m 0; c 4, r 2 + 2 = 4 -> 2/4
    pytest.param(TWO, answer(0.5, 4, 4, 2, 4), declared.POOLED, id="pooled"),
    # oracle: m 0 (score 0). Next references: "a b" | "a b", "c d" | "c d": c 4, r 4, m 4/4 -> 1 (transposed gives
    # 1 too, on c 2: "a b" against every reference)
    pytest.param(LATE, answer(1.0, 4, 4, 4, 4), declared.NEXT_REFERENCES, id="next-references"),
    # previous references: "a b" | "a b", "c d" | "c d": c 4, r 4, m 4/4 -> 1 (next: "p q" | "c d", "a b" | "e f": 0)
    pytest.param(EARLY, answer(1.0, 4, 4, 4, 4), declared.PREVIOUS_REFERENCES, id="previous-references"),
    # oracle: "a b" against "a b", "c d e": c 2, r 2, m 2/2 -> 1. Each reference its own segment: ("a b" | "a b"),
    # ("a b" | "c d e"): c 4, r 2 + 3 = 5, m 2/4, BP e^(1 - 5/4) -> 0.5 e^-0.25
    pytest.param(request(("a b", ["a b", "c d e"]), level="sentence"), answer(0.5 * math.exp(-0.25), 4, 5, 2, 4),
                 declared.EACH_REFERENCE, id="each-reference"),
    # oracle: "ab" against "a b": c 1, r 2, m 0 -> 0. Hypothesis as characters: "a", "b" against "a b": c 2, r 2,
    # m 2/2 -> 1
    pytest.param(request(("ab", ["a b"]), level="sentence"), answer(1.0, 2, 2, 2, 2), declared.HYPOTHESIS_CHARACTERS,
                 id="hypothesis-characters"),
    # oracle: "a b c" against "abc": m 0 -> 0. References as characters: "a b c" against "a", "b", "c": c 3, r 3,
    # m 3/3 -> 1 (both as characters: "a", " ", "b", " ", "c" against "a", "b", "c": m 3/5)
    pytest.param(request(("a b c", ["abc"]), level="sentence"), answer(1.0, 3, 3, 3, 3),
                 declared.REFERENCE_CHARACTERS, id="reference-characters"),
    # oracle: "ab c" against "ab d": c 2, r 2, m 1/2 -> 1/2. Every string as characters: "a", "b", " ", "c" against
    # "a", "b", " ", "d": c 4, r 4, m 3/4 -> 3/4
    pytest.param(request(("ab c", ["ab d"]), level="sentence"), answer(0.75, 4, 4, 3, 4), declared.ALL_CHARACTERS,
                 id="all-characters"),
    # 13a splits a comma after a letter off: "a,b" and "a, b" are both "a , b" (the oracle: 1). Tokenizer on the
    # hypotheses only: "a , b" against "a," "b" (whitespace): c 3, r 2, m 1/3 ("b"), BP 1 -> 1/3
    pytest.param(request(("a,b", ["a, b"]), level="sentence", tokenize="13a"), answer(1 / 3, 3, 2, 1, 3),
                 declared.TOKENIZER_ON_HYPOTHESES, id="tokenizer-on-hypotheses"),
    # tokenizer on the references only: "a," "b" (whitespace) against "a , b": c 2, r 3, m 1/2, BP e^(1 - 3/2)
    pytest.param(request(("a, b", ["a,b"]), level="sentence", tokenize="13a"), answer(0.5 * math.exp(-0.5), 2, 3, 1, 2),
                 declared.TOKENIZER_ON_REFERENCES, id="tokenizer-on-references"),
    # oracle: "a , b" against "a , c": m 2/3. Tokenizer skipped: "a," "b" against "a," "c": c 2, r 2, m 1/2 -> 1/2
    pytest.param(request(("a, b", ["a, c"]), level="sentence", tokenize="13a"), answer(0.5, 2, 2, 1, 2),
                 declared.TOKENIZER_SKIPPED, id="tokenizer-skipped"),
]



# -- nesting confusions, the reference kept, the sampler's padding, special tokens (issue 36, second round) ---------

E = math.e
# three segments whose first reference strings are "ab", "bc", "cd e": read as streams, zip keeps min(3, 2, 2, 4) = 2
STREAMS = request(("a", ["ab"]), ("b", ["bc"]), ("c", ["cd e"]))
# hypothesis "ab" against "ab" (1 token each), "cd ef" against "cd ef gh": hypotheses longest 2, references longest 3
RAGGED = request(("ab", ["ab"]), ("cd ef", ["cd ef gh"]))


def padded_corpus(segments):
    """N segments: ("a" | "a") first, then ("b" | "c"): the oracle m 1, c = r = t = N, BP 1 -> 1/N. Padded by p
    repeats cycling from the start, seg 0 comes back 1 + ceil(p / N) times in all: m that, c = r = t = N + p."""
    return request(("a", ["a"]), *(("b", ["c"]),) * (segments - 1))


def padded_answer(segments, missing):
    copies = 1 + -(-missing // segments)
    total = segments + missing
    return answer(copies / total, total, total, copies, total)


NESTING_CASES = [
    # oracle: "a b" against "ab" (one token): m 0 -> 0. The string "ab" as the references: ("a"), ("b"): m 2/2,
    # c 2, r 1 (closest to 2 among 1, 1), BP 1 -> 1 (the reference's tokens as references: ("a", "b"), r 2)
    pytest.param(request(("a b", ["ab"]), level="sentence"), answer(1.0, 2, 1, 2, 2),
                 declared.REFERENCE_STRING_AS_REFERENCES, id="reference-string-as-references"),
    # oracle: "ab c" against itself -> 1. The tokens "ab", "c" as references, read as characters: ("a", "b"), ("c"):
    # "ab" matches nowhere, "c" does: m 1/2, c 2, r 2 (closest to 2 among 2, 1), BP 1 -> 1/2 (the string as
    # references: ("a"), ("b"), (), ("c"): r 1)
    pytest.param(request(("ab c", ["ab c"]), level="sentence"), answer(0.5, 2, 2, 1, 2),
                 declared.REFERENCE_TOKENS_AS_REFERENCES, id="reference-tokens-as-references"),
    # oracle: "a b" against "b c": m 1/2 -> 1/2. Both strings: "a", " ", "b" against ("b"), (" "), ("c"): " " and "b"
    # match, m 2/3, c 3, r 1, BP 1 -> 2/3 (the text read as characters: against "b", " ", "c", r 3)
    pytest.param(request(("a b", ["b c"]), level="sentence"), answer(2 / 3, 3, 1, 2, 3),
                 declared.STRINGS_AS_REFERENCES_AND_HYPOTHESIS, id="strings-as-references-and-hypothesis"),
    # oracle: "a" | "ab", "b" | "bc", "c" | "cd" "e": m 0 -> 0. As streams: segment 0 against "a", "b", "c", segment 1
    # against "b", "c", "d": m 2/2, c 2, r 1 + 1, BP 1 -> 1 (the string as references keeps 3 segments: c 3)
    pytest.param(STREAMS, answer(1.0, 2, 2, 2, 2), declared.REFERENCE_STRINGS_AS_STREAMS,
                 id="reference-strings-as-streams"),
    # oracle: "a b c" against "a b c d e", "a x": m 3/3, c 3, r 2 (|5-3| = 2 > |2-3| = 1), BP 1 -> 1. The last
    # reference only: against "a x": m 1/3, c 3, r 2 -> 1/3 (the first only: m 3/3, r 5, BP e^(1 - 5/3))
    pytest.param(request(("a b c", ["a b c d e", "a x"]), level="sentence"), answer(1 / 3, 3, 2, 1, 3),
                 declared.LAST_REFERENCE, id="last-reference-only"),
    # padded to a multiple of k, N chosen so that no smaller k pads as many (-N mod j for j < k differs):
    # k 2, N 3: p 1 -> 2/4; k 3, N 2: p 1 -> 2/3; k 4, N 5: p 3 (k 2 and 3 pad 1) -> 2/8; k 5, N 3: p 2 -> 2/5;
    # k 6, N 7: p 5 (1, 2, 1, 3 before) -> 2/12; k 7, N 3: p 4, seg 0 three times -> 3/7; k 8, N 3: p 5 -> 3/8
    *(pytest.param(padded_corpus(n), padded_answer(n, p), declared.PADDED_CORPUS[k], id=f"padded-to-{k}")
      for k, n, p in ((2, 3, 1), (3, 2, 1), (4, 5, 3), (5, 3, 2), (6, 7, 5), (7, 3, 4), (8, 3, 5))),
    # oracle: "ab cd" against "ab cd ef": m 2/2, c 2, r 3 -> e^(1 - 3/2). A token on the hypothesis: "ab cd </s>":
    # m 2/3, c 3, r 3, BP 1 -> 2/3 (the hypothesis read as characters matches nothing: its tokens are 2 letters)
    pytest.param(request(("ab cd", ["ab cd ef"]), level="sentence"), answer(2 / 3, 3, 3, 2, 3),
                 declared.TOKEN_ON_HYPOTHESES, id="special-token-on-hypotheses"),
    # oracle: "ab cd" against itself -> 1. A token on the reference: "ab cd </s>": m 2/2, c 2, r 3 -> e^(1 - 3/2)
    pytest.param(request(("ab cd", ["ab cd"]), level="sentence"), answer(E ** -0.5, 2, 3, 2, 2),
                 declared.TOKEN_ON_REFERENCES, id="special-token-on-references"),
    # oracle: c 2 (1 + 2), r 5 (3 + 2), m 3/3 -> e^(1 - 5/3). Hypotheses padded to 2 tokens: "ab cd" | "ab cd ef",
    # "gh <pad>" | "gh ij": m 2 + 1, c 4, r 3 + 2 -> 3/4 e^(1 - 5/4)
    pytest.param(request(("ab cd", ["ab cd ef"]), ("gh", ["gh ij"])), answer(0.75 * E ** -0.25, 4, 5, 3, 4),
                 declared.PADDING_IN_HYPOTHESES, id="padding-in-hypotheses"),
    # oracle: c 2, r 1 + 4, m 2/2 -> e^(1 - 5/2). References padded to 4 tokens: "ab <pad> <pad> <pad>", "cd ef gh ij":
    # m 2/2, c 2, r 8 -> e^(1 - 4) (a token on each reference: r 2 + 5 = 7; both sides padded: the hypotheses are
    # as long as each other, so the same counts, tried later)
    pytest.param(request(("ab", ["ab"]), ("cd", ["cd ef gh ij"])), answer(E ** -3, 2, 8, 2, 2),
                 declared.PADDING_IN_REFERENCES, id="padding-in-references"),
    # RAGGED, oracle: c 3, r 4, m 3/3 -> e^(1 - 4/3). Each side to its own longest: "ab <pad>" | "ab <pad> <pad>"
    # (the pad clipped to 1), "cd ef" | "cd ef gh": m 4/4, c 4, r 6 -> e^(1 - 6/4) (the hypotheses only: 3/4;
    # the references only: c 3, r 6 -> e^-1)
    pytest.param(RAGGED, answer(E ** -0.5, 4, 6, 4, 4), declared.PADDING_ON_BOTH, id="padding-on-both-sides"),
    # RAGGED, every sequence to 3 tokens: "ab <pad> <pad>" | "ab <pad> <pad>" m 3, "cd ef <pad>" | "cd ef gh" m 2:
    # m 5/6, c 6, r 6, BP 1 -> 5/6
    pytest.param(RAGGED, answer(5 / 6, 6, 6, 5, 6), declared.PADDING_TO_COMMON_LENGTH,
                 id="padding-to-a-common-length"),
    # RAGGED, an end token on each reference ("ab </s>", "cd ef gh </s>": the longest 4), then every sequence to 4:
    # "ab <pad> <pad> <pad>" | "ab </s> <pad> <pad>": ab and two pads match, 3; "cd ef <pad> <pad>" | "cd ef gh </s>":
    # 2. m 5/8, c 8, r 8, BP 1 -> 5/8 (no end token: every sequence to 3, m 5/6)
    pytest.param(RAGGED, answer(5 / 8, 8, 8, 5, 8), declared.END_TOKEN_AND_COMMON_PADDING,
                 id="end-token-on-references-and-padding-to-a-common-length"),
    # RAGGED, the end token on each reference, then each side to its own longest: "ab <pad>" | "ab </s> <pad> <pad>"
    # m 2 (one pad of the hypothesis), "cd ef" | "cd ef gh </s>" m 2: m 4/4, c 4, r 8 -> e^(1 - 8/4) (without the
    # end token r 6)
    pytest.param(RAGGED, answer(E ** -1, 4, 8, 4, 4), declared.END_TOKEN_AND_PADDING_ON_BOTH,
                 id="end-token-on-references-and-padding-on-both-sides"),
    # ("a b c" | "a"), ("a" | "a b"), ("b" | "b"), the end token on every hypothesis and every reference, then each
    # side to its own longest (glm4-pads; tests/diagnose/test_cover.py's GLM-4 example): hypotheses "a b c </s>",
    # "a </s> <pad> <pad>", "b </s> <pad> <pad>" (4 wide), references "a </s> <pad>", "a b </s>", "b </s> <pad>"
    # (3 wide): m 2 + 2 + 3 = 7/12, c 12, r 9, BP 1 -> 7/12 (no pads: c 8, r 7; the end token on the references
    # only: c 9, m 2 + 1 + 1). RAGGED would not do: its c 6, r 8, m 6/6 is also the corpus padded to 4 segments
    pytest.param(request(("a b c", ["a"]), ("a", ["a b"]), ("b", ["b"])), answer(7 / 12, 12, 9, 7, 12),
                 declared.END_TOKEN_AND_PADDING_ON_BOTH_SIDES,
                 id="end-token-and-padding-on-both-sides"),
]


def bigram_request(hypothesis, reference):
    return ScoreRequest(level="sentence", weights=[0.5, 0.5], segments=[
        Segment(hypothesis=tuple(hypothesis.split(" ")), references=[tuple(reference.split(" "))])])


def bigram_answer(score, c, r, matches, totals):
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}}


#: On both sides a start and an end token differ in the bigrams they make with their neighbours (under unigram
#: weights they give the same counts, and the end token, tried first, names the record).
BIGRAM_CASES = [
    # oracle: "bb xx" against "cc xx": p2 0 -> 0. End token on both: "bb xx </s>" | "cc xx </s>": unigrams xx, </s>
    # 2/3, bigrams (xx, </s>) 1/2, c 3, r 3, BP 1 -> sqrt(2/3 * 1/2) (the start token: (<s>, bb) and (bb, xx) match
    # nothing; two-letter tokens, so that the text read as characters gives other lengths: c 5)
    pytest.param(bigram_request("bb xx", "cc xx"), bigram_answer(math.sqrt(1 / 3), 3, 3, [2, 1], [3, 2]),
                 declared.END_TOKEN_ON_BOTH, id="end-token-on-both-sides"),
    # the mirror: "<s> xx bb" | "<s> xx cc": unigrams <s>, xx 2/3, bigrams (<s>, xx) 1/2 -> sqrt(1/3)
    pytest.param(bigram_request("xx bb", "xx cc"), bigram_answer(math.sqrt(1 / 3), 3, 3, [2, 1], [3, 2]),
                 declared.START_TOKEN_ON_BOTH, id="start-token-on-both-sides"),
]

#: A segment written one a line and read back by a reader with more line ends (issue 36, fifth held-out set): the
#: hypothesis "a<LE>b c" against the reference "a b<LE>c", <LE> a line end inside a token. The oracle: tokens
#: "a<LE>b", "c" against "a", "b<LE>c": m 0/2, c 2, r 2 -> 0. Cut at <LE>, the hypothesis is the lines "a" and "b c",
#: the reference "a b" and "c", paired by position: ("a" | "a b") m 1, c 1, r 2; ("b c" | "c") m 1, c 2, r 1: m 2/3,
#: c 3, r 3, BP 1 -> 2/3 (the tokens re-split on whitespace instead give "a b c" on both sides: 1).
LINE_END_CASES = [
    # a carriage return: both readers cut there, universal newlines (tried first) names it
    pytest.param(request(("a\rb c", ["a b\rc"]), level="sentence"), answer(2 / 3, 3, 3, 2, 3),
                 declared.LINES_CUT_AT_UNIVERSAL_NEWLINES, id="lines-cut-at-universal-newlines"),
    # U+2028: universal newlines do not cut it (that reader's lines are the request's, so it is not tried);
    # str.splitlines does
    pytest.param(request(("a\u2028b c", ["a b\u2028c"]), level="sentence"), answer(2 / 3, 3, 3, 2, 3),
                 declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS, id="lines-cut-at-splitlines-line-ends"),
    # the same as text under 13a, NEL: 13a (str.split) takes NEL for whitespace, "a b c" on both sides -> 1; cut at
    # NEL first, then tokenized, the lines are those above -> 2/3
    pytest.param(request(("a\x85b c", ["a b\x85c"]), level="sentence", tokenize="13a"), answer(2 / 3, 3, 3, 2, 3),
                 declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS, id="lines-cut-at-splitlines-line-ends-in-text"),
]
CASES += NESTING_CASES + BIGRAM_CASES + LINE_END_CASES


def test_every_mechanism_has_a_hand_derived_case():
    # the operators at each level of the request have theirs in tests/diagnose/test_level_operators.py
    assert {case.values[2] for case in CASES} == set(declared.STRUCTURES) - declared.COUNTS_FIRST


@pytest.mark.parametrize("scored, reply, name", CASES)
def test_each_mechanism_is_named_by_the_returned_statistics(scored, reply, name):
    explanation = classify(scored, reply, "papineni")
    assert explanation.name == name, (explanation.name, explanation.fits)
    # the explanation's value recomputed from its name alone (as `cases validate` does), the text re-tokenized there
    assert explained_value(scored, "papineni", (("computation", name),)) == pytest.approx(reply["score"], rel=1e-12)


@pytest.mark.parametrize("scored, reply, name", CASES)
def test_the_correct_answer_is_never_named_by_a_mechanism(scored, reply, name):
    base = result_under(context_for(scored.tokenized_as(context_for(scored, "papineni", None).options), "papineni",
                                    None, text=scored if scored.is_text else None))
    s = base.statistics
    n = len(scored.weights)
    correct = {"score": float(base.score), "statistics": {"hyp_len": s.hyp_len, "ref_len": s.ref_len,
                                                          "matches": list(s.matches[:n]), "totals": list(s.totals[:n])}}
    assert classify(scored, correct, "papineni").name == AGREES
    assert classify(scored, float(base.score), "papineni").name == AGREES


def test_the_swap_is_named_from_the_score_alone():
    """Without statistics the score 2/3 fits the swap and the hypothesis read as characters ("a", " ", "b" against
    "a b c": c 3, r 3, m 2/3): both are kept, the swap first."""
    explanation = classify(CASES[0].values[0], 2 / 3, "papineni")
    assert explanation.name == declared.SWAPPED
    assert declared.HYPOTHESIS_CHARACTERS in explanation.fits


@pytest.mark.parametrize("scored, score, stats, name", [
    # "a b" against "a b c d e", BLEU-2 (weights 1/2): the oracle p1 2/2, p2 1/1, c 2, r 5 -> e^(1 - 5/2). A start
    # token on both sides: "<s> a b" | "<s> a b c d e": p1 3/3, p2 2/2, c 3, r 6 -> e^(1 - 2) = e^-1
    (bigram_request("a b", "a b c d e"), E ** -1, (3, 6, [3, 2], [3, 2]), declared.START_TOKEN_ON_BOTH),
    # "a" against "a" and an empty reference: the oracle r 1 (closest), 1. The last reference only: "a" against the
    # empty one: m 0/1, c 1, r 0 -> 0
    (ScoreRequest(level="sentence", weights=[1.0], segments=[Segment(hypothesis=("a",), references=[("a",), ()])]),
     0.0, (1, 0, [0], [1]), declared.LAST_REFERENCE),
])
def test_a_score_alone_names_no_mechanism_of_many_forms(scored, score, stats, name):
    """The score alone, no statistics: the second round's mechanisms (`STATISTICS_ONLY`) fit it, but a score is one
    number, and their many forms fit such numbers by coincidence: none is the name, none a fit. With the
    statistics the mechanism's counts give (derived above), it names the record or is among its fits."""
    explanation = classify(scored, score, "papineni")
    assert name != explanation.name and name not in explanation.fits
    c, r, matches, totals = stats
    counted = classify(scored, {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": matches,
                                                               "totals": totals}}, "papineni")
    assert name in (counted.name, *counted.fits)


def _context(scored):
    return context_for(scored, "papineni", None)


@pytest.mark.parametrize("scored, name", [
    (request(("a b", ["a b"]), level="sentence"), declared.SWAPPED),  # identical sides: the swap is the request
    (request(("a b", ["a c"]), level="sentence"), declared.TRANSPOSED),  # one segment, one reference
    (request(("a b", ["a c"]), level="sentence"), declared.NEXT_REFERENCES),  # one segment: nothing to shift
    (request(("a b", ["a c"]), level="sentence"), declared.PREVIOUS_REFERENCES),
    (request(("a b", ["a c"]), level="sentence"), declared.POOLED),
    (request(("a b", ["a c"]), level="sentence"), declared.EACH_REFERENCE),  # one reference
    (request(("a", ["b"]), level="sentence"), declared.ALL_CHARACTERS),  # one-character tokens are their characters
    (request(("a b", ["a c"]), level="sentence"), declared.TOKENIZER_SKIPPED),  # a token request has no tokenizer
    (request(("a b", ["a c"]), level="sentence", tokenize="13a"), declared.TOKENIZER_SKIPPED),  # 13a splits alike
    # one segment, two references: transposed keeps the first only, whose counts are the oracle's here
    (request(("a b", ["a b", "a c"]), level="sentence"), declared.TRANSPOSED),
    (request(("a b", ["a c"]), level="sentence"), declared.LAST_REFERENCE),  # one reference: the last is all
    # one-character tokens, one a reference: each character its own reference is the request itself
    (request(("a", ["b"]), level="sentence"), declared.REFERENCE_STRING_AS_REFERENCES),
    (request(("a", ["b"]), level="sentence"), declared.REFERENCE_TOKENS_AS_REFERENCES),
    (request(("a", ["b"]), level="sentence"), declared.STRINGS_AS_REFERENCES_AND_HYPOTHESIS),
    (request(("a", ["b"]), level="sentence"), declared.REFERENCE_STRINGS_AS_STREAMS),
    (TWO, declared.PADDED_CORPUS[2]),  # 2 segments: a multiple of 2 already
    (request(*(("a", ["b"]),) * 8), declared.PADDED_CORPUS[8]),
    # every hypothesis and every reference as long as the others: no pad to add
    (TWO, declared.PADDING_IN_HYPOTHESES),
    (TWO, declared.PADDING_IN_REFERENCES),
    (TWO, declared.PADDING_ON_BOTH),
    (TWO, declared.PADDING_TO_COMMON_LENGTH),
    # no line end anywhere; a U+2029 for a reader that does not cut there
    (TWO, declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS),
    (request(("a\u2029b", ["a b"]), level="sentence"), declared.LINES_CUT_AT_UNIVERSAL_NEWLINES),
    # "a\rb" is two lines, "a b" one: the lines cannot be paired one to one (such a caller errs: an assertion on the
    # counts, zip_longest's EOFError), so no score is predicted
    (request(("a\rb", ["a b"]), level="sentence"), declared.LINES_CUT_AT_UNIVERSAL_NEWLINES),
    # two segments, one and two references: not one file per reference
    (request(("a\rb", ["a b"]), ("c", ["c", "d"])), declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS),
])
def test_a_mechanism_that_changes_nothing_is_not_tried(scored, name):
    assert structured_result(_context(scored), declared.STRUCTURES[name]) is None


def _pairs_of(scored, name):
    reshaped = structure.reshaped(scored, None, None, declared.STRUCTURES[name].reshape)
    return [(s.hypothesis, s.references) for s in reshaped.segments]


def test_a_reference_string_read_by_a_tokenizing_library_makes_whitespace_empty_references():
    """"a b" as the references: "a", " ", "b" -- a library that tokenizes each reference string gets no token from
    " " (sacrebleu), one that iterates it (nltk's sentence_bleu(reference_string, hypothesis_string)) gets " "."""
    scored = request(("x", ["a b"]), level="sentence")
    assert _pairs_of(scored, declared.REFERENCE_STRING_AS_REFERENCES) == [(("x",), (("a",), (), ("b",)))]
    assert _pairs_of(scored, declared.STRINGS_AS_REFERENCES_AND_HYPOTHESIS) == [(("x",), (("a",), (" ",), ("b",)))]


def test_an_empty_reference_string_gives_no_references_and_is_not_tried():
    """"" as the list of references is no reference at all: the library errs (nltk's max() of an empty sequence)
    rather than scoring, so no score is predicted."""
    empty = ScoreRequest(level="sentence", weights=[1.0], segments=[Segment(hypothesis=("x",), references=[()])])
    assert structure.reshaped(empty, None, None, structure.reference_string_as_references) is None
    assert structure.reshaped(empty, None, None, structure.reference_tokens_as_references) is None


def test_a_special_token_is_one_no_segment_holds():
    """"a" against "a </s>": an end token "</s>" on the hypothesis would match the reference's (m 2/2); the
    mechanism's token is one the request does not hold, so it matches nothing: m 1/2, c 2, r 2 -> 1/2."""
    scored = request(("a", ["a </s>"]), level="sentence")
    ((hypothesis, _),) = _pairs_of(scored, declared.TOKEN_ON_HYPOTHESES)
    assert hypothesis[0] == "a" and len(hypothesis) == 2 and hypothesis[1] != "</s>"
    result = structured_result(_context(scored), declared.STRUCTURES[declared.TOKEN_ON_HYPOTHESES])
    assert (result.statistics.hyp_len, result.statistics.matches[0], result.statistics.totals[0]) == (2, 1, 2)
    assert float(result.score) == pytest.approx(0.5, rel=1e-12)


def test_the_sampler_cycles_a_corpus_shorter_than_its_padding():
    """One segment padded to 4: the segment three more times (torch cycles the indices where fewer than are
    missing)."""
    one = request(("a", ["b"]), level="sentence")
    assert _pairs_of(one, declared.PADDED_CORPUS[4]) == [(("a",), (("b",),))] * 4


def test_a_line_cut_at_a_token_boundary_leaves_no_empty_token():
    """The tokens "a\r" "b" are written "a\r b": the lines "a" and " b", whose whitespace split drops the blank (no
    empty token). "a" "b\u2029" is written "a b\u2029\n": str.splitlines gives "a b" and "" (the U+2029 ends one line,
    the segment's LF the next), so both sides have an empty last line, paired."""
    scored = request(("a\r b", ["a\r b"]), level="sentence")
    assert _pairs_of(scored, declared.LINES_CUT_AT_UNIVERSAL_NEWLINES) == [(("a",), (("a",),)), (("b",), (("b",),))]
    trailing = request(("a b\u2029", ["a b\u2029"]), level="sentence")
    assert _pairs_of(trailing, declared.LINES_CUT_AT_SPLITLINES_LINE_ENDS) == [(("a", "b"), (("a", "b"),)),
                                                                               ((), ((),))]


def test_too_large_a_corpus_is_not_pooled():
    many = request(*((f"w{i}", [f"w{i + 1}"]) for i in range(structure.MAX_POOLED_SEGMENTS + 1)))
    assert structured_result(_context(many), declared.STRUCTURES[declared.POOLED]) is None


# -- end to end: a planted caller bug, run through check ------------------------------------------------------------


@pytest.mark.parametrize("bug, cause", [("swap-hypothesis-references", declared.SWAPPED),
                                        ("references-as-streams", declared.TRANSPOSED)])
def test_a_planted_caller_bug_is_the_runs_main_cause(tmp_path, bug, cause):
    """tests/fakes/plantedbleu.py's structure switches (each cites its real thread there): every failing record the
    run names is named by the structural mechanism (on main: other-counting-of-hyp_len, -ref_len and more)."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", bug), examples=40) == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name]
    named = [r for r in failing if r.classification.name != "unexplained"]
    assert named and all(cause in r.classification.signature for r in named)
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith(f"By root cause: {cause} x")
    assert "other-counting-of" not in summary


@pytest.mark.parametrize("bug, cause", [("reference-tokens-as-references", declared.REFERENCE_TOKENS_AS_REFERENCES),
                                        # the broad special-token-on-hypotheses refined by the special-token
                                        # probe (oracle/diagnose/specialtoken.py): the fake's <eos> is listed
                                        ("eos-on-hypotheses", declared.END_TOKEN_ON_HYPOTHESES)])
def test_a_planted_nesting_or_special_token_bug_is_named_on_every_scored_record(tmp_path, bug, cause):
    """tests/fakes/plantedbleu.py's switches for issue 36's second round (each cites its real thread there): every
    failing record that returned numbers is named by the mechanism, and the run's main cause is it. A first reference
    without tokens is no reference at all there, and the fake errs on it as nltk does: those records are errors,
    named by their input (error-when-...), never by a counting."""
    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", bug), examples=40) == 1
    failing = [r for r in deviations(report) if r.classification is not None and r.classification.name]
    scored = [r for r in failing if r.outcome == "fail"]
    assert scored and all(r.classification.name == cause for r in scored)
    assert all(r.classification.name.startswith("error-when-") for r in failing if r.outcome == "error")
    summary = (report / "summary.md").read_text()
    line = next(text for text in summary.splitlines() if text.startswith("By root cause: "))
    assert line.startswith(f"By root cause: {cause} x")
    assert "other-counting-of" not in summary


def test_a_transposed_corpus_may_hold_more_references_than_the_protocol_carries():
    """1,500 segments of one reference each ("a wI" | "a vI"), transposed: one segment, "a w0" against all 1,500
    references (more than a request may carry): "a" matches, m 1/2, c 2, r 2 -> 1/2 (the oracle: 1,500/3,000 too,
    on c 3,000: the counts differ, so the mechanism is tried)."""
    big = request(*((f"a w{i}", [f"a v{i}"]) for i in range(1500)))
    result = structured_result(_context(big), declared.STRUCTURES[declared.TRANSPOSED])
    assert (result.statistics.hyp_len, result.statistics.ref_len) == (2, 2)
    assert float(result.score) == pytest.approx(0.5, rel=1e-12)


def _searched_context(scored):
    """The context a search reads: a text request's tokens, with the text (as `classify` builds it)."""
    options = context_for(scored, "papineni", None).options
    return context_for(scored.tokenized_as(options), "papineni", None, text=scored if scored.is_text else None)


@pytest.mark.parametrize("scored, reply, name", CASES)
def test_a_mechanisms_lengths_are_read_off_the_reshaped_request(scored, reply, name):
    """c, r and the totals the hand derivations above give each mechanism's segments (the reply's statistics are
    those), from the reshaped request's lengths alone: what a search rules a mechanism out by before the oracle counts
    its n-grams (`computations.structured_ruled_out`)."""
    n = len(scored.weights)
    stats = reply["statistics"]
    assert structured_lengths(_searched_context(scored), declared.STRUCTURES[name], n) == (
        stats["hyp_len"], stats["ref_len"], tuple(stats["totals"][:n]))


@pytest.mark.parametrize("scored", sorted({case.values[0] for case in CASES}, key=repr))
def test_the_lengths_are_the_oracles_counts_on_every_reshaped_request(scored):
    """On every request above and every mechanism the oracle computes on it, the lengths read off the reshaped request
    are the c, r and totals of the oracle's own statistics there (the same formulas: section 2.1.1's totals and the
    reference-length rule)."""
    n, compared = len(scored.weights), 0
    for mechanism in declared.STRUCTURES.values():
        ctx = _searched_context(scored)
        result = structured_result(ctx, mechanism)
        if result is None:
            continue
        s = result.statistics
        assert structured_lengths(ctx, mechanism, n) == (s.hyp_len, s.ref_len, tuple(s.totals[:n])), mechanism.name
        compared += 1
    assert compared
