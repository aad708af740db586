"""ragas' `BleuScore` (single-turn).

ragas 0.4.3, `ragas.metrics.BleuScore` (single-turn: one reference string, one response string), driven through its
coroutine `single_turn_ascore(SingleTurnSample(reference, response))`. Its docstring: "Uses sacrebleu library",
`kwargs` "Additional arguments to pass to sacrebleu.corpus_bleu": profile `sacrebleu`. The request's smoothing, case
folding, tokenizer and empty-order rule travel as those kwargs (tokens joined by spaces with `tokenize="none"`); its own
wrapping is not switched off: it splits both strings on ". " and passes the reference pieces as alternative reference
streams, so only the first piece of the response is scored (ragas #2888), and it scores one sample with
`corpus_bleu`, whose `use_effective_order=False` is its default at what is a sentence score. A venv of about 650 MB.

Every requirement is pinned, at the version it was installed and checked with, and installed with `--no-deps`, so that
pip takes exactly these and resolves nothing (a later release of a dependency cannot change what is driven: ragas 0.4.3
does not import with langchain-community 0.4, which dropped the `chat_models.vertexai` module its `ragas.llms` imports).
None needs a model, a key or the network to score BLEU. REQUIREMENTS is the `pip freeze` of an environment where its
BLEU was imported and run: its import of `ragas.metrics` reaches langchain, openai, datasets and instructor (none of
them called by BleuScore, which needs only sacrebleu); scikit-network, networkx, nest-asyncio and diskcache, which it
declares, are not imported by it and are left out. That import takes 3 s of CPU, 12 to 15 s on two busy cores:
preloaded.

One library of drivers/venv_bleu.py: the standard library only (libraries/__init__.py says why, and what it shares)."""

from typing import Any, Dict

from . import (
    TEXT_LIMITS,
    Answer,
    Command,
    Refused,
    Scorer,
    environment,
    implementation,
    library_arguments,
    smoothing_row,
    smoothing_table,
    text_segments,
)

#: ragas 0.4.3 and what `from ragas.metrics import BleuScore` imports
REQUIREMENTS = (
    "aiohappyeyeballs==2.7.1", "aiohttp==3.14.5", "aiosignal==1.4.0", "annotated-doc==0.0.7",
    "annotated-types==0.8.0", "anyio==4.16.0", "appdirs==1.4.4", "attrs==26.1.0", "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.3", "click==8.5.1", "colorama==0.4.6", "dataclasses-json==0.6.7", "datasets==5.2.0",
    "dill==0.4.1", "distro==1.9.0", "docstring_parser==0.18.0", "filelock==4.3.1", "frozenlist==1.8.0",
    "fsspec==2026.9.0", "h11==0.16.0", "hf-xet==1.8.0", "httpcore==1.0.9", "httpcore2==2.16.2", "httpx==0.28.1",
    "httpx-sse==0.4.3", "httpx2==2.16.2", "huggingface_hub==2.4.0", "idna==3.20", "instructor==1.17.0",
    "Jinja2==3.1.6", "jiter==0.14.0", "jsonpatch==1.48", "jsonpointer==3.12", "langchain==1.5.2",
    "langchain-classic==1.0.8", "langchain-community==0.3.31", "langchain-core==1.8.3", "langchain-openai==1.7.4",
    "langchain-protocol==0.0.20", "langchain-text-splitters==1.1.3", "langgraph==1.2.24",
    "langgraph-checkpoint==4.3.2", "langgraph-prebuilt==1.1.3", "langgraph-sdk==0.4.14", "langsmith==0.15.1",
    "lxml==6.1.3", "markdown-it-py==4.3.0", "MarkupSafe==3.0.4", "marshmallow==3.26.2", "mdurl==0.1.2",
    "multidict==7.2.1", "multiprocess==0.70.19", "mypy_extensions==1.2.0", "numpy==2.4.6", "openai==3.3.0",
    "orjson==3.13.0", "ormsgpack==1.13.1", "packaging==26.4", "pandas==3.1.1", "pillow==13.0.0",
    "portalocker==4.4.2", "propcache==0.5.4", "pyarrow==26.0.1", "pydantic==2.14.4", "pydantic-settings==2.16.3",
    "pydantic_core==2.50.5", "Pygments==2.21.0", "python-dateutil==4.0.0", "python-dotenv==1.2.4", "PyYAML==6.0.4",
    "ragas==0.4.3", "regex==2026.11.19", "requests==2.34.2", "requests-toolbelt==1.0.0", "rich==14.3.4",
    "sacrebleu==2.6.0", "shellingham==1.5.4", "sniffio==1.3.1", "SQLAlchemy==2.1.9", "tabulate==0.10.0",
    "tenacity==9.2.1", "tiktoken==0.14.0", "tqdm==4.70.1", "truststore==0.10.5", "typer==0.29.2",
    "typing-inspect==0.9.0", "typing-inspection==0.4.5", "typing_extensions==4.16.0", "tzdata==2026.6",
    "urllib3==2.8.0", "uuid_utils==0.19.0", "websockets==17.4", "xxhash==4.1.0", "yarl==1.25.1", "zstandard==0.25.0",
)
ENVIRONMENT = environment((("--no-deps",) + REQUIREMENTS,), "from ragas.metrics import BleuScore", "ragas")
#: ragas passes `kwargs` to sacrebleu.corpus_bleu: smooth_method and smooth_value map one to one
SMOOTHING = smoothing_table("ragas passes sacrebleu's none, floor, add-k or exp",
                            smoothing_row("none", "none"),
                            smoothing_row("floor", "floor", passes={"value": "smooth_value"}),
                            smoothing_row("add-k", "add-k", passes={"k": "smooth_value"}), smoothing_row("exp", "exp"))
IMPLEMENTATIONS = [
    implementation("ragas", "sacrebleu", dict(
        levels=["sentence"], weights="uniform", max_order=4, orders=[4], lowercase=True,
        tokenizers=["none", "13a", "intl", "char"], max_references=1, conventions={"empty_order": ["zero", "skip"]},
        **TEXT_LIMITS), smoothing=SMOOTHING, preload=True),
]


def sacrebleu_options(command: Command, settings: Dict[str, Any]) -> Dict[str, Any]:
    """The request's settings as `sacrebleu.corpus_bleu`'s keyword arguments (what ragas passes on as its
    `kwargs`): smoothing, case folding, the tokenizer ("none" for tokens joined by spaces), and the empty-order
    rule only when the request carries one (else the wrapper's own: corpus_bleu's `use_effective_order=False`)."""
    method, arguments = library_arguments(command, settings)
    options = {"smooth_method": method, "force": True, "lowercase": bool(command.get("lowercase")),
               "tokenize": command.get("tokenize") or "none"}  # type: Dict[str, Any]
    if "smooth_value" in arguments:
        options["smooth_value"] = arguments["smooth_value"]
    rule = (command.get("conventions") or {}).get("empty_order")
    if rule is not None:
        options["use_effective_order"] = rule == "skip"
    return options


def scorer(settings: Dict[str, Any]) -> Scorer:
    """ragas' `BleuScore` (ragas.metrics, single-turn): `BleuScore(kwargs=...)` scores one `SingleTurnSample`
    (reference, response) by its coroutine `single_turn_ascore`, run here on an event loop of the driver's own;
    no LLM, no embeddings, no network. Its kwargs go to `sacrebleu.corpus_bleu` as its docstring says."""
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its deprecation notice (BleuScore moves to ragas.metrics.collections)
        from ragas.dataset_schema import SingleTurnSample
        from ragas.metrics import BleuScore
    loop = asyncio.new_event_loop()

    def score(command: Command) -> Answer:
        hypothesis, references = text_segments(command)[0]
        if not references:  # (its SingleTurnSample's reference is one string: there is no way to pass none)
            raise Refused("unsupported", "ragas' BleuScore takes one reference string (got no reference)")
        metric = BleuScore(kwargs=sacrebleu_options(command, settings))
        sample = SingleTurnSample(reference=references[0], response=hypothesis)
        return float(loop.run_until_complete(metric.single_turn_ascore(sample)))

    return score
