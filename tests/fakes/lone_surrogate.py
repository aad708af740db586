#!/usr/bin/env python3
"""Fake implementation: sends a lone surrogate escape ("\\ud83d", valid JSON: half an emoji, as node prints
one sliced from a string) in one place, named by its first argument:

  handshake   the handshake's implementation version
  error       every reply is an `error` whose message holds it
  rejected    every reply is `rejected` with a message holding it
  score       every reply's `score` is that string
  key         every reply is a correct score with an extra field whose name holds it

Otherwise it answers as tests/fakes/fakebleu.py's clean implementation does. Its lines are written with
ensure_ascii, so the escape reaches the runner as the six characters \\ud83d."""
import json
import sys

from fakebleu import answer

HALF_EMOJI = "\ud83d"


def write(obj):
    sys.stdout.write(json.dumps(obj) + "\n")  # ASCII: the lone surrogate travels as its escape
    sys.stdout.flush()


def main(where):
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("cmd") == "start":
            version = f"1.0 {HALF_EMOJI}" if where == "handshake" else "1.0"
            write({"protocol": 1, "implementation": {"name": "lone-surrogate", "version": version, "language": "js"},
                   "profile": "papineni",
                   "capabilities": {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 6,
                                    "smoothing": ["none", "floor", "add-k", "exp"], "statistics": True,
                                    "lowercase": True}})
        elif command.get("cmd") == "score":
            reply = answer(command, set(), "papineni", True)
            if where == "error":
                reply = {"seq": command["seq"], "error": f"TypeError at token {HALF_EMOJI}"}
            elif where == "rejected":
                reply = {"seq": command["seq"], "rejected": f"cannot read token {HALF_EMOJI}"}
            elif where == "score":
                reply = {"seq": command["seq"], "score": HALF_EMOJI}
            elif where == "key":
                reply[f"note {HALF_EMOJI}"] = 1
            write(reply)
        else:
            return


main(sys.argv[1])
