"""A metamorphic relation on a passing random example: the implementation against itself (`check_relation`).

`oracle.harness.relations` says which relations an input admits and builds the related inputs; this module sends
them on the session's channel, judges the answers against the original's (`relation_verdict`), and writes one
record of kind "metamorphic", built once, with its root cause where the relation is broken.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from oracle.diagnose.attribute import SearchClass, attribute
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import Contract, judge, token_count_layers
from oracle.models.outcomes import GOOD_OUTCOMES, METAMORPHIC_LAYER, Outcome, Verdict
from oracle.models.protocol import ScoreRequest
from oracle.models.results import Classification, Record

from .. import diagnosis as diagnosing  # (its functions looked up on the module: a test stands one in)
from .. import relations
from ..gate import Finding
from ..stages import NOT_DIAGNOSED, Diagnosis, Item, built_record
from ..transport import Reply


def check_relation(session: Any, identifier: str, request: ScoreRequest, reply: Reply, relation: str,
                   variants: Sequence[ScoreRequest]) -> Record:
    """One metamorphic relation on a passing example (`identifier`, its `request` and `reply`): the implementation
    against itself, on `variants` (`relations.transformed(request, relation)`), sent on `session`'s channel."""
    started = time.perf_counter()
    sent, replies = [], []
    for variant in variants:
        one, answer = session.send(variant)
        sent.append(one)
        replies.append(answer)
    item = Item(f"{identifier}~{relation}", "metamorphic", variants[0], title=relations.RELATIONS[relation])
    verdict = relation_verdict(request, reply, variants, replies, relation, session.profile, session.contract)
    diagnosis = NOT_DIAGNOSED
    if verdict.outcome not in GOOD_OUTCOMES:
        context = session.diagnosis_context()
        again = next(((variant, answer, repeated) for variant, answer in zip(variants, replies, strict=True)
                      if (repeated := diagnosing.answered_again(variant, answer, verdict, context)) is not None), None)
        if again is not None:  # a related input answered two ways: no relation is broken by that
            diagnosis = diagnosing.nondeterministic(item, *again, None, context)
        else:
            classification = related_cause(variants, replies, session.profile, session.contract,
                                           session.documented) or attribute(
                request, reply, verdict, oracle_expected(request, session.profile), session.profile,
                entries=session.documented)
            diagnosis = Diagnosis(classification=classification, replay=variants[0],
                                  reproduce=session.reproduction.regenerate(item.id))
    timing = session.timing(sum(r.duration for r in replies), started)
    finding = Finding(item.id, item.kind, verdict.outcome, verdict.layer, diagnosis.classification,
                      "; ".join(filter(None, [verdict.message, diagnosis.note])))
    return session.finish(built_record(
        finding,
        session.tracker.gate,
        title=item.title,
        request=session.recorded(sent[0], item.id),
        label=verdict.classification,
        actual=replies[0].recorded(),
        stderr=replies[0].stderr,
        timing=timing,
        replay=diagnosis.replay,
        reproduce=diagnosis.reproduce,
        related=request,
    ))


def related_cause(variants: Sequence[ScoreRequest], replies: Sequence[Reply], profile: str, contract: Contract,
                  documented: list[SearchClass]) -> Classification | None:
    """A broken relation's root cause, where the implementation's answer on a related input is itself
    wrong and explained: the mechanism, not "relation-broken" (one bug, one name). None otherwise."""
    for variant, answer in zip(variants, replies, strict=True):
        expected = oracle_expected(variant, profile)
        verdict = judge(expected, answer, contract, max_order=variant.max_order,
                        token_counts=token_count_layers(variant))
        if verdict.outcome in GOOD_OUTCOMES:
            continue
        classification = attribute(variant, answer, verdict, expected, profile, entries=documented)
        if classification.change:
            return classification
    return None


def relation_verdict(request: ScoreRequest, reply: Reply, variants: Sequence[ScoreRequest], replies: Sequence[Reply],
                     relation: str, profile: str, contract: Contract) -> Verdict:
    """The verdict on a relation: a related input not scored is judged as any input is; the shards of a corpus
    must add up to the whole's statistics; any other relation keeps the score (within `contract`)."""
    bad = next((r for r in replies if r.kind != "score"), None)
    if bad is not None:  # the related input was not scored: judged as any input is
        expected = oracle_expected(variants[replies.index(bad)], profile)
        verdict = judge(expected, bad, contract, max_order=len(request.weights))
        if verdict.outcome in GOOD_OUTCOMES:
            return verdict
        return Verdict(
            verdict.outcome,
            verdict.layer,
            verdict.order,
            f"{relation}: the related input was not scored: {verdict.message}",
        )
    if relation == "shards-summed":
        return _summed_verdict(reply, replies, relation)
    original, related = reply.score, replies[0].score
    if not contract.close(related, original):
        return Verdict(
            Outcome.FAIL,
            METAMORPHIC_LAYER,
            None,
            f"{relation}: score {original!r} for the input, {related!r} for "
            f"{relations.RELATIONS[relation]} (they must be equal; contract {contract.describe()})",
        )
    return Verdict(Outcome.PASS)


def _summed_verdict(reply: Reply, replies: Sequence[Reply], relation: str) -> Verdict:
    """The shards of a corpus, scored apart: their statistics must add up to the whole corpus's."""
    whole = reply.statistics
    summed = relations.summed_statistics([r.statistics for r in replies])
    if summed is None or whole is None:
        return Verdict(Outcome.PASS, message="statistics missing: nothing to compare")
    for name in ("hyp_len", "ref_len", "matches", "totals"):
        if getattr(whole, name) != getattr(summed, name):
            return Verdict(
                Outcome.FAIL,
                METAMORPHIC_LAYER,
                None,
                f"{relation}: {name} of the whole corpus is {whole.to_json()[name]}, "
                f"the halves' add up to {summed.to_json()[name]}",
            )
    return Verdict(Outcome.PASS)
