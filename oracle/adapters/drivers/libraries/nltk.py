"""nltk's `nltk.translate.bleu_score`, every release from 3.2 on (`bleu-oracle history` drives them).

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import Answer, Command, Refused, Scorer, library_arguments


def scorer(settings: Dict[str, Any]) -> Scorer:
    """nltk.translate.bleu_score of any release from 3.2 on (`SmoothingFunction` with method0..7, and
    `sentence_bleu`/`corpus_bleu` taking references, hypotheses, weights, smoothing_function throughout)."""
    import warnings

    from nltk.translate import bleu_score

    def score(command: Command) -> Answer:
        name, arguments = library_arguments(command, settings)
        function = getattr(bleu_score.SmoothingFunction(**arguments), name)
        weights = tuple(float(w) for w in command["weights"])
        hypotheses = [list(s["hypothesis"]) for s in command["segments"]]
        references = [[list(r) for r in s["references"]] for s in command["segments"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nltk warns when an order has no overlap
            try:
                if command["level"] == "sentence":
                    value = bleu_score.sentence_bleu(references[0], hypotheses[0], weights,
                                                     smoothing_function=function)
                else:
                    value = bleu_score.corpus_bleu(references, hypotheses, weights, smoothing_function=function)
            except AssertionError as exc:  # nltk validates with asserts: a refusal, as its adapter says
                raise Refused("rejected", f"nltk raised AssertionError: {exc}") from exc
        return float(value)

    return score
