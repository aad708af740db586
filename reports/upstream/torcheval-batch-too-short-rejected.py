"""torcheval's BLEUScore refuses a batch with no n-gram of some order on `update`, though the accumulated corpus
has them: the same corpus scores in one update and raises in two. Draft report: torcheval-batch-too-short-rejected.md."""

from torcheval.metrics import BLEUScore

DISTRIBUTION = "torcheval"
#: The corpus ("" against "a", then "a" against "a") in one update: c = 1, r = 2, p_1 = 1/1, BP = e^(1 - 2/1).
DOCUMENTED = 0.36787944117144233


def reproduce():
    metric = BLEUScore(n_gram=1)
    metric.update([""], [["a"]])  # the first batch: an empty hypothesis
    metric.update(["a"], [["a"]])
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
