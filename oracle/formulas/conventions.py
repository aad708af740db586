"""Every choice on which BLEU implementations differ, as data.

`Options` is a frozen value object: a profile (see `profiles.py`) is just an
instance of it. `Smoothing` names a smoothing method and its parameters in the
protocol's vocabulary (`{"method": "floor", "value": 0.1}`). Both validate
eagerly, so a bad option fails where it is written, not deep inside a score.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal
from fractions import Fraction
from numbers import Rational, Real
from typing import Any

from .bounds import MAX_COUNT, MAX_ORDER, number_problem
from .errors import BleuTypeError, BleuValueError, describe
from .memo import memoized
from .tokenizers import CASE_FOLD_RULES, FOLD_STAGE_RULES, LINE_PADDING_RULES, TOKEN_SPLIT_RULES, TOKENIZERS

#: Reference-length rules (Papineni et al. 2002, section 2.2.2: "best match length").
REFERENCE_LENGTH_RULES = {
    "closest": "the reference length closest to the hypothesis length; ties go to the shorter",
    "closest-longer": "closest to the hypothesis length; ties go to the longer",
    "closest-first": "closest to the hypothesis length; ties go to the one listed first",
    "shortest": "the shortest reference",
    "longest": "the longest reference",
}

#: How an order n with no hypothesis n-grams at all (totals[n] == 0) counts.
EMPTY_ORDER_RULES = {
    "zero": "p_n = 0, so the geometric mean and the score are 0",
    "skip": "the order is left out and the remaining weights renormalised (sacrebleu's effective order)",
    "one": "p_n = 1, so the order does not change the score",
}

#: What a corpus with no hypothesis tokens and no reference tokens scores (c = r = 0).
BOTH_EMPTY_RULES = {
    "nan": "NaN: every p_n is 0/0 and BP is 0/0, BLEU is undefined",
    "zero": "0",
}

#: Whether an order with weight 0 still makes the score 0 when its p_n is 0.
ZERO_WEIGHT_RULES = {
    "ignored": "w_n = 0 switches order n off: 0 * log 0 is taken as 0, its limit",
    "counted": "an order with p_n = 0 makes the score 0 whatever its weight (MATLAB states the rule by the number of "
               "weights)",
}

#: What a hypothesis none of whose n-grams matches scores (matches[n] == 0 for every order).
NO_MATCH_RULES = {
    "smoothed": "the formulas as they stand: 0 unless a smoothing method gives the zero orders a count",
    "zero": "0, before any smoothing is applied (sacrebleu 2.0.0: 'In case of no n-gram matches at all, skip "
            "smoothing and return 0.0 BLEU')",
}

#: How weights that do not sum to one are used.
WEIGHT_RULES = {
    "as-given": "the weights are used exactly as given",
    "normalise": "the weights are divided by their sum",
}

#: Each segment's n-gram total floored before summing (`Options.segment_totals_floor`; any non-negative int is
#: valid, these are the two floors implementations follow: not a closed set of rules, hence not named `..._RULES`,
#: the suffix the case schema's enums are checked against).
SEGMENT_TOTALS_FLOORS = {
    0: "no per-segment floor on n-gram totals",
    1: "each segment's n-gram total is at least 1 before summing (nltk's modified_precision denominator "
       "max(1, ...))",
}

#: Inputs the documents leave undefined (PROTOCOL.md, "Inputs the documents leave undefined"): no answer there is
#: wrong by any document. Refusing is the recommended answer (the oracle refuses them); the value of a named
#: convention of UNDEFINED_CONVENTIONS is `acceptable`, and `check --strict` holds an implementation to the refusal.
#: The other inputs PROTOCOL.md lists (a segment without references, a negative weight or smoothing parameter) are
#: invalid: outside what the formulas are defined on, so only a refusal is right.
UNDEFINED_INPUTS = {
    "empty-corpus": "a corpus with no segments: the sums are c = r = 0, every p_n is 0/0 and BP is e^(1 - 0/0)",
    "zero-weights": "every weight zero: exp(sum of w_n log p_n) is exp(0) = 1 when each p_n > 0, but 0 * log 0 "
                    "where an order has no match, and normalising the weights (MATLAB) divides 0 by 0",
}

#: The named conventions an implementation may follow on an undefined input: name -> (the input of UNDEFINED_INPUTS,
#: the value it answers, where it comes from). `oracle.diagnose.expect.undefined_answers` computes each value.
UNDEFINED_CONVENTIONS = {
    "empty-corpus-zero": (
        "empty-corpus", "0",
        "nothing matches, so BLEU is 0 (the nltk documentation: 'If there is no ngrams overlap for any order of "
        "n-grams, BLEU returns the value 0'); torchmetrics 1.9.0 `bleu_score([], [])` returns 0"),
    "empty-corpus-nan": (
        "empty-corpus", "NaN",
        "the sums of no segments are those of a corpus of empty segments, c = r = 0 with every p_n 0/0: undefined, "
        "as MATLAB's bleuEvaluationScore documents 'If candidate and references are both empty documents, then "
        "score is NaN' and the papineni profile's both_empty rule"),
    "zero-weights-bp": (
        "zero-weights", "BP",
        "the formula with 0 * log p_n taken as its limit 0 (zero_weight=ignored, the papineni profile's reading): "
        "BP * exp(0) = BP; nltk 3.10.4 `sentence_bleu(..., weights=(0, 0, 0, 0))` returns BP"),
    "zero-weights-counted": (
        "zero-weights", "0 where an order has no match (p_n = 0, or 0/0), else BP",
        "an order with p_n = 0 makes the geometric mean 0 whatever its weight (zero_weight=counted, the matlab "
        "profile's reading); torchmetrics 1.9.0 returns 0 there"),
    "zero-weights-nan": (
        "zero-weights", "NaN where an order has no match (p_n = 0, or 0/0), else BP",
        "the formula in IEEE floating point: 0 * log 0 = 0 * -inf = NaN; torcheval 0.0.7 returns NaN there"),
}

#: The conventions a protocol-v1 request may carry (`conventions` in a score command), each with its rules.
#: In: those on which implementations have switches, or a case of the suite needs one: `empty_order`
#: (sacrebleu's `effective_order=`, at either level; the rule in force for the request's level and smoothing,
#: so `sentence_empty_order` and `unsmoothed_empty_order` travel folded into it), `reference_length`
#: (closest against shortest is the split between the paper's family and tensorflow/nmt's), `no_match`
#: (sacrebleu 2.0.0's early 0 against the formulas) and `case_fold` (Unicode against Perl's ASCII lc).
#: Out: `smoothing` and `lowercase` are request fields of their own; `tokenizer` is the text request's
#: `tokenize`; `uniform_weights_only` is the capability `weights`; `default_max_order` never applies (a
#: request always carries its weights); `both_empty`, `zero_weight`, `weight_normalisation`,
#: `segment_totals_floor`, `token_split`, `line_padding` and `fold_stage` are behaviours no library we drive
#: lets a caller choose (nltk's `auto_reweigh` is a weights rule of its own, not `normalise`): an implementation
#: has them by its profile,
#: and a case needing another is not applicable, saying so.
REQUEST_CONVENTIONS = {
    "empty_order": EMPTY_ORDER_RULES,
    "reference_length": REFERENCE_LENGTH_RULES,
    "no_match": NO_MATCH_RULES,
    "case_fold": CASE_FOLD_RULES,
}

#: Parameters each smoothing method takes, with their documented defaults.
SMOOTHING_METHODS = {
    "none": {},
    "floor": {"value": Fraction(1, 10)},  # sacrebleu SMOOTH_DEFAULTS
    "add-k": {"k": Fraction(1)},  # sacrebleu SMOOTH_DEFAULTS
    "exp": {},  # NIST geometric sequence
    "chen-cherry-1": {"epsilon": Fraction(1, 10)},
    "chen-cherry-2": {},
    "chen-cherry-3": {},
    "chen-cherry-4": {"k": Fraction(5)},
    "chen-cherry-5": {},
    "chen-cherry-6": {"alpha": Fraction(5)},
    "chen-cherry-7": {"k": Fraction(5)},
    "lin-2004": {},
}
SMOOTHING_PARAMETERS = ("value", "k", "epsilon", "alpha")
#: Parameters that divide: zero is rejected for these.
_DIVISORS = {("chen-cherry-4", "k"), ("chen-cherry-7", "k")}


def exact_number(value: object, *, name: str) -> Fraction:
    """A finite real number as an exact Fraction (floats convert exactly). A number given as text or a
    Decimal (read from a file or the command line) must lie within the bounds of `oracle.formulas.bounds`:
    Fraction("1e100000000") would build a hundred-million-digit integer."""
    if type(value) is int:  # the common cases first: ABC checks are slow on the serve path
        return Fraction(value)
    if type(value) is float and math.isfinite(value):
        return Fraction(value)
    if isinstance(value, bool) or not isinstance(value, (Real, Decimal, str)):
        raise BleuTypeError(f"`{name}` must be a number (got {type(value).__name__} {describe(value)})")
    if isinstance(value, Decimal) and value.is_nan():  # comparing a signalling NaN would raise InvalidOperation
        raise BleuValueError(f"`{name}` must not be NaN (got {describe(value)})")
    if isinstance(value, (Decimal, str)):
        problem = number_problem(value)
        if problem is not None:
            raise BleuValueError(f"`{name}` {problem} (got {describe(value)})")
    # Fraction takes rationals, floats, Decimals and text only: another kind of real (numpy.float32) goes
    # through its float, which holds its value exactly for the binary floats
    readable = value if isinstance(value, (Rational, float, Decimal, str)) else float(value)
    try:
        number = Fraction(readable)
    except (ValueError, ZeroDivisionError, OverflowError) as exc:
        raise BleuValueError(f"`{name}` must be a finite number (got {describe(value)})") from exc
    if isinstance(value, float) and not math.isfinite(value):
        raise BleuValueError(f"`{name}` must be a finite number (got {describe(value)})")
    return number


def _choice(value: object, choices: Collection[str], *, name: str) -> str:
    if not isinstance(value, str):
        raise BleuTypeError(f"`{name}` must be a str (got {type(value).__name__} {describe(value)})")
    if value not in choices:
        raise BleuValueError(f"`{name}` must be one of {sorted(choices)} (got {value!r})")
    return value


@dataclass(frozen=True)
class Smoothing:
    """A smoothing method with its parameters; unset parameters take the documented default."""

    method: str = "none"
    value: Fraction | None = None
    k: Fraction | None = None
    epsilon: Fraction | None = None
    alpha: Fraction | None = None

    def __post_init__(self) -> None:
        _choice(self.method, SMOOTHING_METHODS, name="smoothing.method")
        accepted = SMOOTHING_METHODS[self.method]
        for name in SMOOTHING_PARAMETERS:
            given = getattr(self, name)
            if given is None:
                object.__setattr__(self, name, accepted.get(name))
                continue
            if name not in accepted:
                raise BleuValueError(
                    f"`smoothing.{name}` is not a parameter of {self.method!r} "
                    f"(it takes {sorted(accepted) or 'no parameters'}; got {name}={describe(given)})"
                )
            number = exact_number(given, name=f"smoothing.{name}")
            if number < 0:
                raise BleuValueError(f"`smoothing.{name}` must be non-negative (got {describe(given)})")
            if number == 0 and (self.method, name) in _DIVISORS:
                raise BleuValueError(
                    f"`smoothing.{name}` must be positive for {self.method!r}: it divides (got {describe(given)})"
                )
            object.__setattr__(self, name, number)

    def parameter(self, name: str) -> Fraction:
        """Parameter `name` of a method that takes it (given, or its documented default: never None)."""
        value = getattr(self, name)
        if value is None:
            raise BleuValueError(f"smoothing {self.method!r} takes no parameter `{name}`")
        return value

    @classmethod
    def parse(cls, spec: object) -> Smoothing | None:
        """Accept a Smoothing, a method name, or a protocol mapping {"method": ..., params}."""
        if spec is None:
            return None
        if isinstance(spec, Smoothing):
            return spec
        if isinstance(spec, str):
            return cls(method=spec)
        if isinstance(spec, dict):
            unknown = set(spec) - {"method", *SMOOTHING_PARAMETERS}
            if unknown:
                raise BleuValueError(f"`smoothing` has unknown fields {sorted(unknown)} (got {describe(spec)})")
            if "method" not in spec:
                raise BleuValueError(f"`smoothing` must name a `method` (got {describe(spec)})")
            return cls(**spec)
        raise BleuTypeError(
            f"`smoothing` must be a method name or a mapping (got {type(spec).__name__} {describe(spec)})"
        )

    def to_json(self) -> dict[str, object]:
        """The protocol form: only the parameters this method takes, as floats."""
        out: dict[str, object] = {"method": self.method}
        for name in SMOOTHING_METHODS[self.method]:
            out[name] = float(getattr(self, name))
        return out

    def describe(self) -> str:
        params = ", ".join(f"{n}={getattr(self, n)}" for n in SMOOTHING_METHODS[self.method])
        return f"{self.method}({params})" if params else self.method


@dataclass(frozen=True)
class Options:
    """The conventions a BLEU computation follows. Every field is one documented choice."""

    reference_length: str = "closest"
    empty_order: str = "zero"
    #: Overrides `empty_order` at sentence level (sacrebleu's effective order); None: same.
    sentence_empty_order: str | None = None
    #: Overrides `empty_order` when no smoothing is applied (mteval-v13a.pl's --no-smoothing); None: same.
    unsmoothed_empty_order: str | None = None
    both_empty: str = "nan"
    #: A hypothesis with no matching n-gram of any order: smoothing applies, or 0 before smoothing.
    no_match: str = "smoothed"
    weight_normalisation: str = "as-given"
    zero_weight: str = "ignored"
    #: Only uniform weights are meaningful (sacrebleu, multi-bleu.perl take none).
    uniform_weights_only: bool = False
    #: Each segment's n-gram total is at least this (nltk's code uses 1; the formula uses 0).
    segment_totals_floor: int = 0
    smoothing: Smoothing = field(default_factory=Smoothing)
    lowercase: bool = False
    #: Default weights when a caller gives none (BLEU-4).
    default_max_order: int = 4
    #: How raw text becomes tokens (`oracle.formulas.tokenizers`); token lists are taken as they are.
    tokenizer: str = "none"
    #: Which characters separate words in raw text (`TOKEN_SPLIT_RULES`): the last step of every tokenizer.
    token_split: str = "str-split"
    #: Whether 13a pads the line with a space at each end before its rules (`LINE_PADDING_RULES`).
    line_padding: str = "spaces"
    #: How `lowercase` folds case (`CASE_FOLD_RULES`).
    case_fold: str = "unicode"
    #: Where `lowercase` folds raw text: each token, or the line before the tokenizer (`FOLD_STAGE_RULES`).
    fold_stage: str = "tokens"

    def __post_init__(self) -> None:
        _choice(self.reference_length, REFERENCE_LENGTH_RULES, name="reference_length")
        _choice(self.empty_order, EMPTY_ORDER_RULES, name="empty_order")
        for name in ("sentence_empty_order", "unsmoothed_empty_order"):
            if getattr(self, name) is not None:
                _choice(getattr(self, name), EMPTY_ORDER_RULES, name=name)
        _choice(self.both_empty, BOTH_EMPTY_RULES, name="both_empty")
        _choice(self.no_match, NO_MATCH_RULES, name="no_match")
        _choice(self.weight_normalisation, WEIGHT_RULES, name="weight_normalisation")
        _choice(self.zero_weight, ZERO_WEIGHT_RULES, name="zero_weight")
        _choice(self.tokenizer, TOKENIZERS, name="tokenizer")
        _choice(self.token_split, TOKEN_SPLIT_RULES, name="token_split")
        _choice(self.line_padding, LINE_PADDING_RULES, name="line_padding")
        _choice(self.case_fold, CASE_FOLD_RULES, name="case_fold")
        _choice(self.fold_stage, FOLD_STAGE_RULES, name="fold_stage")
        for name in ("uniform_weights_only", "lowercase"):
            if not isinstance(getattr(self, name), bool):
                raise BleuTypeError(f"`{name}` must be a bool (got {describe(getattr(self, name))})")
        # the largest values are the bounds of what is read from outside (`oracle.formulas.bounds`): default
        # weights are a list of default_max_order entries, and the floor is a count
        for name, least, word, most in (("segment_totals_floor", 0, "non-negative", MAX_COUNT),
                                        ("default_max_order", 1, "positive", MAX_ORDER)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise BleuTypeError(f"`{name}` must be an int (got {type(value).__name__} {describe(value)})")
            if value < least:
                raise BleuValueError(f"`{name}` must be a {word} int (got {value})")
            if value > most:
                raise BleuValueError(f"`{name}` must be at most {most} (got {describe(value)})")
        if self.smoothing is None:
            raise BleuTypeError("`smoothing` must be a Smoothing, a method name or a mapping (got None)")
        object.__setattr__(self, "smoothing", Smoothing.parse(self.smoothing))

    def empty_order_at(self, level: str, smoothing: Smoothing | None = None) -> str:
        """The empty-order rule in force at `level` ("corpus" or "sentence") under `smoothing`."""
        if smoothing is not None and smoothing.method == "none" and self.unsmoothed_empty_order is not None:
            return self.unsmoothed_empty_order
        if level == "sentence" and self.sentence_empty_order is not None:
            return self.sentence_empty_order
        return self.empty_order

    def in_force(self, level: str, smoothing: Smoothing | None = None) -> dict[str, str]:
        """The request conventions (`REQUEST_CONVENTIONS`) in force for a request at `level` under
        `smoothing`: what a request carrying them asks of an implementation."""
        return {"empty_order": self.empty_order_at(level, smoothing), "reference_length": self.reference_length,
                "no_match": self.no_match, "case_fold": self.case_fold}

    def switched(self, conventions: dict[str, str]) -> Options:
        """A copy following the request conventions `conventions` (name -> rule), each as the rule in force
        for the request: a switched `empty_order` holds at either level, smoothed or not."""
        unknown = set(conventions) - set(REQUEST_CONVENTIONS)
        if unknown:
            raise BleuValueError(f"`conventions` has unknown names {sorted(unknown)}; a request may carry "
                                 f"{sorted(REQUEST_CONVENTIONS)}")
        changes: dict[str, object] = dict(conventions)
        if "empty_order" in changes:
            changes.update(sentence_empty_order=None, unsmoothed_empty_order=None)
        return self.with_changes(**changes) if changes else self

    def with_changes(self, **changes: Any) -> Options:
        """A copy with some conventions changed (the original is never mutated). Any: each value is checked
        when the copy is built (`__post_init__`), whatever its static type. The copies are kept (options are
        frozen): a search builds the same few changed options for every candidate and computation it tries."""
        try:
            return _changed_options(self, tuple(sorted(changes.items())))
        except TypeError:  # a value that cannot be hashed is checked by building the copy
            return self._built_with(changes)

    def _built_with(self, changes: dict[str, Any]) -> Options:
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise BleuValueError(f"unknown option(s) {sorted(unknown)}; options are {[f.name for f in fields(self)]}")
        return replace(self, **changes)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.to_json() if isinstance(value, Smoothing) else value
        return out


@memoized(1024)
def _changed_options(options: Options, changes: tuple[tuple[str, Any], ...]) -> Options:
    """`Options.with_changes`, kept (a refusal is raised every time: an exception is not kept)."""
    return options._built_with(dict(changes))
