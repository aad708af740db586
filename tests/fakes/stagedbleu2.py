#!/usr/bin/env python3
"""A second staged BLEU (issue 36, stage-mutants2): another author's BLEU, one top-level function per stage, mutated.

Written from PROTOCOL.md (the requests, the statistics, the smoothing methods, the levels) and Papineni et al. (2002)
section 2, not from stagedbleu.py's computation, and shaped as another author would: clipping by `Counter`
intersection with the max-union of the references' counters (as nltk and sacrebleu do), each segment's statistics a
dict, the corpus summed column by column with `zip`, the empty order a rewrite of its (matches, total) pair, the
precisions a list, the orders in force a dict, the mean a product of powers `prod(p_n ** w_n)`, the closest
reference length `min(..., key=...)`, the smoothing methods a dict of functions (nine of them), the brevity penalty
`min(1, e^(1 - r/c))`. The stage functions keep stagedbleu.py's names and docs/stages.md's numbering, so that the
one fit rule per stage judges both sets.

    python tests/fakes/stagedbleu2.py clean                  # the control: correct under papineni
    python tests/fakes/stagedbleu2.py --mutant ID            # one machine-made mutant (IDs: --list)
    python tests/fakes/stagedbleu2.py --list                 # every mutant's ID, its stage and operator
    python tests/fakes/stagedbleu2.py clean --no-stats       # no statistics in the replies

Stdlib only, no import of `oracle`. The mutation engine (the operators, the sites, the IDs
`operator:function:line:col[:k]`) is stagedbleu.py's, loaded from that file and applied to this file's source: its
docstring lists the operators. The protocol loop is stagedbleu.py's, copied (the loop is never mutated).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import sys
import traceback
from collections import Counter
from pathlib import Path
from types import ModuleType

#: the stage of docs/stages.md each stage function is (its section number and name)
STAGES: dict[str, str] = {
    "stage_fold": "1 fold and tokenize",
    "stage_ngrams": "2 n-gram extraction",
    "stage_clip": "3 clipping",
    "stage_segment": "4 per-segment statistics",
    "stage_closest_ref_length": "4 closest reference length",
    "stage_corpus": "5 corpus aggregation",
    "stage_precision": "6 precision",
    "stage_empty": "7 empty and zero orders",
    "stage_zero_orders": "7 empty and zero orders",
    "stage_smoothing": "8 smoothing",
    "stage_weights": "9 orders and weights",
    "stage_mean": "10 the mean",
    "stage_brevity_penalty": "11 brevity penalty",
    "stage_scale": "12 scale",
}


# == the stages (everything mutated lives here) ====================================================================


def stage_fold(tokens: list[str], lowercase: bool) -> list[str]:
    """Case folded when the request asks."""
    return [token.lower() for token in tokens] if lowercase else list(tokens)


def stage_ngrams(tokens: list[str], n: int) -> Counter:
    """Counts of the n-grams of order n: the sequence zipped with itself shifted 1 .. n-1 places."""
    return Counter(zip(*[tokens[shift:] for shift in range(n)], strict=False))


def stage_clip(hypothesis: Counter, references: list[Counter]) -> tuple[int, int]:
    """(clipped matches, total) of one order: the hypothesis's counter intersected with the references' union (the
    largest count of each n-gram in any one reference)."""
    ceiling: Counter = Counter()
    for counts in references:
        ceiling |= counts
    return sum((hypothesis & ceiling).values()), sum(hypothesis.values())


def stage_closest_ref_length(lengths: list[int], c: int) -> int:
    """The reference length nearest c; of two as near, the shorter."""
    return min(lengths, key=lambda length: (abs(length - c), length))


def stage_segment(hypothesis: list[str], references: list[list[str]], order: int) -> dict:
    """One segment's statistics: c, r and, per order 1 .. order, the clipped matches and the totals."""
    per_order = [stage_clip(stage_ngrams(hypothesis, n), [stage_ngrams(reference, n) for reference in references])
                 for n in range(1, order + 1)]
    return {"c": len(hypothesis),
            "r": stage_closest_ref_length([len(reference) for reference in references], len(hypothesis)),
            "matches": [pair[0] for pair in per_order], "totals": [pair[1] for pair in per_order]}


def stage_corpus(segments: list[dict]) -> dict:
    """The corpus's statistics: every segment's added, column by column."""
    return {"c": sum(segment["c"] for segment in segments), "r": sum(segment["r"] for segment in segments),
            "matches": [sum(column) for column in zip(*(segment["matches"] for segment in segments), strict=True)],
            "totals": [sum(column) for column in zip(*(segment["totals"] for segment in segments), strict=True)]}


def stage_empty(c: int, r: int) -> float | None:
    """None while the hypotheses hold a token (the formula goes on); else 0, or NaN when the references are empty
    too (papineni's both-empty rule)."""
    if c > 0:
        return None
    return math.nan if r == 0 else 0.0


def stage_smoothing(matches: list[int], totals: list[int], smoothing: dict, c: int
                    ) -> tuple[list[float], list[float]]:
    """(m_n, l_n) as floats after the request's method (PROTOCOL.md, "Smoothing"): a dict of the methods."""

    def replace_unmatched(value_of):  # the j-th order with n-grams and no match gets value_of(j)
        j, smoothed = 0, []
        for x, y in zip(matches, totals, strict=True):
            if y > 0 and x == 0:
                j += 1
                x = value_of(j)
            smoothed.append(float(x))
        return smoothed, [float(y) for y in totals]

    def add(k, first):  # k added to m_n and l_n of the orders from index `first` on
        return ([x + k if n >= first else float(x) for n, x in enumerate(matches)],
                [y + k if n >= first else float(y) for n, y in enumerate(totals)])

    def halves():  # NIST's geometric sequence 1/2, 1/4, ...
        return replace_unmatched(lambda j: 0.5 ** j)

    def chen_cherry_4():
        if c > 1:
            return replace_unmatched(lambda j: math.log(c) / (smoothing["k"] * 2 ** j))
        return add(0.0, 0)

    methods = {"none": lambda: add(0.0, 0), "floor": lambda: replace_unmatched(lambda j: smoothing["value"]),
               "chen-cherry-1": lambda: replace_unmatched(lambda j: smoothing["epsilon"]), "exp": halves,
               "chen-cherry-3": halves, "add-k": lambda: add(smoothing["k"], 1), "chen-cherry-2": lambda: add(1.0, 1),
               "lin-2004": lambda: add(1.0, 0), "chen-cherry-4": chen_cherry_4}
    return methods[smoothing["method"]]()


def stage_zero_orders(m: list[float], t: list[float]) -> list[tuple[float, float]]:
    """Papineni's empty order: an order without n-grams counts as precision 0 (its pair read as 0 of 1)."""
    return [(x, y) if y > 0 else (0.0, 1.0) for x, y in zip(m, t, strict=True)]


def stage_precision(pairs: list[tuple[float, float]]) -> list[float]:
    """p_n = m_n / l_n of every order."""
    return [x / y for x, y in pairs]


def stage_weights(weights: list[float]) -> dict[int, float]:
    """The orders in force (index: weight): a zero weight switches its order off."""
    return {n: w for n, w in enumerate(weights) if w > 0}


def stage_mean(precisions: list[float], in_force: dict[int, float]) -> float:
    """The weighted geometric mean, a product of powers (an unmatched order in force makes it 0)."""
    return math.prod(precisions[n] ** w for n, w in in_force.items())


def stage_brevity_penalty(c: int, r: int) -> float:
    """BP = min(1, e^(1 - r/c)): 1 where c > r."""
    return min(1.0, math.exp(1 - r / c))


def stage_scale(bp: float, mean: float) -> float:
    """The score on the 0-1 scale."""
    return bp * mean


# == the pipeline (never mutated: it calls the stages in order) ====================================================


def _average(values) -> float:
    """The `average` operator's replacement for `sum(values)` (the engine's name for it)."""
    values = list(values)
    return sum(values) / len(values)


def score(request: dict, stages: dict) -> tuple[float, float, tuple[int, int, list[int], list[int]]]:
    """(score, bp, corpus statistics) of a request, by the stage functions in `stages`."""
    order = len(request["weights"])
    lowercase = bool(request.get("lowercase"))
    fold = stages["stage_fold"]
    segments = [stages["stage_segment"](fold(s["hypothesis"], lowercase), [fold(r, lowercase) for r in s["references"]],
                                        order) for s in request["segments"]]
    corpus = stages["stage_corpus"](segments)
    c, r = corpus["c"], corpus["r"]
    stats = (c, r, corpus["matches"], corpus["totals"])
    empty = stages["stage_empty"](c, r)
    if empty is not None:
        return empty, (math.nan if math.isnan(empty) else 0.0), stats
    bp = stages["stage_brevity_penalty"](c, r)
    m, t = stages["stage_smoothing"](corpus["matches"], corpus["totals"], request["smoothing"], c)
    precisions = stages["stage_precision"](stages["stage_zero_orders"](m, t))
    mean = stages["stage_mean"](precisions, stages["stage_weights"](request["weights"]))
    return stages["stage_scale"](bp, mean), bp, stats


# == the mutants (stagedbleu.py's engine, applied to this file) ====================================================

SOURCE = Path(__file__)
_ENGINE: list[ModuleType] = []


def engine() -> ModuleType:
    """tests/fakes/stagedbleu.py, whose mutation engine (operators, sites, IDs) this file uses."""
    if not _ENGINE:
        path = SOURCE.resolve().parent / "stagedbleu.py"
        spec = importlib.util.spec_from_file_location("stagedbleu_engine", path)
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _ENGINE.append(module)
    return _ENGINE[0]


OPERATORS = ("constant", "first", "last", "average", "intdiv", "offbyone", "boundary", "negate", "dropterm", "swap",
             "return")


def mutants() -> list[tuple[str, str, str]]:
    """(ID, stage, operator) of every mutant, in source order: deterministic, from this file's source alone."""
    found = engine()._all_sites(ast.parse(SOURCE.read_text(encoding="utf-8")))
    return [(ident, STAGES[found[ident][1]], found[ident][0]) for ident in sorted(found, key=engine()._key)]


def mutated_tree(ident: str) -> ast.Module:
    """This file's syntax tree with the one mutation `ident` names applied."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    found = engine()._all_sites(tree)
    if ident not in found:
        raise engine().UnknownMutant(f"unknown mutant {ident!r} (list them with --list)")
    operator, _, node, k = found[ident]
    tree = engine()._Replace(node, engine()._replacement(operator, node, k)).visit(tree)
    return ast.fix_missing_locations(tree)


def mutated_source(ident: str) -> str:
    return ast.unparse(mutated_tree(ident))


def stages_of(ident: str | None) -> dict:
    """The stage functions of the clean module (None) or of a mutant, compiled from the mutated tree."""
    if ident is None:
        return {name: globals()[name] for name in STAGES}
    namespace: dict = {"__name__": "stagedbleu2_mutant", "__file__": str(SOURCE)}
    exec(compile(mutated_tree(ident), str(SOURCE), "exec"), namespace)  # noqa: S102 - this file's own source, mutated
    return {name: namespace[name] for name in STAGES}


# == the protocol loop (stagedbleu.py's, copied) ===================================================================

SMOOTHING = ("none", "floor", "add-k", "exp", "chen-cherry-1", "chen-cherry-2", "chen-cherry-3", "chen-cherry-4",
             "lin-2004")


def invalid(request: dict) -> str | None:
    """Why the papineni profile rejects this input, or None."""
    weights = request["weights"]
    if any(w < 0 for w in weights):
        return f"weights must be non-negative (got {weights})"
    if not any(weights):
        return f"weights must not be all zero (got {weights})"
    if not request["segments"]:
        return "at least one segment is needed"
    if any(not s["references"] for s in request["segments"]):
        return "a segment has no references"
    for name, value in request["smoothing"].items():
        if name != "method" and value < 0:
            return f"smoothing parameter {name} must be non-negative (got {value})"
    return None


def answer(request: dict, stages: dict, with_stats: bool) -> dict:
    seq = request["seq"]
    problem = invalid(request)
    if problem:
        return {"seq": seq, "rejected": problem}
    if request["smoothing"].get("method", "none") not in SMOOTHING:
        return {"seq": seq, "unsupported": f"smoothing {request['smoothing']['method']!r} is not implemented"}
    value, bp, (c, r, matches, totals) = score(request, stages)
    out: dict = {"seq": seq, "score": "NaN" if math.isnan(value) else value}
    if with_stats:
        order = len(request["weights"])
        out["statistics"] = {"hyp_len": c, "ref_len": r, "matches": list(matches)[:order],
                             "totals": list(totals)[:order], "bp": "NaN" if math.isnan(bp) else bp}
    return out


def _write(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


USAGE = "usage: stagedbleu2.py clean | --mutant ID | --list [--no-stats]"


def _fail(message: str) -> None:
    sys.stderr.write(f"stagedbleu2: {message}\n")
    raise SystemExit(2)


def _serve(stages: dict, name: str, with_stats: bool) -> None:
    capabilities = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 12,
                    "smoothing": list(SMOOTHING), "statistics": with_stats, "lowercase": True}
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            command = json.loads(line)
        except ValueError as exc:
            _write({"error": f"not JSON: {exc}"})
            continue
        cmd = command.get("cmd")
        if cmd == "start":
            if command.get("protocol") != 1:
                _write({"error": f"unsupported protocol version {command.get('protocol')}"})
                continue
            _write({"protocol": 1, "implementation": {"name": name, "version": "0.0", "language": "python"},
                    "profile": "papineni", "capabilities": capabilities})
        elif cmd == "stop":
            return
        elif cmd == "score":
            try:
                reply = answer(command, stages, with_stats)
            except Exception as exc:  # noqa: BLE001 - any failure is an `error` reply, the loop goes on
                traceback.print_exc(file=sys.stderr)
                reply = {"seq": command.get("seq"), "error": f"{type(exc).__name__}: {exc}"}
            _write(reply)
        else:
            _write({"seq": command.get("seq"), "error": f"unknown command {cmd!r}"})


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--list"]:
        for ident, stage, operator in mutants():
            print(f"{ident}\t{stage}\t{operator}")
        return
    with_stats = "--no-stats" not in argv
    rest = [a for a in argv if a != "--no-stats"]
    if rest == ["clean"]:
        ident = None
    elif len(rest) == 2 and rest[0] == "--mutant":
        ident = rest[1]
    else:
        _fail(USAGE)
    try:
        stages = stages_of(ident)
    except engine().UnknownMutant as exc:
        _fail(str(exc))
    _serve(stages, "stagedbleu2+" + (ident or "clean"), with_stats)


if __name__ == "__main__":
    main()
