"""The line to one implementation process: what a session sends on it and what the process kept (`Channel`).

A session judges on one channel at a time (`oracle.harness.session.Session.channel`): its transport (a process over
protocol v1, an adapter in this process, or one that sends nothing: `oracle.harness.worker`), the sequence numbers of
its requests, the latest requests the process answered (the history a stale answer is looked for in:
`oracle.diagnose.stale`), the halvings exp smoothing made over them, how many requests the current process
instance was sent, and the coverage of what was judged on it. Each `check --jobs` worker owns one; the parent
judges the examples no process attempted on a channel that sends nothing, never on its own.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from oracle.diagnose.stale import Before, Exchange, halvings
from oracle.models.outcomes import Expected
from oracle.models.protocol import ScoreRequest

from .coverage import Coverage, features
from .searchcache import Prepared, wire_line
from .sharing import BySegments
from .transport import Reply

#: How many of the latest requests to the implementation process (and their replies) a session keeps, and how
#: many tokens they may hold together (the oldest go first when either is reached): a wrong answer that is exactly
#: the right answer of one of them, a different request, is named a stale answer (`oracle.diagnose.stale`). A
#: series (`oracle.harness.work.series`) changes one part of a base input a few requests after sending it, but a cache
#: answers whenever its key comes again: the planted caches of tests/fakes/plantedbleu.py answer from up to
#: ~1,100 requests back in a run of check's defaults (200 examples, ~1,200 requests). Bounded, so that a long run
#: keeps a constant memory and a failing record's search stays cheap.
HISTORY_WINDOW = 2_048
HISTORY_TOKENS = 200_000
#: A request of more tokens than this is not kept (a long input is rarely sent twice; kept, a few would push
#: every short request out of HISTORY_TOKENS): the history goes on past it.
HISTORY_REQUEST_TOKENS = 2_000


class Channel:
    """Requests to one implementation process through `transport`, and what the process answered (`profile`: the
    judged profile, which says how exp smoothing's halvings are counted). `seq`: the last sequence number used
    (a channel that carries on another's numbering starts from its last). `progress`: whether the records judged
    on it count on the progress line (False: a worker counted them as it judged them)."""

    def __init__(self, transport: Any, profile: str, *, seq: int = 0, progress: bool = True) -> None:
        self.transport, self.profile, self.seq, self.progress = transport, profile, seq, progress
        #: what the inputs judged on this channel exercised (`oracle.harness.coverage`), for the footer
        self.coverage = Coverage()
        #: the latest requests this process answered, oldest first (`HISTORY_WINDOW`, `HISTORY_TOKENS`), the
        #: tokens they hold, the process's restarts when they were answered, and whether the reply `collect` read
        #: last is the history's last entry
        self.history: deque[Exchange] = deque()
        self.history_tokens = 0
        self.history_restarts = 0
        self.last_kept = False
        #: requests kept in the history so far, and that number when the current case or example began: the
        #: history's entries of this unit of work are the same whichever shard or worker runs it
        self.kept_total = 0
        self.unit_start = 0
        #: the halvings exp smoothing made over every request since the process started, by the counts it
        #: answered (None: unknown, an exp-smoothed score came without statistics), and that before the last reply
        self.exp_halvings: int | None = 0
        self.halvings_before: int | None = 0
        #: the statistics the process returned last since it started, by number of orders (None: unknown, a score came
        #: without statistics), and that before the last reply (`returned_before`): what a process whose counts are
        #: never reset has summed (`oracle.diagnose.stale.accumulated_statistics`). A reply replaces the dict, never
        #: changes it, so the one before is kept as it is and read only where a failure's diagnosis asks for it.
        self.returned: dict[int, Any] | None = {}
        self._returned_then: dict[int, Any] | None = self.returned
        #: requests the current process instance was sent (a restart starts it anew), and after a death how many it
        #: had answered before the request that killed it (`crashcauses.hinted`)
        self.process_requests = 0
        self.died_after: int | None = None
        #: the first request the current process instance answered (a probe too), kept past the history's window: a
        #: process that reads its references once keeps this one's (`oracle.diagnose.stale.kept_references`)
        self.first: Exchange | None = None
        #: the process states the order probes confirmed on this process instance, by name, with the first request
        #: they were confirmed after (`oracle.harness.diagnosis._in_order`: references kept from the first request are
        #: the process's one state, confirmed once a process instance, not once a record)
        self.in_order: dict[str, Exchange] = {}
        #: what the special-token probes found, by broad name (`oracle.harness.diagnosis._special_token_named`): the
        #: implementation's code, not its state, so kept across restarts
        self.special_tokens: dict[str, Any] = {}
        #: what the current unit's requests share by their segments (a series step and its base input: their
        #: coverage features, `oracle.harness.sharing`), dropped when the next unit begins
        self.shared = BySegments()

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def submit(self, request: ScoreRequest, prepared: Prepared | None = None) -> tuple[ScoreRequest, Any]:
        """Send `request` with the next seq: (the request as sent, a pending reply for `collect`). `prepared`: the
        input's `Prepared` (its wire line without seq, built once, or read from the search cache)."""
        request = request.with_seq(self.next_seq())
        if prepared is None:
            return request, self.transport.submit(request.to_json())
        return request, self.transport.submit({"seq": request.seq},
                                              line=wire_line(prepared.wire_body(), request.seq))

    def send(self, request: ScoreRequest) -> tuple[ScoreRequest, Reply]:
        """Send `request` and wait for its reply: (the request as sent, the reply)."""
        sent, pending = self.submit(request)
        return sent, self.collect(sent, pending)

    def collect(self, request: ScoreRequest, pending: Any, *, kept: bool = True) -> Reply:
        """The reply to `request` (sent, pending), kept in the process's history (`before`; not when `kept` is
        False: a probe's) and its tally of exp smoothing's halvings (`halvings_before`: the tally before this
        reply). A restarted process starts both anew (what the old one kept is gone), and so does a reply that
        ended the process (a crash, a timeout)."""
        reply = self.transport.collect(pending)
        restarts = getattr(self.transport, "restarts", 0)
        self.process_requests = 1 if restarts != self.history_restarts else self.process_requests + 1
        if reply.kind in ("crash", "timeout"):
            self.died_after, self.process_requests = self.process_requests - 1, 0
        if restarts != self.history_restarts or reply.kind in ("crash", "timeout"):
            self.history.clear()
            self.history_tokens, self.history_restarts, self.exp_halvings, self.first = 0, restarts, 0, None
            self.in_order, self.returned = {}, {}
        self.halvings_before = self.exp_halvings
        self._returned_then = self.returned
        exchange = Exchange(request, reply)
        if self.process_requests == 1 and reply.kind not in ("crash", "timeout"):
            self.first = exchange
        if reply.kind not in ("crash", "timeout"):
            more = halvings(exchange, self.profile)
            self.exp_halvings = None if more is None or self.exp_halvings is None else self.exp_halvings + more
            self._returned(reply)
            if kept and request.token_count <= HISTORY_REQUEST_TOKENS:
                self.history.append(exchange)
                self.history_tokens += request.token_count
                self.kept_total += 1
        while self.history and (len(self.history) > HISTORY_WINDOW or self.history_tokens > HISTORY_TOKENS):
            self.history_tokens -= self.history.popleft().request.token_count
        self.last_kept = bool(self.history) and self.history[-1] is exchange
        return reply

    def _returned(self, reply: Reply) -> None:
        """Keep the statistics of a score the process returned (by number of orders), or forget them all where a score
        came without statistics (what the process summed is then unknown)."""
        if reply.kind != "score" or self.returned is None:
            return
        statistics = reply.statistics
        if statistics is None:
            self.returned = None
            return
        self.returned = {**self.returned, len(statistics.matches): statistics}  # (a new dict: `_returned_then` stays)

    @property
    def returned_before(self) -> tuple[tuple[int, Any], ...] | None:
        """The statistics the process had returned before the reply `collect` read last, by number of orders, sorted
        (None: unknown)."""
        return None if self._returned_then is None else tuple(sorted(self._returned_then.items()))

    def cover(self, request: ScoreRequest, expected: Expected, prepared: Prepared | None = None) -> None:
        """Count what `request` exercised in this channel's coverage (its features: `prepared`'s, computed once and
        kept with the example's inputs)."""
        statistics = None if expected.rejected else expected.statistics
        if prepared is None:
            self.coverage.add(request, statistics)
            return
        if prepared.features is None:
            prepared.features, prepared.fresh = tuple(sorted(features(request, statistics, self.shared))), True
        self.coverage.add_features(prepared.features)

    def before(self) -> Before:
        """What the process had answered before the reply `collect` read last (a `Before`; taken before anything
        else is sent: a shrink's requests come after)."""
        kept = tuple(self.history)
        earlier = kept[:-1] if self.last_kept else kept
        own = self.kept_total - (1 if self.last_kept else 0) - self.unit_start
        return Before(earlier, self.halvings_before, own=max(0, min(own, len(earlier))),
                      first=self.first if self.process_requests > 1 else None, returned=self.returned_before)

    def start_unit(self) -> None:
        """A case or a random example (with its companions) begins: what the process answers from here on is this
        unit's own history (`before`)."""
        self.unit_start = self.kept_total
        self.shared.clear()
