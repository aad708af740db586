"""mmeval's `BLEU`, through its metric life cycle.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Batch, Command, Life, Scorer, planned


def scorer(settings: Dict[str, Any]) -> Scorer:
    """mmeval's `BLEU(n_gram, smooth, ngram_weights, tokenizer_fn="en")` (str.split: the tokens as sent,
    joined by single spaces; "en" given, not inferred from the first prediction) through its metric life
    cycle: `add(predictions, references)` per batch, `compute()["bleu"]`, `reset()`."""
    from mmeval import BLEU

    def new(command: Command) -> Any:
        weights = [float(w) for w in command["weights"]]  # smooth: chen-cherry-2, the only other method declared
        return BLEU(n_gram=len(weights), smooth=command["smoothing"]["method"] != "none", ngram_weights=weights,
                    tokenizer_fn="en")

    def update(metric: Any, segments: Batch) -> Any:
        metric.add([hypothesis for hypothesis, _ in segments], [references for _, references in segments])
        return metric

    def reset(metric: Any) -> Any:
        metric.reset()
        return metric

    return planned(Life(new=new, update=update, result=lambda metric: float(metric.compute()["bleu"]), reset=reset))
