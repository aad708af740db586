"""Root-cause attribution of one failing answer: the one place `check`, `fuzz` and `report` name
why an implementation's answer differs from the oracle's.

A wrong number is explained by `oracle.diagnose.classify`, first among the implementation's curated
discrepancy classes (`oracle/diagnose/data/discrepancies.yaml`), then among every explanation; a
refusal is matched against the curated refusals by their text; the other outcomes (error, crash,
timeout, protocol error) are named as such. An error is then named by the input feature that triggers it
(`oracle.diagnose.errorcauses`), which the session confirms by asking the implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from oracle.models.discrepancy import Discrepancy
from oracle.models.outcomes import (
    DOCUMENT_LAYER,
    METAMORPHIC_LAYER,
    REJECTION_LAYER,
    TOKENIZATION_LAYER,
    ZERO_LAYER,
    Expected,
    Outcome,
    Verdict,
)
from oracle.models.protocol import NumericReply, ScoreRequest
from oracle.models.results import Classification

from .classify import AGREES, UNEXPLAINED, TokenMeter, classify, names_a_mechanism, numeric_fits
from .expect import ORACLE_REFUSALS
from .judge import Answered


@dataclass(frozen=True)
class SearchClass:
    """An explanation the first, restricted search tries (`search_classes`): a curated discrepancy class of the
    implementation (`curated`: its id, the mechanisms its `classify` names, the start of its refusal message), or a
    root cause the run's baseline lists (`hinted_classes`: no id, it documents nothing)."""

    parts: tuple[str, ...] = ()
    id: str | None = None
    rejection: str | None = None
    hinted: bool = False

    @classmethod
    def curated(cls, discrepancy: Discrepancy) -> SearchClass:
        return cls(discrepancy.classify_parts, discrepancy.id, discrepancy.rejection)

    def documents(self, parts: Iterable[str]) -> bool:
        """Whether this curated class documents an explanation of `parts`: the one mechanism it names is one of them
        (a class that names two, or a hinted cause, documents none)."""
        return self.id is not None and len(self.parts) == 1 and self.parts[0] in parts


def curated_refusals(message, entries: Sequence[SearchClass]):
    """The ids of the curated refusals (`rejection:` entries, the start of the library's error message)
    whose text appears in `message`."""
    message = message or ""
    return [d.id for d in entries if d.rejection and d.rejection in message]


#: Pseudo-classes for failures that are not a wrong number: how the answer failed (the verdict's outcome or the layer
#: judged alone), not what the code does, so not mechanisms of the catalogue (docs/mechanisms.md, "Names that are
#: not mechanisms"); an error's, a crash's or a hang's trigger, where one is found, renames the record by the error
#: kind.
NON_SCORE_CLASSES = {
    "rejects-valid-input": "the implementation refused an input the oracle scores",
    "scores-invalid-input": "the implementation scored an input that should be rejected",
    "statistics-differ": "the score agrees with the oracle; a reported statistic does not",
    "tokenization-differs": "the implementation tokenizes the text otherwise than the literal tokenizer named "
                            "in the request (its token counts differ before any n-gram is counted)",
    "zero-differs": "non-zero where the exact value is 0, or 0 where it is not (an epsilon, a floor, an underflow "
                    "taken early): the tolerance does not cover it",
    "relation-broken": "two inputs that must score the same (segments or references permuted, a reference "
                       "duplicated, shards summed) score differently",
    "document-differs": "the value is within the numeric contract of the oracle's, but not within the case's "
                        "tolerance of the value its document prints",
    Outcome.ERROR.value: "the implementation answered error or unsupported to a request its capabilities cover",
    Outcome.CRASH.value: "the implementation exited before answering",
    Outcome.TIMEOUT.value: "the implementation did not answer within the timeout",
    Outcome.PROTOCOL_ERROR.value: "the reply broke protocol v1",
}


def _pseudo(name, expected, documented=(), detail=""):
    description = NON_SCORE_CLASSES[name] + (f": {detail}" if detail else "")
    return Classification(parts=(name,), description=description, expected=expected, documented=tuple(documented),
                          scope="outcome")


def _not_a_wrong_number(reply, verdict, expected, oracle_json, entries):
    """The pseudo-class of a failure that is not a wrong number (an error, a crash, a refusal, a tokenization
    or relation layer), or None when it is one."""
    outcome, layer = verdict.outcome, verdict.layer
    if outcome == Outcome.ERROR:  # a curated refusal may surface as an error (nltk's IndexError)
        return _pseudo(outcome.value, oracle_json, curated_refusals(reply.message, entries), detail=verdict.message)
    if outcome in (Outcome.CRASH, Outcome.TIMEOUT, Outcome.PROTOCOL_ERROR):
        return _pseudo(outcome.value, oracle_json, detail=verdict.message)
    if layer == TOKENIZATION_LAYER:
        return _pseudo("tokenization-differs", oracle_json, detail=verdict.message)
    if layer == METAMORPHIC_LAYER:
        return _pseudo("relation-broken", oracle_json, detail=verdict.message)
    if layer == REJECTION_LAYER:
        if expected.rejected:
            convention = f" (the value of convention {verdict.convention}, refused under --strict)" \
                if verdict.convention else ""
            return _pseudo("scores-invalid-input", None, detail=expected.reason + convention)
        message = reply.message or ""
        return _pseudo("rejects-valid-input", oracle_json, curated_refusals(message, entries), detail=message)
    return None


def hinted_classes(causes: Iterable[tuple[str, ...]]) -> list[SearchClass]:
    """The root causes a run's baseline lists (`cause:<name>` entries: `BaselineEntry.cause_parts`), as classes
    searched with the documented
    classes (`search_classes`), before every explanation: a record that two of them explain together is named by
    them, evidence the baseline's review gave, where the search among every explanation does not pair them (a
    structural mechanism with a tokenizer's departure) or spends its budget first (a long corpus). They carry no
    curated id: a record found by them is documented by no class."""
    return [SearchClass(parts, hinted=True) for parts in dict.fromkeys(causes)]


def search_classes(entries: Sequence[SearchClass]) -> list[str]:
    """The names the first, restricted search tries (`classify`'s `among`): the parts of every class (a curated
    class's `classify`, or a hinted cause: `hinted_classes`), sorted."""
    return sorted({part for entry in entries for part in entry.parts})


def attribute(request: ScoreRequest, reply: Answered, verdict: Verdict, expected: Expected, profile: str, *,
              overrides: Mapping[str, Any] | None = None, entries: Sequence[SearchClass] = (),
              search_all: bool = True, among: Sequence[str] | None = None,
              meter: TokenMeter | None = None) -> Classification:
    """The root cause of one failing record (a Classification): the explanation, the curated discrepancy ids it
    matches ("documented") and where it was found ("scope": "documented", among the implementation's documented
    classes; "all", among every explanation; "outcome", not a wrong number). With
    `search_all` False only the documented classes are tried (a large corpus makes every explanation slow);
    `among` restricts the search to these explanation names (see `classify`); `meter`, the token computations it
    shares with other searches (`classify.TokenMeter`)."""
    oracle_json = None if expected.rejected else expected.score
    layer = verdict.layer
    not_a_number = _not_a_wrong_number(reply, verdict, expected, oracle_json, entries)
    if verdict.outcome == Outcome.PROTOCOL_ERROR and not_a_number is not None:
        return _with_numeric_fits(not_a_number, request, reply, profile, overrides)
    if not_a_number is not None and layer != TOKENIZATION_LAYER:
        return not_a_number
    if not_a_number is not None:  # lengths that differ on raw text: a mechanism that fits the statistics, if any
        named = _explained(request, reply, profile, overrides, entries, search_all=search_all, among=among,
                           meter=meter)
        return named if named is not None else not_a_number
    classes = search_classes(entries)
    curated = {part for d in entries if not d.hinted for part in d.parts}
    try:
        explanation, scope = None, "all"
        if among is not None:  # (a hinted search: a curated class it names was found among the curated classes too)
            explanation = classify(request, reply, profile, overrides=overrides, among=among, meter=meter)
            scope = "documented" if curated and curated.issuperset(explanation.parts) else "all"
        elif classes:
            explanation = classify(request, reply, profile, overrides=overrides, among=classes, meter=meter)
            scope = "documented" if curated.issuperset(explanation.parts) else "all"
            if not explanation.explained:
                explanation = None
        if explanation is None and not search_all:  # only the curated classes were to be tried
            return Classification(parts=(UNEXPLAINED,), description="no curated class of this implementation "
                                  "explains it (the search among every explanation was not run)", expected=oracle_json,
                                  scope="documented")
        if explanation is None:
            explanation, scope = classify(request, reply, profile, overrides=overrides, meter=meter), "all"
    except ORACLE_REFUSALS as exc:
        return Classification(parts=(UNEXPLAINED,), description=f"the classification failed: {exc}",
                              expected=oracle_json, scope="all")
    if explanation.name == AGREES and layer == ZERO_LAYER:
        return _pseudo("zero-differs", oracle_json, detail=verdict.message)
    if explanation.name == AGREES and layer == DOCUMENT_LAYER:
        return _pseudo("document-differs", oracle_json, detail=verdict.message)
    if explanation.name == AGREES and layer:
        # the score agrees and classify compares no other layer there (e.g. a wrong bp)
        return _pseudo("statistics-differ", oracle_json, detail=verdict.message)
    parts = set(explanation.parts)
    return explanation.classification(documented=tuple(d.id for d in entries if d.documents(parts)),
                                      scope=scope if explanation.explained else "all")


def _with_numeric_fits(classification: Classification, request: ScoreRequest, reply: Answered, profile: str,
                       overrides: Mapping[str, Any] | None) -> Classification:
    """A protocol error's pseudo-class (`classification`) with, where the reply broke the protocol only by writing
    counts as numbers that are not integers (`NumericReply`), the counting grammar's fits of those numbers beside it
    (`classify.numeric_fits`: a true division where a sum belongs, the score following from them): the record keeps
    what is known (the protocol error, its outcome) as its name, as a record of fitted integers keeps
    `other-counting-of-<layer>`, and a run whose records share a fit is named by it (`cover._fitted_over_known`)."""
    numeric = NumericReply.from_reply_line(reply.raw)
    if numeric is None:
        return classification
    try:
        fits = numeric_fits(request, numeric, profile, overrides=overrides)
    except ORACLE_REFUSALS:
        return classification
    if not fits:
        return classification.model_copy(update={"description": (
            f"{classification.description}; its statistics, read as the numbers they are "
            f"({', '.join(numeric.statistics.written_as_numbers)} written as floats), fit no true division of the "
            "counting grammar whose score is the one answered")})
    return classification.model_copy(update={
        "fit_parts": tuple(fit.parts for fit in fits),
        "description": (f"{classification.description}; its statistics, read as the numbers they are, fit "
                        f"{fits[0].name} ({fits[0].description})")})


def _explained(request, reply, profile, overrides, entries, *, search_all, among, meter=None):
    """The classification of a failure first seen in its tokens (c or r on raw text), when an explanation
    accounts for the answer and its statistics (a segment dropped, words split otherwise); else None."""
    if not search_all:
        return None
    try:
        explanation = classify(request, reply, profile, overrides=overrides, among=among, meter=meter)
    except ORACLE_REFUSALS:
        return None
    if not explanation.change:
        return None
    parts = set(explanation.parts)
    return explanation.classification(documented=tuple(d.id for d in entries if d.documents(parts)), scope="all")


Judged = tuple[ScoreRequest, Answered, Verdict, Expected]


def _explains(request, reply, profile, overrides, parts, meter=None) -> bool:
    """Whether the explanation of `parts` explains `reply` to `request` (False where the oracle cannot score it)."""
    try:
        return classify(request, reply, profile, overrides=overrides, among=parts, meter=meter).explained
    except ORACLE_REFUSALS:
        return False


def attribute_shrunk(shrunk: Judged, original: Judged, profile: str, *, overrides: Mapping[str, Any] | None = None,
                     entries: Sequence[SearchClass] = (), search_all: bool = True,
                     meter: TokenMeter | None = None) -> Classification:
    """The root cause of a shrunk failure: `shrunk` and `original` are each (request, reply, verdict,
    expected). A small input fits several explanations more often than a large one (an empty segment makes
    a floor and a mean of sentence scores agree), so an explanation of the shrunk input that does not also
    explain the original answer gives way to the original's own explanation, where that explains both.
    `meter`: the token computations every one of its searches shares (`classify.TokenMeter`; a search it cut
    sets its `cut`, and the caller names the failure by what is known)."""
    out = attribute(*shrunk, profile, entries=entries, search_all=search_all, meter=meter)
    if not out.change or not search_all or (meter is not None and meter.cut):
        return out
    request, reply = original[0], original[1]
    try:
        confirmed = [parts for parts in (out.parts, *out.fit_parts)
                     if classify(request, reply, profile, overrides=overrides, among=parts, meter=meter).explained]
    except ORACLE_REFUSALS:
        return out
    others = tuple(confirmed[1:])
    if confirmed and confirmed[0] == out.parts:
        return out.model_copy(update={"fit_parts": others})
    if confirmed:  # another explanation of the shrunk input is the one that explains the original too
        again = attribute(*shrunk, profile, entries=entries, among=confirmed[0], meter=meter)
        if again.change:  # (with what is known of it, where that explains the original as well: `classify`)
            known = tuple(parts for parts in again.fit_parts
                          if parts not in others and _explains(request, reply, profile, overrides, parts, meter))
            return again.model_copy(update={"fit_parts": (*others, *known)})
    whole = attribute(*original, profile, overrides=overrides, entries=entries, meter=meter)
    if not whole.change:
        return out
    both = attribute(*shrunk, profile, entries=entries, among=whole.parts, meter=meter)
    if both.change and not names_a_mechanism(both.parts) and names_a_mechanism(out.parts):
        # what is known of the original (`other-counting-of-hyp_len`: its own statistics scored give its answer)
        # stays the name, since a mechanism that explains only a small input is weak evidence (a small input fits
        # many); but that mechanism is part of what is known, and the record says so
        return both.model_copy(update={"description": (
            f"{both.description}; its shrunk input alone is explained by {out.name} (not its own input: more is at "
            f"work there, or the small input fits it by coincidence)")})
    return both if both.change else out
