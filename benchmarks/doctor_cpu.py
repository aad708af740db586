"""`doctor --hyp --ref` (the readings table) against one `sacrebleu` CLI run on the same files (issue 39): CPU and
peak memory of whole processes, each command in turn, round after round, so that every ratio is of one run.

    zcat ../shared/data/wmt17-en-de/newstest2017.PROMT-Rule-based.4735.en-de.txt.gz > /tmp/hyp.txt
    zcat ../shared/data/wmt17-en-de/newstest2017.reference.en-de.txt.gz > /tmp/ref.txt
    git worktree add --detach /tmp/before main       # the code before (any checkout of bleu-oracle)
    .venv/bin/python benchmarks/doctor_cpu.py --hyp /tmp/hyp.txt --ref /tmp/ref.txt --before /tmp/before --rounds 5

Commands: doctor of each checkout given (`--before`, this one), this one's with BLEU_ORACLE_KERNEL=0 (the counting
kernel off), and `sacrebleu REF -i HYP` (the sacrebleu next to this interpreter). CPU is user + system time of the
child (`os.wait4`), peak memory its maximum resident set; one warm-up run of each first, medians over the rounds,
and the load average at start and end (the machine's other work moves the absolute figures, not the ratios).

`--pycache DIR`: doctor's processes run with their bytecode cached in DIR (PYTHONPYCACHEPREFIX, and
PYTHONDONTWRITEBYTECODE unset; the warm-up writes it), as an installed package and sacrebleu's site-packages have it;
without it, where PYTHONDONTWRITEBYTECODE is set, each doctor process compiles every oracle module it imports."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(argv: list, cwd: Path, env: dict) -> tuple[float, float]:
    """(CPU seconds, peak MiB) of one run of `argv`."""
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {process.stderr.read().decode()[-500:] if process.stderr else ''}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def commands(args: argparse.Namespace) -> dict:
    def doctor(tree: Path, **env: str) -> tuple:
        argv = [sys.executable, "-m", "oracle", "doctor", "--hyp", args.hyp, "--ref", args.ref]
        environment = dict(os.environ, PYTHONPATH=str(tree), **env)
        if args.pycache:
            environment.pop("PYTHONDONTWRITEBYTECODE", None)
            environment["PYTHONPYCACHEPREFIX"] = str(Path(args.pycache).resolve())
        return argv, tree, environment

    out = {f"doctor, {tree}": doctor(Path(tree).resolve()) for tree in args.before}
    out["doctor, this checkout"] = doctor(ROOT)
    out["doctor, this checkout, BLEU_ORACLE_KERNEL=0"] = doctor(ROOT, BLEU_ORACLE_KERNEL="0")
    sacrebleu = Path(sys.executable).with_name("sacrebleu")
    out["sacrebleu"] = ([str(sacrebleu), args.ref, "-i", args.hyp], ROOT, dict(os.environ))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hyp", required=True)
    parser.add_argument("--ref", required=True)
    parser.add_argument("--before", action="append", default=[], help="another checkout to run (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pycache", help="cache doctor's bytecode in this directory (see above)")
    args = parser.parse_args()
    runs = commands(args)
    print(f"start {time.strftime('%H:%M:%S')} UTC, load average {os.getloadavg()}")
    for argv, cwd, env in runs.values():
        measure(argv, cwd, env)
    cpu: dict[str, list] = {name: [] for name in runs}
    peak: dict[str, list] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (argv, cwd, env) in runs.items():
            seconds, mib = measure(argv, cwd, env)
            cpu[name].append(seconds)
            peak[name].append(mib)
    print(f"end {time.strftime('%H:%M:%S')} UTC, load average {os.getloadavg()}")
    base_cpu, base_peak = statistics.median(cpu["sacrebleu"]), statistics.median(peak["sacrebleu"])
    for name in runs:
        ratios = [a / b for a, b in zip(cpu[name], cpu["sacrebleu"], strict=True)]
        seconds, mib = statistics.median(cpu[name]), statistics.median(peak[name])
        print(f"{name}: CPU {seconds:.2f} s, {seconds / base_cpu:.2f}x sacrebleu's (per round {min(ratios):.2f} to "
              f"{max(ratios):.2f}); peak {mib:.1f} MiB, {mib / base_peak:.2f}x")


if __name__ == "__main__":
    main()
