"""The report's pages from a small fixed data set, byte for byte as the previous page code rendered them.

`tests/report_data/data` is a cut of the committed `reports/data` (six implementations, the eight oracle
columns, the first 30 random inputs and every one no curated class explains, three WMT17 systems), made with

    python tests/report_data/make_fixture.py reports/data tests/report_data/data

and `tests/report_data/expected` holds the pages that the page code before the re-cut into `oracle/reports/site`
(jinja2 templates, typed view models), at commit e3d6ab6, rendered from it:

    mkdir /tmp/oldcode && git archive e3d6ab6 oracle | tar -x -C /tmp/oldcode
    mkdir /tmp/fxr && cp -r tests/report_data/data /tmp/fxr/
    cd /tmp && PYTHONPATH=/tmp/oldcode python -c "import sys; from oracle.cli import main;
        sys.exit(main(['report', '--render-only', '--report', '/tmp/fxr', '--quiet']))"   # (one line)

(the same pages as that code's `bleu-oracle report --render-only` on the committed data, which the re-cut also
renders byte for byte).

The expected pages were not produced by the code under test: they are the previous implementation's output, kept
so that the re-cut (and any later change of the page code) shows every byte it changes. The pages also read the
curated discrepancies (oracle/diagnose/data/discrepancies.yaml) and the edge cases (oracle/suite/edge_cases.py): a
change there changes the expected pages, regenerated with the command above and reviewed as a diff. Since the
upstream status became structured data (branch r5-trophy), the old code cannot read the curated file: the trophy
sections of `index.html` and `trophies.md` were rendered by the page code of that change, reviewed as a diff in
which nothing outside the trophy sections changed.

Holds: oracle.reports.site.formatting, oracle.reports.site.pages, oracle.reports.site.view
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oracle.cli import main

FIXTURE = Path(__file__).resolve().parent / "report_data"


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
    assert len(expected) == 11
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
