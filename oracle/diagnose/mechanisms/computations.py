"""Computations on the oracle's own values (a mean of sentence scores, a 0-100 scale, a tiny value for a zero
precision, an early "return 0", ...), and the names the classifier gives without a function of their own: float32
arithmetic, smoothed counts reported, small weights taken as zero.

The computations are declared here, in the order the search tries them (`SPECIFIC_COMPUTATIONS`,
`GENERIC_COMPUTATIONS`, `COMBINATION_COMPUTATIONS`: the order decides which name a record gets where two fit);
their functions live where they belong (`oracle.diagnose.computations`, `structure`, ...), and the score stage's and
the smoothing stage's variants, the structures and the one-side folds are declared in their kind modules
(`mechanisms.combination`, `mechanisms.smoothing`, `mechanisms.structure`), whose lists the tiers take whole. Each is
a mechanism here, described by its function's docstring, unless another kind claims its name (a tokenizer departure,
a state, a counting alternative, a stage's variant, a structure, each also tried as a computation): a new
computation is one line in one of these lists.
"""

from __future__ import annotations

import math

from oracle.diagnose.accumulation import precisions_averaged_by_merge
from oracle.diagnose.computations import (
    add_k_from_trigrams,
    add_k_on_every_order,
    add_k_truncated_to_an_integer,
    any_order_unmatched_zero,
    best_single_reference_clipping,
    best_single_reference_with_epsilon,
    both_empty_smoothed,
    brevity_penalty_inverted,
    brevity_penalty_when_longer,
    case_folded_unasked,
    case_not_folded,
    chen_cherry_5_precisions,
    chen_cherry_6_empty_order_prior,
    chen_cherry_6_last_hypothesis,
    coco_epsilon,
    departure_computation,
    empty_hypothesis_scores_one,
    empty_reference_batch_uncounted,
    empty_sentence_end_token,
    empty_text_one_token,
    epsilon_for_every_zero_or_empty_order,
    epsilon_instead_of_zero,
    first_piece_only,
    hypothesis_folded_before_entities,
    length_departure_computation,
    matches_moved_by_spaces_score,
    max_over_single_reference_scores,
    mean_of_sentence_bleu,
    mean_of_sentence_scores,
    no_brevity_penalty,
    no_match_zero,
    object_prototype_key_nan,
    one_side_fold_computation,
    orders_beyond_4_left_out,
    percent_scale,
    printed_4_decimals,
    ratio_zero_when_r_zero,
    references_cut_to_fewest,
    structure_computation,
    tiny_instead_of_zero,
    zero_precision_dropped,
    zero_precision_orders_skipped,
    zero_weight_nan,
)

from .combination import BREVITY_PENALTY_VARIANTS, COMBINATION_VARIANTS, MATRIX_VARIANTS
from .model import BP, COMPUTATION, FREE, RECOMPUTE, SCORE, Mechanism, Route, docstring_words
from .smoothing import SMOOTHING_VARIANTS
from .state import LENGTH_DEPARTURES
from .structure import ONE_SIDE_FOLDS, STRUCTURES
from .text import DEPARTURES

#: float32 arithmetic somewhere: the name of an answer that is a reading's value computed in single precision.
FLOAT32 = "float32"

#: The other brevity penalties the classifier knows, as functions of (c, r) for c > 0: a returned BP
#: equal to one of them names the mechanism even where the score cannot tell (a score of 0).
BREVITY_PENALTY_ALTERNATIVES = {
    "no-brevity-penalty": lambda c, r: 1.0,
    "brevity-penalty-when-longer": lambda c, r: math.exp(1 - r / c),
    "brevity-penalty-inverted": lambda c, r: math.exp(1 - c / r) if 0 < c < r else 1.0,
    **BREVITY_PENALTY_VARIANTS,
}

#: Computations gated by a condition specific to one library's code (tried before the conventions).
SPECIFIC_COMPUTATIONS = (
    ("tiny-instead-of-zero", tiny_instead_of_zero),
    ("no-match-zero", no_match_zero),
    ("any-order-unmatched-zero", any_order_unmatched_zero),
    ("chen-cherry-5-precisions", chen_cherry_5_precisions),
    ("chen-cherry-6-last-hypothesis", chen_cherry_6_last_hypothesis),
    ("chen-cherry-6-empty-order-prior", chen_cherry_6_empty_order_prior),
    ("coco-epsilon", coco_epsilon),
    ("zero-weight-nan", zero_weight_nan),
    ("both-empty-smoothed", both_empty_smoothed),
    ("best-single-reference-clipping", best_single_reference_clipping),
    ("epsilon-instead-of-zero", epsilon_instead_of_zero),
    ("epsilon-for-every-zero-or-empty-order", epsilon_for_every_zero_or_empty_order),
    ("add-k-from-trigrams", add_k_from_trigrams),
    ("add-k-on-every-order", add_k_on_every_order),
    ("add-k-truncated-to-an-integer", add_k_truncated_to_an_integer),
    ("orders-beyond-4-left-out", orders_beyond_4_left_out),
    ("best-single-reference-with-epsilon", best_single_reference_with_epsilon),
    ("object-prototype-key-nan", object_prototype_key_nan),
    ("empty-text-one-token", empty_text_one_token),
    ("empty-sentence-end-token", empty_sentence_end_token),
    # after the readings of empty text above, which give a sentence of no tokens 1 as well: where they fit, a
    # record is named by them and this fits beside them (a run names the one that fits every record)
    ("empty-hypothesis-scores-one", empty_hypothesis_scores_one),
    ("ratio-zero-when-r-zero", ratio_zero_when_r_zero),
    ("references-cut-to-fewest", references_cut_to_fewest),
    ("first-piece-only", first_piece_only),
    ("empty-reference-batch-uncounted", empty_reference_batch_uncounted),
    ("hypothesis-folded-before-entities", hypothesis_folded_before_entities),
    ("matches-moved-by-spaces", matches_moved_by_spaces_score),
    *((departure.name, departure_computation(departure)) for departure in DEPARTURES),
    *((name, length_departure_computation(name, statistics)) for name, statistics in LENGTH_DEPARTURES.items()),
    ("precisions-averaged-by-merge", precisions_averaged_by_merge),
)
#: Each reference scored alone and the best kept (`computations.max_over_single_reference_scores`): a way the caller
#: groups the references, as `structure.STRUCTURES` are, so never paired with a convention (`_ALONE`): it re-runs the
#: oracle once per reference of every segment.
MAX_OVER_SINGLE_REFERENCES = "max-over-single-reference-scores"
#: Computations that apply to many inputs (tried after the single conventions).
GENERIC_COMPUTATIONS = (
    ("zero-precision-dropped", zero_precision_dropped),
    ("zero-precision-orders-skipped", zero_precision_orders_skipped),
    ("mean-of-sentence-scores", mean_of_sentence_scores),
    ("mean-of-sentence-bleu", mean_of_sentence_bleu),
    (MAX_OVER_SINGLE_REFERENCES, max_over_single_reference_scores),
    ("percent-scale", percent_scale),
    ("printed-4-decimals", printed_4_decimals),
    ("case-folded-unasked", case_folded_unasked),
    ("case-not-folded", case_not_folded),
    *((name, one_side_fold_computation(name, words, side)) for name, (words, side) in ONE_SIDE_FOLDS.items()),
    *((name, structure_computation(structure)) for name, structure in STRUCTURES.items()),
    ("no-brevity-penalty", no_brevity_penalty),
    ("brevity-penalty-when-longer", brevity_penalty_when_longer),
    ("brevity-penalty-inverted", brevity_penalty_inverted),
)
#: The score stage's variants (`mechanisms.combination`): the combination of right statistics under the mutation
#: operators real bugs are made of, and the smoothing stage's (`mechanisms.smoothing`): the requested smoothing
#: computed wrongly (tried in a tier of their own, after the single explanations), then the score stage's variants
#: that fill the stage matrix's cells (`mechanisms.combination.MATRIX_VARIANTS`), last.
COMBINATION_COMPUTATIONS = COMBINATION_VARIANTS + SMOOTHING_VARIANTS + MATRIX_VARIANTS
COMPUTATIONS = SPECIFIC_COMPUTATIONS + GENERIC_COMPUTATIONS + COMBINATION_COMPUTATIONS


COMPUTATION_DOCS = {name: docstring_words(function) for name, function in COMPUTATIONS}
COMPUTATION_DOCS[FLOAT32] = ("float32 arithmetic somewhere (weights, precisions or score in torch's default dtype, "
                              "or weights stored as C floats): agrees to float32 precision")

#: float32 arithmetic somewhere (torch's default dtype, weights stored as C floats): the relative distance within
#: which an answer is taken to be a reading's value computed in single precision, by the classifier ("... +
#: float32") and by doctor (a number "in float32", beyond its printed digits). The two had their own, 1e-5 (the
#: classifier, since its first commit 2e7581e) and 2e-6 (doctor, 13c30f4), neither measured. Measured:
#: - the committed records real float32 tools gave (reports/data/runs: torchmetrics, torchtext, keras-hub,
#:   tf-models-official, tensor2tensor, metrax, mlpack, ignite, fast-bleu; 1,433 whose name or fits hold float32) lie
#:   within 5.2e-7 of their explanation (torchtext's random-0-159, ln score -4.8);
#: - torchmetrics 1.9.0 against the exact oracle on 611 random corpora (1-4 segments, references up to 30 times the
#:   hypothesis, half of them smoothed): the error grows with |ln score| (the exponent's absolute rounding error is
#:   the score's relative one), 1.7e-7 at ln score > -2, 9.3e-7 in [-20, -10), 1.39e-6 at -54;
#: - classified at 2e-6 instead of 1e-5, none of those 1,377 records (56 keep no request) changes its name, words,
#:   value or fits;
#: - doctor at 1e-5 instead of 2e-6 lists 205 more "float32" readings of the WMT17 fixture's numbers
#:   (tests/doctor_data/wmt17.json), each further beyond the number's printed digits than float32 rounds a score
#:   of 0.1 to 0.6 (about 2e-7 relative): coincidences.
#: So 2e-6: a factor 3.8 above every real record, 1.4 above the tiniest measured score; a float32 score below about
#: e^-75 can round further and is then named otherwise (or unexplained), a price the looser 1e-5 paid in coincidences.
FLOAT32_REL_TOLERANCE = 2e-6

#: The score agrees; the reported matches and totals are the smoothed ones.
SMOOTHED_COUNTS = "statistics-report-smoothed-counts"
#: Weights under a threshold taken as 0 (a "negligible weight" cut): one name whatever the threshold.
SMALL_WEIGHTS = "small-weights-taken-as-zero"

#: The names no other kind claims, described here: float32, smoothed counts, small weights.
MECHANISMS = [
    Mechanism(FLOAT32, COMPUTATION, COMPUTATION_DOCS[FLOAT32], SCORE | BP, FREE, needs_evidence=True),
    Mechanism(SMOOTHED_COUNTS, COMPUTATION, "the score agrees; the reported matches/totals include the smoothing's "
                                            "additions", frozenset({"matches", "totals"}), FREE),
    Mechanism(SMALL_WEIGHTS, COMPUTATION, "weights under a threshold taken as 0 (a 'negligible weight' cut)", SCORE,
              RECOMPUTE),
    # readings of a token the oracle's counting has no model of: a returned statistic is compared on c and r only
    *(Mechanism(name, COMPUTATION, COMPUTATION_DOCS[name], SCORE, RECOMPUTE, counts_modelled=False)
      for name in ("object-prototype-key-nan", "empty-text-one-token")),
    # never tried with a convention: it re-runs the oracle once per reference of every segment, for every convention
    # and pair tried, for a combination made outside the library, whatever its conventions
    Mechanism(MAX_OVER_SINGLE_REFERENCES, COMPUTATION, COMPUTATION_DOCS[MAX_OVER_SINGLE_REFERENCES], SCORE, RECOMPUTE,
              pairs_with_conventions=False),
]


def computation_route(name: str, function: object) -> Route:
    """A declared computation's route: its function, its docstring the words of a record it finds."""
    return Route("computation", function, COMPUTATION_DOCS[name])


def computation_mechanism(name: str, function: object) -> Mechanism:
    """A declared computation no other kind claims, as a mechanism: its docstring is its description. It pairs with
    conventions: the computations tried alone are declared so by their kind modules (the score stage's and the
    smoothing stage's variants, `mechanisms.combination` and `mechanisms.smoothing`; a request mis-shaped by its
    caller, `mechanisms.structure`)."""
    layers = SCORE | BP if name in BREVITY_PENALTY_ALTERNATIVES else SCORE
    return Mechanism(name, COMPUTATION, COMPUTATION_DOCS[name], layers, RECOMPUTE)


#: The brevity penalties a returned BP is compared with (added to those computations' mechanisms).
ROUTES = [(name, Route("bp", rule, COMPUTATION_DOCS[name])) for name, rule in BREVITY_PENALTY_ALTERNATIVES.items()]

__all__ = ["BREVITY_PENALTY_ALTERNATIVES", "COMBINATION_COMPUTATIONS", "COMPUTATIONS", "COMPUTATION_DOCS",
           "FLOAT32", "FLOAT32_REL_TOLERANCE", "GENERIC_COMPUTATIONS", "MECHANISMS", "ROUTES", "SMALL_WEIGHTS",
           "SMOOTHED_COUNTS", "SPECIFIC_COMPUTATIONS", "computation_mechanism", "computation_route"]
