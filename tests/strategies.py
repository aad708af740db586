"""Hypothesis strategies for BLEU inputs.

The inputs aim where implementations differ: a small vocabulary per example so
that n-grams match and clip; lengths from 0; segments shorter than the maximum
order; one to four references, often two at the same distance from the
hypothesis length (the tie rule decides r); empty hypotheses and references;
repeated tokens ("the the the"); mixed case; non-ASCII tokens; weights of any
length with zeros and sums other than one; smoothing methods with parameters.

Tokens come from `oracle.harness.generate`'s alphabet constants (VOCABULARY, ALPHABET,
is_safe_token): no character that `str.split()` splits on (U+001C..U+001F and
U+0085 included), so joining with single spaces is lossless.
"""

from __future__ import annotations

from hypothesis import strategies as st

from oracle.formulas.conventions import SMOOTHING_METHODS
from oracle.harness.generate import (
    ALPHABET,
    SMOOTHING_PARAMETER_VALUES,
    VOCABULARY,
    WEIGHT_VALUES,
    is_safe_token,
)
from oracle.models.protocol import ScoreRequest, Segment

#: Extra tokens: case variants that fold to one another, a lone combining-free non-ASCII letter, a CJK pair.
EXTRA_TOKENS = ("İ", "i", "ΣΑΣ", "σας", "Straße", "STRASSE", "ǅ", "ǆ", "中文")
TOKENS = tuple(dict.fromkeys(VOCABULARY + EXTRA_TOKENS))
assert all(is_safe_token(t) for t in TOKENS)

MAX_ORDER = 6


@st.composite
def vocabularies(draw, min_size=1, max_size=5):
    """A small vocabulary for one example: known tokens plus, sometimes, random ones from ALPHABET."""
    known = draw(st.lists(st.sampled_from(TOKENS), min_size=min_size, max_size=max_size, unique=True))
    made = draw(st.lists(st.text(ALPHABET, min_size=1, max_size=3), max_size=2, unique=True))
    vocabulary = list(dict.fromkeys(known + [t for t in made if is_safe_token(t)]))
    if draw(st.booleans()):  # case variants, so that lowercasing matters
        vocabulary += [t.swapcase() for t in vocabulary[:2] if t.swapcase() != t and is_safe_token(t.swapcase())]
    return vocabulary


def sentences(vocabulary, *, min_size=0, max_size=9):
    return st.lists(st.sampled_from(vocabulary), min_size=min_size, max_size=max_size).map(tuple)


@st.composite
def edited(draw, tokens, vocabulary):
    """`tokens` with a few deletions, insertions, substitutions or swaps (so references overlap)."""
    tokens = list(tokens)
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(("delete", "insert", "substitute", "swap")))
        if action == "delete" and tokens:
            del tokens[draw(st.integers(0, len(tokens) - 1))]
        elif action == "insert":
            tokens.insert(draw(st.integers(0, len(tokens))), draw(st.sampled_from(vocabulary)))
        elif action == "substitute" and tokens:
            tokens[draw(st.integers(0, len(tokens) - 1))] = draw(st.sampled_from(vocabulary))
        elif action == "swap" and len(tokens) > 1:
            i = draw(st.integers(0, len(tokens) - 2))
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    return tuple(tokens)


@st.composite
def segments(draw, vocabulary=None, *, max_length=9, max_references=4, min_references=1):
    """One Segment: a hypothesis (possibly empty or repeated tokens) and 1..4 references."""
    vocabulary = vocabulary or draw(vocabularies())
    if draw(st.integers(0, 9)) == 0:  # "the the the": clipping
        hypothesis = (draw(st.sampled_from(vocabulary)),) * draw(st.integers(1, max_length))
    else:
        hypothesis = draw(sentences(vocabulary, max_size=max_length))
    count = draw(st.integers(min_references, max_references))
    references = []
    for _ in range(count):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            references.append(())
        elif kind <= 6:
            references.append(draw(edited(hypothesis, vocabulary)))
        else:
            references.append(draw(sentences(vocabulary, max_size=max_length)))
    if count >= 2 and draw(st.booleans()):
        # two references at the same distance from the hypothesis length: the tie rule decides r
        d = draw(st.integers(1, 3))
        if len(hypothesis) >= d:
            i, j = draw(st.permutations(range(count)))[:2]
            references[i] = _resize(references[i], len(hypothesis) - d, vocabulary, draw)
            references[j] = _resize(references[j], len(hypothesis) + d, vocabulary, draw)
    return Segment(hypothesis=tuple(hypothesis), references=tuple(tuple(r) for r in references))


def _resize(tokens, length, vocabulary, draw):
    tokens = list(tokens[:length])
    while len(tokens) < length:
        tokens.append(draw(st.sampled_from(vocabulary)))
    return tuple(tokens)


@st.composite
def corpora(draw, *, min_segments=1, max_segments=5, shared_vocabulary=True, **segment_options):
    """A tuple of Segments (a corpus), usually drawing from one vocabulary so segments resemble each other."""
    vocabulary = draw(vocabularies()) if shared_vocabulary else None
    return tuple(draw(st.lists(segments(vocabulary, **segment_options), min_size=min_segments, max_size=max_segments)))


def uniform_weights(max_order=MAX_ORDER):
    return st.integers(1, max_order).map(lambda n: (1.0 / n,) * n)


@st.composite
def weights(draw, *, max_order=MAX_ORDER, uniform=False):
    """Weights of length 1..max_order: uniform 1/N, or any non-negative values (zeros, sums != 1), not all zero."""
    if uniform or draw(st.integers(0, 2)) == 0:
        return draw(uniform_weights(max_order))
    n = draw(st.integers(1, max_order))
    values = st.one_of(st.sampled_from(WEIGHT_VALUES), st.floats(0, 2, allow_nan=False).map(lambda x: round(x, 3)),
                       st.sampled_from((0.01, 0.025, 0.05)))
    ws = draw(st.lists(values, min_size=n, max_size=n))
    if not any(ws):
        ws[draw(st.integers(0, n - 1))] = draw(st.sampled_from((0.25, 0.5, 1.0)))
    return tuple(float(w) for w in ws)


@st.composite
def smoothings(draw, methods=tuple(SMOOTHING_METHODS)):
    """A protocol smoothing mapping: {"method": name, parameter: value}."""
    method = draw(st.sampled_from(tuple(methods)))
    out = {"method": method}
    for name, values in SMOOTHING_PARAMETER_VALUES.get(method, {}).items():
        out[name] = draw(st.sampled_from(values))
    return out


def _uniform(n):
    return (1.0 / n,) * n


@st.composite
def requests(draw, *, levels=("corpus", "sentence"), methods=("none",), max_order=MAX_ORDER, uniform=False,
             lowercase=(False,), max_segments=5, orders=None):
    """A ScoreRequest within the given capabilities (`orders`: the only maximum orders taken, e.g. (4,))."""
    level = draw(st.sampled_from(tuple(levels)))
    if draw(st.integers(0, 30)) == 0:  # nothing at all: c = r = 0
        count = 1 if level == "sentence" else draw(st.integers(1, 3))
        segs = tuple(Segment(hypothesis=(), references=((),) * draw(st.integers(1, 2))) for _ in range(count))
    elif level == "sentence":
        segs = (draw(segments()),)
    else:
        segs = draw(corpora(max_segments=max_segments))
    return ScoreRequest(
        seq=0,
        level=level,
        segments=segs,
        weights=draw(weights(max_order=max_order, uniform=uniform))
        if not orders
        else _uniform(draw(st.sampled_from(orders))),
        smoothing=draw(smoothings(methods)),
        lowercase=draw(st.sampled_from(tuple(lowercase))),
    )


def to_lists(segments_):
    """(hypotheses, references) in the oracle's corpus layout."""
    return [list(s.hypothesis) for s in segments_], [[list(r) for r in s.references] for s in segments_]


