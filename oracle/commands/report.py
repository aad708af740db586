"""`bleu-oracle report`: regenerate the reports folder (data first, then pages rendered from it)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from oracle.adapters import registry
from oracle.commands import SUMMARIES
from oracle.escaping import shown
from oracle.formulas.errors import BleuValueError
from oracle.reports.site.build import run
from oracle.reports.site.collect import (
    DEFAULT_EXAMPLES,
    DEFAULT_REAL_DATA_BUDGET,
    DEFAULT_SEED,
    EXTRA_REFERENCES,
    Settings,
    default_real_data_dir,
    stderr_progress,
)
from oracle.reports.site.data import DATA_DIR
from oracle.signals import Interrupted, exit_code_of, stopped_by_signals

from .common import (
    DeprecatedAlias,
    add_report_force,
    job_count,
    non_negative_int,
    positive_float,
    positive_int,
    prepare_implementations,
)
from .report_columns import observe

HELP = f"""Regenerate the reports folder: what every BLEU implementation installed here
does, next to the oracle.

First every column is run through the harness's session, as `check` runs an
implementation (in process here), and everything is written under OUT/{DATA_DIR}/
(deterministic: no clock readings, sorted keys, shortest-repr floats):

  runs/COLUMN/results.jsonl
                         one event stream per column (the oracle under each
                         profile, each installed implementation): every edge
                         case of oracle/suite/edge_cases.py, the curated
                         discrepancy examples (oracle/diagnose/data/
                         discrepancies.yaml) re-run now, and N random inputs
                         (oracle.harness.generate, as `check --seed S`), each
                         judged against the oracle under the declared profile,
                         each disagreement attributed to its root cause
  implementations.jsonl  every registry entry: installed (version, declared
                         profile, capabilities), or not installed (install hint)
  real_data.jsonl        WMT17 newstest2017 en-de, 16 systems, corpus BLEU-4,
                         whitespace tokens, 1 reference and {1 + EXTRA_REFERENCES} (the reference plus
                         the {EXTRA_REFERENCES} alphabetically first other systems)
  run.json               settings, versions and the CPU (architecture,
                         model, widest x86 vector extension: a float32
                         kernel's last bit can differ by it)

Then the pages, rendered from those files only: README.md (index), matrix.md,
real-data.md, implementations/NAME.md (one discrepancy report each) and
index.html (one self-contained page with SVG plots).

Everything is written into a hidden staging directory inside OUT and moved into
place file by file once the pages are rendered (a column's stream takes its
place there only once its footer is written): an interrupted or failed report
(SIGTERM, ^C, an error; a second one while it stops) leaves OUT as it was, its
column processes stopped and its staging directory removed. Files in OUT that
are not the report's are left alone; OUT holding such files and no previous
report is refused before anything runs, unless --report-force.

Implementations run in process through their adapters; a library that runs
outside this Python (node, a venv of its own) through its driver's process, as
`check` drives it. A library that is not installed (or a Perl script whose
BLEU_ORACLE_* variable is unset) is listed as "not installed" with its install
hint; one named with --impl that lives outside this environment is prepared
first (`bleu-oracle install`), exit 3 when it cannot be. The same versions and seed give
byte-identical reports on the same day (torch runs on one thread: a parallel float32 sum is not
reproducible), with --jobs N as with one process; the report is dated (run.json's
"date", the site's first sentence) by the day it runs, or by SOURCE_DATE_EPOCH's when
set (seconds since 1970-01-01 UTC, the reproducible-builds convention). The real data is read from
../shared/data/wmt17-en-de next to the project (skipped, with the reason on
stderr and in the report, when absent).

How long: the committed reports/ (every library, both reference scripts,
--jobs 2 --real-data-budget 3000) took 40 min 32 s on this project's 2-core
machine at a load of 4 to 7 (2026-11-30, on 0f51ee0), and 29 min at a load of
2 to 4 the time before (on 72832e3); the defaults (one job, a 300 s budget) were
not timed. The columns are nearly all of it: in the one run whose steps were
recorded (stopped, at a load of 15 to 20), loading the implementations took 40 s
and reading the real data 2 s, and torch's three columns were the longest
(benchmarks/README.md, "The reports/ regeneration on cdf9f59"). Progress goes
to stderr with each step's duration: the loading, the real data's reading, each
column's "done in N s" (its cases, search and real data together: they are not
timed apart) and the whole run.

Exit codes: 0 written, 2 a usage or configuration error (one line on stderr), 3 an --impl that lives
outside this environment could not be prepared, 4 an internal error (a bug in bleu-oracle), 130 / 143
interrupted by ^C / SIGTERM (the folder left as it was).

Examples:
  bleu-oracle report                                  # everything into ./reports
  bleu-oracle report --impl nltk sacrebleu --no-real-data --examples 50 --report /tmp/r
  bleu-oracle report --render-only                    # re-render from reports/{DATA_DIR}/
"""


def register(subparsers):
    parser = subparsers.add_parser("report", help=SUMMARIES["report"],
                                   description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", dest="out", default="reports", metavar="DIR",
                        help="the reports folder (default: reports)")
    parser.add_argument("--out", dest="out", action=DeprecatedAlias, replacement="--report")
    add_report_force(parser)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="S",
                        help=f"seed of the differential search (default {DEFAULT_SEED})")
    parser.add_argument("--examples", type=non_negative_int, default=DEFAULT_EXAMPLES, metavar="N",
                        help=f"random inputs per implementation (default {DEFAULT_EXAMPLES}; 0: no search)")
    parser.add_argument("--impl", nargs="+", metavar="NAME",
                        help="only these implementations (default: every one in the registry: "
                        f"{', '.join(registry.names())}); the oracle is always in, under every profile")
    parser.add_argument("--render-only", action="store_true",
                        help=f"run nothing: re-render the pages from DIR/{DATA_DIR}/")
    parser.add_argument("--no-real-data", action="store_true", help="skip the WMT17 real-data table")
    parser.add_argument("--real-data", metavar="DIR",
                        help=f"the wmt17-en-de folder (default: {default_real_data_dir()})")
    parser.add_argument("--real-data-systems", type=positive_int, metavar="N",
                        help="score only the first N systems (alphabetical; default: all 16)")
    parser.add_argument("--real-data-budget", type=positive_float, default=DEFAULT_REAL_DATA_BUDGET, metavar="SECONDS",
                        help="time one implementation may spend on the real data; projected from the first system, "
                        f"an implementation over it scores that system only (default {DEFAULT_REAL_DATA_BUDGET:g})")
    parser.add_argument("--jobs", type=job_count, default=1, metavar="N",
                        help="run N columns at once, each in its own process (default 1); the data files are "
                        "the same bytes as with one")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int | None:
    if args.render_only and (args.impl or args.no_real_data or args.real_data or args.real_data_systems):
        raise BleuValueError("--render-only runs nothing: it takes only --report")
    if args.impl:
        registry.require_registered(args.impl)  # UnknownImplementation: a usage error
        not_ready = prepare_implementations("report", args.impl, quiet=args.quiet)  # named: prepared first
        if not_ready is not None:
            return not_ready
    real_data = None
    skipped = ""
    if args.no_real_data:
        skipped = "not requested (--no-real-data)"
    else:
        real_data = Path(args.real_data) if args.real_data else default_real_data_dir()
    settings = Settings(
        out=Path(args.out), seed=args.seed, examples=args.examples,
        implementations=tuple(args.impl) if args.impl else None,
        real_data=real_data, real_data_skipped=skipped, real_data_systems=args.real_data_systems,
        real_data_budget=args.real_data_budget,
        progress=None if args.quiet else stderr_progress, jobs=args.jobs, report_force=args.report_force,
    )
    started = time.perf_counter()
    try:
        with stopped_by_signals():  # SIGTERM stops the report as ^C does: the columns first, the folder left as it was
            written = run(settings, observe=None if args.render_only else observe)
    except (KeyboardInterrupt, Interrupted) as exc:
        print("bleu-oracle report: interrupted; the columns were stopped and the report folder left as it was",
              file=sys.stderr)
        return exit_code_of(exc)
    if not args.quiet:
        print(shown(f"bleu-oracle report: wrote {len(written)} pages and {DATA_DIR}/ in {Path(args.out)} "
                    f"({time.perf_counter() - started:.1f} s)"), file=sys.stderr)
    print(shown(Path(args.out) / "README.md"))
    return 0
