"""The judging stage: one applicable item sent on a channel, and its reply judged (`judge_item(item, channel, ...) ->
Judgement`; `docs/design.md`, "The judging path").

The request goes out first, and the oracle computes its expectation while the implementation answers: an example's
from its inputs (`oracle.harness.work.examples.ExampleInputs`, cached or computed once), a large input's when the
item carries it, a case's under its own context (overrides, document, profiles). What the input exercised is
counted on the channel's coverage; a plan of metric states is judged as a plan (`oracle.harness.stateful`).
"""

from __future__ import annotations

from oracle.diagnose.expect import case_expected
from oracle.diagnose.judge import Contract, judge, token_count_layers
from oracle.formulas.errors import BleuValueError
from oracle.models.outcomes import GOOD_OUTCOMES, Expected, Outcome, Verdict
from oracle.models.protocol import ScoreRequest

from . import stateful
from .channel import Channel
from .replies import Reply
from .stages import Item, Judgement


def judge_item(item: Item, channel: Channel, contract: Contract, profile: str) -> Judgement:
    """Send an applicable item's request on `channel` and judge the reply against the oracle's expectation under
    `profile` (computed while the implementation answers: an example's from its `Prepared`, a large input's when
    the item carries it, a case's under its context). A failure never rests on an expectation from the search
    cache alone (`confirmed_expectation`)."""
    request, prepared = item.request, item.prepared
    if request is None:  # (`Session.inapplicable` says why: not sent)
        raise BleuValueError(f"{item.id}: no request to judge")
    sent, pending = channel.submit(request, prepared)  # the implementation answers while the oracle computes
    inputs = item.inputs
    if inputs is not None:
        expected = inputs.expected_of(request, prepared)
    elif item.expected is not None:
        expected = item.expected
    else:
        expected = case_expected(request, profile, overrides=item.overrides, document=item.document,
                                 profiles=item.profiles)
    channel.cover(request, expected, prepared)
    reply = channel.collect(sent, pending)
    verdict = verdict_on(request, reply, expected, contract)
    if verdict.outcome not in GOOD_OUTCOMES and inputs is not None:  # never a failure on a cached value alone
        confirmed_expected = inputs.confirmed_expectation(request, prepared, expected)
        if confirmed_expected is not expected:
            expected, verdict = confirmed_expected, verdict_on(request, reply, confirmed_expected, contract)
    if verdict.outcome == Outcome.REJECTED:
        channel.coverage.add_refused(request)
    return Judgement(request=request, sent=sent, reply=reply, expected=expected, verdict=verdict)


def verdict_on(request: ScoreRequest, reply: Reply, expected: Expected, contract: Contract) -> Verdict:
    """The judge's verdict on `reply` to `request` (a plan of metric states is judged as a plan)."""
    if request.stateful is not None:
        return stateful.judge_plan(expected, reply, request, contract)
    return judge(expected, reply, contract, max_order=request.max_order, token_counts=token_count_layers(request))
