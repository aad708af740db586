"""`bleu-oracle baseline write`: a baseline of known deviations from a run, for review."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.formulas.errors import BleuValueError, os_reason
from oracle.harness.events import ResultsFormatError, read_results
from oracle.harness.gate import write_baseline

HELP = """Manage baselines of known deviations (see `bleu-oracle check --help`, Baselines).

  bleu-oracle baseline write --from bleu-oracle-report/results.jsonl --out baselines/nltk.yaml

writes every deviation of the run (any outcome other than pass, rejected and
not-applicable) as an entry {id, outcome, reason: TODO, layer, message}; a
human then replaces each TODO with the reason the deviation is acceptable.

Onto an existing baseline, nothing in it is lost: its entries, reasons and
comments stay as written, the run's deviations it does not list are appended
(reason TODO), and the entries this run did not observe are listed on stderr
(kept). A YAML list of entries that cannot be appended to (flow style) is
refused unless --force (rewrites it: entries and reasons kept, comments lost).

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
    write.add_argument("--force", action="store_true",
                       help="when FILE exists and its entries cannot be appended to (a flow-style list), rewrite it: "
                       "entries and reasons kept, comments lost (refused by default)")
    write.add_argument("-q", "--quiet", action="store_true", help="no line on stderr saying what was written")
    write.set_defaults(handler=run_write)


def run_write(args):
    try:
        results = read_results(args.source)
    except FileNotFoundError as exc:
        raise BleuValueError(f"cannot read {args.source}: no {Path(exc.filename or args.source).name} there (give "
                             "a `check` run's report directory or its results.jsonl)") from None
    except OSError as exc:
        raise BleuValueError(f"cannot read {args.source} ({os_reason(exc)})") from None
    except ResultsFormatError as exc:
        raise BleuValueError(f"cannot read {args.source}: {exc}") from None
    written = write_baseline(results, args.out, examples_as=args.examples_as, force=args.force)
    if args.quiet:
        return 0
    if results.footer is None:
        print(f"note: {args.source} is of a run cut short (no footer: interrupted or killed): the baseline lists the "
              "deviations it got to; a whole run may find more", file=sys.stderr)
    if not written.kept:
        print(f"wrote {_entries(written.added)} to {args.out} (reasons are TODO: review them)", file=sys.stderr)
        return 0
    print(f"{args.out}: kept its {_entries(written.kept)} as written, added {_entries(written.added)} for the "
          "deviations it did not list" + (" (reasons are TODO: review them)" if written.added else ""), file=sys.stderr)
    if written.not_observed:
        shown = ", ".join(written.not_observed[:10]) + (", ..." if len(written.not_observed) > 10 else "")
        print(f"{args.out}: {_entries(len(written.not_observed))} not observed in this run, kept (remove them by hand "
              f"if the deviation is gone): {shown}", file=sys.stderr)
    return 0


def _entries(count):
    return f"{count} entr{'y' if count == 1 else 'ies'}"
