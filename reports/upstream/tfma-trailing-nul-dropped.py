"""tensorflow-model-analysis' Bleu reads its predictions and labels back from numpy arrays, and a fixed-width
unicode array drops a string's trailing NUL characters (numpy pads with them), so a line ending in U+0000 is scored
without it. Draft report: tfma-trailing-nul-dropped.md."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

VENV = "tfma"  # run in keras-hub's environment, where tfma lives (_run.py)
DISTRIBUTION = "tensorflow-model-analysis"
#: 'a b c d' against 'a b c d\x00': the last token 'd\x00' matches nothing, so matches [3, 2, 1, 0] of [4, 3, 2, 1],
#: and without smoothing BLEU = 0 (sacrebleu's corpus_bleu of the same strings).
DOCUMENTED = 0.0


def reproduce():
    from tensorflow_model_analysis.metrics import bleu, metric_util

    combiner = bleu.Bleu(tokenize="none", smooth_method="none").computations()[0].combiner
    example = {"labels": [["a b c d\x00"]], "predictions": ["a b c d"]}
    accumulator = combiner.add_input(combiner.create_accumulator(), metric_util.to_standard_metric_inputs(example))
    return float(combiner.extract_output(accumulator)[combiner.key].score)


if __name__ == "__main__":
    print(reproduce())
