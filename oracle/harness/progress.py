"""The progress line of a run on stderr: done/total and the outcomes so far, rewritten in place on a terminal,
every tenth of the run otherwise."""

from __future__ import annotations

import sys

from oracle.escaping import shown


class Progress:
    def __init__(self, total, enabled, label="check"):
        self.total, self.enabled, self.label = total, enabled, label
        self.done = 0
        self.counts = {}
        self.tty = enabled and sys.stderr.isatty()
        self.every = max(1, total // 10) if total else 1

    def update(self, outcome):
        self.done += 1
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if not self.enabled:
            return
        tally = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        line = f"{self.label}: {self.done}/{self.total} ({tally})"
        if self.tty:
            sys.stderr.write("\r" + line + "\x1b[K")
            sys.stderr.flush()
        elif self.done % self.every == 0 or self.done == self.total:
            print(line, file=sys.stderr, flush=True)

    def note(self, text):
        if not self.enabled:
            return
        if self.tty:
            sys.stderr.write("\r\x1b[K")
        print(shown(text), file=sys.stderr, flush=True)

    def finish(self):
        if self.tty and self.done:
            sys.stderr.write("\n")
            sys.stderr.flush()
