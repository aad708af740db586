"""The diagnosis of a failing input: the stage after the judgement (`docs/design.md`, "The judging path").

`diagnose(item, judgement, context)` turns a failing `Judgement` into a `Diagnosis`: the request sent once more
(`answered_again`: answered two ways, the root cause is `nondeterministic` and nothing else is tried), else the input
shrunk where the shrink allowance says so (`oracle.harness.budget`: the first failures of each kind in a block of
examples), the root cause named (`oracle.diagnose.attribute`, among the implementation's documented classes first;
a failure not shrunk among its kind's shrunk failures' causes first, within its kind's allowance of searches among
every explanation), its fitting explanations told apart by related inputs (`oracle.harness.separate`), an error's or
a death's cause probed (`oracle.diagnose.errorcauses`, `oracle.harness.crashcauses`), the state an earlier request
left looked for (`oracle.diagnose.stale`; references kept from the process's first request, once probes confirmed
them on a failure of a kind in a block, are tried first on the kind's later failures there, which they name without
probes or a search where they give the answer), and the replay and reproduction line written
(`oracle.harness.reproduction`).

Everything it reads or asks is in its `DiagnosisContext`: the judged profile, the implementation's capabilities,
the numeric contract, its documented discrepancy entries, the run's shrink allowance (`RestartBudget`), the channel
its probes are sent on, and how a record is reproduced. It neither runs a session nor builds a kind of work's inputs
(an import-linter contract keeps it so); the kinds of work call it for their failures.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from oracle.diagnose import errsstructure, repeat
from oracle.diagnose.attribute import Judged, SearchClass, attribute, attribute_shrunk, search_classes
from oracle.diagnose.classify import (
    SEARCH_CANDIDATE_FLOOR,
    UNEXPLAINED,
    TokenMeter,
    classify,
    is_partial,
    names_a_mechanism,
    what_is_known,
)
from oracle.diagnose.expect import ORACLE_REFUSALS, oracle_expected
from oracle.diagnose.judge import Contract
from oracle.diagnose.mechanisms import errors as error_causes
from oracle.diagnose.mechanisms import needs_evidence, process_state_names
from oracle.diagnose.mechanisms.structure import REFUSALS
from oracle.diagnose.specialtoken import (
    END,
    PROBED,
    SPECIAL_TOKENS,
    START,
    Found,
    expectations,
    found_words,
    probe_bases,
    probe_request,
    probeable,
    read_answer,
    refined,
)
from oracle.diagnose.stale import (
    CONFIRMED_BY,
    EARLIER_ANSWER,
    EVERY_REFERENCE,
    IN_ORDER,
    ORDER_PROBED,
    PROBES_NEEDED,
    REFERENCES_KEPT,
    Before,
    Seen,
    answered_right_before,
    confirmed,
    confirmed_by_a_new_key,
    confirmed_in_order,
    earlier_match,
    is_confirmed,
    kept_references,
    order_probes,
    probes,
    stale_answer,
    with_new_hypotheses,
    with_stale,
)
from oracle.models.outcomes import Outcome
from oracle.models.protocol import Capabilities, NumericReply
from oracle.models.results import STOPPED_GAVE_UP, Shrunk, cause_name

from . import crashcauses
from .budget import (
    DIAGNOSIS_KIND,
    NONDETERMINISTIC_HINT,
    NONDETERMINISTIC_KIND,
    SEARCH_CANDIDATES_PER_FAILURE,
    SEARCH_TOKENS_PER_BLOCK,
    SHRINK_BLOCK,
    Cause,
    diagnosis_candidates_per_token,
    diagnosis_tokens_earned,
    failure_kind,
    search_tokens_earned,
)
from .channel import Channel
from .reproduction import Reproduction
from .requests import not_applicable_reason
from .separate import SEPARATING_REQUESTS, told_apart
from .shrink import SameFailure, ShrinkResult, clock_note, deadline_after, shrink
from .stages import Diagnosis, Item, Judgement
from .transport import ImplementationProcess, RestartBudget

#: The process states (`mechanisms.process_state_names`): each reaches a record only confirmed by its order probes.
_PROCESS_STATES = frozenset(process_state_names())
#: What a process had answered before its first request.
NOTHING_BEFORE = Before()


@dataclass(frozen=True)
class DiagnosisContext:
    """What the diagnosis of a failure reads and whom it asks: the judged `profile`, the implementation's
    `capabilities`, the numeric `contract`, its `documented` classes (`attribute.SearchClass`: its curated
    discrepancies, `discrepancies.models_for`, and its baseline's causes), the
    run's shrink allowance and block of examples (`budget`), the `channel` its probes and the request sent once more
    go on (kept out of the channel's history), how its records are reproduced (`reproduction`), and the shrink
    settings (`--shrink-budget`, the seconds one shrink may take, `--shrink-first`)."""

    profile: str
    capabilities: Capabilities
    contract: Contract
    documented: list[SearchClass]
    budget: RestartBudget
    channel: Channel
    reproduction: Reproduction
    shrink_budget: int
    shrink_seconds: float | None
    shrink_first: int

    @property
    def process(self) -> Any:
        """The transport the probes are sent on (`Channel.transport`): whether it has given up is asked often."""
        return self.channel.transport


def diagnose(item: Item, judgement: Judgement, context: DiagnosisContext, prepared=None) -> Diagnosis:
    """The diagnosis of a failing example, series step or case (its `judgement`; `prepared`: the example's
    prepared input, when it is one): its request sent once more unless its kind's first failures in its block were
    answered alike when sent again (`resend_waived`; its note says so), and answered two ways the root cause is
    `nondeterministic` (`nondeterministic`); else shrunk and classified (`shrunk_and_classified`)."""
    request, reply, verdict, expected = judgement.parts
    before = context.channel.before()  # (taken before the request is sent again)
    waived = resend_waived(item.kind, verdict, context)
    again = None if waived else answered_again(request, reply, verdict, context, prepared, before=before,
                                               expected=expected)
    diagnosis = nondeterministic(item, request, reply, again, expected, context) if again is not None \
        else shrunk_and_classified(item, judgement, context, before=before)
    if waived:
        diagnosis = replace(diagnosis, note="; ".join(filter(None, [diagnosis.note, not_sent_again(verdict, context)])))
    return diagnosis


def search_among_all(hints: tuple[Cause, ...]) -> bool:
    """Whether a failure not shrunk is searched among every explanation after its `hints` (the root causes of its
    kind's shrunk failures in its block of examples: `budget.shrink_hints`): not where every one stayed
    unexplained. The bug is then most likely one no explanation names, and the search among every explanation
    would spend up to its whole budget (`classify.ATTRIBUTION_BUDGET`) on every record to name nothing again: a
    run up to some thirty times as long as the same implementation fixed. Such a failure is searched among its
    implementation's documented classes only, and its record says so. Decided by the examples alone (their
    order within the block), as the shrinking is, never by the clock or by --jobs. A name that states only what is
    known (`other-counting-of-<layer>`, the score stages of `mechanisms.combination.PARTIAL_NAMES`) names no
    mechanism: it counts as unexplained here, else a partial name would send every later record of its kind to the
    full search."""
    return any(names_a_mechanism(hint) for hint in hints)



def answered_again(request, reply, verdict, context: DiagnosisContext, prepared=None, *, before=None,
                   expected=None):
    """Before a failure (a fail or an error) is reported, its request is sent once more: the answer then, when
    it differs from `reply` (`repeat.answered_otherwise`): the implementation is nondeterministic there; else
    None. Kept out of the process's history, as a probe is. `before` and `expected` (the process's history
    before `reply`, and the oracle's expectation): an answer that state an earlier request left explains
    (`oracle.diagnose.stale`: a counter never reset answers each time otherwise) is that state's, not
    nondeterminism."""
    if verdict.outcome not in (Outcome.FAIL, Outcome.ERROR) or context.process.given_up:
        return None
    # not `_probe_reply`: the failing request itself, sent already (within the capabilities, not tested again), sent
    # again with its prepared wire body (`prepared`: read from the search cache or built once)
    sent, pending = context.channel.submit(request, prepared)
    again = context.channel.collect(sent, pending, kept=False)
    if not repeat.answered_otherwise(reply, again, context.contract):
        return None
    if before is not None and expected is not None and (before.earlier or before.halvings or before.returned) \
            and stale_answer(request, reply, before, context.profile, expected=expected, contract=context.contract):
        return None
    return again


def resend_waived(kind, verdict, context: DiagnosisContext):
    """Is this failing example's (or series step's) request reported without being sent once more
    (`budget.resend_waived`: the first failures of its kind in its block of examples were answered alike when
    sent again)? Never a case's, a relation's or a plan's, nor where nothing is shrunk (`--shrink-budget 0`:
    no kind is charged, every failure is sent again)."""
    if kind not in ("example", "series") or verdict.outcome not in (Outcome.FAIL, Outcome.ERROR) \
            or context.shrink_budget <= 0 or context.budget.example < 0 or context.process.given_up:
        return False
    return context.budget.waives_resend(failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order))


def not_sent_again(verdict, context: DiagnosisContext):
    """What the message of a failure not sent again (`resend_waived`) adds, saying so."""
    return (f"not sent again: the first failure(s) of its kind ({_kind_words(verdict)}) in "
            f"{_block_words(context)} were answered alike when sent again")


def nondeterministic(item: Item, request, reply, again, expected, context: DiagnosisContext) -> Diagnosis:
    """The diagnosis of a failing record whose request was answered two ways: the root cause `nondeterministic`,
    both answers in its message, and a reproduction line that says it may pass. Not shrunk, not classified
    further: neither can be trusted on an implementation that answers one request two ways (and both cost tens
    of requests, or seconds of search, per record)."""
    if context.budget.example >= 0:  # the later failures of its block are classified cheaply (`cheaply_classified`)
        context.budget.may_shrink(NONDETERMINISTIC_KIND)
    classification = repeat.nondeterministic(reply, again, None if expected is None or expected.rejected
                                             else expected.score)
    note = repeat.described(reply, again)
    if item.summary is not None:  # (a summary: too large to replay from a record)
        return Diagnosis(classification=classification, note=note)
    replay, line = context.reproduction.of_failure(item.id, item.kind, request, request)
    return Diagnosis(classification=classification, replay=replay,
                     reproduce=line + repeat.reproduction_note(reply, again), note=note)


def shrunk_and_classified(item: Item, judgement: Judgement, context: DiagnosisContext, *,
                          before: Before = NOTHING_BEFORE) -> Diagnosis:
    """The diagnosis of a failing record: the shrunk input (a random example's, or a series step's), the root cause,
    the replay and the reproduction line. `before`: what the process had answered before this request, where the
    state an earlier request left is looked for (`oracle.diagnose.stale`)."""
    item_id, kind, overrides, summary = item.id, item.kind, item.overrides, item.summary
    request, reply, verdict, expected = judgement.parts
    search_all = item.attribution == "full"
    reported, judged, shrunk = request, judgement, None
    to_shrink, hints = shrink_decision(kind, verdict, context)
    if NONDETERMINISTIC_HINT in hints:
        return cheaply_classified(item, judgement, context)
    if (error_causes.EVERY_INPUT,) in hints and verdict.outcome == Outcome.ERROR and kind in ("example", "series") \
            and item.attribution != "none":
        return _every_input_as_in_its_block(item, judgement, context)
    # (a state probes confirmed for its kind in its block is a hint of its own, `_state_confirmed`; the searches
    # among the hints never see it: they test mechanisms of the request alone)
    confirmed_state, hints = (REFERENCES_KEPT,) in hints, tuple(hint for hint in hints if hint != (REFERENCES_KEPT,))
    kept = _kept_as_in_its_block(judgement, before, context) if confirmed_state and item.attribution != "none" \
        else None
    if kept is not None:
        if summary is not None:  # (a summary: too large to replay from a record)
            return Diagnosis(classification=kept)
        replay, line = context.reproduction.of_failure(item_id, kind, request, request)
        return Diagnosis(classification=kept, replay=replay, reproduce=line)
    if to_shrink:
        shrunk, last = shrink_failure(request, verdict, context, reply, expected)
        reported = shrunk.request
        if last is not None:
            judged = last
    classification = None
    failed_kind = failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order)
    if item.attribution != "none" and hints:
        classification = _attribute_by_hints(
            judged.parts, hints, overrides, context, search_all=search_all, kind=failed_kind)
    elif item.attribution != "none":
        classification = _first_classified(judged, judgement, overrides, context, search_all=search_all,
                                           kind=failed_kind if kind in ("example", "series") else None)
    if to_shrink and classification is not None and classification.fits and judged is not judgement \
            and search_all:
        classification = _told_apart(judged.parts, classification, overrides, context)
    if classification is not None and verdict.outcome == Outcome.ERROR and kind in ("example", "series"):
        classification = _error_cause(judged.parts, request, classification, hints, context, overrides)
    if classification is not None and verdict.outcome in (Outcome.CRASH, Outcome.TIMEOUT) and kind == "example" \
            and reply.message != context.process.given_up:
        classification, shrunk = _death_cause(request, verdict, classification, context)
        reported = shrunk.request if shrunk is not None else request
    if to_shrink and classification is not None:
        context.budget.classified((classification.parts, *classification.fit_parts))
    if classification is not None and (before.earlier or before.halvings or before.returned):
        refuted = answered_right_before(request, before, expected, context.contract)
        stale = _stale(request, reply, before, expected, classification, context, request_alone_refuted=refuted)
        classification = with_stale(classification, stale, request_alone_refuted=refuted)
        _state_confirmed(stale, kind, verdict, context)
    classification = _special_token_named(classification, judged.parts[0], context)
    if summary is not None:  # (a summary: too large to replay from a record)
        return Diagnosis(classification=classification, shrunk=shrunk)
    replay, line = context.reproduction.of_failure(item_id, kind, request, reported)
    return Diagnosis(classification=classification, shrunk=shrunk, replay=replay, reproduce=line)


def _first_classified(judged: Judgement, judgement: Judgement, overrides, context: DiagnosisContext, *, search_all,
                      kind: tuple | None):
    """A shrunk failure's root cause (`attribute_shrunk`, its original input's search with it), or a failure's that
    was not shrunk and has no hints (`attribute`). Where its block's diagnosis has one budget (`_diagnosis_meter`:
    run-cap, off by default), within it, what it spent charged there; a search the budget cut is named by what is
    known (`_named_without_full_search`), its record saying so."""
    meter = _diagnosis_meter(judgement.request, context) if kind is not None else None
    try:
        if judged is not judgement:
            found = attribute_shrunk(judged.parts, judgement.parts, context.profile, entries=context.documented,
                                     overrides=overrides, search_all=search_all, meter=meter)
        else:
            found = attribute(*judged.parts, context.profile, entries=context.documented, overrides=overrides,
                              search_all=search_all, meter=meter)
        if meter is not None and meter.cut and found.change and names_a_mechanism(found.parts):
            # (the shrunk input named, the search of its original input cut: its name stands, as where that search
            # names nothing)
            found = found.model_copy(update={"description": (
                f"{found.description}; the search of its original input was cut: {_tokens_spent(meter, context)}")})
        elif meter is not None and meter.cut:
            found = _named_without_full_search(judged.parts, overrides, search_all, _tokens_spent(meter, context),
                                               context, meter, ran="was cut", kind=kind or ())
        return found
    finally:
        if meter is not None:
            context.budget.searches_charged(DIAGNOSIS_KIND, meter.spent - _diagnosis_earned(judgement.request))


def _diagnosis_earned(request) -> int:
    """What a failure adds to its block's diagnosis budget (`budget.diagnosis_tokens_earned`): its judged input's
    (`request`'s) tokens."""
    return diagnosis_tokens_earned(request.token_count)


def _diagnosis_meter(request, context: DiagnosisContext, kind_allowed: int | None = None):
    """The meter of a failure's searches where its block's diagnosis has one budget (run-cap: `budget`'s
    DIAGNOSIS_CANDIDATES_PER_TOKEN, off by default): what the block has left of it and what this failure earns
    (`budget.search_tokens_left` of DIAGNOSIS_KIND), and at most `kind_allowed` (its kind's share, where it has one);
    None where there is no such budget (off, or no block: a case)."""
    if not _capped(context):
        return None
    allowed = max(context.budget.search_tokens(DIAGNOSIS_KIND), 0) + _diagnosis_earned(request)
    if kind_allowed is not None and kind_allowed <= allowed:
        return TokenMeter(kind_allowed, f"the search budget of its kind's failures not shrunk in "
                                        f"{_block_words(context)}", floor=SEARCH_CANDIDATE_FLOOR)
    return TokenMeter(allowed, _diagnosis_words(context), floor=SEARCH_CANDIDATE_FLOOR, whole_block=True)


def _capped(context: DiagnosisContext) -> bool:
    """Whether the failure being diagnosed has its block's diagnosis budget (`_diagnosis_meter`, run-cap)."""
    return diagnosis_candidates_per_token() > 0 and context.budget.example >= 0


def _diagnosis_words(context: DiagnosisContext):
    """The budget of a block's whole diagnosis (`_diagnosis_meter`), in words."""
    per_token = diagnosis_candidates_per_token()
    return (f"the diagnosis budget of {_block_words(context)} ({per_token} candidate(s) of "
            f"{SEARCH_CANDIDATE_FLOOR} tokens at least per token its examples judged, every kind of failure together)")


def _special_token_named(classification, request, context: DiagnosisContext):
    """`classification` refined where it is (or fits) a special token on one side (`specialtoken.PROBED`): the token
    and its place, from the probes of this process's channel (`_special_token_probed`: sent once a channel and name,
    on the first record the broad name names, not merely fits, whose request can carry them, and none where a process
    state fits it too: a state is named only where its order probes confirmed it, and the token is then what the state
    gave by chance; `specialtoken.refined`). Coverage of the real collection's end-token-in-hypothesis, not
    generalisation. None stays None."""
    if classification is None:
        return None
    broad = next((parts[0] for parts in (classification.parts, *classification.fit_parts)
                  if len(parts) == 1 and parts[0] in PROBED), None)
    if broad is None:
        return classification
    found = context.channel.special_tokens.get(broad)
    if found is None and (classification.parts != (broad,) or any(
            part in _PROCESS_STATES for parts in classification.fit_parts for part in parts)):
        return classification  # (probed only for a record the broad name names and no confirmed state fits)
    if found is None:
        found = _special_token_probed(broad, request, context)
        if found is None:
            return classification
        context.channel.special_tokens[broad] = found
    return refined(classification, found, request)


def _special_token_probed(broad: str, request, context: DiagnosisContext) -> Found | None:
    """The probes of `specialtoken` for `broad` built on `request` and sent now, kept out of the history: one request
    per conventional token (`SPECIAL_TOKENS`, in order) until one is answered as that token at the end or the start
    gives; each answer judged layer by layer against the three predictions (`specialtoken.read_answer`). None where
    nothing was sent (the process given up, a text request, a probe the implementation cannot be asked or cannot
    tell the predictions apart): a later record may carry them."""
    if context.process.given_up or not probeable(request):
        return None
    probed = 0
    for token in SPECIAL_TOKENS:
        built = ((probe, expectations(probe, broad, token, context.profile))
                 for probe in (probe_request(base, broad, token) for base in probe_bases(request, broad))
                 if not_applicable_reason(probe, context.capabilities) is None)
        probe, expected = next(((p, e) for p, e in built if e is not None), (None, None))
        if probe is None or expected is None:
            return None
        (answer,) = _answered_here((probe,), context)
        probed += 1
        place = read_answer(probe, answer, expected, context.contract)
        if place in (END, START):
            return Found(token, place, found_words(broad, token, place, probed))
        if context.process.given_up:
            return None
    return Found(None, None, found_words(broad, None, None, probed))


def _every_input_as_in_its_block(item: Item, judgement: Judgement, context: DiagnosisContext) -> Diagnosis:
    """An error not shrunk whose kind's shrunk error in its block was named `error-on-every-input-asked` (every
    input its probes asked erred, the floor among them: `errorcauses.EVERY_INPUT`): named by it without probes or a
    search of its own, saying so. Each such record would otherwise ask its own neighbours (up to MAX_PROBES
    requests, every one erring) and search among its kind's hints, which on an implementation that errs everywhere
    is most of a run's cost (benchmarks/README.md, every-input-errors). Its outcome's classification (`attribute`
    on an error: no search) takes the name."""
    request, _reply, verdict, _expected = judgement.parts
    classification = attribute(*judgement.parts, context.profile, entries=context.documented,
                               overrides=item.overrides, search_all=False)
    classification = classification.model_copy(update={"parts": (error_causes.EVERY_INPUT,), "description": (
        f"{error_causes.describe(error_causes.EVERY_INPUT)}, as probes found on an earlier error of its kind "
        f"({_kind_words(verdict)}) in {_block_words(context)}: named by it without probes or a search of its own "
        f"({verdict.message})")})
    if item.summary is not None:  # (a summary: too large to replay from a record)
        return Diagnosis(classification=classification)
    replay, line = context.reproduction.of_failure(item.id, item.kind, request, request)
    return Diagnosis(classification=classification, replay=replay, reproduce=line)


def _kept_as_in_its_block(judgement: Judgement, before: Before, context: DiagnosisContext):
    """A failure not shrunk whose kind had references kept from the process's first request confirmed by probes
    earlier in its block (`_state_confirmed`), named so where its answer is exactly the oracle's for its hypotheses
    against those references (`oracle.diagnose.stale.kept_references`, one computation by the oracle), without
    probes or a search of its own; else None, and it is classified as any failure is. The bug then costs its probes
    once per kind and block, not once per record, and no search among mechanisms of the request alone, which on
    such a bug names only what is known of the difference (`other-counting-of-<layer>`). The state needed its
    probes: a stateless implementation never has it confirmed, so never reaches this."""
    request, reply, verdict, expected = judgement.parts
    if before.first is None or expected is None:
        return None
    kept = kept_references(request, reply, before.first, context.profile, expected=expected, contract=context.contract)
    if kept is None:
        return None
    return kept.model_copy(update={"description": (
        f"{kept.description}; probes confirmed it on an earlier failure of its kind ({_kind_words(verdict)}) in "
        f"{_block_words(context)}, so this one was neither probed again nor searched among mechanisms of the request "
        "alone")})


def _state_confirmed(stale, kind, verdict, context: DiagnosisContext) -> None:
    """Tell the block that probes confirmed references kept from the first request (`stale`, `_stale`'s answer) on a
    failure of this kind: a hint for its later failures (`budget.searched_named`, as a searched name is; read from
    the records by a `--jobs` parent too), which `_kept_as_in_its_block` reads."""
    if stale is None or stale.name != REFERENCES_KEPT or not is_confirmed(stale) or kind not in ("example", "series") \
            or context.budget.example < 0:
        return
    context.budget.searched_named(failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order),
                                  ((REFERENCES_KEPT,),))


def cheaply_classified(item: Item, judgement: Judgement, context: DiagnosisContext) -> Diagnosis:
    """A failing record answered alike when sent once more, after an earlier example of its block was answered
    two ways (`budget.nondeterministic_before`): not shrunk, and classified among the implementation's
    documented classes only, without the search among every explanation or the history's probes: a cause
    found on an implementation that answers requests two ways cannot be trusted, and the search costs seconds
    per record (its run stays within a few times a conforming run's cost)."""
    classification = attribute(*judgement.parts, context.profile, entries=context.documented,
                               overrides=item.overrides, search_all=False)
    if classification.name == UNEXPLAINED:
        classification = classification.model_copy(update={"description": (
            "not searched among every explanation: an earlier example of this block had a request answered "
            "two ways (nondeterministic), and no cause found on this implementation can be trusted")})
    if item.summary is not None:
        return Diagnosis(classification=classification)
    replay, line = context.reproduction.of_failure(item.id, item.kind, judgement.request, judgement.request)
    return Diagnosis(classification=classification, replay=replay, reproduce=line)


def _told_apart(judged: Judged, classification, overrides, context: DiagnosisContext):
    """A shrunk record's classification after one related input, sent to tell its fitting explanations apart
    (`oracle.harness.separate`): those the answer rules out leave its fits."""
    if context.process.given_up:
        return classification
    candidates = (classification.parts, *classification.fit_parts)

    def ask(variant):
        _, answer = context.channel.send(variant)
        return answer.score if answer.kind == "score" else None

    kept = candidates
    for _ in range(SEPARATING_REQUESTS):  # each request may rule out some: the rest are tried again
        found = told_apart(judged[0], judged[1], context.profile, kept, context.capabilities, ask, overrides=overrides)
        if found is None or len(found[0]) == len(kept):
            break
        kept = found[0]
        if len(kept) == 1 or context.process.given_up:
            break
    if len(kept) == len(candidates):
        return classification
    if classification.parts not in kept:
        renamed = attribute(*judged, context.profile, entries=context.documented, overrides=overrides,
                            among=kept[0])
        classification = renamed if renamed.parts == kept[0] else classification
    return classification.model_copy(update={
        "fit_parts": tuple(parts for parts in kept if parts != classification.parts),
        "ruled_out": tuple(cause_name(parts) for parts in candidates if parts not in kept)})


def _error_cause(judged: Judged, original, classification, hints, context: DiagnosisContext, overrides=None):
    """An error record's cause (`oracle.diagnose.errorcauses`): the first cause its kind's shrunk errors were
    given that its input holds; else the features of its (shrunk) input that neighbours asked now confirm
    (kept out of the history). Its `error` classification where none is confirmed, its description saying what the
    probes showed (the features it still errs without). A structure whose call errs (`oracle.diagnose.errsstructure`)
    takes the predicate's place where its refusal agrees with those probes and one probe more carries its statistics,
    and is the first hint tried."""
    failing, verdict = judged[0], judged[2]
    refusal = errsstructure.hinted(failing, hints, REFUSALS)
    name = error_causes.hinted(failing, hints) if refusal is None else refusal.structure
    if refusal is not None:
        description = f"{refusal.words}: a structure whose call errs, as in a shrunk error of its kind"
    elif name is not None:
        description = f"{error_causes.describe(name)}, as in a shrunk error of its kind"
    elif context.process.given_up:
        return classification
    else:
        known: list[str] = []
        asked: list[tuple] = []
        cause = error_causes.error_cause(failing, functools.partial(_errs_recorded, asked=asked, context=context),
                                         also_failing=(original,), methods=context.capabilities.smoothing, known=known)
        structural = _structure_whose_call_errs(failing, original, asked, overrides, context)
        if structural is not None:
            name, description = structural.name, structural.description
        elif cause is None:
            return classification.model_copy(update={"description": "; ".join(
                [classification.description, *known])}) if known and classification.description else classification
        else:
            name, description = cause.name, cause.description
    # (an error's cause is one mechanism: its parts are its name alone)
    return classification.model_copy(update={"parts": (name,), "description": f"{description} ({verdict.message})"})


def _death_cause(request, verdict, classification, context: DiagnosisContext):
    """A crash's or a timeout's cause (`oracle.harness.crashcauses`), and the Shrunk part of its record (None when
    not probed): probed in processes of their own for the first death of its kind in its block of examples
    (the shrink allowance), else named by a probed cause of its kind that it has. Its classification as it
    was where nothing is known."""
    outcome = verdict.outcome.value
    died_after = context.channel.died_after
    if context.shrink_budget <= 0 or not isinstance(context.process, ImplementationProcess):
        return classification, None
    probe, hints = context.budget.may_shrink(failure_kind("example", outcome, None, None))
    if not probe:
        known = crashcauses.hinted(request, died_after, hints, outcome=outcome)
        if known is None:
            return classification, None
        return classification.model_copy(update={"parts": (known.name,), "description": (
            f"{known.description}, as in a probed {outcome} of its kind ({verdict.message})")}), None
    prober = crashcauses.ProcessProber(context.process, context.capabilities,
                                       max_deaths=crashcauses.TIMEOUT_HANGS if outcome == "timeout" else None)
    shrinking: list[ShrinkResult] = []  # the shrinker's result, when the probes found an input to shrink

    def shrunk(failing, still_fails):
        rejected = oracle_expected(failing, context.profile).rejected

        def still(candidate):
            return oracle_expected(candidate, context.profile).rejected == rejected and still_fails(candidate)
        result = shrink(failing, still, capabilities=context.capabilities, budget=context.shrink_budget,
                        deadline=deadline_after(context.shrink_seconds))
        shrinking.append(result)
        return result.request
    try:
        cause = crashcauses.crash_cause(request, prober, outcome=outcome, methods=context.capabilities.smoothing,
                                        shrink=shrunk)
    finally:
        prober.close()
    parts = (cause.name,) if cause is not None else classification.parts  # (a death's cause is one mechanism)
    context.budget.classified((parts,))
    if cause is None:
        return classification, None
    result = shrinking[-1] if shrinking else None
    probed = f"probed in {prober.starts} process(es) of their own"
    clock = clock_note(result.stopped, result.queries, context.shrink_seconds) if result else None
    part = Shrunk(request=cause.shrunk or request, steps=result.steps if cause.shrunk and result else 0,
                  queries=result.queries if result else 0, message=verdict.message,
                  stopped_by=result.stopped if result else None,
                  note=f"{probed}; {clock}" if clock else probed)
    return classification.model_copy(update={"parts": parts, "description": (
        f"{cause.description} ({verdict.message})")}), part


def _errs_recorded(probe, *, asked: list, context: DiagnosisContext):
    """`_errs`, each probe and its answer kept in `asked` (what `errsstructure.structure_cause` reads)."""
    answer = _errs(probe, context)
    asked.append((probe, answer))
    return answer


def _structure_whose_call_errs(failing, original, asked, overrides, context: DiagnosisContext):
    """An error named by a structure whose call errs (`oracle.diagnose.errsstructure`): its refusal separates the
    error search's probes, and the failing input given a shape the structure takes is answered, asked now, with that
    structure's statistics (the classifier among that structure alone). None where no structure does."""
    def ask(probe):
        reply = _probe_reply(probe, context)
        return reply if reply is not None and reply.kind == "score" else None

    def explains(probe, reply, name):
        try:
            return classify(probe, reply, context.profile, overrides=overrides, among=(name,)).parts == (name,)
        except ORACLE_REFUSALS:
            return False
    return errsstructure.structure_cause(failing, REFUSALS, asked=asked, ask=ask, explains=explains,
                                         also_failing=(original,))


def _errs(probe, context: DiagnosisContext):
    """Whether the implementation answers `probe` with an error (`errorcauses.Ask`): None where it cannot be
    asked (outside its capabilities, the process given up) or the answer is neither (a crash, a timeout); None too
    where the implementation refuses a probe the formulas refuse as well (an order lowered until every weight sent is
    0): that refusal is its validation's, which runs before the code that errs, and says nothing of what triggers
    the error (set A's average:stage_clip:99:14 was named `error-when-order-above-2` by such a refusal). A reply that
    broke the protocol only by writing its counts as floats (`NumericReply`) is a score answered: the same mutant's
    neighbours were answered so, and its trigger went unasked."""
    reply = _probe_reply(probe, context)
    if reply is None:
        return None
    if reply.kind == "rejected" and oracle_expected(probe, context.profile).rejected:
        return None
    if reply.kind == "protocol-error" and NumericReply.from_reply_line(reply.raw) is not None:
        return False  # (a score whose counts are written as floats: answered, past the code that errs)
    return {"error": True, "unsupported": True, "score": False, "rejected": False}.get(reply.kind)


def _probe_reply(probe, context: DiagnosisContext):
    """The implementation's reply to `probe`, sent now and kept out of the history; None where it cannot be asked
    (the process given up, or the probe outside its capabilities)."""
    if context.process.given_up or not_applicable_reason(probe, context.capabilities) is not None:
        return None
    sent, pending = context.channel.submit(probe)
    return context.channel.collect(sent, pending, kept=False)


def _stale(request, reply, before, expected, classification, context: DiagnosisContext, *,
           request_alone_refuted: bool = False):
    """The state an earlier request left that explains a failing answer (`oracle.diagnose.stale`), or None.
    Where a mechanism of the request alone explains it too, an earlier answer of the request's own case or example
    counts only where the request with its hypotheses made new is answered right (`_new_key_probed`: a cache's key
    misses; a stateless bug that ignores the part the two differ in answers it wrongly), and one from another case or
    example only when probes confirm it: the request with a part the two differ in changed once more, two ways,
    sent now, each answered the same (a cache keyed without that part), and wrongly, and the new-key probe too. The
    probes are kept out of the history, and a stateless implementation answers them alike however the run is split
    (the new key's token is marked with the channel's sequence number: it matches nothing, whatever its digits). Last,
    references kept from the process's first request (`kept_references`), probed with every reference changed first
    (`EVERY_REFERENCE`: a stateless bug that reads only some of them is not fooled). Those probes only rule states
    out: every state found, whichever its name and its path, is named only where the one rule confirms it
    (`_in_order`: the same request answered otherwise alone than after what sets the state, which no stateless
    implementation does), unless this very request was answered right before in the process
    (`request_alone_refuted`: the history already holds one request answered two ways)."""
    explained = (classification.name != UNEXPLAINED and not is_partial(classification.parts)
                 and bool(classification.change))
    stale = stale_answer(request, reply, before, context.profile, expected=expected, contract=context.contract,
                         explained=explained)
    if stale is not None and explained and stale.name == EARLIER_ANSWER and not context.process.given_up:
        stale = _new_key_probed(stale, request, context)
        return _in_order(stale, request, before, context, refuted=request_alone_refuted)
    if stale is not None or context.process.given_up:
        return _in_order(stale, request, before, context, refuted=request_alone_refuted)
    answers: dict = {}
    if explained:
        outside = stale_answer(request, reply, before, context.profile, expected=expected, contract=context.contract)
        # (the exchange `outside` was found by, looked up only where it names one: each scan of the history is a pass
        # over every earlier exchange, on every failure of a run)
        match = None if outside is None or outside.name != EARLIER_ANSWER else earlier_match(
            request, reply, before.earlier, context.profile, contract=context.contract)
        if outside is not None and match is not None:
            _, parts, exchange = match
            stale = _probed(outside, request, exchange.request, parts, reply, context, answers)
            # (a stateless bug blind to the changed parts on this input answers those probes alike too: a cache
            # also answers a request it has no answer for right)
            stale = stale and _new_key_probed(stale, request, context)
    if stale is None and before.first is not None:
        kept = kept_references(request, reply, before.first, context.profile, expected=expected,
                               contract=context.contract)
        if kept is not None:
            stale = _probed(kept, request, before.first.request, (EVERY_REFERENCE,), reply, context, answers)
    return _in_order(stale, request, before, context, refuted=request_alone_refuted)


def _new_key_probed(named, request, context: DiagnosisContext):
    """`named` (an earlier answer of the request's own unit, beside a mechanism of the request alone) where a probe
    confirms it (`oracle.diagnose.stale.confirmed_by_a_new_key`): the request with its hypotheses made new, sent
    now and kept out of the history, answered right; else None (unconfirmed, it is no fit: `with_stale`)."""
    # (the channel's sequence number marks the token: a cache keeps what an earlier probe asked, which a second
    # record with the same hypotheses would otherwise meet)
    # (`_probe_reply`'s guard is this one's: its callers ask it only with the process not given up, the one after
    # `_probed` only where each of its probes was answered as the failing reply was, a score: no crash to give it up)
    probe = with_new_hypotheses(request, context.channel.seq)
    answer = _probe_reply(probe, context)
    return None if answer is None else confirmed_by_a_new_key(named, probe, answer, context.profile,
                                                              context.contract)


def _in_order(named, request, before: Before, context: DiagnosisContext, *, refuted: bool = False):
    """The one confirmation every process state passes before it is reported (`named`, any name of
    `mechanisms.process_state_names`, whatever path found it), or None: its order probes
    (`oracle.diagnose.stale.order_probes`, the name's entry in `stale.ORDER_PROBED`) sent now and kept out of the
    history (the request alone, in a process started for it where the name says so; then what sets the state and the
    request again), and confirmed only where the request got another answer alone than after, the one the state gives
    (`stale.confirmed_in_order`). A stateless deterministic implementation answers the two alike and is never
    confirmed; a name without an entry, or probes the implementation cannot be asked, never are. `refuted`: this very
    request was answered right earlier in the process (`answered_right_before`), an answer what came before changed
    already: `named` as it is."""
    if named is None or refuted:
        return named
    channel = context.channel
    if named.name == REFERENCES_KEPT and channel.first is not None \
            and channel.in_order.get(named.name) is channel.first:
        # (the process's one state, confirmed on an earlier record of this process instance: no process started again)
        return named.model_copy(update={
            "description": named.description + "; the order probes confirmed it on an earlier failure of this process "
                                               "(the same first request's references)",
            "change": (*named.change, (CONFIRMED_BY, IN_ORDER))})
    order = None if context.process.given_up else order_probes(named, request, before, context.channel.seq)
    if order is None or any(not_applicable_reason(probe, context.capabilities) is not None
                            for probe in (*order.alone, *order.after)):
        return None
    alone = _answered_in_a_new_process(order.alone, context) if order.fresh else _answered_here(order.alone, context)
    if not alone or len(alone) < len(order.alone):
        return None
    after = _answered_here(order.after, context)
    seen = Seen(halvings=context.channel.halvings_before, first=context.channel.first, profile=context.profile,
                contract=context.contract, returned=context.channel.returned_before)
    predicted = ORDER_PROBED[named.name].predicted(order, after, seen)
    confirmed = confirmed_in_order(named, alone[-1], after, predicted=predicted, contract=context.contract)
    if confirmed is not None and order.fresh and channel.first is not None:
        channel.in_order[named.name] = channel.first
    return confirmed


def _answered_here(requests, context: DiagnosisContext) -> list:
    """The replies to `requests`, sent in order on the run's channel and kept out of the history (the tally of exp
    smoothing's halvings counts them: the process's counter does)."""
    # not `_probe_reply`: a sequence whose capabilities and process the caller tests once, before any is sent
    # (`_in_order`), each then sent and its reply kept, a crash's included: a process given up midway answers the
    # later ones crash (the transport's), where `_probe_reply` would give None, which `confirmed_in_order` cannot read
    answers = []
    for probe in requests:
        submitted, pending = context.channel.submit(probe)
        answers.append(context.channel.collect(submitted, pending, kept=False))
    return answers


def _answered_in_a_new_process(requests, context: DiagnosisContext) -> list | None:
    """The replies to `requests`, sent in order to a process started for them (its first requests), stopped after;
    None where none can be started: the implementation runs in this process and its transport cannot start another
    instance (`started_anew`), or the start failed."""
    process = context.process
    if isinstance(process, ImplementationProcess):
        prober = crashcauses.ProcessProber(process, context.capabilities, max_starts=1)
        try:
            return prober.answers(requests)
        finally:
            prober.close()
    started_anew = getattr(process, "started_anew", None)
    other = started_anew() if callable(started_anew) else None
    if other is None:
        return None
    try:
        other.start()
        return [other.request(probe.with_seq(seq).to_json()) for seq, probe in enumerate(requests, start=1)]
    finally:
        other.stop()


def _probed(named, request, other, parts, reply, context: DiagnosisContext, answers: dict):
    """`named` (a state an earlier request `other` left) where probes confirm it (`oracle.diagnose.stale.confirmed`):
    `request` with one of `parts` changed once more, two ways, sent now (unless `answers`, the probes sent for this
    record so far, holds it), each answered as `reply` was, and wrongly; else None."""
    applicable = [(part, probe) for part, probe in probes(request, other, parts, context.capabilities.smoothing)
                  if not_applicable_reason(probe, context.capabilities) is None][:PROBES_NEEDED]
    if len(applicable) < PROBES_NEEDED:
        return None
    answered = []
    for part, probe in applicable:
        if probe not in answers:
            # not `_probe_reply`: the probes are the first PROBES_NEEDED applicable ones of more (tested above), and
            # the second is sent even where the first gave the process up (answered crash by the transport), so that
            # `confirmed` reads a reply for each, where `_probe_reply` would give None
            sent, pending = context.channel.submit(probe)
            answers[probe] = context.channel.collect(sent, pending, kept=False)
        answered.append((part, probe, answers[probe]))
    return confirmed(named, answered, reply, context.profile, context.contract)


def shrink_decision(kind, verdict, context: DiagnosisContext):
    """Shrink this failing example? Only the first `shrink_first` of each kind of failure in its block
    of examples (`budget.shrink_allowed`): each shrink costs tens of requests. If not, the root
    causes of its kind's shrunk examples, to test first: (shrink, hints)."""
    failed = verdict.outcome in (Outcome.FAIL, Outcome.ERROR)
    if kind not in ("example", "series") or not failed or context.shrink_budget <= 0:
        return False, ()
    return context.budget.may_shrink(failure_kind(kind, verdict.outcome.value, verdict.layer, verdict.order))


def _attribute_by_hints(judged: Judged, hints, overrides, context: DiagnosisContext, *, search_all, kind):
    """An example not shrunk: its searches within its kind's budget of token computations in its block
    (`budget.search_tokens_left`: what is left of it, if anything, and what this failure earns, which it may
    always spend: a full search that spent the block's share leaves the kind's later failures their own few
    candidates, enough for their hints), charged with what they spent (`_attribute_within`)."""
    earned = search_tokens_earned(max(judged[0].token_count, SEARCH_CANDIDATE_FLOOR))
    kind_allowed = max(context.budget.search_tokens(kind), 0) + earned
    capped = _diagnosis_meter(judged[0], context, kind_allowed)
    meter = capped if capped is not None else TokenMeter(
        kind_allowed, f"the search budget of its kind's failures not shrunk in {_block_words(context)}",
        floor=SEARCH_CANDIDATE_FLOOR)
    try:
        return _attribute_within(judged, hints, overrides, context, search_all=search_all, kind=kind, meter=meter)
    finally:
        context.budget.searches_charged(kind, meter.spent - earned)
        if capped is not None:
            context.budget.searches_charged(DIAGNOSIS_KIND, meter.spent - _diagnosis_earned(judged[0]))


def _attribute_within(judged: Judged, hints, overrides, context: DiagnosisContext, *, search_all, kind, meter):
    """An example not shrunk: classified among `hints` (its kind's shrunk examples' root causes and what
    else fitted them) first, so every one of them that explains it is kept; else as any record is, within its
    kind's allowance of searches among every explanation in its block (`budget.full_search_allowed`, `kind`: its
    failure kind), the mechanisms such a search names joining the hints of its kind's later failures. Where
    every shrunk example of its kind in its block stayed unexplained after the full search (`search_among_all`),
    or the allowance is spent, among the documented classes only and named by what is known
    (`_named_without_full_search`): the search among every explanation would most likely name nothing again, or
    a coincidence again, at up to some ten seconds per record. Every search spends at most what is left of
    `meter` (its kind's token computations in the block); one the meter cut, or that the meter leaves nothing for,
    is named by what is known as well, its record saying so."""
    among = tuple(dict.fromkeys(part for hint in hints for part in hint))
    unnamed = functools.partial(_named_without_full_search, kind=kind, tested=among if search_among_all(hints) else ())
    if not search_among_all(hints):
        return unnamed(judged, overrides, search_all, _unexplained_kind(judged[2], context), context, meter)
    named = attribute(*judged, context.profile, entries=context.documented, overrides=overrides, among=among,
                      meter=meter)
    if named.change and not names_a_mechanism(named.parts):  # only what is known fits among the hints: a mechanism
        # its block named for another kind that explains it comes first, as where no hint names one (a level operator
        # needing evidence names a kind's first failure, what is known fitting it too: benchmarks/README.md)
        by_evidence = _named_by_block_causes(judged, overrides, kind, among, context, meter)
        if by_evidence is not None:
            why = (f"the search among every explanation was not run: the root causes of its kind's shrunk failure(s) "
                   f"({_kind_words(judged[2])}) in {_block_words(context)} fit it only by what is known")
            named = by_evidence.model_copy(update={"description": f"{by_evidence.description}; {why}"})
    if named.change:
        return named
    if not search_all:  # (the documented classes: never metered, see _named_without_full_search)
        return attribute(*judged, context.profile, entries=context.documented, overrides=overrides, search_all=False)
    if meter.cut or meter.left() <= 0:
        return unnamed(judged, overrides, search_all, _tokens_spent(meter, context), context, meter)
    if not context.budget.may_search_all(kind):
        return unnamed(judged, overrides, search_all, _searches_spent(judged[2], context), context, meter)
    named = attribute(*judged, context.profile, entries=context.documented, overrides=overrides, meter=meter)
    if meter.cut:
        whose = meter.words if meter.whole_block else _tokens_words(context)
        why = f"{named.description} ({whose})"
        return unnamed(judged, overrides, search_all, why, context, meter, ran="was cut")
    if named.change and names_a_mechanism(named.parts):  # its kind's later failures are tested against it too
        context.budget.searched_named(kind, tuple(filter(names_a_mechanism, (named.parts, *named.fit_parts))))
    return named


def _named_without_full_search(judged: Judged, overrides, search_all, why, context: DiagnosisContext,
                               meter: TokenMeter | None = None, ran: str = "was not run", *, kind: tuple = (),
                               tested: tuple[str, ...] = ()):
    """A failure not searched among every explanation (`why`, in words): among its implementation's documented
    classes alone (none: no explanation, which still tells a score that agrees), else by a root cause named for
    another kind of failure before it in its block (`_named_by_block_causes`; `kind`: its failure kind, `tested`:
    the names its search already tried), else named by what is known of the difference (its layer and the score
    stage its numbers are consistent with), its description saying that the search was not run (`ran`: or was cut)
    and why."""
    classes = tuple(search_classes(context.documented))
    # the implementation's documented classes are searched whole, never metered: they are few, they are what names
    # a baseline's known deviations, and a search the meter cut would be described as "no documented class
    # explains it" (keras-hub at --seed 2: 12 records its curated classes name were `unexplained` so). Where it has
    # none and its block's diagnosis has one budget (run-cap), that search (what is known, the zero variants with it)
    # is within what the budget left
    capped = meter if meter is not None and not classes and _capped(context) else None
    named = attribute(*judged, context.profile, entries=context.documented, overrides=overrides, among=classes,
                      meter=capped)
    if named.name != UNEXPLAINED or not search_all:
        return named
    documented = "no documented class of this implementation explains it, and " if classes else ""
    cut = f"{documented}the search among every explanation {ran}: {why}"
    by_evidence = _named_by_block_causes(judged, overrides, kind, tested, context, meter) if kind else None
    if by_evidence is not None:
        return by_evidence.model_copy(update={"description": f"{by_evidence.description}; {cut}"})
    # what is known costs the oracle once and a few exact tests: a cut record is still named by its layer and
    # the score stage its numbers are consistent with, never a bare `unexplained` where they tell; an answer of 0 is
    # not tried against the score stage's variants that give 0 (some thirty candidates on the input, a search for its
    # other fits that its run did not run or cut: on a bug answering 0, 98 records spent about 1 s of runner CPU on
    # them, cost-bound in benchmarks/README.md)
    request, reply, _verdict, _expected = judged
    known = what_is_known(request, reply, context.profile, overrides=overrides, meter=meter, zero_variants=False)
    if known.name != UNEXPLAINED:
        named = known.classification(scope="all")
        return named.model_copy(update={"description": f"{known.description}; {cut}"})
    return named.model_copy(update={"description": cut})


def _named_by_block_causes(judged: Judged, overrides, kind: tuple, tested: tuple[str, ...],
                           context: DiagnosisContext, meter: TokenMeter | None):
    """A failure whose search was cut or not run, named by a root cause its block named before it for another kind
    of failure (`budget.block_causes`: evidence from other records, not a search), or None: each such mechanism not
    yet tested on it (`tested`) is tried in example order, alone, as the classifier tries any candidate (kept only
    where it explains the returned statistics layer by layer and then the score), with a few candidates on this
    input and never more (its parts and their combination), what it spends charged to `meter` (its kind's token
    computations in the block), as what is known is: never refused. A bug whose records split between kinds of
    failure (the lengths first diverging for some, the references' for others) is then named by the mechanism found
    on the kind that was searched, where its other records' searches were cut. Never a name that needs evidence
    (`mechanisms.needs_evidence`: state, float32 and batch means, which one number can fit by coincidence): a pattern
    across records is what those are confirmed by, and a cut record named so would make one."""
    # (`tested` holds single mechanisms: a cause of one that its search tried already is not tried again)
    causes = [parts for parts in context.budget.block_causes(kind) if names_a_mechanism(parts)
              and not needs_evidence(parts) and not (len(parts) == 1 and parts[0] in tested)]
    floor = SEARCH_CANDIDATE_FLOOR if meter is None else meter.floor
    for parts in causes:
        # its parts and their combination, each a candidate on this input (a structural mechanism costs one token
        # more per reference: a candidate's worth of tokens is left for those)
        trial = TokenMeter((2 ** len(parts)) * max(judged[0].token_count, floor),
                           "the evaluation of its block's root causes", floor=floor)
        if meter is not None and _capped(context) and meter.left() < trial.allowed:
            break  # (its block's diagnosis budget, run-cap, has not that much left: what is known names it)
        named = attribute(*judged, context.profile, entries=context.documented, overrides=overrides, among=parts,
                          meter=trial)
        if meter is not None:
            meter.spent += trial.spent
        if named.change and names_a_mechanism(named.parts):
            evidence = (f"named by {cause_name(parts)}, the root cause found for another kind of failure in "
                        f"{_block_words(context)} (evidence from other records, not a search of its own)")
            return named.model_copy(update={"description": f"{named.description}; {evidence}"})
    return None


def _block_words(context: DiagnosisContext):
    """The block of examples the example being judged is in, in words."""
    if context.budget.example < 0:
        return "its block"
    first = context.budget.example // SHRINK_BLOCK * SHRINK_BLOCK
    return f"examples {first}-{first + SHRINK_BLOCK - 1}"


def _kind_words(verdict):
    """A failure's kind (`budget.failure_kind`), in words."""
    first = f"first differing at {verdict.layer}" if verdict.layer else "of its outcome"
    return f"{verdict.outcome.value}, {first}"


def _unexplained_kind(verdict, context: DiagnosisContext):
    """Why a failure was not searched among every explanation (`search_among_all`): its kind, and the block of
    examples it was judged in."""
    return (f"the shrunk failure of its kind ({_kind_words(verdict)}) in {_block_words(context)} stayed "
            "unexplained after it (most likely a bug no explanation names)")


def _searches_spent(verdict, context: DiagnosisContext):
    """Why a failure was not searched among every explanation (`budget.full_search_allowed`): its kind's
    allowance of such searches in its block was spent."""
    allowance = max(context.shrink_first, 1)
    return (f"the root causes of its kind's shrunk failure(s) ({_kind_words(verdict)}) in "
            f"{_block_words(context)} do not explain it, and the {allowance} search(es) among every explanation "
            "its kind is allowed in a block (--shrink-first) went to earlier failures (the bug may take more "
            "than one name, or the shrunk failure's was a coincidence)")


def _tokens_words(context: DiagnosisContext):
    """The budget of token computations a failure's searches shared (`budget.search_tokens_left`), in words."""
    return (f"its kind's failures not shrunk in {_block_words(context)} share {SEARCH_TOKENS_PER_BLOCK:,} token "
            f"computations and {SEARCH_CANDIDATES_PER_FAILURE} candidates on each one's input, a candidate costing "
            f"{SEARCH_CANDIDATE_FLOOR} tokens at least")


def _tokens_spent(meter: TokenMeter, context: DiagnosisContext):
    """Why a failure was not searched among every explanation: its kind's token computations in its block were
    spent (`budget.search_tokens_left`), or its block's diagnosis budget (`_diagnosis_meter`)."""
    if meter.whole_block:
        return (f"the token computations its searches may spend were spent (its searches spent {meter.spent:,} of the "
                f"{meter.allowed:,} left for it in {meter.words})")
    return (f"the token computations its searches may spend were spent (its search among its kind's names spent "
            f"{meter.spent:,} of the {meter.allowed:,} left for it: {_tokens_words(context)})")


def shrink_failure(request, verdict, context: DiagnosisContext, reply=None, expected=None):
    """Shrink a failing example: (the Shrunk part of its record, the last failing judgement or None)."""
    still_fails = SameFailure(
        request,
        verdict,
        reply,
        profile=context.profile,
        capabilities=context.capabilities,
        send=context.channel.send,
        contract=context.contract,
        given_up=lambda: context.process.given_up,
        expected=expected,
    )
    outcome = shrink(
        request,
        still_fails,
        capabilities=context.capabilities,
        budget=context.shrink_budget,
        deadline=deadline_after(context.shrink_seconds),
    )
    stopped = STOPPED_GAVE_UP if outcome.exhausted and context.process.given_up else outcome.stopped
    clock = clock_note(stopped, outcome.queries, context.shrink_seconds)
    last = still_fails.last  # (set by every step: a step is a candidate that failed the same way)
    if not outcome.steps or last is None:
        return Shrunk(
            request=request,
            steps=0,
            queries=outcome.queries,
            exhausted=outcome.exhausted,
            stopped_by=stopped,
            message=verdict.message,
            layer=verdict.layer,
            order=verdict.order,
            note=clock or "no simpler input fails the same way",
        ), None
    final = last.verdict
    return Shrunk(
        request=outcome.request,
        expected=last.expected,
        actual=last.reply.recorded(),
        layer=final.layer,
        order=final.order,
        message=final.message,
        steps=outcome.steps,
        queries=outcome.queries,
        exhausted=outcome.exhausted,
        stopped_by=stopped,
        note=clock,
    ), last
