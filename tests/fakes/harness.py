"""Helpers for the check/runner/baseline/report tests: fake commands and an in-process CLI.

`run_cli` builds a parser holding only the `check`, `fuzz` and `baseline` verbs (the
real `oracle.cli` parser class, so usage errors exit 2 the same way), so these
tests do not depend on the other verbs importing cleanly.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

FAKES = Path(__file__).resolve().parent


def fake(name, *flags):
    """The --command string that runs tests/fakes/<name>.py with this Python."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *flags])


def fake_argv(name, *flags):
    return [sys.executable, str(FAKES / f"{name}.py"), *flags]


def build_parser():
    from oracle.cli import _Parser
    from oracle.commands import baseline, check, fuzz

    parser = _Parser(prog="bleu-oracle")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    subparsers.required = True
    check.register(subparsers)
    fuzz.register(subparsers)
    baseline.register(subparsers)
    return parser


def run_cli(*argv):
    """Run `bleu-oracle VERB ...` in process; returns the exit code (argparse's SystemExit included)."""
    from oracle.errors import BleuOracleError

    try:
        args = build_parser().parse_args([str(a) for a in argv])
    except SystemExit as exc:
        return exc.code
    try:
        return args.handler(args)
    except BleuOracleError as exc:
        print(f"bleu-oracle {args.verb}: error: {exc}", file=sys.stderr)
        return 2


def check(report, command, *more, examples=30, timeout=5):
    """`bleu-oracle check --command COMMAND --no-cases --examples N --report DIR --quiet ...`."""
    return run_cli("check", "--command", command, "--no-cases", "--examples", examples, "--timeout", timeout,
                   "--report", report, "--quiet", *more)


def results(report):
    from oracle.events import read_results

    return read_results(Path(report) / "results.jsonl")


def deviations(report):
    return [r for r in results(report).records if r["outcome"] not in ("pass", "rejected", "not-applicable")]
