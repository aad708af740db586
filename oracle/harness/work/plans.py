"""A passing corpus example again, through the implementation's metric state as a drawn plan says
(`check_stateful`; the plans themselves, their judge and their shrinker: `oracle.harness.stateful`).

A failing plan is diagnosed as a random example is (the first of each stateful layer's failures in each block of
examples shrunk: `shrink_allowed`), its plan and corpus shrunk together, and the root cause named on the smallest
failing plan; its record, of kind "stateful", is built once (`oracle.harness.stages.judged_record`).
"""

from __future__ import annotations

import time
from typing import Any

from oracle.diagnose.attribute import attribute
from oracle.models.outcomes import GOOD_OUTCOMES, Expected, Outcome, Verdict
from oracle.models.protocol import ScoreRequest
from oracle.models.results import STOPPED_MINIMAL, Classification, Record, Shrunk, cause_name

from .. import diagnosis as diagnosing  # (its functions looked up on the module: a test stands one in)
from .. import stateful
from ..generate import example_rng
from ..separate import is_state, state_told_apart
from ..shrink import clock_note, deadline_after
from ..stages import NOT_DIAGNOSED, Diagnosis, Item, Judgement, judged_record
from ..transport import Reply, failure_kind


def check_stateful(session: Any, identifier: str, index: int, request: ScoreRequest, expected: Expected) -> Record:
    """Example `index` (`identifier`), which passed, sent again under a drawn plan of metric states on `session`'s
    channel; the one-shot answer, which passed, is the expectation."""
    started = time.perf_counter()
    rng = example_rng(session.settings.seed, f"{index}/stateful")
    plan = stateful.draw_plan(request, session.capabilities, rng, turn=index)
    planned = request.model_copy(update={"stateful": plan})
    item = Item(f"{identifier}~stateful", "stateful", planned, title=stateful.describe(plan))
    sent, reply = session.send(planned)
    verdict = stateful.judge_plan(expected, reply, planned, session.contract)
    judgement = Judgement(request=planned, sent=sent, reply=reply, expected=expected, verdict=verdict)
    diagnosis = NOT_DIAGNOSED
    if verdict.outcome not in GOOD_OUTCOMES:
        context = session.diagnosis_context()
        again = diagnosing.answered_again(planned, reply, verdict, context)
        diagnosis = plan_diagnosis(session, item, judgement) if again is None else \
            diagnosing.nondeterministic(item, planned, reply, again, expected, context)
    return session.finish(judged_record(item, judgement, request=session.recorded(sent, item.id),
                                        message=verdict.message, diagnosis=diagnosis,
                                        timing=session.timing(reply.duration, started), gate=session.tracker.gate))


def plan_cause(session: Any, planned: ScoreRequest, reply: Reply | None, verdict: Verdict,
               expected: Expected | None) -> Classification | None:
    """A failing planned request's root cause: what the state got wrong (`oracle.diagnose.accumulation`),
    or whatever else explains the answer; None for an answer that is not a wrong number."""
    if verdict.outcome != Outcome.FAIL or expected is None or reply is None or reply.kind != "score":
        return None  # a refusal under a plan is its layer's (a wrong number is what the state explains)
    classification = attribute(planned, reply, verdict, expected, session.profile, entries=session.documented)
    return state_told_apart_of(session, (planned, reply, verdict, expected), classification)


def state_told_apart_of(session: Any, judged: tuple[ScoreRequest, Reply, Verdict, Expected],
                        classification: Classification) -> Classification:
    """`classification` with each metric state among its names kept only where a related input told it from the
    stateless explanations that fit the record as well (`oracle.harness.separate.state_told_apart`: one request
    for each such state, none where no stateless explanation fits beside it): a state is a claim that the
    implementation carries one, which a coincidence of the shrunk numbers is no evidence of (issue 36)."""
    candidates = (classification.parts, *classification.fit_parts)
    if session.process.given_up or not any(is_state(parts) for parts in candidates):
        return classification

    def ask(variant: ScoreRequest) -> Reply | None:
        _, answer = session.send(variant)
        return answer if answer is not None and answer.kind == "score" else None

    kept, refuted = state_told_apart(judged[0], judged[1], session.profile, candidates, session.capabilities, ask)
    if len(kept) == len(candidates):
        return classification
    if classification.parts not in kept:
        planned, reply, verdict, expected = judged
        renamed = attribute(planned, reply, verdict, expected, session.profile, entries=session.documented,
                            among=kept[0])
        classification = renamed if renamed.parts == kept[0] else classification
    return classification.model_copy(update={
        "fit_parts": tuple(parts for parts in kept if parts != classification.parts),
        "ruled_out": (*classification.ruled_out, *(cause_name(parts) for parts in refuted))})


def plan_diagnosis(session: Any, item: Item, judgement: Judgement) -> Diagnosis:
    """A failing planned request's diagnosis after shrinking its plan and corpus (the first of each stateful
    layer's failures in each block of examples, as for the examples: `diagnosis.shrink_decision`), with the root cause
    of the smallest failing plan; a plan not shrunk (its kind's first in this block was) is only moved to the plan
    that uses least and still fails (a few requests), so that its layer is the one the bug is in."""
    planned, reply, verdict, expected = judgement.parts
    classification = plan_cause(session, planned, reply, verdict, expected)
    settings = session.settings
    if verdict.outcome != Outcome.FAIL or settings.shrink_budget <= 0:
        return Diagnosis(classification=classification, replay=planned,
                         reproduce=session.reproduction.line(item.id, planned))
    shrinker = stateful.PlanShrinker(
        session.profile,
        session.capabilities,
        session.contract,
        session.send,
        lambda: session.process.given_up,
        settings.shrink_budget,
        deadline_after(settings.shrink_seconds),
    )
    if not session.budget.may_shrink(failure_kind("stateful", verdict.outcome.value, verdict.layer, verdict.order))[0]:
        lowered, final = shrinker.lowest(planned, verdict)
        moved, note = layer_moved(verdict, final)
        return Diagnosis(classification=classification, replay=lowered,
                         reproduce=session.reproduction.line(item.id, lowered), moved=moved, note=note)
    smallest, stopped = shrinker.run(planned, verdict)
    last = shrinker.last
    final = last.verdict if last is not None else verdict
    if last is not None:
        classification = plan_cause(session, smallest, last.reply, final, last.expected)
    shrunk = Shrunk(
        request=smallest,
        expected=last.expected if last is not None else None,
        actual=last.reply.recorded() if last is not None else None,
        layer=final.layer,
        order=final.order,
        message=final.message,
        steps=shrinker.steps,
        queries=shrinker.queries,
        exhausted=stopped != STOPPED_MINIMAL,
        stopped_by=stopped,
        note=clock_note(stopped, shrinker.queries, settings.shrink_seconds) or (
            None if shrinker.steps else "no simpler plan or corpus fails the same way"),
    )
    moved, note = layer_moved(verdict, final)
    return Diagnosis(classification=classification, shrunk=shrunk, replay=smallest,
                     reproduce=session.reproduction.line(item.id, smallest), moved=moved, note=note)


def layer_moved(verdict: Verdict, final: Verdict) -> tuple[Verdict | None, str]:
    """Where a failing plan's failure stays with a plan that uses less, it is in that plan's layer: (the verdict
    the record takes its layer from, the note its message adds), else (None, "")."""
    if final.layer == verdict.layer:
        return None, ""
    return final, f"it stays with a plan that uses less: the {final.layer} layer"
