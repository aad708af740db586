"""`bleu-oracle check`: run the conformance suite and a differential search against an implementation."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from oracle.commands import SUMMARIES
from oracle.escaping import shown
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.harness.allocator import bound_heap_growth, start_up_objects_frozen
from oracle.harness.events import RESULTS_FILE
from oracle.harness.gate import BaselineTracker, load_baseline
from oracle.harness.generate import DEFAULT_SERIES_LENGTH, SERIES_EVERY, example_id
from oracle.harness.requests import request_from_json
from oracle.harness.searchcache import open_root
from oracle.harness.session import (
    DEFAULT_EXAMPLES,
    REPLAY_REPORT,
    SessionSettings,
    implementation_argv,
    run_session,
    stopped_by_signals,
)
from oracle.harness.session import selected as _selected
from oracle.harness.shards import Shard
from oracle.harness.shrink import DEFAULT_SHRINK_SECONDS
from oracle.models.protocol import ScoreRequest
from oracle.models.results import OmittedRequest, ResultsFormatError, parse_line
from oracle.models.wire import json_value
from oracle.reports.console import gone, print_check
from oracle.reports.staging import ReportDirectory
from oracle.reports.summaries import publishing

from .common import (
    DeprecatedAlias,
    add_session_arguments,
    job_count,
    non_negative_int,
    outputs_apart,
    positive_float,
    prepare_implementations,
    seed_number,
    sharded,
)

DEFAULT_REPORT = "bleu-oracle-report"
DEFAULT_REPLAY_REPORT = REPLAY_REPORT

HELP = """Check an implementation of BLEU against the oracle.

The implementation is a process speaking protocol v1 on stdin/stdout (one JSON
object per line). `check` runs, in this order:

1. every case in --cases that the implementation's declared capabilities cover
   (level, uniform/any weights, max_order, smoothing method, lowercase); a case
   that overrides a convention (e.g. empty_order: skip) where the judged profile
   has another rule is sent with that rule in its request's `conventions`, and
   applies only when the implementation declares it can switch to it
   (capabilities.conventions). The rest are recorded as "not-applicable", with
   the reason, not as failures. A case is judged against the oracle under
   the judged profile with the case's options (the strict numeric contract)
   and, when the judged profile is among the case's profiles, also against the
   value the case's document printed, within the case's tolerance. A case that
   expects a rejection, or an input the oracle rejects, expects a `rejected`
   reply. A case found by `bleu-oracle fuzz --write-cases` (a `found_by: fuzz`
   file) is judged against the oracle only: its recorded value is what one
   implementation answered, not a documented value;
2. a seeded differential search: --examples random valid inputs within the
   capabilities (example I of seed S is the same on every run with the same
   capabilities; its id is random-S-I), each compared with the oracle under the
   judged profile. A failing example is shrunk greedily (drop segments,
   references, tokens; shorten weights; simplify smoothing; lowercase off;
   rename tokens) while it still fails at the same layer, re-querying the
   implementation, and printed with a one-line reproduction. Only random
   examples that fail or error are shrunk (within --shrink-budget requests
   each, which decides where a shrink stops, so that the same seed gives the
   same records on any machine; --shrink-seconds is a safety limit on the
   wall time, and a record whose shrink it stopped says so); cases are
   reported as written. An
   example's own input is always valid; the inputs cover the whole input space on purpose
   (oracle/harness/generate.py): tokens with whitespace inside, empty, control,
   non-BMP, compatibility and case-folding characters, toolkits' special
   tokens, concatenations that collide, map-key names; segments up to several
   hundred tokens and runs of one token past 255 and 65,535; corpora up to
   thousands of segments; 1 to 8 references; orders 1 to 12; tiny, zero and
   unnormalised weights; smoothing parameters at their edges; and built
   boundaries (reference-length ties of two and three references, c = r, r = 0,
   a count clipped exactly at the reference maximum, exactly one order with no
   match, a corpus whose only mismatch is its last segment). Example I focuses
   on one of these in turn, so the first 30 examples of any seed touch each;
   tokens an implementation declares it cannot take are left out. An
   implementation that declares tokenizers also gets text requests: raw text
   (punctuation of every Unicode class, symbols, numbers with separators, URLs,
   hyphens and dashes, SGML entities, several scripts, CJK) with the tokenizer
   named; where its token counts differ from the literal tokenizer's, the
   record fails in the "tokenization" layer, before any n-gram count;
3. metamorphic relations: on every third passing example, one related input
   that must score the same under every convention (segments or references
   permuted, a reference duplicated; the two halves of a corpus, whose
   statistics must add up to the whole's) is sent, and the implementation is
   compared with itself (record id random-S-I~RELATION, kind "metamorphic",
   layer "metamorphic");
4. companions an example brings along, each with its own id: random-S-I~text
   (every second example, with tokenizers declared: raw text built from each
   tokenizer's rules, so text is a third of the search), random-S-I~refused
   (every twelfth: an input PROTOCOL.md says is refused: a segment without
   references, a negative weight, a negative smoothing parameter, where a score
   fails in the "rejection" layer; or left undefined by the documents: all-zero
   weights, an empty corpus, where refusing is recommended and a named
   convention's value is "acceptable", a fail only under --strict),
   random-S-I~series (every tenth: --series-length short requests to the same
   process, repeating two inputs with one part changed at a time, kind
   "series"; a run of the default size sends over 1,000 requests),
   random-S-I~brackets (every tenth from the third, where "(" and ")" are
   taken in a token: a token request whose lines hold bracket pairs, for a
   script that reads each line as text, deleting every "(...)" span) and
   random-S-I~line-ends (every tenth from the fifth: a request whose tokens,
   or texts where no token may hold one, hold a lone CR, VT, FF, U+001C-U+001E,
   NEL, U+2028 or U+2029, for a caller that writes one segment a line and
   reads the lines back with str.splitlines or universal newlines).
5. stateful checks: an implementation that declares capabilities.stateful
   gets each passing corpus example of two or more segments again with a plan
   (update batches, shards merged in some order, other corpora scored and reset
   first; PROTOCOL.md, "Stateful implementations"), judged against the one-shot
   score; a difference fails in the "accumulation", "merge" or "reset" layer
   and the plan is shrunk (record id random-S-I~stateful, kind "stateful").

--time-budget SECONDS stops drawing random examples when the search has run
that long (whichever of it and --examples comes first). The summary and the
footer of results.jsonl carry a coverage table: which dimensions and
boundaries the judged inputs exercised, and which the implementation's
declared capabilities rule out.

The judged profile is --profile if given, else the profile the implementation
declares in its handshake.

Outcomes (one per case or example): pass; fail (beyond tolerance, naming the
first diverging layer where statistics come back: hyp_len, ref_len, matches,
totals (order by order), bp, score; or "rejection" / "document"); rejected (as
expected); acceptable (a named convention's value on an input the documents
leave undefined, PROTOCOL.md; with --strict a fail); error (answered error/unsupported to a request its capabilities
claim); crash; timeout; protocol-error (non-JSON line, wrong seq, malformed
reply); not-applicable. Zero is special: an answer that is not 0 where the
oracle's exact value is 0 (or 0 where the exact value is a float's normal
number) fails in the "zero" layer whatever the tolerance.

Root causes: every failing record is classified (oracle.diagnose.classify, on the
shrunk input for a random example): the oracle is recomputed under each
alternative convention (reference length rule, per-segment totals floor,
empty-order rule, weight rule, another reading of the smoothing method) and
alternative computations (mean of sentence scores, float32, a tiny value for a
zero precision, an early return 0, ...), first among the classes documented for
the implementation in oracle/diagnose/data/discrepancies.yaml, then among all; the
record's "classification" names the first that reproduces the answer
("unexplained" when none does), with the curated discrepancy ids it matches.
The listing and summary.md show it per record and count records per class.
Before a fail or error is reported its request is sent once more: answered
otherwise, the record's root cause is "nondeterministic" (both answers in its
message; not shrunk; its reproduction line says it may pass). A failing
record's expectation is recomputed where it came from the search cache: one
that differs is discarded with one warning line.
Numeric contract: |actual - expected| <= ABS + REL *
|expected|; NaN matches only NaN. The default (REL 1e-9) is a float64
contract: arithmetic in float32 (~1e-7 relative error) fails it; pass e.g.
--rel 1e-5 to accept single precision. Statistics that come back are held to
the oracle's too (exact counts; BP under the contract, except when c = r = 0).

Reports: DIR/results.jsonl is the canonical record (header, one record per case
or example, footer); DIR/summary.md and the JUnit XML are derived from it
(`python -m oracle.reports.summaries DIR/results.jsonl` regenerates them). The
run is written into a hidden staging directory inside DIR and its files are
moved into DIR when it ends (SIGTERM and ^C included); the previous report's
files go, nothing else in DIR is touched (a baseline kept there, your notes).
DIR holding files that are not a previous report is refused before anything
runs, unless --report-force.

Baselines: entries {id, outcome, reason} in YAML or JSON. The gate fails on
any outcome not in the baseline, on a known deviation that now passes
("expected failure passed": the implementation improved, and the baseline must
follow), on one whose outcome changed, and on an entry whose id is in no record
of the run (stale). `bleu-oracle baseline write` writes one from a run, one
entry per root cause of the run (cause:<name>): the documented cases it makes
fail listed under it (`cases:`, each as strict as an entry of its own) and any
random example failing for that reason under any seed (a cause or class entry
nothing matched is only reported, "unused"); a case without an explained cause
is keyed by its id, a random example by its class (random:fail:ref_len). Exact
ids random-S-I work too but are meaningful only with the same --seed. Every
reason is TODO: an entry whose reason is still TODO or empty is refused (exit
2) until a human writes why the deviation is acceptable, unless
--allow-unreviewed. When known deviations are gone, `bleu-oracle baseline
update --from DIR --baseline FILE` removes their entries (printing each) and
adds the run's new deviations for review.

Reproduction: --replay FILE_OR_JSON re-runs just the given inputs (a replay
object {"level", "segments", "weights", "smoothing", "lowercase"}, a list of
them, a JSONL file of them, or a results.jsonl, or its report directory, whose
deviations are re-run) against the oracle; its report goes to ./bleu-oracle-replay unless --report.

Sharding: --shard K/N runs shard K of N of this run on one machine (the
selected cases dealt round-robin by position, random examples by blocks of
50: example I to shard (I div 50) mod N + 1); N machines together do exactly the run's work, and `bleu-oracle
merge DIR_1 ... DIR_N` writes the whole run's report and gate from their report
directories. A shard's exit code speaks for its share only; one that has
nothing to judge exits 0, and the merge refuses a run that judged nothing.

Exit codes: 0 conforming (baseline applied), 1 deviations found, 2 usage or
configuration error, 3 the implementation could not be driven (would not
start, no or invalid handshake, another protocol version), 4 an internal error
(a bug in bleu-oracle, never a verdict), 130 / 143 interrupted by ^C / SIGTERM
(the report holds what was judged before the stop).

Examples:
  bleu-oracle check --impl oracle --profile papineni --examples 200
  bleu-oracle check --impl sacrebleu --baseline baselines/sacrebleu.yaml
  bleu-oracle check --command "python3 my_bleu_server.py" --profile nltk --junit out/junit.xml
  bleu-oracle check --command "./bleu-server" --replay '{"level": "corpus", ...}'
"""


def register(subparsers):
    parser = subparsers.add_parser("check", help=SUMMARIES["check"], description=HELP,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_session_arguments(parser, report_help=f"default ./{DEFAULT_REPORT}; ./{DEFAULT_REPLAY_REPORT} with --replay")
    parser.add_argument("--cases", metavar="DIR|FILE",
                        help="run these cases instead of the bundled suite: a case directory, or one case file of "
                        "your own (default: the cases bundled with bleu-oracle, whatever the working directory holds)")
    parser.add_argument("--add-cases", action="append", metavar="DIR|FILE",
                        help="run these cases too, besides the bundled suite (or --cases); repeatable; an id already "
                        "in the suite is an error")
    parser.add_argument("--allow-empty", action="store_true",
                        help="accept a run that judges nothing (every case not applicable, no example run, an --id "
                        "matching nothing): by default that is an error (exit 2), never a green gate")
    parser.add_argument("--no-cases", action="store_true", help="run no cases, only the random examples")
    parser.add_argument(
        "--examples",
        type=non_negative_int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"number of random examples in the differential search (default {DEFAULT_EXAMPLES}; 0: none)",
    )
    parser.add_argument("--time-budget", type=positive_float, default=None, metavar="SECONDS",
                        help="stop drawing random examples after SECONDS of search (default: no limit; "
                        "--examples still bounds the count)")
    parser.add_argument("--jobs", type=job_count, default=1, metavar="N",
                        help="run the search in N processes, each with its own implementation process (default 1); "
                        "the records are merged in example order, so results.jsonl holds what one process writes "
                        "(durations and seq numbers aside)")
    parser.add_argument("--series-length", type=non_negative_int, default=DEFAULT_SERIES_LENGTH, metavar="N",
                        help=f"requests in each series of short requests sent to the same process, one series every "
                        f"{SERIES_EVERY} examples: repeats with one part changed, levels and options interleaved, "
                        f"so that state kept across requests shows (default {DEFAULT_SERIES_LENGTH}: a run of the "
                        f"default size sends over 1,000 requests; 0: no series)")
    parser.add_argument("--shrink-seconds", type=positive_float, default=DEFAULT_SHRINK_SECONDS, metavar="SECONDS",
                        help=f"a safety limit on the wall time one failing example may spend shrinking (default "
                        f"{DEFAULT_SHRINK_SECONDS:g}, far above what --shrink-budget costs: the query budget decides "
                        "where a shrink stops, so the same seed gives the same records on any machine and load). "
                        "Where this clock stops a shrink first, the record says so (shrunk.stopped_by \"clock\") "
                        "and the run's summary counts it: that record depends on the machine's speed")
    parser.add_argument("--seed", type=seed_number, default=0, metavar="S",
                        help="seed of the differential search (default 0; the same seed gives the same inputs)")
    parser.add_argument("--id", dest="only", action="append", metavar="ID",
                        help="run only cases/examples whose id matches this glob (repeatable), e.g. "
                        "--id 'nltk-*' or --id random-0-17")
    parser.add_argument("--only", dest="only", action=DeprecatedAlias, replacement="--id", append=True)
    parser.add_argument("--replay", metavar="FILE_OR_JSON",
                        help="run just these inputs instead of cases and examples (see Reproduction above)")
    parser.add_argument("--baseline", metavar="FILE",
                        help="known deviations (YAML or JSON entries {id, outcome, reason}); see Baselines above")
    parser.add_argument("--badge", metavar="FILE",
                        help="also write a shields.io endpoint badge (JSON): the judged profile and the verdict, "
                        "from results.jsonl")
    parser.add_argument("--allow-unreviewed", action="store_true",
                        help="accept baseline entries whose reason is still TODO or empty (refused by default: "
                        "exit 2)")
    parser.set_defaults(handler=run)


# -- inputs --------------------------------------------------------------------------


def load_replay(text):
    """Replay inputs from a file path or inline JSON: (label, request) pairs."""
    out = []
    for i, item in enumerate(_replay_items(text)):
        if isinstance(item, dict) and item.get("type") in ("header", "footer"):
            continue
        if isinstance(item, dict) and item.get("type") == "record":  # a results.jsonl: its deviations again
            replayed = _replayed_record(i, item)
            if replayed is not None:
                out.append(replayed)
            continue
        try:
            out.append((f"replay-{i}", request_from_json(item)))
        except BleuOracleError as exc:
            raise BleuValueError(f"`--replay` input {i}: {exc}") from None
    if not out:
        raise BleuValueError("`--replay` holds no inputs")
    return out


def _replay_items(text):
    """The JSON values `--replay` names: a file's (one JSON document, or JSON lines; a report directory's
    results.jsonl), else `text` as JSON."""
    path = Path(text)
    try:
        directory = path.is_dir()
    except OSError:  # (inline JSON longer than a file name may be)
        directory = False
    if directory:  # (a report directory, as `baseline write --from` takes one)
        if not (path / RESULTS_FILE).is_file():
            raise BleuValueError(f"`--replay {path}` is a directory without a {RESULTS_FILE}: give a report "
                                 "directory, a file of inputs, or inline JSON")
        path = path / RESULTS_FILE
    source = None
    try:
        if path.is_file():
            source = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BleuValueError(f"`--replay {path}`: not UTF-8 text (byte {exc.start + 1})") from None
    except OSError:
        source = None
    if source is None:
        if not text.lstrip().startswith(("{", "[")):  # a path, not JSON: an input is an object or a list
            raise BleuValueError(f"`--replay {text}`: no such file (nor inline JSON, which starts with {{ or [)")
        try:
            data = json_value(text)
        except ValueError as exc:
            raise BleuValueError(f"`--replay` is neither a file nor JSON ({exc}): {text[:80]!r}") from None
        items = data if isinstance(data, list) else [data]
    else:
        try:
            data = json_value(source)
            items = data if isinstance(data, list) else [data]
        except ValueError:
            items = []
            for number, line in enumerate(source.split("\n"), 1):
                if line.strip():
                    try:
                        items.append(json_value(line))
                    except ValueError as exc:
                        raise BleuValueError(f"{path}:{number}: not JSON ({exc})") from None
    return items


def _replayed_record(i, item):
    """(id, request) of a results.jsonl record that deviated, None for one that passed."""
    try:
        record = parse_line(item, where=f"`--replay` input {i}")
    except ResultsFormatError as exc:
        raise BleuValueError(str(exc)) from None
    if record.good:
        return None
    replayed = record.replay or record.request
    if not isinstance(replayed, ScoreRequest):
        why = (f"is not kept (it is too large); regenerate it: {replayed.omitted.regenerate}"
               if isinstance(replayed, OmittedRequest) else "is not in the record")
        raise BleuValueError(f"`--replay` input {i} ({record.id}): its input {why}")
    return record.id, replayed.with_seq(0)


def load_case_list(args):
    """(cases, what the header records of their sources, a note for stderr or None). The bundled suite unless
    --cases replaces it; --add-cases adds to it. Raises BleuValueError for a configuration error."""
    if args.no_cases or args.replay:
        return [], None, "no cases (--no-cases)" if args.no_cases else "no cases (--replay)"
    from oracle.suite.cases import DEFAULT_CASES_DIR, load_cases

    sources = [(Path(args.cases), "--cases")] if args.cases is not None else [(Path(DEFAULT_CASES_DIR), None)]
    sources += [(Path(extra), "--add-cases") for extra in args.add_cases or ()]
    cases, described, seen = [], [], {}
    for path, option in sources:
        if option and not path.is_dir() and not path.is_file():
            raise BleuValueError(f"`{option} {path}` is neither a case directory nor a case file")
        loaded = list(load_cases(path))
        if not loaded:
            raise BleuValueError(f"no cases in {path}; give another {option or '--cases'}, or --no-cases to run the "
                                 "random search alone")
        for case in loaded:
            if case.id in seen:
                raise BleuValueError(f"case id `{case.id}` is in {seen[case.id]} and in {path}: ids must be unique "
                                     "across the case sources")
            seen[case.id] = path
        cases += loaded
        described.append(f"{len(loaded)} from {'the bundled suite' if option is None else path}")
    if args.cases is not None:
        described.append("(the bundled suite replaced by --cases)")
    return cases, ", ".join(described), None


def _count_work(args, cases, replay):
    """How many cases and examples this run (its shard, with --shard) selects; an --id that selects none in the
    whole run is an error before anything runs."""
    if replay:
        return len(replay)
    shard = args.shard or Shard()
    chosen = [c for c in cases if _selected(c.id, args.only)]
    if not args.only:  # every example: counted, not walked (10**9 of them are as quick as 10)
        return sum(1 for _ in shard.select(chosen)) + shard.examples_owned(args.examples)
    examples = [i for i in range(args.examples) if _selected(example_id(args.seed, i), args.only)
                or any(p.startswith(example_id(args.seed, i) + "~") for p in args.only)]
    n = len(chosen) + len(examples)
    if args.only and n == 0 and not args.allow_empty:
        asked = " ".join(f"--id {p!r}" for p in args.only)
        drawn = (f"{args.examples} random examples (ids random-{args.seed}-0 .. random-{args.seed}-"
                 f"{args.examples - 1})" if args.examples else "no random example (--examples 0)")
        raise BleuValueError(f"{asked} matches none of the {len(cases)} cases and {drawn}; "
                             "`bleu-oracle cases list` shows the case ids")
    return sum(1 for _ in shard.select(chosen)) + sum(1 for i in examples if shard.owns_example(i))


def run(args: argparse.Namespace) -> int:
    bound_heap_growth()  # a long run's peak memory not growing with its examples (oracle.harness.allocator)
    if args.report is None:
        args.report = DEFAULT_REPLAY_REPORT if args.replay else DEFAULT_REPORT
    report_dir = Path(args.report)
    part = sharded(args)  # (--shard read first: a bad K/N is a usage error before anything runs)
    junit = Path(args.junit) if args.junit else report_dir / "junit.xml"  # (named in the output)
    outputs_apart([("--junit", junit), ("--badge", args.badge)], report=report_dir,
                  inputs=[("--baseline", args.baseline), ("--replay", args.replay), ("--cases", args.cases),
                          *(("--add-cases", extra) for extra in args.add_cases or ())])
    baseline = load_baseline(args.baseline, allow_unreviewed=args.allow_unreviewed) if args.baseline else None
    args.strict = args.strict or bool(baseline is not None and baseline.strict)  # the baseline's choice holds
    settings = SessionSettings.from_args(args)
    argv = implementation_argv(settings)
    if settings.search_cache and settings.examples and not args.replay:
        open_root()  # (a directory holding other data is refused before anything runs, not after the cases)
    replay = load_replay(args.replay) if args.replay else None
    cases, cases_dir, cases_note = load_case_list(args)
    # a shard's baseline entries for other shards' cases are not stale: the merge says which are
    tracker = BaselineTracker(baseline, only=args.only, check_stale=not args.replay and not part)
    total = _count_work(args, cases, replay)
    not_ready = prepare_implementations("check", [args.impl], quiet=args.quiet)
    if not_ready is not None:
        return not_ready

    def work(session):
        # (once the implementation is driven and the run not refused: an error before it is one line on stderr)
        if cases_note and total and not args.quiet and not args.replay:
            print(shown(f"bleu-oracle check: {cases_note}"), file=sys.stderr)
        if replay:
            session.run_replay(replay)
        else:
            session.run_cases(cases)
            session.run_examples()

    # The run is written into a staging directory inside the report directory and published file by file when
    # it is over (nothing else in the directory is touched); SIGTERM stops it like ^C, with an "interrupted"
    # footer, and a signal while the summary and JUnit are derived waits until they are written.
    report = ReportDirectory.prepare(report_dir, force=args.report_force)
    # summary.md and junit.xml are derived from results.jsonl alone when the run is over, then the report published
    # (the objects of the imports and the settings, alive for the whole run, left out of the collector's passes)
    with (start_up_objects_frozen(),
          publishing(report, junit=report.staged_path(args.junit),
                     badge_file=report.staged_path(args.badge)) as derived,
          stopped_by_signals()):
        code, session = run_session(settings, argv, recorded=settings.run_settings("check", argv, cases=cases_dir),
                                    tracker=tracker, total=total, work=work, report_dir=report.staging,
                                    require_judged=not args.allow_empty and not part)
    if session is not None and not args.quiet:
        print_check(sys.stdout, derived, report_dir=report_dir, junit=junit, verbose=args.verbose)
        print(shown(_next_step(args, code, report_dir, tracker)))
    return code


#: An exit code above this is 128 + the number of the signal that stopped the run (the shell's convention).
SIGNAL_EXIT_BASE = 128


def _update_command(report_dir, baseline):
    return f"`bleu-oracle baseline update --from {shlex.quote(str(report_dir))} --baseline {shlex.quote(baseline)}`"


def _next_step(args, code, report_dir, tracker):
    """The one line that says what to do after this run."""
    if code > SIGNAL_EXIT_BASE:  # 128 + the signal's number: ^C (130) or SIGTERM (143) stopped the run
        return (f"next: the run was interrupted (exit {code}): {report_dir / 'summary.md'} holds what was judged "
                "before the stop; run the same command again for the whole run (a baseline written from this one "
                "would miss what it never got to, and `baseline update` refuses it)")
    if args.shard is not None and not args.shard.whole:
        return (f"next: this is shard {args.shard} (its exit code speaks for its share only); the run's report and "
                f"gate: `bleu-oracle merge DIR_1 ... DIR_{args.shard.count} --report OUT`, one report directory per "
                "shard")
    if code == 1 and args.baseline:
        update = _update_command(report_dir, args.baseline)
        partial = "--id" if args.only else "--replay" if args.replay else None
        if partial is not None:  # an update from this run would remove the entries of what it did not run
            update = f"a whole `check` run (without {partial}), then {update}"
        if gone(tracker.summary()) is not None:
            return (f"next: the baseline lists deviations this run no longer has: {update} removes them (printing "
                    "each, with its reason) and the gate passes again; commit the file it writes")
        return (f"next: read {report_dir / 'summary.md'}; fix what is a bug, or record what is acceptable: {update} "
                "adds the new deviations (reason TODO: write why each is acceptable) and removes those that no "
                "longer occur")
    if code == 1 and args.replay:  # (a baseline of replayed inputs lists their labels, which no other run has)
        return (f"next: read {report_dir / 'summary.md'}; fix the implementation and run this command again; a "
                "baseline is written from a whole `check` run (without --replay)")
    if code == 1:
        return (f"next: read {report_dir / 'summary.md'}; to gate on these deviations, write a baseline with "
                f"`bleu-oracle baseline write --from {report_dir / RESULTS_FILE} --out baseline.yaml`, give each "
                "entry its reason, and pass --baseline baseline.yaml")
    if args.impl:
        return ("next: check your own BLEU: `bleu-oracle check --command 'python3 my_bleu_server.py'` "
                "(protocol v1: PROTOCOL.md; a complete server in examples/node-bleu/)")
    return "next: run this in CI (exit 0 conforming, 1 deviations); `--baseline FILE` gates on known deviations"
