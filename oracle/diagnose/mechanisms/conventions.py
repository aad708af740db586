"""Conventions as mechanisms: each rule of a convention's rule table (`oracle.formulas.conventions`,
`oracle.formulas.tokenizers`) other than the one in force is an alternative reading, named `<convention>=<rule>`.

`alternatives` is the one generator of them: the classifier (`classify._convention_changes`) and doctor's search
(`oracle.doctor.search.single_changes`) each ask it for the conventions they vary, in their own order, so that a
rule added to a table is tried by both and named and described here without a list to update.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    EMPTY_ORDER_RULES,
    NO_MATCH_RULES,
    REFERENCE_LENGTH_RULES,
    SEGMENT_TOTALS_FLOORS,
    WEIGHT_RULES,
)
from oracle.formulas.tokenizers import CASE_FOLD_RULES, FOLD_STAGE_RULES, LINE_PADDING_RULES, TOKEN_SPLIT_RULES

from .model import CONVENTION, EVERY_LAYER, RECOMPUTE, Mechanism, Route


def _as_set(options: Any, level: str | None, smoothing: Any, name: str) -> object:
    return getattr(options, name)


def _empty_order_in_force(options: Any, level: str | None, smoothing: Any, name: str) -> object:
    """The empty-order rule in force at the request's level under its smoothing (the field itself without a level)."""
    return options.empty_order if level is None else options.empty_order_at(level, smoothing)


@dataclass(frozen=True)
class Convention:
    """A convention the diagnosis varies: its `name` in explanations (`<name>=<rule>`), the `Options` field it sets
    (`option`), its rule table (rule -> words), the `phrase` an explanation's words put before a rule's, the options
    set with it (`also`), and when it is varied at all (on raw text only; where case is folded only)."""

    name: str
    option: str
    rules: Mapping[Any, str]
    phrase: str
    also: Mapping[str, object] = field(default_factory=dict)
    text_only: bool = False
    folded_only: bool = False
    in_force: Callable[[Any, str | None, Any, str], object] = _as_set

    def changes(self, rule: object) -> dict[str, object]:
        """The option changes of reading it by `rule`."""
        return {self.option: rule, **self.also}

    def words(self, rule: object) -> str:
        """An explanation's words for reading it by `rule` (what a record shows)."""
        return self.phrase + self.rules[rule]

    def mechanism_name(self, rule: object) -> str:
        return f"{self.name}={rule}"


CONVENTIONS = {convention.name: convention for convention in (
    Convention("case_fold", "case_fold", CASE_FOLD_RULES, "case is folded as ", folded_only=True),
    Convention("token_split", "token_split", TOKEN_SPLIT_RULES, "words are split on ", text_only=True),
    Convention("line_padding", "line_padding", LINE_PADDING_RULES, "", text_only=True),
    Convention("fold_stage", "fold_stage", FOLD_STAGE_RULES, "case is folded on ", text_only=True, folded_only=True),
    Convention("reference_length", "reference_length", REFERENCE_LENGTH_RULES, "r is "),
    Convention("segment_totals_floor", "segment_totals_floor", SEGMENT_TOTALS_FLOORS, ""),
    # the sentence-level and unsmoothed rules follow: the alternative is the rule in force everywhere
    Convention("empty_order", "empty_order", EMPTY_ORDER_RULES, "an order with no hypothesis n-grams: ",
               {"sentence_empty_order": None, "unsmoothed_empty_order": None}, in_force=_empty_order_in_force),
    Convention("weights", "weight_normalisation", WEIGHT_RULES, "", {"uniform_weights_only": False}),
    Convention("no_match", "no_match", NO_MATCH_RULES, "no n-gram of any order matches: "),
    Convention("both_empty", "both_empty", BOTH_EMPTY_RULES, "no hypothesis and no reference tokens: "),
)}


def alternatives(options: Any, names: Iterable[str], *, text: bool, lowercase: bool | None = None,
                 level: str | None = None, smoothing: Any = None,
                 only: Mapping[str, Iterable[object]] | None = None) -> list[tuple[Convention, object]]:
    """(convention, rule) for every rule other than the one in force under `options` of each convention of `names`,
    in that order and each table's order: on raw text (`text`) only for those that read it, where case is folded
    (`lowercase`, else `options.lowercase`) only for those that fold; `level` and `smoothing` say which empty-order
    rule is in force (None: the field as set); `only` restricts a convention to the rules a caller can score."""
    folded = options.lowercase if lowercase is None else lowercase
    out = []
    for name in names:
        convention = CONVENTIONS[name]
        if (convention.text_only and not text) or (convention.folded_only and not folded):
            continue
        current = convention.in_force(options, level, smoothing, convention.option)
        allowed = None if only is None or name not in only else tuple(only[name])
        out += [(convention, rule) for rule in convention.rules
                if rule != current and (allowed is None or rule in allowed)]
    return out


def _mechanisms() -> list[Mechanism]:
    return [Mechanism(convention.mechanism_name(rule), CONVENTION, f"{convention.name}: {words}", EVERY_LAYER,
                      RECOMPUTE, (Route("options", convention.changes(rule), convention.words(rule)),))
            for convention in CONVENTIONS.values() for rule, words in convention.rules.items()]


MECHANISMS = _mechanisms()

__all__ = ["CONVENTIONS", "Convention", "MECHANISMS", "alternatives"]
