"""Side-by-side benchmarks: the oracle against the libraries it judges, in one run.

    .venv/bin/python benchmarks/bench.py            # everything, on WMT17 (../shared/data)
    .venv/bin/python benchmarks/bench.py --quick    # a tiny run (what the test suite does)
    .venv/bin/python benchmarks/bench.py --skip scaling in-process commands startup serve check   # memory only
    .venv/bin/python benchmarks/bench.py --skip scaling in-process commands startup serve check memory  # doctor only

Every comparison runs the contenders alternately on the same inputs and reports
medians and ratios measured in the same run, so machine load affects both sides.
Nothing here asserts a time: the figures are for people (README, performance).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wmt17-en-de"
sys.path.insert(0, str(ROOT))

import oracle  # noqa: E402
import oracle.formulas.bleu  # noqa: E402
import oracle.textio  # noqa: E402
from oracle.reports.staging import STAGING_PREFIX  # noqa: E402

HYP_SYSTEM = "newstest2017.online-B.0.en-de.txt.gz"
REFERENCE = "newstest2017.reference.en-de.txt.gz"
PSEUDO_REFERENCES = [  # other systems' outputs as extra references
    "newstest2017.uedin-nmt.4722.en-de.txt.gz",
    "newstest2017.KIT.4950.en-de.txt.gz",
    "newstest2017.LMU-nmt-reranked.4934.en-de.txt.gz",
]


def read_lines(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as handle:
        return [line[:-1] if line.endswith("\n") else line for line in handle]


def tiny_corpus():
    hyp = ["the cat sat on the mat", "a quick brown fox jumps", "hello world again and again"] * 20
    refs = [["the cat sat on a mat", "a fast brown fox jumped", "hello world again and once more"] * 20,
            ["there is a cat on the mat", "the quick brown fox jumps", "hello again world"] * 20]
    return hyp, refs


def load_corpus(quick):
    if quick or not DATA.is_dir():
        if not quick:
            print(f"note: {DATA} is absent; using a tiny synthetic corpus", file=sys.stderr)
        return tiny_corpus()
    hyp = read_lines(DATA / HYP_SYSTEM)
    refs = [read_lines(DATA / name) for name in [REFERENCE, *PSEUDO_REFERENCES]]
    return hyp, refs


def alternate(contenders, repeats):
    """Run each contender once per round, round after round; return {name: [seconds]} and results."""
    times = {name: [] for name in contenders}
    results = {}
    for _ in range(repeats):
        for name, fn in contenders.items():
            start = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
    return times, results


def relative(a, b):
    return abs(a - b) / abs(b) if b else abs(a - b)


def report(title, times, baseline_names, rows):
    print(f"\n## {title}")
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    for name, median in medians.items():
        ratios = ", ".join(
            f"{medians[name] / medians[b]:.2f}x {b}" for b in baseline_names if b != name and b in medians
        )
        print(f"  {name:<28} median {median * 1000:9.1f} ms   {ratios}")
    rows.append({"section": title, "medians_s": medians})
    return medians


def in_process_contenders(hyp, streams):
    """Each corpus BLEU scorer on `hyp` against the reference `streams`, as a call returning 0-100. Like for
    like: sacrebleu takes strings (and splits them), nltk takes token lists."""
    from sacrebleu.metrics import BLEU

    try:
        from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
    except ImportError:  # pragma: no cover
        nltk_corpus_bleu = None
    hyp_tokens = [h.split() for h in hyp]
    ref_tokens = [[stream[i].split() for stream in streams] for i in range(len(hyp))]
    sacre = BLEU(tokenize="none", smooth_method="none", force=True)
    contenders = {
        "oracle, from strings": lambda: oracle.corpus_bleu(
            (h.split() for h in hyp), ([s[i].split() for s in streams] for i in range(len(hyp)))
        ).score_float * 100,
        "oracle, from tokens": lambda: oracle.corpus_bleu(hyp_tokens, ref_tokens).score_float * 100,
        "sacrebleu corpus_score": lambda: sacre.corpus_score(hyp, streams).score,
    }
    if nltk_corpus_bleu is not None:
        contenders["nltk corpus_bleu"] = lambda: nltk_corpus_bleu(ref_tokens, hyp_tokens) * 100
    return contenders


def bench_in_process(hyp, refs, repeats, rows):
    for n_refs in (1, len(refs)):
        contenders = in_process_contenders(hyp, refs[:n_refs])
        times, results = alternate(contenders, repeats)
        report(f"in process, corpus BLEU, {n_refs} reference(s), {len(hyp)} segments", times,
               ["sacrebleu corpus_score", "nltk corpus_bleu"], rows)
        o, s = results["oracle, from strings"], results["sacrebleu corpus_score"]
        print(f"  scores: oracle {o:.12f} sacrebleu {s:.12f} relative difference {relative(o, s):.2e}"
              + (f" nltk {results['nltk corpus_bleu']:.12f}" if "nltk corpus_bleu" in results else ""))



def bench_commands(hyp, refs, repeats, rows, workdir):
    hyp_file = workdir / "hyp.txt"
    hyp_file.write_text("\n".join(hyp) + "\n", encoding="utf-8")
    ref_files = []
    for i, stream in enumerate(refs):
        path = workdir / f"ref{i}.txt"
        path.write_text("\n".join(stream) + "\n", encoding="utf-8")
        ref_files.append(path)
    bleu_oracle = [sys.executable, "-m", "oracle", "score", "--hyp", str(hyp_file), "--json"]
    for path in ref_files:
        bleu_oracle += ["--ref", str(path)]
    sacrebleu_cmd = shutil.which("sacrebleu", path=str(Path(sys.executable).parent)) or shutil.which("sacrebleu")
    contenders = {"bleu-oracle score": bleu_oracle}
    if sacrebleu_cmd:
        contenders["sacrebleu command"] = [sacrebleu_cmd, *map(str, ref_files), "-i", str(hyp_file),
                                           "--tokenize", "none", "--smooth-method", "none", "-b", "-w", "12"]
    outputs = {}

    def run(cmd, name):
        def go():
            out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
            outputs[name] = out
        return go

    times, _ = alternate({name: run(cmd, name) for name, cmd in contenders.items()}, repeats)
    report(f"whole commands, {len(ref_files)} reference(s)", times, ["sacrebleu command"], rows)
    ours = json.loads(outputs["bleu-oracle score"])["score"] * 100
    if "sacrebleu command" in outputs:
        theirs = float(outputs["sacrebleu command"].strip())
        print(f"  scores: bleu-oracle {ours:.12f} sacrebleu {theirs:.12f} "
              f"relative difference {relative(ours, theirs):.2e}")
    return hyp_file, ref_files


def bench_startup(repeats, rows, workdir):
    """Start-up: `bleu-oracle --help` and `score` on a one-line corpus, against `sacrebleu --help`
    (a verb imports only its own module: score pays for neither the harness, pydantic nor YAML)."""
    one = workdir / "one.txt"
    one.write_text("a b c d\n", encoding="utf-8")
    contenders = {
        "bleu-oracle --help": [sys.executable, "-m", "oracle", "--help"],
        "bleu-oracle score (1 line)": [sys.executable, "-m", "oracle", "score", "--hyp", str(one), "--ref", str(one)],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    sacrebleu_cmd = shutil.which("sacrebleu", path=str(Path(sys.executable).parent)) or shutil.which("sacrebleu")
    if sacrebleu_cmd:
        contenders["sacrebleu --help"] = [sacrebleu_cmd, "--help"]

    def run(cmd):
        return lambda: subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)

    times, _ = alternate({name: run(cmd) for name, cmd in contenders.items()}, max(repeats, 5))
    report("start-up", times, ["python -c pass"] + (["sacrebleu --help"] if sacrebleu_cmd else []), rows)


def bench_serve(requests, rows):
    """Single-sentence score requests per second through `serve --impl oracle`."""
    proc = subprocess.Popen([sys.executable, "-m", "oracle", "serve", "--impl", "oracle"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    try:
        proc.stdin.write(json.dumps({"cmd": "start", "protocol": 1}) + "\n")
        proc.stdin.flush()
        if not proc.stdout.readline():
            print("\n## serve: could not start `serve --impl oracle`:", proc.stderr.read()[:500])
            return
        request = {"cmd": "score", "level": "sentence", "weights": [0.25] * 4,
                   "smoothing": {"method": "exp"}, "lowercase": False,
                   "segments": [{"hypothesis": "the cat sat on the mat today".split(),
                                 "references": ["the cat is on the mat".split(),
                                                "there is a cat on the mat".split()]}]}
        start = time.perf_counter()
        for seq in range(requests):
            request["seq"] = seq
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            reply = json.loads(proc.stdout.readline())
            if reply.get("seq") != seq or "score" not in reply:
                print(f"\n## serve: unexpected reply {reply}")
                return
        elapsed = time.perf_counter() - start
        proc.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
        proc.stdin.flush()
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    print(f"\n## protocol throughput\n  serve --impl oracle: {requests / elapsed:,.0f} sentence requests/s "
          f"({requests} requests, one at a time, request-reply)")
    rows.append({"section": "serve", "requests_per_s": requests / elapsed})


def bench_check(examples, rows, impl="sacrebleu", command=None, label=None):
    """Wall time of `check` (cases + a differential search of `examples` inputs)."""
    with tempfile.TemporaryDirectory() as report_dir:
        cmd = [sys.executable, "-m", "oracle", "check", "--examples", str(examples), "--report", report_dir]
        cmd += ["--command", command] if command else ["--impl", impl]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        print(f"\n## check {label or impl}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
        return
    print(f"\n## check {label or impl} (--examples {examples})\n  {elapsed:.1f} s wall, "
          f"{examples / elapsed:,.1f} examples/s including the cases (exit {done.returncode})")
    rows.append({"section": f"check {label or impl}", "seconds": elapsed, "examples": examples})


def bench_search(examples, rows, jobs=1):
    """The differential search's throughput: `check --no-cases --examples N` against the trivial (but
    correct) implementation, so nothing fails and nothing is shrunk; examples/s by the run's own clock
    (the footer's duration, start-up excluded) and by the wall clock."""
    trivial = f"{sys.executable} {ROOT / 'benchmarks' / 'trivial_impl.py'}"
    with tempfile.TemporaryDirectory() as report_dir:
        cmd = [sys.executable, "-m", "oracle", "check", "--no-cases", "--examples", str(examples),
               "--command", trivial, "--report", report_dir, "--quiet", "--jobs", str(jobs)]
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        elapsed = time.perf_counter() - start
        lines = Path(report_dir, "results.jsonl").read_text(encoding="utf-8").splitlines()
    footer = json.loads(lines[-1]) if lines else {}
    if done.returncode != 0 or footer.get("type") != "footer":
        print(f"\n## search: exit {done.returncode}: {done.stderr.strip()[-400:]}")
        return
    relations = sum(1 for line in lines if '"kind": "metamorphic"' in line)
    print(f"\n## search throughput (check --no-cases --examples {examples} --jobs {jobs}, trivial implementation)\n"
          f"  {examples / footer['duration']:,.0f} examples/s by the run's clock ({footer['duration']:.2f} s), "
          f"{examples / elapsed:,.0f} by the wall clock ({elapsed:.2f} s); {relations} metamorphic relations checked")
    rows.append(
        {
            "section": "search",
            "examples": examples,
            "jobs": jobs,
            "seconds": footer["duration"],
            "wall": elapsed,
            "examples_per_s": examples / footer["duration"],
            "relations": relations,
        }
    )


#: The implementations the runner's CPU is measured against: the project's fast float implementation (a protocol
#: v1 server in plain floats whose own cost is small) and the trivial one (the exact oracle in a loop).
#: (paths relative to the checkout measured)
RUNNER_IMPLEMENTATIONS = {
    "fast float (plantedbleu clean)": ["tests/fakes/plantedbleu.py", "clean"],
    "trivial (exact oracle)": ["benchmarks/trivial_impl.py"],
}


def metered_search(examples, jobs, implementation, *, seed=0, root=ROOT, search_cache=None):
    """One `check --no-cases --examples N --jobs J` of the checkout at `root` (its runner, its implementation
    script) with every Python process metered (benchmarks/cpumeter): (wall seconds, the runner's search CPU,
    its per-kind thread CPU {kind: [examples, seconds]}, the implementation processes' CPU). `search_cache`: the
    search cache's directory (BLEU_ORACLE_SEARCH_CACHE; an empty one: a cold run), else none is used."""
    with tempfile.TemporaryDirectory() as report_dir, tempfile.TemporaryDirectory() as meter_dir:
        command = shlex.join([sys.executable, str(Path(root) / implementation[0]), *implementation[1:]])
        cmd = [sys.executable, "-m", "oracle", "check", "--no-cases", "--examples", str(examples), "--seed", str(seed),
               "--command", command, "--report", report_dir, "--quiet", "--jobs", str(jobs)]
        if search_cache is None and (Path(root) / "oracle" / "harness" / "searchcache.py").is_file():
            cmd.append("--no-search-cache")
        # the checkout measured comes first: the meter imports the harness before `-m oracle` puts cwd on the path
        env = {**os.environ, "BLEU_ORACLE_CPU_METER": meter_dir,
               "PYTHONPATH": os.pathsep.join([str(ROOT / "benchmarks" / "cpumeter"), str(root)]),
               **({"BLEU_ORACLE_SEARCH_CACHE": str(search_cache)} if search_cache is not None else {})}
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=root, env=env)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise RuntimeError(f"check exit {done.returncode}: {done.stderr.strip()[-400:]}")
        measured = [json.loads(path.read_text(encoding="utf-8")) for path in Path(meter_dir).glob("*.json")]
    runners = [m for m in measured if m["searches"]]
    kinds = {kind: [sum(m[kind][0] for m in runners), sum(m[kind][1] for m in runners)]
             for kind in ("ordinary", "expensive")}
    implementation_cpu = sum(m["process_cpu"] for m in measured if not _is_search_process(m["argv"]))
    return wall, sum(m["search_cpu"] for m in runners), kinds, implementation_cpu


def _is_search_process(argv):
    return "-m" in argv and argv[argv.index("-m") + 1:argv.index("-m") + 2] in (["oracle"],
                                                                                ["oracle.harness.worker_process"])


def bench_runner_cpu(examples, rows, repeats=1, before=None):
    """The runner's CPU per example (process CPU of `check` and its workers from the search's start to its end,
    which load does not inflate; start-up, handshake and cases excluded), for the default mix and for the
    ordinary inputs alone (thread CPU per example), and examples/s by the wall clock, against the fast float and
    the trivial implementation with --jobs 1 and --jobs 2, side by side in one run (medians over `repeats`).
    `before`: another checkout (the code before a change), measured alternately with this one. This checkout runs
    twice in each round: "cold", with an empty search cache (`oracle.harness.searchcache`), then "warm", with the
    cache the cold run wrote (CI's steady state: the same seed every time)."""
    print(f"\n## the runner's CPU per example (check --no-cases --examples {examples}, seed 0, medians of {repeats})")
    print(f"  {'code':<7} {'implementation':<32} {'jobs':>4} {'runner ms/ex':>12} {'ordinary':>9} {'expensive':>10} "
          f"{'impl ms/ex':>10} {'ex/s wall':>10}")
    codes = (("cold", ROOT), ("warm", ROOT)) if before is None else (("before", Path(before)), ("cold", ROOT),
                                                                      ("warm", ROOT))
    for name, implementation in RUNNER_IMPLEMENTATIONS.items():
        for jobs in (1, 2):
            measured = {code: [] for code, _ in codes}
            for _ in range(repeats):  # alternately: load on the machine affects both sides
                with tempfile.TemporaryDirectory() as cache:
                    for code, root in codes:
                        measured[code].append(metered_search(examples, jobs, implementation, root=root,
                                                             search_cache=None if code == "before" else cache))
            for code, runs in measured.items():
                _print_runner_cpu(rows, code, name, jobs, examples, runs)


def _print_runner_cpu(rows, code, name, jobs, examples, runs):
    """One row of the runner's CPU table: medians over `runs` (metered_search's results)."""
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    impl_cpu = statistics.median(r[3] for r in runs)
    per_kind = {kind: statistics.median(r[2][kind][1] / max(r[2][kind][0], 1) for r in runs)
                for kind in ("ordinary", "expensive")}
    print(f"  {code:<7} {name:<32} {jobs:>4} {cpu / examples * 1000:12.3f} {per_kind['ordinary'] * 1000:9.3f} "
          f"{per_kind['expensive'] * 1000:10.2f} {impl_cpu / examples * 1000:10.3f} {examples / wall:10.0f}")
    rows.append({"section": "runner cpu", "code": code, "implementation": name, "jobs": jobs, "examples": examples,
                 "runner_cpu_ms_per_example": cpu / examples * 1000,
                 "ordinary_ms": per_kind["ordinary"] * 1000, "expensive_ms": per_kind["expensive"] * 1000,
                 "implementation_cpu_ms_per_example": impl_cpu / examples * 1000,
                 "examples_per_s_wall": examples / wall})


def _failing(lines):
    return any(b'"type":"record"' in line and (b'"outcome":"fail"' in line or b'"outcome":"error"' in line)
               for line in lines)


def time_to_detection(bug, *, poll=0.02):
    """`check --command "plantedbleu.py BUG"` with the defaults: seconds from the command's start to its first
    failing record in results.jsonl (read as it grows in the run's staging directory, each complete line once),
    and to the end of the run; None for the first when nothing failed."""
    with tempfile.TemporaryDirectory() as report_dir:
        command = shlex.join([sys.executable, str(ROOT / "tests" / "fakes" / "plantedbleu.py"), bug])
        cmd = [sys.executable, "-m", "oracle", "check", "--command", command, "--report", report_dir, "--quiet"]
        start = time.perf_counter()
        first = results = None
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        read = 0
        while process.poll() is None:
            # the run writes into a staging directory inside the report directory, published when it ends
            results = results or next(Path(report_dir).glob(f"{STAGING_PREFIX}*/results.jsonl"), None)
            if first is None and results is not None and results.exists():
                with contextlib.suppress(OSError):  # (published meanwhile)
                    data = results.read_bytes()[read:]
                    complete = data[:data.rfind(b"\n") + 1]
                    read += len(complete)
                    first = time.perf_counter() - start if _failing(complete.splitlines()) else None
            time.sleep(poll)
        end = time.perf_counter() - start
        published = Path(report_dir, "results.jsonl")
        if first is None and published.exists() and _failing(published.read_bytes().splitlines()):
            first = end  # its first failing record was written in the last moments: at most the end
    return first, end, process.returncode


def bench_detection(rows, bugs=None):
    """Time to detection per planted bug (tests/fakes/plantedbleu.py BUGS), `check` with its defaults."""
    sys.path.insert(0, str(ROOT / "tests" / "fakes"))
    from plantedbleu import BUGS

    print("\n## time to detection per planted bug (check --command 'plantedbleu.py BUG', defaults)")
    firsts, ends, missed = [], [], []
    for bug in bugs or BUGS:
        first, end, code = time_to_detection(bug)
        print(f"  {bug:<28} first failing record {'-' if first is None else f'{first:6.2f} s'}, end {end:6.2f} s "
              f"(exit {code})")
        ends.append(end)
        if first is None:
            missed.append(bug)
        else:
            firsts.append(first)
        rows.append({"section": "detection", "bug": bug, "first_failure_s": first, "end_s": end, "exit": code})
    if firsts:
        print(f"  first failing record: median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s; "
              f"end of run: median {statistics.median(ends):.2f} s, max {max(ends):.2f} s; "
              f"{len(firsts)} of {len(firsts) + len(missed)} caught"
              + (f" (missed: {', '.join(missed)})" if missed else ""))


def bench_search_parts(examples, rows):
    """Where a search example's time goes in the runner, in this process (no implementation, no
    transport): drawing the input, the oracle's exact expectation, the coverage features, the wire
    and record JSON. Split between the ordinary foci and the two expensive ones (a 65,600-token run,
    corpora of hundreds or thousands of segments), so a throughput figure can be read against what
    the exact oracle alone costs on the same inputs: the runner cannot be faster than this."""
    from oracle.diagnose.expect import case_expected
    from oracle.harness.coverage import features
    from oracle.harness.generate import EXPENSIVE_FOCI, FOCI, example_request

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from trivial_impl import CAPABILITIES  # the inputs the search sends it

    from oracle.models.protocol import Capabilities
    capabilities = Capabilities.from_json(CAPABILITIES)
    parts = ("draw", "oracle", "coverage", "json")
    totals = {kind: dict.fromkeys(parts, 0.0) for kind in ("ordinary", "expensive")}
    counts = {"ordinary": 0, "expensive": 0}
    for index in range(examples):
        focus = FOCI[index % len(FOCI)]
        kind = "expensive" if focus in EXPENSIVE_FOCI and not (index // len(FOCI)) % 4 else "ordinary"
        t0 = time.perf_counter()
        request = example_request(0, index, capabilities)
        t1 = time.perf_counter()
        expected = case_expected(request, "papineni")
        t2 = time.perf_counter()
        features(request, None if expected.rejected else expected.statistics)
        t3 = time.perf_counter()
        json.dumps(request.to_json(), ensure_ascii=False)
        t4 = time.perf_counter()
        for part, seconds in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            totals[kind][part] += seconds
        counts[kind] += 1
    print(f"\n## where a search example's time goes (seed 0, {examples} examples, in process, no implementation)")
    whole = sum(sum(t.values()) for t in totals.values())
    for kind, parts_seconds in totals.items():
        n = counts[kind]
        if not n:
            continue
        spent = sum(parts_seconds.values())
        shown = ", ".join(f"{part} {seconds / n * 1000:.2f}" for part, seconds in parts_seconds.items())
        print(f"  {kind:9s} {n:5d} examples: {spent / n * 1000:6.2f} ms each ({shown} ms); "
              f"{spent / whole:.0%} of the time")
        rows.append({"section": f"search parts {kind}", "examples": n, "seconds": spent,
                     **{f"{part}_ms": seconds / n * 1000 for part, seconds in parts_seconds.items()}})
    print(f"  all: {examples / whole:,.0f} examples/s before any transport, judging or record writing")
    rows.append({"section": "search parts", "examples": examples, "seconds": whole, "examples_per_s": examples / whole})


#: Runs `bleu-oracle` in this interpreter and prints its own peak RSS (KiB) last on stderr: the runner's
#: memory without the implementation's (a child's peak from wait4 includes its waited-for children).
SELF_PEAK = ("import resource, sys\nfrom oracle.cli import main\ntry:\n    code = main(sys.argv[1:])\n"
             "finally:\n    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
             "sys.exit(code)")


def bench_doctor(hyp, refs, repeats, rows, workdir):
    """`doctor`'s readings table (every profile x tokenizer x case: 64 readings, with the layout lint) on the
    first reference only (WMT17: 3,004 segments, 1 reference), side by side with the same 64 readings each
    scored on its own by the oracle (tokenize, count, score: once, it is slow), one reading scored alone, and
    the whole command in a fresh process (the target: at most 10 s); plus the search behind --number."""
    from oracle.doctor import diagnose_files
    from oracle.doctor.readings import table_readings

    hyp_file = workdir / "doctor-hyp.txt"
    ref_file = workdir / "doctor-ref.txt"
    hyp_file.write_text("\n".join(hyp) + "\n", encoding="utf-8")
    ref_file.write_text("\n".join(refs[0]) + "\n", encoding="utf-8")

    def alone(reading):
        options = reading.options
        segments = oracle.textio.read_parallel(hyp_file, [ref_file], tokenizer=options.tokenizer,
                                               split=options.token_split)
        stats = oracle.formulas.bleu.sum_statistics(segments, max_order=4, options=options)
        return oracle.bleu_from_statistics(stats, options=options).score_float * 100

    one = next(r for r in table_readings() if (r.profile, r.tokenizer, r.lowercase) == ("sacrebleu", "13a", False))
    command = [sys.executable, "-m", "oracle", "doctor", "--hyp", str(hyp_file), "--ref", str(ref_file), "--json"]
    contenders = {
        "doctor table, in process": lambda: diagnose_files(hyp_file, [ref_file]),
        "doctor table + 2 numbers": lambda: diagnose_files(hyp_file, [ref_file], numbers=["26.65", "0.2159"]),
        "one reading alone (oracle)": lambda: alone(one),
        "bleu-oracle doctor, command": lambda: subprocess.run(command, capture_output=True, check=True, cwd=ROOT),
    }
    times, results = alternate(contenders, repeats)
    report(f"doctor: the readings table (64 readings), {len(hyp)} segments, 1 reference", times,
           ["one reading alone (oracle)"], rows)
    start = time.perf_counter()
    separately = {r: alone(r) for r in table_readings()}
    seconds = time.perf_counter() - start
    shared = {(r.profile, r.tokenize, r.lowercase): r.score_100 for r in results["doctor table, in process"].readings}
    worst = max(abs(shared[(r.profile, r.tokenizer, r.lowercase)] - v) for r, v in separately.items())
    print(f"  the 64 readings each scored alone (one round): {seconds * 1000:9.1f} ms; largest difference from the "
          f"shared counting {worst:.1e}")
    rows.append({"section": "doctor, 64 readings each alone", "seconds": seconds, "largest_difference": worst})


def bench_memory(sizes, rows):
    """The runner's peak RSS with --examples growing (check --no-cases against the trivial implementation):
    a run keeps counts, not records, so the largest should be within 1.3x of the smallest."""
    print("\n## check's own peak memory with --examples (--no-cases, trivial implementation)")
    trivial = f"{sys.executable} {ROOT / 'benchmarks' / 'trivial_impl.py'}"
    base = None
    for examples in sizes:
        with tempfile.TemporaryDirectory() as report_dir:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", SELF_PEAK, "check", "--no-cases", "--examples", str(examples),
                                   "--command", trivial, "--report", report_dir, "--quiet"],
                                  capture_output=True, text=True, cwd=ROOT)
            elapsed = time.perf_counter() - start
            size = Path(report_dir, "results.jsonl").stat().st_size if done.returncode == 0 else 0
        if done.returncode != 0:
            print(f"  {examples}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
            return
        peak = int(done.stderr.strip().splitlines()[-1]) / 1024
        base = base or peak
        print(f"  {examples:>6} examples: peak RSS {peak:6.1f} MiB ({peak / base:.2f}x the first), "
              f"results.jsonl {size / 1e6:.1f} MB, {elapsed:.1f} s")
        rows.append({"section": "memory", "examples": examples, "peak_rss_mib": peak, "results_bytes": size,
                     "seconds": elapsed})


def measured_run(cmd):
    """Wall seconds and peak RSS (MiB) of one child process, from wait4's own rusage."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {proc.stderr.read().decode()[-400:]}")
    proc.stderr.close()
    return elapsed, usage.ru_maxrss / 1024


def bench_scaling(hyp, refs, factors, repeats, rows, workdir):
    print("\n## growth with corpus size (bleu-oracle score from files, 4 references)")
    base = None
    for factor in factors:
        hyp_file = workdir / f"hyp-x{factor}.txt"
        with open(hyp_file, "w", encoding="utf-8") as out:
            for _ in range(factor):
                out.write("\n".join(hyp) + "\n")
        cmd = [sys.executable, "-m", "oracle", "score", "--hyp", str(hyp_file), "--json"]
        for i, stream in enumerate(refs):
            path = workdir / f"ref{i}-x{factor}.txt"
            with open(path, "w", encoding="utf-8") as out:
                for _ in range(factor):
                    out.write("\n".join(stream) + "\n")
            cmd += ["--ref", str(path)]
        runs = [measured_run(cmd) for _ in range(repeats)]
        seconds = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        base = base or (seconds, rss)
        print(f"  {factor:>3}x ({len(hyp) * factor:>7} segments): {seconds:7.2f} s "
              f"({seconds / base[0]:5.2f}x the 1x time), peak RSS {rss:6.1f} MiB ({rss / base[1]:.2f}x the 1x)")
        rows.append({"section": "scaling", "factor": factor, "seconds": seconds, "peak_rss_mib": rss})


def run_only(args, rows):
    """The sections named by --only (the runner's CPU, time to detection)."""
    if "runner" in args.only:
        bench_runner_cpu(50 if args.quick else args.runner_examples, rows, 1 if args.quick else args.repeats,
                         before=args.before)
    if "detection" in args.only:
        bench_detection(rows, args.bugs)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny input, one repeat: checks the script runs")
    parser.add_argument("--repeats", type=int, default=5, help="rounds per comparison (default 5)")
    parser.add_argument("--requests", type=int, default=5000, help="sentence requests for serve (default 5000)")
    parser.add_argument("--examples", type=int, default=200, help="examples for the check runs (default 200)")
    parser.add_argument("--runner-examples", type=int, default=1000,
                        help="examples per run for the runner's CPU (default 1000)")
    parser.add_argument("--only", nargs="+", choices=["runner", "detection"],
                        help="run only these sections (detection, time to detection per planted bug, runs only when "
                             "named here: about 50 check runs)")
    parser.add_argument("--before", metavar="DIR", help="the runner's CPU: also measure this checkout (the code "
                        "before a change, e.g. `git archive BASE | tar -x -C DIR`), alternately with this one")
    parser.add_argument("--bugs", nargs="*", help="with --only detection: these planted bugs (default: all)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["in-process", "commands", "startup", "serve", "check", "runner", "scaling", "memory",
                                 "doctor"],
                        help="sections to leave out")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    rows = []
    if args.only:
        return run_only(args, rows)
    hyp, refs = load_corpus(args.quick)
    print(f"# bleu-oracle benchmarks: {len(hyp)} segments, {len(refs)} reference streams, "
          f"{repeats} round(s), python {sys.version.split()[0]}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        # First, while this process is small: a forked child's peak RSS counts its parent's pages.
        if "scaling" not in args.skip:
            bench_scaling(hyp, refs, [1, 2] if args.quick else [1, 4, 16], repeats if args.quick else 1, rows, workdir)
        if "in-process" not in args.skip:
            bench_in_process(hyp, refs, repeats, rows)
        if "commands" not in args.skip:
            bench_commands(hyp, refs, repeats, rows, workdir)
        if "startup" not in args.skip:
            bench_startup(repeats, rows, workdir)
        if "serve" not in args.skip:
            bench_serve(50 if args.quick else args.requests, rows)
        if "check" not in args.skip:
            examples = 5 if args.quick else args.examples
            bench_check(examples, rows, impl="sacrebleu")
            trivial = f"{sys.executable} {ROOT / 'benchmarks' / 'trivial_impl.py'}"
            bench_check(examples, rows, command=trivial, label="--command trivial (runner overhead)")
            bench_search(50 if args.quick else 1000, rows)
            bench_search(50 if args.quick else 1000, rows, jobs=2)
            bench_search_parts(50 if args.quick else 1000, rows)
        if "runner" not in args.skip:
            bench_runner_cpu(50 if args.quick else args.runner_examples, rows, 1 if args.quick else 3)
        if "doctor" not in args.skip:
            bench_doctor(hyp, refs, repeats, rows, workdir)
        if "memory" not in args.skip:
            bench_memory([20, 60] if args.quick else [500, 20_000], rows)

    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
