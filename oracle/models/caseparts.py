"""The parts of a case (`oracle.models.case`) as pydantic models: where it comes from, its input, the options
it sets, what its document prints, and (for a case found by fuzzing) the root cause that explains an
implementation's answer. Every field is described; what ties fields together is checked by validators (a
smoothing method's parameters, one segment at sentence level, a tolerance exactly when some expected value is
approximate, `exact: true` exactly when the score is a fraction string)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictInt,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from oracle.formulas.bleu import LEVELS
from oracle.formulas.bounds import MAX_COUNT, MAX_ORDER, MAX_REFERENCES
from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    CASE_FOLD_RULES,
    EMPTY_ORDER_RULES,
    NO_MATCH_RULES,
    REFERENCE_LENGTH_RULES,
    SMOOTHING_METHODS,
    WEIGHT_RULES,
    ZERO_WEIGHT_RULES,
    Options,
    Smoothing,
)
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.tokenizers import FOLD_STAGE_RULES, LINE_PADDING_RULES, TOKEN_SPLIT_RULES, TOKENIZERS

from .casevalues import (
    NOT_NULL,
    CaseModel,
    Count,
    Counts,
    ExactNumber,
    ExpectedNumber,
    ExpectedValue,
    OneLine,
    OneOf,
    Parameter,
    Score,
    SeedFile,
    Text,
    Tokens,
    Tolerance,
    Weight,
    expected_value,
    got,
    listed,
    show,
    within_bounds,
)
from .errors import Loc, problem, raise_all, sentence

# -- A case's parts ------------------------------------------------------------------------------


class CaseSource(CaseModel):
    """Where a case comes from: the document, the place in it, and its own words."""

    document: Text = Field(description="The document the case rests on: its title or its URL.")
    section: Text = Field(description="Where in the document: a section, a page, a test's name.")
    quote: Text = Field(description=(
        "The document's own words. When a bundled seed is named (the file's `seed` or source.seed), they must "
        "appear verbatim, modulo runs of whitespace, in the seed file; otherwise they are not checked."))
    seed: Annotated[SeedFile | None, NOT_NULL] = Field(default=None, description=(
        "The bundled seed file holding the quote. Default: the file's seed (none: the quote is not checked); "
        "never in a `found_by` file, which quotes no document."))


class CaseSegment(CaseModel):
    """One hypothesis and its references, as token lists."""

    hypothesis: Tokens = Field(description="The hypothesis's tokens.")
    references: Annotated[tuple[Tokens, ...], listed("token lists", most=MAX_REFERENCES, items="references")] \
        = Field(description="Its references, each a token list.",
                json_schema_extra={"minItems": 1, "maxItems": MAX_REFERENCES})


class CaseInput(CaseModel):
    """What is scored: the level and the segments."""

    level: Annotated[str, OneOf(LEVELS)] = Field(description="sentence: exactly one segment; corpus: any number.")
    segments: Annotated[tuple[CaseSegment, ...], listed("segments")] = Field(
        description="The segments, each a hypothesis and its references.", json_schema_extra={"minItems": 1})

    @model_validator(mode="after")
    def _one_segment_at_sentence_level(self) -> Self:
        if self.level == "sentence" and len(self.segments) != 1:
            raise_all("input", [(("segments",), problem(
                f"must hold exactly one segment at sentence level (got {len(self.segments)})"), None)])
        return self

    def oracle_arguments(self) -> tuple[list[Any], list[Any]]:
        """(hypotheses, references) as `oracle.score` takes them at this level."""
        if self.level == "sentence":
            segment = self.segments[0]
            return list(segment.hypothesis), [list(r) for r in segment.references]
        return ([list(s.hypothesis) for s in self.segments],
                [[list(r) for r in s.references] for s in self.segments])


class CaseSmoothing(CaseModel):
    """A smoothing method and the parameters it takes that the case sets (the others take their defaults)."""

    method: Annotated[str, OneOf(tuple(SMOOTHING_METHODS))] = Field(
        description="The smoothing method (`bleu-oracle smoothing` lists them).")
    value: Annotated[Parameter | None, NOT_NULL] = Field(
        default=None, description="floor: the count given a zero order.")
    k: Annotated[Parameter | None, NOT_NULL] = Field(default=None, description="add-k, chen-cherry-4 and -7: k.")
    epsilon: Annotated[Parameter | None, NOT_NULL] = Field(default=None, description="chen-cherry-1: epsilon.")
    alpha: Annotated[Parameter | None, NOT_NULL] = Field(default=None, description="chen-cherry-6: alpha.")

    @model_validator(mode="after")
    def _parameters_of_the_method(self) -> Self:
        takes = SMOOTHING_METHODS[self.method]
        takes_what = sorted(takes) or "no parameters"
        found = [((name,), problem(f"is not a parameter of {self.method!r} (it takes {takes_what})"), value)
                 for name, value in self.given().items() if name not in takes]
        raise_all("smoothing", found)
        return self

    def given(self) -> dict[str, ExactNumber]:
        """The parameters the case sets, by name, exact."""
        return {name: value for name in ("value", "k", "epsilon", "alpha")
                if (value := getattr(self, name)) is not None}

    def as_oracle_argument(self) -> dict[str, object]:
        """The mapping `oracle.score(smoothing=...)` takes: the method and the parameters set, exact."""
        return {"method": self.method, **self.given()}

    def protocol_form(self) -> dict[str, object]:
        """As a request carries it: the method and every parameter it takes as a float, unset ones at their
        documented defaults. Whether a value is valid is for the implementation (and the oracle) to judge."""
        given = self.given()
        return {"method": self.method,
                **{name: float(given.get(name, default)) for name, default in SMOOTHING_METHODS[self.method].items()}}


class CaseOptions(CaseModel):
    """The options a case sets: protocol fields (weights, smoothing, lowercase), which travel in a request,
    and convention overrides named as `oracle.formulas.conventions.Options` fields, under which the oracle
    judges; those a request can carry travel in its `conventions` where they differ from the judged
    profile's (PROTOCOL.md). What the case leaves out is the judged profile's."""

    PROTOCOL_FIELDS: ClassVar[tuple[str, ...]] = ("weights", "smoothing", "lowercase")

    weights: Annotated[tuple[Weight, ...] | None, NOT_NULL,
                       listed("numbers", most=MAX_ORDER, items="weights: their count is the maximum order")] = Field(
        default=None, json_schema_extra={"minItems": 1, "maxItems": MAX_ORDER}, description=(
            "w_1..w_N; their number is the maximum order. Numbers (.inf/.nan allowed, for cases expecting a "
            'rejection) or fraction strings like "1/3".'))
    smoothing: Annotated[CaseSmoothing | None, NOT_NULL] = Field(default=None, description=(
        "A method and the parameters it takes (floor: value; add-k: k; chen-cherry-1: epsilon; chen-cherry-4/7: "
        "k; chen-cherry-6: alpha)."))
    lowercase: Annotated[StrictBool | None, NOT_NULL] = Field(default=None, description="Whether case is folded.")
    reference_length: Annotated[str | None, OneOf(tuple(REFERENCE_LENGTH_RULES))] = Field(
        default=None, description="Which reference length r counts (`bleu-oracle conventions`).")
    empty_order: Annotated[str | None, OneOf(tuple(EMPTY_ORDER_RULES))] = Field(
        default=None, description="How an order with no hypothesis n-grams counts.")
    sentence_empty_order: Annotated[str | None, OneOf(tuple(EMPTY_ORDER_RULES), null=True)] = Field(
        default=None, description="The empty-order rule at sentence level; null: the same as `empty_order`.")
    unsmoothed_empty_order: Annotated[str | None, OneOf(tuple(EMPTY_ORDER_RULES), null=True)] = Field(
        default=None, description="The empty-order rule when no smoothing is applied; null: the same as `empty_order`.")
    both_empty: Annotated[str | None, OneOf(tuple(BOTH_EMPTY_RULES))] = Field(
        default=None, description="What a corpus with no hypothesis and no reference tokens scores.")
    no_match: Annotated[str | None, OneOf(tuple(NO_MATCH_RULES))] = Field(
        default=None, description="What a hypothesis none of whose n-grams matches scores.")
    weight_normalisation: Annotated[str | None, OneOf(tuple(WEIGHT_RULES))] = Field(
        default=None, description="How weights that do not sum to one are used.")
    zero_weight: Annotated[str | None, OneOf(tuple(ZERO_WEIGHT_RULES))] = Field(
        default=None, description="Whether an order with weight 0 still makes the score 0 when its p_n is 0.")
    uniform_weights_only: Annotated[StrictBool | None, NOT_NULL] = Field(
        default=None, description="Only uniform weights are meaningful.")
    segment_totals_floor: Annotated[Annotated[StrictInt, Field(ge=0, le=MAX_COUNT)] | None, NOT_NULL] = Field(
        default=None, description="Each segment's n-gram total is at least this.")
    default_max_order: Annotated[Annotated[StrictInt, Field(ge=1, le=MAX_ORDER)] | None, NOT_NULL] = Field(
        default=None, description="The maximum order of the default weights.")
    tokenizer: Annotated[str | None, OneOf(tuple(TOKENIZERS))] = Field(
        default=None, description="How raw text becomes tokens.")
    token_split: Annotated[str | None, OneOf(tuple(TOKEN_SPLIT_RULES))] = Field(
        default=None, description="Which characters separate words in raw text.")
    line_padding: Annotated[str | None, OneOf(tuple(LINE_PADDING_RULES))] = Field(
        default=None, description="Whether 13a puts a space at each end of the line before its rules.")
    case_fold: Annotated[str | None, OneOf(tuple(CASE_FOLD_RULES))] = Field(
        default=None, description="How `lowercase` folds case.")
    fold_stage: Annotated[str | None, OneOf(tuple(FOLD_STAGE_RULES))] = Field(
        default=None, description="Where `lowercase` folds raw text: each token, or the line before the tokenizer.")

    def overrides(self) -> dict[str, object]:
        """The convention overrides the case sets (Options fields), by name."""
        return {name: getattr(self, name) for name in type(self).model_fields
                if name not in self.PROTOCOL_FIELDS and name in self.model_fields_set}


#: The convention overrides a case may set: every `Options` field but the protocol's three.
CONVENTION_FIELDS = tuple(name for name in CaseOptions.model_fields if name not in CaseOptions.PROTOCOL_FIELDS)


def _precisions(value: object) -> tuple[tuple[int, ExpectedNumber | None], ...]:
    """p_n as a list (one per order from 1) or a mapping {order: value}, as (order, value) pairs; a value
    None: the order is left out (0/0)."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise problem("must not be empty")
        if len(value) > MAX_ORDER:
            raise problem(f"must hold at most {MAX_ORDER} orders (got {len(value)})")
        return _entries([(n + 1, n, p) for n, p in enumerate(value)])
    if isinstance(value, dict):
        if not value:
            raise problem("must not be empty")
        return _entries([(_order(key, value), str(key), p) for key, p in value.items()])
    raise problem(f"must be a list (one entry per order) or a mapping {{order: value}} {got(value)}")


def _order(key: object, mapping: Mapping[object, object]) -> int:
    """An n-gram order, a key of the mapping form."""
    if not re.fullmatch(r"[1-9][0-9]*", str(key)):
        raise problem(f"keys must be n-gram orders 1, 2, ... (got {key!r})")
    if int(str(key)) > MAX_ORDER:
        raise problem(f"keys must be orders up to {MAX_ORDER}, the largest order bleu-oracle reads (got {key})")
    if sum(str(other) == str(key) for other in mapping) > 1:
        raise problem(f"states order {key} twice")
    return int(str(key))


def _entries(entries: Sequence[tuple[int, str | int, object]]) -> tuple[tuple[int, ExpectedNumber | None], ...]:
    """(order, value) pairs, every entry checked: the problems are named at their entries."""
    out, found = [], []
    for order, where, raw in entries:
        try:
            out.append((order, None if raw is None else expected_value(raw)))
        except PydanticCustomError as error:
            found.append(((where,), error, raw))
    raise_all("precisions", found)
    return tuple(sorted(out, key=lambda pair: pair[0]))


Precisions = Annotated[tuple[tuple[int, ExpectedNumber | None], ...], PlainValidator(_precisions), WithJsonSchema({
    "oneOf": [
        {"type": "array", "minItems": 1, "maxItems": MAX_ORDER,
         "items": {"oneOf": [{"$ref": "#/$defs/expectedValue"}, {"type": "null"}]}},
        {"type": "object", "minProperties": 1, "maxProperties": MAX_ORDER,
         "propertyNames": {"pattern": "^([1-9][0-9]?|100)$"},
         "additionalProperties": {"oneOf": [{"$ref": "#/$defs/expectedValue"}, {"type": "null"}]}}]})]


class ExpectedStatistics(CaseModel):
    """Any subset of the sufficient statistics, BP and precisions a document prints (or the note derives).
    Integers and fraction strings are exact; a number is compared within `expect.tolerance`."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    hyp_len: Annotated[Count | None, NOT_NULL] = Field(default=None, description="c, summed over segments.")
    ref_len: Annotated[Count | None, NOT_NULL] = Field(default=None, description="r, summed over segments.")
    matches: Annotated[Counts | None, NOT_NULL] = Field(
        default=None, description="Clipped matches per order, before smoothing.")
    totals: Annotated[Counts | None, NOT_NULL] = Field(
        default=None, description="Candidate n-grams per order, before smoothing.")
    bp: Annotated[ExpectedValue | None, NOT_NULL] = Field(default=None, description="The brevity penalty.")
    precisions: Annotated[Precisions | None, NOT_NULL] = Field(
        default=None, description=(
            "p_n as they enter the geometric mean (after smoothing): a list, one entry per order from 1 (null: the "
            "order is left out, 0/0), or a mapping {order: value} stating only some orders, e.g. "
            "{2: 0.5882352941176471}."))

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if not self.model_fields_set:
            raise problem("must state at least one of " + ", ".join(type(self).model_fields), whole=True)
        if self.matches is not None and self.totals is not None:
            if len(self.matches) != len(self.totals):
                raise_all("statistics", [(("matches",), problem(
                    f"and `totals` must have one entry per order (got {len(self.matches)} and {len(self.totals)})"),
                    self.matches)])
            over = [n for n, (m, t) in enumerate(zip(self.matches, self.totals, strict=False)) if m > t]
            raise_all("statistics", [(("matches", n), problem(
                f"must not exceed `totals[{n}]` (got {self.matches[n]} > {self.totals[n]})"), self.matches[n])
                for n in over[:1]])
        return self


def _only_true(value: bool) -> bool:
    if value is not True:
        raise problem(f"must be true when given {got(value)}")
    return value


class CaseExpect(CaseModel):
    """What the document says the input gives: a score, statistics, or that it is invalid."""

    model_config = ConfigDict(json_schema_extra={
        "anyOf": [{"required": ["score"]}, {"required": ["statistics"]}, {"required": ["rejected"]}],
        "if": {"required": ["rejected"]},
        "then": {"not": {"anyOf": [{"required": [name]} for name in ("score", "tolerance", "exact", "statistics")]}},
    })

    score: Annotated[Score | None, NOT_NULL] = Field(
        default=None, description='The score on the 0-1 scale: a number (needs `tolerance`), "NaN", or an exact '
                                  'fraction string (needs `exact: true`).')
    tolerance: Annotated[Tolerance | None, NOT_NULL] = Field(default=None, description=(
        "Absolute, for every expected value given as a number. From the printed digits: rounded 0.7825 -> "
        "0.00005; doctest ELLIPSIS (truncated) 0.5045... -> 0.0001; a double's repr -> 1e-16; a derived value "
        "-> 1e-15."))
    exact: StrictBool = Field(
        default=False, description="true: the score is an exact fraction string (met within 1e-45).")
    statistics: Annotated[ExpectedStatistics | None, NOT_NULL] = Field(
        default=None, description="Statistics, BP and precisions the document states.")
    rejected: Annotated[StrictBool, AfterValidator(_only_true)] = Field(
        False, description="The document says the input is invalid; nothing else may be expected.",
        json_schema_extra={"const": True})

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if not ({"score", "statistics", "rejected"} & self.model_fields_set):
            raise problem("must state at least one of `score`, `statistics`, `rejected`", whole=True)
        if self.rejected:
            raise_all("expect", [((name,), sentence(
                f"`expect.rejected` cannot be combined with `expect.{name}`: a rejected input has no value"), None)
                for name in ("score", "tolerance", "exact", "statistics") if name in self.model_fields_set])
            return self
        raise_all("expect", [*self._exactness_problems(), *self._tolerance_problems()])
        return self

    def _exactness_problems(self) -> list[tuple[Loc, PydanticCustomError, object]]:
        """`exact: true` exactly when the score is a fraction string."""
        score = self.score
        if score is None:
            return [(("exact",), sentence("`expect.exact` is about `expect.score`, which is missing"), True)] \
                if self.exact else []
        if isinstance(score, Fraction) and not self.exact:
            return [(("score",), sentence(f"`expect.score` {str(score)!r} is an exact fraction: add `exact: true` "
                                          "(or give a number and a tolerance)"), str(score))]
        if isinstance(score, Decimal) and self.exact:
            if score.is_nan():
                return [(("exact",), sentence("`expect.exact` does not apply to a NaN score"), True)]
            return [(("exact",), sentence(f'`expect.exact: true` needs the score as a fraction string (write '
                                          f'"{show(score)}")'), True)]
        return []

    def _tolerance_problems(self) -> list[tuple[Loc, PydanticCustomError, object]]:
        """A tolerance exactly when some expected value is an approximate number."""
        approximate = [name for name, value in self.expected_numbers()
                       if isinstance(value, Decimal) and not value.is_nan()]
        if approximate and self.tolerance is None:
            return [((approximate[0].split(".")[0],), sentence(
                f"`expect.{approximate[0]}` is a number: `expect.tolerance` is required (or give an exact fraction "
                "string)"), None)]
        if self.tolerance is not None and not approximate:
            return [(("tolerance",), sentence(
                "`expect.tolerance` is given but no expected value is an approximate number"), self.tolerance)]
        return []

    def expected_numbers(self) -> Iterable[tuple[str, ExpectedNumber]]:
        """(name, value) of every expected score, BP and p_n stated."""
        if self.score is not None:
            yield "score", self.score
        statistics = self.statistics
        if statistics is not None:
            if statistics.bp is not None:
                yield "statistics.bp", statistics.bp
            for order, p in statistics.precisions or ():
                if p is not None:
                    yield f"statistics.precisions.{order}", p

    def printed(self) -> dict[str, object]:
        """What the document prints, as a run judges it: {"score", "tolerance"} (tolerance None: the score is
        exact, compared under the run's numeric contract), {"statistics"} (hyp_len, ref_len, matches, totals)
        and {"rejected": True}."""
        if self.rejected:
            return {"rejected": True}
        out: dict[str, object] = {}
        if self.score is not None:
            exact = self.exact or isinstance(self.score, Fraction)
            out["score"] = float(self.score)
            out["tolerance"] = None if exact or self.tolerance is None else float(self.tolerance)
        counts = {name: list(value) if isinstance(value, tuple) else value
                  for name in ("hyp_len", "ref_len", "matches", "totals")
                  if self.statistics is not None and (value := getattr(self.statistics, name)) is not None}
        if counts:
            out["statistics"] = counts
        return out


def _change(value: object) -> tuple[str, object]:
    """One change of an explanation: [convention, value], [smoothing, {method, parameters}] or
    [computation, name]. Whether the classifier knows a computation is for `cases validate` to say."""
    if not isinstance(value, (list, tuple)) or len(value) != 2 or not isinstance(value[0], str):
        raise problem(f"must be a pair [what, value] {got(value)}")
    what, given = value
    if what == "computation":
        if not isinstance(given, str) or not given:
            raise problem(f": a computation is named by a string {got(given)}")
        return what, given
    if what == "smoothing":
        return what, _smoothing_change(given)
    if what in CONVENTION_FIELDS:
        try:
            Options().with_changes(**{what: given})
        except (BleuOracleError, TypeError) as exc:
            raise problem(f": {exc}") from None
        return what, given
    raise problem(f"changes {what!r}, which is neither a convention ({', '.join(CONVENTION_FIELDS)}), `smoothing` "
                  "nor `computation`")


def _smoothing_change(given: object) -> Smoothing:
    if not isinstance(given, dict):
        raise problem(f": a smoothing must be a mapping {{method, parameters}} {got(given)}")
    for name, number in given.items():
        if name != "method":
            within_bounds(number)
    try:
        parsed = Smoothing.parse(dict(given))
    except (BleuOracleError, ValueError, ZeroDivisionError) as exc:
        raise problem(f": {exc}") from None
    if parsed is None:  # pragma: no cover - parse gives None for None only, and `given` is a mapping
        raise problem(f": a smoothing must be a mapping {{method, parameters}} {got(given)}")
    return parsed


class ExplainedBy(CaseModel):
    """Only in a `found_by` file: the root cause `oracle.diagnose.classify` named for the implementation's value.
    `cases validate` recomputes the oracle under the judged profile with these changes
    (`oracle.diagnose.classify.explained_value`) and compares with `expect`; `check` judges the input against
    the oracle only."""

    name: OneLine = Field(description="The explanation's name, e.g. segment_totals_floor=1.")
    change: Annotated[tuple[Annotated[tuple[str, Any], PlainValidator(_change)], ...],
                      listed("[what, value] pairs")] = Field(
        json_schema_extra={"minItems": 1, "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                                    "prefixItems": [{"type": "string"}, {}]}},
        description=(
            "[convention, value] (an oracle.formulas.conventions.Options field), [smoothing, {method, parameters}] "
            "(another reading of the smoothing method) or [computation, name] (an alternative computation "
            "oracle.diagnose.classify knows), in the order applied."))

    def convention_changes(self) -> dict[str, object]:
        """The convention overrides among the changes (no smoothing, no computation), as `oracle.score`
        keywords; like `oracle.diagnose.classify`, a changed empty-order rule applies at sentence level too."""
        changes = {k: v for k, v in self.change if k not in ("smoothing", "computation")}
        if "empty_order" in changes:
            changes.setdefault("sentence_empty_order", None)
        if "weight_normalisation" in changes:
            changes.setdefault("uniform_weights_only", False)
        return changes

    @property
    def computations(self) -> tuple[object, ...]:
        return tuple(v for k, v in self.change if k == "computation")
