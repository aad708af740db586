"""The typed records: the protocol's messages, the results stream, case files, baselines, the curated discrepancies.

Their base classes say `defer_build=True`: pydantic builds a model's validator and serializer when the model is
first used, not when its module is imported. A process uses a few of the models it imports (a `serve` process
reads start, score and stop commands; `check` writes a handful of line types and never validates most case-file or
discrepancy parts on their own), and building them all at import cost every process about 10 to 40 ms of CPU
(benchmarks/README.md, "What each command pays to start"). A model is built once, on its first use, and costs
each later use nothing more."""
