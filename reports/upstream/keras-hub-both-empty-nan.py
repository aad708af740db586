"""keras-hub's Bleu gives NaN for an empty prediction against an empty reference, where SacreBLEU gives 0.
Draft report: keras-hub-both-empty-nan.md."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

VENV = "keras-hub"  # run in keras-hub's own environment (_run.py)
DISTRIBUTION = "keras-hub"
#: sacrebleu's corpus BLEU of "" against "" is 0 (no hypothesis token: BP = 0 and every count 0).
DOCUMENTED = 0.0


def reproduce():
    import keras_hub

    metric = keras_hub.metrics.Bleu(max_order=1)
    metric.update_state([[""]], [""])
    return float(metric.result())


if __name__ == "__main__":
    print(reproduce())
