"""What a run's inputs exercised: the coverage table of `check` and `fuzz`.

`features(request, statistics)` reads off one input what it exercises (never
what the generator meant to do: a request fitted to the implementation's
capabilities may have lost a feature on the way). `Coverage` counts them over
a run; the footer of results.jsonl carries the counts and, for each feature
the implementation's declared capabilities rule out, why: a summary then
shows what "conforming" covered, and what it could not.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

from oracle.escaping import shown
from oracle.formulas.memo import ALL_AT_ONCE, Memo
from oracle.formulas.runs import RUNS_PER_TOKEN, mostly_runs, run_lengths
from oracle.models.protocol import Capabilities
from oracle.models.results import CoverageTable

from .generate import PARTS
from .refused import REFUSED_KINDS, refused_kind
from .textgen import PIECES, rules_of, text_rules

#: dimension -> feature -> what it means. The table's rows, in this order.
FEATURES = {
    "tokens": {
        "whitespace-inside": "a token holding whitespace",
        "empty-token": "the empty token",
        "control-characters": "a token holding a control character (NUL included)",
        "non-bmp": "a character beyond U+FFFF",
        "normalisation": "a token NFKC normalisation changes",
        "case-folding": "a token whose lower() and casefold() differ, or non-ASCII case",
        "toolkit-specials": "a toolkit's special token (<unk>, </s>, <pad>, @@ ...)",
        "concatenations": "two different n-grams whose tokens concatenate to the same string",
        "map-keys": "a name special in another language's maps (__proto__, constructor ...)",
    },
    "sizes": {
        "empty-hypothesis": "a segment with no hypothesis tokens",
        "empty-reference": "an empty reference",
        "long-segment": "a sequence of 100 tokens or more",
        "run-past-255": "one token more than 255 times in a row",
        "run-past-65535": "one token more than 65,535 times in a row",
        "big-corpus": "100 segments or more",
        "huge-corpus": "1,000 segments or more",
        "many-references": "5 references or more in a segment",
        "varying-reference-counts": "segments with different numbers of references",
        "order-1": "maximum order 1",
        "high-order": "maximum order 7 or more",
    },
    "numbers": {
        "tiny-weights": "a weight in (0, 0.01]",
        "zero-weight": "a weight of 0",
        "unnormalised-weights": "weights not summing to 1",
        "smoothing": "a smoothing method other than none",
        "smoothing-parameter-edge": "a smoothing parameter other than its documented default",
        "lowercase": "case folding requested",
    },
    "boundaries": {
        "reference-length-tie": "two references at the same distance from the hypothesis length, one each side",
        "three-way-tie": "three references or more at the closest distance",
        "c-equals-r": "c = r > 0 over the corpus",
        "r-zero": "r = 0 < c",
        "c-r-zero": "c = r = 0",
        "clip-at-maximum": "a repeated hypothesis token exactly as often as in the reference with most of it",
        "one-order-without-match": "exactly one order with n-grams and no match",
        "last-segment-mismatch": "a corpus of 3 segments or more whose only mismatching hypothesis is the last",
        "sentence-level": "a sentence-level request",
    },
    "text": {f"text-{name}": f"a text request tokenized with {name}" for name in ("13a", "intl", "char", "none")},
    "refused": {
        **{f"refused-{kind}": f"an input that must be refused: {meaning}" for kind, meaning in REFUSED_KINDS.items()},
        "refused-refused": "an input that must be refused, which the implementation refused",
    },
    "state": {
        "series": "a series of short requests to one process",
        "series-request": "a request of a series",
        "repeat-unchanged": "an input sent again unchanged in a series",
        **{f"repeat-{part}": f"an input sent again with its {part} changed" for part in PARTS},
    },
}
#: tokenizer -> its rules' features ("13a:skipped"), one line per tokenizer in a summary's coverage table.
TEXT_RULE_FEATURES = {
    tokenizer: {f"{tokenizer}:{rule}": meaning for rule, meaning in rules_of(tokenizer).items()}
    for tokenizer in ("13a", "intl", "char", "none")
}
ALL_FEATURES = tuple(name for group in (*FEATURES.values(), *TEXT_RULE_FEATURES.values()) for name in group)

TOOLKIT_SPECIALS = frozenset({"<unk>", "</s>", "<s>", "<pad>", "<eos>", "<bos>", "[UNK]", "[PAD]", "[CLS]", "[SEP]",
                              "<|endoftext|>", "@@"})
MAP_KEYS = frozenset({"__proto__", "constructor", "toString", "hasOwnProperty", "prototype", "valueOf",
                      "__class__", "__dict__", "length"})
_DEFAULTS = {"floor": {"value": 0.1}, "add-k": {"k": 1.0}, "chen-cherry-1": {"epsilon": 0.1},
             "chen-cherry-4": {"k": 5.0}, "chen-cherry-6": {"alpha": 5.0}, "chen-cherry-7": {"k": 5.0}}


#: Each token's own features (`token_features`) are kept across requests for tokens up to this long, at most
#: `TOKEN_FEATURES_KEPT` of them (past it, all are dropped): a run draws its tokens from few vocabularies (a cold
#: `check --impl sacrebleu --no-cases --examples 1000`: 976 distinct tokens among the 21,108 first met in a
#: request), and each token's walk over its characters (categories, normalisation, case) was done in every request
#: holding it. A longer token is walked each time (it would hold its text in memory).
TOKEN_FEATURES_LONGEST = 64
TOKEN_FEATURES_KEPT = 65_536
_kept_token_features: Memo[str, frozenset[str]] = Memo(TOKEN_FEATURES_KEPT, ALL_AT_ONCE)
_feature_sets: dict[frozenset[str], frozenset[str]] = {}


def token_features(token):
    """The features of one token on its own (`_token_features`), kept for the next request holding it."""
    kept = _kept_token_features.get(token)
    if kept is None:
        found = set()
        _token_features(token, found)
        kept = frozenset(found)
        kept = _feature_sets.setdefault(kept, kept)  # (one object per distinct set: most tokens have none)
        if len(token) <= TOKEN_FEATURES_LONGEST:
            _kept_token_features.keep(token, kept)
    return kept


def _token_features(token, found):
    if token == "":
        found.add("empty-token")
        return
    if any(ch.isspace() for ch in token):
        found.add("whitespace-inside")
    if any(unicodedata.category(ch) == "Cc" and not ch.isspace() for ch in token):
        found.add("control-characters")
    if any(ord(ch) > 0xFFFF for ch in token):
        found.add("non-bmp")
    if not token.isascii():
        if unicodedata.normalize("NFKC", token) != token:
            found.add("normalisation")
        if token.lower() != token.casefold() or token.lower() != token or token.upper() != token:
            found.add("case-folding")
    if token in TOOLKIT_SPECIALS or token.endswith("@@") or token.startswith("\u2581"):
        found.add("toolkit-specials")
    if token in MAP_KEYS:
        found.add("map-keys")


def _adjacent_pairs(tokens, lengths=None):
    """The distinct pairs of adjacent tokens; from `lengths` (the run lengths) when the sequence is mostly runs:
    two runs side by side give one pair, a run of two or more its token twice (a 65,600-token run: one pair,
    without building 65,599)."""
    if lengths is None or len(lengths) * 4 > len(tokens):
        return set(zip(tokens, tokens[1:], strict=False))
    pairs = {(a, b) for (a, _), (b, _) in zip(lengths, lengths[1:], strict=False)}
    pairs.update((token, token) for token, run in lengths if run > 1)
    return pairs


def _token_counts(tokens, lengths=None):
    """How many times each token occurs; a long sequence of few runs counted by its runs (`lengths`, where the
    sequence's run lengths are already known: `_sequence_features` read them)."""
    if len(tokens) <= 255:
        return Counter(tokens)  # counted in C
    if lengths is None:
        if not mostly_runs(tokens, 1):
            return Counter(tokens)
        lengths = run_lengths(tokens)
    elif len(lengths) > len(tokens) // RUNS_PER_TOKEN:  # (what `mostly_runs(tokens, 1)` decides, from its runs)
        return Counter(tokens)
    counts = Counter()
    for token, run in lengths:
        counts[token] += run
    return counts


def features(request, statistics=None, shared=None):
    """The features (names from FEATURES) one request exercises; `statistics` (the oracle's, as a
    protocol dict) adds those that depend on counts. `shared`: the unit of work's `BySegments`, which keeps
    the features of the segments alone (`segment_features`) for the next request holding the same segments."""
    if shared is None:
        found = set(segment_features(request))
    else:
        found = set(shared.get(request.segments, ("features", request.tokenize), lambda: segment_features(request)))
    kind = refused_kind(request)
    if kind is not None:
        found.add(f"refused-{kind}")
    _weight_features(tuple(request.weights), found)
    _option_features(request, found)
    if statistics is not None:
        _count_features(statistics, found)
    return found


def segment_features(request):
    """The features read off `request`'s segments alone (and, in a text request, its tokenizer): its tokens,
    sequences, segments and corpus; a walk over every token, which a request holding the same segments
    shares (`features`' `shared`)."""
    found = set()
    if request.is_text:  # raw text: its features are those of the literal tokens, the tokenizer and its rules
        found.add(f"text-{request.tokenize}")
        for segment in request.segments:
            for text in (segment.hypothesis, *segment.references):
                found.update(f"{request.tokenize}:{rule}" for rule in text_rules(text, request.tokenize))
        request = request.tokenized()
    seen = set()
    pairs = set()
    for segment in request.segments:
        # (a long sequence's run lengths, read once for its own features and again for the segment's clipping)
        sequences = (segment.hypothesis, *segment.references)
        lengths = [_sequence_features(tokens, seen, pairs, found) for tokens in sequences]
        _segment_features(segment, found)
        _segment_boundaries(segment, found, lengths)
    if len({"".join(pair) for pair in pairs}) < len(pairs):  # two different pairs joined alike
        found.add("concatenations")
    _corpus_features(request.segments, found)
    return frozenset(found)


def _sequence_features(tokens, seen, pairs, found):
    """One token sequence's features: its tokens' (each distinct token once a run: `seen`), its length and
    runs; its distinct adjacent pairs are added to `pairs` (whose concatenations `features` compares once).
    Returns its run lengths where they were read (a sequence of more than 255 tokens), else None."""
    for token in set(tokens) - seen:
        seen.add(token)
        found |= token_features(token)
    if len(tokens) >= 100:
        found.add("long-segment")
    lengths = run_lengths(tokens) if len(tokens) > 255 else None
    run = max(run for _, run in lengths) if lengths else 0
    if run > 255:
        found.add("run-past-255")
    if run > 65535:
        found.add("run-past-65535")
    pairs.update(_adjacent_pairs(tokens, lengths))
    return lengths


def _segment_features(segment, found):
    if not segment.hypothesis:
        found.add("empty-hypothesis")
    if any(not r for r in segment.references):
        found.add("empty-reference")
    if len(segment.references) >= 5:
        found.add("many-references")


def _corpus_features(segments, found):
    if len({len(s.references) for s in segments}) > 1:
        found.add("varying-reference-counts")
    if len(segments) >= 100:
        found.add("big-corpus")
    if len(segments) >= 1000:
        found.add("huge-corpus")
    if len(segments) >= 3 and all(s.hypothesis in s.references for s in segments[:-1]) \
            and segments[-1].hypothesis not in segments[-1].references:
        found.add("last-segment-mismatch")


def _weight_features(weights, found):
    if len(weights) == 1:
        found.add("order-1")
    if len(weights) >= 7:
        found.add("high-order")
    if any(0 < w <= 0.01 for w in weights):
        found.add("tiny-weights")
    if 0 in weights:
        found.add("zero-weight")
    if abs(sum(weights) - 1) > 1e-9:
        found.add("unnormalised-weights")


def _option_features(request, found):
    """Smoothing (and its parameters against their documented defaults), case folding, level."""
    smoothing = request.smoothing
    if smoothing.method != "none":
        found.add("smoothing")
        defaults = _DEFAULTS.get(smoothing.method, {})
        if any(float(value) != defaults.get(name) for name, value in smoothing.parameters.items()):
            found.add("smoothing-parameter-edge")
    if request.lowercase is True:
        found.add("lowercase")
    if request.level == "sentence":
        found.add("sentence-level")


def _count_features(statistics, found):
    """The boundaries only the oracle's counts show: c against r, and one order without a match."""
    c, r = statistics.hyp_len, statistics.ref_len
    if c == r == 0:
        found.add("c-r-zero")
    elif c == r:
        found.add("c-equals-r")
    elif r == 0:
        found.add("r-zero")
    if sum(1 for m, t in zip(statistics.matches, statistics.totals, strict=False) if t > 0 and m == 0) == 1:
        found.add("one-order-without-match")


def _segment_boundaries(segment, found, runs=None):
    """Reference lengths tied around c, and a repeated hypothesis token whose count a reference reaches (clipping
    at the maximum). `runs`: the run lengths `_sequence_features` read of the hypothesis and each reference, in
    that order (None for a sequence it did not read them of)."""
    runs = runs or [None] * (1 + len(segment.references))
    c = len(segment.hypothesis)
    lengths = [len(r) for r in segment.references]
    if len(lengths) >= 2:
        nearest = min(abs(n - c) for n in lengths)
        at = [n for n in lengths if abs(n - c) == nearest]
        if nearest > 0 and min(at) < c < max(at):
            found.add("reference-length-tie")
        if len(at) >= 3:
            found.add("three-way-tie")
    if "clip-at-maximum" in found:
        return
    counts = _token_counts(segment.hypothesis, runs[0])
    repeated = {token: k for token, k in counts.items() if k >= 2}
    if repeated:
        most = Counter()
        for reference, reference_runs in zip(segment.references, runs[1:], strict=True):
            reference_counts = _token_counts(reference, reference_runs)
            for token in repeated:
                most[token] = max(most[token], reference_counts.get(token, 0))
        if any(most[token] == k for token, k in repeated.items()):
            found.add("clip-at-maximum")


def unreachable(capabilities: Capabilities, *, uniform_only: bool = False) -> dict[str, str]:
    """feature -> why the implementation's declared capabilities (or the judged profile) rule it out."""
    out: dict[str, str] = {}
    # in this order: a later rule's reason for the same feature replaces an earlier one's
    _unreachable_tokens(capabilities, out)
    _unreachable_orders_and_weights(capabilities, uniform_only, out)
    _unreachable_options(capabilities, out)
    _unreachable_references(capabilities, out)
    _unreachable_text_rules(capabilities, out)
    tokenizers = capabilities.tokenizers or ()
    why = f"its tokenizers are {list(tokenizers)}" if tokenizers else "it declares no tokenizer"
    for tokenizer, rules in TEXT_RULE_FEATURES.items():
        if tokenizer not in tokenizers:
            out[f"text-{tokenizer}"] = why
            out.update(dict.fromkeys(rules, why))
    if uniform_only or capabilities.weights != "any":
        out["refused-negative-weight"] = out["refused-zero-weights"] = "uniform weights only"
    if "corpus" not in capabilities.levels:
        out["refused-empty-corpus"] = "sentence level only"
    if not set(capabilities.smoothing) & set(_DEFAULTS):
        out["refused-negative-smoothing"] = "no smoothing method with a parameter"
    _unreachable_repeats(capabilities, out)
    return out


def _unreachable_text_rules(capabilities, out):
    """A tokenizer's rule every piece of text exercising it (`textgen.PIECES`) holds a sequence the implementation's
    input format cannot carry: a text request meeting it is never sent (13a's `-\\n` to mteval-v13a.pl)."""
    forbidden = capabilities.forbidden_text_sequences or ()
    for tokenizer, rules in PIECES.items():
        for rule, pieces in rules.items():
            held = [next((s for s in forbidden if s in piece), None) for piece in pieces]
            if all(held):
                sequences = ", ".join(f'"{shown(s)}"' for s in dict.fromkeys(held))
                out[f"{tokenizer}:{rule}"] = f"its texts may not hold {sequences}"


def _unreachable_repeats(capabilities, out):
    if not capabilities.lowercase:
        out["repeat-lowercase"] = "it does not fold case"
    if len(capabilities.levels) < 2:
        out["repeat-level"] = f"{capabilities.levels[0]} level only"
    if len(capabilities.smoothing) < 2:
        out["repeat-smoothing"] = "one smoothing method"


def _unreachable_tokens(capabilities, out):
    forbidden = capabilities.forbidden_token_characters or ""
    if " " in forbidden or "\t" in forbidden:
        out["whitespace-inside"] = "its tokens may not hold whitespace"
    if "\x00" in forbidden:
        out["control-characters"] = "its tokens may not hold control characters"
    if capabilities.empty_tokens is False:
        out["empty-token"] = "it takes no empty tokens"


def _unreachable_orders_and_weights(capabilities, uniform_only, out):
    # read off the declared numbers, never iterated up to them: max(range(1, N + 1)) is one C loop that no
    # signal interrupts, and a declared N of 10**12 would hold the run for hours
    declared = capabilities.orders or ()
    highest = max(declared) if declared else capabilities.max_order
    if highest < 7:
        out["high-order"] = f"its maximum order is {highest}"
    if declared and 1 not in declared:
        out["order-1"] = f"its orders are {list(declared)}"
    if uniform_only or capabilities.weights != "any":
        for name in ("tiny-weights", "zero-weight", "unnormalised-weights"):
            out[name] = "uniform weights only"


def _unreachable_options(capabilities, out):
    """Smoothing, case folding and levels."""
    methods = [m for m in capabilities.smoothing if m != "none"]
    if not methods:
        out["smoothing"] = out["smoothing-parameter-edge"] = "no smoothing method"
    elif not set(methods) & set(_DEFAULTS):
        out["smoothing-parameter-edge"] = "no smoothing method with a parameter"
    if not capabilities.lowercase:
        out["lowercase"] = "it does not fold case"
    levels = capabilities.levels
    if "sentence" not in levels:
        out["sentence-level"] = "corpus level only"
    if "corpus" not in levels:
        for name in ("big-corpus", "huge-corpus", "varying-reference-counts", "last-segment-mismatch"):
            out[name] = "sentence level only"


def _unreachable_references(capabilities, out):
    most = capabilities.max_references
    if most:  # the smallest number of references each feature needs
        for name, needs in (("many-references", 5), ("reference-length-tie", 2), ("three-way-tie", 3),
                            ("varying-reference-counts", 2)):
            if most < needs:
                out[name] = f"at most {most} reference{'s' if most > 1 else ''} a segment"
    if capabilities.same_reference_count:
        out["varying-reference-counts"] = "the same number of references in every segment"


class Coverage:
    """Feature counts over a run."""

    def __init__(self):
        self.counts = Counter()
        self.inputs = 0
        #: the most requests one series sent
        self.longest_series = 0

    def add(self, request, statistics=None):
        self.inputs += 1
        self.counts.update(features(request, statistics))

    def add_features(self, found):
        """One input whose features (`features`) are known already."""
        self.inputs += 1
        self.counts.update(found)

    def add_refused(self, request):
        """The implementation refused `request`: counted when it is an input that must be refused."""
        if refused_kind(request) is not None:
            self.counts["refused-refused"] += 1

    def add_series(self, steps):
        """A series sent these steps (`oracle.harness.work.series.Step`: what each changed)."""
        self.counts["series"] += 1
        self.counts["series-request"] += len(steps)
        self.counts.update(f"repeat-{step.changed or 'unchanged'}" for step in steps[2:])
        self.longest_series = max(self.longest_series, len(steps))

    def merge(self, other):
        """Add the counts of another run's coverage table (a worker's footer)."""
        self.inputs += other.inputs
        self.counts.update({name: n for name, n in other.features.items() if n})
        self.longest_series = max(self.longest_series, other.longest_series)

    def table(self, capabilities: Capabilities, *, uniform_only: bool = False) -> CoverageTable:
        """The footer's coverage table: inputs, features (name -> count), unreachable (name -> why)."""
        return CoverageTable(inputs=self.inputs, features={name: self.counts.get(name, 0) for name in ALL_FEATURES},
                             unreachable=unreachable(capabilities, uniform_only=uniform_only),
                             longest_series=self.longest_series)

