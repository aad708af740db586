"""keras-hub's `keras_hub.src.metrics.bleu.Bleu`, a Keras metric over TensorFlow.

keras-hub 0.32.0, `keras_hub.metrics.Bleu` (TensorFlow 2.21 CPU, keras 3.15): corpus BLEU with uniform weights
1/max_order, `smooth` adding 1 to every order's matches and totals (its docstring: "Adds 1 to the matched n-gram count
... for every order": lin-2004), in float32 (its default dtype). Its docstring says that "by default, this
implementation replicates SacreBLEU": profile `sacrebleu`. Token requests pass a tokenizer that splits on whitespace (so
tokens hold none and none is empty); text requests for "13a" use its default tokenizer, the one it says "replicates the
behaviour of SacreBLEU's tokenizer_13a". Prepared by `check` (or `bleu-oracle install keras-hub`) before its first
use: about 15-20 s from the package registry and 1.6 GB on disk (the TensorFlow family's environment, _tensorflow.py).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import TEXT_LIMITS, Batch, Command, Life, Scorer, implementation, planned
from ._tensorflow import tensorflow_environment

ENVIRONMENT = tensorflow_environment("keras-hub")
IMPLEMENTATIONS = [
    # a Keras metric: `update_state` per batch and `reset_state`; no merge (Keras metrics have none)
    implementation("keras-hub", "sacrebleu", dict(weights="uniform", max_order=12, smoothing=["none", "lin-2004"],
                                                  tokenizers=["13a"], stateful=["accumulate", "reset"], **TEXT_LIMITS),
                   preload=True),
]


def scorer(settings: Dict[str, Any]) -> Scorer:
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from keras_hub.src.metrics.bleu import Bleu

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    def split_on_spaces(inputs: Any) -> Any:  # the tokens as sent: joined by single spaces, none holding whitespace
        return tf.strings.split(inputs)

    def new(command: Command) -> Any:
        tokenizer = None if command.get("tokenize") == "13a" else split_on_spaces
        return Bleu(tokenizer=tokenizer, max_order=len(command["weights"]),
                    smooth=command["smoothing"]["method"] != "none")

    def update(metric: Any, segments: Batch) -> Any:
        references = tf.ragged.constant([references for _, references in segments])
        metric.update_state(references, tf.constant([hypothesis for hypothesis, _ in segments]))
        return metric

    def reset(metric: Any) -> Any:
        metric.reset_state()
        return metric

    return planned(Life(new=new, update=update, result=lambda metric: float(metric.result()), reset=reset))
