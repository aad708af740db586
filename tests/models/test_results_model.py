"""The results.jsonl line models: the committed schema is generated from them, and what the writer
writes validates against that schema with an independent validator (jsonschema).

Holds: oracle.models.results, oracle.harness.events
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError
from pydantic._internal._mock_val_ser import MockValSer

from oracle.harness.events import ResultsWriter, read_results
from oracle.models import results
from oracle.models.protocol import ScoreRequest
from oracle.models.results import Footer, Header, Record, ResultsFormatError, parse_line
from oracle.textio import read_lines

HEADER = {
    "suite_version": "1",
    "oracle_version": "0",
    "settings": {"verb": "check"},
    "started": "2026-01-01T00:00:00+00:00",
    "implementation": {"name": "x", "version": "1", "language": "c"},
    "profile": "nltk",
    "judged_profile": "nltk",
}
RECORD = {
    "id": "random-0-1",
    "kind": "example",
    "outcome": "fail",
    "layer": "ref_len",
    "message": "ref_len: expected 3, got 4",
}
FOOTER = {"counts": {"fail": 1}, "baseline": {}, "gate": "fail", "exit_code": 1, "duration": 0.5,
          "finished": "2026-01-01T00:00:01+00:00"}


def test_the_committed_schema_is_the_generated_one():
    assert results.SCHEMA_PATH.read_text(encoding="utf-8") == results.render_schema(), (
        "run `python -m oracle.models.results`")
    Draft202012Validator.check_schema(results.json_schema())


def test_written_lines_validate_against_the_schema(tmp_path):
    path = tmp_path / "results.jsonl"
    record = Record(**RECORD)
    with ResultsWriter(path) as writer:
        writer.write(Header(**HEADER))
        writer.write(record)
        writer.write(Footer(**FOOTER))
    validator = Draft202012Validator(results.json_schema())
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
    assert [line["type"] for line in lines] == ["header", "record", "footer"]
    for line in lines:
        assert validator.is_valid(line), list(validator.iter_errors(line))
    # what is unset is left out of the line (it reads back as its default)
    assert set(lines[1]) == {"type", *RECORD, "title", "stderr", "duration"}
    assert read_results(path).records == [record]


@pytest.mark.parametrize("kind,fields,message", [
    ("record", {**RECORD, "outcome": "wrong"}, "`outcome`"),
    ("record", {k: v for k, v in RECORD.items() if k != "id"}, "`id`: Field required"),
    ("footer", {**FOOTER, "gate": "maybe"}, "`gate`"),
])
def test_a_malformed_line_is_refused_naming_the_field(kind, fields, message):
    with pytest.raises(ResultsFormatError, match=message):
        parse_line({"type": kind, **fields}, where="results.jsonl:2")
    with pytest.raises(ValidationError):  # and no such line can be built to be written
        results.LINE_MODELS[kind](**fields)


_BUILT_AT_IMPORT = """
import sys
from pydantic import BaseModel
from pydantic._internal._mock_val_ser import MockValSer
import oracle.commands.check, oracle.commands.serve, oracle.harness.worker_process, oracle.adapters.server
def models(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from models(sub)
ours = {model for model in models(BaseModel) if model.__module__.startswith("oracle.")}
print(len(ours), sorted(model.__qualname__ for model in ours
                         if not isinstance(model.__dict__.get("__pydantic_validator__"), MockValSer)))
"""


def test_importing_check_and_serve_builds_no_model_each_is_built_on_first_use():
    """The models' validators and serializers are built when first used (`defer_build`, oracle/models/__init__.py),
    so a process pays for the few it uses, not for every model its imports define."""
    done = subprocess.run([sys.executable, "-c", _BUILT_AT_IMPORT], capture_output=True, text=True, timeout=120,
                          check=True)
    count, built = done.stdout.split(" ", 1)
    # none: not even CaseOptions (`Case.options` has an instance as its default, made, so built, as Case is defined),
    # since none of these modules imports the case model (a run with cases imports it when it reads them)
    assert int(count) > 45 and built.strip() == "[]", done.stdout
    request = ScoreRequest.model_validate({"cmd": "score", "level": "corpus", "weights": [1.0],
                                           "segments": [{"hypothesis": ["a"], "references": [["a"]]}]})
    assert request.segments[0].hypothesis == ("a",) and not isinstance(ScoreRequest.__pydantic_validator__, MockValSer)


# -- a root cause's parts: read where a line is read, written joined (issue 36: no parsing of names above the models)

#: A combined name of three mechanisms, two of them with `=` (a convention, a smoothing family's member with its
#: parameter): written joined by " + " (docs/mechanisms.md), read back into exactly these parts.
PARTS = ("reference_length=closest-first", "smoothing=floor(value=1/10)", "float32")
FIT = ("token_split=ascii", "line_padding=none")


def test_a_combined_name_survives_a_json_round_trip_as_its_parts(tmp_path):
    """Built from parts, a classification writes its name and fits joined, never its parts; read back from the
    results.jsonl line (the JSON boundary), it holds the same parts again; the footer's causes likewise."""
    written_name = "reference_length=closest-first + smoothing=floor(value=1/10) + float32"  # (joined by hand)
    record = Record(**RECORD, classification=results.Classification(parts=PARTS, fit_parts=(FIT,)))
    assert record.classification.name == written_name
    assert record.classification.fits == ("token_split=ascii + line_padding=none",)
    footer = Footer(**{**FOOTER, "causes": [results.RunCause(parts=PARTS, records=1, alternative_parts=(FIT,))]})
    with ResultsWriter(tmp_path / "results.jsonl") as writer:
        writer.write(Header.model_validate(HEADER))
        writer.write(record)
        writer.write(footer)
    line = json.loads(list(read_lines(tmp_path / "results.jsonl"))[1])
    assert line["classification"]["name"] == written_name and "parts" not in line["classification"]
    assert "fit_parts" not in line["classification"]
    read = read_results(tmp_path / "results.jsonl")
    classification = read.records[0].classification
    assert classification.parts == PARTS and classification.fit_parts == (FIT,)
    assert classification.signature_parts == (PARTS, FIT)
    assert read.footer.causes[0].parts == PARTS and read.footer.causes[0].name == written_name
    assert read.footer.causes[0].alternative_parts == (FIT,)
    footer_line = json.loads(list(read_lines(tmp_path / "results.jsonl"))[2])
    assert footer_line["causes"] == [{"name": written_name, "records": 1,
                                      "alternatives": ["token_split=ascii + line_padding=none"], "documented": []}]


def test_a_cause_is_its_parts_and_its_name_is_written_from_them():
    """The parts are the only data: a copy whose parts change (pydantic's model_copy, which does not validate) is
    named by its new parts, and a model given a name is given parts (read from it), never both."""
    first = results.Classification(name="strict-clipping", fits=["a + b"])
    assert first.parts == ("strict-clipping",) and first.fit_parts == (("a", "b"),)
    renamed = first.model_copy(update={"parts": PARTS, "description": "x"})
    assert renamed.name == " + ".join(PARTS) and renamed.fits == ("a + b",) and renamed.description == "x"
    refitted = first.model_copy(update={"fit_parts": (FIT,)})
    assert refitted.fits == ("token_split=ascii + line_padding=none",) and refitted.name == "strict-clipping"
    assert refitted.model_dump(mode="json", by_alias=True)["fits"] == ["token_split=ascii + line_padding=none"]
    cause = results.RunCause(name="a + b", alternatives=["c"], records=2)
    assert cause.parts == ("a", "b") and cause.alternative_parts == (("c",),)
    assert cause.model_copy(update={"alternative_parts": (PARTS,)}).alternatives == (" + ".join(PARTS),)


@pytest.mark.parametrize("model,fields", [
    (results.Classification, {"name": "a", "parts": ("b",)}),
    (results.Classification, {"parts": ("a",), "fits": ["b"], "fit_parts": (("b",),)}),
    (results.RunCause, {"name": "a", "parts": ("a",), "records": 1}),
    (results.RunCause, {"parts": ("a",), "records": 1, "alternatives": ["b"], "alternative_parts": (("b",),)}),
])
def test_a_cause_given_both_written_and_as_parts_is_refused(model, fields):
    """Built from both, the one not read would be kept as an unknown field and written into the line beside it."""
    with pytest.raises(ValidationError, match="give one of them, not both"):
        model(**fields)


@pytest.mark.parametrize("classification,where", [
    ({"name": ["a", "b"]}, "`classification.name`"),
    ({"name": 3}, "`classification.name`"),
    ({"name": "a", "fits": [["b"]]}, "`classification.fits`"),
])
def test_a_cause_not_written_as_a_string_is_refused_naming_the_field(classification, where):
    """A line holds a cause as its written name: a list (parts, as the models keep them) is not a line's."""
    with pytest.raises(ResultsFormatError, match=where):
        parse_line({"type": "record", **RECORD, "classification": classification}, where="results.jsonl:2")


def test_a_baseline_cause_and_a_curated_class_hold_their_parts():
    from oracle.models.baseline import BaselineEntry
    from oracle.models.discrepancy import Discrepancy

    entry = BaselineEntry.model_validate({"id": "cause:" + " + ".join(PARTS), "outcome": "fail"})
    assert entry.cause_parts == PARTS and "cause_parts" not in entry.model_dump()
    assert BaselineEntry.model_validate({"id": "random:fail", "outcome": "fail"}).cause_parts == ()
    from oracle.diagnose import discrepancies

    curated = discrepancies.models()[0]
    assert isinstance(curated, Discrepancy) and curated.classify_parts == (curated.classify,)
    assert "classify_parts" not in curated.model_dump()


def test_a_copy_keyed_by_a_written_name_is_refused():
    # pydantic's model_copy validates nothing: `update={"name": ...}` would be kept as an unknown field beside the
    # parts, the copy's `name` reading the parts ("error") and its line writing the other ("error-when-a")
    classification = results.Classification(name="error")
    with pytest.raises(TypeError, match="update `parts`"):
        classification.model_copy(update={"name": "error-when-a"})
    copy = classification.model_copy(update={"parts": ("error-when-a",)})
    assert copy.name == "error-when-a" and copy.model_dump()["name"] == "error-when-a"


def test_a_shrinks_stop_reasons_are_one_list():
    """`Shrunk.stopped_by`'s Literal (the schema's enum) and STOPPED_REASONS (what the shrinker and the summaries
    name) spell the same five reasons."""
    from typing import get_args  # noqa: PLC0415 - only here

    assert set(get_args(results.StoppedBy)) == set(results.STOPPED_REASONS)
