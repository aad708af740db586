"""The language-neutral export of the suite (`bleu-oracle cases export`): flagged test vectors, Wycheproof-style,
one model per part and the source of `suite.schema.json`, so a JavaScript, Rust or C++ test suite iterates over
the vectors without Python, as JSON-Schema-Test-Suite and Wycheproof are consumed.

A file holds the vectors of one profile (`--profile P`) or of each case under its own profiles (no option):
every vector says what it `needs` of an implementation (so a consumer filters without guessing), its `result`
(valid, rejected, or acceptable where BLEU's conventions split or the documents leave the input undefined),
its `flags`, which refer to `notes` defined
once per file, and the numeric contract it is judged under (stated in the file and in this schema).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

EXPORT_FORMAT = "bleu-oracle-suite/3"  # 3: flags renamed (docs/vectors.md, "Format versions")
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "suite.schema.json"

#: The closed vocabulary of a note's `bug_type`.
BUG_TYPES = ("edge-case", "convention-split", "numeric-precision", "known-bug", "layout", "document-error")
RESULTS = ("valid", "rejected", "acceptable")

ZERO_RULE = (
    "Zero is exact: where `score_exact` is 0, any answer but 0 fails whatever the tolerance (an epsilon "
    "inside a logarithm gives 1e-13, not 0); where the exact value is a float's normal number (at least "
    "2.2250738585072014e-308), an answer of 0 fails. Below that, 0 is accepted (an underflow)."
)
NAN_RULE = (
    'NaN (written "NaN") is the answer where BLEU is undefined (0/0 under the profile\'s both_empty '
    "convention); NaN matches only NaN, and an expected number is never matched by NaN."
)
TOLERANCE_RULE = (
    "|actual - score| <= abs + rel * |score|; statistics (integers) compare exactly, bp under the same rule."
)


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Contract(_Part):
    """How an answer is judged against a vector's `expected` (the rules `bleu-oracle check` applies)."""

    rel: float = Field(description="Relative tolerance.")
    abs: float = Field(description="Absolute tolerance.")
    tolerance: str = Field(TOLERANCE_RULE, description="The tolerance rule.")
    zero: str = Field(ZERO_RULE, description="The zero rule: " + ZERO_RULE)
    nan: str = Field(NAN_RULE, description="The NaN rule: " + NAN_RULE)


class Source(_Part):
    """Where the vector comes from."""

    document: str = Field(description="The document that states the value: its title or its URL.")
    section: str = Field(description="Where in the document: a section, a page, a test's name.")
    quote: str = Field(description="The words of the document the vector rests on.")


class Expected(_Part):
    """What a conforming implementation of the file's profile answers."""

    rejected: bool = Field(description="True: the input is invalid and must be rejected.")
    reason: str | None = Field(None, description="Why it is rejected.")
    score: float | str | None = Field(
        None, description='The oracle\'s score on the 0-1 scale as a float ("NaN" when undefined: ' + NAN_RULE + ")"
    )
    score_exact: str | None = Field(None, description="The same, exact to 50 significant digits; " + ZERO_RULE)
    statistics: dict[str, Any] | None = Field(
        None, description="hyp_len, ref_len, matches and totals per order (exact integers), bp (a float)."
    )
    rel: float = Field(description="Relative tolerance: " + TOLERANCE_RULE)
    abs: float = Field(description="Absolute tolerance.")


class Answer(_Part):
    """One answer of a vector whose value depends on the conventions, and the conventions it is right under."""

    profiles: list[str] = Field(description="The profiles whose conventions give this answer.")
    conventions: dict[str, Any] = Field(
        description="The values, shared by those profiles, of the conventions the answers split on."
    )
    rejected: bool = Field(description="True: under these conventions the input is rejected.")
    score: float | str | None = Field(None, description='The score under these conventions ("NaN": undefined).')
    score_exact: str | None = Field(None, description="The same, exact to 50 significant digits.")
    convention: str | None = Field(
        None, description="On an input the documents leave undefined (origin protocol): the named convention "
        "(PROTOCOL.md) whose value this is; acceptable under every profile, where refusing is recommended.")


class Needs(_Part):
    """What an implementation must be able to do for the vector to apply to it: the capabilities of protocol v1
    (PROTOCOL.md) the vector's request uses. A vector applies when every need is met."""

    level: Literal["corpus", "sentence"] = Field(description="The capability `levels` must list it.")
    max_order: int = Field(description="len(weights): at most capability `max_order`, and among `orders` if given.")
    weights: Literal["uniform", "any"] = Field(
        description='uniform: every weight is 1/N (any implementation); any: capability `weights` must be "any".'
    )
    smoothing: str = Field(description="The smoothing method; capability `smoothing` must list it.")
    lowercase: bool = Field(description="True: the request folds case; capability `lowercase` must be true.")
    references: int = Field(description="The most references of a segment: at most capability `max_references`.")
    reference_counts_differ: bool = Field(
        description="True: segments have different numbers of references (not for `same_reference_count`)."
    )
    whitespace_in_tokens: bool = Field(description="True: some token holds a whitespace character.")
    token_characters: list[str] = Field(
        description="Every character of the tokens that is not a letter or a digit, sorted (punctuation, "
        "whitespace): none of them may be among capability `forbidden_token_characters`."
    )
    empty_tokens: bool = Field(description="True: some token is the empty string (not for `empty_tokens: false`).")
    tokenizer: str | None = Field(
        None, description="A text request: the tokenizer it names, which capability `tokenizers` must list."
    )
    texts: list[str] = Field(
        default_factory=list,
        description="A text request: its raw texts (every hypothesis and reference, each once, in order): none may "
        "contain a sequence of capability `forbidden_text_sequences`.",
    )
    conventions: dict[str, Any] = Field(
        default_factory=dict,
        description="The conventions the vector's request carries where they differ from the profile's (protocol "
        "`conventions`, e.g. empty_order: skip): capability `conventions` must list each rule.",
    )


class Link(_Part):
    """An upstream thread."""

    url: str
    state: str | None = Field(None, description="Its state as the curated entry records it (merged, open, ...).")


class Note(_Part):
    """A note a vector's `flags` refer to: defined once per file."""

    bug_type: Literal[BUG_TYPES] = Field(description="What kind of trap: " + ", ".join(BUG_TYPES) + ".")
    description: str = Field(description="What the vectors so flagged have in common.")
    effect: str = Field(description="What an implementation gets wrong on them, or must take care of.")
    links: list[Link] = Field(default_factory=list, description="Upstream threads, with their state.")
    upstream: str | None = Field(None, description="What became of it upstream, as the curated entry says.")


class Printed(_Part):
    """The value the document itself prints, where it prints one."""

    score: float | str | None = Field(None, description="The printed score (0-1 scale).")
    tolerance: float | None = Field(None, description="Half a unit of the last printed digit; null: exact.")
    statistics: dict[str, Any] | None = Field(None, description="Printed statistics.")
    rejected: bool | None = Field(None, description="True: the document says the input is invalid.")


class Vector(_Part):
    """One test vector: a documented case (or a curated discrepancy's minimal example) under one profile."""

    id: str = Field(description="The case's stable id (the same in every export); a curated discrepancy's id.")
    origin: Literal["case", "discrepancy", "protocol"] = Field(
        description="case: a documented case (the ids `bleu-oracle check` reports); discrepancy: the minimal "
        "example behind a curated discrepancy of a real library; protocol: an input PROTOCOL.md says is refused or "
        "left undefined (the search's refused inputs)."
    )
    title: str
    profile: str = Field(description="The profile (set of conventions) `expected` holds under.")
    conventions: dict[str, Any] = Field(
        description="Every convention of the profile, with the vector's own overrides applied "
        "(`bleu-oracle profiles --json` describes them)."
    )
    request: dict[str, Any] = Field(
        description="The input as protocol v1's score command carries it (PROTOCOL.md): level, segments, "
        "weights, smoothing, lowercase (and tokenize for raw text)."
    )
    needs: Needs
    result: Literal[RESULTS] = Field(
        description="valid: a score is expected; rejected: a rejection is expected; acceptable: the right answer "
        "depends on the conventions, and `answers` lists each with the conventions it is right "
        "under (`expected` is the profile's), or the documents leave the input undefined: refusing is recommended "
        "(`expected`) and each answer with a `convention` is acceptable too."
    )
    expected: Expected
    answers: list[Answer] = Field(default_factory=list, description="For result acceptable: every answer.")
    flags: list[str] = Field(
        default_factory=list,
        description="Keys of the file's `notes`, shown in consumers' test titles: none is a word a programming "
        "language gives a meaning to (undefined, null, NaN, true).",
    )
    printed: Printed | None = Field(None, description="What the document prints, within its tolerance.")
    source: Source


class LeftOut(_Part):
    """A case under a profile that the export leaves out, and why (nothing is dropped silently)."""

    id: str
    profile: str
    reason: str


class Suite(_Part):
    """A vector file. Its first lines give its format, version and number of vectors."""

    format: str = Field(EXPORT_FORMAT, description="The export's format and version.")
    suite_version: str = Field(description="The version of the documented cases.")
    oracle_version: str = Field(description="The bleu-oracle that wrote it.")
    count: int = Field(description="The number of vectors in `vectors`.")
    profile: str | None = Field(
        description="The profile every vector is judged under (`--profile`); null: each case under its own."
    )
    contract: Contract
    notes: dict[str, Note] = Field(description="The notes the vectors' `flags` refer to.")
    vectors: list[Vector]
    left_out: list[LeftOut] = Field(default_factory=list, description="Cases protocol v1 cannot carry, and why.")


def json_schema() -> dict[str, Any]:
    schema = Suite.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://bleu-oracle.invalid/schemas/suite.schema.json"
    schema["description"] = f"{Suite.__doc__} Numeric contract: {TOLERANCE_RULE} {ZERO_RULE} {NAN_RULE}"
    return schema


def render_schema() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m oracle.models.export: regenerate the committed schema
    SCHEMA_PATH.write_text(render_schema(), encoding="utf-8")
    print(SCHEMA_PATH)
