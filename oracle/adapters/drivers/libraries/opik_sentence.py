"""opik's `SentenceBLEU`.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Scorer, text_segments
from ._opik import opik_metric, opik_value


def scorer(settings: Dict[str, Any]) -> Scorer:
    """opik's `SentenceBLEU(n_grams, smoothing_method, weights, track=False).score(output, reference)`: one
    hypothesis string against the list of reference strings (its own lowercasing, whitespace split and weight
    truncation happen inside, unchanged)."""
    metric_of = opik_metric("SentenceBLEU", settings)

    def score(command: Command) -> Answer:
        ((hypothesis, references),) = text_segments(command)
        return opik_value(lambda: metric_of(command).score(output=hypothesis, reference=references))

    return score
