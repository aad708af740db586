"""The oracle's expectation with and without the counting kernel, in process (issue 39): what the kernel saves per
request of the search, apart from everything else a `check` run does.

    .venv/bin/python benchmarks/expectation_kernel.py --examples 1000 --rounds 5

The inputs are the search's own for sacrebleu's declared capabilities at seed 0: examples 0 to N-1 and their text
companions (`oracle.harness.generate`), each judged as `check --impl sacrebleu` judges it, by
`oracle_expected(request, "sacrebleu")` (counting, then exact scoring). Each round computes every expectation with
the kernel, then with it out of use (as where it was not built), in one process; thread CPU (`time.thread_time`),
medians over the rounds, the load average at start and end. Both ways must give the same expectations."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from unittest import mock

from oracle import counting
from oracle.adapters.sacrebleu_adapter import SacrebleuImplementation
from oracle.diagnose.expect import oracle_expected
from oracle.harness.generate import companion_rng, companions, example_request, text_request
from oracle.models.protocol import Capabilities


def search_requests(examples: int) -> list:
    capabilities = Capabilities.model_validate(SacrebleuImplementation.capabilities)
    requests = []
    for index in range(examples):
        requests.append(example_request(0, index, capabilities, uniform_only=True))
        if "text" in companions(index, capabilities):
            requests.append(text_request(companion_rng(0, index, "text"), capabilities, uniform_only=True))
    return requests


def expectations(requests: list) -> tuple[float, list]:
    start = time.thread_time()
    out = [oracle_expected(request, "sacrebleu") for request in requests]
    return time.thread_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not counting.KERNEL:
        raise SystemExit("the counting kernel is not in use here (not built, or BLEU_ORACLE_KERNEL=0)")
    requests = search_requests(args.examples)
    print(f"{len(requests)} requests; start {time.strftime('%H:%M:%S')} UTC, load average {os.getloadavg()}")
    kernel, literal = [], []
    for _ in range(args.rounds):
        seconds, with_kernel = expectations(requests)
        kernel.append(seconds)
        with mock.patch.object(counting, "_KERNEL", None):
            seconds, without = expectations(requests)
        literal.append(seconds)
        if repr(with_kernel) != repr(without):
            raise SystemExit("the expectations differ with and without the kernel")
    print(f"end {time.strftime('%H:%M:%S')} UTC, load average {os.getloadavg()}")
    for name, seconds in (("with the kernel", kernel), ("literal counting", literal)):
        print(f"{name}: {statistics.median(seconds):.3f} s, {statistics.median(seconds) / len(requests) * 1000:.3f} ms "
              f"per request (rounds: {', '.join(f'{s:.3f}' for s in seconds)})")
    ratios = [a / b for a, b in zip(kernel, literal, strict=True)]
    print(f"kernel / literal: {statistics.median(ratios):.2f}x (per round {min(ratios):.2f} to {max(ratios):.2f})")


if __name__ == "__main__":
    main()
