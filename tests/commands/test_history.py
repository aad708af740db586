"""`bleu-oracle history`: versions' environments made beside their place and reused, versions that cannot be
installed listed with the reason, each version driven through the shared driver and checked, the answers
bisected (first and last version showing a behaviour, where the answer changed) and the page written. A fake
registry (an `install` that writes a fake nltk into the environment) stands in for pip in the fast tests; the
slow test installs real nltk releases under Python 3.6 and finds nltk PR #1844's change between 3.2.5 and 3.3.

Holds: oracle.adapters.history, oracle.commands.history, oracle.reports.history,
    oracle.models.history, oracle.adapters.drivers.libraries.nltk, oracle.adapters.drivers.libraries.sacrebleu,
    oracle.adapters.drivers.libraries.torchmetrics
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from oracle.adapters import history as environments
from oracle.commands import history as command
from oracle.models.history import VersionRun
from oracle.reports import history as pages

ROOT = Path(__file__).resolve().parents[2]
NLTK_CASES = ROOT / "cases" / "nltk-tests.yaml"

#: A fake nltk whose every release but one scores 1 everywhere; "3.3" divides by zero on every request.
FAKE_BLEU_SCORE = '''
VERSION = {version!r}


class SmoothingFunction:
    def __init__(self, epsilon=0.1, alpha=5, k=5):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: args[0] if args else None


def sentence_bleu(references, hypothesis, weights=(0.25, 0.25, 0.25, 0.25), smoothing_function=None):
    return corpus_bleu([references], [hypothesis], weights, smoothing_function)


def corpus_bleu(list_of_references, hypotheses, weights=(0.25, 0.25, 0.25, 0.25), smoothing_function=None):
    if VERSION == "3.3":
        return 1 / 0
    return 1.0
'''


def fake_registry(installed: list[str]):
    """An `install` writing an environment whose bin/python runs this Python with a fake nltk on its path;
    "3.4" has no wheel (the reason pip would give)."""

    def install(python: str, target: Path, requirement: str, base: Path | None) -> None:
        installed.append(f"{requirement} with {base.name if base else None}")
        if "==" not in requirement:  # a shared base: its requirements only
            target.mkdir(parents=True)
            return
        version = requirement.split("==", 1)[1]
        if version == "3.4":
            raise environments.NotInstallable(f"{requirement}: error: command 'gcc' failed: No such file")
        package = target / "lib" / "nltk" / "translate"
        package.mkdir(parents=True)
        (target / "lib" / "nltk" / "__init__.py").write_text(f"__version__ = {version!r}\n")
        (package / "__init__.py").write_text("")
        (package / "bleu_score.py").write_text(FAKE_BLEU_SCORE.format(version=version))
        (target / "bin").mkdir()
        script = target / "bin" / "python"
        # (relative to itself: the environment is built in a scratch directory and renamed into place)
        script.write_text(f'#!/bin/sh\nexport PYTHONPATH="$(dirname "$0")/../lib"\nexec "{python}" "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR)

    return install


@pytest.fixture
def envs(tmp_path):
    installed: list[str] = []
    made = environments.Environments(where=tmp_path / "envs", find=lambda version: sys.executable,
                                     install=fake_registry(installed))
    made.installed = installed  # type: ignore[attr-defined]
    return made


def arguments(tmp_path, versions, **more):
    values = {"name": "nltk", "versions": versions, "list": False, "report": str(tmp_path / "reports" / "history"),
              "cases": str(NLTK_CASES), "examples": 0, "timeout": 30.0, "quiet": True, **more}
    return argparse.Namespace(**values)


def test_release_numbers_compare_as_numbers_and_choose_the_python():
    nltk = environments.LIBRARIES["nltk"]
    assert environments.release("3.10.4") > environments.release("3.9.2") > environments.release("3.3.0")
    assert environments.release("3.3.0") == environments.release("3.3")
    # PEP 479: nltk before 3.4 ends its n-gram generator with StopIteration, so it runs under 3.6
    assert [nltk.python_for(v) for v in ("3.2", "3.3", "3.4.5", "3.5", "3.7", "3.10.4")] == \
        ["3.6", "3.6", "3.7", "3.8", "3.10", "3.12"]
    with pytest.raises(environments.NotInstallable, match="not a release number"):
        environments.release("3.3rc1")
    with pytest.raises(environments.NotInstallable, match=r"older than 3\.2.*supports >= 3\.2"):
        nltk.supports("3.1")


def test_old_sacrebleu_declares_that_it_takes_equal_reference_counts():
    sacrebleu = environments.LIBRARIES["sacrebleu"]
    old, new = sacrebleu.capabilities_for("1.4.14"), sacrebleu.capabilities_for("2.0.0")
    assert (old["same_reference_count"], old["orders"]) == (True, [4])  # 1.x counts 4 orders, streams of equal length
    assert "same_reference_count" not in new and "orders" not in new and new["max_order"] == 16
    assert sacrebleu.handshake("1.4.14")["implementation"]["version"] == "1.4.14"


def test_an_environment_is_made_once_beside_its_place_and_reused(envs):
    nltk = environments.LIBRARIES["nltk"]
    assert envs.prepare(nltk, "3.2") is True
    assert envs.prepare(nltk, "3.2") is False  # reused, not made again
    assert envs.installed == ["nltk==3.2 with None"]
    assert sorted(os.listdir(envs.where)) == ["nltk-3.2"]  # no scratch directory left beside it
    recorded = json.loads((envs.directory(nltk, "3.2") / environments.INSTALLED).read_text())
    assert recorded == {"library": "nltk", "version": "3.2", "python": "3.6"}


def test_a_shared_base_is_made_once_and_each_release_goes_in_beside_it(envs, tmp_path):
    """torchmetrics' releases share one environment of torch (750 MB): made once, then each release is installed
    with it as its base; a .pth in the release's site-packages names the base's."""
    library = replace(environments.LIBRARIES["nltk"], shared=("torch==2.13.0+cpu", "numpy"))
    assert envs.prepare(library, "3.2") and envs.prepare(library, "3.3")
    base = ".shared-nltk-py3.6"
    assert envs.installed == ["torch==2.13.0+cpu numpy with None", f"nltk==3.2 with {base}", f"nltk==3.3 with {base}"]
    assert sorted(os.listdir(envs.where)) == [base, "nltk-3.2", "nltk-3.3"]
    release, shared = tmp_path / "release", tmp_path / "shared"
    for where in (release, shared):
        (where / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    environments.link_base(release, shared)
    pth = release / "lib" / "python3.11" / "site-packages" / "bleu-oracle-shared.pth"
    assert pth.read_text() == f"{shared / 'lib' / 'python3.11' / 'site-packages'}\n"


def test_a_version_that_cannot_be_installed_leaves_nothing_and_says_why(envs, tmp_path):
    nltk = environments.LIBRARIES["nltk"]
    with pytest.raises(environments.NotInstallable, match="gcc"):
        envs.prepare(nltk, "3.4")
    assert os.listdir(envs.where) == []
    no_python = replace(envs, find=lambda version: None)
    with pytest.raises(environments.NotInstallable, match="Python 3.6, which is not on this machine"):
        no_python.prepare(nltk, "3.2")


def test_pip_failure_names_the_line_that_says_why():
    stderr = ("WARNING: Location 'file:///opt/x' is ignored\nCollecting nltk==9.9\n"
              "ERROR: Could not find a version that satisfies the requirement nltk==9.9\n"
              "ERROR: No matching distribution found for nltk==9.9\n")
    assert environments.install_failure(stderr) == "ERROR: No matching distribution found for nltk==9.9"
    assert environments.install_failure("") == "pip failed and said nothing"


def test_history_checks_each_version_bisects_and_lists_what_it_could_not_install(envs, tmp_path, capsys):
    args = arguments(tmp_path, "3.3,3.1,3.2,3.4")
    assert command.run(args, envs) == 0
    report = Path(args.report)
    summary = json.loads((report / "nltk.json").read_text())
    runs = {run["version"]: run for run in summary["versions"]}
    assert list(runs) == ["3.1", "3.2", "3.3", "3.4"]  # oldest first, whatever the order asked
    assert runs["3.1"]["status"] == "not-installable" and "older than 3.2" in runs["3.1"]["reason"]
    assert runs["3.4"]["status"] == "not-installable" and "gcc" in runs["3.4"]["reason"]
    assert runs["3.2"]["status"] == runs["3.3"]["status"] == "measured"
    assert (report / "nltk" / "3.2" / "results.jsonl").is_file() and (report / "nltk" / "3.3" / "summary.md").is_file()
    behaviours = {b["id"]: b for b in summary["behaviours"]}
    # nltk-segment-totals-floor's example is two segments each equal to its reference: BLEU is 1 by definition,
    # which the fake 3.2 answers (pass); the fake 3.3 divides by zero (error) -- a change, never the floor itself
    floor = behaviours["discrepancy-nltk-segment-totals-floor"]
    assert floor["kind"] == "discrepancy" and floor["shows"] == [] and floor["first"] is None
    assert floor["answers"]["3.2"] == "pass" and floor["answers"]["3.3"].startswith("error")
    assert [(c["before"], c["after"], c["was"]) for c in floor["changes"]] == [("3.2", "3.3", "pass")]
    # nltk-test-doctest-no-alignment: BLEU-1 with no unigram in common is 0; answering 1 (3.2) deviates,
    # and so does the error (3.3): first 3.2, last 3.3
    no_alignment = behaviours["nltk-test-doctest-no-alignment"]
    assert (no_alignment["first"], no_alignment["last"]) == ("3.2", "3.3")
    assert no_alignment["answers"]["3.2"].startswith("fail 1 ")
    page = (report.parent / "history.md").read_text()
    assert "## nltk" in page and "| group | 3.2 | 3.3 |" in page
    assert "- 3.4: not-installable" in page and "gcc" in page


def test_history_lists_its_versions_and_refuses_a_bad_one(tmp_path, capsys):
    assert command.run(arguments(tmp_path, None, list=True)) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0] == "nltk 3.2\tPython 3.6" and listed[-1] == "nltk 3.10.4\tPython 3.12"
    from oracle.formulas.errors import BleuValueError

    with pytest.raises(BleuValueError, match="not a release number"):
        command.run(arguments(tmp_path, "3.2,latest", list=True))
    with pytest.raises(BleuValueError, match="unknown implementation 'nope'; known: oracle, nltk,"):
        command.run(arguments(tmp_path, None, name="nope", list=True))
    with pytest.raises(BleuValueError, match="`history` knows nltk, promptfoo, sacrebleu, torchmetrics"):
        command.run(arguments(tmp_path, None, name="metrax", list=True))


def test_nothing_installable_is_exit_3(envs, tmp_path):
    assert command.run(arguments(tmp_path, "3.4"), envs) == 3


def test_the_page_counts_a_group_per_version_and_names_each_discrepancys_range():
    runs = (VersionRun(version="1", status="measured"), VersionRun(version="2", status="measured"),
            VersionRun(version="3", status="not-installable", reason="no wheel"))
    behaviour = pages.Behaviour(id="discrepancy-x-tiny", kind="discrepancy", group="tiny", answers={"1": "pass",
                                "2": "fail 0.0008 (tiny)"}, shows=("2",), first="2", last="2",
                                changes=(pages.Change(before="1", after="2", was="pass", became="fail 0.0008 (tiny)"),))
    history = pages.LibraryHistory(library="x", profile="nltk", versions=runs, behaviours=(behaviour,),
                                   passing_everywhere=5)
    assert pages.grid(history) == [("discrepancy: tiny", [0, 1])]
    page = pages.render_markdown([history])
    assert "| discrepancy: tiny | . | 1 |" in page
    assert "| x-tiny | 2 | 2 | 1 -> 2: `pass` -> `fail 0.0008 (tiny)` |" in page
    assert "- 3: not-installable: no wheel" in page


@pytest.mark.slow
def test_real_nltk_releases_show_pr_1844_between_3_2_5_and_3_3(tmp_path):
    """nltk PR #1844 (merged, released in 3.3) put sys.float_info.min in place of a zero precision. Discrepancy
    nltk-method0-tiny's example is 'a b' against 'b a' with weights (0.5, 0.01): p1 = 2/2, p2 = 0/1, BP = 1. By
    hand: 3.2.5 drops the zero precision, exp(0.5 ln 1) = 1; 3.3 gives (2.2250738585072014e-308 ** 0.01) =
    exp(0.01 * -708.3964) = 8.3844e-4. Installs two releases under Python 3.6 (cached environments reused)."""
    import math

    if environments.find_python("3.6") is None:
        pytest.skip("Python 3.6 is not on this machine (pyenv install 3.6)")
    args = arguments(tmp_path, "3.2.5,3.3")
    assert command.run(args) == 0
    summary = json.loads((Path(args.report) / "nltk.json").read_text())
    tiny = {b["id"]: b for b in summary["behaviours"]}["discrepancy-nltk-method0-tiny"]
    assert (tiny["first"], tiny["last"]) == ("3.3", "3.3")
    before, after = (tiny["answers"][v].split()[1] for v in ("3.2.5", "3.3"))
    assert float(before) == pytest.approx(1.0, rel=1e-9)
    assert float(after) == pytest.approx(math.exp(0.01 * math.log(2.2250738585072014e-308)), rel=1e-9)
    assert float(after) == pytest.approx(8.3844e-4, rel=1e-4)


def test_doctor_names_the_nltk_releases_whose_segment_floor_reproduces_a_number(tmp_path, capsys):
    """Two segments, each equal to its reference ('a b'; 'c d e f g h'). With nltk's floor of 1 on each segment's
    n-gram total, order 3 counts 4 matches of 0 + 4 -> 1 + 4 = 5 n-grams and order 4 counts 3 of 1 + 3 = 4 (orders 1
    and 2 match fully), so BLEU = (1 * 1 * 4/5 * 3/4) ** (1/4) = 0.6 ** 0.25 = 0.88011 (by hand); the committed
    history (reports/history/nltk.json) shows that floor in nltk 3.2.5 .. 3.10.4 of the releases measured."""
    from oracle.doctor import history as doctor_history
    from oracle.doctor.diagnosis import diagnose_files

    (tmp_path / "hyp.txt").write_text("a b\nc d e f g h\n")
    (tmp_path / "ref.txt").write_text("a b\nc d e f g h\n")
    assert 0.6 ** 0.25 == pytest.approx(0.88011, abs=1e-5)
    report = diagnose_files(tmp_path / "hyp.txt", [tmp_path / "ref.txt"], numbers=["0.88011"])
    floored = [e for e in report.numbers[0].explanations
               if e.profile == "nltk" and e.conventions == {"segment_totals_floor": "1"} and e.tokenize == "none"]
    assert floored and floored[0].versions is not None
    assert floored[0].versions.startswith("nltk 3.2.5 .. 3.10.4 (of the measured 3.2 .. 3.10.4")
    unchanged = [e for e in report.numbers[0].explanations if not e.conventions]
    assert all(e.versions is None for e in unchanged)
    assert doctor_history.versions_for("papineni", {"segment_totals_floor": "1"}) is None  # no such library's data


def test_index_html_has_a_section_across_released_versions():
    """The section's template renders a history (one of two measured releases deviating, a cited change between
    them), escaped; without histories it is empty; the committed index.html has it from reports/history/."""
    from oracle.reports.site.pages import environment

    runs = (VersionRun(version="1.0", status="measured"), VersionRun(version="2.0", status="measured"))
    behaviour = pages.Behaviour(id="discrepancy-x-tiny", kind="discrepancy", group="tiny",
                                answers={"1.0": "pass", "2.0": "fail 0.5 (tiny)"}, shows=("2.0",), first="2.0",
                                last="2.0", changes=(pages.Change(before="1.0", after="2.0", was="pass",
                                                                  became="fail 0.5 (tiny)"),))
    history = pages.LibraryHistory(library="x<y", profile="nltk", versions=runs, behaviours=(behaviour,),
                                   citations=(pages.Citation(before="1.0", after="2.0", text="PR `#1`"),))
    template = environment().get_template("history.html.j2")
    page = template.render(histories=[history], grid=pages.grid)
    assert '<h2 id="history">' in page and "x&lt;y" in page and "<code>#1</code>" in page
    assert "<tr><td>discrepancy: tiny</td><td class=\"num\">·</td><td class=\"num\">1</td></tr>" in page
    assert template.render(histories=[], grid=pages.grid).strip() == ""
    committed = (ROOT / "reports" / "index.html").read_text(encoding="utf-8")
    assert '<h3 id="history-nltk">' in committed and '<h3 id="history-sacrebleu">' in committed


def test_an_npm_library_is_driven_by_node_from_its_unpacked_tarball(envs):
    """promptfoo's releases are npm tarballs, unpacked into NAME-VERSION/package and driven by node running the
    npm driver with the release's handshake (a TypeScript library, judged as papineni)."""
    promptfoo = environments.LIBRARIES["promptfoo"]
    argv = envs.driver_argv(promptfoo, "0.100.0")
    assert argv[1].endswith("drivers/npm_bleu.js") and argv[2] == "promptfoo"
    assert argv[3] == str(envs.where / "promptfoo-0.100.0" / "package")
    handshake = json.loads(argv[4])
    assert handshake["implementation"] == {"name": "promptfoo", "version": "0.100.0", "language": "typescript"}
    assert promptfoo.python_for("0.123.1") == "node" and command.runtime("node") == "node"


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="node is not installed")
def test_an_old_promptfoo_layout_is_loaded_as_common_js(tmp_path):
    """promptfoo before its bundle shipped dist/src/assertions/bleu.js requiring ./ngrams and its own invariant
    helper: the npm driver loads it with its sibling and a stand-in for the helper, and answers what it returns."""
    import subprocess

    assertions = tmp_path / "package" / "dist" / "src" / "assertions"
    assertions.mkdir(parents=True)
    (assertions / "ngrams.js").write_text('"use strict";\nexports.half = (x) => x / 2;\n')
    (assertions / "bleu.js").write_text(
        '"use strict";\nconst invariant_1 = require("../util/invariant");\nconst ngrams_1 = require("./ngrams");\n'
        "exports.calculateBleuScore = (candidate, references) => ngrams_1.half(candidate.split(' ').length);\n")
    handshake = environments.LIBRARIES["promptfoo"].handshake("0.100.0")
    argv = ["node", str(ROOT / "oracle" / "adapters" / "drivers" / "npm_bleu.js"), "promptfoo",
            str(tmp_path / "package"), json.dumps(handshake)]
    request = {"cmd": "score", "seq": 1, "level": "sentence", "weights": [0.25] * 4, "smoothing": {"method": "none"},
               "lowercase": True, "segments": [{"hypothesis": ["a", "b", "c"], "references": [["a"]]}]}
    done = subprocess.run(argv, input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout.splitlines()[-1]) == {"seq": 1, "score": 1.5}  # three tokens, halved
