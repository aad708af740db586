"""The smallest correct protocol-v1 implementation: the oracle in a bare loop.

Used by bench.py to measure the runner's own overhead (`check --command`):
its answers are right, so no shrinking runs and the time is the runner's.
(It computes what the runner computes, so on two cores the two overlap.)
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import oracle  # noqa: E402

CAPABILITIES = {"levels": ["corpus", "sentence"], "weights": "any", "max_order": 8,
                "smoothing": ["none", "floor", "add-k", "exp"], "statistics": False, "lowercase": True}


def reply_to(message):
    """The reply to one command (None for `stop`)."""
    if message["cmd"] == "start":
        return {"protocol": 1, "implementation": {"name": "trivial", "version": "1", "language": "python"},
                "profile": "papineni", "capabilities": CAPABILITIES}
    if message["cmd"] == "stop":
        return None
    try:
        segments = message["segments"]
        hyps = [s["hypothesis"] for s in segments]
        refs = [s["references"] for s in segments]
        if message["level"] == "sentence":
            hyps, refs = hyps[0], refs[0]
        result = oracle.score(hyps, refs, level=message["level"], profile="papineni", weights=message["weights"],
                              smoothing=message["smoothing"], lowercase=message["lowercase"])
        return {"seq": message["seq"], "score": "NaN" if result.score.is_nan() else float(result.score)}
    except oracle.BleuOracleError as exc:
        return {"seq": message["seq"], "rejected": str(exc)}


def main():
    for line in sys.stdin:
        reply = reply_to(json.loads(line))
        if reply is None:
            break
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
