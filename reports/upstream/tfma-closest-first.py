"""tensorflow-model-analysis' Bleu takes the first listed of two references equally close in length to the
hypothesis, so the score depends on the order of the references. Draft report: tfma-closest-first.md."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

VENV = "tfma"  # run in keras-hub's environment, where tfma lives (_run.py)
DISTRIBUTION = "tensorflow-model-analysis"
#: sacrebleu's corpus BLEU of "a b c d e" against "a b c d e f" and "a b c d": the closest lengths, 6 and 4, are
#: equally far from 5 and sacrebleu takes the shorter, 4: c > r, BP 1, every precision 1: 100 (either order).
DOCUMENTED = 100.0


def reproduce():
    from tensorflow_model_analysis.metrics import bleu

    combiner = bleu.Bleu(tokenize="none").computations()[0].combiner
    statistics = combiner._extract_corpus_statistics(["a b c d e"], [["a b c d e f"], ["a b c d"]])
    accumulator = combiner.merge_accumulators([combiner.create_accumulator(), *statistics])
    return float(combiner.extract_output(accumulator)[combiner.key].score)


if __name__ == "__main__":
    print(reproduce())
