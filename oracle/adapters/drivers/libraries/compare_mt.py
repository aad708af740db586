"""compare-mt's scorers (compare-mt and compare-mt-sentence: one environment, one call).

compare-mt 0.2.10 (`compare-mt`: `BleuScorer`, corpus; `compare-mt-sentence`: `SentBleuScorer`, nltk's
`sentence_bleu` with method2): token lists as its corpora are, one reference a segment, its `case_insensitive` for
`lowercase`. BleuScorer's docstring says only "A scorer that calculates BLEU score": profile `papineni`;
SentBleuScorer's "sentence-level smoothed BLEU score" is nltk's: profile `nltk`, smoothing chen-cherry-2 only, BLEU-4
only (nltk's default weights). compare-mt's package imports its reporters (matplotlib) and its ROUGE (absl, six,
undeclared): a plotting stack beside the project's is not worth it for one scorer, so it has a venv of its own, which
compare-mt-sentence shares.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Refused, Scorer, environment, implementation

ENVIRONMENT = environment(
    (("compare-mt==0.2.10", "nltk==3.10.4", "sacrebleu==2.6.0", "numpy==2.4.6", "matplotlib==3.11.2",
      "absl-py==2.5.1", "six==1.17.0"),),
    "import compare_mt.scorers", "compare-mt")
IMPLEMENTATIONS = [
    # BleuScorer: any weights (one order per weight), no smoothing; score_sentence is not implemented
    implementation("compare-mt", "papineni", dict(levels=["corpus"], max_order=12, lowercase=True, max_references=1)),
    # SentBleuScorer: nltk's sentence_bleu with its default weights (0.25 x 4) and method2, nothing else
    implementation("compare-mt-sentence", "nltk", dict(levels=["sentence"], weights="uniform", max_order=4, orders=[4],
                                                       smoothing=["chen-cherry-2"], lowercase=True, max_references=1)),
]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """compare-mt's scorers (compare_mt.scorers), on token lists as its corpus_utils.load_tokens makes them
    (a corpus is a list of sentences, each a list of tokens), one reference a segment, its 0-100 scale
    brought to 0-1: corpus level `BleuScorer(weights, case_insensitive).score_corpus(ref, out)`, sentence
    level `SentBleuScorer(case_insensitive).score_sentence(ref, out)` (nltk's sentence_bleu with method2)."""
    from compare_mt import scorers

    def score(command: Command) -> Answer:
        segments = command["segments"]
        if any(not segment["references"] for segment in segments):
            raise Refused("rejected", "a segment without a reference: compare-mt pairs each output with one")
        references = [list(segment["references"][0]) for segment in segments]
        outputs = [list(segment["hypothesis"]) for segment in segments]
        folded = bool(command.get("lowercase"))
        if command["level"] == "sentence":
            value, _ = scorers.SentBleuScorer(case_insensitive=folded).score_sentence(references[0], outputs[0])
        else:
            weights = tuple(float(w) for w in command["weights"])
            value, _ = scorers.BleuScorer(weights=weights, case_insensitive=folded).score_corpus(references, outputs)
        return float(value) / 100.0

    return score
