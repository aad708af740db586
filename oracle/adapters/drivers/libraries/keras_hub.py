"""keras-hub's `keras_hub.src.metrics.bleu.Bleu`, a Keras metric over TensorFlow.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import Batch, Command, Life, Scorer, planned


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
