"""keras-hub's and metrax's BLEU as protocol-v1 implementation processes (PROTOCOL.md), by themselves.

Run by the library's own virtual environment (oracle/adapters/venv_adapters.py says which), with the
standard library and the library only: bleu-oracle is not installed there. The runner starts it directly
(`check --impl keras-hub`: one process, one protocol):

    VENV/bin/python venv_bleu.py keras-hub|metrax HANDSHAKE

HANDSHAKE is the JSON handshake it answers `start` with: the adapter's declaration, whose capabilities
also decide what it refuses (`refusal`: a request outside them is unsupported, as the adapters said
before; sentence level with other than one segment is rejected). Then one reply line per command:
`{"seq", "score"}` (a finite number or "NaN"), `{"seq", "unsupported" | "rejected" | "error"}` (an
exception of the library: its type and message, the traceback on stderr), `{"error": "protocol error:
..."}` for a line that is no command (with its seq when one could be read); `stop` or the end of input
ends it. Segments go to the library as strings: the tokens joined by single spaces (the capabilities
forbid whitespace in tokens and empty tokens, so the library's split gives them back), a text request's
raw text as it is for keras-hub's own 13a tokenizer.

Only protocol lines reach stdout: file descriptor 1 is pointed at stderr before the library loads (it
is imported on the first score, so the handshake never waits for TensorFlow).
"""

from __future__ import annotations

import json
import math
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

#: A command as decoded from its JSON line, and a library's scoring function of one.
Command = dict[str, Any]
Scorer = Callable[[Command], float]

#: The longest command line read (bytes), as the runner's own line limit.
LINE_LIMIT = 16 * 1024 * 1024
PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class Life:
    """A library's metric life cycle: a fresh state for a command, an update with a batch of segments, the
    result, and (when the library has them) reset and merge; each returns the state (metrax's are values)."""

    new: Callable[[Command], Any]
    update: Callable[[Any, list[tuple[str, list[str]]]], Any]
    result: Callable[[Any], float]
    reset: Callable[[Any], Any] | None = None
    merge: Callable[[Any, Any], Any] | None = None


def planned(life: Life) -> Scorer:
    """A command scored through `life` as its `stateful` plan says (PROTOCOL.md, "Stateful implementations"): one
    state per shard, previous corpora scored and reset, batches updated, shards merged in the plan's order. A
    command without a plan is one state taking the corpus in one update."""

    def score(command: Command) -> float:
        segments = text_segments(command)
        plan = command.get("stateful") or {"shards": [[len(segments)]]}
        states, at = [], 0
        for batches in plan["shards"]:
            state = life.new(command)
            for corpus in plan.get("previous", []):
                state = _scored_and_reset(life, state, text_segments({"segments": corpus}))
            for size in batches:
                state = life.update(state, segments[at:at + size])
                at += size
            states.append(state)
        order = plan.get("merge") or [0]
        merged = states[order[0]]
        for index in order[1:]:
            merged = life.merge(merged, states[index]) if life.merge else merged
        return life.result(merged)

    return score


def _scored_and_reset(life: Life, state: Any, corpus: list[tuple[str, list[str]]]) -> Any:
    """A previous corpus through `state`, one update per segment, then its result (not judged) and a reset."""
    for segment in corpus:
        state = life.update(state, [segment])
    try:
        life.result(state)
    except Exception:  # noqa: BLE001, S110 - its value, or its refusal, is not what is judged
        pass
    return life.reset(state) if life.reset else state


def keras_hub() -> Scorer:
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from keras_hub.src.metrics.bleu import Bleu

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    def split_on_spaces(inputs: Any) -> Any:  # the tokens as sent: joined by single spaces, none holding whitespace
        return tf.strings.split(inputs)

    def new(command: Command) -> Any:
        tokenizer = None if command.get("tokenize") == "13a" else split_on_spaces
        return Bleu(tokenizer=tokenizer, max_order=len(command["weights"]),
                    smooth=command["smoothing"]["method"] != "none")

    def update(metric: Any, segments: list[tuple[str, list[str]]]) -> Any:
        references = tf.ragged.constant([references for _, references in segments])
        metric.update_state(references, tf.constant([hypothesis for hypothesis, _ in segments]))
        return metric

    def reset(metric: Any) -> Any:
        metric.reset_state()
        return metric

    return planned(Life(new=new, update=update, result=lambda metric: float(metric.result()), reset=reset))


def metrax() -> Scorer:
    import metrax as library

    def batch_metric(max_order: int, segments: list[tuple[str, list[str]]]) -> Any:
        return library.BLEU.from_model_output(predictions=[hypothesis for hypothesis, _ in segments],
                                              references=[references for _, references in segments],
                                              max_order=max_order)

    def update(state: Any, segments: list[tuple[str, list[str]]]) -> Any:
        # a state is the max_order until its first batch, then the metric so far; metrax accumulates as its
        # clu-style metrics do, the batch's own metric merged into it
        if isinstance(state, int):
            return batch_metric(state, segments)
        return state.merge(batch_metric(state.max_order, segments))

    return planned(Life(new=lambda command: len(command["weights"]), update=update,
                        result=lambda state: float(state.compute()), merge=lambda state, other: state.merge(other)))


LIBRARIES: dict[str, Callable[[], Scorer]] = {"keras-hub": keras_hub, "metrax": metrax}


def text_segments(command: Command) -> list[tuple[str, list[str]]]:
    """[(hypothesis, [reference, ...])] as strings: tokens joined by single spaces, raw text as it is."""
    def text(value: str | list[str]) -> str:
        return value if isinstance(value, str) else " ".join(value)

    return [(text(s["hypothesis"]), [text(r) for r in s["references"]]) for s in command["segments"]]


def show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def is_uniform(weights: list[Any]) -> bool:
    """Equal weights 1/N each, up to float rounding of 1/N (as oracle.adapters.base.is_uniform)."""
    n = len(weights)
    return all(isinstance(w, (int, float)) and not isinstance(w, bool) and abs(w - 1.0 / n) <= 1e-15 for w in weights)


def refusal(name: str, capabilities: dict[str, Any], command: Command) -> tuple[str, str] | None:
    """(kind, why) when the declared capabilities do not cover `command`, else None."""
    levels, level = capabilities["levels"], command["level"]
    if level not in levels:
        return "unsupported", f"{name} scores at {' and '.join(levels)} level only (got {show(level)})"
    weights = command["weights"]
    n = len(weights)
    if n > capabilities["max_order"]:
        return "unsupported", f"{name} takes at most {capabilities['max_order']} orders (got {n} weights)"
    if n not in capabilities.get("orders", [n]):
        return "unsupported", f"{name} takes {show(capabilities['orders'])} orders only (got {n} weights)"
    if capabilities["weights"] == "uniform" and not is_uniform(weights):
        return "unsupported", f"{name} weighs every order 1/N (got weights {show(weights)})"
    methods, method = capabilities["smoothing"], command["smoothing"]["method"]
    if method not in methods:
        return "unsupported", f"{name} smooths with {show(methods)} only (got {show(method)})"
    if command.get("lowercase") and not capabilities["lowercase"]:
        return "unsupported", f"{name} does not fold case"
    tokenize = command.get("tokenize")
    if tokenize is not None and tokenize not in capabilities.get("tokenizers", []):
        tokenizers = show(capabilities.get("tokenizers", []))
        return "unsupported", f"{name} tokenizes with {tokenizers} only (got {show(tokenize)})"
    most = capabilities.get("max_references")
    counts = [len(s["references"]) for s in command["segments"]]
    if most is not None and any(count > most for count in counts):
        return "unsupported", f"{name} takes at most {most} reference(s) a segment (got {max(counts)})"
    if level == "sentence" and len(command["segments"]) != 1:
        return "rejected", f"sentence level takes exactly one segment (got {len(command['segments'])})"
    return _plan_refusal(name, capabilities, command.get("stateful"))


def _plan_refusal(name: str, capabilities: dict[str, Any], plan: Any) -> tuple[str, str] | None:
    """("unsupported", why) for a stateful plan needing an ability the handshake did not declare, else None."""
    if plan is None:
        return None
    shards = plan.get("shards", [])
    needs = {"accumulate": any(len(batches) > 1 for batches in shards), "merge": len(shards) > 1,
             "reset": bool(plan.get("previous"))}
    declared = capabilities.get("stateful", [])
    missing = [ability for ability, needed in needs.items() if needed and ability not in declared]
    if not declared or missing:
        return "unsupported", f"{name} cannot run a stateful plan" + (
            f" that needs {', '.join(missing)}" if missing else "")
    return None


def scored(value: float) -> dict[str, Any]:
    """A library's number as the reply's outcome: the score, NaN as "NaN", an infinity an error."""
    if math.isnan(value):
        return {"score": "NaN"}
    if math.isinf(value):
        return {"error": f"the library answered {value!r}: protocol v1 takes a finite number or \"NaN\""}
    return {"score": value}


class Driver:
    """One library behind protocol v1: `answer(line)` -> (the reply, or None; whether to stop)."""

    def __init__(self, library: str, handshake: dict[str, Any]) -> None:
        self.library, self.handshake = library, handshake
        self.name = handshake["implementation"]["name"]
        self._score: Scorer | None = None  # the library's scoring function, loaded on the first score

    def answer(self, line: str) -> tuple[dict[str, Any] | None, bool]:
        try:
            command = json.loads(line)
        except ValueError as exc:
            return {"error": f"protocol error: the line is not JSON ({exc})"}, False
        if not isinstance(command, dict):
            return {"error": f"protocol error: a command must be a JSON object (got {show(command)[:200]})"}, False
        seq = command.get("seq")
        seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        cmd = command.get("cmd")
        if cmd == "stop":
            return None, True
        if cmd == "start":
            if command.get("protocol") != PROTOCOL_VERSION:
                return {"error": f"unsupported protocol version {show(command.get('protocol'))}: this implementation "
                                 f"speaks protocol {PROTOCOL_VERSION}"}, False
            return self.handshake, False
        if cmd != "score":
            reply = {"error": f'protocol error: `cmd` must be one of "start", "score", "stop" (got {show(cmd)})'}
        elif seq is None:
            reply = {"error": "protocol error: `seq` must be an integer"}
        else:
            reply = self.score(command)
        return ({"seq": seq, **reply} if seq is not None else reply), False

    def score(self, command: Command) -> dict[str, Any]:
        try:
            refused = refusal(self.name, self.handshake["capabilities"], command)
            if refused is not None:
                return {refused[0]: refused[1]}
            if self._score is None:
                self._score = LIBRARIES[self.library]()
            return scored(float(self._score(command)))
        except Exception as exc:  # noqa: BLE001 - every failure of the library is this request's error
            traceback.print_exc(file=sys.stderr)
            return {"error": f"{type(exc).__name__}: {exc}"}


def protocol_channel() -> IO[str]:
    """A private copy of file descriptor 1 for the protocol lines; fd 1 itself (print, and whatever a
    compiled library writes there) goes to stderr."""
    channel = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in LIBRARIES:
        sys.stderr.write(f"usage: venv_bleu.py {'|'.join(LIBRARIES)} HANDSHAKE\n")
        return 2
    driver = Driver(argv[1], json.loads(argv[2]))
    out = protocol_channel()
    stdin = sys.stdin.buffer
    reply: dict[str, Any] | None
    while True:
        line = stdin.readline(LINE_LIMIT + 1)
        if not line:
            return 0
        if len(line) > LINE_LIMIT and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stdin.readline(1 << 20)  # the rest of the line is not read as a command
            reply, stop = {"error": f"protocol error: a command line longer than {LINE_LIMIT} bytes"}, False
        elif not line.strip():
            continue
        else:
            reply, stop = driver.answer(line.decode("utf-8", "replace"))
        if stop:
            return 0
        try:
            out.write(json.dumps(reply, ensure_ascii=True, allow_nan=False) + "\n")
            out.flush()
        except BrokenPipeError:  # the runner has gone: nobody is left to answer
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
