"""lm-evaluation-harness' `bleu` aggregation.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Scorer, text_segments


def scorer(settings: Dict[str, Any]) -> Scorer:
    """lm-evaluation-harness' `bleu` aggregation (lm_eval.api.metrics.bleu), what a task with `metric: bleu`
    ends in: the per-document `bleu_fn` passes (gold, prediction) through, and the aggregation receives their
    list, reformats it for sacrebleu (`_sacreformat`) and returns `sacrebleu.corpus_bleu(preds, refs).score`
    (its defaults: 13a, exp smoothing, no effective order), on 0..100."""
    from lm_eval.api.metrics import bleu

    def score(command: Command) -> Answer:
        items = [(references, hypothesis) for hypothesis, references in text_segments(command)]
        return float(bleu(items)) / 100.0

    return score
