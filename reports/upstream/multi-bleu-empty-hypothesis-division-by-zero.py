"""multi-bleu.perl dies with "Illegal division by zero" on a hypothesis file without tokens.
Draft report: multi-bleu-empty-hypothesis-division-by-zero.md."""

import re
import tempfile
from pathlib import Path

import _moses

DISTRIBUTION = "multi-bleu.perl"
#: c = 0 < r = 1: BP = exp(1 - r/c) tends to 0, and no hypothesis n-gram matches: BLEU = 0.
DOCUMENTED = 0.0


def unavailable():
    return _moses.unavailable("BLEU_ORACLE_MULTI_BLEU", "multi-bleu.perl")


def reproduce():
    with tempfile.TemporaryDirectory() as tmp:
        reference = Path(tmp) / "ref.txt"
        reference.write_text("a\n", encoding="utf-8")
        out = _moses.run("BLEU_ORACLE_MULTI_BLEU", "multi-bleu.perl", [str(reference)], stdin="\n")
    return float(re.search(r"BLEU = ([0-9.]+)", out).group(1)) / 100


if __name__ == "__main__":
    print(reproduce())
