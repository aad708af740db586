"""multi-bleu-detok.perl -lc lowercases the hypothesis before unescaping SGML entities and the references after:
an identical hypothesis and reference holding "&AMP;" score 0. Draft report:
multi-bleu-detok-lowercase-before-entities.md."""

import _moses

DISTRIBUTION = "multi-bleu-detok.perl"
#: an identical hypothesis and reference: every precision 1, c = r: BLEU = 1 (mteval-v13a.pl's, lowercased).
DOCUMENTED = 1.0


def unavailable():
    return _moses.unavailable("BLEU_ORACLE_MULTI_BLEU_DETOK", "multi-bleu-detok.perl")


def reproduce():
    return _moses.multi_bleu("BLEU_ORACLE_MULTI_BLEU_DETOK", "multi-bleu-detok.perl", "&AMP; a b c\n", "&AMP; a b c\n",
                             ["-lc"])


if __name__ == "__main__":
    print(reproduce())
