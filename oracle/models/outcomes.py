"""Outcomes of one request: the outcome kinds, what the oracle expects (`Expected`) and the
verdict on an answer (`Verdict`, with the first diverging layer). The judging itself is
`oracle.diagnose.judge`.

Every record of a `check` run ends in exactly one `Outcome`. The outcomes are
kept apart on purpose: a wrong number (`fail`) is a different finding from an
implementation that died (`crash`), hung (`timeout`), spoke something other
than protocol v1 (`protocol-error`) or refused a request it claims to support
(`error`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .jsonvalues import json_safe


class Outcome(str, Enum):
    PASS = "pass"
    #: beyond tolerance, or a score where a rejection was expected, or the reverse
    FAIL = "fail"
    #: rejected, as expected
    REJECTED = "rejected"
    #: answered {"error"} or {"unsupported"} to a request its capabilities claim
    ERROR = "error"
    #: the process died (or could not be restarted)
    CRASH = "crash"
    #: no answer within the per-request timeout
    TIMEOUT = "timeout"
    #: a non-JSON line, a wrong seq, a malformed reply
    PROTOCOL_ERROR = "protocol-error"
    #: outside the implementation's declared capabilities (or the case's profiles)
    NOT_APPLICABLE = "not-applicable"

    def __str__(self):
        return self.value


GOOD_OUTCOMES = frozenset({Outcome.PASS, Outcome.REJECTED, Outcome.NOT_APPLICABLE})
#: Display order in summaries and footers.
OUTCOME_ORDER = tuple(Outcome)

#: The derivation's layers, in the order they are compared.
#: Pseudo-layers: a rejection where a score was due (or the reverse); a case's printed value.
REJECTION_LAYER = "rejection"
DOCUMENT_LAYER = "document"
#: Non-zero where the oracle's exact value is 0, or 0 where it is a float's normal number: whatever the tolerance.
ZERO_LAYER = "zero"
#: A text request whose token counts differ: the implementation's tokenizer splits the text otherwise.
TOKENIZATION_LAYER = "tokenization"
#: A metamorphic relation broken: two related inputs the implementation scores differently.
METAMORPHIC_LAYER = "metamorphic"

def parse_number(value):
    """A protocol number: int/float, or "NaN" / "Infinity" / "-Infinity" strings. None if neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value in ("NaN", "nan", "Infinity", "-Infinity", "inf", "-inf"):
        return float(value.replace("Infinity", "inf"))
    return None


@dataclass
class Expected:
    """What the oracle says about one request (and, for a case, what its document printed)."""

    #: the oracle's score (float, NaN allowed), or None when the oracle rejects the input
    score: float | None = None
    #: the oracle's statistics {"hyp_len", "ref_len", "matches", "totals", "bp"} or None
    statistics: dict | None = None
    #: the oracle rejects the input (or the case expects a rejection)
    rejected: bool = False
    #: why the oracle rejects it
    reason: str = ""
    #: the exact score as a string (50 digits), for the report
    score_exact: str | None = None
    #: a case's document: {"score", "tolerance"} and/or {"statistics"}, {"rejected": True}
    document: dict | None = None
    notes: list = field(default_factory=list)

    def to_json(self):
        out = {"rejected": self.rejected}
        if self.rejected:
            out["reason"] = self.reason
        else:
            out["score"] = json_safe(self.score)
            if self.score_exact is not None:
                out["score_exact"] = self.score_exact
            if self.statistics is not None:
                out["statistics"] = json_safe(self.statistics)
        if self.document is not None:
            out["document"] = json_safe(self.document)
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_json(cls, data):
        stats = data.get("statistics")
        if stats is not None:
            stats = dict(stats)
            if "bp" in stats:
                stats["bp"] = parse_number(stats["bp"])
        document = data.get("document")
        if document is not None:
            document = {k: (parse_number(v) if k in ("score", "tolerance") and parse_number(v) is not None else v)
                        for k, v in document.items()}
        return cls(
            score=parse_number(data["score"]) if data.get("score") is not None else None,
            statistics=stats,
            rejected=bool(data.get("rejected")),
            reason=data.get("reason", ""),
            score_exact=data.get("score_exact"),
            document=document,
            notes=list(data.get("notes", [])),
        )


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    #: the first diverging layer (hyp_len, ref_len, matches, totals, bp, score), REJECTION_LAYER or DOCUMENT_LAYER; None when not a fail
    layer: str | None = None
    #: 1-based n-gram order for the "matches" / "totals" layers
    order: int | None = None
    message: str = ""

    @property
    def classification(self):
        """A seed-independent label: "fail:ref_len", "fail:matches", "crash", ..."""
        return f"{self.outcome.value}:{self.layer}" if self.layer else self.outcome.value
