"""Readings: a named profile, a tokenizer, a case, and the conventions changed from the profile.

A reading is one documented way of computing BLEU from the same two files. `Reading` names it the way a
person would say it ("nltk, tokens as given, mixed case, with nltk's per-segment floor of 1"), `Scorer`
computes it from a `StreamTable`'s shared counts: corpus readings exactly (`bleu.bleu_from_statistics`
on summed statistics), sentence-mean readings as the mean of the segments' own scores
(`sentences.mean_sentence_score`). Each reading also has a signature in the `score` verb's format, with
the conventions it changes from its profile appended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from decimal import Decimal
from fractions import Fraction
from functools import cached_property

from oracle.formulas import bleu
from oracle.formulas.conventions import Options, Smoothing
from oracle.formulas.errors import BleuValueError
from oracle.formulas.profiles import PROFILES
from oracle.formulas.tokenizers import TOKENIZERS
from oracle.signatures import signature

from .sentences import SCREENED_METHODS, mean_sentence_score
from .streams import ORDERS, StreamKey, StreamTable, stream_key

#: How a corpus's number is made from its segments.
AGGREGATIONS = {
    "corpus": "statistics summed over the segments, then one score (the formulas, section 2.1.1)",
    "sentence-mean": "the mean of every segment's own sentence-level score (a loop of sentence_bleu, then a "
                     "mean: not corpus BLEU)",
}
#: What a leading byte-order mark becomes.
BOM_RULES = {
    "dropped": "removed before tokenizing (textio, as `bleu-oracle score` reads UTF-8 with a signature)",
    "kept": "glued to the first token of line 1 (sacrebleu, multi-bleu.perl and any reader that decodes plain UTF-8)",
}
SCALES = ("0-1", "0-100")
#: The conventions a reading may change, in the order a waterfall changes them (the issue's order); the
#: Options fields each step moves together with are in `waterfall.STEPS`.
CONVENTIONS = ("bom", "token_split", "case_fold", "reference_length", "smoothing", "empty_order",
               "sentence_empty_order", "no_match", "segment_totals_floor", "aggregation")
_OPTION_FIELDS = {f.name for f in fields(Options)}
#: Sentence-level rows kept across means (about 50 MB): WMT17's 3,004 segments keep every stream's.
ROWS_KEPT = 500_000
UNIFORM = (Fraction(1, ORDERS),) * ORDERS


def shown(value: object) -> str:
    """A convention's value as a user writes it: `floor:value=0.1` (the --smoothing syntax), 1, true."""
    if isinstance(value, Smoothing):
        params = ",".join(f"{name}={float(getattr(value, name)):g}" for name in ("value", "k", "epsilon", "alpha")
                          if getattr(value, name) is not None)
        return value.method + (f":{params}" if params else "")
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "unset"
    return str(value)


@dataclass(frozen=True)
class Reading:
    """One way of computing BLEU from the files: a profile, a tokenizer, a case, changes from the profile."""

    profile: str
    tokenizer: str
    lowercase: bool
    #: ((convention, value), ...) in `CONVENTIONS` order: what this reading does differently from its profile
    changes: tuple = ()

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise BleuValueError(f"`profile` must be one of {sorted(PROFILES)} (got {self.profile!r})")
        if self.tokenizer not in TOKENIZERS:
            raise BleuValueError(f"`tokenize` must be one of {list(TOKENIZERS)} (got {self.tokenizer!r})")
        names = [name for name, _ in self.changes]
        unknown = [name for name in names if name not in CONVENTIONS]
        if unknown:
            raise BleuValueError(f"unknown convention(s) {unknown}; conventions are {list(CONVENTIONS)}")
        object.__setattr__(self, "changes", tuple(sorted(self.changes, key=lambda c: CONVENTIONS.index(c[0]))))

    def changed(self, name: str, value: object) -> Reading:
        """This reading with one more convention changed (or changed back, when `value` is the profile's)."""
        rest = tuple(c for c in self.changes if c[0] != name)
        default = self._default(name)
        return Reading(
            self.profile, self.tokenizer, self.lowercase, rest if value == default else rest + ((name, value),)
        )

    def _default(self, name: str) -> object:
        if name == "aggregation":
            return "corpus"
        if name == "bom":
            return "dropped"
        return getattr(PROFILES[self.profile].options, name)

    def value_of(self, name: str) -> object:
        """The value of convention `name` in this reading (its change, or the profile's)."""
        return dict(self.changes).get(name, self._default(name))

    @cached_property
    def options(self) -> Options:
        option_changes = {name: value for name, value in self.changes if name in _OPTION_FIELDS}
        return PROFILES[self.profile].options.with_changes(tokenizer=self.tokenizer, lowercase=self.lowercase,
                                                           **option_changes)

    def _name_of(self, name: str) -> str:
        """The value of a convention whose values are names (aggregation, bom)."""
        value = self.value_of(name)
        if not isinstance(value, str):
            raise BleuValueError(f"convention `{name}` must name a rule (got {value!r})")
        return value

    @property
    def aggregation(self) -> str:
        return self._name_of("aggregation")

    @property
    def stream(self) -> StreamKey:
        options = self.options
        return stream_key(self.tokenizer, self.lowercase, options.token_split, options.case_fold, self._name_of("bom"))

    @property
    def computation(self) -> Computation:
        return Computation(self.stream, self.options, self.aggregation)

    def conventions(self) -> dict:
        """What differs from the profile, each value as a user writes it."""
        return {name: shown(value) for name, value in self.changes}

    def signature(self, references: int) -> str:
        """The `score` verb's signature of this reading, with the changes it does not show appended."""
        options = self.options
        text = signature(self.profile, references=references, options=options, smoothing=options.smoothing,
                         weights=UNIFORM)
        extra = "".join(f"|{name}:{shown(value)}" for name, value in self.changes
                        if name not in ("smoothing", "token_split", "case_fold"))
        head, _, version = text.rpartition("|version:")
        return f"{head}{extra}|version:{version}"

    def label(self) -> str:
        """'sacrebleu, tok 13a, mixed case' with its changes: how the text output names a reading."""
        case = "lowercased" if self.lowercase else "mixed case"
        changes = "".join(f", {name}={shown(value)}" for name, value in self.changes)
        return f"{self.profile}, tok {self.tokenizer}, {case}{changes}"


@dataclass(frozen=True)
class Computation:
    """What a score is computed from: a token stream, the options of the formulas, and the aggregation.
    A reading names one; a waterfall's steps pass through others, halfway between two readings."""

    stream: StreamKey
    options: Options
    aggregation: str = "corpus"


@dataclass(frozen=True)
class Value:
    """A reading's score on the 0-1 scale, with the statistics it came from (corpus readings)."""

    score: float
    #: the exact score (corpus readings; 50 significant digits), None for a mean of sentence scores
    exact: Decimal | None
    bp: float | None
    statistics: bleu.Statistics | None


class Scorer:
    """Every reading's score from one `StreamTable`, each computed once."""

    def __init__(self, table: StreamTable) -> None:
        self.table = table
        self._corpus: dict[tuple[StreamKey, Options], bleu.BleuResult] = {}
        self._means: dict[tuple, float] = {}
        self._rows: dict[tuple[StreamKey, str], list] = {}

    def can_score(self, what: Reading | Computation) -> bool:
        computation = _computation(what)
        if computation.stream not in self.table.keys:
            return False
        if computation.aggregation == "sentence-mean":
            return self.table.sentence_level and computation.options.smoothing.method in SCREENED_METHODS
        return True

    def value(self, what: Reading | Computation) -> Value:
        computation = _computation(what)
        if computation.aggregation == "sentence-mean":
            return self._mean(computation)
        result = self.corpus_result(computation)
        return Value(float(result.score), result.score, float(result.bp), result.statistics)

    def corpus_result(self, what: Reading | Computation) -> bleu.BleuResult:
        """The exact corpus BLEU (the oracle's `bleu_from_statistics` on the summed statistics)."""
        computation = _computation(what)
        options = computation.options
        key = (computation.stream, options)
        result = self._corpus.get(key)
        if result is None:
            statistics = self.table.statistics(computation.stream, options.reference_length,
                                               options.segment_totals_floor)
            result = self._corpus[key] = bleu.bleu_from_statistics(statistics, weights=UNIFORM, options=options,
                                                                   level="corpus")
        return result

    def _mean(self, computation: Computation) -> Value:
        if not self.can_score(computation):
            raise BleuValueError("a mean of sentence scores needs every segment's statistics (at most "
                                 f"{self.table.limit} segments) and a smoothing of {list(SCREENED_METHODS)}")
        options = computation.options
        key = (computation.stream, _sentence_relevant(options, self.table.references))
        score = self._means.get(key)
        if score is None:
            score = self._means[key] = mean_sentence_score(self._rows_of(computation.stream, options.reference_length),
                                                           options)
        return Value(score, None, None, None)


    def _rows_of(self, stream: StreamKey, rule: str) -> list:
        """(c, r, m_1, ..., m_4) of every segment of `stream`, r under `rule`: kept once made, while the rows kept
        stay under ROWS_KEPT (about 100 bytes each); past that, made again for each mean."""
        rows = self._rows.get((stream, rule))
        if rows is None:
            rows = [(s.hyp_len, s.reference_length(rule), *s.matches) for s in self.table.segments_of(stream)]
            if len(rows) * (len(self._rows) + 1) <= ROWS_KEPT:
                self._rows[(stream, rule)] = rows
        return rows


def _computation(what: Reading | Computation) -> Computation:
    return what.computation if isinstance(what, Reading) else what


def _sentence_relevant(options: Options, references: int) -> tuple:
    """The options a sentence-level score depends on with uniform BLEU-4 weights (readings equal on these share
    one mean)."""
    rule = options.empty_order_at("sentence", options.smoothing)
    return (options.reference_length if references > 1 else "any", options.smoothing, rule, options.no_match,
            options.both_empty, options.segment_totals_floor)


def table_readings() -> list:
    """The readings table: every profile x every tokenizer x lowercase off/on, each profile as it stands."""
    return [Reading(name, tokenizer, lowercase) for name in PROFILES for tokenizer in TOKENIZERS
            for lowercase in (False, True)]


def on_scale(score: float, scale: str) -> float:
    return score * 100 if scale == "0-100" else score


def finite(value: float) -> bool:
    return not (math.isnan(value) or math.isinf(value))
