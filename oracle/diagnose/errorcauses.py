"""The root cause of an `error` record: the feature of the input on which the implementation answers error.

A library that raises on some input (answered `error`, or `unsupported` by its adapter) gives no number to explain:
what explains it is the input that triggers it, and the shrunk input says it plainly (nltk's method6 at one order, a
segment without references). Named `error` alone, every crash of a run is one cause, and a baseline can list one
only by its exception's name or by its id, which holds for one seed. Here an error's cause is a predicate over the
input from a small catalogue of features (`mechanisms.errors.FEATURES`: an empty corpus, a segment without
references, weights negative or zero, a hypothesis or reference empty or shorter than the order, a segment whose
every reference is empty, a hypothesis of one token, an empty or whitespace-bearing token, a raw text holding a line
break or a hyphen before one, a reference whose sentences are not as many as its hypothesis's, several segments or
one, a segment of one reference or of several, case folding, the level, a tie for the closest reference length and
the longer of the tied listed first, the smoothing method, the order; and, `LAST_RESORT`, an order whose no n-gram
matches: a precision of 0, a reference length r of 0, the reference the reference-length rule picks empty in every
segment, and a segment's references not as many as the segments: each of which another feature's neighbour may take
away with its own), named `error-when-<feature>[-and-<feature>...]`: a stable string, listed in a baseline as
`cause:error-when-...`. Where no feature alone separates the failing input, two may together, either enough
(`error-when-<a>-or-<b>`, `_disjunction`: a batch of one segment or of texts of one token squeezed out of shape).

The predicate is confirmed on the failing input and its neighbours, one on each side of the boundary: for each
feature the failing (shrunk) input holds, the same input with that feature taken away by a small edit that keeps
every other feature it holds (the empty hypothesis given one token, the missing reference given, a zero weight
raised to the smallest other one, each hypothesis given as one more reference of its own, a segment's one reference
given twice, a segment whose references are all empty given one more of a token found nowhere in the input, as
long as the reference-length rule needs to still pick an empty one, a segment whose picked reference is empty given
one the rule picks instead, the smoothing method `none`) is asked of the implementation (`ask`). A feature
whose neighbour is answered (a score or a refusal) is part of the cause; one whose neighbour errs as well is not.
The order is a threshold: raised one at a time (at most `ORDER_STEPS`) until the error stops (`order-below-<k>`),
or lowered by one (`order-above-<k>`). Of the features of one family (a hypothesis empty, or shorter than the
order) the first whose neighbour is answered names it; at order 1, where the two neighbours are one input, the
hypothesis given one token is asked again at order 2 to tell them apart. A neighbour can stop the error for another
reason (keeping the one reference that matches nothing, nltk answers 0 before it reaches its smoothing): where a
cause joins several features, each is asked once more, the failing input with every other feature taken away and
that one too, and dropped where that input still errs. A cause holds on every failing input given (the original
request as well as the shrunk one): an order bound or smoothing the shrunk input needs but the original lacks is
dropped (the original errs without it); where no neighbour is answered the record keeps the name `error`.

A neighbour may take away with its feature another shown no part of the cause (whose own neighbour errs: one
reference more beside an empty one also makes a segment of one reference two). A zero precision (`LAST_RESORT`) is
told from the features whose neighbours also take it away: a feature whose first neighbour added a match is asked
once more with the tokens it adds being a token found nowhere in the input (`Feature.unmatched`): where that
neighbour, its precision still 0, is answered, the feature is part of the cause beside the zero precision. The
held-out bug this came from (empty-references-dropped: a segment whose references are all empty refused once its
empty references are dropped) was named by the zero precision, the feature that came last: "a reference is empty"
filled with the hypothesis's tokens had added a match, and the trigger itself, every reference
of a segment empty, was no feature (benchmarks/README.md, "Second held-out set after this round's mechanisms").

r = 0 (`reference-length-zero`) is neither "a reference is empty" nor "a segment's every reference is empty": under
closest an empty reference beside a long one is picked for a short hypothesis ("a" against "" and "b c d": r = 0,
not every reference empty), and an empty one beside the hypothesis's length is not ("a b" against "" and "c d": a
reference empty, r = 2). Each is told from the others by a neighbour that keeps the other: every-reference-empty's
added reference is long enough that r stays 0 ("a" against "" and "z z": a tie, the shorter picked), r = 0's is
picked and keeps the empty reference ("a" against "" and "z": r = 1). Where no such neighbour exists (an empty
hypothesis under closest picks an empty reference whatever is added), r = 0 is not named. The planted bug it came
from (bp-ratio-division, `c / r` unguarded) was named `error-when-references-all-empty`: the joined reference of one
token was picked, and took r = 0 away with every reference being empty.

A cause found is then told from its broader and narrower neighbours (`_faces`), each by one probe on the other side
of the boundary the broader reading draws, generated from the features' declarations: a per-segment feature ("a
hypothesis is empty": some segment) has an every-quantified face (`every_segment`, `hypotheses-all-empty`), asked by
the failing input with one more segment without the feature, every other feature kept (a corpus of one segment, where
"some" and "every" are one input, cannot tell them apart); and beside an order bound `order-above-<k>` (the order
lowered to k answered), a text longer than k (`OrderFace`, `text-longer-than-<k>`), asked by the failing input with
every text cut to k tokens, the order kept (an order matters only where a text is as long as it: a threshold on the
order may be one on the n-grams formed). Answered, the cause narrows (the every-face in the feature's place, the text
bound beside the order's); erring, the broader name is confirmed and stays. At most FACE_PROBES requests over the
search's bound. The ninth held-out set's two error bugs came to this (benchmarks/README.md, "An error's trigger told
from its broader and narrower neighbours"): each named by the broader face of its trigger, which its shrunk input,
one segment, or an order and a text both at the threshold, could not tell from the narrower.

A token's line end has faces of two kinds (`line_end_faces`): which reader cuts there (a lone carriage return, a line
end for universal newlines, against every line end `str.splitlines` takes) and which side holds it (a reference's
token, a hypothesis's). A face is named only where each of its neighbours is answered, one per way it narrows the
feature: the side's lone CRs made U+2028 (a line end `str.splitlines` alone takes), the line end moved to the other
side; a face one of whose neighbours cannot be built is not asked. The fifth held-out set's reference file read with
universal newlines was named by the broader `token-with-line-end` (benchmarks/README.md, "An error's trigger at its
own boundary"). A text's line end has the same faces where their probes can be built (`text_line_end_faces`, which
says which cannot). And "the corpus has one segment" has two neighbours, both asked: the segment given twice, and the
segment beside one whose hypothesis is empty (c and the hypothesis n-grams kept), so that a trigger on a corpus
total the doubling takes away (c = 1) is not named by the count.

`holds(name, request, features)` says whether a request has the features a cause names, without asking anything:
an error that was not shrunk is named by a cause its kind's shrunk errors were given, where its input holds it.

The search and the edits that take a feature away (the how) are here; the features, their names, words and the order
they are asked in, and the triggers' prefixes and words, are declared in the catalogue
(`oracle.diagnose.mechanisms.errors`), which passes them in (`Features`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from oracle.formulas import bleu
from oracle.formulas.conventions import Options
from oracle.formulas.errors import BleuOracleError
from oracle.formulas.smoothing import smooth
from oracle.models.protocol import ScoreRequest, Segment, SmoothingSpec

from .sentences import SENTENCE_ENDS, sentences

#: Every error cause's name starts so.
PREFIX = "error-when-"
#: The name of an error on nearly every input, answered where an exemption holds (`_unless`): `error-unless-<a>`, or
#: `error-unless-<a>-or-<b>` (answered where either holds).
UNLESS = "error-unless-"
#: A crash's (the process died on the input) and a hang's cause, named by the same features
#: (`oracle.harness.crashcauses`).
CRASH_PREFIX, TIMEOUT_PREFIX = "crash-when-", "timeout-when-"
#: How the features of one cause are joined in its name.
JOIN = "-and-"
#: How the two halves of a disjunction are joined in one part of a name (`segments-one-or-longest-text-one-token`):
#: the input errs where either holds (`_disjunction`).
OR = "-or-"
#: The most segments a neighbour making the segments as many as each one's references builds.
MAX_STREAMS = 16
#: Disjunctions (pairs of features) asked at most where no feature alone separates: each costs a probe or more.
MAX_DISJUNCTIONS = 4
#: Requests the search for a disjunction may send over MAX_PROBES (taking the features away one after another).
DISJUNCTION_PROBES = 8
#: The most tokens (every hypothesis and reference) of an input a disjunction is sought on: a shrunk one. Its search
#: sends the input about once per feature it holds, which on an input as drawn is many times the tokens of the run.
DISJUNCTION_TOKENS = 64
#: Requests one error's cause may send at most (each one neighbour): a bounded, deterministic cost.
MAX_PROBES = 16
#: The most tokens a neighbour asked may hold (every hypothesis and reference): an error not shrunk whose input is
#: as long as a drawn "long" example (a hundred thousand tokens) is not asked about it sixteen times over, which cost
#: a failing run several times its fixed twin's tokens; one over it is not asked (as outside the capabilities), and
#: a failing input over it is not searched (its record says so).
MAX_PROBE_TOKENS = 4096
#: Requests the faces of a cause found may send over MAX_PROBES (`_faces`: one for "every segment", one for the texts
#: cut beside an order bound, two for a line end's reader and side and one each for its broader faces, the first
#: shared; a neighbour's refuted features are most often asked already).
FACE_PROBES = 4
#: Orders above the failing one tried at most, looking for the first the implementation answers.
ORDER_STEPS = 4
#: The token an edit adds where the input has none to repeat.
FILLER = "a"
#: Neighbours of one feature asked at most (one segment kept of several: the first, the second, ...).
MAX_ALTERNATIVES = 4
#: How far a neighbour's refuted features are followed: a neighbour may take away a feature whose own neighbour
#: errs, that neighbour taking away in turn one whose own neighbour, keeping every other feature, errs.
REFUTED_DEPTH = 2
#: The tokens an edit that must add no match adds: the first letter the request does not hold.
UNMATCHED_LETTERS = "zqxjkvwyfgpmhbdlucnrsitoea"

#: ask(request): True where the implementation answers it with an error (or unsupported), False where it answers
#: (a score or a refusal), None where it cannot be asked (outside its capabilities, the process given up).
Ask = Callable[[ScoreRequest], bool | None]


# -- edits of sequences: token tuples, or raw text in a text request --------------------------------------------


def length_of(value) -> int:
    """The tokens of a token sequence; the words (split on whitespace) of a text."""
    return len(value.split()) if isinstance(value, str) else len(value)


def _first_token(value) -> str | None:
    words = value.split() if isinstance(value, str) else list(value)
    return words[0] if words else None


def _padded(value, n: int, filler: str = FILLER):
    """`value` with tokens added up to `n`: its own repeated, else `filler`."""
    words = value.split() if isinstance(value, str) else list(value)
    cycle = words or [filler]
    out = list(words)
    while len(out) < n:
        out.append(cycle[len(out) % len(cycle)])
    if isinstance(value, str):  # the text kept as it is (a line break at its end too), the words added after it
        added = " ".join(out[len(words):])
        return value if not added else value + ("" if not value or value[-1].isspace() else " ") + added
    return tuple(out)


def _sequence(request: ScoreRequest, tokens: Sequence[str]):
    """Tokens as a request of this kind carries them: a tuple, or in a text request one string."""
    return " ".join(tokens) if request.is_text else tuple(tokens)


def _with_segments(request: ScoreRequest, segments: Iterable[Segment]) -> ScoreRequest:
    return request.model_copy(update={"segments": tuple(segments)})


def _tokens(request: ScoreRequest) -> int:
    """The tokens of every hypothesis and reference (a text's words)."""
    return sum(length_of(text) for s in request.segments for text in (s.hypothesis, *s.references))


def uniform_weights(n: int) -> tuple[float, ...]:
    return (1.0 / n,) * n


def with_order(request: ScoreRequest, n: int) -> ScoreRequest | None:
    """`request` at order `n`: uniform weights stay uniform (1/n each); other weights keep their values, the last
    repeated or dropped. None below order 1."""
    weights = tuple(request.weights)
    if n < 1:
        return None
    if len(set(weights)) == 1 and weights[0] > 0:
        changed = uniform_weights(n)
    else:
        changed = (weights + (weights[-1],) * n)[:n]
    return request.model_copy(update={"weights": changed})


# -- the catalogue ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Feature:
    """A feature of an input: `holds(request)`, and `neighbours(request)`: the request with the feature taken away
    (alternatives in order; the first that keeps the input's other features is asked)."""

    name: str
    words: str
    family: str
    holds: Callable[[ScoreRequest], bool]
    neighbours: Callable[[ScoreRequest], Iterable[ScoreRequest]]
    #: The request with the feature taken away by tokens found nowhere in the input (no match added): asked where the
    #: first neighbour took a zero precision away with the feature (`_with_derived`); None where the first
    #: neighbour adds no token.
    unmatched: Callable[[ScoreRequest], ScoreRequest | None] | None = None
    #: The feature this one narrows (a per-segment feature's every-quantified face, `every_segment`): asked only
    #: once a cause naming that broader feature is found, and named in its place where its neighbour is answered
    #: (`_faces`).
    narrows: str | None = None
    #: What a face's neighbours must still hold in place of the feature it narrows (None: that feature): a text's lone
    #: carriage return made U+2028 is no longer a line break (LF or CR), but still a line end a reader may take
    #: (`text_line_end_faces`).
    kept: Callable[[ScoreRequest], bool] | None = None


def one_neighbour(edit: Callable[[ScoreRequest], ScoreRequest | None]
                  ) -> Callable[[ScoreRequest], Iterable[ScoreRequest]]:
    def neighbours(request: ScoreRequest) -> Iterator[ScoreRequest]:
        changed = edit(request)
        if changed is not None:
            yield changed
    return neighbours


def corpus_given_a_segment(request: ScoreRequest) -> ScoreRequest:
    filler = _sequence(request, [FILLER])
    return _with_segments(request, [Segment(hypothesis=filler, references=(filler,))])


def references_given(request: ScoreRequest) -> ScoreRequest:
    def given(segment: Segment) -> Segment:
        if segment.references:
            return segment
        reference = segment.hypothesis if length_of(segment.hypothesis) else _sequence(request, [FILLER])
        return Segment(hypothesis=segment.hypothesis, references=(reference,))
    return _with_segments(request, map(given, request.segments))


def hypotheses_lengthened(request: ScoreRequest, at_least: int) -> ScoreRequest:
    def lengthened(segment: Segment) -> Segment:
        if length_of(segment.hypothesis) >= at_least:
            return segment
        tokens = [t for r in segment.references for t in (_first_token(r),) if t is not None]
        base = segment.hypothesis if length_of(segment.hypothesis) else _sequence(request, tokens[:1] or [FILLER])
        return Segment(hypothesis=_padded(base, at_least), references=segment.references)
    return _with_segments(request, map(lengthened, request.segments))


def one_token_hypotheses_lengthened(request: ScoreRequest) -> ScoreRequest:
    """Every hypothesis of one token given a second (its own repeated); the others as they are."""
    return _with_segments(request, (
        Segment(hypothesis=_padded(s.hypothesis, 2), references=s.references) if length_of(s.hypothesis) == 1 else s
        for s in request.segments))


def references_lengthened(request: ScoreRequest, at_least: int) -> ScoreRequest:
    def lengthened(segment: Segment) -> Segment:
        first = _first_token(segment.hypothesis) or FILLER
        references = tuple(
            r if length_of(r) >= at_least else _padded(r if length_of(r) else _sequence(request, [first]), at_least)
            for r in segment.references)
        return Segment(hypothesis=segment.hypothesis, references=references)
    return _with_segments(request, map(lengthened, request.segments))


def _unmatched_token(request: ScoreRequest) -> str | None:
    """A token found nowhere in the request (a letter: one token under any tokenizer, held by no text, or as a token
    by no sequence, in either case): added to a hypothesis or a reference it matches nothing. None where every
    letter is taken."""
    if request.is_text:
        taken = "".join(str(text) for s in request.segments for text in (s.hypothesis, *s.references)).lower()
    else:
        taken = "".join(t for s in request.segments for seq in (s.hypothesis, *s.references) for t in seq
                        if len(t) == 1).lower()
    return next((letter for letter in UNMATCHED_LETTERS if letter not in taken), None)


def lengthened_unmatched(request: ScoreRequest, at_least: int, *, side: str) -> ScoreRequest | None:
    """Every hypothesis (`side` "hypothesis") or reference ("references") shorter than `at_least` padded with a token
    found nowhere in the input: the feature taken away, no match added (an order whose precision was 0 stays 0)."""
    token = _unmatched_token(request)
    if token is None:
        return None

    def padded(value):
        return value if length_of(value) >= at_least else _padded_with(value, at_least, token)
    return _with_segments(request, (
        Segment(hypothesis=padded(s.hypothesis), references=s.references) if side == "hypothesis"
        else Segment(hypothesis=s.hypothesis, references=tuple(map(padded, s.references)))
        for s in request.segments))


def _padded_with(value, n: int, token: str):
    """`value` with `token` added up to `n` tokens (not its own tokens repeated, as `_padded` does)."""
    missing = n - length_of(value)
    if isinstance(value, str):
        return value + ("" if not value or value[-1].isspace() else " ") + " ".join([token] * missing)
    return (*value, *([token] * missing))


def references_all_empty(request: ScoreRequest) -> bool:
    return any(s.references and not any(map(length_of, s.references)) for s in request.segments)


def all_empty_references_joined(request: ScoreRequest) -> ScoreRequest | None:
    """Each segment whose references are all empty given one more reference of a token found nowhere in the input:
    the empty references kept (a reference is still empty), no match added. The reference added is as long as the
    reference-length rule needs to still pick an empty one (the segment's r stays 0: "a" against "" and "z z" under
    closest, ties to the shorter), so that its answer is about every reference being empty, not about r = 0
    (`reference-length-zero`); one token where no length does (the rule `longest`)."""
    token = _unmatched_token(request)
    if token is None:
        return None
    lengths = _segment_lengths(request)
    rule = _reference_length_rule(request)

    def joined(index: int, segment: Segment) -> Segment:
        hypothesis_length, references = lengths[index] if lengths is not None else (
            length_of(segment.hypothesis), [0] * len(segment.references))
        kept = _length_picked(hypothesis_length, references, rule, picked=lambda r: r == 0)
        added = _sequence(request, [token] * (kept or 1))
        return Segment(hypothesis=segment.hypothesis, references=(*segment.references, added))
    return _with_segments(request, (
        joined(index, s) if s.references and not any(map(length_of, s.references)) else s
        for index, s in enumerate(request.segments)))


# -- the reference length r: the rule's pick in each segment, summed ------------------------------------------------


def _reference_length_rule(request: ScoreRequest) -> str:
    """The reference-length rule the request is scored under: its own `reference_length` convention where it carries
    one, else the default conventions' (`Options`; the profile judged is not known here, as for `precision-zero`)."""
    return request.chosen_conventions.get("reference_length", Options().reference_length)


def _segment_lengths(request: ScoreRequest) -> list[tuple[int, list[int]]] | None:
    """Each segment's hypothesis length and reference lengths in tokens (a text request split as its tokenizer
    splits it); None where the request cannot be tokenized."""
    try:
        tokenized = request.tokenized()
    except BleuOracleError:  # (a tokenizer's refusal; nothing else is caught: `ORACLE_REFUSALS`, expect.py)
        return None
    return [(len(s.hypothesis), [len(r) for r in s.references]) for s in tokenized.segments]


def _picked_lengths(request: ScoreRequest) -> list[int] | None:
    """Each segment's r: the length of the reference the request's reference-length rule picks (the formulas'
    `effective_reference_length`); None where a segment has no reference or the request cannot be tokenized."""
    lengths = _segment_lengths(request)
    if lengths is None or any(not references for _, references in lengths):
        return None
    rule = _reference_length_rule(request)
    try:
        return [bleu.effective_reference_length(c, references, rule) for c, references in lengths]
    except BleuOracleError:
        return None


def reference_length_zero(request: ScoreRequest) -> bool:
    """Whether the corpus reference length r is 0: in every segment (one or more) the reference the rule picks is
    empty. An empty reference beside a longer one may be picked (closest to an empty or short hypothesis), and an
    empty one need not be."""
    picked = _picked_lengths(request)
    return picked is not None and bool(picked) and not any(picked)


def _length_picked(hypothesis_length: int, lengths: Sequence[int], rule: str, *,
                   picked: Callable[[int], bool]) -> int | None:
    """The least length (from 1 to twice the hypothesis's and one) of a reference added beside `lengths` after which
    the rule's pick satisfies `picked`; None where none does."""
    for added in range(1, 2 * hypothesis_length + 2):
        if picked(bleu.effective_reference_length(hypothesis_length, [*lengths, added], rule)):
            return added
    return None


def picked_reference_given(request: ScoreRequest) -> ScoreRequest | None:
    """One segment whose picked reference is empty given one more reference, of a token found nowhere in the input,
    that the rule picks instead (the shortest it picks: "a" against "" and "z" under closest): r is no longer 0,
    every reference kept (a reference is still empty), no match added. A segment whose references are not all empty
    is changed first, so that every reference of another stays empty. None where no segment can be so changed (an
    empty hypothesis under closest: the empty reference is always the closest; the rule `shortest`)."""
    token = _unmatched_token(request)
    lengths = _segment_lengths(request)
    picked = _picked_lengths(request)
    if token is None or lengths is None or picked is None:
        return None
    rule = _reference_length_rule(request)
    order = sorted(range(len(request.segments)), key=lambda i: not any(lengths[i][1]))
    for index in (i for i in order if picked[i] == 0):
        added = _length_picked(*lengths[index], rule, picked=lambda r: r > 0)
        if added is None:
            continue
        segment = request.segments[index]
        changed = Segment(hypothesis=segment.hypothesis,
                          references=(*segment.references, _sequence(request, [token] * added)))
        return _with_segments(request, (changed if i == index else s for i, s in enumerate(request.segments)))
    return None


def one_reference_doubled(request: ScoreRequest) -> ScoreRequest:
    """Each segment of one reference given it twice: nothing else changes (the same n-gram counts, the same
    lengths)."""
    return _with_segments(request, (
        Segment(hypothesis=s.hypothesis, references=(*s.references, *s.references)) if len(s.references) == 1 else s
        for s in request.segments))


def tokens_of(request: ScoreRequest) -> Iterator[str]:
    if request.is_text:
        return
    for segment in request.segments:
        yield from segment.hypothesis
        for reference in segment.references:
            yield from reference


def tokens_changed(request: ScoreRequest, change: Callable[[str], str]) -> ScoreRequest:
    return _with_segments(request, (
        Segment(hypothesis=tuple(map(change, s.hypothesis)), references=tuple(tuple(map(change, r))
                                                                          for r in s.references))
        for s in request.segments))


def holds_whitespace(token: str) -> bool:
    return bool(token) and token.split() != [token]


def without_whitespace(token: str) -> str:
    """A token's whitespace runs as '_' (a token of whitespace alone, '_': never the empty token)."""
    return ("_".join(token.split()) or "_") if holds_whitespace(token) else token


#: The characters other than LF a file reader may end a line at (`str.splitlines`; universal newlines take CR):
#: CR, VT, FF, U+001C-U+001E, NEL, U+2028, U+2029.
OTHER_LINE_ENDS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_OTHER_LINE_END = re.compile("\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


_NEITHER_LF_NOR_CR = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def holds_line_end(text: str, *, carriage_return: bool = True) -> bool:
    """Whether a token or a text holds a line end of OTHER_LINE_ENDS (CR among them only where `carriage_return`)."""
    return bool((_OTHER_LINE_END if carriage_return else _NEITHER_LF_NOR_CR).search(text))


def without_line_ends(text: str, *, carriage_return: bool = True) -> str:
    """A token or text with each line end of OTHER_LINE_ENDS (CR LF as one; CR left as it is unless
    `carriage_return`) made a space: still whitespace where it was, no longer a line end for any reader."""
    return (_OTHER_LINE_END if carriage_return else _NEITHER_LF_NOR_CR).sub(" ", text)


# -- a line end's faces: which reader's line end, on which side (issue 36, error-boundaries) -----------------------

#: A carriage return not followed by LF: a line end for universal newlines (Python's `open` in text mode) and for
#: `str.splitlines`, none for a reader of LF alone (`newline='\n'`, `split("\n")`). CR LF is a line end for every
#: reader (its LF), so it is not one.
_LONE_CARRIAGE_RETURN = re.compile("\r(?!\n)")
#: What a lone carriage return is made where its reader is to be told from `str.splitlines`: LINE SEPARATOR, a line
#: end for `str.splitlines`, none for universal newlines nor for a reader of LF alone.
SPLITLINES_ONLY_LINE_END = "\u2028"
#: The two sides of a segment a token may be on.
SIDES = ("hypothesis", "references")


def holds_carriage_return(token: str) -> bool:
    """Whether a token holds a carriage return not followed by LF (`_LONE_CARRIAGE_RETURN`)."""
    return bool(_LONE_CARRIAGE_RETURN.search(token))


def side_tokens(request: ScoreRequest, side: str) -> Iterator[str]:
    """The tokens of one side of a token request's segments (`SIDES`): the hypotheses', or the references'."""
    if request.is_text:
        return
    for segment in request.segments:
        for sequence in ((segment.hypothesis,) if side == "hypothesis" else segment.references):
            yield from sequence


def _side_changed(request: ScoreRequest, side: str | None, change: Callable[[str], str]) -> ScoreRequest:
    """Each token of one side (`side`; None: both) changed by `change`, the other side's as they are."""
    def on(sequence, this: str):
        return tuple(map(change, sequence)) if side in (None, this) else sequence
    return _with_segments(request, (
        Segment(hypothesis=on(s.hypothesis, "hypothesis"), references=tuple(on(r, "references") for r in s.references))
        for s in request.segments))


def carriage_returns_made_splitlines_only(request: ScoreRequest, side: str | None = None) -> ScoreRequest | None:
    """Each lone carriage return of one side's tokens (`side`; None: both sides') made SPLITLINES_ONLY_LINE_END: every
    token, every line end's place kept, the line end now one `str.splitlines` takes and universal newlines do not.
    None where no token of the side holds one, or the request already holds that character (it would not be told
    from a line end the input had)."""
    tokens = list(tokens_of(request))
    if not any(map(holds_carriage_return, side_tokens(request, side) if side else tokens)) or any(
            SPLITLINES_ONLY_LINE_END in t for t in tokens):
        return None
    return _side_changed(request, side, lambda t: _LONE_CARRIAGE_RETURN.sub(SPLITLINES_ONLY_LINE_END, t))


def _sequences_on(segment: Segment, side: str) -> tuple:
    """`side`'s sequences (token lists or texts) of `segment`: its hypothesis alone, or its references."""
    return (segment.hypothesis,) if side == "hypothesis" else segment.references


def _given_on(request: ScoreRequest, side: str, index: int, at: int, sequence) -> ScoreRequest:
    """`request` with `side`'s sequence `at` of segment `index` made `sequence` (a token list or a text), every other
    sequence and segment kept (`line_end_moved`, `text_line_end_moved`: a line end given to the other side)."""
    segment = request.segments[index]
    sequences = tuple(sequence if k == at else x for k, x in enumerate(_sequences_on(segment, side)))
    segment = (Segment(hypothesis=sequences[0], references=segment.references) if side == "hypothesis"
               else Segment(hypothesis=segment.hypothesis, references=sequences))
    return _with_segments(request, (segment if i == index else s for i, s in enumerate(request.segments)))


def line_end_moved(request: ScoreRequest, side: str, *, carriage_return: bool) -> ScoreRequest | None:
    """The line ends of `side`'s tokens (every one of OTHER_LINE_ENDS, or with `carriage_return` the lone carriage
    returns) made spaces (`without_line_ends`: whitespace still, a line end for no reader), and the first token of the
    other side, in the first segment that has one, given the first of them found at its end: a line end of that kind
    is still held, now on the other side alone, every token count kept; where the other side has no token, its first
    sequence is given one, a letter found nowhere in the input and the line end. None where `side` holds none, or the
    other side has no sequence."""
    pattern = _LONE_CARRIAGE_RETURN if carriage_return else _OTHER_LINE_END
    found = next((m.group() for t in side_tokens(request, side) for m in (pattern.search(t),) if m), None)
    if found is None:
        return None
    changed = _side_changed(request, side, lambda t: pattern.sub(" ", t))
    other = SIDES[1 - SIDES.index(side)]

    def sequences_of(segment: Segment) -> tuple:
        return _sequences_on(segment, other)

    def given(index: int, at: int, sequence: tuple) -> ScoreRequest:
        return _given_on(changed, other, index, at, sequence)
    for index, segment in enumerate(changed.segments):
        at = next((k for k, sequence in enumerate(sequences_of(segment)) if sequence), None)
        if at is not None:
            first = sequences_of(segment)[at]
            return given(index, at, (first[0] + found, *first[1:]))
    # the other side has no token: its first sequence given one, a letter found nowhere in the input and the line end
    # (the emptiness taken away with it: the neighbour is asked only where that emptiness is no part of the cause)
    token = _unmatched_token(request)
    holding = next((i for i, s in enumerate(changed.segments) if sequences_of(s)), None)
    return None if token is None or holding is None else given(holding, 0, (token + found,))


def texts_of(request: ScoreRequest) -> Iterator[str]:
    if not request.is_text:
        return
    for segment in request.segments:
        yield str(segment.hypothesis)
        yield from map(str, segment.references)


def texts_changed(request: ScoreRequest, change: Callable[[str], str]) -> ScoreRequest:
    return _with_segments(request, (
        Segment(hypothesis=change(str(s.hypothesis)), references=tuple(change(str(r)) for r in s.references))
        for s in request.segments))


def without_line_breaks(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


#: What a sentence end becomes in the neighbour of "sentence counts differ": a comma, split off by a tokenizer as a
#: period is (13a pads both alike), so the tokens and their count stay.
_SENTENCE_END_REPLACEMENT = ","


def _sentence_count(tokens: Sequence[str]) -> int:
    """The sentences of a token sequence, cut by the rule the structural alternative pairs them by (`sentences`)."""
    return len(sentences(tokens))


def sentence_counts_differ(request: ScoreRequest) -> bool:
    """Whether in some segment a reference has another number of sentences than the hypothesis (a text request
    split as its tokenizer splits it): what a caller that cuts each text into sentences and pairs them by position
    cannot pass on (nltk's corpus_bleu asserts one reference list per hypothesis)."""
    try:
        tokenized = request.tokenized()
    except BleuOracleError:  # (a tokenizer's refusal; nothing else is caught: `ORACLE_REFUSALS`, expect.py)
        return False
    return any(_sentence_count(r) != _sentence_count(s.hypothesis) for s in tokenized.segments for r in s.references)


def without_sentence_ends(request: ScoreRequest) -> ScoreRequest:
    """Every sentence end made a comma: in a token request, a token's trailing sentence ends; in a text request,
    every sentence-end character. Each text is then one sentence, its tokens as many."""
    if request.is_text:
        table = str.maketrans(dict.fromkeys(SENTENCE_ENDS, _SENTENCE_END_REPLACEMENT))
        return texts_changed(request, lambda text: text.translate(table))

    def changed(token: str) -> str:
        kept = token.rstrip("".join(SENTENCE_ENDS))
        return token if kept == token else kept + _SENTENCE_END_REPLACEMENT
    return tokens_changed(request, changed)


def one_segment_given_twice(request: ScoreRequest) -> ScoreRequest | None:
    """A request of one segment given it twice, at corpus level (a sentence request becomes a corpus request of two
    segments, the only way one holds two): every count and length doubled, each segment's own features kept. None for
    another request, or a stateful one (its plan counts the segments)."""
    if len(request.segments) != 1 or request.stateful is not None:
        return None
    return request.model_copy(update={"level": "corpus", "segments": request.segments * 2})


def one_segment_beside_an_empty_hypothesis(request: ScoreRequest) -> ScoreRequest | None:
    """A request of one segment given a second, at corpus level, whose hypothesis is empty and whose references are
    the first's: the segments two, and the hypothesis length c, every hypothesis n-gram and its matches as they were
    (only r and the references' n-grams grow). None for another request, or a stateful one."""
    if len(request.segments) != 1 or request.stateful is not None:
        return None
    first = request.segments[0]
    added = Segment(hypothesis=_sequence(request, []), references=first.references)
    return request.model_copy(update={"level": "corpus", "segments": (first, added)})


def one_segment_made_two(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """The neighbours of "the corpus has one segment", both asked (`_Probing.answered_without`: a feature taken away
    several ways is needed only where each way stops the error): the segment given twice (every count doubled, each
    segment's features kept), and the segment beside one of an empty hypothesis (c and the hypothesis n-grams kept).
    The first alone takes a corpus total away with the segment count (c = 1 doubled is 2): a trigger on that total
    would be named by the count; the second keeps the total, so the count is named only where it alone stops the
    error. Where the hypothesis is empty the two are one corpus of the same counts, both asked."""
    for edit in (one_segment_given_twice, one_segment_beside_an_empty_hypothesis):
        changed = edit(request)
        if changed is not None:
            yield changed


def longest_text_one_token(request: ScoreRequest) -> bool:
    """Whether the longest hypothesis or reference has exactly one token (every text at most one, some one): the
    padded length of a batch of token ids is then 1 (a text request split as its tokenizer splits it)."""
    lengths = _segment_lengths(request)
    return lengths is not None and max((n for c, refs in lengths for n in (c, *refs)), default=0) == 1


def _prepended(request: ScoreRequest, value, token: str):
    """`value` with `token` put before its first token: one token more, no sentence end moved, no match added where
    `token` is found nowhere in the input."""
    return f"{token} {value}" if request.is_text else (token, *value)


def one_text_lengthened(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """The first reference of one token, else the first hypothesis of one token, given a token found nowhere in the
    input before it (the longest text then two tokens; no match added): a reference first, which changes neither c
    nor any hypothesis n-gram."""
    token = _unmatched_token(request)
    if token is None:
        return
    for side in ("references", "hypothesis"):
        for index, segment in enumerate(request.segments):
            texts = segment.references if side == "references" else (segment.hypothesis,)
            at = next((k for k, text in enumerate(texts) if length_of(text) == 1), None)
            if at is None:
                continue
            changed = tuple(_prepended(request, t, token) if k == at else t for k, t in enumerate(texts))
            segment = (Segment(hypothesis=segment.hypothesis, references=changed) if side == "references"
                       else Segment(hypothesis=changed[0], references=segment.references))
            yield _with_segments(request, (segment if i == index else s for i, s in enumerate(request.segments)))
            break


def every_segment(feature: Feature, name: str, words: str) -> Feature:
    """The every-quantified face of a per-segment feature (`feature` holds where some segment has it): held where the
    corpus has segments and each, alone, holds `feature`. Its neighbour keeps every segment and adds one more (at
    corpus level), the first segment with `feature` taken away by `feature`'s own first neighbour: "some segment" is
    kept, "every segment" taken away, every other segment as it was. None for a stateful request (its plan counts the
    segments). Asked only where a cause naming `feature` is found (`Feature.narrows`, `_faces`): a corpus of one
    segment cannot tell "some" from "every"."""
    def alone(request: ScoreRequest, segment: Segment) -> ScoreRequest:
        return _with_segments(request, [segment])

    def holds(request: ScoreRequest) -> bool:
        return bool(request.segments) and all(feature.holds(alone(request, s)) for s in request.segments)

    def neighbours(request: ScoreRequest) -> Iterator[ScoreRequest]:
        if not request.segments or request.stateful is not None:
            return
        taken = next(iter(feature.neighbours(alone(request, request.segments[0]))), None)
        if taken is None or feature.holds(taken):
            return
        yield request.model_copy(update={"level": "corpus", "segments": (*request.segments, *taken.segments)})
    return Feature(name, words, feature.family, holds, neighbours, narrows=feature.name)


def _on_side(side: str | None, test: Callable[[str], bool]) -> Callable[[ScoreRequest], bool]:
    """Whether a token of `side` (None: either side) passes `test`."""
    def held(request: ScoreRequest) -> bool:
        return any(map(test, side_tokens(request, side) if side else tokens_of(request)))
    return held


def _every_edit(*made: Callable[[ScoreRequest], ScoreRequest | None]
                ) -> Callable[[ScoreRequest], Iterator[ScoreRequest]]:
    """The neighbours `made` builds, one per way a face narrows its feature: all of them, or none where one cannot
    be built (a face is asked on every way it narrows, or not at all)."""
    def neighbours(request: ScoreRequest) -> Iterator[ScoreRequest]:
        built = [edit(request) for edit in made]
        yield from ([n for n in built if n is not None] if all(n is not None for n in built) else [])
    return neighbours


def _carriage_return_face(feature: Feature, side: str) -> Feature:
    """A side's lone carriage return: its neighbours, the side's CR made SPLITLINES_ONLY_LINE_END (the reader), and
    the CR moved to the other side (the side)."""
    one = "reference" if side == "references" else side

    def reader(request: ScoreRequest) -> ScoreRequest | None:
        return carriage_returns_made_splitlines_only(request, side)

    def other_side(request: ScoreRequest) -> ScoreRequest | None:
        return line_end_moved(request, side, carriage_return=True)
    return Feature(f"{one}-token-with-carriage-return", f"a {one}'s token holds {_CARRIAGE_RETURN_WORDS}",
                   feature.family, _on_side(side, holds_carriage_return), _every_edit(reader, other_side),
                   narrows=feature.name)


def _side_line_end_face(feature: Feature, side: str) -> Feature:
    """A side's line end of any reader: its neighbour, the line end moved to the other side."""
    one = "reference" if side == "references" else side

    def other_side(request: ScoreRequest) -> ScoreRequest | None:
        return line_end_moved(request, side, carriage_return=False)
    return Feature(f"{one}-token-with-line-end", f"a {one}'s token holds a line end other than LF", feature.family,
                   _on_side(side, holds_line_end), _every_edit(other_side), narrows=feature.name)


_CARRIAGE_RETURN_WORDS = ("a carriage return not followed by LF (a line end for universal newlines and "
                          "str.splitlines, none for a reader of LF alone)")


def line_end_faces(feature: Feature) -> tuple[Feature, ...]:
    """The narrower faces of "a token holds a line end" (`feature`), in the order asked (the narrowest first): which
    reader's line end (a lone carriage return, which universal newlines end a line at and a reader of LF alone does
    not, against every line end `str.splitlines` takes) and on which side (a reference's token, or a hypothesis's,
    against either). Each face's neighbours keep a token with a line end and take the face away, one per way it
    narrows `feature`: the lone carriage returns of its side made SPLITLINES_ONLY_LINE_END (the reader), and the line
    end moved to the other side (the side). Asked only once a cause naming `feature` is found (`_faces`)."""
    def everywhere(request: ScoreRequest) -> ScoreRequest | None:
        return carriage_returns_made_splitlines_only(request)
    return (*(_carriage_return_face(feature, side) for side in SIDES),
            Feature("token-with-carriage-return", f"a token holds {_CARRIAGE_RETURN_WORDS}", feature.family,
                    _on_side(None, holds_carriage_return), _every_edit(everywhere), narrows=feature.name),
            *(_side_line_end_face(feature, side) for side in SIDES))


# -- a text's line end: which reader's, on which side (a text request's faces; leftovers16) ---------------------------

#: A line break of a text: LF, CR LF or a lone CR (`text-line-break`: what a line reader of any kind but
#: `str.splitlines`' other line ends cuts at).
_TEXT_LINE_BREAK = re.compile("\r\n?|\n")


def side_texts(request: ScoreRequest, side: str) -> Iterator[str]:
    """The texts of one side of a text request's segments (`SIDES`): the hypotheses', or the references'."""
    if not request.is_text:
        return
    for segment in request.segments:
        yield from map(str, (segment.hypothesis,) if side == "hypothesis" else segment.references)


def _side_texts_changed(request: ScoreRequest, side: str | None, change: Callable[[str], str]) -> ScoreRequest:
    """Each text of one side (`side`; None: both) changed by `change`, the other side's as they are."""
    def on(text, this: str):
        return change(str(text)) if side in (None, this) else text
    return _with_segments(request, (
        Segment(hypothesis=on(s.hypothesis, "hypothesis"), references=tuple(on(r, "references") for r in s.references))
        for s in request.segments))


def text_carriage_returns_made_splitlines_only(request: ScoreRequest, side: str | None = None) -> ScoreRequest | None:
    """Each lone carriage return of one side's texts (`side`; None: both sides') made SPLITLINES_ONLY_LINE_END: every
    token and every line end's place kept, the line end now one `str.splitlines` takes and universal newlines do not.
    None for a token request, where no text of the side holds one, or where the request already holds that character
    (it would not be told from a line end the input had)."""
    texts = list(texts_of(request))
    if not any(map(holds_carriage_return, side_texts(request, side) if side else texts)) or any(
            SPLITLINES_ONLY_LINE_END in t for t in texts):
        return None
    return _side_texts_changed(request, side, lambda t: _LONE_CARRIAGE_RETURN.sub(SPLITLINES_ONLY_LINE_END, t))


def _after_first_word(text: str, inserted: str) -> str:
    """`text` with `inserted` after its first word, a space after it where nothing followed (a line end that ends the
    text would meet the LF a writer puts after it: CR then LF is one line end, not two); whitespace, so that a
    tokenizer splitting at whitespace sees the same tokens."""
    word = re.match(r"\s*\S+", text)
    at = word.end() if word else len(text)
    rest = text[at:]
    return text[:at] + inserted + (rest or " ")


def text_line_end_moved(request: ScoreRequest, side: str, pattern: re.Pattern[str]) -> ScoreRequest | None:
    """The line ends `pattern` finds in `side`'s texts made spaces (whitespace still, a line end for no reader), and
    the first of them found put after the first word of the other side's first text that has one
    (`_after_first_word`): a line end of that kind is still held, now on the other side alone, every token kept;
    where the other side has no word, its first text is given one, a letter found nowhere in the input, and the line
    end (the emptiness taken away with it: the neighbour is asked only where that emptiness is no part of the cause).
    None for a token request, where `side` holds none, or the other side has no text."""
    found = next((m.group() for t in side_texts(request, side) for m in (pattern.search(t),) if m), None)
    if found is None:
        return None
    changed = _side_texts_changed(request, side, lambda t: pattern.sub(" ", t))
    other = SIDES[1 - SIDES.index(side)]

    def texts_in(segment: Segment) -> tuple:
        return _sequences_on(segment, other)

    def given(index: int, at: int, text: str) -> ScoreRequest:
        return _given_on(changed, other, index, at, text)
    for index, segment in enumerate(changed.segments):
        at = next((k for k, text in enumerate(texts_in(segment)) if str(text).split()), None)
        if at is not None:
            return given(index, at, _after_first_word(str(texts_in(segment)[at]), found))
    token = _unmatched_token(request)
    holding = next((i for i, s in enumerate(changed.segments) if texts_in(s)), None)
    return None if token is None or holding is None else given(holding, 0, _after_first_word(token, found))


def holds_text_line_end(text: str) -> bool:
    """Whether a text holds a line end of any reader: a line break (LF, CR) or one of OTHER_LINE_ENDS."""
    return bool(_TEXT_LINE_BREAK.search(text)) or holds_line_end(text, carriage_return=False)


def _on_text_side(side: str | None, test: Callable[[str], bool]) -> Callable[[ScoreRequest], bool]:
    """Whether a text of `side` (None: either side) passes `test`."""
    def held(request: ScoreRequest) -> bool:
        return any(map(test, side_texts(request, side) if side else texts_of(request)))
    return held


def _text_carriage_return_face(feature: Feature, side: str) -> Feature:
    """A side's lone carriage return in a text: its neighbours, the side's CRs made SPLITLINES_ONLY_LINE_END (the
    reader: still a line end, no longer a line break, hence `kept`) and the CR moved to the other side (the side)."""
    one = "reference" if side == "references" else side

    def reader(request: ScoreRequest) -> ScoreRequest | None:
        return text_carriage_returns_made_splitlines_only(request, side)

    def other_side(request: ScoreRequest) -> ScoreRequest | None:
        return text_line_end_moved(request, side, _LONE_CARRIAGE_RETURN)
    return Feature(f"{one}-text-with-carriage-return", f"a {one}'s text holds {_CARRIAGE_RETURN_WORDS}",
                   feature.family, _on_text_side(side, holds_carriage_return), _every_edit(reader, other_side),
                   narrows=feature.name, kept=_on_text_side(None, holds_text_line_end))


def _text_side_face(feature: Feature, side: str, pattern: re.Pattern[str], what: str) -> Feature:
    """A side's line end of `feature`'s kind in a text (`pattern`): its neighbour, the line end moved to the other
    side."""
    one = "reference" if side == "references" else side

    def other_side(request: ScoreRequest) -> ScoreRequest | None:
        return text_line_end_moved(request, side, pattern)
    return Feature(f"{one}-{feature.name}", f"a {one}'s text holds {what}", feature.family,
                   _on_text_side(side, lambda text: bool(pattern.search(text))), _every_edit(other_side),
                   narrows=feature.name)


def text_line_end_faces(line_break: Feature, line_end: Feature) -> tuple[Feature, ...]:
    """The narrower faces of a text's line end, as `line_end_faces` a token's, in the order asked (the narrowest
    first). Of "a text holds a line break" (`line_break`: LF or CR): a side's lone carriage return (neighbours: the
    side's lone CRs made SPLITLINES_ONLY_LINE_END, the reader; the CR moved to the other side, the side), a lone CR on
    either side (every lone CR made U+2028), a side's line break (moved to the other side). Of "a text holds another
    line end" (`line_end`: VT, FF, U+001C-U+001E, NEL, U+2028, U+2029): a side's (moved to the other side).

    Faces that cannot be built for a text, hence not asked: a reader face of LF (LF is a line end for every reader,
    so no probe keeps it a line end of one reader and not another: a text's LF is told by its side alone), and a
    reader face of `line_end` (every one of its line ends is `str.splitlines`' alone: no reader takes some and not
    the others, and U+2028 is one of them). A reader's face of CR is named, as a token's, only where both its
    neighbours are answered; its reader neighbour is no longer a line break but keeps a line end (`Feature.kept`),
    the other neighbours keep the feature they narrow."""
    other_line_end = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")

    def everywhere(request: ScoreRequest) -> ScoreRequest | None:
        return text_carriage_returns_made_splitlines_only(request)
    return (*(_text_carriage_return_face(line_break, side) for side in SIDES),
            Feature("text-with-carriage-return", f"a text holds {_CARRIAGE_RETURN_WORDS}", line_break.family,
                    _on_text_side(None, holds_carriage_return), _every_edit(everywhere), narrows=line_break.name,
                    kept=_on_text_side(None, holds_text_line_end)),
            *(_text_side_face(line_break, side, _TEXT_LINE_BREAK, "a line break (LF or CR)") for side in SIDES),
            *(_text_side_face(line_end, side, other_line_end, "a line end other than LF and CR (VT, FF, "
                              "U+001C-U+001E, NEL, U+2028, U+2029)") for side in SIDES))


def _text_lengths(request: ScoreRequest) -> list[int] | None:
    """The tokens of every hypothesis and reference (a text request split as its tokenizer splits it); None where the
    request cannot be tokenized."""
    lengths = _segment_lengths(request)
    return None if lengths is None else [n for c, refs in lengths for n in (c, *refs)]


def text_longer_than(request: ScoreRequest, bound: int) -> bool:
    """Whether some hypothesis or reference has more than `bound` tokens: beside an order above `bound`, an n-gram of
    order `bound + 1` is then formed (a text request split as its tokenizer splits it)."""
    lengths = _text_lengths(request)
    return lengths is not None and any(n > bound for n in lengths)


def texts_cut(request: ScoreRequest, bound: int) -> ScoreRequest | None:
    """Every hypothesis and reference cut to its first `bound` tokens (a text's first words; its order and weights
    kept): no n-gram above order `bound` is formed. None where nothing is cut."""
    def cut(value):
        if length_of(value) <= bound:
            return value
        return " ".join(value.split()[:bound]) if isinstance(value, str) else tuple(value[:bound])
    changed = _with_segments(request, (
        Segment(hypothesis=cut(s.hypothesis), references=tuple(map(cut, s.references))) for s in request.segments))
    return None if changed == request else changed


@dataclass(frozen=True)
class OrderFace:
    """A feature bounded by the order bound found beside it (`order-above-<k>`): an order matters only where some text
    is as long as it, so a threshold on the order may be one on the n-grams formed. Named `<prefix><k>`, with the
    bound k of `order-above-<k>`; `holds(request, k)`; `neighbour(request, k)`, the request with it taken away, the
    order kept (asked by `_faces`)."""

    prefix: str
    words: Callable[[int], str]
    holds: Callable[[ScoreRequest, int], bool]
    neighbour: Callable[[ScoreRequest, int], ScoreRequest | None]


def _closest_tie(hypothesis_length: int, lengths: Sequence[int]) -> tuple[int, int] | None:
    """(the shorter, the longer) tied length where a segment's closest references are one shorter and one longer
    than its hypothesis by as many tokens (c - d and c + d, d > 0, no reference closer); else None."""
    if not lengths:
        return None
    distance = min(abs(n - hypothesis_length) for n in lengths)
    shorter, longer = hypothesis_length - distance, hypothesis_length + distance
    return (shorter, longer) if distance and shorter in lengths and longer in lengths else None


def _tied_segments(request: ScoreRequest, *, longer_first: bool) -> dict[int, tuple[int, int, list[int]]]:
    """The segments whose closest references tie (`_closest_tie`), by index: (shorter, longer, reference lengths);
    `longer_first`: only those whose first reference at the closest distance is the longer one."""
    tied = {}
    for index, (c, lengths) in enumerate(_segment_lengths(request) or ()):
        tie = _closest_tie(c, lengths)
        if tie is None:
            continue
        first = next(n for n in lengths if n in tie)
        if not longer_first or first == tie[1]:
            tied[index] = (*tie, lengths)
    return tied


def closest_reference_tied(request: ScoreRequest) -> bool:
    return bool(_tied_segments(request, longer_first=False))


def closest_reference_tied_longer_first(request: ScoreRequest) -> bool:
    return bool(_tied_segments(request, longer_first=True))


def tied_references_swapped(request: ScoreRequest) -> ScoreRequest | None:
    """In each segment whose tied closest references come longer first, the first longer and the first shorter of
    them swapped: the shorter is then met first, every length and the tie kept."""
    tied = _tied_segments(request, longer_first=True)
    if not tied:
        return None

    def swapped(index: int, segment: Segment) -> Segment:
        if index not in tied:
            return segment
        shorter, longer, lengths = tied[index]
        i, j = lengths.index(longer), lengths.index(shorter)
        references = list(segment.references)
        references[i], references[j] = references[j], references[i]
        return Segment(hypothesis=segment.hypothesis, references=tuple(references))
    return _with_segments(request, (swapped(i, s) for i, s in enumerate(request.segments)))


def tie_broken(request: ScoreRequest) -> ScoreRequest | None:
    """In each segment whose closest references tie, every reference of the longer tied length given a token found
    nowhere in the input before its first: the shorter is then the one closest, r kept under `closest` (its ties go
    to the shorter), no match added."""
    token = _unmatched_token(request)
    tied = _tied_segments(request, longer_first=False)
    if token is None or not tied:
        return None

    def broken(index: int, segment: Segment) -> Segment:
        if index not in tied:
            return segment
        _, longer, lengths = tied[index]
        return Segment(hypothesis=segment.hypothesis, references=tuple(
            _prepended(request, r, token) if n == longer else r for r, n in zip(segment.references, lengths,
                                                                                 strict=True)))
    return _with_segments(request, (broken(i, s) for i, s in enumerate(request.segments)))


def references_not_as_many_as_segments(request: ScoreRequest) -> bool:
    """Whether a segment has another number of references than the corpus has segments: what a caller that passes
    each segment's references as one reference stream (sacrebleu's `ref_streams`, zipped with the hypotheses by
    `zip_longest`) cannot pass unless the two counts agree."""
    return any(len(s.references) != len(request.segments) for s in request.segments)


def segments_as_many_as_references(request: ScoreRequest) -> ScoreRequest | None:
    """Where every segment has the same number k of references, more than the segments (at most MAX_STREAMS), the
    segments cycled to k, at corpus level: the two counts then agree, every segment and reference kept (each count
    of the corpus a multiple of a segment's; no reference added or cut, no segment dropped, each of which would change
    what the input gives: a match, an empty reference, an order's n-grams). None otherwise."""
    counts = {len(s.references) for s in request.segments}
    if len(counts) != 1 or not len(request.segments) < min(counts) <= MAX_STREAMS or request.stateful is not None:
        return None
    return request.model_copy(update={"level": "corpus", "segments": tuple(
        request.segments[i % len(request.segments)] for i in range(min(counts)))})


def single_segments(request: ScoreRequest) -> Iterator[ScoreRequest]:
    for segment in request.segments[:MAX_ALTERNATIVES]:
        yield _with_segments(request, [segment])


def single_references(request: ScoreRequest) -> Iterator[ScoreRequest]:
    most = max((len(s.references) for s in request.segments), default=0)
    for k in range(min(most, MAX_ALTERNATIVES)):
        yield _with_segments(request, (
            Segment(hypothesis=s.hypothesis, references=s.references[min(k, len(s.references) - 1):][:1])
            if s.references else s for s in request.segments))


def _statistics(request: ScoreRequest):
    """The corpus's statistics of orders 1..N (`bleu.corpus_statistics`), counted as the default conventions count
    (case folded where the request folds it; a text request split as its tokenizer splits it); None where the
    formulas refuse it."""
    try:
        tokenized = request.tokenized()
        return bleu.corpus_statistics(
            [s.hypothesis for s in tokenized.segments], [s.references for s in tokenized.segments],
            max_order=len(request.weights), options=Options().with_changes(lowercase=request.lowercase))
    except BleuOracleError:  # (a corpus or segment the formulas refuse to count; counting does no arithmetic that
        # could fail, so `ORACLE_REFUSALS`' ArithmeticError is not caught either: expect.py)
        return None


def zero_precision(request: ScoreRequest) -> bool:
    """Whether some order 1..N has no matched n-gram over the corpus (a sentence request's one segment): its
    precision is 0, none of its n-grams matching or none there (0 of 0, read as 0 as the papineni profile reads it,
    and as `m / max(1, l)` gives), counted as the default conventions count (`_statistics`)."""
    statistics = _statistics(request)
    return statistics is not None and not all(statistics.matches[:len(request.weights)])


def _smoothed_in_force(request: ScoreRequest) -> list[tuple] | None:
    """(m_n, l_n) of each order in force (its weight above 0) after the request's smoothing (PROTOCOL.md's, as
    `smoothing.smooth` applies it to `_statistics`' counts); None where the formulas refuse the input or its
    smoothing."""
    statistics = _statistics(request)
    if statistics is None:
        return None
    try:
        smoothed = smooth(statistics, max_order=len(request.weights), smoothing=request.smoothing.to_convention())
    except BleuOracleError:
        return None
    return [(m, t) for m, t, w in zip(smoothed.matches, smoothed.totals, request.weights, strict=True) if w > 0]


def countable(request: ScoreRequest) -> bool:
    """Whether the formulas count the request's statistics (`_statistics`): not an empty corpus, nor a segment
    without references."""
    return bool(request.segments) and _statistics(request) is not None


def zero_precision_in_force(request: ScoreRequest) -> bool:
    """Whether an order in force has a precision of 0 once smoothed as the request says: no n-gram there, or none
    matched and the smoothing gives it none (a guard's "an order without a match" as an implementation that smooths
    before it reads it)."""
    pairs = _smoothed_in_force(request)
    return pairs is not None and any(m == 0 or t == 0 for m, t in pairs)


def unigram_precision_zero(request: ScoreRequest) -> bool:
    """Whether order 1 is in force and its precision is 0 once smoothed (no unigram of any hypothesis matches), as
    `zero_precision_in_force` counts."""
    pairs = _smoothed_in_force(request)
    return pairs is not None and request.weights[0] > 0 and pairs[0][0] == 0


def zero_precision_before_last(request: ScoreRequest) -> bool:
    """Whether an order in force other than the last in force has a precision of 0 once smoothed, as
    `zero_precision_in_force` counts: a guard walking the orders meets it before the last order is read."""
    pairs = _smoothed_in_force(request)
    return pairs is not None and any(m == 0 or t == 0 for m, t in pairs[:-1])


def precisions_all_one(request: ScoreRequest) -> bool:
    """Whether every order in force has n-grams and a precision of 1 once smoothed (m_n = l_n > 0), as
    `zero_precision_in_force` counts; False where no order is in force."""
    pairs = _smoothed_in_force(request)
    return pairs is not None and bool(pairs) and all(0 < m == t for m, t in pairs)


def hypotheses_unmatched(request: ScoreRequest) -> ScoreRequest | None:
    """Every hypothesis token made a token found nowhere in the input (`_unmatched_token`): no n-gram of any order
    matches (a precision of 0 given at order 1 and every order above); None for a text request or where no letter is
    free."""
    token = _unmatched_token(request)
    if request.is_text or token is None:
        return None
    return _side_changed(request, "hypothesis", lambda _: token)


def order_past_hypotheses(request: ScoreRequest) -> ScoreRequest | None:
    """The request at one order more than its longest hypothesis has tokens, where that is above its order: the
    orders it had keep their matches, and those added have no hypothesis n-gram (a precision of 0 given above the
    orders the input had, none taken away); None for a text request or where the order would not rise."""
    if request.is_text:
        return None
    longest = max((length_of(s.hypothesis) for s in request.segments), default=0)
    return with_order(request, longest + 1) if longest + 1 > len(request.weights) else None


def references_made_hypotheses(request: ScoreRequest) -> Iterator[ScoreRequest]:
    """Every precision 1 given: each segment's hypothesis given as one more reference (`hypotheses_as_references`),
    and, where a hypothesis is shorter than the order, that at the shortest non-empty hypothesis's length (an order
    without n-grams has no precision of 1)."""
    given = hypotheses_as_references(request)
    yield given
    shortest = min((length_of(s.hypothesis) for s in request.segments if length_of(s.hypothesis)), default=0)
    if 0 < shortest < len(request.weights):
        lowered = with_order(given, shortest)
        if lowered is not None:
            yield lowered


def without_exemptions(request: ScoreRequest) -> ScoreRequest | None:
    """The request's segments made ones on which no exemption holds, its order, weights, smoothing, case and level
    kept: each hypothesis padded with FILLER to one token more than the order, its one reference the hypothesis with
    its last token made one found nowhere: every order has n-grams and matches (no zero precision) and one of them
    unmatched (no precision of 1). What an answer that came with a zero precision is asked again on; None for a text
    request or where no letter is free."""
    token = _unmatched_token(request)
    if request.is_text or token is None or not request.segments:
        return None
    length = len(request.weights) + 1

    def unexempt(segment: Segment) -> Segment:
        tokens = tuple(segment.hypothesis) + (FILLER,) * max(0, length - length_of(segment.hypothesis))
        return Segment(hypothesis=tokens, references=((*tokens[:-1], token),))
    return _with_segments(request, map(unexempt, request.segments))


@dataclass(frozen=True)
class Exemption:
    """A feature of what an input's tokens give, in whose presence an implementation erring on nearly every input may
    answer (a guard that stops first: a zero precision answered 0 before the code that errs is reached; a precision
    of 1 whose logarithm is 0 however it was divided): `holds(request)`, and `given(request)`, the request with the
    exemption given (alternatives; each asked). Named only as `error-unless-<exemption>[-or-<exemption>]`
    (`_unless`), never as a trigger."""

    name: str
    words: str
    holds: Callable[[ScoreRequest], bool]
    given: Callable[[ScoreRequest], Iterable[ScoreRequest]]
    #: Whether a neighbour that gains it (the failing input lacking it) says nothing of the feature it took away
    #: (`_Probing.gains`): a zero precision a raised order or an unfolded case adds.
    disqualifies: bool = False
    #: Whether a request is one the exemption is judged on (an input the formulas count: one without references or
    #: segments holds no exemption, and its neighbour that gives them one gains nothing).
    judged: Callable[[ScoreRequest], bool] = lambda request: True


def hypotheses_as_references(request: ScoreRequest) -> ScoreRequest:
    """Each segment given its own hypothesis as one more reference: every hypothesis n-gram then matches, and every
    reference the input had is kept (an order unmatched because the references are short stays short of them). An
    order without hypothesis n-grams keeps its precision of 0: only a longer hypothesis takes that away, and that
    is the neighbour of "a hypothesis shorter than the order"."""
    return _with_segments(request, (
        Segment(hypothesis=s.hypothesis, references=(*s.references, s.hypothesis)) if length_of(s.hypothesis) else s
        for s in request.segments))


def zero_weights_raised(request: ScoreRequest) -> ScoreRequest | None:
    positive = [w for w in request.weights if w > 0]
    if not positive:
        return None
    return request.model_copy(update={"weights": tuple(w if w != 0 else min(positive) for w in request.weights)})


def smoothing_made_valid(request: ScoreRequest) -> ScoreRequest:
    spec = request.smoothing
    return request.model_copy(update={"smoothing": SmoothingSpec.of(spec.method, **{
        name: abs(value) for name, value in spec.parameters.items()})})


def other_level(request: ScoreRequest) -> ScoreRequest | None:
    if request.level == "sentence":
        return request.model_copy(update={"level": "corpus"})
    if len(request.segments) == 1 and request.stateful is None:
        return request.model_copy(update={"level": "sentence"})
    return None


#: The empty sequences whose one neighbour at order 1 is also the neighbour of "shorter than the order".
_EMPTY_OR_SHORT = ("hypothesis-empty", "reference-empty")
#: A derived feature: a hypothesis and a reference both empty, each needed, are one segment's emptiness.
SEGMENT_EMPTY = "segment-empty"
_SEGMENT_EMPTY_WORDS = "a segment's hypothesis and references are all empty"
_SMOOTHING, _ORDER_BELOW, _ORDER_ABOVE = "smoothing-", "order-below-", "order-above-"


def _segment_empty(request: ScoreRequest) -> bool:
    return any(not length_of(s.hypothesis) and s.references and not any(map(length_of, s.references))
               for s in request.segments)


@dataclass(frozen=True)
class Features:
    """The input features the search asks about and the triggers it names, as the catalogue declares them
    (`oracle.diagnose.mechanisms.errors`, which passes them in): `features`, a feature of the input's shape, in the
    order asked (the first of a family whose neighbour is answered names it); `last_resort`, a feature of what the
    input's tokens give, asked after them; `triggers`, each name prefix (PREFIX, CRASH_PREFIX, TIMEOUT_PREFIX) and
    what the implementation does where the features of a name of it hold."""

    features: tuple[Feature, ...]
    last_resort: tuple[Feature, ...]
    triggers: dict[str, str]
    #: Features asked only as a half of a disjunction (`_disjunction`), after `features`: held by nearly every
    #: shrunk input, among the others they would block their neighbours.
    halves: tuple[Feature, ...] = ()
    #: Narrower faces of the features (`Feature.narrows`: "every segment" for "some segment", `every_segment`), asked
    #: only once a cause naming the broader one is found (`_faces`).
    faces: tuple[Feature, ...] = ()
    #: Features bounded by an order bound found beside them (`OrderFace`: a text longer than k beside `order-above-k`),
    #: asked only once a cause naming that bound is found (`_faces`).
    order_faces: tuple[OrderFace, ...] = ()
    #: What an input erring on nearly every one may be answered for (`Exemption`): asked only where no feature is
    #: confirmed and some input asked was answered (`_unless`).
    exemptions: tuple[Exemption, ...] = ()
    by_name: dict[str, Feature] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {feature.name: feature for feature in (
            *self.features, *self.last_resort, *self.halves, *self.faces)})

    def order_face(self, part: str) -> tuple[OrderFace, int] | None:
        """The order face a part names (`<prefix><k>`) and its bound, or None for another part."""
        for face in self.order_faces:
            bound = part.removeprefix(face.prefix)
            if part.startswith(face.prefix) and bound.isdigit():
                return face, int(bound)
        return None


def _halves(part: str, features: Features) -> tuple[Feature, Feature] | None:
    """The two features a disjunction's part joins (`a-or-b`), or None for another part."""
    first, joined, second = part.partition(OR)
    if joined and first in features.by_name and second in features.by_name:
        return features.by_name[first], features.by_name[second]
    return None


def _part_holds(part: str, request: ScoreRequest, features: Features) -> bool:
    if part in features.by_name:
        return features.by_name[part].holds(request)
    halves = _halves(part, features)
    if halves is not None:
        return any(half.holds(request) for half in halves)
    if part == SEGMENT_EMPTY:
        return _segment_empty(request)
    bounded = features.order_face(part)
    if bounded is not None:
        return bounded[0].holds(request, bounded[1])
    if part.startswith(_SMOOTHING):
        return request.smoothing.method == part.removeprefix(_SMOOTHING)
    for prefix, below in ((_ORDER_BELOW, True), (_ORDER_ABOVE, False)):
        bound = part.removeprefix(prefix)
        if part.startswith(prefix) and bound.isdigit():
            return len(request.weights) < int(bound) if below else len(request.weights) > int(bound)
    return False


def _prefix_of(name: str, features: Features) -> str | None:
    return next((prefix for prefix in features.triggers if name.startswith(prefix)), None)


def parts(name: str, features: Features) -> tuple[str, ...]:
    """The features a trigger's name joins ('error-when-a-and-b', 'crash-when-a-and-b' -> ('a', 'b')); () for
    another name."""
    prefix = _prefix_of(name, features)
    if prefix is None:
        return ()
    return tuple(name.removeprefix(prefix).split(JOIN))


def _exemptions_of(name: str, features: Features) -> tuple[Exemption, ...] | None:
    """The exemptions an `error-unless-` name joins (`a-or-b`), or None for another name."""
    if not name.startswith(UNLESS):
        return None
    by_name = {e.name: e for e in features.exemptions}
    named = name.removeprefix(UNLESS).split(OR)
    return tuple(by_name[n] for n in named) if all(n in by_name for n in named) else None


def holds(name: str, request: ScoreRequest, features: Features) -> bool:
    """Whether `request` has every feature the error cause `name` names (False for a name that is none; True for
    EVERY_INPUT, which names no feature; for `error-unless-...`, whether it holds none of the exemptions named)."""
    if name == EVERY_INPUT:
        return True
    exempt = _exemptions_of(name, features)
    if exempt is not None:
        return not any(e.holds(request) for e in exempt)
    named = parts(name, features)
    return bool(named) and all(_part_holds(part, request, features) for part in named)


def part_words(part: str, features: Features) -> str:
    """A feature in words."""
    if part in features.by_name:
        return features.by_name[part].words
    halves = _halves(part, features)
    if halves is not None:
        return f"either {halves[0].words}, or {halves[1].words}"
    if part == SEGMENT_EMPTY:
        return _SEGMENT_EMPTY_WORDS
    bounded = features.order_face(part)
    if bounded is not None:
        return bounded[0].words(bounded[1])
    if part.startswith(_SMOOTHING):
        return f"the smoothing is {part.removeprefix(_SMOOTHING)}"
    if part.startswith(_ORDER_BELOW):
        return f"the order (the number of weights) is below {part.removeprefix(_ORDER_BELOW)}"
    if part.startswith(_ORDER_ABOVE):
        return f"the order (the number of weights) is above {part.removeprefix(_ORDER_ABOVE)}"
    return part


def describe(name: str, features: Features) -> str:
    """What an error (or crash, or hang) cause's name means, in words."""
    if name == EVERY_INPUT:
        return EVERY_INPUT_WORDS
    exempt = _exemptions_of(name, features)
    if exempt is not None:
        return (f"{UNLESS_WORDS} " + ", or ".join(e.words for e in exempt)
                + " (there every input asked was answered)")
    what = features.triggers.get(_prefix_of(name, features) or PREFIX, features.triggers[PREFIX])
    return f"{what} where " + " and ".join(part_words(part, features) for part in parts(name, features))


# -- the search -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorCause:
    """A confirmed error cause: its name, its features, and the neighbours asked (each answered or not)."""

    name: str
    features: tuple[str, ...]
    probes: int
    answered: int
    #: what the name means (`describe`)
    words: str

    @property
    def description(self) -> str:
        if self.name == EVERY_INPUT:
            return (f"{self.words}: no input feature separates it ({self.probes} input(s) asked, the floor among "
                    "them, none answered)")
        if self.name.startswith(UNLESS):
            return (f"{self.words}: no input feature separates it, and every input asked that was answered holds "
                    f"what the name says, none that erred does ({self.probes} input(s) asked, the failing input with "
                    f"it given and its floors among them, {self.answered} answered)")
        return (f"{self.words}: the failing input errs, and without any one of these features it is "
                f"answered ({self.probes} neighbour(s) of it asked, {self.answered} answered)")


@dataclass
class _Probing:
    failing: ScoreRequest
    ask: Ask
    candidates: tuple[Feature, ...]
    features: Features
    probes: int = 0
    answered: int = 0
    asked: dict = field(default_factory=dict)
    #: Requests that may be sent (MAX_PROBES; raised by DISJUNCTION_PROBES for a disjunction's search).
    limit: int = MAX_PROBES
    #: Each request asked, by its key (`asked`'s): what `_unless` reads the answered and the erring inputs from.
    sent: dict = field(default_factory=dict)

    def errs(self, request: ScoreRequest) -> bool | None:
        """The implementation's answer to a neighbour (cached; None once the probes are spent)."""
        if _tokens(request) > MAX_PROBE_TOKENS:
            return None
        key = request.model_dump_json(exclude={"seq"})
        if key not in self.asked:
            if self.probes >= self.limit:
                return None
            self.probes += 1
            self.sent[key] = request
            self.asked[key] = self.ask(request)
            self.answered += self.asked[key] is False
        return self.asked[key]

    def gains(self, neighbour: ScoreRequest) -> bool:
        """Whether a neighbour holds an exemption that disqualifies (`Exemption.disqualifies`: a zero precision) which
        the failing input lacks and no input asked that erred held: its answer may be the guard's that the exemption
        meets (an implementation that answers 0 where an order has no match before it reaches the code that errs),
        not the feature's it took away."""
        return any(e.disqualifies and e.judged(self.failing) and e.holds(neighbour) and not e.holds(self.failing)
                   and not self.erred_holding(e) for e in self.features.exemptions)

    def erred_holding(self, exemption: Exemption) -> bool:
        """Whether an input asked that holds `exemption` erred: then the exemption alone does not answer (an order
        raised past a one-token hypothesis that still errs), and a neighbour's gaining it says nothing."""
        return any(answer is True and exemption.holds(self.sent[key]) for key, answer in self.asked.items())

    def keeps_the_others(self, neighbour: ScoreRequest, family: str | None) -> bool:
        """Whether a neighbour keeps every feature of the failing input outside `family`: then its answer is
        about the one feature taken away."""
        return all(feature.holds(neighbour) for feature in self.candidates if feature.family != family)

    def without(self, feature: Feature, *, depth: int = REFUTED_DEPTH) -> list[ScoreRequest]:
        """The neighbours of the failing input without `feature` that keep its other features, but (`depth` above
        0) those refuted: a feature whose own neighbour errs is no part of the cause, and a neighbour may take it
        away too (one reference more beside an empty one makes the segment's one reference two)."""
        return [n for n in feature.neighbours(self.failing) if n != self.failing and not feature.holds(n)
                and self.kept_beside(n, feature, depth=depth)]

    def kept_beside(self, neighbour: ScoreRequest, feature: Feature, *, depth: int = REFUTED_DEPTH) -> bool:
        """Whether a neighbour without `feature` keeps the failing input's other features, but (`depth` above 0)
        those refuted (`without`'s rule, on a neighbour already built)."""
        return all(other.holds(neighbour) or (depth > 0 and self.refuted(other, depth=depth - 1))
                   for other in self.candidates if other.family != feature.family)

    def refuted(self, feature: Feature, *, depth: int = 0) -> bool:
        """Whether a neighbour of the failing input without `feature` errs, keeping every other feature (`depth`
        above 0: but those refuted in turn): the feature is then no part of the cause."""
        return any(self.errs(n) is True for n in self.without(feature, depth=depth))

    def answered_without(self, feature: Feature) -> ScoreRequest | None:
        """The first neighbour without `feature`, where every one of them is answered (a feature taken away
        several ways, as a segment kept of several, is needed only if each way stops the error: keeping the one
        reference that matches nothing may stop it for another reason); else None."""
        neighbours = self.without(feature)
        if not neighbours or any(self.errs(n) is not False for n in neighbours) or any(map(self.gains, neighbours)):
            return None
        return neighbours[0]


def _family_cause(probing: _Probing, family: tuple[Feature, ...]) -> str | None:
    """The feature of a family (held by the failing input) whose neighbours are answered, the first; at order 1,
    where "empty" and "shorter than the order" have one neighbour, that neighbour at order 2 tells them apart."""
    for position, feature in enumerate(family):
        neighbour = probing.answered_without(feature)
        if neighbour is None:
            continue
        later = [f for f in family[position + 1:] if f.name.endswith("-shorter-than-order")]
        if later and feature.name in _EMPTY_OR_SHORT and len(probing.failing.weights) == 1:
            raised = with_order(neighbour, 2)
            if raised is not None and later[0].holds(raised) and probing.errs(raised) is True:
                return later[0].name
        return feature.name
    return None


def _smoothing_cause(probing: _Probing, methods: Sequence[str]) -> str | None:
    method = probing.failing.smoothing.method
    if method == "none":
        return None
    for other in ("none", *methods):
        if other == method:
            continue
        neighbour = probing.failing.model_copy(update={"smoothing": SmoothingSpec.of(other)})
        if not probing.keeps_the_others(neighbour, None):
            continue
        answer = probing.errs(neighbour)
        if answer is not None:
            return _SMOOTHING + method if answer is False and not probing.gains(neighbour) else None
    return None


def _order_cause(probing: _Probing) -> str | None:
    """`order-below-<k>` for the first order above the failing one that is answered (the orders between err; where
    that order's answer came with a zero precision the failing input lacks, `_Probing.gains`, a guard's answer or the
    order's, only where that order is answered on an input holding no exemption too, `without_exemptions`);
    `order-above-<k>` for the first order below it that is answered, lowered one at a time (at most ORDER_STEPS)
    while each order between errs (near-every-errors: an error above order 1 met at order 4 is named by its
    threshold, not left `error` because order 3 errs too)."""
    n = len(probing.failing.weights)
    for k in range(n + 1, n + 1 + ORDER_STEPS):
        raised = with_order(probing.failing, k)
        if raised is None or not probing.keeps_the_others(raised, None):
            break
        answer = probing.errs(raised)
        if answer is False and probing.gains(raised):  # (the guard's answer, or the order's: asked without either)
            answer = probing.errs(unexempt) if (unexempt := without_exemptions(raised)) is not None else None
        if answer is None:
            break
        if answer is False:
            return f"{_ORDER_BELOW}{k}"
    for k in range(n - 1, max(0, n - 1 - ORDER_STEPS), -1):  # lowered one at a time while each order between errs
        lowered = with_order(probing.failing, k)
        # (a feature the order takes away with it, a reference shorter than the order, may go where its own neighbour
        # erred: it is no part of the cause)
        if lowered is None or not all(f.holds(lowered) or probing.refuted(f) for f in probing.candidates):
            break
        # (below one step, the orders cut must keep what the failing input's tokens give, a zero precision: an error
        # on an order without a match is not named by the orders above the last one matched)
        if k < n - 1 and not all(f.holds(lowered) for f in probing.features.last_resort if f.holds(probing.failing)):
            break
        answer = probing.errs(lowered)
        if answer is False:
            return f"{_ORDER_ABOVE}{k}"
        if answer is not True:
            break
    return None


def _plain(probing: _Probing, keep: Sequence[str], dropped: str) -> ScoreRequest | None:
    """The failing input with every feature it holds taken away but those in `keep` (each by its first neighbour,
    in the catalogue's order; the smoothing `none` unless kept; a `dropped` order bound crossed): what the kept
    features alone give."""
    request = probing.failing
    by_name = probing.features.by_name
    kept_families = {by_name[part].family for part in keep if part in by_name}
    for feature in probing.candidates:
        if feature.name in keep or feature.family in kept_families or not feature.holds(request):
            continue
        request = next(iter(feature.neighbours(request)), request)
    if not any(part.startswith(_SMOOTHING) for part in keep):
        request = request.model_copy(update={"smoothing": SmoothingSpec.of("none")})
    for prefix in (_ORDER_BELOW, _ORDER_ABOVE):
        if dropped.startswith(prefix):
            return with_order(request, int(dropped.removeprefix(prefix)))
    return request


def _needed(probing: _Probing, found: list[str]) -> list[str]:
    """The features found, less each one the others alone err without: a feature taken away one way may stop
    the error for another reason (the one reference kept matches nothing, and nltk answers 0 before it gets to
    its smoothing), which the failing input with every other feature taken away tells."""
    kept = list(found)
    for part in found:
        rest = [other for other in kept if other != part]
        if not rest:
            break
        plain = _plain(probing, rest, part)
        if plain is not None and all(_part_holds(other, plain, probing.features) for other in rest) \
                and probing.errs(plain) is True:
            kept = rest
    return kept


def _neighbour_of(probing: _Probing, part: str) -> ScoreRequest | None:
    """The neighbour whose answer confirmed `part`: the failing input without that feature, at the order an order
    bound names, under smoothing `none` for a smoothing."""
    if part in probing.features.by_name:
        return next(iter(probing.without(probing.features.by_name[part])), None)
    for prefix in (_ORDER_BELOW, _ORDER_ABOVE):
        if part.startswith(prefix):
            return with_order(probing.failing, int(part.removeprefix(prefix)))
    if part.startswith(_SMOOTHING):
        return probing.failing.model_copy(update={"smoothing": SmoothingSpec.of("none")})
    return None


def _kept_beside(probing: _Probing, part: str, derived: Feature) -> bool:
    """Whether a feature found keeps its place beside a confirmed derived one: its own neighbour keeps the derived
    feature (so its answer was about the feature alone), or, where that neighbour took the derived feature away too
    (a reference lengthened by the hypothesis's tokens adds a match), its neighbour of tokens found nowhere, which
    keeps it, is answered."""
    neighbour = _neighbour_of(probing, part)
    if neighbour is not None and derived.holds(neighbour):
        return True
    feature = probing.features.by_name.get(part)
    if feature is None or feature.unmatched is None:
        return False
    unmatched = feature.unmatched(probing.failing)
    return (unmatched is not None and not feature.holds(unmatched) and derived.holds(unmatched)
            and probing.keeps_the_others(unmatched, feature.family) and probing.errs(unmatched) is False)


def _with_derived(probing: _Probing, found: list[str], derived: Sequence[Feature]) -> list[str]:
    """`found` with each derived feature (`LAST_RESORT`) the failing input holds and whose neighbour is answered;
    a feature found before is then kept only where a neighbour without it that keeps the derived one is answered
    (a reference lengthened by its own tokens that also adds a match, an order lowered below the unmatched one:
    their answers say nothing of their own feature once the zero precision is confirmed; nor, once r = 0 is, does the
    hypothesis given as a reference, which under closest is picked and takes r = 0 away with the zero precision)."""
    for feature in derived:
        if probing.answered_without(feature) is None:
            continue
        found = [*(part for part in found if _kept_beside(probing, part, feature)), feature.name]
    return found


def _kept_without(probing: _Probing, neighbour: ScoreRequest, *gone: Feature) -> bool:
    """Whether `neighbour` keeps every feature of the failing input outside the families of `gone`, the level alone
    excepted where its own neighbour errs (a sentence request has one segment: given two it is a corpus request). Not
    "refuted" as a single feature's search reads it: a feature whose own neighbour errs may be a disjunction's other
    half (a reference lengthened past one token also takes "the longest text has one token" away)."""
    families = {feature.family for feature in gone}
    return all(other.holds(neighbour) or (other.family == "level" and probing.refuted(other))
               for other in probing.candidates if other.family not in families)


def _one_half_taken_away(probing: _Probing, request: ScoreRequest, taken: Feature, kept: Feature
                         ) -> ScoreRequest | None:
    """The first neighbour of `request` without `taken` that keeps `kept` and the failing input's other features."""
    return next((n for n in taken.neighbours(request) if n != request and not taken.holds(n) and kept.holds(n)
                 and _kept_without(probing, n, taken, kept)), None)


def _pair_confirmed(probing: _Probing, first: Feature, second: Feature) -> bool:
    """Whether the failing input errs without `first` (`second` held), errs without `second` (`first` held), and is
    answered without both, each neighbour keeping its other features (the level excepted, `_kept_without`)."""
    only_second = _one_half_taken_away(probing, probing.failing, first, second)
    only_first = _one_half_taken_away(probing, probing.failing, second, first)
    if only_second is None or only_first is None:
        return False
    neither = next((n for n in second.neighbours(only_second) if not first.holds(n) and not second.holds(n)
                    and _kept_without(probing, n, first, second)), None)
    return (neither is not None and probing.errs(neither) is False and probing.errs(only_second) is True
            and probing.errs(only_first) is True)


def _disjunction(probing: _Probing, every: Sequence[ScoreRequest]) -> str | None:
    """`a-or-b` where no feature alone separates the failing input, but two do together: without `a` it still errs
    (`b` held), without `b` it still errs (`a` held), and without both it is answered, each neighbour keeping the
    other features (`_pair_confirmed`). Each half so stands on probes on both sides of its boundary (a batch of one
    segment, or of texts of one token, squeezed into another shape: either is enough). The halves are the shape's
    features the failing input holds (`FEATURES`, then `Features.halves`); the pair must hold on every failing input
    given (one half or the other on each). Which pair: the failing input's features are taken away one after
    another, in the catalogue's order, until it is answered; the feature taken away last is one half, and the other
    is sought among those taken away before it (by their own neighbours or with another's), the latest first (at
    most MAX_DISJUNCTIONS pairs). Its probes may run DISJUNCTION_PROBES over MAX_PROBES. Sought only on a small
    input (DISJUNCTION_TOKENS: a shrunk one)."""
    if _tokens(probing.failing) > DISJUNCTION_TOKENS:
        return None
    probing.limit = MAX_PROBES + DISJUNCTION_PROBES
    held = [f for f in (*probing.features.features, *probing.features.halves) if f.holds(probing.failing)]
    request, removed = probing.failing, []
    for feature in held:
        if not feature.holds(request):
            continue
        neighbour = next((n for n in feature.neighbours(request) if n != request and not feature.holds(n)), None)
        if neighbour is None:
            continue
        answer = probing.errs(neighbour)
        if answer is True:  # (a neighbour may take other features away with its own: each is a partner to try)
            removed += [f for f in held if f.holds(request) and not f.holds(neighbour) and f is not feature]
            removed.append(feature)
            request = neighbour
        elif answer is False:
            return next((OR.join(f.name for f in held if f in (partner, feature))
                         for partner in reversed(removed[-MAX_DISJUNCTIONS:])
                         if partner.family != feature.family
                         and all(partner.holds(r) or feature.holds(r) for r in every)
                         and _pair_confirmed(probing, partner, feature)), None)
    return None


def _every_face(probing: _Probing, part: str, every: Sequence[ScoreRequest]) -> str:
    """`part`, or the first of its narrower faces (`Features.faces`, in their order) that the failing inputs hold and
    whose every neighbour, the failing input without the face but with `part` still held (every other feature it
    holds kept, but those refuted: a corpus of one segment given a second is no longer one), is answered. The
    every-quantified face's one neighbour is the failing input with one more segment without the feature (a corpus of
    one segment could not tell "some segment" from "every segment"); a line end's faces (`line_end_faces`) have one
    for each way they narrow it, which reader's line end (a lone CR made one only `str.splitlines` takes) and which
    side (the line end moved to the other side), each on the other side of its own boundary. A face one of whose
    neighbours cannot be built, or takes away another feature of the cause with it, is not named: the probes cannot
    tell it from `part`."""
    broader = probing.features.by_name.get(part)
    if broader is None:
        return part
    for face in (f for f in probing.features.faces if f.narrows == part):
        if not all(face.holds(request) for request in every):
            continue
        kept = face.kept or broader.holds
        # built once: every neighbour must keep the others (`_Probing.without`'s rule) and the broader feature
        built = [n for n in face.neighbours(probing.failing) if n != probing.failing and not face.holds(n)]
        neighbours = [n for n in built if probing.kept_beside(n, face) and kept(n)]
        if neighbours and len(neighbours) == len(built) and all(probing.errs(n) is False for n in neighbours):
            return face.name
    return part


def _order_faces(probing: _Probing, found: Sequence[str], every: Sequence[ScoreRequest]) -> list[str]:
    """The order faces (`Features.order_faces`) to add beside an `order-above-<k>` found: each the failing inputs hold
    whose neighbour (the failing input with that face taken away, the order kept, every part found still held) is
    answered: the order is above k, but the error needs what an order above k forms (a text longer than k)."""
    added = []
    for part in found:
        bound = part.removeprefix(_ORDER_ABOVE)
        if not part.startswith(_ORDER_ABOVE) or not bound.isdigit():
            continue
        for face in probing.features.order_faces:
            if not all(face.holds(request, int(bound)) for request in every):
                continue
            neighbour = face.neighbour(probing.failing, int(bound))
            if (neighbour is not None and not face.holds(neighbour, int(bound))
                    and all(_part_holds(other, neighbour, probing.features) for other in found)
                    and probing.errs(neighbour) is False):
                added.append(f"{face.prefix}{bound}")
    return added


def _faces(probing: _Probing, found: list[str], every: Sequence[ScoreRequest]) -> list[str]:
    """`found` told from its broader and narrower neighbours: each part's every-quantified face in its place where
    "some segment" is refuted (`_every_face`), and beside an order bound `order-above-<k>` a text longer than k where
    the texts cut to k tokens are answered (`_order_faces`). Each is one probe on the other side of the boundary the
    broader reading draws: answered, the cause narrows; erring, the broader name is confirmed and stays. At most
    FACE_PROBES requests over the search's bound."""
    probing.limit = max(probing.limit, probing.probes) + FACE_PROBES
    narrowed = [_every_face(probing, part, every) for part in found]
    return [*narrowed, *_order_faces(probing, narrowed, every)]


def _neighbour_erred(probing: _Probing, feature: Feature) -> bool:
    """Whether a neighbour of the failing input without `feature` was asked and erred."""
    return any(probing.asked.get(n.model_dump_json(exclude={"seq"})) is True
               for n in feature.neighbours(probing.failing) if n != probing.failing and not feature.holds(n))


def _what_is_known(probing: _Probing) -> str:
    """What the probes of a search that confirmed nothing say, from their answers alone (none sent for it): the
    features the failing input holds whose neighbour was asked and still erred (none of them alone is the trigger),
    and those no neighbour was asked about."""
    def answers(feature: Feature) -> set:
        return {probing.asked.get(n.model_dump_json(exclude={"seq"})) for n in feature.neighbours(probing.failing)
                if n != probing.failing and not feature.holds(n)}
    erred = [f.words for f in probing.candidates if True in answers(f)]
    unasked = [f.words for f in probing.candidates if not answers(f) - {None}]
    parts = [f"it still errs without each of: {'; '.join(erred)}" if erred else "no feature's neighbour still erred",
             f"not asked without: {'; '.join(unasked)}" if unasked else ""]
    return (f"no input feature separates it ({probing.probes} neighbour(s) asked, {probing.answered} answered): "
            + ", ".join(part for part in parts if part))


#: The name of an error no feature separates where every input the search asked erred, the failing input's floor
#: among them (`floor_requests`): what the probes found, not a trigger (issue 36, every-input-errors). Named only
#: with PREFIX's search (an error answer; a death has its own names) and never where any probe was answered.
EVERY_INPUT = "error-on-every-input-asked"
EVERY_INPUT_WORDS = ("the implementation answers error on every input asked: the failing input without each of its "
                     "features, and its floors (one segment, a hypothesis and one reference of one token each, the "
                     "same token and another, order 1 and its own order (2 where it is 1), no smoothing, at its "
                     "level and the other)")


def floor_requests(request: ScoreRequest) -> list[ScoreRequest]:
    """The input reduced to its floor: one segment whose hypothesis and one reference are one token each, no
    smoothing, case and state kept; the two tokens the same (FILLER: c = r = 1, p_1 = 1, BP = 1) and different (the
    reference UNMATCHED_LETTERS' first: p_1 = 0, the zero guard's side); at order 1 (weight 1), and at the request's
    own order with its weights where it has more than one, else at order 2 (uniform): an order above 1 without
    n-grams, where a guard may stop before the last order is read; each at its level, then the other (`other_level`,
    where it has one)."""
    orders = [(1.0,), tuple(request.weights) if len(request.weights) > 1 else uniform_weights(2)]
    floors = []
    for weights in orders:
        for reference in (FILLER, UNMATCHED_LETTERS[0]):
            floor = request.model_copy(update={
                "segments": (Segment(hypothesis=_sequence(request, (FILLER,)),
                                     references=(_sequence(request, (reference,)),)),),
                "weights": weights, "smoothing": SmoothingSpec.of("none")})
            other = other_level(floor)
            floors += [floor] if other is None else [floor, other]
    return floors


def _every_input(probing: _Probing) -> bool:
    """Whether every input the search asked erred, each feature the failing input holds among them taken away (its
    neighbour asked: none left unasked, as one too long to ask or past the limit is), and so does each of the
    failing input's floors (`floor_requests`, asked now over the search's limit): nothing the probes can reach is
    answered."""
    if not probing.asked or any(answer is not True for answer in probing.asked.values()):
        return False
    if not all(_neighbour_erred(probing, feature) for feature in probing.candidates):
        return False
    floors = floor_requests(probing.failing)
    probing.limit = max(probing.limit, probing.probes + len(floors))
    return all(probing.errs(floor) is True for floor in floors)


#: What an `error-unless-` name says before its exemptions' words.
UNLESS_WORDS = "the implementation answers error on every input asked but where"


def _exemption_probes(probing: _Probing) -> None:
    """Each exemption given to the failing input (`Exemption.given`), the failing input made one that holds none
    (`without_exemptions`: every order matched but one n-gram, a precision strictly between 0 and 1, which must err)
    and its floors (`floor_requests`), asked over the search's limit: the inputs on both sides of an exemption's
    boundary."""
    given = [n for e in probing.features.exemptions for n in e.given(probing.failing)]
    unexempt = without_exemptions(probing.failing)  # (the other side: no exemption held, so it must err)
    given += [unexempt] if unexempt is not None else []
    floors = floor_requests(probing.failing)
    probing.limit = max(probing.limit, probing.probes) + len(given) + len(floors)
    for request in (*given, *floors):
        probing.errs(request)


def _unless(probing: _Probing, every: Sequence[ScoreRequest]) -> tuple[Exemption, ...] | None:
    """The exemptions (one, else two, in the catalogue's order) that separate every input asked: each answered one
    holds one of them, no erring one (the failing inputs among them) holds any, and each is held by an answered
    input. Asked only where no feature is confirmed (nor every input asked erred, `_every_input`) and every input
    asked was answered or erred (none that could not be asked: a protocol error or a capability leaves a side of the
    boundary unseen, and asking on costs a restart a probe); first each
    exemption is given to the failing input and the floors are asked (`_exemption_probes`), so that each side of the
    boundary holds inputs the search did not choose for it. None where no such exemption is found."""
    if not probing.features.exemptions or None in probing.asked.values():
        return None
    _exemption_probes(probing)
    answered = [probing.sent[key] for key, answer in probing.asked.items() if answer is False]
    if not answered:  # (an exemption must be held by an answered input: none to hold one, and each `holds` counts
        # the input's statistics afresh, seconds on an input near MAX_PROBE_TOKENS with an order raised)
        return None
    erred = [*every, *(probing.sent[key] for key, answer in probing.asked.items() if answer is True)]
    exemptions = probing.features.exemptions
    held: dict[tuple[str, int], bool] = {}  # (each exemption judged once on each input, by the input's position)
    inputs = [*answered, *erred]

    def holds(exemption: Exemption, index: int) -> bool:
        if (exemption.name, index) not in held:
            held[exemption.name, index] = exemption.holds(inputs[index])
        return held[exemption.name, index]

    answered_at, erred_at = range(len(answered)), range(len(answered), len(inputs))
    choices = [(e,) for e in exemptions] + [(a, b) for i, a in enumerate(exemptions) for b in exemptions[i + 1:]]
    for chosen in choices:
        if any(holds(e, i) for e in chosen for i in erred_at):
            continue
        if all(any(holds(e, i) for e in chosen) for i in answered_at) \
                and all(any(holds(e, i) for i in answered_at) for e in chosen):
            return chosen
    return None


def error_cause(failing: ScoreRequest, ask: Ask, features: Features, *, also_failing: Sequence[ScoreRequest] = (),
                methods: Sequence[str] = (), prefix: str = PREFIX, known: list[str] | None = None
                ) -> ErrorCause | None:
    """The cause of an error on `failing` (a shrunk input the implementation answers with an error), confirmed
    by asking its neighbours (`ask`) about the catalogue's `features`; the features must hold on `also_failing` too
    (the original input). `methods`: the smoothing methods the implementation takes (a neighbour's other smoothing).
    None where no feature of the catalogue is confirmed, and then what is known appended to `known` where given
    (`_what_is_known`). `prefix`: the name's (CRASH_PREFIX where `ask` says whether a probe kills the process)."""
    if _tokens(failing) > MAX_PROBE_TOKENS:  # (its neighbours as long: building and testing them costs seconds)
        if known is not None:
            known.append(f"not searched: its input holds {_tokens(failing)} tokens, over the {MAX_PROBE_TOKENS} a "
                         "neighbour asked may hold")
        return None
    every = (failing, *also_failing)
    candidates = tuple(f for f in (*features.features, *features.last_resort) if all(f.holds(r) for r in every))
    probing = _Probing(failing, ask, tuple(f for f in candidates if f not in features.last_resort), features)
    found = []
    for family in dict.fromkeys(f.family for f in probing.candidates):
        named = _family_cause(probing, tuple(f for f in probing.candidates if f.family == family))
        if named is not None:
            found.append(named)
    found += [cause for cause in (_smoothing_cause(probing, methods), _order_cause(probing)) if cause]
    found = _needed(probing, found)
    found = _with_derived(probing, found, [f for f in features.last_resort if f in candidates])
    # an order bound or a smoothing the shrunk input needs but an original input lacks: that input errs without it,
    # the very evidence a neighbour gives that it is no part of the cause (a token holding two spaces errs at order
    # 2 where the shrunk one, holding one, erred at order 1 only)
    found = [part for part in found if all(_part_holds(part, request, features) for request in also_failing)]
    references_empty = {"reference-empty", "references-all-empty"} & set(found)
    if "hypothesis-empty" in found and references_empty and _segment_empty(failing):
        found = [SEGMENT_EMPTY if f == "hypothesis-empty" else f for f in found if f not in references_empty]
    found = _faces(probing, found, every) if found else found
    if not found:
        either = _disjunction(probing, every)
        found = [either] if either is not None else []
    if not found and prefix == PREFIX and _every_input(probing):
        return ErrorCause(name=EVERY_INPUT, features=(), probes=probing.probes, answered=probing.answered,
                          words=EVERY_INPUT_WORDS)
    exempt = _unless(probing, every) if not found and prefix == PREFIX else None
    if exempt is not None:
        name = UNLESS + OR.join(e.name for e in exempt)
        return ErrorCause(name=name, features=tuple(e.name for e in exempt), probes=probing.probes,
                          answered=probing.answered, words=describe(name, features))
    if not found:
        if known is not None:
            known.append(_what_is_known(probing))
        return None
    name = prefix + JOIN.join(found)
    if not all(holds(name, request, features) for request in every):
        return None
    return ErrorCause(name=name, features=tuple(found), probes=probing.probes, answered=probing.answered,
                      words=describe(name, features))


def hinted(request: ScoreRequest, hints: Iterable[tuple[str, ...]], features: Features) -> str | None:
    """The first of `hints` (causes given to shrunk errors of the same kind, their parts: an error's cause is one
    mechanism) that is an error cause `request` holds, or None. EVERY_INPUT holds on any request: its probes erred
    on every input they asked."""
    return next((parts[0] for parts in hints if len(parts) == 1 and (
        parts[0] == EVERY_INPUT or holds(parts[0], request, features))), None)


__all__ = [
    "CRASH_PREFIX",
    "EVERY_INPUT",
    "EVERY_INPUT_WORDS",
    "UNLESS",
    "UNLESS_WORDS",
    "Exemption",
    "JOIN",
    "MAX_PROBES",
    "MAX_PROBE_TOKENS",
    "OR",
    "PREFIX",
    "TIMEOUT_PREFIX",
    "Ask",
    "ErrorCause",
    "Feature",
    "Features",
    "OrderFace",
    "describe",
    "error_cause",
    "every_segment",
    "floor_requests",
    "hinted",
    "holds",
    "parts",
    "with_order",
]
