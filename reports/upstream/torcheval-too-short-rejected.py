"""torcheval's bleu_score refuses a corpus without 4-grams (ValueError) instead of scoring it.
Draft report: torcheval-too-short-rejected.md."""

from torcheval.metrics.functional import bleu_score

DISTRIBUTION = "torcheval"
#: No 4-gram in the corpus: p4 has numerator 0, and the geometric mean with a zero factor is 0.
DOCUMENTED = 0.0


def reproduce():
    return float(bleu_score(["a b c"], [["a b c"]], n_gram=4))


if __name__ == "__main__":
    print(reproduce())
