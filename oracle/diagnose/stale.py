"""Answers that come from an earlier request: the root cause a request alone cannot show.

An implementation that keeps state between requests (a result cache keyed too coarsely: on the hypotheses
alone, or without `lowercase` or the weights) answers a request with the answer it gave an earlier,
different request. No mechanism of the request alone reproduces such an answer, so the classifier names it
many ways or none; the process's history names it once. `stale_answer` looks among the earlier requests the
same process answered (most recent first, as many as the harness keeps: `oracle.harness.session`'s window)
for one whose answer is exactly this answer (the same kind; a score within the judge's contract with the
same statistics; a refusal with the same text) and which:

- differs from this request (a repeat answered alike is no fault) but has the same hypotheses (a cache
  keyed without the system output is no cache of answers; a refusal's text is often the same for requests that
  share only the reason),
- was itself answered as the oracle expects (so a plain bug, which answers both wrong, is never hidden), and
- (the caller's part) is wrong for this request.

The explanation names the request parts that differ between the two: the parts the cache key leaves out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from oracle.formulas.errors import BleuOracleError
from oracle.models.outcomes import GOOD_OUTCOMES, Expected
from oracle.models.protocol import ScoreRequest
from oracle.models.results import Classification

from .classify import UNEXPLAINED
from .expect import oracle_expected
from .judge import Answered, Contract, breaks_zero_rule, judge, token_count_layers

#: The name of the explanation.
EARLIER_ANSWER = "earlier-answer-returned"
#: The kinds of reply whose content can be compared (a crash or a timeout carries no answer).
ANSWER_KINDS = ("score", "rejected", "unsupported", "error")
#: Fields of a request that are no part of what it asks (the runner's sequence number, the command's name).
NOT_ASKED = frozenset({"seq", "cmd"})
#: The judge's default numeric contract (a caller passes its run's own).
DEFAULT_CONTRACT = Contract()


@dataclass(frozen=True)
class Exchange:
    """One earlier request the same implementation process answered, and its answer."""

    request: ScoreRequest
    reply: Answered


def same_answer(one: Answered, other: Answered, contract: Contract) -> bool:
    """Whether two replies are the same answer: the same kind; for a score, within `contract` of each other
    (and on the same side of the judge's zero rule) with equal statistics; otherwise the same text."""
    if one.kind != other.kind or one.kind not in ANSWER_KINDS:
        return False
    if one.kind != "score":
        return one.message == other.message
    if not contract.close(one.score, other.score) or breaks_zero_rule(one.score, other.score):
        return False
    return _same_statistics(one.statistics, other.statistics, contract)


def _same_statistics(one: Any, other: Any, contract: Contract) -> bool:
    if one is None or other is None:
        return one is None and other is None
    counts = ("hyp_len", "ref_len", "matches", "totals")
    if any(getattr(one, name) != getattr(other, name) for name in counts):
        return False
    return (one.bp is None and other.bp is None) or contract.close(one.bp, other.bp)


def differing_parts(request: ScoreRequest, other: ScoreRequest) -> tuple[str, ...]:
    """The parts of the two requests that differ (the segments as their hypotheses and their references),
    in the request's field order; () when they ask the same."""
    parts = []
    for name in type(request).model_fields:
        if name in NOT_ASKED:
            continue
        mine, theirs = getattr(request, name), getattr(other, name)
        if name != "segments":
            if mine != theirs:
                parts.append(name)
            continue
        if [s.hypothesis for s in mine] != [s.hypothesis for s in theirs]:
            parts.append("hypotheses")
        if len(mine) != len(theirs) or [s.references for s in mine] != [s.references for s in theirs]:
            parts.append("references")
    return tuple(parts)


def _right(request: ScoreRequest, reply: Answered, expected: Expected, contract: Contract) -> bool:
    """Whether `reply` answers `request` as `expected` says (the judge's verdict is good)."""
    verdict = judge(expected, reply, contract, max_order=request.max_order, token_counts=token_count_layers(request))
    return verdict.outcome in GOOD_OUTCOMES


def _answered_right(exchange: Exchange, profile: str, contract: Contract) -> bool:
    """Whether the earlier request was answered as the oracle expects of it."""
    try:
        expected = oracle_expected(exchange.request, profile)
    except (BleuOracleError, ArithmeticError, TypeError, ValueError):
        return False
    return _right(exchange.request, exchange.reply, expected, contract)


def stale_answer(request: ScoreRequest, reply: Answered, earlier: Sequence[Exchange], profile: str, *,
                 expected: Expected, contract: Contract = DEFAULT_CONTRACT) -> Classification | None:
    """`earlier-answer-returned` when `reply`, an answer to `request` that is wrong by `expected` (the oracle's
    expectation of it), is exactly the right answer of an earlier, different request in `earlier` (oldest first)
    with the same hypotheses, else None. Of several, the one that differs in the fewest parts is named (then the
    most recent): a refusal's text is often the same for requests that share only the reason, and a cache keyed
    without the system output is no cache of answers, so a request with other hypotheses is never taken. A
    request with a plan of metric states (`stateful`) is judged otherwise, and is not looked at."""
    if reply.kind not in ANSWER_KINDS or request.stateful is not None or _right(request, reply, expected, contract):
        return None
    candidates = []
    for back, exchange in enumerate(reversed(earlier), start=1):
        if not same_answer(exchange.reply, reply, contract):
            continue
        parts = differing_parts(request, exchange.request)
        if parts and "hypotheses" not in parts:
            candidates.append((len(parts), back, parts, exchange))
    for _, back, parts, exchange in sorted(candidates, key=lambda c: c[:2]):
        if _answered_right(exchange, profile, contract):
            return Classification(
                name=EARLIER_ANSWER, description=_description(parts, back),
                expected=None if expected.rejected else expected.score, scope="all",
                change=(("earlier request", back), ("differs in", ", ".join(parts))))
    return None


def _description(parts: tuple[str, ...], back: int) -> str:
    which = "the request just before" if back == 1 else f"the request {back} requests before"
    differs = " and ".join(parts) if len(parts) <= 2 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"answered exactly as {which} to the same process, which differs only in {differs} and was answered "
            f"right: a cache keyed without {'it' if len(parts) == 1 else 'them'} returns an earlier answer")


def with_stale(classification: Classification, stale: Classification | None) -> Classification:
    """A record's root cause with the stale answer taken into account: the stale answer itself where the
    request alone names no mechanism (unexplained, or a pseudo-class such as a refusal of a valid input),
    else the request's own mechanism with `earlier-answer-returned` among what also fits (a run names the one
    that fits all its records: `oracle.diagnose.cover`)."""
    if stale is None:
        return classification
    if classification.name == UNEXPLAINED or not classification.change:
        others = () if classification.name == UNEXPLAINED else (classification.name,)
        return stale.model_copy(update={"fits": (*others, *classification.fits)})
    return classification.model_copy(update={"fits": (*classification.fits, EARLIER_ANSWER)})


__all__ = ["EARLIER_ANSWER", "Exchange", "differing_parts", "same_answer", "stale_answer", "with_stale"]
