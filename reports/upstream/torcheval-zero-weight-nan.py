"""torcheval's bleu_score gives NaN when an order with weight 0 has precision 0 (0 * log 0).
Draft report: torcheval-zero-weight-nan.md."""

import torch
from torcheval.metrics.functional import bleu_score

DISTRIBUTION = "torcheval"
#: p1 = 2/2 and weight 0 on p2 = 0/1: BLEU = BP * p1^1 * p2^0 = 1 * 1 * 1 = 1.
DOCUMENTED = 1.0


def reproduce():
    return float(bleu_score(["a b"], [["b a"]], n_gram=2, weights=torch.tensor([1.0, 0.0])))


if __name__ == "__main__":
    print(reproduce())
