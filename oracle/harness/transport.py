"""Driving an implementation process over protocol v1.

One `ImplementationProcess` owns one child process at a time: it starts it,
performs the handshake, sends score requests one by one and reads each reply
with a timeout, restarts the process after a crash or a timeout (a bounded
number of times), and stops it. It never raises for anything the child does:
every request ends in a `Reply` whose `kind` says what happened.

- stdout is read line by line on a background thread into a queue, so a
  request can time out without blocking the runner;
- stderr is read on another background thread into a buffer (bounded, head
  and tail kept), so a chatty implementation never fills the pipe and
  deadlocks; what arrived during a request is attached to its reply (the two
  pipes are not ordered with each other, so stderr written just before a
  reply may land with the next request; after a crash the reader is joined,
  so the traceback stays with the crash);
- the child runs in its own session (process group), so a timeout kills
  whatever it spawned too, and (Linux) is killed by the kernel if the runner
  dies without stopping it (`oracle.adapters.lifetimes.die_with_parent`);
- whether a dead child is started again is its `RestartBudget`'s decision
  (`--max-restarts`), charged by example, so that `check --jobs` workers can
  share one;
- a line that is not JSON, a reply with the wrong seq, or a malformed reply is
  a `protocol-error` reply, never an exception in the runner; when a garbage
  line came instead of a reply, that reply is "owed", and if it turns up late
  it is discarded (with a note) rather than taken as the next request's answer;
  any other extra line on stdout makes the next request a protocol error.

Everything read comes back typed: the handshake as an `oracle.models.protocol.Handshake`, each
reply's parsed line as a `ScoreReply` (`Reply.parsed`). `Transport` states the interface a session
drives, which `oracle.harness.inprocess.InProcessImplementation` (an adapter in this process) has too.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, Protocol, runtime_checkable

from oracle.adapters.lifetimes import die_with_parent, kill_group
from oracle.formulas.errors import BleuOracleError, os_reason
from oracle.models.protocol import (
    PROTOCOL_VERSION,
    Handshake,
    ProtocolError,
    ScoreReply,
    decode,
    encode,
    plain_score_reply,
)
from oracle.models.wire import Line, PiecedLine

from .budget import DEFAULT_SHRINK_FIRST as DEFAULT_SHRINK_FIRST
from .budget import NONDETERMINISTIC_KIND as NONDETERMINISTIC_KIND
from .budget import SHRINK_BLOCK as SHRINK_BLOCK
from .budget import (
    Cause,
    block_causes,
    full_search_allowed,
    resend_waived,
    search_tokens_left,
    shrink_allowed,
    shrink_hints,
)
from .budget import failure_kind as failure_kind
from .budget import nondeterministic_before as nondeterministic_before
from .replies import Reply

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_RESTARTS = 3
STDERR_LIMIT = 64 * 1024
#: How long the output of a process found gone before the start request is waited for (seconds): its pipe is
#: closed, so the reader meets the end of it at once; this only bounds a reader thread still being scheduled.
GONE_OUTPUT_WAIT = 1.0
#: The longest stdout line read from an implementation (bytes); a longer one is a protocol error.
DEFAULT_LINE_LIMIT = 16 * 1024 * 1024
#: How much of a raw line or a reply's message a record keeps (characters).
KEPT_TEXT_LIMIT = 4000

_EOF = object()


@dataclass(frozen=True)
class _Pending:
    """A request sent and not yet collected: its seq, when it was sent, and stdout lines that came before it."""

    seq: object
    start: float
    stale: list[bytes | _TooLong]


@dataclass(frozen=True)
class _TooLong:
    """Stands in the queue for a stdout line longer than the line limit (its bytes were dropped)."""

    size: int
    head: bytes


def bounded(text: str | None, limit: int = KEPT_TEXT_LIMIT) -> str | None:
    """`text` cut to `limit` characters, saying how much was left out."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more characters not kept]"


def given_up_message(max_restarts: int) -> str:
    """What a request the runner no longer sends is recorded with, once the restart budget is spent."""
    return (f"not attempted: the implementation was restarted {max_restarts} time(s) "
            f"(the limit, --max-restarts) and failed again")


class RestartBudget:
    """`--max-restarts` N for one process alone: after each of the implementation's first N deaths (a
    crash, a timeout, a restart whose handshake failed) it is started again, after the (N+1)-th it is
    not, and every later request is recorded as not attempted. A death is charged when it happens, to
    the input being judged, so the same inputs spend the budget the same way however they are split
    between processes: `check --jobs` workers share the parent's (`oracle.harness.worker.SharedBudget`),
    which hears when each example starts and ends. The shrink allowance (`shrink_allowed`), the searches
    among every explanation (`full_search_allowed`), the token computations the searches for failures not shrunk
    spend (`search_tokens_left`) and the requests not sent again (`resend_waived`) are charged by example the same
    way (`oracle.harness.budget`)."""

    def __init__(self, max_restarts: int, shrink_first: int = DEFAULT_SHRINK_FIRST) -> None:
        self.max_restarts = int(max_restarts)
        self.shrink_first = int(shrink_first)
        self.deaths = 0
        #: the example being judged (-1: none, a case)
        self.example = -1
        #: failures judged so far in this process, example index -> their kinds (`failure_kind`)
        self.failures: dict[int, list[tuple]] = {}
        #: the kind of the failure last asked about
        self.deciding: tuple = ()
        #: the root causes named for the shrunk failures (the name, then the others that fit), (index, kind) -> their
        #: parts (`budget.Cause`)
        self.causes: dict[tuple[int, tuple], tuple[Cause, ...]] = {}
        #: failures not shrunk that were searched among every explanation, example index -> their kinds
        self.searched: dict[int, list[tuple]] = {}
        #: the token computations the searches for failures not shrunk spent less those they earned, example index
        #: -> (kind, net token computations) for each such failure (`search_tokens_left`)
        self.charged: dict[int, list[tuple[tuple, int]]] = {}

    def died(self) -> None:
        self.deaths += 1

    def may_restart(self) -> bool:
        return self.deaths <= self.max_restarts

    def may_shrink(self, kind: tuple) -> tuple[bool, tuple[Cause, ...]]:
        """The example being judged failed in `kind`: may it be shrunk (`shrink_allowed`), and if not, which
        root causes of its kind's shrunk examples to test first (`shrink_hints`)?"""
        allowed = shrink_allowed(self.example, kind, self.failures, self.shrink_first)
        hints = () if allowed else shrink_hints(self.example, kind, self.failures, self.causes)
        self.failures.setdefault(self.example, []).append(kind)
        self.deciding = kind
        return allowed, hints

    def may_search_all(self, kind: tuple) -> bool:
        """A failure of the example being judged, of `kind`, not shrunk, that its kind's shrunk failures' root causes
        do not explain: may it be searched among every explanation (`full_search_allowed`)? Charged when it may."""
        allowed = full_search_allowed(self.example, kind, self.searched, self.shrink_first)
        if allowed:
            self.searched.setdefault(self.example, []).append(kind)
        return allowed

    def searched_named(self, kind: tuple, names: tuple[Cause, ...]) -> None:
        """A failure of `kind` of the example being judged, searched among every explanation (`may_search_all`), was
        given these root causes: hints for its kind's later failures in the block, after those already there (a bug
        that takes two names is then searched in full once per block, not once per record)."""
        key = (self.example, kind)
        self.causes[key] = tuple(dict.fromkeys((*self.causes.get(key, ()), *names)))

    def block_causes(self, kind: tuple) -> tuple[Cause, ...]:
        """The root causes named for failures of other kinds than `kind` in the block before the example being
        judged (`block_causes`): what a failure of `kind` whose search was cut or not run is tested against."""
        return block_causes(self.example, kind, self.causes)

    def search_tokens(self, kind: tuple) -> int:
        """The token computations the searches for a failure of the example being judged, of `kind`, not shrunk, may
        spend before what it earns (`search_tokens_left`), less what its own example's earlier failures of the kind
        spent beyond what they earned."""
        return search_tokens_left(self.example, kind, self.charged) - self._charged_here(kind)

    def _charged_here(self, kind: tuple) -> int:
        return sum(tokens for charged_kind, tokens in self.charged.get(self.example, ()) if charged_kind == kind)

    def searches_charged(self, kind: tuple, net: int) -> None:
        """The searches for a failure of the example being judged, of `kind`, not shrunk, spent `net` token
        computations beyond what it earned (negative: less)."""
        self.charged.setdefault(self.example, []).append((kind, int(net)))

    def waives_resend(self, kind: tuple) -> bool:
        """Is a failure of the example being judged, of `kind`, reported without its request sent once more
        (`resend_waived`: its kind was answered alike when sent again earlier in the block)?"""
        return resend_waived(self.example, kind, self.failures, self.shrink_first)

    def classified(self, names: tuple[Cause, ...]) -> None:
        """The failure just shrunk was given these root causes (the name, then every other that fits): hints for
        its kind's later failures."""
        self.causes[(self.example, self.deciding)] = names

    def example_started(self, index: int) -> None:
        """Example `index` of the search is being judged (its requests, shrinking and relation)."""
        self.example = index

    def example_finished(self, index: int) -> None:
        """Example `index` is judged: no request of it is sent any more."""

    def warn(self, text: str) -> None:
        """Say `text` to the user as a warning line on stderr (a `check --jobs` worker's budget says it to its
        parent, which says it for the run: `oracle.harness.worker.SharedBudget`)."""
        print(f"bleu-oracle: warning: {text}", file=sys.stderr, flush=True)


class HandshakeError(BleuOracleError, RuntimeError):
    """The implementation could not be driven: it did not start, or its handshake is missing or invalid."""

    def __init__(self, message: str, *, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr




def parse_line(raw: bytes | str) -> Any:
    """Decode one stdout line into a JSON object (`oracle.models.protocol.decode`); raises ProtocolError with a
    reason."""
    return decode(raw.rstrip(b"\r\n") if isinstance(raw, bytes) else raw.rstrip("\r\n"))


def validate_handshake(reply: Any) -> Handshake:
    """The handshake object checked strictly, as a `Handshake`; HandshakeError says what is wrong."""
    if not isinstance(reply, dict):
        raise HandshakeError(f"the handshake must be a JSON object (got {reply!r:.200})")
    if "error" in reply and "protocol" not in reply:
        raise HandshakeError(f"the implementation answered the handshake with an error: {reply.get('error')!r:.300}")
    version = reply.get("protocol")
    if version != PROTOCOL_VERSION:
        raise HandshakeError(
            f"the implementation speaks protocol {version!r}; this runner speaks protocol {PROTOCOL_VERSION}"
        )
    try:
        return Handshake.from_json(reply)
    except ProtocolError as exc:
        raise HandshakeError(f"invalid handshake: {exc}") from None


def parse_reply(reply: Any, seq: object) -> tuple[ScoreReply | None, str | None]:
    """(the reply object, None) if `reply` is a well-formed answer to request `seq`; else (the reply
    object if it is a valid one to another request, why it is no answer to this one)."""
    try:
        parsed = ScoreReply.from_json(reply)
    except ProtocolError as exc:
        return None, f"malformed reply: {exc}"
    if parsed.seq is None:  # allowed only for an error reply to a command whose seq could not be read
        return parsed, f"the reply has no seq (sent {seq}): {parsed.error!r:.200}"
    if parsed.seq != seq:
        return parsed, f"wrong seq: sent {seq}, the reply has {parsed.seq}"
    return parsed, None


def validate_reply(reply: Any, seq: object) -> str | None:
    """None if `reply` is a well-formed answer to request `seq` (`oracle.models.protocol.ScoreReply`), else why not."""
    return parse_reply(reply, seq)[1]


def reply_from_line(line: bytes, seq: object, *, stderr: str = "", duration: float = 0.0,
                    notes: Iterable[str] = ()) -> Reply:
    """What one stdout line (bytes) means as the answer to request `seq`: a score, rejected, unsupported or
    error Reply, or a protocol-error Reply saying why the line is not a valid answer. Never raises."""
    raw = bounded(line.decode("utf-8", "replace").rstrip("\r\n"))
    kept = list(notes)
    plain = plain_score_reply(line)  # a plain score reply, read in one step (None: read strictly below)
    if plain is not None and plain.seq == seq and seq is not None:
        return Reply("score", parsed=plain, raw=raw, stderr=stderr, duration=duration, notes=kept)
    try:
        obj = parse_line(line)
    except ProtocolError as exc:
        return Reply("protocol-error", message=str(exc), raw=raw, stderr=stderr, duration=duration, notes=kept)
    parsed, problem = parse_reply(obj, seq)
    if problem or parsed is None:
        return Reply("protocol-error", parsed=parsed, message=problem or "", raw=raw, stderr=stderr,
                     duration=duration, notes=kept)
    kind = parsed.outcome
    message = ""
    if kind != "score":
        message = bounded(getattr(parsed, kind)) or ""
        parsed = parsed.model_copy(update={kind: message})  # a 10 MB error message is not kept whole
    return Reply(kind, parsed=parsed, message=message, raw=raw, stderr=stderr, duration=duration, notes=kept)


def _seq_of(line: bytes) -> object:
    """The seq a stdout line carries, if it is a JSON object with one (None otherwise)."""
    try:
        obj = parse_line(line)
    except ProtocolError:
        return None
    return obj.get("seq") if isinstance(obj, dict) else None


@runtime_checkable
class Transport(Protocol):
    """What a session drives an implementation through: `ImplementationProcess` (a process speaking
    protocol v1) or `oracle.harness.inprocess.InProcessImplementation` (an adapter in this process).
    `submit` sends a score command and returns a token that `collect` turns into its Reply, so that the
    runner can work while the implementation computes; `request` is the two at once."""

    #: the handshake read by `start` (None before)
    handshake: Handshake | None
    #: how many times the implementation was started again after a crash or a timeout
    restarts: int
    #: why no further request is attempted (the restart budget is spent), else None
    given_up: str | None

    def start(self) -> Handshake: ...

    def submit(self, command: dict[str, Any], line: Line | None = None) -> object: ...

    def collect(self, pending: Any) -> Reply: ...

    def request(self, command: dict[str, Any]) -> Reply: ...

    def take_stderr(self) -> str: ...

    def stop(self) -> None: ...


class _StderrBuffer:
    """Bytes read from the child's stderr since the last `take`, bounded (head and tail kept)."""

    def __init__(self, limit: int = STDERR_LIMIT) -> None:
        self.limit = limit
        self.lock = threading.Lock()
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        with self.lock:
            half = self.limit // 2
            if len(self.head) < half:
                room = half - len(self.head)
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail += chunk
                if len(self.tail) > half:
                    self.dropped += len(self.tail) - half
                    del self.tail[: len(self.tail) - half]

    def take(self) -> str:
        with self.lock:
            text = self.head.decode("utf-8", "replace")
            if self.dropped:
                text += f"\n[... {self.dropped} bytes of stderr not kept ...]\n"
            text += self.tail.decode("utf-8", "replace")
            self.head, self.tail, self.dropped = bytearray(), bytearray(), 0
            return text


def _not_started(argv: Sequence[str], exc: OSError) -> str:
    """Why `argv` could not be started, in words, and what to try: a program not found is not on PATH (or mistyped);
    a file found but not executable (a script without its execute bit) is run through its interpreter instead."""
    program = argv[0] if argv else ""
    said = f"could not start `{program}` ({os_reason(exc)})"
    if isinstance(exc, FileNotFoundError):
        return f"{said}: is it installed and on PATH? Give its path, or check its spelling"
    if isinstance(exc, PermissionError):
        return (f"{said}: a script without its execute bit? Run it through its interpreter (`python3 {program}`, "
                f"`node {program}`), or `chmod +x {program}`")
    return said


#: Why a process answers no `start` in time, most often (PROTOCOL.md, "Transport"): said with the refusal.
NO_HANDSHAKE_CAUSES = ("the runner sends `start` and waits for its answer before sending anything more: a program "
                       "that reads all of its input before answering (stdin.read(), readlines(), a pipe through "
                       "sort), or does not flush stdout after each line, waits forever; --timeout gives a slow start "
                       "more time")


class ImplementationProcess:
    """An implementation behind protocol v1: `start()`, then `request(obj)` any number of times, then `stop()`."""

    def __init__(self, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                 max_restarts: int = DEFAULT_MAX_RESTARTS, cwd: str | None = None, env: dict[str, str] | None = None,
                 stderr_limit: int = STDERR_LIMIT, line_limit: int = DEFAULT_LINE_LIMIT,
                 budget: RestartBudget | None = None, capture_stderr: bool = True,
                 stderr_log: str | os.PathLike[str] | None = None) -> None:
        self.argv = list(argv)
        self.timeout = float(timeout)
        self.max_restarts = int(max_restarts)
        #: decides whether a dead process is started again (`RestartBudget`)
        self.budget = budget if budget is not None else RestartBudget(self.max_restarts)
        self._death_charged = False
        self.cwd, self.env = cwd, env
        self.line_limit = int(line_limit)
        #: False: the child's stderr is this process's (not kept with the replies): a report column's
        #: driver, whose chatter (TensorFlow's start-up lines, with their clock readings) the report's
        #: deterministic records must not hold
        self.capture_stderr = capture_stderr
        #: where an uncaptured stderr goes instead of this process's own (appended to, across restarts): a
        #: report column's driver writes its library's tracebacks there, not over the report's progress lines
        self.stderr_log = None if stderr_log is None else os.fspath(stderr_log)
        self.restarts = 0
        self.handshake: Handshake | None = None
        self.given_up: str | None = None  # the reason no further request is attempted
        self._proc: subprocess.Popen[bytes] | None = None
        #: the stdout lines the reader thread took, with when it took them: a `queue.SimpleQueue` (in C), whose put and
        #: get hand a reply from the reader thread to the runner in about half the CPU of a `queue.Queue` (Python
        #: code over a lock and two conditions), once per request
        self._lines: queue.SimpleQueue[tuple[float, Any]] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._stderr = _StderrBuffer(stderr_limit)
        self._needs_restart = False
        self._restart_failure: str | None = None
        self._owed: set[object] = set()  # seqs whose reply never came (a garbage line came instead)
        self._notes: list[str] = []

    # -- process lifetime -------------------------------------------------------

    def _popen(self) -> subprocess.Popen[bytes]:
        """The implementation's process: stdin and stdout piped, stderr piped, or (not captured) appended to
        `stderr_log` or left this process's own."""
        log = None
        try:
            if not self.capture_stderr and self.stderr_log is not None:
                log = open(self.stderr_log, "ab")  # noqa: SIM115 - the child holds its own copy; closed below
            return subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if self.capture_stderr else log,
                cwd=self.cwd, env=self.env, start_new_session=True,
                preexec_fn=die_with_parent(signal.SIGKILL),  # a SIGKILLed runner leaves no implementation behind
            )
        except OSError as exc:
            raise HandshakeError(_not_started(self.argv, exc)) from None
        finally:
            if log is not None:
                log.close()

    def _spawn(self) -> None:
        proc = self._popen()
        lines: queue.SimpleQueue[tuple[float, Any]] = queue.SimpleQueue()
        limit = self.line_limit
        stdout: IO[bytes] = proc.stdout  # type: ignore[assignment]  # (a pipe: asked for above)

        def read_stdout() -> None:
            # Buffered reads, one line at a time, never more than the line limit in memory.
            try:
                while True:
                    line = stdout.readline(limit + 1)
                    if not line:
                        break
                    if len(line) > limit and not line.endswith(b"\n"):
                        size, head = len(line), line[:200]
                        while not line.endswith(b"\n"):  # drop the rest of the line
                            line = stdout.readline(1 << 20)
                            if not line:
                                break
                            size += len(line)
                        lines.put((time.perf_counter(), _TooLong(size, head)))
                        continue
                    lines.put((time.perf_counter(), line))  # when it came: a reply collected later keeps its duration
            except (OSError, ValueError):
                pass
            lines.put((time.perf_counter(), _EOF))

        def read_stderr(stderr: IO[bytes]) -> None:
            try:
                while True:
                    chunk = stderr.read1(65536) if hasattr(stderr, "read1") else os.read(stderr.fileno(), 65536)
                    if not chunk:
                        break
                    self._stderr.add(chunk)
            except (OSError, ValueError):
                pass

        self._threads = [threading.Thread(target=read_stdout, daemon=True, name="impl-stdout")]
        if proc.stderr is not None:
            self._threads.append(threading.Thread(target=read_stderr, args=(proc.stderr,), daemon=True,
                                                  name="impl-stderr"))
        for thread in self._threads:
            thread.start()
        self._proc, self._lines = proc, lines
        self._needs_restart = False
        self._death_charged = False

    def start(self) -> Handshake:
        """Start the process and perform the handshake; returns it.

        Raises HandshakeError when the process does not start, exits, stays
        silent for `timeout` seconds, or answers with an invalid handshake or
        another protocol version.
        """
        self._spawn()
        try:
            handshake = self._handshake()
        except HandshakeError as exc:
            self._kill()
            exc.stderr = self._stderr.take()
            raise
        self.handshake = handshake
        return handshake

    def _handshake(self) -> Handshake:
        sent = self._send({"cmd": "start", "protocol": PROTOCOL_VERSION})
        # A process gone before the start request (`cat FILE`, a script printing its usage) may have printed a line:
        # it is judged as the handshake, so the error shows what came instead of one.
        item = self._get(self.timeout if sent else GONE_OUTPUT_WAIT)[1]
        if item is None or (item is _EOF and not sent):
            raise HandshakeError(f"no handshake within {self.timeout:g} s ({NO_HANDSHAKE_CAUSES})" if sent else
                                 f"the process exited before the handshake ({self._exit_status()})")
        if item is _EOF:
            raise HandshakeError(f"the process exited without a handshake ({self._exit_status()})")
        try:
            reply = parse_line(item)
        except ProtocolError as exc:
            raise HandshakeError(f"invalid handshake: {exc}") from None
        return validate_handshake(reply)

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self._needs_restart

    def _kill(self) -> None:
        """Kill the implementation's whole process group: whatever it spawned dies with it, also when
        the leader has already exited (its group lives on while any member does)."""
        proc = self._proc
        if proc is None:
            return
        kill_group(proc)
        self._close_pipes(proc)
        self._needs_restart = True

    def _close_pipes(self, proc: subprocess.Popen[bytes]) -> None:
        for thread in self._threads:
            thread.join(timeout=1.0)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass

    def _exit_status(self) -> str:
        proc = self._proc
        if proc is None:
            return "not started"
        try:
            code = proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit status {code}"

    def _restart(self) -> bool:
        """Replace a dead or hung process. False (and `given_up` set) once the budget is spent."""
        if self.given_up:
            return False
        if not self.budget.may_restart():
            self.given_up = given_up_message(self.max_restarts)
            return False
        self.restarts += 1
        self._kill()
        try:
            self._spawn()
            handshake = self._handshake()
        except HandshakeError as exc:
            self._kill()
            self._died()
            self._restart_failure = f"restart {self.restarts} failed: {exc}"
            return False
        self.handshake = self.handshake or handshake
        return True

    def _died(self) -> None:
        """Charge the current process's death to the restart budget, once however it is noticed."""
        if not self._death_charged:
            self._death_charged = True
            self.budget.died()

    def stop(self) -> None:
        """Ask the process to stop, then make sure it has (SIGKILL to its group after 2 s)."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None and not self._needs_restart:
            self._send({"cmd": "stop"})
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                pass
        self._kill()
        self._proc = None

    def take_stderr(self) -> str:
        return self._stderr.take()

    # -- requests ------------------------------------------------------------------

    def _send(self, obj: dict[str, Any], line: Line | None = None) -> bool:
        line = line if line is not None else encode(obj).encode("utf-8") + b"\n"
        stdin = self._proc.stdin if self._proc is not None else None
        if stdin is None:
            return False
        try:
            for piece in line.pieces() if isinstance(line, PiecedLine) else (line,):
                stdin.write(piece)
            stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def _get(self, timeout: float) -> tuple[float, Any]:
        """(arrival time, stdout line / _TooLong / _EOF), or (now, None) after `timeout` seconds."""
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return time.perf_counter(), None

    def _drain(self) -> list[bytes | _TooLong]:
        stale: list[bytes | _TooLong] = []
        while True:
            try:
                arrival, item = self._lines.get_nowait()
            except queue.Empty:
                return stale
            if item is _EOF:
                self._lines.put((arrival, _EOF))
                return stale
            stale.append(item)

    def _late_reply(self, line: bytes | _TooLong) -> bool:
        """True if `line` is a reply to an earlier request that never got its own (owed), which is
        then discarded: after a garbage line the real reply may still come, one request late."""
        if not isinstance(line, bytes) or not self._owed:  # a line past the length limit; nothing owed
            return False
        try:
            obj = parse_line(line)
        except ProtocolError:
            return False
        if isinstance(obj, dict) and obj.get("seq") in self._owed and not isinstance(obj.get("seq"), bool):
            self._owed.discard(obj["seq"])
            self._notes.append(f"discarded a late reply to seq {obj['seq']}")
            return True
        return False

    def request(self, obj: dict[str, Any]) -> Reply:
        """Send one score command (a dict with "seq") and return the Reply. Never raises for the child's behaviour."""
        return self.collect(self.submit(obj))

    def submit(self, obj: dict[str, Any], line: Line | None = None) -> _Pending | Reply:
        """Send one score command and return at once: a pending request for `collect`, which the
        runner calls after its own work on the same input (the implementation computes meanwhile).
        One request is in flight at a time, so a crash or a timeout is still that request's. `line`: the
        command's protocol line, encoded already (then `obj` need only hold its seq)."""
        seq = obj.get("seq")
        if self.given_up:
            return Reply("crash", message=self.given_up)
        self._restart_failure = None
        self._notes = []
        if not self.alive():
            self._died()  # (a process that exited after its last reply is noticed only here)
            if not self._restart():
                message = self.given_up or self._restart_failure or "the implementation could not be restarted"
                return Reply("crash", message=message, stderr=self._stderr.take())
            self._owed.clear()
        stale = [line for line in self._drain() if not self._late_reply(line)]
        start = time.perf_counter()
        if not self._send(obj, line):
            return self._crashed(start, "the process exited before the request could be written")
        return _Pending(seq, start, stale)

    def collect(self, pending: _Pending | Reply) -> Reply:
        """The Reply to a `submit`ted request: waits for it until `timeout` seconds after it was sent.
        Its duration runs to when the reader thread took the line (late by at most the interpreter's
        thread switch interval, 5 ms, while the runner computes)."""
        if isinstance(pending, Reply):  # it never went out
            return pending
        seq, start, stale = pending.seq, pending.start, pending.stale
        while True:
            arrival, item = self._get(max(self.timeout - (time.perf_counter() - start), 0.001))
            if item is None or item is _EOF or not self._late_reply(item):
                break
        duration = arrival - start
        notes = list(self._notes)
        if item is None:
            self._kill()
            self._died()
            return Reply("timeout", message=f"no reply within {self.timeout:g} s (the process was killed)",
                         stderr=self._stderr.take(), duration=duration, notes=notes)
        if item is _EOF:
            return self._crashed(start, "the process exited without replying")
        if isinstance(item, _TooLong):
            self._owed.add(seq)
            return Reply("protocol-error", message=f"a stdout line of {item.size} bytes exceeds the line limit "
                         f"({self.line_limit} bytes): not read", raw=bounded(item.head.decode("utf-8", "replace")),
                         stderr=self._stderr.take(), duration=duration, notes=notes)
        reply = reply_from_line(item, seq, stderr=self._stderr.take(), duration=duration, notes=notes)
        if reply.kind == "protocol-error" and (reply.parsed.seq if reply.parsed else _seq_of(item)) != seq:
            self._owed.add(seq)  # its real reply may still come
        if stale and reply.kind != "protocol-error":
            shown = "; ".join(f"[a line of {s.size} bytes]" if isinstance(s, _TooLong)
                              else s.decode("utf-8", "replace").rstrip()[:100] for s in stale[:3])
            return Reply(
                "protocol-error",
                parsed=reply.parsed,
                raw=reply.raw,
                stderr=reply.stderr,
                duration=duration,
                notes=notes,
                message=f"{len(stale)} unexpected line(s) on stdout after the previous reply: {shown}",
            )
        return reply

    def _crashed(self, start: float, what: str) -> Reply:
        status = self._exit_status()
        for thread in self._threads:  # let the stderr reader collect the traceback
            thread.join(timeout=1.0)
        duration = time.perf_counter() - start
        self._needs_restart = True
        self._died()
        return Reply("crash", message=f"{what} ({status})", stderr=self._stderr.take(), duration=duration)

    def __enter__(self) -> ImplementationProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
