"""A case file and its cases, as pydantic models: the one description of the format.

A case file (`oracle/suite/data/*.yaml`, described in `oracle.suite.cases`) holds the cases taken from one
source document: each states an input, the profiles whose documented behaviour it states, and what the
document prints (a score, some statistics, or that the input is invalid). The loader (`oracle.suite`)
reads the YAML, keeping each node's line, and these models validate it: every field is described here,
every number is exact (a `Fraction` from a fraction string such as "3/5", a `Decimal` from a number as
written), and what ties fields together is checked by validators (a kind's required fields, a smoothing
method's parameters, a tolerance exactly when some expected value is approximate, ids unique in a file).
`file_errors` turns a validation error into `CaseFileError`s naming file:line, the case id and the field,
in the words the protocol's errors use too (`oracle.models.errors`).

`case.schema.json` is generated from these models (`json_schema`); `python -m oracle.models.case`
rewrites it, and a test fails when the committed file is not current.

A case gives its protocol-v1 request under a profile: `Case.request_under(profile)`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal, Self

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import InitErrorDetails, PydanticCustomError, core_schema

from oracle.formulas.bounds import MAX_DIGITS
from oracle.formulas.conventions import REQUEST_CONVENTIONS, Options, Smoothing
from oracle.formulas.errors import CaseFileError
from oracle.formulas.profiles import PROFILES, get_profile

from .caseparts import (  # noqa: F401 - the parts of a case, importable from here with the case
    CONVENTION_FIELDS,
    CaseExpect,
    CaseInput,
    CaseOptions,
    CaseSegment,
    CaseSmoothing,
    CaseSource,
    ExpectedStatistics,
    ExplainedBy,
)
from .casevalues import (  # noqa: F401 - the format's vocabulary, importable from here with the case
    FOUND_BY,
    ID_PATTERN,
    KINDS,
    NOT_NULL,
    SEED_PATTERN,
    VOCABULARY,
    CaseId,
    CaseModel,
    HugeNumber,
    OneLine,
    OneOf,
    SeedFile,
    Text,
    listed,
    plain,
    show,
    unique_items,
)
from .errors import Dialect, Loc, explain_all, raise_again_with, raise_all, sentence
from .protocol import ScoreRequest
from .wire import ProtocolError

SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "case.schema.json"
#: Kinds whose expected value is derived, not printed: their `note` says how.
DERIVED_KINDS = ("statement", "document-error")

# -- A case -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseRequest:
    """A case as a protocol-v1 request under one profile, with what the runner needs to judge it."""

    case_id: str
    title: str
    #: None when the case's input cannot be expressed in protocol v1 (`invalid` says why).
    request: ScoreRequest | None
    profiles: tuple[str, ...]
    #: Convention overrides from the case's options (reference_length, ...): the oracle judges under them; those
    #: that differ from the judged profile's travel in the request's `conventions`.
    overrides: dict[str, object] = field(default_factory=dict)
    #: The document's printed expectation (`CaseExpect.printed`); empty for a case found by fuzzing.
    document: dict[str, object] = field(default_factory=dict)
    invalid: str | None = None


class Placed(CaseModel):
    """A model read from a file, which knows where: the loader places it (`at`), for messages and reports."""

    _path: Path | None = PrivateAttr(None)
    _line: int | None = PrivateAttr(None)

    @property
    def path(self) -> Path | None:
        """The file it was read from."""
        return self._path

    @property
    def line(self) -> int | None:
        """The line it starts on."""
        return self._line

    def at(self, path: Path, line: int | None) -> Self:
        """This, placed at `path`:`line`."""
        placed = self.model_copy()
        placed._path, placed._line = path, line
        return placed


class Case(Placed):
    """A documented case: what a source document says BLEU gives for an input under some profiles."""

    id: CaseId = Field(description="Stable, unique across all files, never reused.")
    title: OneLine = Field(description="What the case shows, in one line.")
    source: CaseSource = Field(description="Where the case comes from: the document and its own words.")
    profiles: Annotated[tuple[Annotated[str, OneOf(tuple(PROFILES))], ...], listed("profile names"),
                        AfterValidator(unique_items)] = Field(
        description="Profiles whose documented behaviour the case states; it is checked under each.",
        json_schema_extra={"minItems": 1, "uniqueItems": True})
    kind: Annotated[str, OneOf(KINDS)] = Field(description=(
        "value: the document prints the expected value; statement: the document states a behaviour and the "
        "value is derived (in `note`); document-error: the document is wrong, `expect` holds what is right "
        "and `note` what it says."))
    input: CaseInput = Field(description="What is scored.")
    options: Annotated[CaseOptions, BeforeValidator(lambda value: {} if value is None else value)] = Field(
        default=CaseOptions(), description="The options the case sets; what it leaves out is the judged profile's.")
    expect: CaseExpect = Field(description="What the document says the input gives.")
    explained_by: Annotated[ExplainedBy | None, NOT_NULL] = Field(
        default=None, description="Only in a `found_by` file: the root cause of the implementation's value.")
    note: Annotated[Text | None, NOT_NULL] = Field(default=None, description=(
        "Why decided, the hand arithmetic, what the document got wrong. Required for statement and "
        "document-error."))

    _document: str = PrivateAttr("")
    _found_by: str | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _note_for_a_derived_value(self) -> Self:
        if self.kind in DERIVED_KINDS and self.note is None:
            wrong = " and what the document got wrong" if self.kind == "document-error" else ""
            raise sentence(f"`note` is required in a {self.kind} case: say how its expected value was derived{wrong}",
                           whole=True)
        return self

    # its file's provenance (set by the file)

    @property
    def document(self) -> str:
        """The case file's `document`."""
        return self._document

    @property
    def found_by(self) -> str | None:
        """The case file's `found_by` (None: the case is taken from a seed document)."""
        return self._found_by

    def in_file(self, document: str, seed: str | None, found_by: str | None) -> Case:
        """This case with its file's provenance: a documented case's seed defaults to the file's."""
        source = self.source if found_by or self.source.seed else self.source.model_copy(update={"seed": seed})
        placed = self.model_copy(update={"source": source})
        placed._document, placed._found_by = document, found_by
        return placed

    # what the oracle and a run make of it

    @property
    def level(self) -> str:
        return self.input.level

    def convention_overrides(self) -> dict[str, object]:
        """The convention overrides (Options fields) this case sets."""
        return self.options.overrides()

    def oracle_kwargs(self) -> dict[str, object]:
        """Keyword arguments for `oracle.score` besides hypotheses, references and profile: level, the
        protocol fields the case sets (exact values) and convention overrides."""
        kwargs: dict[str, object] = {"level": self.input.level}
        if self.options.weights is not None:
            kwargs["weights"] = list(self.options.weights)
        if self.options.smoothing is not None:
            kwargs["smoothing"] = self.options.smoothing.as_oracle_argument()
        if self.options.lowercase is not None:
            kwargs["lowercase"] = self.options.lowercase
        kwargs.update(self.convention_overrides())
        return kwargs

    def options_for_oracle(self, profile: str) -> Options:
        """The `Options` the oracle uses for this case under `profile` (the profile, then the overrides)."""
        changes = self.convention_overrides()
        if self.options.lowercase is not None:
            changes["lowercase"] = self.options.lowercase
        options: Options = get_profile(profile).options
        return options.with_changes(**changes) if changes else options

    def _conventions_under(self, profile: str, method: str) -> tuple[dict[str, str], str | None]:
        """(the request conventions this case needs under `profile`, for a request smoothed with `method`;
        why the case cannot be sent, or None): the rules in force under the case's options that differ
        from the profile's, and an override a request cannot carry that changes the profile's."""
        overrides = self.convention_overrides()
        if not overrides:
            return {}, None
        base, judged, smoothing = get_profile(profile).options, self.options_for_oracle(profile), Smoothing(method)
        wanted, own = judged.in_force(self.input.level, smoothing), base.in_force(self.input.level, smoothing)
        conventions = {name: rule for name, rule in wanted.items() if rule != own[name]}
        carried = set(REQUEST_CONVENTIONS) | {"sentence_empty_order", "unsmoothed_empty_order"}
        for name in sorted(set(overrides) - carried):
            if getattr(judged, name) != getattr(base, name):
                return conventions, (f"the case needs {name}={overrides[name]}, a convention a protocol-v1 request "
                                     f"cannot carry (it carries {', '.join(REQUEST_CONVENTIONS)})")
        return conventions, None

    def request_under(self, profile: str) -> CaseRequest:
        """The case as a protocol-v1 request judged under `profile`: options the case leaves out take the
        profile's defaults (uniform weights to its default maximum order, its smoothing, its lowercase).
        `weights`, `smoothing` and `lowercase` travel in the request. Convention overrides whose rule in force
        for this request differs from the profile's travel in its `conventions` (sent only to an implementation
        that can switch them); an override equal to the profile's own changes nothing and travels nowhere, so
        the case applies as any other. An override protocol v1 cannot carry (`REQUEST_CONVENTIONS` says which
        it can) that differs from the profile's makes the request unsendable (`invalid` says why). A case found
        by fuzzing (`found_by`) carries no document expectation: its `expect` is an implementation's value."""
        defaults = get_profile(profile).options
        options = self.options
        n = defaults.default_max_order
        fields: dict[str, object] = {
            "cmd": "score", "seq": 0, "level": self.input.level,
            "segments": [{"hypothesis": list(s.hypothesis), "references": [list(r) for r in s.references]}
                         for s in self.input.segments],
            # float() of an int, Decimal or Fraction; .inf / .nan stay as they are (a case may expect a rejection)
            "weights": [float(w) for w in options.weights] if options.weights is not None else [1.0 / n] * n,
            "smoothing": options.smoothing.protocol_form() if options.smoothing else defaults.smoothing.to_json(),
            "lowercase": defaults.lowercase if options.lowercase is None else options.lowercase,
        }
        smoothing = fields["smoothing"]
        method = smoothing["method"] if isinstance(smoothing, dict) else "none"
        conventions, invalid = self._conventions_under(profile, str(method))
        if conventions:
            fields["conventions"] = conventions
        try:
            request = ScoreRequest.from_json(fields)
        except ProtocolError as exc:
            request, invalid = None, f"the input cannot be expressed in protocol v1: {exc}"
        return CaseRequest(self.id, self.title, request, tuple(self.profiles), self.convention_overrides(),
                           {} if self.found_by else self.expect.printed(), invalid)


# -- A case file ---------------------------------------------------------------------------------


def failed_items(exc: ValidationError, within: Loc = ()) -> set[int]:
    """The indexes of the items of the list at `within` (of the value `exc` is about) that have errors."""
    at = len(within)
    locations = [tuple(error["loc"]) for error in exc.errors()]
    return {index for loc in locations if loc[:at] == within and len(loc) > at
            for index in loc[at:at + 1] if isinstance(index, int)}


def _duplicate_ids(cases: Sequence[tuple[int, Case]]) -> list[tuple[Loc, PydanticCustomError, object]]:
    first: dict[str, int] = {}
    found: list[tuple[Loc, PydanticCustomError, object]] = []
    for index, case in cases:
        if case.id in first:
            found.append(((index,), sentence(f"duplicate case id `{case.id}`", whole=True,
                                             also_at=("cases", first[case.id])), case.id))
        else:
            first[case.id] = index
    return found


def _provenance_problems(cases: Sequence[tuple[int, Case]], found_by: str | None
                         ) -> list[tuple[Loc, PydanticCustomError, object]]:
    """What a case may hold given its file's provenance: `explained_by`, and no seed and no rejection,
    exactly in a file of cases found by fuzzing."""
    found: list[tuple[Loc, PydanticCustomError, object]] = []
    for index, case in cases:
        if found_by is None and case.explained_by is not None:
            found.append(((index, "explained_by"), sentence(
                "`explained_by` belongs to cases found by `bleu-oracle fuzz` (a file with `found_by`); a documented "
                "case states what its document says"), None))
        if found_by is None:
            continue
        if case.explained_by is None:
            found.append(((index,), sentence(
                "`explained_by` is required in a case found by fuzzing: it names the root cause of the "
                "implementation's value (what `cases validate` recomputes)", whole=True), None))
        if case.source.seed is not None:
            found.append(((index, "source", "seed"), sentence(
                "`source.seed` names a seed document; a `found_by` file quotes no document"), case.source.seed))
        if case.expect.rejected:
            found.append(((index, "expect"), sentence(
                "`expect.rejected`: a case found by fuzzing records a value the implementation answered"), None))
    return found


def _errors_as_details(found: Sequence[tuple[Loc, PydanticCustomError, object]]) -> list[InitErrorDetails]:
    return [InitErrorDetails(type=error, loc=loc, input=value) for loc, error, value in found]


class CaseFile(CaseModel):
    """A case file: the cases taken from one source document (or found by fuzzing one implementation)."""

    model_config = ConfigDict(json_schema_extra={
        "not": {"required": ["seed", "found_by"]},
        "if": {"required": ["found_by"]},
        "then": {"properties": {"cases": {"items": {
            "required": ["explained_by"], "properties": {"source": {"not": {"required": ["seed"]}}}}}}},
        "else": {"properties": {"cases": {"items": {"not": {"required": ["explained_by"]}}}}},
    })

    document: OneLine = Field(description=(
        "The source document, one line: a title or a URL (any document, bundled or not)."))
    seed: Annotated[SeedFile | None, NOT_NULL] = Field(default=None, description=(
        "The bundled seed file holding the document (its quotes are checked against it); optional: a case file "
        "of your own cites any document by title or URL in `document` and each case's source. A case may name "
        "another seed in source.seed."))
    found_by: Annotated[Literal["fuzz"] | None, NOT_NULL] = Field(default=None, description=(
        "Instead of `seed`: the cases were found by `bleu-oracle fuzz --write-cases`. Each case's `expect` is the "
        "value an implementation answered (never the oracle's), and `explained_by` names the root cause; `cases "
        "validate` recomputes the oracle under it."))
    cases: Annotated[tuple[Case, ...], listed("cases")] = Field(
        description="The cases, in the order they are run.", json_schema_extra={"minItems": 1})

    @field_validator("found_by")
    @classmethod
    def _not_with_a_seed(cls, found_by: str | None, info: ValidationInfo) -> str | None:
        if found_by is not None and info.data.get("seed") is not None:
            raise sentence("a case file has either `seed` (its source document) or `found_by` (how its cases "
                           "were found), not both")
        return found_by

    @field_validator("cases", mode="wrap")
    @classmethod
    def _cases_of_this_file(cls, raw: object, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
                            ) -> tuple[Case, ...]:
        """Ids unique in the file, each case as its provenance allows, and the file's provenance given to
        each case. A case with problems of its own does not keep the others from being checked: every
        problem of a file is listed at once."""
        try:
            cases: tuple[Case, ...] = handler(raw)
        except ValidationError as exc:
            valid = cls.valid_on_their_own(raw, failed_items(exc))
            found = [*_duplicate_ids(valid), *cls._provenance(valid, info)]
            raise_again_with(exc, _errors_as_details(found))
        raise_all("cases", [*_duplicate_ids(list(enumerate(cases))), *cls._provenance(list(enumerate(cases)), info)])
        document, seed, found_by = info.data.get("document", ""), info.data.get("seed"), info.data.get("found_by")
        return tuple(case.in_file(document, seed, found_by) for case in cases)

    @staticmethod
    def _provenance(cases: Sequence[tuple[int, Case]], info: ValidationInfo
                    ) -> list[tuple[Loc, PydanticCustomError, object]]:
        if "found_by" not in info.data:  # `found_by` has a problem of its own: which rules apply is unknown
            return []
        return _provenance_problems(cases, info.data["found_by"])

    @staticmethod
    def valid_on_their_own(raw: object, failed: set[int]) -> list[tuple[int, Case]]:
        """(index, case) of the raw cases not among `failed` that are valid cases by themselves."""
        out = []
        for index, item in enumerate(raw if isinstance(raw, (list, tuple)) else ()):
            if index not in failed:
                try:
                    out.append((index, Case.model_validate(item)))
                except ValidationError:
                    continue
        return out


class RetiredId(Placed):
    """A retired case id: never to be used again (other tools key their baselines on case ids)."""

    id: CaseId = Field(description="The retired id.")
    reason: Text = Field(description="Why it was retired, and what replaces it.")


class RetiredFile(CaseModel):
    """`retired.yaml`: the retired case ids."""

    retired: tuple[RetiredId, ...] = Field(description="Each retired id and why (the list may be empty).")

    @field_validator("retired")
    @classmethod
    def _listed_once(cls, retired: tuple[RetiredId, ...]) -> tuple[RetiredId, ...]:
        first: dict[str, int] = {}
        found: list[tuple[Loc, PydanticCustomError, object]] = []
        for index, entry in enumerate(retired):
            if entry.id in first:
                found.append(((index, "id"), sentence(f"retired id `{entry.id}` is listed twice",
                                                      also_at=("retired", first[entry.id])), entry.id))
            first.setdefault(entry.id, index)
        raise_all("retired", found)
        return retired


# -- Errors in the project's words, with file:line and case id -----------------------------------------


def _part_of_a_case_file(loc: Loc) -> tuple[int, str] | None:
    """A case's fields are named relative to the case (`input.level`, not `cases[3].input.level`)."""
    return (2, "a case") if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int) else None


CASE_FILE = Dialect(top="a case file", show=show, mapping="a mapping", sequence="a list", part=_part_of_a_case_file)
RETIRED_FILE = Dialect(top="the retired-ids file", show=show, mapping="a mapping", sequence="a list")


def file_errors(exc: ValidationError, model: type[CaseFile] | type[RetiredFile], document: object, path: Path
                ) -> list[CaseFileError]:
    """Every error of validating `document` (read from `path`, its nodes knowing their lines) as `model`:
    each a CaseFileError naming the file, the line of the node, the case id and the field, in the order of
    the file."""
    dialect = CASE_FILE if model is CaseFile else RETIRED_FILE
    out = []
    for explained in explain_all(exc, dialect, model, document):
        also = f" (also at {path}:{explained.also_line})" if explained.also_line is not None else ""
        out.append(CaseFileError(explained.message + also, path=path, line=explained.line,
                                 case_id=_case_id_at(document, explained.loc)))
    return out


def _case_id_at(document: object, loc: Loc) -> str | None:
    """The id of the case `loc` lies in, as written (None: not in a case, or the case names no id)."""
    if _part_of_a_case_file(loc) is None or not isinstance(document, dict):
        return None
    cases = document.get("cases")
    index = loc[1]
    if not isinstance(cases, list) or not isinstance(index, int) or index >= len(cases):
        return None
    item = cases[index]
    case_id = item.get("id") if isinstance(item, dict) else None
    return case_id if isinstance(case_id, str) else None


# -- The JSON Schema, generated -------------------------------------------------------------------------

SCHEMA_DESCRIPTION = (
    "A case file (cases/<document>.yaml) holds the cases taken from one source document; cases/retired.yaml lists "
    "retired case ids. YAML is read with a safe loader only (no aliases, no tags); numbers are exact decimals. "
    "Generated from oracle/models/case.py, whose validators also enforce what a schema cannot: ids unique across "
    "all files and not retired, at most one segment at sentence level, a tolerance exactly when some expected "
    "value is a number, `exact: true` exactly when the score is a fraction string, a smoothing's parameters those "
    "of its method, and a `note` for statement and document-error cases. Every number lies within the bounds of "
    f"oracle/formulas/bounds.py (PROTOCOL.md, \"Bounds\"): at most {MAX_DIGITS} significant digits and, unless it "
    "is 0, a magnitude between 1e-300 and 1e300; at most 100 orders and 1000 references a segment.")


class _CaseFileSchema(GenerateJsonSchema):
    """The schema of a YAML file: an optional field is left out, never null, and has no default to state;
    a field type of the `VOCABULARY` is referred to, and defined in the document's `$defs`."""

    def handle_ref_overrides(self, json_schema: JsonSchemaValue) -> JsonSchemaValue:
        if json_schema.get("$ref", "").removeprefix("#/$defs/") in VOCABULARY:  # not pydantic's: keep it as it is
            return json_schema
        return super().handle_ref_overrides(json_schema)

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])


def json_schema() -> dict[str, object]:
    """The JSON Schema (draft 2020-12) of a case file or `retired.yaml`, generated from the models."""
    _, defs = models_json_schema([(CaseFile, "validation"), (RetiredFile, "validation")],
                                 schema_generator=_CaseFileSchema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://bleu-oracle.invalid/schemas/case.schema.json",
        "title": "bleu-oracle case file",
        "description": SCHEMA_DESCRIPTION,
        "oneOf": [{"$ref": "#/$defs/CaseFile"}, {"$ref": "#/$defs/RetiredFile"}],
        "$defs": {**VOCABULARY, **defs["$defs"]},
    }


def render_schema() -> str:
    """The exact text of the committed `case.schema.json`."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def write_schema(path: Path = SCHEMA_PATH) -> Path:
    """(Re)write the committed schema file; returns its path."""
    path.write_text(render_schema(), encoding="utf-8")
    return path


if __name__ == "__main__":  # python -m oracle.models.case: regenerate case.schema.json
    print(write_schema())
