"""ignite's Bleu scores an empty hypothesis against an empty reference 0, where the formula is 0/0.
Draft report: ignite-both-empty-zero.md."""

from ignite.metrics.nlp import Bleu

DISTRIBUTION = "pytorch-ignite"
#: Every p_n and r/c are 0/0: the documented formula gives no number (NaN), see the draft.
DOCUMENTED = float("nan")


def reproduce():
    metric = Bleu(ngram=2)
    metric.update(([[]], [[[]]]))
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
