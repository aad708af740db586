"""One worker of `check --jobs N` (``python -m oracle.harness.worker_process SPEC``): a session of its own,
drawing every N-th example against its own implementation process, writing its records beside SPEC.
The parent side (starting, watching, merging the workers) is `oracle.harness.worker`."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from oracle.formulas.errors import BleuOracleError

from .gate import BaselineTracker
from .session import SessionSettings, implementation_argv, run_session, stopped_by_signals


def main(argv=None):
    """Run one worker from its spec file; exit 0 or 1 (its records say which), 2 on an error, 3
    when the implementation cannot be driven."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
        directory = Path(argv[0]).parent
        names = {f.name for f in dataclasses.fields(SessionSettings)}
        values = {k: v for k, v in spec.items() if k in names}
        values["only"] = tuple(values.get("only") or ())
        values["shard"] = tuple(values["shard"])
        settings = SessionSettings(**values)
        with stopped_by_signals():
            code, _ = run_session(settings, implementation_argv(settings), verb="check-worker",
                                  settings_record={"shard": list(settings.shard)},
                                  tracker=BaselineTracker(None, check_stale=False), total=0,
                                  work=lambda session: session.run_examples(), report_dir=directory)
    except BleuOracleError as exc:
        print(f"bleu-oracle check worker: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
