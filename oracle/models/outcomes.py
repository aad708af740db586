"""Outcomes of one request: the outcome kinds, what the oracle expects (`Expected`) and the
verdict on an answer (`Verdict`, with the first diverging layer). The judging itself is
`oracle.diagnose.judge`.

Every record of a `check` run ends in exactly one `Outcome`. The outcomes are
kept apart on purpose: a wrong number (`fail`) is a different finding from an
implementation that died (`crash`), hung (`timeout`), spoke something other
than protocol v1 (`protocol-error`) or refused a request it claims to support
(`error`). On an input the documents leave undefined (PROTOCOL.md), the value of
a named convention is `acceptable`: no failure, but not the recommended refusal
either, and counted apart from both (`--strict` makes it a `fail`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .protocol import NumberOrNaN, Statistics


class Outcome(str, Enum):  # noqa: UP042 -- StrEnum would change str() and format() of a member: a choice to make, not a lint
    PASS = "pass"
    #: beyond tolerance, or a score where a rejection was expected, or the reverse
    FAIL = "fail"
    #: rejected, as expected
    REJECTED = "rejected"
    #: scored an input the documents leave undefined with a named convention's value (`Verdict.convention`),
    #: where refusing is recommended: not a failure unless the run is strict
    ACCEPTABLE = "acceptable"
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


GOOD_OUTCOMES = frozenset({Outcome.PASS, Outcome.REJECTED, Outcome.ACCEPTABLE, Outcome.NOT_APPLICABLE})
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
#: A stateful plan answered otherwise than the one-shot corpus: what the plan used names the layer
#: (a used state reset and reused, then shards merged, then batches accumulated; the first that applies).
RESET_LAYER, MERGE_LAYER, ACCUMULATION_LAYER = "reset", "merge", "accumulation"
#: Records that ride along with a random example (checked on a passing one): not counted on the progress line.
RIDING_KINDS = ("metamorphic", "stateful")

def parse_number(value):
    """A protocol number: int/float, or "NaN" / "Infinity" / "-Infinity" strings. None if neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value in ("NaN", "nan", "Infinity", "-Infinity", "inf", "-inf"):
        return float(value.replace("Infinity", "inf"))
    return None


class DocumentExpectation(BaseModel):
    """What a case's document prints: a score with its tolerance, and/or statistics."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    score: NumberOrNaN | None = Field(None, description="The printed value on the 0-1 scale.")
    tolerance: NumberOrNaN | None = Field(None, description="Half a unit of the last printed digit (None: exact).")
    statistics: dict[str, Any] | None = Field(None, description="Printed statistics, as the case file gives them.")


class Acceptable(BaseModel):
    """A named convention's value on an input the documents leave undefined (PROTOCOL.md, "Inputs the documents
    leave undefined"; the conventions: `oracle.formulas.conventions.UNDEFINED_CONVENTIONS`): an acceptable answer
    where refusing is recommended."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    convention: str = Field(description="The convention's name (PROTOCOL.md lists each with where it comes from).")
    score: NumberOrNaN = Field(description="Its value on the 0-1 scale (NaN allowed).")
    score_exact: str | None = Field(None, description="The same, exact to 50 significant digits.")


class Expected(BaseModel):
    """What the oracle says about one request (and, for a case, what its document printed)."""

    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)  # `oracle.models`: built on first use

    rejected: bool = Field(False, description="The oracle rejects the input (or the case expects a rejection).")
    reason: str = Field("", description="Why the oracle rejects it.")
    score: NumberOrNaN | None = Field(None, description="The oracle's score on the 0-1 scale (a float, NaN allowed).")
    score_exact: str | None = Field(None, description="The exact score, 50 significant digits.")
    statistics: Statistics | None = Field(None, description="The oracle's statistics (orders 1..N) and BP.")
    document: DocumentExpectation | None = Field(None, description="A case's printed value.")
    notes: tuple[str, ...] = Field((), description="What the oracle noted (e.g. a convention applied).")
    acceptable: tuple[Acceptable, ...] | None = Field(
        None, description="On an input the documents leave undefined, which the oracle rejects: each named "
        "convention's value, any of which is an acceptable answer (a failure under --strict).")


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    #: the first diverging layer (hyp_len, ref_len, matches, totals, bp, score), REJECTION_LAYER or DOCUMENT_LAYER;
    #: None when not a fail
    layer: str | None = None
    #: 1-based n-gram order for the "matches" / "totals" layers
    order: int | None = None
    message: str = ""
    #: the named convention whose value the answer is, on an input the documents leave undefined (an acceptable
    #: answer, or a fail under --strict); None otherwise
    convention: str | None = None

    @property
    def classification(self):
        """A seed-independent label: "fail:ref_len", "fail:matches", "crash", ..."""
        return f"{self.outcome.value}:{self.layer}" if self.layer else self.outcome.value
