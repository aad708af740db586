"""multi-bleu-detok.perl -lc lowercases the hypothesis before unescaping SGML entities and the references after:
an identical hypothesis and reference holding "&AMP;" score 0. Draft report:
multi-bleu-detok-lowercase-before-entities.md."""

import re
import tempfile
from pathlib import Path

import _moses

DISTRIBUTION = "multi-bleu-detok.perl"
#: an identical hypothesis and reference: every precision 1, c = r: BLEU = 1 (mteval-v13a.pl's, lowercased).
DOCUMENTED = 1.0


def unavailable():
    return _moses.unavailable("BLEU_ORACLE_MULTI_BLEU_DETOK", "multi-bleu-detok.perl")


def reproduce():
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "ref.txt"
        reference.write_text("&AMP; a b c\n", encoding="utf-8")
        out = _moses.run("BLEU_ORACLE_MULTI_BLEU_DETOK", "multi-bleu-detok.perl", ["-lc", str(reference)],
                         stdin="&AMP; a b c\n")
    return float(re.search(r"BLEU = ([0-9.]+)", out).group(1)) / 100


if __name__ == "__main__":
    print(reproduce())
