"""compare-mt's BleuScorer floors each segment's n-gram total at 1: a perfect corpus scores below 1.
Draft report: compare-mt-segment-totals-floor.md."""

VENV = "compare-mt"  # run in compare-mt's own environment (_run.py)
DISTRIBUTION = "compare-mt"
#: every hypothesis is its reference: every precision is 1, c = r: BLEU = 1
DOCUMENTED = 1.0


def reproduce():
    from compare_mt import scorers

    corpus = [["a", "b"], ["c", "d", "e", "f", "g", "h"]]
    score, _ = scorers.BleuScorer().score_corpus(corpus, corpus)
    return score / 100


if __name__ == "__main__":
    print(reproduce())
