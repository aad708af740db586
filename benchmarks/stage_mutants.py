"""Machine-made mutants of an independent BLEU, by stage and operator (issue 36, stage-mutants: a measure).

    .venv/bin/python benchmarks/stage_mutants.py --list              # every mutant: ID, stage, operator, selected
    .venv/bin/python benchmarks/stage_mutants.py --selected          # the pre-registered subset, in run order
    .venv/bin/python benchmarks/stage_mutants.py --run OUT.jsonl     # check each selected mutant (appends; resumes)
    .venv/bin/python benchmarks/stage_mutants.py --run OUT.jsonl --only ID ...
    .venv/bin/python benchmarks/stage_mutants.py --equivalent ID ... # the in-process comparison with the clean code
    .venv/bin/python benchmarks/stage_mutants.py --summary OUT.jsonl # the counts and the two tables
    .venv/bin/python benchmarks/stage_mutants.py --fake stagedbleu2 ... # set B: the second BLEU's mutants (below)

`tests/fakes/stagedbleu.py` is a BLEU written as one function per stage of docs/stages.md; `--mutant ID` there
serves the fake with the one mechanical mutation ID names (operator, stage function, line, column, variant). Here
each selected mutant runs through `bleu-oracle check --command ... --no-cases` with the defaults (seed 0), behind
benchmarks/attribution.py's `run_check_timed` (the cost split), alternately with the clean twin (`stagedbleu.py
clean`), a timeout of 300 s each; the run's main cause (attribution.py's `main_cause`) is judged by `FIT_RULES`,
written before any run (the pre-registration commit says so) and never edited after: it fits the stage, states what
is known (a partial name of the right layer), names an error by its trigger, names another stage, or there is no
cause. A mutant `check` does not catch (exit 0) is compared in process with the clean code on `EQUIVALENCE_REQUESTS`
random requests (`equivalence`): identical answers on all = equivalent (left out of the denominators), else missed,
with the first input that differs. Nothing here asserts: the figures are for people (benchmarks/README.md,
"Machine-made mutants of an independent BLEU, by stage and operator").

`--fake stagedbleu2` (stage-mutants2, set B): the same operators, engine, selection rule, fit rule and run on
`tests/fakes/stagedbleu2.py`, a second independent BLEU shaped differently, whose stage functions carry the same
names and stage numbers (`RULE_OF` maps each to the set-A function whose `FIT_RULES` entry judges it); its random
requests for the equivalence add the four smoothing methods only it serves. Without `--fake`, everything is set A's,
unchanged (benchmarks/README.md, "A second set of machine-made mutants, of a second BLEU, pre-registered").
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import shlex
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fakes" / "stagedbleu.py"
#: the fakes whose mutants this script runs: set A (the default) and set B (stage-mutants2)
FAKES = ("stagedbleu", "stagedbleu2")
TIMEOUT = 300.0


def fake_path(name: str = "stagedbleu") -> Path:
    return ROOT / "tests" / "fakes" / f"{name}.py"


def fake_module(name: str = "stagedbleu") -> ModuleType:
    """tests/fakes/<name>.py as a module (the fakes are scripts, not a package)."""
    path = fake_path(name)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def attribution_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("attribution", ROOT / "benchmarks" / "attribution.py")
    if spec is None or spec.loader is None:
        raise RuntimeError("cannot load benchmarks/attribution.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("attribution", module)
    spec.loader.exec_module(module)
    return module


# == the pre-registration: the subset run and the fit rule (written before any run; never edited after) ============

#: At most this many mutants per (stage function, operator) cell, evenly spaced in source order (the first, the
#: last and the middle one): 166 mutants exist, 114 are selected, every cell represented. No seed: the choice is
#: the source order's.
PER_CELL = 3


def selected(all_mutants: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The pre-registered subset, in run order: per (function, operator) cell at most `PER_CELL`, evenly spaced
    (index i * (n - 1) // (PER_CELL - 1)); then taken round-robin over the stage functions in source order, so that
    a run cut short is still spread over the stages."""
    cells: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
    for mutant in all_mutants:
        cells[(mutant[0].split(":")[1], mutant[2])].append(mutant)
    chosen: set[str] = set()
    for members in cells.values():
        n = len(members)
        picks = range(n) if n <= PER_CELL else sorted({i * (n - 1) // (PER_CELL - 1) for i in range(PER_CELL)})
        chosen.update(members[i][0] for i in picks)
    by_function: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for mutant in all_mutants:
        if mutant[0] in chosen:
            by_function[mutant[0].split(":")[1]].append(mutant)
    order: list[tuple[str, str, str]] = []
    queues = list(by_function.values())
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


#: The names a cause may have that name nothing but what is known where no explanation reproduces the answer
#: (`oracle/diagnose/mechanisms/combination.py` PARTIAL_NAMES, WHAT_IS_KNOWN): a partial name of the score stage
WHAT_IS_KNOWN = ("other-combination", "other-weighting-of-precisions", "other-brevity-penalty", "other-scale-of-score")
#: the partial name of the counting layers (`mechanisms/counting.py` OTHER_COUNTING + the layer)
OTHER_COUNTING = ("other-counting-of-*",)
#: an error named by its trigger (`mechanisms/errors.py`): the input that raises, no stage
ERROR_NAMES = ("error-when-*", "crash-when-*", "timeout-when-*", "crash-after-*", "timeout-after-*",
               "crash-no-input-feature", "timeout-no-input-feature")

_ORDER_LOOP = ("highest-order-left-out", "unigram-precision-left-out", "orders-shifted-up", "order-fixed-at-4",
               "orders-beyond-4-left-out", "empty_order=*")
_TOKENS_CUT = ("first-token-only-in-*", "last-token-only-in-*", "first-token-dropped-in-*", "last-token-dropped-in-*",
               "tokens-reversed-in-*", "tokens-joined-into-one-in-*", "truncated-to-*", "references-truncated-to-*",
               "hypotheses-truncated-to-*")
_CLIPPING = ("unclipped-matches", "clipped-to-reference-sum", "best-single-reference-clipping", "strict-clipping",
             "first-reference-only", "last-reference-only", "first-reference-dropped", "last-reference-dropped",
             "recall-instead-of-precision", "matches-credited-with-reference-counts", "ngrams-counted-as-sets",
             "reference-unk-never-matches", "object-member-unigrams-never-match", "unigrams-always-match",
             "ngrams-equal-when-proportional", "precision-fractions-normalised")
_LENGTHS = ("reference_length=*", "reference-length-is-the-distance", "reference-length-of-first-reference",
            "reference-length-of-last-reference", "closest-reference-to-running-hypothesis-length",
            "lengths-counted-in-characters", "hypothesis-length-counted-in-characters",
            "reference-length-counted-in-characters", "hypothesis-and-references-swapped", "first-reference-only",
            "last-reference-only", "special-token-on-*", "end-token-on-*", "start-token-on-*",
            "empty-reference-one-token", "empty-sentence-end-token", "empty-text-one-token", "segment_totals_floor=*",
            "no-brevity-penalty")
_SEGMENTS = ("last-segment-dropped", "first-segment-dropped", "hypothesis-length-of-first-segment-only",
             "hypothesis-length-of-last-segment-only", "reference-length-of-first-segment-only",
             "reference-length-of-last-segment-only", "corpus-cut-to-first-segment", "corpus-cut-to-last-segment",
             "first-segment-score-reported", "last-segment-score-reported", "mean-of-sentence-scores",
             "mean-of-sentence-bleu", "precisions-averaged-over-segments", "brevity-penalty-averaged-over-segments",
             "mean-of-scores-of-batches-of-*", "hypotheses-paired-with-*", "empty-hypotheses-dropped",
             "segments-with-empty-text-dropped", "empty-reference-batch-uncounted", "references-pooled-across-segments",
             "segments-joined-into-one", "corpus-padded-to-a-multiple-of-*", "precision-fractions-normalised",
             "hypotheses-in-reverse-order", "references-transposed")
_PRECISION = ("precisions-integer-division", "precisions-over-hypothesis-length", "matches-as-precisions",
              "precision-inverted", "unigram-precision-only", "highest-order-precision-only",
              "smoothed-value-as-precision", "statistics-report-smoothed-counts", "recall-instead-of-precision")
_ZERO_ORDERS = ("empty_order=*", "no_match=*", "both_empty=*", "any-order-unmatched-zero", "no-match-zero",
                "zero-precision-dropped", "zero-precision-orders-skipped", "tiny-instead-of-zero",
                "epsilon-instead-of-zero", "epsilon-for-every-zero-or-empty-order", "coco-epsilon",
                "both-empty-smoothed", "empty-hypothesis-scores-one", "ratio-zero-when-r-zero", "zero-weight-nan")
_SMOOTHING = ("smoothing=*", "chen-cherry-*", "smoothing-counter-from-zero", "smoothing-counter-is-order-index",
              "smoothed-value-as-precision", "epsilon-added-to-every-order", "add-one-every-order-epsilon-for-empty",
              "smoothing-per-segment-summed", "mean-of-exp-smoothed-sentence-bleu", "smoothing-parameter-ignored",
              "add-k-*", "statistics-report-smoothed-counts", "tiny-instead-of-zero", "epsilon-instead-of-zero")
_WEIGHTS = ("weights-not-passed-on", "order-fixed-at-4", "weights=*", "small-weights-taken-as-zero",
            "orders-beyond-4-left-out", "unigram-precision-only", "highest-order-precision-only", "weights-shifted",
            "orders-shifted-up", "highest-order-left-out", "unigram-precision-left-out", "weight-and-precision-swapped",
            "zero-weight-nan")
_MEAN = ("arithmetic-mean-of-precisions", "weighted-sum-of-precisions", "product-of-precisions", "exp-left-out",
         "log-score-reported", "geometric-mean-root-fixed-at-4", "individual-bleu-scores-averaged-over-four",
         "unigram-precision-only", "highest-order-precision-only", "highest-order-left-out",
         "unigram-precision-left-out", "weight-and-precision-swapped", "precision-inverted", "weights-shifted",
         "orders-shifted-up")
_BREVITY = ("no-brevity-penalty", "brevity-penalty-*", "length-ratio-as-brevity-penalty", "length-ratio-floored",
            "ratio-zero-when-r-zero", "reference_length=*")
_SCALE = ("percent-scale", "percent-scale-*", "score-truncated-to-whole-percent", "printed-4-decimals",
          "no-brevity-penalty", "brevity-penalty-applied-twice")

#: Per stage function: (the names that fit its stage, the partial names that state its layer). A cause fits when
#: one of its `+`-joined parts matches a fit (a trailing `*` matches any rest); judged from docs/stages.md's cells,
#: docs/mechanisms.md and oracle/diagnose/mechanisms/ before any run. The counting stages' partial name is
#: `other-counting-of-<layer>`; the score stages' the WHAT_IS_KNOWN names. `stage_segment` holds the orders loop
#: (docs/stages.md puts an order not extracted in stage 2's "term left out") and the call of the length rule;
#: `stage_scale` multiplies the penalty by the mean (stage 11's "term left out" is `no-brevity-penalty`).
FIT_RULES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stage_fold": (("case-not-folded", "case-folded-unasked", "case-folded-hypothesis-only",
                    "case-folded-references-only", "case_fold=*", "fold_stage=*"), OTHER_COUNTING),
    "stage_ngrams": (("last-ngram-dropped", "totals-one-short", "ngrams-counted-as-sets", "order-read-from-spaces",
                      "ngram-keys-*", "ngram-counts-wrapped-*", "unigrams-always-match",
                      "ngrams-equal-when-proportional", *_ORDER_LOOP, *_TOKENS_CUT), OTHER_COUNTING),
    "stage_clip": (_CLIPPING, OTHER_COUNTING),
    "stage_segment": ((*_LENGTHS, *_ORDER_LOOP, *_CLIPPING, "last-ngram-dropped", "totals-one-short"), OTHER_COUNTING),
    "stage_closest_ref_length": (_LENGTHS, OTHER_COUNTING),
    "stage_corpus": (_SEGMENTS, OTHER_COUNTING),
    "stage_empty": ((*_ZERO_ORDERS, "empty-text-one-token"), WHAT_IS_KNOWN),
    "stage_smoothing": (_SMOOTHING, WHAT_IS_KNOWN),
    "stage_weights": (_WEIGHTS, WHAT_IS_KNOWN),
    "stage_zero_orders": (_ZERO_ORDERS, WHAT_IS_KNOWN),
    "stage_precision": (_PRECISION, WHAT_IS_KNOWN),
    "stage_mean": (_MEAN, WHAT_IS_KNOWN),
    "stage_brevity_penalty": (_BREVITY, WHAT_IS_KNOWN),
    "stage_scale": (_SCALE, WHAT_IS_KNOWN),
}

#: Set B (stage-mutants2; pre-registered with its list, before any run of its mutants, never edited after): the rule
#: that judges each of tests/fakes/stagedbleu2.py's stage functions is set A's for the function of the same stage
#: number and name (docs/stages.md's numbering; both fakes name their stage functions alike), so that both sets are
#: judged by the same lists of names, neither widened nor narrowed. In set B, `stage_empty` is the c = 0 rule (score
#: 0, NaN when r = 0 too) as in set A; `stage_zero_orders` rewrites an order without n-grams to precision 0 (set A's
#: also zeroed an unmatched order; set B's mean, a product of powers, is 0 there by itself); `stage_segment` holds the
#: orders loop and the call of the length rule, `stage_scale` the product BP x mean, as in set A.
RULE_OF: dict[str, dict[str, str]] = {
    "stagedbleu": {function: function for function in FIT_RULES},
    "stagedbleu2": {"stage_fold": "stage_fold", "stage_ngrams": "stage_ngrams", "stage_clip": "stage_clip",
                    "stage_segment": "stage_segment", "stage_closest_ref_length": "stage_closest_ref_length",
                    "stage_corpus": "stage_corpus", "stage_precision": "stage_precision", "stage_empty": "stage_empty",
                    "stage_zero_orders": "stage_zero_orders", "stage_smoothing": "stage_smoothing",
                    "stage_weights": "stage_weights", "stage_mean": "stage_mean",
                    "stage_brevity_penalty": "stage_brevity_penalty", "stage_scale": "stage_scale"},
}

VERDICTS = ("fits", "known", "error", "other-stage", "none")
#: what each verdict says (the tables' columns)
VERDICT_WORDS = {
    "fits": "fits the stage (a mechanism of the mutated stage)",
    "known": "states what is known (a partial name of the mutated stage's layer)",
    "error": "an error named by its trigger (no stage named)",
    "other-stage": "names another stage (a mechanism, or a partial name of the other layer)",
    "none": "no cause (caught, nothing named, or `unexplained`)",
}


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in patterns)


def verdict(cause: str | None, function: str, fake: str = "stagedbleu") -> str:
    """The pre-registered verdict of a run's main cause on a mutant of `function` (a stage function of `fake`)."""
    if not cause or cause == "unexplained":
        return "none"
    fit, partial = FIT_RULES[RULE_OF[fake][function]]
    parts = [part.strip() for part in cause.split(" + ")]
    if any(_matches(part, fit) for part in parts):
        return "fits"
    if any(_matches(part, partial) for part in parts):
        return "known"
    if all(_matches(part, ERROR_NAMES) for part in parts):
        return "error"
    return "other-stage"


#: NOT part of the pre-registration (added after the blind run, 20:31 UTC, and reported beside it, never in its
#: place): a main cause that is a bare outcome kind (every failing record of the run an `error` reply, or a reply the
#: runner cannot use, with no trigger found) names no stage at all, yet `verdict` counts it as another stage, since
#: the rule lists no such name. `post_hoc_verdict` reads it as an error named without its trigger ("error").
BARE_OUTCOMES = ("error", "protocol-error", "crash", "timeout")


def post_hoc_verdict(cause: str | None, function: str, fake: str = "stagedbleu") -> str:
    """`verdict`, with a bare outcome kind read as an error (`BARE_OUTCOMES`: a reading made after the run)."""
    if cause in BARE_OUTCOMES:
        return "error"
    return verdict(cause, function, fake)


# == equivalence: the mutant against the clean code, in process ====================================================

EQUIVALENCE_REQUESTS = 3000
_VOCABULARY = ("a", "b", "c", "d", "A", "B", "the", "The")
_SMOOTHINGS = ({"method": "none"}, {"method": "floor", "value": 0.1}, {"method": "floor", "value": 0.5},
               {"method": "add-k", "k": 1.0}, {"method": "add-k", "k": 0.5}, {"method": "exp"},
               {"method": "chen-cherry-4", "k": 5.0}, {"method": "chen-cherry-4", "k": 2.0})
#: set B's fake serves four methods more: its random requests draw from both tuples (set A's stay as they were)
_MORE_SMOOTHINGS = {"stagedbleu": (), "stagedbleu2": (
    {"method": "chen-cherry-1", "epsilon": 0.1}, {"method": "chen-cherry-1", "epsilon": 0.5},
    {"method": "chen-cherry-2"}, {"method": "chen-cherry-3"}, {"method": "lin-2004"})}


def _tokens(rng: random.Random) -> list[str]:
    length = rng.choice((0, 1, 1, 2, 3, 4, 5, 6, 8, 10))
    return [rng.choice(_VOCABULARY) for _ in range(length)]


def random_request(rng: random.Random, seq: int, fake: str = "stagedbleu") -> dict:
    """A random protocol request: 1-4 orders (weights uniform, random or with a zero), every smoothing, empty and
    one-token segments, 1-3 references, either level and case setting."""
    order = rng.randint(1, 4)
    shape = rng.random()
    weights = ([1.0 / order] * order if shape < 0.5 else [rng.choice((0.0, 0.1, 0.3, 0.5, 1.0)) for _ in range(order)])
    if not any(weights):
        weights[0] = 1.0
    level = rng.choice(("corpus", "sentence"))
    segments = [{"hypothesis": _tokens(rng), "references": [_tokens(rng) for _ in range(rng.randint(1, 3))]}
                for _ in range(1 if level == "sentence" else rng.randint(1, 4))]
    return {"cmd": "score", "seq": seq, "level": level, "segments": segments, "weights": weights,
            "smoothing": dict(rng.choice(_SMOOTHINGS + _MORE_SMOOTHINGS[fake])), "lowercase": rng.random() < 0.3}


def _reply(fake: ModuleType, request: dict, stages: dict) -> dict:
    try:
        return fake.answer(request, stages, True)
    except Exception as exc:  # noqa: BLE001 - an exception is an answer to compare
        return {"error": type(exc).__name__}


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return _same(float(a), float(b))
    return a == b


def equivalence(ident: str, requests: int = EQUIVALENCE_REQUESTS, seed: int = 0, fake_name: str = "stagedbleu"
                ) -> dict | None:
    """None when the mutant answers every random request as the clean code does (within 1e-9 relative), else the
    first request that differs and both answers."""
    fake = fake_module(fake_name)
    clean, mutant = fake.stages_of(None), fake.stages_of(ident)
    rng = random.Random(seed)
    for seq in range(requests):
        request = random_request(rng, seq, fake_name)
        expected, got = _reply(fake, request, clean), _reply(fake, request, mutant)
        if not _same(expected, got):
            return {"request": request, "clean": expected, "mutant": got}
    return None


# == the run ======================================================================================================


def commands(ident: str, fake_name: str = "stagedbleu") -> tuple[str, str]:
    python = shlex.quote(sys.executable)
    fake = shlex.quote(str(fake_path(fake_name)))
    return f"{python} {fake} --mutant {shlex.quote(ident)}", f"{python} {fake} clean"


def run(out: Path, only: list[str] | None, fake_name: str = "stagedbleu") -> int:
    """Each selected mutant's check, then the clean twin's; one JSON line per mutant appended to `out` (a mutant
    already in `out` is skipped: the run resumes)."""
    attribution = attribution_module()
    fake = fake_module(fake_name)
    plan = selected(fake.mutants())
    if only:
        known = {ident for ident, _, _ in fake.mutants()}
        unknown = [ident for ident in only if ident not in known]
        if unknown:
            print(f"stage_mutants: unknown mutant {unknown[0]!r}", file=sys.stderr)
            return 2
        plan = [m for m in fake.mutants() if m[0] in only]
    done = {json.loads(line)["id"] for line in out.read_text(encoding="utf-8").split("\n") if line.strip()} \
        if out.exists() else set()
    with tempfile.TemporaryDirectory() as scratch:
        for index, (ident, stage, operator) in enumerate(plan):
            if ident in done:
                continue
            buggy, fixed = commands(ident, fake_name)
            code, wall, cpu, found = attribution.run_check_timed(buggy, Path(scratch) / f"b{index}", None, TIMEOUT)
            _, fixed_wall, fixed_cpu, fixed_found = attribution.run_check_timed(fixed, Path(scratch) / f"f{index}",
                                                                                None, TIMEOUT)
            causes = found["causes"] or []
            cause = attribution.main_cause(causes)
            function = ident.split(":")[1]
            cost, fixed_cost = found.get("cost"), fixed_found.get("cost")
            row = {"id": ident, "stage": stage, "operator": operator, "code": code, "main_cause": cause,
                   "causes": [(c["name"], c.get("records")) for c in causes],
                   "verdict": verdict(cause, function, fake_name),
                   "accusations": sorted({a["name"] for a in found.get("state_or_float32") or ()}),
                   "wall": round(wall, 2), "fixed_wall": round(fixed_wall, 2), "cpu": round(cpu, 2),
                   "fixed_cpu": round(fixed_cpu, 2),
                   "runner_cpu": round(cost.runner_cpu, 2) if cost else None,
                   "fixed_runner_cpu": round(fixed_cost.runner_cpu, 2) if fixed_cost else None}
            if code == 0:
                difference = equivalence(ident, fake_name=fake_name)
                row["equivalent"] = difference is None
                row["difference"] = difference
            out.open("a", encoding="utf-8").write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"{ident}\t{stage}\t{operator}\t{code}\t{cause}\t{row['verdict']}", flush=True)
    return 0


# == the summary ==================================================================================================


def outcome(row: dict) -> str:
    """caught / equivalent / missed / timeout / error (check's exit 2)."""
    if row["code"] is None:
        return "timeout"
    if row["code"] == 0:
        return "equivalent" if row.get("equivalent") else "missed"
    return "caught" if row["code"] == 1 else f"exit {row['code']}"


def table(rows: list[dict], key: str, post_hoc: bool = False, fake: str = "stagedbleu") -> str:
    """A Markdown table of the caught mutants' verdicts by `key` (stage or operator), and the uncaught ones'
    outcome; with `post_hoc`, the verdicts of `post_hoc_verdict` instead of the pre-registered ones."""
    if post_hoc:
        rows = [{**row, "verdict": post_hoc_verdict(row["main_cause"], row["id"].split(":")[1], fake)} for row in rows]
    header = f"| {key} | caught | " + " | ".join(VERDICTS) + " | equivalent | missed |"
    lines = [header, "|" + " --- |" * (len(VERDICTS) + 4)]
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row[key]].append(row)
    ordering = (lambda s: (int(s.split()[0]), s)) if key == "stage" else (lambda s: s)
    for name in [*sorted(groups, key=ordering), "all"]:
        members = rows if name == "all" else groups[name]
        caught = [r for r in members if outcome(r) == "caught"]
        verdicts = Counter(r["verdict"] for r in caught)
        out = Counter(outcome(r) for r in members)
        lines.append(f"| {name} | {len(caught)} | " + " | ".join(str(verdicts[v]) for v in VERDICTS)
                     + f" | {out['equivalent']} | {out['missed']} |")
    return "\n".join(lines)


def summary(out: Path, fake_name: str = "stagedbleu") -> str:
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line.strip()]
    fake = fake_module(fake_name)
    outcomes = Counter(outcome(r) for r in rows)
    parts = [f"mutants existing {len(fake.mutants())}, selected {len(selected(fake.mutants()))}, run {len(rows)}: "
             + ", ".join(f"{name} {n}" for name, n in sorted(outcomes.items())),
             "", table(rows, "stage"), "", table(rows, "operator"), "",
             "Post hoc (not pre-registered): a bare outcome kind read as an error without its trigger:", "",
             table(rows, "stage", post_hoc=True, fake=fake_name), "",
             table(rows, "operator", post_hoc=True, fake=fake_name), "",
             "Named by another stage (pre-registered verdict):", ""]
    parts += [f"- `{r['id']}` ({r['stage']}, {r['operator']}): `{r['main_cause']}`" for r in rows
              if outcome(r) == "caught" and r["verdict"] == "other-stage"] or ["- none"]
    parts += ["", "No cause:", ""]
    parts += [f"- `{r['id']}` ({r['stage']}, {r['operator']})" for r in rows
              if outcome(r) == "caught" and r["verdict"] == "none"] or ["- none"]
    parts += ["", "Missed (not caught, not equivalent):", ""]
    parts += [f"- `{r['id']}` ({r['stage']}, {r['operator']}): {json.dumps(r['difference'], ensure_ascii=False)}"
              for r in rows if outcome(r) == "missed"] or ["- none"]
    parts += ["", "Equivalent:", ""]
    parts += [f"- `{r['id']}` ({r['stage']}, {r['operator']})" for r in rows if outcome(r) == "equivalent"] \
        or ["- none"]
    accused = [r for r in rows if r["accusations"]]
    parts += ["", f"State or float32 names on these stateless float64 mutants: {len(accused)}"]
    parts += [f"- `{r['id']}`: {', '.join(r['accusations'])}" for r in accused]
    ratios = [r["runner_cpu"] / r["fixed_runner_cpu"] for r in rows
              if r.get("runner_cpu") is not None and r.get("fixed_runner_cpu")]
    if ratios:
        ratios.sort()
        parts += ["", f"runner CPU failing/fixed: median {ratios[len(ratios) // 2]:.2f}, max {ratios[-1]:.2f}, "
                      f"over 3x: {sum(x > 3 for x in ratios)} of {len(ratios)}"]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--list", action="store_true", help="every mutant: ID, stage, operator, selected")
    group.add_argument("--selected", action="store_true", help="the pre-registered subset, in run order")
    group.add_argument("--run", metavar="OUT", type=Path, help="check the selected mutants, one JSON line each")
    group.add_argument("--equivalent", metavar="ID", nargs="+", help="compare mutants with the clean code")
    group.add_argument("--summary", metavar="OUT", type=Path, help="the counts and tables of a run")
    parser.add_argument("--only", nargs="+", metavar="ID", help="with --run: these mutants instead")
    parser.add_argument("--fake", choices=FAKES, default="stagedbleu",
                        help="whose mutants: stagedbleu (set A, the default) or stagedbleu2 (set B)")
    args = parser.parse_args(argv)
    fake = fake_module(args.fake)
    if args.list:
        chosen = {ident for ident, _, _ in selected(fake.mutants())}
        for ident, stage, operator in fake.mutants():
            print(f"{ident}\t{stage}\t{operator}\t{'selected' if ident in chosen else '-'}")
        return 0
    if args.selected:
        for ident, stage, operator in selected(fake.mutants()):
            print(f"{ident}\t{stage}\t{operator}")
        return 0
    if args.run:
        return run(args.run, args.only, args.fake)
    if args.equivalent:
        for ident in args.equivalent:
            difference = equivalence(ident, fake_name=args.fake)
            print(f"{ident}\t" + ("equivalent" if difference is None else json.dumps(difference)))
        return 0
    print(summary(args.summary, args.fake))
    return 0


if __name__ == "__main__":
    sys.exit(main())
