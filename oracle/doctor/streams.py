"""Counting once for every reading: the n-gram statistics of each token stream, segment by segment.

A *token stream* is how raw lines become tokens: a tokenizer (`oracle.formulas.tokenizers`), whether
case is folded and how, which characters separate words, and whether a byte-order mark on line 1 stays
glued to the first token. The readings of `doctor` (every profile x tokenizer x case) need 8 *base*
streams (tokenizer x lowercase, split as `str.split()`, Unicode folding, the mark dropped); every other
stream differs from its base only on the few segments holding a no-break space or a similar character
(the split rules), a non-ASCII capital (the folding rules) or the mark (segment 1). So each segment is
tokenized once per tokenizer, folded once, counted once per distinct token list, and a variant stream
keeps only the segments where it differs from its base (`overrides`) and the difference of its sums.

Corpus statistics of any stream, under any reference-length rule and a segment-totals floor of 0 or 1,
are then sums (`StreamTable.statistics`); sentence-level readings walk the kept per-segment statistics
(`StreamTable.segments`), kept for the first `SENTENCE_LEVEL_LIMIT` segments only, so memory stays
bounded however long the files are. Counting is the oracle's (`bleu.count`, `bleu.clipped_matches`,
`bleu.effective_reference_length`).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import repeat
from typing import NamedTuple

from oracle import counting
from oracle.formulas import bleu
from oracle.formulas.conventions import REFERENCE_LENGTH_RULES
from oracle.formulas.errors import BleuValueError
from oracle.formulas.memo import memoized
from oracle.formulas.tokenizers import TOKEN_SPLIT_RULES, TOKENIZERS, tokenize

from .rawtext import BOM

#: BLEU-4: every profile's default order count (weights are not a dimension of the readings).
ORDERS = 4
RULES = tuple(REFERENCE_LENGTH_RULES)
#: The segment-totals floors a reading may ask for: the formula's 0 and nltk's code's 1.
FLOORS = (0, 1)
SPLITS = tuple(TOKEN_SPLIT_RULES)
FOLDS = ("unicode", "ascii")
#: Per-segment statistics are kept (for sentence-level readings) for at most this many segments.
SENTENCE_LEVEL_LIMIT = 200_000
#: A whitespace character on which the split rules disagree (str.isspace() but not ASCII whitespace).
_SPLIT_SENSITIVE = re.compile(r"[^\S\t\n\x0b\x0c\r ]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@memoized(64)
def tokens_13a(text: str) -> tuple[str, ...]:
    """`tokenize(text, "13a")`, kept for the last 64 lines asked: the layout lint's sample (the first 1000 lines of each
    file) and the stream table tokenize the same lines one after the other, and the second asks here (the lint's
    2,000 lines cost 0.035 s of CPU on one WMT17 system)."""
    return tokenize(text, "13a")


def _tokenized(texts: tuple, tokenizer: str) -> tuple:
    """Each of `texts` as `tokenize(text, tokenizer)` gives it (words split as str.split() does)."""
    if tokenizer == "13a":
        return tuple([tokens_13a(text) for text in texts])
    return tuple([tokenize(text, tokenizer) for text in texts])


def _ascii_lower(text: str) -> str:
    """`text.translate(_ASCII_LOWER)` (A-Z folded, nothing else), about 7 times faster on a line with a character
    beyond ASCII, where `str.translate` looks every character up in a dict: `bytes.lower` folds A-Z only, and in UTF-8
    every byte of a character beyond ASCII is above 0x7F ("surrogatepass": any str, lone surrogates too, goes and
    comes back as it was). tests/doctor/test_doctor_engine.py holds the two equal."""
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


@dataclass(frozen=True, order=True)
class StreamKey:
    """How raw lines become the tokens that are counted."""

    tokenizer: str
    lowercase: bool
    split: str = "str-split"
    #: how case is folded when `lowercase`; "unicode" when it is not (folding then changes nothing)
    fold: str = "unicode"
    #: a byte-order mark at the start of a file: "dropped" (as `score` reads) or "kept" (glued to the first token)
    bom: str = "dropped"

    @property
    def base(self) -> StreamKey:
        return StreamKey(self.tokenizer, self.lowercase)

    @property
    def is_base(self) -> bool:
        return self == self.base


def stream_key(tokenizer: str, lowercase: bool, split: str, fold: str, bom: str = "dropped") -> StreamKey:
    """The key of a stream, folding normalised away when case is kept."""
    return StreamKey(tokenizer, lowercase, split, fold if lowercase else "unicode", bom)


class Counted(NamedTuple):
    """One segment's statistics: hypothesis length, every reference's length, clipped matches per order (a named
    tuple: made 25,000 times for one WMT17 system, where a frozen dataclass's construction cost a tenth of the table's
    bookkeeping)."""

    hyp_len: int
    ref_lens: tuple
    matches: tuple

    def reference_length(self, rule: str) -> int:
        return bleu.effective_reference_length(self.hyp_len, self.ref_lens, rule)

    def totals(self, floor: int) -> tuple:
        return tuple(max(self.hyp_len - n, 0, floor) for n in range(ORDERS))


class Sums:
    """Running sums of segment statistics: c, r under every rule, matches, and how many segments have each
    hypothesis length c (each order's totals under either floor are made from it when read: a segment's
    max(c - n, 0, floor) depends on c alone)."""

    def __init__(self) -> None:
        self.segments = 0
        self.hyp_len = 0
        self.lengths: Counter[int] = Counter()
        #: r of the segments whose references are all one length (every rule gives it), then of the others by rule
        self.agreed_ref_len = 0
        self.rule_ref_len = dict.fromkeys(RULES, 0)
        self.matches = [0] * ORDERS

    def add(self, counted: Counted, sign: int = 1) -> None:
        self.segments += sign
        self.hyp_len += sign * counted.hyp_len
        self.lengths[counted.hyp_len] += sign
        self._add_reference_lengths(counted, sign)
        for n in range(ORDERS):
            self.matches[n] += sign * counted.matches[n]

    def _add_reference_lengths(self, counted: Counted, sign: int) -> None:
        lengths = counted.ref_lens
        if len(lengths) == 1 or min(lengths) == max(lengths):
            self.agreed_ref_len += sign * lengths[0]
        else:
            for rule in RULES:
                self.rule_ref_len[rule] += sign * counted.reference_length(rule)

    @classmethod
    def of_kept(cls, kept: _Kept) -> Sums:
        """The sums of the segments `kept` holds, made at once from its arrays (summed in C, but for the reference
        lengths of segments whose references differ in length): what `add` of each segment would give."""
        out = cls()
        out.segments = len(kept)
        out.hyp_len = sum(kept.hyp_len)
        out.lengths = Counter(kept.hyp_len)
        if kept.references == 1:
            out.agreed_ref_len = sum(kept.ref_lens)
        else:
            for index in range(len(kept)):
                out._add_reference_lengths(kept[index], 1)
        out.matches = [sum(kept.matches[n::ORDERS]) for n in range(ORDERS)]
        return out

    def ref_len(self, rule: str) -> int:
        return self.agreed_ref_len + self.rule_ref_len[rule]

    def totals(self, floor: int) -> tuple:
        """Each order's n-gram total summed over the segments, each segment's at least `floor`."""
        return tuple(sum(count * max(c - n, 0, floor) for c, count in self.lengths.items()) for n in range(ORDERS))

    def plus(self, delta: Sums) -> Sums:
        """These sums with another's added (a new object): a variant's differences (no segments of their own), or
        the sums of further segments."""
        out = Sums()
        out.segments = self.segments + delta.segments
        out.hyp_len = self.hyp_len + delta.hyp_len
        out.lengths = Counter(self.lengths)
        out.lengths.update(delta.lengths)  # update adds negative counts too (`+` would drop them)
        out.agreed_ref_len = self.agreed_ref_len + delta.agreed_ref_len
        out.rule_ref_len = {rule: self.rule_ref_len[rule] + delta.rule_ref_len[rule] for rule in RULES}
        out.matches = [a + b for a, b in zip(self.matches, delta.matches, strict=True)]
        return out


class _Kept:
    """A base stream's per-segment statistics in flat integer arrays (c; each reference's length; matches)."""

    def __init__(self, references: int) -> None:
        self.references = references
        # 32-bit counts: a line holds at most LINE_LIMIT characters, so fewer tokens than 2**31
        self.hyp_len = array("i")
        self.ref_lens = array("i")
        self.matches = array("i")

    def append(self, counted: Counted) -> None:
        self.hyp_len.append(counted.hyp_len)
        self.ref_lens.extend(counted.ref_lens)
        self.matches.extend(counted.matches)

    def __len__(self) -> int:
        return len(self.hyp_len)

    def __getitem__(self, index: int) -> Counted:
        r = self.references
        return Counted(self.hyp_len[index], tuple(self.ref_lens[index * r:(index + 1) * r]),
                       tuple(self.matches[index * ORDERS:(index + 1) * ORDERS]))


class _Base:
    """A base stream's statistics: each of its first `limit` segments kept (`_Kept`), summed when read; the
    segments beyond, in running sums."""

    def __init__(self, references: int, limit: int) -> None:
        self.kept = _Kept(references)
        self.limit = limit
        self.beyond = Sums()
        self._kept_sums: Sums | None = None

    def record(self, index: int, counted: Counted, base: Counted | None) -> None:
        """Segment `index`'s statistics in this stream (`base`: None, this is a base stream)."""
        if len(self.kept) < self.limit:
            self.kept.append(counted)
            self._kept_sums = None
        else:
            self.beyond.add(counted)

    def sums(self) -> Sums:
        if self._kept_sums is None:
            self._kept_sums = Sums.of_kept(self.kept)
        return self._kept_sums.plus(self.beyond) if self.beyond.segments else self._kept_sums


class _Variant:
    """A variant stream's difference from its base: the sums of (its statistics - the base's) over the segments
    where they differ, and, among the first `limit` segments, its statistics there."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.delta = Sums()
        self.overrides: dict[int, Counted] = {}

    def record(self, index: int, counted: Counted, base: Counted | None) -> None:
        """Segment `index`'s statistics in this stream and in its base (`base`), kept where they differ."""
        if base is None or counted is base or counted == base:
            return
        self.delta.add(counted)
        self.delta.add(base, -1)
        if index < self.limit:
            self.overrides[index] = counted


def all_keys(bom: bool) -> tuple:
    """Every stream a reading can ask for: tokenizer x case x split x folding (x the mark kept, when a file has one)."""
    keys = []
    for tokenizer in TOKENIZERS:
        for lowercase in (False, True):
            for split in SPLITS:
                for fold in (FOLDS if lowercase else FOLDS[:1]):
                    for mark in (("dropped", "kept") if bom else ("dropped",)):
                        keys.append(StreamKey(tokenizer, lowercase, split, fold, mark))
    return tuple(keys)


class StreamTable:
    """The statistics of every stream in `keys` over the segments added so far."""

    def __init__(self, references: int, *, keys: Iterable[StreamKey] | None = None, bom: bool = False,
                 limit: int = SENTENCE_LEVEL_LIMIT) -> None:
        self.references = references
        self.limit = limit
        self.keys = tuple(keys) if keys is not None else all_keys(bom)
        bases = sorted({key.base for key in self.keys})
        self._bases = {key: _Base(references, limit) for key in bases}
        self._variants = {key: _Variant(limit) for key in self.keys if not key.is_base}
        # per tokenizer: the bases first (a variant is compared with its base's statistics of the segment)
        by_tokenizer = {t: sorted({k for k in self.keys if k.tokenizer == t} | {k.base for k in self.keys
                                   if k.tokenizer == t}, key=lambda k: (not k.is_base, k))
                        for t in TOKENIZERS if any(k.tokenizer == t for k in self.keys)}
        # per tokenizer, each stream to count: (its key, its base's place in the list, or None for a base itself, and
        # where its statistics go); every stream, or the bases only
        self._every_stream = {t: [self._step(key, keys) for key in keys] for t, keys in by_tokenizer.items()}
        self._base_streams = {t: [self._step(key, keys) for key in keys if key.is_base]
                              for t, keys in by_tokenizer.items()}
        #: statistics already made, each made from all the segments its `segments` says
        self._statistics: dict[tuple, bleu.Statistics] = {}
        self.segments = 0

    def _step(self, key: StreamKey, keys: list) -> tuple[StreamKey, int | None, _Base | _Variant]:
        if key.is_base:
            return key, None, self._bases[key]
        return key, keys.index(key.base), self._variants[key]

    # -- counting --------------------------------------------------------------------------------

    def add(self, texts: tuple) -> None:
        """Segment `self.segments` (0-based): `texts` is the hypothesis line then each reference line, as read
        (a byte-order mark on line 1 still there)."""
        index = self.segments
        if len(texts) != self.references + 1:
            raise BleuValueError(f"segment {index + 1}: expected {self.references + 1} lines, got {len(texts)}")
        marked = index == 0 and any(text.startswith(BOM) for text in texts)
        plain = tuple(text[1:] if text.startswith(BOM) else text for text in texts) if marked else texts
        sensitive = any(_SPLIT_SENSITIVE.search(text) for text in texts)
        # where no character folds differently under the two rules, A-Z folding is Unicode folding
        folds_alike = all(text.isascii() or text.lower() == _ascii_lower(text) for text in texts)
        # a segment without a mark, a character the split rules disagree on or one the folding rules fold apart
        # has every variant stream equal to its base: only the bases are counted
        if not (marked or sensitive or not folds_alike):
            self._add_to_bases(index, plain)
            self.segments += 1
            return
        for tokenizer, steps in self._every_stream.items():
            tokens = _TokenCache(tokenizer, plain, texts if marked else plain, sensitive, folds_alike)
            counted_by_id: dict[int, Counted] = {}
            made: list[Counted] = []
            for key, base_at, statistics in steps:
                stream = tokens.of(key)
                counted = counted_by_id.get(id(stream))
                if counted is None:
                    counted = counted_by_id[id(stream)] = _count(stream)
                made.append(counted)
                statistics.record(index, counted, None if base_at is None else made[base_at])
        self.segments += 1

    def _add_to_bases(self, index: int, texts: tuple) -> None:
        """Segment `index` in the base streams alone (every variant equals its base there): what `_TokenCache` gives
        for them, made without it (most segments are these; one per tokenizer and segment cost about 0.05 s of CPU
        on one WMT17 system)."""
        for tokenizer, steps in self._base_streams.items():
            cased = _tokenized(texts, tokenizer)
            counted_cased = None
            for key, _, statistics in steps:
                stream = _unicode_folded(cased) if key.lowercase else cased
                if stream is cased:  # nothing to fold: counted once for both cases
                    counted = counted_cased = counted_cased or _count(cased)
                else:
                    counted = _count(stream)
                statistics.record(index, counted, None)

    # -- reading the statistics --------------------------------------------------------------------

    def sums(self, key: StreamKey) -> Sums:
        self._require(key)
        return self._bases[key].sums() if key.is_base else self._bases[key.base].sums().plus(self._variants[key].delta)

    def statistics(self, key: StreamKey, rule: str, floor: int) -> bleu.Statistics:
        """The corpus statistics of stream `key` under reference-length `rule` and segment-totals `floor`."""
        if floor not in FLOORS:
            raise BleuValueError(f"`segment_totals_floor` must be one of {list(FLOORS)} here (got {floor})")
        made = self._statistics.get((key, rule, floor))
        if made is not None and made.segments == self.segments:  # kept until another segment is added
            return made
        sums = self.sums(key)
        if sums.segments == 0:
            raise BleuValueError("the files hold no segment (no line in every file)")
        made = self._statistics[(key, rule, floor)] = bleu.Statistics(
            sums.hyp_len, sums.ref_len(rule), tuple(sums.matches), sums.totals(floor), sums.segments)
        return made

    @property
    def sentence_level(self) -> bool:
        """Whether per-segment statistics were kept for every segment (sentence-level readings need them)."""
        return self.segments <= self.limit

    def segments_of(self, key: StreamKey) -> Iterator[Counted]:
        """Each segment's statistics in stream `key` (only while `sentence_level`)."""
        self._require(key)
        if not self.sentence_level:
            raise BleuValueError(f"sentence-level readings keep at most {self.limit} segments (got {self.segments})")
        kept = self._bases[key.base].kept
        overrides = {} if key.is_base else self._variants[key].overrides
        for index in range(len(kept)):
            yield overrides.get(index) or kept[index]

    def _require(self, key: StreamKey) -> None:
        if key not in self._bases and key not in self._variants:
            raise BleuValueError(f"no statistics were counted for the stream {key}")


class _TokenCache:
    """One segment's token lists under one tokenizer, made once per split rule, folding and mark, and shared
    (the same object) wherever they come out equal, so that equal lists are counted once."""

    def __init__(self, tokenizer: str, plain: tuple, marked: tuple, sensitive: bool, folds_alike: bool) -> None:
        self.tokenizer = tokenizer
        self.texts = {"dropped": plain, "kept": marked}
        self.sensitive = sensitive
        self.folds_alike = folds_alike
        self._split: dict[tuple[str, str], tuple] = {}
        self._folded: dict[tuple[int, str], tuple] = {}

    def split(self, bom: str, split: str) -> tuple:
        texts = self.texts[bom]
        if bom == "kept" and texts is self.texts["dropped"]:
            bom = "dropped"
        if split != "str-split" and not self.sensitive:
            split = "str-split"
        cached = self._split.get((bom, split))
        if cached is None:
            if split == "str-split":
                cached = _tokenized(texts, self.tokenizer)
            else:  # a line without a character the split rules disagree on is tokenized as str.split() reads it
                cached = tuple(tokenize(text, self.tokenizer, split=split) if _SPLIT_SENSITIVE.search(text) else same
                               for text, same in zip(texts, self.split(bom, "str-split"), strict=True))
            self._split[(bom, split)] = cached
        return cached

    def of(self, key: StreamKey) -> tuple:
        stream = self.split(key.bom, key.split)
        if not key.lowercase:
            return stream
        cached = self._folded.get((id(stream), key.fold))
        if cached is None:
            unicode = self._folded.get((id(stream), "unicode"))
            if unicode is None:
                unicode = self._folded[(id(stream), "unicode")] = _unicode_folded(stream)
            if key.fold == "unicode" or self.folds_alike:
                return unicode
            ascii_only = tuple(tuple(token.translate(_ASCII_LOWER) for token in tokens) for tokens in stream)
            cached = self._folded[(id(stream), "ascii")] = unicode if ascii_only == unicode else ascii_only
        return cached


def _unicode_folded(stream: tuple) -> tuple:
    """Each token list of `stream` with its tokens folded by `str.lower`; `stream` itself when nothing folds (the
    same object, counted once for both cases)."""
    unicode = tuple(tuple(map(str.lower, tokens)) for tokens in stream)
    return stream if unicode == stream else unicode


def _count(stream: tuple) -> Counted:
    """One segment's statistics: Count_clip summed per order against every reference, as the oracle's
    `bleu.clipped_matches` over `bleu.count` gives them: by the compiled kernel (`oracle.counting`) where it was
    built, else in Python (`_count_in_python`). tests/doctor/test_doctor_engine.py and
    tests/doctor/test_counting_kernel.py hold both equal to the literal counting."""
    hypothesis, references = stream[0], stream[1:]
    if _KERNEL is None:
        return _count_in_python(stream)
    return Counted(len(hypothesis), tuple(map(len, references)), _KERNEL(hypothesis, references, ORDERS))


def _count_in_python(stream: tuple) -> Counted:
    """`_count` without the kernel, counted faster than literally: one order at a time, with no Python step per
    n-gram (each order's sum of min(Count, Max_Ref_Count) taken in C), and with sets instead of counts where no
    count can exceed 1 in the minimum. That is known from the order below: an n-gram both sides have, repeated in the
    hypothesis and in a reference, has an (n-1)-gram prefix repeated in both; so once no shared n-gram repeats on
    both sides, each higher order's matches are the number of distinct n-grams the two sides share."""
    hypothesis, references = stream[0], stream[1:]
    matches = []
    counts_needed = True
    for n in range(1, ORDERS + 1):
        if len(hypothesis) < n:
            matches.append(0)
        elif counts_needed:
            matched, counts_needed = _clipped(hypothesis, references, n)
            matches.append(matched)
        else:
            distinct = set(_grams(hypothesis, n))
            matches.append(len(set().union(*(distinct.intersection(_grams(r, n)) for r in references))))
    return Counted(len(hypothesis), tuple(len(r) for r in references), tuple(matches))


_KERNEL = counting.kernel_clipped_matches()


def _grams(tokens: tuple, n: int) -> Iterable:
    """The n-grams of `tokens` (a unigram is its token: the keys are compared only with keys made alike)."""
    return tokens if n == 1 else zip(*[tokens[i:] for i in range(n)], strict=False)


def _clipped(hypothesis: tuple, references: tuple, n: int) -> tuple[int, bool]:
    """The sum over the hypothesis's n-grams of Count_clip = min(Count, Max_Ref_Count) (section 2.1), and whether
    some n-gram adds more than 1 to it (repeated in the hypothesis and in a reference)."""
    counts = Counter(_grams(hypothesis, n))
    if len(references) == 1:
        reference = Counter(_grams(references[0], n))
        both = counts.keys() & reference.keys()
        matched = sum(map(min, map(counts.__getitem__, both), map(reference.__getitem__, both)))
    else:
        reference_counts = [Counter(_grams(r, n)) for r in references]
        both = counts.keys() & set().union(*reference_counts)
        shared = list(both)  # one order for the maps below
        most = map(max, *(map(r.get, shared, repeat(0)) for r in reference_counts))  # Max_Ref_Count
        matched = sum(map(min, map(counts.__getitem__, shared), most))
    return matched, matched > len(both)


def with_key(key: StreamKey, **changes) -> StreamKey:
    """`key` with some fields changed, folding normalised as `stream_key` does."""
    changed = replace(key, **changes)
    return stream_key(changed.tokenizer, changed.lowercase, changed.split, changed.fold, changed.bom)
