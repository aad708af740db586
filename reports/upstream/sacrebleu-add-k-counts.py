"""sacrebleu's BLEUScore.counts include the k that add-k smoothing added. Draft report: sacrebleu-add-k-counts.md."""

from sacrebleu.metrics import BLEU

DISTRIBUTION = "sacrebleu"
#: Correct n-grams of "a b c" against "a b d": a, b; "a b"; none of order 3 or 4.
DOCUMENTED = [2, 1, 0, 0]


def reproduce():
    bleu = BLEU(smooth_method="add-k", smooth_value=1, tokenize="none")
    return list(bleu.corpus_score(["a b c"], [["a b d"]]).counts)


if __name__ == "__main__":
    print(reproduce())
