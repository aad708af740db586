"""One worker of `check --jobs N` (``python -m oracle.harness.worker_process SPEC``): a session of its own,
drawing one of each N consecutive examples (`shards.worker_of`) against its own implementation process, writing
its records beside SPEC, gated by the run's baseline (in SPEC: the parent counts their statuses,
`BaselineTracker.heard`). Its stdin and stdout are the pipes to its parent (the shared restart budget's messages;
end of file on stdin: the parent has gone, and the worker stops). The parent side is `oracle.harness.worker`."""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import signal
import sys
import threading
from pathlib import Path

from oracle.adapters.lifetimes import set_own_death_signal
from oracle.formulas.errors import BleuOracleError
from oracle.models.baseline import Baseline
from oracle.models.results import RunSettings
from oracle.signals import Interrupted, stopped_by_signals

from .allocator import bound_heap_growth, start_up_objects_frozen
from .gate import BaselineTracker
from .session import SessionSettings, implementation_argv, run_session
from .transport import ImplementationProcess
from .worker import BASELINE_SPEC, SharedBudget, follow_parent


def _channel_to_parent():
    """The worker's stdout, kept for its messages; file descriptor 1 itself (and sys.stdout) then go to
    stderr, so that nothing a library prints is read as a message."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def main(argv=None):
    """Run one worker from its spec file; exit 0 or 1 (its records say which), 2 on an error, 3
    when the implementation cannot be driven, 143 when stopped."""
    argv = sys.argv[1:] if argv is None else argv
    bound_heap_growth()  # as the parent: a worker's peak memory not growing with its examples
    try:
        spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
        directory = Path(argv[0]).parent
        names = {f.name for f in dataclasses.fields(SessionSettings)}
        values = {k: v for k, v in spec.items() if k in names}
        values["only"] = tuple(values.get("only") or ())
        values["shard"] = tuple(values["shard"])
        values["worker"] = tuple(values.get("worker") or (0, 1))
        settings = SessionSettings(**values)
        given = spec.get(BASELINE_SPEC)
        baseline = Baseline.model_validate(given) if given is not None else None
        with start_up_objects_frozen(), stopped_by_signals():  # (the imports' objects: not collected again)
            # the parent started this worker with a death signal already (Linux); asked again here
            # for a worker started by other means, and checked: a parent gone already stops it now
            set_own_death_signal(signal.SIGTERM, parent=spec.get("parent"))
            answers = queue.Queue()
            threading.Thread(target=follow_parent, args=(answers,), daemon=True, name="parent").start()
            budget = SharedBudget(settings.max_restarts, _channel_to_parent(), answers, settings.shrink_first)
            command = implementation_argv(settings)
            process = ImplementationProcess(command, timeout=settings.timeout, max_restarts=settings.max_restarts,
                                            budget=budget)
            code, _ = run_session(settings, command,
                                  recorded=RunSettings(verb="check-worker",
                                                       worker_share=[*settings.shard, *settings.worker]),
                                  tracker=BaselineTracker(baseline, check_stale=False), total=0,
                                  work=lambda session: session.run_examples(), report_dir=directory,
                                  transport=process, check_discrepancies=False)  # (the parent checked it)
    except BleuOracleError as exc:
        print(f"bleu-oracle check worker: {exc}", file=sys.stderr)
        return 2
    except Interrupted as exc:  # stopped before its session began
        return exc.exit_code
    return code


if __name__ == "__main__":
    sys.exit(main())
