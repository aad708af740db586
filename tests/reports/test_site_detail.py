"""The report site as people read it (issue 27): tokens with whitespace shown visibly, plot labels that fit their
plot, legends without a repeated colour-and-shape pair, the detail pages (a page per implementation and per edge
case, the deviations unique to one implementation apart from shared ones, why a column says n/a) and report files
with ordinary permissions. Expected values are derived by hand from the fixture's data (tests/report_data) and
from what the inputs are, never from the pages' code.

Holds: oracle.reports.site.detail, oracle.reports.site.formatting, oracle.reports.site.svg
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from oracle.cli import main
from oracle.reports.site import svg
from oracle.reports.site.data import read_data
from oracle.reports.site.detail import SiteDetail, page_name
from oracle.reports.site.formatting import request_text, tokens_text, visible_token
from oracle.reports.site.pages import environment
from oracle.reports.site.view import ReportView, category

FIXTURE = Path(__file__).resolve().parents[1] / "report_data"
#: Versions as long as the real ones that were clipped (issue 27).
LONG_VERSIONS = {"torchmetrics": "1.9.0; multi-bleu.perl sha256:af2580098301 (perl v5.36.0)",
                 "fast-bleu": "0.0.90; mteval-v13a.pl sha256:bca77abb8655 (perl v5.36.0)"}


@pytest.fixture(scope="module")
def view() -> ReportView:
    return ReportView(read_data(FIXTURE))


# -- tokens ---------------------------------------------------------------------------------------------


def test_a_token_with_a_space_reads_apart_from_two_tokens():
    """The trophy torchtext-space-in-token-index-error: ["a b", "c"] read "a b c" like ["a", "b", "c"]."""
    assert tokens_text(["a b", "c"]) == "a␣b c"
    assert tokens_text(["a", "b", "c"]) == "a b c"
    request = {"segments": [{"hypothesis": ["a b", "c"], "references": [["a b", "c"]]}], "weights": [0.5, 0.5]}
    assert request_text(request).startswith("“a␣b c” vs “a␣b c”")


def test_a_text_request_reads_as_its_raw_text_not_as_characters():
    """The trophy multi-bleu-detok-lowercase-before-entities: a string hypothesis is the text sent, not one token a
    character ("& A M P ;"); a space stays a space, other whitespace is made visible, the tokenizer is named."""
    request = {"segments": [{"hypothesis": "&AMP; a\u00a0b", "references": ["&AMP; a b", ""]}], "weights": [1.0],
               "lowercase": True, "tokenize": "13a"}
    assert request_text(request) == ("“&AMP; a⟨U+00A0⟩b” vs “&AMP; a b / ∅” [corpus; weights 1; lowercase; raw text, "
                                     "tokenized 13a]")


@pytest.mark.parametrize(("token", "shown"), [
    ("a\tb", "a⇥b"), ("a\nb", "a↵b"), ("a\u00a0b", "a⟨U+00A0⟩b"), ("", "⟨⟩"), ("été", "été"),
])
def test_whitespace_inside_a_token_and_an_empty_token_are_visible(token, shown):
    assert visible_token(token) == shown


def test_no_tokens_is_the_empty_set_sign():
    assert tokens_text([]) == "∅"


# -- plots ----------------------------------------------------------------------------------------------


def test_a_text_width_follows_helvetica_metrics():
    """Helvetica's AFM: M is 833/1000 em, i 222/1000; the estimate adds WIDTH_MARGIN for a wider font."""
    assert svg.text_width("M", 10) == pytest.approx(8.33 * svg.WIDTH_MARGIN)
    assert svg.text_width("iiii", 10) < svg.text_width("MMMM", 10)
    assert svg.text_width("≠", 10) == pytest.approx(10 * svg.WIDTH_MARGIN)  # outside ASCII: a full em


def test_no_two_implementations_share_a_colour_and_a_shape():
    styles = [svg.series_style(k) for k in range(len(svg.PALETTE) * len(svg.MARKERS))]
    assert len(set(styles)) == len(styles)


def _texts(markup: str) -> tuple[float, list[ET.Element]]:
    root = ET.fromstring(str(markup))
    ns = {"s": svg.SVG_NAMESPACE}
    return float(root.get("width") or 0), root.findall(".//s:text", ns)


def _long_named(view: ReportView) -> ReportView:
    data = read_data(FIXTURE)
    registry = [entry.model_copy(update={"version": LONG_VERSIONS[entry.name]}) if entry.name in LONG_VERSIONS
                else entry for entry in data.implementations]
    return ReportView(dataclasses.replace(data, implementations=registry))


@pytest.mark.parametrize("plot", ["deviation", "real-deviation", "real-scores"])
def test_every_plot_label_lies_inside_its_plot(view, plot):
    """Each text's estimated extent (its anchor, its estimated width) lies within the SVG's width, with the long
    labels that were clipped ("torchmetrics-sacrebleu 1.9.0", "multi-bleu.perl sha256:af25…"). (The browser test
    measures the rendered text itself.)"""
    long_view = _long_named(view)
    markup = {"deviation": lambda: svg.deviation_plot(long_view),
              "real-deviation": lambda: svg.real_deviation_plot(long_view),
              "real-scores": lambda: svg.real_scores_plot(long_view, 1)}[plot]()
    width, texts = _texts(markup)
    assert texts
    sizes = {"label": svg.LABEL_SIZE, "title": svg.TITLE_SIZE}
    for text in texts:
        if text.get("transform"):  # a system's name at -40°: measured in the browser
            continue
        extent = svg.text_width(text.text or "", sizes.get(text.get("class") or "", svg.TICK_SIZE))
        x = float(text.get("x") or 0)
        start = {"end": x - extent, "middle": x - extent / 2}.get(text.get("text-anchor") or "", x)
        assert 0 <= start and start + extent <= width, (text.text, start, extent, width)


# -- detail pages ---------------------------------------------------------------------------------------


def test_a_sentence_level_column_says_why_it_is_n_a(view):
    """fast-bleu takes sentence level only: n/a on every corpus-level edge case, for that reason."""
    corpus = sum(1 for case in view.cases if case.request.get("level") == "corpus")
    notes = {note.column: note for note in SiteDetail(view, None).not_applicable(view.columns)}
    reasons = dict(notes["fast-bleu"].reasons)
    assert reasons["level 'corpus' is not among the implementation's levels ['sentence']"] == corpus
    for column in view.columns:  # every n/a cell of every column is explained
        cells = [c for c in (view.cell(case, column) for case in view.cases) if c is not None]
        unsupported = sum(1 for c in cells if category(c) == "unsupported" and c.not_applicable
                          or c.kind == "oracle" and c.answer.outcome == "unsupported")
        assert sum(dict(notes[column].reasons).values() if column in notes else [0]) == unsupported, column


def test_deviations_split_into_one_implementations_and_shared(view):
    """nltk alone floors segment totals (its SmoothingFunction.method0 path); float32 arithmetic is shared by
    torchmetrics and keras-hub (both compute in float32 tensors)."""
    unique, shared = SiteDetail(view, None).deviations()
    by_cause = {d.classification: d for d in unique + shared}
    assert by_cause["segment_totals_floor=1"] in unique
    assert by_cause["segment_totals_floor=1"].implementations == ("nltk",)
    assert by_cause["float32"] in shared
    assert set(by_cause["float32"].implementations) == {"torchmetrics", "keras-hub"}
    assert all(len(d.implementations) == 1 for d in unique) and all(len(d.implementations) > 1 for d in shared)


def test_a_case_page_has_every_columns_answer(view):
    detail = SiteDetail(view, None)
    case = next(c for c in view.cases if c.id == "both-empty")
    answers = detail.case_answers(case)
    assert [a.column for a in answers] == view.columns
    nltk = next(a for a in answers if a.column == "nltk")
    assert nltk.page == "../implementations/nltk.html"


def test_a_reviewed_baseline_is_shown_and_an_unreviewed_one_is_not(view, tmp_path):
    entry = view.by_name["nltk"]
    (tmp_path / "nltk.yaml").write_text("entries:\n- id: both-empty\n  outcome: fail\n  reason: reviewed\n")
    badges = {b.label: b.value for b in SiteDetail(view, tmp_path).badges(entry)}
    assert badges["reviewed baseline"] == "1 entry"
    (tmp_path / "nltk.yaml").write_text("entries:\n- id: both-empty\n  outcome: fail\n  reason: TODO\n")
    assert {b.label: b.value for b in SiteDetail(view, tmp_path).badges(entry)}["reviewed baseline"] == "none"
    (tmp_path / "nltk.yaml").write_text("entries: []\n")  # reviewed, and nothing needs accepting
    assert {b.label: b.value for b in SiteDetail(view, tmp_path).badges(entry)}["reviewed baseline"] == "0 entries"


def _nltk_floor_answering(score: float) -> ReportView:
    """The fixture's view with nltk's re-run of `nltk-segment-totals-floor` (recorded 0.8801117367933934, the
    fixture's nltk stream answering exactly that) answering `score` instead, its curated class still found."""
    data = read_data(FIXTURE)
    reruns = {key: [dataclasses.replace(rerun, answer=dataclasses.replace(rerun.answer, score=score))
                    if key == "nltk-segment-totals-floor" and rerun.implementation == "nltk" else rerun
                    for rerun in runs]
              for key, runs in data.reruns.items()}
    return ReportView(dataclasses.replace(data, reruns=reruns))


def test_a_curated_class_found_again_with_another_answer_is_not_counted_reproduced(tmp_path):
    """The badge counts an entry reproduced as the trophy case does: its class found again and its recorded answer
    given again. nltk shows 9 curated entries in the fixture, its re-runs answering each one's recorded value (7
    scores, a rejection, an error): 9/9 (tests/report_data/expected/implementations/nltk.html). The floor entry
    re-run answering 0.5 where 0.8801117367933934 was recorded, its class found again, is 8/9, and every page says
    it is not reproduced and why; 5e-10 relative away (inside the contract's 1e-9 relative) it is 9/9."""
    view = _nltk_floor_answering(0.5)
    entry = view.by_name["nltk"]
    badges = {b.label: b.value for b in SiteDetail(view, tmp_path).badges(entry)}
    assert badges["curated classes reproduced"] == "8/9"
    shown = next(c for c in view.curated("nltk") if c.entry.id == "nltk-segment-totals-floor")
    assert view.observed_text(shown, "nltk", entry.version).endswith(
        "**not reproduced** (now answers 0.5 where 0.8801117367933934 was recorded)")
    trophy = next(t for t in view.trophies if t.id == "nltk-segment-totals-floor")
    assert trophy.now == f"not reproduced with {entry.version} (now answers 0.5 where 0.8801117367933934 was recorded)"
    page = environment().get_template("implementation.md.j2").render(view=view, entry=entry)
    assert f"; 8 reproduced with nltk {entry.version} by re-running" in page
    index = environment().get_template("index.html.j2").render(view=view, detail=SiteDetail(view, None))
    assert "<code>nltk-segment-totals-floor</code> — not reproduced ✗;" in index
    close = _nltk_floor_answering(0.8801117367933934 * (1 + 5e-10))
    assert {b.label: b.value for b in SiteDetail(close, tmp_path).badges(entry)}["curated classes reproduced"] == "9/9"


# -- files ----------------------------------------------------------------------------------------------


def test_the_report_sites_files_get_ordinary_permissions(tmp_path):
    """Pages, data and folders of `bleu-oracle report` under a 022 umask: 0644 files, 0755 folders (not
    mkstemp's 0600 nor mkdtemp's 0700)."""
    shutil.copytree(FIXTURE / "data", tmp_path / "data")
    old = os.umask(0o022)
    try:
        assert main(["report", "--render-only", "--report", str(tmp_path), "--quiet"]) == 0
    finally:
        os.umask(old)
    modes = {path.relative_to(tmp_path).as_posix(): stat.S_IMODE(path.stat().st_mode) for path in tmp_path.rglob("*")}
    assert "cases/both-empty.html" in modes and "implementations/nltk.html" in modes
    wrong = {name: oct(mode) for name, mode in modes.items()
             if mode != (0o755 if (tmp_path / name).is_dir() else 0o644)}
    assert not wrong


@pytest.mark.parametrize(("name", "page"), [
    ("nltk", True), ("torchmetrics-sacrebleu", True), ("both-empty", True), ("mlpack-double", True),
    ("../index", False), ("a/b", False), (".hidden", False), ("", False), ("a b", False),
])
def test_only_a_plain_name_gets_a_page_of_its_own(name, page):
    """A name that would climb out of the folder, name a sub-folder or hide gets no page (and no link)."""
    assert page_name(name) is page
