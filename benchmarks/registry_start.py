"""What finding the implementations costs at start (issue 38), for this checkout and the code before a change.

    .venv/bin/python benchmarks/registry_start.py --before /tmp/before --rounds 20

Per round, each checkout in turn (alternately, so that both meet the same load), fresh processes of this Python:

- `python -m oracle serve --list` (every name: the registry and the verb's start-up);
- `python -m oracle check --impl sacrebleu --no-cases --examples 1 --quiet --allow-empty --report DIR`: a check's
  start-up and one example, its `serve` child included (what resolving a name costs on the common path);
- `python -c 'import oracle.adapters.registry'`;
- `python -X importtime -c 'import oracle.adapters.registry'`: the registry's cumulative import time, as
  `-X importtime` reports it (microseconds, in that process).

Wall time, and CPU (user + system of the process and the children it waited for, `resource.RUSAGE_CHILDREN`):
medians over the rounds, and the ratio this checkout / before. The first round of each is a warm-up (byte-code
caches written: PYTHONDONTWRITEBYTECODE, which this machine sets, is removed from the processes' environment,
`_trees.environment`) and not counted. The machine is shared: the load (`os.getloadavg`) is printed before and
after, and only same-run ratios compare.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import environment  # noqa: E402


def commands(report: str) -> dict[str, list[str]]:
    return {
        "serve --list": ["-m", "oracle", "serve", "--list"],
        "check --impl sacrebleu, 1 example": ["-m", "oracle", "check", "--impl", "sacrebleu", "--no-cases",
                                              "--examples", "1", "--quiet", "--allow-empty", "--report", report],
        "import oracle.adapters.registry": ["-c", "import oracle.adapters.registry"],
    }


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(checkout: Path, argv: list[str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one fresh process of `argv` run in `checkout`."""
    cpu, start = cpu_of_children(), time.perf_counter()
    subprocess.run([sys.executable, *argv], cwd=checkout, env=environment(checkout),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=300)
    return (time.perf_counter() - start) * 1000, (cpu_of_children() - cpu) * 1000


def registry_import_us(checkout: Path) -> int:
    """The registry's cumulative import time (us), as `-X importtime` reports it."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import oracle.adapters.registry"],
                          cwd=checkout, env=environment(checkout), capture_output=True,
                          text=True, check=True, timeout=300)
    for line in done.stderr.splitlines():
        _, cumulative, module = line.split("|")
        if module.strip() == "oracle.adapters.registry":
            return int(cumulative)
    raise SystemExit(f"{checkout}: -X importtime did not report oracle.adapters.registry")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "this checkout": ROOT}
    print(f"load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as report:
        measured = commands(report)
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        imports: dict[str, list[int]] = {}
        for round_number in range(args.rounds + 1):
            for label, checkout in checkouts.items():
                for name, argv in measured.items():
                    taken = timed(checkout, argv)
                    if round_number:
                        figures.setdefault((name, label), []).append(taken)
                us = registry_import_us(checkout)
                if round_number:
                    imports.setdefault(label, []).append(us)
    print(f"load after: {os.getloadavg()}")
    print(f"medians of {args.rounds} rounds (wall ms / CPU ms)")
    for name in measured:
        before = figures[(name, "before")]
        after = figures[(name, "this checkout")]
        walls = [statistics.median(wall for wall, _ in runs) for runs in (before, after)]
        cpus = [statistics.median(cpu for _, cpu in runs) for runs in (before, after)]
        print(f"{name:36} before {walls[0]:7.1f} / {cpus[0]:7.1f}   this {walls[1]:7.1f} / {cpus[1]:7.1f}   "
              f"ratio wall {walls[1] / walls[0]:.2f}, CPU {cpus[1] / cpus[0]:.2f}")
    before_us, after_us = statistics.median(imports["before"]), statistics.median(imports["this checkout"])
    print(f"{'-X importtime oracle.adapters.registry':36} before {before_us / 1000:7.1f} ms   this "
          f"{after_us / 1000:7.1f} ms   ratio {after_us / before_us:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
