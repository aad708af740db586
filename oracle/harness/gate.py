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
  layer, still fails the gate. Unused cause entries only warn, like classes.
  A cause entry may list documented cases (``cases: [id, ...]``): each is as
  strict as a case id entry (``known`` only when it deviates with the entry's
  outcome by that cause; ``fixed``, ``changed`` or ``stale`` otherwise), so one
  bug is one reason to write however many cases show it.
  An error's cause is the input feature that triggers it
  (``cause:error-when-segment-empty``, `oracle.diagnose.errorcauses`); it is matched by its kind too
  (``cause:error:IndexError``, ``cause:error:unsupported``), the key of baselines written before errors had causes.
  A crash's or a hang's cause is what the probes found kills the process (``cause:crash-when-segment-empty``,
  ``cause:crash-after-2-requests``, ``cause:crash-no-input-feature``: `oracle.harness.crashcauses`); it is
  matched by ``cause:crash`` (``cause:timeout``) too, the key of baselines written before crashes had causes.

`bleu-oracle baseline write` (`oracle.harness.baseline_file`) writes random
examples and cases as root-cause entries by default (``--examples-as causes``,
``--cases-as causes``; an unexplained one falls back to its class or its id);
``baseline update`` also removes what a run no longer observes.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from oracle.diagnose.errorcauses import PREFIX as ERROR_CAUSE_PREFIX
from oracle.diagnose.mechanisms.structure import REFINED_SPECIAL_TOKENS
from oracle.formulas.errors import BleuValueError, os_reason
from oracle.models.baseline import CAUSE_PREFIX, CLASS_PREFIX, Baseline
from oracle.models.outcomes import GOOD_OUTCOMES, Outcome
from oracle.models.results import BaselineStatus, Classification, GateSummary, Record
from oracle.models.wire import ProtocolError, json_value, refuse_lone_surrogates

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
    """`cause:<name>` for a deviating record (a random example or a case) whose failure has an explained root
    cause, else None. An error is keyed by the input feature that triggers it (`cause:error-when-segment-empty`:
    `oracle.diagnose.errorcauses`) where one was confirmed, else by its kind (`cause:error:IndexError`), so that an
    entry forgives that error, not any."""
    if record.classification is None:
        return None
    name = record.classification.name
    if not name or name in ("unexplained", "agrees"):
        return None
    if name == "error":
        return f"{CAUSE_PREFIX}error:{error_kind(record)}"
    return CAUSE_PREFIX + name


def cause_keys(record):
    """Every `cause:<name>` a record's failure may be forgiven by: its root cause's name, and the other
    explanations that fit it as well (the run may name the bug by one of those); an error named by its trigger
    also by its kind, the key baselines written before errors had causes list (`cause:error:IndexError`); a crash
    or a timeout named by its probes also by its outcome (`cause:crash`), the key written before they had causes; a
    special token's refined name also by its broad one (`_BROAD_SPECIAL_TOKEN`), the key written before the probe."""
    first = cause_key(record)
    if first is None or first.startswith(f"{CAUSE_PREFIX}error:"):
        return [first] if first else []
    if record.outcome == Outcome.ERROR and record.classification.name.startswith(ERROR_CAUSE_PREFIX):
        return [first, f"{CAUSE_PREFIX}error:{error_kind(record)}"]
    if record.outcome in (Outcome.CRASH, Outcome.TIMEOUT):
        return list(dict.fromkeys([first, f"{CAUSE_PREFIX}{record.outcome.value}"]))
    broad = [CAUSE_PREFIX + _BROAD_SPECIAL_TOKEN[name] for name in (record.classification.name,
                                                                    *record.classification.fits)
             if name in _BROAD_SPECIAL_TOKEN]
    return [first, *(CAUSE_PREFIX + name for name in record.classification.fits), *broad]


#: A special token's refined name (the probe found the token: `oracle.diagnose.specialtoken`) -> the broad name
#: baselines written before the probe list (`cause:special-token-on-hypotheses` forgives `end-token-on-hypotheses`).
_BROAD_SPECIAL_TOKEN = {name: broad for name, broad, _ in REFINED_SPECIAL_TOKENS}


def baseline_key(record):
    """The key a record is looked up by: its id, and for a random example also its class."""
    if is_random(record):
        outcome = record.outcome.value
        return CLASS_PREFIX + (f"{outcome}:{record.layer}" if record.layer else outcome)
    return record.id


@dataclass(frozen=True)
class Finding:
    """What the baseline gate reads of a record, known before the record is built: its `id` and `kind`, its
    `outcome` and first diverging `layer`, its root cause (`classification`) and its `message` (an error's kind is
    read there: `error_kind`). A record is built from its finding and what the gate says of it
    (`oracle.harness.stages.built_record`), so that the two never disagree."""

    id: str
    kind: str
    outcome: Outcome
    layer: str | None = None
    classification: Classification | None = None
    message: str = ""

    @property
    def good(self) -> bool:
        return self.outcome in GOOD_OUTCOMES

    @classmethod
    def of(cls, record: Record) -> Finding:
        """A record's finding, read back (a shard's record, gated again by `bleu-oracle merge`)."""
        return cls(record.id, record.kind, record.outcome, record.layer, record.classification, record.message)


@dataclass(frozen=True)
class Gating:
    """What the baseline says of one finding: the `key` a baseline entry matches it by (`baseline_key`), and its
    `status` (None: a good record the baseline does not list)."""

    key: str
    status: BaselineStatus | None


#: How a record is gated as it is built (`BaselineTracker.gate`).
Gate = Callable[[Finding], Gating]


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
        from oracle.suite.safeyaml import load_yaml  # here: a `--jobs` worker, given its baseline parsed, needs no YAML

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
        self.listed = self.baseline.by_case
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

    def _seen(self, record_id: str) -> None:
        """Note that a record had `record_id`, where `stale` can ask: only the ids of exact-id entries and listed
        cases are kept, not every record's (one or more per example: the set grew with the run, 40,000 ids at
        20,000 examples, issue 39's peak memory)."""
        if record_id in self.entries or record_id in self.listed:
            self.seen_ids.add(record_id)

    def status(self, record):
        """What the baseline says of a finished record (a BaselineStatus), or None when it is good and not in the
        baseline."""
        self._seen(record.id)
        outcome = record.outcome.value
        good = record.good
        entry = self.entries.get(record.id)
        listed = entry is None and record.id in self.listed  # a case listed under a cause entry: strict, by cause
        if listed:
            entry = self.listed[record.id]
        if entry is None and is_random(record) and not good:
            entry = next((self.entries[k] for k in cause_keys(record) if k in self.entries), None) \
                or self.entries.get(baseline_key(record))
            if entry is None:  # a class entry without a layer matches every layer of that outcome
                entry = self.entries.get(CLASS_PREFIX + outcome)
        if entry is None:
            result = None if good else BaselineStatus(status=NEW)
        else:
            self.used.add(entry.id)
            if outcome == entry.outcome.value and (entry.layer is None or entry.layer == record.layer) \
                    and (not listed or entry.id in cause_keys(record)):
                result = BaselineStatus(status=KNOWN, reason=entry.reason, entry=entry.id)
            elif outcome in (Outcome.PASS.value, Outcome.REJECTED.value, Outcome.ACCEPTABLE.value):
                result = BaselineStatus(status=FIXED, reason=entry.reason, entry=entry.id)
            else:
                want = entry.outcome.value + (f" at layer {entry.layer}" if entry.layer else "") \
                    + (f" by {entry.id}" if listed else "")
                result = BaselineStatus(status=CHANGED, reason=entry.reason, entry=entry.id, was=want)
        if result is not None:
            self.statuses[result.status] += 1
        return result

    def gate(self, finding: Finding) -> Gating:
        """Gate a record about to be built by its finding (`status`, which counts it)."""
        return Gating(baseline_key(finding), self.status(finding))

    def heard(self, record: Record) -> None:
        """Count a record gated by another tracker of the same baseline (a `--jobs` worker's, `gate`) as if it had
        been gated here: its id seen (stale entries are those no record had), its entry used, its status counted."""
        self._seen(record.id)
        status = record.baseline
        if status is not None:
            if status.entry is not None:
                self.used.add(status.entry)
            self.statuses[status.status] += 1

    def _selected(self, entry_id):
        return not self.only or any(fnmatch.fnmatchcase(entry_id, p) for p in self.only)

    def stale(self):
        """Exact-id entries and cases listed under a cause entry whose id no record of the run had (within --id,
        when given)."""
        if not self.check_stale:
            return []
        ids = [e.id for e in self.entries.values() if not e.is_class] + list(self.listed)
        return sorted(i for i in ids if i not in self.seen_ids and self._selected(i))

    def unused(self):
        """Class entries no random example matched (reported, not a gate failure)."""
        return sorted(e.id for e in self.entries.values() if e.is_class and e.id not in self.used)

    def summary(self):
        return GateSummary(**self.statuses, stale=self.stale(), unused=self.unused(), entries=len(self.entries),
                           file=self.baseline.path)

    def gate_failed(self):
        return any(self.statuses[s] for s in FAILING_STATUSES) or bool(self.stale())
