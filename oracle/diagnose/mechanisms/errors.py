"""Error causes (`oracle.diagnose.errorcauses`): the input feature an implementation answers `error` on, named
`error-when-<feature>[-and-<feature>...]`, a family confirmed by asking neighbouring inputs."""

from __future__ import annotations

from oracle.diagnose import errorcauses

from .model import ERROR, ERROR_ANSWER, PROBE, Mechanism, Route

MECHANISMS = [Mechanism(errorcauses.PREFIX, ERROR,
                        "the implementation answers error where the input has the features the name joins (each "
                        "confirmed by a neighbouring input without it that is answered)",
                        ERROR_ANSWER, PROBE, (Route("probe", errorcauses.error_cause, "error cause"),), family=True,
                        words_of=errorcauses.describe)]

__all__ = ["MECHANISMS"]
