#!/usr/bin/env python3
"""Staged BLEU: an independent BLEU written as one top-level function per stage, and its machine-made mutants.

Issue 36 (stage-mutants): docs/stages.md is the matrix of the formula's stages against the mutation operators real
bugs are made of, filled by reading code. This fake measures it: the clean computation is laid out as the stages of
docs/stages.md (each a function `stage_<name>`), and `--mutant ID` parses this file's own source with `ast`, applies
the one mutation ID names inside one `stage_*` function, compiles the module so mutated and serves the protocol with
it. No mutation is chosen per bug: `mutants()` lists every site of every operator in every stage function, in source
order, and the IDs are stable (`operator:function:line:col[:k]`, the line and column of the site in this file).

    python tests/fakes/stagedbleu.py clean                  # the control: correct under papineni
    python tests/fakes/stagedbleu.py --mutant ID            # one machine-made mutant (IDs: --list)
    python tests/fakes/stagedbleu.py --list                 # every mutant's ID, its stage and operator
    python tests/fakes/stagedbleu.py clean --no-stats       # no statistics in the replies

Written without `oracle` (stdlib only). The protocol loop is realbleu.py's shape (copied, not imported, so that this
file's source is the whole of what is mutated and served). The clean computation is the papineni profile as
realbleu.py's docstring states it: tokens opaque; clipping to the largest count in any one reference; statistics
summed over segments before dividing; r the closest reference length, ties to the shorter; BP = 1 if c > r else
e^(1 - r/c); c = 0 scores 0 (c = r = 0: NaN); an order without hypothesis n-grams counts as p_n = 0; weights as
given, a zero weight switches its order off; smoothing none / floor / add-k / exp / chen-cherry-4 as PROTOCOL.md
states them.

The operators (PIT and mutmut; docs/stages.md's list), each at every site of its kind inside a stage function:

- `constant`: a name read as an operand (of an arithmetic or comparison, a condition, an argument of `range`, `abs`,
  `len`, `math.*`) replaced by the literal 1;
- `first`, `last`: an aggregate's argument subscripted, `sum(xs)` -> `xs[0]` / `xs[-1]` (`sum`, `min`, `max` of
  one iterable; a generator becomes a list first);
- `average`: `sum(xs)` -> the mean of xs (`_average`, outside the stages);
- `intdiv`: `/` -> `//`;
- `offbyone`: an argument of `range`, an integer subscript, a slice bound, each +1 (k=0) and -1 (k=1);
- `boundary`: `<` <-> `<=`, `>` <-> `>=`;
- `negate`: the condition of an `if`, a conditional expression or a comprehension's filter negated;
- `dropterm`: one operand of `+` or `*` left out (k=0 keeps the left, k=1 the right);
- `swap`: the operands of `-`, `/`, `//`, `%`, `**` swapped, and `min` <-> `max`;
- `return`: a returned number replaced by a constant (k=0: 0, k=1: 1), in the functions annotated to return a
  number.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import sys
import traceback
from collections import Counter
from pathlib import Path

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

OPERATORS = ("constant", "first", "last", "average", "intdiv", "offbyone", "boundary", "negate", "dropterm", "swap",
             "return")


# == the stages (everything mutated lives here) ====================================================================


def stage_fold(tokens: list[str], lowercase: bool) -> list[str]:
    """The request's `lowercase`: each token folded, or the tokens as sent."""
    if lowercase:
        return [token.lower() for token in tokens]
    return list(tokens)


def stage_ngrams(tokens: list[str], n: int) -> Counter:
    """The n-grams of order n and their counts."""
    counts: Counter = Counter()
    for i in range(len(tokens) - n + 1):
        counts[tuple(tokens[i:i + n])] += 1
    return counts


def stage_clip(hypothesis_counts: Counter, reference_counts: list[Counter]) -> tuple[int, int]:
    """(clipped matches, total) of one order: each hypothesis n-gram's count clipped to its largest count in any one
    reference."""
    limit: Counter = Counter()
    for counts in reference_counts:
        for gram, k in counts.items():
            limit[gram] = max(limit[gram], k)
    matches = sum(min(k, limit[gram]) for gram, k in hypothesis_counts.items())
    total = sum(hypothesis_counts.values())
    return matches, total


def stage_closest_ref_length(lengths: list[int], c: int) -> int:
    """r of one segment: the reference length closest to c, ties to the shorter."""
    best = lengths[0]
    for length in lengths[1:]:
        if abs(length - c) < abs(best - c) or (abs(length - c) == abs(best - c) and length < best):
            best = length
    return best


def stage_segment(hypothesis: list[str], references: list[list[str]], order: int
                  ) -> tuple[int, int, list[int], list[int]]:
    """One segment's statistics: c, r, and per order its clipped matches and totals."""
    matches, totals = [], []
    for n in range(1, order + 1):
        m, t = stage_clip(stage_ngrams(hypothesis, n), [stage_ngrams(reference, n) for reference in references])
        matches.append(m)
        totals.append(t)
    c = len(hypothesis)
    return c, stage_closest_ref_length([len(reference) for reference in references], c), matches, totals


def stage_corpus(segments: list[tuple[int, int, list[int], list[int]]], order: int
                 ) -> tuple[int, int, list[int], list[int]]:
    """The corpus's statistics: each segment's summed."""
    c = sum(segment[0] for segment in segments)
    r = sum(segment[1] for segment in segments)
    matches = [sum(segment[2][i] for segment in segments) for i in range(order)]
    totals = [sum(segment[3][i] for segment in segments) for i in range(order)]
    return c, r, matches, totals


def stage_empty(c: int, r: int) -> float | None:
    """The score of an empty corpus: NaN where c = r = 0, 0 where c = 0; None otherwise (the formula goes on)."""
    if c == 0 and r == 0:
        return math.nan
    if c == 0:
        return 0.0
    return None


def stage_smoothing(matches: list[int], totals: list[int], smoothing: dict, c: int) -> tuple[list[float], list[float]]:
    """(matches, totals) as floats after the request's smoothing (PROTOCOL.md, "Smoothing")."""
    m = [float(x) for x in matches]
    t = [float(x) for x in totals]
    method = smoothing.get("method", "none")
    if method == "floor":
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                m[i] = float(smoothing.get("value", 0.1))
    elif method == "add-k":
        for i in range(1, len(m)):
            m[i] += float(smoothing.get("k", 1.0))
            t[i] += float(smoothing.get("k", 1.0))
    elif method == "exp":
        j = 0
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                j += 1
                m[i] = 1.0 / 2 ** j
    elif method == "chen-cherry-4" and c > 1:
        k = float(smoothing.get("k", 5))
        j = 0
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                j += 1
                m[i] = math.log(c) / (k * 2 ** j)
    return m, t


def stage_weights(weights: list[float]) -> list[tuple[int, float]]:
    """The orders in force: (index, weight) of each order with a weight above 0."""
    return [(n, weights[n]) for n in range(len(weights)) if weights[n] > 0]


def stage_zero_orders(m: list[float], t: list[float], in_force: list[tuple[int, float]]) -> bool:
    """Whether an order in force without n-grams or without matches makes the score 0."""
    for n, _ in in_force:
        if t[n] == 0 or m[n] == 0:
            return True
    return False


def stage_precision(matched: float, total: float) -> float:
    """p_n of one order."""
    return matched / total


def stage_mean(logs: list[float]) -> float:
    """The weighted geometric mean from the weighted logarithms w_n log p_n."""
    return math.exp(sum(logs))


def stage_brevity_penalty(c: int, r: int) -> float:
    """BP = 1 if c > r, else e^(1 - r/c)."""
    if c > r:
        return 1.0
    return math.exp(1 - r / c)


def stage_scale(bp: float, mean: float) -> float:
    """The score on the 0-1 scale."""
    return bp * mean


# == the pipeline (never mutated: it calls the stages in order) ====================================================


def _average(values) -> float:
    """The `average` operator's replacement for `sum(values)`."""
    values = list(values)
    return sum(values) / len(values)


def score(request: dict, stages: dict) -> tuple[float, float, tuple[int, int, list[int], list[int]]]:
    """(score, bp, corpus statistics) of a request, by the stage functions in `stages` (this module's or a
    mutant's)."""
    order = len(request["weights"])
    lowercase = bool(request.get("lowercase"))
    segments = [stages["stage_segment"](stages["stage_fold"](s["hypothesis"], lowercase),
                                        [stages["stage_fold"](r, lowercase) for r in s["references"]], order)
                for s in request["segments"]]
    c, r, matches, totals = stats = stages["stage_corpus"](segments, order)
    empty = stages["stage_empty"](c, r)
    if empty is not None:
        return empty, (math.nan if math.isnan(empty) else 0.0), stats
    bp = stages["stage_brevity_penalty"](c, r)
    m, t = stages["stage_smoothing"](matches, totals, request["smoothing"], c)
    in_force = stages["stage_weights"](request["weights"])
    if stages["stage_zero_orders"](m, t, in_force):
        return stages["stage_scale"](bp, 0.0), bp, stats
    logs = [w * math.log(stages["stage_precision"](m[n], t[n])) for n, w in in_force]
    return stages["stage_scale"](bp, stages["stage_mean"](logs)), bp, stats


# == the mutants ===================================================================================================

SOURCE = Path(__file__)
_AGGREGATES = ("sum", "min", "max")
_OPERAND_CALLS = ("range", "abs", "len")


class UnknownMutant(ValueError):
    """An ID `mutants()` does not list."""


def _stage_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("stage_")]


def _parents(function: ast.FunctionDef) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(function) for child in ast.iter_child_nodes(node)}


def _is_operand_name(node: ast.AST, parent: ast.AST | None) -> bool:
    """A name read as a number or a condition: the `constant` operator's sites."""
    if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load) or node.id in ("math", "True", "False"):
        return False
    if isinstance(parent, (ast.BinOp, ast.Compare, ast.UnaryOp)):
        return True
    if isinstance(parent, (ast.If, ast.IfExp)) and parent.test is node:
        return True
    if isinstance(parent, ast.BoolOp):
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        return (isinstance(func, ast.Name) and func.id in _OPERAND_CALLS) or (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math")
    return False


def _aggregate(node: ast.AST) -> str | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _AGGREGATES
            and len(node.args) == 1 and not node.keywords):
        return node.func.id
    return None


def _returns_number(function: ast.FunctionDef) -> bool:
    return isinstance(function.returns, ast.Name) and function.returns.id in ("int", "float")


Site = tuple[str, ast.AST, int, int, int]


def _call_sites(node: ast.AST) -> list[Site]:
    """`first`, `last`, `average` of an aggregate; `swap` of min and max; `offbyone` of range's arguments."""
    sites: list[Site] = []
    name = _aggregate(node)
    if name is not None and isinstance(node, ast.Call):
        at = node.args[0]
        sites += [("first", node, at.lineno, at.col_offset, 0), ("last", node, at.lineno, at.col_offset, 0)]
        if name == "sum":
            sites.append(("average", node, node.lineno, node.col_offset, 0))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("min", "max"):
            sites.append(("swap", node, node.func.lineno, node.func.col_offset, 0))
        if node.func.id == "range":
            sites += [("offbyone", arg, arg.lineno, arg.col_offset, k) for arg in node.args for k in (0, 1)]
    return sites


def _subscript_sites(node: ast.AST) -> list[Site]:
    """`offbyone` of an integer subscript and of a slice's bounds."""
    if not isinstance(node, ast.Subscript):
        return []
    index = node.slice
    if isinstance(index, ast.Constant) and isinstance(index.value, int):
        return [("offbyone", index, index.lineno, index.col_offset, k) for k in (0, 1)]
    if isinstance(index, ast.Slice):
        return [("offbyone", bound, bound.lineno, bound.col_offset, k)
                for bound in (index.lower, index.upper) if bound is not None for k in (0, 1)]
    return []


def _operator_sites(node: ast.AST) -> list[Site]:
    """`intdiv`, `dropterm`, `swap` of an arithmetic operation; `boundary` of a comparison."""
    sites: list[Site] = []
    if isinstance(node, ast.BinOp):
        right = node.right
        if isinstance(node.op, ast.Div):
            sites.append(("intdiv", node, right.lineno, right.col_offset, 0))
        if isinstance(node.op, (ast.Add, ast.Mult)):
            sites += [("dropterm", node, right.lineno, right.col_offset, k) for k in (0, 1)]
        if isinstance(node.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
            sites.append(("swap", node, right.lineno, right.col_offset, 0))
    if isinstance(node, ast.Compare):
        sites += [("boundary", node, node.comparators[i].lineno, node.comparators[i].col_offset, i)
                  for i, op in enumerate(node.ops) if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))]
    return sites


def _sites(function: ast.FunctionDef) -> list[Site]:
    """(operator, node, line, column, k) of every mutation site in one stage function, in no particular order."""
    parents = _parents(function)
    sites: list[Site] = []
    body = [node for statement in function.body for node in ast.walk(statement)]  # never the annotations
    for node in body:
        if _is_operand_name(node, parents.get(node)):
            sites.append(("constant", node, node.lineno, node.col_offset, 0))
        sites += _call_sites(node) + _subscript_sites(node) + _operator_sites(node)
        if isinstance(node, (ast.If, ast.IfExp)):
            sites.append(("negate", node, node.test.lineno, node.test.col_offset, 0))
        if isinstance(node, ast.comprehension):
            sites += [("negate", cond, cond.lineno, cond.col_offset, 0) for cond in node.ifs]
        if isinstance(node, ast.Return) and node.value is not None and _returns_number(function):
            sites += [("return", node, node.lineno, node.col_offset, k) for k in (0, 1)]
    return sites


def _id(operator: str, function: str, line: int, col: int, k: int, with_k: bool) -> str:
    return f"{operator}:{function}:{line}:{col}" + (f":{k}" if with_k else "")


#: the operators whose sites take a k (two variants), and `boundary`, whose k is the comparison's index
_WITH_K = ("offbyone", "dropterm", "return")


def _all_sites(tree: ast.Module) -> dict[str, tuple[str, str, ast.AST, int]]:
    """ID -> (operator, function, node, k) for every site of every stage function of `tree`."""
    found: dict[str, tuple[str, str, ast.AST, int]] = {}
    for function in _stage_functions(tree):
        for operator, node, line, col, k in _sites(function):
            ident = _id(operator, function.name, line, col, k, operator in _WITH_K or (operator == "boundary" and k))
            if ident in found:
                raise RuntimeError(f"two mutation sites share the ID {ident}")
            found[ident] = (operator, function.name, node, k)
    return found


def _key(ident: str) -> tuple:
    operator, function, line, col, *k = ident.split(":")
    return int(line), int(col), OPERATORS.index(operator), int(k[0]) if k else 0


def mutants() -> list[tuple[str, str, str]]:
    """(ID, stage, operator) of every mutant, in source order: deterministic, from this file's source alone."""
    found = _all_sites(ast.parse(SOURCE.read_text(encoding="utf-8")))
    return [(ident, STAGES[found[ident][1]], found[ident][0]) for ident in sorted(found, key=_key)]


def _num(value: int) -> ast.expr:
    return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))


def _as_list(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.GeneratorExp):
        return ast.ListComp(node.elt, node.generators)
    return ast.Call(ast.Name("list", ast.Load()), [node], [])


_BOUNDARY = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def _replacement(operator: str, node: ast.AST, k: int) -> ast.AST:
    """The node that takes `node`'s place."""
    node = copy.deepcopy(node)
    if operator == "constant":
        return ast.Constant(1)
    if operator in ("first", "last"):
        return ast.Subscript(_as_list(node.args[0]), _num(0 if operator == "first" else -1), ast.Load())
    if operator == "average":
        return ast.Call(ast.Name("_average", ast.Load()), node.args, [])
    if operator == "intdiv":
        return ast.BinOp(node.left, ast.FloorDiv(), node.right)
    if operator == "offbyone":
        return ast.BinOp(node, ast.Add() if k == 0 else ast.Sub(), ast.Constant(1))
    if operator == "boundary":
        node.ops[k] = _BOUNDARY[type(node.ops[k])]()
        return node
    if operator == "negate":
        if isinstance(node, (ast.If, ast.IfExp)):
            node.test = ast.UnaryOp(ast.Not(), node.test)
            return node
        return ast.UnaryOp(ast.Not(), node)
    if operator == "dropterm":
        return node.left if k == 0 else node.right
    if operator == "swap":
        if isinstance(node, ast.Call):
            node.func = ast.Name("max" if node.func.id == "min" else "min", ast.Load())
            return node
        node.left, node.right = node.right, node.left
        return node
    if operator == "return":
        return ast.Return(ast.Constant(k))
    raise UnknownMutant(operator)


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST):
        self.target, self.replacement = target, replacement

    def visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return self.replacement
        return self.generic_visit(node)


def mutated_tree(ident: str) -> ast.Module:
    """This file's syntax tree with the one mutation `ident` names applied."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    found = _all_sites(tree)
    if ident not in found:
        raise UnknownMutant(f"unknown mutant {ident!r} (list them with --list)")
    operator, _, node, k = found[ident]
    tree = _Replace(node, _replacement(operator, node, k)).visit(tree)
    return ast.fix_missing_locations(tree)


def mutated_source(ident: str) -> str:
    return ast.unparse(mutated_tree(ident))


def stages_of(ident: str | None) -> dict:
    """The stage functions of the clean module (None) or of a mutant, compiled from the mutated tree."""
    if ident is None:
        return {name: globals()[name] for name in STAGES}
    namespace: dict = {"__name__": "stagedbleu_mutant", "__file__": str(SOURCE)}
    exec(compile(mutated_tree(ident), str(SOURCE), "exec"), namespace)  # noqa: S102 - this file's own source, mutated
    return {name: namespace[name] for name in STAGES}


# == the protocol loop (realbleu.py's, copied) =====================================================================

SMOOTHING = ("none", "floor", "add-k", "exp", "chen-cherry-4")


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


USAGE = "usage: stagedbleu.py clean | --mutant ID | --list [--no-stats]"


def parse_argv(argv: list[str]) -> tuple[str | None, bool]:
    """(mutant ID or None for clean, with_stats); a usage error raises SystemExit with one line (exit 2)."""
    with_stats = "--no-stats" not in argv
    rest = [a for a in argv if a != "--no-stats"]
    if rest == ["clean"]:
        return None, with_stats
    if len(rest) == 2 and rest[0] == "--mutant":
        return rest[1], with_stats
    raise SystemExit(2)


def _fail(message: str) -> None:
    sys.stderr.write(f"stagedbleu: {message}\n")
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--list"]:
        for ident, stage, operator in mutants():
            print(f"{ident}\t{stage}\t{operator}")
        return
    try:
        ident, with_stats = parse_argv(argv)
    except SystemExit:
        _fail(USAGE)
    try:
        stages = stages_of(ident)
    except UnknownMutant as exc:
        _fail(str(exc))
    capabilities = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 12,
                    "smoothing": list(SMOOTHING), "statistics": with_stats, "lowercase": True}
    name = "stagedbleu+" + (ident or "clean")
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


if __name__ == "__main__":
    main()
