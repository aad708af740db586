"""torchtext's bleu_score returns 0 when any order has no match, even one whose weight is 0.
Draft report: torchtext-zero-weight-order-unmatched-zero.md."""

from _torchtext import bleu_score_function

DISTRIBUTION = "torchtext"
#: p1 = 1/2 with weight 1, p2 = 0/1 with weight 0, c = r = 2: BLEU = 1 * (1/2)^1 * 0^0 = 1/2.
DOCUMENTED = 0.5


def reproduce():
    bleu_score = bleu_score_function()
    return bleu_score([["a", "b"]], [[["a", "c"]]], max_n=2, weights=[1.0, 0.0])


if __name__ == "__main__":
    print(reproduce())
