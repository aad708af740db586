"""`bleu-oracle report`'s runs: every column of the report (the oracle under each profile, each installed
implementation) driven by the harness's session, one `results.jsonl` each, and the report's tables
derived from those streams alone.

A column's run is a `check` run made in process (`oracle.harness.inprocess`; a library outside this Python
through its driver's process, as `check` drives it): the same requests, the
same judge (`oracle.diagnose.judge`), the same root-cause attribution (`oracle.diagnose.attribute`),
written as the same event stream. It holds the edge-case matrix rows (kind "edge-case"), the
implementation's curated discrepancy examples (kind "discrepancy") and the seeded random search
(kind "example", the inputs `check --seed S` sends). Runs are written without clock readings and
without shrinking (a failing random input is attributed as it was generated), so the same versions
and seed give the same bytes.

`tables(out)` reads the streams back and returns the matrix, search and discrepancy records the pages
are rendered from (`oracle.reports.render`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from oracle.adapters.base import Declared
from oracle.diagnose.discrepancies import DOCUMENTED_AS
from oracle.diagnose.discrepancies import load as load_discrepancies
from oracle.harness.events import RESULTS_FILE, read_results
from oracle.harness.gate import BaselineTracker
from oracle.harness.inprocess import transport_for
from oracle.harness.requests import request_from_json
from oracle.harness.session import SessionSettings, run_session
from oracle.signals import INTERRUPTED_CODES, Interrupted
from oracle.models.jsonvalues import json_safe
from oracle.models.outcomes import Outcome, parse_number
from oracle.models.protocol import ScoreRequest, ScoreReply
from oracle.models.results import CorpusSummary, OmittedRequest
from oracle.suite.edge_cases import EDGE_CASES


class Column(Protocol):
    """A column of the report (`oracle.reports.site.Column`), as a run reads it."""

    key: str
    implementation: Declared
    profile: str
    kind: str

RUNS_DIR = "runs"
EDGE_CASE, DISCREPANCY, EXAMPLE, REAL_DATA = "edge-case", "discrepancy", "example", "real-data"
#: Real-data differences attributed per implementation and setting (the first ones, in system order).
REAL_DATA_CLASSIFIED = 4
MESSAGE_LIMIT = 400
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def run_directory(data_dir, key):
    """Where column `key` ("oracle/nltk", "torchmetrics") writes its results.jsonl."""
    return Path(data_dir) / RUNS_DIR / key.replace("/", "-")


def curated_examples(key):
    """(id, request) of the curated discrepancies re-run through implementation `key` (an alias such as
    ignite-micro re-runs the entries of the library it shares code with): those observed through the
    adapter, not by calling the library directly."""
    documented_as = DOCUMENTED_AS.get(key, key)
    out = []
    for entry in load_discrepancies():
        payload = (entry.get("example") or {}).get("request")
        # `observed: library` examples come from calling the library directly; the adapter deliberately
        # does not pass that behaviour on, so re-running through it proves nothing
        if entry.get("implementation") == documented_as and payload is not None and entry.get("observed") != "library":
            out.append((entry["id"], request_from_json(payload)))
    return out


def run_column(column: Column, *, data_dir: Path, seed: int, examples: int, progress: Callable[[str], None] | None = None,
               real: Any = None, real_budget: float | None = None) -> Path:
    """Drive one column through a session in process; returns its results.jsonl path. `real` (the report's
    RealData): the WMT17 requests to score too; an implementation column is judged on them against the
    oracle column of its profile, already run, and gives up after the first system when the rest would
    take longer than `real_budget` seconds."""
    directory = run_directory(data_dir, column.key)
    oracle_column = column.kind == "oracle"
    settings = SessionSettings(impl=column.key, profile=column.profile, seed=seed,
                               examples=0 if oracle_column else examples, shrink_budget=0, report=str(directory),
                               quiet=True, timings=False)
    discrepancies = [] if oracle_column else curated_examples(column.key)
    expectations = {} if real is None or oracle_column else oracle_expectations(data_dir, column.profile)

    def work(session):
        for case in EDGE_CASES:
            session.evaluate(case.id, EDGE_CASE, case.request, title=case.title)
        for identifier, request in discrepancies:  # curated on this adapter, even where its capabilities cannot say so
            session.evaluate(identifier, DISCREPANCY, request, within_capabilities=True)
        session.run_examples()
        if real is not None:
            score_real_data(session, column, real, expectations, real_budget, progress)

    if progress is not None:
        what = "the edge cases" if oracle_column else f"the edge cases, {len(discrepancies)} curated examples and " \
                                                      f"{examples} random inputs (seed {seed})"
        if real is not None:
            what += f", {len(real.items)} real-data corpora"
        progress(f"{column.key}: {what}, judged under profile {column.profile}")
    total = len(EDGE_CASES) + len(discrepancies) + settings.examples + (len(real.items) if real else 0)
    code, _ = run_session(settings, [], verb="report", settings_record={"seed": seed, "examples": settings.examples,
                                                                        "column": column.key},
                          tracker=BaselineTracker(None, check_stale=False), total=total, work=work,
                          report_dir=directory, transport=transport_for(column.implementation))
    if code in INTERRUPTED_CODES:  # the session stopped on ^C or SIGTERM: so does the report
        raise Interrupted(code)
    return directory / RESULTS_FILE


def oracle_expectations(data_dir, profile):
    """id -> the oracle's Expected for each real-data corpus, from the oracle column of `profile`."""
    path = run_directory(data_dir, f"oracle/{profile}") / RESULTS_FILE
    if not path.is_file():
        return {}
    return {r.id: r.expected for r in read_results(path).records if r.kind == REAL_DATA and r.expected is not None}


def score_real_data(session, column, real, expectations, budget, progress):
    """Each real-data corpus through the session: the oracle column records its own value; an implementation
    is judged against it. Differences are attributed among the implementation's curated classes only, the
    first REAL_DATA_CLASSIFIED of each setting (every explanation would recompute the corpus many times)."""
    classified, spent, skipped = {}, 0.0, None
    first_system = real.items[0][1]
    for identifier, system, references, request in real.items:
        summary = {"corpus": identifier.split("/")[0], "system": system, "references": references,
                   "segments": len(request.segments)}
        if skipped:
            session.evaluate(identifier, REAL_DATA, request, invalid=skipped, summary=summary)
            continue
        count = len(references)
        attribution = "documented" if classified.get(count, 0) < REAL_DATA_CLASSIFIED else "none"
        started = time.perf_counter()
        record = session.evaluate(identifier, REAL_DATA, request, summary=summary, attribution=attribution,
                                  expected=expectations.get(identifier) if column.kind == "implementation" else None)
        spent += time.perf_counter() - started
        if record.outcome == Outcome.FAIL:
            classified[count] = classified.get(count, 0) + 1
        systems = len({item[1] for item in real.items})
        if column.kind == "implementation" and system == first_system and count != 1 and systems > 1 \
                and budget is not None and spent * systems > budget:
            skipped = (f"time-boxed: scored on the first system only; all {systems} would take longer than the "
                       f"{budget:g} s budget (--real-data-budget)")
            if progress is not None:
                progress(f"{column.key}: {skipped}")


# -- the streams, read back as the report's tables ------------------------------------------------


def _message(text):
    """A message fit for a deterministic report: no memory addresses, bounded length."""
    if text is None:
        return None
    text = _ADDRESS.sub("", " ".join(str(text).split()))
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def answer(record):
    """What the implementation answered, as the pages show it: {"outcome": "score" | "rejected" |
    "unsupported" | "error", "score" (as the stream has it: a number or "NaN"), "statistics", "message"}."""
    if record.outcome == Outcome.NOT_APPLICABLE:
        return {"outcome": "unsupported", "score": None, "statistics": None, "message": _message(record.message)}
    if not isinstance(record.actual, ScoreReply):  # crash, timeout, protocol error
        return {"outcome": "error", "score": None, "statistics": None, "message": _message(record.message)}
    reply = record.actual.to_json()  # as the stream has it: "NaN" a string
    kind = record.actual.outcome
    if kind == "score":
        return {"outcome": "score", "score": reply["score"], "statistics": reply.get("statistics"), "message": None}
    return {"outcome": kind, "score": None, "statistics": None, "message": _message(reply[kind])}


def expectation(record):
    """The oracle's expectation as the pages show it (None where the input was not applicable)."""
    expected = record.expected
    if expected is None:
        return None
    if expected.rejected:
        return {"rejected": True, "score": None, "score_exact": None, "reason": _message(expected.reason)}
    return {"rejected": False, "score": json_safe(expected.score), "score_exact": expected.score_exact, "reason": None}


def verdict(record):
    """{"agrees", "classification", "documented", "description"}: the session's judgement and root cause."""
    outcome = record.outcome
    if outcome == Outcome.PASS:
        return {"agrees": True, "classification": "agrees", "documented": [], "description": None}
    if outcome == Outcome.REJECTED:
        return {"agrees": True, "classification": "rejected-as-expected", "documented": [], "description": None}
    if outcome == Outcome.NOT_APPLICABLE:
        return {"agrees": False, "classification": "unsupported", "documented": [], "description": None}
    cause = record.classification
    if cause is None:
        return {"agrees": False, "classification": None, "documented": [], "description": None}
    return {"agrees": False, "classification": cause.name, "documented": list(cause.documented),
            "description": _message(cause.description)}


def _size(request):
    if isinstance(request, OmittedRequest):  # a large input, kept as its shape (session.RECORD_TOKEN_LIMIT)
        return request.omitted.tokens
    return request.token_count if isinstance(request, ScoreRequest) else 0


def tables(out, columns):
    """(matrix cells, search records, {discrepancy id: [reruns]}, real-data rows) from the runs of `columns`
    under `out`: [(key, kind, profile, version)]."""
    data_dir = Path(out)
    cells, search, reruns, real = [], [], {}, []
    for key, kind, profile, version in columns:
        path = run_directory(data_dir, key) / RESULTS_FILE
        if not path.is_file():
            continue
        results = read_results(path)
        for record in results.records:
            shown = answer(record)
            if record.kind == EDGE_CASE:
                cell = {"type": "cell", "case": record.id, "column": key, "kind": kind, "profile": profile, **shown}
                if kind == "oracle":
                    cell["score_exact"] = record.expected.score_exact if record.expected is not None else None
                else:
                    cell.update(expected=expectation(record), **verdict(record))
                    if record.outcome == Outcome.NOT_APPLICABLE:
                        cell["not_applicable"] = _message(record.message)
                cells.append(cell)
            elif record.kind == DISCREPANCY:
                judged = verdict(record)
                reruns.setdefault(record.id, []).append({
                    "implementation": key, "version": version, "profile": profile, "answer": shown,
                    "expected": expectation(record), "reproduced": record.id in judged["documented"], **judged})
            elif record.kind == REAL_DATA:
                real.append(_real_row(record, key, kind, profile, shown))
            elif record.kind == EXAMPLE:
                judged = verdict(record)
                expected = expectation(record) or {}
                index = int(record.id.rsplit("-", 1)[1])  # random-<seed>-<index>
                entry = {"type": "example", "implementation": key, "profile": profile, "index": index,
                         "id": record.id, "outcome": shown["outcome"], "score": shown["score"],
                         "message": shown["message"], "expected": expected.get("score"),
                         "expected_rejected": bool(expected.get("rejected")), "size": _size(record.request),
                         "layer": record.layer, **judged}
                if judged["documented"] or judged["agrees"]:
                    entry["description"] = None  # the curated class says it
                else:  # a finding no curated class explains: keep the input itself
                    shown_input = record.replay or record.request
                    entry["request"] = _request_json(shown_input)
                    entry["statistics"] = shown["statistics"]
                search.append(entry)
    return cells, search, reruns, real


def _request_json(request):
    """A recorded input as the pages show it: the replayable form, or (too large to keep) its shape."""
    if isinstance(request, ScoreRequest):
        return request.replay_payload() if request.seq == 0 else request.to_json()
    return None if request is None else request.model_dump(mode="json", exclude_none=True)


def _real_row(record, key, kind, profile, shown):
    """One cell of the real-data table: a system, a setting, a column."""
    summary = record.request if isinstance(record.request, CorpusSummary) else None
    references = list(summary.references) if summary is not None else None
    row = {"type": "real", "system": summary.system if summary is not None else None,
           "references": len(references or ()), "reference_files": references, "column": key, "kind": kind,
           "profile": profile, **shown}
    if kind == "oracle":
        return row
    if record.outcome == Outcome.NOT_APPLICABLE:
        return {**row, "outcome": "skipped", "message": _message(record.message), "expected": None,
                "difference": None}
    expected = record.expected.score if record.expected is not None else None
    score = parse_number(shown["score"])
    judged = verdict(record)
    if record.outcome == Outcome.FAIL and record.classification is None:
        judged["classification"] = "not-classified"
    difference = score - expected if score is not None and expected is not None else None
    return {**row, "expected": expected, "difference": difference, **judged}
