"""`bleu-oracle fuzz`: search for inputs where an implementation and the oracle disagree, and name why."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.formulas.errors import BleuValueError
from oracle.harness.gate import BaselineTracker
from oracle.harness.searchcache import open_root
from oracle.harness.session import (
    DEFAULT_EXAMPLES,
    SessionSettings,
    implementation_argv,
    run_session,
    stopped_by_signals,
)
from oracle.harness.shards import Shard
from oracle.reports.console import print_fuzz
from oracle.reports.staging import ReportDirectory
from oracle.reports.summaries import publishing

from .common import (
    add_session_arguments,
    non_negative_int,
    outputs_apart,
    prepare_implementations,
    seed_number,
    sharded,
)

DEFAULT_REPORT = "bleu-oracle-fuzz"

HELP = """Search for inputs on which an implementation and the oracle disagree, and name the root cause.

The implementation is driven exactly as by `check` (protocol v1; --impl NAME
runs a built-in adapter behind `bleu-oracle serve`): --examples random valid
inputs within its declared capabilities (example I of seed S is the same as
check's random-S-I), each judged against the oracle under the judged profile
(--profile, else the one the implementation declares). Each disagreement is
shrunk to a minimal input that still fails the same way (drop segments,
references, tokens; shorten weights; simplify smoothing; rename tokens), then
classified by oracle.diagnose.classify: the oracle is recomputed under alternative
conventions and computations until one gives the implementation's answer --
first among the implementation's documented classes
(oracle/diagnose/data/discrepancies.yaml), then among all. The minimal examples are
grouped by that root cause; for each class the summary prints its name,
description and count, the smallest example with both values (the
implementation's and the oracle's), and a one-line reproduction (`check
--replay`).

Reports: DIR/results.jsonl (the same event stream as check: one record per
example, kind "example", with a "classification" object) and DIR/summary.md
derived from it (`python -m oracle.reports.summaries DIR/results.jsonl` regenerates it).

--write-cases FILE writes the smallest example of every explained class as a
regression case (the cases/ format), appending to FILE if it already holds
cases written this way. Design: expected values never come from the oracle's
output, so a found case takes its expected value from the implementation:
  - the file says `found_by: fuzz` instead of naming a seed document;
  - `expect.score` is the value the implementation answered (within the
    numeric contract; float32 precision for a "+ float32" class), with its
    statistics when it returned them and the explanation reproduces them;
  - `explained_by: {name, change}` records the root cause; `bleu-oracle cases
    validate` recomputes the oracle under the judged profile changed that way
    (oracle.diagnose.classify.explained_value) and checks that it gives the
    implementation's value -- the independent implementation is the source of
    the expected value, the explanation is what is tested;
  - `profiles: [the judged profile]`, `kind: value`, `source: {document:
    "bleu-oracle fuzz against <impl> <version>", section: <class>, quote: <the
    class's description>}`, and a note with the oracle's own value;
  - `bleu-oracle check --cases DIR` judges these inputs against the oracle
    only (their observed value is not a documented one): they fail while the
    disagreement persists -- key a baseline on their ids -- and pass once fixed.
Ids are fuzz-<impl>-<class>-<hash of the input>: stable (the same input is not
written twice), never one that exists or is retired in --cases DIR. Keep FILE
out of the documented cases/ directory (e.g. cases-found/nltk.yaml). Rejections,
errors, crashes and unexplained values are listed but not written: there is no
explanation the oracle could replay. Every case is loaded and checked against
the oracle before it is kept.

Exit codes: 0 no disagreement, 1 disagreements found, 2 usage or configuration
error (also a search that judged nothing, unless --allow-empty), 3 the
implementation could not be driven, 4 an internal error (a bug in bleu-oracle).

Examples:
  bleu-oracle fuzz --impl nltk --examples 500
  bleu-oracle fuzz --impl sacrebleu --seed 7 --write-cases cases-found/sacrebleu.yaml
  bleu-oracle fuzz --command "python3 my_bleu_server.py" --profile papineni
"""


def register(subparsers):
    parser = subparsers.add_parser("fuzz", help=SUMMARIES["fuzz"],
                                   description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_session_arguments(parser, report_help=f"default ./{DEFAULT_REPORT}")
    parser.add_argument("--examples", type=non_negative_int, default=DEFAULT_EXAMPLES, metavar="N",
                        help=f"number of random examples (default {DEFAULT_EXAMPLES})")
    parser.add_argument("--seed", type=seed_number, default=0, metavar="S",
                        help="seed of the search (default 0; the same seed gives the same inputs as check's)")
    parser.add_argument("--write-cases", metavar="FILE",
                        help="write the smallest example of each explained class as a regression case (see above)")
    parser.add_argument("--cases", metavar="DIR",
                        help="the case directory whose ids (and retired ids) new case ids must avoid "
                        "(default: the repository's cases/)")
    parser.add_argument("--allow-empty", action="store_true",
                        help="accept a search that judges nothing (--examples 0, every input not applicable): by "
                        "default that is an error (exit 2), never \"no disagreement\"")
    parser.set_defaults(handler=run, only=None, replay=None, baseline=None)


def _command_line(args):
    parts = ["bleu-oracle", "fuzz"]
    parts += ["--impl", args.impl] if args.impl else ["--command", args.command]
    if args.profile:
        parts += ["--profile", args.profile]
    parts += ["--seed", str(args.seed), "--examples", str(args.examples)]
    return shlex.join(parts)


def _share(args: argparse.Namespace) -> int:
    """How many random examples this run draws: all of them, or its shard's (`--shard`)."""
    return (args.shard or Shard()).examples_owned(args.examples)


def run(args: argparse.Namespace) -> int:
    args.report = args.report or DEFAULT_REPORT
    report_dir = Path(args.report)
    part = sharded(args)  # (a shard may own no example: the merge judges the whole search)
    if part and args.write_cases:  # (--shard read first: a bad K/N is a usage error before anything runs)
        raise BleuValueError("`--write-cases` writes the smallest example of each root cause of the whole search; "
                             "a shard sees only its share: run the search unsharded to write cases")
    outputs_apart([("--junit", Path(args.junit) if args.junit else report_dir / "junit.xml"),
                   ("--write-cases", args.write_cases)], inputs=[], report=report_dir)
    settings = SessionSettings.from_args(args)
    argv = implementation_argv(settings)
    if settings.search_cache and settings.examples:
        open_root()  # (a directory holding other data is refused before anything runs)
    if args.write_cases:
        from oracle.suite.foundcases import read_target

        read_target(args.write_cases)  # a usage error (exit 2) before anything runs
    tracker = BaselineTracker(None, check_stale=False)
    not_ready = prepare_implementations("fuzz", [args.impl], quiet=args.quiet)
    if not_ready is not None:
        return not_ready
    report = ReportDirectory.prepare(report_dir, force=args.report_force)  # see check: nothing else touched
    # summary.md and junit.xml are derived from results.jsonl alone when the run is over, then the report published
    with publishing(report, junit=report.staged_path(args.junit)) as derived, stopped_by_signals():
        # the series length too (fuzz has no --series-length, but its series run with the default length)
        recorded = settings.run_settings("fuzz", argv, write_cases=args.write_cases)
        code, session = run_session(settings, argv, recorded=recorded,
                                    tracker=tracker, total=_share(args), work=lambda s: s.run_examples(),
                                    report_dir=report.staging, require_judged=not args.allow_empty and not part)
    if session is None or derived.summary is None:
        return code
    # the root causes summary.md names, from the same tally: the case written for each is its smallest example
    groups = derived.summary.root_causes.groups()
    written = []
    if args.write_cases and groups:
        from oracle.reports.foundcases import write_cases

        implementation = session.process.handshake.implementation
        written = write_cases(args.write_cases, groups, implementation=implementation.name,
                              version=implementation.version, profile=session.profile,
                              cases_dir=args.cases, found_by_command=_command_line(args))
    if not args.quiet:
        print_fuzz(sys.stdout, derived, written, report_dir=report_dir, verbose=args.verbose)
    return code
