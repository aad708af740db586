"""What the report pages show, computed once from the report's data (`ReportView`): the columns and their labels,
each row's category, each implementation's curated classes and search, the real-data tables and summaries, the
trophy case. The templates (`oracle/reports/site/templates`) lay these out; nothing here writes a page."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from oracle.diagnose.discrepancies import reproduces
from oracle.diagnose.judge import Contract as NumericContract
from oracle.diagnose.judge import breaks_zero_rule
from oracle.diagnose.mechanisms import counts_known_only, described_together
from oracle.escaping import shown
from oracle.harness.relations import RELATIONS
from oracle.models.discrepancy import STAGES, Discrepancy
from oracle.models.outcomes import parse_number as number

from .data import (
    ACCEPTABLE_PREFIX,
    REAL_DATA_CLASSIFIED,
    Answer,
    Cell,
    EdgeCaseRow,
    Expectation,
    ImplementationEntry,
    ProfileEntry,
    RealRow,
    ReportData,
    Rerun,
    SearchEntry,
    message,
)
from .formatting import compact_json, fmt, fmt_delta, fmt_points, request_text

IMPLEMENTATIONS_DIR = "implementations"
#: The pages `render` writes (besides implementations/<name>.md and .html, and cases/<id>.html).
PAGES = ("README.md", "matrix.md", "real-data.md", "trophies.md", "index.html", "deviations.html")
#: Marks for the Markdown matrix.
DIFFERS_MARK = "✗"
#: Categories of a cell or a random input, in legend order: (key, label, colour).
CATEGORIES = (
    ("agrees", "agrees with the oracle", "#3a9d5d"),
    ("documented", "differs: curated", "#e08a1e"),
    ("undocumented", "differs: new (not curated)", "#d62728"),
    ("refused", "refused a valid input / error", "#7b4fa0"),
    ("unsupported", "unsupported / not applicable", "#9a9a9a"),
)
CATEGORY_KEYS = tuple(key for key, _, _ in CATEGORIES)
CATEGORY_COLOUR = {key: colour for key, _, colour in CATEGORIES}
CATEGORY_LABEL = {key: label for key, label, _ in CATEGORIES}
#: The categories that say an implementation differs from the oracle.
DIFFERS = ("documented", "undocumented", "refused")
#: Short category names for counts next to a plot row.
SHORT = {
    "agrees": "agree",
    "documented": "curated",
    "undocumented": "new",
    "refused": "refused",
    "unsupported": "unsupp.",
}
#: What each count of the implementations table means (the legend on the first screen, the columns' tooltips, the
#: badges of an implementation's page), by category; "{contract}" is the run's numeric contract.
MEANINGS = {
    "agrees": "answers within the numeric contract ({contract}; NaN matches only NaN) of the oracle under the "
              "profile the implementation declares, or rejects what the oracle rejects",
    "documented": "differs from the oracle, and a curated discrepancy explains it: a reviewed entry with its root "
                  "cause, the documentation it contradicts and its upstream status (the trophy case)",
    "undocumented": "differs from the oracle, and the classifier matched the difference to no curated discrepancy: "
                    "not reviewed yet, which is not a verdict of a bug (often a convention of the implementation's "
                    "own)",
    "refused": "rejected a valid input, or failed with an error",
    "unsupported": "outside what the implementation declares it takes (its capabilities): not asked, not judged",
}
#: The implementations table's column of each category.
COUNT_HEADER = {"agrees": "agree", "documented": "curated", "undocumented": "new", "refused": "refused",
                "unsupported": "unsupported"}
#: Where an implementation's page shows the random inputs of a category.
COUNT_SECTION = {"documented": "curated", "undocumented": "new", "refused": "new"}
#: What an implementation that is not installed is, in words.
STATUS_WORDS = {"not-installed": "not installed", "broken": "broken"}
#: What each kind of record a random input brings along is (the part of its id after "~"), in words: the companions
#: (`oracle.harness.generate.COMPANIONS`: tests/reports/test_site_companions.py holds that each has words here), the
#: metamorphic relations (`oracle.harness.relations.RELATIONS`), the
#: stateful plans. The pages show the kinds in this order, any other after them by name.
COMPANION_WORDS = {
    "text": "raw text with a tokenizer it declares, judged from the tokens on",
    "refused": "an input PROTOCOL.md says is refused (or leaves undefined, where a named convention's value is "
               "acceptable)",
    "series": "short requests to the same process, two inputs repeated with one part changed at a time",
    "brackets": "a token request whose lines hold bracket pairs",
    "line-ends": "tokens (or texts) holding a character a file reader ends a line at: a lone CR, VT, FF, "
                 "U+001C-U+001E, NEL, U+2028 or U+2029",
    **{relation: f"a metamorphic relation, the implementation compared with itself: {words}"
       for relation, words in RELATIONS.items()},
    "stateful": "the input again through a stateful plan (update batches, shards merged, other corpora first), "
                "against its one-shot score",
}

Row = Cell | SearchEntry | RealRow


def category(row: Row) -> str:
    """agrees / documented / undocumented / refused / unsupported for a judged cell, random input or real-data row."""
    verdict, outcome = row.verdict, row.answer.outcome
    if verdict.agrees:
        return "agrees"
    not_applicable = row.not_applicable if isinstance(row, Cell) else None
    # (an "unsupported" answer the session judged a failure with a root cause of its own is no n/a: answered to an
    # input the protocol refuses, a refused companion's, it is an error, as the stream's outcome says)
    judged = outcome == "unsupported" and verdict.classification not in (None, "unsupported")
    if outcome == "unsupported" and not judged or not_applicable and outcome != "score":
        return "unsupported"
    if outcome == "error" or judged or verdict.classification == "rejects-valid-input":
        return "documented" if verdict.documented else "refused"
    if outcome == "skipped":
        return "unsupported"
    return "documented" if verdict.documented else "undocumented"


def expected_text(expected: Expectation | None, rejected: str, digits: int | None = 10) -> str:
    """The oracle's expectation for reading: `rejected` when it rejects the input."""
    if expected is not None and expected.rejected:
        return rejected
    return fmt(expected.score if expected is not None else None, digits)


def _listed(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def real_columns(columns: list[str]) -> list[str]:
    """The oracle's columns first, then the implementations', each in the given order."""
    oracle = [c for c in columns if c.startswith("oracle/")]
    return oracle + [c for c in columns if not c.startswith("oracle/")]


@dataclass(frozen=True)
class HtmlCell:
    """A cell of the HTML matrix."""

    css: str
    tip: str
    text: str


@dataclass(frozen=True)
class Curated:
    """A curated class shown for an implementation, with its re-run through it (None: not re-run)."""

    entry: Discrepancy
    observed: Rerun | None


@dataclass(frozen=True)
class Group:
    """Disagreements of a random search no curated class explains, sharing a classification."""

    classification: str
    records: list[SearchEntry]
    smallest: SearchEntry  # fewest tokens, then the lowest index

    @property
    def description(self) -> str | None:
        """The root cause in words for the group (`group_words`)."""
        return group_words(self.smallest, self.records)


@dataclass(frozen=True)
class CompanionGroup:
    """The records of one kind a random search brought along that differ for one root cause."""

    classification: str
    documented: tuple[str, ...]  # the curated discrepancy ids it matches
    records: list[SearchEntry]  # in stream order
    smallest: SearchEntry  # fewest tokens, then the lowest index

    @property
    def description(self) -> str | None:
        """The root cause in words for the group (`group_words`)."""
        return group_words(self.smallest, self.records)


def group_words(smallest: SearchEntry, records: list[SearchEntry]) -> str | None:
    """A group's root cause in words: its smallest record's, unless the records' words for what is known of their
    counts differ (`mechanisms.described_together`: then the catalogue's, which claim nothing of the score)."""
    said = smallest.verdict.description
    if said is None or not counts_known_only(smallest.verdict.parts):
        return said
    return message(described_together(smallest.verdict.parts,
                                      [said, *(e.verdict.description or "" for e in records)]))


@dataclass(frozen=True)
class CompanionKind:
    """One kind of record the random inputs brought along (a companion, a relation, a stateful plan): how many
    were sent, each category's count and the differing ones grouped by root cause."""

    kind: str
    words: str
    sent: int
    counts: Counter[str]  # category -> records
    groups: list[CompanionGroup]  # most records first, then by name

    @property
    def differing(self) -> int:
        return sum(self.counts[key] for key in DIFFERS)


@dataclass(frozen=True)
class RealSummary:
    """One implementation on one real-data setting."""

    column: str
    profile: str
    scored: int
    total: int
    agree: int
    max: float | None  # the largest |difference|
    mean: float | None  # the mean difference
    reasons: list[str]  # why inputs were not scored
    causes: Counter[str]  # root cause -> systems
    unclassified: int  # differing systems not attributed

    @property
    def max_text(self) -> str:
        return f"{100 * self.max:.2e}" if self.max else ("0" if self.max == 0 else "—")

    @property
    def mean_text(self) -> str:
        return fmt_delta(self.mean) if self.mean is not None else "—"

    @property
    def causes_text(self) -> str:
        """`segment_totals_floor=1` (4) [+ N differences not attributed]; or why none scored."""
        if not self.scored and self.reasons:
            return "not scored (see the notes)"
        parts = [f"`{cause}` ({n})" for cause, n in sorted(self.causes.items(), key=lambda kv: (-kv[1], kv[0]))]
        if self.unclassified:  # attribution recomputes a corpus many times: only the first few systems get it
            parts.append(
                f"{self.unclassified} other differing system(s) not attributed (only the first "
                f"{REAL_DATA_CLASSIFIED} are)"
            )
        return "; ".join(parts) if parts else ("—" if self.agree == self.scored else "")


@dataclass(frozen=True)
class RealNote:
    """Why a column did not score (some of) the real data."""

    column: str
    first: RealRow
    count: int
    total: int


@dataclass(frozen=True)
class Trophy:
    """A curated discrepancy as the trophy case shows it."""

    id: str
    implementation: str
    version: str
    language: str
    kind: str
    summary: str
    input: str  # the minimal input, in words
    request: dict[str, Any]
    observed: str  # what the library answers
    documented: str  # what its documentation gives (the oracle under the profile)
    profile: str
    contradicts: str
    root_cause: str
    upstream: str  # the status in one line (Upstream.text)
    stage: str  # the furthest stage upstream: fixed / deliberate / acknowledged / reported / found
    related: int  # how many related threads it links
    searched: str  # when its tracker was last searched (YYYY-MM-DD)
    now: str  # what this run's re-run shows
    tolerance: str  # the entry's own `reproduced_within` in words ("" where it states none)


def tolerance_text(entry: Discrepancy) -> str:
    """A curated entry's own `reproduced_within` in words: its parts and why ("" where it states none)."""
    within = entry.reproduced_within
    if within is None:
        return ""
    parts = [f"{value:.2g} {name}" for value, name in ((within.relative, "relative"), (within.absolute, "absolute"))
             if value]
    return f"{' + '.join(parts)}: {within.why}"


def answer_value(answer: dict[str, Any] | None) -> str:
    """A curated example's answer ({score} / {error} / {rejected} / statistics) for reading."""
    if not answer:
        return "—"
    if "score" in answer:
        return fmt(answer["score"], None)
    if "error" in answer:
        return f"error: “{answer['error']}”"
    if "rejected" in answer:
        return f"rejected: “{answer['rejected']}”"
    return compact_json(answer)


class ReportView:
    """The report's data arranged as the pages show it."""

    def __init__(self, data: ReportData) -> None:
        self.run = data.run
        self.profiles: list[ProfileEntry] = data.profiles
        self.profile_by_name = {p.name: p for p in data.profiles}
        self.registry: list[ImplementationEntry] = data.implementations
        self.installed = [entry for entry in self.registry if entry.installed]
        self.by_name = {entry.name: entry for entry in self.registry}
        self.cases: list[EdgeCaseRow] = data.cases
        self.cells = {(cell.case, cell.column): cell for cell in data.cells}
        self.oracle_columns = [f"oracle/{p}" for p in self.run.profiles]
        self.implementation_columns = [entry.name for entry in self.installed]
        self.columns = self.oracle_columns + self.implementation_columns
        self.search: dict[str, list[SearchEntry]] = defaultdict(list)
        for entry in data.search:
            self.search[entry.implementation].append(entry)
        #: the records each implementation's random inputs brought along (ids `random-S-I~KIND`), in stream order
        self.companions: dict[str, list[SearchEntry]] = defaultdict(list)
        for entry in data.companions:
            self.companions[entry.implementation].append(entry)
        self.discrepancies = data.discrepancies
        self.reruns = data.reruns
        self.real = data.real
        self.real_source = self.run.real_data
        #: The run's numeric contract, as the judge applies it (`oracle.diagnose.judge`).
        self.contract = NumericContract(rel=self.run.contract.rel, abs=self.run.contract.abs)
        self.settings_lines = self._settings_lines()
        self.trophies = self._trophies()

    # -- labels --

    def column_label(self, key: str) -> str:
        if key.startswith("oracle/"):
            return f"oracle: {key[len('oracle/') :]}"
        entry = self.by_name.get(key)
        version = entry.version if entry is not None and entry.version is not None else ""
        return f"{key} {version}".strip()

    @staticmethod
    def implementation_page(name: str) -> str:
        """An implementation's Markdown report (the Markdown pages link it; the HTML pages link its HTML page)."""
        return f"{IMPLEMENTATIONS_DIR}/{name}.md"

    def lead(self) -> str:
        """The site's first sentence: what was checked against the oracle, by which bleu-oracle, when, with what."""
        run, installed = self.run, self.installed
        languages = sorted({entry.language for entry in installed if entry.language})
        inputs = [f"{len(self.cases)} edge cases"]
        if run.examples:
            inputs.append(f"{run.examples} random inputs (seed {run.seed})")
        if self.real:
            inputs.append(f"WMT17 newstest2017 English–German ({len(self.real_systems())} systems)")
        absent = len(self.registry) - len(installed)
        return (
            f"bleu-oracle {run.suite_version} checked {len(installed)} BLEU implementation"
            f"{'' if len(installed) == 1 else 's'}"
            + (f" ({', '.join(languages)})" if languages else "")
            + " against its exact BLEU oracle"
            + (f" on {run.date}" if run.date else "")
            + f": each answered {_listed(inputs)}, judged against the oracle under the convention it declares "
            "(its profile)."
            + (f" {absent} more in the registry {'was' if absent == 1 else 'were'} not installed." if absent else "")
        )

    def meanings(self) -> list[tuple[str, str, str]]:
        """(category, the implementations table's column, what it counts) in legend order."""
        see = {"undocumented": "; the implementation's page shows each group with its smallest example"}
        return [(key, COUNT_HEADER[key], MEANINGS[key].format(contract=self.contract.describe()) + see.get(key, ""))
                for key in CATEGORY_KEYS]

    @staticmethod
    def count_tip(key: str, count: int, total: int) -> str:
        """A count's tooltip in the implementations table."""
        what = {"agrees": "agree with the oracle", "documented": "differ in ways a curated discrepancy explains",
                "undocumented": "differ in ways not matched to a curated discrepancy: see the page",
                "refused": "were refused (a valid input rejected, or an error)",
                "unsupported": "are outside what it declares it takes"}[key]
        return f"{count} of {total} random inputs {what}"

    @staticmethod
    def status_reason(entry: ImplementationEntry) -> tuple[str | None, str]:
        """(what it is in words, or None when not selected; why)."""
        return STATUS_WORDS.get(entry.status), entry.reason or ""

    expected_text = staticmethod(expected_text)

    @staticmethod
    def answer_text(answer: Answer, digits: int | None = 10, *, quoted: bool = False) -> str:
        """A column's answer for reading: the score, else the outcome and its message (in quotes when `quoted`)."""
        if answer.outcome == "score":
            return fmt(answer.score, digits)
        return f"{answer.outcome}: “{answer.message}”" if quoted else f"{answer.outcome}: {answer.message}"

    def profile_of(self, entry: ImplementationEntry) -> ProfileEntry | None:
        return self.profile_by_name.get(entry.profile or "")

    def _settings_lines(self) -> list[str]:
        run = self.run
        return [
            f"bleu-oracle {run.suite_version}, Python {run.python}{f', on {shown(run.cpu)}' if run.cpu else ''}; "
            f"regenerate with `{run.command}`, re-render "
            "from `data/` with `bleu-oracle report --render-only`",
            f"random search: seed {run.seed}, {run.examples} inputs per implementation from "
            "`oracle.harness.generate` (the inputs `bleu-oracle check --seed S` sends), judged against the oracle "
            "under the implementation's declared profile",
            f"numeric contract: |actual − expected| ≤ {run.contract.abs:g} + {run.contract.rel:g} · |expected|; "
            "NaN matches only NaN",
        ]

    # -- the matrix --

    def cell(self, case: EdgeCaseRow, column: str) -> Cell | None:
        return self.cells.get((case.id, column))

    @staticmethod
    def differs(cell: Cell) -> bool:
        """An implementation's answer that differs from the oracle under its declared profile."""
        return cell.kind == "implementation" and category(cell) in DIFFERS

    def cell_text(self, cell: Cell | None) -> str:
        """A cell of the Markdown matrix: the score, n/a, or the outcome; marked when it differs."""
        if cell is None:
            return "—"
        outcome = cell.answer.outcome
        if outcome == "score":
            text = fmt(cell.answer.score)
        elif outcome == "unsupported" and cell.not_applicable:
            text = "n/a"
        else:
            text = outcome
        if self.differs(cell):
            text += f" {DIFFERS_MARK}"
        return text

    @staticmethod
    def edge_verdict(cell: Cell) -> str:
        """An implementation's edge case judged: agrees, n/a, or the root cause (with its curated classes and
        the answer's message)."""
        shown = category(cell)
        verdict = {"agrees": "agrees", "unsupported": "n/a"}.get(shown, f"`{cell.verdict.classification}`")
        if shown == "agrees" and (cell.verdict.classification or "").startswith(ACCEPTABLE_PREFIX):
            verdict = cell.verdict.classification or verdict  # an undefined input: the convention it follows
        if cell.verdict.documented:
            verdict += " (" + ", ".join(f"`{d}`" for d in cell.verdict.documented) + ")"
        if cell.answer.outcome != "score" and cell.answer.message:
            verdict += f": {cell.answer.message}"
        return verdict

    def column_tip(self, column: str) -> str:
        """A matrix column's tooltip: the implementation, its version and declared profile."""
        if column.startswith("oracle/"):
            return column
        entry = self.by_name.get(column)
        version = entry.version or "" if entry is not None else ""
        profile = entry.profile or "" if entry is not None else ""
        return f"{column} {version}, declared profile {profile}"

    def same_answer(self, answer: Answer, reference: Answer) -> bool:
        """Two answers alike as the judge finds them: the same outcome and, for scores, equal within the run's
        numeric contract and its zero rule (`oracle.diagnose.judge`): the oracle under two profiles differing in
        the 17th digit is one answer, not two."""
        if answer.outcome != reference.outcome:
            return False
        if answer.outcome != "score":
            return True
        actual, expected = number(answer.score), number(reference.score)
        return bool(self.contract.close(actual, expected)) and not breaks_zero_rule(actual, expected)

    def html_cell(self, cell: Cell, digits: int = 6) -> HtmlCell:
        """A cell of an HTML table: its colour, tooltip (both values, the root cause) and text (a score to `digits`
        significant digits; n/a for an input outside what the column takes)."""
        answer = cell.answer
        if answer.outcome == "score":
            text = fmt(answer.score, digits)
        else:  # (an oracle profile without a value for the input says n/a too: the tooltip says why)
            text = "n/a" if answer.outcome == "unsupported" else answer.outcome
        if cell.kind == "oracle":
            papineni = self.cells.get((cell.case, "oracle/papineni"))
            differs = papineni is not None and not self.same_answer(answer, papineni.answer)
            return HtmlCell("c-oracle-differs" if differs else "c-oracle",
                            f"{cell.column}: {cell.score_exact or answer.message or answer.outcome}", text)
        shown, verdict = category(cell), cell.verdict
        got = fmt(answer.score, None) if answer.outcome == "score" else answer.outcome
        tip = (
            f"{cell.column}: {got}; oracle ({cell.profile}): {expected_text(cell.expected, 'rejects it', None)}; "
            f"{verdict.classification}"
        )
        if verdict.documented:
            tip += f" [{', '.join(verdict.documented)}]"
        if answer.message:
            tip += f"; {answer.message}"
        return HtmlCell(f"c-{shown}", tip, text)

    def differing_cells(self) -> list[tuple[EdgeCaseRow, Cell]]:
        """The implementations' cells that differ from the oracle, by case then column."""
        out = []
        for case in self.cases:
            for column in self.implementation_columns:
                cell = self.cell(case, column)
                if cell is not None and category(cell) in DIFFERS:
                    out.append((case, cell))
        return out

    def other_answers(self) -> list[tuple[EdgeCaseRow, Cell]]:
        """Cells whose answer is not a score and that do not differ from the oracle."""
        out = []
        for case in self.cases:
            for column in self.columns:
                cell = self.cell(case, column)
                if cell is not None and cell.answer.outcome != "score" and not self.differs(cell):
                    out.append((case, cell))
        return out

    # -- per implementation --

    def curated(self, name: str) -> list[Curated]:
        """The curated classes shown for `name`: its own, and those of the library it shares code
        with (an alias such as ignite-micro) that reproduce with it or occur in its random search."""
        out = []
        counts = self.class_counts(name) + self.companion_class_counts(name)
        for entry in self.discrepancies:
            observed = next((o for o in self.reruns.get(entry.id, []) if o.implementation == name), None)
            shared = observed is not None and (observed.class_found or counts.get(entry.id))
            if entry.implementation == name or shared:
                out.append(Curated(entry, observed))
        return out

    def reproduced(self, name: str) -> int:
        """How many of the curated classes shown for `name` its re-runs reproduce (`Rerun.reproduces`: the class
        found again and the recorded answer given again), as the trophy case counts them."""
        return sum(1 for shown in self.curated(name)
                   if shown.observed is not None and shown.observed.reproduces(shown.entry))

    def search_counts(self, name: str) -> Counter[str]:
        return Counter(category(entry) for entry in self.search.get(name, []))

    def class_counts(self, name: str) -> Counter[str]:
        """Curated class id -> number of random inputs attributed to it."""
        counts: Counter[str] = Counter()
        for entry in self.search.get(name, []):
            for identifier in entry.verdict.documented:
                counts[identifier] += 1
        return counts

    def companion_class_counts(self, name: str) -> Counter[str]:
        """Curated class id -> number of the records `name`'s random inputs brought along attributed to it."""
        return Counter(identifier for entry in self.companions.get(name, []) for identifier in entry.verdict.documented)

    def companion_counts(self, name: str) -> Counter[str]:
        """Category -> the records `name`'s random inputs brought along (every kind together)."""
        return Counter(category(entry) for entry in self.companions.get(name, []))

    def companion_kinds(self, name: str) -> list[CompanionKind]:
        """Each kind of record `name`'s random inputs brought along, with its differing records grouped by root
        cause (every record in a group: none left out)."""
        by_kind: dict[str, list[SearchEntry]] = defaultdict(list)
        for entry in self.companions.get(name, []):
            by_kind[entry.companion or "?"].append(entry)
        order = {kind: place for place, kind in enumerate(COMPANION_WORDS)}
        out = []
        for kind in sorted(by_kind, key=lambda k: (order.get(k, len(order)), k)):
            entries = by_kind[kind]
            groups: dict[str, list[SearchEntry]] = defaultdict(list)
            for entry in entries:
                if category(entry) in DIFFERS:
                    groups[entry.verdict.classification or "not attributed"].append(entry)
            shown = [
                CompanionGroup(cause, tuple(sorted({d for e in records for d in e.verdict.documented})), records,
                               min(records, key=lambda e: (e.size, e.index, e.id)))
                for cause, records in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            ]
            out.append(CompanionKind(kind, COMPANION_WORDS.get(kind, ""), len(entries),
                                     Counter(category(entry) for entry in entries), shown))
        return out

    def companion_line(self, name: str) -> str:
        """The records `name`'s random inputs brought along in one sentence: how many, how many differ and how,
        and how many of each kind differ."""
        kinds = self.companion_kinds(name)
        if not kinds:
            return "none (none of its random inputs brought a companion, a relation or a stateful plan along)"
        counts = self.companion_counts(name)
        sent, differing = sum(k.sent for k in kinds), sum(counts[key] for key in DIFFERS)
        text = (f"{sent} record{'' if sent == 1 else 's'}, {counts['agrees']} agree; {differing} differ "
                f"({counts['documented']} curated, {counts['undocumented']} not curated, {counts['refused']} "
                f"refused), {counts['unsupported']} unsupported")
        return text + "; by kind, differing of sent: " + ", ".join(f"`~{k.kind}` {k.differing} of {k.sent}"
                                                                  for k in kinds)

    def undocumented_groups(self, name: str) -> list[Group]:
        """Disagreements of the random search that no curated class explains, grouped by
        classification, each with its smallest example (fewest tokens, then the lowest index)."""
        groups: dict[str, list[SearchEntry]] = defaultdict(list)
        for entry in self.search.get(name, []):
            if category(entry) in ("undocumented", "refused"):
                groups[entry.verdict.classification or "?"].append(entry)
        return [
            Group(classification, entries, min(entries, key=lambda e: (e.size, e.index)))
            for classification, entries in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ]

    @staticmethod
    def observed_text(shown: Curated, name: str, version: str | None) -> str:
        """What a curated example's re-run through `name` shows now."""
        entry, observed = shown.entry, shown.observed
        if observed is None and entry.observed == "library":
            return "observed by calling the library itself (its adapter reports the raw values), not re-run"
        if observed is None:
            return "not re-run (the implementation is not installed)"
        answer = observed.answer
        got = fmt(answer.score, None) if answer.outcome == "score" else f"{answer.outcome}: “{answer.message}”"
        if answer.statistics:
            got += f" (statistics {compact_json(answer.statistics)})"
        want = expected_text(observed.expected, "rejects the input", None)
        if observed.reproduces(entry):
            verdict = "reproduced ✓"
        elif observed.class_found:  # the class found again, with another answer than the one recorded
            verdict = (f"**not reproduced** (now answers {fmt(answer.score, None)} where "
                       f"{answer_value(entry.example.implementation)} was recorded)")
        else:
            verdict = f"**not reproduced** (now: `{observed.verdict.classification}`)"
        return f"{name} {version} answers {got}; the oracle under profile {observed.profile} gives {want}: {verdict}"

    # -- real data --

    def real_table(self, references: int) -> tuple[dict[str | None, dict[str, RealRow]], list[str]]:
        """{system: {column: row}} for one setting, and the columns (the oracle's first)."""
        table: dict[str | None, dict[str, RealRow]] = defaultdict(dict)
        columns: list[str] = []
        for row in self.real:
            if row.references != references:
                continue
            table[row.system][row.column] = row
            if row.column not in columns:
                columns.append(row.column)
        return table, real_columns(columns)

    def real_systems(self) -> list[str]:
        return list(self.real_source.systems)

    def real_settings(self) -> tuple[int, int]:
        """The settings' reference counts: 1, and 1 + the extra references."""
        return 1, 1 + int(self.real_source.extra_references)

    def real_summary(self, references: int) -> list[RealSummary]:
        """Each implementation on one setting."""
        table, columns = self.real_table(references)
        out = []
        for column in columns:
            if column.startswith("oracle/"):
                continue
            rows = [table[s][column] for s in table if column in table[s]]
            scored = [r for r in rows if r.answer.outcome == "score" and number(r.difference) is not None]
            diffs = [float(r.difference) for r in scored if r.difference is not None]
            reasons = sorted({r.answer.message for r in rows if r.answer.outcome != "score" and r.answer.message})
            causes = Counter(
                r.verdict.classification
                for r in scored
                if not r.verdict.agrees and r.verdict.classification not in (None, "not-classified")
            )
            out.append(
                RealSummary(
                    column=column,
                    profile=rows[0].profile if rows else "",
                    scored=len(scored),
                    total=len(rows),
                    agree=sum(1 for r in scored if r.verdict.agrees),
                    max=max((abs(d) for d in diffs), default=None),
                    mean=(math.fsum(diffs) / len(diffs)) if diffs else None,
                    reasons=reasons,
                    causes=Counter({k: v for k, v in causes.items() if k is not None}),
                    unclassified=sum(1 for r in scored if r.verdict.classification == "not-classified"),
                )
            )
        return out

    @staticmethod
    def real_cell_text(row: RealRow | None) -> str:
        if row is None:
            return "—"
        if row.answer.outcome != "score":
            return "n/a" if row.answer.outcome in ("unsupported", "skipped") else (row.answer.outcome or "?")
        if row.kind == "oracle":
            return fmt_points(row.answer.score)
        return f"{fmt_points(row.answer.score)} ({fmt_delta(row.difference)})"

    @staticmethod
    def real_css(row: RealRow) -> str:
        """An implementation's real-data cell: agrees; differs by less than 1e-6 (a curated kind of difference,
        rounding); or more."""
        if row.verdict.agrees:
            return "c-agrees"
        return "c-documented" if abs(number(row.difference) or 0) < 1e-6 else "c-undocumented"

    def extra_references(self, references: int) -> str:
        """ "Extra references per system: ..." of one setting."""
        table, _ = self.real_table(references)
        return "; ".join(
            f"{s}: {', '.join((next(iter(table[s].values())).reference_files or ())[1:])}"
            for s in self.real_systems()
            if s in table
        )

    def real_notes(self) -> list[RealNote]:
        """Each column that did not score some input: its first such row."""
        notes = []
        for column in real_columns(list(dict.fromkeys(r.column for r in self.real))):
            refused = [r for r in self.real if r.column == column and r.answer.outcome != "score"]
            if refused:
                notes.append(
                    RealNote(column, refused[0], len(refused), sum(1 for r in self.real if r.column == column))
                )
        return notes

    def real_implementations(self) -> list[str]:
        """The implementations' columns of the real data, in data order."""
        return list(dict.fromkeys(r.column for r in self.real if r.kind == "implementation"))

    # -- the trophy case --

    def _trophies(self) -> list[Trophy]:
        """One per curated discrepancy, in file order."""
        return [self._trophy(entry) for entry in self.discrepancies]

    def _trophy(self, entry: Discrepancy) -> Trophy:
        own = next((r for r in self.reruns.get(entry.id, []) if r.implementation == entry.implementation), None)
        installed = self.by_name.get(entry.implementation)
        if own is None and entry.observed == "library":
            now = "observed by calling the library itself, not re-run through its adapter"
        elif own is None:
            now = "not re-run" + ("" if installed is not None and installed.installed else " (not installed here)")
        elif own.reproduces(entry):
            version = installed.version if installed is not None and installed.version is not None else entry.version
            now = f"reproduced with {version}" + self._within_tolerance_only(entry, own)
        elif own.class_found:  # the class found again, with another answer than the one recorded
            version = installed.version if installed is not None and installed.version is not None else "?"
            now = (f"not reproduced with {version} (now answers {fmt(own.answer.score, None)} where "
                   f"{answer_value(entry.example.implementation)} was recorded)")
        else:
            version = installed.version if installed is not None and installed.version is not None else "?"
            now = f"not reproduced with {version} (now: {own.verdict.classification})"
        root, contradicts = entry.root_cause, entry.contradicts
        return Trophy(
            id=entry.id,
            implementation=entry.implementation,
            version=entry.version,
            language=installed.language or "" if installed is not None else "",
            kind=entry.kind,
            summary=entry.summary,
            input=request_text(entry.example.request),
            request=entry.example.request,
            observed=answer_value(entry.example.implementation),
            documented=answer_value(entry.example.oracle),
            profile=entry.profile,
            contradicts=f"{contradicts.source}: “{contradicts.quote}”",
            root_cause=f"{root.file}, {root.function}: {root.detail}",
            upstream=entry.upstream.text(),
            stage=entry.upstream.stage,
            related=len(entry.upstream.related),
            searched=entry.upstream.searched,
            now=now,
            tolerance=tolerance_text(entry),
        )

    def _within_tolerance_only(self, entry: Discrepancy, own: Rerun) -> str:
        """What a reproduced entry's line adds where this run's score is the recorded one only within the entry's
        `reproduced_within`, not within the numeric contract: the score answered now, and on which CPU ("" where
        the contract holds, or the entry records no score)."""
        if entry.reproduced_within is None or "score" not in entry.example.implementation:
            return ""
        if reproduces(entry.model_copy(update={"reproduced_within": None}), own.answer.score):
            return ""
        cpu = f"on {self.run.cpu}" if self.run.cpu else "on a CPU the run did not record"
        return (f" within the entry's own tolerance, not the numeric contract: this run answers "
                f"{fmt(own.answer.score, None)} ({cpu}) where {answer_value(entry.example.implementation)} was "
                "recorded")

    def trophy_counts(self) -> tuple[int, Counter[str], int]:
        """(libraries, {upstream stage: count} over every stage, reproduced now): each entry counts once, under
        its furthest stage, so the counts add up to the number of entries."""
        libraries = len({t.implementation for t in self.trophies})
        stages = Counter({stage: 0 for stage in STAGES})
        stages.update(t.stage for t in self.trophies)
        return libraries, stages, sum(1 for t in self.trophies if t.now.startswith("reproduced"))

    def trophies_at(self, stage: str) -> list[Trophy]:
        """The trophies whose furthest stage upstream is `stage`, in file order."""
        return [t for t in self.trophies if t.stage == stage]
