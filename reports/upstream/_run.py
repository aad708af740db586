"""Runs one reproduction in the environment it names (keras-hub's and metrax's own venvs, where TensorFlow and JAX
live) and prints what the test reads: {"observed", "documented", "shown"} as JSON, NaN and errors as text.
Usage: VENV/bin/python _run.py NAME-ID.py"""

import importlib.util
import json
import math
import sys


def as_json(value):
    """NaN and the infinities by name (JSON has none)."""
    return repr(value) if isinstance(value, float) and not math.isfinite(value) else value


def main(path):
    spec = importlib.util.spec_from_file_location("reproduction", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        observed = module.reproduce()
    except Exception as exc:  # a raised exception is the observation
        observed = f"{type(exc).__name__}: {exc}"
    shown = repr(observed) if isinstance(observed, float) else str(observed)
    print(json.dumps({"observed": as_json(observed), "documented": as_json(module.DOCUMENTED), "shown": shown}))


if __name__ == "__main__":
    main(sys.argv[1])
