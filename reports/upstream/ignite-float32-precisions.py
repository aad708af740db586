"""ignite's Bleu divides by float32 tensors, so scores agree with the exact one to float32 precision only.
Draft report: ignite-float32-precisions.md."""

from ignite.metrics.nlp import Bleu

DISTRIBUTION = "pytorch-ignite"
#: p1 = 3/4, p2 = 2/3, c = 4 > r = 3 so BP = 1: BLEU = sqrt(3/4 * 2/3) = sqrt(1/2).
DOCUMENTED = 0.5 ** 0.5


def reproduce():
    metric = Bleu(ngram=2)
    metric.update(([["a", "b", "c", "a"]], [[["a", "b", "c"]]]))
    return float(metric.compute())


if __name__ == "__main__":
    print(reproduce())
