"""Counting alternatives: other ways of counting c, r, matches and totals that implementations have, as
integers, so that statistics an implementation returns can be recognised exactly before any score is
compared.

Sufficient statistics are the seam between counting and scoring: when an implementation returns
statistics that differ from the oracle's, and the oracle's scoring of *those* statistics gives the
implementation's score, the bug is in counting alone, and the counting alternative whose counts are
exactly the returned ones names it. Each alternative is a mechanism (what the code does), never a
library.

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> request = ScoreRequest(level="sentence", segments=[Segment(hypothesis=["a", "a"], references=[["a"]])],
    ...                        weights=[1.0])
    >>> unclipped_matches(request.segments, 1, fold=None)
    (2,)

The countings only (how each alternative counts): the alternatives themselves, their names, words, layers and the
order they are tried in, are declared in the catalogue (`oracle.diagnose.mechanisms.counting`).

Pure: the oracle's counting helpers (`oracle.formulas.bleu`) and integer arithmetic.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Any

from oracle.formulas import bleu
from oracle.formulas.tokenizers import fold_case


def fold_of(options: Any) -> Callable[[str], str] | None:
    """How `options` fold case (None: they keep it), as the oracle folds it."""
    if not options.lowercase:
        return None
    rule = options.case_fold
    return lambda token: fold_case(token, rule)


#: The n-gram counts of one pass of `matching_alternatives`, by (token sequence, order): most alternatives count
#: the same (folded) sentences, and a 65,600-token sentence takes tens of milliseconds to count each time.
_SHARED_COUNTS: ContextVar[dict[tuple[tuple[str, ...], int], Counter] | None] = ContextVar("shared_counts",
                                                                                          default=None)


def _count(tokens: tuple[str, ...], n: int) -> Counter:
    """`bleu.count`, shared within a pass of `matching_alternatives` (the Counter is read, never changed)."""
    shared = _SHARED_COUNTS.get()
    if shared is None:
        return bleu.count(tokens, n)
    key = (tokens, n)
    if key not in shared:
        shared[key] = bleu.count(tokens, n)
    return shared[key]


def _folded(tokens: Sequence[str], fold: Callable[[str], str] | None) -> tuple[str, ...]:
    return tuple(tokens) if fold is None else tuple(map(fold, tokens))


def _reference_maxima(references: Sequence[Sequence[str]], counted: Callable[[Sequence[str]], Counter]) -> Counter:
    """Each key's largest count in any one of `references` (`counted`: how one reference's keys are counted): the
    clipping limit of the modified precision, section 2.1 of the paper, whatever the variant keys by."""
    limit: Counter = Counter()
    for reference in references:
        for key, k in counted(reference).items():
            limit[key] = max(limit[key], k)
    return limit


def unclipped_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, every hypothesis n-gram that occurs in some reference, however often (no clipping)."""
    matches = [0] * n
    for segment in segments:
        hypothesis = _folded(segment.hypothesis, fold)
        in_some = set().union(*(_count(_folded(r, fold), n) for r in segment.references))
        for gram, k in _count(hypothesis, n).items():
            if gram in in_some:
                matches[len(gram) - 1] += k
    return tuple(matches)


def reference_count_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, each distinct hypothesis n-gram credited with its count in the reference (the largest over several
    references), never capped at the hypothesis's own count: min(h, r) with h left out, so "a" against "a a" counts
    2 matches of 1 unigram (matches may exceed the totals)."""
    matches = [0] * n
    for segment in segments:
        limit = _reference_maxima(segment.references, lambda reference: _count(_folded(reference, fold), n))
        for gram in _count(_folded(segment.hypothesis, fold), n):
            matches[len(gram) - 1] += limit[gram]
    return tuple(matches)


def reference_sum_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, counts clipped to the sum of the references' counts (not the largest single one)."""
    matches = [0] * n
    for segment in segments:
        limit: Counter = Counter()
        for reference in segment.references:
            limit.update(_count(_folded(reference, fold), n))
        for gram, k in _count(_folded(segment.hypothesis, fold), n).items():
            matches[len(gram) - 1] += min(k, limit[gram])
    return tuple(matches)


#: The key every n-gram CoNT's cosine test makes equal shares (`equal_direction_matches`): a private object, so that
#: no request's token can be it.
_ONE_DIRECTION = object()


def _keyed_by_direction(counts: Counter, constant: bool) -> Counter:
    """`counts` (n-grams of every order) keyed as a test of equal direction keys them where the request decides it:
    every unigram one key per order 1 (two positive one-element vectors point the same way); with `constant`, every
    n-gram of one repeated token one key of its order ((x, x) and (y, y) are proportional whatever the ids); every
    other n-gram by its tokens (its equality with another depends on the ids, which the request does not give)."""
    out: Counter = Counter()
    for gram, k in counts.items():
        if len(gram) == 1 or (constant and len(set(gram)) == 1):
            out[(_ONE_DIRECTION,) * len(gram)] += k
        else:
            out[gram] += k
    return out


def equal_direction_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None,
                            constant: bool) -> tuple[int, ...]:
    """Per order, the clipped matches of n-grams compared by the direction of their token-id vectors, not by identity
    (Shark-NLP/CoNT issue 4: `torch_bleu` takes two n-grams of ids as equal where their cosine similarity is 1): every
    hypothesis unigram matches every reference unigram, so a segment's unigram matches are min(c, its longest
    reference's length); with `constant`, an n-gram of one repeated token matches every such n-gram of its order.
    Clipped as section 2.1 clips (each key's largest count in one reference). Other n-grams are counted by identity:
    their equality depends on the ids (proportional id vectors), which the request does not give, so a record where
    the implementation's ids made two of them equal is not these counts (it is read by what is known,
    `other-counting-of-matches`)."""
    matches = [0] * n
    for segment in segments:
        limit = _reference_maxima(segment.references,
                                  lambda r: _keyed_by_direction(_count(_folded(r, fold), n), constant))
        for gram, k in _keyed_by_direction(_count(_folded(segment.hypothesis, fold), n), constant).items():
            matches[len(gram) - 1] += min(k, limit[gram])
    return tuple(matches)


def _every_unigram_matched(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
    """`equal_direction_counts`' bound, from the lengths alone (asked before anything is counted): its unigram matches
    are each segment's min(c, its longest reference's length), whatever the tokens."""
    return wanted["matches"][0] == sum(min(len(s.hypothesis), max((len(r) for r in s.references), default=0))
                                       for s in segments)


def equal_direction_counts(constant: bool) -> Callable[[Sequence[Any], int, Any], dict[str, Any]]:
    """`equal_direction_matches` as a counting alternative (the matches layer, the request's case folding), bounded
    before it counts by its unigram matches (`possible`): a record whose returned unigram matches are not the
    segments' min(c, longest reference) is not counted at all (most records of a run it does not name)."""
    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any]:
        return {"matches": equal_direction_matches(segments, n, fold=fold_of(options), constant=constant)}

    counted.possible = _every_unigram_matched  # type: ignore[attr-defined]
    return counted


def reference_recall_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any]:
    """Recall in place of precision, per order: each reference's n-grams matched against the hypothesis (min of the
    two counts per reference n-gram), summed over the references, over the references' own n-gram counts, each
    floored at 1 as the precision's denominator it was written from (`max(1, ...)`, nltk's `modified_precision`
    turned round: codebleu's `weighted_ngram_match.modified_recall`)."""
    fold = fold_of(options)
    matches, totals = [0] * n, [0] * n
    for segment in segments:
        hypothesis = _count(_folded(segment.hypothesis, fold), n)
        for reference in segment.references:
            for gram, k in _count(_folded(reference, fold), n).items():
                matches[len(gram) - 1] += min(k, hypothesis[gram])
            for order in range(1, n + 1):
                totals[order - 1] += max(1, len(reference) - order + 1)
    return {"matches": tuple(matches), "totals": tuple(totals)}


def normalised_fraction_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """Each segment's (matches, total) of each order kept as a normalised fraction, reduced by their gcd (0 of t
    becoming 0 of 1), and the reduced numerators and denominators summed over the corpus: Python's
    `Fraction(m, t)` (normalised by default) where `Fraction(m, t, _normalize=False)` was meant. None where no
    fraction reduces."""
    matches, totals, reduced = [0] * n, [0] * n, False
    for segment in segments:
        counts = bleu.sum_statistics([(segment.hypothesis, segment.references)], max_order=n, options=options)
        for order in range(n):
            m, t = int(counts.matches[order]), int(counts.totals[order])
            divisor = math.gcd(m, t) if t > 0 else 1
            reduced = reduced or divisor > 1
            matches[order] += m // divisor
            totals[order] += t // divisor
    return {"matches": tuple(matches), "totals": tuple(totals)} if reduced else None


def totals_one_short(segments: Sequence[Any], n: int) -> tuple[int, ...]:
    """Per order, len - n candidate n-grams instead of len - n + 1 (an off-by-one in the loop bound)."""
    return tuple(sum(max(len(s.hypothesis) - k, 0) for s in segments) for k in range(1, n + 1))


def _ngrams_one_short(tokens: tuple[str, ...], order: int) -> Counter:
    """The n-grams of `order` an extractor looping `for i in range(len(tokens) - order)` yields: every one but the
    last (a sequence of `order` tokens or fewer yields none)."""
    return Counter(tokens[i:i + order] for i in range(len(tokens) - order))


def last_ngram_dropped_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """Per order, matches and totals from an n-gram extractor whose loop stops one short, `range(len - n)` where
    `range(len - n + 1)` is meant, used for the hypothesis and the references alike: every token sequence loses its
    last n-gram of every order (the unigram of its last token included), so each total is len - n and each match is
    clipped against the references' n-grams less their last ones; c and r are the lengths, unchanged. None where no
    sequence has an n-gram to lose.

    Its totals are bounded before anything is counted (`possible`, asked before a pass is charged): exactly
    `totals_one_short`'s; and the matches must differ from the formulas' (where they do not, `totals-one-short` gives
    the same counts, and names them first). It `defers_to` the readings the catalogue held before it (a normalised
    fraction can reduce a segment's counts to these by coincidence): where one of them gave the counts, it is not
    asked."""
    fold = fold_of(options)
    matches, totals, changed = [0] * n, [0] * n, False
    for segment in segments:
        hypothesis = _folded(segment.hypothesis, fold)
        references = [_folded(reference, fold) for reference in segment.references]
        changed = changed or any(len(tokens) > 0 for tokens in (hypothesis, *references))
        for order in range(1, n + 1):
            limit = _reference_maxima(references, functools.partial(_ngrams_one_short, order=order))
            counted = _ngrams_one_short(hypothesis, order)
            matches[order - 1] += sum(min(k, limit[gram]) for gram, k in counted.items())
            totals[order - 1] += sum(counted.values())
    return {"matches": tuple(matches), "totals": tuple(totals)} if changed else None


def _last_ngram_dropped_possible(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
    n = len(oracle["totals"])
    return (wanted["matches"] != oracle["matches"]
            and wanted["totals"] == totals_one_short(segments, n))


#: The counting alternatives declared before these two (`mechanisms.counting`) whose counts they can equal on a record
#: by coincidence: where one of those was found, they are not asked (`matching_alternatives`), so that no record those
#: named changes.
EARLIER_READINGS = ("totals-one-short", "recall-instead-of-precision", "precision-fractions-normalised")

last_ngram_dropped_counts.possible = _last_ngram_dropped_possible  # type: ignore[attr-defined]
last_ngram_dropped_counts.defers_to = EARLIER_READINGS  # type: ignore[attr-defined]


def distinct_ngram_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """Per order, n-grams counted as sets: each segment's total is the number of its hypothesis's distinct n-grams
    and its matches those of them found in some reference (`len(set(hyp) & set(ref)) / len(set(hyp))`), so a
    repeated n-gram counts once on either side. None where no hypothesis repeats an n-gram (the counts are the
    formulas').

    Its counts are bounded before anything is counted (`possible`): every total at most the formulas', one of them
    less. It `defers_to` the readings the catalogue held before it and to `last-ngram-dropped`: where one of them gave
    the counts (a hypothesis whose repeated n-grams are as many as its orders gives the loop's totals; one token
    repeated reduces as a normalised fraction does), it is not asked."""
    fold = fold_of(options)
    matches, totals, repeated = [0] * n, [0] * n, False
    for segment in segments:
        hypothesis = _folded(segment.hypothesis, fold)
        references = [_folded(reference, fold) for reference in segment.references]
        in_some = set().union(*(_count(reference, n) for reference in references))
        for gram, k in _count(hypothesis, n).items():
            repeated = repeated or k > 1
            totals[len(gram) - 1] += 1
            matches[len(gram) - 1] += gram in in_some
    return {"matches": tuple(matches), "totals": tuple(totals)} if repeated else None


def _distinct_ngram_possible(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
    fewer = [w <= o for w, o in zip(wanted["totals"], oracle["totals"], strict=True)]
    return all(fewer) and wanted["totals"] != oracle["totals"]


distinct_ngram_counts.possible = _distinct_ngram_possible  # type: ignore[attr-defined]
distinct_ngram_counts.defers_to = (*EARLIER_READINGS, "last-ngram-dropped")  # type: ignore[attr-defined]


def best_single_reference_matches(
    segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None
) -> tuple[int, ...]:
    """Per order, the clipped matches against the one reference that gives the most on its own (each reference
    counted separately, the best kept), not against each n-gram's largest count over all references."""
    matches = [0] * n
    for segment in segments:
        hypothesis = _count(_folded(segment.hypothesis, fold), n)
        best = [0] * n
        for reference in segment.references:
            counts = _count(_folded(reference, fold), n)
            one = [0] * n
            for gram, k in hypothesis.items():
                one[len(gram) - 1] += min(k, counts.get(gram, 0))
            best = [max(b, o) for b, o in zip(best, one, strict=True)]
        matches = [a + b for a, b in zip(matches, best, strict=True)]
    return tuple(matches)


def strict_clip_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, clipping with `<` where `<=` is meant: a count at (or above) the reference maximum m counts
    m - 1, not m."""
    matches = [0] * n
    for segment in segments:
        limit = _reference_maxima(segment.references, lambda reference: _count(_folded(reference, fold), n))
        for gram, k in _count(_folded(segment.hypothesis, fold), n).items():
            m = limit[gram]
            matches[len(gram) - 1] += k if k < m else max(m - 1, 0)
    return tuple(matches)


def first_reference_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any]:
    """Matches and r from each segment's first reference alone (the other references ignored)."""
    firsts = [(s.hypothesis, s.references[:1]) for s in segments]
    counts = bleu.sum_statistics(firsts, max_order=n, options=options)
    return {"matches": tuple(counts.matches[:n]), "ref_len": counts.ref_len}


# -- the lengths c and r read otherwise (issue 36's stage matrix, stage 4; `mechanisms.counting.LENGTH_READINGS`) ----


def _characters(tokens: Sequence[str]) -> int:
    """A token sequence's length in characters as its line has it: the tokens joined by single spaces."""
    return len(" ".join(tokens))


def character_length_counts(side: str) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """c and r (`side` "text"), c alone ("hypotheses") or r alone ("references") measured in characters (each
    sentence's tokens joined by single spaces), the n-grams counted over the tokens as sent: each segment's r is the
    reference the judged rule picks among the references' lengths in r's unit, against c in c's unit. None where no
    length changes (every sentence at most one token of one character)."""
    hypotheses, references = side in ("text", "hypotheses"), side in ("text", "references")

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if all(_characters(t) == len(t) for s in segments for t in (s.hypothesis, *s.references)):
            return None
        hyp_len = ref_len = 0
        for segment in segments:
            c = _characters(segment.hypothesis) if hypotheses else len(segment.hypothesis)
            hyp_len += c
            if segment.references:
                lengths = [_characters(r) if references else len(r) for r in segment.references]
                ref_len += bleu.effective_reference_length(c, lengths, options.reference_length)
        changed = {"hyp_len": hyp_len} if hypotheses else {}
        return {**changed, "ref_len": ref_len} if references else changed

    return counted


def running_length_reference_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """r with each segment's reference picked by the judged rule against the running sum of the hypothesis lengths so
    far (this segment's included), not against this hypothesis's length: a metric state's `self.pred_len` used where
    the segment's own length was meant. None for a corpus of one segment, or where no segment has two references (the
    same r)."""
    if len(segments) < 2 or all(len(s.references) < 2 for s in segments):
        return None
    running = ref_len = 0
    for segment in segments:
        running += len(segment.hypothesis)
        if segment.references:
            ref_len += bleu.effective_reference_length(running, [len(r) for r in segment.references],
                                                       options.reference_length)
    return {"ref_len": ref_len}


def one_reference_length(position: int) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """r summed as each segment's reference at `position` (0: the first, -1: the last), whatever the rule, the
    matches clipped against every reference as the formulas clip them. None where no segment has two references."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if all(len(s.references) < 2 for s in segments):
            return None
        return {"ref_len": sum(len(s.references[position]) for s in segments if s.references)}

    return counted


def matching_pairs(
    segments: Sequence[Any],
    n: int,
    options: Any,
    reported: Any,
    oracle_counts: Any,
    lengths: Iterable[tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]],
    clippings: Iterable[tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]],
    *,
    permitted: Callable[..., bool] = lambda *names: True,
    charge: Callable[[], None] = lambda: None,
) -> list[tuple[str, str]]:
    """(length reading, clipping) pairs whose counts together are exactly the reported ones: the returned c and r
    differ from the formulas' and one of `lengths` (declared with the lengths it may change) gives them exactly, and the
    returned n-gram counts differ and one of `clippings` gives them exactly, every other count the formulas' (two
    stages wrong at once, layer by layer: a reference length and a clipping). Each is counted (`charge`d first) only
    where the layers it may change hold its half of the difference, the clippings only once a length reading gave
    the lengths."""
    wanted = _reported_counts(reported, n)
    if wanted is None:
        return []
    oracle = _counts_of(oracle_counts, n)
    differing = {layer for layer in wanted if wanted[layer] != oracle[layer]}
    length_part, count_part = differing & {"hyp_len", "ref_len"}, differing & {"matches", "totals"}
    if not length_part or not count_part:
        return []

    def fitting(candidates, part, layers):
        found = []
        for name, changes, count in candidates:
            if not part <= changes or not changes <= layers or not permitted(name):
                continue
            charge()
            changed = count(segments, n, options)
            if changed is not None and all({**oracle, **changed}[layer] == wanted[layer] for layer in layers):
                found.append(name)
        return found

    shared = _SHARED_COUNTS.set({})
    try:
        first = fitting(lengths, length_part, frozenset({"hyp_len", "ref_len"}))
        second = fitting(clippings, count_part, frozenset({"matches", "totals"})) if first else []
    finally:
        _SHARED_COUNTS.reset(shared)
    return [(a, b) for a in first for b in second if permitted(a, b)]


def joined_key_matches(separator: str) -> Callable[..., tuple[int, ...]]:
    """Per order, clipped matches where an n-gram is keyed by its tokens joined with `separator`, so n-grams
    whose joined text is the same match: ("a b", "c") and ("a", "b c") under " ", ("ab", "c") and ("a", "bc")
    under ""."""

    def matches_of(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
        matches = [0] * n
        for segment in segments:
            limit = _reference_maxima(segment.references,
                                      lambda reference: _joined_counts(_folded(reference, fold), n, separator))
            for key, k in _joined_counts(_folded(segment.hypothesis, fold), n, separator).items():
                matches[key[0] - 1] += min(k, limit[key])
        return tuple(matches)

    return matches_of


def _joined_counts(tokens: Sequence[str], n: int, separator: str) -> Counter:
    """Each order's n-grams counted by (order, their tokens joined with `separator`)."""
    counts: Counter = Counter()
    for gram, k in _count(tuple(tokens), n).items():
        counts[(len(gram), separator.join(gram))] += k
    return counts


def order_read_from_spaces(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """Matches and totals from one map of every order's n-grams keyed by their tokens joined with a space, each
    key's order read back as its number of spaces plus one (ketranm/tardis's BLEU.lua): a token holding a space
    moves its n-gram to a higher order, or out of range (None where no token holds a space: nothing moves)."""
    if not any(" " in t for s in segments for sentence in (s.hypothesis, *s.references) for t in sentence):
        return None
    fold = fold_of(options)
    matches, totals = [0] * n, [0] * n
    for segment in segments:
        limit = _reference_maxima(segment.references, lambda reference: _one_map(_folded(reference, fold), n))
        for key, k in _one_map(_folded(segment.hypothesis, fold), n).items():
            order = key.count(" ") + 1
            if order <= n:
                totals[order - 1] += k
                matches[order - 1] += min(k, limit[key])
    return {"matches": tuple(matches), "totals": tuple(totals)}


def matches_moved_by_spaces(
    segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None
) -> tuple[int, ...] | None:
    """Per order, clipped matches from one map of every order's n-grams keyed by their tokens joined with a space,
    each matched key's count added to the order read back from it (its tokens split on spaces again), the totals
    left to the lengths: a token holding a space moves its match to a higher order and merges it with the
    higher-order n-gram spelled alike (torchtext's `_compute_ngram_counter`, `tuple(x.split(" "))` of
    `" ".join(ngram)`: pytorch/text#2095). None where no token holds a space (nothing moves) or where a matched
    key's order is beyond n (the code indexes that order's count out of range: an error, not a score)."""
    if not any(" " in t for s in segments for sentence in (s.hypothesis, *s.references) for t in sentence):
        return None
    matches = [0] * n
    for segment in segments:
        limit = _reference_maxima(segment.references, lambda reference: _one_map(_folded(reference, fold), n))
        for key, k in _one_map(_folded(segment.hypothesis, fold), n).items():
            clipped = min(k, limit[key])
            if not clipped:
                continue
            order = key.count(" ") + 1
            if order > n:
                return None
            matches[order - 1] += clipped
    return tuple(matches)


def _one_map(tokens: Sequence[str], n: int) -> Counter:
    counts: Counter = Counter()
    for gram, k in _count(tuple(tokens), n).items():
        counts[" ".join(gram)] += k
    return counts


def wrapped_count_matches(bits: int) -> Callable[..., tuple[int, ...] | None]:
    """Per order, clipped matches with each n-gram's count kept in `bits` bits (wrapping modulo 2**bits) on both
    sides; None where no n-gram occurs that often (the wrap changes nothing)."""
    modulus = 2**bits

    def matches_of(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...] | None:
        matches, wrapped = [0] * n, False
        for segment in segments:
            limit: Counter = Counter()
            for reference in segment.references:
                for gram, k in _count(_folded(reference, fold), n).items():
                    wrapped |= k >= modulus
                    limit[gram] = max(limit[gram], k % modulus)
            for gram, k in _count(_folded(segment.hypothesis, fold), n).items():
                wrapped |= k >= modulus
                matches[len(gram) - 1] += min(k % modulus, limit[gram])
        return tuple(matches) if wrapped else None

    return matches_of


def counts_of_segments(choose: Callable[[Sequence[Any]], Sequence[Any] | None]):
    """Every count, over the segments `choose` keeps (None where it keeps them all: nothing changes; zeros where
    it keeps none: an empty corpus)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        kept = choose(segments)
        if kept is None or len(kept) == len(segments):
            return None
        if not kept:
            return {"hyp_len": 0, "ref_len": 0, "matches": (0,) * n, "totals": (0,) * n}
        return _counts_of(bleu.sum_statistics([(s.hypothesis, s.references) for s in kept], max_order=n,
                                              options=options), n)

    counted.leaves_no_segment = lambda segments: choose(segments) == []  # type: ignore[attr-defined]
    return counted


def counts_of_tokens(
    transform: Callable[[tuple[str, ...]], tuple[str, ...]], *, references_only: bool = False,
    hypotheses_only: bool = False,
) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """Every count, with each hypothesis and reference (each reference only, `references_only`; each hypothesis
    only, `hypotheses_only`) changed by `transform` before counting (None where it changes no token sequence:
    nothing to tell apart)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        pairs, changed = [], False
        for segment in segments:
            hypothesis = tuple(segment.hypothesis)
            new_hypothesis = hypothesis if references_only else transform(hypothesis)
            references = [tuple(r) if hypotheses_only else transform(tuple(r)) for r in segment.references]
            changed = changed or new_hypothesis != hypothesis or any(
                new != tuple(old) for new, old in zip(references, segment.references, strict=True))
            pairs.append((new_hypothesis, references))
        if not changed:
            return None
        return _counts_of(bleu.sum_statistics(pairs, max_order=n, options=options), n)

    return counted


#: A span from "(" to the next ")" with at least one character between (Whisper's BasicTextNormalizer,
#: `re.sub(r"\(([^)]+?)\)", "", s)`: the non-greedy group cannot pass a ")", so it is this span).
_PARENTHESISED = re.compile(r"\([^)]+\)")


def parenthesised_text_removed(tokens: tuple[str, ...]) -> tuple[str, ...]:
    r"""The tokens of the line `" ".join(tokens)` with every span from "(" to the next ")" deleted (at least one
    character between: "()" is kept) and the line split on whitespace again, as a transcript normaliser does to
    both sides before scoring (openai/whisper whisper/normalizers/basic.py, `BasicTextNormalizer`: "remove words
    between parenthesis", `re.sub(r"\(([^)]+?)\)", "", s)` then `re.sub(r"\s+", " ", s)`). A span may cross
    tokens ("(a", "b)" go together) and glue what stands either side of it without a space ("x(a)y" is "xy").
    Unchanged where the line holds no such span (then nothing is split again)."""
    line = " ".join(tokens)
    removed = _PARENTHESISED.sub("", line)
    return tokens if removed == line else tuple(removed.split())


def cut_at_first_line_break(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens of a text kept only up to its first line break: the token holding the first "\\n" keeps what stands
    before it (and goes where nothing does), every later token is lost. Only the text before the first break is
    scored where a text is read as one line of a line-oriented file, or split at its breaks and zipped with the
    other side's pieces, which keeps the first piece of each (vibrantlabsai/ragas#2888: texts split into sentences
    and passed as one reference stream per sentence, "only the first sentence is ever evaluated"; its #2809 splits
    multiline text on its lines). Unchanged where no token holds a line break."""
    for index, token in enumerate(tokens):
        if "\n" in token:
            head = token.split("\n", 1)[0]
            return (*tokens[:index], head) if head else tuple(tokens[:index])
    return tokens


def pad_and_eos_trimmed(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Leading "<pad>" and trailing "</s>"/"<pad>" dropped (fairseq's bleu_ltrim/bleu_rtrim: `while (end > 0)`,
    so the first token is never dropped from the end)."""
    start = 0
    while start < len(tokens) and tokens[start] == "<pad>":
        start += 1
    end = len(tokens)
    while end - start > 1 and tokens[end - 1] in ("</s>", "<pad>"):
        end -= 1
    return tokens[start:end]


def bpe_merged(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """subword-nmt's continuation marks undone (`(sentence + " ").replace("@@ ", "")`): a token ending in "@@" is
    glued to the next one."""
    merged: list[str] = []
    pending = ""
    for token in tokens:
        if token.endswith("@@"):
            pending += token[:-2]
        else:
            merged.append(pending + token)
            pending = ""
    return (*merged, pending) if pending else tuple(merged)


#: A reference token no hypothesis token can equal: a lone surrogate, which protocol v1 refuses on the wire.
def _trailing_nuls_dropped(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens of the line `" ".join(tokens)` with its trailing U+0000 characters dropped, split again: the last
    token loses its trailing NULs, and goes where nothing else is left of it (the space before it is then the line's
    end, which a whitespace split drops; a NUL before that space stays)."""
    if not tokens or not tokens[-1].endswith("\x00"):
        return tokens
    last = tokens[-1].rstrip("\x00")
    return (*tokens[:-1], last) if last else tokens[:-1]


def nul_padded_array_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """Every count, with the trailing NULs of each line kept in a fixed-width numpy string array dropped: every
    hypothesis, and every reference where each segment has as many references (reference streams with a None for a
    missing one are object arrays, whose strings are kept whole). None where no such line ends in NUL."""
    strip_references = len({len(s.references) for s in segments}) == 1
    pairs, changed = [], False
    for segment in segments:
        hypothesis = _trailing_nuls_dropped(tuple(segment.hypothesis))
        references = [_trailing_nuls_dropped(tuple(r)) if strip_references else tuple(r) for r in segment.references]
        changed = changed or hypothesis != tuple(segment.hypothesis) or any(
            new != tuple(old) for new, old in zip(references, segment.references, strict=True))
        pairs.append((hypothesis, references))
    if not changed:
        return None
    return _counts_of(bleu.sum_statistics(pairs, max_order=n, options=options), n)


_NEVER_MATCHED = "\ud800"


def unk_never_matched(tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_NEVER_MATCHED if t == "<unk>" else t for t in tokens)


#: Names a JavaScript object inherits from Object.prototype: a port counting n-grams in `{}` never finds them
#: as its own keys (or reads a function), so such unigrams never match.
OBJECT_MEMBER_NAMES = frozenset({"__proto__", "constructor", "toString", "valueOf", "hasOwnProperty",
                                 "isPrototypeOf", "propertyIsEnumerable", "toLocaleString"})


def object_member_unigrams_unmatched(segments: Sequence[Any], n: int, *,
                                     fold: Callable[[str], str] | None) -> tuple[int, ...] | None:
    """Per order, the clipped matches with unigrams named like Object.prototype members never matching (None where
    no such unigram would have matched)."""
    matches = [0] * n
    found = False
    for segment in segments:
        one = bleu.clipped_matches(_count(_folded(segment.hypothesis, fold), n),
                                   [_count(_folded(r, fold), n) for r in segment.references], n)
        lost = 0
        if n:
            limit = _reference_maxima(segment.references, lambda reference: Counter(_folded(reference, fold)))
            hypothesis_counts = Counter(_folded(segment.hypothesis, fold))
            lost = sum(min(k, limit[t]) for t, k in hypothesis_counts.items() if t in OBJECT_MEMBER_NAMES)
        found = found or lost > 0
        matches = [a + b for a, b in zip(matches, one, strict=False)]
        matches[0] -= lost
    return tuple(matches) if found else None


def distance_reference_lengths(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any]:
    """r summed as each segment's smallest distance |len(ref) - c|, not the closest reference's length."""
    return {"ref_len": sum(min(abs(len(r) - len(s.hypothesis)) for r in s.references) for s in segments)}


def with_end_tokens(segments: Sequence[Any]) -> tuple[Any, ...] | None:
    """The segments with every empty hypothesis and reference made one end-of-sentence token, the same on
    both sides and unlike any token of theirs (None where none is empty: nothing changes)."""
    if not any(not s.hypothesis or not all(s.references) for s in segments):
        return None
    tokens = {t for s in segments for t in (*s.hypothesis, *(t for r in s.references for t in r))}
    end = "</s>"
    while end in tokens:
        end += "'"

    def kept(sentence: Sequence[str]) -> tuple[str, ...]:
        return tuple(sentence) or (end,)

    return tuple(s.model_copy(update={"hypothesis": kept(s.hypothesis), "references": tuple(map(kept, s.references))})
                 for s in segments)


def end_token_counts(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """Every count, with each empty sentence counted as its one end-of-sentence token (`with_end_tokens`)."""
    changed = with_end_tokens(segments)
    if changed is None:
        return None
    return _counts_of(bleu.sum_statistics([(s.hypothesis, s.references) for s in changed], max_order=n,
                                          options=options), n)


#: Lengths an input is commonly cut to before scoring (a model's or a tokenizer's maximum length).
TRUNCATION_LENGTHS = (64, 128, 256, 512, 1024, 2048, 4096)


def truncated_counts(length: int) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """Every count, with each hypothesis and reference cut to its first `length` tokens before counting
    (None where nothing is that long: the cut changes nothing)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if all(len(s.hypothesis) <= length and all(len(r) <= length for r in s.references) for s in segments):
            return None
        cut = [(s.hypothesis[:length], [r[:length] for r in s.references]) for s in segments]
        return _counts_of(bleu.sum_statistics(cut, max_order=n, options=options), n)

    return counted


def length_of_one_segment(layer: str, position: int) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """The corpus's `layer` ("hyp_len" or "ref_len") as one segment's own (`position` 0: the first, -1: the last),
    not summed over the segments (None for a corpus of one segment: the sum is that segment's). A per-corpus sum
    that holds one segment's value: assigned where it was to be added (`pred_len = len(prediction)` inside the loop
    over a batch's predictions, as a draft reviewed in open-mmlab/mmeval#66 has it), or read from one segment."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if len(segments) < 2:
            return None
        one = segments[position]
        statistics = bleu.sum_statistics([(one.hypothesis, one.references)], max_order=n, options=options)
        return {layer: _whole(getattr(statistics, layer))}

    return counted


def _last_character_chopped(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens of the line `" ".join(tokens)` with its last character removed: the last token loses its last
    character, and goes where nothing is left of it (the space before it is then the line's end, which a split on
    whitespace drops)."""
    if not tokens:
        return tokens
    last = tokens[-1][:-1]
    return (*tokens[:-1], last) if last else tokens[:-1]


def chopped_counts(side: str) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """Every count, with the last segment's line of `side` ("hypotheses": its hypothesis; "references": each of its
    references, the last line of each reference file) without its last character (Perl's `chop`, or `line[:-1]`, on
    a file whose last line has no newline). None where no such line has a character to lose. Removing a newline
    that may not be there takes the line's last character where it is not (isaacg1/pyth#66: ".z would strip off the
    last character of a line if there was no trailing newline").

    Only the last segment's last n-gram of each order changes, so the counts it can give are bounded before they
    are counted (`possible`, asked before a pass is charged): c less by at most one and each total with it for the
    hypothesis, each order's matches within one of the formulas' (within one per reference for the references)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        *kept, last = segments
        hypothesis, references = tuple(last.hypothesis), [tuple(r) for r in last.references]
        if side == "hypotheses":
            hypothesis = _last_character_chopped(hypothesis)
        else:
            references = [_last_character_chopped(r) for r in references]
        if hypothesis == tuple(last.hypothesis) and references == [tuple(r) for r in last.references]:
            return None
        pairs = [*((s.hypothesis, s.references) for s in kept), (hypothesis, references)]
        return _counts_of(bleu.sum_statistics(pairs, max_order=n, options=options), n)

    def possible(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
        reach = 1 if side == "hypotheses" else len(segments[-1].references)
        if any(abs(w - o) > reach for w, o in zip(wanted["matches"], oracle["matches"], strict=True)):
            return False
        if side == "references":
            return wanted["hyp_len"] == oracle["hyp_len"] and wanted["totals"] == oracle["totals"]
        shorter = oracle["hyp_len"] - wanted["hyp_len"]
        return shorter in (0, 1) and all(0 <= o - w <= shorter for w, o in zip(wanted["totals"], oracle["totals"],
                                                                                strict=True))

    counted.possible = possible  # type: ignore[attr-defined]
    return counted


#: The longest cap searched for (the longest of `TRUNCATION_LENGTHS`): the lengths under each cap up to it are
#: computed, a pass over the corpus's lengths each.
LONGEST_CAP = max(TRUNCATION_LENGTHS)
#: The most caps one record may fit and still be named by them: where more give its counts, the counts do not say
#: which length was applied, and no cap is claimed.
MOST_CAPS_NAMED = 16


def capped_name(stem: str, cap: int) -> str:
    return f"{stem}{cap}-tokens"


def capped_counts(side: str, cap: int) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """Every count, with each sentence of `side` ("hypotheses" or "references") cut to its first `cap` tokens
    (None where none is longer: the cut changes nothing)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        hypotheses_cut = side == "hypotheses"
        if all(len(s.hypothesis) <= cap if hypotheses_cut else all(len(r) <= cap for r in s.references)
               for s in segments):
            return None
        cut = [(s.hypothesis[:cap] if hypotheses_cut else s.hypothesis,
                s.references if hypotheses_cut else [r[:cap] for r in s.references]) for s in segments]
        return _counts_of(bleu.sum_statistics(cut, max_order=n, options=options), n)

    return counted


def _lengths_under_caps(segments: Sequence[Any], side: str, options: Any, top: int) -> list[tuple[int, int]]:
    """(c, r) with `side` cut to each cap below `top` (index 0 unused), from the lengths alone: each segment adds its
    change under the caps below its own longest sentence of that side, so the work is that of one pass over the
    lengths of the sentences the caps cut."""
    rule = options.reference_length
    base_c = base_r = 0
    changes_c, changes_r = [0] * top, [0] * top
    for segment in segments:
        length = len(segment.hypothesis)
        reference_lengths = [len(reference) for reference in segment.references]
        r = bleu.effective_reference_length(length, reference_lengths, rule)
        base_c, base_r = base_c + length, base_r + r
        longest = length if side == "hypotheses" else max(reference_lengths, default=0)
        for cap in range(1, min(longest, top)):
            if side == "hypotheses":
                changes_c[cap] += min(length, cap) - length
                changes_r[cap] += bleu.effective_reference_length(min(length, cap), reference_lengths, rule) - r
            else:
                cut = [min(reference_length, cap) for reference_length in reference_lengths]
                changes_r[cap] += bleu.effective_reference_length(length, cut, rule) - r
    return [(base_c + changes_c[cap], base_r + changes_r[cap]) for cap in range(top)]


def _cap_could_give(side: str, wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
    """Whether a cap on `side` could give `wanted` where the formulas give `oracle`: a cap only takes n-grams away
    (each order's matches, and for the hypotheses c and each total, no more than the formulas'), and a cap on the
    references leaves c and the totals as they are."""
    if any(w > o for w, o in zip(wanted["matches"], oracle["matches"], strict=True)):
        return False
    if side == "references":
        return wanted["hyp_len"] == oracle["hyp_len"] and wanted["totals"] == oracle["totals"]
    return wanted["hyp_len"] < oracle["hyp_len"] and all(
        w <= o for w, o in zip(wanted["totals"], oracle["totals"], strict=True))


def fitted_caps(side: str, segments: Sequence[Any], n: int, options: Any, wanted: dict[str, Any],
                oracle: dict[str, Any], charge: Callable[[], None]) -> list[int]:
    """Every cap on `side`'s lengths under which the counts are exactly `wanted` (none where more than
    `MOST_CAPS_NAMED` are). The caps whose lengths (c, r) are the wanted ones are found from the lengths alone; the
    matches grow with the cap, so those whose matches are the wanted ones are an interval of them, found by bisection
    (each count `charge`d first) and checked whole at both ends."""
    if not _cap_could_give(side, wanted, oracle):
        return []
    longest = max((len(s.hypothesis) if side == "hypotheses" else max(map(len, s.references), default=0))
                  for s in segments)
    lengths = (wanted["hyp_len"], wanted["ref_len"])
    charge()  # the lengths under every cap: a pass over the lengths, not the tokens
    under = _lengths_under_caps(segments, side, options, min(longest, LONGEST_CAP + 1))
    caps = [cap for cap in range(1, len(under)) if under[cap] == lengths]
    counted: dict[int, dict[str, Any]] = {}

    def counts(index: int) -> dict[str, Any]:
        cap = caps[index]
        if cap not in counted:
            charge()
            counted[cap] = capped_counts(side, cap)(segments, n, options) or {}
        return counted[cap]

    def first(test: Callable[[tuple[int, ...]], bool]) -> int:
        low, high = 0, len(caps)
        while low < high:
            middle = (low + high) // 2
            low, high = (low, middle) if test(counts(middle)["matches"]) else (middle + 1, high)
        return low

    target = tuple(wanted["matches"])
    low = first(lambda matches: all(m >= t for m, t in zip(matches, target, strict=True)))
    high = first(lambda matches: any(m > t for m, t in zip(matches, target, strict=True))) - 1
    if low > high or high - low + 1 > MOST_CAPS_NAMED or counts(low) != wanted or counts(high) != wanted:
        return []
    return caps[low:high + 1]


def case_changed_matches(segments: Sequence[Any], n: int, options: Any, *, lowercase: bool) -> tuple[int, ...]:
    """Per order, the clipped matches with case folded (`lowercase`) or kept, whatever the request asked."""
    changed = options.with_changes(lowercase=lowercase)
    matches = [0] * n
    for segment in segments:
        one = bleu.segment_statistics(segment.hypothesis, segment.references, max_order=n, options=changed)
        matches = [a + b for a, b in zip(matches, one.matches, strict=False)]
    return tuple(matches)


def unless_options(condition: Callable[[Any], bool], function: Callable[[Sequence[Any], int, Any], tuple[int, ...]]):
    """`function` where `condition(options)` holds, else nothing (no counts: the alternative does not apply)."""
    return lambda segments, n, options: function(segments, n, options) if condition(options) else None


def one_layer(name: str, function: Callable[..., Any]) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """An alternative that changes one layer (`name`): its counts as {layer: counts}, or None (does not apply)."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        value = function(segments, n, options)
        return None if value is None else {name: tuple(int(x) for x in value)}

    return counted


def folding(
    function: Callable[..., tuple[int, ...] | None],
) -> Callable[[Sequence[Any], int, Any], tuple[int, ...] | None]:
    return lambda segments, n, options: function(segments, n, fold=fold_of(options))


MATCHES = frozenset({"matches"})
ALL_LAYERS = frozenset({"hyp_len", "ref_len", "matches", "totals"})
def all_references_empty(segments: Sequence[Any]) -> bool:
    """tfma's test of one `add_input` batch, `np.all(np.array(references) == [""])` over its reference streams:
    true when every segment has the same number of references and each is empty, or none has any."""
    counts = {len(s.references) for s in segments}
    return len(counts) == 1 and all(not reference for s in segments for reference in s.references)


def empty_reference_totals(segments: Sequence[Any], n: int, options: Any) -> tuple[int, ...] | None:
    """tfma's totals for a corpus given in one batch whose references are all empty: none of its hypothesis
    n-grams is counted (`_extract_statistics_for_empty_reference`); None for any other corpus."""
    return (0,) * n if all_references_empty(segments) else None




# -- the counting stages by kind (issue 36, counting-kinds): what an n-gram extractor's window, the clip, one segment's
#    counts or a statistics field read for another give; `mechanisms.counting.STAGE_KINDS` declares them ---------------

#: A window of an n-gram extractor, as a function of the order n: (start, end, stop) for `for i in range(len(tokens) -
#: n + 1 + stop): key = tuple(tokens[i + start:i + n + end])` (Python's slices, so a window past the end is short).
Window = Callable[[int], tuple[int, int, int]]


def window_grams(tokens: tuple[str, ...], n: int, window: Window) -> Counter:
    """The keys an extractor with `window` yields at order `n` and their counts (no window where the loop's bound is
    0 or less)."""
    start, end, stop = window(n)
    return Counter(tokens[i + start:i + n + end] for i in range(len(tokens) - n + 1 + stop))


def window_counts(window: Window) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """Per order, matches and totals from an n-gram extractor whose window is `window` (`window_grams`), used for the
    hypothesis and the references alike and clipped as section 2.1 clips (each key's count against its largest count
    in any one reference); c and r are the lengths, unchanged. Its totals follow from the lengths alone, so it is
    bounded before anything is counted (`possible`)."""

    def totals_of(segments: Sequence[Any], n: int) -> tuple[int, ...]:
        return tuple(sum(max(len(s.hypothesis) - order + 1 + window(order)[2], 0) for s in segments)
                     for order in range(1, n + 1))

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        fold = fold_of(options)
        matches, totals = [0] * n, [0] * n
        for segment in segments:
            hypothesis = _folded(segment.hypothesis, fold)
            references = [_folded(reference, fold) for reference in segment.references]
            for order in range(1, n + 1):
                limit = _reference_maxima(references, functools.partial(window_grams, n=order, window=window))
                counted_grams = window_grams(hypothesis, order, window)
                matches[order - 1] += sum(min(k, limit[gram]) for gram, k in counted_grams.items())
                totals[order - 1] += sum(counted_grams.values())
        return {"matches": tuple(matches), "totals": tuple(totals)}

    def possible(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
        return wanted["totals"] == totals_of(segments, len(oracle["totals"]))

    counted.possible = possible  # type: ignore[attr-defined]
    return counted


def max_clip_matches(segments: Sequence[Any], n: int, *, fold: Callable[[str], str] | None) -> tuple[int, ...]:
    """Per order, each hypothesis n-gram's count clipped with max where min is meant: max(h, the reference limit),
    so every n-gram counts at least its own count and matches are never below the totals."""
    matches = [0] * n
    for segment in segments:
        limit = _reference_maxima(segment.references, lambda reference: _count(_folded(reference, fold), n))
        for gram, k in _count(_folded(segment.hypothesis, fold), n).items():
            matches[len(gram) - 1] += max(k, limit[gram])
    return tuple(matches)


def _max_clip_possible(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
    return all(m >= t for m, t in zip(wanted["matches"], wanted["totals"], strict=True))


max_clip_matches.possible = _max_clip_possible  # type: ignore[attr-defined]


def no_matches(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
    """No n-gram ever matches: every order's matches 0, the totals and lengths the formulas'."""
    return {"matches": (0,) * n}


no_matches.possible = lambda segments, wanted, oracle: not any(wanted["matches"])  # type: ignore[attr-defined]


def counts_of_one_segment(layer: str, position: int) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """The corpus's per-order `layer` ("matches" or "totals") as one segment's own (`position` 0: the first, -1: the
    last), every other count summed (None for a corpus of one segment): `length_of_one_segment`'s kind at the n-gram
    counts, a sum assigned in the loop where it was to be added, or read from one segment."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        if len(segments) < 2:
            return None
        one = segments[position]
        statistics = bleu.sum_statistics([(one.hypothesis, one.references)], max_order=n, options=options)
        return {layer: tuple(map(_whole, getattr(statistics, layer)[:n]))}

    return counted


def field_read_for(layer: str, source: str) -> Callable[[Sequence[Any], int, Any], dict[str, Any] | None]:
    """The corpus's `layer` holding the formulas' `source` (c for r, matches for totals, ...): a statistics record's
    field read at the neighbouring index where its own was meant. Bounded (`possible`): the wanted layer must be the
    oracle's `source`."""

    def counted(segments: Sequence[Any], n: int, options: Any) -> dict[str, Any] | None:
        pairs = [(s.hypothesis, s.references) for s in segments]
        return {layer: _counts_of(bleu.sum_statistics(pairs, max_order=n, options=options), n)[source]}

    def possible(segments: Sequence[Any], wanted: dict[str, Any], oracle: dict[str, Any]) -> bool:
        return wanted[layer] == oracle[source]

    counted.possible = possible  # type: ignore[attr-defined]
    return counted


def _whole(x: Any) -> int:
    if int(x) != x:
        raise ValueError(f"not a count: {x!r}")
    return int(x)


def _reported_counts(reported: Any, n: int) -> dict[str, Any] | None:
    """The counts an implementation returned as integers, as `_counts_of` gives them; None where no counting
    alternative of the request's `n` orders can give them: a fractional count (smoothed counts), or statistics of
    fewer orders than `n` (the matches and totals of another request's orders, an earlier answer kept)."""
    if len(reported.matches) < n or len(reported.totals) < n:
        return None
    try:
        return _counts_of(reported, n)
    except (TypeError, ValueError):  # a fractional count (`_whole`): smoothed counts are no counting alternative's
        return None


def _counts_of(statistics: Any, n: int) -> dict[str, Any]:
    """The counts as integers (ValueError for a fractional one: smoothed counts are no counting alternative's)."""
    return {
        "hyp_len": _whole(statistics.hyp_len),
        "ref_len": _whole(statistics.ref_len),
        "matches": tuple(map(_whole, statistics.matches[:n])),
        "totals": tuple(map(_whole, statistics.totals[:n])),
    }


def matching_alternatives(
    segments: Sequence[Any],
    n: int,
    options: Any,
    reported: Any,
    oracle_counts: Any,
    alternatives: Iterable[tuple[str, frozenset[str], Callable[[Sequence[Any], int, Any], dict[str, Any] | None]]],
    capped_sides: Iterable[tuple[str, str]],
    *,
    permitted: Callable[[str], bool] = lambda name: True,
    charge: Callable[[], None] = lambda: None,
    family_permitted: Callable[[str], bool] = lambda stem: True,
    spent: tuple[type[BaseException], ...] = (),
) -> list[str]:
    """The counting alternatives whose counts are exactly the reported ones, the counts they do not change being
    the oracle's (`reported`: the protocol's Statistics; `oracle_counts`: the oracle's formulas Statistics), tried
    in the order of `alternatives` (name, the layers it may change, its counting) and then `capped_sides` (a capped
    family's stem, the side it cuts): the catalogue's (`mechanisms.counting.matching_alternatives`). Each is counted
    (one pass over every token, `charge`d first) only where `permitted`, and not where an alternative its counting
    `defers_to` was found already (the same counts, named by the reading the catalogue held first). Where `charge`
    raises one of `spent` (the search's budget is spent) after an alternative gave the counts exactly, the search
    stops there and what was found stands: integers equal as integers are not lost to the alternatives after them."""
    wanted = _reported_counts(reported, n)
    if wanted is None:
        return []
    oracle = _counts_of(oracle_counts, n)
    differing = {layer for layer in wanted if wanted[layer] != oracle[layer]}
    if not differing:
        return []
    found: list[str] = []
    shared = _SHARED_COUNTS.set({})
    try:
        for name, layers, count in alternatives:
            if not differing <= layers or not permitted(name):  # it cannot give these counts: not counted
                continue
            if any(earlier in found for earlier in getattr(count, "defers_to", ())):  # the same counts, named first
                continue
            possible = getattr(count, "possible", None)
            if possible is not None and not possible(segments, wanted, oracle):  # bounded: it cannot give them
                continue
            try:
                charge()
            except spent:
                if found:
                    return found
                raise
            changed = count(segments, n, options)
            if changed is not None and {**oracle, **changed} == wanted:
                found.append(name)
        for stem, side in capped_sides:
            # a cap on the hypotheses shortens c; one on the references changes nothing but r and the matches; a
            # search among given names fits a cap only where one of them is the family's (fitting it is charged)
            if not family_permitted(stem):
                continue
            if "hyp_len" in differing if side == "hypotheses" else differing <= {"ref_len", "matches"}:
                found += [name for cap in fitted_caps(side, segments, n, options, wanted, oracle, charge)
                          if permitted(name := capped_name(stem, cap))]
    finally:
        _SHARED_COUNTS.reset(shared)
    return found


__all__ = [
    "ALL_LAYERS",
    "MATCHES",
    "equal_direction_counts",
    "equal_direction_matches",
    "capped_counts",
    "capped_name",
    "best_single_reference_matches",
    "character_length_counts",
    "matching_alternatives",
    "matching_pairs",
    "one_reference_length",
    "reference_sum_matches",
    "running_length_reference_counts",
    "strict_clip_matches",
    "totals_one_short",
    "reference_count_matches",
    "unclipped_matches",
]
