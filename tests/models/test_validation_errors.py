"""oracle/models/errors.py: one wording for validation errors, and the line of the node each is about.

The protocol's messages are checked word for word in tests/models/test_protocol.py and the case files' in
tests/suite/test_cases.py; here, the parts: a location as a field's path, the line of a YAML node (`line_at`, read
through the case-file loader), problems a validator words itself, several at once, and the two dialects
speaking the same sentences.

Holds: oracle.models.errors, oracle.suite.caseformat
"""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict, PlainValidator, ValidationError, model_validator

from oracle.models.case import CASE_FILE, CaseFile
from oracle.models.errors import Dialect, explain, explain_all, field_path, line_at, problem, raise_all, sentence
from oracle.models.protocol import ProtocolError, ScoreRequest
from oracle.suite.caseformat import read_yaml

DOCUMENT = """\
document: Doc
cases:
  - id: one
    expect:
      statistics:
        precisions:
          2: "1/2"
    options: {weights: [1, 2]}
    segments:
      - [a, b]
      -
        - c
        - d
"""


@pytest.fixture()
def document(tmp_path):
    path = tmp_path / "doc.yaml"
    path.write_text(DOCUMENT, encoding="utf-8")
    return read_yaml(path)


def test_a_location_is_written_as_a_fields_path():
    assert field_path(("input", "segments", 0, "hypothesis", 3)) == "input.segments[0].hypothesis[3]"
    assert field_path(("expect", "statistics", "precisions", "2")) == "expect.statistics.precisions.2"
    assert field_path(()) == ""


def test_the_line_of_a_node_is_its_keys_or_its_items(document):
    # counted by hand in DOCUMENT above
    assert line_at(document, ("document",)) == 1
    assert line_at(document, ("cases", 0)) == 3
    assert line_at(document, ("cases", 0, "options", "weights", 1)) == 8  # a flow list: its items share the line
    assert line_at(document, ("cases", 0, "segments", 1)) == 12  # an item whose list starts below its dash
    assert line_at(document, ("cases", 0, "segments", 1, 1)) == 13


def test_the_line_of_a_mapping_as_a_whole_is_its_first_line_not_its_keys(document):
    assert line_at(document, ("cases", 0, "expect")) == 4
    assert line_at(document, ("cases", 0, "expect"), whole=True) == 5
    assert line_at(document, ("cases", 0, "expect", "statistics", "precisions"), whole=True) == 7


def test_a_missing_field_is_at_the_line_of_the_mapping_that_lacks_it(document):
    assert line_at(document, ("cases", 0, "expect", "score")) == 5
    assert line_at(document, ("cases", 0, "title")) == 3
    assert line_at(document, ("seed",)) == 1


def test_an_n_gram_order_named_as_text_finds_its_integer_key(document):
    assert line_at(document, ("cases", 0, "expect", "statistics", "precisions", "2")) == 7


def test_a_document_without_lines_has_none():
    assert line_at({"a": [1, 2]}, ("a", 1)) is None
    assert line_at(None, ("a",)) is None


class _Pair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    low: Annotated[int, PlainValidator(lambda v: v if isinstance(v, int) else _refuse(v))]
    high: int

    @model_validator(mode="after")
    def _ordered(self):
        raise_all("pair", [(("low",), problem(f"must not exceed `high` (got {self.low} > {self.high})"), self.low),
                           ((), sentence("a pair is two numbers in order", whole=True), None)]
                  if self.low > self.high else [])
        return self


def _refuse(value):
    raise problem(f"must be a whole number (got {value!r})")


DIALECT = Dialect(top="a pair", show=repr, mapping="a mapping", sequence="a list")


def _messages(data):
    with pytest.raises(ValidationError) as info:
        _Pair.model_validate(data)
    return [explain(error, DIALECT, _Pair) for error in info.value.errors()]


def test_problems_a_validator_words_follow_the_path_and_sentences_stand_alone():
    assert _messages({"low": "x", "high": 1}) == ["`low` must be a whole number (got 'x')"]
    assert _messages({"low": 3, "high": 1}) == ["`low` must not exceed `high` (got 3 > 1)",
                                                "a pair is two numbers in order"]


def test_pydantics_own_errors_in_the_shared_words():
    assert _messages({"low": 1}) == ["`high` is required in a pair"]
    assert _messages({"low": 1, "high": 2, "mid": 3}) == [
        "unknown field `mid` in a pair (its fields are `low`, `high`)"
    ]
    assert _messages([1, 2]) == ["a pair must be a mapping (got [1, 2])"]
    assert _messages({"low": 1, "high": "two"}) == ["`high` must be an integer (got 'two')"]


def test_explain_all_gives_each_error_its_line_in_file_order(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("document: Doc\ncases:\n  - id: Bad_Id\n    kind: value\n  - id: ok\n", encoding="utf-8")
    data = read_yaml(path)
    with pytest.raises(ValidationError) as info:
        CaseFile.model_validate(data)
    explained = explain_all(info.value, CASE_FILE, CaseFile, data)
    assert [e.line for e in explained] == sorted(e.line for e in explained)
    first = explained[0]
    assert first.line == 3 and first.message.startswith("`id` must be lowercase letters")
    assert ("`title` is required in a case", 5) in [(e.message, e.line) for e in explained]


def test_the_protocol_and_the_case_files_say_the_same_thing_the_same_way(tmp_path):
    """An unknown field and a missing one, in a score command and in a case file: one sentence each."""
    with pytest.raises(ProtocolError, match=r"unknown field `colour` in a 'score' command \(its fields are `cmd`"):
        ScoreRequest.from_json({"cmd": "score", "seq": 1, "level": "corpus", "segments": [], "weights": [1],
                                "smoothing": {"method": "none"}, "lowercase": False, "colour": "blue"})
    path = tmp_path / "bad.yaml"
    path.write_text("document: Doc\ncolour: blue\n", encoding="utf-8")
    data = read_yaml(path)
    with pytest.raises(ValidationError) as info:
        CaseFile.model_validate(data)
    messages = [e.message for e in explain_all(info.value, CASE_FILE, CaseFile, data)]
    assert messages == [
        "`cases` is required in a case file",
        "unknown field `colour` in a case file (its fields are `document`, `seed`, `found_by`, `cases`)",
    ]
