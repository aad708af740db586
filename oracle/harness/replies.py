"""What became of one request sent to an implementation (`Reply`): a value the transports make and the judging
stages read, apart from the process machinery of `transport.py` so that the stages' values need none of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from oracle.models.protocol import ScoreReply, Statistics
from oracle.models.results import Unanswered


@dataclass
class Reply:
    """What became of one request."""

    kind: str  # "score", "rejected", "unsupported", "error", "crash", "timeout" or "protocol-error"
    #: the reply line as a valid reply object, when it was one (a protocol error keeps a valid reply
    #: to another request, or one that came with stray lines, here too)
    parsed: ScoreReply | None = None
    message: str = ""
    raw: str | None = None  # the raw line (protocol errors keep it)
    stderr: str = ""
    duration: float = 0.0
    #: what the runner did besides (e.g. "discarded a late reply to seq 4")
    notes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        """The score answered (NaN a float), or None when the reply is no score."""
        return None if self.parsed is None else self.parsed.score

    @property
    def statistics(self) -> Statistics | None:
        """The statistics that came with the score, if any."""
        return None if self.parsed is None else self.parsed.statistics

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.parsed is not None:
            out["reply"] = self.parsed.to_json()
        if self.message:
            out["message"] = self.message
        if self.raw is not None and self.kind == "protocol-error":
            out["raw"] = self.raw
        return out

    def recorded(self) -> ScoreReply | Unanswered:
        """What a record keeps of it ("actual"): the reply, or what became of the request (a crash, a timeout,
        a line that is no reply to it; a protocol error keeps the reply object it did parse)."""
        if self.parsed is not None and self.kind != "protocol-error":
            return self.parsed
        return Unanswered(**self.to_json())
