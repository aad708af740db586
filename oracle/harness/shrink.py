"""Greedy shrinking of a failing request to a minimal one that still fails the same way.

The caller supplies `still_fails(request) -> bool`; `check` re-queries the
implementation and the oracle and answers True when the candidate is a valid
input with the same outcome and first diverging layer as the original. The
passes, repeated until none makes progress or the query budget is spent:

1. drop segments (halves first, then one at a time; at least one is kept);
2. drop references (at least one per segment);
3. drop tokens from hypotheses and references (chunks of half the sequence,
   then quarters, ... then single tokens);
4. shorten the weights (drop the last order; uniform weights stay uniform),
   then make them uniform;
5. simplify smoothing (to "none" when the implementation takes it, else the
   method's documented default parameters);
6. turn lowercase off;
7. rename tokens to a, b, c, ... in order of first appearance, one letter per
   case-folding class ("the", "The" -> "a", "A"), so n-gram identities and
   what lowercasing merges are both kept; where that loses the failure, the
   tokens holding a line end other than LF (CR, U+2028, ...) are kept as they
   are and the others renamed.

In a text request, a hypothesis or reference is a string: step 3 drops its
space-separated pieces instead, and step 7 is left out (renaming would change
what the tokenizer sees).

Deterministic: the same failure and implementation shrink to the same input.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from oracle.diagnose.errorcauses import holds_line_end
from oracle.diagnose.expect import oracle_expected
from oracle.diagnose.judge import judge, token_count_layers
from oracle.models.protocol import Capabilities, ProtocolError, ScoreRequest, Segment, SmoothingSpec
from oracle.models.results import (
    STOPPED_CLOCK,
    STOPPED_MINIMAL,
    STOPPED_QUERIES,
    STOPPED_TOKENS,
)

from .requests import not_applicable_reason
from .stages import Judgement
from .transport import Reply

DEFAULT_BUDGET = 250
#: Tokens one shrink may send in all: at least this many, or TOKEN_BUDGET_FACTOR times the failing input's own
#: size. A deterministic bound (never wall-clock) on what a huge input that nothing smaller reproduces (a count
#: past 65,535 needs a 65,536-token run) costs the implementation; a small input never comes near it.
TOKEN_BUDGET_FLOOR = 200_000
TOKEN_BUDGET_FACTOR = 5
#: Seconds one shrink may take unless `--shrink-seconds` says otherwise: a safety limit only, far above what the
#: query budget costs (benchmarks/README.md, "Shrinking bounded by queries, not by the clock"), so that the query
#: and token budgets decide where a shrink stops and the same seed gives the same records on any machine under any
#: load. Where the clock does stop a shrink, its record says so (`Shrunk.stopped_by` "clock", and its note).
DEFAULT_SHRINK_SECONDS = 600.0
SIMPLE_TOKENS = tuple("abcdefghijklmnopqrstuvwxyz")


class _BudgetSpent(Exception):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ShrinkResult:
    request: ScoreRequest
    steps: int  # accepted simplifications
    queries: int  # candidates tried (each one request to the implementation)
    exhausted: bool  # the budget ran out before a fixed point
    stopped: str = STOPPED_MINIMAL  # why it stopped (one of STOPPED_REASONS)


def _replace(request, **changes):
    fields = dict(seq=request.seq, level=request.level, segments=request.segments, weights=request.weights,
                  smoothing=request.smoothing, lowercase=request.lowercase, tokenize=request.tokenize)
    fields.update(changes)
    return ScoreRequest(**fields)


def _with_sequence(request, seg, ref, tokens):
    if request.is_text:  # pieces of raw text, back into one string
        tokens = " ".join(tokens)
    segments = list(request.segments)
    segment = segments[seg]
    if ref is None:
        segments[seg] = Segment(hypothesis=tokens if isinstance(tokens, str) else tuple(tokens),
                                references=segment.references)
    else:
        references = list(segment.references)
        references[ref] = tokens if isinstance(tokens, str) else tuple(tokens)
        segments[seg] = Segment(hypothesis=segment.hypothesis, references=tuple(references))
    return _replace(request, segments=tuple(segments))


class _Shrinker:
    def __init__(self, request, still_fails, capabilities, budget, deadline=None):
        self.deadline = deadline
        self.current = request
        self.still_fails = still_fails
        #: None: any request may be sent (a caller that checks applicability in `still_fails`)
        self.capabilities = capabilities
        self.budget = budget
        self.token_budget = max(TOKEN_BUDGET_FLOOR, TOKEN_BUDGET_FACTOR * request.token_count)
        self.tokens_sent = 0
        self.queries = 0
        self.steps = 0

    def attempt(self, candidate):
        if candidate == self.current:
            return False
        if self.queries >= self.budget:
            raise _BudgetSpent(STOPPED_QUERIES)
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _BudgetSpent(STOPPED_CLOCK)
        if self.tokens_sent + candidate.token_count > self.token_budget:
            raise _BudgetSpent(STOPPED_TOKENS)
        self.queries += 1
        self.tokens_sent += candidate.token_count
        if self.still_fails(candidate):
            self.current = candidate
            self.steps += 1
            return True
        return False

    # -- passes -------------------------------------------------------------------

    def drop_segments(self):
        progress = False
        size = len(self.current.segments) // 2
        while size >= 1:
            i = 0
            while i < len(self.current.segments) and len(self.current.segments) > 1:
                segments = self.current.segments
                kept = segments[:i] + segments[i + size:]
                if kept and self.attempt(_replace(self.current, segments=kept)):
                    progress = True
                else:
                    i += size
            size //= 2
        return progress

    def drop_references(self):
        progress = False
        for seg in range(len(self.current.segments)):
            r = 0
            while r < len(self.current.segments[seg].references) and len(self.current.segments[seg].references) > 1:
                segment = self.current.segments[seg]
                references = segment.references[:r] + segment.references[r + 1:]
                segments = list(self.current.segments)
                segments[seg] = Segment(hypothesis=segment.hypothesis, references=references)
                if self.attempt(_replace(self.current, segments=tuple(segments))):
                    progress = True
                else:
                    r += 1
        return progress

    def _sequences(self):
        for seg, segment in enumerate(self.current.segments):
            yield seg, None
            for r in range(len(segment.references)):
                yield seg, r

    def _get(self, seg, ref):
        segment = self.current.segments[seg]
        value = segment.hypothesis if ref is None else segment.references[ref]
        return tuple(value.split(" ")) if isinstance(value, str) else value  # raw text: its pieces

    def drop_tokens(self):
        progress = False
        for seg, ref in list(self._sequences()):
            if seg >= len(self.current.segments) or (
                ref is not None and ref >= len(self.current.segments[seg].references)
            ):
                continue
            size = max(len(self._get(seg, ref)) // 2, 1)
            while size >= 1:
                i = 0
                while i < len(self._get(seg, ref)):
                    tokens = self._get(seg, ref)
                    if self.attempt(_with_sequence(self.current, seg, ref, tokens[:i] + tokens[i + size:])):
                        progress = True
                    else:
                        i += size
                size //= 2
        return progress

    def shorten_weights(self):
        progress = False
        while len(self.current.weights) > 1:
            weights = list(self.current.weights)
            if len(set(weights)) == 1:
                shorter = (1.0 / (len(weights) - 1),) * (len(weights) - 1)
            else:
                shorter = tuple(weights[:-1])
                if not any(shorter):
                    break
            if not self.attempt(_replace(self.current, weights=shorter)):
                break
            progress = True
        n = len(self.current.weights)
        uniform = (1.0 / n,) * n
        if tuple(self.current.weights) != uniform and self.attempt(_replace(self.current, weights=uniform)):
            progress = True
        return progress

    def simplify_smoothing(self):
        smoothing = self.current.smoothing
        if smoothing.method == "none":
            return False
        if self.capabilities is None or "none" in self.capabilities.smoothing:
            if self.attempt(_replace(self.current, smoothing="none")):
                return True
        defaults = SmoothingSpec.of(smoothing.method)
        return defaults != smoothing and self.attempt(_replace(self.current, smoothing=defaults))

    def no_lowercase(self):
        return self.current.lowercase is True and self.attempt(_replace(self.current, lowercase=False))

    def rename_tokens(self):
        """Rename tokens to a, b, ... per case-folding class: "the"/"The"/"THE" become "a"/"A"/... so
        that both n-gram identity and what lowercasing merges are kept. Where that loses the failure, the same with
        every token holding a line end other than LF left as it is (a reader's line ends are what a caller writing
        lines trips on: the shrunk input keeps them)."""
        if self.current.is_text:
            return False
        tokens = []
        for segment in self.current.segments:
            tokens.extend(segment.hypothesis)
            for reference in segment.references:
                tokens.extend(reference)
        names = _simple_names(tokens)
        if names is None or all(k == v for k, v in names.items()):
            return False
        if self.attempt(self._renamed(names)):
            return True
        kept = {token: token for token in names if holds_line_end(token)}
        return bool(kept) and any(k != v for k, v in names.items() if k not in kept) and self.attempt(
            self._renamed({**names, **kept}))

    def _renamed(self, names):
        rename = lambda seq: tuple(names[t] for t in seq)  # noqa: E731
        segments = tuple(
            Segment(hypothesis=rename(s.hypothesis), references=tuple(rename(r) for r in s.references))
            for s in self.current.segments
        )
        return _replace(self.current, segments=segments)

    def run(self):
        passes = (self.drop_segments, self.drop_references, self.drop_tokens, self.shorten_weights,
                  self.simplify_smoothing, self.no_lowercase, self.rename_tokens)
        stopped = STOPPED_MINIMAL
        try:
            progress = True
            while progress:
                progress = False
                for step in passes:
                    if step():
                        progress = True
        except _BudgetSpent as spent:
            stopped = spent.reason
        return ShrinkResult(self.current, self.steps, self.queries, stopped != STOPPED_MINIMAL, stopped)


def _simple_names(tokens):
    """token -> a, b, ... per case-folding class ("the"/"The"/"THE" -> "a"/"A"/"aA"), in order of first appearance;
    None where there are more classes than SIMPLE_TOKENS."""
    classes = {}
    for token in tokens:
        variants = classes.setdefault(token.lower(), [])
        if token not in variants:
            variants.append(token)
    if len(classes) > len(SIMPLE_TOKENS):
        return None
    names = {}
    for letter, (key, variants) in zip(SIMPLE_TOKENS, classes.items(), strict=False):
        # the folded form itself (if present) gets the all-lowercase name; the others case patterns
        ordered = sorted(variants, key=lambda t: t != key)
        width = max(1, (len(ordered) - 1).bit_length())
        for i, token in enumerate(ordered):
            names[token] = "".join(letter.upper() if i >> b & 1 else letter for b in range(width))
    return names


def deadline_after(seconds: float | None) -> float | None:
    """The `time.perf_counter()` value `seconds` from now, the deadline a shrink is given (None: no clock)."""
    return None if seconds is None else time.perf_counter() + seconds


def clock_note(stopped: str | None, queries: int, seconds: float | None) -> str | None:
    """What a record says of a shrink the wall clock stopped (None for any other reason): its shrunk input is
    what this machine reached in the time, another machine, or this one under another load, may reach another."""
    if stopped != STOPPED_CLOCK:
        return None
    limit = f" ({seconds:g} s)" if seconds is not None else ""
    return (f"shrinking stopped at the --shrink-seconds clock{limit} after {queries} queries, before the query "
            "budget: this record depends on the machine's speed and load")


def shrink(request, still_fails, *, capabilities: Capabilities | None = None, budget=DEFAULT_BUDGET, deadline=None):
    """A minimal request for which `still_fails` holds (the original if nothing simpler does), within
    `budget` queries and, when given, before `deadline` (a `time.perf_counter()` value)."""
    return _Shrinker(request, still_fails, capabilities, budget, deadline).run()


def _answers_nan(reply: Reply | None) -> bool:
    if reply is None or reply.kind != "score" or reply.score is None:
        return False
    return math.isnan(reply.score)


def _is_undefined(expected):
    return not expected.rejected and expected.score is not None and math.isnan(expected.score)


class SameFailure:
    """`still_fails(candidate)` for `shrink`, which keeps the last failing candidate's `Judgement` (`last`: its
    request as sent, the oracle's expectation, the reply and the verdict; None until one fails). A candidate fails
    the same way when the oracle scores it, the capabilities cover it, and the implementation's answer (through
    `send`) diverges with the same outcome and at the same first layer as `verdict`.

    NaN fails in its own way, on either side: a failure on an input the oracle scores does not shrink into
    one where the score is undefined (no hypothesis and no reference tokens), nor a numeric answer into a
    NaN one (else every failure would end at the empty input). `expected`: the oracle's expectation of
    `request`, when the caller has it (computed here otherwise)."""

    def __init__(self, request, verdict, reply, *, profile, capabilities, send, contract, given_up, expected=None):
        self.target = (verdict.outcome, verdict.layer, _answers_nan(reply))
        self.undefined = _is_undefined(expected or oracle_expected(request, profile))
        self.profile, self.capabilities, self.send, self.contract = profile, capabilities, send, contract
        self.given_up = given_up
        self.last: Judgement | None = None

    def __call__(self, candidate: ScoreRequest) -> bool:
        expected = oracle_expected(candidate, self.profile)
        if expected.rejected or _is_undefined(expected) != self.undefined:
            return False
        if not_applicable_reason(candidate, self.capabilities) is not None or self.given_up():
            return False
        try:
            sent, answer = self.send(candidate)
        except ProtocolError:
            return False
        result = judge(expected, answer, self.contract, max_order=len(candidate.weights),
                       token_counts=token_count_layers(candidate))
        if (result.outcome, result.layer, _answers_nan(answer)) == self.target:
            # (the request as sent: what the shrinker's judgement is classified by, as the original's is by its own)
            self.last = Judgement(request=sent, sent=sent, reply=answer, expected=expected, verdict=result)
            return True
        return False
