"""A text transformation applied to one side only: case folded in the references but not the hypothesis, or in
the hypothesis but not the references, whether the request asks to fold both sides or neither.

An implementation that lowercases one side and forgets the other (`doctor` finds the same on files:
`lowercased-one-side`) returns matches no clipping rule and no case rule of both sides reproduces: a hypothesis
"The" against a reference "The" matches nothing, so a single record fits `strict-clipping` (m - 1 = 0) as well as
this, and a run of such records gets four names or none. These mechanisms recompute the counts from the request
alone, the folded side folded as the request's `case_fold` rule folds, the other side kept as sent.

The fold is one side's whatever the request asks: a wrapper may fold where the request folds and forget the other
side, or fold one side always (an evaluation script whose normalisation of the model's outputs lowercases them
and whose gold answers are read as written). Where the request keeps case, folding one side differs from the
formulas where that side has a token folding changes.

    >>> from oracle.formulas.conventions import Options
    >>> from oracle.models.protocol import Segment
    >>> segments = [Segment(hypothesis=["The", "cat"], references=[["The", "cat"]])]
    >>> folded = one_side_folded_counts("references")(segments, 2, Options(lowercase=True))
    >>> folded["matches"]  # "the" no longer equals "The": only "cat" matches
    (1, 0)

Where the request folds, each applies only where the kept side has a token that folding changes (else both sides
are folded alike, and the counts are the oracle's); where the folded side has none, folding it alone is folding
nothing: the counts are `case-not-folded`'s, both fit, and a run names the one that fits all its records. Where the
request keeps case, each applies only where the folded side has a token that folding changes; where the kept side
has none, the counts are `case-folded-unasked`'s (both sides folded), tried first, and both fit. Where the request
keeps case, the fold is named by returned statistics only (the counting route), never from a score alone.

The folding of one side (the how) is here; the mechanisms, their names, words and the order they are tried in,
are declared in the catalogue (`oracle.diagnose.mechanisms.structure.ONE_SIDE_FOLDS`).

Pure: the oracle's counting (`oracle.formulas.bleu`) and its case folding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from oracle.formulas import bleu
from oracle.formulas.tokenizers import fold_case


def _changes(sentences: Sequence[Any], fold: Callable[[str], str]) -> bool:
    """Whether folding changes some token (or, for a text request, some text) of `sentences`."""
    return any(fold(token) != token for sentence in sentences
               for token in ((sentence,) if isinstance(sentence, str) else sentence))


def _sides(segment: Any) -> dict[str, Sequence[Any]]:
    return {"hypothesis": (segment.hypothesis,), "references": tuple(segment.references)}


def applies(segments: Sequence[Any], side: str, rule: str, *, request_folds: bool = True) -> bool:
    """Whether folding only `side` of `segments` by `rule` differs from what the request asks: from folding both
    (`request_folds`), where some token of the other side, which keeps its case, changes when folded; from folding
    neither, where some token of `side` does."""
    changing = "hypothesis" if (side == "references") == request_folds else "references"
    return any(_changes(_sides(s)[changing], lambda text: fold_case(text, rule)) for s in segments)


def _folded_pairs(segments: Sequence[Any], side: str, rule: str) -> list[tuple[tuple[str, ...], list]]:
    """(hypothesis, references) of each segment, the tokens of `side` folded by `rule`, the other side's kept."""
    def fold(tokens: Sequence[str]) -> tuple[str, ...]:
        return tuple(fold_case(token, rule) for token in tokens)

    return [(fold(s.hypothesis) if side == "hypothesis" else tuple(s.hypothesis),
             [fold(r) if side == "references" else tuple(r) for r in s.references]) for s in segments]


def one_side_folded_counts(side: str) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """A counting alternative (`oracle.diagnose.mechanisms.counting.COUNTING_ALTERNATIVES`): the matches with the
    tokens of `side` folded by the options' `case_fold` rule and the other side's kept, whether the options fold
    case or not (None where that is what the request asks: `applies`). Lengths and totals are the oracle's (folding
    does not change how many tokens there are)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if not applies(segments, side, options.case_fold, request_folds=options.lowercase):
            return None
        kept = options.with_changes(lowercase=False)
        statistics = bleu.sum_statistics(_folded_pairs(segments, side, options.case_fold), max_order=n,
                                         options=kept)
        return {"matches": tuple(int(x) for x in statistics.matches[:n])}

    return counted


def one_side_folded_request(request: Any, text: Any, options: Any, side: str) -> Any | None:
    """The request as an implementation that folds only `side` scores it: that side's tokens (a text request's
    text, `text`, before its tokenizer) folded by the options' `case_fold` rule, the other side's kept, and the
    request's own folding off; None where the request does not fold case or folding one side is folding both
    (`applies`). This is the computation's route, tried from a score alone: where the request keeps case, the
    fold of one side is named by its counts only (`one_side_folded_counts`), which returned statistics compare
    exactly, as it would otherwise cost a computation on nearly every request, most of which keep case."""
    source = text if text is not None else request
    if not source.lowercase or not applies(source.segments, side, options.case_fold):
        return None

    def fold(sentence: Any) -> Any:
        if isinstance(sentence, str):
            return fold_case(sentence, options.case_fold)
        return tuple(fold_case(token, options.case_fold) for token in sentence)

    segments = tuple(s.model_copy(update={
        "hypothesis": fold(s.hypothesis) if side == "hypothesis" else s.hypothesis,
        "references": tuple(map(fold, s.references)) if side == "references" else s.references})
        for s in source.segments)
    return source.model_copy(update={"segments": segments, "lowercase": False})


__all__ = ["applies", "one_side_folded_counts", "one_side_folded_request"]
