"""`bleu-oracle doctor`: explain a BLEU number, and any two that differ, on the user's own files."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.escaping import json_shown, shown
from oracle.formulas.errors import BleuValueError
from oracle.models.wire import json_value

from .common import HelpFormatter

HELP = """Explain a BLEU number on your own files: why 26.65 here and 24.1 there.

First, the layout lint: what makes BLEU silently wrong on real files (line counts that differ, a
reference shifted or in another order, references transposed, hypothesis and reference swapped, a
reference duplicated, one side lowercased or tokenized and the other not, empty lines, a byte-order
mark, CR line ends, NUL, bytes that are not UTF-8, a line separator other than "\\n" inside a line:
U+2028, U+2029, NEL, VT, FF, FS, GS, RS or a lone CR, where str.splitlines() readers end a line), each
with its file and line (and column) and its effect on the score, measured by the oracle.

Then every documented reading side by side: every profile (`bleu-oracle profiles`) under every
tokenizer (none, 13a, intl, char), with and without lowercasing, on both scales, each with its
signature. The files are read once and streamed; each token stream is counted once and every
reading is computed from the shared statistics.

Where a library as shipped departs from its documented profile (nltk's corpus_bleu floors each
segment's n-gram totals at 1), a note under the table gives the number its code computes and the
reading (a signature) that reproduces it.

--number X (repeatable; 0-1 or 0-100, with the digits you have): every reading that reproduces X
within its printed digits, most plausible first: a tool's defaults (a profile as it stands under its
own tokenizer and case, or its library as shipped), then the fewest departures from them (another
tokenizer or case, a reference length rule, smoothing, empty-order rule, a mean of sentence scores,
...), then the closest. A number with few digits (sacrebleu's 45.6) fits several readings: the
first is the one a tool gives by default, and layout effects are measured under it. When none
reproduces X, the nearest readings and what their statistics would need. --signature S
(sacrebleu's, 1.x or 2.x, or this project's): its reading computed here.

With two or more numbers or signatures: the path from the first one's reading to each other's, one
convention changed at a time (tokenizer, case, reference length, smoothing, empty-order rule, floor
of segment totals, aggregation, scale), each step with the score it reaches and its share.

Exit codes: 0 every given number is explained (or none was given) and no layout finding is at the
--fail-on level; 1 a number is not explained, or a finding is at the --fail-on level (default
error: an error-level finding, such as line counts that differ, exits 1 -- gate CI on it; warning:
warnings too; never: findings leave the exit code alone); 2 bad input (one line on stderr); 4 an
internal error.

Examples:
  bleu-oracle doctor --hyp out.txt --ref ref.txt
  bleu-oracle doctor --hyp out.txt --ref ref.txt -q --fail-on warning      # lint the files in CI
  bleu-oracle doctor --hyp out.txt --ref ref.txt --number 26.65 --number 0.2436
  bleu-oracle doctor --hyp out.txt --ref ref.txt --json \\
      --signature "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("doctor", help=SUMMARIES["doctor"], description=HELP, formatter_class=HelpFormatter)
    parser.add_argument(
        "--hyp", required=True, metavar="FILE", help="the hypothesis file (one segment per line; .gz too)"
    )
    parser.add_argument("--ref", required=True, action="append", metavar="FILE",
                        help="a reference file, one reference stream (repeat for more)")
    parser.add_argument("--number", action="append", default=[], metavar="X",
                        help="a BLEU score to explain, as printed (0-1 or 0-100; repeatable)")
    parser.add_argument("--signature", action="append", default=[], metavar="S",
                        help="a signature to compute (sacrebleu's or bleu-oracle's; repeatable)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (oracle/models/schemas/doctor.schema.json)"
    )
    parser.add_argument("--report", metavar="DIR",
                        help="also write DIR/doctor.md and DIR/doctor.json (a previous doctor report's are replaced; a "
                        "doctor.md or doctor.json of yours there is refused, never overwritten)")
    parser.add_argument("--fail-on", choices=["error", "warning", "never"], default="error", metavar="LEVEL",
                        help="exit 1 when a layout finding is at least this severe: error (default), warning, or "
                             "never; an unexplained --number exits 1 whatever LEVEL")
    parser.add_argument("-q", "--quiet", action="store_true", help="leave the readings table out of the text")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="every reading's signature and every listed explanation (the first 50) in the text; "
                             "an internal error prints its traceback")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from oracle.doctor import diagnose_files
    from oracle.doctor.render import markdown, text

    if args.report and Path(args.report).exists() and not Path(args.report).is_dir():  # before any work, as `check`
        raise BleuValueError(f"`--report {args.report}`: a file is in the way (a report is a directory)")
    if args.report:
        _refuse_files_of_the_users(Path(args.report))
    _refuse_files_without_lines([("--hyp", args.hyp), *(("--ref", ref) for ref in args.ref)])
    report = diagnose_files(args.hyp, args.ref, numbers=args.number, signatures=args.signature,
                            fail_on=args.fail_on)
    payload = json_shown(report.model_dump_json(by_alias=True, indent=1))  # (the same JSON, no raw control)
    if args.report:
        # each file written whole or not at all, into DIR as it is: other files there are left alone
        from oracle.reports.staging import write_atomically

        write_atomically(Path(args.report) / "doctor.json", payload + "\n")
        write_atomically(Path(args.report) / "doctor.md", shown(markdown(report), lines=True))
    if args.json:
        sys.stdout.write(payload + "\n")
    else:  # file names and signatures are the user's text: a control in one is shown as its escape
        sys.stdout.write(shown(text(report, verbose=args.verbose, quiet=args.quiet), lines=True))
    return report.exit_code


def _refuse_files_without_lines(given: list[tuple[str, str]]) -> None:
    """Files that are all empty (outputs not written yet, wrong paths' empty files) are a usage error, as `score` says
    of them: there is nothing to diagnose, where the lint said "no problem found" and exited 0. One empty file beside
    files with lines is the lint's (line counts that differ). Only sizes are looked at: what a file holds,
    undecodable bytes included, is the diagnosis's to read (and a missing one's error its to give)."""
    if all(Path(path).is_file() and Path(path).stat().st_size == 0 for _, path in given):
        option, path = given[0]
        raise BleuValueError(f"`{option} {path}` holds no line, nor does any --ref: nothing to diagnose")


#: The files `doctor --report DIR` writes, and what marks doctor.json as one it wrote (its `schema`, the one value
#: of oracle.doctor.model.SchemaVersion, not imported here: the diagnosis loads only when it runs).
REPORT_FILES = ("doctor.json", "doctor.md")
REPORT_SCHEMA = "bleu-oracle-doctor/1"


def _refuse_files_of_the_users(directory: Path) -> None:
    """DIR's doctor.md or doctor.json that is not a previous doctor report's (its doctor.json marked with
    REPORT_SCHEMA) is the user's: never overwritten, refused before any work."""
    present = [name for name in REPORT_FILES if os.path.lexists(directory / name)]
    if not present:
        return
    try:
        ours = json_value((directory / "doctor.json").read_text(encoding="utf-8")).get("schema") == REPORT_SCHEMA
    except (OSError, ValueError, AttributeError):
        ours = False
    if not ours:
        raise BleuValueError(f"`--report {directory}` holds {', '.join(present)} of your own, where doctor writes its "
                             "report (doctor.md, doctor.json): move it, or choose another directory")
