"""The BLEU of the libraries that run in a virtual environment of their own (the registry's `venv` entries), and
every release of the Python libraries that `bleu-oracle history` installs, as protocol-v1 implementation
processes (PROTOCOL.md), by themselves.

Run by the library's own virtual environment (its module of `libraries/` declares it), with the
standard library and the library only: bleu-oracle is not installed there. The runner starts it directly
(`check --impl keras-hub`: one process, one protocol):

    VENV/bin/python venv_bleu.py LIBRARY HANDSHAKE [SETTINGS]   (LIBRARY: one of `library_names()`)

Each LIBRARY is one module of `libraries/` beside this file (`keras-hub` is libraries/keras_hub.py), whose
`scorer(settings)` makes the library's scoring function: this file speaks the protocol, checks a request
against the declared capabilities and knows no library. The modules are found by name, so a new library is a
new module there and nothing here (docs/extending.md); `libraries/__init__.py` holds what they share.

It runs under every Python from 3.6 on (an nltk before 3.4 needs 3.6: its n-gram generator ends with
StopIteration, a RuntimeError from 3.7, PEP 479), so it uses `typing`'s generics and no annotations
import, as the library modules do. SETTINGS (JSON, optional) is what the adapter passes on: `{"smoothing":
{METHOD: [SETTING, {PARAMETER: ARGUMENT}]}}`, its smoothing table (`oracle.adapters.base.SmoothingTable`),
so that the mapping stays stated in one place, and `"preload": true` for a library loaded from the start
(`Driver.preload`; its module's declaration, `implementation(..., preload=True)`, says which: those whose
import is slowest and calls no `signal`, which a thread cannot; the others load on the first score, so that
their handshake never waits for them).

HANDSHAKE is the JSON handshake it answers `start` with: the adapter's declaration, whose capabilities
also decide what it refuses (`refusal`: a request outside them is unsupported, as the adapters said
before; sentence level with other than one segment is rejected). Then one reply line per command:
`{"seq", "score"}` (a finite number or "NaN"), `{"seq", "unsupported" | "rejected" | "error"}` (an
exception of the library: its type and message, the traceback on stderr), `{"error": "protocol error:
..."}` for a line that is no command (with its seq when one could be read); `stop` or the end of input
ends it. Segments go to the library as strings: the tokens joined by single spaces (the capabilities
forbid whitespace in tokens and empty tokens, so the library's split gives them back), a text request's
raw text as it is for keras-hub's own 13a tokenizer.

Only protocol lines reach stdout: file descriptor 1 is pointed at stderr before the library loads (it
is imported on the first score, so the handshake never waits for TensorFlow).
"""

import importlib
import importlib.util
import json
import math
import os
import sys
import threading
import traceback
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

# The environment is verified whole before each use (oracle/adapters/environments.py): bytecode written by
# this run, for a module its library imports late, would be a file that was not installed.
sys.dont_write_bytecode = True

#: A command as decoded from its JSON line, and a library's scoring function of one (libraries/__init__.py
#: declares the same, for the library modules).
Command = Dict[str, Any]
Scorer = Callable[[Command], Any]

#: The longest command line read (bytes), as the runner's own line limit.
LINE_LIMIT = 16 * 1024 * 1024
PROTOCOL_VERSION = 1

#: The library modules' directory, and the name their package is loaded under: a name of the driver's own, never
#: `libraries` (which the library's environment may hold) nor `oracle...` (bleu-oracle is not installed there).
LIBRARIES_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libraries")
LIBRARIES_PACKAGE = "bleu_oracle_venv_libraries"


def _library_package() -> Any:
    """libraries/ as a package (its __init__ executed once), loaded by path: the driver runs as a script, and its
    library modules import what they share from it relatively."""
    loaded = sys.modules.get(LIBRARIES_PACKAGE)
    if loaded is None:
        spec = importlib.util.spec_from_file_location(
            LIBRARIES_PACKAGE, os.path.join(LIBRARIES_DIRECTORY, "__init__.py"),
            submodule_search_locations=[LIBRARIES_DIRECTORY])
        if spec is None or spec.loader is None:
            raise ImportError("the driver's libraries are missing: " + LIBRARIES_DIRECTORY)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[LIBRARIES_PACKAGE] = loaded
        spec.loader.exec_module(loaded)
    return loaded


#: What the library modules share (their `Refused`, `show`), the one copy of it this process holds.
kit = _library_package()
show = kit.show


def library_names() -> List[str]:
    """Every library this driver scores: the modules of libraries/ not starting with `_`, `_` read as `-`."""
    return sorted(name[:-3].replace("_", "-") for name in os.listdir(LIBRARIES_DIRECTORY)
                  if name.endswith(".py") and not name.startswith("_"))


def library(name: str) -> Callable[[Dict[str, Any]], Scorer]:
    """The `scorer(settings)` of library `name` (its module imported; the library itself loads when it is called)."""
    if name not in library_names():
        raise ValueError("no library {} in {}".format(show(name), LIBRARIES_DIRECTORY))
    module = importlib.import_module(LIBRARIES_PACKAGE + "." + name.replace("-", "_"))
    return module.scorer


#: How long the handshake of a preloaded library waits for its loading (the runner waits 10 s by default for the
#: handshake, then as long again for the first reply): the two timeouts share the import.
HANDSHAKE_WAIT = 7.0


def is_uniform(weights: List[Any]) -> bool:
    """Equal weights 1/N each, up to float rounding of 1/N (as oracle.adapters.base.is_uniform)."""
    n = len(weights)
    return all(isinstance(w, (int, float)) and not isinstance(w, bool) and abs(w - 1.0 / n) <= 1e-15 for w in weights)


def refusal(name: str, capabilities: Dict[str, Any], command: Command) -> Optional[Tuple[str, str]]:
    """(kind, why) when the declared capabilities do not cover `command`, else None."""
    levels, level = capabilities["levels"], command["level"]
    if level not in levels:
        return "unsupported", f"{name} scores at {' and '.join(levels)} level only (got {show(level)})"
    weights = command["weights"]
    n = len(weights)
    if n > capabilities["max_order"]:
        return "unsupported", f"{name} takes at most {capabilities['max_order']} orders (got {n} weights)"
    if n not in capabilities.get("orders", [n]):
        return "unsupported", f"{name} takes {show(capabilities['orders'])} orders only (got {n} weights)"
    if capabilities["weights"] == "uniform" and not is_uniform(weights):
        return "unsupported", f"{name} weighs every order 1/N (got weights {show(weights)})"
    methods, method = capabilities["smoothing"], command["smoothing"]["method"]
    if method not in methods:
        return "unsupported", f"{name} smooths with {show(methods)} only (got {show(method)})"
    if command.get("lowercase") and not capabilities["lowercase"]:
        return "unsupported", f"{name} does not fold case"
    tokenize = command.get("tokenize")
    if tokenize is not None and tokenize not in capabilities.get("tokenizers", []):
        tokenizers = show(capabilities.get("tokenizers", []))
        return "unsupported", f"{name} tokenizes with {tokenizers} only (got {show(tokenize)})"
    most = capabilities.get("max_references")
    counts = [len(s["references"]) for s in command["segments"]]
    if most is not None and any(count > most for count in counts):
        return "unsupported", f"{name} takes at most {most} reference(s) a segment (got {max(counts)})"
    if level == "sentence" and len(command["segments"]) != 1:
        return "rejected", f"sentence level takes exactly one segment (got {len(command['segments'])})"
    return _plan_refusal(name, capabilities, command.get("stateful"))


def _plan_refusal(name: str, capabilities: Dict[str, Any], plan: Any) -> Optional[Tuple[str, str]]:
    """("unsupported", why) for a stateful plan needing an ability the handshake did not declare, else None."""
    if plan is None:
        return None
    shards = plan.get("shards", [])
    needs = {"accumulate": any(len(batches) > 1 for batches in shards), "merge": len(shards) > 1,
             "reset": bool(plan.get("previous"))}
    declared = capabilities.get("stateful", [])
    missing = [ability for ability, needed in needs.items() if needed and ability not in declared]
    if not declared or missing:
        return "unsupported", f"{name} cannot run a stateful plan" + (
            f" that needs {', '.join(missing)}" if missing else "")
    return None


def capabilities_statistics(handshake: Dict[str, Any]) -> bool:
    return bool(handshake.get("capabilities", {}).get("statistics"))


def scored(value: float) -> Dict[str, Any]:
    """A library's number as the reply's outcome: the score, NaN as "NaN", an infinity an error."""
    if math.isnan(value):
        return {"score": "NaN"}
    if math.isinf(value):
        return {"error": f"the library answered {value!r}: protocol v1 takes a finite number or \"NaN\""}
    return {"score": value}


class Driver:
    """One library behind protocol v1: `answer(line)` -> (the reply, or None; whether to stop)."""

    def __init__(self, library: str, handshake: Dict[str, Any], settings: Optional[Dict[str, Any]] = None) -> None:
        self.library, self.handshake = library, handshake
        self.name = handshake["implementation"]["name"]
        self.settings = settings or {}
        self._score = None  # type: Optional[Scorer]  # the library's scoring function, loaded on the first score
        self._loading = None  # type: Optional[threading.Thread]  # its loading begun at start (`preload`)
        self._loaded = []  # type: List[Scorer]  # what that loading made

    def preload(self) -> None:
        """Begin loading the library in a thread while the runner shakes hands and prepares its first request:
        for a library whose import alone can outlast a request's timeout on a loaded machine (ragas' reaches
        langchain and openai: 3 s of CPU, 12 to 15 s on two busy cores); the handshake waits for it up to
        HANDSHAKE_WAIT. A failure is left for the first score to meet again, as without it."""
        def load() -> None:
            try:
                self._loaded.append(library(self.library)(self.settings))
            except Exception:  # noqa: BLE001, S110 - the first score loads again and answers the error
                pass

        self._loading = threading.Thread(target=load, daemon=True)
        self._loading.start()

    def scorer(self) -> Scorer:
        if self._score is None:
            if self._loading is not None:
                self._loading.join()
                self._loading = None
            self._score = self._loaded[0] if self._loaded else library(self.library)(self.settings)
        return self._score

    def answer(self, line: str) -> Tuple[Optional[Dict[str, Any]], bool]:
        try:
            command = json.loads(line)
        except ValueError as exc:
            return {"error": f"protocol error: the line is not JSON ({exc})"}, False
        if not isinstance(command, dict):
            return {"error": f"protocol error: a command must be a JSON object (got {show(command)[:200]})"}, False
        seq = command.get("seq")
        seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        cmd = command.get("cmd")
        if cmd == "stop":
            return None, True
        if cmd == "start":
            if command.get("protocol") != PROTOCOL_VERSION:
                return {"error": f"unsupported protocol version {show(command.get('protocol'))}: this implementation "
                                 f"speaks protocol {PROTOCOL_VERSION}"}, False
            if self._loading is not None:  # the handshake spends up to HANDSHAKE_WAIT of its timeout on the loading
                self._loading.join(HANDSHAKE_WAIT)
            return self.handshake, False
        if cmd != "score":
            reply = {"error": f'protocol error: `cmd` must be one of "start", "score", "stop" (got {show(cmd)})'}
        elif seq is None:
            reply = {"error": "protocol error: `seq` must be an integer"}
        else:
            reply = self.score(command)
        return ({"seq": seq, **reply} if seq is not None else reply), False

    def score(self, command: Command) -> Dict[str, Any]:
        try:
            refused = refusal(self.name, self.handshake["capabilities"], command)
            if refused is not None:
                return {refused[0]: refused[1]}
            answer = self.scorer()(command)
            value, statistics = answer if isinstance(answer, tuple) else (answer, None)
            reply = scored(float(value))
            if statistics is not None and "score" in reply and capabilities_statistics(self.handshake):
                reply["statistics"] = statistics
            return reply
        except kit.Refused as exc:
            return {exc.kind: str(exc)}
        except Exception as exc:  # noqa: BLE001 - every failure of the library is this request's error
            traceback.print_exc(file=sys.stderr)
            return {"error": f"{type(exc).__name__}: {exc}"}


def protocol_channel() -> IO[str]:
    """A private copy of file descriptor 1 for the protocol lines; fd 1 itself (print, and whatever a
    compiled library writes there) goes to stderr."""
    channel = os.fdopen(os.dup(1), "w", encoding="ascii", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def main(argv: List[str]) -> int:
    if len(argv) not in (3, 4) or argv[1] not in library_names():
        sys.stderr.write(f"usage: venv_bleu.py {'|'.join(library_names())} HANDSHAKE [SETTINGS]\n")
        return 2
    driver = Driver(argv[1], json.loads(argv[2]), json.loads(argv[3]) if len(argv) == 4 else None)
    out = protocol_channel()
    if driver.settings.get("preload"):  # (after fd 1 points at stderr: only protocol lines reach stdout)
        driver.preload()
    stdin = sys.stdin.buffer
    reply = None  # type: Optional[Dict[str, Any]]
    while True:
        line = stdin.readline(LINE_LIMIT + 1)
        if not line:
            return 0
        if len(line) > LINE_LIMIT and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stdin.readline(1 << 20)  # the rest of the line is not read as a command
            reply, stop = {"error": f"protocol error: a command line longer than {LINE_LIMIT} bytes"}, False
        elif not line.strip():
            continue
        else:
            reply, stop = driver.answer(line.decode("utf-8", "replace"))
        if stop:
            return 0
        try:
            out.write(json.dumps(reply, ensure_ascii=True, allow_nan=False) + "\n")
            out.flush()
        except BrokenPipeError:  # the runner has gone: nobody is left to answer
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
