"""tf-models-official's compute_bleu raises ZeroDivisionError when the references have no token, where
tensor2tensor's bleu_hook, which it cites as its source, scores. Draft report:
tf-models-official-empty-reference-division-by-zero.md."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

VENV = "tf-models-official"  # run in keras-hub's environment, where tf-models-official lives (_run.py)
DISTRIBUTION = "tf-models-official"
#: tensor2tensor's compute_bleu of ['a'] against []: `if not reference_length: bp = 1.0`; p1 = 1/(2 * 1) (its
#: smoothing), orders 2-4 without n-grams left out of the log sum: (1/2)^(1/4) = 0.8409 (float32).
DOCUMENTED = 0.5 ** 0.25


def reproduce():
    from official.nlp.metrics import bleu

    return float(bleu.compute_bleu([[]], [["a"]]))


if __name__ == "__main__":
    print(reproduce())
