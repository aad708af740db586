"""Regression cases from `bleu-oracle fuzz --write-cases`: one per root cause, built from the fuzz run's records
and checked against the oracle before they are kept; the case file itself (ids, YAML, appending) is written by
`oracle.suite.foundcases`.

The project's rule is that an expected value never comes from the oracle's own
output. A disagreement found by fuzzing has no document behind it, so a case
written here takes its expected value from the other side: the value the
implementation *answered* (an independent implementation), and records the
root cause `oracle.diagnose.classify` found for it::

    document: "bleu-oracle fuzz against nltk 3.10.4"
    found_by: fuzz                      # instead of `seed`: no document to quote
    cases:
    - id: fuzz-nltk-segment-totals-floor-1-3f9a1c2e
      title: 'nltk 3.10.4 answers 0.8801117367933934: segment_totals_floor=1'
      source: {document: bleu-oracle fuzz against nltk 3.10.4, section: segment_totals_floor=1,
               quote: "each segment's n-gram total is at least 1 before summing ..."}
      profiles: [nltk]                  # the judged profile
      kind: value
      input: {...}                      # the minimal (shrunk) input
      options: {weights: [...], smoothing: {...}, lowercase: false}
      expect: {score: 0.8801117367933934, tolerance: 8.9e-10}    # the implementation's value
      explained_by: {name: segment_totals_floor=1, change: [[segment_totals_floor, 1]]}
      note: Observed ... the oracle under the nltk profile gives 1 ...

`bleu-oracle cases validate` recomputes the oracle under the judged profile
changed as `explained_by` says (`oracle.diagnose.classify.explained_value`) and compares
it with the implementation's value: the oracle, under the convention (or
computation) that explains the implementation, must reproduce what that
implementation computed. `bleu-oracle check --cases DIR` judges the input
against the oracle only (a case found by fuzzing states no documented value), so
the case fails there while the disagreement persists and passes once it is
fixed -- a regression input, keyed by a stable id for baselines.

Ids are `fuzz-<implementation>-<root cause>-<8 hex digits of the input's hash>`:
the same input found again gets the same id (and is not written twice); an id
that exists or is retired in the case directory is never reused (the hash is
lengthened). Only explained score disagreements are written: a rejection, an
error, a crash or an unexplained value has no explanation the oracle could
replay (they are listed in the fuzz summary).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction
from pathlib import Path

from oracle.diagnose.casecheck import check_cases
from oracle.diagnose.classify import (
    FLOAT32,
    FLOAT32_REL_TOLERANCE,
    UNEXPLAINED,
    explained_value,
    smoothing_from_description,
)
from oracle.diagnose.expect import ORACLE_REFUSALS
from oracle.diagnose.judge import Contract
from oracle.formulas.errors import CaseFileError
from oracle.models.protocol import ScoreReply
from oracle.suite.foundcases import append_cases, case_id, existing_ids, file_text, read_target


def _contract(parts):
    """The numeric contract an explanation (its parts) is held to: float32 precision for a '+ float32' one."""
    return Contract(rel=FLOAT32_REL_TOLERANCE) if FLOAT32 in parts else Contract()


def tolerance_for(observed, value, parts):
    """The numeric contract at these values (float32 precision for a '+ float32' explanation: `parts`, its
    mechanisms), rounded up to two significant digits."""
    contract = _contract(parts)
    bound = contract.abs + contract.rel * max(abs(observed), abs(value))
    exponent = Decimal(bound).adjusted()
    quantum = Decimal(1).scaleb(exponent - 1)
    return float(Decimal(bound).quantize(quantum, rounding=ROUND_CEILING))


def _change_json(change):
    """An explanation's change as the case file holds it: smoothing as a mapping with exact parameters."""
    out = []
    for key, value in change:
        if key == "smoothing":
            smoothing = smoothing_from_description(value) if isinstance(value, str) else value
            mapping = {"method": smoothing.method}
            for param, _number in smoothing.to_json().items():
                if param != "method":
                    exact = Fraction(getattr(smoothing, param))
                    mapping[param] = int(exact) if exact.denominator == 1 else str(exact)
            out.append(["smoothing", mapping])
        else:
            out.append([key, value])
    return out


def _statistics(statistics):
    """Reported statistics as a case's `expect.statistics` (None when they cannot be: no orders, or matches
    beyond totals)."""
    matches, totals = list(statistics.matches), list(statistics.totals)
    if not matches or len(matches) != len(totals) or any(m > t for m, t in zip(matches, totals, strict=True)):
        return None
    return {"hyp_len": statistics.hyp_len, "ref_len": statistics.ref_len, "matches": matches, "totals": totals}


@dataclass
class Written:
    name: str
    case_id: str | None
    status: str  # "written", "already recorded", or why it was not written


def case_from_record(record, *, implementation, version, profile, taken, found_by_command=""):
    """A case (a plain mapping) for one failing record, or (None, reason) when it cannot be one."""
    classification = record.classification
    name = classification.name if classification is not None else None
    if not name or classification.scope == "outcome":
        return None, f"{record.outcome.value}: not a wrong value (no explanation to replay)"
    if name == UNEXPLAINED:
        return None, "unexplained: no explanation the oracle could replay"
    request = record.reported_input
    actual = record.shrunk.actual if record.shrunk is not None and record.shrunk.actual is not None else record.actual
    if request is None or not isinstance(actual, ScoreReply) or actual.score is None:
        return None, "no score in the answer"
    observed = actual.score
    if math.isinf(observed) or observed < 0:
        return None, f"the answer {observed!r} is not a score the case format holds"
    payload = request.replay_payload()
    try:
        value = explained_value(request, profile, classification.change)
    except ORACLE_REFUSALS as exc:
        return None, f"the explanation cannot be replayed: {exc}"
    if value is None or not _contract(classification.parts).close(observed, value):
        return None, f"the oracle under `{name}` gives {value!r}, not the answer {observed!r}"
    for segment in payload["segments"]:
        for tokens in [segment["hypothesis"], *segment["references"]]:
            if any(not isinstance(t, str) or t.split() != [t] for t in tokens):
                return None, "a token the case format cannot hold (empty or with whitespace)"
    identifier = case_id(implementation, name, payload, taken)
    document = f"bleu-oracle fuzz against {implementation} {version}".strip()
    if math.isnan(observed):
        expect = {"score": "NaN"}
    else:
        expect = {"score": float(observed), "tolerance": tolerance_for(observed, value, classification.parts)}
    change = classification.change
    statistics = _statistics(actual.statistics) if actual.statistics is not None else None
    if not any(k == "computation" and v != FLOAT32 for k, v in change) and statistics is not None:
        expect["statistics"] = statistics
    oracle = classification.expected
    how = f" by `{found_by_command}`" if found_by_command else ""
    case = {
        "id": identifier,
        "title": f"{implementation} {version} answers {_show(observed)}: {name}".replace("\n", " "),
        "source": {"document": document, "section": name,
                   "quote": " ".join((classification.description or name).split())},
        "profiles": [profile],
        "kind": "value",
        "input": {"level": payload["level"], "segments": payload["segments"]},
        "options": {"weights": list(payload["weights"]), "smoothing": dict(payload["smoothing"]),
                    "lowercase": bool(payload["lowercase"])},
        "expect": expect,
        "explained_by": {"name": name, "change": _change_json(change)},
        "note": (f"Observed: {implementation} {version} answered {_show(observed)} ({record.id}, found{how}, "
                 f"shrunk to this input); the oracle under the {profile} profile gives {_show(oracle)}, and under "
                 f"`{name}` {_show(value)}. `cases validate` checks that the oracle under this explanation gives the "
                 f"implementation's value; `check` judges the input against the oracle only."),
    }
    return case, None


def _show(value):
    if value is None:
        return "no value"
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else repr(value)
    return str(value)


def write_cases(path, groups, *, implementation, version, profile, cases_dir=None, found_by_command=""):
    """Write one case per root cause (its smallest example) to `path`, appending to a fuzz case file that
    exists; returns a `Written` per group. The file is loaded and every case checked against the oracle
    (`oracle.suite.cases.check_case`) before it is kept: a case `cases validate` would fail is not written."""
    from oracle.suite import cases as casefiles

    path = Path(path)
    existing = read_target(path)
    in_file = {case.id for case in existing}
    taken = existing_ids(cases_dir, exclude=path)  # ids of the target file itself are "already recorded"
    report, new = [], []
    for group in groups:
        case, reason = case_from_record(group.smallest, implementation=implementation, version=version,
                                        profile=profile, taken=taken, found_by_command=found_by_command)
        if case is None:
            report.append(Written(group.name, None, f"not written: {reason}"))
            continue
        if case["id"] in in_file:
            report.append(Written(group.name, case["id"], f"already recorded in {path}"))
            continue
        verified, reason = _verified(case, path, casefiles)
        if verified is None:
            report.append(Written(group.name, None, f"not written: {reason}"))
            continue
        taken.add(verified["id"])
        new.append(verified)
        report.append(Written(group.name, verified["id"], f"written to {path}"))
    if new:
        append_cases(path, new, document=f"bleu-oracle fuzz against {implementation} {version}".strip())
    return report


def _verified(case, path, casefiles):
    """The case if it loads and passes `check_case` (dropping observed statistics the explanation does not
    reproduce), else (None, why)."""
    import tempfile

    candidates = [case]
    if "statistics" in case["expect"]:
        lean = dict(case, expect={k: v for k, v in case["expect"].items() if k != "statistics"})
        candidates.append(lean)
    last = "?"
    for candidate in candidates:
        with tempfile.TemporaryDirectory() as tmp:
            probe = Path(tmp) / (Path(path).name or "found.yaml")
            probe.write_text(file_text([candidate], document=candidate["source"]["document"]), encoding="utf-8")
            try:
                [loaded] = casefiles.load_case_file(probe)
            except CaseFileError as exc:
                last = f"the case does not load: {exc.bare_message if hasattr(exc, 'bare_message') else exc}"
                continue
            outcomes = check_cases([loaded])
            if all(o.passed for o in outcomes):
                return candidate, None
            last = "; ".join(f for o in outcomes for f in o.failures)
    return None, f"the oracle under the explanation does not reproduce it ({last})"
