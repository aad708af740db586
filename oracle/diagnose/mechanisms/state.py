"""State kept wrongly: in a metric's state over a planned request (`oracle.diagnose.accumulation`: an update, a
merge or a reset that keeps a field otherwise), or in a process between requests (`oracle.diagnose.stale`: an
earlier answer returned, a counter never reset). Also the statistics each metric-state mechanism implies
(`STATE_STATISTICS`), checked against the returned ones by the classifier (`classify._by_state`)."""

from __future__ import annotations

from oracle.diagnose.accumulation import (
    last_segment_of_each_batch_dropped,
    lengths_assigned_by_merge,
    lengths_assigned_by_update,
    lengths_kept_by_reset,
    precisions_averaged_by_merge,
)
from oracle.diagnose.computations import empty_reference_batch_statistics, empty_reference_batch_uncounted

from .counting import COUNTING_ALTERNATIVES
from .model import EVERY_LAYER, FREE, PROBE, RECOMPUTE, SCORE, STATE, Mechanism, Route, docstring_words

#: The names of the explanations of a process's history (`oracle.diagnose.stale`).
EARLIER_ANSWER = "earlier-answer-returned"
EXP_CARRIED = "exp-halvings-carried-over"
REFERENCES_KEPT = "references-kept-from-first-request"
ACCUMULATED = "statistics-accumulated-across-requests"
#: A state's c and r.
LENGTHS = frozenset({"hyp_len", "ref_len"})

#: The departures of a metric state that change lengths (`accumulation`), in the order the search tries them:
#: name -> the statistics they imply (each also tried as a computation, `mechanisms.computations`).
LENGTH_DEPARTURES = {
    "lengths-kept-by-reset": lengths_kept_by_reset,
    "lengths-assigned-by-update": lengths_assigned_by_update,
    "lengths-assigned-by-merge": lengths_assigned_by_merge,
}

#: Mechanisms of a metric state that imply statistics: the length departures, and tfma's batches
#: whose references are all empty (their n-grams uncounted).
STATE_STATISTICS = {**LENGTH_DEPARTURES, "empty-reference-batch-uncounted": empty_reference_batch_statistics,
                    "last-segment-dropped": last_segment_of_each_batch_dropped}

#: What a record named by its state's statistics (`classify._by_state`) shows: the docstring of the computation of
#: the same name, else the counting alternative's words on each update's batch.
_STATE_WORDS = {
    **{name: docstring_words(statistics) for name, statistics in LENGTH_DEPARTURES.items()},
    "empty-reference-batch-uncounted": docstring_words(empty_reference_batch_uncounted),
    "last-segment-dropped": f"{COUNTING_ALTERNATIVES['last-segment-dropped'][0]} (each update's batch)",
}


def state_words(name: str) -> str:
    """What a record named by its state's statistics (`classify._by_state`) shows."""
    return _STATE_WORDS[name]


#: The route of a process's state between requests (`oracle.diagnose.stale`): found in the process's history, and
#: named only where the order of requests changed an answer (`stale.ORDER_PROBED`, one entry per such name, read from
#: this catalogue: `process_state_names`).
HISTORY = "history"
#: (name, words, layers, cost, the function of `oracle.diagnose.stale` that finds it) of each process state.
_PROCESS_STATES = (
    (EARLIER_ANSWER, "answered exactly as an earlier request to the same process, which differs only in the parts "
                     "named and was answered right: a cache keyed without them returns an earlier answer",
     EVERY_LAYER, PROBE, "earlier_answer"),
    (EXP_CARRIED, "exp smoothing's halvings continue from those the earlier requests to this process made (the k-th "
                  "order without a match gets 1/2^(j+k) matches, not 1/2^k): a counter never reset between requests",
     SCORE, FREE, "carried_exp_halvings"),
    (REFERENCES_KEPT, "scored against the references of the first request the process answered (segment i against "
                      "its segment i's, as far as both go), not its own, confirmed by probes with other references "
                      "answered alike: references read once and kept for every later request",
     EVERY_LAYER, PROBE, "kept_references"),
    (ACCUMULATED, "the corpus statistics (c, r, the matches and the totals of every order) of every request the "
                  "process answered since it started added to this request's own, and the score the oracle's of that "
                  "sum: a metric object whose counts are updated on each request and never reset between requests",
     EVERY_LAYER, FREE, "accumulated_statistics"),
)

MECHANISMS = [
    *(Mechanism(name, STATE, docstring_words(statistics), LENGTHS | SCORE, RECOMPUTE,
                (Route("statistics", statistics, state_words(name)),))
      for name, statistics in LENGTH_DEPARTURES.items()),
    Mechanism("precisions-averaged-by-merge", STATE, docstring_words(precisions_averaged_by_merge), SCORE,
              RECOMPUTE, (Route("computation", precisions_averaged_by_merge,
                                docstring_words(precisions_averaged_by_merge)),)),
    *(Mechanism(name, STATE, words, layers, cost, (Route(HISTORY, how, words),), needs_evidence=True)
      for name, words, layers, cost, how in _PROCESS_STATES),
]

#: Routes this module adds to mechanisms of another kind: the statistics of a state's batches.
ROUTES = [(name, Route("statistics", STATE_STATISTICS[name], state_words(name)))
          for name in STATE_STATISTICS if name not in LENGTH_DEPARTURES]

__all__ = ["ACCUMULATED", "EARLIER_ANSWER", "EXP_CARRIED", "HISTORY", "LENGTH_DEPARTURES", "MECHANISMS",
           "REFERENCES_KEPT", "ROUTES", "STATE_STATISTICS", "state_words"]
