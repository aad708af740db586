"""The mutation operators at each level of the request, and the pair tier (issue 36, stage pairs).

Each operator (`oracle.diagnose.structure`: the first or the last element in place of all, all but the last or all
but the first, the order reversed, a level folded into the next, at the segments, the references of a segment and the
tokens of a side) is checked on one request whose reshaping is written out by hand below; the classifier is checked
to name one by the statistics its reshaping gives (derived by hand), and to name a structure with a score stage's
variant (`classify._by_structure_with_stage`) where the statistics are the structure's and the score is the variant's
on them. Scores under papineni: BP = 1 if c > r else e^(1 - r/c), r the closest reference length (ties to the
shorter) summed over segments.

Holds: oracle.diagnose.mechanisms.structure
"""

from __future__ import annotations

import math

import pytest

from oracle.diagnose import classify as classify_module
from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.mechanisms import structure as declared
from oracle.diagnose.structure import _pairs
from oracle.models.protocol import ScoreRequest, Segment


def request(*segments, weights=(1.0,)):
    """A corpus request of (hypothesis, references) pairs, each text split on spaces into tokens."""
    return ScoreRequest(level="corpus", weights=list(weights),
                        segments=[Segment(hypothesis=tuple(h.split()), references=[tuple(r.split()) for r in refs])
                                  for h, refs in segments])


# three segments of two references each: ("a b c" | "a b", "c"), ("d x" | "d", "e f"), ("g" | "g h", "i")
THREE = request(("a b c", ["a b", "c"]), ("d x", ["d", "e f"]), ("g", ["g h", "i"]))
H1, H2, H3 = ("a", "b", "c"), ("d", "x"), ("g",)
R1, R2, R3 = (("a", "b"), ("c",)), (("d",), ("e", "f")), (("g", "h"), ("i",))

#: Each side's sequences under each token operator, written out by hand: the hypotheses (a b c), (d x), (g); the
#: references, segment by segment, ((a b), (c)), ((d), (e f)), ((g h), (i)).
HYPOTHESES = {
    "first-token-only": (("a",), ("d",), ("g",)),
    "last-token-only": (("c",), ("x",), ("g",)),
    "last-token-dropped": (("a", "b"), ("d",), ()),
    "first-token-dropped": (("b", "c"), ("x",), ()),
    "tokens-reversed": (("c", "b", "a"), ("x", "d"), ("g",)),
    "tokens-joined-into-one": (("a b c",), ("d x",), ("g",)),
}
REFERENCES = {
    "first-token-only": ((("a",), ("c",)), (("d",), ("e",)), (("g",), ("i",))),
    "last-token-only": ((("b",), ("c",)), (("d",), ("f",)), (("h",), ("i",))),
    "last-token-dropped": ((("a",), ()), ((), ("e",)), (("g",), ())),
    "first-token-dropped": ((("b",), ()), ((), ("f",)), (("h",), ())),
    "tokens-reversed": ((("b", "a"), ("c",)), (("d",), ("f", "e")), (("h", "g"), ("i",))),
    "tokens-joined-into-one": ((("a b",), ("c",)), (("d",), ("e f",)), (("g h",), ("i",))),
}

#: name -> the segments scored, by hand
RESHAPED = {
    # the segments: the first alone, the last alone, all but the first
    "corpus-cut-to-first-segment": [(H1, R1)],
    "corpus-cut-to-last-segment": [(H3, R3)],
    "first-segment-dropped": [(H2, R2), (H3, R3)],
    # the hypotheses' order reversed against the references'
    "hypotheses-in-reverse-order": [(H3, R1), (H2, R2), (H1, R3)],
    # one segment: the hypotheses joined, the first references joined, the second references joined
    "segments-joined-into-one": [(("a", "b", "c", "d", "x", "g"), (("a", "b", "d", "g", "h"), ("c", "e", "f", "i")))],
    # the references of each segment joined into one (all but the last or the first: on THREE_REFERENCES below)
    "references-joined-into-one": [(H1, (("a", "b", "c"),)), (H2, (("d", "e", "f"),)), (H3, (("g", "h", "i"),))],
    **{f"{stem}-in-hypotheses": [(h, r) for h, r in zip(HYPOTHESES[stem], (R1, R2, R3), strict=True)]
       for stem in HYPOTHESES},
    **{f"{stem}-in-references": [(h, r) for h, r in zip((H1, H2, H3), REFERENCES[stem], strict=True)]
       for stem in REFERENCES},
    **{f"{stem}-in-text": list(zip(HYPOTHESES[stem], REFERENCES[stem], strict=True)) for stem in HYPOTHESES},
    # a line read without stripping: its last token carries the line end, on one side or both
    "hypothesis-line-end-kept-on-last-token": [(("a", "b", "c\n"), R1), (("d", "x\n"), R2), (("g\n",), R3)],
    "reference-line-end-kept-on-last-token": [(H1, (("a", "b\n"), ("c\n",))), (H2, (("d\n",), ("e", "f\n"))),
                                              (H3, (("g", "h\n"), ("i\n",)))],
    "line-end-kept-on-last-token-on-both-sides": [(("a", "b", "c\n"), (("a", "b\n"), ("c\n",))),
                                                  (("d", "x\n"), (("d\n",), ("e", "f\n"))),
                                                  (("g\n",), (("g", "h\n"), ("i\n",)))],
}


# two segments, of three references and of two: ("a" | "a b", "c", "d e f"), ("g" | "g", "h i")
THREE_REFERENCES = request(("a", ["a b", "c", "d e f"]), ("g", ["g", "h i"]))
#: the operators that drop a reference, on THREE_REFERENCES, by hand
DROPPED = {
    "last-reference-dropped": [(("a",), (("a", "b"), ("c",))), (("g",), (("g",),))],
    "first-reference-dropped": [(("a",), (("c",), ("d", "e", "f"))), (("g",), (("h", "i"),))],
}


def test_every_level_operator_has_a_hand_written_reshaping():
    assert set(RESHAPED) | set(DROPPED) | {SENTENCES_PAIRED} == set(declared.LEVEL_OPERATORS) == declared.COUNTS_FIRST


@pytest.mark.parametrize("name", sorted(RESHAPED))
def test_each_level_operator_reshapes_the_request_as_written(name):
    assert declared.STRUCTURES[name].reshape(THREE.segments, None, None) == RESHAPED[name]


@pytest.mark.parametrize("name", sorted(DROPPED))
def test_a_reference_dropped_is_written_out_on_three_references(name):
    assert declared.STRUCTURES[name].reshape(THREE_REFERENCES.segments, None, None) == DROPPED[name]
    # on two references a segment, all but the last is the first only, and all but the first the last only: the
    # catalogue's first-reference-only and last-reference-only, so the operator does not apply
    assert declared.STRUCTURES[name].reshape(THREE.segments, None, None) is None


@pytest.mark.parametrize("name", ["corpus-cut-to-first-segment", "first-segment-dropped", "hypotheses-in-reverse-order",
                                  "segments-joined-into-one"])
def test_a_segment_operator_does_not_apply_to_one_segment(name):
    one = request(("a b", ["a b"]))
    assert declared.STRUCTURES[name].reshape(one.segments, None, None) is None


@pytest.mark.parametrize("name", ["last-reference-dropped", "first-reference-dropped", "references-joined-into-one"])
def test_a_reference_operator_does_not_apply_to_a_segment_of_one_reference(name):
    # the second segment has one reference: dropping it would leave none, joining it changes nothing
    mixed = request(("a b", ["a", "b"]), ("c", ["c"]))
    assert declared.STRUCTURES[name].reshape(mixed.segments, None, None) is None


def test_the_segments_joined_need_as_many_references_per_segment():
    uneven = request(("a", ["a", "b"]), ("c", ["c"]))
    assert declared.STRUCTURES["segments-joined-into-one"].reshape(uneven.segments, None, None) is None


def answer(score, c, r, matches, totals):
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}}


@pytest.mark.parametrize("reply, name", [
    # THREE, the oracle: c 3 + 2 + 1 = 6; r 2 (closest to 3 among 2, 1) + 2 (to 2 among 1, 2) + 1 (to 1 among 2, 1)
    # = 5; m 3 (a, b, c) + 1 (d) + 1 (g) = 5 of 6; BP 1 -> 5/6.
    # The last segment alone: "g" against "g h", "i": c 1, r 1, m 1/1, BP 1 -> 1
    (answer(1.0, 1, 1, [1], [1]), "corpus-cut-to-last-segment"),
    # the references of each segment joined: "a b c" | "a b c": m 3, r 3; "d x" | "d e f": m 1, r 3; "g" | "g h i":
    # m 1, r 3: c 6, r 9, m 5/6, BP e^(1 - 9/6) -> 5/6 e^-0.5
    (answer(5 / 6 * math.exp(-0.5), 6, 9, [5], [6]), "references-joined-into-one"),
    # the last token of every hypothesis dropped: "a b" | "a b", "c": m 2, r 2; "d" | "d", "e f": m 1, r 1; "" |
    # "g h", "i": m 0, r 1 (closest to 0: 1): c 3, r 4, m 3/3, BP e^(1 - 4/3) -> e^(-1/3)
    (answer(math.exp(-1 / 3), 3, 4, [3], [3]), "last-token-dropped-in-hypotheses"),
])
def test_a_level_operator_is_named_by_the_statistics_it_gives(reply, name):
    explanation = classify(THREE, reply, "papineni")
    assert name in (explanation.name, *explanation.fits), (explanation.name, explanation.fits)
    assert explained_value(THREE, "papineni", (("computation", name),)) == pytest.approx(reply["score"], rel=1e-12)


# two segments, unigrams: ("a b" | "a b"), ("" | "c"). The oracle: "a b" | "a b": m 2 of 2; "" | "c": c 0, r 1: c 2,
# r 3, m 2/2, BP e^(1 - 3/2) -> e^-0.5
EMPTY = request(("a b", ["a b"]), ("", ["c"]))
# the hypothesis line's end kept: "a b\n" | "a b": m 1 ("a") of 2; the empty line "\n" | "c": one token, m 0 of 1,
# r 1: c 3, r 3, m 1/3, BP 1 -> 1/3
LINE_END = answer(1 / 3, 3, 3, [1], [3])
# on THREE (above): "a b c\n" | "a b", "c": m 2 (a, b), r 2 (closest to 3 among 2, 1); "d x\n" | "d", "e f": m 1,
# r 2; "g\n" | "g h", "i": m 0, r 1: c 6, r 5, m 3/6, BP 1 -> 1/2
THREE_LINE_END = answer(0.5, 6, 5, [3], [6])


@pytest.mark.parametrize("scored, reply", [(EMPTY, LINE_END), (THREE, THREE_LINE_END)], ids=["empty", "three"])
def test_a_hypothesis_line_end_kept_is_named_by_the_statistics_it_gives(scored, reply):
    explanation = classify(scored, reply, "papineni")
    assert "hypothesis-line-end-kept-on-last-token" in (explanation.name, *explanation.fits), (
        explanation.name, explanation.fits)
    assert explained_value(scored, "papineni", (("computation", "hypothesis-line-end-kept-on-last-token"),)) == (
        pytest.approx(reply["score"], rel=1e-12))


def test_a_line_end_on_both_sides_matches_an_empty_reference_line():
    # ("a b" | "a b"), ("" | ""): the oracle has c 2, r 2, m 2/2 -> 1. Both lines' ends kept: "a b\n" | "a b\n": m 2
    # of 2; "\n" | "\n": m 1 of 1: c 3, r 3, m 3/3 -> 1 as well, but c and r are 3; the hypotheses' alone: "\n" | "":
    # r 0, m 0 of 1 and "a b\n" | "a b": m 1 of 2: c 3, r 2, m 1/3
    both = request(("a b", ["a b"]), ("", [""]))
    explanation = classify(both, answer(1.0, 3, 3, [3], [3]), "papineni")
    assert "line-end-kept-on-last-token-on-both-sides" in (explanation.name, *explanation.fits), (
        explanation.name, explanation.fits)
    assert "hypothesis-line-end-kept-on-last-token" not in (explanation.name, *explanation.fits)


def test_a_line_end_is_never_kept_on_a_text_request():
    """A tokenizer splits at a line end as at any other whitespace: on a text request a line read without stripping
    tokenizes as the stripped line, so the statistics a line end kept would give on its tokens (THREE_LINE_END, by
    hand above) are never given its name there."""
    text = ScoreRequest(level="corpus", weights=[1.0], tokenize="13a",
                        segments=[Segment(hypothesis=h, references=refs) for h, refs in (
                            ("a b c", ["a b", "c"]), ("d x", ["d", "e f"]), ("g", ["g h", "i"]))])
    for name in ("hypothesis-line-end-kept-on-last-token", "reference-line-end-kept-on-last-token",
                 "line-end-kept-on-last-token-on-both-sides"):
        assert declared.STRUCTURES[name].reshape(THREE.segments, text, None) is None
    explanation = classify(text, THREE_LINE_END, "papineni")
    assert not {part for fit in (explanation.name, *explanation.fits) for part in fit.split(" + ")} & {
        "hypothesis-line-end-kept-on-last-token", "line-end-kept-on-last-token-on-both-sides"}, explanation.fits


def test_a_reference_dropped_is_named_by_the_statistics_it_gives():
    # THREE_REFERENCES, the oracle: "a" | "a b", "c", "d e f": m 1, r 1 ("c" closest to c = 1); "g" | "g", "h i":
    # m 1, r 1: c 2, r 2, m 2/2 -> 1. The first reference of each segment dropped: "a" | "c", "d e f": m 0, r 1;
    # "g" | "h i": m 0, r 2: c 2, r 3, m 0 of 2 -> 0
    reply = answer(0.0, 2, 3, [0], [2])
    explanation = classify(THREE_REFERENCES, reply, "papineni")
    assert "first-reference-dropped" in (explanation.name, *explanation.fits), (explanation.name, explanation.fits)


def test_a_score_alone_names_no_level_operator():
    """Without statistics the last segment's score 1 (above) is one number, which the operators' many forms fit by
    chance: none is the name, none a fit."""
    explanation = classify(THREE, 1.0, "papineni")
    assert not set(explanation.parts) & declared.COUNTS_FIRST
    assert not {part for fit in explanation.fits for part in fit.split(" + ")} & declared.COUNTS_FIRST


# two segments, BLEU-2 (weights 1/2, 1/2): ("a b c" | "a b d"), ("x y" | "x z w")
BIGRAMS = request(("a b c", ["a b d"]), ("x y", ["x z w"]), weights=(0.5, 0.5))
# the last segment alone: "x y" against "x z w": c 2, r 3; unigrams x of 2, bigrams ("x y") 0 of 1. The arithmetic
# mean of the precisions in place of their geometric mean: BP (p1 + p2) / 2 = e^(1 - 3/2) (1/2 + 0) / 2 = e^-0.5 / 4
LAST_ARITHMETIC = answer(math.exp(-0.5) / 4, 2, 3, [1, 0], [2, 1])

# two segments, unigrams: ("ab c" | "ab c"), ("a" | "b"). The oracle: m 2 + 0 of 3, c = r = 3 -> 2/3. The text read
# as characters, spaces included: "a b ' ' c" against itself, m 4 of 4; "a" against "b", m 0 of 1: c 5, r 5, m 4/5.
# The mean of the two sentences' scores on the characters: (4/4 + 0/1) / 2 = 1/2
CHARACTERS = request(("ab c", ["ab c"]), ("a", ["b"]))
CHARACTERS_MEAN = answer(0.5, 5, 5, [4], [5])


@pytest.mark.parametrize("scored, reply, name", [
    (BIGRAMS, LAST_ARITHMETIC, "corpus-cut-to-last-segment + arithmetic-mean-of-precisions"),
    (CHARACTERS, CHARACTERS_MEAN, "text-read-as-characters + mean-of-sentence-scores"),
])
def test_a_structure_with_a_score_stage_is_named_where_its_statistics_are_returned(scored, reply, name):
    """The pair tier: the returned statistics are every one the structure's (layer by layer), the score is the
    variant's on them; without the tier the record is what is known, `<structure> + other-combination`."""
    explanation = classify(scored, reply, "papineni")
    assert explanation.name == name, (explanation.name, explanation.fits)
    assert explained_value(scored, "papineni", explanation.change) == pytest.approx(reply["score"], rel=1e-12)


def test_a_pair_needs_the_structures_statistics():
    """The same score with the oracle's own statistics (c 5, r 6: "a b c" | "a b d" and "x y" | "x z w"; m 2 + 1 of
    5, bigrams 1 + 0 of 3) is never the last segment's pair: its counts are not the returned ones."""
    reply = answer(LAST_ARITHMETIC["score"], 5, 6, [3, 1], [5, 3])
    explanation = classify(BIGRAMS, reply, "papineni")
    assert not explanation.name.startswith("corpus-cut-to-last-segment"), explanation.name


def test_the_pair_tier_is_what_names_them(monkeypatch):
    """Without the tier, the pair's records fall to what is known (a check that the tests above test the tier): a
    structure the generic tier computes reads the statistics (`text-read-as-characters + other-combination`); a level
    operator, computed only by the tiers that compare its counts first, is never computed, so the first diverging
    layer is all that is known."""
    monkeypatch.setattr(classify_module, "_by_structure_with_stage", lambda search, conventions, close: [])
    # (copies: what the classifier computed on the very same request object with the tier is kept with it,
    # `classify._kept_for`, and a test run just before on the same worker would lend it to this one)
    bigrams, characters = BIGRAMS.model_copy(), CHARACTERS.model_copy()
    assert classify(bigrams, LAST_ARITHMETIC, "papineni").name == "other-counting-of-hyp_len + other-combination"
    assert classify(characters, CHARACTERS_MEAN, "papineni").name == "text-read-as-characters + other-combination"


def test_another_smoothing_on_a_reshaped_request_is_charged_the_reshaped_requests_size(monkeypatch):
    """The pair tier scores a structure's reshaped request under each other smoothing, counting it afresh: charged
    what that costs beyond one candidate on the input, as a structure's first result is (`structured_size`: its tokens
    and each reference once more). CHARACTERS read as characters: the hypotheses "a", "b", " ", "c" and "a" (5), the
    references "a", "b", " ", "c" and "b" (5), two references: 5 + 5 + 2 = 12, where a candidate on the input (2 + 2
    + 1 + 1 tokens) costs 6: 6 more each time, before it is computed."""
    calls = []
    real = classify_module._Search.recounting

    def recording(self, reshaped):
        before = self.spent
        real(self, reshaped)
        calls.append((reshaped.token_count, reshaped.reference_count, self.cost, self.spent - before))

    monkeypatch.setattr(classify_module._Search, "recounting", recording)
    assert classify(CHARACTERS, CHARACTERS_MEAN, "papineni").name == "text-read-as-characters + mean-of-sentence-scores"
    assert calls and set(calls) == {(10, 2, 6, 6)}


def test_hand_written_segments_are_the_pairs_the_request_holds():
    """The reshapings above compare with `_pairs`' shape: (hypothesis tokens, (reference tokens, ...))."""
    assert _pairs(THREE.segments) == [(H1, R1), (H2, R2), (H3, R3)]


# -- the corpus re-segmented: each text cut into sentences, the sentences paired by position (resegment) -----------

SENTENCES_PAIRED = "texts-cut-into-sentences-paired-by-position"
# two segments, BLEU-2 (weights 1/2, 1/2): ("a b . c d" | "a b . c e f"), ("g h" | "g h")
SENTENCES = request(("a b . c d", ["a b . c e f"]), ("g h", ["g h"]), weights=(0.5, 0.5))
#: SENTENCES cut after "." and paired by position, by hand: the first segment's two sentences against the
#: reference's two, the second segment one sentence a side
SENTENCES_RESHAPED = [(("a", "b", "."), (("a", "b", "."),)), (("c", "d"), (("c", "e", "f"),)),
                      (("g", "h"), (("g", "h"),))]
# The oracle on SENTENCES: "a b . c d" | "a b . c e f": c 5, r 6, unigrams a b . c = 4 of 5, bigrams "a b", "b .",
# ". c" = 3 of 4 ("c d" unmatched); "g h" | "g h": c 2, r 2, 2 of 2, 1 of 1: c 7, r 8, [6, 4] of [7, 5].
# Re-segmented: "a b ." | "a b .": c 3, r 3, 3 of 3, 2 of 2; "c d" | "c e f": c 2, r 3, 1 of 2, 0 of 1; "g h" | "g h":
# c 2, r 2, 2 of 2, 1 of 1: c 7, r 8, [6, 3] of [7, 4] (the bigram ". c" across the sentence end is gone, from the
# matches and the totals). BP e^(1 - 8/7); score e^(-1/7) (6/7 * 3/4)^(1/2)
SENTENCES_REPLY = answer(math.exp(-1 / 7) * math.sqrt(6 / 7 * 3 / 4), 7, 8, [6, 3], [7, 4])
# the last segment alone, "g h" | "g h": c 2, r 2, [2, 1] of [2, 1] -> 1
SENTENCES_LAST = answer(1.0, 2, 2, [2, 1], [2, 1])


def test_texts_cut_into_sentences_are_paired_by_position_as_written():
    assert declared.STRUCTURES[SENTENCES_PAIRED].reshape(SENTENCES.segments, None, None) == SENTENCES_RESHAPED


def test_texts_cut_into_sentences_do_not_apply_without_a_cut_or_with_uneven_sentences():
    # THREE has no token ending a sentence: nothing is cut
    assert declared.STRUCTURES[SENTENCES_PAIRED].reshape(THREE.segments, None, None) is None
    # a reference of one sentence against a hypothesis of two: such a caller raises (the error feature's), no pairs
    uneven = request(("a . b", ["a b"]), ("c", ["c"]))
    assert declared.STRUCTURES[SENTENCES_PAIRED].reshape(uneven.segments, None, None) is None


def test_texts_cut_into_sentences_are_named_by_the_statistics_they_give():
    explanation = classify(SENTENCES, SENTENCES_REPLY, "papineni")
    assert SENTENCES_PAIRED in (explanation.name, *explanation.fits), (explanation.name, explanation.fits)
    assert explained_value(SENTENCES, "papineni", (("computation", SENTENCES_PAIRED),)) == pytest.approx(
        SENTENCES_REPLY["score"], rel=1e-12)


def test_the_last_segment_alone_is_still_its_own_name_on_a_request_with_sentences():
    """Where the corpus cut to its last segment alone explains the statistics (SENTENCES_LAST, by hand above), it is
    named, and the sentences paired are not among the fits (their counts are c 7, r 8)."""
    explanation = classify(SENTENCES, SENTENCES_LAST, "papineni")
    assert "corpus-cut-to-last-segment" in (explanation.name, *explanation.fits), (explanation.name, explanation.fits)
    assert SENTENCES_PAIRED not in {part for fit in (explanation.name, *explanation.fits) for part in fit.split(" + ")}
