"""tensorflow-model-analysis' Bleu counts none of a batch's hypothesis n-grams when every reference of that batch
is empty (its length still counts), so a corpus scores differently depending on how it was batched.
Draft report: tfma-empty-reference-batch.md."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

VENV = "tfma"  # run in keras-hub's environment, where tfma lives (_run.py)
DISTRIBUTION = "tensorflow-model-analysis"
#: The same two segments in one batch: 'a b c d' against itself and 'x' against an empty reference: matches
#: [4, 3, 2, 1] of totals [5, 3, 2, 1], c = 5 > r = 4: BLEU = 100 * (4/5)^(1/4) = 94.574 (no smoothing).
DOCUMENTED = 100 * 0.8 ** 0.25


def reproduce():
    from tensorflow_model_analysis.metrics import bleu

    combiner = bleu.Bleu(tokenize="none", smooth_method="none").computations()[0].combiner
    accumulator = combiner.create_accumulator()
    for hypotheses, references in ((["a b c d"], [["a b c d"]]), (["x"], [[""]])):  # two batches (add_input)
        accumulator = combiner.merge_accumulators(
            [accumulator, *combiner._extract_corpus_statistics(hypotheses, references)])
    return float(combiner.extract_output(accumulator)[combiner.key].score)


if __name__ == "__main__":
    print(reproduce())
