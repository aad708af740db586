"""compare-mt's scorers (compare-mt and compare-mt-sentence: one environment, one call).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Refused, Scorer


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
