"""torchmetrics' BLEUScore computes in float32: the score agrees with the exact one to about 1e-8 only.
Draft report: torchmetrics-float32.md."""

import math

from torchmetrics.text import BLEUScore

DISTRIBUTION = "torchmetrics"
#: Every precision is 1; c = 4 < r = 5, so BLEU = exp(1 - 5/4) = exp(-0.25).
DOCUMENTED = math.exp(-0.25)


def reproduce():
    metric = BLEUScore(n_gram=4)
    metric.update(["a b c d"], [["a b c d e"]])
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
