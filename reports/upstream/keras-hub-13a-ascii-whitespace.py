"""keras-hub's Bleu tokenizer splits words on ASCII whitespace only, where SacreBLEU's tokenizer_13a (which it says
it replicates) splits on every character Python's str.split() takes for whitespace. Draft report:
keras-hub-13a-ascii-whitespace.md."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

VENV = "keras-hub"  # run in keras-hub's own environment (_run.py)
DISTRIBUTION = "keras-hub"
#: "a\u00a0b c" is a, b, c to tokenizer_13a, the reference's three tokens: BLEU-1 = 1 (derived in the draft).
DOCUMENTED = 1.0


def reproduce():
    import keras_hub

    metric = keras_hub.metrics.Bleu(max_order=1)
    metric.update_state([["a b c"]], ["a\u00a0b c"])
    return float(metric.result())


if __name__ == "__main__":
    print(reproduce())
