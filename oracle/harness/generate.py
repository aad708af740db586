"""Deterministic random BLEU inputs for the differential search of `check`: the whole input space, on purpose.

Example `index` of seed `seed` is drawn from its own `random.Random` seeded with
the string "bleu-oracle/<seed>/<index>", so it does not depend on how many
examples came before it, on the Python version's hash seed, or on shrinking:
`check --seed S --id random-S-I` regenerates it (for the same capabilities).

Each example combines one generator per dimension of the input space:

- tokens: a small vocabulary (so n-grams match and clip), to which one family
  of `TOKEN_FAMILIES` is often added: tokens with whitespace inside, the empty
  token, control characters, non-BMP characters, compatibility and combining
  forms, case pairs where `lower()`, `casefold()` and ASCII folding differ,
  toolkits' special tokens, tokens whose concatenations collide, and names
  special in other languages' maps;
- sizes: segments from 0 to several hundred tokens, runs of one token past
  255 and (rarely) past 65,535, corpora from 1 to several hundred segments,
  1 to 8 references with counts varying across segments, orders 1 to 12;
- numbers: weights tiny (1e-6..1e-2), zero and unnormalised; every smoothing
  method the implementation declares, its parameters at their edges;
- boundaries, built rather than hoped for: reference-length ties (two and
  three references), c = r, r = 0, a clipped count exactly at a reference's
  maximum, exactly one order with no match, a corpus whose only mismatch is
  in its last segment.

Example `index` takes `FOCI[index % len(FOCI)]` as its focus, so the first
len(FOCI) examples of any seed exercise every dimension once (within the
capabilities); other dimensions join at random. The most expensive foci
(`EXPENSIVE_FOCI`) take their turn in one cycle in four. The request is then fitted to
the implementation's declared capabilities (forbidden token characters, empty
tokens, orders, levels, the same number of references in every segment):
what the search sends is always within what the implementation says it takes.
`oracle.harness.coverage` reads off what a request actually exercised.

All inputs are valid under every profile that accepts their weights: the
search is for wrong numbers, the cases are for wrong rejections.

`VOCABULARY`, `ALPHABET` and `is_safe_token` are the plain part of the token
space (no character `str.split()` splits on, no control character), exported
for Hypothesis strategies elsewhere.
"""

from __future__ import annotations

import random
import unicodedata

from oracle.adapters.drivers import libraries
from oracle.formulas.conventions import SMOOTHING_METHODS
from oracle.formulas.tokenizers import TOKENIZERS
from oracle.models.protocol import Capabilities, ScoreRequest, Segment

from .textgen import generate_text_segments

#: Plain tokens: case variants, punctuation, non-ASCII (Latin, CJK).
VOCABULARY = (
    "a",
    "b",
    "c",
    "the",
    "The",
    "THE",
    "cat",
    "Cat",
    "sat",
    "on",
    "mat",
    "is",
    ".",
    ",",
    "'s",
    "x-y",
    "ça",
    "Ça",
    "été",
    "ÉTÉ",
    "naïve",
    "日本",
    "語",
    "ß",
    "ø",
    "Ø",
)
#: Tokens of the "brackets" companion: a bracket pair inside one token ("(a)"), across tokens ("(" ... ")", "(see"
#: ... "above)") and unclosed, with square brackets and quotes beside. A script that reads a line as text before
#: counting (a sed deleting every "(...)" span as utterance ids, a CSV reader taking '"' as a quote) is seen only by
#: a request whose lines hold them, and VOCABULARY holds none: adding them there would change every example of
#: every seed, so they come in a companion drawn from its own generator.
BRACKET_TOKENS = ("(a)", "(b)", "(", ")", "(see", "above)", "[c]", '"', "x(y)z")
#: Where a file reader ends a line besides "\n" (Python's `str.splitlines` and universal newlines, `open(path)`
#: without `newline=`): a lone CR (and CR LF, one line end for both), VT, FF, U+001C..U+001E, NEL, U+2028 and
#: U+2029. A segment written one a line and read back by such a reader is cut in two where one of them is.
#: PROTOCOL.md: a token or a text may hold any of them, under every profile.
LINE_END_CHARACTERS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: Tokens of the "line-ends" companion: each line end inside a token ("a\rb"), at either end ("a\r", "\rb") and
#: alone, CR LF beside the lone CR, and "a" and "b" themselves, so that a line cut at the character leaves pieces
#: that match (or stop matching) the other side's tokens.
LINE_END_TOKENS = ("a\rb", "a\r", "\rb", "a\r\nb", "a\x0bb", "a\x0cb", "a\x1cb", "a\x1db", "a\x1eb", "a\x85b",
                   "a\u2028b", "\u2029", "a\u2029", "a", "b")
#: Characters safe inside a plain token (for `st.text(ALPHABET, min_size=1)`).
ALPHABET = "abcxyzABCXYZ019.,'-_çÇéÉïÏßøØ日本語€"
#: Every character `str.split()` splits on (all `str.isspace()` characters, U+001C..U+001F and U+0085 among them).
SPLIT_CHARACTERS = frozenset(libraries.SPLIT_CHARACTERS)
#: Characters a plain token never contains: the split characters plus controls and surrogates.
FORBIDDEN_CHARACTERS = SPLIT_CHARACTERS | frozenset(chr(c) for c in range(0x20)) | {"\x7f"}

#: Token families, each aimed at one way implementations mishandle tokens. Tokens of a family come
#: in groups that interact: "a b" with "a" and "b" (a re-split merges them), "ab"+"c" with "a"+"bc"
#: (a joined n-gram key collides), "é" composed with "é" decomposed (normalisation merges them).
TOKEN_FAMILIES = {
    "whitespace-inside": ("a b", "a", "b", "b c", "c", "a\tb", "a\nb", " a", "b ", "a\u00a0b", "a\u3000b"),
    "empty-token": ("", "a", "b", ""),
    "control-characters": ("\x00", "a\x00", "a", "\x1b[0m", "\x7f", "\x01b", "b"),
    "non-bmp": ("𝐀", "😀", "𠀋", "a😀", "a", "\U0001f600\U0001f3fd"),
    "normalisation": ("é", "e\u0301", "ﬁ", "fi", "①", "1", "Ａ", "A", "Å", "Å"),
    "case-folding": ("ß", "SS", "ss", "Straße", "STRASSE", "İ", "i̇", "i", "ΣΑΣ", "σας", "σασ", "K", "k", "ǅ", "ǆ", "Ꭰ"),
    "toolkit-specials": ("<unk>", "</s>", "<s>", "<pad>", "@@", "a@@", "b", "▁a", "[UNK]", "<|endoftext|>"),
    "concatenations": ("ab", "c", "a", "bc", "abc", "b"),
    "map-keys": ("__proto__", "constructor", "toString", "hasOwnProperty", "prototype", "__class__", "length", "a"),
}

#: Tokens an implementation may conflate, per family: a reference often carries the partner of a hypothesis
#: token (" a" for "a", "e\u0301" for "é"), so that conflating them changes the counts, built rather than
#: hoped for. SEQUENCE_PARTNERS: adjacent pairs whose joined keys collide ("ab" "c" / "a" "bc").
PARTNERS = {
    "whitespace-inside": {"a": " a", "b": "b ", "a b": "a\tb", "a\u00a0b": "a b", "a\u3000b": "a b", " a": "a"},
    "control-characters": {"a": "a\x00", "b": "\x01b"},
    "normalisation": {"é": "e\u0301", "fi": "ﬁ", "1": "①", "A": "Ａ", "Å": "Å"},
    "case-folding": {"ss": "ß", "SS": "ß", "STRASSE": "Straße", "k": "K", "i": "İ", "σας": "σασ", "ǆ": "ǅ"},
    "toolkit-specials": {"b": "<unk>", "a@@": "<pad>", "▁a": "</s>"},
    "map-keys": {"a": "__proto__"},
}
SEQUENCE_PARTNERS = {
    "concatenations": ((("ab", "c"), ("a", "bc")), (("a", "bc"), ("ab", "c"))),
    "whitespace-inside": ((("a b", "c"), ("a", "b c")), (("a", "b c"), ("a b", "c"))),
}

#: Parameter values tried for each smoothing method (the documented default first, then the edges:
#: integer and fractional, small and large).
SMOOTHING_PARAMETER_VALUES = {
    "floor": {"value": (0.1, 0.01, 0.5, 1.0, 1e-6, 3.0)},
    "add-k": {"k": (1.0, 0.5, 2.0, 1e-3, 7.0)},
    "chen-cherry-1": {"epsilon": (0.1, 0.01, 0.5, 1e-9, 1.0)},
    "chen-cherry-4": {"k": (5.0, 1.0, 3.0, 0.5, 12.0)},
    "chen-cherry-6": {"alpha": (5.0, 1.0, 0.5, 2.5, 0.01)},
    "chen-cherry-7": {"k": (5.0, 1.0, 3.0, 0.5, 12.0)},
}
#: Non-uniform weights are drawn from these (and from uniform(0, 1) rounded to 3 places).
WEIGHT_VALUES = (0.0, 0.0, 0.1, 0.25, 0.25, 0.5, 0.75, 1.0, 2.0, 1 / 3)
#: Tiny weights: implementations that drop "negligible" weights or divide by them.
TINY_WEIGHTS = (1e-6, 1e-4, 1e-3, 0.005, 0.01)
HYPOTHESIS_LENGTHS = (0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 12)
MAX_GENERATED_ORDER = 12

#: The dimension each example index focuses on, in turn (index % len(FOCI)). "raw-text" makes a text
#: request for an implementation that declares tokenizers (a token request for one that does not).
FOCI = (
    "plain",
    "whitespace-inside",
    "reference-length-tie",
    "long-segment",
    "tiny-weights",
    "empty-token",
    "three-way-tie",
    "raw-text",
    "many-references",
    "clip-at-maximum",
    "control-characters",
    "one-order-without-match",
    "high-order",
    "case-folding",
    "big-corpus",
    "c-equals-r",
    "normalisation",
    "raw-text",
    "smoothing-edges",
    "last-segment-mismatch",
    "toolkit-specials",
    "long-run",
    "concatenations",
    "r-zero",
    "non-bmp",
    "varying-reference-counts",
    "map-keys",
    "raw-text",
    "zero-weights",
    "very-long-run",
)

#: The foci whose inputs cost most (a 65,600-token run, corpora of hundreds or thousands of segments) take
#: their turn in one FOCI cycle in 4 (the first among them), and the focus named here in the other three.
EXPENSIVE_FOCI = {"very-long-run": "long-run", "big-corpus": "varying-reference-counts"}
#: Companions: inputs a random example brings along, each with id `random-S-I~KIND` and drawn from its own
#: `random.Random` ("bleu-oracle/S/I/KIND"), so that the examples themselves are what they always were.
#: "text": a text request (`oracle.harness.textgen`), on every TEXT_EVERY-th example when the implementation
#: declares tokenizers (text requests are then a third of the search); "refused": an input the protocol
#: defines as invalid (`oracle.harness.refused`), on every REFUSED_EVERY-th; "series": many short requests to
#: the same process (`oracle.harness.work.series`), on every SERIES_EVERY-th; "brackets": a token request whose
#: lines hold bracket pairs (`bracket_request`), on every BRACKETS_EVERY-th (from index BRACKETS_FIRST) where the
#: implementation takes "(" and ")" in a token; "line-ends": a request whose lines hold characters a file reader
#: ends a line at (`line_end_request`), on every LINE_ENDS_EVERY-th (from index LINE_ENDS_FIRST) where the
#: implementation takes one of them in a token or declares a tokenizer.
TEXT_EVERY = 2
REFUSED_EVERY = 12
SERIES_EVERY = 10
BRACKETS_EVERY = 10
BRACKETS_FIRST = 2
LINE_ENDS_EVERY = 10
LINE_ENDS_FIRST = 4
COMPANIONS = ("text", "refused", "series", "brackets", "line-ends")
#: Requests one series sends unless `--series-length` says otherwise.
DEFAULT_SERIES_LENGTH = 36
#: The parts a series step changes in its base input, one at a time, in turn (`oracle.harness.work.series`).
PARTS = ("references", "weights", "lowercase", "level", "smoothing")
#: Rare sizes: a run past 65,535 and a corpus of thousands of segments.
VERY_LONG_RUN = 65_600
HUGE_CORPUS = 2_000


def example_rng(seed, index):
    return random.Random(f"bleu-oracle/{seed}/{index}")


def example_id(seed, index):
    return f"random-{seed}-{index}"


def is_safe_token(token):
    """A non-empty str with no split character, control character or surrogate."""
    return (
        isinstance(token, str)
        and token != ""
        and not any(ch in FORBIDDEN_CHARACTERS or unicodedata.category(ch) in ("Cc", "Cs") for ch in token)
    )


#: `random.Random.choice` draws an index below n as `getrandbits(n.bit_length())` until one is below n (CPython's
#: `_randbelow_with_getrandbits`); `choices_of` makes the same calls itself where this holds.
_RANDBELOW_BY_BITS = getattr(random.Random, "_randbelow", None) is getattr(
    random.Random, "_randbelow_with_getrandbits", False)


def choices_of(rng, population, count):
    """`[rng.choice(population) for _ in range(count)]`: the same tokens from the same calls of `rng.getrandbits`
    (the generator left in the same state), without two Python calls (choice, _randbelow) per token: 3 to 5
    times faster. Where `rng` is not a plain `random.Random` of that CPython algorithm, it is that list
    comprehension. (Reading many words in one `getrandbits` call was tried: slower on the short lists drawn.)"""
    n = len(population)
    if type(rng) is not random.Random or not _RANDBELOW_BY_BITS or not n:
        return [rng.choice(population) for _ in range(count)]
    bits, getrandbits = n.bit_length(), rng.getrandbits
    out = []
    for _ in range(count):
        r = getrandbits(bits)
        while r >= n:
            r = getrandbits(bits)
        out.append(population[r])
    return out


def uniform_weights(n):
    return (1.0 / n,) * n


def example_request(seed, index, capabilities: Capabilities, *, uniform_only=False, profile_smoothing=None, seq=0):
    """Example `index` of seed `seed` for these capabilities (deterministic)."""
    focus = FOCI[index % len(FOCI)]
    if focus in EXPENSIVE_FOCI and (index // len(FOCI)) % 4:  # the largest inputs: 1 cycle in 4
        focus = EXPENSIVE_FOCI[focus]
    return generate_request(
        example_rng(seed, index),
        capabilities,
        uniform_only=uniform_only,
        profile_smoothing=profile_smoothing,
        seq=seq,
        focus=focus,
    )


def companion_rng(seed, index, kind):
    return random.Random(f"bleu-oracle/{seed}/{index}/{kind}")


def companions(index, capabilities: Capabilities):
    """The companions (names of COMPANIONS) example `index` brings along for these capabilities."""
    out = []
    if index % TEXT_EVERY == 1 and any(t in TOKENIZERS for t in capabilities.tokenizers or ()):
        out.append("text")
    if index % REFUSED_EVERY == REFUSED_EVERY - 1:
        out.append("refused")
    if index % SERIES_EVERY == SERIES_EVERY // 2:
        out.append("series")
    if index % BRACKETS_EVERY == BRACKETS_FIRST and not {"(", ")"} & set(capabilities.forbidden_token_characters or ""):
        out.append("brackets")
    if index % LINE_ENDS_EVERY == LINE_ENDS_FIRST and (line_ends_in_tokens(capabilities) or _tokenizers(capabilities)):
        out.append("line-ends")
    return out


def _tokenizers(capabilities: Capabilities):
    return [t for t in capabilities.tokenizers or () if t in TOKENIZERS]


def line_ends_in_tokens(capabilities: Capabilities):
    """The characters of LINE_END_CHARACTERS the implementation takes in a token (not forbidden)."""
    forbidden = capabilities.forbidden_token_characters or ""
    return "".join(ch for ch in LINE_END_CHARACTERS if ch not in forbidden)


def text_request(rng, capabilities: Capabilities, *, uniform_only=False, profile_smoothing=None, seq=0):
    """A text request (the "text" companion): raw text from `oracle.harness.textgen` for a declared tokenizer."""
    return generate_request(
        rng, capabilities, uniform_only=uniform_only, profile_smoothing=profile_smoothing, seq=seq, focus="raw-text"
    )


def bracket_request(rng, capabilities: Capabilities, *, uniform_only=False, profile_smoothing=None, seq=0):
    """A token request whose lines hold bracket pairs (the "brackets" companion): its vocabulary is a few plain
    tokens and every token of BRACKET_TOKENS, so that a script reading each line as text (deleting "(...)" spans,
    taking '"' as a quote) counts other n-grams than the tokens sent."""
    return generate_request(
        rng, capabilities, uniform_only=uniform_only, profile_smoothing=profile_smoothing, seq=seq, focus="brackets"
    )


def line_end_request(rng, capabilities: Capabilities, *, uniform_only=False, profile_smoothing=None, seq=0):
    """A request whose lines hold characters a file reader ends a line at (the "line-ends" companion): a token
    request whose vocabulary is a few plain tokens and every token of LINE_END_TOKENS where the implementation takes
    one of LINE_END_CHARACTERS in a token; else (every one forbidden, a tokenizer declared) a text request with one
    of them, or CR LF, put into most of its texts. A script that writes each segment as a line and reads the lines
    back with `str.splitlines` or universal newlines cuts such a segment in two."""
    draw = {"uniform_only": uniform_only, "profile_smoothing": profile_smoothing, "seq": seq}
    if line_ends_in_tokens(capabilities):
        return generate_request(rng, capabilities, focus="line-ends", **draw)
    request = text_request(rng, capabilities, **draw)
    segments = tuple(
        Segment(hypothesis=_with_line_end(rng, s.hypothesis, always=True),
                references=tuple(_with_line_end(rng, r) for r in s.references))
        for s in request.segments
    )
    return request.model_copy(update={"segments": segments})


def _with_line_end(rng, text, *, always=False):
    """`text` with one line end of LINE_END_CHARACTERS (or CR LF) put in at a random place (always, or 2 times in
    3): between words, inside one or at either end."""
    if not always and rng.random() < 1 / 3:
        return text
    at = rng.randint(0, len(text))
    return text[:at] + rng.choice((*LINE_END_CHARACTERS, "\r\n")) + text[at:]


# -- numbers ---------------------------------------------------------------------------------


def _max_order(capabilities):
    return max(1, min(capabilities.max_order, MAX_GENERATED_ORDER))


def generate_order(rng, capabilities, focus="plain"):
    max_order = _max_order(capabilities)
    orders = [n for n in capabilities.orders or () if n <= MAX_GENERATED_ORDER]
    if orders:  # the implementation takes only these maximum orders
        return rng.choice(orders)
    if focus == "high-order" and max_order > 6:
        return rng.randint(7, max_order)
    if focus == "one-order-without-match":
        return rng.randint(min(2, max_order), min(max_order, 6))
    if max_order >= 4 and rng.random() < 0.5:
        return 4
    return rng.randint(1, min(max_order, 6)) if rng.random() < 0.85 else rng.randint(1, max_order)


def generate_weights(rng, capabilities, *, uniform_only=False, focus="plain", n=None):
    n = n or generate_order(rng, capabilities, focus)
    free = not uniform_only and capabilities.weights == "any"
    if not free or (focus not in ("tiny-weights", "zero-weights") and rng.random() < 0.35):
        return uniform_weights(n)
    weights = [rng.choice(WEIGHT_VALUES) if rng.random() < 0.8 else round(rng.uniform(0, 1), 3) for _ in range(n)]
    if focus == "tiny-weights" or rng.random() < 0.1:
        for i in rng.sample(range(n), rng.randint(1, n)):
            weights[i] = rng.choice(TINY_WEIGHTS)
    if focus == "zero-weights" and n > 1:
        weights[rng.randrange(n)] = 0.0
    if not any(weights):
        weights[rng.randrange(n)] = rng.choice((0.5, 1.0, 0.25))
    return tuple(float(w) for w in weights)


def generate_smoothing(rng, capabilities, *, profile_smoothing=None, focus="plain"):
    methods = [m for m in capabilities.smoothing if m in SMOOTHING_METHODS]
    if not methods:
        return {"method": "none"}
    if focus == "smoothing-edges":
        with_parameters = [m for m in methods if m in SMOOTHING_PARAMETER_VALUES]
        methods = with_parameters or methods
    elif profile_smoothing and profile_smoothing.get("method") in methods and rng.random() < 0.3:
        return dict(profile_smoothing)
    method = rng.choice(methods)
    out = {"method": method}
    for name, values in SMOOTHING_PARAMETER_VALUES.get(method, {}).items():
        out[name] = rng.choice(values[3:] if focus == "smoothing-edges" and len(values) > 3 else values)
    return out


# -- tokens and segments ---------------------------------------------------------------------


def generate_vocabulary(rng, focus, *, lowercase=False):
    """A few plain tokens, with a token family when the focus is one (or, sometimes, at random); with every token of
    BRACKET_TOKENS under the "brackets" focus."""
    vocabulary = rng.sample(VOCABULARY, rng.choice((1, 2, 2, 3, 3, 4, 5, 7)))
    if focus == "brackets":  # the brackets are the point: no case partners nor token family beside them
        return list(dict.fromkeys([*vocabulary, *BRACKET_TOKENS]))
    if focus == "line-ends":  # the line ends likewise
        return list(dict.fromkeys([*vocabulary, *LINE_END_TOKENS]))
    if lowercase or rng.random() < 0.3:  # make case folding matter
        vocabulary += [t.upper() if t != t.upper() else t.lower() for t in vocabulary[:2]]
    family = focus if focus in TOKEN_FAMILIES else (rng.choice(sorted(TOKEN_FAMILIES)) if rng.random() < 0.15 else None)
    if family is not None:
        members = TOKEN_FAMILIES[family]
        vocabulary = list(members) if rng.random() < 0.5 else list(members) + vocabulary[:2]
    return list(dict.fromkeys(vocabulary))


def _edit(rng, tokens, vocabulary):
    tokens = list(tokens)
    for _ in range(rng.choice((0, 1, 1, 2, 3)) * max(1, len(tokens) // 40)):
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


def _confuse(rng, tokens, family):
    """`tokens` with some tokens replaced by a partner an implementation may conflate them with, and
    adjacent pairs by a pair that joins to the same key."""
    tokens = list(tokens)
    partners = PARTNERS.get(family, {})
    for i, token in enumerate(tokens):
        if token in partners and rng.random() < 0.5:
            tokens[i] = partners[token]
    for before, after in SEQUENCE_PARTNERS.get(family, ()):
        for i in range(len(tokens) - 1):
            if tuple(tokens[i : i + 2]) == before and rng.random() < 0.7:
                tokens[i : i + 2] = after
    return tokens


def _resize(rng, tokens, length, vocabulary):
    tokens = list(tokens[:length])
    return tokens + choices_of(rng, vocabulary, length - len(tokens)) if len(tokens) < length else tokens


def _hypothesis(rng, focus, vocabulary):
    if focus == "long-segment":
        length = rng.randint(100, 400)
    elif focus == "long-run":
        return [rng.choice(vocabulary)] * rng.randint(256, 300)
    elif focus == "very-long-run":
        return [rng.choice(vocabulary)] * VERY_LONG_RUN
    else:
        length = rng.choice(HYPOTHESIS_LENGTHS)
    if length and rng.random() < 0.1:
        return [rng.choice(vocabulary)] * length  # "the the the": clipping
    return choices_of(rng, vocabulary, length)


def _reference_count(rng, focus):
    if focus == "many-references":
        return rng.randint(5, 8)
    if focus == "three-way-tie":
        return rng.randint(3, 5)
    if focus == "very-long-run":  # the run is the point; more copies of 65,600 tokens only cost memory and time
        return rng.choice((1, 2))
    return rng.choice((1, 1, 2, 2, 3, 4))


def generate_segment(rng, *, lowercase=False, focus="plain", vocabulary=None, max_order=4):
    vocabulary = vocabulary or generate_vocabulary(rng, focus, lowercase=lowercase)
    hypothesis = _hypothesis(rng, focus, vocabulary)
    if focus in SEQUENCE_PARTNERS and rng.random() < 0.7:  # a pair whose partner pair joins to the same key
        at = rng.randint(0, len(hypothesis))
        hypothesis[at:at] = rng.choice(SEQUENCE_PARTNERS[focus])[0]
    count = _reference_count(rng, focus)
    references = []
    for _ in range(count):
        roll = rng.random()
        if focus in ("long-run", "very-long-run") and roll < 0.8:
            references.append(list(hypothesis[: len(hypothesis) - rng.choice((0, 0, 1, 3))]))
        elif roll < 0.06:
            references.append([])
        elif roll < 0.7:
            edited = _edit(rng, hypothesis, vocabulary)
            references.append(
                _confuse(rng, edited, focus) if focus in PARTNERS or focus in SEQUENCE_PARTNERS else edited
            )
        else:
            references.append(choices_of(rng, vocabulary, rng.choice(HYPOTHESIS_LENGTHS)))
    boundary = _BOUNDARIES.get(focus)
    if boundary is not None:
        hypothesis, references = boundary(rng, hypothesis, references, vocabulary, max_order)
    elif count >= 2 and rng.random() < 0.4:
        hypothesis, references = _tie(rng, hypothesis, references, vocabulary, max_order)
    rng.shuffle(references)
    return Segment(hypothesis=tuple(hypothesis), references=tuple(tuple(r) for r in references))


# -- boundaries: each takes (rng, hypothesis, references, vocabulary, max_order), returns the pair ----


def _tie(rng, hypothesis, references, vocabulary, max_order):
    """Two references at the same distance from the hypothesis length, one shorter, one longer."""
    length = len(hypothesis)
    if len(references) < 2:
        references = references + [_edit(rng, hypothesis, vocabulary)]
    if length == 0:
        hypothesis = choices_of(rng, vocabulary, rng.randint(2, 6))
        length = len(hypothesis)
    d = rng.randint(1, min(3, length))
    i, j = rng.sample(range(len(references)), 2)
    references[i] = _resize(rng, references[i], length - d, vocabulary)
    references[j] = _resize(rng, references[j], length + d, vocabulary)
    return hypothesis, references


def _three_way_tie(rng, hypothesis, references, vocabulary, max_order):
    """Three or more references at one distance, both sides, listed in no particular order."""
    if len(hypothesis) < 2:
        hypothesis = choices_of(rng, vocabulary, rng.randint(3, 8))
    length, d = len(hypothesis), rng.randint(1, 2)
    while len(references) < 3:
        references.append(_edit(rng, hypothesis, vocabulary))
    sides = [length + d, length - d, length + d if rng.random() < 0.5 else length - d]
    for i, target in zip(rng.sample(range(len(references)), 3), sides, strict=True):
        references[i] = _resize(rng, _edit(rng, hypothesis, vocabulary), target, vocabulary)
    return hypothesis, references


def _c_equals_r(rng, hypothesis, references, vocabulary, max_order):
    """The closest reference as long as the hypothesis: BP's boundary (c = r, so BP = 1 under every rule)."""
    if not hypothesis:
        hypothesis = choices_of(rng, vocabulary, rng.randint(1, 6))
    references = [_resize(rng, r, len(hypothesis) + rng.choice((2, 3, 5)), vocabulary) for r in references]
    references[0] = _resize(rng, _edit(rng, hypothesis, vocabulary), len(hypothesis), vocabulary)
    return hypothesis, references


def _r_zero(rng, hypothesis, references, vocabulary, max_order):
    """Every reference empty, the hypothesis not: r = 0 < c."""
    if not hypothesis:
        hypothesis = choices_of(rng, vocabulary, rng.randint(1, 5))
    return hypothesis, [[] for _ in references]


def _clip_at_maximum(rng, hypothesis, references, vocabulary, max_order):
    """A token repeated k times in the hypothesis, exactly k times in one reference, k - 1 in another."""
    token, k = rng.choice(vocabulary), rng.randint(2, 5)
    hypothesis = list(hypothesis[:6]) + [token] * k
    rng.shuffle(hypothesis)
    others = [t for t in vocabulary if t != token] or ["x"]
    at_max = [token] * k + choices_of(rng, others, rng.randint(0, 3))
    below = [token] * (k - 1) + choices_of(rng, others, rng.randint(0, 4))
    rng.shuffle(at_max)
    return hypothesis, [at_max, below]


def _one_order_without_match(rng, hypothesis, references, vocabulary, max_order):
    """Chunks of N - 1 reference tokens separated by tokens of no reference: orders 1..N-1 match, N not."""
    n = max(max_order, 2)
    reference = choices_of(rng, vocabulary, rng.randint(2 * n, 4 * n))
    hypothesis, k = [], 0
    for start in range(0, len(reference), n - 1):
        hypothesis += reference[start : start + n - 1] + [f"⟂{k}"]
        k += 1
    return hypothesis, [reference] + references[1:]


def _same_line_ends(rng, hypothesis, references, vocabulary, max_order):
    """Half the time, every reference with the hypothesis's tokens holding a line end (and no other), each put at a
    random place: each side then has as many lines where a reader cuts them, so that a caller pairing the lines one
    to one scores other pairs rather than erring on the counts."""
    if rng.random() < 0.5:
        return hypothesis, references
    cutting = [t for t in hypothesis if any(ch in t for ch in LINE_END_CHARACTERS)]
    out = []
    for reference in references:
        kept = [t for t in reference if not any(ch in t for ch in LINE_END_CHARACTERS)]
        for token in cutting:
            kept.insert(rng.randint(0, len(kept)), token)
        out.append(kept)
    return hypothesis, out


_BOUNDARIES = {
    "reference-length-tie": _tie,
    "three-way-tie": _three_way_tie,
    "c-equals-r": _c_equals_r,
    "r-zero": _r_zero,
    "clip-at-maximum": _clip_at_maximum,
    "one-order-without-match": _one_order_without_match,
    "line-ends": _same_line_ends,
}


# -- requests --------------------------------------------------------------------------------


def _segments(rng, focus, level, lowercase, max_order):
    if level == "sentence":
        count = 1
    elif focus == "big-corpus":
        count = HUGE_CORPUS if rng.random() < 0.1 else rng.randint(100, 400)
    elif focus in ("last-segment-mismatch", "varying-reference-counts"):
        count = rng.randint(3, 8)
    else:
        count = rng.choice((1, 1, 2, 2, 3, 4, 6))
    if focus not in _BOUNDARIES and focus != "brackets" and rng.random() < 0.03:  # nothing at all: c = r = 0
        return tuple(Segment(hypothesis=(), references=((),) * rng.randint(1, 2)) for _ in range(count))
    vocabulary = generate_vocabulary(rng, focus, lowercase=lowercase) if count > 1 else None
    # in a corpus, the size foci make one segment large, not all of them
    large = {"long-segment", "long-run", "very-long-run"}
    segments = [
        generate_segment(
            rng,
            lowercase=lowercase,
            vocabulary=vocabulary,
            max_order=max_order,
            focus=focus if focus not in large or i == 0 else "plain",
        )
        for i in range(count)
    ]
    if focus == "varying-reference-counts":  # 1, 2, 3, 4, 1, ... references: padded with edits of the hypothesis
        segments = [
            s.model_copy(
                update={
                    "references": (
                        s.references
                        + tuple(
                            tuple(_edit(rng, s.hypothesis, vocabulary or list(s.hypothesis) or ["a"])) for _ in range(4)
                        )
                    )[: 1 + i % 4]
                }
            )
            for i, s in enumerate(segments)
        ]
    if focus == "last-segment-mismatch":
        segments = [
            s.model_copy(update={"hypothesis": s.references[0]}) if i < count - 1 else s for i, s in enumerate(segments)
        ]
        last = segments[-1]
        if last.hypothesis in last.references:
            last = last.model_copy(update={"hypothesis": last.hypothesis + ("⟂",)})
        segments[-1] = last
    return tuple(segments)


def generate_request(
    rng, capabilities: Capabilities, *, uniform_only=False, profile_smoothing=None, seq=0, focus="plain"
):
    """One random, valid score request within `capabilities` (the implementation's declared `Capabilities`)."""
    tokenizers = _tokenizers(capabilities)
    if focus == "raw-text" and tokenizers:
        level = rng.choice(capabilities.levels)
        weights = generate_weights(rng, capabilities, uniform_only=uniform_only)
        smoothing = generate_smoothing(rng, capabilities, profile_smoothing=profile_smoothing)
        lowercase = capabilities.lowercase and rng.random() < 0.5  # case pairs (İ, ß, Σ) are in the text
        tokenizer = rng.choice(tokenizers)
        request = ScoreRequest(
            seq=seq,
            level=level,
            segments=generate_text_segments(rng, level, tokenizer),
            weights=weights,
            smoothing=smoothing,
            lowercase=lowercase,
            tokenize=tokenizer,
        )
        return fit_to_capabilities(request, capabilities)
    levels = capabilities.levels
    corpus_foci = ("big-corpus", "last-segment-mismatch", "varying-reference-counts")
    level = "corpus" if focus in corpus_foci and "corpus" in levels else rng.choice(levels)
    weights = generate_weights(rng, capabilities, uniform_only=uniform_only, focus=focus)
    smoothing = generate_smoothing(rng, capabilities, profile_smoothing=profile_smoothing, focus=focus)
    lowercase = capabilities.lowercase and rng.random() < (0.6 if focus == "case-folding" else 0.3)
    segments = _segments(rng, focus, level, lowercase, len(weights))
    request = ScoreRequest(
        seq=seq, level=level, segments=segments, weights=weights, smoothing=smoothing, lowercase=lowercase
    )
    return fit_to_capabilities(request, capabilities)


# -- fitting a request to what the implementation declares it takes ---------------------------


def fit_to_capabilities(request: ScoreRequest, capabilities: Capabilities) -> ScoreRequest:
    """`request` within the declared limits: tokens without forbidden characters (removed; an
    emptied token becomes "x" where empty tokens are not taken), no empty tokens where they are not
    taken, the same number of references in every segment where that is required, and no more
    references than `max_references` (the first ones kept)."""
    forbidden = set(capabilities.forbidden_token_characters or "")
    no_empty = capabilities.empty_tokens is False
    segments = request.segments
    if (forbidden or no_empty) and not request.is_text:  # raw text is the implementation's to tokenize
        segments = _fitted_segments(segments, forbidden, no_empty)
    if capabilities.same_reference_count:
        segments = _same_reference_count(segments)
    most = capabilities.max_references
    if most and any(len(s.references) > most for s in segments):
        segments = tuple(
            s.model_copy(update={"references": s.references[:most]}) if len(s.references) > most else s
            for s in segments
        )
    if segments is request.segments:
        return request
    return request.model_copy(update={"segments": segments})


def _fitted_segments(segments, forbidden, no_empty):
    """`segments` with each token's forbidden characters removed (an emptied token "x" where `no_empty`): each
    distinct token fitted once, and a segment holding no token that changes kept as it is (the same values as
    rebuilding every segment token by token, which cost a Python call per token: most of drawing a 65,600-token
    run)."""
    distinct = set()
    for segment in segments:
        distinct.update(segment.hypothesis)
        for reference in segment.references:
            distinct.update(reference)
    changed = {}
    for token in distinct:
        clean = "".join(ch for ch in token if ch not in forbidden)
        fitted = "x" if no_empty and not clean else clean
        if fitted != token:
            changed[token] = fitted
    if not changed:
        return segments

    def holds_changed(tokens):
        return not changed.keys().isdisjoint(tokens)

    def fit(tokens):
        return tuple(changed.get(token, token) for token in tokens) if holds_changed(tokens) else tokens

    return tuple(
        Segment(hypothesis=fit(s.hypothesis), references=tuple(map(fit, s.references)))
        if holds_changed(s.hypothesis) or any(map(holds_changed, s.references)) else s
        for s in segments
    )


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
