"""Deterministic random BLEU inputs for the differential search of `check`.

Example `index` of seed `seed` is drawn from its own `random.Random` seeded with
the string "bleu-oracle/<seed>/<index>", so it does not depend on how many
examples came before it, on the Python version's hash seed, or on shrinking:
`check --seed S --only random-S-I` regenerates it (for the same capabilities).

The inputs aim at the places implementations differ: small vocabularies so
n-grams match and clip; hypotheses of length 0 and shorter than the maximum
order; one to four references, often with two at the same distance from the
hypothesis length (tie rules); empty references; repeated tokens (clipping);
mixed case (lowercase); non-ASCII tokens; weights of any length, with zeros and
sums other than one (only when the capabilities and the profile allow); every
smoothing method the implementation declares, with parameters.

All inputs are valid under every profile that accepts their weights: the
search is for wrong numbers, the cases are for wrong rejections.

Tokens never contain a character `str.split()` splits on (which includes
U+001C..U+001F and U+0085), nor control characters or surrogates, so joining
a token list with single spaces and splitting it again is lossless. The
constants below are exported for Hypothesis strategies elsewhere, e.g.
`st.lists(st.sampled_from(VOCABULARY))` or `st.text(ALPHABET, min_size=1)`.
"""

from __future__ import annotations

import random
import unicodedata

from oracle.formulas.conventions import SMOOTHING_METHODS
from oracle.models.protocol import ScoreRequest, Segment

#: Tokens the generator draws from: case variants, punctuation, non-ASCII (Latin, CJK).
VOCABULARY = (
    "a", "b", "c", "the", "The", "THE", "cat", "Cat", "sat", "on", "mat", "is",
    ".", ",", "'s", "x-y", "ça", "Ça", "été", "ÉTÉ", "naïve", "日本", "語", "ß", "ø", "Ø",
)
#: Characters safe inside a token (for `st.text(ALPHABET, min_size=1)`).
ALPHABET = "abcxyzABCXYZ019.,'-_çÇéÉïÏßøØ日本語€"
#: Every character `str.split()` splits on (all `str.isspace()` characters, U+001C..U+001F and U+0085 among them).
SPLIT_CHARACTERS = frozenset(chr(c) for c in range(0x3001) if chr(c).isspace())
#: Characters a generated token never contains: the split characters plus controls and surrogates.
FORBIDDEN_CHARACTERS = SPLIT_CHARACTERS | frozenset(chr(c) for c in range(0x20)) | {"\x7f"}


def is_safe_token(token):
    """A non-empty str with no split character, control character or surrogate."""
    return (
        isinstance(token, str)
        and token != ""
        and not any(ch in FORBIDDEN_CHARACTERS or unicodedata.category(ch) in ("Cc", "Cs") for ch in token)
    )


#: Parameter values tried for each smoothing method (the documented default first).
SMOOTHING_PARAMETER_VALUES = {
    "floor": {"value": (0.1, 0.01, 0.5, 1.0)},
    "add-k": {"k": (1.0, 0.5, 2.0)},
    "chen-cherry-1": {"epsilon": (0.1, 0.01, 0.5)},
    "chen-cherry-4": {"k": (5.0, 1.0, 3.0)},
    "chen-cherry-6": {"alpha": (5.0, 1.0, 0.5)},
    "chen-cherry-7": {"k": (5.0, 1.0, 3.0)},
}
#: Non-uniform weights are drawn from these (and from uniform(0, 1) rounded to 3 places).
WEIGHT_VALUES = (0.0, 0.0, 0.1, 0.25, 0.25, 0.5, 0.75, 1.0, 2.0, 1 / 3)
HYPOTHESIS_LENGTHS = (0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 12)
MAX_GENERATED_ORDER = 6


def example_rng(seed, index):
    return random.Random(f"bleu-oracle/{seed}/{index}")


def example_id(seed, index):
    return f"random-{seed}-{index}"


def example_request(seed, index, capabilities, *, uniform_only=False, profile_smoothing=None, seq=0):
    """Example `index` of seed `seed` for these capabilities (deterministic)."""
    return generate_request(example_rng(seed, index), capabilities, uniform_only=uniform_only,
                            profile_smoothing=profile_smoothing, seq=seq)


def uniform_weights(n):
    return (1.0 / n,) * n


def generate_weights(rng, capabilities, *, uniform_only=False):
    max_order = max(1, min(int(capabilities.get("max_order", 4) or 4), MAX_GENERATED_ORDER))
    orders = [n for n in capabilities.get("orders") or () if n <= max_order]
    if orders:  # the implementation takes only these maximum orders
        n = rng.choice(orders)
    elif max_order >= 4 and rng.random() < 0.5:
        n = 4
    else:
        n = rng.randint(1, max_order)
    if uniform_only or capabilities.get("weights") != "any" or rng.random() < 0.35:
        return uniform_weights(n)
    weights = [rng.choice(WEIGHT_VALUES) if rng.random() < 0.8 else round(rng.uniform(0, 1), 3) for _ in range(n)]
    if not any(weights):
        weights[rng.randrange(n)] = rng.choice((0.5, 1.0, 0.25))
    return tuple(float(w) for w in weights)


def generate_smoothing(rng, capabilities, *, profile_smoothing=None):
    methods = [m for m in capabilities.get("smoothing", []) if m in SMOOTHING_METHODS]
    if not methods:
        return {"method": "none"}
    if profile_smoothing and profile_smoothing.get("method") in methods and rng.random() < 0.3:
        return dict(profile_smoothing)
    method = rng.choice(methods)
    out = {"method": method}
    for name, values in SMOOTHING_PARAMETER_VALUES.get(method, {}).items():
        out[name] = rng.choice(values)
    return out


def _edit(rng, tokens, vocabulary):
    tokens = list(tokens)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        action = rng.choice(("delete", "insert", "substitute", "swap"))
        if action == "delete" and tokens:
            del tokens[rng.randrange(len(tokens))]
        elif action == "insert":
            tokens.insert(rng.randint(0, len(tokens)), rng.choice(vocabulary))
        elif action == "substitute" and tokens:
            tokens[rng.randrange(len(tokens))] = rng.choice(vocabulary)
        elif action == "swap" and len(tokens) > 1:
            i = rng.randrange(len(tokens) - 1)
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    return tokens


def _resize(rng, tokens, length, vocabulary):
    tokens = list(tokens[:length])
    while len(tokens) < length:
        tokens.append(rng.choice(vocabulary))
    return tokens


def generate_segment(rng, *, lowercase=False):
    size = rng.choice((1, 2, 2, 3, 3, 4, 5, 7))
    vocabulary = rng.sample(VOCABULARY, size)
    if lowercase or rng.random() < 0.3:  # make case folding matter
        vocabulary += [t.upper() if t != t.upper() else t.lower() for t in vocabulary[:2]]
    length = rng.choice(HYPOTHESIS_LENGTHS)
    if length and rng.random() < 0.1:
        hypothesis = [rng.choice(vocabulary)] * length  # "the the the": clipping
    else:
        hypothesis = [rng.choice(vocabulary) for _ in range(length)]
    count = rng.choice((1, 1, 2, 2, 3, 4))
    references = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.06:
            references.append([])
        elif roll < 0.7:
            references.append(_edit(rng, hypothesis, vocabulary))
        else:
            references.append([rng.choice(vocabulary) for _ in range(rng.choice(HYPOTHESIS_LENGTHS))])
    if count >= 2 and rng.random() < 0.4:
        # two references at the same distance from the hypothesis length: the tie rule decides r
        d = rng.randint(1, 3)
        if length - d >= 0:
            i, j = rng.sample(range(count), 2)
            references[i] = _resize(rng, references[i], length - d, vocabulary)
            references[j] = _resize(rng, references[j], length + d, vocabulary)
    rng.shuffle(references)
    return Segment(hypothesis=tuple(hypothesis), references=tuple(tuple(r) for r in references))


def generate_request(rng, capabilities, *, uniform_only=False, profile_smoothing=None, seq=0):
    """One random, valid score request within `capabilities` (a protocol-v1 capabilities object)."""
    levels = [lv for lv in capabilities.get("levels", ["corpus"]) if lv in ("corpus", "sentence")] or ["corpus"]
    level = rng.choice(levels)
    weights = generate_weights(rng, capabilities, uniform_only=uniform_only)
    smoothing = generate_smoothing(rng, capabilities, profile_smoothing=profile_smoothing)
    lowercase = bool(capabilities.get("lowercase")) and rng.random() < 0.3
    if rng.random() < 0.03:  # nothing at all: c = r = 0
        count = 1 if level == "sentence" else rng.randint(1, 3)
        segments = tuple(Segment(hypothesis=(), references=((),) * rng.randint(1, 2)) for _ in range(count))
    else:
        count = 1 if level == "sentence" else rng.choice((1, 1, 2, 2, 3, 4, 6))
        segments = tuple(generate_segment(rng, lowercase=lowercase) for _ in range(count))
    if capabilities.get("same_reference_count"):
        segments = _same_reference_count(segments)
    return ScoreRequest(seq=seq, level=level, segments=segments, weights=weights, smoothing=smoothing, lowercase=lowercase)


def _same_reference_count(segments):
    """Every segment with as many references as the first: extra ones dropped, missing ones filled
    with copies of the segment's last (a repeated reference changes neither clipping nor r)."""
    count = len(segments[0].references)
    out = []
    for segment in segments:
        references = segment.references[:count]
        references += (references[-1],) * (count - len(references))
        out.append(segment.model_copy(update={"references": references}))
    return tuple(out)
