#!/usr/bin/env python3
"""Fake implementation: plantedbleu's clean BLEU with the 13a tokenizer, behind an input format that cannot carry
`-\\n` in a text (as NIST mteval-v13a.pl's SGML reader joins whitespace before its tokenizer's end-of-line
hyphenation rule): it answers `unsupported` to a text holding it. Its handshake declares that
(`forbidden_text_sequences`), unless run with --undeclared.

    python tests/fakes/line_reader.py [--undeclared]
"""

import json
import sys

from plantedbleu import answer

UNCARRIED = "-\n"


def main():
    declared = "--undeclared" not in sys.argv[1:]
    capabilities = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 12,
                    "smoothing": ["none", "floor", "add-k", "exp"], "statistics": True, "lowercase": True,
                    "tokenizers": ["13a"]}
    if declared:
        capabilities["forbidden_text_sequences"] = [UNCARRIED]
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if command["cmd"] == "start":
            reply = {"protocol": 1, "implementation": {"name": "line-reader", "version": "0.0", "language": "python"},
                     "profile": "papineni", "capabilities": capabilities}
        elif command["cmd"] == "stop":
            return
        elif command.get("tokenize") is not None and any(
            UNCARRIED in text for s in command["segments"] for text in (s["hypothesis"], *s["references"])
        ):
            reply = {"seq": command["seq"], "unsupported": "a text holding -\\n cannot be written to the input file"}
        else:
            reply = answer(command, set(), True)
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
