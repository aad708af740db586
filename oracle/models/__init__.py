"""The typed records: the protocol's messages, the results stream, case files, baselines, the curated discrepancies.

Their base classes say `defer_build=True`: pydantic builds a model's validator and serializer when the model is
first used, not when its module is imported. A process uses a few of the models it imports (a `serve` process
reads start, score and stop commands; `check` writes a handful of line types and never validates most case-file or
discrepancy parts on their own), and building them all at import cost every process 10 to 40 ms of CPU, of which a
`check` run spends about half again building the models it uses (benchmarks/README.md, "What each command pays to
start"). A model is built once, on its first use, and costs each later use nothing more. Its first use must come
through pydantic's API (`model_validate`, a constructor, `model_dump`, ...) or from inside a function: a deferred
model's `__pydantic_validator__` read at a module's top level cannot rebuild it (pydantic looks five frames up)."""
