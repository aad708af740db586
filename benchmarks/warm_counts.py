"""A warm request's model builds, copies, dumps and parses, counted by model and call site (issue 39, the warm row).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/warm_counts.py                 # sacrebleu, 1000 examples, seed 0
    PYTHONPATH=/tmp/before .venv/bin/python benchmarks/warm_counts.py --json /tmp/before.json   # another tree

First one cold `check --impl IMPL --no-cases --examples N --seed 0 --jobs 1` in a subprocess fills a private search
cache; then the same `check`, warm on that cache, runs in this process (`oracle.cli.main`) with counting wrappers
around what builds, copies, dumps or parses a model or a JSON text, and around the values derived from a request
(`ScoreRequest.token_count` and kin). Only the main thread is counted, and only inside the search
(`Session.run_examples`, the span `benchmarks/per_request.py` meters); the counts are divided by the requests the
search sent (`Channel.submit`). Counts are not moved by the machine's load: a run gives the same table every time
(the seed fixes the examples, the warm cache the expectations).

Counted (each by the model's class where there is one, and by call site: the first two frames of `oracle/` above
the call, innermost first):

- `init`: a model's `__init__` (`Model(...)`); `model_validate`, `model_validate_json`, `model_construct`,
  `model_copy`, `model_dump`, `model_dump_json`; a `TypeAdapter`'s `validate_python`, `validate_json`, `dump_python`
  and `dump_json`;
- `json.loads`, `json.dumps`, and a `json.JSONDecoder.decode`/`JSONEncoder.encode` not made by those two (the
  protocol's decoder built once); `pydantic_core.from_json`/`to_json` as the oracle's modules import them;
  `ResultsWriter.text` (a record line serialised by pydantic-core's serializer directly);
- derived values: `ScoreRequest.token_count` and `reference_count` computed (not read from the instance), and the
  request's forms: `to_json`, `wire_form`, `replay_form`, `replay_payload`, `tokenized`; the search cache's
  `body_of` and `request_digest`;
- `validator run`: each function of `oracle/` that pydantic-core calls while validating a model (field, model and
  Annotated validators), by the model being validated: pydantic runs a nested model instance's after-validators
  again when it is passed to another model (pydantic/pydantic#12085, #6978), which this shows (`ScoreReply`'s in a
  `Record`).

A wrapped call made inside another wrapped call is counted too (a `model_copy` inside `with_seq`): the call site
says where. Nothing here changes what the run does or writes; results.jsonl is left in the report folder.
"""

from __future__ import annotations

import argparse
import collections
import functools
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ORACLE = None  # the oracle package's folder, set once it is imported
COUNTS: collections.Counter = collections.Counter()
STATE: dict[str, Any] = {"on": False, "requests": 0, "profile": None}
_MAIN = threading.main_thread()


def _site(depth: int = 2) -> str:
    """The first `depth` frames of `oracle/` above the wrapped call, innermost first ("module.function")."""
    frame = sys._getframe(3)
    found: list[str] = []
    while frame is not None and len(found) < depth:
        filename = frame.f_code.co_filename
        if filename.startswith(ORACLE):
            module = filename[len(ORACLE) + 1:].removesuffix(".py").replace("/", ".")
            found.append(f"{module}.{frame.f_code.co_qualname}")
        frame = frame.f_back
    return " <- ".join(found) or "(outside oracle)"


def _count(what: str, model: str) -> str | None:
    """Count one `what` of `model` at its call site (returned; None where nothing is counted)."""
    if STATE["on"] and threading.current_thread() is _MAIN:
        site = _site()
        COUNTS[what, model, site] += 1
        return site
    return None


#: pydantic's own functions that call pydantic-core's validator (BaseModel.__init__, model_validate, ...)
ENTRIES: set[Any] = set()


def _validators_counted(model: str, site: str, call: Any) -> Any:
    """`call()` (a validation of `model` at `site`), counting each function of `oracle/` that pydantic-core calls
    from it: our field, model and Annotated validators, whether the value is new or a model instance already
    validated (pydantic runs an instance's after-validators again). Not with --builtins (cProfile holds the hook)."""
    if STATE["profile"] is not None:
        return call()

    def hook(frame: Any, event: str, _: Any) -> None:
        if event == "call" and frame.f_back is not None and frame.f_back.f_code in ENTRIES \
                and frame.f_code.co_filename.startswith(ORACLE):
            COUNTS["validator run", f"{frame.f_code.co_qualname} (validating {model})", site] += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        return call()
    finally:
        sys.setprofile(previous)


def _wrap_method(owner: type, name: str, what: str, *, of_class: bool = False, validates: bool = False) -> None:
    """Count calls of `owner.name` (an instance method, or a classmethod where `of_class`) by the model's class;
    where it `validates`, the validators it runs too (`_validators_counted`)."""
    original = owner.__dict__[name]
    if of_class:
        function = original.__func__
        if validates:
            ENTRIES.add(function.__code__)

        @functools.wraps(function)
        def counted_class(cls, *args, **kwargs):
            site = _count(what, cls.__name__)
            if site is None or not validates:
                return function(cls, *args, **kwargs)
            return _validators_counted(cls.__name__, site, lambda: function(cls, *args, **kwargs))

        setattr(owner, name, classmethod(counted_class))
        return
    if validates:
        ENTRIES.add(original.__code__)

    @functools.wraps(original)  # (copies pydantic's `__pydantic_base_init__` mark of BaseModel.__init__)
    def counted(self, *args, **kwargs):
        site = _count(what, type(self).__name__)
        if site is None or not validates:
            return original(self, *args, **kwargs)
        return _validators_counted(type(self).__name__, site, lambda: original(self, *args, **kwargs))

    setattr(owner, name, counted)


def _wrap_function(module: Any, name: str, what: str, model: str = "-") -> Any:
    """Count calls of the function `module.name`; returns (original, wrapper) so that other modules' own
    references to it (`from json import loads`) are replaced too."""
    original = getattr(module, name)

    @functools.wraps(original)
    def counted(*args, **kwargs):
        _count(what, model)
        return original(*args, **kwargs)

    setattr(module, name, counted)
    return original, counted


def _oracle_modules() -> list[Any]:
    """Every module of the oracle's harness, models, diagnosis and formulas, imported (so that a module imported
    later does not keep an unwrapped reference)."""
    import oracle

    modules = []
    for package in ("oracle.models", "oracle.harness", "oracle.diagnose", "oracle.formulas"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
            if info.name.endswith("pytest_plugin"):
                continue
            modules.append(importlib.import_module(info.name))
    modules += [m for name, m in sys.modules.items() if name.startswith("oracle") and m is not None]
    del oracle
    return modules


def _install_pydantic() -> None:
    """pydantic's ways into building, copying and dumping a model."""
    import pydantic

    base = pydantic.BaseModel
    _wrap_method(base, "__init__", "init", validates=True)
    for name in ("model_validate", "model_validate_json"):
        _wrap_method(base, name, name, of_class=True, validates=True)
    _wrap_method(base, "model_construct", "model_construct", of_class=True)
    for name in ("model_copy", "model_dump", "model_dump_json"):
        _wrap_method(base, name, name)
    for name in ("validate_python", "validate_json", "dump_python", "dump_json"):
        adapter = pydantic.TypeAdapter.__dict__[name]

        def counted_adapter(self, *args, _original=adapter, _what=f"TypeAdapter.{name}", **kwargs):
            _count(_what, repr(self._type) if hasattr(self, "_type") else "?")
            return _original(self, *args, **kwargs)

        setattr(pydantic.TypeAdapter, name, counted_adapter)


def _install_json(replaced: dict[int, Any]) -> None:
    """json's and pydantic-core's parsers and encoders (`replaced`: original's id -> its wrapper)."""
    import pydantic_core

    for module, name, what in ((json, "loads", "json.loads"), (json, "dumps", "json.dumps"),
                               (pydantic_core, "from_json", "pydantic_core.from_json"),
                               (pydantic_core, "to_json", "pydantic_core.to_json")):
        original, counted = _wrap_function(module, name, what)
        replaced[id(original)] = counted

    decode, encode = json.JSONDecoder.decode, json.JSONEncoder.encode
    json_init = str(Path(json.__file__))

    def counted_decode(self, s, *args, **kwargs):
        if sys._getframe(1).f_code.co_filename != json_init:  # not json.loads's own
            _count("JSONDecoder.decode", "-")
        return decode(self, s, *args, **kwargs)

    def counted_encode(self, o):
        if sys._getframe(1).f_code.co_filename != json_init:
            _count("JSONEncoder.encode", "-")
        return encode(self, o)

    json.JSONDecoder.decode, json.JSONEncoder.encode = counted_decode, counted_encode


def _install_oracle(replaced: dict[int, Any]) -> None:
    """The record's serialiser, the request's derived values and forms, the cache's digests."""
    from oracle.harness import events, searchcache
    from oracle.models.protocol import ScoreRequest

    text = events.ResultsWriter.__dict__["text"].__func__

    def counted_text(line):
        _count("record serialised (ResultsWriter.text)", type(line).__name__)
        return text(line)

    events.ResultsWriter.text = staticmethod(counted_text)
    for name in ("token_count", "reference_count"):
        prop = ScoreRequest.__dict__[name]

        def computed(self, _func=prop.func, _name=name):
            _count(f"derived: {_name} computed", type(self).__name__)
            return _func(self)

        prop.func = computed
    for name in ("to_json", "wire_form", "replay_form", "replay_payload", "tokenized"):
        _wrap_method(ScoreRequest, name, f"request form: {name}")
    for name in ("body_of", "request_digest"):
        original, counted = _wrap_function(searchcache, name, f"derived: searchcache.{name}", "ScoreRequest")
        replaced[id(original)] = counted


def _install_window() -> None:
    """Counting on inside the search only; the requests it sends counted."""
    from oracle.harness.channel import Channel
    from oracle.harness.session import Session

    run_examples, submit = Session.run_examples, Channel.submit

    def counted_run(self):
        STATE["on"] = True
        if STATE["profile"] is not None:  # (cProfile follows the thread that enables it: the main thread)
            STATE["profile"].enable()
        try:
            return run_examples(self)
        finally:
            STATE["on"] = False
            if STATE["profile"] is not None:
                STATE["profile"].disable()

    def counted_submit(self, *args, **kwargs):
        if STATE["on"] and threading.current_thread() is _MAIN:
            STATE["requests"] += 1
        return submit(self, *args, **kwargs)

    Session.run_examples, Channel.submit = counted_run, counted_submit


def install() -> None:
    """Put the counting wrappers in place (before the run; nothing is counted until the search starts)."""
    global ORACLE
    import oracle

    ORACLE = str(Path(oracle.__file__).resolve().parent)
    modules = _oracle_modules()
    replaced: dict[int, Any] = {}
    _install_pydantic()
    _install_json(replaced)
    _install_oracle(replaced)
    for module in modules:  # the oracle's own references to a wrapped function (`from pydantic_core import from_json`)
        for attribute, value in list(vars(module).items()):
            if id(value) in replaced and not attribute.startswith("__"):
                setattr(module, attribute, replaced[id(value)])
    _install_window()


def table(counts: collections.Counter, requests: int, top: int) -> str:
    """Markdown: by what and model (totals), then by call site (the `top` largest)."""
    by_model: collections.Counter = collections.Counter()
    for (what, model, _), n in counts.items():
        by_model[what, model] += n
    lines = [f"requests sent (main thread, the search): {requests:,}", "",
             "| what | model | count | per request |", "| --- | --- | --- | --- |"]
    lines += [f"| {what} | {model} | {n:,} | {n / requests:.2f} |" for (what, model), n in by_model.most_common()]
    lines += ["", "| what | model | call site (innermost first) | count | per request |",
              "| --- | --- | --- | --- | --- |"]
    lines += [f"| {what} | {model} | {site} | {n:,} | {n / requests:.3f} |"
              for (what, model, site), n in counts.most_common(top)]
    return "\n".join(lines)


def builtin_calls(profile: Any, requests: int) -> str:
    """The C functions of pydantic-core and json that cProfile saw called in the search's main thread (a check that
    the wrappers miss no path into them), with their direct callers."""
    import pstats

    stats = pstats.Stats(profile).stats
    lines = ["", "| C function (cProfile, main thread) | calls | per request | callers |", "| --- | --- | --- | --- |"]
    rows = [(func, value) for func, value in stats.items()
            if func[0] == "~" and any(k in func[2] for k in ("pydantic_core", "json", "SchemaValidator",
                                                                 "SchemaSerializer"))]
    for func, (_, calls, _, _, callers) in sorted(rows, key=lambda r: -r[1][1]):
        by = sorted(((f"{Path(c[0]).name}:{c[2]}", value[1]) for c, value in callers.items()),
                    key=lambda r: -r[1])[:3]
        shown = ", ".join(f"{n} from {where}" for where, n in by)
        lines.append(f"| {func[2]} | {calls:,} | {calls / requests:.2f} | {shown} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default="sacrebleu")
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--top", type=int, default=60, help="call-site rows shown")
    parser.add_argument("--json", help="also write the counts here (JSON), to compare trees")
    parser.add_argument("--builtins", action="store_true",
                        help="also list pydantic-core's and json's C functions called, by cProfile (slower)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        cache, report = Path(work) / "cache", Path(work) / "report"
        check = ["check", "--impl", args.impl, "--no-cases", "--examples", str(args.examples), "--seed", "0",
                 "--jobs", "1", "--quiet"]
        env = {**os.environ, "BLEU_ORACLE_SEARCH_CACHE": str(cache)}
        import oracle  # (the tree on PYTHONPATH: the cold run in it too, `-m` reading its working directory first)

        tree = Path(oracle.__file__).resolve().parents[1]
        cold = subprocess.run([sys.executable, "-m", "oracle", *check, "--report", str(Path(work) / "cold")],
                              env=env, capture_output=True, text=True, cwd=tree)
        if cold.returncode not in (0, 1):
            raise SystemExit(f"the cold check exited {cold.returncode}: {cold.stderr.strip()[-400:]}")
        os.environ["BLEU_ORACLE_SEARCH_CACHE"] = str(cache)
        install()
        if args.builtins:
            import cProfile

            STATE["profile"] = cProfile.Profile()
        from oracle.cli import main as cli

        code = cli([*check, "--report", str(report)])
        if code not in (0, 1):
            raise SystemExit(f"the warm check exited {code}")
    print(table(COUNTS, STATE["requests"], args.top))
    if STATE["profile"] is not None:
        print(builtin_calls(STATE["profile"], STATE["requests"]))
    if args.json:
        rows = [{"what": w, "model": m, "site": s, "count": n} for (w, m, s), n in sorted(COUNTS.items())]
        Path(args.json).write_text(json.dumps({"requests": STATE["requests"], "counts": rows}, indent=1),
                                   encoding="utf-8")


if __name__ == "__main__":
    main()
