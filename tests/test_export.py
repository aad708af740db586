"""`bleu-oracle cases export`: a language-neutral suite that validates against its own schema (checked with an
independent validator), carries every case under each of its profiles, and says what it leaves out."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from oracle.cli import main
from oracle.models import export
from oracle.suite.cases import load_cases


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    assert main(["cases", "export", "--out", str(out)]) == 0
    return out


def test_the_committed_schema_is_the_generated_one():
    assert export.SCHEMA_PATH.read_text(encoding="utf-8") == export.render_schema(), (
        "run `python -m oracle.models.export`"
    )


def test_the_export_validates_against_the_schema_written_beside_it(exported):
    schema = json.loads((exported / "suite.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    suite = json.loads((exported / "suite.json").read_text(encoding="utf-8"))
    assert not list(Draft202012Validator(schema).iter_errors(suite))
    assert suite["format"] == "bleu-oracle-suite/1"


def test_every_case_and_profile_is_exported_or_left_out_with_a_reason(exported):
    suite = json.loads((exported / "suite.json").read_text(encoding="utf-8"))
    pairs = {(c.id, p) for c in load_cases() for p in c.profiles}
    exported_pairs = {(c["id"], c["profile"]) for c in suite["cases"]}
    left = {(c["id"], c["profile"]) for c in suite["left_out"]}
    assert exported_pairs | left == pairs and not exported_pairs & left
    assert all("protocol v1" in c["reason"] for c in suite["left_out"])  # infinite and NaN weights


def test_a_documented_value_travels_with_its_tolerance(exported):
    suite = json.loads((exported / "suite.json").read_text(encoding="utf-8"))
    [case] = [c for c in suite["cases"] if c["id"] == "matlab-summary-bleu4"]
    # the MATLAB page prints 0.7825: printed with half a unit of the last digit
    assert case["printed"]["score"] == 0.7825 and case["printed"]["tolerance"] == pytest.approx(0.00005)
    assert abs(case["expected"]["score"] - 0.7825) <= 0.00005
    assert case["conventions"]["weight_normalisation"] == "normalise" and case["profile"] == "matlab"
    assert case["request"]["level"] == "sentence" and "cmd" not in case["request"]
    assert "bleuEvaluationScore" in case["source"]["document"] or case["source"]["quote"]
