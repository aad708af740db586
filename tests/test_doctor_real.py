"""`doctor` on numbers real tools printed on real files (tests/doctor_data/wmt17.json, built by
tests/doctor_data/make.py from sacrebleu's CLI, multi-bleu.perl, mteval-v13a.pl, nltk, torchmetrics and
sacrebleu's sentence_bleu averaged, run on WMT17 systems): each number's explanations must list the reading
the tool actually used, and the waterfall between two tools' numbers must add up to their difference.

The expected readings come from the tools' own code and documentation (the fixture's `why`), never from the
oracle. One system runs by default; the other two, and the check that the fixture is what the tools print
now, are slow.

Holds: oracle.doctor.diagnosis, oracle.doctor.waterfall
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from oracle.cli import main
from oracle.doctor import model

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wmt17-en-de"
FIXTURE = json.loads((Path(__file__).parent / "doctor_data" / "wmt17.json").read_text(encoding="utf-8"))
SYSTEMS = sorted({entry["system"] for entry in FIXTURE["numbers"]}, key=lambda s: ("online-B" not in s, s))
#: float noise allowed when adding up the waterfall's steps (0-100 scale)
ADDS_UP = 1e-9

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the WMT17 files are not available ({DATA} is absent)")


def _entries(system: str) -> list:
    return [entry for entry in FIXTURE["numbers"] if entry["system"] == system]


def _signatures(system: str) -> list:
    return [entry for entry in FIXTURE["signatures"] if entry["system"] == system]


def _doctor_json(system: str) -> dict:
    """`bleu-oracle doctor --json` with every number and signature the tools printed for `system` (one run)."""
    entries = _entries(system)
    argv = ["doctor", "--hyp", str(DATA / system), "--ref", str(DATA / entries[0]["reference"]), "--json"]
    for entry in entries:
        argv += ["--number", entry["number"]]
    for entry in _signatures(system):
        argv += ["--signature", entry["signature"]]
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    return {"exit": code, "report": json.loads(out.getvalue())}


@pytest.fixture(scope="module")
def online_b() -> dict:
    return _doctor_json(SYSTEMS[0])


def _check_numbers(system: str, result: dict) -> None:
    report = result["report"]
    assert result["exit"] == 0, [n["given"] for n in report["numbers"] if not n["explained"]]
    Draft202012Validator(model.json_schema()).validate(report)
    for entry, number in zip(_entries(system), report["numbers"], strict=True):
        want = entry["reading"]
        assert number["given"] == entry["number"]
        found = [
            e
            for e in number["explanations"]
            if (e["profile"], e["tokenize"], e["lowercase"]) == (want["profile"], want["tokenize"], want["lowercase"])
            and set(e["conventions"].items()) <= set(want["conventions"].items())
            and e["match"] == "digits"
        ]
        assert found, (
            entry["tool"],
            entry["command"],
            entry["number"],
            want,
            [(e["profile"], e["tokenize"], e["lowercase"], e["conventions"]) for e in number["explanations"][:8]],
        )


def _check_waterfalls(system: str, result: dict) -> None:
    """The first number is sacrebleu's; each other tool's number is reached from it one convention at a time."""
    report = result["report"]
    entries = _entries(system)
    half = {n["given"]: n["half_unit"] * (100 if n["value"] <= 1 else 1) for n in report["numbers"]}
    tools = {entry["number"]: entry["tool"] for entry in entries}
    across = [d for d in report["differences"] if d["target"] in tools and tools[d["target"]] != tools[d["source"]]]
    assert {tools[d["target"]] for d in across} >= {"multi-bleu.perl", "mteval-v13a.pl", "nltk", "torchmetrics",
                                                     "sacrebleu sentence_bleu, averaged"}
    for difference in across:
        steps = difference["steps"]
        assert abs(sum(step["delta"] for step in steps) - difference["computed"]) <= ADDS_UP, difference
        assert abs(difference["end_score"] - difference["start_score"] - difference["computed"]) <= ADDS_UP
        if steps:
            assert abs(steps[-1]["score"] - difference["end_score"]) <= ADDS_UP
        # both ends reproduce their numbers, so the printed difference is the computed one up to the rounding
        bound = half[difference["source"]] + half[difference["target"]] + 1e-9 * (1 + abs(difference["given"]))
        assert abs(difference["given"] - difference["computed"]) <= bound, difference


def _check_signatures(system: str, result: dict) -> None:
    for entry, signature in zip(_signatures(system), result["report"]["signatures"], strict=True):
        reading = signature["reading"]
        want = entry["reading"]
        assert (reading["profile"], reading["tokenize"], reading["lowercase"]) == (
            want["profile"], want["tokenize"], want["lowercase"])
        assert signature["references"] == 1
        # sacrebleu printed the score with one decimal
        assert f"{reading['score']:.1f}" == entry["number"], (entry["printed"], reading["score"])


def test_every_tool_reading_is_among_the_explanations_of_its_number(online_b):
    _check_numbers(SYSTEMS[0], online_b)


def test_the_waterfall_between_two_tools_adds_up_to_their_difference(online_b):
    _check_waterfalls(SYSTEMS[0], online_b)


def test_a_sacrebleu_signature_is_read_back_and_computed(online_b):
    _check_signatures(SYSTEMS[0], online_b)


def test_the_fixture_covers_every_tool_the_issue_names():
    tools = {entry["tool"] for entry in FIXTURE["numbers"]}
    assert tools == {"sacrebleu", "multi-bleu.perl", "mteval-v13a.pl", "nltk", "torchmetrics",
                     "sacrebleu sentence_bleu, averaged"}
    sacrebleu = {
        (e["reading"]["tokenize"], e["reading"]["lowercase"]) for e in FIXTURE["numbers"] if e["tool"] == "sacrebleu"
    }
    assert sacrebleu == {(t, lc) for t in ("13a", "intl", "char", "none") for lc in (False, True)}
    multi_bleu = {e["reading"]["tokenize"] for e in FIXTURE["numbers"] if e["tool"] == "multi-bleu.perl"}
    assert multi_bleu == {"none", "13a"}


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS[1:])
def test_the_other_systems_too(system):
    """online-A (a byte-order mark the tools keep) and PROMT-Rule-based (no-break spaces, where the split rules
    of the Perl scripts and Python differ)."""
    result = _doctor_json(system)
    _check_numbers(system, result)
    _check_waterfalls(system, result)
    _check_signatures(system, result)


@pytest.mark.slow
@pytest.mark.heavy  # six real tools on three whole WMT17 systems: minutes (CI runs it)
def test_the_fixture_is_what_the_tools_print_now():
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "doctor_data" / "make.py"), "--check"],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
