"""metrax's `BLEU` (JAX), a clu-style metric value.

metrax 0.2.4 (google-metrax, JAX), `metrax.BLEU.from_model_output(predictions, references, max_order).compute()`:
corpus BLEU, uniform weights, no smoothing, statistics in float32. Its docstring calls the reference length "the
closest length match": profile `papineni`. Prepared by `check` (or `bleu-oracle install metrax`) before its first
use: about 15-20 s from the package registry and 0.8 GB on disk.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import TEXT_LIMITS, Batch, Life, Scorer, environment, implementation, planned

ENVIRONMENT = environment(
    (("google-metrax==0.2.4", "jax==0.10.2", "jaxlib==0.10.2", "flax==0.12.8", "clu==0.0.12"),),
    "import metrax", "google-metrax")
IMPLEMENTATIONS = [
    # a clu-style value: batches accumulate by `merge`, shards merge by `merge`; no reset (a used state is a value)
    implementation("metrax", "papineni", dict(weights="uniform", max_order=12, stateful=["accumulate", "merge"],
                                              **TEXT_LIMITS)),
]


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
