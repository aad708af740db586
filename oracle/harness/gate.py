"""Baselines: known deviations of one implementation, and the gate they feed.

A baseline file (YAML or JSON) lists entries ``{id, outcome, reason}``,
either as a top-level list or under ``entries:``. Extra keys (``layer``,
``message``, ``count``, ...) are kept for the reader; ``layer``, when given,
must match too.

Keys:

- a case id (``nltk-ties-shorter``): strict, like toml-test -- the gate fails
  when that case has another outcome (``changed``), when it now passes
  (``fixed``: "expected failure passed"), or when no record with that id is in
  the run (``stale``);
- an exact random example id (``random-<seed>-<index>``): the same, but only
  meaningful for the same seed, examples count and capabilities;
- a random-example class (``random:<outcome>`` or ``random:<outcome>:<layer>``,
  e.g. ``random:fail:ref_len``): any random example that ends with that
  outcome at that first diverging layer is a known deviation. Random inputs
  change with the seed, so a class entry nothing matched is reported as
  ``unused`` and does not fail the gate. This is how a baseline stays useful
  across seeds: it records *which kind* of divergence is known, and a new kind
  (another layer, a crash) still fails the gate;
- a root cause (``cause:<name>``, e.g. ``cause:segment_totals_floor=1``): any
  random example whose failure `oracle.diagnose.classify` explains by that name. The
  sharpest key for random examples: a new way of being wrong, even at the same
  layer, still fails the gate. Unused cause entries only warn, like classes. An
  error's cause is the input feature that triggers it (``cause:error-when-segment-empty``,
  `oracle.diagnose.errorcauses`); it is matched by its kind too (``cause:error:IndexError``,
  ``cause:error:unsupported``), the key of baselines written before errors had causes.

`bleu-oracle baseline write` writes random examples as root-cause entries by
default (``--examples-as causes``; an unexplained one falls back to its class);
``classes``, ``ids`` and ``none`` are the other choices.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from oracle.diagnose.errorcauses import PREFIX as ERROR_CAUSE_PREFIX
from oracle.files import write_atomically
from oracle.formulas.errors import BleuOracleError, BleuValueError, os_reason
from oracle.models.baseline import CAUSE_PREFIX, CLASS_PREFIX, Baseline
from oracle.models.outcomes import Outcome
from oracle.models.results import BaselineStatus, GateSummary
from oracle.models.wire import ProtocolError, json_value, refuse_lone_surrogates
from oracle.suite.safeyaml import load_yaml

KNOWN, NEW, FIXED, CHANGED = "known", "new", "fixed", "changed"
#: Statuses that fail the gate (besides stale entries).
FAILING_STATUSES = (NEW, FIXED, CHANGED)


#: Record kinds drawn at random (their ids depend on the seed): keyed by class or cause in baselines.
RANDOM_KINDS = ("example", "metamorphic", "stateful", "series")
_RANDOM_ID = re.compile(r"random-\d+-\d+(~.*)?$")


def is_random(record):
    """A random example or relation, or the replay of one (`check --replay results.jsonl` keeps its id)."""
    return record.kind in RANDOM_KINDS or (record.kind == "replay" and bool(_RANDOM_ID.match(record.id)))


_ANSWERED = re.compile(r"answered (error|unsupported): (?:([A-Za-z_][\w.]*(?:Error|Exception|Panic\w*|Fault)):)?")


def error_kind(record):
    """What kind of error an `error` record is: "unsupported", the exception's name ("IndexError"), or
    "error" when the message names none. A series step's message says which step first ("series step 2 of
    36 ...; answered error: ..."): the answer is looked for anywhere in it."""
    match = _ANSWERED.search(record.message)
    if match is None:
        return "error"
    return "unsupported" if match.group(1) == "unsupported" else (match.group(2) or "error")


def cause_key(record):
    """`cause:<name>` for a random example whose failure has an explained root cause, else None. An error is
    keyed by the input feature that triggers it (`cause:error-when-segment-empty`: `oracle.diagnose.errorcauses`)
    where one was confirmed, else by its kind (`cause:error:IndexError`), so that an entry forgives that error,
    not any."""
    if not is_random(record) or record.classification is None:
        return None
    name = record.classification.name
    if not name or name in ("unexplained", "agrees"):
        return None
    if name == "error":
        return f"{CAUSE_PREFIX}error:{error_kind(record)}"
    return CAUSE_PREFIX + name


def cause_keys(record):
    """Every `cause:<name>` a random example's failure may be forgiven by: its root cause's name, and the other
    explanations that fit it as well (the run may name the bug by one of those); an error named by its trigger
    also by its kind, the key baselines written before errors had causes list (`cause:error:IndexError`)."""
    first = cause_key(record)
    if first is None or first.startswith(f"{CAUSE_PREFIX}error:"):
        return [first] if first else []
    if record.outcome == Outcome.ERROR and record.classification.name.startswith(ERROR_CAUSE_PREFIX):
        return [first, f"{CAUSE_PREFIX}error:{error_kind(record)}"]
    return [first, *(CAUSE_PREFIX + name for name in record.classification.fits)]


def baseline_key(record):
    """The key a record is looked up by: its id, and for a random example also its class."""
    if is_random(record):
        outcome = record.outcome.value
        return CLASS_PREFIX + (f"{outcome}:{record.layer}" if record.layer else outcome)
    return record.id


#: The reason `baseline write` leaves for a human to replace.
UNREVIEWED = "TODO"


def load_baseline(path, *, allow_unreviewed=False):
    """Read and validate a baseline file (YAML or JSON: a mapping with `entries:`, or a list of entries);
    returns the Baseline (its `path` set). Raises BleuValueError naming the file and the entry, also
    for an entry whose reason is still empty or TODO (a baseline nobody reviewed would gate green on
    anything), unless `allow_unreviewed`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BleuValueError(f"cannot read baseline {path}: not UTF-8 text (byte {exc.start + 1})") from None
    except OSError as exc:
        raise BleuValueError(f"cannot read baseline {path} ({os_reason(exc)})") from None
    if path.suffix == ".json":
        try:
            data = json_value(text)
        except ValueError as exc:
            raise BleuValueError(f"baseline {path} is not valid JSON: {exc}") from None
    else:
        data = load_yaml(text, name=f"baseline {path}")
    if data is None:
        data = []
    try:  # a reason or id that no UTF-8 file can hold would end the run that writes it into a record
        refuse_lone_surrogates(data)
    except ProtocolError as exc:
        raise BleuValueError(f"baseline {path}: {exc}") from None
    if isinstance(data, list):
        data = {"entries": data}
    if not isinstance(data, dict):
        raise BleuValueError(f"baseline {path}: expected a list of entries (got {type(data).__name__})")
    if "entries" not in data:
        raise BleuValueError(f"baseline {path}: a mapping must hold `entries: [...]` (got keys {sorted(data)})")
    data = {**data, "entries": data["entries"] or []}
    try:
        baseline = Baseline.model_validate(data).at(path)
    except ValidationError as exc:
        raise BleuValueError(f"baseline {path}, {_where(exc, data)}") from None
    unreviewed = [(i, e) for i, e in enumerate(baseline.entries, 1) if not e.reviewed]
    if unreviewed and not allow_unreviewed:
        i, entry = unreviewed[0]
        raise BleuValueError(f"baseline {path}: {len(unreviewed)} of {len(baseline.entries)} entries have no reviewed "
                             f"reason (entry {i} ({entry.id}): reason {entry.reason!r}); write why each deviation is "
                             "acceptable, or pass --allow-unreviewed")
    return baseline


def _where(exc, data):
    """'entry N (id): problem' for the first validation error."""
    error = exc.errors(include_url=False)[0]
    loc = list(error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    if loc[:1] == ["entries"] and len(loc) >= 2 and isinstance(loc[1], int):
        item = data["entries"][loc[1]]
        name = f" ({item.get('id')})" if isinstance(item, dict) and item.get("id") else ""
        field = f"`{'.'.join(map(str, loc[2:]))}` " if len(loc) > 2 else ""
        if not isinstance(item, dict):
            return f"entry {loc[1] + 1}: an entry must be {{id, outcome, reason}} (got {item!r:.100})"
        return f"entry {loc[1] + 1}{name}: {field}{message}"
    return f"`{'.'.join(map(str, loc))}`: {message}" if loc else message


class BaselineTracker:
    """Applies a baseline record by record during a run, then finds stale and unused entries."""

    def __init__(self, baseline=None, *, only=None, check_stale=True):
        self.baseline = baseline if baseline is not None else Baseline()
        self.entries = self.baseline.by_id
        self.only = list(only or [])
        self.check_stale = check_stale
        self.seen_ids = set()
        self.used = set()
        self.statuses = {KNOWN: 0, NEW: 0, FIXED: 0, CHANGED: 0}

    def another(self, implementation: str | None, profile: str | None) -> str | None:
        """Why the baseline must not gate this run (written for another implementation or profile than the run's:
        a gate green by another library's reviewed deviations), or None."""
        mismatch = self.baseline.mismatch(implementation, profile)
        if mismatch is None:
            return None
        return (f"baseline {self.baseline.path} was written for {mismatch} (this run's): give this "
                "implementation's baseline, or edit the file's `implementation:` and `profile:` if it is meant for "
                "this one")

    def status(self, record):
        """What the baseline says of a finished record (a BaselineStatus), or None when it is good and not in the
        baseline."""
        self.seen_ids.add(record.id)
        outcome = record.outcome.value
        good = record.good
        entry = self.entries.get(record.id)
        if entry is None and is_random(record) and not good:
            entry = next((self.entries[k] for k in cause_keys(record) if k in self.entries), None) \
                or self.entries.get(baseline_key(record))
            if entry is None:  # a class entry without a layer matches every layer of that outcome
                entry = self.entries.get(CLASS_PREFIX + outcome)
        if entry is None:
            result = None if good else BaselineStatus(status=NEW)
        else:
            self.used.add(entry.id)
            if outcome == entry.outcome.value and (entry.layer is None or entry.layer == record.layer):
                result = BaselineStatus(status=KNOWN, reason=entry.reason, entry=entry.id)
            elif outcome in (Outcome.PASS.value, Outcome.REJECTED.value):
                result = BaselineStatus(status=FIXED, reason=entry.reason, entry=entry.id)
            else:
                want = entry.outcome.value + (f" at layer {entry.layer}" if entry.layer else "")
                result = BaselineStatus(status=CHANGED, reason=entry.reason, entry=entry.id, was=want)
        if result is not None:
            self.statuses[result.status] += 1
        return result

    def _selected(self, entry_id):
        return not self.only or any(fnmatch.fnmatchcase(entry_id, p) for p in self.only)

    def stale(self):
        """Exact-id entries whose id no record of the run had (within --id, when given)."""
        if not self.check_stale:
            return []
        return sorted(e.id for e in self.entries.values()
                      if not e.is_class and e.id not in self.seen_ids and self._selected(e.id))

    def unused(self):
        """Class entries no random example matched (reported, not a gate failure)."""
        return sorted(e.id for e in self.entries.values() if e.is_class and e.id not in self.used)

    def summary(self):
        return GateSummary(**self.statuses, stale=self.stale(), unused=self.unused(), entries=len(self.entries),
                           file=self.baseline.path)

    def gate_failed(self):
        return any(self.statuses[s] for s in FAILING_STATUSES) or bool(self.stale())


@dataclass(frozen=True)
class BaselineWritten:
    """What `write_baseline` did: entries added (reason TODO), entries already there (kept as written), and the
    ones among those the run did not observe (kept; the gate reports an exact id among them as stale)."""

    added: int
    kept: int
    not_observed: tuple[str, ...] = ()


#: What `baseline write` puts at the top of a new YAML baseline.
YAML_HEADER = (
    "# bleu-oracle baseline: known deviations, written for review.\n"
    "# Replace every `reason: TODO` with why the deviation is acceptable.\n"
    "# Keys: a case id or random-<seed>-<index> (strict: fails when it passes or is gone);\n"
    "# cause:<root cause> or random:<outcome>:<layer> (any random example with that root cause,\n"
    "# or of that kind; unused entries only warn).\n"
)


def write_baseline(results, out, *, examples_as="causes", force=False):
    """Write the deviations of a run (`events.Results`) as a baseline for review; returns a `BaselineWritten`.

    Reasons are left as TODO for a human. `examples_as`: "causes" (one
    `cause:<name>` entry per explained root cause, unexplained ones by class),
    "classes" (one `random:<outcome>:<layer>` entry per kind of divergence),
    "ids" (exact `random-<seed>-<index>` ids, meaningful only with the same seed), "none".

    Onto an existing baseline, nothing already there is lost: its entries, reasons and comments stay as written,
    the run's deviations it does not list are added (reason TODO), and the entries the run did not observe are
    reported. A YAML file is added to by appending to its list of entries, so every byte of it is kept; one whose
    entries cannot be appended to (a flow-style list) is refused unless `force`, which rewrites it (reasons and
    entries kept, comments lost). A JSON file is rewritten (it holds no comments).
    """
    if examples_as not in ("causes", "classes", "ids", "none"):
        raise BleuValueError(f"`examples_as` must be causes, classes, ids or none (got {examples_as!r})")
    entries = _deviation_entries(results, examples_as)
    out = Path(out)
    if not out.exists():
        _write_document(out, _document(results, entries))
        return BaselineWritten(added=len(entries), kept=0)
    existing = load_baseline(out, allow_unreviewed=True)
    known = {entry.id for entry in existing.entries}
    observed = {entry["id"] for entry in entries}
    added = [entry for entry in entries if entry["id"] not in known]
    not_observed = tuple(entry.id for entry in existing.entries if entry.id not in observed)
    if added:
        _add_entries(out, added, force=force)
    return BaselineWritten(added=len(added), kept=len(existing.entries), not_observed=not_observed)


def _run_cause_key(record, run_names):
    """The `cause:<name>` of a record as the run names it: the first of the footer's causes that fits it
    (one bug, one entry), else its own root cause's."""
    keys = cause_keys(record)
    return next((CAUSE_PREFIX + name for name in run_names if CAUSE_PREFIX + name in keys), keys[0] if keys else None)


def _deviation_entries(results, examples_as):
    entries, classes = [], {}
    footer = getattr(results, "footer", None)
    run_names = [cause.name for cause in (footer.causes or ())] if footer is not None else []
    for record in results.records:
        if record.good:
            continue
        message = record.message.splitlines()[0][:200] if record.message else ""
        if is_random(record) and examples_as != "ids":
            if examples_as == "none":
                continue
            key = (examples_as == "causes" and _run_cause_key(record, run_names)) or baseline_key(record)
            if key in classes:
                classes[key]["count"] += 1
                continue
            classes[key] = {"id": key, "outcome": record.outcome.value, "reason": "TODO",
                            "count": 1, "example": record.id, "message": message}
            entries.append(classes[key])
            continue
        entry = {"id": record.id, "outcome": record.outcome.value, "reason": "TODO"}
        if record.layer:
            entry["layer"] = record.layer
        if message:
            entry["message"] = message
        entries.append(entry)
    return entries


def _document(results, entries):
    header = results.header
    implementation = header.implementation.to_json() if header.implementation is not None else {}
    return {
        "implementation": implementation,
        "profile": header.judged_profile,
        "from": str(results.path) if results.path else None,
        "seed": header.settings.seed,
        "entries": entries,
    }


def _write_document(out, document):
    if out.suffix == ".json":
        write_atomically(out, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        write_atomically(out, YAML_HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))


def _add_entries(out, added, *, force):
    """Add entries to an existing baseline file without losing anything it holds (see `write_baseline`)."""
    text = out.read_text(encoding="utf-8")
    if out.suffix == ".json":
        document = json.loads(text)
        if isinstance(document, list):
            document = document + added
        else:
            document["entries"] = [*(document.get("entries") or []), *added]
        write_atomically(out, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return
    data = load_yaml(text, name=f"baseline {out}")
    old = data if isinstance(data, list) else (data or {}).get("entries") or []
    for candidate in _appended(text, added):
        try:
            merged = load_yaml(candidate, name=f"baseline {out}")
        except BleuOracleError:  # appending there breaks the file: try the next way
            continue
        entries = merged if isinstance(merged, list) else (merged or {}).get("entries")
        if entries == [*old, *added]:
            write_atomically(out, candidate)
            return
    if not force:
        raise BleuValueError(f"cannot add {len(added)} entr{'y' if len(added) == 1 else 'ies'} to {out} without "
                             "rewriting it (its entries are not a block list at its end); add them by hand, or pass "
                             "--force to rewrite it (entries and reasons kept, comments lost)")
    document = data if isinstance(data, dict) else {"entries": data or []}
    document["entries"] = [*old, *added]
    write_atomically(out, YAML_HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120))


def _appended(text, added):
    """Texts of a YAML baseline with `added` appended to its list of entries, without touching a byte of it:
    after its last line (a block list at the end, indented as its items are), or in place of `entries: []`."""
    dumped = yaml.safe_dump(added, sort_keys=False, allow_unicode=True, width=120)
    items = re.findall(r"(?m)^([ \t]*)- ", text)
    indent = items[-1] if items else ""
    yield text.rstrip("\n") + "\n" + "".join(indent + line + "\n" for line in dumped.splitlines())
    empty = re.compile(r"(?m)^entries:[ \t]*\[\][ \t]*$")
    if len(empty.findall(text)) == 1:
        yield empty.sub(lambda _: "entries:\n" + dumped.rstrip("\n"), text)
