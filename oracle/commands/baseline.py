"""`bleu-oracle baseline write`: a baseline of known deviations from a run, for review."""

from __future__ import annotations

import argparse
import sys

from oracle.commands import SUMMARIES
from oracle.formulas.errors import BleuValueError
from oracle.harness.events import ResultsFormatError, read_results
from oracle.harness.gate import write_baseline

HELP = """Manage baselines of known deviations (see `bleu-oracle check --help`, Baselines).

  bleu-oracle baseline write --from bleu-oracle-report/results.jsonl --out baselines/nltk.yaml

writes every deviation of the run (any outcome other than pass, rejected and
not-applicable) as an entry {id, outcome, reason: TODO, layer, message}; a
human then replaces each TODO with the reason the deviation is acceptable.

Random examples (--examples-as):
  causes   (default) one entry per root cause that oracle.diagnose.classify names, e.g.
           cause:segment_totals_floor=1, covering any random example failing for
           that reason under any seed; an unexplained failure falls back to its
           class; unused entries are reported but do not fail the gate
  classes  one entry per kind of divergence, e.g. random:fail:ref_len,
           which covers any random example failing first at ref_len under any
           seed; unused class entries are reported but do not fail the gate
  ids      exact ids random-<seed>-<index>: strict, meaningful only when
           `check` runs with the same --seed, --examples and capabilities
  none     leave random examples out (a later run with the same random
           failures will then fail the gate)
"""


def register(subparsers):
    parser = subparsers.add_parser("baseline", help=SUMMARIES["baseline"],
                                   description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    write = actions.add_parser("write", help="write a baseline from a results.jsonl", description=HELP,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    write.add_argument("--from", dest="source", required=True, metavar="RESULTS",
                       help="a results.jsonl written by `check` (or its report directory)")
    write.add_argument("--out", required=True, metavar="FILE", help="the baseline to write (.json for JSON, else YAML)")
    write.add_argument("--examples-as", choices=("causes", "classes", "ids", "none"), default="causes",
                       help="how random examples are keyed (default: causes)")
    write.add_argument("-q", "--quiet", action="store_true", help="no line on stderr saying what was written")
    write.set_defaults(handler=run_write)


def run_write(args):
    try:
        results = read_results(args.source)
    except (OSError, ResultsFormatError) as exc:
        raise BleuValueError(f"cannot read {args.source}: {exc}") from None
    count = write_baseline(results, args.out, examples_as=args.examples_as)
    if not args.quiet:
        print(f"wrote {count} entr{'y' if count == 1 else 'ies'} to {args.out} (reasons are TODO: review them)", file=sys.stderr)
    return 0
