"""The root cause of a `crash` (or `timeout`) record: what kills (or hangs) the implementation's process, found by
probes sent to processes of its own.

A process that died gives no answer to explain, and named `crash` alone every death of a run is one cause, which a
baseline can forgive only all together or by id (one seed). Here a death is asked about again, in a fresh process
started for the probes (never the run's own: its restart budget, `--max-restarts`, and its history stay as they
were), and named by what the probes show:

- `crash-when-<feature>[-and-<feature>...]`: the input kills a fresh process as its first request, and the feature
  search of `oracle.diagnose.errorcauses` (on the input shrunk first, every candidate of the shrink sent to a
  process) finds the features without any one of which the input is answered; the boundary is then probed from
  the failing side too: VARIANTS inputs holding those features but with every token renamed must each kill the
  process. One of them answered, and the features were a coincidence of this input (an implementation that dies on
  a hash of its input): the record is named `crash-no-input-feature`.
- `crash-after-<n>-requests`: the input is answered as a fresh process's first request, the process dies on its
  (n+1)-th whatever it is sent (the input repeated, then another input in another fresh process: both die on the
  (n+1)-th request). A death that depends on the process's history, not on the input.
- `crash-no-input-feature`: neither: no feature of the catalogue separates the crashing input from answered ones,
  or the death did not recur within POSITION_REQUESTS requests to a fresh process. The description says which.

A `timeout` is probed the same way for its position (a hang costs the timeout once per probe), but its input's
features are not searched: `timeout-after-<n>-requests` or `timeout-no-input-feature` where the input alone does
not hang a fresh process; where it does, the record keeps the name `timeout`, its description saying so.

Costs, bounded: at most MAX_STARTS process starts per probed record (a start is a restart: for a library that loads
a model, seconds each; the shrink spends at most SHRINK_STARTS of them, within the run's --shrink-budget and
--shrink-seconds), at most TIMEOUT_HANGS probes that hang per probed `timeout` record (each costs the timeout), and
the feature search's own bound (`errorcauses.MAX_PROBES` requests). Only the first death
of each kind in a block of examples is probed, as only the first failure of each kind is shrunk
(`budget.shrink_allowed`); a later one is named by a probed cause of its kind where its input holds the features
(`crash-when-...`) or it died on the same request of its process (`crash-after-...`), else it keeps `crash`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from oracle.diagnose.errorcauses import CRASH_PREFIX
from oracle.diagnose.mechanisms.errors import (
    after_requests,
    after_requests_name,
    describe,
    error_cause,
    holds,
    no_feature_name,
)
from oracle.models.protocol import Capabilities, ScoreRequest, Segment

from .requests import not_applicable_reason
from .transport import HandshakeError, ImplementationProcess, Reply

#: Process starts one probed record may cost at most (the first, and each after a probe killed the process) ...
MAX_STARTS = 32
#: ... of which the shrink may spend this many (every smaller input that still kills the process costs one), the
#: rest kept for the features' neighbours and the renamed variants.
SHRINK_STARTS = 16
#: Requests a fresh process is sent at most while looking for the request it dies on.
POSITION_REQUESTS = 8
#: Inputs holding a crash's features, every token renamed, that must each kill the process too.
VARIANTS = 3
#: Probes that hang at most for one `timeout` record (each costs the run's --timeout).
TIMEOUT_HANGS = 2
#: The suffixes the variants' tokens are renamed with (one variant each).
SUFFIXES = ("x", "y", "z")


class Prober(Protocol):
    """Processes of the probes' own: `fresh()` starts a new one for the next `ask` (False: no start left), `ask`
    sends a request to the current one (started first where there is none alive): True where the process died
    (or hung), False where it answered (anything: a score, an error, a refusal), None where it cannot be asked
    (outside the capabilities, no start left)."""

    starts: int

    def fresh(self) -> bool: ...

    def ask(self, request: ScoreRequest) -> bool | None: ...


@dataclass(frozen=True)
class DeathCause:
    """A probed record's name, what the probes showed, and the input the features were found on (shrunk)."""

    name: str
    description: str
    shrunk: ScoreRequest | None = None


def renamed(request: ScoreRequest, suffix: str) -> ScoreRequest:
    """`request` with every token (every word of a text) given `suffix`: the same lengths, emptiness, whitespace,
    line breaks, hyphens, repeats and matches, other strings."""
    if request.is_text:
        def text(value):
            return re.sub(r"[^\s\-]+", lambda m: m.group() + suffix, str(value))
        return request.model_copy(update={"segments": tuple(
            Segment(hypothesis=text(s.hypothesis), references=tuple(map(text, s.references)))
            for s in request.segments)})

    def tokens(value: Iterable[str]) -> tuple[str, ...]:
        return tuple(t + suffix if t.strip() else t for t in value)
    return request.model_copy(update={"segments": tuple(
        Segment(hypothesis=tokens(s.hypothesis), references=tuple(map(tokens, s.references)))
        for s in request.segments)})


def _position(failing: ScoreRequest, prober: Prober, word: str) -> DeathCause | None:
    """The failing input was answered as a fresh process's first request: the request it dies on, the input
    repeated, then confirmed with another input in another fresh process."""
    dies = "dies" if word == "crash" else "hangs"
    died_on = None
    for n in range(2, POSITION_REQUESTS + 1):
        answer = prober.ask(failing)
        if answer is None:
            return None
        if answer:
            died_on = n
            break
    if died_on is None:
        return DeathCause(no_feature_name(word), (
            f"no input feature separates it: the input is answered by a fresh process as its first request and "
            f"{POSITION_REQUESTS - 1} times more ({word} not reproduced: it depends on what the run's process was "
            "sent before, or on its seq, or on chance)"))
    other = renamed(failing, SUFFIXES[0])
    if not prober.fresh():
        return None
    for n in range(1, died_on + 1):
        answer = prober.ask(other)
        if answer is None:
            return None
        if answer and n == died_on:
            return DeathCause(after_requests_name(word, died_on - 1), (
                f"the process {dies} on its request {died_on} whatever it is: a fresh process answered the failing "
                f"input {died_on - 1} time(s) and {dies} on it next, another fresh process did the same with another "
                "input (no input feature separates it)"))
        if answer:
            break
    return DeathCause(no_feature_name(word), (
        f"no input feature separates it: the input is answered by a fresh process as its first request, the "
        f"process {dies} on request {died_on} of the input repeated, but not so with another input"))


def _confirmed(name: str, shrunk: ScoreRequest, prober: Prober) -> str | None:
    """Why the failing side of the boundary does not hold (an input with the features, renamed, answered), or
    None where VARIANTS such inputs each kill the process."""
    variants = [v for v in (renamed(shrunk, s) for s in SUFFIXES[:VARIANTS]) if holds(name, v)]
    if len(variants) < VARIANTS:
        return "its inputs renamed do not keep the features"
    for variant in variants:
        answer = prober.ask(variant)
        if answer is not True:
            return ("the same input with its tokens renamed, holding the same features, was answered"
                    if answer is False else "the probes ran out before the features were confirmed")
    return None


def crash_cause(failing: ScoreRequest, prober: Prober, *, outcome: str = "crash", methods: Iterable[str] = (),
                shrink: Callable[[ScoreRequest, Callable[[ScoreRequest], bool]], ScoreRequest] | None = None
                ) -> DeathCause | None:
    """What killed (`outcome` "crash") or hung ("timeout") the process on `failing`, from the probes (`prober`);
    None where the probes could not say (no process could be started, the input could not be sent). `shrink`
    reduces the input while a predicate holds (the input still kills a process); `methods`: the smoothing methods
    the implementation takes."""
    if not prober.fresh():
        return None
    first = prober.ask(failing)
    if first is None:
        return None
    if first is False:
        return _position(failing, prober, outcome)
    if outcome != "crash":
        return DeathCause(outcome, "the input hangs a fresh process as its first request too; its features were "
                                   "not searched (each probe that hangs costs the timeout)")


    def still_kills(request: ScoreRequest) -> bool:
        return prober.starts < SHRINK_STARTS and prober.ask(request) is True
    reduced = shrink(failing, still_kills) if shrink is not None else failing
    cause = error_cause(reduced, prober.ask, also_failing=(failing,), methods=tuple(methods), prefix=CRASH_PREFIX)
    shrunk = reduced if reduced != failing else None
    if cause is None:
        return DeathCause(no_feature_name("crash"), (
            "no input feature separates it: the input kills a fresh process as its first request, and no feature of "
            "the catalogue is confirmed (taken away, the input still kills it, or could not be sent)"), shrunk)
    why_not = _confirmed(cause.name, reduced, prober)
    if why_not is not None:
        return DeathCause(no_feature_name("crash"), (
            f"no input feature separates it: the input kills a fresh process as its first request, and without each "
            f"of its features ({', '.join(cause.features)}) it is answered, but {why_not}"), shrunk)
    return DeathCause(cause.name, (
        f"{describe(cause.name)}: the input kills a fresh process as its first request; without any one of these "
        f"features it is answered ({cause.probes} neighbour(s) asked, {cause.answered} answered), and {VARIANTS} "
        f"inputs holding them, every token renamed, kill it too"), shrunk)


class ProcessProber:
    """A `Prober` over processes started like `like` (its command, directory, environment, timeout), each with no
    restart of its own (a death ends it; the next `ask` starts another): at most `max_starts` starts and `max_deaths`
    probes that kill or hang one. Seqs count from 1 in each process, whichever run or worker probes."""

    def __init__(self, like: ImplementationProcess, capabilities: Capabilities, *, max_starts: int = MAX_STARTS,
                 max_deaths: int | None = None) -> None:
        self.like, self.capabilities = like, capabilities
        self.max_starts, self.max_deaths = max_starts, max_deaths
        self.starts = self.deaths = self.seq = 0
        self.process: ImplementationProcess | None = None

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def fresh(self) -> bool:
        return self._started() is not None

    def _started(self) -> ImplementationProcess | None:
        """A newly started process (the current one stopped), or None where no start is left or it failed."""
        self.close()
        if self.starts >= self.max_starts or (self.max_deaths is not None and self.deaths >= self.max_deaths):
            return None
        self.starts += 1
        like = self.like
        process = ImplementationProcess(like.argv, timeout=like.timeout, max_restarts=0, cwd=like.cwd, env=like.env,
                                        capture_stderr=like.capture_stderr, stderr_log=like.stderr_log)
        try:
            process.start()
        except HandshakeError:
            process.stop()
            return None
        self.process, self.seq = process, 0
        return process

    def answers(self, requests: Sequence[ScoreRequest]) -> list[Reply] | None:
        """The replies of a process started for `requests` (its first requests, in order; a death ends them), or None
        where no process could be started (`oracle.harness.diagnosis`'s order probes of a state kept from a
        process's first request)."""
        process = self._started()
        if process is None:
            return None
        replies = []
        for request in requests:
            self.seq += 1
            replies.append(process.request(request.with_seq(self.seq).to_json()))
            if replies[-1].kind in ("crash", "timeout"):
                self.deaths += 1
                self.close()
                break
        return replies

    def ask(self, request: ScoreRequest) -> bool | None:
        if not_applicable_reason(request, self.capabilities) is not None:
            return None
        process = self.process if self.process is not None and self.process.alive() else self._started()
        if process is None:
            return None
        self.seq += 1
        reply = process.request(request.with_seq(self.seq).to_json())
        died = reply.kind in ("crash", "timeout")
        if died:
            self.deaths += 1
            self.close()
        return died


def hinted(request: ScoreRequest, died_after: int | None, hints: Iterable[tuple[str, ...]], *,
           outcome: str = "crash") -> DeathCause | None:
    """The first probed cause of its kind (`hints`) that a death (`outcome` "crash") or hang ("timeout") not
    probed has, with what it says in words: the features of a `crash-when-...` held by its input, or a
    `crash-after-<n>-requests` where its process had answered n requests (`died_after`) before dying. The hints are
    causes as the budget keeps them (their parts, `budget.Cause`); a death's cause is one mechanism, read here,
    where its kind is known."""
    for hint in (parts[0] for parts in hints if len(parts) == 1):
        if hint.startswith(CRASH_PREFIX) and holds(hint, request):
            return DeathCause(hint, describe(hint))
        after = after_requests(hint)
        if after is not None and after == died_after:
            return DeathCause(hint, f"the process {'dies' if outcome == 'crash' else 'hangs'} on its request "
                                    f"{after + 1} whatever it is (this one did so on its request {after + 1})")
    return None


__all__ = ["MAX_STARTS", "POSITION_REQUESTS", "SHRINK_STARTS", "TIMEOUT_HANGS", "VARIANTS", "DeathCause", "Prober",
           "ProcessProber", "crash_cause", "hinted", "renamed"]
