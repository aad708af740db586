"""Stateless implementations a process state was named on, and the one rule that names a state (issue 36).

Two stateless, deterministic fakes, each a real mechanism whose answer meets a state's by coincidence on one record
(written before the run, with what must be named: no state, in name or among what fits):

- `ExpCounterStartsAtOne`: NIST's exp smoothing with its halving counter started at 1, not 0, on every request (the
  k-th order without a match gets 1/2^(k+1) matches): an answer `exp-halvings-carried-over` names wherever the
  process's earlier requests made one halving, as a counter never reset would have carried.
- `EmptyHypothesisUnread`: a segment whose hypothesis is empty is scored without reading its references (c = r = 0:
  an early return before the reference lengths), an answer `references-kept-from-first-request` names where the
  process's first request had an empty reference: the probes with every reference changed are answered alike (the
  references are not read) and wrongly.

Both are unigram/bigram BLEU written out here from Papineni et al. section 2 (clipped counts, r the closest reference
length, ties to the shorter, BP = e^(1 - r/c) for c <= r, a zero weight switches its order off), so every value below
is derived by hand:

- E0: "a b" against "a c", weights (1, 0), exp: p1 = 1/2; the bigram "a b" matches nothing (one halving, weight 0):
  BLEU = p1 = 0.5, right whatever the counter. The process's tally after it: 1 halving.
- E: "a b" against "a c", weights (1/2, 1/2), exp: p1 = 1/2, p2 = 1/2^1 of 1: BLEU = sqrt(1/4) = 0.5; with the counter
  started at 1, p2 = 1/4: sqrt(1/8) = 0.35355339059327373, which is also 0.5 with the 1 halving E0 made carried over.
- The order probes of E (a token no request had added to the hypothesis: "a b \u27c2"): p1 = 1/3, no bigram of two
  matches, the counter started at 1: p2 = 1/4 / 2 = 1/8, BLEU = sqrt(1/24), alone and again alike (stateless).
- F0: "a" against ("", "a"): c = 1, r = 1 (the closest), p1 = 1: 1.0. K0: "" against ("b c",): c = 0, r = 2, BLEU 0;
  unread, c = r = 0: NaN, which is what the oracle gives K0's (empty) hypothesis against F0's references, "" and "a"
  (r = 0, the closest to c = 0). The probes with every reference changed ("\u27c2", both ways, the hypothesis being
  empty): c = 0, r = 1, BLEU 0, answered NaN (unread) alike. The order probes ("\u27c2..." against "b c"): c = 1,
  r = 2, nothing matches, 0, alone and again alike.

A stateful twin of each (the same arithmetic with the counter kept between requests, with the first request's
references kept) is named: the rule is no wall against a state that is there. So is a running total of the counts
never reset (`statistics-accumulated-across-requests`), which both stateless fakes must not be named by either:

- A1: "a b" against "a b", weights (1/2, 1/2): c = r = 2, matches (2, 1) of (2, 1): 1.0, right. A2: "a c" against
  "a d": c = r = 2, matches (1, 0) of (2, 1), no smoothing: 0. Added to A1's: c = r = 4, matches (3, 1) of (4, 2),
  BP 1, sqrt(3/4 * 1/2) = sqrt(3/8) = 0.6123724356957945. Its order probes (A2 made new, "a c ⟂...": c = 3,
  r = 2, matches (1, 0) of (3, 2)) are each answered with every earlier count added: otherwise the second time.
- `PerReference` (stateless: each count added once per reference, the score unchanged): A1 (one reference) is right;
  A3, "a b" against "a b" twice, is answered c = r = 4, matches (4, 2) of (4, 2), 1.0 where c = r = 2, matches (2, 1)
  of (2, 1) are right: exactly A1's returned counts plus A3's own, scored as that sum (1.0), a state's answer by
  coincidence. Its order probes (A3 made new: c = 3 twice over, alone and again) are answered alike: not named.

Holds: oracle.diagnose.stale, oracle.harness.diagnosis
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from oracle.adapters.base import Implementation, ScoreAnswer
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.stale import DEFAULT_CONTRACT, accumulated_statistics
from oracle.harness.events import read_results
from oracle.harness.gate import BaselineTracker
from oracle.harness.inprocess import InProcessImplementation
from oracle.harness.replies import Reply
from oracle.harness.session import SessionSettings, run_session
from oracle.models.protocol import ScoreReply, ScoreRequest, Segment, SmoothingSpec
from oracle.models.results import RunSettings

STATE_NAMES = ("earlier-answer-returned", "exp-halvings-carried-over", "references-kept-from-first-request",
               "statistics-accumulated-across-requests")


def request(hypothesis: str, references: tuple[str, ...], weights: tuple[float, ...] = (1.0,),
            smoothing: str = "none") -> ScoreRequest:
    segment = Segment(hypothesis=tuple(hypothesis.split()), references=tuple(tuple(r.split()) for r in references))
    return ScoreRequest(level="sentence", segments=(segment,), weights=weights, smoothing=SmoothingSpec.of(smoothing))


E0 = request("a b", ("a c",), (1.0, 0.0), "exp")
E = request("a b", ("a c",), (0.5, 0.5), "exp")
F0 = request("a", ("", "a"))
K0 = request("", ("b c",))
A1 = request("a b", ("a b",), (0.5, 0.5))
A2 = request("a c", ("a d",), (0.5, 0.5))
A3 = request("a b", ("a b", "a b"), (0.5, 0.5))


class SmallBleu(Implementation):
    """Papineni BLEU of one segment up to bigrams, NIST's exp smoothing with its halving counter starting at `start`
    (0 is right), carried between requests where `carried`; `read_once`: the first request's references kept for every
    later one; `empty_unread`: an empty hypothesis's references not read (c = r = 0); `accumulated`: the counts (c, r,
    matches, totals) of every request added to a running total never reset, the score computed from it;
    `per_reference`: every count added once per reference (a loop over the references adding the segment's counts in
    each pass: stateless, and the score unchanged, the ratios being the same)."""

    name, version = "small-bleu", "0"
    capabilities = {"levels": ["sentence"], "weights": "any", "max_order": 2, "smoothing": ["none", "exp"],
                    "statistics": True, "lowercase": False}

    def __init__(self, *, start: int = 0, carried: bool = False, read_once: bool = False,
                 empty_unread: bool = False, accumulated: bool = False, per_reference: bool = False) -> None:
        self.start, self.carried, self.read_once, self.empty_unread = start, carried, read_once, empty_unread
        self.accumulated, self.per_reference = accumulated, per_reference
        self.running: dict[int, tuple[int, int, list[int], list[int]]] = {}
        self.halvings = 0
        self.first_references: tuple | None = None

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        [segment] = request.segments
        hypothesis, references = list(segment.hypothesis), [list(r) for r in segment.references]
        if self.read_once:
            self.first_references = self.first_references or tuple(map(tuple, references))
            references = [list(r) for r in self.first_references]
        if self.empty_unread and not hypothesis:
            references = []
        c = len(hypothesis)
        lengths = sorted(len(r) for r in references)
        r = min(lengths, key=lambda n: (abs(n - c), n)) if lengths else 0
        matches, totals = [], []
        for n in range(1, len(request.weights) + 1):
            grams = Counter(tuple(hypothesis[i:i + n]) for i in range(len(hypothesis) - n + 1))
            most = Counter()
            for reference in references:
                for gram, count in Counter(tuple(reference[i:i + n]) for i in range(len(reference) - n + 1)).items():
                    most[gram] = max(most[gram], count)
            matches.append(sum(min(count, most[gram]) for gram, count in grams.items()))
            totals.append(sum(grams.values()))
        if self.per_reference:
            k = len(references)
            c, r, matches, totals = k * c, k * r, [k * m for m in matches], [k * t for t in totals]
        if self.accumulated:
            c0, r0, m0, t0 = self.running.get(len(matches), (0, 0, [0] * len(matches), [0] * len(totals)))
            c, r = c0 + c, r0 + r
            matches, totals = [a + b for a, b in zip(m0, matches, strict=True)], [
                a + b for a, b in zip(t0, totals, strict=True)]
            self.running[len(matches)] = (c, r, matches, totals)
        statistics = {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}
        if c == 0:
            return ScoreAnswer(math.nan if r == 0 else 0.0, {**statistics, "bp": math.nan if r == 0 else 0.0})
        bp = 1.0 if c > r else math.exp(1 - r / c)
        j = self.halvings if self.carried else self.start
        smoothed = []
        for matched, total in zip(matches, totals, strict=True):
            if request.smoothing.method == "exp" and total and not matched:
                j += 1
                matched = 1 / 2 ** j
            smoothed.append((matched, total))
        if self.carried:
            self.halvings = j
        if any(weight and (not total or not matched) for weight, (matched, total) in zip(request.weights, smoothed,
                                                                                          strict=True)):
            return ScoreAnswer(0.0, {**statistics, "bp": bp})
        log_sum = sum(weight * math.log(matched / total)
                      for weight, (matched, total) in zip(request.weights, smoothed, strict=True) if weight)
        return ScoreAnswer(bp * math.exp(log_sum), {**statistics, "bp": bp})


class StartedAnew(InProcessImplementation):
    """An in-process transport that can start another instance of its implementation (`make`), as a process can."""

    def __init__(self, make: Callable[[], Implementation]) -> None:
        super().__init__(make())
        self.make = make

    def started_anew(self) -> StartedAnew:
        return StartedAnew(self.make)


def second_record(make: Callable[[], Implementation], first: ScoreRequest, second: ScoreRequest, tmp_path):
    """The record of `second`, sent after `first` to one instance of `make()` (each its own unit of work)."""
    settings = SessionSettings(command="small-bleu", report=str(tmp_path), timings=False)

    def work(session) -> None:
        session.run_replay([("first", first)])
        session.channel.start_unit()
        session.run_replay([("second", second)])

    run_session(settings, [], recorded=RunSettings(verb="check"), tracker=BaselineTracker(), total=2, work=work,
                report_dir=tmp_path, transport=StartedAnew(make))
    records = {r.id: r for r in read_results(tmp_path / "results.jsonl").records}
    assert records["first"].outcome.value == "pass", records["first"]
    assert records["second"].outcome.value == "fail", records["second"]
    return records["second"]


def named_states(record) -> list[str]:
    """The state names a record carries, as its name or among what fits (each `+`-joined part)."""
    named = record.classification
    assert named is not None
    return [part.strip() for cause in (named.name, *named.fits) for part in cause.split("+")
            if part.strip() in STATE_NAMES]


def test_a_stateless_exp_counter_started_at_one_is_named_by_no_state(tmp_path) -> None:
    """E0 (one halving, weight 0: right) then E answered 0.35355 (the counter started at 1): the 0.5 E's right answer
    divided by 2^(1 x 1/2), as one halving carried over gives; the order probes (E made new, alone and again) are
    answered alike, sqrt(1/24): what came before changed nothing. No state is named."""
    record = second_record(lambda: SmallBleu(start=1), E0, E, tmp_path)
    assert math.isclose(record.actual.score, 0.35355339059327373, rel_tol=1e-12)
    assert named_states(record) == []


def test_a_counter_never_reset_is_named_by_the_halvings_carried_over(tmp_path) -> None:
    """The same arithmetic with the counter kept between requests: E after E0 is 0.35355 as well (E0's halving carried),
    and the order probes are answered otherwise (E made new alone after the resend's halving: p2 = 1/2^4 / 2, then
    again one halving further, 1/2^5 / 2, as 4 halvings carried give): `exp-halvings-carried-over`, among what fits
    (the counter numbered by the order, `smoothing-counter-is-order-index`, fits E alone as well)."""
    record = second_record(lambda: SmallBleu(carried=True), E0, E, tmp_path)
    assert "exp-halvings-carried-over" in named_states(record)


def test_counts_never_reset_are_named_by_the_statistics_accumulated(tmp_path) -> None:
    """A1 then A2 by an implementation whose running counts are never reset: A2 answered with A1's counts added,
    (4, 4, (3, 1), (4, 2)), sqrt(3/8) where 0 is right; sent again it is answered otherwise (its counts added once
    more), which the state explains (not `nondeterministic`), and the order probes confirm it."""
    record = second_record(lambda: SmallBleu(accumulated=True), A1, A2, tmp_path)
    assert math.isclose(record.actual.score, math.sqrt(3 / 8), rel_tol=1e-12)
    assert (record.actual.statistics.hyp_len, record.actual.statistics.ref_len) == (4, 4)
    assert record.classification.name == "statistics-accumulated-across-requests", record.classification


def test_a_stateless_count_per_reference_is_named_by_no_state(tmp_path) -> None:
    """A1 then A3 by an implementation that adds every count once per reference: A3's counts doubled are A1's plus its
    own, as counts never reset give, but the order probes are answered alike: no state is named."""
    record = second_record(lambda: SmallBleu(per_reference=True), A1, A3, tmp_path)
    assert (record.actual.statistics.hyp_len, record.actual.statistics.ref_len) == (4, 4)
    assert tuple(record.actual.statistics.matches) == (4, 2)
    # (the coincidence is there: the answer is the state's by A1's counts, whatever the probes say)
    first, own = oracle_expected(A1, "papineni"), oracle_expected(A3, "papineni")
    fits = accumulated_statistics(A3, Reply("score", ScoreReply(seq=1, score=1.0, statistics=record.actual.statistics)),
                                  ((2, first.statistics),), "papineni", expected=own, contract=DEFAULT_CONTRACT)
    assert fits is not None
    assert named_states(record) == []


def test_a_stateless_empty_hypothesis_left_unread_is_named_by_no_state(tmp_path) -> None:
    """F0 (right) then K0 answered NaN (its references not read, c = r = 0), as K0's empty hypothesis against F0's
    references ("" the closest) gives; the probes with every reference changed are answered alike (unread) and
    wrongly. The order probes (K0 made new: no longer empty) are answered alike in a new instance and here: no state
    is named."""
    record = second_record(lambda: SmallBleu(empty_unread=True), F0, K0, tmp_path)
    assert math.isnan(record.actual.score)
    assert named_states(record) == []


def test_references_read_once_are_named_by_the_first_request(tmp_path) -> None:
    """F0 then K0 by an implementation that keeps F0's references: K0 answered NaN (against "" and "a"), the probes with
    every reference changed alike; K0 made new ("\u27c2..." of c = 1) is answered against its own reference in a new
    instance (r = 2, 0) and against F0's here (r = 1, 0): otherwise, as the kept references give."""
    record = second_record(lambda: SmallBleu(read_once=True), F0, K0, tmp_path)
    assert "references-kept-from-first-request" in named_states(record)
