"""`bleu-oracle baseline write` and `baseline update`: a baseline of known deviations from a run, for review, and
kept to what a later run observes."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.escaping import shown
from oracle.formulas.errors import BleuValueError, os_reason
from oracle.harness.baseline_file import CASES_AS, EXAMPLES_AS, update_baseline, write_baseline
from oracle.harness.events import ResultsFormatError, read_results

HELP = """Manage baselines of known deviations (see `bleu-oracle check --help`, Baselines).

A baseline's life:
  bleu-oracle check --command CMD                      # deviations found (exit 1)
  bleu-oracle baseline write --from bleu-oracle-report --out baseline.yaml
  (replace every TODO under `reason: |-` with why the deviation is acceptable: any
  text, on lines indented as TODO is)
  bleu-oracle check --command CMD --baseline baseline.yaml       # gate green (exit 0)
  (the implementation changes: a bug fixed, a new one)
  bleu-oracle check --command CMD --baseline baseline.yaml       # gate fails (exit 1)
  bleu-oracle baseline update --from bleu-oracle-report --baseline baseline.yaml
  (review what it added, if anything; commit the file)

write: every deviation of the run (any outcome other than pass, rejected and
not-applicable) as an entry {id, outcome, reason: TODO, ...} for a human to
review. One bug, one entry: the documented cases and random examples that fail
for one root cause of the run share an entry `cause:<name>`, its cases listed
under it (`cases:`, each as strict as an entry of its own: the gate fails when
one passes or is gone) and its random examples counted (any random example
failing for that reason under any seed; an unused cause entry only warns). A
case or example without an explained root cause gets an entry of its own.

Onto an existing baseline, nothing in it is lost: its entries, reasons and
comments stay as written, the run's deviations no entry matches are appended
(reason TODO; a case whose cause already has a reviewed entry gets an entry of
its own, for review), and the entries this run did not observe are listed on
stderr (kept). A YAML list of entries that cannot be added to (flow style) is
refused unless --force (rewrites it: entries and reasons kept, comments lost),
and so is a baseline whose header names another implementation or profile than
the run's (exit 2, the file untouched). So is a --replay run: the labels of its
replayed inputs (replay-0, ...) are in no other run, so no gate could match them.

update (a prune): the baseline kept to what a later run observes. An entry that
still matches a deviation of the run stays as written, reviewed reason and all;
one that no longer does (its deviation passes now, or deviates otherwise, or has
no record in the run; a cause or class no record has) is removed, and a case
listed under a cause entry is removed from its `cases`; the run's deviations no
entry matches are added as `write` adds them (reason TODO). Each removal and
addition is printed on its own line, a removed entry with the reason it had.
Only what the run could have met is removed: a case it did not judge (--no-cases,
--cases), an example it did not draw (another seed, fewer --examples), a cause
or class entry after fewer random examples than the baseline's run drew (its
header's `examples:`; a baseline without it keeps them) is kept, printed "unmet".
Refused (exit 2): a run of another implementation or profile than the
baseline's header names, and a run that did not judge everything (cut short or
interrupted, an --id selection, one shard, a --replay, records not attempted):
it would remove the entries of what it never got to.

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

Documented cases (--cases-as):
  causes   (default) listed under their root cause's entry (one reason per bug);
           a case without an explained root cause by its id
  ids      every case an entry of its own (one reason per case)

Exit codes: 0 written or updated (or nothing to update), 2 a usage or input
error, or a refused update (one line on stderr; the file untouched), 4 an
internal error (a bug in bleu-oracle).

Examples:
  bleu-oracle baseline write --from bleu-oracle-report --out baseline.yaml
  bleu-oracle baseline update --from bleu-oracle-report --baseline baseline.yaml
"""

UPDATE_HELP = """Keep a baseline to what a later run observes (a prune, and the additions `write` makes):

  bleu-oracle baseline update --from bleu-oracle-report --baseline baseline.yaml

removes the entries no longer observed in the run's results.jsonl (a known
deviation that passes now, deviates otherwise or has no record; a cause or class
no record has; a case listed under a cause entry is removed from its `cases`),
only where the run could have met them (a smaller run's unmet entries are kept
and printed: a case it did not judge, an example it did not draw, a cause or
class entry after fewer random examples than the baseline header's `examples:`),
adds the run's deviations no entry matches (reason TODO, as `write` adds them),
and keeps every other entry as written, reviewed reason and comments included.
Each removal and addition is printed on one line (a removed entry with the
reason it had: your version control keeps the rest). The file is written whole
or not at all, through a symbolic link and with its permissions kept.

Refused (exit 2, nothing written): a run of another implementation or profile
than the baseline's header names (the rule `check --baseline` follows), and a
run that did not judge everything it would judge: cut short or interrupted (no
footer), an --id selection, one shard of a run (update from `merge`'s report), a
--replay, or a run whose implementation crashed past --max-restarts. Each would
remove entries for what the run never got to.
"""


def register(subparsers):
    parser = subparsers.add_parser("baseline", help=SUMMARIES["baseline"],
                                   description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    write = actions.add_parser("write", help="write a baseline from a results.jsonl, or add to one", description=HELP,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    write.add_argument("--from", dest="source", required=True, metavar="RESULTS",
                       help="a results.jsonl written by `check` (or its report directory)")
    write.add_argument("--out", required=True, metavar="FILE", help="the baseline to write (.json for JSON, else YAML)")
    _keying_arguments(write)
    write.add_argument("--force", action="store_true",
                       help="when FILE exists and its entries cannot be appended to (a flow-style list), rewrite it: "
                       "entries and reasons kept, comments lost (refused by default)")
    write.add_argument("-q", "--quiet", action="store_true", help="no line on stderr saying what was written")
    write.set_defaults(handler=run_write)
    update = actions.add_parser("update", help="remove the entries a later run no longer observes and add its new "
                                "deviations (a prune)", description=UPDATE_HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    update.add_argument("--from", dest="source", required=True, metavar="RUN",
                        help="a whole `check` run's report directory (or its results.jsonl)")
    update.add_argument("--baseline", required=True, metavar="FILE", help="the baseline to update in place")
    _keying_arguments(update)
    update.add_argument("--force", action="store_true",
                        help="when FILE's entries cannot be edited in its text (a flow-style list), rewrite it: "
                        "entries and reasons kept, comments lost (refused by default)")
    update.add_argument("-q", "--quiet", action="store_true", help="print nothing (errors aside)")
    update.set_defaults(handler=run_update)


def _keying_arguments(parser):
    parser.add_argument("--examples-as", choices=EXAMPLES_AS, default="causes",
                        help="how random examples are keyed (default: causes)")
    parser.add_argument("--cases-as", choices=CASES_AS, default="causes",
                        help="documented cases listed under their root cause's entry (default) or each by its id")


def _read(source):
    try:
        return read_results(source)
    except FileNotFoundError as exc:
        if not Path(source).exists():
            raise BleuValueError(f"`--from {source}`: no such file or directory (give a `check` run's report "
                                 "directory or its results.jsonl)") from None
        raise BleuValueError(f"cannot read {source}: no {Path(exc.filename or source).name} there (give "
                             "a `check` run's report directory or its results.jsonl)") from None
    except OSError as exc:
        raise BleuValueError(f"cannot read {source} ({os_reason(exc)})") from None
    except ResultsFormatError as exc:
        raise BleuValueError(f"cannot read {source}: {exc}") from None


def run_write(args):
    if Path(args.out).is_dir():
        raise BleuValueError(f"`--out {args.out}`: a directory is in the way (a baseline is a file)")
    results = _read(args.source)
    if results.header.settings.replay:  # (its labels, replay-0 ..., are in no other run: no gate could match them)
        raise BleuValueError(f"`--from {args.source}`: it is a --replay run (it ran the replayed inputs only); "
                             "write the baseline from a whole `check` run's report")
    written = write_baseline(results, args.out, examples_as=args.examples_as, cases_as=args.cases_as,
                             force=args.force)
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
        listed = ", ".join(written.not_observed[:10]) + (", ..." if len(written.not_observed) > 10 else "")
        update = f"bleu-oracle baseline update --from {args.source} --baseline {args.out}"
        print(shown(f"{args.out}: {_entries(len(written.not_observed))} not observed in this run, kept "
                    f"(`{update}` removes them): {listed}"), file=sys.stderr)
    return 0


def run_update(args):
    results = _read(args.source)
    updated = update_baseline(results, args.baseline, examples_as=args.examples_as, cases_as=args.cases_as,
                              force=args.force)
    if args.quiet:
        return 0
    for removed in updated.removed:
        if removed.case is not None:
            print(shown(f"removed {removed.case} from the cases of {removed.id} ({removed.why})"))
        else:
            print(shown(f"removed {removed.id} ({removed.why}); its reason was: {_cut(removed.reason)}"))
    for added in updated.added:
        print(shown(f"added {added['id']} ({_covers(added)}): reason TODO"))
    for unmet in updated.unmet:  # kept: a smaller run than the baseline's cannot say these are gone
        what = f"{unmet.case} in the cases of {unmet.id}" if unmet.case is not None else unmet.id
        print(shown(f"kept {what}, unmet: {unmet.why}"))
    entries_removed = sum(1 for r in updated.removed if r.case is None)
    cases_removed = len(updated.removed) - entries_removed
    if not updated.removed and not updated.added:
        matched = (f"{len(updated.unmet)} kept unmet (above), every other entry still matches a deviation"
                   if updated.unmet else "every entry still matches a deviation")
        print(shown(f"{args.baseline}: {matched} of {args.source}, and no deviation is new: nothing to update"))
        return 0
    summary = f"removed {_entries(entries_removed)}" + (f" and {cases_removed} listed case(s)" if cases_removed else "")
    print(shown(f"{args.baseline}: {summary}, added {_entries(len(updated.added))}, kept "
                    f"{_entries(updated.kept)} as written" + ("; review the TODO reasons before the next gate: "
                    f"`bleu-oracle check ... --baseline {shlex.quote(str(args.baseline))}`" if updated.added else "")))
    return 0


def _covers(entry):
    """What an added entry stands for, in words: "fail, 3 cases, 12 random examples" or "fail at score"."""
    parts = [entry["outcome"] + (f" at {entry['layer']}" if entry.get("layer") else "")]
    if entry.get("cases"):
        parts.append(f"{len(entry['cases'])} case(s)")
    if entry.get("count"):
        parts.append(f"{entry['count']} random example(s)")
    return ", ".join(parts)


def _cut(text, limit=300):
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _entries(count):
    return f"{count} entr{'y' if count == 1 else 'ies'}"
