"""`bleu-oracle score`: score files with the oracle, optionally with the whole derivation."""

from __future__ import annotations

import json
import sys

from oracle import resolve_options
from oracle.commands import SUMMARIES
from oracle.formulas import bleu, explain
from oracle.formulas.bleu import parse_weights
from oracle.textio import read_parallel

from .common import add_scoring_arguments

HELP = """Score a hypothesis file against one or more reference files with the oracle.

Files have one segment per line (split on "\\n" only), tokens separated by
whitespace; plain or .gz. Each --ref file is one reference stream, line i of
every file belongs to segment i. The corpus is read segment by segment, so
memory holds only the running statistics.

Examples:
  bleu-oracle score --hyp out.txt --ref ref.txt
  bleu-oracle score --hyp out.txt --ref ref1.txt --ref ref2.txt --profile nltk --json
  bleu-oracle score --hyp cand.txt --ref r.txt --weights 0.5 0.5 --explain
  bleu-oracle score --hyp out.txt --ref ref.txt --sentence --smoothing exp
"""


def register(subparsers):
    parser = subparsers.add_parser("score", help=SUMMARIES["score"], description=HELP,
                                   formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    parser.add_argument("--hyp", required=True, metavar="FILE", help="hypothesis file")
    parser.add_argument("--ref", required=True, action="append", metavar="FILE", help="reference file (repeat for more)")
    add_scoring_arguments(parser)
    parser.add_argument("--sentence", action="store_true", help="score each line as a sentence (one result per line)")
    parser.add_argument("--json", action="store_true", help="print JSON (one object, or one per line with --sentence)")
    parser.add_argument("--explain", action="store_true",
                        help="print the derivation: n-gram tables, p_n, r, BP, score (on stderr with --json)")
    parser.set_defaults(handler=run)


def run(args):
    options = resolve_options(profile=args.profile, lowercase=args.lowercase)
    weights = parse_weights(args.weights, default_max_order=options.default_max_order)
    smoothing = args.smoothing or options.smoothing
    orders = bleu.counting_orders(weights, smoothing)
    out = sys.stdout
    # with --json, stdout holds JSON only: the derivation goes to stderr
    derivation = sys.stderr if args.json else out
    segments = read_parallel(args.hyp, args.ref)

    def explained(pairs):
        for index, (hypothesis, references) in enumerate(pairs):
            derivation.write(explain.explain_segment(hypothesis, references, max_order=orders, options=options,
                                                     label=f"segment {index + 1}") + "\n")
            yield hypothesis, references

    if args.explain:
        segments = explained(segments)
    if args.sentence:
        for index, (hypothesis, references) in enumerate(segments):
            result = bleu.sentence_bleu(hypothesis, references, weights=weights, options=options, smoothing=smoothing)
            _emit(result, args, out, derivation, index=index)
        return 0
    stats = bleu.sum_statistics(segments, max_order=orders, options=options)
    result = bleu.bleu_from_statistics(stats, weights=weights, options=options, smoothing=smoothing)
    _emit(result, args, out, derivation)
    return 0


def _emit(result, args, out, derivation, index=None):
    if args.explain:
        derivation.write(explain.explain_result(result) + "\n")
    if args.json:
        payload = result.to_json()
        payload["profile"] = args.profile
        if index is not None:
            payload["segment"] = index + 1
        out.write(json.dumps(payload) + "\n")
    elif not args.explain:
        prefix = f"{index + 1}\t" if index is not None else ""
        s = result.statistics
        precisions = "/".join("-" if p is None else f"{float(p) * 100:.1f}" for p in result.precisions)
        out.write(
            f"{prefix}BLEU = {float(result.score) * 100:.2f} {precisions} (BP = {float(result.bp):.3f} "
            f"ratio = {s.hyp_len / s.ref_len if s.ref_len else float('inf'):.3f} hyp_len = {s.hyp_len} ref_len = {s.ref_len}) "
            f"[{args.profile}]\n"
        )
