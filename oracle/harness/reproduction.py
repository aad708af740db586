"""The command lines a failing record is reproduced by, and the input it keeps to replay.

A case is re-run by its id (from its own file where it is not one of the bundled suite's), a random example's input
too large to record is regenerated from the run's seed and its id, and anything else is replayed from its JSON
(written beside the report when it is too long to print inline). The diagnosis stage writes them into a failing
record (`oracle.harness.diagnosis`); the session names the regenerating command of an input beyond the record limit
(`Session.recorded`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL
from oracle.escaping import json_shown
from oracle.files import write_atomically
from oracle.models.protocol import encode

from .generate import DEFAULT_SERIES_LENGTH

#: A replay input printed inline in its reproduction line up to this many characters; a longer one is written to
#: `replay/<id>.json` in the report (unless the stream keeps no clock readings: then inline whatever its length).
INLINE_REPLAY_LIMIT = 400

#: Where a reproduction line writes its report: never over the run's own report.
REPLAY_REPORT = "bleu-oracle-replay"


@dataclass(frozen=True)
class Reproduction:
    """How a run's failing records are reproduced: the run's settings (`SessionSettings`: the implementation, the
    numeric contract, the seed), the judged profile, where the report ends up (`report_dir`, named in the lines) and
    where the run writes it meanwhile (`work_dir`), and the case files that are not the bundled suite's (case id ->
    path, filled as the cases run)."""

    settings: Any
    profile: str
    report_dir: Path
    work_dir: Path
    case_files: dict[str, Any] = field(default_factory=dict)

    def _implementation(self) -> list[str]:
        settings = self.settings
        return ["--impl", settings.impl] if settings.impl else ["--command", settings.command]

    def line(self, record_id: str, request=None) -> str:
        """The `bleu-oracle check` line that judges record `record_id` again: a case by its id (`request` None),
        anything else by `request` replayed."""
        settings = self.settings
        parts = ["bleu-oracle", "check", *self._implementation(), "--profile", self.profile]
        if settings.rel != DEFAULT_REL:
            parts += ["--rel", repr(settings.rel)]
        if settings.abs != DEFAULT_ABS:
            parts += ["--abs", repr(settings.abs)]
        if settings.strict:
            parts.append("--strict")
        if request is None:  # a case: re-run it by id, from its own file when it is not a bundled one
            source = self.case_files.get(record_id)
            parts += ["--cases", str(source)] if source is not None else []
            parts += ["--examples", "0", "--id", record_id, "--report", REPLAY_REPORT]
            return shlex.join(parts)
        # its JSON with every character that is not printable as its \u escape: the same input, safe to print
        payload = json_shown(encode(request.replay_payload(), ensure_ascii=False))
        if len(payload) > INLINE_REPLAY_LIMIT and settings.timings:  # a deterministic stream keeps it inline
            path = write_atomically(self.work_dir / "replay" / f"{record_id}.json", payload + "\n")
            payload = str(self.report_dir / "replay" / path.name)
        return shlex.join(parts + ["--replay", payload])

    def regenerate(self, record_id: str) -> str:
        """The command that sends a record's input again (a random example: its seed and id)."""
        if not record_id.startswith("random-"):
            return "the input is not kept: it is larger than the record limit"
        settings = self.settings
        index = int(record_id.split("~")[0].rsplit("-", 1)[1])
        parts = ["bleu-oracle", "check", *self._implementation(), "--profile", self.profile,
                 "--seed", str(settings.seed), "--no-cases", "--examples", str(index + 1), "--id", record_id]
        if settings.series_length != DEFAULT_SERIES_LENGTH and "~series" in record_id:
            parts += ["--series-length", str(settings.series_length)]
        return shlex.join(parts)

    def of_failure(self, item_id: str, kind: str, request, reported):
        """(the replay input, the reproduction line) of a failing record: a case by its id, a series or a relation
        whole again (the state, or the other input, is the point), anything else by the input `reported` (its
        shrunk input, or `request` itself)."""
        if kind == "case" and not self.settings.replay:
            return request, self.line(item_id)
        if kind in ("series", "metamorphic"):
            return reported, self.regenerate(item_id)
        return reported, self.line(item_id, reported)
