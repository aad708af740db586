"""What opik's SentenceBLEU and CorpusBLEU (libraries/opik_sentence.py, opik_corpus.py) share: the metric made from a
command, untracked, and its value or its refusal. Not a library of its own (a leading underscore: the driver lists
no `_` module)."""

import os
from typing import Any, Callable, Dict

from . import Command, Refused, library_arguments


def opik_metric(kind: str, settings: Dict[str, Any]) -> Callable[[Command], Any]:
    """A command's opik metric of class `kind`, untracked (no Opik server: `track=False`, and tracking disabled
    before opik loads), its smoothing method named from the adapter's table."""
    os.environ["OPIK_TRACK_DISABLE"] = "true"
    from opik.evaluation.metrics import heuristics

    metric_class = getattr(heuristics.bleu, kind)

    def metric_of(command: Command) -> Any:
        method, _ = library_arguments(command, settings)
        weights = [float(w) for w in command["weights"]]
        try:
            return metric_class(track=False, n_grams=len(weights), smoothing_method=method, weights=weights)
        except ValueError as exc:  # its documented check: "weights ... Must sum to 1.0"
            raise Refused("rejected", "opik raised ValueError: {}".format(exc)) from exc

    return metric_of


def opik_value(run: Callable[[], Any]) -> float:
    from opik.exceptions import MetricComputationError

    try:
        return float(run().value)
    except MetricComputationError as exc:  # its documented refusal of an empty candidate or reference
        raise Refused("rejected", "opik raised MetricComputationError: {}".format(exc)) from exc
