"""The library's own conformance test: every documented case and 100 seeded random inputs, in process."""

from smallbleu import bleu

from oracle.harness.pytest_plugin import conformance

test_smallbleu_conforms = conformance(
    bleu, profile="papineni", examples=100,
    capabilities={"weights": "any", "max_order": 12, "statistics": True, "lowercase": True},
)
