"""The venv driver's libraries (drivers/venv_bleu.py): one module a library, named after its registry entry's
`driver_library` with `-` as `_` (`keras-hub` is keras_hub.py), whose `scorer(settings)` imports the library and
returns its scoring function of one command; and here, what those modules share.

A library module runs inside the library's own virtual environment, where bleu-oracle is not installed, and under
every Python `bleu-oracle history` uses (3.6 for an nltk before 3.4): the standard library only, imported
relatively from this package (the driver loads it by path, under a name of its own), `typing`'s generics and type
comments, no annotations import. A module whose name starts with `_` is no library (what two libraries share).

A library module also declares, at module level and as plain data, what bleu-oracle needs to know of it (the
registry, `oracle.adapters.registry`, imports every module here and reads them; nothing else names the library):
`ENVIRONMENT` (`environment(...)`: its pinned pip steps, an import that must run, its distribution) and
`IMPLEMENTATIONS` (`implementation(...)` each: the `--impl` name, profile, capabilities, smoothing table,
preload). The implementation named after the module owns the environment; any other the module declares runs in
it (compare-mt-sentence in compare-mt's). Importing a module is safe anywhere: its library is imported by
`scorer()` only. A module without `IMPLEMENTATIONS` is a library only `bleu-oracle history` drives (nltk,
sacrebleu, torchmetrics: their declarations are their in-process adapters').

A scorer answers a score, or (a score, its statistics or None); it raises `Refused` for a request the library
refuses, anything else being the request's error. SETTINGS is what the adapter passes on: its smoothing table
(`settings["smoothing"]`, read by `library_arguments`) and any switch of its own (sacrebleu-mojo's `native`).
"""

import json
import string
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

#: A command as decoded from its JSON line, and a library's scoring function of one.
Command = Dict[str, Any]
#: A library's answer: its score, or (its score, its statistics or None).
Answer = Union[float, Tuple[float, Optional[Dict[str, Any]]]]
Scorer = Callable[[Command], Answer]
#: A batch of segments as the library takes them: (hypothesis, references) joined by spaces.
Batch = List[Tuple[str, List[str]]]


#: Every character `str.split()` splits on (U+001C..U+001F, U+0085, U+00A0, U+3000 among them): stated here, where
#: the driver's modules can read it, and re-exported by `oracle.adapters.base`. Written out, not found by testing
#: every character up to U+3000 with `str.isspace()` in each process (about 3 ms of CPU in every serve, check and
#: worker process); tests/adapters/test_drivers.py holds it equal to that test over all of Unicode.
SPLIT_CHARACTERS = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
#: The limits of a library that takes text and splits it with `str.split()`: the tokens are joined with spaces, so a
#: token holding a split character, or an empty one, would not come back as one token. Declared, so the search sends
#: only tokens that survive the trip.
TEXT_LIMITS = {"forbidden_token_characters": SPLIT_CHARACTERS, "empty_tokens": False}
#: Tokens that survive a text tokenizer's trip (13a's, the Treebank one's) unchanged: no split character, no ASCII
#: punctuation (both split punctuation off), none empty.
PLAIN_WORDS = {"forbidden_token_characters": SPLIT_CHARACTERS + string.punctuation, "empty_tokens": False}


def environment(steps: Sequence[Sequence[str]], check: str, distribution: str, directory: str = "",
                seed: str = "") -> Dict[str, Any]:
    """A library's virtual environment, as the registry makes its `VenvSpec` (`oracle.adapters.preparations`):
    `steps`, pip calls in order, every requirement pinned; `check`, a Python statement that must run once it is
    installed; `distribution`, the one holding the BLEU code (its files are verified before each use, and its
    pinned version is the implementation's); `directory`, the name it is kept under when several modules share one
    (the TensorFlow family's, opik's), else the module's; `seed`, a driver script run after the pip steps."""
    return {"steps": [list(step) for step in steps], "check": check, "distribution": distribution,
            "directory": directory, "seed": seed}


def smoothing_row(method: str, setting: Any, passes: Optional[Dict[str, str]] = None,
                  fixed: Optional[Dict[str, float]] = None) -> List[Any]:
    """One row of a smoothing table, `oracle.adapters.base.SmoothingRow`'s fields: the oracle's method, the
    library's setting, the parameters it takes from the request (the oracle's name -> its argument), and those it
    fixes (the oracle's name -> the one value it has)."""
    return [method, setting, dict(passes or {}), dict(fixed or {})]


def smoothing_table(offers: str, *rows: List[Any]) -> Dict[str, Any]:
    """A library's smoothing table (`oracle.adapters.base.SmoothingTable`): what it offers, said in a refusal, and its
    `smoothing_row`s, a request's smoothing being the first row it matches."""
    return {"offers": offers, "rows": list(rows)}


def implementation(name: str, profile: str, capabilities: Dict[str, Any], smoothing: Optional[Dict[str, Any]] = None,
                   settings: Optional[Dict[str, Any]] = None, preload: bool = False,
                   documented_as: str = "") -> Dict[str, Any]:
    """One implementation this module scores, as the registry and its declaration (`oracle.adapters.venv_adapters`)
    read it: its `--impl` NAME; the `profile` it follows; its `capabilities`, as `oracle.adapters.base.
    declare_capabilities`' arguments (what differs from the common case; `smoothing` defaults to the methods of the
    table's rows that fix no parameter); its `smoothing` table (`smoothing_table`), passed to the driver in SETTINGS;
    any other `settings` the scorer reads (sacrebleu-mojo's `native`); `preload`, for a library whose import can
    outlast a request's timeout and calls no `signal` (the driver loads it from the start); `documented_as`, the
    name its curated discrepancies are filed under when another's."""
    return {"name": name, "profile": profile, "capabilities": dict(capabilities), "smoothing": smoothing,
            "settings": dict(settings or {}), "preload": preload, "documented_as": documented_as}


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


#: The tensor2tensor lineage's capabilities (tensor2tensor.py, tf_models_official.py): compute_bleu takes one reference
#: a segment, exp smoothing always on, any max_order; text through bleu_tokenize (mteval-v14's international
#: tokenization, its docstring says) as bleu_wrapper(..., case_sensitive=True) does: compute_bleu itself has no case
#: folding, so none is declared
LINEAGE_CAPABILITIES = dict(weights="uniform", max_order=12, smoothing=["exp"], tokenizers=["intl"], max_references=1,
                            **TEXT_LIMITS)


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
