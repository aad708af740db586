"""The score stage's mechanisms, declared here: right statistics combined into the score otherwise
(`COMBINATION_VARIANTS`, in the order the search tries them: a constant where a parameter belongs, the first or last
element in place of all, an average in place of a product, an index off by one, a term left out, operands swapped,
another brevity penalty, another scale), the brevity penalties a returned BP is compared with
(`BREVITY_PENALTY_VARIANTS`), and what is known of the score stage where no mechanism reproduces the answer
(`PARTIAL_NAMES`, the partial names, given by the stage tests `STAGE_NAMES` binds). The functions that compute them,
and the reasons each is tried, live in `oracle.diagnose.combination`; a variant is described by its docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from oracle.diagnose import combination, scorefit
from oracle.diagnose.combination import (
    PartialName,
    Stage,
    StageNames,
    arithmetic_mean_of_precisions,
    at_least_one_penalty,
    batch_mean,
    brevity_penalty_alone,
    brevity_penalty_applied_twice,
    brevity_penalty_at_least_one,
    brevity_penalty_averaged_over_segments,
    brevity_penalty_exp_left_out,
    brevity_penalty_exponent_negated,
    exp_left_out,
    exp_left_out_penalty,
    exponent_negated_penalty,
    first_segment_score_reported,
    first_weighted_term_only,
    floored_ratio_penalty,
    geometric_mean_root_fixed_at_4,
    highest_order_left_out,
    highest_order_precision_only,
    individual_bleu_scores_averaged_over_four,
    last_segment_score_reported,
    last_weighted_term_only,
    length_ratio_as_brevity_penalty,
    length_ratio_floored,
    length_ratio_penalty,
    log_score_reported,
    matches_as_precisions,
    order_fixed_at_4,
    orders_shifted_up,
    percent_scale_printed_2_decimals,
    percent_scale_truncated_to_an_integer,
    precision_inverted,
    precisions_averaged_over_segments,
    precisions_integer_division,
    precisions_over_hypothesis_length,
    product_of_precisions,
    score_truncated_to_whole_percent,
    smoothing_parameter_ignored,
    squared_penalty,
    unigram_precision_left_out,
    unigram_precision_only,
    weight_and_precision_swapped,
    weighted_log_terms_averaged,
    weighted_sum_of_precisions,
    weights_not_passed_on,
    weights_shifted,
)

from .model import BP, COMBINATION, FREE, RECOMPUTE, SCORE, Mechanism, docstring_words

#: The batch sizes the corpus score as a mean of per-batch corpus scores is tried at: 2 to 8 and the powers of two to
#: 64. The size is unknown, so a record one size fits may fit it by chance (these need evidence: `MECHANISMS`).
BATCH_SIZES = (2, 3, 4, 5, 6, 7, 8, 16, 32, 64)


def batch_mean_name(size: int) -> str:
    """The name of the corpus score computed as the mean of the corpus scores of consecutive batches of `size`."""
    return f"mean-of-scores-of-batches-of-{size}"


#: The mean of per-batch corpus scores at each batch size tried.
BATCH_MEAN_VARIANTS = tuple((batch_mean_name(size), batch_mean(size)) for size in BATCH_SIZES)

#: The score stage's variants, in the order the classifier tries them: (name, function of (context, result)).
COMBINATION_VARIANTS: tuple[tuple[str, Callable], ...] = (
    ("weights-not-passed-on", weights_not_passed_on),
    ("order-fixed-at-4", order_fixed_at_4),
    ("smoothing-parameter-ignored", smoothing_parameter_ignored),
    ("unigram-precision-only", unigram_precision_only),
    ("highest-order-precision-only", highest_order_precision_only),
    ("first-segment-score-reported", first_segment_score_reported),
    ("last-segment-score-reported", last_segment_score_reported),
    *BATCH_MEAN_VARIANTS,
    ("arithmetic-mean-of-precisions", arithmetic_mean_of_precisions),
    ("weighted-sum-of-precisions", weighted_sum_of_precisions),
    ("product-of-precisions", product_of_precisions),
    ("length-ratio-floored", length_ratio_floored),
    ("highest-order-left-out", highest_order_left_out),
    ("unigram-precision-left-out", unigram_precision_left_out),
    ("orders-shifted-up", orders_shifted_up),
    ("weights-shifted", weights_shifted),
    ("exp-left-out", exp_left_out),
    ("log-score-reported", log_score_reported),
    ("precision-inverted", precision_inverted),
    ("weight-and-precision-swapped", weight_and_precision_swapped),
    ("brevity-penalty-exponent-negated", brevity_penalty_exponent_negated),
    ("brevity-penalty-exp-left-out", brevity_penalty_exp_left_out),
    ("length-ratio-as-brevity-penalty", length_ratio_as_brevity_penalty),
    ("brevity-penalty-applied-twice", brevity_penalty_applied_twice),
    ("percent-scale-printed-2-decimals", percent_scale_printed_2_decimals),
)

#: The score stage's variants that fill cells of the stages x operators matrix (docs/stages.md, issue 36): tried after
#: every variant above and every smoothing variant (`mechanisms.computations.COMBINATION_COMPUTATIONS`), so that no
#: record one of those names changes. Each docstring says its operator and stage, and cites real code where one was
#: found.
MATRIX_VARIANTS: tuple[tuple[str, Callable], ...] = (
    ("individual-bleu-scores-averaged-over-four", individual_bleu_scores_averaged_over_four),
    # its geometric sibling (stage-consts): the root of the mean a constant 4 where the order N belongs; after the
    # arithmetic one, as every matrix variant after the earlier tiers, so that no record an earlier name had moves
    ("geometric-mean-root-fixed-at-4", geometric_mean_root_fixed_at_4),
    ("precisions-over-hypothesis-length", precisions_over_hypothesis_length),
    ("matches-as-precisions", matches_as_precisions),
    ("precisions-averaged-over-segments", precisions_averaged_over_segments),
    ("brevity-penalty-averaged-over-segments", brevity_penalty_averaged_over_segments),
    ("score-truncated-to-whole-percent", score_truncated_to_whole_percent),
    ("percent-scale-truncated-to-an-integer", percent_scale_truncated_to_an_integer),
    # the counting stages' session (stage-variants): stage 6's integer division, stage 11's negated condition
    ("precisions-integer-division", precisions_integer_division),
    ("brevity-penalty-at-least-one", brevity_penalty_at_least_one),
    # coincidences16 (issue 36): the score the brevity penalty alone, the mean's term left out; last, so that no
    # record an earlier name had moves
    ("brevity-penalty-alone", brevity_penalty_alone),
    # combination-kinds (issue 36): stage 10's sum of w_n log p_n under the operators "an average for a sum", "the
    # first / last element for all" (docs/stages.md, "Stages 6-12 by kind"); last, so that no record an earlier
    # name had moves
    ("weighted-log-terms-averaged", weighted_log_terms_averaged),
    ("first-weighted-term-only", first_weighted_term_only),
    ("last-weighted-term-only", last_weighted_term_only),
)
#: Matrix variants whose answer is a simple number (a multiple of 1/100, an integer): one record can fit them by
#: chance, so they name a run's records only with a second record (`Mechanism.needs_evidence`).
_SIMPLE_NUMBER_VARIANTS = frozenset({"score-truncated-to-whole-percent", "percent-scale-truncated-to-an-integer"})

#: The brevity penalties of the variants above as functions of (c, r) for c > 0 (1 where c >= r): a returned BP
#: equal to one of them names the variant even where the score cannot (`mechanisms.computations.
#: BREVITY_PENALTY_ALTERNATIVES`, after the other brevity penalties the classifier knows).
BREVITY_PENALTY_VARIANTS: dict[str, Callable[[int, int], float]] = {
    "brevity-penalty-exponent-negated": exponent_negated_penalty,
    "brevity-penalty-exp-left-out": exp_left_out_penalty,
    "length-ratio-as-brevity-penalty": length_ratio_penalty,
    "length-ratio-floored": floored_ratio_penalty,
    "brevity-penalty-applied-twice": squared_penalty,
    # (not 1 where c > r: a returned BP above 1 with c > r, or 1 with c < r, is each half's too, and both are listed)
    "brevity-penalty-at-least-one": at_least_one_penalty,
}

# -- what is known when nothing fits ---------------------------------------------------------------------

#: The score stage differs and none of the stage tests says where.
OTHER_COMBINATION = "other-combination"
#: The answer is a weighted geometric mean of the precisions under weights other than those in force.
OTHER_WEIGHTING = "other-weighting-of-precisions"
#: The answer is the right geometric mean times a brevity penalty other than e^(1 - r/c).
OTHER_BREVITY_PENALTY = "other-brevity-penalty"
#: The answer is the score times a power of ten.
OTHER_SCALE = "other-scale-of-score"
#: What the classifier names when no explanation reproduces the answer but the numbers say which stage differs:
#: a partial explanation, with no value to replay (`classify.explained_value` gives None for it).
PARTIAL_NAMES = {
    OTHER_COMBINATION: "the statistics are combined into the score otherwise, in a way no known variant reproduces",
    OTHER_WEIGHTING: "consistent with a weighted geometric mean of the precisions under weights other than those "
                     "in force",
    OTHER_BREVITY_PENALTY: "consistent with the right geometric mean of the precisions times another brevity "
                           "penalty",
    OTHER_SCALE: "the score times a power of ten: another scale",
}
#: The names of what is known where nothing fits (`PARTIAL_NAMES`): described, never replayed.
WHAT_IS_KNOWN = frozenset(PARTIAL_NAMES)
#: The partial name each stage test of `combination.stages_consistent_with` gives.
STAGE_NAMES = StageNames(
    scale=PartialName(OTHER_SCALE, PARTIAL_NAMES[OTHER_SCALE]),
    brevity_penalty=PartialName(OTHER_BREVITY_PENALTY, PARTIAL_NAMES[OTHER_BREVITY_PENALTY]),
    weighting=PartialName(OTHER_WEIGHTING, PARTIAL_NAMES[OTHER_WEIGHTING]),
)


def stages_consistent_with(answer: float | None, result: Any, *, returned_bp: float | None = None) -> list[Stage]:
    """The stages of the combination `answer` is consistent with (`combination.stages_consistent_with`), named by
    the catalogue's partial names (`STAGE_NAMES`)."""
    return combination.stages_consistent_with(answer, result, STAGE_NAMES, returned_bp=returned_bp)


def is_partial(parts: Iterable[str]) -> bool:
    """Whether any of an explanation's `parts` (its mechanisms' names, a tuple: `classify.Explanation.parts`,
    `Classification.parts`) is a partial explanation: what is known of a difference that no explanation reproduces
    (the layer and the stage it is consistent with), not a mechanism."""
    if isinstance(parts, str):  # a written name: its parts are read at the boundary (`models.results.parse_cause`)
        raise TypeError(f"is_partial takes an explanation's parts, not its written name {parts!r}")
    return any(part in PARTIAL_NAMES for part in parts)


_BATCH_MEAN_NAMES = frozenset(name for name, _ in BATCH_MEAN_VARIANTS)

# -- a free parameter of the score fitted from the record (score-fit, issue 36) ------------------------------------

#: The fitted families' stems (`oracle.diagnose.scorefit`): a name is a stem and the fitted value's label, e.g.
#: `mean-raised-to-1/2`, `brevity-penalty-with-r-as-1`, `weight-of-order-2-as-0`, `weights-as-uniform-over-3-orders`.
FITTED_STEMS = scorefit.STEMS
#: What a fitted name says, whatever its parameter (a member's own words: `scorefit.describe`).
FITTED_WORDS = ("fitted from the score, not read from a line of code: the statistics are the formulas' and the answer "
                "is their score with one free parameter of its expression (the mean's power, the penalty's power, the "
                "scale, one order's weight, the lengths in the penalty, the weights over fewer orders) at a simple "
                "value")


def is_fitted(name: str) -> bool:
    """Whether `name` is a fitted parameter's name, well formed (`scorefit.parse`)."""
    return scorefit.parse(name) is not None


MECHANISMS = [
    # a variant is also tried as a computation (`mechanisms.computations.COMBINATION_COMPUTATIONS`), which adds its
    # route; never with a convention: the variants are many and reach simple numbers (2^-1.5, 1/2, ...) that a
    # convention's counts then fit by coincidence. A batch mean names a run's records only with evidence: one
    # record can fit one size by the choice of size
    *(Mechanism(name, COMBINATION, docstring_words(function),
                SCORE | BP if name in BREVITY_PENALTY_VARIANTS else SCORE, RECOMPUTE,
                needs_evidence=name in _BATCH_MEAN_NAMES, pairs_with_conventions=False)
      for name, function in COMBINATION_VARIANTS),
    *(Mechanism(name, COMBINATION, docstring_words(function),
                SCORE | BP if name in BREVITY_PENALTY_VARIANTS else SCORE, RECOMPUTE,
                needs_evidence=name in _SIMPLE_NUMBER_VARIANTS, pairs_with_conventions=False)
      for name, function in MATRIX_VARIANTS),
    # a free parameter fitted from one record's answer: one equation in one unknown fits some value on any record, so
    # a fitted name names a run's records only with a pattern across them (`needs_evidence`), never by one record
    *(Mechanism(stem, COMBINATION, FITTED_WORDS, SCORE | BP, FREE, family=True, words_of=scorefit.describe,
                needs_evidence=True, pairs_with_conventions=False) for stem in FITTED_STEMS),
    # decided by exact tests on the returned numbers; no value is replayed from them
    *(Mechanism(name, COMBINATION, words, SCORE | BP, FREE) for name, words in PARTIAL_NAMES.items()),
]

__all__ = ["BATCH_MEAN_VARIANTS", "BATCH_SIZES", "BREVITY_PENALTY_VARIANTS", "COMBINATION_VARIANTS",
           "FITTED_STEMS", "FITTED_WORDS", "MATRIX_VARIANTS", "MECHANISMS", "OTHER_BREVITY_PENALTY",
           "OTHER_COMBINATION", "OTHER_SCALE", "OTHER_WEIGHTING", "PARTIAL_NAMES", "STAGE_NAMES", "WHAT_IS_KNOWN",
           "batch_mean_name", "is_fitted", "is_partial", "stages_consistent_with"]
