"""The report's pages from a small fixed data set, byte for byte as reviewed.

`tests/report_data/data` is a cut of the committed `reports/data` (six implementations, the eight oracle
columns, the first 30 random inputs and every one no curated class explains, three WMT17 systems), made with

    python tests/report_data/make_fixture.py reports/data tests/report_data/data

and `tests/report_data/expected` holds the pages rendered from it. They were first the output of the page code
before the re-cut into `oracle/reports/site` (commit e3d6ab6), so that the re-cut showed every byte it changed;
issue 27 (the site people read: per-implementation and per-case pages, deviations.html, the matrix in two tables,
measured plot labels, whitespace inside tokens shown) changed the pages on purpose, and they were regenerated
with that code and reviewed as a diff:

    rm -rf /tmp/fxr && mkdir /tmp/fxr && cp -r tests/report_data/data /tmp/fxr/
    bleu-oracle report --render-only --report /tmp/fxr --quiet    # then copy its pages (not data/) here

So this test shows every byte a later change of the page code changes; it is no evidence that the pages are right.
What the pages must be is held by tests that check properties: tests/reports/test_report_site.py,
tests/reports/test_site_detail.py and, in a real browser, tests/reports/test_site_browser.py. The pages also read the
curated discrepancies (oracle/diagnose/data/discrepancies.yaml), the edge cases (oracle/suite/edge_cases.py) and the
reviewed baselines (baselines/): a change there changes the expected pages, regenerated as above and reviewed as a diff.
The trophy sections follow the structured upstream status (the r5-trophy change).

Holds: oracle.reports.site.formatting, oracle.reports.site.pages, oracle.reports.site.view
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oracle.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "report_data"


def _pages(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.relative_to(folder).parts[0] != "data" and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    shutil.copytree(FIXTURE / "data", out / "data")
    assert main(["report", "--render-only", "--report", str(out), "--quiet"]) == 0
    return out


def test_the_same_pages_are_rendered(rendered: Path) -> None:
    expected = _pages(FIXTURE / "expected")
    got = _pages(rendered)
    assert sorted(got) == sorted(expected)
    assert len(expected) == 38  # 11 pages, 6 implementation pages, 20 case pages, deviations.html
    different = [name for name in expected if got[name] != expected[name]]
    assert not different, f"pages differ from tests/report_data/expected: {different}"


@pytest.mark.parametrize(("file", "edit", "named"), [
    ("implementations.jsonl", lambda text: text + '{"type": "implementation", "name": "x", "status": "installed"}\n',
     "implementations.jsonl:28: adapter: Field required"),
    ("implementations.jsonl", lambda text: text + '{"type": "library"}\n', "implementations.jsonl:28: type 'library'"),
    ("run.json", lambda text: text.replace('"examples": 200', '"examples": "many"'), "run.json: examples:"),
])
def test_a_malformed_data_file_is_one_line_naming_the_file_line_and_field(tmp_path, capsys, file, edit, named):
    """`report --render-only` on data files a user edited: exit 2 and one line naming the file (as the user knows
    it, not the staging copy), the line and the field; the folder is left as it was."""
    shutil.copytree(FIXTURE / "data", tmp_path / "data")
    path = tmp_path / "data" / file
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert main(["report", "--render-only", "--report", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"{tmp_path / 'data' / named}" in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


@pytest.mark.slow  # copies and re-renders the committed report (about 6 s)
def test_the_committed_report_pages_are_what_its_data_renders(tmp_path: Path) -> None:
    """reports/ is derived from its data (data/, history/) and the page code: a change of either that is not
    followed by a re-render leaves a stale page, which this names."""
    committed = Path(__file__).resolve().parents[2] / "reports"
    out = tmp_path / "reports"
    shutil.copytree(committed, out)
    for page in [*out.glob("*.md"), *out.glob("*.html"), *out.glob("cases/*"), *out.glob("implementations/*")]:
        if page.name != "history.md":  # (written by `bleu-oracle history`, as upstream/ is by hand: not the report's)
            page.write_text("a stale page")  # each rendered anew
    assert main(["report", "--render-only", "--report", str(out), "--quiet"]) == 0
    expected, got = _pages(committed), _pages(out)
    stale = sorted(name for name in expected.keys() | got.keys() if expected.get(name) != got.get(name))
    assert not stale, ("reports/ pages differ from a re-render of its data (`bleu-oracle report --render-only "
                       f"--report reports`): {stale[:10]}")
