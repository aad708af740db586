"""`bleu-oracle cases`: list the documented cases, or validate them against the oracle."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.suite import cases as casefiles

HELP = """List or validate the documented cases (cases/*.yaml).

Each case states what a source document says BLEU gives for an input: a score,
some statistics (c, r, matches, totals, BP, p_n), or that the input is invalid.
It names the profiles whose documented behaviour it states; `validate` runs it
through the oracle under each of them.

  list       one line per case: id, level, profiles, title (--json: one JSON
             object per line with the same fields plus kind, file and line)
  validate   load every case file (ids unique and not retired, fields checked),
             then run every case under each of its profiles and report PASS or
             FAIL with the expected and the actual values
  export     write the suite as flagged, language-neutral test vectors for test
             suites in any language: with --profile P (repeatable) or
             --all-profiles, DIR/P.json holds every case P can express, its
             expectation recomputed under P as `check` judges a P implementation,
             and the minimal example of every curated discrepancy of P; without,
             DIR/suite.json holds each case under each of its own profiles. Each
             vector: the protocol v1 request, what it needs of an implementation
             (level, orders, weights, smoothing, references, tokens), its result
             (valid, rejected, or acceptable where conventions split, with every
             answer), flags referring to the file's notes, the expected answer
             under the numeric contract (zero and NaN rules stated in the file);
             DIR/suite.schema.json validates every file (docs/vectors.md)

--cases DIR chooses the directory (default: the repository's cases/);
--cases FILE reads one case file of your own.

Exit codes: 0 all cases pass (or listed), 1 some case fails, 2 a case file is
malformed or the directory is missing, 4 an internal error (a bug in bleu-oracle).

Examples:
  bleu-oracle cases list
  bleu-oracle cases list --json | jq -r .id
  bleu-oracle cases validate
  bleu-oracle cases validate --id matlab-summary-bleu4 --verbose
  bleu-oracle cases export --out bleu-suite
  bleu-oracle cases export --profile papineni --out vectors
  bleu-oracle cases export --all-profiles --out vectors
"""


def register(subparsers):
    parser = subparsers.add_parser(
        "cases",
        help=SUMMARIES["cases"],
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True

    listing = actions.add_parser(
        "list", help="list the cases", description="List the cases: id, level, profiles, title."
    )
    _add_directory(listing)
    _add_id(listing, "list only the cases whose id matches this glob (repeatable), e.g. --id 'nltk-*'")
    listing.add_argument(
        "--json", action="store_true", help="one JSON object per line: id, level, profiles, title, kind, file, line"
    )
    listing.set_defaults(handler=run_list)

    validating = actions.add_parser(
        "validate",
        help="check the case files and run every case against the oracle",
        description="Load every case file, then run each case under each of its profiles. "
        "Exit 0 if all pass, 1 if any fails, 2 if a case file is malformed.",
    )
    _add_directory(validating)
    _add_id(validating, "run only the cases whose id matches this glob (repeatable), e.g. --id matlab-summary-bleu4")
    verbosity = validating.add_mutually_exclusive_group()
    verbosity.add_argument(
        "-q", "--quiet", action="store_true", help="leave out the PASS lines: only failures, problems and the count"
    )
    verbosity.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show expected and actual values for passing cases (and an internal error's traceback)",
    )
    validating.set_defaults(handler=run_validate)

    exporting = actions.add_parser(
        "export",
        help="write the suite as language-neutral JSON with its JSON Schema",
        description="Write the test vectors of each --profile (every case it can express, recomputed under it: "
        "DIR/PROFILE.json), of --all-profiles, or of each case under its own profiles (DIR/suite.json), and "
        "DIR/suite.schema.json.",
    )
    _add_directory(exporting)
    exporting.add_argument("--out", metavar="DIR", required=True, help="the directory to write")
    chosen = exporting.add_mutually_exclusive_group()
    chosen.add_argument(
        "--profile",
        action="append",
        metavar="P",
        choices=list(PROFILES),
        help=f"the vectors a P implementation is judged on, in DIR/P.json (repeatable; one of {', '.join(PROFILES)})",
    )
    chosen.add_argument("--all-profiles", action="store_true", help="--profile for every profile")
    exporting.add_argument("-q", "--quiet", action="store_true", help="no summary of what was written and left out")
    exporting.set_defaults(handler=run_export)


def _add_directory(parser):
    parser.add_argument(
        "--cases",
        metavar="DIR|FILE",
        default=None,
        help=f"directory of case files, or one case file of your own (default: {casefiles.DEFAULT_CASES_DIR})",
    )


def _add_id(parser, help_text):
    parser.add_argument("--id", action="append", metavar="ID", help=help_text)


def _select(cases, patterns, err):
    """The cases whose id matches one of the globs (all without any); None after saying which glob matched none."""
    if not patterns:
        return cases
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(case.id, p) for case in cases)]
    if unmatched:
        err.write(f"error: unknown case id(s): {', '.join(unmatched)} (no case matches)\n")
        return None
    return [case for case in cases if any(fnmatch.fnmatchcase(case.id, p) for p in patterns)]


def _load_or_report(directory, err):
    """All cases, or None after printing every problem found."""
    problems = casefiles.validate(directory)
    if problems:
        for problem in problems:
            err.write(f"error: {problem}\n")
        err.write(f"{len(problems)} problem(s) in the case files\n")
        return None
    return casefiles.load_cases(directory)


def run_list(args, out=None, err=None):
    out, err = out or sys.stdout, err or sys.stderr
    cases = _load_or_report(args.cases, err)
    if cases is not None:
        cases = _select(cases, args.id, err)
    if cases is None:
        return 2
    for case in cases:
        if args.json:
            out.write(
                json.dumps(
                    {
                        "id": case.id,
                        "level": case.level,
                        "profiles": list(case.profiles),
                        "title": case.title,
                        "kind": case.kind,
                        "file": str(case.path),
                        "line": case.line,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        else:
            out.write(f"{case.id}\t{case.level}\t{','.join(case.profiles)}\t{case.title}\n")
    return 0


def run_validate(args, out=None, err=None):
    out, err = out or sys.stdout, err or sys.stderr
    cases = _load_or_report(args.cases, err)
    if cases is not None:
        cases = _select(cases, args.id, err)
    if cases is None:
        return 2
    failed = 0
    from oracle.diagnose.casecheck import check_cases

    outcomes = check_cases(cases)
    for outcome in outcomes:
        if outcome.passed and args.quiet:
            continue
        if outcome.passed:
            out.write(f"PASS {outcome.case_id} [{outcome.profile}]\n")
            if args.verbose:
                out.write(f"     expected: {outcome.expected}\n     actual:   {outcome.actual}\n")
        else:
            failed += 1
            out.write(f"FAIL {outcome.case_id} [{outcome.profile}]\n")
            for failure in outcome.failures:
                out.write(f"     {failure}\n")
            out.write(f"     expected: {outcome.expected}\n     actual:   {outcome.actual}\n")
    out.write(
        f"{len(outcomes) - failed} passed, {failed} failed ({len(cases)} cases, {len(outcomes)} case/profile runs)\n"
    )
    return 1 if failed else 0


def run_export(args, out=None, err=None):
    out, err = out or sys.stdout, err or sys.stderr
    cases = _load_or_report(args.cases, err)
    if cases is None:
        return 2
    from oracle.reports.export import SCHEMA_FILE, write_export

    profiles = list(PROFILES) if args.all_profiles else list(dict.fromkeys(args.profile or [None]))
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BleuValueError(f"`--out {args.out}`: a file is in the way (the vectors are written into a directory)")
    written = write_export(cases, args.out, profiles)
    if args.quiet:
        return 0
    for path, suite in written:
        judged = f"under {suite.profile}" if suite.profile else "each case under its own profiles"
        out.write(f"{path}: {suite.count} vectors ({judged}), {len(suite.notes)} notes\n")
        for item in suite.left_out:
            out.write(f"  left out: {item.id} [{item.profile}]: {item.reason}\n")
    out.write(f"{args.out}/{SCHEMA_FILE}: the schema every file validates against\n")
    return 0
