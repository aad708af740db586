"""Answers that come from an earlier request: the root cause a request alone cannot show.

An implementation that keeps state between requests (a result cache keyed too coarsely: on the hypotheses
alone, or without `lowercase` or the weights) answers a request with the answer it gave an earlier,
different request. No mechanism of the request alone reproduces such an answer, so the classifier names it
many ways or none; the process's history names it once. `stale_answer` looks among the earlier requests the
same process answered (most recent first, as many as the harness keeps: `oracle.harness.session`'s window)
for one whose answer is exactly this answer (the same kind; a score within the judge's relative tolerance with
the same statistics; a refusal with the same text) and which:

- differs from this request (a repeat answered alike is no fault) but has the same hypotheses (a cache
  keyed without the system output is no cache of answers; a refusal's text is often the same for requests that
  share only the reason),
- was itself answered as the oracle expects (so a plain bug, which answers both wrong, is never hidden), and
- (the caller's part) is wrong for this request.

The explanation names the request parts that differ between the two: the parts the cache key leaves out. Where
a mechanism of the request alone explains the answer as well, only the requests of its own case or example count
(`Before.own`), unless the harness confirms the earlier answer with a probe (`probes`, `confirmed`): a stateless
bug's answer can equal another request's by coincidence, and which requests came earlier depends on how the run
is split (`--shard`, `--jobs`). Every state below (the catalogue's process states, `mechanisms.process_state_names`)
reaches a record only through one rule, whatever found it (`ORDER_PROBED`, `order_probes`, `confirmed_in_order`): the
same request, its hypotheses made new, sent alone and then after what sets the state, answered otherwise and as the
state gives, which no stateless implementation's answers do (a stateless bug blind to the part two requests differ in
answers both alike, as the seventh held-out set's floor division answered 0 with and without smoothing). For an
earlier answer: the request alone, then the earlier request and the request again.

A counter kept between requests carries an earlier request's state instead of its answer. NIST's exp smoothing
gives the k-th order with n-grams but no match 1/2^k matches; a halving counter never reset starts this
request's k where the earlier requests left it, so each such order's precision is divided by 2^j, j the number
of halvings every earlier exp-smoothed request of the process made (its own counts: orders with n-grams and no
match), and the score by 2^(j * the weights of those orders). The harness tallies j over every request since the
process started (`halvings`; unknown once an exp-smoothed score came without statistics); the explanation is
found only where the statistics are the oracle's and the score is the oracle's divided so, and named only where the
request made new, sent twice, is answered otherwise the second time, by the halvings the first made (a counter that
starts from a constant other than 0 is stateless, and meets one such number by coincidence).

One side of the input kept instead of an answer: a process that reads the references once, on its first request,
and scores every later request's hypotheses against them (segment i against the first request's segment i, as far
as both go: a `zip`) answers as the oracle answers that mixed input (`kept_references`, against `Before.first`, the
first request the process answered, kept past the history's window). Named only where probes confirm it (the
harness's part, `confirmed`): the request with every reference changed, two ways (`EVERY_REFERENCE`), answered
exactly as the record was, and wrongly (a filter: a bug that reads no reference of an empty hypothesis passes it),
then the order: the request made new as the first request of a process started for it, answered otherwise than
here, where the first request's references give its answer (once a process instance). The held-out bug
this came from (references-cached-from-first-request: a Self-BLEU metric's `is_first` flag reading the reference set
once) was named by its counts alone, `other-counting-of-ref_len` and the like, one record at a time.

Statistics kept instead of a counter: a metric object built once whose corpus counts (c, r, the clipped matches and the
totals of every order) each request adds to and nothing clears (a stateful metric's `update` without its `reset`, an
evaluator reused across evaluations: JetBrains-Research/code2seq#112, "Without resetting, metrics accumulate state over
multiple epochs", and allenai/allennlp#1020, titled "reset meteric when done evaluation": the same mistake in other
metrics) answers each request with the corpus score of every request the process answered since it started, its own
included (`accumulated_statistics`). Such a process's last returned statistics are that sum so far, so the harness keeps
them (`Before.returned`: one per number of orders, as a metric object counts a fixed number of orders and an
implementation serving several keeps one for each; unknown once a score came without statistics, cleared when the
process restarts) and the prediction is those plus the oracle's statistics of the request alone: kept only where the
returned statistics are that sum, layer by layer, and the score is the oracle's score of it; named only where the
request made new, sent twice, is answered otherwise the second time, as the first answer's statistics added to the
second request's own give (a stateless implementation answers the two alike). Read from the returned statistics, not
recomputed: the harness computes no oracle statistics for a request it does not judge (a probe, a shrink step), while a
process that accumulates has added each of them to what it returns next. The tenth held-out set's bug of this kind was
caught, and named `nondeterministic` (a request sent again was answered otherwise) before this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, eq
from typing import Any

from oracle.formulas.bleu import Statistics, bleu_from_statistics, effective_reference_length
from oracle.models.outcomes import GOOD_OUTCOMES, Expected
from oracle.models.protocol import ScoreRequest, SmoothingSpec
from oracle.models.results import Classification

from .classify import UNEXPLAINED, is_partial
from .expect import ORACLE_REFUSALS, oracle_expected, oracle_options, scored_expectation
from .judge import Answered, Contract, breaks_zero_rule, first_divergence, judge, token_count_layers
from .mechanisms.counting import OTHER_COUNTING
from .mechanisms.state import ACCUMULATED, EARLIER_ANSWER, EXP_CARRIED, REFERENCES_KEPT

#: The change a probe-confirmed earlier answer carries (`confirmed`): a run names it even on a single record.
CONFIRMED_BY = "confirmed by changing"
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

    @cached_property
    def answer_key(self) -> tuple[Any, ...]:
        """The reply's `_answer_key`, read once (a failing record's scan of the history reads every exchange's)."""
        return _answer_key(self.reply)


@dataclass(frozen=True)
class Before:
    """What the process had answered before a request: its latest requests with their replies (oldest first), the
    halvings exp smoothing made over every request since it started (None: not known), and how many of the latest
    requests belong to the request's own unit of work (its case, or its random example with the example's
    companions and shrinks: the same whichever shard or worker runs it), the first request it answered, and the
    statistics it returned last (`returned`)."""

    earlier: tuple[Exchange, ...] = ()
    halvings: int | None = 0
    own: int = 0
    #: the first request the process answered (None: this is it, or not known)
    first: Exchange | None = None
    #: the statistics the process returned last since it started, one per number of orders, as (orders, statistics)
    #: pairs (None: not known, a score came without statistics; (): none returned yet): what a process whose counts are
    #: never reset has summed so far (`accumulated_statistics`)
    returned: tuple[tuple[int, Any], ...] | None = ()


_TOKEN_COUNT = attrgetter("request.token_count")
_ANSWER_KEY = attrgetter("answer_key")


def relative(contract: Contract) -> Contract:
    """`contract` without its absolute tolerance: under it every tiny score is alike (1e-60 and 1e-30 both pass
    for 0), so two answers, or an answer and a value a parameter gives, are told apart by the relative one."""
    return Contract(rel=contract.rel, abs=0.0)


def same_answer(one: Answered, other: Answered, contract: Contract) -> bool:
    """Whether two replies are the same answer: the same kind; for a score, within the relative tolerance of
    `contract` of each other (and on the same side of the judge's zero rule) with equal statistics; otherwise
    the same text."""
    if one.kind != other.kind or one.kind not in ANSWER_KINDS:
        return False
    if one.kind != "score":
        return one.message == other.message
    if not relative(contract).close(one.score, other.score) or breaks_zero_rule(one.score, other.score):
        return False
    return _same_statistics(one.statistics, other.statistics, contract)


def _answer_key(reply: Answered) -> tuple[Any, ...]:
    """What two replies that are the same answer (`same_answer`) have equal, read without arithmetic: the kind,
    and a score's counts (c, r, matches, totals; None without statistics) or another answer's text. A scan of the
    history compares this first (`Exchange.answer_key`: once per exchange)."""
    if reply.kind != "score":
        return (reply.kind, reply.message) if reply.kind in ANSWER_KINDS else (reply.kind,)
    statistics = reply.statistics
    if statistics is None:
        return ("score", None)
    return "score", statistics.hyp_len, statistics.ref_len, tuple(statistics.matches), tuple(statistics.totals)


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


def _same_hypotheses(request: ScoreRequest, other: ScoreRequest) -> bool:
    """Whether the two requests have the same hypotheses, segment by segment (`differing_parts` names no
    "hypotheses")."""
    mine, theirs = request.segments, other.segments
    return len(mine) == len(theirs) and all(a.hypothesis == b.hypothesis for a, b in zip(mine, theirs, strict=True))


def _right(request: ScoreRequest, reply: Answered, expected: Expected, contract: Contract) -> bool:
    """Whether `reply` answers `request` as `expected` says (the judge's verdict is good)."""
    verdict = judge(expected, reply, contract, max_order=request.max_order, token_counts=token_count_layers(request))
    return verdict.outcome in GOOD_OUTCOMES


def _answered_right(exchange: Exchange, profile: str, contract: Contract) -> bool:
    """Whether the earlier request was answered as the oracle expects of it."""
    try:
        expected = oracle_expected(exchange.request, profile)
    except ORACLE_REFUSALS:
        return False
    return _right(exchange.request, exchange.reply, expected, contract)


def stale_answer(request: ScoreRequest, reply: Answered, before: Before, profile: str, *, expected: Expected,
                 contract: Contract = DEFAULT_CONTRACT, explained: bool = False) -> Classification | None:
    """The state an earlier request left that explains `reply`, an answer to `request` that is wrong by `expected`
    (the oracle's expectation of it): `earlier-answer-returned` (`earlier_answer`, among `before.earlier`), else
    `exp-halvings-carried-over` (`carried_exp_halvings`, from `before.halvings`), else
    `statistics-accumulated-across-requests` (`accumulated_statistics`, from `before.returned`); None when none fits
    (the caller looks for references kept from `before.first` then: `kept_references`, confirmed by probes).
    `explained`: a mechanism of the request alone explains the answer; then an earlier answer is looked for only
    in the request's own unit of work (`before.own`): a stateless bug's answer can equal another request's by
    coincidence, and which requests came before in the process depends on how the run is split (`--shard`,
    `--jobs`); a unit's own requests do not. A request with a plan of metric states (`stateful`) is judged
    otherwise, and is not looked at."""
    if reply.kind not in ANSWER_KINDS or request.stateful is not None or _right(request, reply, expected, contract):
        return None
    earlier = before.earlier[len(before.earlier) - before.own:] if explained else before.earlier
    named = earlier_answer(request, reply, earlier, profile, expected=expected, contract=contract)
    if named is None and before.halvings:
        named = carried_exp_halvings(request, reply, before.halvings, expected=expected, contract=contract)
    if named is None and before.returned:
        named = accumulated_statistics(request, reply, before.returned, profile, expected=expected, contract=contract)
    return named


def earlier_answer(request: ScoreRequest, reply: Answered, earlier: Sequence[Exchange], profile: str, *,
                   expected: Expected, contract: Contract) -> Classification | None:
    """`earlier-answer-returned` when `reply` is exactly the right answer of an earlier, different request in
    `earlier` with the same hypotheses (`earlier_match`)."""
    match = earlier_match(request, reply, earlier, profile, contract=contract)
    if match is None:
        return None
    back, parts, _ = match
    return Classification(
        parts=(EARLIER_ANSWER,), description=_description(parts, back),
        expected=None if expected.rejected else expected.score, scope="all",
        change=(("earlier request", back), ("differs in", ", ".join(parts))))


def earlier_match(request: ScoreRequest, reply: Answered, earlier: Sequence[Exchange], profile: str, *,
                  contract: Contract) -> tuple[int, tuple[str, ...], Exchange] | None:
    """(how many requests back, the parts that differ, the exchange) of the earlier, different request in
    `earlier` with the same hypotheses whose right answer `reply` is exactly, or None. Of several, the one that
    differs in the fewest parts (then the most recent): a refusal's text is often the same for requests that share
    only the reason, and a cache keyed without the system output is no cache of answers, so a request with other
    hypotheses is never taken."""
    candidates = []
    latest_first = earlier[::-1]
    # (the key is equal for every same answer and read once per exchange: most earlier requests are told apart by it
    # alone, without arithmetic, picked out in C)
    same_key = map(eq, map(_ANSWER_KEY, latest_first), repeat(_answer_key(reply)))
    for back, exchange in compress(enumerate(latest_first, start=1), same_key):
        # (another request's hypotheses rule it out before its every part is compared: a stateless run answers many
        # requests alike, 0 against 0)
        if not same_answer(exchange.reply, reply, contract) or not _same_hypotheses(request, exchange.request):
            continue
        parts = differing_parts(request, exchange.request)
        if parts and "hypotheses" not in parts:
            candidates.append((len(parts), back, parts, exchange))
    for _, back, parts, exchange in sorted(candidates, key=lambda c: c[:2]):
        if _answered_right(exchange, profile, contract):
            return back, parts, exchange
    return None


def _lowered(sequence):
    return sequence.lower() if isinstance(sequence, str) else tuple(token.lower() for token in sequence)


def with_references_of(request: ScoreRequest, other: ScoreRequest, *, folded: bool = False) -> ScoreRequest | None:
    """`request`'s hypotheses scored against `other`'s references: segment i against `other`'s segment i, as far as
    both go (a `zip` of the two lists), `folded`: lowercased, as a reader folding case where `other` asked keeps
    them. Where the two are not both token requests, or not both text of one tokenizer, both are tokenized first
    (the references kept as they were read). None where either has a plan of metric states or no segment, or where
    the mix is `request` itself."""
    if request.stateful is not None or other.stateful is not None or not request.segments or not other.segments:
        return None
    if request.tokenize != other.tokenize:
        request, other = request.tokenized(), other.tokenized()
    segments = tuple(segment.model_copy(update={"references": tuple(map(_lowered, kept.references)) if folded
                                                else kept.references})
                     for segment, kept in zip(request.segments, other.segments, strict=False))
    if segments == tuple(request.segments):
        return None
    return request.model_copy(update={"segments": segments})


def kept_references(request: ScoreRequest, reply: Answered, first: Exchange, profile: str, *, expected: Expected,
                    contract: Contract) -> Classification | None:
    """`references-kept-from-first-request` where `reply` answers `request` exactly as the oracle answers its
    hypotheses against the references of `first` (`with_references_of`), the process's first request, as it sent
    them or, where it folded case, lowercased (kept as they were read): its score and its statistics.
    Unconfirmed: the harness confirms it by probes (`confirmed`)."""
    for folded in (False, True) if first.request.lowercase and not request.lowercase else (False,):
        mixed = with_references_of(request, first.request, folded=folded)
        if mixed is None:
            return None
        if not _may_be_right(mixed, reply, profile):
            continue
        try:
            kept = oracle_expected(mixed, profile)
        except ORACLE_REFUSALS:
            continue
        if not kept.rejected and _right(mixed, reply, kept, contract):
            return _kept_references_named(request, mixed, kept, expected, folded)
    return None


def _may_be_right(request: ScoreRequest, reply: Answered, profile: str) -> bool:
    """False where `reply` cannot be the right answer to `request` whatever the oracle's counts of its n-grams: it is no
    score, or the statistics it returned have another c or r than the request's lengths give (a token request's c is
    its hypotheses' tokens and r each segment's reference length by the rule its options name, however they fold or
    clip), which the judge compares first. A failure of a stateless run is tested against the first request's
    references on every record: the oracle's computation on them is spared where the answer's lengths rule them out.
    True wherever that is not known (a text request, a segment without references, options the oracle refuses)."""
    if reply.kind != "score":
        return False
    statistics = reply.statistics
    if statistics is None or request.tokenize is not None:
        return True
    if statistics.hyp_len != sum(len(segment.hypothesis) for segment in request.segments):
        return False
    try:
        options = oracle_options(profile, lowercase=request.lowercase).switched(request.chosen_conventions)
        length = sum(effective_reference_length(len(segment.hypothesis), [len(r) for r in segment.references],
                                                options.reference_length) for segment in request.segments)
    except ORACLE_REFUSALS:
        return True
    return statistics.ref_len == length


def _kept_references_named(request: ScoreRequest, mixed: ScoreRequest, kept: Expected, expected: Expected,
                           folded: bool) -> Classification:
    cut = len(mixed.segments) < len(request.segments)
    return Classification(
        parts=(REFERENCES_KEPT,), value=kept.score, expected=None if expected.rejected else expected.score, scope="all",
        change=(("references of", "the first request to the process" + (", lowercased" if folded else "")),
                ("segments scored", f"{len(mixed.segments)} of {len(request.segments)}")),
        description=("answered exactly as the oracle scores this request's hypotheses against the references of the "
                     "first request the process answered (segment i against its segment i's"
                     + (", lowercased as that request asked" if folded else "")
                     + (", the segments beyond its last left out" if cut else "")
                     + "): references read once and kept for every later request"))


#: A token no generated text uses: a reference that differs from every other.
ODD_TOKEN = "\u27c2"
#: The part references kept from the first request are probed by (`kept_references`): every reference of every
#: segment changed, not one (a stateless bug that reads only some references, the last or the first's tokens,
#: answers a probe that changes one it does not read as it answered the record).
EVERY_REFERENCE = "references, every one,"


def probes(request: ScoreRequest, other: ScoreRequest, parts: Sequence[str],
           methods: Sequence[str]) -> list[tuple[str, ScoreRequest]]:
    """(part, request) pairs: `request` with one of `parts` changed to a value that neither it nor `other` has,
    the hypotheses kept (a cache keyed without that part answers it as it answered `request`; a bug of the
    request alone, most often otherwise), two values a part where it has them. `methods`: the smoothing methods
    the implementation declares."""
    out = []
    for part in parts:
        for changed in _changed(request, part, methods):
            if differing_parts(changed, request) and differing_parts(changed, other):
                out.append((part, changed))
    return out


def _with_tokens(text_or_tokens, *tokens: str):
    """A hypothesis or reference with `tokens` added to its end (a word of text, or a token)."""
    if isinstance(text_or_tokens, str):
        return " ".join((text_or_tokens, *tokens)) if text_or_tokens else " ".join(tokens)
    return (*text_or_tokens, *tokens)


def _every_reference_changed(request: ScoreRequest) -> list[ScoreRequest]:
    """`request` with every reference of every segment replaced, two ways: by its segment's hypothesis with a token
    of no text added (r one more than c, every hypothesis n-gram matched), and by that token alone (nothing
    matched, r = 1). Whatever references a stateless implementation reads, the two change its answer, each
    otherwise; references kept from an earlier request answer both alike."""
    alone: str | tuple[str, ...] = ODD_TOKEN if isinstance(request.segments[0].hypothesis, str) else (ODD_TOKEN,)
    ways = (lambda segment: _with_tokens(segment.hypothesis, ODD_TOKEN), lambda segment: alone)
    return [request.model_copy(update={"segments": tuple(
        segment.model_copy(update={"references": tuple(way(segment) for _ in segment.references)})
        for segment in request.segments)}) for way in ways]


def _changed(request: ScoreRequest, part: str, methods: Sequence[str]) -> list[ScoreRequest]:
    if part == EVERY_REFERENCE:
        return _every_reference_changed(request)
    if part == "references":
        first = request.segments[0]
        hypothesis = first.hypothesis
        # the hypothesis with one and with two tokens of no text added: a reference that changes r and the
        # matches whatever the hypothesis (an empty one too), and a tie between references is not a tie twice
        replacements = [f"{hypothesis} {ODD_TOKEN}" if isinstance(hypothesis, str) else (*hypothesis, ODD_TOKEN),
                        f"{hypothesis} {ODD_TOKEN} {ODD_TOKEN}" if isinstance(hypothesis, str)
                        else (*hypothesis, ODD_TOKEN, ODD_TOKEN)]
        return [request.model_copy(update={"segments": (
            first.model_copy(update={"references": (replacement, *first.references[1:])}), *request.segments[1:])})
            for replacement in replacements]
    if part == "weights":
        orders = [n for n in (len(request.weights) + 1, len(request.weights) - 1, len(request.weights) + 2) if n > 0]
        return [request.model_copy(update={"weights": (1.0 / n,) * n}) for n in orders[:2]]
    if part == "lowercase":
        return [request.model_copy(update={"lowercase": not request.lowercase})]
    if part == "level" and len(request.segments) == 1:
        return [request.model_copy(update={"level": "sentence" if request.level == "corpus" else "corpus"})]
    if part == "smoothing":
        others = [m for m in methods if m != request.smoothing.method][:2]
        return [request.model_copy(update={"smoothing": SmoothingSpec.of(m)}) for m in others]
    return []


#: Probes an earlier answer from another case or example needs, each answered as the record was and wrongly:
#: one can meet a stateless bug's answer by coincidence again (a reference changed so that a tie is a tie again).
PROBES_NEEDED = 2


def confirmed(named: Classification, sent: Sequence[tuple[str, ScoreRequest, Answered]], reply: Answered,
              profile: str, contract: Contract) -> Classification | None:
    """`named` (an earlier answer from another unit of work) confirmed by probes: `sent`, (part, probe, its
    answer) for PROBES_NEEDED probes (`probes`), each answered exactly as the record was, and wrongly; None
    otherwise."""
    if len(sent) < PROBES_NEEDED:
        return None
    for _, probe, answer in sent:
        if not same_answer(answer, reply, contract):
            return None
        try:
            expected = oracle_expected(probe, profile)
        except ORACLE_REFUSALS:
            return None
        if _right(probe, answer, expected, contract):
            return None
    parts = ", ".join(dict.fromkeys(part for part, _, _ in sent))
    return named.model_copy(update={
        "description": named.description + f"; the same request with its {parts} changed once more ({len(sent)} "
                                           "probes sent to confirm it) got that answer too",
        "change": (*named.change, (CONFIRMED_BY, parts))})


#: What a fresh-key probe's change is named in its confirmation (`confirmed_by_a_new_key`).
NEW_HYPOTHESES = "hypotheses, to ones never asked before"


def with_new_hypotheses(request: ScoreRequest, mark: int | str = 0) -> ScoreRequest:
    """`request` with a token no generated text uses (`ODD_TOKEN`, followed by `mark`: a number the caller gives each
    such probe to one process once, so that no earlier probe asked it either) added to the end of every hypothesis: a
    request no earlier one asked (a cache keyed on anything holding the hypotheses has no answer for it), which a bug
    of the request alone answers as wrongly as `request` wherever the token leaves what it gets wrong in place (it
    matches nothing)."""
    token = f"{ODD_TOKEN}{mark}"
    return request.model_copy(update={"segments": tuple(
        segment.model_copy(update={"hypothesis": f"{segment.hypothesis} {token}"
                                   if isinstance(segment.hypothesis, str) else (*segment.hypothesis, token)})
        for segment in request.segments)})


def confirmed_by_a_new_key(named: Classification, probe: ScoreRequest, answer: Answered, profile: str,
                           contract: Contract) -> Classification | None:
    """`named` (an earlier answer of the request's own unit of work, where a mechanism of the request alone explains
    the answer as well) confirmed by `probe` (`with_new_hypotheses`) and its `answer`: answered right, as a cache
    answers a request it has no answer for; a stateless bug that ignores a part answers it as wrongly as the record
    (the issue-36 coincidence: a series' step that differs from the step before only in the part the bug ignores).
    None otherwise."""
    try:
        expected = oracle_expected(probe, profile)
    except ORACLE_REFUSALS:
        return None
    if not _right(probe, answer, expected, contract):
        return None
    return named.model_copy(update={
        "description": named.description + "; the same request with its hypotheses made new (a token no request had "
                                           "added to each) was answered right: a cache's key misses there, a bug of "
                                           "the request alone would not",
        "change": (*named.change, (CONFIRMED_BY, NEW_HYPOTHESES))})


#: What the order probes' confirmation names (`confirmed_in_order`).
IN_ORDER = "the order: the request alone answered otherwise than after the earlier one"


@dataclass(frozen=True)
class OrderProbes:
    """The requests that tell one record's process state apart from every stateless answer (`order_probes`), each kept
    out of the history: `alone`, sent first, ending with the record's request made new (`with_new_hypotheses`, marked
    "a"), where what sets the state did not come just before it; then `after`, what sets the state (none where
    `alone` itself moves it) ending with the same request made new the other way (marked "b": a token as long,
    matching nothing either). `fresh`: `alone` is sent to a process started for it, where nothing came before it (a
    process's first request is only another in a new process). A stateless deterministic implementation answers the
    two last requests alike: they are the same request but for a token of the same length that matches nothing, and
    what came before is no part of a stateless answer."""

    alone: tuple[ScoreRequest, ...]
    after: tuple[ScoreRequest, ...]
    fresh: bool = False


@dataclass(frozen=True)
class Seen:
    """What the prediction of a state's answer after (`OrderProbed.predicted`) reads besides the answers: the tally of
    exp smoothing's halvings before the last request was answered (None: not known), the first request the process
    answered (None: not known), the judged profile and the numeric contract, and the statistics it returned last before
    the last request."""

    halvings: int | None
    first: Exchange | None
    profile: str
    contract: Contract = DEFAULT_CONTRACT
    #: the statistics the process returned last before the last request (`Before.returned`; None: not known)
    returned: tuple[tuple[int, Any], ...] | None = ()


@dataclass(frozen=True)
class OrderProbed:
    """How one process state is confirmed by the order of requests (`ORDER_PROBED`): `probes` builds the record's
    order probes (from the state named, the request, what the process had answered before it and a mark: None where
    none can be built), `predicted` says whether the last answer after is the one the state gives (the answers to
    `after`, in order, and what else was `Seen`), and `words` is what a confirmation adds to the record's
    description."""

    probes: Callable[[Classification, ScoreRequest, Before, int], OrderProbes | None]
    predicted: Callable[[OrderProbes, Sequence[Answered], Seen], bool]
    words: str


def order_probes(named: Classification, request: ScoreRequest, before: Before, mark: int) -> OrderProbes | None:
    """The order probes that confirm `named`, a process state (`ORDER_PROBED`), on `request`; None where its name has no
    entry there (a process state without one is never confirmed: never named) or none can be built."""
    probed = ORDER_PROBED.get(named.name)
    return None if probed is None else probed.probes(named, request, before, mark)


def confirmed_in_order(named: Classification, alone: Answered, after: Sequence[Answered], *, predicted: bool,
                       contract: Contract) -> Classification | None:
    """The one rule every process state is named by (issue 36: a state only with a probe no stateless implementation
    passes): `named` where its order probes (`order_probes`) were answered so that the same request, alone (`alone`),
    got another answer than after what sets the state (the last of `after`), and that answer is the one the state
    gives (`predicted`, by the name's `OrderProbed.predicted`). A stateless deterministic implementation answers the
    two alike, whatever else it gets wrong, and is never confirmed. None otherwise."""
    probed = ORDER_PROBED.get(named.name)
    if probed is None or not after or alone.kind not in ANSWER_KINDS or not predicted \
            or same_answer(after[-1], alone, contract):
        return None
    return named.model_copy(update={"description": named.description + probed.words,
                                    "change": (*named.change, (CONFIRMED_BY, IN_ORDER))})


def earlier_request(named: Classification, before: Before) -> ScoreRequest:
    """The earlier request whose answer `named` (`earlier-answer-returned`, found among the latest of
    `before.earlier`) says was returned: its change counts how many requests back."""
    back = int(dict(named.change)["earlier request"] or 0)
    return before.earlier[len(before.earlier) - back].request


def unmatched_orders(request: ScoreRequest, statistics: Any) -> list[int]:
    """The orders (0-based, up to the request's) with n-grams and no match: those exp smoothing halves."""
    orders = min(len(request.weights), len(statistics.matches), len(statistics.totals))
    return [n for n in range(orders) if statistics.totals[n] > 0 and statistics.matches[n] == 0]


def halvings(exchange: Exchange, profile: str) -> int | None:
    """How many halvings a request's exp smoothing made: its orders with n-grams and no match, by the counts it
    answered (None when it answered a score without them); with a plan of metric states, each state's scores of
    the plan's earlier corpora too (`previous`, by the oracle's counts under `profile`: those are not answered);
    0 for a request not exp-smoothed or not scored. Called once a reply (`Channel.collect`), so a request's earlier
    corpora are scored once for it; nothing is kept between requests: few of a run's requests have earlier corpora,
    and fewer share one."""
    request, reply = exchange.request, exchange.reply
    if request.smoothing.method != "exp" or reply.kind != "score" or reply.statistics is None:
        return 0 if request.smoothing.method != "exp" or reply.kind != "score" else None
    made = len(unmatched_orders(request, reply.statistics))
    plan = request.stateful
    if plan is None or not plan.previous:
        return made
    for corpus in plan.previous:
        scored = request.model_copy(update={"segments": corpus, "level": "corpus", "stateful": None})
        expected = scored_expectation(scored, profile)
        if expected is None:
            return None
        made += len(plan.shards) * len(unmatched_orders(request, expected.statistics))
    return made


def carried_exp_halvings(request: ScoreRequest, reply: Answered, carried: int, *, expected: Expected,
                         contract: Contract) -> Classification | None:
    """`exp-halvings-carried-over` when `reply`'s score is the oracle's with the exp halvings continued from the
    `carried` ones of the earlier requests (its statistics, if any, the oracle's)."""
    statistics, score = expected.statistics, expected.score
    if (request.smoothing.method != "exp" or reply.kind != "score" or expected.rejected or statistics is None
            or score is None or carried <= 0):
        return None
    if reply.statistics is not None and first_divergence(statistics, reply.statistics, contract,
                                                         max_order=request.max_order) is not None:
        return None
    weight = sum(float(request.weights[n]) for n in unmatched_orders(request, statistics))
    if not weight:
        return None
    value = float(score) * 2.0 ** (-carried * weight)
    if not relative(contract).close(reply.score, value) or breaks_zero_rule(reply.score, value):
        return None
    return Classification(
        parts=(EXP_CARRIED,), value=value, expected=float(score), scope="all",
        change=(("halvings carried over", carried),),
        description=f"exp smoothing's halvings continue from the {carried} the earlier requests to this process "
                    f"made (the k-th order without a match gets 1/2^({carried}+k) matches, not 1/2^k): a counter "
                    "never reset between requests")


def summed_statistics(one: Any, other: Any) -> Statistics | None:
    """The counts of `one` and `other` added (c, r, and each order's matches and totals), or None where they have
    another number of orders or the sum is no statistics the formulas take (an implementation's returned counts can
    have more matches than n-grams: a total counted one short)."""
    if len(one.matches) != len(other.matches) or len(one.totals) != len(other.totals):
        return None
    try:
        return Statistics(one.hyp_len + other.hyp_len, one.ref_len + other.ref_len,
                          tuple(a + b for a, b in zip(one.matches, other.matches, strict=True)),
                          tuple(a + b for a, b in zip(one.totals, other.totals, strict=True)))
    except ORACLE_REFUSALS:  # (the formulas refuse more matches than totals)
        return None


def _counts(statistics: Any) -> tuple[Any, ...]:
    return statistics.hyp_len, statistics.ref_len, tuple(statistics.matches), tuple(statistics.totals)


def accumulated_statistics(request: ScoreRequest, reply: Answered, returned: Sequence[tuple[int, Any]], profile: str,
                           *, expected: Expected, contract: Contract) -> Classification | None:
    """`statistics-accumulated-across-requests` where `reply` returned the statistics the process returned last for
    as many orders (`returned`, `Before.returned`: under the state, the sum of every earlier request's) plus the
    oracle's statistics of `request` alone (`expected`'s), count by count, and a score the oracle's score of that sum
    (the request's weights, smoothing, level and options) within the relative tolerance; None otherwise, and where
    nothing was returned before for as many orders, or only counts of 0 (the sum is the request's own: no state
    shows)."""
    own = expected.statistics
    if (reply.kind != "score" or reply.statistics is None or expected.rejected or own is None
            or request.stateful is not None):
        return None
    before = dict(returned).get(len(own.matches))
    if before is None or not any(_counts(before)[:2]) and not any(before.totals):
        return None
    summed = summed_statistics(before, own)
    if summed is None or _counts(reply.statistics)[:2] != _counts(summed)[:2] \
            or tuple(reply.statistics.matches[:len(own.matches)]) != summed.matches \
            or tuple(reply.statistics.totals[:len(own.totals)]) != summed.totals:
        return None
    try:
        options = oracle_options(profile, lowercase=request.lowercase).switched(request.chosen_conventions)
        value = float(bleu_from_statistics(summed, weights=request.weights, options=options,
                                           smoothing=request.smoothing.to_convention(), level=request.level).score)
    except ORACLE_REFUSALS:
        return None
    if not relative(contract).close(reply.score, value) or breaks_zero_rule(reply.score, value):
        return None
    return Classification(
        parts=(ACCUMULATED,), value=value, expected=expected.score, scope="all",
        change=(("statistics added to", f"c {before.hyp_len}, r {before.ref_len}, matches {list(before.matches)}, "
                                        f"totals {list(before.totals)}"),),
        description=(f"answered with the statistics the process returned last (c {before.hyp_len}, r {before.ref_len}, "
                     f"matches {list(before.matches)}, totals {list(before.totals)}) plus this request's own, and "
                     "the score of that sum: corpus counts updated on every request and never reset between "
                     "requests"))


def _description(parts: tuple[str, ...], back: int) -> str:
    which = "the request just before" if back == 1 else f"the request {back} requests before"
    differs = " and ".join(parts) if len(parts) <= 2 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"answered exactly as {which} to the same process, which differs only in {differs} and was answered "
            f"right: a cache keyed without {'it' if len(parts) == 1 else 'them'} returns an earlier answer")


def answered_right_before(request: ScoreRequest, before: Before, expected: Expected, contract: Contract) -> bool:
    """Whether this very request (its sequence number aside) was answered with the oracle's score earlier in the
    process's history: then no mechanism of the request alone explains a different answer to it now."""
    if expected.rejected or expected.score is None:
        return False
    close = relative(contract).close
    # (the earlier requests of as many tokens (each request's count kept), picked out in C, then the score: comparing a
    # request with every earlier one cost seconds a run where inputs are long, and a failing run's every record scans
    # the whole history)
    earlier = before.earlier
    for exchange in compress(earlier, map(eq, map(_TOKEN_COUNT, earlier), repeat(request.token_count))):
        reply = exchange.reply
        if (reply.kind == "score" and close(reply.score, expected.score)
                and not breaks_zero_rule(reply.score, expected.score)
                and exchange.request.with_seq(request.seq) == request):
            return True
    return False


def with_stale(classification: Classification, stale: Classification | None, *,
               request_alone_refuted: bool = False) -> Classification:
    """A record's root cause with the state an earlier request left (`stale_answer`) taken into account: that
    explanation itself where the request alone explains nothing (or only what is known: a partial explanation,
    `mechanisms.combination.is_partial`); beside a mechanism of the request alone (a name with its change), an
    earlier answer among what also fits only where probes confirmed it (`confirmed`, `confirmed_by_a_new_key`):
    unconfirmed, it is one number met by one record, which a stateless bug that ignores a part meets whenever an
    earlier request (a series' step) differed only in that part, and the mechanism is the stateless explanation;
    otherwise (carried halvings, or beside a pseudo-class such as a refusal of a valid input) among what also fits:
    a run names the one that fits all its records (`oracle.diagnose.cover`). (Every state given here passed its order
    probes, `confirmed_in_order`, unless this very request was answered right before; carried halvings beside a
    mechanism of the request alone stay among what also fits, as a run of a counter never reset needs them on those
    records.) A state probes confirmed beside a name that states only
    what is known of the difference (every part `other-counting-of-<layer>`: which statistic differs, not why) is the
    name, that one among what also fits: the probes are evidence of a cause, the counts' difference is none."""
    if stale is None:
        return classification
    # (what is known is not a mechanism; and a mechanism of the request alone is refuted where the process answered
    # this very request right before: `answered_right_before`)
    if classification.name == UNEXPLAINED or is_partial(classification.parts) or request_alone_refuted:
        return stale.model_copy(update={"fit_parts": classification.fit_parts})
    if is_confirmed(stale) and all(part.startswith(OTHER_COUNTING) for part in classification.parts):
        return stale.model_copy(update={"fit_parts": (classification.parts, *classification.fit_parts)})
    if classification.change and stale.name == EARLIER_ANSWER and not is_confirmed(stale):
        return classification
    return classification.model_copy(update={"fit_parts": (*classification.fit_parts, stale.parts)})


def is_confirmed(named: Classification) -> bool:
    """Whether a state's name carries its probes' confirmation (`confirmed`: the change `CONFIRMED_BY`)."""
    return any(key == CONFIRMED_BY for key, _ in named.change)


def _expected_or_none(request: ScoreRequest, profile: str) -> Expected | None:
    try:
        return oracle_expected(request, profile)
    except ORACLE_REFUSALS:
        return None


def _after_the_earlier_request(named: Classification, request: ScoreRequest, before: Before,
                               mark: int) -> OrderProbes | None:
    """`earlier-answer-returned`: the request alone, then the earlier request whose answer was returned and the
    request again (a cache keyed without the parts the two differ in misses on the first, its own answer, and hits on
    the last, the earlier one's)."""
    earlier = earlier_request(named, before)
    return OrderProbes(alone=(with_new_hypotheses(request, f"{mark}a"),),
                       after=(with_new_hypotheses(earlier, f"{mark}b"), with_new_hypotheses(request, f"{mark}b")))


def _after_itself(named: Classification, request: ScoreRequest, before: Before, mark: int) -> OrderProbes | None:
    """`exp-halvings-carried-over`: the request alone, then again: the first answer's own orders without a match moved
    the counter (the record's request had such orders, and a token that matches nothing keeps them), so the second is
    the first's halvings further on. `statistics-accumulated-across-requests` alike: the second answer's statistics are
    the first's plus its own."""
    return OrderProbes(alone=(with_new_hypotheses(request, f"{mark}a"),),
                       after=(with_new_hypotheses(request, f"{mark}b"),))


def _in_a_new_process(named: Classification, request: ScoreRequest, before: Before,
                      mark: int) -> OrderProbes | None:
    """`references-kept-from-first-request`: the request alone, as the first request of a process started for it (it
    keeps its own references there), then in this process, after its first request (whose references it kept)."""
    return OrderProbes(alone=(with_new_hypotheses(request, f"{mark}a"),),
                       after=(with_new_hypotheses(request, f"{mark}b"),), fresh=True)


def _the_earlier_answer(order: OrderProbes, answers: Sequence[Answered], seen: Seen) -> bool:
    """The request after the earlier one answered exactly as the earlier one was."""
    return len(answers) == 2 and same_answer(answers[-1], answers[0], seen.contract)


def _the_halvings_carried(order: OrderProbes, answers: Sequence[Answered], seen: Seen) -> bool:
    """The request after answered as the oracle with the halvings the process had made before it (`seen.halvings`,
    which counts the request alone's) continued (`carried_exp_halvings`)."""
    expected = _expected_or_none(order.after[-1], seen.profile)
    return bool(seen.halvings) and expected is not None and carried_exp_halvings(
        order.after[-1], answers[-1], seen.halvings or 0, expected=expected, contract=seen.contract) is not None


def _the_statistics_summed(order: OrderProbes, answers: Sequence[Answered], seen: Seen) -> bool:
    """The request after answered with the statistics the process returned just before it (`seen.returned`: the
    request alone's) plus its own, scored as that sum (`accumulated_statistics`)."""
    expected = _expected_or_none(order.after[-1], seen.profile)
    return bool(seen.returned) and expected is not None and accumulated_statistics(
        order.after[-1], answers[-1], seen.returned or (), seen.profile, expected=expected,
        contract=seen.contract) is not None


def _the_first_references(order: OrderProbes, answers: Sequence[Answered], seen: Seen) -> bool:
    """The request after answered as the oracle scores it against the references of the process's first request
    (`kept_references`)."""
    expected = _expected_or_none(order.after[-1], seen.profile)
    return seen.first is not None and expected is not None and kept_references(
        order.after[-1], answers[-1], seen.first, seen.profile, expected=expected, contract=seen.contract) is not None


_WHAT_CAME_BEFORE = "what came before changed its answer, which no stateless implementation does"
#: Each process state's order probes (`mechanisms.process_state_names`: a test holds that every one has an entry; a
#: name without one is never confirmed, so never named): what is sent before the request again, and what the answer
#: after it must be. One rule decides every one (`confirmed_in_order`).
ORDER_PROBED: dict[str, OrderProbed] = {
    EARLIER_ANSWER: OrderProbed(
        _after_the_earlier_request, _the_earlier_answer,
        "; sent again after the earlier request (the hypotheses of both made new), the request was answered as the "
        f"earlier one, and alone otherwise: {_WHAT_CAME_BEFORE}"),
    EXP_CARRIED: OrderProbed(
        _after_itself, _the_halvings_carried,
        "; sent twice more (its hypotheses made new each time), the request was answered otherwise the second time, "
        f"as the first one's halvings added to the counter give: {_WHAT_CAME_BEFORE}"),
    REFERENCES_KEPT: OrderProbed(
        _in_a_new_process, _the_first_references,
        "; sent as the first request of a process started for it (its hypotheses made new), the request was answered "
        "otherwise than in this process, where the first request's references give its answer: "
        f"{_WHAT_CAME_BEFORE}"),
    ACCUMULATED: OrderProbed(
        _after_itself, _the_statistics_summed,
        "; sent twice more (its hypotheses made new each time), the request was answered otherwise the second time, "
        f"with the first answer's statistics added to its own: {_WHAT_CAME_BEFORE}"),
}


__all__ = ["ACCUMULATED", "CONFIRMED_BY", "EVERY_REFERENCE", "IN_ORDER", "NEW_HYPOTHESES", "ORDER_PROBED",
           "PROBES_NEEDED", "Before", "EARLIER_ANSWER", "EXP_CARRIED", "Exchange", "OrderProbed", "OrderProbes",
           "REFERENCES_KEPT", "Seen", "accumulated_statistics", "answered_right_before", "carried_exp_halvings",
           "confirmed", "confirmed_by_a_new_key", "confirmed_in_order", "differing_parts", "earlier_answer",
           "earlier_match", "earlier_request", "halvings", "is_confirmed", "kept_references", "order_probes", "probes",
           "same_answer", "stale_answer", "summed_statistics", "unmatched_orders", "with_new_hypotheses",
           "with_references_of", "with_stale"]
