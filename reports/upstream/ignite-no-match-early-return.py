"""ignite's Bleu returns 0 when no unigram matches, before smooth1 is applied.
Draft report: ignite-no-match-early-return.md."""

from ignite.metrics.nlp import Bleu

DISTRIBUTION = "pytorch-ignite"
#: smooth1 (epsilon 0.1, ignite's own _Smoother.smooth1): p1 = 0.1/2, p2 = 0.1/1, c = r = 2:
#: BLEU = sqrt(0.05 * 0.1) = sqrt(0.005).
DOCUMENTED = 0.005 ** 0.5


def reproduce():
    metric = Bleu(ngram=2, smooth="smooth1")
    metric.update(([["a", "b"]], [[["c", "d"]]]))
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
