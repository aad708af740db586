"""What `doctor` finds, as one typed object: the `--json` output and doctor.json of `--report`.

`DoctorReport` is the single description of the output: the library call returns it, the command prints
it (`model_dump_json`), and the JSON Schema shipped as `oracle/models/schemas/doctor.schema.json` is
generated from it (a test keeps the committed file current; `python -m oracle.doctor.model` rewrites it).
Scores are floats, null where BLEU is undefined (NaN): `score` on the scale named beside it, `score_100` always
on 0-100.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

#: The output format's version: written as a Literal (a type checker reads no variable inside one), named once
SchemaVersion = Literal["bleu-oracle-doctor/1"]
SCHEMA: SchemaVersion = get_args(SchemaVersion)[0]
SCHEMA_PATH = Path(__file__).resolve().parents[1] / "models" / "schemas" / "doctor.schema.json"

FindingKind = Literal[
    "line-count", "shifted-reference", "misaligned-reference", "transposed-references", "swapped-arguments",
    "duplicated-reference", "byte-order-mark", "byte-order-mark-inside", "crlf", "nul", "invalid-utf8",
    "line-separator", "empty-lines", "lowercased-one-side", "tokenization-mismatch", "tokenized",
]
Severity = Literal["error", "warning", "note"]
#: `--fail-on`: which findings make the exit code 1, by the least severe of them
FailOn = Literal["error", "warning", "never"]
#: `--fail-on` -> the severities of layout findings that make the exit code 1
FAILING_SEVERITIES: dict[str, tuple[str, ...]] = {"error": ("error",), "warning": ("error", "warning"), "never": ()}
Scale = Literal["0-1", "0-100"]
Aggregation = Literal["corpus", "sentence-mean"]
StepName = Literal["bom", "tokenizer", "case", "reference_length", "smoothing", "empty_order", "segment_totals_floor",
                   "other", "aggregation", "scale"]


#: A score, or a difference of scores: null where BLEU is undefined (NaN: no hypothesis and no reference token,
#: under a profile that says so), since JSON has no NaN.
Score = Annotated[float | None, BeforeValidator(lambda v: None if isinstance(v, float) and math.isnan(v) else v)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Location(_Model):
    """Where a finding is: a file and a 1-based line (null: the file as a whole), and for a finding about one
    character, its 1-based column."""

    file: str = Field(description="The file as given on the command line.")
    line: int | None = Field(None, description="1-based line number; null for the whole file.")
    column: int | None = Field(None, description="1-based character position in the line, for a finding about one "
                                                 "character (a line separator inside a line); null otherwise.")


class Effect(_Model):
    """A layout problem's effect on the score, measured by the oracle under one reading."""

    reading: str = Field(description="The reading it was measured under (the first given number's best explanation, "
                                     "else the first signature's, else sacrebleu with 13a and mixed case).")
    signature: str = Field(description="That reading's signature.")
    change: str = Field(description="What was undone or changed to measure it.")
    before: Score = Field(description="BLEU (0-100) of the files as they are.")
    after: Score = Field(description="BLEU (0-100) with the change.")
    delta: Score = Field(description="after - before.")


class LayoutFinding(_Model):
    """One thing about the files' layout that makes BLEU silently wrong, or is worth knowing."""

    kind: FindingKind = Field(description="What was found, by name.")
    severity: Severity = Field(
        description="error: the number is wrong; warning: probably wrong; note: worth knowing.")
    message: str = Field(description="What was found, in words, with the evidence.")
    where: list[Location] = Field(description="The first places it shows (at most 5).")
    count: int = Field(description="How many lines (or files) it concerns.")
    effect: Effect | None = Field(None, description="Its effect on the score; null when it cannot be measured.")
    no_effect_reason: str | None = Field(None, description="Why no effect was measured, when `effect` is null.")


class Statistics(_Model):
    """The corpus statistics a reading scored: c, r, clipped matches and totals per order."""

    hyp_len: int
    ref_len: int
    matches: list[int]
    totals: list[int]


class Reading(_Model):
    """One row of the readings table: a profile as it stands, under one tokenizer and case."""

    profile: str = Field(description="The named profile (`bleu-oracle profiles`).")
    tokenize: str = Field(description="The tokenizer: none, 13a, intl or char.")
    lowercase: bool = Field(description="Whether case was folded (by the profile's case_fold).")
    aggregation: Aggregation = Field(description="corpus: statistics summed; sentence-mean: mean of sentence scores.")
    score: Score = Field(description="BLEU on the 0-1 scale (null: undefined, as NaN).")
    score_100: Score = Field(description="BLEU on the 0-100 scale.")
    bp: Score = Field(None, description="The brevity penalty (corpus readings).")
    statistics: Statistics | None = Field(None, description="The summed statistics (corpus readings).")
    signature: str = Field(description="The reading's signature, as `bleu-oracle score` prints it.")


class Explanation(_Model):
    """A reading that reproduces a number (or comes nearest, or a signature names): a profile, a tokenizer, a case,
    and the conventions it changes from the profile."""

    profile: str = Field(description="The named profile the reading starts from.")
    tokenize: str = Field(description="The tokenizer: none, 13a, intl or char.")
    lowercase: bool = Field(description="Whether case was folded.")
    conventions: dict[str, str] = Field(
        description="What differs from the profile: convention -> value (as `bleu-oracle profiles` and --smoothing "
                    "write them); also `aggregation` (sentence-mean) and `bom` (kept) when they differ.")
    aggregation: Aggregation = Field(description="corpus or sentence-mean.")
    scale: Scale = Field(description="The scale `score` is on (the given number's).")
    score: Score = Field(description="The reading's score on `scale`.")
    difference: Score = Field(None, description="score - the given number (null for a signature).")
    match: Literal["digits", "float32"] | None = Field(
        None, description="digits: within half a unit of the number's last digit (and a float's rounding); float32: "
                          "within single precision (2e-6 relative); null: does not reproduce it.")
    signature: str = Field(description="The reading's signature.")
    departures: int = Field(description="How far it is from what a tool does by default: a tokenizer or case other "
                                        "than the profile's, and each convention changed from the profile (a change "
                                        "that makes the profile its library as shipped, nltk's floor, is none; a "
                                        "word split or case folding goes with a tokenizer or case that departs). "
                                        "Explanations are ranked by it first.")
    versions: str | None = Field(None, description="The released versions of the profile's library that behave as "
                                 "this reading does (`bleu-oracle history`'s data), when one of its changes is a "
                                 "curated discrepancy of that library.")


class Need(_Model):
    """One statistic of a near reading changed so that it gives the number."""

    statistic: str = Field(description="ref_len, or matches[n] for order n.")
    current: int = Field(description="Its value in the reading.")
    needed: int = Field(description="The value that gives the number (solved, rounded).")
    reproduces: bool = Field(description="Whether the oracle with that value reproduces the number within its digits.")


class NearReading(Explanation):
    """A reading close to an unexplained number, with what its statistics would need."""

    needs: list[Need] = Field(description="Single statistics that would make it give the number (corpus readings "
                                          "without smoothing).")


class NumberReport(_Model):
    """A number the user has, and the readings that reproduce it."""

    given: str = Field(description="The number as given, with its digits.")
    value: float
    half_unit: float = Field(description="Half a unit of the last digit given: the printed precision.")
    scales: list[Scale] = Field(description="The scales it was compared on (0-1 only when it is at most 1).")
    explained: bool = Field(description="Whether at least one reading reproduces it.")
    explanation_count: int = Field(description="How many readings reproduce it (`explanations` holds the first 50).")
    explanations: list[Explanation] = Field(description="The readings that reproduce it, most plausible first: "
                                                        "fewer departures from a tool's defaults, then the closer "
                                                        "match class, then the smaller difference.")
    nearest: list[NearReading] = Field(description="When none reproduces it: the closest readings, with what they "
                                                   "would need.")


class ShippedReading(_Model):
    """Where a profile's own library, as shipped, gives another number on these files than the profile (which
    encodes the library's documentation): the reading that reproduces the library's code."""

    library: str = Field(description="The library (the profile of the same name).")
    versions: str = Field(description="Its releases that behave so (`bleu-oracle history`), else the version the "
                                      "discrepancy was found in.")
    discrepancy: str = Field(description="The curated discrepancy's id (oracle/diagnose/data/discrepancies.yaml).")
    what: str = Field(description="What its code does, in words.")
    documented: Score = Field(description="The profile's BLEU (0-100) under its own tokenizer and case: the "
                                          "readings table's.")
    reading: Explanation = Field(description="The reading that reproduces the library as shipped, its score on the "
                                             "0-100 scale.")


class SignatureReport(_Model):
    """A signature, read back into a reading and computed on these files."""

    given: str = Field(description="The signature as given.")
    format: Literal["sacrebleu", "sacrebleu-1", "bleu-oracle"] = Field(description="Whose format it is in.")
    reading: Explanation = Field(description="The reading it names, its score on the 0-100 scale.")
    references: int | None = Field(None, description="The number of references it says (nrefs).")
    notes: list[str] = Field(description="What else it says, and whether it fits these files.")


class WaterfallStep(_Model):
    """One convention changed on the way from one reading to another."""

    step: StepName = Field(description="Which convention (the steps come in this fixed order: bom, tokenizer, case, "
                                       "reference_length, smoothing, empty_order, segment_totals_floor, other, "
                                       "aggregation, scale).")
    change: str = Field(description="From what to what.")
    score: Score = Field(description="BLEU (0-100) after this step.")
    delta: Score = Field(description="What this step changed (0-100).")
    share: Score = Field(None, description="delta / the whole difference (null when that is 0).")


class Difference(_Model):
    """The path between two numbers' (or signatures') readings, one convention at a time."""

    source: str = Field(description="The first number or signature, as given.")
    target: str = Field(description="The second.")
    start: Explanation = Field(description="The reading the path starts from.")
    end: Explanation = Field(description="The reading it ends at.")
    start_score: Score = Field(description="The start reading's BLEU (0-100).")
    end_score: Score = Field(description="The end reading's BLEU (0-100).")
    computed: Score = Field(description="end_score - start_score: what the steps' deltas add up to.")
    given: Score = Field(None, description="The difference of the two numbers as given, on 0-100 (null for a "
                                                  "signature).")
    rounding: Score = Field(None, description="given - computed: the printed numbers' rounding.")
    steps: list[WaterfallStep] = Field(description="Each convention that differs, in the stated order.")


class DoctorReport(_Model):
    """Everything `doctor` found about a hypothesis file and its references."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_: SchemaVersion = Field(SCHEMA, alias="schema", description="The output format's version.")
    oracle_version: str = Field(description="The bleu-oracle version that wrote it.")
    hypothesis: str = Field(description="The hypothesis file.")
    references: list[str] = Field(description="The reference files, one reference stream each.")
    segments: int = Field(description="Segments scored: the lines every file has.")
    layout: list[LayoutFinding] = Field(description="The layout lint's findings, before any number.")
    readings: list[Reading] = Field(
        description="Every profile x tokenizer x lowercase off/on, each with its signature."
    )
    numbers: list[NumberReport] = Field(description="Each given number with its ranked explanations.")
    signatures: list[SignatureReport] = Field(description="Each given signature's reading and score.")
    differences: list[Difference] = Field(description="From the first number (or signature) to each other one.")
    as_shipped: list[ShippedReading] = Field(
        description="Each profile whose library, as shipped, computes another number here than the profile.")
    notes: list[str] = Field(description="What limited the search, if anything.")
    fail_on: FailOn = Field(description="The least severe layout finding that makes the exit code 1 (never: "
                                        "findings leave it alone).")
    exit_code: Literal[0, 1] = Field(description="1: a given number is not explained, or a layout finding is at "
                                                 "least as severe as `fail_on`; else 0.")


def json_schema() -> dict:
    schema = DoctorReport.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"urn:bleu-oracle:{SCHEMA}", **schema}


def render_schema() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m oracle.doctor.model: regenerate the committed schema
    SCHEMA_PATH.write_text(render_schema(), encoding="utf-8")
    print(SCHEMA_PATH)
