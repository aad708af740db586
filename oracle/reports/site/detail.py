"""What the site's detail pages show, computed from a `ReportView`: a page per implementation (every badge in one
place, its discrepancies, its reviewed baseline, how to reproduce), a page per edge case (every column's answer,
as x509-limbo and wpt.fyi show a test), the deviations unique to one implementation apart from those several
share (convention splits), and why a matrix column says n/a. Nothing here writes a page."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from oracle.formulas.errors import BleuOracleError
from oracle.harness.gate import load_baseline
from oracle.models.baseline import Baseline

from .data import EdgeCaseRow, ImplementationEntry
from .view import DIFFERS, MEANINGS, HtmlCell, ReportView, category, expected_text

CASES_DIR = "cases"
#: An implementation's page and a case's page, relative to the report folder.
IMPLEMENTATION_HTML = "implementations/{name}.html"
CASE_HTML = "cases/{id}.html"
#: The page that sets the deviations unique to one implementation apart from the shared ones.
DEVIATIONS_PAGE = "deviations.html"
#: A name that can be a file name of the site as it is (registry names and case ids are; anything else gets none).
_PAGE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def page_name(name: str) -> bool:
    """Whether `name` (an implementation or a case id) can name a page file as it is."""
    return _PAGE_NAME.fullmatch(name) is not None


@dataclass(frozen=True)
class Badge:
    """One of an implementation's results in a word and a number, coloured like the matrix."""

    label: str
    value: str
    css: str  # a category's class (c-agrees, ...) or "" for a neutral one
    tip: str = ""  # what it counts, where a word alone may mislead (curated, new)


@dataclass(frozen=True)
class ColumnAnswer:
    """One column's answer to an edge case, as its case page shows it."""

    column: str
    label: str
    page: str | None  # the implementation's page, relative to the case page
    profile: str
    shown: HtmlCell  # colour, tooltip, text, root cause
    expected: str  # the oracle under the column's profile ("" for an oracle column)
    verdict: str  # agrees / n/a / the root cause and its curated classes ("" for an oracle column)


@dataclass(frozen=True)
class Deviation:
    """A root cause of differences from the oracle and the implementations that show it."""

    classification: str
    implementations: tuple[str, ...]
    cases: tuple[str, ...]  # edge cases where it shows
    inputs: int  # random inputs where it shows
    curated: tuple[str, ...]  # curated discrepancy ids it matches
    companions: int = 0  # records the random inputs brought along (companions, relations, stateful plans) showing it


@dataclass(frozen=True)
class NotApplicable:
    """Why one column answers n/a: each reason (outside what the implementation declares) and how many cases."""

    column: str
    label: str
    reasons: list[tuple[str, int]]
    total: int  # edge cases in the column


class SiteDetail:
    """The detail pages' contents for one report."""

    def __init__(self, view: ReportView, baselines: Path | None) -> None:
        self.view = view
        self.baselines = baselines

    # -- an implementation's page --

    def badges(self, entry: ImplementationEntry) -> list[Badge]:
        """Every result of one implementation in one place."""
        view, name = self.view, entry.name
        cells = [c for c in (view.cell(case, name) for case in view.cases) if c is not None]
        judged = [c for c in cells if category(c) != "unsupported"]
        agree = sum(1 for c in judged if category(c) == "agrees")
        counts = view.search_counts(name)
        searched = sum(counts.values())
        companions = view.companion_counts(name)
        brought = sum(companions.values()) - companions["unsupported"]
        curated = view.curated(name)
        badges = [
            Badge("declared profile", entry.profile or "—", ""),
            Badge("edge cases agree", f"{agree}/{len(judged)}", _all_or_some(agree, len(judged))),
            Badge("edge cases n/a", str(len(cells) - len(judged)), "c-unsupported"),
            Badge("random inputs agree", f"{counts['agrees']}/{searched}", _all_or_some(counts["agrees"], searched)),
            Badge("curated differences", str(counts["documented"]), "c-documented", MEANINGS["documented"]),
            # (neutral: a difference nobody has reviewed yet is no verdict of a bug; the section below says so)
            Badge("new differences (not curated)", str(counts["undocumented"]), "", MEANINGS["undocumented"]),
            Badge("refused", str(counts["refused"]), "c-refused"),
            Badge("records brought along agree", f"{companions['agrees']}/{brought}",
                  _all_or_some(companions["agrees"], brought),
                  "the companions', relations' and stateful plans' records of the random inputs (not counted above), "
                  "judged; unsupported ones left out: the section below lists each that differs"),
            Badge("curated classes reproduced", f"{view.reproduced(name)}/{len(curated)}", ""),
        ]
        for references in sorted({row.references for row in view.real}):
            for summary in view.real_summary(references):
                if summary.column == name:
                    badges.append(Badge(f"WMT17 within the contract ({references} ref)",
                                        f"{summary.agree}/{summary.scored}",
                                        _all_or_some(summary.agree, summary.scored)))
        baseline = self.baseline(name)
        # (a Baseline's truth is its length: an empty reviewed baseline is still one)
        count = 0 if baseline is None else len(baseline.entries)
        reviewed = "none" if baseline is None else f"{count} entr{'y' if count == 1 else 'ies'}"
        badges.append(Badge("reviewed baseline", reviewed, ""))
        return badges

    def baseline(self, name: str) -> Baseline | None:
        """The reviewed baseline `baselines/<name>.yaml` of the project, when there is a readable one."""
        if self.baselines is None or not page_name(name):
            return None
        path = self.baselines / f"{name}.yaml"
        if not path.is_file():
            return None
        try:
            return load_baseline(path)
        except BleuOracleError:  # a baseline under review (TODO reasons) is not shown as reviewed
            return None

    def edge_answers(self, name: str) -> list[tuple[EdgeCaseRow, ColumnAnswer]]:
        """One implementation's answer to every edge case it was asked."""
        out = []
        for case in self.view.cases:
            answer = self.column_answer(case, name, prefix="../")
            if answer is not None:
                out.append((case, answer))
        return out

    def reproduce(self, entry: ImplementationEntry) -> list[str]:
        """The commands that reproduce an implementation's results."""
        run, name = self.view.run, entry.name
        commands = [f"bleu-oracle check --impl {name} --seed {run.seed} --examples {run.examples} "
                    f"--report report-{name}"]
        if self.baseline(name) is not None:
            commands.append(f"bleu-oracle check --impl {name} --baseline baselines/{name}.yaml")
        commands.append(f"bleu-oracle report --impl {name} --seed {run.seed} --examples {run.examples} "
                        f"--report site-{name}")
        return commands

    # -- a case's page --

    def column_answer(self, case: EdgeCaseRow, column: str, prefix: str = "../") -> ColumnAnswer | None:
        """One column's answer to `case` (None when the column was not asked)."""
        view = self.view
        cell = view.cell(case, column)
        if cell is None:
            return None
        if cell.kind == "oracle":
            return ColumnAnswer(column, view.column_label(column), None, cell.profile, view.html_cell(cell), "", "")
        page = f"{prefix}{IMPLEMENTATION_HTML.format(name=column)}" if page_name(column) else None
        return ColumnAnswer(column, view.column_label(column), page, cell.profile, view.html_cell(cell),
                            expected_text(cell.expected, "rejects it"), view.edge_verdict(cell))

    def case_answers(self, case: EdgeCaseRow) -> list[ColumnAnswer]:
        """Every column's answer to one edge case: the oracle under each profile, then each implementation."""
        answers = (self.column_answer(case, column) for column in self.view.columns)
        return [answer for answer in answers if answer is not None]

    # -- deviations: unique to one implementation, or shared --

    def deviations(self) -> tuple[list[Deviation], list[Deviation]]:
        """The root causes of differences (edge cases, random inputs and the records they brought along) shown by
        one implementation only, and those several show (a convention some libraries share); most implementations
        first, then by name."""
        implementations: dict[str, set[str]] = defaultdict(set)
        cases: dict[str, set[str]] = defaultdict(set)
        inputs: Counter[str] = Counter()
        brought: Counter[str] = Counter()
        curated: dict[str, set[str]] = defaultdict(set)
        view = self.view
        for case, cell in view.differing_cells():
            cause = cell.verdict.classification or "not attributed"
            implementations[cause].add(cell.column)
            cases[cause].add(case.id)
            curated[cause].update(cell.verdict.documented)
        for counted, searched in ((inputs, view.search), (brought, view.companions)):
            for name, records in searched.items():
                for record in records:
                    if category(record) in DIFFERS:
                        cause = record.verdict.classification or "not attributed"
                        implementations[cause].add(name)
                        counted[cause] += 1
                        curated[cause].update(record.verdict.documented)
        found = [
            Deviation(cause, tuple(sorted(names)), tuple(sorted(cases[cause])), inputs[cause],
                      tuple(sorted(curated[cause])), brought[cause])
            for cause, names in implementations.items()
        ]
        found.sort(key=lambda d: (-len(d.implementations), d.classification))
        return [d for d in found if len(d.implementations) == 1], [d for d in found if len(d.implementations) > 1]

    # -- the matrix's n/a --

    def not_applicable(self, columns: list[str]) -> list[NotApplicable]:
        """Each column with n/a cells and why (the reasons the harness gave, each with its count of cases)."""
        out = []
        for column in columns:
            cells = [c for c in (self.view.cell(case, column) for case in self.view.cases) if c is not None]
            reasons = Counter(c.not_applicable for c in cells if c.not_applicable and category(c) == "unsupported")
            reasons.update(c.answer.message or "unsupported" for c in cells
                           if c.kind == "oracle" and c.answer.outcome == "unsupported")
            if reasons:
                out.append(NotApplicable(column, self.view.column_label(column),
                                         sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])), len(cells)))
        return out


def _all_or_some(agree: int, judged: int) -> str:
    """A badge's colour: green when everything judged agrees, orange when something does not."""
    return "c-agrees" if agree == judged else "c-documented"
