"""Computations on the oracle's own values (`oracle.diagnose.computations.COMPUTATIONS`: a mean of sentence scores,
a 0-100 scale, a tiny value for a zero precision, an early "return 0", ...), and the names the classifier gives
without a function of their own: float32 arithmetic, smoothed counts reported, small weights taken as zero.

Every computation registered in `SPECIFIC_COMPUTATIONS` or `GENERIC_COMPUTATIONS` is a mechanism here, described
by its docstring, unless another kind claims its name (a tokenizer departure, a state, a counting alternative, each
also tried as a computation): a new computation needs no entry of its own.
"""

from __future__ import annotations

from oracle.diagnose.combination import PARTIAL_NAMES
from oracle.diagnose.computations import (
    BREVITY_PENALTY_ALTERNATIVES,
    COMBINATION_COMPUTATIONS,
    COMPUTATION_DOCS,
    FLOAT32,
)
from oracle.diagnose.structure import STRUCTURES
from oracle.models.results import NEEDS_EVIDENCE

from .model import BP, COMPUTATION, FREE, RECOMPUTE, SCORE, Mechanism, Route

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
    # what is known where no mechanism fits (`oracle.diagnose.combination`): the stage the answer is consistent with,
    # decided by exact tests on the returned numbers; no value is replayed from them
    *(Mechanism(name, COMPUTATION, words, SCORE | BP, FREE) for name, words in PARTIAL_NAMES.items()),
]
#: The names of what is known where nothing fits (`PARTIAL_NAMES`): described, never replayed.
WHAT_IS_KNOWN = frozenset(PARTIAL_NAMES)


def computation_route(name: str, function: object) -> Route:
    """A registered computation's route: its function, its docstring the words of a record it finds."""
    return Route("computation", function, COMPUTATION_DOCS[name])


#: The computations never tried with a convention (`Mechanism.pairs_with_conventions`), by the registry that declares
#: them: the score stage's variants (`COMBINATION_COMPUTATIONS`), which are many and reach simple numbers (2^-1.5, 1/2,
#: ...) that a convention's counts then fit by coincidence; and a request mis-shaped by its caller
#: (`structure.STRUCTURES`), which re-runs the oracle on a reshaped request for every convention and pair tried (8,770
#: reshaped requests, two thirds of a run's time, on one fake that no mechanism names) for a mistake made outside the
#: library, whatever its conventions. A computation added to either registry is alone by that alone.
_ALONE = frozenset((*(name for name, _ in COMBINATION_COMPUTATIONS), *STRUCTURES))


def computation_mechanism(name: str, function: object) -> Mechanism:
    """A registered computation no other kind claims, as a mechanism: its docstring is its description."""
    layers = SCORE | BP if name in BREVITY_PENALTY_ALTERNATIVES else SCORE
    return Mechanism(name, COMPUTATION, COMPUTATION_DOCS[name], layers, RECOMPUTE,
                     pairs_with_conventions=name not in _ALONE, needs_evidence=name in NEEDS_EVIDENCE)


#: The brevity penalties a returned BP is compared with (added to those computations' mechanisms).
ROUTES = [(name, Route("bp", rule, COMPUTATION_DOCS[name])) for name, rule in BREVITY_PENALTY_ALTERNATIVES.items()]

__all__ = ["FLOAT32", "FLOAT32_REL_TOLERANCE", "MECHANISMS", "ROUTES", "SMALL_WEIGHTS", "SMOOTHED_COUNTS",
           "WHAT_IS_KNOWN", "computation_mechanism", "computation_route"]
