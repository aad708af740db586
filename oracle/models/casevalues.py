"""The values a case file holds, as field types of the case models (`oracle.models.case`): each parses what
the YAML loader gives (an int, a `Decimal` as written, a string, a `HugeNumber`), says in the project's words
what is wrong (`oracle.models.errors.problem`), and carries its JSON Schema. Numbers stay exact: a fraction
string such as "3/5" becomes a `Fraction`, a number a `Decimal`; every number is checked against the bounds
of `oracle.formulas.bounds` before it is converted. Field types the schema defines once are in `VOCABULARY`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Annotated

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    PlainValidator,
    WithJsonSchema,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from oracle.formulas.bounds import (
    MAX_COUNT,
    MAX_DIGITS,
    MAX_ORDER,
    count_problem,
    number_problem,
)
from oracle.formulas.errors import describe

from .errors import one_of, problem, raise_all

#: A case id: lowercase letters, digits and single '-', starting with a letter.
ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
#: A bundled seed document's file name.
SEED_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+\.txt$")
#: An exact non-negative fraction ("3/5", "1"), and one that may be negative (a weight a case expects refused).
FRACTION = re.compile(r"^(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")
SIGNED_FRACTION = re.compile(r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")
#: Provenance other than a seed document: cases written by `bleu-oracle fuzz --write-cases`.
FOUND_BY = ("fuzz",)
KINDS = ("value", "statement", "document-error")


# -- Values as read from YAML -------------------------------------------------------------


class HugeNumber:
    """An integer in a case file with more digits than a number may have (`oracle.formulas.bounds.MAX_DIGITS`):
    kept as its length and never converted (int() of 5,000 digits is an error, of a million a long wait), so
    that the field holding it is refused with the case's id like any other out-of-bounds number."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


def plain(value: object) -> object:
    """A value read from YAML without its line bookkeeping, for a message: a Decimal as the float it holds
    (0.5, not Decimal('0.5')), or as written when no float holds it (1E+999, not inf)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        number = float(value) if value.is_finite() else None
        return number if number is not None and math.isfinite(number) and (number or value.is_zero()) else str(value)
    return value


def show(value: object) -> str:
    """A value from a case file as a message shows it: short, as Python prints it."""
    return describe(plain(value))


def got(value: object) -> str:
    """What came, as a message ends: "(got 'a b')"."""
    return f"(got {show(value)})"


def _kind_of(value: object) -> str:
    """What a YAML value is, in a message ("number" for 1, which a token list needs quoted)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, Decimal, HugeNumber)):
        return "number"
    names: tuple[tuple[type, str], ...] = ((str, "string"), (list, "list"), (dict, "mapping"), (type(None), "null"))
    return next((name for kind, name in names if isinstance(value, kind)), type(value).__name__)


def within_bounds(value: object) -> None:
    """Refuse a number (or a number's text) beyond the bounds of a number (`oracle.formulas.bounds`), before
    any conversion: Fraction("1/" + 5,000 digits) is an error, and Fraction("1e100000000") a long wait. An
    infinity or NaN is left to the field's own check (a case may expect infinite weights rejected)."""
    if isinstance(value, HugeNumber):
        raise problem(f"has {value.digits} digits, more than the {MAX_DIGITS} a number may have {got(value)}")
    if isinstance(value, Decimal) and not value.is_finite():
        return
    if isinstance(value, (int, float, Decimal, Fraction, str)):
        found = number_problem(value)
        if found is not None:
            raise problem(f"{found} {got(value)}")


def _fraction(text: str) -> Fraction:
    """A fraction string ("3/5", "-1/3") as an exact Fraction, its digits checked first."""
    within_bounds(text.strip())
    return Fraction(text.strip())


# -- Field types: each parses what YAML gives, says what is wrong, and carries its schema -------------


def _ref(name: str) -> WithJsonSchema:
    """The schema of a field type defined once in the schema's `$defs` (`VOCABULARY`)."""
    return WithJsonSchema({"$ref": f"#/$defs/{name}"})


def _case_id(value: object) -> str:
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise problem(f"must be lowercase letters, digits and single '-', starting with a letter {got(value)}")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise problem(f"must be a non-empty string {got(value)}")
    return value


def _one_line(value: object) -> str:
    text = _text(value)
    if "\n" in text.strip():
        raise problem(f"must be one line {got(value)}")
    return text.strip()


def _seed_file(value: object) -> str:
    text = _text(value)
    if not SEED_PATTERN.match(text):
        raise problem(f'must be a seed file name like "000_57c522b03cf4596a.txt" {got(value)}')
    return text


def _token(value: object) -> str:
    if not isinstance(value, str):
        raise problem(f"must be a string token (got {_kind_of(value)} {show(value)}; quote it in YAML)")
    if value.split() != [value]:
        raise problem(f"must be a non-empty token without whitespace (got {value!r})")
    return value


def listed(what: str, *, empty: bool = False, most: int | None = None, items: str = "") -> BeforeValidator:
    """A list's own check, before its items': a list of `what` (`empty`: possibly empty) of at most `most`
    `items` (a bound of `oracle.formulas.bounds`)."""

    def check(value: object) -> object:
        if not isinstance(value, (list, tuple)) or (not value and not empty):
            raise problem(f"must be a {'' if empty else 'non-empty '}list of {what} {got(value)}")
        if most is not None and len(value) > most:
            raise problem(f"must hold at most {most} {items or what} (got {len(value)})")
        return value

    return BeforeValidator(check)


def _not_null(value: object) -> object:
    """An optional field is left out, never null: null would read as "unset" where a value was meant."""
    if value is None:
        raise problem("must not be null: leave the field out instead (got None)")
    return value


#: An optional field that may be left out, but not given as null.
NOT_NULL = BeforeValidator(_not_null)


def _number(value: object, expected: str) -> int | Decimal | Fraction:
    """A number as YAML gives it (an int, a Decimal as written; a Fraction from Python), within the bounds
    of a number; a problem saying it must be `expected` otherwise."""
    if isinstance(value, HugeNumber):
        within_bounds(value)
    if isinstance(value, float):  # from Python, not YAML: the decimal it prints as, which YAML would read
        value = Decimal(repr(value))
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, Fraction)):
        raise problem(f"must be {expected} {got(value)}")
    within_bounds(value)
    return value


def _weight(value: object) -> int | Decimal | Fraction:
    """A weight: a number or a fraction string, within the bounds of a number (a request carries it as a
    double); its sign and finiteness are the oracle's to judge (a case may expect a rejection)."""
    if isinstance(value, str) and SIGNED_FRACTION.match(value.strip()):
        return _fraction(value)
    return _number(value, 'a number or a fraction string like "1/3"')


def _parameter(value: object) -> int | Decimal | Fraction:
    """A smoothing parameter: a number; whether the method accepts its value is the oracle's to judge."""
    return _number(value, "a number")


def _non_negative(number: int | Decimal | Fraction, expected: str) -> Fraction | Decimal:
    """A Fraction as it is (exact), an int or a Decimal as a Decimal (compared within a tolerance); finite
    and non-negative, else a problem saying it must be `expected`."""
    value = number if isinstance(number, Fraction) else Decimal(number)
    if (isinstance(value, Decimal) and not value.is_finite()) or value < 0:
        raise problem(f"must be {expected} {got(number)}")
    return value


def expected_value(value: object) -> Fraction | Decimal:
    """An expected p_n or BP: a fraction string (exact) or a finite non-negative number (within the tolerance)."""
    if isinstance(value, str) and FRACTION.match(value.strip()):
        return _fraction(value)
    number = _number(value, 'a number or an exact fraction string like "3/5"')
    return _non_negative(number, "a finite non-negative number")


def _score(value: object) -> Fraction | Decimal:
    """An expected score: a fraction string (exact, with `exact: true`), "NaN", or a number (within the
    tolerance)."""
    if (isinstance(value, str) and value.strip() == "NaN") or (isinstance(value, Decimal) and value.is_nan()):
        return Decimal("NaN")
    if isinstance(value, str):
        if not FRACTION.match(value.strip()):
            raise problem(f'must be a number, "NaN", or an exact fraction string like "1" or "7/10" {got(value)}')
        return _fraction(value)
    number = _number(value, 'a number, "NaN", or an exact fraction string')
    return _non_negative(number, 'a finite non-negative number or "NaN"')


def _tolerance(value: object) -> Decimal:
    """An absolute tolerance: a finite number from 0 to 1."""
    if isinstance(value, float):  # from Python, not YAML: the decimal it prints as
        value = Decimal(repr(value))
    if not isinstance(value, (int, Decimal)) or isinstance(value, bool) or not Decimal(value).is_finite() \
            or Decimal(value) < 0:
        hint = " (write 0.00005 or 5.0e-5)" if isinstance(value, str) else ""
        raise problem(f"must be a non-negative number {got(value)}{hint}")
    if Decimal(value) > 1:  # a score, BP and p_n lie in [0, 1]: a wider tolerance would pass anything
        raise problem(f"must be at most 1: a score lies between 0 and 1 and a wider tolerance would pass any "
                      f"value {got(value)}")
    within_bounds(value)
    return Decimal(value)


def _count(value: object) -> int:
    """A length, matches or totals: an integer from 0 to `oracle.formulas.bounds.MAX_COUNT`."""
    if isinstance(value, HugeNumber):
        within_bounds(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise problem(f"must be a non-negative integer {got(value)}")
    found = count_problem(value)
    if found is not None:
        raise problem(f"{found} {got(value)}")
    return value


def unique_items(items: tuple[str, ...]) -> tuple[str, ...]:
    """Items listed once each: a repeat is named at its place."""
    repeats = [((i,), problem(f"repeats {item!r}"), item) for i, item in enumerate(items) if item in items[:i]]
    raise_all("list", repeats)
    return items


@dataclass(frozen=True)
class OneOf:
    """Annotated metadata of a field whose value is one of the names of a table of the formulas (a profile, a
    level, a smoothing method, a convention's rules): refused in the shared words otherwise, and its schema is
    their enum. `null`: null is one of them too (an empty-order rule "the same as `empty_order`")."""

    choices: tuple[str, ...]
    null: bool = False

    def __get_pydantic_core_schema__(self, source: object, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(self.check)

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
                                     ) -> JsonSchemaValue:
        return {"enum": [*self.choices, *([None] if self.null else [])]}

    def check(self, value: object) -> str | None:
        if value is None and self.null:
            return None
        if not isinstance(value, str) or value not in self.choices:
            raise problem(one_of(self.choices, value, show))
        return value


#: An exact number as a case states it: an int, a Decimal as written, or a Fraction from a fraction string.
ExactNumber = int | Decimal | Fraction
#: An expected score, BP or p_n: a Fraction is exact, a Decimal is compared within `expect.tolerance`.
ExpectedNumber = Fraction | Decimal

CaseId = Annotated[str, PlainValidator(_case_id), _ref("caseId")]
Text = Annotated[str, PlainValidator(_text), _ref("nonEmptyString")]
OneLine = Annotated[str, PlainValidator(_one_line), WithJsonSchema(
    {"type": "string", "pattern": "^[^\\n]*\\S[^\\n]*\\n?$", "description": "One line."})]
SeedFile = Annotated[str, PlainValidator(_seed_file), _ref("seedFile")]
Token = Annotated[str, PlainValidator(_token)]
Tokens = Annotated[tuple[Token, ...], listed("tokens", empty=True), _ref("tokens")]
Count = Annotated[int, PlainValidator(_count), _ref("count")]
Counts = Annotated[tuple[Count, ...], listed("counts", most=MAX_ORDER, items="counts, one per order"),
                   Field(json_schema_extra={"minItems": 1, "maxItems": MAX_ORDER})]
Weight = Annotated[ExactNumber, PlainValidator(_weight), WithJsonSchema(
    {"oneOf": [{"type": "number"}, {"$ref": "#/$defs/signedFraction"}]})]
Parameter = Annotated[ExactNumber, PlainValidator(_parameter), WithJsonSchema({"type": "number"})]
ExpectedValue = Annotated[ExpectedNumber, PlainValidator(expected_value), _ref("expectedValue")]
Score = Annotated[ExpectedNumber, PlainValidator(_score), WithJsonSchema({
    "oneOf": [{"type": "number", "minimum": 0}, {"const": "NaN"}, {"$ref": "#/$defs/fraction"}]})]
Tolerance = Annotated[Decimal, PlainValidator(_tolerance), WithJsonSchema(
    {"type": "number", "minimum": 0, "maximum": 1})]


class CaseModel(BaseModel):
    """Base of the case-file models: frozen, unknown fields refused, values as Python holds them (a
    Fraction, a Decimal) rather than coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True,
                              defer_build=True)  # `oracle.models`: built on first use


#: An integer's digits as the schema bounds them (`oracle.formulas.bounds.MAX_DIGITS`), and a positive one's.
_DIGITS = f"(0|[1-9][0-9]{{0,{MAX_DIGITS - 1}}})"
_POSITIVE_DIGITS = f"[1-9][0-9]{{0,{MAX_DIGITS - 1}}}"
#: Field types the schema defines once and refers to.
VOCABULARY: dict[str, JsonSchemaValue] = {
    "caseId": {"type": "string", "pattern": ID_PATTERN.pattern,
               "description": "Stable, unique across all files, never reused: lowercase letters, digits and "
                              "single '-'."},
    "seedFile": {"type": "string", "pattern": SEED_PATTERN.pattern,
                 "description": "A file name in ../shared/seeds/, e.g. 000_57c522b03cf4596a.txt."},
    "fraction": {"type": "string", "pattern": f"^{_DIGITS}(/{_POSITIVE_DIGITS})?$",
                 "description": f'An exact non-negative fraction, e.g. "1", "0", "3/5"; each side at most '
                                f'{MAX_DIGITS} digits.'},
    "signedFraction": {"type": "string", "pattern": f"^-?{_DIGITS}(/{_POSITIVE_DIGITS})?$"},
    "nonEmptyString": {"type": "string", "pattern": "\\S"},
    "tokens": {"type": "array", "items": {"type": "string", "pattern": "^\\S+$"},
               "description": "Tokens as the document has them: non-empty strings without whitespace."},
    "count": {"type": "integer", "minimum": 0, "maximum": MAX_COUNT},
    "expectedValue": {"description": "An exact fraction string (compared exactly) or a number (compared within "
                                     "`expect.tolerance`).",
                      "oneOf": [{"$ref": "#/$defs/fraction"}, {"type": "number", "minimum": 0}]},
}
