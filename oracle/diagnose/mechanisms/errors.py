"""Triggers: the input feature an implementation answers `error` on, or whose request kills or hangs its process
(`oracle.diagnose.errorcauses`, `oracle.harness.crashcauses`), named `<error|crash|timeout>-when-<feature>[-and-
<feature>...]`, a family per prefix (`errorcauses.TRIGGER_PREFIXES`) confirmed by asking neighbouring inputs; and a
process that dies (or hangs) after a number of requests whatever they hold, or on an input no feature separates."""

from __future__ import annotations

from oracle.diagnose import errorcauses

from .model import ERROR, PROBE, Mechanism, Route

#: What each trigger accounts for: an error answer, or the process's death or hang (`oracle.harness.crashcauses`).
_ANSWERS = {errorcauses.PREFIX: "error", errorcauses.CRASH_PREFIX: "crash", errorcauses.TIMEOUT_PREFIX: "timeout"}
#: The prefix of the names of a process that dies (hangs) after answering a number of requests
#: (`crash-after-<n>-requests`), and the name of an input no feature separates (`crash-no-input-feature`).
_AFTER = "-after-"
_NO_FEATURE = "-no-input-feature"


def _after_words(name: str) -> str:
    word, _, rest = name.partition(_AFTER)
    what = "dies" if word == "crash" else "hangs"
    return (f"the implementation's process {what} on the request after answering {rest.removesuffix('-requests')} "
            "request(s), whatever the request holds: the input alone is answered by a fresh process")


MECHANISMS = [
    *(Mechanism(prefix, ERROR, f"{what} where the input has the features the name joins (each confirmed by a "
                               "neighbouring input without it that is answered)",
                frozenset({_ANSWERS.get(prefix, "error")}), PROBE,
                (Route("probe", errorcauses.error_cause, what),), family=True, words_of=errorcauses.describe)
      for prefix, what in errorcauses.TRIGGER_PREFIXES.items()),
    *(Mechanism(f"{word}{_AFTER}", ERROR, _after_words(f"{word}{_AFTER}<n>-requests"), frozenset({word}), PROBE,
                family=True, words_of=_after_words)
      for word in ("crash", "timeout")),
    *(Mechanism(f"{word}{_NO_FEATURE}", ERROR,
                f"no input feature separates it: the input {'kills' if word == 'crash' else 'hangs'} a fresh process "
                "as its first request, and no feature of the catalogue is confirmed", frozenset({word}), PROBE)
      for word in ("crash", "timeout")),
]

__all__ = ["MECHANISMS"]
