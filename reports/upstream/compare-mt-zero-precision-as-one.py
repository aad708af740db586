"""compare-mt's BleuScorer counts a zero n-gram precision as 1 (log p taken as 0).
Draft report: compare-mt-zero-precision-as-one.md."""

VENV = "compare-mt"  # run in compare-mt's own environment (_run.py)
DISTRIBUTION = "compare-mt"
#: p2 = 0/1: the geometric mean of the precisions is 0
DOCUMENTED = 0.0


def reproduce():
    from compare_mt import scorers

    score, _ = scorers.BleuScorer(weights=(0.5, 0.5)).score_corpus([["a", "c"]], [["a", "b"]])
    return score / 100


if __name__ == "__main__":
    print(reproduce())
