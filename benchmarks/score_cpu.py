"""`score` against one `sacrebleu` CLI run on the same files (issue 39): wall time and CPU of whole processes, each
command in turn, round after round, so that every ratio is of one run.

    D=../shared/data/wmt17-en-de; mkdir -p /tmp/score
    zcat $D/newstest2017.online-B.0.en-de.txt.gz > /tmp/score/hyp.txt
    for s in reference uedin-nmt.4722 KIT.4950 LMU-nmt-reranked.4934; do
        zcat $D/newstest2017.$s.en-de.txt.gz > /tmp/score/$s.txt; done       # the 4-reference setting of bench.py
    git archive BASE | tar -x -C /tmp/before                                # the code before (any checkout)
    .venv/bin/python benchmarks/score_cpu.py --hyp /tmp/score/hyp.txt --ref /tmp/score/reference.txt \\
        --ref /tmp/score/uedin-nmt.4722.txt --ref /tmp/score/KIT.4950.txt --ref /tmp/score/LMU-nmt-reranked.4934.txt \\
        --before /tmp/before --rounds 5

Two settings, each like for like: `--tokenize none` (the text already split on whitespace: `bleu-oracle score`'s
default profile, papineni, against `sacrebleu --tokenize none --smooth-method none`, the row of bench.py's table) and
13a (`score --profile sacrebleu` against `sacrebleu`'s defaults). Commands: `score --json` of each checkout given
(`--before`, this one), this one's with BLEU_ORACLE_KERNEL=0 (the counting kernel off, as where it was not built),
and the sacrebleu CLI next to this interpreter (`-b -w 12`). Wall time (`time.perf_counter` around the child), CPU
(user + system of the child, `os.wait4`); one warm-up run of each first, medians over the rounds, the load average at
start and end. Every command's score must agree with sacrebleu's printed one to 1e-11 (12 decimals printed) and
every bleu-oracle command's JSON with the first one's, byte for byte. The checkouts' processes may write byte-code
caches (PYTHONDONTWRITEBYTECODE, which this machine sets, removed: `_trees.environment`), as sacrebleu's
site-packages have theirs; the warm-up writes them."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _trees import environment  # noqa: E402


def measure(argv: list, cwd: Path, env: dict) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one run of `argv` (its output to files: the parent reaps the child
    itself with `os.wait4`, which returns the child's resource use)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = status  # reaped here: Popen must not wait for it again
        out.seek(0)
        err.seek(0)
        if status != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {err.read().decode()[-500:]}")
        return wall, usage.ru_utime + usage.ru_stime, out.read().decode()


def commands(args: argparse.Namespace, setting: str) -> dict:
    profile = [] if setting == "none" else ["--profile", "sacrebleu"]
    refs = [x for ref in args.ref for x in ("--ref", ref)]

    def score(tree: Path, **env: str) -> tuple:
        argv = [sys.executable, "-m", "oracle", "score", "--hyp", args.hyp, *refs, *profile, "--json"]
        # byte-code caches allowed (`_trees.environment`), as sacrebleu's site-packages have them: the warm-up run
        # writes each tree's, so no tree is measured compiling what another script left compiled in the other
        return argv, tree, environment(tree, **env)

    out = {f"score, {tree}": score(Path(tree).resolve()) for tree in args.before}
    out["score, this checkout"] = score(ROOT)
    out["score, this checkout, BLEU_ORACLE_KERNEL=0"] = score(ROOT, BLEU_ORACLE_KERNEL="0")
    sacrebleu = Path(sys.executable).with_name("sacrebleu")
    options = ["--tokenize", "none", "--smooth-method", "none"] if setting == "none" else []
    out["sacrebleu"] = ([str(sacrebleu), *args.ref, "-i", args.hyp, *options, "-b", "-w", "12"], ROOT,
                        dict(os.environ))
    return out


def run_setting(args: argparse.Namespace, setting: str) -> None:
    runs = commands(args, setting)
    print(f"\n## {setting}: start {time.strftime('%H:%M:%S')} UTC, load average {os.getloadavg()}")
    outputs = {name: measure(argv, cwd, env)[2] for name, (argv, cwd, env) in runs.items()}  # warm-up
    wall: dict[str, list] = {name: [] for name in runs}
    cpu: dict[str, list] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (argv, cwd, env) in runs.items():
            seconds, used, _ = measure(argv, cwd, env)
            wall[name].append(seconds)
            cpu[name].append(used)
    print(f"end {time.strftime('%H:%M:%S')} UTC, load average {os.getloadavg()}")
    theirs = float(outputs["sacrebleu"].strip())
    ours = [text for name, text in outputs.items() if name != "sacrebleu"]
    if any(text != ours[0] for text in ours) or abs(json.loads(ours[0])["score_100"] - theirs) > 1e-11:
        raise SystemExit(f"the scores differ: {theirs} and {[json.loads(t)['score_100'] for t in ours]}")
    print(f"scores: every bleu-oracle command {json.loads(ours[0])['score_100']!r} (the same JSON), sacrebleu {theirs}")
    for name in runs:
        wall_ratios = [a / b for a, b in zip(wall[name], wall["sacrebleu"], strict=True)]
        cpu_ratios = [a / b for a, b in zip(cpu[name], cpu["sacrebleu"], strict=True)]
        print(f"{name}: wall {statistics.median(wall[name]):.3f} s, {statistics.median(wall_ratios):.2f}x sacrebleu's "
              f"(per round {min(wall_ratios):.2f} to {max(wall_ratios):.2f}); "
              f"CPU {statistics.median(cpu[name]):.3f} s, {statistics.median(cpu_ratios):.2f}x "
              f"(per round {min(cpu_ratios):.2f} to {max(cpu_ratios):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hyp", required=True)
    parser.add_argument("--ref", required=True, action="append")
    parser.add_argument("--before", action="append", default=[], help="another checkout to run (repeatable)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--settings", nargs="+", choices=["none", "13a"], default=["none", "13a"])
    args = parser.parse_args()
    for setting in args.settings:
        run_setting(args, setting)


if __name__ == "__main__":
    main()
