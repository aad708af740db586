"""opik's `CorpusBLEU`.

opik 2.2.122, `opik.evaluation.metrics.CorpusBLEU`, as opik-sentence (_opik.py says what they share).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Scorer, implementation, text_segments
from ._opik import OPIK_ENVIRONMENT, OPIK_SMOOTHING, opik_capabilities, opik_metric, opik_value

ENVIRONMENT = OPIK_ENVIRONMENT
IMPLEMENTATIONS = [implementation("opik-corpus", "nltk", opik_capabilities("corpus"), smoothing=OPIK_SMOOTHING)]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """opik's `CorpusBLEU(...).score(output, reference)`: the hypothesis strings, each with its list of references."""
    metric_of = opik_metric("CorpusBLEU", settings)

    def score(command: Command) -> Answer:
        segments = text_segments(command)
        return opik_value(lambda: metric_of(command).score(output=[hypothesis for hypothesis, _ in segments],
                                                            reference=[references for _, references in segments]))

    return score
