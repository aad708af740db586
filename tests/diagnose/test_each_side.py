"""Each side its own operator (issue 36, side-kinds): a pair of one-side operators, one on the hypotheses and another
on the references (`mechanisms.structure.SIDE_PAIRS`), named where the returned statistics are every one the pair's and
no single explanation gives them. Every value is derived by hand below, under papineni: r the closest reference length
(ties to the shorter) summed over segments, BP = 1 if c > r else e^(1 - r/c), the score BP * exp(sum w_n log p_n).

Holds: oracle.diagnose.structure
"""

from __future__ import annotations

import math

import pytest

from oracle.diagnose.classify import classify, explained_value
from oracle.diagnose.computations import context_for, structured_result
from oracle.diagnose.mechanisms import structure as declared
from oracle.models.protocol import ScoreRequest, Segment

PAIR = (declared.TOKEN_ON_HYPOTHESES, declared.TOKEN_ON_REFERENCES)


def request(*segments, weights=(1.0,), level="corpus"):
    """A token request of (hypothesis, references) pairs, each text space-separated words."""
    return ScoreRequest(level=level, weights=list(weights),
                        segments=[Segment(hypothesis=tuple(h.split()), references=[tuple(r.split()) for r in refs])
                                  for h, refs in segments])


def answer(score, c, r, matches, totals):
    return {"score": score, "statistics": {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}}


# Two segments, BLEU-2 (weights 1/2, 1/2): ("a b" | "a b c"), ("d" | "d e"). A decoder's "</s>" kept at the end of
# every hypothesis and a target input's "<s>" at the start of every reference (the tenth held-out set's bug, by kind):
# "a b </s>" | "<s> a b c", "d </s>" | "<s> d e". c = 3 + 2 = 5, r = 4 + 3 = 7 (one reference each). Unigrams: a, b
# match, </s> does not; d matches: m1 3 of t1 5. Bigrams: (a b) matches, (b </s>) does not; (d </s>) does not: m2 1
# of t2 3. BP e^(1 - 7/5) = e^-0.4, score e^-0.4 * sqrt(3/5 * 1/3) = e^-0.4 * sqrt(1/5).
# Neither side alone: the hypotheses' token alone gives r = 3 + 2 = 5; the references' alone c = 3; the same token on
# both sides ("</s>" at both ends) matches itself, m1 5.
TWO = request(("a b", ["a b c"]), ("d", ["d e"]), weights=(0.5, 0.5))
TWO_ANSWER = answer(math.exp(-0.4) * math.sqrt(1 / 5), 5, 7, [3, 1], [5, 3])

# Two segments, unigrams: ("a b c" | "a b x"), ("d e" | "d y"). The hypotheses' last token dropped (`tokens[:-1]`)
# and a start token on every reference: "a b" | "<s> a b x", "d" | "<s> d y": c 3, r 4 + 3 = 7, m 2 + 1 = 3 of 3,
# BP e^(1 - 7/3) -> e^(-4/3). Other operators whose one side has these lengths: the hypotheses' first token dropped
# ("b c", "e": c 3) with the same references matches b only, 1 of 3.
OTHER = request(("a b c", ["a b x"]), ("d e", ["d y"]))
OTHER_ANSWER = answer(math.exp(-4 / 3), 3, 7, [3], [3])


def test_a_token_kept_on_each_side_counted_by_hand():
    """The pair's statistics, layer by layer, are the hand-counted ones; the classifier names the pair from its two
    parts, and its value replays from the parts alone (as `cases validate` replays a record)."""
    ctx = context_for(TWO, "papineni", None)
    result = structured_result(ctx, declared.SIDE_PAIRS[PAIR])
    s = result.statistics
    assert (s.hyp_len, s.ref_len, tuple(s.matches[:2]), tuple(s.totals[:2])) == (5, 7, (3, 1), (5, 3))
    explanation = classify(TWO, TWO_ANSWER, "papineni")
    assert explanation.parts == PAIR, (explanation.name, explanation.fits)
    assert explanation.name == "special-token-on-hypotheses + special-token-on-references"
    assert explained_value(TWO, "papineni", explanation.change) == pytest.approx(TWO_ANSWER["score"], rel=1e-12)


def test_another_operator_on_each_side():
    explanation = classify(OTHER, OTHER_ANSWER, "papineni")
    assert explanation.parts == ("last-token-dropped-in-hypotheses", declared.TOKEN_ON_REFERENCES), (
        explanation.name, explanation.fits)
    assert explained_value(OTHER, "papineni", explanation.change) == pytest.approx(OTHER_ANSWER["score"], rel=1e-12)


def test_no_pair_where_one_side_alone_explains_the_statistics():
    """("ab cd" | "ab cd", "ab cd ef"), one sentence, unigrams. The hypotheses' token alone: "ab cd </s>" (c 3) against
    references of 2 and 3 tokens, the closest 3: r 3, m 2 of 3, BP 1 -> 2/3. The pair gives the same statistics
    ("<s> ab cd" and "<s> ab cd ef": the closest is 3 again, and "<s>" matches nothing), so the statistics do not tell
    them apart: the one operator names the record, and the pair is not tried (not among its fits). (Two-letter tokens:
    the hypothesis read as characters, "a", "b", " ", "c", "d", is 5 tokens, not 3.)"""
    scored = request(("ab cd", ["ab cd", "ab cd ef"]), level="sentence")
    ctx = context_for(scored, "papineni", None)
    s = structured_result(ctx, declared.SIDE_PAIRS[PAIR]).statistics
    assert (s.hyp_len, s.ref_len, s.matches[0], s.totals[0]) == (3, 3, 2, 3)  # the pair would fit as well
    explanation = classify(scored, answer(2 / 3, 3, 3, [2], [3]), "papineni")
    assert explanation.parts == (declared.TOKEN_ON_HYPOTHESES,), (explanation.name, explanation.fits)
    assert all(len(parts) == 1 for parts in (explanation.parts, *explanation.fitting)), explanation.fits


def test_the_pairs_are_built_from_the_one_side_operators():
    """Every pair is a hypothesis-side operator and a reference-side one of `SIDE_OPERATORS`, never one operator on
    both sides unless its token may differ (the special token, the pad), never two that read the text."""
    hypothesis_side = {entry[1]: entry for entry in declared.SIDE_OPERATORS}
    reference_side = {entry[2]: entry for entry in declared.SIDE_OPERATORS}
    for parts in declared.SIDE_PAIRS:
        (on_hypotheses,) = [part for part in parts if part in hypothesis_side]
        (on_references,) = [part for part in parts if part in reference_side]
        a, b = hypothesis_side[on_hypotheses], reference_side[on_references]
        assert a[0] != b[0] or a[4], parts
        assert not (a[3] and b[3]), parts
        assert parts[0] == (on_references if b[3] else on_hypotheses), parts
    assert PAIR in declared.SIDE_PAIRS
    assert (declared.PADDING_IN_HYPOTHESES, declared.PADDING_IN_REFERENCES) in declared.SIDE_PAIRS
    assert ("first-token-only-in-hypotheses", "first-token-only-in-references") not in declared.SIDE_PAIRS


def test_each_length_rule_is_its_operators_lengths():
    """A side's candidates are read from the operators' length readings (`structure.LengthReading`: a rule on each
    sequence's length in tokens, or in characters for the text read as characters), not from the reshaped request:
    on requests of empty, one-token and longer sequences, several references a segment, each reading gives the
    lengths the operator's own reshaping gives (`structured_length_bounds`, what the counts-first filter reads)."""
    from oracle.diagnose.computations import structured_length_bounds
    from oracle.diagnose.structure import SideLengths, line_lengths, side_lengths

    requests = [request(("a b c", ["a b", "x"]), ("", ["d e f g", ""]), ("d", ["d e"])),
                request(("a", ["a b c d"]), ("bb c", ["b"]), level="corpus"),
                request(("a b c d e", ["a", "b c", "d e f"]))]
    checked = 0
    for scored in requests:
        ctx = context_for(scored, "papineni", None)
        for _, on_hypotheses, on_references, _, _, reading in declared.SIDE_OPERATORS:
            if reading is None:
                continue
            for name, hypotheses in ((on_hypotheses, True), (on_references, False)):
                c, shortest, longest = structured_length_bounds(ctx, declared.STRUCTURES[name])
                expected = (c, c) if hypotheses else (shortest, longest)
                lengths = (line_lengths(scored.segments, None, hypotheses=hypotheses) if reading.of_lines else
                           [(len(s.hypothesis),) if hypotheses else [len(r) for r in s.references]
                            for s in scored.segments])
                assert side_lengths(SideLengths.of(lengths), reading.rule) == expected, name
                checked += 1
    # ten operators read so: the special token, the pad, the characters, six token operators, the kept line end
    assert checked == 3 * 2 * 10


def test_every_length_rule_is_non_decreasing():
    """`structure.side_lengths` takes a segment's shortest reference after a rule to be the rule of its shortest: true
    of every rule, each non-decreasing in a sequence's length under any longest length of its side."""
    rules = [reading.rule for *_, reading in declared.SIDE_OPERATORS if reading is not None]
    assert len(rules) == 10
    for rule in rules:
        for longest in range(8):
            after = [rule(n, longest) for n in range(longest + 1)]
            assert after == sorted(after), (rule, longest, after)


def test_no_pair_where_the_lengths_are_the_oracles():
    """("a b c" | "a b c"), BLEU-2. The hypothesis's tokens reversed and the reference's line end kept on its last
    token: "c b a" against "a b c<LF>": unigrams a, b match, c does not (c<LF>): 2 of 3; bigrams (c b), (b a) against
    (a b), (b c<LF>): 0 of 2; c = r = 3, the oracle's own lengths. With both lengths the oracle's, every operator that
    keeps a length is a candidate on each side and none is evidence: no pair is tried, so none names the record."""
    scored = request(("a b c", ["a b c"]), weights=(0.5, 0.5), level="sentence")
    parts = ("tokens-reversed-in-hypotheses", "reference-line-end-kept-on-last-token")
    s = structured_result(context_for(scored, "papineni", None), declared.SIDE_PAIRS[parts]).statistics
    assert (s.hyp_len, s.ref_len, tuple(s.matches[:2]), tuple(s.totals[:2])) == (3, 3, (2, 0), (3, 2))
    explanation = classify(scored, answer(0.0, 3, 3, [2, 0], [3, 2]), "papineni")
    assert all(parts not in declared.SIDE_PAIRS for parts in (explanation.parts, *explanation.fitting)), (
        explanation.name, explanation.fits)
