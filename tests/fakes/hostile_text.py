#!/usr/bin/env python3
"""Fake implementation whose text is hostile to a terminal, a Markdown page, an XML file and a browser: its
error and rejection messages, and the scores it answers as text, carry every C0 and C1 control, escape
sequences (CSI clear screen, an OSC window title, an OSC-8 hyperlink whose visible text says something else),
U+202E (right-to-left override), U+2028/U+2029 and, on some requests, a lone surrogate (the six characters
\\ud800 in its JSON). A request with a control character in a token is scored wrongly, so that minimal examples
carry controls too. Otherwise it answers as tests/fakes/fakebleu.py's clean implementation does.

Its first argument, when given, puts the hostile text in the handshake instead:

  name      the handshake's implementation name holds "\\x1b]0;pwned\\x07"
  version   the handshake's implementation version holds U+202E
"""
import json
import sys

from fakebleu import answer

CLEAR_SCREEN = "\x1b[2J\x1b[H"
WINDOW_TITLE = "\x1b]0;pwned\x07"
HYPERLINK = "\x1b]8;;https://evil.example/\x1b\\harmless text\x1b]8;;\x1b\\"
C0 = "".join(chr(c) for c in range(0x20) if chr(c) not in "\n\t") + "\x7f"
C1 = "".join(chr(c) for c in range(0x80, 0xA0))
#: Text every control character and escape sequence is in, with the bidi override and the line separators.
HOSTILE = f"{CLEAR_SCREEN}boom{WINDOW_TITLE} {HYPERLINK} C0[{C0}] C1[{C1}] \u202eevil\u202c \u2028 \u2029 end"


def write(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def has_control(command):
    tokens = [t for s in command.get("segments", ()) for t in (*s["hypothesis"], *(x for r in s["references"]
                                                                                 for x in r))]
    return any(not t.isprintable() for t in tokens if isinstance(t, str))


def reply_to(command, count):
    reply = answer(command, set(), "papineni", True)
    if "score" not in reply:
        return reply
    if has_control(command):
        return {**reply, "score": reply["score"] + 0.25 if isinstance(reply["score"], float) else 0.25}
    turn = count % 6
    if turn == 1:
        return {"seq": command["seq"], "error": f"TypeError: {HOSTILE}"}
    if turn == 2:
        return {"seq": command["seq"], "rejected": f"cannot read {HOSTILE}"}
    if turn == 3:
        return {"seq": command["seq"], "score": HOSTILE}
    if turn == 4:
        sys.stdout.write(json.dumps({"seq": command["seq"], "error": f"half \ud800 {HOSTILE}"}) + "\n")
        sys.stdout.flush()
        return None
    return reply


def main(where):
    count = 0
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("cmd") == "start":
            name = f"hostile{WINDOW_TITLE}" if where == "name" else "hostile-text"
            version = "1.0 \u202egnp.exe" if where == "version" else "1.0"
            write({"protocol": 1, "implementation": {"name": name, "version": version, "language": "python"},
                   "profile": "papineni",
                   "capabilities": {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 6,
                                    "smoothing": ["none", "floor", "add-k", "exp"], "statistics": True,
                                    "lowercase": True}})
        elif command.get("cmd") == "score":
            count += 1
            sys.stderr.write(f"stderr {HOSTILE}\n")
            sys.stderr.flush()
            reply = reply_to(command, count)
            if reply is not None:
                write(reply)
        else:
            return


main(sys.argv[1] if len(sys.argv) > 1 else "")
