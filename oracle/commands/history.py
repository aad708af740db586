"""`bleu-oracle history NAME`: one library's BLEU across its released versions."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from oracle.adapters import history as environments
from oracle.adapters.history import HistoryLibrary, NotInstallable
from oracle.commands import SUMMARIES
from oracle.exitcodes import EXIT_UNDRIVABLE
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.harness.gate import BaselineTracker
from oracle.harness.requests import request_from_json
from oracle.harness.session import SessionSettings, run_session, stopped_by_signals
from oracle.models.history import Citation, VersionRun
from oracle.models.results import RunSettings
from oracle.reports import history as pages
from oracle.reports.staging import ReportDirectory
from oracle.reports.summaries import publishing

from .common import non_negative_int, positive_float

DEFAULT_REPORT = "reports/history"

#: Upstream changes found with the project's search of public code and threads (never guessed), by the two
#: measured releases they fall between; the page shows one only where some answer changed there.
CITATIONS = {
    "nltk": (Citation(before="3.2.5", after="3.3", text="https://github.com/nltk/nltk/pull/1844 (merged, "
                      "\"Hotfix/bug in bleu score\", for nltk#1838): `p_n_new.append(sys.float_info.min)` for a zero "
                      "precision"),),
    "promptfoo": (Citation(before="0.120.27", after="0.121.20", text="https://github.com/promptfoo/promptfoo/pull/"
                           "9717 (merged; opened 2026-06-14, \"fix(assertions): correct BLEU brevity penalty "
                           "formula\"): `exp(1 - candidateLength / referenceLength)` became `exp(1 - referenceLength / "
                           "candidateLength)`; the cases classified brevity-penalty-inverted pass from 0.121.20 on"),),
    "sacrebleu": (Citation(before="2.0.0", after="2.1.0", text="sacrebleu CHANGELOG.md, 2.1.0: \"Bugfix: "
                           "BLEU.corpus_score() now using max_ngram_order (#173)\" (github.com/mjpost/sacrebleu)"),),
}

HELP = f"""Check every released version of a library against the oracle, and bisect its behaviours.

Each version is installed from its registry (PyPI; npm for promptfoo, its tarball alone) into an
environment of its own, under a Python the version supports (an nltk before 3.4 under Python 3.6; every
torchmetrics release shares one environment of torch), cached in ~/.cache/bleu-oracle/history/NAME-VERSION
($BLEU_ORACLE_HISTORY_ENVS) and reused by later runs; it is then driven through protocol v1 by the shared
driver (oracle/adapters/drivers/venv_bleu.py, npm_bleu.js), which knows the library's API across its
releases, and
checked with the cases and the minimal example of every curated discrepancy (record ids
discrepancy-ID), each version's report in REPORT/NAME/VERSION/ (results.jsonl, summary.md, junit.xml).

Then, from those reports, for each input some version deviates on: the versions showing the behaviour,
the first and last of them, the versions between which the answer changed, written to REPORT/NAME.json;
REPORT/../history.md is rendered from every REPORT/*.json.

A version that cannot be installed here (no such release, no wheel for its Python and no compiler, that
Python missing) or is older than the driver supports is listed with the reason, never skipped silently.

Libraries: {', '.join(sorted(environments.LIBRARIES))}. Without --versions, each library's default list
(`bleu-oracle history NAME --list` prints it).

Exit codes: 0 some version was measured (those that could not be are listed), 2 usage error, 3 no
version could be installed and driven, 4 an internal error (a bug in bleu-oracle).

Examples:
  bleu-oracle history nltk
  bleu-oracle history sacrebleu --versions 1.4.14,2.0.0
"""


def register(subparsers):
    parser = subparsers.add_parser("history", help=SUMMARIES["history"], description=HELP,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", metavar="NAME", help=f"the library: {', '.join(sorted(environments.LIBRARIES))}")
    parser.add_argument("--versions", metavar="V1,V2,...",
                        help="the releases to run, oldest first (default: the library's list)")
    parser.add_argument("--list", action="store_true", help="print the versions it would run and their Pythons")
    parser.add_argument("--report", metavar="DIR", default=DEFAULT_REPORT,
                        help=f"where each version's report and NAME.json go (default {DEFAULT_REPORT})")
    parser.add_argument("--cases", metavar="DIR|FILE",
                        help="run these cases instead of the bundled suite (a case directory or one case file)")
    parser.add_argument("--examples", type=non_negative_int, default=0, metavar="N",
                        help="random examples per version besides the cases and discrepancies (default 0)")
    parser.add_argument("--timeout", type=positive_float, default=30.0, metavar="SECONDS",
                        help="seconds one request may take (default 30)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(handler=run)


def chosen_versions(spec: HistoryLibrary, text: str | None) -> list[str]:
    """The versions asked for, oldest first; each a release number (else a usage error)."""
    versions = [v.strip() for v in text.split(",") if v.strip()] if text else list(spec.default_versions)
    if not versions:
        raise BleuValueError("`--versions` names no version")
    try:
        return sorted(dict.fromkeys(versions), key=environments.release)
    except NotInstallable as exc:
        raise BleuValueError(f"`--versions {text}`: {exc}") from None


def discrepancy_inputs() -> list[tuple[str, object]]:
    """(record id, request) of every curated discrepancy's minimal example."""
    from oracle.diagnose import discrepancies

    return [(pages.DISCREPANCY_PREFIX + entry.id, request_from_json(dict(entry.example.request), seq=0))
            for entry in discrepancies.models()]


def input_groups(name: str, cases) -> dict[str, pages.InputInfo]:
    """Each input's group on the page: a case's file; a discrepancy of this library, its class (its classify
    name or kind); another library's, whose example is one more input here, that library."""
    from oracle.diagnose import discrepancies

    groups = {case.id: pages.InputInfo(Path(str(case.path)).stem) for case in cases}
    for entry in discrepancies.models():
        own = entry.implementation == name
        groups[pages.DISCREPANCY_PREFIX + entry.id] = pages.InputInfo(
            entry.classify or entry.kind if own else f"{entry.implementation}'s examples",
            entry.kind if own else None, "discrepancy" if own else "example")
    return groups


def upstream_citations() -> dict[str, str]:
    """A discrepancy's upstream record, where its curated entry cites a link (found earlier, never guessed)."""
    from oracle.diagnose import discrepancies

    return {pages.DISCREPANCY_PREFIX + entry.id: entry.upstream for entry in discrepancies.models()
            if "https://" in entry.upstream}


def runtime(python: str) -> str:
    """"Python 3.6", or "node" for an npm package."""
    return python if python == "node" else f"Python {python}"


class Progress:
    """Progress lines on stderr (each version: installed, checked, how long), unless --quiet."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def say(self, text: str) -> None:
        if not self.quiet:
            print(f"bleu-oracle history: {text}", file=sys.stderr, flush=True)


def run_version(spec, version, envs, cases, extra, report_dir, args) -> tuple[int, float]:
    """Check one installed version: (the session's exit code, seconds)."""
    argv = envs.driver_argv(spec, version)
    settings = SessionSettings(impl=spec.name, command=shlex.join(argv), examples=args.examples, timeout=args.timeout,
                               report=str(report_dir), quiet=True)

    def work(session):
        session.run_cases(cases)
        session.run_replay(extra)
        session.run_examples()

    report = ReportDirectory.prepare(report_dir, force=True)
    started = time.perf_counter()
    with publishing(report), stopped_by_signals():
        code, _ = run_session(settings, argv,
                              recorded=RunSettings(verb="check", impl=spec.name, command=shlex.join(argv),
                                                   examples=args.examples),
                              tracker=BaselineTracker(None), total=len(cases) + len(extra) + args.examples,
                              work=work, report_dir=report.staging)
    return code, time.perf_counter() - started


def measure(spec, version, envs, cases, extra, args, progress) -> VersionRun:
    """Install (or reuse) and check one version; a version that cannot be is a run saying why."""
    python = spec.python_for(version)
    try:
        started = time.perf_counter()
        if envs.prepare(spec, version):
            progress.say(f"{spec.name} {version}: installed under {runtime(python)} in "
                         f"{time.perf_counter() - started:.1f} s")
    except NotInstallable as exc:
        progress.say(f"{spec.name} {version}: not installable: {exc}")
        return VersionRun(version=version, status="not-installable", python=python, reason=str(exc))
    report_dir = Path(args.report) / spec.name / version
    code, seconds = run_version(spec, version, envs, cases, extra, report_dir, args)
    if code not in (0, 1):
        progress.say(f"{spec.name} {version}: could not be driven (exit {code}); see {report_dir}")
        return VersionRun(version=version, status="not-driven", python=python, reason=f"check exited {code}",
                          seconds=round(seconds, 1))
    records = pages.version_answers(report_dir)
    counts: dict[str, int] = {}
    for record in records.values():
        counts[record.outcome.value] = counts.get(record.outcome.value, 0) + 1
    progress.say(f"{spec.name} {version}: checked in {seconds:.1f} s: "
                 + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())))
    return VersionRun(version=version, status="measured", python=python, seconds=round(seconds, 1), counts=counts)


def run(args: argparse.Namespace, envs: environments.Environments | None = None) -> int:
    try:
        spec = environments.library(args.name)
    except NotInstallable as exc:
        raise BleuValueError(str(exc)) from None
    versions = chosen_versions(spec, args.versions)
    if args.list:
        for version in versions:
            print(f"{spec.name} {version}\t{runtime(spec.python_for(version))}")
        return 0
    from oracle.suite.cases import DEFAULT_CASES_DIR, load_cases

    envs = envs or environments.Environments()
    cases = list(load_cases(Path(args.cases or DEFAULT_CASES_DIR)))
    extra = discrepancy_inputs()
    progress = Progress(args.quiet)
    progress.say(f"{spec.name}: {len(versions)} versions, {len(cases)} cases and {len(extra)} discrepancy examples "
                 f"each; environments in {envs.where}")
    runs = [measure(spec, version, envs, cases, extra, args, progress) for version in versions]
    answers = {run.version: pages.version_answers(Path(args.report) / spec.name / run.version)
               for run in runs if run.status == "measured"}
    summary = pages.bisect(spec.name, spec.profile, runs, answers, input_groups(spec.name, cases), upstream_citations(),
                           CITATIONS.get(spec.name, ()))
    target = Path(args.report) / f"{spec.name}.json"
    pages.write_json(summary, target)
    page = Path(args.report).parent / "history.md"
    try:
        pages.write_markdown(pages.read_histories(Path(args.report)), page)
    except (OSError, BleuOracleError) as exc:
        raise BleuValueError(f"could not write {page}: {exc}") from None
    missing = [run for run in runs if run.status != "measured"]
    progress.say(f"wrote {target} and {page}; {len(runs) - len(missing)} of {len(runs)} versions measured"
                 + "".join(f"\n  {run.version}: {run.status}: {run.reason}" for run in missing))
    return EXIT_UNDRIVABLE if len(missing) == len(runs) else 0
