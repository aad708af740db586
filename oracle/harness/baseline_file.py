"""Writing a baseline file for review: `bleu-oracle baseline write` adds the deviations of a run that it does not
list (reason TODO); `bleu-oracle baseline update` also removes what the run no longer observes.

Both judge the run by the baseline as its gate does (`gate.BaselineTracker`): what they add is what the gate calls
``new``, and what `update` removes is what it calls ``fixed`` (an expected failure passed), ``stale`` or
``unused``; an entry that still matches a deviation of the run is kept as written, reviewed reason and all.

Entries group deviations by the run's root cause: one bug is one entry and one reason to write, the documented
cases it makes deviate listed under it (``cases:``) and its random examples counted; a deviation without an
explained cause gets an entry of its own (a case by id, a random example by its class).

A YAML file is edited in its text: an entry removed takes its own lines with it, a case its line in its entry's
``cases:`` list, entries added go after the last; every other byte (comments, quoting, the order of keys) stays.
The edited text is read back and must hold exactly the entries intended, else nothing is written unless `force`
(then the file is rewritten: entries and reasons kept, comments lost). A JSON file is rewritten (it holds no
comments). Either is written whole or not at all (`oracle.files.write_atomically`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from oracle.files import write_atomically
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.models.baseline import CAUSE_PREFIX, BaselineEntry
from oracle.models.outcomes import Outcome
from oracle.models.results import Record
from oracle.models.wire import json_value
from oracle.suite.safeyaml import load_yaml

from .gate import (
    CHANGED,
    FIXED,
    KNOWN,
    NEW,
    UNREVIEWED,
    BaselineTracker,
    baseline_key,
    cause_keys,
    is_random,
    load_baseline,
)

#: How `baseline write` keys random examples, and documented cases.
EXAMPLES_AS = ("causes", "classes", "ids", "none")
CASES_AS = ("causes", "ids")
#: How much of a record's message an entry keeps for the reader.
MESSAGE_KEPT = 200

#: What `baseline write` puts at the top of a new YAML baseline.
YAML_HEADER = (
    "# bleu-oracle baseline: known deviations, written for review.\n"
    "# Replace every TODO under `reason: |-` with why the deviation is acceptable: any text, on lines indented as\n"
    "# TODO is (a literal block: a colon, #, a leading -, quotes and backslashes are all just text there).\n"
    "# Keys: a case id or random-<seed>-<index> (strict: fails when it passes or is gone);\n"
    "# cause:<root cause> (its `cases:` strict as ids; any random example with that root cause)\n"
    "# or random:<outcome>:<layer> (any random example of that kind); unused entries only warn.\n"
)


# -- entries from a run's deviations ---------------------------------------------------------------------


def _run_cause_key(record, run_names):
    """The `cause:<name>` of a record as the run names it: the first of the footer's causes that fits it
    (one bug, one entry), else its own root cause's."""
    keys = cause_keys(record)
    return next((CAUSE_PREFIX + name for name in run_names if CAUSE_PREFIX + name in keys), keys[0] if keys else None)


def _run_names(results):
    footer = getattr(results, "footer", None)
    return [cause.name for cause in (footer.causes or ())] if footer is not None else []


def _first_line(message):
    return message.splitlines()[0][:MESSAGE_KEPT] if message else ""


@dataclass
class _Group:
    """The deviations one entry stands for: cases listed by id, random examples counted."""

    key: str
    outcome: str
    message: str
    cases: list[str] = field(default_factory=list)
    count: int = 0
    example: str | None = None

    def add(self, record):
        if is_random(record):
            self.count += 1
            self.example = self.example or record.id
        else:
            self.cases.append(record.id)

    def entry(self):
        entry: dict[str, Any] = {"id": self.key, "outcome": self.outcome, "reason": UNREVIEWED}
        if self.cases:
            entry["cases"] = list(self.cases)
        if self.count:
            entry["count"], entry["example"] = self.count, self.example
        entry["message"] = self.message
        return entry


def _group_key(record, run_names, examples_as, cases_as):
    """The key a deviating record is grouped under, or None when it gets an entry of its own."""
    if is_random(record):
        if examples_as == "ids":
            return None
        return (examples_as == "causes" and _run_cause_key(record, run_names)) or baseline_key(record)
    return _run_cause_key(record, run_names) if cases_as == "causes" else None


def _entry_of_its_own(record):
    entry = {"id": record.id, "outcome": record.outcome.value, "reason": UNREVIEWED}
    if record.layer:
        entry["layer"] = record.layer
    message = _first_line(record.message)
    if message:
        entry["message"] = message
    return entry


def deviation_entries(records, run_names, *, examples_as="causes", cases_as="causes", taken=frozenset()):
    """Entries (plain data, reason TODO) for the deviating `records`, in the order of their first record: one per
    run cause (`run_names`: the footer's) covering its cases and random examples, one per id for a case without an
    explained cause or a random example under `examples_as` "ids". A record whose key is `taken` (an entry kept
    from the baseline already has it) or whose outcome is not its group's gets an entry of its own."""
    if examples_as not in EXAMPLES_AS:
        raise BleuValueError(f"`examples_as` must be {', '.join(EXAMPLES_AS)} (got {examples_as!r})")
    if cases_as not in CASES_AS:
        raise BleuValueError(f"`cases_as` must be {' or '.join(CASES_AS)} (got {cases_as!r})")
    groups: dict[str, _Group] = {}
    ordered: list[_Group | dict] = []
    for record in records:
        if record.good or (is_random(record) and examples_as == "none"):
            continue
        key = _group_key(record, run_names, examples_as, cases_as)
        group = groups.get(key) if key else None
        if key and key not in taken and group is None:
            group = groups[key] = _Group(key, record.outcome.value, _first_line(record.message))
            ordered.append(group)
        if group is not None and group.outcome == record.outcome.value:
            group.add(record)
        else:
            ordered.append(_entry_of_its_own(record))
    return [item.entry() if isinstance(item, _Group) else item for item in ordered]


# -- judging a run by a baseline -------------------------------------------------------------------------


@dataclass
class _Judged:
    """A run as the gate judges it by a baseline: the records each entry knows, the deviations no entry knows
    (new) or knows otherwise (changed), and each record's status, by id."""

    known: dict[str, set[str]] = field(default_factory=dict)
    new: list[Record] = field(default_factory=list)
    changed: list[Record] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)
    matched: dict[str, list[str]] = field(default_factory=dict)

    def why_gone(self, record_id):
        """What became of the deviation of record `record_id` that an entry listed, in words: "pass now",
        "error at score now (cause:error:IndexError)", "no record in this run"."""
        record = self.records.get(record_id)
        if record is None:
            return "no record in this run"
        if self.statuses.get(record_id) == FIXED:
            return f"{record.outcome.value} now"
        where = f" at {record.layer}" if record.layer else ""
        cause = cause_keys(record)
        return f"{record.outcome.value}{where} now" + (f" ({cause[0]})" if cause else "")


def _judge(results, baseline):
    tracker = BaselineTracker(baseline, check_stale=False)
    judged = _Judged()
    for record in results.records:
        status = tracker.status(record)
        judged.records[record.id] = record
        if status is None:
            continue
        judged.statuses[record.id] = status.status
        if status.entry is not None:
            judged.matched.setdefault(status.entry, []).append(status.status)
        if status.status == KNOWN:
            judged.known.setdefault(status.entry, set()).add(record.id)
        elif status.status == NEW:
            judged.new.append(record)
        elif status.status == CHANGED:
            judged.changed.append(record)
    return judged


@dataclass(frozen=True)
class Removed:
    """An entry `update` removed (or a case it removed from a cause entry's `cases`: `case`), why, and the reason
    the entry had (printed: the only place it is still written)."""

    id: str
    why: str
    reason: str
    case: str | None = None


@dataclass(frozen=True)
class Unmet:
    """An entry (or a case listed under one: `case`) that `update` kept though the run did not meet it: the run
    could not have met it (`why`), so it cannot say the deviation is gone."""

    id: str
    why: str
    case: str | None = None


_RANDOM_ENTRY_ID = re.compile(r"random-(-?\d+)-(\d+)(?:~.*)?$")


@dataclass(frozen=True)
class _Scope:
    """What a run could have met: the documented cases it judged, its seed and how many random examples it drew,
    against how many the baseline's own run drew (its header's `examples`)."""

    seed: int | None
    examples: int
    baseline_examples: int | None
    bundled_suite: bool
    recorded: frozenset[str]

    @classmethod
    def of(cls, results, baseline):
        settings = results.header.settings
        drawn = _examples_drawn(results)
        # "91 from the bundled suite[, 3 from mine.yaml]": the whole suite was judged (not --no-cases, not --cases)
        bundled = "from the bundled suite" in (settings.cases or "")
        return cls(settings.seed, drawn or 0, baseline.examples, bundled, frozenset(r.id for r in results.records))

    def unmet_case(self, case_id):
        """Why the run could not have met documented case `case_id`, or None when it could (it has a record of the
        case, or it judged the whole bundled suite and the case is no longer in it)."""
        if case_id in self.recorded or self.bundled_suite:
            return None
        return "not judged by this run (it did not run the bundled suite of documented cases)"

    def unmet_example(self, example_id):
        """Why the run could not have met random example `example_id` (random-<seed>-<index>), or None."""
        match = _RANDOM_ENTRY_ID.match(example_id)
        if match is None or example_id in self.recorded:
            return None
        seed, index = int(match.group(1)), int(match.group(2))
        if seed != self.seed:
            return f"not judged by this run (seed {self.seed}, the example is of seed {seed})"
        if index >= self.examples:
            return f"not judged by this run (it drew {self.examples} random examples)"
        return None

    def unmet_class(self, entry):
        """Why a cause or class entry not met by the run's random examples could still match one (the run's search
        was smaller than the one that wrote the baseline, or the baseline does not say how large that was), or
        None. An entry that stands for documented cases only (a cause entry without `count`) is judged by them."""
        if entry.id.startswith(CAUSE_PREFIX) and entry.cases and not (entry.model_extra or {}).get("count"):
            return None
        if self.baseline_examples is None:
            return (f"not met by this run's {self.examples} random examples, and the baseline does not say how many "
                    "its own run drew (`examples:` in its header, which `baseline write` writes)")
        if self.examples < self.baseline_examples:
            return (f"not met by this run's {self.examples} random examples, fewer than the {self.baseline_examples} "
                    "of the run that wrote the baseline")
        return None

    def unmet(self, entry):
        """Why the run could not have met `entry` (so `update` keeps it though unmet), or None."""
        if entry.is_class:
            return self.unmet_class(entry)
        if _RANDOM_ENTRY_ID.match(entry.id):
            return self.unmet_example(entry.id)
        return self.unmet_case(entry.id)


@dataclass
class _Plan:
    """What becomes of a baseline: the entries kept (the cases each still lists), those removed, those added, and
    those kept unmet because the run could not have met them."""

    kept: list[tuple[int, BaselineEntry, tuple[str, ...]]]
    removed: list[Removed]
    added: list[dict]
    not_observed: tuple[str, ...]
    unmet: list[Unmet] = field(default_factory=list)


def _plan(results, baseline, *, examples_as, cases_as, remove):
    """What `write` (`remove` False: only additions) or `update` makes of `baseline` from the run `results`.
    `update` removes only what the run could have met and did not (`_Scope`): a case that ran and passes (or
    deviates otherwise), an example it drew, a cause or class entry after a search as large as the baseline's."""
    judged = _judge(results, baseline)
    scope = _Scope.of(results, baseline)
    run_names = _run_names(results)
    unmatched = judged.new + (judged.changed if remove else [])
    regrouped = {entry["id"]: entry["outcome"] for entry in
                 deviation_entries(unmatched, run_names, examples_as=examples_as, cases_as=cases_as)}
    plan = _Plan([], [], [], ())
    not_observed = []
    for index, entry in enumerate(baseline.entries):
        # a class or cause this run's unmatched deviations are grouped under again still describes them
        observed = entry.id in judged.known or (entry.is_class and regrouped.get(entry.id) == entry.outcome.value)
        if not observed:
            not_observed.append(entry.id)
        unmet = None if observed or not remove else scope.unmet(entry)
        if observed or not remove or unmet is not None:
            _keep(plan, index, entry, judged, scope, remove)
            if unmet is not None:
                plan.unmet.append(Unmet(entry.id, unmet))
        else:
            plan.removed.append(Removed(entry.id, _why_removed(entry, judged), entry.reason))
    taken = frozenset(entry.id for _, entry, _ in plan.kept)
    plan.added = deviation_entries(unmatched, run_names, examples_as=examples_as, cases_as=cases_as, taken=taken)
    plan.not_observed = tuple(not_observed)
    return plan


def _keep(plan, index, entry, judged, scope, remove):
    """Keep `entry`; under `update`, without the cases it lists that the run judged and that no longer deviate by
    it (a case the run could not have met stays, noted in `plan.unmet`)."""
    cases = entry.cases
    if remove:
        known = judged.known.get(entry.id, ())
        unmet = {case: scope.unmet_case(case) for case in entry.cases if case not in known}
        cases = tuple(case for case in entry.cases if case in known or unmet[case] is not None)
        plan.unmet += [Unmet(entry.id, why, case=case) for case, why in unmet.items() if why is not None]
    plan.removed += [Removed(entry.id, judged.why_gone(case), entry.reason, case=case)
                     for case in entry.cases if case not in cases]
    plan.kept.append((index, entry, cases))


def _why_removed(entry, judged):
    if not entry.is_class:
        return judged.why_gone(entry.id)
    why = ("the records it matched deviate otherwise now" if CHANGED in judged.matched.get(entry.id, ())
           else "no record of this run deviates by it")
    if entry.cases:
        gone = {}
        for case in entry.cases:
            reason = judged.why_gone(case)
            gone[reason] = gone.get(reason, 0) + 1
        why += "; its cases: " + ", ".join(f"{n} {reason}" for reason, n in gone.items())
    return why


# -- refusing a run that cannot say what is gone ---------------------------------------------------------


def partial_run(results):
    """Why `results` cannot say which deviations are gone (an update from it would remove the entries of what it
    never judged), or None for a whole `check` run."""
    header, footer = results.header, results.footer
    settings = header.settings
    if settings.verb != "check":
        return f"it is a `{settings.verb}` run, not a `check` run"
    if header.handshake_error:
        return "the implementation could not be driven (its handshake failed)"
    if footer is None:
        return "it was cut short (no footer: interrupted or killed)"
    if footer.interrupted:
        return "it was interrupted (^C or SIGTERM) before its end"
    if footer.error:
        return f"it ended with an error ({footer.error[:MESSAGE_KEPT]})"
    if settings.only:
        return f"it ran only what --id {' --id '.join(settings.only)[:MESSAGE_KEPT]} selects"
    if settings.shard:
        return (f"it is shard {settings.shard} of a run (update from the report `bleu-oracle merge` writes of all "
                "the shards)")
    if settings.replay:
        return "it is a --replay run (it ran the replayed inputs only)"
    not_attempted = sum(1 for r in results.records
                        if r.outcome == Outcome.CRASH and r.message.startswith("not attempted: "))
    if not_attempted:
        return (f"{not_attempted} of its records were not attempted (the implementation crashed more often than "
                "--max-restarts allows)")
    return None


# -- write and update ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BaselineWritten:
    """What `write_baseline` did: entries added (reason TODO), entries already there (kept as written), and the
    ones among those the run did not observe (kept; the gate reports an exact id among them as stale)."""

    added: int
    kept: int
    not_observed: tuple[str, ...] = ()


@dataclass(frozen=True)
class BaselineUpdated:
    """What `update_baseline` did: entries (and listed cases) removed, entries added (reason TODO), entries kept,
    and among those the ones the run did not meet but could not have met (kept, each with why)."""

    removed: tuple[Removed, ...]
    added: tuple[dict, ...]
    kept: int
    unmet: tuple[Unmet, ...] = ()


def write_baseline(results, out, *, examples_as="causes", cases_as="causes", force=False):
    """Write the deviations of a run (`events.Results`) as a baseline for review; returns a `BaselineWritten`.

    Reasons are left as TODO for a human. `examples_as`: "causes" (random examples under their run cause's
    `cause:<name>` entry; an unexplained one by class), "classes" (one `random:<outcome>:<layer>` entry per kind
    of divergence), "ids" (exact `random-<seed>-<index>` ids, meaningful only with the same seed), "none".
    `cases_as`: "causes" (a case listed under its run cause's entry; a case without an explained cause by id) or
    "ids" (every case an entry of its own).

    Onto an existing baseline, nothing already there is lost (and one whose header names another implementation or
    profile than the run's is refused, BleuValueError): its entries, reasons and comments stay as written,
    the run's deviations no entry matches are added (reason TODO; a case whose cause already has an entry gets one
    of its own, so that no reviewed reason covers a case nobody reviewed), and the entries the run did not observe
    are reported. A YAML file is added to after its last entry, every byte of it kept; one whose entries cannot be
    added to without rewriting it (a flow-style list) is refused unless `force`, which rewrites it (reasons and
    entries kept, comments lost). A JSON file is rewritten (it holds no comments).
    """
    out = Path(out)
    if not out.exists():
        entries = deviation_entries(results.records, _run_names(results), examples_as=examples_as, cases_as=cases_as)
        _write_document(out, _document(results, entries))
        return BaselineWritten(added=len(entries), kept=0)
    existing = load_baseline(out, allow_unreviewed=True)
    _refuse_another(existing, results, f"cannot add to {out} from {results.path}",
                    "write this run's baseline to another --out")
    plan = _plan(results, existing, examples_as=examples_as, cases_as=cases_as, remove=False)
    if plan.added:
        _rewrite(out, plan, force=force)
    return BaselineWritten(added=len(plan.added), kept=len(existing.entries), not_observed=plan.not_observed)


def update_baseline(results, path, *, examples_as="causes", cases_as="causes", force=False):
    """Keep the baseline at `path` to what the run `results` observes; returns a `BaselineUpdated`.

    Refused (BleuValueError) for a run of another implementation or profile than the baseline's header names,
    and for a run that did not judge everything (`partial_run`). An entry that still matches a deviation of the
    run is kept as written; one that no longer does is removed (a case listed under a cause entry is removed
    from its `cases`); the deviations no entry matches are added as `write_baseline` adds them (reason TODO). A
    deviation whose outcome, layer or cause changed is both: its entry removed, a new one added for review.
    Nothing is written when nothing changes."""
    path = Path(path)
    existing = load_baseline(path, allow_unreviewed=True)
    header = results.header
    _refuse_another(existing, results, f"cannot update {path} from {results.path}",
                    "update it from a run of the implementation and profile its header names")
    partial = partial_run(results)
    if partial is not None:
        raise BleuValueError(f"cannot update {path} from {results.path}: {partial}; an update would remove the "
                             "entries of what it never judged (update from a whole `check` run)")
    if existing.strict and not header.settings.strict:
        raise BleuValueError(f"cannot update {path} from {results.path}: the baseline says `strict: true` and the run "
                             "was not strict, so it judged convention values acceptable that the baseline lists as "
                             "deviations (update from a `check --baseline` or `check --strict` run)")
    plan = _plan(results, existing, examples_as=examples_as, cases_as=cases_as, remove=True)
    if plan.removed or plan.added:
        _rewrite(path, plan, force=force)
    return BaselineUpdated(removed=tuple(plan.removed), added=tuple(plan.added), kept=len(plan.kept),
                           unmet=tuple(plan.unmet))


def _refuse_another(existing, results, cannot, advice):
    """Raise BleuValueError when the baseline `existing` was written for another implementation or profile than the
    run `results` (its entries would forgive, or gain, deviations of a library nobody reviewed them for)."""
    header = results.header
    implementation = header.implementation.name if header.implementation is not None else None
    mismatch = existing.mismatch(implementation, header.judged_profile)
    if mismatch is not None:
        raise BleuValueError(f"{cannot}: the baseline was written for {mismatch} (the run's); {advice}")


def _document(results, entries):
    header = results.header
    implementation = header.implementation.to_json() if header.implementation is not None else {}
    return {
        "implementation": implementation,
        "profile": header.judged_profile,
        "from": str(results.path) if results.path else None,
        "seed": header.settings.seed,
        "examples": _examples_drawn(results),
        **({"strict": True} if header.settings.strict else {}),  # a strict run's baseline gates strictly too
        "entries": entries,
    }


class _Reason(str):
    """A reason as `_dump_yaml` writes it: a literal block, the one YAML form a reviewer can type any text into."""


class _BaselineDumper(yaml.SafeDumper):
    """safe_dump's output, with every reason a `_Reason` and every string that is not printable text escaped."""


def _printable_lines(text: str) -> bool:
    """Whether every line of `text` is printable (no tab, NEL, U+2028 or other character YAML may fold or take for
    a line break when written raw, as safe_dump writes them with allow_unicode)."""
    return all(line.isprintable() for line in text.split("\n"))


def _represent_reason(dumper: yaml.SafeDumper, reason: _Reason) -> yaml.ScalarNode:
    """A literal block (`|-`): a reviewer replacing TODO writes plain text on an indented line, and no text there
    (": ", "#", a leading "-", quotes, backslashes as in `s/-\\n//`) is read as YAML, where `reason: TODO` made
    `reason: the script: prints` a broken file and `reason: # why` an empty reason. Double-quoted where a
    literal block would not read back as written."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(reason),
                                   style="|" if _printable_lines(reason) else '"')


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    """Any other string as safe_dump writes it (quoted where YAML would read it otherwise), double-quoted with
    escapes where it holds a character that is not printable: raw, a NEL in a quoted string reads back as a space."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=None if _printable_lines(text) else '"')


_BaselineDumper.add_representer(_Reason, _represent_reason)
_BaselineDumper.add_representer(str, _represent_text)


def _reasons_marked(data: Any) -> Any:
    """`data` with the value of every `reason` key a `_Reason` (entries are dicts, in a list or under `entries`)."""
    if isinstance(data, list):
        return [_reasons_marked(item) for item in data]
    if isinstance(data, dict):
        return {key: _Reason(value) if key == "reason" and isinstance(value, str) else _reasons_marked(value)
                for key, value in data.items()}
    return data


def _examples_drawn(results):
    """The random examples a run drew (fewer than asked when its time budget ran out)."""
    footer = results.footer
    return footer.examples if footer is not None and footer.examples is not None else results.header.settings.examples


def _dump_yaml(data):
    return yaml.dump(_reasons_marked(data), Dumper=_BaselineDumper, sort_keys=False, allow_unicode=True, width=120)


def _write_document(out, document):
    if out.suffix == ".json":
        write_atomically(out, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        write_atomically(out, YAML_HEADER + _dump_yaml(document))


def _entries_of(document):
    entries = document if isinstance(document, list) else (document or {}).get("entries")
    return list(entries or [])


def _target(document, plan):
    """The entries the file is to hold, as plain data: the kept ones as they are written (their `cases` cut to
    those still observed), then the added."""
    raw = _entries_of(document)
    entries = []
    for index, entry, cases in plan.kept:
        item = raw[index]
        if tuple(cases) != tuple(entry.cases):
            item = dict(item)
            if cases:
                item["cases"] = list(cases)
            else:  # every case it listed is gone: the entry stands for random examples only
                del item["cases"]
        entries.append(item)
    return entries + plan.added


def _rewrite(out, plan, *, force):
    """Write `plan` into the baseline file `out` without losing anything it holds that the plan keeps."""
    text = out.read_text(encoding="utf-8")
    if out.suffix == ".json":
        document = json_value(text)
        target = _target(document, plan)
        document = target if isinstance(document, list) else {**document, "entries": target}
        write_atomically(out, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return
    document = load_yaml(text, name=f"baseline {out}")
    target = _target(document, plan)
    for candidate in _edited_texts(text, plan):
        if _holds(candidate, document, target, name=f"baseline {out}"):
            write_atomically(out, candidate)
            return
    if not force:
        removing = sum(1 for r in plan.removed if r.case is None)
        what = ", ".join(part for part in (f"add {_entries(len(plan.added))}" if plan.added else "",
                                           f"remove {_entries(removing)}" if removing else "") if part) \
            or "remove cases from its entries"
        raise BleuValueError(f"cannot {what} in {out} without rewriting it (its entries are not a block list); edit "
                             "it by hand, or pass --force to rewrite it (entries and reasons kept, comments lost)")
    rewritten = {**document, "entries": target} if isinstance(document, dict) else {"entries": target}
    write_atomically(out, YAML_HEADER + _dump_yaml(rewritten))


def _entries(count):
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _normal(entries):
    """Entries as compared after an edit: `cases:` left empty (or null) is no cases."""
    return [{k: v for k, v in e.items() if not (k == "cases" and not v)} if isinstance(e, dict) else e
            for e in entries]


def _holds(candidate, document, target, *, name):
    """Whether the edited text reads back as the document with exactly the `target` entries, nothing else changed."""
    try:
        edited = load_yaml(candidate, name=name)
    except BleuOracleError:  # an edit that breaks the file: not this one
        return False
    if _normal(_entries_of(edited)) != _normal(target):
        return False
    if isinstance(document, dict) != isinstance(edited, dict):
        return document is None  # an empty file: its first entries make it a list
    if isinstance(document, dict):
        return {k: v for k, v in document.items() if k != "entries"} == \
            {k: v for k, v in edited.items() if k != "entries"}
    return True


# -- editing a YAML baseline's text ----------------------------------------------------------------------


def _edited_texts(text, plan):
    """Texts of a YAML baseline edited as `plan` says, most faithful first: its entries' own lines removed or cut
    and the additions after its last entry; with nothing to remove, also the additions appended at its end or in
    place of `entries: []`."""
    edited = _EntryLines.of(text)
    if edited is not None:
        candidate = edited.render(plan)
        if candidate is not None:
            yield candidate
    if not plan.removed and all(tuple(cases) == tuple(entry.cases) for _, entry, cases in plan.kept):
        yield from _appended(text, plan.added)


def _appended(text, added):
    """Texts of a YAML baseline with `added` appended to its list of entries, without touching a byte of it:
    after its last line (a block list at the end, indented as its items are), or in place of `entries: []`."""
    dumped = _dump_yaml(added)
    items = re.findall(r"(?m)^([ \t]*)- ", text)
    indent = items[0] if items else ""
    yield text.rstrip("\n") + "\n" + "".join(indent + line + "\n" for line in dumped.splitlines())
    empty = re.compile(r"(?m)^entries:[ \t]*\[\][ \t]*$")
    if len(empty.findall(text)) == 1:
        yield empty.sub(lambda _: "entries:\n" + dumped.rstrip("\n"), text)


def _last_line(node):
    """The last line of the text of a composed YAML node (0-based): where its last scalar or flow collection ends."""
    if isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False):
        mark = node.end_mark
        return mark.line - 1 if mark.column == 0 and mark.line > node.start_mark.line else mark.line
    if isinstance(node, yaml.MappingNode):
        children = [part for pair in node.value for part in pair]
    else:
        children = list(node.value)
    return max((_last_line(child) for child in children), default=node.start_mark.line)


def _dash_line(lines, node):
    """The line of the `- ` that starts a block sequence's item, when the item starts on it, else None."""
    line = node.start_mark.line
    return line if line < len(lines) and lines[line][:node.start_mark.column].strip() == "-" else None


class _EntryLines:
    """Where each entry of a YAML baseline's block list of entries is in its text (its lines, its `cases:`
    items' lines), read from the composed document."""

    def __init__(self, lines, items, indent):
        self.lines, self.items, self.indent = lines, items, indent

    @classmethod
    def of(cls, text):
        """The entries' places in `text`, or None when they are not a block list of mappings, each starting on
        its `- ` line (then only a rewrite can edit them)."""
        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)  # (load_baseline refused aliases and deep nesting)
        except yaml.YAMLError:
            return None
        sequence = root
        if isinstance(root, yaml.MappingNode):
            sequence = next((value for key, value in root.value if key.value == "entries"), None)
        if not isinstance(sequence, yaml.SequenceNode) or sequence.flow_style or not sequence.value:
            return None
        lines = text.splitlines(keepends=True)
        dashes = [_dash_line(lines, item) for item in sequence.value]
        if any(line is None for line in dashes) or not all(isinstance(i, yaml.MappingNode) for i in sequence.value):
            return None
        first = lines[dashes[0]]
        return cls(lines, sequence.value, first[:len(first) - len(first.lstrip())])

    def render(self, plan):
        """The text with `plan` applied, or None when an edit it needs is not one of those it can make."""
        kept = {index: cases for index, _, cases in plan.kept}
        dropped: set[int] = set()
        replaced: dict[int, str] = {}
        for index, item in enumerate(self.items):
            if index not in kept:
                dropped.update(range(item.start_mark.line, _last_line(item) + 1))
                continue
            if not self._cut_cases(item, kept[index], dropped, replaced):
                return None
        last = _last_line(self.items[-1])
        out = []
        for number, line in enumerate(self.lines):
            if number not in dropped:
                out.append(replaced.get(number, line))
            if number == last and plan.added:
                if out and not out[-1].endswith("\n"):
                    out[-1] += "\n"
                out += [self.indent + row + "\n" for row in _dump_yaml(plan.added).splitlines()]
        return "".join(out)

    def _cut_cases(self, item, cases, dropped, replaced):
        """Remove from an entry's `cases:` the ids not in `cases`: a block list's item lines (and `cases:` when none
        is left), or a one-line flow list rewritten. False when the list is written otherwise."""
        node = next(((key, value) for key, value in item.value if key.value == "cases"), None)
        if node is None or not isinstance(node[1], yaml.SequenceNode):
            return True
        key, value = node
        gone = [case for case in value.value if case.value not in cases]
        if not gone:
            return True
        if value.flow_style:
            line = value.start_mark.line
            if value.end_mark.line != line:
                return False
            text = self.lines[line]
            flow = yaml.safe_dump(list(cases), default_flow_style=True, allow_unicode=True, width=10**6).strip()
            replaced[line] = text[:value.start_mark.column] + flow + text[value.end_mark.column:]
            return True
        for case in gone:
            line = _dash_line(self.lines, case)
            if line is None or case.end_mark.line != line:
                return False
            dropped.add(line)
        if not cases and key.start_mark.line not in [c.start_mark.line for c in value.value]:
            after = self.lines[key.start_mark.line][key.end_mark.column:].strip()
            if after in (":", "") or after.startswith(": #") or after.startswith(":#"):
                dropped.add(key.start_mark.line)
        return True
