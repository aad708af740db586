"""metrax's `BLEU` (JAX), a clu-style metric value.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Batch, Life, Scorer, planned


def scorer(settings: Dict[str, Any]) -> Scorer:
    import metrax as library

    def batch_metric(max_order: int, segments: Batch) -> Any:
        return library.BLEU.from_model_output(predictions=[hypothesis for hypothesis, _ in segments],
                                              references=[references for _, references in segments],
                                              max_order=max_order)

    def update(state: Any, segments: Batch) -> Any:
        # a state is the max_order until its first batch, then the metric so far; metrax accumulates as its
        # clu-style metrics do, the batch's own metric merged into it
        if isinstance(state, int):
            return batch_metric(state, segments)
        return state.merge(batch_metric(state.max_order, segments))

    return planned(Life(new=lambda command: len(command["weights"]), update=update,
                        result=lambda state: float(state.compute()), merge=lambda state, other: state.merge(other)))
