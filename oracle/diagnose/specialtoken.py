"""Which special token, and where: the probe that refines `special-token-on-hypotheses` / `-on-references`.

On one side only, an extra token at the start and one at the end give the same counts (it matches nothing: each order
gains one n-gram either way), so the two broad names (`mechanisms.structure.TOKEN_ON_HYPOTHESES`,
`TOKEN_ON_REFERENCES`) cannot say which, nor which token. A probe can: a request whose other side carries a
conventional special token (`SPECIAL_TOKENS`, each cited from the code that uses it) at its conventional place makes the
implementation's own token match it where it is that token, and the bigram with its neighbour tells the end from the
start. The probe (`probe_request`) is the record's request with the other side rebuilt from the named side's own
tokens: for a token added to the hypotheses, every reference becomes the segment's hypothesis with the candidate at its
place (`</s>` at the end, `<s>` at the start); for a token added to the references, the hypothesis becomes the
segment's first reference with the candidate at its place, and every reference that reference. Three answers are
predicted by the oracle under the judged profile (`predictions`): the implementation's token is the candidate at the
end, or at the start, or another token (the broad mechanism on the probe); the answer is judged against each layer by
layer (the judge's verdict: the statistics, then the score), and the probe is decisive only where exactly one of them
is the answer (`read_answer`).

    >>> from oracle.models.protocol import ScoreRequest, Segment
    >>> record = ScoreRequest(level="sentence", weights=[0.5, 0.5],
    ...                       segments=[Segment(hypothesis=["a", "b"], references=[["a", "c"]])])
    >>> probe = probe_request(record, "special-token-on-hypotheses", SPECIAL_TOKENS[0])
    >>> [(s.hypothesis, s.references) for s in probe.segments]
    [(('a', 'b'), (('a', 'b', '</s>'),))]

An implementation that appends `</s>` answers that probe as "a b </s>" against itself (every n-gram matched); one that
prepends it, "</s> a b" against "a b </s>" (the unigrams matched, the bigram "</s> a" not); one whose token is another,
as the broad mechanism on the probe. The harness sends the probes (`oracle.harness.diagnosis`, once per process
instance and name, the candidates in order until one is decisive): a bounded number of requests, at most
`len(SPECIAL_TOKENS)`, and only where a record's cause is one of the two broad names. A text request (`tokenize` set)
is not probed: a tokenizer splits most of these spellings (13a makes `</s>` three tokens), so the candidate would not
stand as one token on the other side.

Coverage, not generalisation: written after the real-bug collection's `end-token-in-hypothesis`
(tests/fakes/realbleu.py) had been named by the broad name for sessions; the tokens are data, the mechanism is the
broad one's, refined by what the probe observes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from oracle.models.outcomes import GOOD_OUTCOMES, Expected
from oracle.models.protocol import ScoreRequest, Segment
from oracle.models.results import Classification

from .expect import scored_expectation
from .judge import Answered, Contract, judge, token_count_layers
from .mechanisms.structure import (
    END_TOKEN_ON_HYPOTHESES,
    END_TOKEN_ON_REFERENCES,
    REFINED_SPECIAL_TOKENS,
    START_TOKEN_ON_HYPOTHESES,
    START_TOKEN_ON_REFERENCES,
    TOKEN_ON_HYPOTHESES,
    TOKEN_ON_REFERENCES,
)
from .structure import token_on_hypotheses, token_on_references

END, START, OTHER = "end", "start", "other"


@dataclass(frozen=True)
class SpecialToken:
    """A conventional special token: its `spelling`, the `place` its code puts it (`end` or `start` of a sequence),
    and where real code uses it (`cited`)."""

    spelling: str
    place: str
    cited: str


#: The candidates, in the order they are probed (data: each cited from real code that adds it to a sequence).
SPECIAL_TOKENS: tuple[SpecialToken, ...] = (
    SpecialToken("</s>", END, "fairseq's Dictionary (eos_word '</s>'), Moses' and Marian's sentence end"),
    SpecialToken("<s>", START, "fairseq's Dictionary (bos_word '<s>'), Moses' sentence start"),
    SpecialToken("[SEP]", END, "Hugging Face BertTokenizer (sep_token '[SEP]', added after the sequence)"),
    SpecialToken("[CLS]", START, "Hugging Face BertTokenizer (cls_token '[CLS]', added before the sequence)"),
    SpecialToken("<|endoftext|>", END, "GPT-2's tokenizer (eos_token '<|endoftext|>')"),
    SpecialToken("<eos>", END, "torchtext tutorials' Field(eos_token='<eos>'); "
                               "foundation-model-stack/fms-hf-tuning#121"),
    SpecialToken("<bos>", START, "torchtext tutorials' Field(init_token='<bos>')"),
    SpecialToken("<EOS>", END, "IBM/pytorchpipe's targets ('<EOS>', then '<PAD>': tests/fakes/realbleu.py)"),
    SpecialToken("<end>", END, "TensorFlow's NMT-with-attention and image-captioning tutorials ('<start> ' + w + "
                               "' <end>'); sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning"),
    SpecialToken("<start>", START, "TensorFlow's NMT-with-attention and image-captioning tutorials"),
    SpecialToken("#END", END, "PacktPublishing/Deep-Reinforcement-Learning-Hands-On Chapter12/libbots/data.py "
                              "(END_TOKEN = \"#END\", appended by encode_words)"),
    SpecialToken("#BEG", START, "PacktPublishing/Deep-Reinforcement-Learning-Hands-On Chapter12/libbots/data.py "
                                "(BEGIN_TOKEN = \"#BEG\")"),
)

#: The broad names probed, and by side and place the refined names they become.
PROBED = (TOKEN_ON_HYPOTHESES, TOKEN_ON_REFERENCES)
REFINED = {
    (TOKEN_ON_HYPOTHESES, END): END_TOKEN_ON_HYPOTHESES,
    (TOKEN_ON_HYPOTHESES, START): START_TOKEN_ON_HYPOTHESES,
    (TOKEN_ON_REFERENCES, END): END_TOKEN_ON_REFERENCES,
    (TOKEN_ON_REFERENCES, START): START_TOKEN_ON_REFERENCES,
}

_WORDS = {name: words for name, _, words in REFINED_SPECIAL_TOKENS}


@dataclass(frozen=True)
class Found:
    """What the probes found for one broad name: the token and the place (None: none of the candidates), and the
    words a record's description gains."""

    token: SpecialToken | None
    place: str | None
    words: str


def _placed(sequence: Sequence[str], token: str, place: str) -> tuple[str, ...]:
    return (*sequence, token) if place == END else (token, *sequence)


def probeable(request: ScoreRequest) -> bool:
    """Whether `request` can carry the probes: a token request (a text request's tokenizer would split the
    candidates) whose every segment has a reference."""
    return not request.is_text and all(segment.references for segment in request.segments)


def probe_bases(request: ScoreRequest, name: str) -> list[ScoreRequest]:
    """The requests a probe may be built on, in order: the record's own, then (where that one cannot tell the end
    from the start: one order, which a bigram is needed for, or an empty sequence on the named side, whose token
    is its only token) the same with two orders of equal weight and each empty sequence of the named side one word
    long. The probe asks which token an implementation adds, which neither change bears on."""
    weights = request.weights if len(request.weights) > 1 else (0.5, 0.5)

    def filled(sequence: Sequence[str]) -> tuple[str, ...]:
        return tuple(sequence) or ("w",)

    segments = tuple(
        Segment(hypothesis=filled(s.hypothesis), references=tuple(tuple(r) for r in s.references))
        if name == TOKEN_ON_HYPOTHESES else
        Segment(hypothesis=tuple(s.hypothesis), references=tuple(filled(r) for r in s.references))
        for s in request.segments)
    other = request.model_copy(update={"weights": tuple(weights), "segments": segments})
    return [request] if other == request else [request, other]


def probe_request(request: ScoreRequest, name: str, token: SpecialToken) -> ScoreRequest:
    """The probe for `name` (one of `PROBED`) and `token`: the record's request with the other side rebuilt from the
    named side's tokens, the candidate at its conventional place (the module's docstring)."""
    segments = []
    for segment in request.segments:
        if name == TOKEN_ON_HYPOTHESES:
            hypothesis = tuple(segment.hypothesis)
            references = tuple(_placed(hypothesis, token.spelling, token.place) for _ in segment.references)
        else:
            reference = tuple(segment.references[0])
            hypothesis = _placed(reference, token.spelling, token.place)
            references = tuple(reference for _ in segment.references)
        segments.append(Segment(hypothesis=hypothesis, references=references))
    return request.model_copy(update={"segments": tuple(segments)})


def _with_pairs(request: ScoreRequest, pairs: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]]) -> ScoreRequest:
    return request.model_copy(update={"segments": tuple(
        Segment(hypothesis=tuple(h), references=tuple(tuple(r) for r in refs)) for h, refs in pairs)})


def predictions(probe: ScoreRequest, name: str, token: SpecialToken) -> dict[str, ScoreRequest]:
    """What the implementation scores on `probe` if its token is `token` at the end, at the start, or another one
    (`"other"`: the broad mechanism's reshaping, a token no segment holds): place -> the request scored."""
    pairs = [(tuple(s.hypothesis), tuple(tuple(r) for r in s.references)) for s in probe.segments]
    out = {}
    for place in (END, START):
        if name == TOKEN_ON_HYPOTHESES:
            out[place] = _with_pairs(probe, [(_placed(h, token.spelling, place), refs) for h, refs in pairs])
        else:
            out[place] = _with_pairs(probe, [(h, [_placed(r, token.spelling, place) for r in refs])
                                             for h, refs in pairs])
    reshape = token_on_hypotheses if name == TOKEN_ON_HYPOTHESES else token_on_references
    other = reshape(probe.segments, None, None)
    if other is not None:
        out[OTHER] = _with_pairs(probe, other)
    return out


def expectations(probe: ScoreRequest, name: str, token: SpecialToken, profile: str) -> dict[str, Expected] | None:
    """The oracle's expectation (under `profile`) of each prediction for `probe` (`predictions`), or None where the
    probe cannot tell them apart: one of them rejected, or two with the same statistics (an empty hypothesis puts
    the token at its end and at its start alike). Computed before the probe is sent: an undecidable probe is not."""
    out: dict[str, Expected] = {}
    for place, scored in predictions(probe, name, token).items():
        expected = scored_expectation(scored, profile)
        if expected is None:
            return None
        out[place] = expected
    if len(out) < 3 or len({(e.statistics.hyp_len, e.statistics.ref_len, tuple(e.statistics.matches),
                                tuple(e.statistics.totals)) for e in out.values() if e.statistics}) < len(out):
        return None
    return out


def read_answer(probe: ScoreRequest, answer: Answered, expected: dict[str, Expected], contract: Contract) -> str | None:
    """What the answer to `probe` says, judged layer by layer against each prediction's expectation (`expectations`;
    the judge's verdict: the statistics, then the score): `end` or `start` (the implementation's token is the
    candidate, there), `other` (another token), or None (none of them, or more than one: not decisive)."""
    if answer.kind != "score":
        return None
    fitting = [place for place, expectation in expected.items()
               if judge(expectation, answer, contract, max_order=probe.max_order,
                        token_counts=token_count_layers(probe)).outcome in GOOD_OUTCOMES]
    return fitting[0] if len(fitting) == 1 else None


def refined(classification: Classification, found: Found, request: ScoreRequest) -> Classification:
    """`classification` with the broad name (as its name or among its fits) replaced by the refined one where the probes
    found the token (`found`), the token and the probe's reading in its description; where they found none, the broad
    name kept and its description saying so. A record whose own request holds the token keeps the broad name (there
    the token would match, and the broad reshaping, a token no segment holds, is what was computed)."""
    broad = next((parts[0] for parts in (classification.parts, *classification.fit_parts)
                  if len(parts) == 1 and parts[0] in PROBED), None)
    if broad is None:
        return classification
    if found.token is None or found.place is None or _holds(request, found.token.spelling):
        if classification.parts != (broad,):
            return classification
        held = "" if found.token is None or found.place is None else (
            f" (this record's request holds {found.token.spelling!r} itself, where the token would match: the broad "
            "name is kept)")
        return classification.model_copy(update={"description": f"{classification.description}; {found.words}{held}"})
    name = REFINED[(broad, found.place)]

    def swapped(parts: tuple[str, ...]) -> tuple[str, ...]:
        return (name,) if parts == (broad,) else parts

    update: dict[str, Any] = {"parts": swapped(classification.parts),
                              "fit_parts": tuple(swapped(parts) for parts in classification.fit_parts)}
    if classification.parts == (broad,):
        update["description"] = f"{_WORDS[name]}; {found.words}"
    return classification.model_copy(update=update)


def _holds(request: ScoreRequest, spelling: str) -> bool:
    return any(spelling in segment.hypothesis or any(spelling in reference for reference in segment.references)
               for segment in request.segments)


def found_words(name: str, token: SpecialToken | None, place: str | None, probed: int) -> str:
    """What a record's description gains from the probes for `name`."""
    side = "hypothesis" if name == TOKEN_ON_HYPOTHESES else "reference"
    other = "references" if name == TOKEN_ON_HYPOTHESES else "hypotheses"
    if token is None or place is None:
        return (f"probed with {probed} conventional special token(s) on the {other} "
                f"({', '.join(t.spelling for t in SPECIAL_TOKENS[:probed])}): none matched the {side}'s own token, "
                "so which token and where stays unknown")
    return (f"the token is {token.spelling!r} at the {place} of every {side} ({token.cited}): a probe with it at the "
            f"{token.place} of the {other} was answered as {token.spelling!r} at the {place} gives, layer by layer, "
            f"and not as another token or the other place")


__all__ = ["END", "OTHER", "PROBED", "REFINED", "SPECIAL_TOKENS", "START", "Found", "SpecialToken", "expectations",
           "found_words", "predictions", "probe_bases", "probe_request", "probeable", "read_answer", "refined"]
