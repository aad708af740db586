"""The venv driver's libraries (drivers/venv_bleu.py): one module a library, named after its registry entry's
`driver_library` with `-` as `_` (`keras-hub` is keras_hub.py), whose `scorer(settings)` imports the library and
returns its scoring function of one command; and here, what those modules share.

A library module runs inside the library's own virtual environment, where bleu-oracle is not installed, and under
every Python `bleu-oracle history` uses (3.6 for an nltk before 3.4): the standard library only, imported
relatively from this package (the driver loads it by path, under a name of its own), `typing`'s generics and type
comments, no annotations import. A module whose name starts with `_` is no library (what two libraries share).

A scorer answers a score, or (a score, its statistics or None); it raises `Refused` for a request the library
refuses, anything else being the request's error. SETTINGS is what the adapter passes on: its smoothing table
(`settings["smoothing"]`, read by `library_arguments`) and any switch of its own (sacrebleu-mojo's `native`).
"""

import json
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

#: A command as decoded from its JSON line, and a library's scoring function of one.
Command = Dict[str, Any]
#: A library's answer: its score, or (its score, its statistics or None).
Answer = Union[float, Tuple[float, Optional[Dict[str, Any]]]]
Scorer = Callable[[Command], Answer]
#: A batch of segments as the library takes them: (hypothesis, references) joined by spaces.
Batch = List[Tuple[str, List[str]]]


class Refused(Exception):
    """The library refuses this request: `kind` ("rejected" or "unsupported") and why."""

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind = kind


class Life:
    """A library's metric life cycle: a fresh state for a command, an update with a batch of segments, the
    result, and (when the library has them) reset and merge; each returns the state (metrax's are values).
    A plain class, not a dataclass: this driver also runs under Python 3.6 (`bleu-oracle history`)."""

    def __init__(self, new: Callable[[Command], Any], update: Callable[[Any, Batch], Any],
                 result: Callable[[Any], Answer], reset: Optional[Callable[[Any], Any]] = None,
                 merge: Optional[Callable[[Any, Any], Any]] = None) -> None:
        self.new, self.update, self.result, self.reset, self.merge = new, update, result, reset, merge


def planned(life: Life) -> Scorer:
    """A command scored through `life` as its `stateful` plan says (PROTOCOL.md, "Stateful implementations"): one
    state per shard, previous corpora scored and reset, batches updated, shards merged in the plan's order. A
    command without a plan is one state taking the corpus in one update."""

    def score(command: Command) -> Answer:
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


def _scored_and_reset(life: Life, state: Any, corpus: Batch) -> Any:
    """A previous corpus through `state`, one update per segment, then its result (not judged) and a reset."""
    for segment in corpus:
        state = life.update(state, [segment])
    try:
        life.result(state)
    except Exception:  # noqa: BLE001, S110 - its value, or its refusal, is not what is judged
        pass
    return life.reset(state) if life.reset else state


def library_arguments(command: Command, settings: Dict[str, Any]) -> Tuple[Any, Dict[str, float]]:
    """(the library's smoothing setting, {its argument: the request's value}) from the adapter's smoothing
    table passed in SETTINGS (`settings["smoothing"]`: the oracle's method -> [setting, {parameter: argument}])."""
    smoothing = command["smoothing"]
    row = settings["smoothing"].get(smoothing["method"])
    if row is None:
        raise Refused("unsupported", f"no smoothing {show(smoothing['method'])} here")
    setting, passes = row
    return setting, {argument: float(smoothing[name]) for name, argument in passes.items() if name in smoothing}


def text_segments(command: Command) -> List[Tuple[str, List[str]]]:
    """[(hypothesis, [reference, ...])] as strings: tokens joined by single spaces, raw text as it is."""
    def text(value: Union[str, List[str]]) -> str:
        return value if isinstance(value, str) else " ".join(value)

    return [(text(s["hypothesis"]), [text(r) for r in s["references"]]) for s in command["segments"]]


def show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def count(value: Any) -> Union[int, float]:
    """A library's count as an int when it is whole (a fractional one stays a float, for the runner to name)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def sacrebleu_statistics(result: Any) -> Dict[str, Any]:
    """A sacrebleu-shaped BLEUScore's statistics (sacrebleu's, and sacrebleu-mojo's, which mirrors its attributes)."""
    return {"hyp_len": int(result.sys_len), "ref_len": int(result.ref_len),
            "matches": [count(x) for x in result.counts], "totals": [count(x) for x in result.totals],
            "bp": float(result.bp)}


def tokenized_pairs(command: Command, tokenize: Callable[[str], List[str]]) -> Tuple[List[Any], List[Any]]:
    """(references, hypotheses) as the tensor2tensor lineage's compute_bleu takes them: one token list each (the
    capabilities allow one reference a segment). Token requests as sent; a text request's strings through the
    library's own `bleu_tokenize`, as its `bleu_wrapper(..., case_sensitive=True)` does (the capabilities
    declare no case folding: compute_bleu has none)."""
    segments = command["segments"]
    if any(len(s["references"]) != 1 for s in segments):
        raise Refused("unsupported", "compute_bleu takes exactly one reference a segment")
    if command.get("tokenize") is None:
        return [s["references"][0] for s in segments], [s["hypothesis"] for s in segments]
    return [tokenize(s["references"][0]) for s in segments], [tokenize(s["hypothesis"]) for s in segments]


def lineage_scorer(module: Any) -> Scorer:
    """The tensor2tensor lineage's `module.compute_bleu(reference_corpus, translation_corpus, max_order)` (its
    smoothing always on, its float32 result), a text request's strings through `module.bleu_tokenize` first."""

    def score(command: Command) -> Answer:
        references, hypotheses = tokenized_pairs(command, module.bleu_tokenize)
        return float(module.compute_bleu(references, hypotheses, max_order=len(command["weights"])))

    return score
