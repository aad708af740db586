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
