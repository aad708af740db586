"""opik's `SentenceBLEU`.

opik 2.2.122, `opik.evaluation.metrics.SentenceBLEU` (`track=False`: no Opik server, tracking disabled), with nltk
3.10.4, which it wraps: `score(output, reference)` on strings. What it shares with opik-corpus, and its environment
(one, kept under opik's name), is in _opik.py, which says what opik documents and does.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Scorer, implementation, text_segments
from ._opik import OPIK_ENVIRONMENT, OPIK_SMOOTHING, opik_capabilities, opik_metric, opik_value

ENVIRONMENT = OPIK_ENVIRONMENT
IMPLEMENTATIONS = [implementation("opik-sentence", "nltk", opik_capabilities("sentence"), smoothing=OPIK_SMOOTHING)]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """opik's `SentenceBLEU(n_grams, smoothing_method, weights, track=False).score(output, reference)`: one
    hypothesis string against the list of reference strings (its own lowercasing, whitespace split and weight
    truncation happen inside, unchanged)."""
    metric_of = opik_metric("SentenceBLEU", settings)

    def score(command: Command) -> Answer:
        ((hypothesis, references),) = text_segments(command)
        return opik_value(lambda: metric_of(command).score(output=hypothesis, reference=references))

    return score
