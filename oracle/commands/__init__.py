"""One module per CLI verb. Each defines `register(subparsers)`; the parser it adds
sets `handler`, a function of the parsed arguments that returns an exit code.

The CLI imports only the module of the verb it runs (start-up: `score` must not pay for the
harness, pydantic or YAML), so each verb's one-line help lives here, where `--help` finds it.
"""

#: Verbs in the order `--help` lists them, each with its one-line help.
SUMMARIES = {
    "score": "score files with the oracle",
    "doctor": "explain a BLEU number, and two that differ, on your own files",
    "profiles": "list the profiles and their cited conventions",
    "cases": "list or validate the documented cases",
    "serve": "serve an implementation over protocol v1 on stdin/stdout",
    "protocol": "the protocol-v1 JSON Schemas",
    "check": "check an implementation against the oracle",
    "fuzz": "search for disagreements and classify them by root cause",
    "merge": "combine the report directories of a run's shards (--shard K/N) into the whole run's",
    "baseline": "write a baseline of known deviations from a run; update it from a later run",
    "report": "regenerate reports/: matrix, discrepancy reports, real data, HTML",
    "history": "check every released version of a library and bisect its behaviours",
    "install": "prepare the implementations that run outside this environment (npm, own venvs)",
}
VERBS = list(SUMMARIES)
