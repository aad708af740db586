"""State between requests: a wrong answer that is an earlier request's right answer is named as such.

Every score below is derived by hand (papineni, unigrams only, no smoothing):

- R1: hypothesis "The cat", reference "the cat", lowercase false: "cat" matches, "The" does not:
  p1 = 1/2, c = r = 2, bp = 1, BLEU = 0.5.
- R2: R1 with lowercase true: both match, p1 = 2/2, BLEU = 1.0.
- R1 and R2 with hypothesis "a b", reference "c d": nothing matches, BLEU = 0 either way.
- R3: R1 with weights (1/2, 1/2): the bigram "The cat" does not match "the cat", p2 = 0/1, BLEU = 0; its
  statistics have two orders.
- Y: hypothesis "The cat", reference "the cow", lowercase true: "the" matches, "cat" does not: 0.5 too, with
  R1's statistics. R2 with its reference replaced by "The cat \u27c2" (a probe): both words match, c = 2, r = 3,
  BP = e^(1 - 3/2) = 0.6065306597126334 = BLEU, folded or not; by "The cat \u27c2 \u27c2" (another): r = 4,
  BLEU = BP = e^(1 - 4/2) = 0.36787944117144233.
- E: hypothesis "a b", reference "a c", weights (1/2, 1/2), exp smoothing: p1 = 1/2; no bigram matches (1 in
  the hypothesis), so NIST's exp smoothing gives it 1/2^1 matches: p2 = 1/2, BLEU = sqrt(1/4) = 0.5. One
  halving. With a halving counter that continues from j earlier halvings, p2 = 1/2^(j+1): j = 1 gives
  sqrt(1/2 * 1/4) = sqrt(1/8) = 0.35355339059327373, j = 2 gives sqrt(1/16) = 0.25.
- Z: R1 with every weight zero, an input the documents leave undefined; the convention `zero-weights-bp`
  (PROTOCOL.md) answers BP * e^0 = 1 * 1 = 1.0 (c = r = 2), its statistics R1's.
- F then K (references kept from the first request): F is "the cat sat" against "the cat sat" (right: 1.0); K is
  "the dog" against "a dog": "dog" matches, p1 = 1/2, c = r = 2, BLEU = 0.5. K's hypothesis against F's reference
  "the cat sat": "the" matches, p1 = 1/2, c = 2, r = 3, BP = e^(1 - 3/2) = 0.6065306597126334, BLEU = half that,
  0.3032653298563167. With F's reference "The Cat" and F folding case (lowercase true), K ("the cat" against "a
  b") against it as F sent it matches nothing (0), lowercased as F read it both words: 1.0.

Holds: oracle.diagnose.stale, oracle.harness.work.series
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from oracle.adapters.base import Implementation, ScoreAnswer
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.mechanisms import process_state_names
from oracle.diagnose.stale import (
    ACCUMULATED,
    CONFIRMED_BY,
    DEFAULT_CONTRACT,
    EARLIER_ANSWER,
    EVERY_REFERENCE,
    EXP_CARRIED,
    IN_ORDER,
    ORDER_PROBED,
    REFERENCES_KEPT,
    Before,
    Exchange,
    Seen,
    answered_right_before,
    confirmed_in_order,
    differing_parts,
    halvings,
    kept_references,
    order_probes,
    probes,
    stale_answer,
    with_new_hypotheses,
    with_stale,
)
from oracle.harness.events import read_results
from oracle.harness.gate import BaselineTracker
from oracle.harness.inprocess import InProcessImplementation
from oracle.harness.session import SessionSettings, run_session
from oracle.harness.work.series import Step, judge_series
from oracle.models.protocol import ScoreRequest, Segment, SmoothingSpec, Statistics
from oracle.models.results import Classification, RunSettings

PROFILE = "papineni"


def request(hypothesis: str, references: tuple[str, ...], *, lowercase: bool = False) -> ScoreRequest:
    segment = Segment(hypothesis=tuple(hypothesis.split()), references=tuple(tuple(r.split()) for r in references))
    return ScoreRequest(level="sentence", segments=(segment,), weights=(1.0,), lowercase=lowercase)


R1 = request("The cat", ("the cat",))
R2 = request("The cat", ("the cat",), lowercase=True)
R3 = R1.model_copy(update={"weights": (0.5, 0.5)})
Y = request("The cat", ("the cow",), lowercase=True)
E = ScoreRequest(level="sentence", segments=(Segment(hypothesis=("a", "b"), references=(("a", "c"),)),),
                 weights=(0.5, 0.5), smoothing=SmoothingSpec.of("exp"))
Z = R1.model_copy(update={"weights": (0.0,)})
NONE_MATCH_1 = request("a b", ("c d",))
NONE_MATCH_2 = request("a b", ("c d",), lowercase=True)


@dataclass(frozen=True)
class Answer:
    """A reply as the judge reads it (`oracle.diagnose.judge.Answered`)."""

    score: float | None
    statistics: Statistics | None
    kind: str = "score"
    message: str = ""


def answer(score: float, matches: int) -> Answer:
    return Answer(score, Statistics(hyp_len=2, ref_len=2, matches=(matches,), totals=(2,), bp=1.0))


HALF = answer(0.5, 1)  # R1's right answer
WHOLE = answer(1.0, 2)  # R2's right answer
NOTHING = answer(0.0, 0)  # NONE_MATCH_1's and NONE_MATCH_2's right answer


def exp_answer(score: float) -> Answer:
    return Answer(score, Statistics(hyp_len=2, ref_len=2, matches=(1, 0), totals=(2, 1), bp=1.0))


def stale(req: ScoreRequest, reply: Answer, earlier: list[tuple[ScoreRequest, Answer]], carried: int | None = None,
          *, own: int | None = None, explained: bool = False):
    """`stale_answer` of `reply` to `req` after `earlier` (all of the request's own unit unless `own` says how many
    of the latest are), `carried` halvings before it."""
    before = Before(tuple(Exchange(r, a) for r, a in earlier), carried, len(earlier) if own is None else own)
    return stale_answer(req, reply, before, PROFILE, expected=oracle_expected(req, PROFILE), explained=explained)


def test_only_this_very_request_answered_right_before_refutes_a_mechanism_of_the_request_alone() -> None:
    """R1's right answer is 1/2 (weights (1,), "The cat" against "the cat" unfolded: "cat" of 2 unigrams). Whatever
    the order the history's answers and requests are compared in (the score is read first: long requests are slow to
    compare), R1 answered 1/2 before refutes it; R1 answered 1 before does not, nor R3 (R1 with weights (1/2, 1/2))
    answered 1/2: another request, whose answer only happens to be R1's."""
    expected = oracle_expected(R1, PROFILE)

    def refuted(*earlier: tuple[ScoreRequest, Answer]) -> bool:
        before = Before(tuple(Exchange(r, a) for r, a in earlier), 0, len(earlier))
        return answered_right_before(R1.with_seq(7), before, expected, DEFAULT_CONTRACT)

    assert refuted((R2, WHOLE), (R1, HALF))
    assert not refuted((R1, WHOLE))
    assert not refuted((R3, HALF), (R2, HALF))


def test_the_first_request_s_answer_to_a_second_is_named_with_the_part_that_differs() -> None:
    named = stale(R2, HALF, [(R1, HALF)])
    assert named is not None and named.name == EARLIER_ANSWER
    assert dict(named.change) == {"earlier request": 1, "differs in": "lowercase"}
    assert "differs only in lowercase" in named.description and "the request just before" in named.description
    assert named.expected == 1.0


def test_a_right_answer_is_never_named_stale_even_when_it_equals_an_earlier_one() -> None:
    assert stale(R2, WHOLE, [(R1, HALF)]) is None
    assert stale(NONE_MATCH_2, NOTHING, [(NONE_MATCH_1, NOTHING)]) is None  # both 0, both right


def test_an_earlier_answer_that_was_itself_wrong_is_not_used() -> None:
    wrong = answer(0.75, 1)  # 0.75 is no BLEU of R1 (0.5)
    assert stale(R2, wrong, [(R1, wrong)]) is None


def test_a_repeat_of_the_same_request_or_another_hypothesis_is_not_a_stale_answer() -> None:
    assert stale(R2, HALF, [(R2, HALF)]) is None  # the same request answered alike: no part differs
    other = request("A cat", ("the cat",))  # "cat" matches: 0.5 as well, and right
    assert differing_parts(R2, other) == ("hypotheses", "lowercase")
    assert stale(R2, HALF, [(other, HALF)]) is None


def test_of_several_earlier_answers_the_one_differing_in_fewest_parts_is_named() -> None:
    other_reference = request("The cat", ("a cat",))  # "cat" matches: 0.5, right, and more recent
    named = stale(R2, HALF, [(R1, HALF), (other_reference, HALF)])
    assert named is not None and dict(named.change) == {"earlier request": 2, "differs in": "lowercase"}


def test_an_earlier_answer_within_the_tolerance_is_found_past_answers_of_another_kind_or_length() -> None:
    """R1's right answer is 0.5 (1 of its 2 unigrams matches); the reply to R2 (whose right answer is 1.0) is 0.5
    times (1 + 1e-12): within the judge's default relative tolerance (1e-9) of it, the same answer. More recent
    than R1's: an error, and a 0.5 with another c (hyp_len 3), neither the same answer. With and without counts."""
    near = 0.5 * (1 + 1e-12)
    other_c = Answer(0.5, Statistics(hyp_len=3, ref_len=2, matches=(1,), totals=(3,), bp=1.0))
    noise = [(R3, Answer(None, None, kind="error", message="boom")), (R3, other_c)]
    named = stale(R2, answer(near, 1), [(R1, HALF), *noise])
    assert named is not None and dict(named.change) == {"earlier request": 3, "differs in": "lowercase"}
    named = stale(R2, Answer(near, None), [(R1, Answer(0.5, None)), *noise])
    assert named is not None and dict(named.change) == {"earlier request": 3, "differs in": "lowercase"}
    assert stale(R2, Answer(near, None), [(R1, HALF), *noise]) is None  # counts on one side only


def test_an_explained_answer_is_matched_only_within_its_own_case_or_example() -> None:
    """R1's answer to R2 is also what ignoring `lowercase` gives: a mechanism of R2 alone. Then an earlier answer
    counts only from the request's own unit of work (its example, companions and shrinks), which no --shard or
    --jobs split changes."""
    assert stale(R2, HALF, [(R1, HALF)], own=0, explained=True) is None
    assert stale(R2, HALF, [(R1, HALF)], own=1, explained=True) is not None
    assert stale(R2, HALF, [(R1, HALF)], own=0, explained=False) is not None


def test_a_request_s_halvings_are_its_orders_with_n_grams_and_no_match() -> None:
    assert halvings(Exchange(E, exp_answer(0.5)), PROFILE) == 1
    assert halvings(Exchange(R1, HALF), PROFILE) == 0  # not exp-smoothed
    assert halvings(Exchange(E, Answer(0.5, None)), PROFILE) is None  # no counts answered: not known


def test_an_exp_score_with_the_halvings_continued_from_earlier_requests_is_named() -> None:
    named = stale(E, exp_answer(0.35355339059327373), [(E, exp_answer(0.5))], carried=1)
    assert named is not None and named.name == EXP_CARRIED and dict(named.change) == {"halvings carried over": 1}
    assert named.expected == 0.5


def test_an_exp_score_that_other_halvings_give_or_a_right_one_is_not_named() -> None:
    assert stale(E, exp_answer(0.25), [(E, exp_answer(0.5))], carried=1) is None  # 0.25 is j = 2, not 1
    assert stale(E, exp_answer(0.5), [(E, exp_answer(0.5))], carried=1) is None  # right
    assert stale(E, exp_answer(0.35355339059327373), [], carried=None) is None  # the tally is not known


class AnswerList(Implementation):
    """Answers its requests from a list, in order (a cache's answers written down by hand)."""

    name, version = "answer-list", "0"
    capabilities = {"levels": ["sentence", "corpus"], "weights": "any", "max_order": 4, "smoothing": ["none", "exp"],
                    "statistics": True, "lowercase": True}

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = list(answers)

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        one = self.answers.pop(0)
        assert one.statistics is not None
        return ScoreAnswer(one.score, one.statistics.to_json())


class Restarting(InProcessImplementation):
    """Started again (one restart counted) before it answers its second request, as after a crash."""

    answered = 0

    def collect(self, command):
        self.answered += 1
        self.restarts = 0 if self.answered == 1 else 1
        return super().collect(command)


class StartedAnew(InProcessImplementation):
    """An in-process transport that can start another instance of its implementation, as a process can: one that
    answers from `fresh` (`oracle.harness.diagnosis`'s order probes of references kept from a first request)."""

    def __init__(self, implementation: Implementation, fresh: list[Answer]) -> None:
        super().__init__(implementation)
        self.fresh = fresh

    def started_anew(self) -> InProcessImplementation:
        return InProcessImplementation(AnswerList(self.fresh))


def run(answers: list[Answer], second: ScoreRequest, tmp_path, first: ScoreRequest = R1, *,
        units: bool = False, transport: type[InProcessImplementation] = InProcessImplementation,
        fresh: list[Answer] | None = None) -> dict:
    """The records of a session that sends `first` then `second` to `AnswerList(answers)`, by id (`units`: each
    its own unit of work, as two examples are; `fresh`: the answers of another instance started anew)."""
    settings = SessionSettings(command="answer-list", report=str(tmp_path), timings=False)

    def work(session) -> None:
        session.run_replay([("first", first)])
        if units:
            session.channel.start_unit()
        session.run_replay([("second", second)])

    driven = transport(AnswerList(answers)) if fresh is None else StartedAnew(AnswerList(answers), fresh)
    run_session(settings, [], recorded=RunSettings(verb="check"), tracker=BaselineTracker(), total=2, work=work,
                report_dir=tmp_path, transport=driven)
    return {r.id: r for r in read_results(tmp_path / "results.jsonl").records}


#: Answers to the order probes (`order_probes`), each hypothesis with a token no request had ("\u27c2" and a mark):
#: R1 so ("The cat \u27c2", "the cat", unfolded): "cat" alone matches, p1 = 1/3, c = 3, r = 2, BP = 1: 1/3.
THIRD = Answer(1 / 3, Statistics(hyp_len=3, ref_len=2, matches=(1,), totals=(3,), bp=1.0))
#: R3 so (weights 1/2, 1/2): p1 = 1/3, no bigram of "The cat \u27c2" in "the cat": p2 = 0/2, BLEU 0.
R3_NEW = Answer(0.0, Statistics(hyp_len=3, ref_len=2, matches=(1, 0), totals=(3, 2), bp=1.0))
#: R2 so (folded): "the" and "cat" match, p1 = 2/3, c = 3, r = 2, BP = 1: 2/3.
R2_NEW = Answer(2 / 3, Statistics(hyp_len=3, ref_len=2, matches=(2,), totals=(3,), bp=1.0))


def test_a_session_names_a_cached_answer_by_the_process_s_history(tmp_path) -> None:
    """R3 answered with R1's answer, 1/2 (R3's is 0: no bigram matches). The explanation of R3 alone names nothing, and
    the order probes confirm the cache: R3 with its hypothesis made new, sent alone, is answered right (0); R1 then R3,
    both made new the other way, are answered 1/3 and 1/3 (R1's answer kept): R3 answered otherwise after R1 than
    alone, which no stateless implementation does."""
    # (the third answer: the failing request, sent once more before it is reported, answered alike by the cache;
    # the last three: the order probes)
    records = run([HALF, HALF, HALF, R3_NEW, THIRD, THIRD], R3, tmp_path / "weights")
    assert records["first"].outcome.value == "pass" and records["first"].classification is None
    named = records["second"].classification
    assert named is not None and named.name == EARLIER_ANSWER and "differs only in weights" in named.description
    assert dict(named.change)[CONFIRMED_BY] == IN_ORDER


def test_an_earlier_answer_met_by_a_stateless_answer_is_no_name_where_the_request_alone_explains_nothing(
        tmp_path) -> None:
    """Issue 36's seventh held-out set: floor division answers 0 with and without smoothing, so a request answered
    as the one before it that differs only in smoothing was named `earlier-answer-returned` without a probe, where the
    request alone explained only what is known. Here R3 is answered with R1's answer as before, and the order probes
    as a stateless implementation answers them: R3 made new answered alike alone and after R1 (1/3 both times, as R1
    made new is: the same answer whatever came before). Not named, nor among what fits; the first
    probe answered otherwise (R3_NEW) is the cache's answer and confirms it (the test above)."""
    records = run([HALF, HALF, HALF, THIRD, THIRD, THIRD], R3, tmp_path / "stateless")
    named = records["second"].classification
    assert named is not None and named.name != EARLIER_ANSWER and EARLIER_ANSWER not in named.fits


def test_a_restarted_process_s_history_starts_anew(tmp_path) -> None:
    """What a process answered before it was started again is no state of the new one."""
    named = run([HALF, HALF, HALF], R3, tmp_path, transport=Restarting)["second"].classification
    assert named is not None and named.name != EARLIER_ANSWER and EARLIER_ANSWER not in named.fits


def test_beside_a_mechanism_of_the_request_alone_a_stale_answer_fits_only_where_a_new_key_confirms_it(tmp_path) -> None:
    """R1's answer to R2 (1/2, not R2's 1: "The cat" against "the cat" unfolded) is also what an implementation that
    ignores `lowercase` answers: a stateless bug meets R1's answer whenever the earlier request differed only in the
    part it ignores (a series' steps). The mechanism of the request alone is the stateless explanation; the earlier
    answer, one number met by one record and not confirmed by probes, is not among what fits (issue 36: no state
    accusation on a stateless implementation). A probe tells the two apart: R2 with a token no request has added to
    its hypothesis ("The cat \u27c2" against "the cat", folded: 2 of 3 unigrams match, c = 3, r = 2, BP = 1: 2/3). A
    cache has no answer for it and answers it right; a bug that ignores `lowercase` answers 1/3 ("cat" alone matches):
    only the cache's earlier answer fits beside the mechanism."""
    wrong_probe = Answer(1 / 3, Statistics(hyp_len=3, ref_len=2, matches=(1,), totals=(3,), bp=1.0))
    named = run([HALF, HALF, HALF, wrong_probe], R2, tmp_path / "stateless")["second"].classification
    assert named is not None and named.name == "case-not-folded" and EARLIER_ANSWER not in named.fits
    right_probe = Answer(2 / 3, Statistics(hyp_len=3, ref_len=2, matches=(2,), totals=(3,), bp=1.0))
    # (then the order probes: R2 made new alone, right as a cache's miss; R1 then R2 made new, both answered R1's 1/3)
    cached = run([HALF, HALF, HALF, right_probe, R2_NEW, THIRD, THIRD], R2, tmp_path / "cache")["second"].classification
    assert cached is not None and cached.name == "case-not-folded" and EARLIER_ANSWER in cached.fits
    # a cache's answers but for the order probes, answered as a stateless bug that ignores `lowercase` answers them
    # (R2 made new, 1/3 alone and after R1): not among what fits
    stateless = run([HALF, HALF, HALF, right_probe, THIRD, THIRD, THIRD], R2, tmp_path / "order")["second"]
    assert stateless.classification is not None and EARLIER_ANSWER not in stateless.classification.fits


def test_a_session_of_right_answers_names_nothing(tmp_path) -> None:
    records = run([HALF, WHOLE], R2, tmp_path)
    assert [r.outcome.value for r in records.values()] == ["pass", "pass"]


def test_a_session_tallies_the_halvings_of_the_process_s_requests(tmp_path) -> None:
    """A counter never reset answers E, sent once more before its failure is reported, with two halvings carried
    (0.25): answered otherwise, but by the state the earlier requests left, which names it (not nondeterminism)."""
    records = run([exp_answer(0.5), exp_answer(0.35355339059327373), exp_answer(0.25)], E, tmp_path, first=E)
    assert records["first"].outcome.value == "pass"
    named = records["second"].classification
    assert named is not None and named.name == EXP_CARRIED and "the 1 the earlier requests" in named.description


def test_an_earlier_answer_from_another_example_counts_where_a_probe_confirms_it(tmp_path) -> None:
    """R2 answered with Y's answer (Y came in another unit; ignoring `lowercase` gives that answer too): two probes,
    R2 with its reference changed once more two ways, are sent. A cache keyed without the references answers both
    alike, and wrongly (BLEU 0.6065... and 0.3678...), and R2 with its hypothesis made new right: the earlier answer
    fits. An implementation that ignores `lowercase` answers the probes right: it does not, nor where one probe alone
    is answered alike."""
    # (the sixth answer: R2 with a token no request had added to its hypothesis, a key the cache has no answer for,
    # answered right: "The cat \u27c2" against "the cat", folded, 2 of 3 unigrams, c = 3, r = 2, BP = 1: 2/3)
    new_key = Answer(2 / 3, Statistics(hyp_len=3, ref_len=2, matches=(2,), totals=(3,), bp=1.0))
    # (then the order probes: R2 made new alone, 2/3; Y ("The cat \u27c2" against "the cow", folded: "the" alone
    # matches, 1/3) then R2, both made new, answered Y's 1/3)
    cached = run([HALF] * 5 + [new_key, R2_NEW, THIRD, THIRD], R2, tmp_path / "cache", first=Y,
                 units=True)["second"].classification
    assert cached is not None and cached.name == "case-not-folded" and EARLIER_ANSWER in cached.fits
    # a bug blind to the references of this one input answers the probes alike, and the new key as wrongly (1/3:
    # "cat" alone matches): not named
    blind = run([HALF] * 5 + [Answer(1 / 3, Statistics(hyp_len=3, ref_len=2, matches=(1,), totals=(3,), bp=1.0))],
                R2, tmp_path / "blind", first=Y, units=True)["second"].classification
    assert blind is not None and EARLIER_ANSWER not in blind.fits
    probe_answer = Answer(0.6065306597126334, Statistics(hyp_len=2, ref_len=3, matches=(2,), totals=(2,),
                                                         bp=0.6065306597126334))
    other_probe = Answer(0.36787944117144233, Statistics(hyp_len=2, ref_len=4, matches=(2,), totals=(2,),
                                                         bp=0.36787944117144233))
    once = run([HALF, HALF, HALF, HALF, other_probe], R2, tmp_path / "once", first=Y, units=True)["second"]
    assert once.classification is not None and EARLIER_ANSWER not in once.classification.fits
    stateless = run([HALF, HALF, HALF, probe_answer, other_probe], R2, tmp_path / "stateless", first=Y,
                    units=True)["second"]
    assert stateless.classification is not None and stateless.classification.name == "case-not-folded"
    assert EARLIER_ANSWER not in stateless.classification.fits


def test_a_series_step_answered_with_a_convention_s_value_is_recorded_with_the_convention(tmp_path) -> None:
    """A series ending on Z (every weight zero: undefined) answered with the `zero-weights-bp` convention's value is
    recorded as any such answer is: acceptable, naming the convention (`Record.convention`); under --strict the
    convention's value fails, and the record still names it."""
    convention = Answer(1.0, Statistics(hyp_len=2, ref_len=2, matches=(1,), totals=(2,), bp=1.0))
    for strict, outcome in ((False, "acceptable"), (True, "fail")):
        report = tmp_path / f"strict-{strict}"
        settings = SessionSettings(command="answer-list", report=str(report), timings=False, strict=strict)

        def work(session) -> None:
            judge_series(session, "random-0-5~series", [Step(R1, 0, ""), Step(Z, 0, "weights")],
                         session.example_inputs(0))

        run_session(settings, [], recorded=RunSettings(verb="check"), tracker=BaselineTracker(), total=1,
                    work=work, report_dir=report,
                    transport=InProcessImplementation(AnswerList([HALF, convention, convention])))
        [record] = read_results(report / "results.jsonl").records
        assert (record.kind, record.outcome.value, record.convention) == ("series", outcome, "zero-weights-bp")


F = request("the cat sat", ("the cat sat",))
K = request("the dog", ("a dog",))
KEPT = Answer(0.3032653298563167, Statistics(hyp_len=2, ref_len=3, matches=(1,), totals=(2,), bp=0.6065306597126334))


def kept(req: ScoreRequest, reply: Answer, first: ScoreRequest):
    return kept_references(req, reply, Exchange(first, Answer(None, None)), PROFILE,
                           expected=oracle_expected(req, PROFILE), contract=DEFAULT_CONTRACT)


def test_an_answer_against_the_first_request_s_references_is_named_by_them() -> None:
    named = kept(K, KEPT, F)
    assert named is not None and named.name == REFERENCES_KEPT and named.expected == 0.5
    assert dict(named.change) == {"references of": "the first request to the process", "segments scored": "1 of 1"}
    assert kept(K, answer(0.5, 1), F) is None  # K's own answer: nothing kept
    assert kept(K, Answer(0.3032653298563167, None), F) is not None  # no counts: the score alone
    assert kept(K, KEPT, K) is None  # the first request itself: its references are the request's
    # kept as read: lowercased where the first request folded case
    folded_first = request("x", ("The Cat",), lowercase=True)
    second = request("the cat", ("a b",))
    named = kept(second, answer(1.0, 2), folded_first)
    assert named is not None and "lowercased" in dict(named.change)["references of"]
    assert kept(second, answer(1.0, 2), request("x", ("The Cat",))) is None  # F not folded: 0, not 1


#: K made new ("the dog \u27c2..."): against its own "a dog", "dog" matches, c = 3, r = 2, BP = 1: 1/3; against F's
#: "the cat sat", "the" matches, c = 3, r = 3: 1/3 too, with another r.
K_ALONE = Answer(1 / 3, Statistics(hyp_len=3, ref_len=2, matches=(1,), totals=(3,), bp=1.0))
K_AFTER_F = Answer(1 / 3, Statistics(hyp_len=3, ref_len=3, matches=(1,), totals=(3,), bp=1.0))


def test_a_session_names_references_kept_from_the_first_request_where_probes_confirm_it(tmp_path) -> None:
    """F answered right, then K answered with K's hypothesis against F's reference (sent once more, alike): two
    probes, K with its reference changed twice, answered alike (the kept references do not change), and wrongly;
    then the order probes: K made new, the first request of an instance started anew, answered against its own
    reference, and here against F's: it fits. Where the probes are answered otherwise (a stateless bug meeting that
    number once), not named; nor where the instance started anew answers as this one (a stateless answer), or where
    none can be started (a library in this process: its state cannot be started anew)."""
    right_f = Answer(1.0, Statistics(hyp_len=3, ref_len=3, matches=(3,), totals=(3,), bp=1.0))
    named = run([right_f, KEPT, KEPT, KEPT, KEPT, K_AFTER_F], K, tmp_path / "kept", first=F,
                fresh=[K_ALONE])["second"].classification
    # (r = 3 for one more reference token is also what a token added to every reference gives: a mechanism of the
    # request alone, which keeps the record's first name; the run names the one that fits all its records)
    assert named is not None and REFERENCES_KEPT in named.fits, named
    for fresh, where in (([K_AFTER_F], "alike"), (None, "in-process")):
        unconfirmed = run([right_f, KEPT, KEPT, KEPT, KEPT, K_AFTER_F], K, tmp_path / where, first=F, fresh=fresh)
        assert REFERENCES_KEPT not in unconfirmed["second"].classification.fits, where
    other = Answer(0.25, Statistics(hyp_len=2, ref_len=3, matches=(1,), totals=(2,), bp=0.5))
    stateless = run([right_f, KEPT, KEPT, other, other], K, tmp_path / "stateless", first=F)["second"]
    assert stateless.classification is not None and stateless.classification.name != REFERENCES_KEPT
    assert REFERENCES_KEPT not in stateless.classification.fits


def test_references_kept_are_confirmed_by_the_order_once_a_process(tmp_path) -> None:
    """F, then K and "the cow" against "a cow" (0.5; against F's "the cat sat": "the" matches, c = 2, r = 3, KEPT as K),
    each answered against F's reference: the order probes (a process started anew, whose one answer is K_ALONE) are
    sent for K alone; the second record is confirmed by them too (the same process, the same first request), with
    its own every-reference probes, and no process is started again (the instance started anew would answer nothing
    more: its list is spent)."""
    right_f = Answer(1.0, Statistics(hyp_len=3, ref_len=3, matches=(3,), totals=(3,), bp=1.0))
    answers = [right_f, KEPT, KEPT, KEPT, KEPT, K_AFTER_F, KEPT, KEPT, KEPT, KEPT]
    settings = SessionSettings(command="answer-list", report=str(tmp_path), timings=False)
    cow = request("the cow", ("a cow",))

    def work(session) -> None:
        for name, sent in (("first", F), ("second", K), ("third", cow)):
            session.channel.start_unit()
            session.run_replay([(name, sent)])

    run_session(settings, [], recorded=RunSettings(verb="check"), tracker=BaselineTracker(), total=3, work=work,
                report_dir=tmp_path, transport=StartedAnew(AnswerList(answers), [K_ALONE]))
    records = {r.id: r for r in read_results(tmp_path / "results.jsonl").records}
    for name in ("second", "third"):
        named = records[name].classification
        assert named is not None and REFERENCES_KEPT in named.fits, (name, named)


def test_check_names_references_read_once_as_the_runs_cause(tmp_path) -> None:
    """tests/fakes/plantedbleu.py's references-read-once keeps the first request's references: the run is named by
    it, and it fits nearly all its failing records (a record's first name may be another mechanism its one input fits
    as well: the run names the one that fits them all)."""
    from fakes.harness import check, deviations, fake

    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", "references-read-once"), examples=60) == 1
    failing = [r for r in deviations(report) if r.outcome == "fail"]
    fitting = [r for r in failing if REFERENCES_KEPT in (r.classification.name, *r.classification.fits)]
    assert len(fitting) > 0.9 * len(failing), {r.classification.name for r in failing}
    assert f"By root cause: {REFERENCES_KEPT} x" in (report / "summary.md").read_text()


def test_a_state_probes_confirmed_is_the_name_beside_what_is_known_only() -> None:
    """Beside `other-counting-of-ref_len` (which statistic differs, not why) references kept from the first request,
    confirmed by probes (the change `confirmed by changing` that `confirmed` adds), are the record's name, the counts'
    difference among what also fits; unconfirmed they stay a fit, and beside a mechanism of the request alone (a
    name that says why) a fit too: the run's cover names the one that fits every record."""
    known = Classification(name="other-counting-of-ref_len", description="",
                           change=(("computation", "other-counting-of-ref_len"),))
    unconfirmed = Classification(name=REFERENCES_KEPT, description="", change=(("references of", "the first"),))
    probed = unconfirmed.model_copy(update={"change": (*unconfirmed.change, (CONFIRMED_BY, EVERY_REFERENCE))})
    named = with_stale(known, probed)
    assert (named.name, named.fits) == (REFERENCES_KEPT, ("other-counting-of-ref_len",))
    kept_as_fit = with_stale(known, unconfirmed)
    assert (kept_as_fit.name, kept_as_fit.fits) == ("other-counting-of-ref_len", (REFERENCES_KEPT,))
    mechanism = Classification(name="case-not-folded", description="", change=(("lowercase", "ignored"),))
    beside = with_stale(mechanism, probed)
    assert (beside.name, beside.fits) == ("case-not-folded", (REFERENCES_KEPT,))


def test_check_probes_references_kept_once_per_kind_and_block(tmp_path) -> None:
    """references-read-once (tests/fakes/plantedbleu.py) over 60 examples: once probes confirmed the kept references
    on a failure of a kind (outcome, first differing layer, order) in a block of examples, the later failures of that
    kind in the block whose answers they give are named by them without probes or a search of their own, their
    description saying where the state was confirmed. No such record comes before a confirmed one of its kind and
    block (the shortcut needs the probes' evidence: a record's own probes are the only way the kept references
    reach its name or fits), and at least one does come (the probes are not sent for each)."""
    from fakes.harness import check, deviations, fake

    from oracle.harness.budget import SHRINK_BLOCK, failure_kind

    report = tmp_path / "report"
    assert check(report, fake("plantedbleu", "references-read-once"), examples=60) == 1
    confirmed_in: set[tuple] = set()
    unprobed = 0
    for record in deviations(report):  # (in example order: one process, no --jobs)
        if record.kind != "example" or record.classification is None:
            continue
        block = int(record.id.split("-")[2].split("~")[0]) // SHRINK_BLOCK
        kind = (block, failure_kind(record.kind, record.outcome.value, record.layer, record.order))
        named = record.classification
        if "neither probed again" in named.description:
            assert named.name == REFERENCES_KEPT and kind in confirmed_in, record.id
            unprobed += 1
        elif REFERENCES_KEPT in (named.name, *named.fits):  # (a record's own probes are what puts it there)
            confirmed_in.add(kind)
    assert unprobed > 0


class LastReferenceOnly(Implementation):
    """A stateless bug: each segment scored against its last reference alone. Its answers, by (hypothesis, last
    reference), derived by hand (unigrams, papineni): "the cat sat" against itself 1.0; "the dog" against "the cat
    sat" KEPT ("the" of 2, c = 2, r = 3: e^(1 - 3/2) / 2); against "the dog \u27c2" both match, r = 3: BP =
    0.6065306597126334; against "\u27c2" nothing matches (c = 2, r = 1, BP = 1): 0."""

    name, version = "last-reference-only", "0"
    capabilities = AnswerList.capabilities
    ANSWERS = {
        ("the cat sat", "the cat sat"): Answer(1.0, Statistics(hyp_len=3, ref_len=3, matches=(3,), totals=(3,),
                                                                bp=1.0)),
        ("the dog", "the cat sat"): KEPT,
        ("the dog", "the dog \u27c2"): Answer(0.6065306597126334, Statistics(hyp_len=2, ref_len=3, matches=(2,),
                                                                             totals=(2,), bp=0.6065306597126334)),
        ("the dog", "\u27c2"): Answer(0.0, Statistics(hyp_len=2, ref_len=1, matches=(0,), totals=(2,), bp=1.0)),
    }

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        [segment] = request.segments
        one = self.ANSWERS[(" ".join(segment.hypothesis), " ".join(segment.references[-1]))]
        assert one.statistics is not None
        return ScoreAnswer(one.score, one.statistics.to_json())


def test_a_stateless_bug_that_reads_only_some_references_is_not_named_by_references_kept(tmp_path) -> None:
    """F answered right, then "the dog" against ("the dog", "the cat sat"): the oracle's 1.0 (closest r = 2, both
    unigrams match the first reference), answered KEPT by a bug that reads the last reference only, which is also
    "the dog" against F's "the cat sat": the references of the first request fit the record. A probe that changed the
    first reference alone is answered as the record (the last is read, unchanged), and confirmed it; probes that
    change every reference are answered otherwise (0.6065... and 0), and do not."""
    second = request("the dog", ("the dog", "the cat sat"))
    settings = SessionSettings(command="last-reference-only", report=str(tmp_path), timings=False)

    def work(session) -> None:
        session.run_replay([("first", F)])
        session.run_replay([("second", second)])

    run_session(settings, [], recorded=RunSettings(verb="check"), tracker=BaselineTracker(), total=2, work=work,
                report_dir=tmp_path, transport=InProcessImplementation(LastReferenceOnly()))
    records = {r.id: r for r in read_results(tmp_path / "results.jsonl").records}
    assert records["first"].outcome.value == "pass"
    named = records["second"].classification
    assert named is not None and named.name != REFERENCES_KEPT and REFERENCES_KEPT not in named.fits, named


def test_a_new_key_probe_adds_a_token_of_its_own_to_every_hypothesis() -> None:
    """Each probe's token carries its mark: a cache that kept an earlier probe's key has none for the next one."""
    two = K.model_copy(update={"segments": (*K.segments, *F.segments)})
    assert [s.hypothesis for s in with_new_hypotheses(two, 3).segments] == [("the", "dog", "\u27c23"),
                                                                             ("the", "cat", "sat", "\u27c23")]
    assert with_new_hypotheses(two, 4) != with_new_hypotheses(two, 3)
    text = ScoreRequest(level="sentence", segments=(Segment(hypothesis="the dog", references=("a dog",)),),
                        weights=(1.0,), tokenize="13a")
    assert with_new_hypotheses(text, 5).segments[0].hypothesis == "the dog \u27c25"


def test_the_order_probes_send_the_request_alone_then_after_the_earlier_one_with_tokens_as_long() -> None:
    """R2 after R1 (mark 7): R2 with "\u27c27a" added, then R1 and R2 with "\u27c27b": the first and the last are the
    same request but for a token of the same length that matches nothing, the last two share their hypotheses. A
    counter's probes are the request alone and again (the first moves the counter); references kept from a first
    request are probed alone in a process started anew, then here."""
    named = Classification(parts=(EARLIER_ANSWER,), description="d", change=(("earlier request", 1),))
    order = order_probes(named, R2, Before((Exchange(R1, HALF),), 0, 1), 7)
    assert order is not None and not order.fresh
    [alone], [again, after] = order.alone, order.after
    assert alone.segments[0].hypothesis == ("The", "cat", "\u27c27a")
    assert again.segments[0].hypothesis == after.segments[0].hypothesis == ("The", "cat", "\u27c27b")
    assert again.lowercase is False and after.lowercase is True and alone.lowercase is True
    assert alone.model_copy(update={"segments": after.segments}) == after
    for name, fresh in ((EXP_CARRIED, False), (REFERENCES_KEPT, True)):
        state = Classification(parts=(name,), description="d")
        order = order_probes(state, R2, Before(), 7)
        assert order is not None and order.fresh is fresh
        assert [p.segments[0].hypothesis for p in (*order.alone, *order.after)] == [
            ("The", "cat", "\u27c27a"), ("The", "cat", "\u27c27b")]
    assert order_probes(Classification(parts=("lengths-kept-by-reset",), description="d"), R2, Before(), 7) is None


def test_every_process_state_of_the_catalogue_has_its_order_probes() -> None:
    """The catalogue's process states (kind `state`, found in the process's history) are the names the one rule
    confirms: a state added to the catalogue without its order probes is never confirmed, so never named."""
    assert set(ORDER_PROBED) == set(process_state_names()) == {EARLIER_ANSWER, EXP_CARRIED, REFERENCES_KEPT,
                                                                ACCUMULATED}


def test_the_order_probes_confirm_only_an_answer_that_what_came_before_changed() -> None:
    """Confirmed: after R1 the request is answered as R1 was (1/3) and alone otherwise (2/3). Not: answered alike
    alone and after (a stateless answer, whatever it gets wrong), answered otherwise than R1 after it, or a probe
    not answered at all (a crash carries no answer)."""
    named = Classification(parts=(EARLIER_ANSWER,), description="d", change=(("earlier request", 1),))
    order = order_probes(named, R2, Before((Exchange(R1, HALF),), 0, 1), 7)
    assert order is not None
    seen = Seen(halvings=0, first=None, profile=PROFILE)

    def in_order(alone: Answer, *after: Answer):
        predicted = ORDER_PROBED[EARLIER_ANSWER].predicted(order, after, seen)
        return confirmed_in_order(named, alone, after, predicted=predicted, contract=DEFAULT_CONTRACT)

    confirmed = in_order(R2_NEW, THIRD, THIRD)
    assert confirmed is not None and dict(confirmed.change)[CONFIRMED_BY] == IN_ORDER
    assert in_order(THIRD, THIRD, THIRD) is None
    assert in_order(R2_NEW, THIRD, R2_NEW) is None
    assert in_order(Answer(None, None, kind="crash"), THIRD, THIRD) is None


def test_a_counter_s_order_probes_confirm_only_the_halvings_carried() -> None:
    """E made new ("a b \u27c2" against "a c", weights 1/2, 1/2, exp): p1 = 1/3, no bigram of 2 matches. After 4
    halvings carried, a counter never reset gives p2 = 1/2^5 of 2: sqrt(1/3 * 1/64) = sqrt(1/192); alone (3 carried)
    sqrt(1/96). Confirmed only where the answer after is the carried one and the answer alone another."""
    named = Classification(parts=(EXP_CARRIED,), description="d", change=(("halvings carried over", 1),))
    order = order_probes(named, E, Before(), 3)
    assert order is not None

    def scored(value: float) -> Answer:
        return Answer(value, Statistics(hyp_len=3, ref_len=2, matches=(1, 0), totals=(3, 2), bp=1.0))

    after = scored(math.sqrt(1 / 192))
    predicted = ORDER_PROBED[EXP_CARRIED].predicted(order, [after], Seen(halvings=4, first=None, profile=PROFILE))
    assert predicted and not ORDER_PROBED[EXP_CARRIED].predicted(order, [after], Seen(3, None, PROFILE))
    assert confirmed_in_order(named, scored(math.sqrt(1 / 96)), [after], predicted=True,
                              contract=DEFAULT_CONTRACT) is not None
    assert confirmed_in_order(named, after, [after], predicted=True, contract=DEFAULT_CONTRACT) is None


A1 = ScoreRequest(level="sentence", segments=(Segment(hypothesis=("a", "b"), references=(("a", "b"),)),),
                  weights=(0.5, 0.5))
A2 = ScoreRequest(level="sentence", segments=(Segment(hypothesis=("a", "c"), references=(("a", "d"),)),),
                  weights=(0.5, 0.5))


def counts(c: int, r: int, matches: tuple[int, ...], totals: tuple[int, ...], score: float) -> Answer:
    return Answer(score, Statistics(hyp_len=c, ref_len=r, matches=matches, totals=totals, bp=1.0))


def test_statistics_accumulated_are_the_last_returned_plus_the_request_s_own() -> None:
    """A1 ("a b" against "a b", weights 1/2, 1/2) returned c = r = 2, matches (2, 1) of (2, 1), 1.0. A2 ("a c" against
    "a d") alone: c = r = 2, matches (1, 0) of (2, 1), 0 (no bigram matched, no smoothing). Added by hand: c = r = 4,
    matches (3, 1) of (4, 2), BP 1, sqrt(3/4 * 1/2) = sqrt(3/8): named, its value that. Not where nothing was returned
    before, where the score is not the sum's, or where one count is not the sum."""
    first = counts(2, 2, (2, 1), (2, 1), 1.0)
    summed = counts(4, 4, (3, 1), (4, 2), math.sqrt(3 / 8))
    before = Before((Exchange(A1, first),), 0, 1, returned=((2, first.statistics),))
    expected = oracle_expected(A2, PROFILE)
    named = stale_answer(A2, summed, before, PROFILE, expected=expected)
    assert named is not None and named.name == ACCUMULATED
    assert math.isclose(named.value, 0.6123724356957945, rel_tol=1e-12)
    assert stale_answer(A2, summed, Before((Exchange(A1, first),), 0, 1), PROFILE, expected=expected) is None
    assert stale_answer(A2, counts(4, 4, (3, 1), (4, 2), 0.5), before, PROFILE, expected=expected) is None
    assert stale_answer(A2, counts(4, 4, (3, 0), (4, 2), math.sqrt(3 / 8)), before, PROFILE, expected=expected) is None
    assert stale_answer(A2, counts(4, 3, (3, 1), (4, 2), math.sqrt(3 / 8)), before, PROFILE, expected=expected) is None
    # (returned counts the formulas refuse, totals short: 3 unigram matches of 1 before, 4 of 3 summed: no state, and
    # no refusal raised out of the diagnosis)
    short = counts(2, 2, (3, 1), (1, 1), 1.0)
    shorter = Before((Exchange(A1, short),), 0, 1, returned=((2, short.statistics),))
    assert stale_answer(A2, counts(4, 4, (4, 1), (3, 2), 1.0), shorter, PROFILE, expected=expected) is None


def test_accumulated_statistics_order_probes_confirm_only_the_sum() -> None:
    """A2 made new (mark 3: "a c ⟂3b" against "a d"): c = 3, r = 2, matches (1, 0) of (3, 2). After the process
    returned (5, 4, (3, 1), (5, 3)), the counts never reset give (8, 6, (4, 1), (8, 5)): BP 1 (c > r),
    sqrt(4/8 * 1/5) = sqrt(1/10). Predicted only from what was returned just before; confirmed only where the answer
    alone was another."""
    named = Classification(parts=(ACCUMULATED,), description="d")
    order = order_probes(named, A2, Before(), 3)
    assert order is not None and not order.fresh
    returned = counts(5, 4, (3, 1), (5, 3), math.sqrt(3 / 5 * 1 / 3))
    after = counts(8, 6, (4, 1), (8, 5), math.sqrt(1 / 10))
    predicted = ORDER_PROBED[ACCUMULATED].predicted
    assert predicted(order, [after], Seen(0, None, PROFILE, returned=((2, returned.statistics),)))
    assert not predicted(order, [after], Seen(0, None, PROFILE))
    assert not predicted(order, [counts(8, 6, (4, 1), (8, 5), 0.5)],
                         Seen(0, None, PROFILE, returned=((2, returned.statistics),)))
    assert confirmed_in_order(named, returned, [after], predicted=True, contract=DEFAULT_CONTRACT) is not None
    assert confirmed_in_order(named, after, [after], predicted=True, contract=DEFAULT_CONTRACT) is None


def test_references_kept_are_probed_with_every_reference_changed() -> None:
    """("the dog", "the cat sat") against F: both references replaced by "the dog \u27c2", then both by "\u27c2"."""
    second = request("the dog", ("the dog", "the cat sat"))
    sent = probes(second, F, (EVERY_REFERENCE,), ("none",))
    assert [probe.segments[0].references for _, probe in sent] == [
        (("the", "dog", "\u27c2"), ("the", "dog", "\u27c2")), (("\u27c2",), ("\u27c2",))]
