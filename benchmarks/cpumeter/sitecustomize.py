"""The runner's CPU, measured from inside each process of a benchmarked `check` (bench.py, "runner CPU").

bench.py puts this directory first on PYTHONPATH and names an output directory in BLEU_ORACLE_CPU_METER; every
Python process of the run then imports this module at start-up (Python's `sitecustomize` hook), and each one
that runs the search (the `check` process, and with --jobs N each worker) wraps two of the session's methods:

- `Session.run_examples`: the process's CPU (`time.process_time`: every thread of the process, which load on the
  machine does not inflate) from the search's start to its end: the runner's work on the examples (drawing,
  the oracle's expectation, coverage, sending, judging, records; with --jobs N the parent's merge), without
  start-up, the handshake or the cases;
- `Session.judge_cached_example` (where there is a search cache: the example with reading and writing its
  cache entry), else `Session.judge_example`: the calling thread's CPU (`time.thread_time`) per example, split
  into the expensive inputs (`oracle.harness.generate.EXPENSIVE_FOCI` in their turn) and the ordinary ones;
- `Channel.submit`: counted, every request the process sends to the implementation (the CPU per request of
  `benchmarks/per_request.py`).

At exit each process writes what it measured to BLEU_ORACLE_CPU_METER/<pid>.json; an implementation process
(Python too) writes only its whole CPU, so the implementation's cost can be shown beside the runner's.
Nothing here changes what the run does or writes.
"""

import atexit
import json
import os
import sys
import time

_OUT = os.environ.get("BLEU_ORACLE_CPU_METER")


def _is_runner(argv):
    """`python -m oracle ...`, `bleu-oracle ...`, or a search worker (`python -m oracle.harness.worker_process`)."""
    module = argv[argv.index("-m") + 1] if "-m" in argv[:-1] else ""
    return module in ("oracle", "oracle.harness.worker_process") or "bleu-oracle" in map(os.path.basename, argv[:2])


def _install(out):
    measured = {"argv": list(sys.orig_argv), "search_cpu": 0.0, "searches": 0,
                "ordinary": [0, 0.0], "expensive": [0, 0.0], "requests": 0}

    def write():
        measured["process_cpu"] = time.process_time()
        with open(os.path.join(out, f"{os.getpid()}.json"), "w", encoding="utf-8") as handle:
            json.dump(measured, handle)

    atexit.register(write)
    # only a process that runs the oracle's CLI or a search worker patches the session (an implementation
    # script need not import the harness)
    if not _is_runner(sys.orig_argv):
        return
    from oracle.harness import session as session_module
    from oracle.harness.generate import EXPENSIVE_FOCI, FOCI

    per_example = "judge_cached_example" if hasattr(session_module.Session, "judge_cached_example") else "judge_example"
    run_examples, judge_example = session_module.Session.run_examples, getattr(session_module.Session, per_example)

    def timed_run_examples(self):
        start = time.process_time()
        try:
            return run_examples(self)
        finally:
            measured["search_cpu"] += time.process_time() - start
            measured["searches"] += 1

    def timed_judge_example(self, index):
        start = time.thread_time()
        try:
            return judge_example(self, index)
        finally:
            focus = FOCI[index % len(FOCI)]
            kind = "expensive" if focus in EXPENSIVE_FOCI and not (index // len(FOCI)) % 4 else "ordinary"
            measured[kind][0] += 1
            measured[kind][1] += time.thread_time() - start

    session_module.Session.run_examples = timed_run_examples
    from oracle.harness import channel as channel_module

    submit = channel_module.Channel.submit

    def counted_submit(self, *args, **kwargs):
        measured["requests"] += 1
        return submit(self, *args, **kwargs)

    channel_module.Channel.submit = counted_submit
    setattr(session_module.Session, per_example, timed_judge_example)


if _OUT:
    _install(_OUT)
