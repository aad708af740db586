"""nltk's corpus_bleu floors each segment's n-gram total at 1, so a perfect corpus scores below 1.
Draft report: nltk-segment-totals-floor.md."""

from nltk.translate.bleu_score import corpus_bleu

DISTRIBUTION = "nltk"
#: Every n-gram of both hypotheses matches: 8/8, 6/6, 4/4, 3/3, c = r = 8, so BLEU = 1 (derived in the draft).
DOCUMENTED = 1.0


def reproduce():
    references = [[["a", "b"]], [["c", "d", "e", "f", "g", "h"]]]
    hypotheses = [["a", "b"], ["c", "d", "e", "f", "g", "h"]]
    return corpus_bleu(references, hypotheses, weights=(0.25, 0.25, 0.25, 0.25))


if __name__ == "__main__":
    print(reproduce())
