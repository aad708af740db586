"""The records a random input brings along (its companions, relations and stateful plans: ids `random-S-I~KIND`)
on the report pages: counted apart from the inputs, every one that differs listed on its implementation's page by
kind and root cause, escaped as all outside text is.

The fixture (tests/report_data/data) holds, copied line for line from the committed reports/data
(tests/report_data/make_fixture.py --add-companions), nltk's 20 `~line-ends`, 16 `~refused` and first 3 `~series`
records and sacrebleu's 20 `~line-ends` and 16 `~refused` records. The expected values below are counted by hand
from those lines' "id", "outcome", "classification"."name" and "documented" fields:

nltk `~line-ends` (examples 4, 14, ..., 194): pass 4, 24, 114, 134, 174, 184 (6); fail 14, all curated:
  segment_totals_floor=1: 34, 44, 74, 94, 104, 124, 154, 164 (8; nltk-segment-totals-floor)
  chen-cherry-5-precisions: 84, 194 (2; nltk-method5-averages-precisions)
  rejects-valid-input: 54, 64 (2; nltk-method6-trigram-assertion)
  segment_totals_floor=1 + chen-cherry-5-precisions: 144 (1; both classes)
  tiny-instead-of-zero: 14 (1; nltk-method0-tiny)
nltk `~refused` (11, 23, ..., 191): acceptable 35, 95, 155 (3); error, no curated class: error-when-references-missing
  11, 71, 131, 191 (4), error-when-corpus-empty 47, 107, 167 (3); fail, no curated class: scores-invalid-input
  23, 59, 83, 119, 143, 179 (6)
nltk `~series` (5, 15, 25): all fail, curated: segment_totals_floor=1 5; tiny-instead-of-zero 15, 25
sacrebleu `~line-ends`: fail 44 only (13a-line-stripped-first, no curated class), 19 pass
sacrebleu `~refused`: fail 71, 107, 179 (scores-invalid-input, no curated class), the other 13 rejected as expected

Holds: oracle.reports.site.data, oracle.reports.site.view, oracle.reports.site.detail, oracle.reports.site.pages
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from oracle.cli import main
from oracle.harness.generate import COMPANIONS
from oracle.reports.site.data import Answer, SearchEntry, Verdict, read_data
from oracle.reports.site.detail import SiteDetail
from oracle.reports.site.pages import environment
from oracle.reports.site.view import COMPANION_WORDS, ReportView, category

FIXTURE = Path(__file__).resolve().parents[1] / "report_data"

NLTK_LINE_ENDS = {
    "segment_totals_floor=1": [34, 44, 74, 94, 104, 124, 154, 164],
    "chen-cherry-5-precisions": [84, 194],
    "rejects-valid-input": [54, 64],
    "segment_totals_floor=1 + chen-cherry-5-precisions": [144],
    "tiny-instead-of-zero": [14],
}


@pytest.fixture(scope="module")
def view() -> ReportView:
    return ReportView(read_data(FIXTURE))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    shutil.copytree(FIXTURE / "data", out / "data")
    assert main(["report", "--render-only", "--report", str(out), "--quiet"]) == 0
    return out


def _ids(indices: list[int], kind: str) -> list[str]:
    return [f"random-0-{index}~{kind}" for index in indices]


def test_the_companions_are_counted_apart_from_the_random_inputs(view):
    """The random search's counts stay the inputs' own (the fixture's cut: 30 inputs and the unexplained ones);
    the records brought along are counted on their own, by category."""
    # (the fixture's nltk stream: 27 lines of kind "example" without "~", examples 0-28 but the large 3 and 21)
    assert len(view.search["nltk"]) == 27
    assert dict(view.companion_counts("nltk")) == {"agrees": 6 + 3, "documented": 14 + 3, "undocumented": 6,
                                                     "refused": 7}
    assert dict(view.companion_counts("sacrebleu")) == {"agrees": 19 + 13, "undocumented": 1 + 3}
    assert view.companion_counts("torchmetrics") == {}  # (none in its fixture stream)


def test_each_kind_lists_every_differing_record_grouped_by_root_cause(view):
    kinds = {kind.kind: kind for kind in view.companion_kinds("nltk")}
    assert list(kinds) == ["refused", "series", "line-ends"]  # the search's order of kinds
    line_ends = kinds["line-ends"]
    assert (line_ends.sent, line_ends.differing) == (20, 14)
    assert [(g.classification, [r.id for r in g.records]) for g in line_ends.groups] == [
        (cause, _ids(indices, "line-ends")) for cause, indices in NLTK_LINE_ENDS.items()]  # most records first
    assert line_ends.groups[3].documented == ("nltk-method5-averages-precisions", "nltk-segment-totals-floor")
    refused = kinds["refused"]
    assert (refused.sent, refused.differing, refused.counts["agrees"]) == (16, 13, 3)
    assert [(g.classification, g.documented, [r.id for r in g.records]) for g in refused.groups] == [
        ("scores-invalid-input", (), _ids([23, 59, 83, 119, 143, 179], "refused")),
        ("error-when-references-missing", (), _ids([11, 71, 131, 191], "refused")),
        ("error-when-corpus-empty", (), _ids([47, 107, 167], "refused")),
    ]
    series = kinds["series"]
    assert [(g.classification, [r.id for r in g.records]) for g in series.groups] == [
        ("tiny-instead-of-zero", _ids([15, 25], "series")), ("segment_totals_floor=1", _ids([5], "series"))]
    (sacrebleu_line_ends,) = [k for k in view.companion_kinds("sacrebleu") if k.kind == "line-ends"]
    assert [(g.classification, [r.id for r in g.records]) for g in sacrebleu_line_ends.groups] == [
        ("13a-line-stripped-first", ["random-0-44~line-ends"])]


def test_a_curated_class_counts_the_companions_it_explains(view):
    assert dict(view.companion_class_counts("nltk")) == {
        "nltk-segment-totals-floor": 8 + 1 + 1,  # line-ends (and 144's pair), series 5
        "nltk-method5-averages-precisions": 2 + 1,
        "nltk-method6-trigram-assertion": 2,
        "nltk-method0-tiny": 1 + 2,
    }


def test_the_deviations_page_counts_the_companions_root_causes(view):
    unique, shared = SiteDetail(view, None).deviations()
    rows = {row.classification: row for row in unique + shared}
    assert rows["scores-invalid-input"].companions == 6 + 3
    assert set(rows["scores-invalid-input"].implementations) >= {"nltk", "sacrebleu"}
    assert rows["13a-line-stripped-first"].companions == 1
    assert rows["error-when-corpus-empty"].companions == 3


def test_every_differing_companion_record_is_on_its_implementations_pages(rendered):
    """nltk's 14 differing `~line-ends` records (and every other differing one) are named on its Markdown and
    HTML pages; the ones that agree are not; the summary says how many of each kind differ."""
    differing = [identifier for indices in NLTK_LINE_ENDS.values() for identifier in _ids(indices, "line-ends")]
    differing += _ids([23, 59, 83, 119, 143, 179, 11, 71, 131, 191, 47, 107, 167], "refused")
    differing += _ids([5, 15, 25], "series")
    agreeing = _ids([4, 24, 114, 134, 174, 184], "line-ends") + _ids([35, 95, 155], "refused")
    markdown = (rendered / "implementations" / "nltk.md").read_text(encoding="utf-8")
    html = (rendered / "implementations" / "nltk.html").read_text(encoding="utf-8")
    for page in (markdown, html):
        assert [i for i in differing if not re.search(re.escape(i) + r"\b", page)] == []
        assert [i for i in agreeing if re.search(re.escape(i) + r"(?![0-9])", page)] == []
    assert "39 records, 9 agree; 30 differ (17 curated, 6 not curated, 7 refused), 0 unsupported" in markdown
    assert "`~refused` 13 of 16, `~series` 3 of 3, `~line-ends` 14 of 20" in markdown
    assert "### `~line-ends`: 14 of 20 records differ" in markdown
    assert '<h3 id="companion-line-ends"><code>~line-ends</code>: 14 of 20 records differ</h3>' in html
    index = (rendered / "README.md").read_text(encoding="utf-8")
    assert re.search(r"\| \[nltk\]\([^)]*\) \|.*\| 30 / 39 \|", index)
    assert re.search(r"\| \[sacrebleu\]\([^)]*\) \|.*\| 4 / 36 \|", index)


def test_a_companions_outside_text_is_escaped_on_both_pages(view):
    """A differing companion's message (the implementation's words) reaches the HTML page escaped and the
    Markdown page as one code span."""
    hostile = "<img src=x onerror=alert(1)> `| **b**"
    data = read_data(FIXTURE)
    companions = [dataclasses.replace(entry, message=hostile) if entry.implementation == "nltk" else entry
                  for entry in data.companions]
    shown = ReportView(dataclasses.replace(data, companions=companions))
    (entry,) = [e for e in shown.installed if e.name == "nltk"]
    env = environment()
    html = env.get_template("implementation.html.j2").render(view=shown, detail=SiteDetail(shown, None),
                                                            entry=entry, up="../")
    assert "<img src" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    markdown = env.get_template("implementation.md.j2").render(view=shown, entry=entry)
    assert "``<img src=x onerror=alert(1)> `| **b**``" in markdown  # a longer fence: the backtick inside stays


def test_an_unsupported_answer_the_session_judged_an_error_is_not_n_a():
    """A refused companion's input answered "unsupported" (reports/data: bleu-score's 16, multi-bleu's 8) is an
    error in the stream, with a root cause: on the page it differs (refused), it is not n/a."""
    def entry(verdict: Verdict) -> SearchEntry:
        return SearchEntry("impl", "papineni", 11, "random-0-11~refused", Answer("unsupported", message="one ref"),
                           verdict, expected=None, expected_rejected=True, size=4, layer=None, companion="refused")

    assert category(entry(Verdict(False, "error-when-references-missing"))) == "refused"
    assert category(entry(Verdict(False, "unsupported"))) == "unsupported"  # the stream's not-applicable
    assert category(entry(Verdict(False, "x", ("a-curated-class",)))) == "documented"


def test_every_companion_kind_of_the_search_is_described():
    assert [kind for kind in COMPANIONS if kind not in COMPANION_WORDS] == []


@pytest.mark.slow  # reads every column of the committed report (about 5 s)
def test_every_failing_record_of_a_committed_stream_is_listed_on_its_page():
    """Over the committed report (reports/data: real runs of real libraries), the records brought along that each
    implementation's page lists as differing are exactly its stream's `~` records whose outcome is a failure (fail,
    error, crash, timeout, protocol error), as the stream's own "outcome" field says; and the random inputs'
    differing count is that of its base records."""
    from oracle.harness.events import read_results
    from oracle.reports.site.data import run_directory

    reports = Path(__file__).resolve().parents[2] / "reports"
    view = ReportView(read_data(reports))
    failing = {"fail", "error", "crash", "timeout", "protocol-error"}
    missing, extra, base = {}, {}, {}
    for entry in view.installed:
        records = read_results(run_directory(reports / "data", entry.name) / "results.jsonl").records
        expected = {r.id for r in records if "~" in r.id and r.outcome.value in failing}
        listed = {e.id for kind in view.companion_kinds(entry.name) for g in kind.groups for e in g.records}
        if expected - listed:
            missing[entry.name] = sorted(expected - listed)[:3]
        if listed - expected:
            extra[entry.name] = sorted(listed - expected)[:3]
        counts = view.search_counts(entry.name)
        differing = sum(counts[key] for key in ("documented", "undocumented", "refused"))
        inputs = [r for r in records if r.kind == "example" and "~" not in r.id]
        if differing != sum(1 for r in inputs if r.outcome.value in failing):
            base[entry.name] = differing
    assert (missing, extra, base) == ({}, {}, {})
    assert len(view.installed) >= 30
