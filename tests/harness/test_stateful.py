"""Stateful plans: the wire form, the plans `check` draws and shrinks, and adapters that run them.

Expected values are hand-derived: the plan's arithmetic (which segments each batch and shard takes) from
PROTOCOL.md's rules, and the scores from BLEU's definition on three one-token segments.

Holds: oracle.harness.stateful, oracle.harness.work.plans
"""

from __future__ import annotations

import json
import math
import random

import pytest

from oracle.adapters import registry
from oracle.adapters.base import AdapterUnavailable, call
from oracle.harness import stateful
from oracle.harness.requests import not_applicable_reason
from oracle.models.protocol import Capabilities, Handshake, ProtocolError, ScoreRequest, Segment

ALL = ("accumulate", "merge", "reset")


def capabilities(abilities=ALL, **more) -> Capabilities:
    return Capabilities.model_validate(
        {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 4, "smoothing": ["none"],
         "statistics": True, "lowercase": False, **({"stateful": list(abilities)} if abilities else {}), **more})


def segment(hypothesis: str, *references: str) -> Segment:
    return Segment(hypothesis=tuple(hypothesis.split()), references=tuple(tuple(r.split()) for r in references))


#: PROTOCOL.md's example: c = 3; r = 1 + 2 + 1 = 4 (one reference each); every unigram matches.
THREE = (segment("a", "a"), segment("b", "b c"), segment("c", "c"))
THREE_SCORE = math.exp(1 - 4 / 3)  # p_1 = 1, BP = e^(1 - r/c)


def planned(plan: dict, segments=THREE, weights=(1.0,)) -> ScoreRequest:
    return ScoreRequest.from_json({"cmd": "score", "seq": 1, "level": "corpus",
                                   "segments": [s.to_json() for s in segments], "weights": list(weights),
                                   "smoothing": {"method": "none"}, "lowercase": False, "stateful": plan})


# -- the wire ------------------------------------------------------------------------------------


def test_a_plan_travels_and_says_which_segments_each_batch_takes():
    request = planned({"shards": [[1, 1], [1]], "merge": [1, 0]})
    assert ScoreRequest.from_json(request.to_json()) == request
    assert request.stateful.shard_segments(request.segments) == [[THREE[:1], THREE[1:2]], [THREE[2:]]]
    assert request.stateful.needs() == ("accumulate", "merge")
    assert planned({"shards": [[3]], "previous": [[THREE[0].to_json()]]}).stateful.needs() == ("reset",)


@pytest.mark.parametrize(("plan", "message"), [
    ({"shards": [[1, 1]]}, "must add up to the 3 segment(s) (got 2)"),
    ({"shards": [[1], [2]]}, "`stateful.merge` must list each of the 2 shards once (got null)"),
    ({"shards": [[1], [2]], "merge": [0, 0]}, "must list each of the 2 shards once"),
    ({"shards": [[3]], "merge": [0]}, "`stateful.merge` is only for more than one shard"),
    ({"shards": [[0, 3]]}, "stateful.shards"),
    ({"shards": [[]], "merge": None}, "at least one batch"),
])
def test_a_plan_that_does_not_cover_the_corpus_is_a_protocol_error(plan, message):
    with pytest.raises(ProtocolError, match=message.replace("(", r"\(").replace(")", r"\)")):
        planned(plan)


def test_a_plan_is_for_a_corpus_request_only():
    with pytest.raises(ProtocolError, match="only for a corpus request"):
        ScoreRequest.from_json({**planned({"shards": [[1]]}, segments=THREE[:1]).to_json(), "level": "sentence"})


def test_a_handshake_declares_its_stateful_abilities_and_no_others():
    assert capabilities().stateful == ALL
    with pytest.raises(ProtocolError, match="stateful"):
        Handshake.from_json({"implementation": {"name": "x", "version": "", "language": ""}, "protocol": 1,
                             "profile": "papineni", "capabilities": {**capabilities().to_json(), "stateful": ["sync"]}})


def test_a_plan_goes_only_where_every_ability_it_uses_is_declared():
    request = planned({"shards": [[1, 1], [1]], "merge": [1, 0]})
    assert not_applicable_reason(request, capabilities()) is None
    assert "needs merge" in not_applicable_reason(request, capabilities(("accumulate", "reset")))
    assert "declares no stateful abilities" in not_applicable_reason(request, capabilities(()))


# -- the plans check draws -----------------------------------------------------------------------


def corpus(count: int) -> ScoreRequest:
    segments = tuple(segment(f"w{i}", f"w{i} x") for i in range(count))
    return ScoreRequest(level="corpus", weights=(1.0,), segments=segments)


@pytest.mark.parametrize("turn", range(6))
def test_drawn_plans_take_turns_over_the_declared_abilities_and_cover_the_corpus(turn):
    request = corpus(7)
    plan = stateful.draw_plan(request, capabilities(), random.Random(turn), turn=turn)
    assert plan.segment_count == 7
    assert stateful.layer_of(plan) == ("accumulation", "merge", "reset")[turn % 3]
    assert set(plan.needs()) <= set(ALL)


def test_a_corpus_of_a_hundred_segments_goes_one_update_per_segment():
    plan = stateful.draw_plan(corpus(stateful.CHAINED_FROM), capabilities(), random.Random(0), turn=0)
    assert plan.shards == ((1,) * stateful.CHAINED_FROM,)


def test_without_accumulation_a_shard_is_one_batch():
    plan = stateful.draw_plan(corpus(9), capabilities(("merge",)), random.Random(1), turn=0)
    assert all(len(batches) == 1 for batches in plan.shards) and plan.merge is not None


def test_reset_plans_score_other_corpora_of_perfect_hypotheses_first():
    plan = stateful.draw_plan(corpus(4), capabilities(("reset",)), random.Random(2), turn=0)
    assert plan.previous and plan.shards == ((4,),)
    assert all(s.hypothesis == s.references[0] for previous in plan.previous for s in previous)


def test_dropping_segments_renumbers_the_merge_and_leaves_out_emptied_shards():
    request = planned({"shards": [[1], [1, 1]], "merge": [1, 0]})
    dropped = stateful._without_segments(request, 0, 1)
    assert dropped.stateful.shards == ((1, 1),) and dropped.stateful.merge is None
    assert dropped.segments == THREE[1:]


def test_lower_plans_leave_out_the_previous_corpora_then_the_merge():
    request = planned({"shards": [[1], [2]], "merge": [1, 0], "previous": [[THREE[0].to_json()]]})
    lower = [r.stateful for r in stateful.lower_plans(request)]
    assert [stateful.layer_of(p) for p in lower] == ["merge", "accumulation"]
    assert lower[-1].shards == ((1, 2),)


def test_every_candidate_of_the_shrinker_is_a_valid_plan_for_its_segments():
    request = planned({"shards": [[1], [1, 1]], "merge": [1, 0], "previous": [[s.to_json() for s in THREE]]})
    for candidate in stateful.candidates(request):
        assert ScoreRequest.from_json(candidate.to_json()).stateful == candidate.stateful


# -- adapters run the plan on the library's own state ------------------------------------------------


def implementation(name):
    try:
        return registry.resolve(name).load()()
    except AdapterUnavailable as exc:
        pytest.skip(str(exc))


PLANS = [
    {"shards": [[3]]},
    {"shards": [[1, 1, 1]]},
    {"shards": [[1, 1], [1]], "merge": [1, 0]},
    {"shards": [[1], [1], [1]], "merge": [2, 0, 1]},
    {"shards": [[2, 1]], "previous": [[segment("x y", "x").to_json()], [THREE[1].to_json()]]},
]


@pytest.mark.parametrize("name", ["torchmetrics", "torcheval", "ignite-micro"])
@pytest.mark.parametrize("plan", PLANS, ids=lambda p: "+".join(sorted(p)) + str(len(p["shards"])))
def test_the_stateful_libraries_give_the_one_shot_score_whatever_the_plan(name, plan):
    adapter = implementation(name)
    request = planned(plan)
    if not_applicable_reason(request, Capabilities.model_validate(adapter.capabilities)) is not None:
        pytest.skip(f"{name} does not declare what this plan uses")
    kind, answer = call(adapter, request)
    assert kind == "score", answer
    assert answer.score == pytest.approx(THREE_SCORE, rel=1e-6)  # torchmetrics computes in float32


# -- faults ------------------------------------------------------------------------------------------


def test_serve_answers_a_plan_an_adapter_cannot_run_as_unsupported_and_a_bad_plan_as_an_error():
    from oracle.adapters.oracle_adapter import OracleImplementation
    from oracle.adapters.server import handle_line

    words = planned({"shards": [[1, 1], [1]], "merge": [1, 0]}).to_json()
    reply, stop = handle_line(OracleImplementation("papineni"), json.dumps(words))
    assert not stop
    assert reply == {"seq": 1, "unsupported": "bleu-oracle cannot run a stateful plan that needs accumulate, merge"}
    reply, _ = handle_line(OracleImplementation("papineni"), json.dumps({**words, "stateful": {"shards": [[2]]}}))
    assert reply["seq"] == 1 and "must add up to the 3 segment(s) (got 2)" in reply["error"]


def test_an_adapter_without_merge_answers_a_merging_plan_as_unsupported():
    kind, message = call(implementation("ignite-micro"), planned({"shards": [[1, 1], [1]], "merge": [1, 0]}))
    assert (kind, message) == ("unsupported", "pytorch-ignite-micro cannot run a stateful plan that needs merge")
