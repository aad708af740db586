"""Name the root cause of a disagreement between an implementation and the oracle.

Given a (minimal) failing request, the implementation's answer and the judged
profile, `classify` recomputes the oracle under each alternative convention
(an `Options` field changed: reference length rule, per-segment totals floor,
empty-order rule, weight rule, both-empty rule, another reading of the
smoothing method) and under alternative computations that are not conventions
(mean of sentence scores, float32 arithmetic, a 0-100 scale, a tiny value in
place of a zero precision, an early "return 0", ...), then pairs of them, and
returns the first whose value matches the answer within the numeric contract
|a - e| <= 1e-12 + 1e-9 |e| (NaN matches only NaN).

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", segments=[Segment(hypothesis=["a", "b"], references=[["b", "a"]])],
    ...                        weights=[0.5, 0.01])
    >>> classify(request, 0.0008384428090212442, "nltk").name  # nltk: sys.float_info.min ** 0.01
    'tiny-instead-of-zero'

Pure: uses the oracle's formulas (`oracle.formulas.bleu`) and a little float arithmetic
on the oracle's own intermediate values; nothing here is imported from any
library under test.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from typing import Any, NamedTuple

from oracle.formulas import bleu
from oracle.formulas.conventions import Smoothing
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.memo import ALL_AT_ONCE, Memo, memoized
from oracle.formulas.profiles import get_profile
from oracle.models.protocol import Statistics
from oracle.models.results import Classification, NamedByParts, cause_name

from . import mechanisms
from .combination import ReturnedNumbers, Stage, returned_statistics
from .computations import (
    APPLIES,
    Context,
    context_for,
    departed_context,
    departed_result,
    derived_result,
    end_token_request,
    one_side_result,
    result_under,
    score_of,
    score_of_statistics,
    structured_computed,
    structured_counts,
    structured_kept,
    structured_length_bounds,
    structured_lengths,
    structured_request,
    structured_result,
    structured_ruled_out,
    structured_size,
)
from .countfit import SAME_AS_NAMED, differing_fields, fit_numbers, fitted_words
from .countfit import fit as fit_counting
from .countfit import is_fitted as is_fitted_counting
from .counting import best_single_reference_matches, fold_of
from .cover import states_what_is_known
from .expect import ORACLE_REFUSALS, oracle_options, statistics_of
from .judge import DEFAULT_REL, Contract, breaks_zero_rule, first_divergence
from .mechanisms import CATALOGUE, needs_evidence
from .mechanisms.combination import (
    MATRIX_VARIANTS,
    OTHER_COMBINATION,
    OTHER_SCALE,
    PARTIAL_NAMES,
    is_partial,
    stages_consistent_with,
)
from .mechanisms.combination import is_fitted as is_fitted_parameter
from .mechanisms.computations import (
    BREVITY_PENALTY_ALTERNATIVES,
    COMBINATION_COMPUTATIONS,
    COMPUTATIONS,
    FLOAT32,
    FLOAT32_REL_TOLERANCE,
    GENERIC_COMPUTATIONS,
    SMALL_WEIGHTS,
    SMOOTHED_COUNTS,
    SPECIFIC_COMPUTATIONS,
)
from .mechanisms.conventions import CONVENTIONS, alternatives
from .mechanisms.counting import (
    COUNTING_ALTERNATIVES,
    LINE_CHOPS,
    OTHER_COUNTING,
    OVER_TOTALS,
    counting_of,
    leaves_no_segment,
    matching_alternatives,
    matching_identity_ignored,
    matching_length_readings,
    matching_pairs,
    matching_stage_kinds,
    other_counting_words,
    pairs_with_conventions,
    parse_capped,
)
from .mechanisms.smoothing import STEM as SMOOTHING_STEM
from .mechanisms.smoothing import readings
from .mechanisms.state import STATE_STATISTICS
from .mechanisms.structure import (
    COUNTS_FIRST,
    ONE_SIDE_FOLDS,
    PADDED_CORPUS,
    SIDE_OPERATORS,
    SIDE_PAIRS,
    STATISTICS_ONLY,
    STRUCTURES,
)
from .mechanisms.text import DEPARTURES, departure_named
from .scorefit import fits as fitted_parameters
from .scorefit import fitted_value, terms_of
from .scorefit import replayed as replayed_fits
from .structure import SideLengths, line_lengths, side_lengths

# FLOAT32_REL_TOLERANCE (`mechanisms.computations`, shared with doctor): every explanation is retried at this
# tolerance after none matched exactly, and named "<explanation> + float32".

AGREES = "agrees"
UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class Explanation(NamedByParts):
    """A named root cause: what changed (option changes and/or a computation) and the value it gives.

    Its `parts` are the names of the mechanisms it combines, in the order they were applied (one for most; AGREES and
    UNEXPLAINED are one-part explanations too): names, not `Mechanism` objects, since a family's member carries a
    parameter its catalogue entry does not (`smoothing=floor(value=1/10)`, `other-counting-of-matches`) and the
    searches restrict to names (`among`, a baseline's causes). `name` and `fits` are the written forms
    (`models.results.cause_name`), for records and the console only: nothing here reads them back."""

    parts: tuple[str, ...]
    description: str
    #: ((option, value), ...) and/or (("computation", name),), in the order they were applied
    change: tuple = ()
    #: the recomputed value that matched the answer (None when unexplained)
    value: float | None = None
    #: the oracle's own value under the judged profile
    expected: float | None = None
    #: the parts of other explanations that fit this answer as well (same tier): a run names the one that fits all
    #: its records
    fitting: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self):
        if isinstance(self.parts, str) or any(isinstance(parts, str) for parts in self.fitting):
            raise TypeError(f"an explanation's parts are a tuple of mechanism names, not a written name: "
                            f"{self.parts!r}, fits {self.fitting!r}")

    @property
    def fits(self):
        """The written names of the other explanations that fit as well, as a record's `classification.fits`."""
        return tuple(cause_name(parts) for parts in self.fitting)

    @property
    def catalogue_description(self):
        """What the explanation means in words from its parts in the catalogue (`mechanisms.describe_parts`), where
        no search gave it words of its own."""
        return mechanisms.describe_parts(self.parts)

    @property
    def explained(self):
        return self.parts != (UNEXPLAINED,)

    def classification(self, *, documented=(), scope=None):
        """This explanation as a record's root cause: its parts handed on as they are (written where the line is)."""
        return Classification(
            parts=self.parts,
            description=self.description,
            change=tuple((key, _scalar(value)) for key, value in self.change),
            value=self.value,
            expected=self.expected,
            documented=documented,
            scope=scope,
            fit_parts=self.fitting,
        )


def _scalar(value):
    """A change's value as the stream keeps it: a JSON scalar (a Fraction or a Smoothing as its text)."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def within_contract(actual, expected, *, rel_tol=DEFAULT_REL):
    """The numeric contract (`oracle.diagnose.judge.Contract`) at relative tolerance `rel_tol`, with
    the judge's zero rule: a tiny number for an exact 0 is not within it, whatever the tolerance."""
    return Contract(rel=rel_tol).close(actual, expected) and not breaks_zero_rule(actual, expected)


# -- alternative conventions --------------------------------------------------


#: The options a text request is tokenized again from its text under (`ScoreRequest.tokenized_as`).
_RETOKENIZING = frozenset({"token_split", "line_padding", "fold_stage", "case_fold"})


class _Candidate(NamedTuple):
    """An alternative reading the search tries: its mechanisms' names, its words, the option changes, the smoothing
    read instead (None: the requested one), and when it is tried (`mechanisms.smoothing.Reading`'s flags)."""

    parts: tuple[str, ...]
    words: str
    changes: dict
    smoothing: Smoothing | None
    ignores_request: bool = False
    pairs_with_conventions: bool = True


def _convention_changes(options, smoothing, level, profile_options, *, text=False):
    """A `_Candidate` for every single alternative convention (`alternatives`: each rule of its table other than the
    one in force; on a text request, the other rules of splitting words too), of every convention the catalogue
    declares in its order (`mechanisms.conventions.CONVENTIONS`: how words are made, then the formulas'), then every
    other reading of the requested smoothing. Kept (a tuple): every search on a request under the same options,
    smoothing and level has the same candidates."""
    try:
        return _kept_convention_changes(options, smoothing, level, profile_options, text)
    except TypeError:  # (options that cannot be hashed: built afresh)
        return tuple(_built_convention_changes(options, smoothing, level, profile_options, text))


@memoized(128)
def _kept_convention_changes(options, smoothing, level, profile_options, text):
    return tuple(_built_convention_changes(options, smoothing, level, profile_options, text))


def _built_convention_changes(options, smoothing, level, profile_options, text):
    out = [_Candidate((convention.mechanism_name(rule),), convention.words(rule), convention.changes(rule), None)
           for convention, rule in alternatives(options, CONVENTIONS, text=text, level=level,
                                                smoothing=smoothing)]
    for reading in readings(smoothing, profile_options):
        out.append(_Candidate((f"{SMOOTHING_STEM}{reading.smoothing.describe()}",), reading.words, {},
                              reading.smoothing, reading.ignores_request, reading.pairs_with_conventions))
    return out


def _weak(convention):
    """Readings that say "the implementation ignored the request" come after the specific computations."""
    return convention.ignores_request


def _unrequested(convention):
    """A reading tried alone, after the score and smoothing stages' variants (a smoothing where none was requested:
    `Reading.pairs_with_conventions`)."""
    return not convention.pairs_with_conventions


def _pairs(candidates, others=None):
    """Every two of `candidates` that change different options and at most one the smoothing, as one candidate;
    with `others`, each of `candidates` (a pair) with one of `others` whose parts it does not hold (a triple, once:
    after the pair's parts in the order of `others`)."""
    position = {c.parts: index for index, c in enumerate(others or ())}
    combined = combinations(candidates, 2) if others is None else (
        (a, b) for a in candidates for b in others
        if all(position.get((part,), len(position)) < position[b.parts] for part in a.parts))
    return [
        _Candidate(a.parts + b.parts, f"{a.words}; and {b.words}", {**a.changes, **b.changes},
                   a.smoothing or b.smoothing)
        for a, b in combined
        if not (set(a.changes) & set(b.changes)) and not (a.smoothing is not None and b.smoothing is not None)
    ]


def _words(name, via="computation"):
    """The words a record found by route `via` shows for mechanism `name` (`mechanisms.CATALOGUE`; a family's member,
    as a capped length's cap, in its family's words for it)."""
    mechanism = CATALOGUE.get(name)
    return mechanisms.describe(name) if mechanism is None else mechanism.words(via)


# -- classification --------------------------------------------------------------


def _answer_parts(answer: object) -> tuple[float | None, Any]:
    if isinstance(answer, (int, float)):
        return float(answer), None
    score = getattr(answer, "score", None)
    statistics = getattr(answer, "statistics", None)
    if score is None and isinstance(answer, dict):
        score, statistics = answer.get("score"), answer.get("statistics")
    if isinstance(score, str) and score.lower() == "nan":
        score = math.nan
    if isinstance(statistics, Statistics):  # a reply's (`judge.Answered`): compared as the wire has them
        statistics = statistics.to_json()
    return (None if score is None else float(score)), statistics


def _statistics_differ(statistics, result, n):
    """Which layer of the reported counts differs from the oracle's (None if none does): the judge's own
    comparison (`judge.first_divergence`), on the counts only (BP is a float the explanations recompute)."""
    if not statistics or result is None:
        return None
    if not isinstance(statistics, Statistics):  # an in-process adapter's answer carries a mapping
        statistics = Statistics.model_validate(statistics)
    divergence = first_divergence(statistics_of(result, n), statistics, max_order=n, bp=False)
    return None if divergence is None else divergence[0]


def _reports_smoothed_counts(statistics, result, n):
    """Whether the reported matches and totals are the oracle's smoothed ones (the lengths its own)."""
    smoothed = None if result is None else result.smoothed
    if not statistics or smoothed is None:
        return False
    reported = statistics if isinstance(statistics, Statistics) else Statistics.model_validate(statistics)
    return (
        reported.hyp_len == result.statistics.hyp_len
        and reported.ref_len == result.statistics.ref_len
        and [float(x) for x in reported.matches[:n]] == [float(x) for x in smoothed.matches[:n]]
        and [float(x) for x in reported.totals[:n]] == [float(x) for x in smoothed.totals[:n]]
    )


def consistent_with(statistics, result, n):
    """Whether an explanation whose counting gives `result` agrees with the statistics the implementation
    returned (their counts, or the counts after smoothing): an explanation that contradicts a returned
    statistic is never chosen. No statistics returned contradict nothing."""
    if not statistics:
        return True
    if result is None:
        return False
    return _statistics_differ(statistics, result, n) is None or _reports_smoothed_counts(statistics, result, n)


#: Token computations one classification may spend (each recomputation of the oracle, or computation on its
#: values, costs the request's token count): a deterministic bound, never wall-clock, so that a committed
#: report does not depend on the machine's speed. A small input is never near it; a 2,000-segment example
#: that shrinking could not reduce gets about 50 alternatives, then "unexplained: the budget was spent".
ATTRIBUTION_BUDGET = 4_000_000


@dataclass
class TokenMeter:
    """Token computations several searches share (`oracle.harness.budget.search_tokens_left`: those for one kind's
    failures not shrunk in a block of examples): a search given a meter spends at most what is left of it (and never
    more than its own budget), adds what it spent, and sets `cut` where it stopped because the meter ran out.
    `words` says whose budget it is, in a cut search's description."""

    allowed: int
    words: str = "the search budget its kind shares"
    #: what a candidate costs at least, in tokens, in a search given this meter (`SEARCH_CANDIDATE_FLOOR`), and a piece
    #: of the input scored alone (`_Search.piece`)
    floor: int = 1
    #: whether it is a block's whole diagnosis budget (`oracle.harness.budget.DIAGNOSIS_CANDIDATES_PER_TOKEN`, run-cap),
    #: not one kind's share: a cut search's record names that budget
    whole_block: bool = False
    spent: int = 0
    cut: bool = False

    def left(self) -> int:
        return max(self.allowed - self.spent, 0)


#: What a candidate costs at least, in tokens, where searches share a budget (`TokenMeter.floor`), and what a piece of
#: the input scored alone costs at least (`_Search.piece`): the oracle's computation costs about as much again whatever
#: the input's size (some 1.3 ms a candidate on a 73-token input, where a 4,225-token one costs some 15 microseconds a
#: token), so a budget counted in tokens alone let a search on a small input try thousands of candidates for seconds.
#: Re-read on 2026-11-30 (segment-meter, benchmarks/README.md): a full search costs some 0.04 ms a candidate on a
#: 73-token input and 0.17 microseconds a charged token on 364- to 1,985-token ones, so a small candidate is worth some
#: 235 tokens there, not 100; kept at 100 (a higher floor cuts every metered search on a short input sooner; its names
#: not measured).
SEARCH_CANDIDATE_FLOOR = 100


class _BudgetSpent(Exception):
    """The classification's token budget ran out (internal: caught by `classify`)."""


@dataclass
class _Search:
    """One classification's search state: the request, the answer, what is permitted, the budget."""

    ctx: Context
    base: object
    actual: float
    statistics: object
    n: int
    allowed: frozenset | None
    budget: int
    cost: int
    spent: int = 0
    tried: int = 0
    #: what a candidate costs at least, in tokens (`TokenMeter.floor`): a piece of the request scored alone too
    floor: int = 1
    #: the pieces of the request this search has had scored alone (`piece`), by key: each charged once a search
    scored: set = field(default_factory=set)
    #: what the candidate being computed still covers of its pieces (`computed`): its own charge, one candidate on
    #: the input, pays for that much of them
    credit: int = 0
    cache: dict = field(default_factory=dict)
    #: each computation's value on each candidate, once computed: the tiers try a computation on a candidate again
    #: with other tolerances (`_with_every_simple_fit` re-reads the simple tiers), and its value is the same each
    #: time; the candidate is charged each time as before, so what a search may spend does not change
    values: dict = field(default_factory=dict)

    def permitted(self, *names):
        allowed = self.allowed
        if allowed is None:
            return True
        for name in names:  # (a loop, not all() over a generator: called for every candidate and computation)
            if name not in allowed:
                return False
        return True

    def charge(self):
        self.spent += self.cost
        self.tried += 1
        if self.spent > self.budget:
            raise _BudgetSpent

    def answered_by(self, result):
        """Whether `result` is the implementation's answer, score and counts: its score within the contract and every
        statistic the implementation returned its own (`_statistics_differ`)."""
        return within_contract(self.actual, score_of(result)) and _statistics_differ(
            self.statistics, result, self.n) is None

    def reshaping(self, ctx, structure):
        """Before the oracle computes on the request as a `structure.Structure` reshapes it: what that costs beyond
        one candidate on the input (`structured_size`: a reshaped request can be many times larger, as hundreds of
        one-character references a segment), spent before it is computed, so that a search never starts what its
        budget cannot pay for. Nothing where it is computed already or does not apply."""
        if structured_computed(ctx, structure):
            return
        request = structured_request(ctx, structure)
        if request is not None:
            self.spent += max(structured_size(request) - self.cost, 0)
            if self.spent + self.cost > self.budget:  # (the candidate's own charge follows the computation)
                raise _BudgetSpent

    def recounting(self, request):
        """Before the oracle counts and scores `request`, a reshaped request, afresh (another smoothing on it, in the
        pair tier): what that costs beyond one candidate on the input (`structured_size`), spent before it is
        computed, as `reshaping` spends it where a structure's result is first computed."""
        self.spent += max(structured_size(request) - self.cost, 0)
        if self.spent + self.cost > self.budget:  # (the candidate's own charge follows)
            raise _BudgetSpent

    def piece(self, key, tokens):
        """Before the oracle scores a piece of the request alone (`computations.Context.scoring_alone`: one segment, a
        batch of segments, one reference of a segment, `tokens` tokens): charged as a candidate on that piece (its
        tokens, `floor` at least), spent before it is computed, as `reshaping` spends a reshaped request, so that a
        search never starts what its budget cannot pay for. A variant that scores every segment of a corpus alone
        costs that many candidates, each as dear as a candidate on a short input (the exact arithmetic of a score costs
        about as much whatever its counts), where it was charged one candidate on the corpus: a search among a kind's
        names on a 2,000-segment input ran half a second on a charge of some five candidates (benchmarks/README.md,
        segment-meter). What the candidate's own charge covers (`credit`: one candidate on the input) is not charged
        twice, and a piece this search had scored already (`key`: the same piece under the same options and
        smoothing, kept in the context's counts) is not charged again."""
        if key in self.scored:
            return
        self.scored.add(key)
        price = max(int(tokens), self.floor)
        covered = min(price, self.credit)
        self.credit -= covered
        self.spent += price - covered
        if self.spent + self.cost > self.budget:  # (the candidate's own charge follows the computation)
            raise _BudgetSpent

    def computed(self, function, ctx, result):
        """`function(ctx, result)`, a computation on a candidate, whose pieces scored alone (`piece`) beyond one
        candidate on the input are charged as they are scored; its own charge, one candidate, follows where it
        gives a value (as before)."""
        self.credit = self.cost
        try:
            return function(ctx, result)
        finally:
            self.credit = 0

    def result_for(self, changes, smoothing_change):
        key = (tuple(sorted(changes.items())), smoothing_change)
        if key not in self.cache:
            self.charge()
            try:
                changed = self.ctx.options.with_changes(**changes) if changes else self.ctx.options
            except BleuOracleError:
                self.cache[key] = None
            else:  # a text request split into words otherwise is tokenized again from its text
                text = self.ctx.text if _RETOKENIZING & changes.keys() else None
                self.cache[key] = result_under(self.ctx, options=changed, smoothing=smoothing_change, request=text)
        return self.cache[key]


@dataclass(frozen=True)
class _Counted:
    """Counts an explanation implies, shaped as a BleuResult where `consistent_with` reads one."""

    statistics: object
    bp: object
    smoothed: object = None


def _counting_of(cname, ctx, result):
    """The counts a computation implies: `result`'s own for a computation on the oracle's counts, else the
    counts its mechanism produces (None where they are not modelled: see `Mechanism.counts_modelled`)."""
    if cname in ("case-folded-unasked", "case-not-folded"):
        return result_under(ctx, options=ctx.options.with_changes(lowercase=cname == "case-folded-unasked"))
    if cname == "empty-sentence-end-token":
        return derived_result(ctx, "end tokens", end_token_request)
    if cname in ("best-single-reference-clipping", "best-single-reference-with-epsilon") and not ctx.request.is_text:
        n = len(ctx.weights)
        fold = fold_of(ctx.options.with_changes(lowercase=True) if cname.endswith("epsilon") else ctx.options)
        matches = best_single_reference_matches(ctx.request.segments, n, fold=fold)
        s = result.statistics
        return _Counted(bleu.Statistics(s.hyp_len, s.ref_len, matches, tuple(s.totals[:n]), s.segments), result.bp)
    if (departure := departure_named(cname)) is not None:
        return departed_result(ctx, departure)
    if cname in ONE_SIDE_FOLDS:
        return one_side_result(ctx, cname, ONE_SIDE_FOLDS[cname][1])
    if cname in STRUCTURES:
        return structured_result(ctx, STRUCTURES[cname])
    if cname in STATE_STATISTICS:
        statistics = STATE_STATISTICS[cname](ctx, result)
        return None if statistics is None else _Counted(statistics, result.bp)  # (BP is not compared: recomputed)
    return result


def _lengths_agree(statistics, result):
    if not statistics or result is None:
        return not statistics
    reported = _reported(statistics)
    return reported.hyp_len == result.statistics.hyp_len and reported.ref_len == result.statistics.ref_len


def _by_convention(search, candidates, close, suffix, *, stats):
    """Every convention (or pair) in `candidates` whose value is within `close` of the answer and whose
    counts do not contradict the returned statistics (`stats`: they must equal them)."""
    found = []
    for name, description, changes, smoothing_change, *_ in candidates:
        if not search.permitted(*name, *suffix):
            continue
        result = search.result_for(changes, smoothing_change)
        value = score_of(result)
        if not close(search.actual, value):
            continue
        agrees = (
            _statistics_differ(search.statistics, result, search.n) is None
            if stats
            else consistent_with(search.statistics, result, search.n)
        )
        if agrees:
            found.append(
                Explanation(
                    _join(name, suffix),
                    _join_text(description, suffix),
                    _change_tuple(changes, smoothing_change) + _suffix_change(suffix),
                    value,
                )
            )
    return found


def _by_computation(search, computations, close, suffix, candidates=((None, None, {}, None),)):
    """Every computation (on the judged conventions, or on each of `candidates`) whose value is within
    `close` of the answer and whose counting does not contradict the returned statistics."""
    found = []
    ctx, options = search.ctx, search.ctx.options
    # (those the search may name, once: each candidate tries them in this order)
    computations = [(cname, function) for cname, function in computations if search.permitted(cname, *suffix)]
    for name, description, changes, smoothing_change, *_ in candidates:
        if name is not None and not search.permitted(*name):
            continue
        result = search.result_for(changes, smoothing_change) if name is not None else search.base
        if result is None:
            continue
        changed = (
            ctx
            if name is None
            else Context(
                ctx.request,
                options.with_changes(**changes) if changes else options,
                smoothing_change or ctx.smoothing,
                ctx.weights,
                ctx.counted,
                searched=ctx.searched,
                pieces=ctx.pieces,
            )
        )
        candidate = (name, tuple(sorted(changes.items())), smoothing_change)
        for cname, function in computations:
            if cname in STATISTICS_ONLY and not search.statistics:  # a score alone names none of them
                continue
            if cname in COUNTS_FIRST:  # tried where their counts are the returned ones (`_by_structure`), never here
                continue
            if cname in STRUCTURES:
                search.reshaping(changed, STRUCTURES[cname])
            if (cname, candidate) not in search.values:
                search.values[cname, candidate] = _value_or_ruled_out(search, cname, function, changed, result)
            value = search.values[cname, candidate]
            if value is None:  # the computation's condition does not hold: a cheap test, not charged
                continue
            search.charge()
            if value is _RULED_OUT or not close(search.actual, value):
                continue
            if not CATALOGUE[cname].counts_modelled:  # only the lengths it keeps are compared
                if not _lengths_agree(search.statistics, result):
                    continue
            elif not consistent_with(search.statistics, _counting_of(cname, changed, result), search.n):
                continue
            label = _join((cname,) if name is None else (*name, cname), suffix)
            text = _words(cname) if name is None else f"{description}; and {_words(cname)}"
            found.append(
                Explanation(
                    label,
                    _join_text(text, suffix),
                    _change_tuple(changes, smoothing_change) + (("computation", cname),) + _suffix_change(suffix),
                    value,
                )
            )
    return found


#: The value of a computation ruled out by its counts (`_value_or_ruled_out`): charged, never close to an answer.
_RULED_OUT = object()


def _value_or_ruled_out(search, cname, function, changed, result):
    """The value of the computation `cname` on a candidate (`changed`, its `result`), or _RULED_OUT without computing
    it where it applies (`computations.APPLIES`: each segment or reference scored alone, the costliest a search tries)
    and its counts, the candidate's own, contradict the returned statistics: then it fits under no tolerance, as the
    test after its value would find, and it is charged as before (where it applies: its function's value is not None).
    None where it does not apply, uncharged as before."""
    applies = APPLIES.get(cname)
    if applies is None or consistent_with(search.statistics, result, search.n):
        return search.computed(function, changed, result)
    return _RULED_OUT if applies(changed, result) else None


def _tiers(search, conventions, close, suffix, *, zero_variants=False):
    """The explanations in the order they are tried, tier by tier (a lazy sequence of lists): a simpler
    explanation first; every explanation of one tier that fits is kept, so that a run can pick the one
    that fits all its records. A score stage's variant fits an answer of 0 only where `zero_variants` (a record's
    other fits) or among given names (`_nonzero`)."""
    strong = [c for c in conventions if not _weak(c)]
    weak = [c for c in conventions if _weak(c) and not _unrequested(c)]
    unrequested = [c for c in conventions if _unrequested(c)]
    # a smoothing where none was requested is tried alone, never combined: eight more readings in every pair made a
    # run whose bug no mechanism names cost 47 times its fixed twin (quadratic in the conventions)
    paired = [c for c in conventions if not _unrequested(c)]
    # (the pairs are built where a tier first needs them: most searches end in a simple tier; a search among given
    # names tries a pair only where it may name both its parts, so only those are paired, in the same order)
    pairable = paired if search.allowed is None else [c for c in paired if search.permitted(*c.parts)]
    pairs = functools.cache(lambda: _pairs(pairable))
    yield (
        lambda: (
            _by_computation(search, SPECIFIC_COMPUTATIONS, close, suffix)
            + _by_convention(search, strong, close, suffix, stats=False)
            + (_emptied_corpus(search) + _small_weights_dropped(search) if not suffix else [])
        )
    )
    yield lambda: (_by_computation(search, GENERIC_COMPUTATIONS, close, suffix)
                   + (_small_weights_dropped(search, every=True) if not suffix else []))
    yield lambda: _by_convention(search, weak, close, suffix, stats=False)
    # (among given names -- the run's other records' causes, an implementation's documented classes -- a variant's
    # 0 has that evidence)
    zero_fits = zero_variants or search.allowed is not None
    yield lambda: _by_computation(search, COMBINATION_COMPUTATIONS, close if zero_fits else _nonzero(close), suffix)
    yield lambda: _by_convention(search, unrequested, close, suffix, stats=False)
    # the first of the combined tiers: a structure whose statistics are the returned ones, scored by a score stage's
    # variant (`_by_structure_with_stage`); its counts are exact evidence, a convention pair's are not
    yield lambda: [] if suffix else _by_structure_with_stage(search, conventions, close)
    yield lambda: _by_computation(search, _PAIRED_COMPUTATIONS, close, suffix, paired)
    yield lambda: _by_convention(search, pairs(), close, suffix, stats=False)
    yield lambda: _by_computation(search, _PAIRED_COMPUTATIONS, close, suffix, pairs())
    if search.allowed is not None:  # only among given names (documented, hinted): a few triples, a few pairs
        given = [c for c in paired if search.permitted(*c.parts)]
        yield lambda: _by_convention(search, _pairs(_pairs(given), given), close, suffix, stats=False)
        yield lambda: _by_departure_with_computation(search, close, suffix)


#: The computations tried with a convention or two: those whose mechanism says so in the catalogue
#: (`Mechanism.pairs_with_conventions`: not the score stage's variants, nor a request mis-shaped by its caller).
_PAIRED_COMPUTATIONS = tuple((name, function) for name, function in COMPUTATIONS
                             if CATALOGUE[name].pairs_with_conventions)


def _nonzero(close):
    """`close` for an answer other than 0: a wrong 0 is what many bugs give (an empty order counted, a test on one
    order's matches), so it names no score stage's variant by itself; the variant stays among the fits of a
    record another explanation names (`_with_every_simple_fit`, `_zero_variants`), for a run its other records
    name it in."""
    return lambda actual, value: actual != 0 and close(actual, value)


def _zero_variants(search):
    """The score stage's variants that give an answer of 0 (with counts the returned ones do not contradict)."""
    if search.actual != 0:
        return ()
    return tuple(e.parts for e in _by_computation(search, COMBINATION_COMPUTATIONS, within_contract, ()))


#: How many of `_tiers` are single explanations (the rest combine two or three).
SIMPLE_TIERS = 5


def _first_tier(search, conventions, close, suffix, *, simple=True, combined=True):
    """The explanations of the first tier that has any (`simple`: the single-explanation tiers; `combined`:
    the tiers that combine explanations)."""
    for index, tier in enumerate(_tiers(search, conventions, close, suffix)):
        if simple if index < SIMPLE_TIERS else combined:
            found = tier()
            if found:
                return found
    return []


def _with_every_simple_fit(search, conventions, found):
    """`found` (a tier's explanations), then the single explanations of the other simple tiers that fit as
    well: a simpler tier's explanation names the record, and a mechanism of a later tier that also fits it stays
    among its fits, so that a run can name the one that fits all its records (`oracle.diagnose.cover`). The
    search stops where the budget does: what was found stands."""
    names = {e.parts for e in found}
    extra = []
    try:
        for index, tier in enumerate(_tiers(search, conventions, within_contract, (), zero_variants=True)):
            if index >= SIMPLE_TIERS:
                break
            for explanation in tier():
                if explanation.parts not in names:
                    names.add(explanation.parts)
                    extra.append(explanation)
    except _BudgetSpent:
        pass
    return found + extra


def _chosen(found, expected):
    """The first explanation of a tier, with the others that fit as well as it does."""
    first = found[0]
    others = tuple(dict.fromkeys(e.parts for e in found[1:] if e.parts != first.parts))
    return replace(first, expected=expected, fitting=others)


def _float32_close(a, e):
    return within_contract(a, e, rel_tol=FLOAT32_REL_TOLERANCE)


#: The numbers a score or a brevity penalty is bounded by (0 and 1, 100 on the 0-100 scale): an answer exactly one of
#: them carries no rounding residue for float32 to be read from.
_BOUNDS = frozenset((0.0, 1.0, 100.0))


def _float32_readable(search, value):
    """Whether float32 may be named of an answer `value` (a score or a returned BP), alone or as a part ("X +
    float32"): float32 is read from the residue single precision leaves in a number's last digits, and an answer
    exactly a bound of the score (0, 1, 100) has none: any stage that returns a constant, or cuts a term whose value
    is that bound within float32's precision (a weight of 1e-6 puts every precisions' term within 1e-7 of 1), gives
    it, so a float32 fit there is a numeric coincidence on one record (issue 36), which names no record (its run's
    other records still name float32 where they fit it: `oracle.diagnose.cover`). Of the 1,615 committed records of
    real tools whose name or fits hold float32 (reports/data/runs), none answered exactly 0, 1 or 100."""
    return search.permitted(FLOAT32) and float(value) not in _BOUNDS


def classify(request, answer, profile, *, overrides=None, among=None, budget=ATTRIBUTION_BUDGET, meter=None):
    """The explanation of `answer` (a reply, a ScoreAnswer, a mapping or a number) for `request` under `profile`.

    Returns Explanation("agrees") if the oracle itself matches; if no alternative does, what is known of the
    difference as a partial explanation (`mechanisms.combination.is_partial`: the first diverging layer and the
    score stage the numbers are consistent with), or Explanation("unexplained") where nothing is. `overrides`
    are convention overrides the case already applies. `among`, if given, restricts the search to explanations
    whose every part (`Explanation.parts`) is one of these names -- e.g. the documented discrepancy classes of
    one implementation -- so that an answer several alternatives explain is attributed to the one known to occur.

    The statistics come first: when the answer carries statistics, an explanation whose counting
    contradicts them is never chosen. Then tiers, simplest first: computations gated by a
    library-specific condition and single conventions; generic computations; readings that ignore
    the requested smoothing; the score and smoothing stages' variants (`oracle.diagnose.combination`,
    `oracle.diagnose.smoothingstage`); a smoothing method where none was requested; a convention with a
    computation; two conventions; two conventions with a
    computation. All of that within the numeric contract, then within float32 precision ("... +
    float32"). Every explanation of the first tier that fits is kept (`Explanation.fits` names the
    others), so that a run can name the one explanation that fits all its records. The search costs
    at most `budget` token computations (deterministic: never a clock), and at most what is left of `meter` (a
    `TokenMeter` several searches share), to which it adds what it spent.

    When the score agrees but reported statistics do not, the explanation is the first
    convention (or pair) under which the oracle's statistics are the reported ones.
    """
    profile = get_profile(profile)
    limit = budget if meter is None else min(budget, meter.left())
    search = _search_for(request, answer, profile, overrides=overrides, among=among, budget=limit,
                         floor=1 if meter is None else meter.floor)
    if isinstance(search, Explanation):
        return search
    request, text, expected = search.ctx.request, search.ctx.text, score_of(search.base)
    conventions = _convention_changes(search.ctx.options, search.ctx.smoothing, request.level, profile.options,
                                      text=text is not None)
    try:
        return _explain(search, conventions, expected)
    except _BudgetSpent:
        whose = f"the attribution budget ({budget:,} token computations)"
        if meter is not None and limit < budget:
            meter.cut = True
            whose = f"{meter.words} ({limit:,} token computations left for this search)"
        spent = f"{whose} was spent after {search.tried} alternatives on this {request.token_count:,}-token input"
        if meter is not None and meter.cut:  # the session names a cut record (its block's causes, else what is known)
            return Explanation((UNEXPLAINED,), spent, (), None, expected)
        return _known_once_spent(search, expected, spent)
    finally:
        if meter is not None:
            meter.spent += search.spent


def _known_once_spent(search, expected, spent):
    """What is known of an answer whose search spent its own budget (`spent`, in words): its first diverging layer and
    the score stage its numbers are consistent with (`_what_is_known`), never a bare `unexplained` where they tell
    (issue 36). Knowing it costs a fixed number of candidates more on the input (the score stage's variants that
    give 0, the returned counts scored), as `what_is_known` costs a record whose run cut its search."""
    search.budget = search.spent + (len(COMBINATION_COMPUTATIONS) + 2) * search.cost
    try:
        known = _what_is_known(search, expected)
    except _BudgetSpent:
        known = None
    if known is None or known.name == UNEXPLAINED:
        return Explanation((UNEXPLAINED,), spent, (), None, expected)
    return replace(known, description=f"{known.description}; {spent}")


def _search_for(request, answer, profile, *, overrides, among, budget, floor=1):
    """One classification's search state for `answer` to `request` (an Explanation where the answer has no score)."""
    actual, statistics = _answer_parts(answer)
    # a text request: the explanations vary the counting and the splitting of words, not the tokenizer's rules
    text = request if request.is_text else None
    kept = _kept_for(request, profile, overrides)
    if "tokenized" not in kept:
        kept["tokenized"] = request.tokenized_as(oracle_options(profile, lowercase=request.lowercase,
                                                                overrides=overrides))
    request = kept["tokenized"]
    ctx = context_for(request, profile, overrides, text=text, counted=kept)
    base = result_under(ctx)
    if actual is None:
        return Explanation((UNEXPLAINED,), "the answer has no score", (), None, score_of(base))
    search = _Search(ctx, base, actual, statistics, len(ctx.weights), None if among is None else frozenset(among),
                     budget, max(1, floor, request.token_count), floor=max(1, floor))
    # (the pieces of the request its computations score alone are charged to this search: `_Search.piece`)
    search.ctx = replace(ctx, pieces=search.piece)
    return search


#: What the oracle computed on the request last classified (`_kept_for`): by (its id, the profile's options and the
#: overrides), (the request, `Context.counted`); one at a time (another request's drops it).
_LAST_KEPT: Memo = Memo(1, ALL_AT_ONCE)


def _kept_for(request, profile, overrides):
    """What the oracle computed on `request` under `profile` and `overrides` for earlier searches, kept (a new dict
    for another request): a failing record is classified several times on the same request (among its kind's hints,
    among every explanation, what is known, its block's causes; a shrunk one on its original too), and what each
    search computes on it (counts, each segment's, the results on it reshaped) is a function of the request alone.
    Only the last request is kept, by identity: protocol models are frozen, and the reference held keeps its identity
    from being reused."""
    try:
        key = (profile.options, tuple(sorted((overrides or {}).items())))
        hash(key)
    except TypeError:  # overrides that cannot be compared: nothing kept
        return {}
    last = _LAST_KEPT.get((id(request), key))
    if last is not None and last[0] is request:
        return last[1]
    kept: dict = {}
    _LAST_KEPT.keep((id(request), key), (request, kept))
    return kept


def what_is_known(request, answer, profile, *, overrides=None, meter=None, zero_variants=True):
    """What is known of a wrong answer without searching for its mechanism: the first diverging layer and the score
    stage the returned numbers are consistent with (the partial explanations of `_what_is_known`), from the oracle's
    result once and exact tests on the numbers -- what a record is named where its run did not search every
    explanation for it. Explanation("unexplained") where nothing is known, or where the score agrees (a search
    names that case: `classify`). What it spends is added to `meter` (a `TokenMeter`), never refused: it costs a
    fixed number of candidates on the input, as judging it does. `zero_variants` False: an answer of 0 is not tried
    against the score stage's variants that give 0 (`_zero_variants`: every combination computation on the input,
    some thirty candidates, a search for its other fits rather than what is known), and its description says so."""
    search = _search_for(request, answer, get_profile(profile), overrides=overrides, among=None,
                         budget=ATTRIBUTION_BUDGET, floor=1 if meter is None else meter.floor)
    if isinstance(search, Explanation):
        return search
    expected = score_of(search.base)
    if within_contract(search.actual, expected):
        differs = _statistics_differ(search.statistics, search.base, search.n)
        if differs is not None:
            return _with_fitted_counting(search, _counts_differ_alone(search, differs, expected))
        return Explanation((UNEXPLAINED,), "the score agrees: no stage of the score to name", (), None, expected)
    try:  # (the score stage's variants that give 0 are computed for its fits: each charged as in a search)
        known = _with_fitted_counting(search, _what_is_known(search, expected, zero_variants=zero_variants,
                                                             fitted=True, charged=False))
        if zero_variants or search.actual != 0 or known.name == UNEXPLAINED:
            return known
        return replace(known, description=f"{known.description}; {ZERO_VARIANTS_NOT_TRIED}")
    except _BudgetSpent:
        return Explanation((UNEXPLAINED,), f"the attribution budget ({ATTRIBUTION_BUDGET:,} token computations) was "
                                        "spent before what is known of it was", (), None, expected)
    finally:
        if meter is not None:
            meter.spent += search.spent


def numeric_fits(request, reply, profile, *, overrides=None, meter=None):
    """The fits of a reply that broke protocol v1 by writing counts as numbers that are not integers (`reply`, an
    `oracle.models.protocol.NumericReply`): the counting grammar's fits of those numbers (`countfit.fit_numbers`: a
    field written as a float by its true divisions, issue 36's "an average in place of a sum"), each an Explanation,
    kept only where the score that came with them is the formulas' score of those numbers within the contract (the
    statistics explained, then the score). Empty where nothing fits or the score does not follow. Its passes are the
    fit's own (as `what_is_known`'s): a record whose answer is no valid reply is never searched, and this is what is
    known of it, never refused for a budget."""
    profile = get_profile(profile)
    search = _search_for(request, reply.score, profile, overrides=overrides, among=None, budget=ATTRIBUTION_BUDGET)
    if isinstance(search, Explanation):
        return []
    ctx, numbers = search.ctx, reply.statistics
    fits = fit_numbers(ctx.request.segments, search.n, ctx.options, numbers, search.base.statistics, kept=ctx.counted)
    if not fits:
        return []
    n = search.n
    try:
        returned = ReturnedNumbers(Fraction(numbers.hyp_len), Fraction(numbers.ref_len),
                                   tuple(map(Fraction, numbers.matches[:n])), tuple(map(Fraction, numbers.totals[:n])),
                                   len(ctx.request.segments))
        value = float(bleu.bleu_from_statistics(returned, weights=ctx.weights, options=ctx.options,
                                                smoothing=ctx.smoothing, level=ctx.request.level).score)
    except ORACLE_REFUSALS:
        return []
    if not within_contract(reply.score, value):
        return []
    return [Explanation(parts, "; and ".join(map(fitted_words, parts)), tuple(("computation", part) for part in parts),
                        value, score_of(search.base))
            for parts in fits]


def _with_fitted_counting(search, known):
    """`known`, what is known of a record not searched (`what_is_known`), with the fitted countings of its returned
    counts among its fits (`countfit`) where it is `other-counting-of-<layer>` alone: a run's pattern of fits is read
    across every record so named, searched or not (`cover._fitted_over_known`). Its passes are the fit's own (at most
    one for the lengths and one a window width), not charged to the search's budget nor to a block's meter: what is
    known of a record is never refused, and no other record's search is cut for it."""
    if len(known.parts) != 1 or not known.parts[0].startswith(OTHER_COUNTING) or not search.statistics:
        return known
    fits = fit_counting(search.ctx.request.segments, search.n, search.ctx.options, _reported(search.statistics),
                        search.base.statistics, permitted=search.permitted, kept=search.ctx.counted)
    fitting = tuple(parts for parts in fits if search.permitted(*parts) and parts not in known.fitting)
    # a fit that computes what a named reading does (`countfit.SAME_AS_NAMED`) has that reading beside it: a record not
    # searched was never offered the reading, which gives its counts on every input, so that a run whose searched
    # records the reading names covers this one by it too (planted:r-first-reference: x191, and x2 under the fit)
    readings = tuple(dict.fromkeys((SAME_AS_NAMED[parts[0]],) for parts in fitting
                                   if len(parts) == 1 and parts[0] in SAME_AS_NAMED
                                   and search.permitted(SAME_AS_NAMED[parts[0]])))
    fitting = (*fitting, *(parts for parts in readings if parts not in known.fitting))
    return replace(known, fitting=(*known.fitting, *fitting)) if fitting else known


def _explain(search, conventions, expected):
    actual, statistics, base, n = search.actual, search.statistics, search.base, search.n
    if within_contract(actual, expected):
        return _score_agrees(search, conventions, expected)
    counted = _from_returned_counts(search, conventions)
    if counted:
        return _chosen(counted, expected)
    if (
        statistics is not None
        and _float32_close(actual, expected)
        and _float32_readable(search, actual)
        and _statistics_differ(statistics, base, n) is not None
    ):
        strong = [c for c in conventions if not _weak(c)]
        found = _by_convention(search, strong, _float32_close, (FLOAT32,), stats=True)
        if found:
            return _chosen(found, expected)
    # single explanations, then float32 on the judged conventions (itself a single explanation), then combinations
    found = _first_tier(search, conventions, within_contract, (), combined=False)
    if found:
        return _chosen(_with_every_simple_fit(search, conventions, found), expected)
    if _float32_close(actual, expected) and _float32_readable(search, actual) and consistent_with(statistics, base, n):
        return Explanation((FLOAT32,), _words(FLOAT32), (("computation", FLOAT32),), expected, expected)
    found = _first_tier(search, conventions, within_contract, (), simple=False)
    if found:
        return _chosen(found, expected)
    found = _first_tier(search, conventions, _float32_close, (FLOAT32,)) if _float32_readable(search, actual) else []
    if found:
        return _chosen(found, expected)
    return _what_is_known(search, expected, fitted=True)


_NOTHING_FITS = "no single or paired alternative convention or computation gives this value"


#: What a record named by what is known alone, with an answer of 0, says of the score stage's variants that give 0.
ZERO_VARIANTS_NOT_TRIED = ("the score stage's variants that give 0 were not tried on it (a search for its other "
                           "fits, which its run did not run for it)")


def _what_is_known(search, expected, *, zero_variants=True, fitted=False, charged=True):
    """When no explanation reproduces the answer: what is known of it (`_known`); where `fitted` (a search tried every
    reading first, `_explain`, or the run names a record by what is known without that search, `what_is_known`, after
    its block's causes were tried on it), and the returned statistics are the formulas', a free parameter of the score
    fitted at a simple value (`_fitted`) names the record first, what is known among its fits: a fitted name needs a
    pattern across the run's records (`mechanisms.needs_evidence`), so that a record it fits alone is named by what is
    known (`oracle.diagnose.cover`). Not where a search spent its budget (`_known_once_spent`: what is known costs a
    fixed number of candidates there)."""
    known = _known(search, expected, zero_variants=zero_variants)
    found = _fitted(search, charged=charged) if fitted else []
    if not found:
        return known
    (name, value), others = found[0], found[1:]
    if known.parts == (UNEXPLAINED,) and search.allowed is not None:
        # a search among given names (an earlier record's fitted name, tried first): what is known is a fact of the
        # numbers, not a name the search chose, and stays among the fits as where every name is permitted
        # (`_with_what_is_known`)
        allowed, search.allowed = search.allowed, None
        try:
            known = _known(search, expected, zero_variants=False)
        finally:
            search.allowed = allowed
    kept = () if known.parts == (UNEXPLAINED,) else (known.parts, *known.fitting)
    fitting = tuple(dict.fromkeys(((other,) for other, _ in others if other != name)))
    return Explanation((name,), f"{mechanisms.describe(name)} (a value the judged formulas give with it: {value!r}); "
                                f"what is known besides: {known.description}",
                       (("computation", name),), value, expected, tuple(dict.fromkeys((*fitting, *kept))))


def _fitted(search, *, charged=True):
    """(name, value) of each free parameter of the score fitted at a simple value from this record's answer
    (`scorefit.fits`), where the implementation returned statistics and they are the formulas' (a fit is never chosen
    against them; a returned BP must be the fitted one, or the formulas' where the parameter is not the penalty's),
    each permitted by the search; each parameter tried is charged as a candidate on the input (deterministic) where
    `charged` (a search: `_explain`), not where what is known is read without one (`what_is_known`, whose cost is the
    oracle once and exact tests, added to its block's meter: some ten candidates more on each such record there cut
    later searches of the block sooner, and a run's records then differed between --jobs 1 and 2,
    tests/harness/test_budget.py)."""
    statistics, base = search.statistics, search.base
    if not statistics or base is None or _statistics_differ(statistics, base, search.n) is not None:
        return []
    terms = terms_of(base, len(search.ctx.request.segments))
    if terms is None:
        return []
    reported = _reported(statistics)
    returned_bp = None if reported.bp is None else float(reported.bp)
    charge = search.charge if charged else (lambda: None)
    found = [(name, value) for name, value in fitted_parameters(terms, search.actual, returned_bp=returned_bp,
                                                                charge=charge) if search.permitted(name)]
    if search.allowed is not None:  # an earlier record's fitted names, replayed (an answer of 0 too: `replayed`)
        given = sorted(name for name in search.allowed if is_fitted_parameter(name) and name not in dict(found))
        found += list(replayed_fits(terms, search.actual, given, returned_bp=returned_bp))
    return found


def _known(search, expected, *, zero_variants=True):
    """When no explanation reproduces the answer: what is known of it (`combination.stages_consistent_with`), named
    as a partial explanation -- the first diverging layer, and the score stage the answer is consistent with --,
    the others that hold among its fits, and so do the score stage's variants that give an answer of 0
    (`_nonzero`). `unexplained` where there is no number to test, no statistics to locate the difference by (the
    counts might be what differs, and a stage's interval test would then accuse the combination of it) and no
    power of ten between the answer and the score."""
    statistics, base, n = search.statistics, search.base, search.n
    differs = _statistics_differ(statistics, base, n)
    if base is None:
        return Explanation((UNEXPLAINED,), _NOTHING_FITS, (), None, expected)
    zeros = _zero_variants(search) if zero_variants else ()
    returned_bp = None
    if statistics:
        reported = _reported(statistics)
        returned_bp = None if reported.bp is None else float(reported.bp)
    if differs is None:
        combined, prefix, layer = base, (), "the statistics are the oracle's (c, r, matches and totals of every order)"
        if base.score.is_nan():  # c = r = 0: a number where the formula has none is scored by no stage of it
            layer += (", on which the judged formulas leave the score undefined (NaN: c = r = 0), and the answer is "
                      "a number")
    elif (structured := _structure_of_returned_counts(search)) is not None:
        (shape, combined), prefix = structured, (structured[0],)
        layer = (f"the statistics are the oracle's on the request as {shape} shapes it ({_words(shape)}), and the "
                 "score does not follow from them by the judged formulas")
    else:
        combined, prefix = _scored_as_returned(search), (f"{OTHER_COUNTING}{differs}",)
        divergence = first_divergence(statistics_of(base, n), _reported(statistics), max_order=n, bp=False)
        if combined is not None and within_contract(search.actual, score_of(combined)) and search.permitted(*prefix):
            # the returned counts, scored by the judged formulas, give the answer: the counting alone differs (as
            # `_from_returned_counts` names it where the search ran), not the combination as well
            where = f" first at {divergence[2]}" if divergence else ""
            return Explanation(prefix, f"what is known: the implementation's own statistics, scored by the judged "
                                       f"profile's formulas, give its answer; they differ from the oracle's{where}",
                               (("computation", prefix[0]),), score_of(combined), expected, zeros)
        if combined is None and search.permitted(*prefix):
            # the judged formulas have no score for the returned counts (`_scored_as_returned`: matches of no n-gram,
            # fewer orders than the weights): nothing is known of the combination, which is then accused of nothing;
            # no change (nothing to replay: not explained, so a process's history is searched as for what is known)
            where = f" first at {divergence[2]}" if divergence else ""
            return Explanation(prefix, f"{_NOTHING_FITS}; what is known: the statistics differ from the oracle's"
                                       f"{where}, and the judged formulas have no score for them (an order with "
                                       "matches of no n-gram, or fewer orders than the weights), so whether the score "
                                       "follows from them is not known", (), None, expected, zeros)
        layer = (f"the statistics differ from the oracle's first at {divergence[2]}, and the score does not follow "
                 "from them by the judged formulas" if divergence else "")
    stages = stages_consistent_with(search.actual, combined, returned_bp=returned_bp if differs is None else None)
    if not statistics:
        stages = [stage for stage in stages if stage.name == OTHER_SCALE]  # the one test that needs no counts
        if not stages:
            return Explanation((UNEXPLAINED,), f"{_NOTHING_FITS}; no statistics were returned, so the layer where it "
                                            "first differs is not known", (), None, expected, zeros)
        layer = "no statistics were returned"
    decided = [stage for stage in stages if stage.decided]
    if decided:  # an equality decides: the intervals that hold as well add nothing
        stages = decided
    elif len(stages) > 1 or any(stage.vacuous for stage in stages):
        # an answer in several stages' intervals is evidence for none, and one below the right mean is always "another
        # brevity penalty": none is named, none is a fit
        consistent = "; or ".join(stage.description for stage in stages)
        stages = [Stage(OTHER_COMBINATION, f"{PARTIAL_NAMES[OTHER_COMBINATION]} (consistent with each of: "
                                           f"{consistent})")]
    names = [((*prefix, stage.name), stage.description) for stage in stages] or [
        ((*prefix, OTHER_COMBINATION), PARTIAL_NAMES[OTHER_COMBINATION])]
    names = [(parts, text) for parts, text in names if search.permitted(*parts)]
    if not names:
        return Explanation((UNEXPLAINED,), _NOTHING_FITS, (), None, expected, zeros)
    # a structure read from one record's counts names a run's records only with a pattern across them
    # (`mechanisms.needs_evidence`): the layer's reading, true of the same numbers, fits each such record as well
    structured_only = differs is not None and prefix and prefix[0] != f"{OTHER_COUNTING}{differs}"
    layered = tuple(layer_parts for layer_parts in ((f"{OTHER_COUNTING}{differs}", *parts[len(prefix):])
                                                    for parts, _ in names) if search.permitted(*layer_parts)) \
        if structured_only else ()
    (parts, text), others = names[0], tuple(dict.fromkeys((*(other for other, _ in names[1:]), *layered, *zeros)))
    return Explanation(parts, f"{_NOTHING_FITS}; what is known: {layer}; {text}",
                       tuple(("computation", part) for part in parts), None, expected, others)


#: The padded-corpus structures (`structure.PADDED_CORPUS`), which `_structure_of_returned_counts` never names.
_PADDINGS = frozenset(PADDED_CORPUS.values())


def _structure_of_returned_counts(search):
    """(name, result) of the first structural mechanism the search computed whose statistics are every one the
    implementation returned (c, r, matches and totals of every order), where the score is nothing tried: what is
    known is then the request's shape as that mechanism reads it, and the score stage after it (the characters of
    the texts counted, and scored otherwise). None without returned statistics, or where no computed one agrees; a
    mechanism neither this search nor an earlier one on the request computed is not computed here (no cost beyond
    the searches': reading a result kept on the request is free, so that a record whose search among its kind's names
    computed the structure, and whose full search was not run, is still read so by what is known). A padded corpus is
    never read so: on a corpus of one segment, padding it to k segments is every count times k, which any count
    doubled by another mistake gives as well; only its score (the search's full fit) tells it."""
    if not search.statistics:
        return None
    for name, structure in STRUCTURES.items():
        if name in _PADDINGS or not search.permitted(name) or not (
                structured_computed(search.ctx, structure) or structured_kept(search.ctx, structure)):
            continue
        if structured_lengths(search.ctx, structure, search.n) not in (None, _returned_lengths(search)):
            continue  # (its statistics cannot be the returned ones: not computed for that)
        result = structured_result(search.ctx, structure)
        if result is not None and _statistics_differ(search.statistics, result, search.n) is None:
            return name, result
    return None


def _returned_lengths(search):
    """(c, r, the totals of orders 1..n) the implementation returned, as `structured_lengths` gives the oracle's."""
    reported = _reported(search.statistics)
    return reported.hyp_len, reported.ref_len, tuple(reported.totals[:search.n])


def _scored_as_returned(search):
    """The judged profile's BleuResult of the counts the implementation returned, read by `returned_statistics` (their
    matches may exceed their totals: each precision m/t as it comes, `ReturnedStatistics`); None where the formulas
    have no score for them (an order with matches of no n-gram, weights over more orders than they cover, ...)."""
    reported, ctx = _reported(search.statistics), search.ctx
    try:
        counts = returned_statistics(reported.hyp_len, reported.ref_len, tuple(reported.matches[:search.n]),
                                     tuple(reported.totals[:search.n]), search.base.statistics.segments)
        return bleu.bleu_from_statistics(counts, weights=ctx.weights, options=ctx.options, smoothing=ctx.smoothing,
                                         level=ctx.request.level)
    except ORACLE_REFUSALS:
        return None


def _reported(statistics):
    return statistics if isinstance(statistics, Statistics) else Statistics.model_validate(statistics)


def _from_returned_counts(search, conventions):
    """When the returned counts differ from the oracle's and the judged profile's scoring of *those* counts
    gives the answer, the difference is in counting alone: named by the counting alternatives (integers,
    compared exactly) or conventions whose counts are exactly the returned ones, else by the first count
    that differs. Empty when scoring the returned counts does not give the answer."""
    statistics, base, n = search.statistics, search.base, search.n
    if not statistics or base is None or _statistics_differ(statistics, base, n) is None:
        return []
    combined = _scored_as_returned(search)  # (matches above totals read as they come: `ReturnedStatistics`)
    if combined is None:
        # counts the formulas have no score for (matches of no n-gram, fewer orders than the weights): a counting
        # alternative that gives exactly these integers still names the mechanism
        return _counting_alternatives(search, None)
    value = score_of(combined)
    if not within_contract(search.actual, value):
        return []
    strong = [c for c in conventions if not _weak(c)]  # a documented convention first, then a counting mechanism
    found: list = []
    try:  # the budget spent after an exact fit: what was found stands (the returned integers, equal as integers)
        for step in (lambda: _by_convention(search, strong, within_contract, (), stats=True),
                     lambda: _counting_alternatives(search, value), lambda: _by_departure(search),
                     lambda: _by_state(search), lambda: _by_structure(search)):
            found += step()
        # then the lengths stage's variants, after every earlier reading (which names a record both fit: the reading
        # stays among its fits, so that a run whose other records only it names accounts for these by it); where no
        # single explanation gives the counts, a convention with a counting, and a length reading with a clipping
        found += _length_readings(search, value)
        found = found or _counting_under_conventions(search, strong, value) + _length_and_clipping(search, value)
        found = found or _identity_ignored(search, value)  # (then: `mechanisms.counting.IDENTITY_IGNORED`)
        found = found or _stage_kinds(search, value)  # (then the counting stages by kind: `STAGE_KINDS`)
        found = found or _by_side_pairs(search)  # (each side its own operator, after every single explanation)
        found = found or _fitted_counting(search, value)  # (last: a fit of the returned integers, `countfit`)
        found += _fits_beside_named(search, found, value)  # (a named record's fits too: `cover` reads them)
    except _BudgetSpent:
        if not found:
            raise
    layer = _statistics_differ(statistics, base, n)
    return _with_what_is_known(search, found, Explanation(
        (f"{OTHER_COUNTING}{layer}",), other_counting_words(layer), (("computation", f"{OTHER_COUNTING}{layer}"),),
        value))


def _with_what_is_known(search, found, known):
    """`found` (the mechanisms that reproduce the returned counts), else `known` (`other-counting-of-<layer>`, what is
    known of them) where the search may name it; `known` first where every name found is a fitted counting; and `known`
    among the fits where every name found needs evidence (a
    cap, one segment's length: one record can fit it by chance), so that a run whose other records `known` names
    names these by it too, and the narrower name needs a pattern of its own (`oracle.diagnose.cover`). As a fit it is
    kept in a search among given names too (an earlier record's name tried first): it is a fact of the numbers, not a
    mechanism the search chose."""
    if not found:
        return [known] if search.permitted(*known.parts) else []
    if all(all(map(is_fitted_counting, e.parts)) for e in found) and search.permitted(*known.parts):
        # fits of the returned integers (`countfit`) say more narrowly what is known, not what code does: the record
        # keeps what is known as its name, every harness step reading it as on main, and the fits beside it, which a
        # run's pattern names (`cover._fitted_over_known`)
        return [known, *found]
    if all(needs_evidence(e.parts) for e in found):
        return [*found, known]
    return found


def _counting_alternatives(search, value):
    """The counting alternatives whose counts are exactly the returned statistics (integers, compared exactly)."""
    if not search.statistics or search.base is None:
        return []
    ctx = search.ctx
    names = matching_alternatives(
        ctx.request.segments,
        search.n,
        ctx.options,
        _reported(search.statistics),
        search.base.statistics,
        permitted=_counted_on(ctx, search.permitted),
        charge=search.charge,
        family_permitted=lambda stem: search.allowed is None or any(name.startswith(stem) for name in search.allowed),
        spent=(_BudgetSpent,),
    )
    return [Explanation((name,), _words(name, "counting"), (("computation", name),), value) for name in names]


def _length_readings(search, value):
    """The lengths stage's variants whose c and r are exactly the returned ones, every other count the formulas'
    (`mechanisms.counting.LENGTH_READINGS`)."""
    return _exact_counting_variants(search, value, matching_length_readings)


def _identity_ignored(search, value):
    """The n-gram comparison's variants whose counts are exactly the returned ones (`mechanisms.counting
    .IDENTITY_IGNORED`: an equality test that always holds at an order), where nothing else gave them."""
    return _exact_counting_variants(search, value, matching_identity_ignored)


def _stage_kinds(search, value):
    """The counting stages' variants by kind whose counts are exactly the returned ones (`mechanisms.counting
    .STAGE_KINDS`: an extractor's window moved, min and max exchanged in the clip, one segment's counts, a field read
    for another), where nothing else gave them."""
    return _exact_counting_variants(search, value, matching_stage_kinds)


def _fitted_counting(search, value):
    """The counting grammar's expressions that give the returned counts exactly, every differing field fitted
    (`oracle.diagnose.countfit`), where no named counting variant gave them: each fit an explanation of one part a
    field, the smallest first. Each needs evidence (`mechanisms.needs_evidence`), so `_with_what_is_known` keeps
    `other-counting-of-<layer>` beside them and one record's coincidence names no run. Nothing where the search's
    budget is spent during the fit (what is known stands)."""
    if not search.statistics or search.base is None:
        return []
    ctx = search.ctx
    fits = fit_counting(ctx.request.segments, search.n, ctx.options, _reported(search.statistics),
                        search.base.statistics, permitted=search.permitted, charge=search.charge,
                        spent=(_BudgetSpent,), kept=ctx.counted)
    return [Explanation(parts, "; and ".join(map(fitted_words, parts)),
                        tuple(("computation", part) for part in parts), value)
            for parts in fits if search.permitted(*parts)]


def _fits_beside_named(search, found, value):
    """The counting grammar's fits of the returned lengths (`_fitted_counting`) beside a record that named mechanisms
    explain (`found`, none of them a fit) where only c or r differ, as fits that record has as well, never its name:
    where a run's other records are named by a fit, a named record whose lengths the same expression gives is one of
    that fit's records too (`cover`), so that a name one record's shape reaches by chance is no cause of its own beside
    the run's pattern (the shrinker drives c and r together: `r` as the distance |len(ref) - c| is 0 on a shrunk input
    where a constant 0 is returned, set A's return:stage_closest_ref_length:110:4:0). Lengths only: their fit is one
    pass over the tokens, where the n-grams' would count every width's windows for every named record, and the fits of
    two fields at once (a tokenizer's rule moves c, r and the matches together) are a dozen combinations that say
    nothing a run needs. Nothing where `found` is empty or holds a fit already (the fits were read), no name found
    twice, and no fit that computes what a name found does (`countfit.SAME_AS_NAMED`: beside
    `reference-length-of-first-reference`, the first reference's length fitted says nothing more, and would name a run
    in its place where two records the named reading was not tried on fit it: planted:r-first-reference did)."""
    if not found or any(all(map(is_fitted_counting, e.parts)) for e in found) or not _lengths_differ_alone(search):
        return []
    named = {e.parts for e in found}
    said = {part for e in found for part in e.parts}
    return [e for e in _fitted_counting(search, value)
            if e.parts not in named and not any(SAME_AS_NAMED.get(part) in said for part in e.parts)]


def _lengths_differ_alone(search):
    """Whether the returned statistics differ from the formulas' in c or r only (as integers: `countfit
    .differing_fields`; fractional counts are no fit's)."""
    differing = differing_fields(_reported(search.statistics), search.n, search.base.statistics)
    return bool(differing) and set(differing) <= {"hyp_len", "ref_len"}


def _exact_counting_variants(search, value, matching):
    """The counting variants `matching` finds whose counts are exactly the returned ones, each an explanation."""
    if not search.statistics or search.base is None:
        return []
    ctx = search.ctx
    names = matching(ctx.request.segments, search.n, ctx.options, _reported(search.statistics),
                     search.base.statistics, permitted=search.permitted, charge=search.charge, spent=(_BudgetSpent,))
    return [Explanation((name,), _words(name, "counting"), (("computation", name),), value) for name in names]


def _length_and_clipping(search, value):
    """A length reading and a clipping whose counts together are exactly the returned ones: two stages wrong at once
    (`mechanisms.counting.matching_pairs`), named by both, the length first."""
    if not search.statistics or search.base is None:
        return []
    ctx = search.ctx
    pairs = matching_pairs(ctx.request.segments, search.n, ctx.options, _reported(search.statistics),
                           search.base.statistics, permitted=search.permitted, charge=search.charge)
    return [Explanation((length, clipping), f"{_words(length, 'counting')}; and {_words(clipping, 'counting')}",
                        (("computation", length), ("computation", clipping)), value) for length, clipping in pairs]


def _counted_on(ctx, permitted):
    """`permitted` narrowed to the counting alternatives that apply to the context's request (a line's characters
    chopped, `LINE_CHOPS`, on token requests only)."""
    if ctx.text is None:
        return permitted
    return lambda name: name not in LINE_CHOPS and permitted(name)


def _counting_under_conventions(search, conventions, value):
    """A convention with a counting alternative, whose counts together are exactly the returned statistics (tfma's
    NULs dropped and the first closest reference length: neither alone gives its r and matches). Tried only where no
    single explanation gives them, each convention's counts once."""
    ctx, found = search.ctx, []
    for name, description, changes, smoothing_change, *_ in conventions:
        if smoothing_change is not None or not changes or not search.permitted(*name):
            continue
        result = search.result_for(changes, None)
        if result is None:
            continue
        names = matching_alternatives(ctx.request.segments, search.n, ctx.options.with_changes(**changes),
                                      _reported(search.statistics), result.statistics,
                                      permitted=_counted_on(ctx, lambda alternative, name=name: pairs_with_conventions(
                                          alternative) and search.permitted(*name, alternative)),
                                      charge=search.charge, family_permitted=lambda stem: False)
        found += [Explanation((*name, alternative), f"{description}; and {_words(alternative, 'counting')}",
                              _change_tuple(changes, None) + (("computation", alternative),), value)
                  for alternative in names]
    return found


def _bp_alternative(search):
    """The brevity-penalty alternatives whose value is the returned BP (the counts being the oracle's)."""
    statistics, base = search.statistics, search.base
    reported = _reported(statistics) if statistics else None
    if reported is None or reported.bp is None or base is None or math.isnan(float(reported.bp)):
        return []
    c, r = base.statistics.hyp_len, base.statistics.ref_len
    if c == 0 or within_contract(float(reported.bp), float(base.bp)):
        return []
    found = [
        Explanation((name,), _words(name), (("computation", name),), search.actual)
        for name, rule in BREVITY_PENALTY_ALTERNATIVES.items()
        if search.permitted(name) and within_contract(float(reported.bp), rule(c, r))
    ]
    if not found and _float32_readable(search, reported.bp) and _float32_close(float(reported.bp), float(base.bp)):
        found = [Explanation((FLOAT32,), _words(FLOAT32), (("computation", FLOAT32),), search.actual)]
    return found


def _score_agrees(search, conventions, expected):
    """The score agrees: the oracle itself, or the statistics differ (smoothed counts reported, or a
    convention under which the oracle's counts are the reported ones)."""
    statistics, base, n = search.statistics, search.base, search.n
    differs = _statistics_differ(statistics, base, n)
    if differs is None:
        bp = _bp_alternative(search)
        if bp:
            return _chosen(bp, expected)
        return Explanation((AGREES,), "the oracle under the judged profile gives this value", (), expected, expected)
    if (
        differs in ("matches", "totals")
        and search.permitted(SMOOTHED_COUNTS)
        and _reports_smoothed_counts(statistics, base, n)
    ):
        return Explanation(
            (SMOOTHED_COUNTS,),
            "the score agrees; the reported matches/totals include the smoothing's additions",
            (("computation", SMOOTHED_COUNTS),),
            expected,
            expected,
        )
    strong = [c for c in conventions if not _weak(c)]
    pairs = _pairs(strong)
    # a documented convention first, then a counting mechanism or a tokenizer's departure, then two conventions
    found = _by_convention(search, strong, within_contract, (), stats=True) + _counting_alternatives(
        search, expected
    ) + _by_departure(search) + _by_state(search) + _by_structure(search) or _by_convention(
        search, pairs, within_contract, (), stats=True)
    found += _length_readings(search, expected)  # (after every earlier reading, as in `_from_returned_counts`)
    found = found or _counting_under_conventions(search, strong, expected) + _length_and_clipping(search, expected)
    found = found or _identity_ignored(search, expected)  # (last, as in `_from_returned_counts`)
    found = found or _by_side_pairs(search)  # (each side its own operator, as in `_from_returned_counts`)
    found = found or _fitted_counting(search, expected)  # (last, as in `_from_returned_counts`)
    found += _fits_beside_named(search, found, expected)  # (as in `_from_returned_counts`)
    if found:
        return _chosen(_with_what_is_known(search, found, _counts_differ_known(differs, expected)), expected)
    return _counts_differ_alone(search, differs, expected)


def _counts_differ_alone(search, layer, expected):
    """The score agrees and the returned statistics differ first at `layer`, as no mechanism counts them: named by
    what is known, the layer (`other-counting-of-<layer>`), never a bare `unexplained` (issue 36)."""
    if not search.permitted(f"{OTHER_COUNTING}{layer}"):
        return Explanation((UNEXPLAINED,), f"the score agrees but the statistics differ at {layer}", (), None, expected)
    return _counts_differ_known(layer, expected)


def _counts_differ_known(layer, expected):
    """What is known where the score agrees and the returned statistics differ first at `layer`."""
    name = f"{OTHER_COUNTING}{layer}"
    words = (f"the score agrees with the oracle's but the returned statistics differ from its counts first at "
             f"{layer}, in a way no known counting alternative reproduces")
    return Explanation((name,), words, (("computation", name),), expected, expected)


def _emptied_corpus(search):
    """The counting alternatives that drop every segment of this request, where the answer is 0 or NaN and the
    returned counts (if any) are an empty corpus's: the formulas have no score for a corpus without segments
    (protocol v1 refuses one), so 0 (nothing matched) and NaN (0/0) are the implementation's own readings of
    it, and the dropping is what brought it there."""
    actual = search.actual
    if not (actual == 0 or math.isnan(actual)):
        return []
    if search.statistics:
        reported = _reported(search.statistics)
        if reported.hyp_len or reported.ref_len or any(reported.matches) or any(reported.totals):
            return []
    segments = search.ctx.request.segments
    return [Explanation((name,), f"{_words(name, 'counting')}; here every segment is dropped, and the empty "
                              "corpus left, which the formulas do not score, is answered 0 or NaN",
                        (("computation", name),), actual)
            for name in COUNTING_ALTERNATIVES if search.permitted(name) and leaves_no_segment(name, segments)]


#: The most cuts of a request's weights tried (a request holds at most MAX_ORDER weights; a bound all the same).
MAX_WEIGHT_CUTS = 16


def small_weights_value(ctx, threshold):
    """The oracle's score with every weight under `threshold` taken as 0 (the score is BP where every weight is:
    each order switched off), or None where the oracle rejects it."""
    weights = tuple(0.0 if w < threshold else w for w in ctx.request.weights)
    if not any(weights):
        base = result_under(ctx)
        return None if base is None else float(base.bp)
    return score_of(result_under(ctx, request=ctx.request.model_copy(update={"weights": weights})))


def _small_weights_dropped(search, *, every=False):
    """The cut of the request's weights (every weight under one of them) whose dropping gives the answer, the
    counts being the oracle's; `every`: the cut above them all, the score then BP alone (tried after the
    generic computations: many mechanisms give BP), not of a lone weight of 1 or more."""
    weights = search.ctx.request.weights
    # (the cut above every weight reads uniform weights as 1 // N in integers, 0 only for N > 1, or a lone weight
    # under a "negligible" threshold: a lone weight of 1 or more is cut by neither (1 // 1 = 1), so there the score BP
    # alone is `brevity-penalty-alone`'s)
    cuts = ([math.inf] if len(weights) > 1 or weights[0] < 1 else []) if every else \
        sorted({w for w in weights if w > 0})[1:]
    if not search.permitted(SMALL_WEIGHTS) or len(cuts) > MAX_WEIGHT_CUTS or not consistent_with(
            search.statistics, search.base, search.n):
        return []
    for threshold in cuts:
        search.charge()
        value = small_weights_value(search.ctx, threshold)
        if value is not None and within_contract(search.actual, value):
            dropped = sum(1 for w in weights if w < threshold)
            return [Explanation(
                (SMALL_WEIGHTS,),
                f"weights under a threshold taken as 0 (a 'negligible weight' cut): here the {dropped} under "
                f"{threshold:g} of {len(weights)}",
                (("computation", SMALL_WEIGHTS), ("weights_below", repr(threshold))), value)]
    return []


def _by_state(search):
    """Every metric-state mechanism (`STATE_STATISTICS`) whose statistics are exactly the reported ones and whose
    score is the answer (a planned request's, for most)."""
    if not search.statistics or search.base is None:
        return []
    found = []
    for name, statistics_of_state in STATE_STATISTICS.items():
        if not search.permitted(name):
            continue
        statistics = statistics_of_state(search.ctx, search.base)
        if statistics is None:  # the plan does not use the step, or it changes nothing: not charged
            continue
        search.charge()
        value = score_of_statistics(search.ctx, statistics)
        if (value is not None and within_contract(search.actual, value)
                and _statistics_differ(search.statistics, _Counted(statistics, search.base.bp), search.n) is None):
            found.append(Explanation((name,), _words(name, "statistics"), (("computation", name),), value))
    return found


def state_answer(request, profile, name, *, overrides=None):
    """The answer (score and statistics, as a reply carries them) the metric-state mechanism `name`
    (`STATE_STATISTICS`) predicts for `request`: a probe's prediction (`oracle.harness.separate.state_told_apart`).
    None where it changes nothing on `request` (its plan does not use the step: the answer would be the oracle's,
    which is no evidence of a state), or where the oracle rejects the request or the formulas refuse the counts."""
    search = _search_for(request, 0.0, get_profile(profile), overrides=overrides, among=None,
                         budget=ATTRIBUTION_BUDGET)
    if isinstance(search, Explanation) or search.base is None:
        return None
    statistics = STATE_STATISTICS[name](search.ctx, search.base)
    score = score_of_statistics(search.ctx, statistics)
    if statistics is None or score is None:
        return None
    return {"score": score, "statistics": {"hyp_len": statistics.hyp_len, "ref_len": statistics.ref_len,
                                           "matches": list(statistics.matches[:search.n]),
                                           "totals": list(statistics.totals[:search.n])}}


def _by_departure(search):
    """Every tokenizer departure (`mechanisms.text`) under which the oracle's statistics are the reported ones and
    its score the answer."""
    found = []
    for departure in DEPARTURES:
        name = departure.name
        if not search.permitted(name):
            continue
        result = departed_result(search.ctx, departure)
        if result is None:  # it does not apply to this text: a cheap test, not charged
            continue
        search.charge()
        if search.answered_by(result):
            found.append(Explanation((name,), _words(name), (("computation", name),), score_of(result)))
    return found


#: The computations a tokenizer departure's tokens are read by (`_by_departure_with_computation`).
_ON_DEPARTED = tuple((name, function) for name, function in SPECIFIC_COMPUTATIONS + GENERIC_COMPUTATIONS
                     if departure_named(name) is None)


def _by_departure_with_computation(search, close, suffix):
    """A tokenizer departure with a computation on its tokens, tried only among given names (a run's baseline causes
    and documented classes: two mechanisms already known of the implementation are evidence, where the search among
    every explanation, which pairs a computation with conventions only, would take two unknown ones for a
    coincidence): lm-eval's references cut to the fewest on sacrebleu's stripped lines."""
    found = []
    for departure in DEPARTURES:
        name = departure.name
        departed = departed_context(search.ctx, departure) if search.permitted(name) else None
        if departed is None:
            continue
        ctx, result = departed
        for cname, function in _ON_DEPARTED:
            if not search.permitted(name, cname, *suffix) or (cname in STATISTICS_ONLY and not search.statistics):
                continue
            value = search.computed(function, ctx, result)
            if value is None:
                continue
            search.charge()
            if close(search.actual, value) and consistent_with(search.statistics, _counting_of(cname, ctx, result),
                                                               search.n):
                found.append(Explanation(_join((name, cname), suffix),
                                         _join_text(f"{_words(name)}; and {_words(cname)}", suffix),
                                         (("computation", name), ("computation", cname)) + _suffix_change(suffix),
                                         value))
    return found


def _by_structure(search):
    """Every structural mechanism (`mechanisms.structure`: the request mis-shaped by its caller) under which the
    oracle's statistics are the reported ones and its score the answer."""
    found = []
    reported = _reported(search.statistics) if search.statistics else None
    for name, structure in STRUCTURES.items():
        if not search.permitted(name) or (name in COUNTS_FIRST and not _lengths_may_be(search, structure)):
            continue
        search.reshaping(search.ctx, structure)
        # (one whose lengths are neither the oracle's nor the returned ones is charged without its n-grams counted)
        if reported is not None and structured_ruled_out(search.ctx, structure, reported, search.n):
            search.charge()  # (as computing it would be: its counts are not the oracle's own)
            continue
        result = structured_result(search.ctx, structure)
        if result is None:  # it does not apply to this request, or its counts are the oracle's: not charged
            continue
        search.charge()
        if search.answered_by(result):
            found.append(Explanation((name,), _words(name), (("computation", name),), score_of(result)))
    return found


def _by_side_pairs(search):
    """Each side its own operator (side-kinds; `mechanisms.structure.SIDE_PAIRS`): a pair of one-side operators, one on
    the hypotheses and another on the references, under which the oracle's statistics are every one the returned ones
    (c, r, matches and totals of every order, as integers) and its score the answer. Asked only where no single
    explanation gives the returned counts (the callers try it last), where the returned c or r is not the oracle's (a
    one-side operator is read from the lengths it gives: where both are the oracle's, every operator that keeps a
    length is a candidate and none is evidence, so a pair of two such, the tokens reversed on one side and a line end
    kept on the other, is not tried), and a pair only where each side's operator alone is a candidate for its side
    (`_side_may_be`: the hypothesis side's operator gives the returned c, the reference side's admits the returned
    r), so that on a request each side's candidates are few and the pairs tried their product; each pair tried is
    charged as a structure is (`search.reshaping`, `search.charge`)."""
    if not search.statistics or search.base is None:
        return []
    reported, ours = _reported(search.statistics), search.base.statistics
    if (reported.hyp_len, reported.ref_len) == (ours.hyp_len, ours.ref_len):
        return []  # (the lengths the oracle's: every operator that keeps a length passes, evidence for none)
    ctx = search.ctx
    segments = ctx.request.tokenized_as(ctx.options).segments
    text = ctx.text if ctx.text is not None or not ctx.request.is_text else ctx.request  # (`structured_request`'s)
    candidates = set()
    # (the references' side only where the hypotheses' has a candidate; each side's lengths read once)
    for hypotheses, side in ((True, _SIDES[0]), (False, _SIDES[1])):
        tokens = SideLengths.of([(len(s.hypothesis),) if hypotheses else [len(r) for r in s.references]
                                 for s in segments])
        lines = functools.cache(lambda hypotheses=hypotheses: SideLengths.of(
            line_lengths(segments, text, hypotheses=hypotheses)))
        target = reported.hyp_len if hypotheses else reported.ref_len
        found_here = {name for name, reading in side
                      if _side_may_be(search, name, reading, target, tokens, lines, text, hypotheses)}
        if not found_here:
            return []
        candidates |= found_here
    found = []
    for parts, structure in SIDE_PAIRS.items():
        if not candidates.issuperset(parts) or not search.permitted(*parts):
            continue
        search.reshaping(search.ctx, structure)
        if structured_ruled_out(search.ctx, structure, reported, search.n):
            search.charge()  # (as computing it would be, `_by_structure`)
            continue
        result = structured_result(search.ctx, structure)
        if result is None:
            continue
        search.charge()
        if search.answered_by(result):
            found.append(Explanation(parts, f"{_EACH_SIDE}: {'; and '.join(_words(name) for name in parts)}",
                                     tuple(("computation", name) for name in parts), score_of(result)))
    return found


#: What a record a side pair names says before its parts' words.
_EACH_SIDE = ("each side its own operator (two one-side operators, one on the hypotheses and another on the "
              "references, each side's as if the other side had none: a token one side adds is not the other's)")


#: The one-side operators of each side, the hypotheses' first, in `SIDE_OPERATORS`' order, each with its length rule.
_SIDES = (tuple((hypothesis_side, rule) for _, hypothesis_side, _, _, _, rule in SIDE_OPERATORS),
          tuple((reference_side, rule) for _, _, reference_side, _, _, rule in SIDE_OPERATORS))


def _side_may_be(search, name, reading, target, tokens, lines, text, hypotheses):
    """Whether the one-side operator `name` alone is a candidate for its side of the returned statistics (`target`:
    the returned c for a hypothesis-side operator, r for a reference-side one), from lengths alone: its hypotheses'
    tokens are c, or r lies between the sums of its segments' shortest and longest references. From its length
    reading where it has one (`structure.LengthReading`: its rule on the side's lengths in tokens, `tokens`, or in
    characters, `lines()`, read once a search; none on a text request for a token-requests-only operator), else from
    the reshaped tokens (`structured_length_bounds`: one pass over the request's tokens, kept on the request, as
    `_lengths_may_be`); not charged. An operator that changes nothing on the request passes where that side's
    length is right; the pair is then nothing (`structure.each_side` gives None) and is not charged."""
    if reading is not None:
        if reading.token_requests_only and text is not None:
            return False
        low, high = side_lengths(lines() if reading.of_lines else tokens, reading.rule)
    else:
        lengths = structured_length_bounds(search.ctx, STRUCTURES[name])
        if lengths is None:
            return False
        low, high = (lengths[0], lengths[0]) if hypotheses else lengths[1:]
    return low <= target <= high


def _lengths_may_be(search, structure):
    """Whether the request as `structure` reshapes it can have the returned lengths, before the oracle counts its
    n-grams (the cheap filter of `mechanisms.structure.COUNTS_FIRST`): its hypotheses' tokens are the returned c, and
    the returned r lies between the sums of each segment's shortest and longest reference (where any rule choosing one
    reference's length per segment puts it). Reshaping is one pass over the request's tokens, not charged; False
    without returned statistics, or where the structure does not apply."""
    if not search.statistics:
        return False
    lengths = structured_length_bounds(search.ctx, structure)
    if lengths is None:
        return False
    c, shortest, longest = lengths
    reported = _reported(search.statistics)
    return c == reported.hyp_len and shortest <= reported.ref_len <= longest


#: The score stage's variants a structure's statistics are scored by in the pair tier (`_by_structure_with_stage`):
#: the combination's and the smoothing's (`COMBINATION_COMPUTATIONS`) and the means of sentence scores, then the
#: matrix's variants (`MATRIX_VARIANTS`), last as in the single tier: a mean of the segments' own penalties or
#: precisions is the mean of sentence scores where every segment's precisions are the corpus's (or one order with
#: every BP 1), and that earlier name keeps such a record.
_STAGES_AFTER_A_STRUCTURE = (*(entry for entry in COMBINATION_COMPUTATIONS if entry not in MATRIX_VARIANTS),
                             *((name, function) for name, function in GENERIC_COMPUTATIONS
                               if name in ("mean-of-sentence-scores", "mean-of-sentence-bleu")),
                             *MATRIX_VARIANTS)


def _structure_with_returned_counts(search, name, structure):
    """The oracle's result on the request as `structure` reshapes it, where its statistics are every one the
    implementation returned (None otherwise): computed only where the cheap filter lets a counts-first structure
    through, else where the search's earlier tiers computed it (a structure the search did not compute is not computed
    for a pair: its single tier, or the returned counts' search, had the chance)."""
    if name in _PADDINGS or not search.permitted(name):
        return None
    if name in COUNTS_FIRST:
        if not structured_computed(search.ctx, structure):
            if not _lengths_may_be(search, structure):
                return None
            search.reshaping(search.ctx, structure)
            if structured_result(search.ctx, structure) is None:
                return None
            search.charge()
    elif not structured_computed(search.ctx, structure):
        return None
    result = structured_result(search.ctx, structure)
    if result is None or _statistics_differ(search.statistics, result, search.n) is not None:
        return None
    return result


def _by_structure_with_stage(search, conventions, close):
    """The pair tier (issue 36, stage pairs): a structure whose statistics are the returned ones, layer by layer (c, r,
    matches and totals of every order: `_structure_with_returned_counts`), whose score is the answer under one score
    stage's variant computed on the reshaped request (`_STAGES_AFTER_A_STRUCTURE`), or under another smoothing (the
    smoothing readings among `conventions`). Named `<structure> + <stage>`. Tried after every single explanation, only
    where the implementation returned statistics, and only where they are not the oracle's own (a structure whose
    counts are the request's is no structure: the stage alone was tried in its own tier); a variant's 0 needs given
    names, as in its own tier (`_nonzero`)."""
    if not search.statistics or _statistics_differ(search.statistics, search.base, search.n) is None:
        return []
    found = []
    stage_close = close if search.allowed is not None else _nonzero(close)
    smoothings = [c for c in conventions if c.smoothing is not None and not c.changes]
    for name, structure in STRUCTURES.items():
        result = _structure_with_returned_counts(search, name, structure)
        if result is None:
            continue
        request = structured_request(search.ctx, structure)
        # (what the oracle computes on the reshaped request is kept with the request's counts: a function of the
        # reshaped request and the options, which every search on the request asks for again)
        shaped = Context(request, search.ctx.options, search.ctx.smoothing, search.ctx.weights,
                         structured_counts(search.ctx, structure), pieces=search.ctx.pieces)
        for cname, function in _STAGES_AFTER_A_STRUCTURE:
            if not search.permitted(name, cname):
                continue
            value = search.computed(function, shaped, result)
            if value is None:
                continue
            search.charge()
            if stage_close(search.actual, value):
                found.append(Explanation((name, cname), f"{_words(name)}; and {_words(cname)}",
                                         (("computation", name), ("computation", cname)), value))
        for candidate in smoothings:
            if not search.permitted(name, *candidate.parts):
                continue
            search.recounting(request)
            search.charge()
            value = score_of(result_under(shaped, smoothing=candidate.smoothing, request=request))
            if value is not None and close(search.actual, value):
                found.append(Explanation((name, *candidate.parts), f"{_words(name)}; and {candidate.words}",
                                         (("computation", name),) + _change_tuple({}, candidate.smoothing), value))
    return found


def _join(parts, suffix):
    return (*parts, *suffix)


def _join_text(text, suffix):
    return "; and ".join((text, *map(_words, suffix)))


def _suffix_change(suffix):
    return tuple(("computation", part) for part in suffix)


def _change_tuple(changes, smoothing_change):
    out = tuple(
        (k, v)
        for k, v in changes.items()
        if not (k == "sentence_empty_order" and v is None) and k != "uniform_weights_only"
    )
    if smoothing_change is not None:
        out += (("smoothing", smoothing_change.describe()),)
    return out


def smoothing_from_description(text):
    """The Smoothing an explanation's ("smoothing", text) change names: `Smoothing.describe()` read back,
    e.g. "floor(value=1/10)" or "none"."""
    match = re.fullmatch(r"([a-z0-9-]+)(?:\((.*)\))?", text.strip())
    if not match:
        raise BleuValueError(f"not a smoothing description: {text!r} (expected e.g. 'floor(value=1/10)')")
    params = {}
    for item in filter(None, (match.group(2) or "").split(",")):
        name, sep, value = item.strip().partition("=")
        if not sep:
            raise BleuValueError(f"not a smoothing description: {text!r} (parameters are name=value)")
        try:
            params[name.strip()] = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise BleuValueError(
                f"not a smoothing description: {text!r} (parameter {name.strip()} = {value!r})"
            ) from None
    return Smoothing(match.group(1), **params)


def explained_value(request, profile, change, *, overrides=None):
    """The value the oracle gives for `request` under `profile` changed as an explanation says.

    `change` is an `Explanation.change` (or its JSON): (option, value) pairs for conventions,
    ("smoothing", Smoothing | its description | a protocol mapping) for another reading of the
    smoothing method, ("computation", name) for an alternative computation. This is the value
    `classify` matched against the answer, recomputed from the explanation alone: a case found by
    `bleu-oracle fuzz` records the implementation's value and its explanation, and `cases validate`
    checks that the oracle under that explanation still gives it. "float32" and
    "statistics-report-smoothed-counts" change no value (they are about precision and reported
    statistics). Returns None when the oracle rejects the input under the changed conventions or
    the computation does not apply.
    """
    base = context_for(request, profile, overrides, text=request if request.is_text else None)
    functions = dict(COMPUTATIONS)
    changes, smoothing_change, computations, threshold = {}, None, [], math.inf
    for key, value in change:
        if key == "computation":
            if value not in known_names() and not value.startswith(OTHER_COUNTING) and not is_partial((value,)) \
                    and parse_capped(value) is None and not is_fitted_parameter(value) \
                    and not is_fitted_counting(value):
                raise BleuValueError(f"unknown computation {value!r} (known: {sorted(known_names())})")
            computations.append(value)
        elif key == "smoothing":
            smoothing_change = smoothing_from_description(value) if isinstance(value, str) else Smoothing.parse(value)
        elif key == "weights_below":
            threshold = float(value)
        else:
            changes[key] = value
    if "empty_order" in changes:  # as _convention_changes: the sentence-level rule follows
        changes.setdefault("sentence_empty_order", None)
    if "weight_normalisation" in changes:
        changes.setdefault("uniform_weights_only", False)
    changed = base.options.with_changes(**changes) if changes else base.options
    ctx = replace(base, options=changed, smoothing=smoothing_change or base.smoothing)
    result = result_under(ctx)
    value = score_of(result)
    counting_names: list[str] = []
    for index, name in enumerate(computations):
        if name in (FLOAT32, SMOOTHED_COUNTS):
            continue
        read = _read_by(ctx, name) if set(computations[index + 1:]) - {FLOAT32, SMOOTHED_COUNTS} else _NOT_READ
        if read is not _NOT_READ:
            if read is None:
                return None
            ctx, result = read  # the computations after it read the departed tokens, or the reshaped request
            continue
        if result is None or name.startswith(OTHER_COUNTING) or is_partial((name,)):  # no model of it: no value
            return None
        if name == SMALL_WEIGHTS:
            value = small_weights_value(ctx, threshold)
            continue
        if counting_of(name) is not None:
            counting_names.append(name)  # a length reading and a clipping together: both stages' counts
        counted = _counted_value(ctx, result, tuple(counting_names)) if counting_of(name) is not None else None
        # a name both a counting alternative and a computation (tfma's empty-reference batch: the counting sees
        # the segments, the computation the stateful plan's batches) is the computation where the counting is silent
        value = counted if counted is not None else _computed_value(ctx, result, name, functions)
    return value


def _computed_value(ctx, result, name, functions):
    """The value of computation `name` on `result` (`functions`: the declared computations); a fitted parameter of the
    score at its fitted value on this request's terms (`scorefit.fitted_value`); None for any other name."""
    if is_fitted_parameter(name):
        return fitted_value(terms_of(result, len(ctx.request.segments)), name)
    return functions[name](ctx, result) if name in functions else None


#: `_read_by`'s answer for a name whose computations after it read the request as it is.
_NOT_READ = object()


def value_read_as_the_oracle(request, profile, parts, *, overrides=None):
    """The oracle's own score of `request` where the explanation whose mechanisms are `parts` (`Explanation.parts`) is
    one structural mechanism (`STRUCTURES`) whose reshaping applies to `request` and reads it as the oracle does: the
    same segments, or other segments with the oracle's counts and score (a kept line end on a last token that had no
    match). `explained_value` gives None there as where the mechanism does not apply, since the search never tries a
    mechanism equal to the oracle; a related input sent to tell explanations apart (`oracle.harness.separate`) is one
    on which that mechanism predicts the oracle's answer, which the implementation's answer can contradict. None
    otherwise. (An explanation of one structure, alone, changes nothing else: its change is that computation alone.)"""
    if len(parts) != 1 or parts[0] not in STRUCTURES:
        return None
    ctx = context_for(request, profile, overrides, text=request if request.is_text else None)
    structure = STRUCTURES[parts[0]]
    if structured_length_bounds(ctx, structure) is None or structured_result(ctx, structure) is not None:
        return None  # it does not apply, or it reads the request otherwise (`explained_value`'s)
    return score_of(result_under(ctx))


def _read_by(ctx, name):
    """(context, result) that the computations after `name` read in an explanation: a tokenizer departure's tokens, or
    a structure's reshaped request (a pair of the pair tier, `_by_structure_with_stage`); None where it does not apply
    to the request; `_NOT_READ` where `name` is neither."""
    departure = departure_named(name)
    if departure is not None:
        return departed_context(ctx, departure)
    if name in STRUCTURES:
        result = structured_result(ctx, STRUCTURES[name])
        if result is None:
            return None
        return Context(structured_request(ctx, STRUCTURES[name]), ctx.options, ctx.smoothing, ctx.weights), result
    return _NOT_READ


def _counted_value(ctx, result, names):
    """The judged profile's score of the counts counting alternatives give (`names`: one, or a length reading and a
    clipping, each changing its own layers)."""
    n = len(ctx.weights)
    request = ctx.request.tokenized_as(ctx.options)
    changed: dict = {}
    for name in names:
        if ctx.text is not None and name in LINE_CHOPS:
            return None
        counts = counting_of(name)(request.segments, n, ctx.options)
        if counts is None or leaves_no_segment(name, request.segments):  # it does not apply, or leaves a corpus
            return None  # without segments, which the formulas do not score (`_emptied_corpus`)
        changed.update(counts)
    statistics = result.statistics
    # counts that may exceed their totals are an implementation's, read as returned ones are (`returned_statistics`)
    over_totals = OVER_TOTALS.intersection(names) or any(map(is_fitted_counting, names))  # (a fit's matches may exceed)
    alternative = (returned_statistics if over_totals else bleu.Statistics)(
        changed.get("hyp_len", statistics.hyp_len),  # (empty-hypotheses-dropped, empty-sentence-end-token change c)
        changed.get("ref_len", statistics.ref_len),
        changed.get("matches", tuple(statistics.matches[:n])),
        changed.get("totals", tuple(statistics.totals[:n])),
        statistics.segments,
    )
    try:
        return score_of(
            bleu.bleu_from_statistics(
                alternative, weights=ctx.weights, options=ctx.options, smoothing=ctx.smoothing, level=request.level
            )
        )
    except BleuOracleError:
        return None


def describe_as(classification, parts):
    """What a cause (`parts`: a record's, or one of its fits') means for a record's `classification` (a
    `models.results.Classification`): its own description when it is its own first cause, else its parts'
    descriptions in the catalogue (`mechanisms.describe_parts`: the run gave it another name that fits)."""
    return classification.description if parts == classification.parts else mechanisms.describe_parts(parts)


def known_names():
    """Every single explanation name classify gives as a ("computation", name) change (`mechanisms.known_names`;
    conventions are named `field=value`)."""
    return mechanisms.known_names()


__all__ = [
    "AGREES",
    "COMPUTATIONS",
    "Explanation",
    "FLOAT32",
    "FLOAT32_REL_TOLERANCE",
    "SMOOTHED_COUNTS",
    "UNEXPLAINED",
    "classify",
    "explained_value",
    "value_read_as_the_oracle",
    "is_partial",
    "known_names",
    "smoothing_from_description",
    "state_answer",
    "what_is_known",
    "within_contract",
]


def names_a_mechanism(parts: tuple[str, ...]) -> bool:
    """Whether a root cause (its parts: `Classification.parts`) names a mechanism: not `unexplained`, and not only
    what is known of the difference (every part `other-counting-of-...`, a partial explanation, or a fitted counting:
    `countfit`, a fit of the returned integers, not a line of code read). A fitted name is no hint a kind's later
    failures are searched among (`oracle.harness.diagnosis`): they are diagnosed as where what is known named the
    first, so no record a named mechanism names on main is named otherwise by a fit found on another record."""
    if parts == (UNEXPLAINED,):
        return False
    return not states_what_is_known(parts)
