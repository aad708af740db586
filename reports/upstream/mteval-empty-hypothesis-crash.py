"""mteval-v13a.pl dies with "Can't take log of 0" on a test set without tokens.
Draft report: mteval-empty-hypothesis-crash.md."""

import re
import tempfile
from pathlib import Path

import _moses

DISTRIBUTION = "mteval-v13a.pl"
#: No test-set token against a 1-token reference: no n-gram matches and BP tends to 0: BLEU = 0.
DOCUMENTED = 0.0

HEADER = 'setid="s" srclang="any"'


def unavailable():
    return _moses.unavailable("BLEU_ORACLE_MTEVAL", "mteval-v13a.pl", module="XML::Twig")


def reproduce():
    with tempfile.TemporaryDirectory() as tmp:
        files = {
            "src.sgm": f'<srcset {HEADER}>\n<doc docid="d">\n<seg id="1">x</seg>\n</doc>\n</srcset>\n',
            "ref.sgm": f'<refset {HEADER} trglang="any">\n<doc docid="d" sysid="ref">\n<seg id="1">a</seg>\n'
                       "</doc>\n</refset>\n",
            "tst.sgm": f'<tstset {HEADER} trglang="any">\n<doc docid="d" sysid="sys">\n<seg id="1"></seg>\n'
                       "</doc>\n</tstset>\n",
        }
        for name, text in files.items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        out = _moses.run("BLEU_ORACLE_MTEVAL", "mteval-v13a.pl",
                         ["-r", "ref.sgm", "-s", "src.sgm", "-t", "tst.sgm", "-b", "-c"], cwd=tmp)
    return float(re.search(r"BLEU score = ([0-9.]+)", out).group(1))


if __name__ == "__main__":
    print(reproduce())
