"""Telling apart the explanations that fit one shrunk input (oracle.harness.separate): the related input chosen
and what the implementation's answer to it rules out, derived by hand.

Holds: oracle.harness.separate
"""

from __future__ import annotations

import math

from oracle.adapters.base import ScoreAnswer
from oracle.harness.separate import separating_variant, told_apart, variants
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
