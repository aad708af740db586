"""mmeval's BLEU returns 0 before smoothing when any order has no match, so smooth=True never applies there.
Draft report: mmeval-any-order-unmatched-zero.md."""

VENV = "mmeval"  # run in mmeval's own environment (_run.py)
DISTRIBUTION = "mmeval"
#: smooth adds 1 to orders 2..3: p1 = 2/3, p2 = (1+1)/(2+1), p3 = (0+1)/(1+1); c = r: (2/3 * 2/3 * 1/2)^(1/3)
DOCUMENTED = (2 / 3 * 2 / 3 * 1 / 2) ** (1 / 3)


def reproduce():
    from mmeval import BLEU

    return BLEU(n_gram=3, smooth=True)(["a b c"], [["a b d"]])["bleu"]


if __name__ == "__main__":
    print(reproduce())
