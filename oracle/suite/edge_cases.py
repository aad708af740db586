"""The rows of the edge-case matrix: small inputs on which implementations are known to differ.

Each row is a protocol-v1 score request plus a description; `bleu-oracle report`
runs every row on every oracle profile and every installed implementation.
Data only: the ids are stable (reports and readers refer to them).
"""

from __future__ import annotations

from dataclasses import dataclass

from oracle.models.protocol import ScoreRequest, Segment

UNIFORM4 = (0.25, 0.25, 0.25, 0.25)


@dataclass(frozen=True)
class EdgeCase:
    id: str
    title: str
    request: ScoreRequest
    why: str


def _request(level, segments, weights=UNIFORM4, smoothing=None, lowercase=False):
    return ScoreRequest(
        seq=0,
        level=level,
        segments=tuple(Segment(hypothesis=tuple(h.split()), references=tuple(tuple(r.split()) for r in refs))
                       for h, refs in segments),
        weights=tuple(weights),
        smoothing=smoothing or {"method": "none"},
        lowercase=lowercase,
    )


def _case(id, title, why, segments, level="corpus", **kwargs):
    return EdgeCase(id, title, _request(level, segments, **kwargs), why)


CAT = "the cat is on the mat"
EDGE_CASES = (
    _case("empty-hypothesis", "empty hypothesis", "c = 0: BP's e^(1 - r/c) divides by zero; p_n are 0/0",
          [("", [CAT])]),
    _case("empty-reference", "empty reference", "r = 0: nothing can match; BP is 1",
          [("the cat sat on the mat", [""])]),
    _case("both-empty", "hypothesis and reference both empty", "every quantity is 0/0 (MATLAB documents NaN)",
          [("", [""])]),
    _case("shorter-than-order", "hypothesis shorter than the maximum order", "orders 3 and 4 have no n-grams (0/0)",
          [("the cat", ["the cat"])]),
    _case("no-match-at-order-3", "no match at orders 3 and 4", "p_3 = p_4 = 0: the geometric mean is 0",
          [("the cat sat on a mat", [CAT])]),
    _case("no-unigram-match", "no unigram match", "every p_n is 0",
          [("a dog ran far away now", [CAT])]),
    _case("length-tie", "reference-length tie", "c = 5 between references of 4 and 6 tokens (the tutorial's rule: "
                                                "shorter)",
          [("the love can always do", ["love can always find a way", "love makes anything possible"])],
          weights=(1 / 3, 1 / 3, 1 / 3)),
    _case("shortest-not-closest", "shortest reference differs from the closest", "c = 6, references of 3 and 7 tokens",
          [("the cat sat on the mat", ["the cat sat", "the cat sat on the mat today"])]),
    _case("c-equals-r", "c = r", "BP = e^(1 - r/c) = 1 exactly at the boundary",
          [("the cat is on a mat", [CAT])]),
    _case("short-segment-in-corpus", "a segment shorter than n inside a corpus",
          "a perfect corpus whose first segment has two tokens: the summed totals make p_n = 1",
          [("the cat", ["the cat"]), ("a quick brown fox jumps over the lazy dog", ["a quick brown fox jumps over the "
                                                                                    "lazy dog"])]),
    _case("weights-sum-two", "weights not summing to 1", "weights [1, 1]: as given the score is squared; normalised "
                                                         "it is not",
          [("the cat sat on the mat", [CAT])], weights=(1.0, 1.0)),
    _case("zero-weights", "zero weights", "weights [1, 0, 0, 0] with no 4-gram match: does 0 * log 0 count?",
          [("the cat sat on a mat", [CAT])], weights=(1.0, 0.0, 0.0, 0.0)),
    _case("case-difference", "case differences", "'The' against 'the' without case folding",
          [("The Cat sat on the mat", [CAT])], weights=(0.5, 0.5)),
    _case("case-folded", "case differences, lowercase on", "the same input with lowercase: true",
          [("The Cat sat on the mat", [CAT])], weights=(0.5, 0.5), lowercase=True),
    _case("repeated-tokens", "repeated tokens", "'the the the the the the': clipping to the reference's 2",
          [("the the the the the the", [CAT])], weights=(1.0,)),
    _case("bleu-5", "five orders", "weights of length 5 (BLEU-5)",
          [("the cat sat on the mat today", ["the cat sat on the mat today"])], weights=(0.2,) * 5),
    _case("non-ascii", "non-ASCII tokens", "tokens outside ASCII compare as strings",
          [("größer als die Straße", ["größer als die Straße"])], weights=(0.5, 0.5)),
    _case("sentence-exp-smoothing", "sentence level, exp smoothing", "no 3- and 4-gram matches, NIST geometric "
                                                                     "smoothing",
          [("the cat sat on a mat", [CAT])], level="sentence", smoothing={"method": "exp"}),
    _case("sentence-floor-smoothing", "sentence level, floor smoothing 0.1", "zero-match orders get 0.1 matches",
          [("the cat sat on a mat", [CAT])], level="sentence", smoothing={"method": "floor", "value": 0.1}),
    _case("sentence-short-effective-order", "sentence level, hypothesis of 2 tokens", "effective order: only orders "
                                                                                      "1-2 count",
          [("the cat", [CAT])], level="sentence", smoothing={"method": "exp"}),
)
