"""multi-bleu.perl dies with "Illegal division by zero" on a hypothesis file without tokens.
Draft report: multi-bleu-empty-hypothesis-division-by-zero.md."""

import _moses

DISTRIBUTION = "multi-bleu.perl"
#: c = 0 < r = 1: BP = exp(1 - r/c) tends to 0, and no hypothesis n-gram matches: BLEU = 0.
DOCUMENTED = 0.0


def unavailable():
    return _moses.unavailable("BLEU_ORACLE_MULTI_BLEU", "multi-bleu.perl")


def reproduce():
    return _moses.multi_bleu("BLEU_ORACLE_MULTI_BLEU", "multi-bleu.perl", "a\n", "\n")


if __name__ == "__main__":
    print(reproduce())
