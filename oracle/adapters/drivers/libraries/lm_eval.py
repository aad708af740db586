"""lm-evaluation-harness' `bleu` aggregation.

lm-eval 0.4.13 (lm-evaluation-harness), `lm_eval.api.metrics.bleu`: the aggregation a task with `metric: bleu` ends
in, a list of (gold, prediction) items to `sacrebleu.corpus_bleu(preds, refs).score` with sacrebleu's defaults (13a,
exp smoothing, no effective order), after `_sacreformat` transposes the references with `zip`, which keeps only as
many references per segment as the segment with fewest has. Corpus level only, nothing switchable: its capabilities
are those defaults; token requests are joined by spaces and pass 13a unchanged because no token holds ASCII
punctuation (declared). Its docstring cites Papineni et al. and the code calls sacrebleu: profile `sacrebleu`. A venv of
about 200 MB.

Every requirement is pinned, at the version it was installed and checked with, and installed with `--no-deps`, so that
pip takes exactly these and resolves nothing (a later release of a dependency cannot change what is driven: ragas 0.4.3
does not import with langchain-community 0.4, which dropped the `chat_models.vertexai` module its `ragas.llms` imports).
None needs a model, a key or the network to score BLEU. REQUIREMENTS is the `pip freeze` of an environment where its
BLEU was imported and run: `lm_eval.api.metrics` imports numpy and sacrebleu only; lm-eval's model and dataset stack
(datasets, evaluate, transformers) is left out.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import PLAIN_WORDS, Answer, Command, Scorer, environment, implementation, text_segments

#: lm-eval 0.4.13 and what `from lm_eval.api.metrics import bleu` imports
REQUIREMENTS = (
    "colorama==0.4.6", "lm-eval==0.4.13", "lxml==6.1.3", "numpy==2.4.6", "portalocker==4.4.2", "regex==2026.11.19",
    "sacrebleu==2.6.0", "tabulate==0.10.0",
)
ENVIRONMENT = environment((("--no-deps",) + REQUIREMENTS,), "from lm_eval.api.metrics import bleu", "lm-eval")
IMPLEMENTATIONS = [
    implementation("lm-eval", "sacrebleu", dict(levels=["corpus"], weights="uniform", max_order=4, orders=[4],
                                                smoothing=["exp"], tokenizers=["13a"], **PLAIN_WORDS)),
]


def scorer(settings: Dict[str, Any]) -> Scorer:
    """lm-evaluation-harness' `bleu` aggregation (lm_eval.api.metrics.bleu), what a task with `metric: bleu`
    ends in: the per-document `bleu_fn` passes (gold, prediction) through, and the aggregation receives their
    list, reformats it for sacrebleu (`_sacreformat`) and returns `sacrebleu.corpus_bleu(preds, refs).score`
    (its defaults: 13a, exp smoothing, no effective order), on 0..100."""
    from lm_eval.api.metrics import bleu

    def score(command: Command) -> Answer:
        items = [(references, hypothesis) for hypothesis, references in text_segments(command)]
        return float(bleu(items)) / 100.0

    return score
