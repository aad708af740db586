"""The protocol-v1 server: turns an in-process implementation (an adapter) into a process
that speaks the protocol on stdin/stdout (`bleu-oracle serve`).

    serve(implementation, stdin, stdout) -> exit code

Behaviour (PROTOCOL.md states it for every implementation; this is how ours does it):

- One reply line per command line, in order, flushed at once; `stop` gets no reply.
  Blank lines are skipped without a reply.
- `start` is answered by the implementation's handshake (validated first: a handshake
  that breaks the protocol becomes an error reply). A start asking for another protocol
  version is answered `{"error": "unsupported protocol version N ..."}` and the server
  keeps serving: the runner reports the protocol error and sends `stop`, the server
  never dies on the runner under a pipe it is still writing to.
- `score` calls `implementation.score(request)`: `Rejected` -> rejected; `Unsupported` ->
  unsupported; `BleuValueError`/`BleuTypeError` (the input failed the implementation's
  validation) -> rejected; any other exception -> error naming its type, and also any
  BaseException except SystemExit/KeyboardInterrupt (a Rust panic from a native library
  is a BaseException). The traceback goes to stderr.
- A line that is not a protocol command -> `{"error": "protocol error: ..."}`, with the
  command's `seq` when one could be read, and the server keeps serving.
- A score answer that breaks the protocol (bad statistics, an infinite score) -> error.
- `stop` -> return 0; end of input -> return 0.
- Nothing but protocol lines reaches `stdout`: while serving, `sys.stdout` points at
  stderr, so library chatter (print, warnings) lands there. `bleu-oracle serve` also
  moves file descriptor 1 to stderr for output written below Python.

`score` before `start` is answered as usual: the runner always starts first, a
person typing commands by hand need not.
"""

from __future__ import annotations

import contextlib
import io
import math
import operator
import sys

from oracle.formulas.bounds import MAX_COUNT, MAX_ORDER
from oracle.models.protocol import (
    PROTOCOL_VERSION,
    Handshake,
    ProtocolError,
    ScoreReply,
    ScoreRequest,
    StartCommand,
    StopCommand,
    decode,
    encode,
    parse_command,
)

from .base import ScoreAnswer, call
from .tracebacks import print_traceback

#: The longest command line read (bytes): as long as the runner's own line limit.
LINE_LIMIT = 16 * 1024 * 1024


def serve(implementation, stdin=None, stdout=None):
    """Answer protocol-v1 commands read from `stdin` on `stdout` until stop or end of input.

    `stdin` yields lines (str or UTF-8 bytes); `stdout` is a text or binary stream.
    Returns the exit code (0)."""
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    write = _line_writer(stdout)
    with contextlib.redirect_stdout(sys.stderr):
        try:
            while True:
                line = stdin.readline(LINE_LIMIT + 1)
                if not line:
                    return 0
                if len(line) > LINE_LIMIT and not line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
                    while line and not line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
                        line = stdin.readline(1 << 20)  # drop the rest of the line
                    write({"error": f"protocol error: a command line longer than {LINE_LIMIT} bytes"})
                    continue
                if line.isspace():  # a blank line (as `not line.strip()`, without copying a long line)
                    continue
                reply, stop = handle_line(implementation, line)
                if reply is not None:
                    write(reply)
                if stop:
                    return 0
        except BrokenPipeError:  # the runner has gone: nobody is left to answer
            return 0


def _line_writer(stream):
    binary = isinstance(stream, (io.RawIOBase, io.BufferedIOBase)) or "b" in str(getattr(stream, "mode", ""))

    def write(reply):
        text = encode(reply) + "\n"
        stream.write(text.encode("ascii") if binary else text)
        stream.flush()

    return write


def handle_line(implementation, line, *, log=None):
    """One command line -> (reply dict or None, stop?). Never raises for bad input. Tracebacks go to
    `log` (default: stderr)."""
    log = sys.stderr if log is None else log
    seq = None
    try:
        obj = decode(line)
        if isinstance(obj.get("seq"), int) and not isinstance(obj.get("seq"), bool):
            seq = obj["seq"]
        command = parse_command(obj)
    except ProtocolError as exc:
        return _error(seq, f"protocol error: {exc}"), False
    try:
        if isinstance(command, StopCommand):
            return None, True
        if isinstance(command, StartCommand):
            return _start(implementation, command, log), False
        return score_reply(implementation, command, log), False
    except Exception as exc:  # a bug in this server: still answer, keep serving
        print_traceback(log)
        return _error(seq, f"internal error in the protocol server: {type(exc).__name__}: {exc}"), False


def _error(seq, message):
    return {"error": message} if seq is None else {"seq": seq, "error": message}


def _start(implementation, command: StartCommand, log):
    if command.protocol != PROTOCOL_VERSION:
        return {
            "error": f"unsupported protocol version {command.protocol}: this implementation speaks protocol "
                     f"{PROTOCOL_VERSION}"
        }
    try:
        handshake = implementation.handshake()
    except Exception as exc:
        print_traceback(log)
        return {"error": f"the implementation failed to describe itself: {type(exc).__name__}: {exc}"}
    try:
        return Handshake.from_json(handshake).to_json()
    except ProtocolError as exc:
        return {"error": f"the implementation's handshake breaks protocol v1: {exc}"}


def score_reply(implementation, command: ScoreRequest, log=None):
    """Ask the implementation to score one command; the reply as a JSON-ready dict."""
    seq = command.seq
    kind, answer = call(implementation, command, log=sys.stderr if log is None else log)
    if kind != "score":
        return {"seq": seq, kind: answer}
    try:
        reply = _answer_to_json(seq, answer)
        return _plain_reply(reply) or ScoreReply.from_json(reply).to_json()
    except (ProtocolError, TypeError, ValueError, OverflowError) as exc:
        return {"seq": seq, "error": f"the implementation's answer breaks protocol v1: {exc}"}


#: The fields a reply's statistics must carry, and the one they may leave out.
_COUNT_FIELDS = frozenset(("hyp_len", "ref_len", "matches", "totals"))
_OPTIONAL_FIELDS = frozenset(("bp",))
_INFINITIES = (math.inf, -math.inf)


def _plain_reply(reply):
    """The wire form of a score reply whose every value is plainly valid (a float score, statistics of ints
    within the bounds and a float bp: what every library adapter returns), built without the ScoreReply model,
    as its `from_json(reply).to_json()` writes it; None for anything else, which the model then checks and
    names. Only a reply this function can see is valid takes this path, so no check of the model is skipped."""
    score = reply["score"]
    if type(score) is not float or score in _INFINITIES:
        return None
    plain = {"seq": reply["seq"], "score": "NaN" if math.isnan(score) else score}
    statistics = reply.get("statistics")
    if statistics is None:
        return plain if len(reply) == 2 else None
    if len(reply) != 3 or type(statistics) is not dict or not _plain_statistics(statistics):
        return None
    written = {"hyp_len": statistics["hyp_len"], "ref_len": statistics["ref_len"],
               "matches": list(statistics["matches"]), "totals": list(statistics["totals"])}
    bp = statistics.get("bp")
    if bp is not None:
        written["bp"] = "NaN" if math.isnan(bp) else bp
    plain["statistics"] = written
    return plain



def _plain_statistics(statistics):
    """Whether `statistics` are what `Statistics` accepts without a doubt: its fields only (bp optional), counts
    that are ints from 0 to MAX_COUNT, at most MAX_ORDER of each, and a float bp that is not infinite."""
    if statistics.keys() - _OPTIONAL_FIELDS != _COUNT_FIELDS:
        return False
    counts = [statistics["hyp_len"], statistics["ref_len"]]
    for name in ("matches", "totals"):
        sequence = statistics[name]
        if type(sequence) not in (list, tuple) or len(sequence) > MAX_ORDER:
            return False
        counts.extend(sequence)
    if not all(type(count) is int and 0 <= count <= MAX_COUNT for count in counts):
        return False
    bp = statistics.get("bp")
    return bp is None or (type(bp) is float and bp not in _INFINITIES)


def _answer_to_json(seq, answer):
    """An adapter's ScoreAnswer as a reply object, with numbers made plain (numpy ints,
    Decimals and Fractions are welcome from adapters; the wire has ints and floats)."""
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = ScoreAnswer(answer)
    if not isinstance(answer, ScoreAnswer):
        raise ProtocolError(f"`score` must return a ScoreAnswer (got {type(answer).__name__})")
    reply = {"seq": seq, "score": _plain_number(answer.score)}
    if answer.statistics is not None:
        stats = dict(answer.statistics)
        for name in ("hyp_len", "ref_len"):
            if name in stats:
                stats[name] = _plain_int(stats[name])
        for name in ("matches", "totals"):
            if name in stats and not isinstance(stats[name], (str, dict)):
                stats[name] = [_plain_int(x) for x in stats[name]]
        if stats.get("bp") is not None:
            stats["bp"] = _plain_number(stats["bp"])
        else:
            stats.pop("bp", None)
        reply["statistics"] = stats
    return reply


def _plain_number(value):
    if isinstance(value, str) or isinstance(value, bool):
        return value
    number = float(value)
    return math.nan if math.isnan(number) else number


def _plain_int(value):
    if isinstance(value, bool):
        return value
    try:
        return operator.index(value)
    except TypeError:
        return value  # left for validation to name
