#!/usr/bin/env python3
"""Fake implementation: plantedbleu's clean BLEU with the 13a tokenizer, behind a caller that writes each side's texts
one a line to a file and reads the file back before scoring (as the fifth held-out set's file readers do with tokens):
where a text holds a line end its reader takes, that side's file reads back with more lines than segments and the
caller raises (an error reply, as zip_longest's EOFError or an assertion on the line counts). Token requests are
answered as sent (nothing is written for them).

    python tests/fakes/text_lines_read_back.py READER SIDES
      READER: universal   the file opened in text mode (universal newlines: LF, CR LF and a lone CR end a line)
              splitlines  the file read whole and cut with str.splitlines (every line end of it, U+2028 among them)
              lf          the file opened with newline='\\n' (LF alone ends a line)
      SIDES:  references  the reference files read back so, the hypotheses taken from a stream as sent
              hypothesis  the hypothesis file read back so, the references as sent
              both        every file read back so

`errs(request, reader, sides)` says in process what the fake answers with an error (the tests' hand-derived
expectations read the rule, not the oracle).
"""

import io
import json
import sys

if __package__:  # imported as fakes.text_lines_read_back (the tests)
    from .plantedbleu import answer
else:  # run as a script: its directory is on sys.path
    from plantedbleu import answer

READERS = ("universal", "splitlines", "lf")
SIDES = ("references", "hypothesis", "both")


def lines_read_back(texts, reader):
    """How many lines `texts`, each written followed by LF, read back as by `reader`."""
    written = "".join(f"{text}\n" for text in texts)
    if reader == "splitlines":
        return len(written.splitlines())
    if reader == "universal":
        return len(io.StringIO(written, newline=None).readlines())
    return len(io.StringIO(written, newline="\n").readlines())


def _side_files(segments, side):
    """The texts each file of `side` holds: the hypotheses' one file, or one file per reference stream."""
    if side == "hypothesis":
        return [[segment["hypothesis"] for segment in segments]]
    streams = max((len(segment["references"]) for segment in segments), default=0)
    return [[segment["references"][k] for segment in segments if k < len(segment["references"])]
            for k in range(streams)]


def errs(request, reader, sides):
    """Whether a text request (a protocol dict, or a `ScoreRequest`: its segments' texts are read alike) has a file of a
    side read back by `reader` (`sides`) with more lines than it was given texts."""
    if hasattr(request, "model_dump"):
        request = request.model_dump(mode="json")
    if request.get("tokenize") is None:
        return False
    read = ("hypothesis", "references") if sides == "both" else (sides,)
    return any(lines_read_back(texts, reader) != len(texts)
               for side in read for texts in _side_files(request["segments"], side))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in READERS or argv[1] not in SIDES:
        sys.stderr.write(f"usage: text_lines_read_back.py {'|'.join(READERS)} {'|'.join(SIDES)}\n")
        return 2
    reader, sides = argv
    capabilities = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 12,
                    "smoothing": ["none", "floor", "add-k", "exp"], "statistics": True, "lowercase": True,
                    "tokenizers": ["13a"]}
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if command["cmd"] == "start":
            reply = {"protocol": 1, "implementation": {"name": "text-lines-read-back", "version": "0.0",
                                                       "language": "python"},
                     "profile": "papineni", "capabilities": capabilities}
        elif command["cmd"] == "stop":
            return 0
        elif errs(command, reader, sides):
            reply = {"seq": command["seq"], "error": "EOFError: Source and reference streams have different lengths!"}
        else:
            reply = answer(command, set(), True)
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
