"""The special-token probe: which conventional token one side carries, and at which end (issue 36, real-misses).

Coverage of the real collection's end-token-in-hypothesis (tests/fakes/realbleu.py), seen for sessions, not
generalisation. Every value below is derived by hand (Papineni et al. section 2: clipped counts, BP = 1 for c >= r):

- The record: "a b" against "a c", weights (1/2, 1/2). The probe for a token added to the hypotheses, `</s>` (an end
  token): the reference becomes the hypothesis with `</s>` at its end, "a b </s>".
  - appended by the implementation: "a b </s>" against "a b </s>": c = r = 3, matches (3, 2) of (3, 2): BLEU 1.
  - prepended: "</s> a b" against "a b </s>": every unigram matched, the bigram "</s> a" not: (3, 1) of (3, 2),
    BLEU sqrt(1 x 1/2) = 0.7071067811865476.
  - another token X appended: "a b X": (2, 1) of (3, 2), BLEU sqrt(2/3 x 1/2) = sqrt(1/3) = 0.5773502691896258.
  - the probe answered right (no token): "a b" against "a b </s>": c 2, r 3, (2, 1) of (2, 1), BP e^(1 - 3/2): BLEU
    e^-0.5 = 0.6065306597126334, none of the three.
- The probe for a token added to the references, `[SEP]` (an end token): the hypothesis becomes the first reference
  with `[SEP]` at its end, "a c [SEP]", the reference "a c". Appended to the reference: (3, 2) of (3, 2), BLEU 1;
  prepended ("[SEP] a c"): the bigram "c [SEP]" unmatched, (3, 1): 0.7071067811865476; another token: (2, 1):
  sqrt(1/3).
- One order (weights (1,)) cannot tell the end from the start (both: 3 unigrams of 3), nor can an empty hypothesis
  ("</s>" alone at either end): the probe is then built on the request with two orders and a one-word hypothesis.

Holds: oracle.diagnose.specialtoken
"""

from __future__ import annotations

import math

import pytest
from fakes.harness import check, deviations, fake

from oracle.diagnose import specialtoken
from oracle.diagnose.judge import Contract
from oracle.diagnose.mechanisms import describe
from oracle.diagnose.mechanisms import structure as declared
from oracle.harness.gate import cause_keys
from oracle.harness.replies import Reply
from oracle.models.outcomes import Outcome
from oracle.models.protocol import ScoreReply, ScoreRequest, Segment
from oracle.models.results import Classification, Record

RECORD = ScoreRequest(level="sentence", weights=[0.5, 0.5], segments=[Segment(hypothesis=["a", "b"],
                                                                               references=[["a", "c"]])])
END_TOKEN = next(t for t in specialtoken.SPECIAL_TOKENS if t.spelling == "</s>")
SEP = next(t for t in specialtoken.SPECIAL_TOKENS if t.spelling == "[SEP]")


def reply(score, c, r, matches, totals):
    return Reply("score", ScoreReply.from_json({"seq": 1, "score": score, "statistics": {
        "hyp_len": c, "ref_len": r, "matches": list(matches), "totals": list(totals)}}))


def read(name, token, answer, record=RECORD):
    probe = specialtoken.probe_request(record, name, token)
    expected = specialtoken.expectations(probe, name, token, "papineni")
    assert expected is not None
    return specialtoken.read_answer(probe, answer, expected, Contract())


def test_the_probe_puts_the_candidate_at_its_place_on_the_other_side():
    hyp = specialtoken.probe_request(RECORD, declared.TOKEN_ON_HYPOTHESES, END_TOKEN)
    assert [(s.hypothesis, s.references) for s in hyp.segments] == [(("a", "b"), (("a", "b", "</s>"),))]
    start = next(t for t in specialtoken.SPECIAL_TOKENS if t.spelling == "<s>")
    ref = specialtoken.probe_request(RECORD, declared.TOKEN_ON_REFERENCES, start)
    assert [(s.hypothesis, s.references) for s in ref.segments] == [(("<s>", "a", "c"), (("a", "c"),))]


@pytest.mark.parametrize("answer, place", [
    (reply(1.0, 3, 3, (3, 2), (3, 2)), "end"),
    (reply(math.sqrt(0.5), 3, 3, (3, 1), (3, 2)), "start"),
    (reply(math.sqrt(1 / 3), 3, 3, (2, 1), (3, 2)), "other"),
    (reply(math.exp(-0.5), 2, 3, (2, 1), (2, 1)), None),
    (reply(1.0, 3, 3, (3, 1), (3, 2)), None),  # the start's statistics with the end's score: judged by layer
], ids=["appended", "prepended", "another-token", "no-token", "statistics-and-score-disagree"])
def test_a_token_on_the_hypotheses_is_read_layer_by_layer(answer, place):
    assert read(declared.TOKEN_ON_HYPOTHESES, END_TOKEN, answer) == place


@pytest.mark.parametrize("answer, place", [
    (reply(1.0, 3, 3, (3, 2), (3, 2)), "end"),
    (reply(math.sqrt(0.5), 3, 3, (3, 1), (3, 2)), "start"),
    (reply(math.sqrt(1 / 3), 3, 3, (2, 1), (3, 2)), "other"),
], ids=["appended", "prepended", "another-token"])
def test_a_token_on_the_references_is_read_layer_by_layer(answer, place):
    assert read(declared.TOKEN_ON_REFERENCES, SEP, answer) == place


def test_a_probe_that_cannot_tell_the_places_apart_is_built_on_two_orders_and_a_word():
    one_order = ScoreRequest(level="sentence", weights=[1.0], segments=[Segment(hypothesis=[], references=[["a"]])])
    probe = specialtoken.probe_request(one_order, declared.TOKEN_ON_HYPOTHESES, END_TOKEN)
    assert specialtoken.expectations(probe, declared.TOKEN_ON_HYPOTHESES, END_TOKEN, "papineni") is None
    bases = specialtoken.probe_bases(one_order, declared.TOKEN_ON_HYPOTHESES)
    assert [(b.weights, b.segments[0].hypothesis) for b in bases] == [((1.0,), ()), ((0.5, 0.5), ("w",))]
    other = specialtoken.probe_request(bases[1], declared.TOKEN_ON_HYPOTHESES, END_TOKEN)
    assert specialtoken.expectations(other, declared.TOKEN_ON_HYPOTHESES, END_TOKEN, "papineni") is not None


def test_a_record_is_refined_where_the_probes_found_the_token_and_kept_where_they_did_not():
    broad = Classification(name=declared.TOKEN_ON_HYPOTHESES, description="broad", fits=["x"])
    found = specialtoken.Found(END_TOKEN, "end", "found")
    named = specialtoken.refined(broad, found, RECORD)
    assert (named.name, named.fits) == (declared.END_TOKEN_ON_HYPOTHESES, ("x",))
    assert named.description == f"{describe(declared.END_TOKEN_ON_HYPOTHESES)}; found"
    among = specialtoken.refined(Classification(name="x", fits=[declared.TOKEN_ON_HYPOTHESES]), found, RECORD)
    assert (among.name, among.fits) == ("x", (declared.END_TOKEN_ON_HYPOTHESES,))
    none = specialtoken.refined(broad, specialtoken.Found(None, None, "none matched"), RECORD)
    assert (none.name, none.description) == (declared.TOKEN_ON_HYPOTHESES, "broad; none matched")
    holding = ScoreRequest(level="sentence", weights=[0.5, 0.5],
                           segments=[Segment(hypothesis=["a", "</s>"], references=[["a", "c"]])])
    assert specialtoken.refined(broad, found, holding).name == declared.TOKEN_ON_HYPOTHESES


# -- through check: the harness sends the probes (oracle.harness.diagnosis._special_token_named) ----------------------


def _causes(report):
    summary = (report / "summary.md").read_text()
    return next(text for text in summary.splitlines() if text.startswith("By root cause: "))


@pytest.mark.parametrize("side, token, place, name", [
    ("hypotheses", "<s>", "start", declared.START_TOKEN_ON_HYPOTHESES),
    ("references", "[SEP]", "end", declared.END_TOKEN_ON_REFERENCES),
    ("hypotheses", "#END", "end", declared.END_TOKEN_ON_HYPOTHESES),
])
def test_a_listed_token_is_named_with_its_place(tmp_path, side, token, place, name):
    """tests/fakes/special_token.py adds the token to one side: the run's main cause is the refined name, and its
    records' descriptions name the token."""
    report = tmp_path / "report"
    assert check(report, fake("special_token", side, token, place), examples=40) == 1
    assert _causes(report).startswith(f"By root cause: {name} x")
    named = [r for r in deviations(report) if r.classification is not None and r.classification.name == name]
    assert named and all(f"the token is {token!r} at the {place}" in r.classification.description for r in named)


def test_an_unlisted_token_keeps_the_broad_name(tmp_path):
    report = tmp_path / "report"
    assert check(report, fake("special_token", "hypotheses", "<zz>", "end"), examples=40) == 1
    assert _causes(report).startswith(f"By root cause: {declared.TOKEN_ON_HYPOTHESES} x")
    broad = [r for r in deviations(report) if r.classification is not None
             and r.classification.name == declared.TOKEN_ON_HYPOTHESES]
    assert broad and all("none matched" in r.classification.description for r in broad)
    assert "token-on-hypotheses" not in _causes(report).replace(declared.TOKEN_ON_HYPOTHESES, "")


def test_a_baseline_written_with_the_broad_name_still_lists_a_refined_record():
    record = Record(id="random-0-3", kind="example", outcome=Outcome.FAIL,
                    classification=Classification(name=declared.END_TOKEN_ON_HYPOTHESES, fits=["x"]))
    assert cause_keys(record) == [f"cause:{declared.END_TOKEN_ON_HYPOTHESES}", "cause:x",
                                  f"cause:{declared.TOKEN_ON_HYPOTHESES}"]
