"""torchtext's bleu_score computes precisions and their log-sum in float32. Draft report: torchtext-float32.md."""

from _torchtext import bleu_score_function

DISTRIBUTION = "torchtext"
#: p1..p4 = 4/5, 3/4, 2/3, 1/2 (product 1/5), c = r = 5: BLEU = (1/5) ** (1/4).
DOCUMENTED = 0.2 ** 0.25
#: The value given differs by CPU in its last float32 bit (torch's vectorised float32 log and exp): the draft quotes
#: each value seen, and a value within the curated entry's `reproduced_within` of one it quotes (oracle/diagnose/data/
#: discrepancies.yaml, torchtext-float32: 2**-21 relative, four float32 steps) is the one quoted.


def reproduce():
    bleu_score = bleu_score_function()
    return bleu_score([["a", "b", "c", "d", "e"]], [[["a", "b", "c", "d", "f"]]], max_n=4, weights=[0.25] * 4)


if __name__ == "__main__":
    print(reproduce())
