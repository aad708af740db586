"""Helpers for the check/runner/baseline/report tests: fake commands and an in-process CLI.

`run_cli` runs `oracle.cli.main` with only the `check`, `fuzz`, `baseline` and `merge` verbs, so
these tests do not depend on the other verbs importing cleanly.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

FAKES = Path(__file__).resolve().parent


def benchmark_module(name):
    """benchmarks/<name>.py as a module (benchmarks/ is not a package), for the tests of its tables and parts."""
    import importlib.util  # noqa: PLC0415 - only these tests need it

    spec = importlib.util.spec_from_file_location(name, FAKES.parents[1] / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)  # a module's dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def attribution_module():
    """benchmarks/attribution.py as a module."""
    return benchmark_module("attribution")


def fake(name, *flags):
    """The --command string that runs tests/fakes/<name>.py with this Python."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *flags])


def fake_argv(name, *flags):
    return [sys.executable, str(FAKES / f"{name}.py"), *flags]


def run_cli(*argv):
    """Run `bleu-oracle VERB ...` in process; returns the exit code (argparse's SystemExit included)."""
    from oracle.cli import main

    try:
        return main([str(a) for a in argv], verbs=("check", "fuzz", "baseline", "merge"))
    except SystemExit as exc:
        return exc.code


def check(report, command, *more, examples=30, timeout=5):
    """`bleu-oracle check --command COMMAND --no-cases --examples N --report DIR --quiet ...`."""
    return run_cli("check", "--command", command, "--no-cases", "--examples", examples, "--timeout", timeout,
                   "--report", report, "--quiet", *more)


def results(report):
    from oracle.harness.events import read_results

    return read_results(Path(report) / "results.jsonl")


def deviations(report):
    return [r for r in results(report).records if not r.good]


def check_against_baseline(name, report, baseline):
    """`check --impl NAME --baseline FILE`: (exit code, records, records of error outcomes, ids the gate failed)."""
    code = run_cli("check", "--impl", name, "--baseline", baseline, "--report", report, "--quiet")
    records = results(report).records
    errors = [r for r in records if r.outcome in ("error", "crash", "timeout", "protocol-error")]
    gating = [r.id for r in records if r.baseline is not None and r.baseline.status != "known"]
    return code, records, errors, gating
