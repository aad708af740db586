"""Among equals: a tie between names read on the run's passing requests (issue 36, passing-tie).

Where two names fit every failing record of a group equally (`oracle.diagnose.cover.minimal_cover`: the chosen cause
and its alternatives), the records cannot tell them apart, but the requests the implementation answered right can:
a name is a claim about what the code computes, so a name whose own prediction (`classify.explained_value` under the
name's change) differs from what the implementation answered on a request it answered right is not what the code
does there. Such a name is dropped from the tie, but only where another survives (`cover.settled`: a tie is never
left without a name).

The requests read are those of the failing records' scope: the passing requests of the smoothing method every failing
record of the group shares (a name like `smoothing=none` claims the method asked is not applied, and a bug in one
method's branch says nothing of another method's requests), or every sampled passing request where they share none.
Only the smoothing method scopes: the tie's names are computations and readings of the smoothing method, whose
predictions are recomputed from each request itself, so a request's tokenisation, case and orders are already in
what a name predicts of it; narrowing further would leave fewer of the bounded sample to read.

Read: computations (`("computation", name)`) and smoothing readings (`smoothing=<method>`); a convention's name (an
option's value) and a name saying only what is known of a difference are never ruled out (not read). A name whose
prediction does not apply to a request (None, or the oracle refuses the request under it) is not contradicted there.

The passing requests are a bounded sample (`PASSING_SAMPLE` per smoothing method, the first a run answers right;
`oracle.harness.events.RootCauseTally`), so a run's memory and this reading's cost stay bounded however long it runs.

    >>> change_of(("smoothing=none",)), change_of(("any-order-unmatched-zero",)), change_of(("lowercase=True",))
    ((('smoothing', 'none'),), (('computation', 'any-order-unmatched-zero'),), None)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from oracle.formulas.errors import BleuOracleError
from oracle.models.protocol import ScoreRequest

from .classify import explained_value
from .combination import CONTRACT
from .cover import Cause, states_what_is_known

#: Passing requests a run keeps per smoothing method (the first answered right): constant, whatever --examples says.
PASSING_SAMPLE = 64


@dataclass(frozen=True)
class Passing:
    """A request the implementation answered right, and the score it answered."""

    request: ScoreRequest
    answered: float


def change_of(parts: Cause) -> tuple[tuple[str, str], ...] | None:
    """A name's change (`Explanation.change`) from its parts, where each part is a computation or a reading of the
    smoothing method; None for a name with a convention's part (an option's value: its change is not in its name)."""
    out = []
    for part in parts:
        if part.startswith("smoothing="):
            out.append(("smoothing", part.removeprefix("smoothing=")))
        elif "=" in part:
            return None
        else:
            out.append(("computation", part))
    return tuple(out)


def contradicts(passing: Passing, parts: Cause, profile: str) -> bool:
    """Whether the name `parts` predicts, on a request the implementation answered right, a score other than the one
    it answered (beyond the classifier's tolerance, `combination.CONTRACT`). False where it is not read (a
    convention, a name saying what is known) or does not apply."""
    change = change_of(parts)
    if change is None or states_what_is_known(parts) or math.isnan(passing.answered):
        return False
    try:
        value = explained_value(passing.request, profile, change)
    except BleuOracleError:
        return False
    return value is not None and not CONTRACT.close(value, passing.answered)


def not_contradicted(tied: Sequence[Cause], passing: Sequence[Passing], profile: str) -> tuple[Cause, ...]:
    """The names of `tied` no request of `passing` contradicts (`contradicts`), in their order (possibly none:
    `cover.settled` keeps the whole tie then)."""
    return tuple(parts for parts in tied if not any(contradicts(p, parts, profile) for p in passing))


__all__ = ["PASSING_SAMPLE", "Passing", "change_of", "contradicts", "not_contradicted"]
