"""`bleu-oracle merge`: the report and gate of a run made in shards (`check` or `fuzz` with `--shard K/N`)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.escaping import shown
from oracle.exitcodes import EXIT_DEVIATIONS
from oracle.formulas.errors import BleuValueError

from .common import add_report_force, outputs_apart

DEFAULT_REPORT = "bleu-oracle-report"

HELP = """Combine the report directories of a run's N shards into the whole run's report.

Each machine runs its shard: `bleu-oracle check ... --shard K/N --report shard-K` (or `fuzz`), with
every other option the same. `merge shard-1 ... shard-N` then writes what one unsharded run writes:
results.jsonl with the same records in the same order (cases one from each shard in turn, as
`--shard` dealt them; then random examples by index), summary.md and junit.xml derived from it, and
the same exit code. Only durations, timestamps and the protocol's seq numbers differ. It prints what
the unsharded run prints when it is over, read from the merged report (the deviations grouped by root
cause with their inputs and reproductions, the root causes, stale baseline entries; -v: all of them).

The gate is merge's: every record is gated again by --baseline (default: none), stale entries are
found over the whole run, and a run that judged nothing at all is an error (exit 2) unless
--allow-empty, even when each shard exited 0 (a shard that judged nothing is no error by itself:
the other shards may judge everything). A shard's own exit code speaks for its share only.

Refused, before anything is written (exit 2, naming the directory): a report that is not a shard's
run, a run that did not complete (interrupted, no footer, the implementation not driven, an error),
shards of different runs (another seed, profile, implementation, suite version or setting), a shard
missing or given twice.

Each shard has its own restart budget (--max-restarts): where a shard's implementation crashed past
it, the merge says so on stderr, since one process would have stopped attempting at another point.

Exit codes: 0 conforming, 1 deviations found, 2 usage error or refused inputs, 4 an
internal error (a bug in bleu-oracle).

Examples:
  bleu-oracle merge shard-1 shard-2 shard-3 --report bleu-oracle-report
  bleu-oracle merge shards/* --baseline baselines/sacrebleu.yaml --junit out/junit.xml
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("merge", help=SUMMARIES["merge"], description=HELP,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directories", nargs="+", metavar="DIR",
                        help="the report directory of each shard's run (or its results.jsonl)")
    parser.add_argument("--report", default=DEFAULT_REPORT, metavar="DIR",
                        help=f"where the whole run's report goes (default ./{DEFAULT_REPORT})")
    add_report_force(parser)
    parser.add_argument("--junit", metavar="FILE", help="JUnit XML file (default DIR/junit.xml)")
    parser.add_argument("--badge", metavar="FILE", help="also write a shields.io endpoint badge (JSON), as check does")
    parser.add_argument("--baseline", metavar="FILE",
                        help="known deviations to gate the whole run on, as `check --baseline` (YAML or JSON)")
    parser.add_argument("--allow-unreviewed", action="store_true",
                        help="accept baseline entries whose reason is still TODO or empty (refused by default)")
    parser.add_argument("--allow-empty", action="store_true",
                        help="accept a run that judged nothing in any shard (by default an error, exit 2)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every deviation and every input whole, as `check -v` (or `fuzz -v`) does")
    parser.set_defaults(handler=run)


def _not_an_input(report: Path, directories: list[str]) -> None:
    """The merged report must not go over a shard's: it is read while the merged one is written."""
    target = os.path.realpath(report)  # (a loop of symlinks stays as given, where resolve() raises)
    for directory in directories:
        if os.path.realpath(directory) == target:
            raise BleuValueError(f"`--report {report}` is the shard directory {directory}: write the merged report "
                                 "elsewhere")


def _note_the_shards_baseline(shards, args: argparse.Namespace) -> None:
    """The merge gates with its own --baseline only: say so when the shards were run with one and it got none."""
    used = sorted({stream.header.settings.baseline for stream in shards if stream.header.settings.baseline})
    if used and not args.baseline:
        print(shown(f"bleu-oracle merge: note: the shards were run with --baseline {', '.join(used)[:200]}; the merge "
                    "gates with none (pass --baseline to gate the whole run on it)"), file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from oracle.harness.events import RESULTS_FILE
    from oracle.harness.gate import load_baseline
    from oracle.harness.merge import copy_replays, merge_streams, read_shards
    from oracle.reports.staging import ReportDirectory
    from oracle.reports.summaries import publishing
    from oracle.signals import stopped_by_signals

    report_dir = Path(args.report)
    _not_an_input(report_dir, args.directories)
    shards = read_shards(args.directories)
    if args.baseline and shards[0].header.settings.verb == "fuzz":
        raise BleuValueError("`--baseline` gates a check run; these shards are of `fuzz`, which has no gate")
    baseline = load_baseline(args.baseline, allow_unreviewed=args.allow_unreviewed) if args.baseline else None
    if baseline is not None and baseline.strict and not shards[0].header.settings.strict:
        raise BleuValueError(f"`--baseline {args.baseline}` says `strict: true`, but the shards were run without "
                             "--strict: their convention values on undefined inputs were judged acceptable; run the "
                             "shards with --strict (or with this baseline)")
    _note_the_shards_baseline(shards, args)
    junit = Path(args.junit) if args.junit else report_dir / "junit.xml"
    outputs_apart([("--junit", junit), ("--badge", args.badge)], inputs=[("--baseline", args.baseline)],
                  report=report_dir, input_directories=args.directories)
    report = ReportDirectory.prepare(report_dir, force=args.report_force)
    # summary.md and junit.xml derived from the merged stream alone; then the report published
    with publishing(report, junit=report.staged_path(args.junit),
                    badge_file=report.staged_path(args.badge)) as derived, stopped_by_signals():
        merged = merge_streams(shards, report.staging / RESULTS_FILE, baseline=baseline,
                               baseline_name=args.baseline, report=str(report_dir), allow_empty=args.allow_empty)
        copy_replays(shards, report.staging)
    for note in merged.notes:
        print(shown(f"bleu-oracle merge: note: {note}"), file=sys.stderr)
    if merged.footer.error:
        raise BleuValueError(merged.footer.error)
    if not args.quiet:
        _print_outcome(derived, shards[0].header.settings.verb, len(shards), report_dir, junit,
                       verbose=args.verbose)
        if merged.code == EXIT_DEVIATIONS and shards[0].header.settings.verb == "check":
            print(shown(_next_step(report_dir, args.baseline, merged.footer.baseline)))
    return merged.code


def _next_step(report_dir: Path, baseline_file: str | None, baseline) -> str:
    """The one line that says what to do after a merged check that fails its gate, as `check` ends with one: the
    baseline's update where only deviations gone fail it, else a baseline written or updated from the merged run."""
    from oracle.harness.events import RESULTS_FILE
    from oracle.reports.console import gone

    summary = report_dir / "summary.md"
    if baseline_file:
        update = (f"`bleu-oracle baseline update --from {shlex.quote(str(report_dir))} --baseline "
                  f"{shlex.quote(baseline_file)}`")
        if gone(baseline) is not None:
            return (f"next: the baseline lists deviations this run no longer has: {update} removes them (printing "
                    "each, with its reason) and the gate passes again; commit the file it writes")
        return (f"next: read {summary}; fix what is a bug, or record what is acceptable: {update} adds the new "
                "deviations (reason TODO: write why each is acceptable) and removes those that no longer occur")
    return (f"next: read {summary}; to gate on these deviations, write a baseline with `bleu-oracle baseline write "
            f"--from {report_dir / RESULTS_FILE} --out baseline.yaml`, give each entry its reason, and pass --baseline "
            "baseline.yaml to merge")


def _print_outcome(derived, verb: str, shards: int, report_dir: Path, junit: Path, *, verbose: bool) -> None:
    """What the unsharded `check` (or `fuzz`) prints when its run is over, from the merged report as theirs is from
    their own (`oracle.reports.console`: summary.md's groups, root causes, stale baseline entries), the verdict said
    by merge."""
    from oracle.reports.console import print_check, print_fuzz

    said_by = f"bleu-oracle merge: {shards} shard(s)"
    if verb == "fuzz":  # (a sharded fuzz writes no cases: `--write-cases` with `--shard` is refused)
        print_fuzz(sys.stdout, derived, [], report_dir=report_dir, verbose=verbose, said_by=said_by)
    else:
        print_check(sys.stdout, derived, report_dir=report_dir, junit=junit, verbose=verbose, said_by=said_by)
