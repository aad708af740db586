"""Telling apart the explanations that fit one shrunk input (oracle.harness.separate): the related input chosen
and what the implementation's answer to it rules out, derived by hand.

Holds: oracle.harness.separate
"""

from __future__ import annotations

import math

from oracle.adapters.base import ScoreAnswer
from oracle.diagnose.classify import value_read_as_the_oracle
from oracle.harness.separate import (
    _separating_state,
    separating_variant,
    state_told_apart,
    state_variants,
    told_apart,
    variants,
)
from oracle.models.protocol import Capabilities, ScoreRequest, Segment

ANY = Capabilities(levels=["corpus", "sentence"], weights="any", max_order=4, smoothing=["none"], statistics=False,
                   lowercase=True)
# (candidates are their mechanisms, as a classification holds them: `Classification.parts`)
FIRST, LONGER = ("reference_length=closest-first",), ("reference_length=closest-longer",)


def _tie():
    """"a b" (c = 2) against "a b c" and "a", both one token away: the first listed and the longer are the same
    reference, r = 3, so BLEU-1 = p1 * BP = 1 * exp(1 - 3/2) under either rule."""
    return ScoreRequest(seq=0, level="sentence", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                        segments=(Segment(hypothesis=("a", "b"), references=(("a", "b", "c"), ("a",))),))


def test_the_references_reversed_tell_the_first_listed_from_the_longer():
    """No edit of a token changes which reference is closest in a way the two rules read differently (every
    one makes one reference strictly closest); reversing the references makes "a" the first listed: r = 1
    (BP = 1, BLEU-1 = 1) for the first listed, still r = 3 for the longer."""
    found = separating_variant(_tie(), ScoreAnswer(math.exp(-0.5)), "papineni", (FIRST, LONGER), ANY)
    assert found is not None
    variant, predictions = found
    assert variant.segments[0].references == (("a",), ("a", "b", "c"))
    assert abs(predictions[FIRST] - 1.0) <= 1e-12 and abs(predictions[LONGER] - math.exp(-0.5)) <= 1e-12


def test_the_answer_to_the_related_input_rules_out_what_it_contradicts():
    asked = []

    def first_listed(variant):  # an implementation taking the first listed of equally close references
        asked.append(variant)
        return 1.0 if variant.segments[0].references[0] == ("a",) else math.exp(-0.5)

    kept, variant = told_apart(_tie(), ScoreAnswer(math.exp(-0.5)), "papineni", (LONGER, FIRST), ANY, first_listed)
    assert kept == (FIRST,) and asked == [variant]


def test_nothing_is_sent_when_no_variant_tells_the_candidates_apart():
    """One candidate only: nothing to tell apart, no request."""
    asked = []
    assert told_apart(_tie(), ScoreAnswer(math.exp(-0.5)), "papineni", (FIRST,), ANY, asked.append) is None
    assert asked == []


def test_the_variants_are_small_edits_in_a_fixed_order():
    edits = list(variants(_tie()))
    assert edits == list(variants(_tie()))
    assert edits[0].segments[0].hypothesis == ("a", "a", "b")  # sentence level: no segment repeated first
    assert edits[-1].lowercase is True
    assert all(len(e.segments) == 1 for e in edits)


def test_a_planted_tie_rule_is_told_apart_on_its_shrunk_records(tmp_path):
    """plantedbleu's ties-first takes the first listed of equally close references; its shrunk ties fit the
    longer one as well. Each shrunk record sends a related input that rules the longer out: no shrunk record
    is left naming it, and some record says it was ruled out."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    fake = Path(__file__).parents[1] / "fakes" / "plantedbleu.py"
    subprocess.run([sys.executable, "-m", "oracle", "check", "--command", f"{sys.executable} {fake} ties-first",
                    "--no-cases", "--examples", "60", "--report", str(tmp_path), "--quiet", "--allow-empty"],
                   check=False, capture_output=True)
    lines = (tmp_path / "results.jsonl").read_text(encoding="utf-8").split("\n")
    shrunk = [r["classification"] for r in map(json.loads, filter(None, lines))
              if r.get("type") == "record" and r.get("outcome") == "fail" and r.get("shrunk")]
    assert shrunk
    written = "reference_length=closest-longer"  # (LONGER as the records write it)
    assert all(c["name"] != written and written not in c.get("fits", ()) for c in shrunk)
    assert any(written in c.get("ruled_out", ()) for c in shrunk)


# -- a metric state told apart from the stateless explanations that fit the same record (issue 36) ------------------

#: each explanation as its parts (`Classification.parts`)
UPDATE, DROPPED = ("lengths-assigned-by-update",), ("last-segment-dropped",)
EMPTY_DROPPED = ("empty-hypotheses-dropped",)
PLANNED = ANY.model_copy(update={"statistics": True, "stateful": ["accumulate", "merge", "reset"]})


def _emptied():
    """plantedbleu drop-last-segment's shrunk stateful record (seed 0, random-0-10~stateful): three segments, every
    hypothesis empty, references [] ["a"] [], one shard updated with batches of 2 then 1."""
    return ScoreRequest.model_validate({
        "cmd": "score", "seq": 0, "level": "corpus", "weights": [1.0], "smoothing": {"method": "none"},
        "lowercase": False, "stateful": {"shards": [[2, 1]]},
        "segments": [{"hypothesis": [], "references": [[]]}, {"hypothesis": [], "references": [["a"]]},
                     {"hypothesis": [], "references": [[]]}]})


def _batched(request, bug):
    """A one-shard BLEU-1 state written for this test (one reference per segment, so r is its length): each batch
    updates it; `drop` leaves out the last segment of a batch of two or more, `assign` sets c and r to the batch's
    own (n-gram counts added). Score p1 * BP, NaN where c = r = 0 (as plantedbleu answers)."""
    from collections import Counter

    c = r = m = t = 0
    at = 0
    for size in request.stateful.shards[0]:
        batch = list(request.segments[at:at + size])
        at += size
        if bug == "drop" and len(batch) > 1:
            batch = batch[:-1]
        lengths = [(len(s.hypothesis), len(s.references[0])) for s in batch]
        batch_c, batch_r = sum(x for x, _ in lengths), sum(y for _, y in lengths)
        c, r = (batch_c, batch_r) if bug == "assign" else (c + batch_c, r + batch_r)
        for s in batch:
            m += sum((Counter(s.hypothesis) & Counter(s.references[0])).values())
            t += len(s.hypothesis)
    if c == 0:
        score = math.nan if r == 0 else 0.0
    else:
        score = (m / t) * (1.0 if c > r else math.exp(1 - r / c))
    return ScoreAnswer(score, {"hyp_len": c, "ref_len": r, "matches": [m], "totals": [t]})


def test_an_emptied_record_fits_the_state_and_the_dropped_segment_alike():
    """On the shrunk input both bugs give c = r = 0 (dropping segment 2 of batch [1, 2] leaves segments 1 and 3,
    both empty; assigning keeps batch [3]'s lengths, 0 and 0), where the oracle has r = 1: the record is no evidence
    of either."""
    assert _batched(_emptied(), "drop").statistics == _batched(_emptied(), "assign").statistics == {
        "hyp_len": 0, "ref_len": 0, "matches": [0], "totals": [0]}


def test_a_matched_token_in_the_first_segment_tells_the_state_from_the_dropped_segment():
    """The first related input gives segment 1 a matching token ("zq" against "zq"). Dropping the last segment of
    each batch keeps segments 1 and 3: c = 1, r = 1, p1 = 1/1, BLEU-1 = 1. Assigning the lengths keeps batch [3]'s,
    c = r = 0, with the match counted: the state predicts c = 0 with a match, which no stateless reading gives. The
    drop-last implementation answers c = 1: the state is refuted and leaves the fits; the state's implementation
    answers as it predicts: kept."""
    names = (EMPTY_DROPPED, UPDATE, DROPPED)
    for bug, kept, refuted in (("drop", (EMPTY_DROPPED, DROPPED), (UPDATE,)), ("assign", names, ())):
        asked = []

        def implementation(variant, bug=bug, asked=asked):
            asked.append(variant)
            return _batched(variant, bug)

        found = state_told_apart(_emptied(), _batched(_emptied(), bug), "papineni", names, PLANNED, implementation)
        assert found == (kept, refuted)
        assert len(asked) == 1 and asked[0].segments[0].hypothesis == asked[0].segments[0].references[0] == ("zq",)
        assert asked[0].stateful == _emptied().stateful


def test_a_state_no_stateless_explanation_fits_as_well_needs_no_related_input():
    asked = []
    assert state_told_apart(_emptied(), _batched(_emptied(), "assign"), "papineni", (UPDATE,), PLANNED,
                            asked.append) == ((UPDATE,), ())
    assert asked == []


def test_a_state_no_related_input_tells_apart_is_left_out():
    """An implementation that answers the related input with no score (None) gives the state no evidence: it is
    left out of the fits, and not called refuted."""
    found = state_told_apart(_emptied(), _batched(_emptied(), "drop"), "papineni", (EMPTY_DROPPED, UPDATE), PLANNED,
                             lambda variant: None)
    assert found == ((EMPTY_DROPPED,), ())


def test_the_state_variants_are_a_matched_token_per_segment_then_other_plans():
    edits = list(state_variants(_emptied()))
    assert edits == list(state_variants(_emptied()))
    assert [e.stateful.shards for e in edits] == [((2, 1),)] * 3 + [((1, 1, 1),)] * 3 + [((1, 2),)] * 3 + [
        ((1, 1, 1),), ((1, 2),)]
    assert [tuple(len(s.hypothesis) for s in e.segments) for e in edits[:3]] == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]


def test_a_stateless_fake_whose_emptied_records_fit_a_state_is_not_accused_of_one(tmp_path):
    """plantedbleu's drop-last-segment is stateless (it drops the last segment of every corpus it is given, each
    update's batch included); its shrunk stateful records have every hypothesis empty and fit `lengths-assigned-by-
    update` as well (benchmarks/README.md, "State and float32 names on stateless float64 fakes"). No record of its
    run names a state now, as a name or among its fits."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from oracle.diagnose.mechanisms import lookup

    fake = Path(__file__).parents[1] / "fakes" / "plantedbleu.py"
    subprocess.run([sys.executable, "-m", "oracle", "check", "--command", f"{sys.executable} {fake} drop-last-segment",
                    "--no-cases", "--examples", "60", "--report", str(tmp_path), "--quiet", "--allow-empty"],
                   check=False, capture_output=True)
    records = [r for r in map(json.loads, filter(None, (tmp_path / "results.jsonl").read_text("utf-8").split("\n")))
               if r.get("type") == "record" and r.get("outcome") == "fail"]
    assert any(r.get("kind") == "stateful" and r.get("shrunk") for r in records)
    named = {part for r in records for name in (r["classification"]["name"], *r["classification"].get("fits", ()))
             for part in name.split(" + ")}
    assert not {name for name in named if (lookup(name) is not None and lookup(name).kind == "state")}


def test_no_related_input_is_sent_where_a_fitting_name_predicts_what_the_state_does():
    """The input sent must be one on which the state's predicted answer is explained by none of the others: a name
    that predicts the same as the state on every input (here, the state itself standing as the other) is never told
    apart from it, so no input is chosen; against the dropped segment the first input (segment 1 matched) is."""
    assert _separating_state(_emptied(), "papineni", UPDATE, (UPDATE,), PLANNED, None) is None
    first = _separating_state(_emptied(), "papineni", UPDATE, (DROPPED,), PLANNED, None)
    assert first is not None and first.segments[0].hypothesis == ("zq",)


LINE_END, STRICT = ("hypothesis-line-end-kept-on-last-token",), ("strict-clipping",)
#: (a line end is named from returned statistics only: c = r = 2, one match of two n-grams)
HALF = ScoreAnswer(0.5, {"hyp_len": 2, "ref_len": 2, "matches": [1], "totals": [2]})


def _repeated():
    """"a a" against "a a" and "a" under BLEU-1, answered 1/2: one match of two (c = r = 2, BP 1). A line end kept on
    the hypothesis's last token fits it ("a\\n" matches nothing, the other "a" does) and so does strict clipping (a
    count at the references' maximum, 2, counts 1)."""
    return ScoreRequest(seq=0, level="sentence", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                        segments=(Segment(hypothesis=("a", "a"), references=(("a", "a"), ("a",))),))


def test_a_structural_fit_that_reads_a_related_input_as_the_oracle_predicts_the_oracles_answer():
    """The first variant, the first token repeated ("a a a": c = 3, r = 2, BP 1), tells them apart: strict clipping
    counts the three "a" above the maximum 2 as 1 (BLEU 1/3); the line end leaves "a", "a" and "a\\n", the two "a"
    clipped at 2, the oracle's own count (2/3). A mechanism that reads an input as the oracle does predicts the
    oracle's answer there; the variant was passed over when it predicted nothing."""
    found = separating_variant(_repeated(), HALF, "papineni", (LINE_END, STRICT), ANY)
    assert found is not None
    variant, predictions = found
    assert variant.segments[0].hypothesis == ("a", "a", "a")
    assert abs(predictions[LINE_END] - 2 / 3) <= 1e-12 and abs(predictions[STRICT] - 1 / 3) <= 1e-12

    def last_reference_clips(variant):  # the references' counts overwritten by each in turn: the last one's clip
        hypothesis, references = variant.segments[0].hypothesis, variant.segments[0].references
        return min(hypothesis.count("a"), references[-1].count("a")) / len(hypothesis)

    kept, _ = told_apart(_repeated(), HALF, "papineni", (LINE_END, STRICT), ANY, last_reference_clips)
    assert kept == (STRICT,)


def test_a_structural_mechanism_that_does_not_apply_predicts_nothing():
    """The first reference dropped does not apply to a segment of one reference (it would leave none): no value,
    where a line end kept applies to the same input and, its last token unmatched either way, reads it as the oracle
    does ("a b" against "a": one match of two under BLEU-1, BP 1: 1/2)."""
    one = ScoreRequest(seq=0, level="sentence", weights=(1.0,), smoothing={"method": "none"}, lowercase=False,
                       segments=(Segment(hypothesis=("a", "b"), references=(("a",),)),))
    assert value_read_as_the_oracle(one, "papineni", ("first-reference-dropped",)) is None
    assert value_read_as_the_oracle(one, "papineni", LINE_END) == 0.5
