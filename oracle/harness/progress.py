"""The progress line of a run on stderr: the inputs done of the total (the cases and examples: `update`), and
the outcomes of every record so far, the companions' and relations' included (`tally`), so that the last line's
counts are the run's summary's; rewritten in place on a terminal, every tenth of the run otherwise."""

from __future__ import annotations

import sys

from oracle.escaping import shown


class Progress:
    def __init__(self, total, enabled, label="check"):
        self.total, self.enabled, self.label = total, enabled, label
        self.done = 0
        self.counts = {}
        self.records = 0
        self.shown = 0  # the records counted on the last line shown
        self.tty = enabled and sys.stderr.isatty()
        self.every = max(1, total // 10) if total else 1

    def tally(self, outcome):
        """Count a record that is no input of its own (a companion's, a relation's): shown with the next line."""
        self.records += 1
        self.counts[outcome] = self.counts.get(outcome, 0) + 1

    def update(self, outcome):
        """An input (a case or an example) done, its own record's `outcome` counted."""
        self.done += 1
        self.tally(outcome)
        if not self.enabled:
            return
        self._show(final=self.done == self.total)

    def _show(self, *, final=False):
        tally = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        # (the records named apart from the inputs: an example's companions make more records than inputs, and the
        # summary counts records; "291/291 (pass 250 ...)" then "353 pass" read as a miscount)
        line = f"{self.label}: {self.done}/{self.total} inputs, {self.records} records ({tally})"
        if self.tty:
            sys.stderr.write("\r" + line + "\x1b[K")
            sys.stderr.flush()
        elif self.done % self.every == 0 or final:
            print(line, file=sys.stderr, flush=True)
        else:
            return
        self.shown = self.records

    def note(self, text):
        if not self.enabled:
            return
        if self.tty:
            sys.stderr.write("\r\x1b[K")
        print(shown(text), file=sys.stderr, flush=True)

    def finish(self):
        if self.enabled and self.records != self.shown:  # the last input's companions came after its line
            self._show(final=True)
        if self.tty and self.done:
            sys.stderr.write("\n")
            sys.stderr.flush()
