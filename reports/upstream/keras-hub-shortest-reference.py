"""keras-hub's Bleu takes the shortest reference as the reference length, where SacreBLEU (which it says it
replicates) takes the closest. Draft report: keras-hub-shortest-reference.md."""

import math
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

VENV = "keras-hub"  # run in keras-hub's own environment (_run.py)
DISTRIBUTION = "keras-hub"
#: p1 = 6/6, p2 = 5/5; the closest reference has 7 tokens, c = 6: BP = exp(1 - 7/6) (derived in the draft).
DOCUMENTED = math.exp(1 - 7 / 6)


def reproduce():
    import keras_hub

    metric = keras_hub.metrics.Bleu(max_order=2)
    metric.update_state([["a b c d e f g", "a b c"]], ["a b c d e f"])
    return float(metric.result())


if __name__ == "__main__":
    print(reproduce())
