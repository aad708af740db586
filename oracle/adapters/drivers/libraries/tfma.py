"""tensorflow-model-analysis' `Bleu`, driven as Beam drives its combiner.

tensorflow-model-analysis 0.52.0, `tfma.metrics.Bleu`: sacrebleu's BLEU behind a Beam CombineFn (`add_input` per
batch, `merge_accumulators` of shards; no reset: Beam makes a new accumulator), BLEU-4 only (`Bleu` passes no
max_ngram_order to sacrebleu's BLEU): profile `sacrebleu`, sacrebleu's smoothing table (libraries/sacrebleu.py). It
runs in the TensorFlow family's environment (_tensorflow.py).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import TEXT_LIMITS, Answer, Batch, Command, Life, Scorer, count, implementation, library_arguments, planned
from ._tensorflow import tensorflow_environment
from .sacrebleu import SMOOTHING as SACREBLEU_SMOOTHING

ENVIRONMENT = tensorflow_environment("tensorflow-model-analysis")
IMPLEMENTATIONS = [
    # a Beam CombineFn: `add_input` per batch, `merge_accumulators` of shards; no reset (Beam makes a new
    # accumulator); BLEU-4 only (`Bleu` passes no max_ngram_order to sacrebleu's BLEU)
    implementation("tfma", "sacrebleu", dict(
        levels=("corpus",), weights="uniform", orders=[4], statistics=True, lowercase=True,
        tokenizers=["none", "13a", "intl", "char"], conventions={"empty_order": ["zero", "skip"]},
        stateful=["accumulate", "merge"], **TEXT_LIMITS), smoothing=SACREBLEU_SMOOTHING, preload=True),
]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """tensorflow-model-analysis' `tfma.metrics.Bleu(lowercase, force, tokenize, smooth_method, smooth_value,
    use_effective_order)`, driven as Beam drives its combiner, without a pipeline: `computations()[0].combiner`,
    then `create_accumulator`, `add_input` of each batch (one example: its predictions and its labels as
    sacrebleu's reference streams, None for a missing reference), `merge_accumulators` of shards and
    `extract_output`, a sacrebleu BLEUScore. A Beam combiner has no reset: Beam makes a new accumulator."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensorflow_model_analysis.metrics import bleu, metric_util

    def new(command: Command) -> Any:
        method, arguments = library_arguments(command, settings)
        rule = (command.get("conventions") or {}).get("empty_order")
        metric = bleu.Bleu(lowercase=bool(command.get("lowercase")), force=True,
                           tokenize=command.get("tokenize") or "none", smooth_method=method,
                           smooth_value=arguments.get("smooth_value"), use_effective_order=rule == "skip")
        combiner = metric.computations()[0].combiner
        return combiner, combiner.create_accumulator()

    def update(state: Any, segments: Batch) -> Any:
        combiner, accumulator = state
        width = max([len(references) for _, references in segments] or [0])
        streams = [[references[k] if k < len(references) else None for _, references in segments]
                   for k in range(width)]
        example = {"labels": streams, "predictions": [hypothesis for hypothesis, _ in segments]}
        return combiner, combiner.add_input(accumulator, metric_util.to_standard_metric_inputs(example))

    def merge(state: Any, other: Any) -> Any:
        return state[0], state[0].merge_accumulators([state[1], other[1]])

    def result(state: Any) -> Answer:
        combiner, accumulator = state
        (score,) = combiner.extract_output(accumulator).values()
        statistics = {"hyp_len": int(score.sys_len), "ref_len": int(score.ref_len),
                      "matches": [count(x) for x in accumulator.matching_ngrams],
                      "totals": [count(x) for x in accumulator.total_ngrams], "bp": float(score.bp)}
        return float(score.score) / 100.0, statistics

    return planned(Life(new=new, update=update, result=result, merge=merge))
