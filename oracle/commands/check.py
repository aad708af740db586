"""`bleu-oracle check`: run the conformance suite and a differential search against an implementation."""

from __future__ import annotations

import argparse
import fnmatch
import json
import shlex
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..baseline import BaselineTracker, baseline_key, load_baseline
from ..errors import BleuOracleError, BleuValueError
from ..events import RESULTS_FILE, ResultsWriter, count_outcomes, read_results
from ..generate import example_id, example_request
from ..outcomes import DEFAULT_ABS, DEFAULT_REL, GOOD_OUTCOMES, Contract, Outcome, judge
from ..profiles import PROFILES
from ..requests import (
    _get, case_to_request, dumps, not_applicable_reason, oracle_expected, replay_payload, request_from_json,
    request_to_json, to_wire, with_seq,
)
from ..protocol import ProtocolError
from ..runner import DEFAULT_MAX_RESTARTS, DEFAULT_TIMEOUT, HandshakeError, ImplementationProcess
from ..shrink import DEFAULT_BUDGET, shrink
from ..summaries import write_reports

EXIT_OK, EXIT_DEVIATIONS, EXIT_USAGE, EXIT_UNDRIVABLE = 0, 1, 2, 3
DEFAULT_REPORT = "bleu-oracle-report"
DEFAULT_REPLAY_REPORT = "bleu-oracle-replay"
DEFAULT_EXAMPLES = 200
INLINE_REPLAY_LIMIT = 400
#: Deviations printed at the end of a run (all are in results.jsonl and summary.md).
PRINTED_DEVIATIONS = 20

HELP = """Check an implementation of BLEU against the oracle.

The implementation is a process speaking protocol v1 on stdin/stdout (one JSON
object per line). `check` runs, in this order:

1. every case in --cases that the implementation's declared capabilities cover
   (level, uniform/any weights, max_order, smoothing method, lowercase); a case
   that overrides a convention (e.g. reference_length) applies only when the
   judged profile is among the case's profiles. The rest are recorded as
   "not-applicable", not as failures. A case is judged against the oracle under
   the judged profile with the case's options (the strict numeric contract)
   and, when the judged profile is among the case's profiles, also against the
   value the case's document printed, within the case's tolerance. A case that
   expects a rejection, or an input the oracle rejects, expects a `rejected`
   reply;
2. a seeded differential search: --examples random valid inputs within the
   capabilities (example I of seed S is the same on every run with the same
   capabilities; its id is random-S-I), each compared with the oracle under the
   judged profile. A failing example is shrunk greedily (drop segments,
   references, tokens; shorten weights; simplify smoothing; lowercase off;
   rename tokens) while it still fails at the same layer, re-querying the
   implementation, and printed with a one-line reproduction. Only random
   examples that fail or error are shrunk (within --shrink-budget requests
   each); cases are reported as written. Random inputs are always valid: the
   search looks for wrong numbers, the cases for wrong rejections.

The judged profile is --profile if given, else the profile the implementation
declares in its handshake.

Outcomes (one per case or example): pass; fail (beyond tolerance, naming the
first diverging layer where statistics come back: hyp_len, ref_len, matches,
totals (order by order), bp, score; or "rejection" / "document"); rejected (as
expected); error (answered error/unsupported to a request its capabilities
claim); crash; timeout; protocol-error (non-JSON line, wrong seq, malformed
reply); not-applicable. Numeric contract: |actual - expected| <= ABS + REL *
|expected|; NaN matches only NaN. The default (REL 1e-9) is a float64
contract: arithmetic in float32 (~1e-7 relative error) fails it; pass e.g.
--rel 1e-5 to accept single precision. Statistics that come back are held to
the oracle's too (exact counts; BP under the contract, except when c = r = 0).

Reports: DIR/results.jsonl is the canonical record (header, one record per case
or example, footer); DIR/summary.md and the JUnit XML are derived from it
(`python -m oracle.summaries DIR/results.jsonl` regenerates them).

Baselines: entries {id, outcome, reason} in YAML or JSON. The gate fails on
any outcome not in the baseline, on a known deviation that now passes
("expected failure passed"), on one whose outcome changed, and on an entry
whose id is in no record of the run (stale). Random examples are keyed by
class, not by id, by default: an entry `random:fail:ref_len` covers every
random example failing first at ref_len, under any seed; class entries nothing
matched are only reported ("unused"). Exact ids random-S-I work too but are
meaningful only with the same --seed. `bleu-oracle baseline write` writes one
from a run.

Reproduction: --replay FILE_OR_JSON re-runs just the given inputs (a replay
object {"level", "segments", "weights", "smoothing", "lowercase"}, a list of
them, a JSONL file of them, or a results.jsonl whose deviations are re-run)
against the oracle; its report goes to ./bleu-oracle-replay unless --report.

Exit codes: 0 conforming (baseline applied), 1 deviations found, 2 usage or
configuration error, 3 the implementation could not be driven (would not
start, no or invalid handshake, another protocol version).

Examples:
  bleu-oracle check --impl oracle --profile papineni --examples 200
  bleu-oracle check --impl sacrebleu --baseline baselines/sacrebleu.yaml
  bleu-oracle check --command "python3 my_bleu_server.py" --profile nltk --junit out/junit.xml
  bleu-oracle check --command "./bleu-server" --replay '{"level": "corpus", ...}'
"""


def _positive_float(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number (got {text})")
    return value


def _non_negative_float(text):
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative number (got {text})")
    return value


def _non_negative_int(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer (got {text})")
    return value


def register(subparsers):
    parser = subparsers.add_parser("check", help="check an implementation against the oracle", description=HELP,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--impl", metavar="NAME",
                        help="a built-in implementation (`bleu-oracle serve --list`) or MODULE:CLASS: runs "
                        "`python -m oracle serve --impl NAME` (with --profile P passed on when NAME is oracle)")
    target.add_argument("--command", metavar="CMD",
                        help="the command that starts the implementation (split like a shell would, run without one)")
    parser.add_argument("--profile", choices=sorted(PROFILES), metavar="P",
                        help="judge against profile P instead of the profile the implementation declares "
                        f"({', '.join(sorted(PROFILES))})")
    parser.add_argument("--cases", metavar="DIR",
                        help="the case directory (default: ./cases when it exists, else the repository's cases/ "
                        "next to the oracle package when that exists; otherwise no cases)")
    parser.add_argument("--no-cases", action="store_true", help="run no cases, only the random examples")
    parser.add_argument("--examples", type=_non_negative_int, default=DEFAULT_EXAMPLES, metavar="N",
                        help=f"number of random examples in the differential search (default {DEFAULT_EXAMPLES}; 0: none)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the differential search (default 0; the same seed gives the same inputs)")
    parser.add_argument("--only", action="append", metavar="ID",
                        help="run only cases/examples whose id matches this glob (repeatable), e.g. "
                        "--only 'nltk-*' or --only random-0-17")
    parser.add_argument("--replay", metavar="FILE_OR_JSON",
                        help="run just these inputs instead of cases and examples (see Reproduction above)")
    parser.add_argument("--baseline", metavar="FILE",
                        help="known deviations (YAML or JSON entries {id, outcome, reason}); see Baselines above")
    parser.add_argument("--report", metavar="DIR",
                        help=f"report directory for results.jsonl and summary.md (default ./{DEFAULT_REPORT}; "
                        f"./{DEFAULT_REPLAY_REPORT} with --replay)")
    parser.add_argument("--junit", metavar="FILE", help="JUnit XML file (default DIR/junit.xml)")
    parser.add_argument("--timeout", type=_positive_float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"per-request and handshake timeout (default {DEFAULT_TIMEOUT:g}); a hung "
                        "implementation is killed and restarted")
    parser.add_argument("--max-restarts", type=_non_negative_int, default=DEFAULT_MAX_RESTARTS, metavar="N",
                        help=f"restarts after a crash or timeout (default {DEFAULT_MAX_RESTARTS}); after that, "
                        "remaining requests are recorded as crash without being sent")
    parser.add_argument("--rel", type=_non_negative_float, default=DEFAULT_REL, metavar="R",
                        help=f"relative tolerance of the numeric contract (default {DEFAULT_REL:g})")
    parser.add_argument("--abs", type=_non_negative_float, default=DEFAULT_ABS, metavar="A",
                        help=f"absolute tolerance of the numeric contract (default {DEFAULT_ABS:g})")
    parser.add_argument("--shrink-budget", type=_non_negative_int, default=DEFAULT_BUDGET, metavar="N",
                        help=f"requests spent shrinking each failing example (default {DEFAULT_BUDGET}; 0: no shrinking)")
    parser.add_argument("--quiet", action="store_true", help="no progress and no deviation listing on stderr/stdout")
    parser.set_defaults(handler=run)


# -- inputs --------------------------------------------------------------------------


def implementation_argv(args):
    if args.impl:
        from ..adapters.base import REGISTRY

        if ":" not in args.impl and args.impl not in REGISTRY:
            raise BleuValueError(f"`--impl` must be one of {sorted(REGISTRY)} or MODULE:CLASS (got {args.impl!r})")
        argv = [sys.executable, "-m", "oracle", "serve", "--impl", args.impl]
        if args.impl == "oracle" and args.profile:
            argv += ["--profile", args.profile]
        return argv
    try:
        argv = shlex.split(args.command)
    except ValueError as exc:
        raise BleuValueError(f"`--command` cannot be split: {exc}") from None
    if not argv:
        raise BleuValueError("`--command` is empty")
    return argv


def load_replay(text):
    """Replay inputs from a file path or inline JSON: (label, request) pairs."""
    path = Path(text)
    source = None
    try:
        if path.is_file():
            source = path.read_text(encoding="utf-8")
    except OSError:
        source = None
    if source is None:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BleuValueError(f"`--replay` is neither a file nor JSON ({exc}): {text[:80]!r}") from None
        items = data if isinstance(data, list) else [data]
    else:
        try:
            data = json.loads(source)
            items = data if isinstance(data, list) else [data]
        except ValueError:
            items = []
            for number, line in enumerate(source.splitlines(), 1):
                if line.strip():
                    try:
                        items.append(json.loads(line))
                    except ValueError as exc:
                        raise BleuValueError(f"{path}:{number}: not JSON ({exc})") from None
    out = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("type") in ("header", "footer"):
            continue
        label = f"replay-{i}"
        if isinstance(item, dict) and item.get("type") == "record":
            if Outcome(item["outcome"]) in GOOD_OUTCOMES:
                continue
            label = item["id"]
            item = item.get("replay") or item.get("request")
        try:
            out.append((label, request_from_json(item)))
        except BleuOracleError as exc:
            raise BleuValueError(f"`--replay` input {i}: {exc}") from None
    if not out:
        raise BleuValueError("`--replay` holds no inputs")
    return out


def load_case_list(args):
    """(cases, cases_dir or None, note). Raises BleuValueError for a configuration error."""
    if args.no_cases or args.replay:
        return [], None, "no cases (--no-cases)" if args.no_cases else "no cases (--replay)"
    explicit = args.cases is not None
    try:
        from ..cases import DEFAULT_CASES_DIR, load_cases
    except ImportError as exc:
        if explicit:
            raise BleuValueError(f"the case loader (oracle.cases) is unavailable: {exc}") from None
        return [], None, f"no cases (the case loader is unavailable: {exc})"
    if explicit:
        directory = Path(args.cases)
        if not directory.is_dir():
            raise BleuValueError(f"`--cases` {directory} is not a directory")
    else:
        directory = next((d for d in (Path("cases"), Path(DEFAULT_CASES_DIR)) if d.is_dir()), None)
        if directory is None:
            return [], None, "no cases (neither ./cases nor the repository's cases/ exists; give --cases DIR)"
    return list(load_cases(directory)), str(directory), None


def _selected(identifier, patterns):
    return not patterns or any(fnmatch.fnmatchcase(identifier, p) for p in patterns)


# -- the run --------------------------------------------------------------------------


class Progress:
    def __init__(self, total, enabled):
        self.total, self.enabled = total, enabled
        self.done = 0
        self.counts = {}
        self.tty = enabled and sys.stderr.isatty()
        self.every = max(1, total // 10) if total else 1

    def update(self, outcome):
        self.done += 1
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if not self.enabled:
            return
        tally = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        line = f"check: {self.done}/{self.total} ({tally})"
        if self.tty:
            sys.stderr.write("\r" + line + "\x1b[K")
            sys.stderr.flush()
        elif self.done % self.every == 0 or self.done == self.total:
            print(line, file=sys.stderr, flush=True)

    def note(self, text):
        if not self.enabled:
            return
        if self.tty:
            sys.stderr.write("\r\x1b[K")
        print(text, file=sys.stderr, flush=True)

    def finish(self):
        if self.tty and self.done:
            sys.stderr.write("\n")
            sys.stderr.flush()


class Check:
    """One run of `check`: drives the implementation, judges, shrinks, records."""

    def __init__(self, args, argv, profile, process, writer, tracker, progress, cases_dir=None):
        self.args, self.argv, self.profile = args, argv, profile
        self.process, self.writer, self.tracker, self.progress = process, writer, tracker, progress
        self.contract = Contract(rel=args.rel, abs=args.abs)
        self.capabilities = process.handshake["capabilities"]
        self.seq = 0
        self.records = []
        self.report_dir = Path(args.report)
        self.cases_dir = cases_dir

    def next_seq(self):
        self.seq += 1
        return self.seq

    def send(self, request):
        request = with_seq(request, self.next_seq())
        wire, request = to_wire(request)
        return request, self.process.request(wire)

    # -- reproduction --

    def reproduce(self, record_id, request=None):
        parts = ["bleu-oracle", "check"]
        parts += ["--impl", self.args.impl] if self.args.impl else ["--command", self.args.command]
        parts += ["--profile", self.profile]
        if self.args.rel != DEFAULT_REL:
            parts += ["--rel", repr(self.args.rel)]
        if self.args.abs != DEFAULT_ABS:
            parts += ["--abs", repr(self.args.abs)]
        if request is None:  # a case: re-run it by id
            parts += ["--cases", self.cases_dir or "cases", "--examples", "0", "--only", record_id]
            return shlex.join(parts)
        payload = dumps(replay_payload(request))
        if len(payload) > INLINE_REPLAY_LIMIT:
            path = self.report_dir / "replay" / f"{record_id}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(payload + "\n", encoding="utf-8")
            payload = str(path)
        return shlex.join(parts + ["--replay", payload])

    # -- one item --

    def expected_for(self, request, *, overrides=None, document=None, profiles=()):
        expected = oracle_expected(request, self.profile, overrides=overrides)
        if document and self.profile in profiles:
            if document.get("rejected"):
                if not expected.rejected:
                    expected.notes.append("the case expects a rejection; the oracle under this profile gives a score")
                expected.rejected = True
                expected.reason = expected.reason or document.get("reason", "the case expects a rejection")
            else:
                doc = {k: v for k, v in document.items() if k in ("score", "tolerance", "statistics")}
                if doc:
                    expected.document = doc
        return expected

    def evaluate(self, item_id, kind, request, *, title="", overrides=None, document=None, profiles=()):
        started = time.perf_counter()
        record = {"id": item_id, "kind": kind, "title": title, "request": None, "outcome": None,
                  "layer": None, "order": None, "classification": None, "expected": None, "actual": None,
                  "message": "", "stderr": "", "duration": 0.0, "baseline": None, "shrunk": None,
                  "replay": None, "reproduce": None}
        try:
            request = to_wire(with_seq(request, 0))[1]
            reason = not_applicable_reason(request, self.capabilities, profile=self.profile,
                                           case_profiles=profiles, overrides=overrides)
        except ProtocolError as exc:
            reason = f"the input cannot be expressed in protocol v1: {exc}"
        if reason is not None:
            record.update(outcome=Outcome.NOT_APPLICABLE.value, message=reason,
                          request=request_to_json(with_seq(request, 0)), classification="not-applicable")
            return self.finish(record)
        expected = self.expected_for(request, overrides=overrides, document=document, profiles=profiles)
        sent, reply = self.send(request)
        verdict = judge(expected, reply, self.contract, max_order=len(request.weights) if isinstance(request.weights, (list, tuple)) else None)
        record.update(request=request_to_json(sent), outcome=verdict.outcome.value, layer=verdict.layer,
                      order=verdict.order, classification=verdict.classification, expected=expected.to_json(),
                      actual=reply.data or reply.to_json(), message=verdict.message, stderr=reply.stderr,
                      duration=reply.duration)
        if reply.notes:
            record["message"] = "; ".join(filter(None, [record["message"], *(f"runner: {n}" for n in reply.notes)]))
        if verdict.outcome in GOOD_OUTCOMES:
            return self.finish(record, started)
        reported = request
        if kind == "example" and verdict.outcome in (Outcome.FAIL, Outcome.ERROR) and self.args.shrink_budget > 0:
            result = self.shrink(request, verdict)
            if result is not None:
                record["shrunk"] = result
                reported = request_from_json(result["request"])
        if kind == "case" and not self.args.replay:
            record["reproduce"] = self.reproduce(item_id)
            record["replay"] = replay_payload(request)
        else:
            record["replay"] = replay_payload(reported)
            record["reproduce"] = self.reproduce(item_id, reported)
        return self.finish(record, started)

    def shrink(self, request, verdict):
        target = (verdict.outcome, verdict.layer)
        last = {}

        def still_fails(candidate):
            expected = oracle_expected(candidate, self.profile)
            if expected.rejected:
                return False
            if not_applicable_reason(candidate, self.capabilities) is not None:
                return False
            if self.process.given_up:
                return False
            try:
                sent, reply = self.send(candidate)
            except ProtocolError:
                return False
            result = judge(expected, reply, self.contract, max_order=len(candidate.weights))
            if (result.outcome, result.layer) == target:
                last.update(request=sent, expected=expected, reply=reply, verdict=result)
                return True
            return False

        outcome = shrink(request, still_fails, capabilities=self.capabilities, budget=self.args.shrink_budget)
        if not outcome.steps:
            return {"request": replay_payload(request), "steps": 0, "queries": outcome.queries,
                    "exhausted": outcome.exhausted, "message": verdict.message, "layer": verdict.layer,
                    "order": verdict.order, "note": "no simpler input fails the same way"}
        final = last["verdict"]
        return {"request": replay_payload(outcome.request), "expected": last["expected"].to_json(),
                "actual": last["reply"].data or last["reply"].to_json(), "layer": final.layer, "order": final.order,
                "message": final.message, "steps": outcome.steps, "queries": outcome.queries,
                "exhausted": outcome.exhausted}

    def finish(self, record, started=None):
        if started is not None:
            record["duration"] = round(max(record["duration"] or 0.0, 0.0), 6)
            record["wall"] = round(time.perf_counter() - started, 6)
        record["baseline_key"] = baseline_key(record)
        record["baseline"] = self.tracker.status(record)
        self.writer.record(record)
        self.records.append(record)
        self.progress.update(record["outcome"])
        return record

    # -- the whole run --

    def run_cases(self, cases):
        for case in cases:
            try:
                item = case_to_request(case, seq=0, profile=self.profile)
            except BleuOracleError as exc:
                raise BleuValueError(f"case {getattr(case, 'id', '?')}: {exc}") from None
            if not _selected(item.case_id, self.args.only):
                continue
            self.evaluate(item.case_id, "case", item.request, title=item.title, overrides=item.overrides,
                          document=item.document, profiles=item.profiles)

    def run_examples(self):
        uniform_only = PROFILES[self.profile].options.uniform_weights_only
        profile_smoothing = PROFILES[self.profile].options.smoothing.to_json()
        for index in range(self.args.examples):
            identifier = example_id(self.args.seed, index)
            if not _selected(identifier, self.args.only):
                continue
            request = example_request(self.args.seed, index, self.capabilities, uniform_only=uniform_only,
                                      profile_smoothing=profile_smoothing)
            self.evaluate(identifier, "example", request)

    def run_replay(self, inputs):
        for label, request in inputs:
            self.evaluate(label, "replay", request)


def _count_work(args, cases, replay):
    if replay:
        return len(replay)
    n = sum(1 for c in cases if _selected(str(_get(c, "id", "?")), args.only))
    n += sum(1 for i in range(args.examples) if _selected(example_id(args.seed, i), args.only))
    return n


def _settings(args, argv, cases_dir):
    return {"seed": args.seed, "examples": 0 if args.replay else args.examples, "rel": args.rel, "abs": args.abs,
            "timeout": args.timeout, "max_restarts": args.max_restarts, "shrink_budget": args.shrink_budget,
            "cases": cases_dir, "command": shlex.join(argv), "impl": args.impl, "baseline": args.baseline,
            "replay": args.replay, "only": args.only}


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run(args):
    if args.report is None:
        args.report = DEFAULT_REPLAY_REPORT if args.replay else DEFAULT_REPORT
    report_dir = Path(args.report)
    junit = Path(args.junit) if args.junit else report_dir / "junit.xml"
    argv = implementation_argv(args)
    baseline = load_baseline(args.baseline) if args.baseline else None
    replay = load_replay(args.replay) if args.replay else None
    cases, cases_dir, cases_note = load_case_list(args)
    if cases_note and not args.quiet and not args.replay:
        print(f"bleu-oracle check: {cases_note}", file=sys.stderr)
    tracker = BaselineTracker(baseline, only=args.only, check_stale=not args.replay)
    settings = _settings(args, argv, cases_dir)
    started = time.perf_counter()
    process = ImplementationProcess(argv, timeout=args.timeout, max_restarts=args.max_restarts)
    with ResultsWriter(report_dir / RESULTS_FILE) as writer:
        header = {"suite_version": _suite_version(), "oracle_version": __version__, "settings": settings,
                  "started": _now()}
        try:
            handshake = process.start()
        except HandshakeError as exc:
            writer.header(**header, implementation=None, profile=None, judged_profile=args.profile,
                          capabilities=None, handshake_error=str(exc), handshake_stderr=exc.stderr)
            writer.footer(counts=count_outcomes([]), baseline=tracker.summary(), gate="fail",
                          exit_code=EXIT_UNDRIVABLE, restarts=0, duration=round(time.perf_counter() - started, 3),
                          finished=_now())
            print(f"bleu-oracle check: the implementation could not be driven: {exc}", file=sys.stderr)
            if exc.stderr.strip():
                print("its stderr:\n" + exc.stderr.rstrip()[-2000:], file=sys.stderr)
            _write_reports(report_dir, junit)
            return EXIT_UNDRIVABLE
        profile = args.profile or handshake["profile"]
        header.update(implementation=handshake["implementation"], profile=handshake["profile"],
                      judged_profile=profile, capabilities=handshake["capabilities"],
                      handshake_stderr=process.take_stderr())
        writer.header(**header)
        if profile not in PROFILES:
            process.stop()
            message = (f"the implementation declares profile {profile!r}, which is not one of {sorted(PROFILES)}; "
                       "give --profile")
            writer.footer(counts=count_outcomes([]), baseline=tracker.summary(), gate="fail", exit_code=EXIT_USAGE,
                          restarts=0, duration=round(time.perf_counter() - started, 3), finished=_now(),
                          error=message)
            _write_reports(report_dir, junit)
            raise BleuValueError(message)
        progress = Progress(_count_work(args, cases, replay), enabled=not args.quiet)
        check = Check(args, argv, profile, process, writer, tracker, progress, cases_dir)
        error = None
        try:
            if replay:
                check.run_replay(replay)
            else:
                check.run_cases(cases)
                check.run_examples()
        except BleuOracleError as exc:
            error = exc
        finally:
            process.stop()
            progress.finish()
        gate_failed = tracker.gate_failed()
        code = EXIT_USAGE if error else (EXIT_DEVIATIONS if gate_failed else EXIT_OK)
        footer = {"counts": count_outcomes(check.records), "baseline": tracker.summary(),
                  "gate": "fail" if gate_failed or error else "pass", "exit_code": code,
                  "restarts": process.restarts, "duration": round(time.perf_counter() - started, 3),
                  "finished": _now()}
        if error:
            footer["error"] = str(error)
        writer.footer(**footer)
    _write_reports(report_dir, junit)
    if error:
        raise error
    if not args.quiet:
        _print_outcome(check.records, tracker, report_dir, junit, code)
    return code


def _suite_version():
    try:
        from .. import cases as cases_module
    except ImportError:
        return __version__
    return str(getattr(cases_module, "SUITE_VERSION", __version__))


def _write_reports(report_dir, junit):
    results = read_results(report_dir / RESULTS_FILE)
    write_reports(results, markdown=report_dir / "summary.md", junit=junit)


def _print_outcome(records, tracker, report_dir, junit, code):
    out = sys.stdout
    failing = [r for r in records
               if (r.get("baseline") or {}).get("status") in ("new", "fixed", "changed")]
    for record in failing[:PRINTED_DEVIATIONS]:
        status = record["baseline"]["status"]
        layer = f" at {record['layer']}" + (f" (order {record['order']})" if record.get("order") else "") if record.get("layer") else ""
        head = {"new": record["outcome"].upper(), "fixed": "EXPECTED FAILURE PASSED",
                "changed": f"CHANGED (was {record['baseline'].get('was')})"}[status]
        out.write(f"{head} {record['id']}{layer}: {record.get('message', '')}\n")
        shrunk = record.get("shrunk")
        if shrunk and shrunk.get("steps"):
            out.write(f"  shrunk ({shrunk['steps']} steps): {shrunk.get('message', '')}\n")
        if record.get("replay") is not None:
            out.write(f"  input: {dumps(record['replay'])[:600]}\n")
        if record.get("reproduce"):
            out.write(f"  reproduce: {record['reproduce']}\n")
    if len(failing) > PRINTED_DEVIATIONS:
        out.write(f"... and {len(failing) - PRINTED_DEVIATIONS} more (see {report_dir / 'summary.md'})\n")
    for entry in tracker.stale():
        out.write(f"STALE baseline entry {entry}: no record with this id in the run\n")
    counts = count_outcomes(records)
    tally = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
    verdict = {0: "conforming", 1: "deviations found"}.get(code, f"exit {code}")
    known = tracker.statuses["known"]
    out.write(f"bleu-oracle check: {verdict}: {tally or 'nothing run'}"
              + (f" ({known} known deviations from the baseline)" if known else "") + "\n")
    out.write(f"reports: {report_dir / RESULTS_FILE}, {report_dir / 'summary.md'}, {junit}\n")
