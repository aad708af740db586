"""torchtext's bleu_score takes the first listed of two equally close reference lengths, so the score depends on
the order of the references. Draft report: torchtext-closest-first.md."""

from _torchtext import bleu_score_function

DISTRIBUTION = "torchtext"
#: p1 = 5/5 in either order; with the tie between r = 6 and r = 4 broken towards the shorter (NLTK's and
#: sacrebleu's rule) r = 4 < c = 5 and BP = 1 in both orders: [1.0, 1.0]. Any one rule gives equal scores.
DOCUMENTED = [1.0, 1.0]


def reproduce():
    bleu_score = bleu_score_function()
    hypothesis = ["a", "b", "c", "d", "e"]
    longer, shorter = ["a", "b", "c", "d", "e", "f"], ["a", "b", "c", "d"]
    return [bleu_score([hypothesis], [[longer, shorter]], max_n=1, weights=[1.0]),
            bleu_score([hypothesis], [[shorter, longer]], max_n=1, weights=[1.0])]


if __name__ == "__main__":
    print(reproduce())
