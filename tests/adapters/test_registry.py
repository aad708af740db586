"""The implementation registry (oracle/adapters/registry.py): every entry resolves to what its kind says, it is
the only place a name is declared (each verb's list is the registry's), and an unknown name is one usage error.

Holds: oracle.adapters.preparations
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from oracle import adapters
from oracle.adapters import environments, history, registry
from oracle.adapters.base import TEXT_LIMITS, Implementation
from oracle.adapters.driven import DriverImplementation, driver_class
from oracle.adapters.drivers import venv_bleu
from oracle.adapters.preparations import NpmPin, ScriptSpec, SdistSpec, VenvSpec
from oracle.cli import main
from oracle.commands import install
from oracle.diagnose import discrepancies
from oracle.formulas.errors import BleuValueError

ROOT = Path(__file__).resolve().parents[2]
#: What each kind is prepared with (None: nothing outside this environment).
PREPARED_AS = {"in-process": type(None), "command": type(None), "script": ScriptSpec, "sdist": SdistSpec,
               "venv": VenvSpec, "npm": NpmPin}


@pytest.mark.parametrize("name", registry.names())
def test_every_registered_name_resolves_to_a_class_of_its_kind(name):
    entry = registry.resolve(name)
    assert entry.name == name and entry.kind in registry.KINDS
    found = entry.load()  # the module imports and holds the class (the library itself loads on construction)
    if entry.driven:
        # a driver's declaration, whose handshake name is its registry name (its entry is found by it)
        assert issubclass(found, DriverImplementation) and found.name == name and found.entry() is entry
        assert driver_class(name) is found
    else:
        assert issubclass(found, Implementation) and driver_class(name) is None
    owner = registry.resolve(entry.shares) if entry.shares else entry
    assert isinstance(owner.prepared, PREPARED_AS[entry.kind]), name
    assert not (entry.shares and entry.prepared), f"{name} shares {entry.shares}'s preparation and pins its own"
    assert not entry.preload or entry.kind == "venv", "only the venv driver preloads"


def test_the_verbs_list_the_registrys_names_and_nothing_else(capsys):
    names = registry.names()
    assert len(set(names)) == len(names)
    assert main(["serve", "--list"]) == 0
    assert capsys.readouterr().out.split() == names
    # install prepares exactly the entries with a preparation; the environments' pins are those entries' own
    assert sorted(install.OWN) == sorted(entry.name for entry in registry.ENTRIES if entry.prepared is not None)
    for pins, kind in ((environments.VENVS, VenvSpec), (environments.NPM_PACKAGES, NpmPin),
                       (environments.SDISTS, SdistSpec), (environments.SCRIPTS, ScriptSpec)):
        assert pins == {entry.name: entry.prepared for entry in registry.ENTRIES if isinstance(entry.prepared, kind)}
    # history's libraries are registered implementations; the venv driver's library calls are the venv entries' and
    # history's Python libraries', no more (a call nobody registers is dead, a registered one without a call fails)
    assert set(history.LIBRARIES) <= set(names)
    calls = {entry.driver_library for entry in registry.of_kind("venv")}
    calls |= {spec.name for spec in history.LIBRARIES.values() if spec.registry == "pypi"}
    assert set(venv_bleu.library_names()) == calls


def _own_declaration(path: Path, tree: ast.Module) -> set[int]:
    """The ids of the nodes of `path`'s module-level `IMPLEMENTATIONS` statement, when it is an adapter module
    (the one place its implementations are declared), or of registry.py's `_library_entries` (which makes the
    venv libraries' entries from their modules' data)."""
    allowed: list[ast.AST] = []
    if path.parent == ROOT / "oracle" / "adapters":
        allowed += [node.value for node in tree.body if isinstance(node, ast.Assign)
                    and [getattr(target, "id", None) for target in node.targets] == ["IMPLEMENTATIONS"]]
    if path == ROOT / "oracle" / "adapters" / "registry.py":
        allowed += [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "_library_entries"]
    return {id(node) for root in allowed for node in ast.walk(root)}


def test_an_implementation_is_declared_in_its_own_module_only():
    """Each built-in implementation is declared once, in the module of its class: no module of oracle/ calls
    `Registered(...)` or holds an "oracle.adapters.MODULE:CLASS" target outside an adapter module's own
    `IMPLEMENTATIONS` statement, nor a target naming another module's class, nor the dictionaries the registry
    replaced. (A declaration elsewhere would be a second place; the registry would not read it.)"""
    target = re.compile(r"^(oracle\.adapters\.\w+):\w+$")
    replaced = {"REGISTRY", "DRIVEN", "PRELOADED", "DOCUMENTED_AS"}
    offenders = []
    for path in sorted((ROOT / "oracle").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = _own_declaration(path, tree)
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
            named = isinstance(node, ast.Constant) and isinstance(node.value, str) and target.match(node.value)
            if named and (id(node) not in own or named.group(1) != module):
                offenders.append(f"{where}: {node.value}")
            called = isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None))
            if called == "Registered" and id(node) not in own:
                offenders.append(f"{where}: Registered(...)")
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                offenders += [f"{where}: {t.id} =" for t in targets if isinstance(t, ast.Name) and t.id in replaced]
    assert offenders == []


def test_each_adapter_modules_declaration_is_what_the_registry_read_from_its_source():
    """The registry reads each module's `IMPLEMENTATIONS` from its source (`registry._declared`, without importing
    it); imported, every module of oracle/adapters/ holds exactly the entries the registry has from it (a
    declaration the reader missed, an annotated one say, or one it read otherwise than Python does, fails here)."""
    declaring = set()
    for module_name in sorted(info.name for info in pkgutil.iter_modules(adapters.__path__)):
        module = importlib.import_module(f"oracle.adapters.{module_name}")
        read = tuple(entry for entry in registry.ENTRIES
                     if entry.kind != "venv" and entry.adapter.partition(":")[0] == module.__name__)
        assert getattr(module, "IMPLEMENTATIONS", ()) == read, module_name
        declaring |= {module_name} if read else set()
    assert "oracle_adapter" in declaring and "perl_adapter" in declaring
    # their places in the list: 1, 2, ... without a gap (a new one takes the next)
    listed = [entry.listed for entry in registry.ENTRIES if entry.kind != "venv"]
    assert listed == list(range(1, len(listed) + 1))


#: A module and a name no one else takes, and the next free place in the list (a new adapter of the package's own
#: changes neither what these tests write nor what they expect).
TOY_MODULE, TOY_NAME, NEXT = "declared_in_a_test", "declared-in-a-test", max(e.listed for e in registry.ENTRIES) + 1
TOY_TARGET = f"oracle.adapters.{TOY_MODULE}:Toy"
TOY = f'Registered("{TOY_NAME}", "in-process", "{TOY_TARGET}", listed={NEXT})'


def _toy_module(directory: Path, declaration: str) -> list[registry.Registered]:
    """The entries the registry reads from the package's modules and one more, TOY_MODULE holding `declaration`."""
    (directory / f"{TOY_MODULE}.py").write_text(f'"""A toy."""\n\n{declaration}\n\n\nclass Toy:\n    pass\n',
                                                encoding="utf-8")
    return registry._adapter_entries([*adapters.__path__, str(directory)], "oracle.adapters")


# (the toy module: its docstring on line 1, a blank line, the declaration from line 3)
@pytest.mark.parametrize(("declaration", "refused"), [
    # another module's class: the declaration is in the wrong place
    (f"IMPLEMENTATIONS = ({TOY.replace(TOY_MODULE, 'nltk_adapter')},)",
     rf"{TOY_MODULE}.py:3: '{TOY_NAME}' names oracle.adapters.nltk_adapter:Toy; an implementation is declared in "
     rf"the module of its class \(oracle.adapters.{TOY_MODULE}:CLASS\)"),
    # a venv library declares itself in drivers/libraries/
    (f"IMPLEMENTATIONS = ({TOY.replace('in-process', 'venv')},)",
     rf"'{TOY_NAME}' is of kind 'venv'; an adapter module declares one of in-process, command, script, sdist, npm"),
    # two at one place of the list (sacrebleu is listed=3)
    (f"IMPLEMENTATIONS = ({TOY.replace(f'listed={NEXT}', 'listed=3')},)",
     rf"'{TOY_NAME}' \({TOY_TARGET}\) and 'sacrebleu' \(.*\) are both listed=3; each implementation has a place "
     rf"of its own \(the next free one is {NEXT}\)"),
    (f"IMPLEMENTATIONS = ({TOY.replace(f', listed={NEXT}', '')},)",
     rf"'{TOY_NAME}' \({TOY_TARGET}\) has no place in the list: give it listed={NEXT}, the next free one"),
    # read from the source: a name is not plain data (EXTRA on line 3, the statement from 4, the entry on 5)
    (f'EXTRA = "nltk"\nIMPLEMENTATIONS = (\n    {TOY[:-1]}, extra=EXTRA),\n)',
     rf"{TOY_MODULE}.py:5: IMPLEMENTATIONS holds plain data only .* got 'EXTRA'"),
    (f"IMPLEMENTATIONS = ({TOY},)\nIMPLEMENTATIONS = IMPLEMENTATIONS + ()",
     rf"{TOY_MODULE}.py:3: IMPLEMENTATIONS is assigned 2 times"),
    (f"IMPLEMENTATIONS = [{TOY}]", rf"{TOY_MODULE}.py:3: IMPLEMENTATIONS holds plain data only .* got \"\[Registered"),
    ('IMPLEMENTATIONS = (NpmPin("1.0.0", "sha512-x"),)',
     rf"{TOY_MODULE}.py:3: IMPLEMENTATIONS is a tuple of Registered"),
], ids=["another-modules-class", "venv", "place-taken", "no-place", "not-plain-data", "assigned-twice", "a-list",
        "not-an-entry"])
def test_a_declaration_the_registry_cannot_place_is_refused_saying_where(tmp_path, declaration, refused):
    with pytest.raises(BleuValueError, match=refused):
        _toy_module(tmp_path, declaration)


def test_a_name_declared_twice_is_refused_naming_both_declarations(tmp_path):
    """A name is registered once: an adapter module declaring one already taken (by another adapter or by a venv
    library) is refused when the registry indexes its entries, naming both."""
    # (in the registry's order: nltk's module is listed=2, before the toy's; the venv libraries after both)
    for taken, first, second in (("nltk", "oracle.adapters.nltk_adapter:NltkImplementation", TOY_TARGET),
                                 ("compare-mt", TOY_TARGET, "oracle.adapters.venv_adapters:CompareMtImplementation")):
        entries = _toy_module(tmp_path, f"IMPLEMENTATIONS = ({TOY.replace(TOY_NAME, taken)},)")
        with pytest.raises(BleuValueError, match=f"implementation '{taken}' is declared twice \\({first} and "
                                                 f"{second}\\); a name is registered once"):
            registry._by_name([*entries, *registry._venv_entries()])
    assert list(registry._by_name(registry.ENTRIES)) == registry.names()


def test_the_declaration_is_read_whole_across_comments_and_blank_lines(tmp_path):
    """The registry parses the statement alone, from its first line to the first line at module level after which
    it parses: a comment or a blank line at column 0 inside it, and the statements after it, change nothing."""
    second = TOY.replace(TOY_NAME, f"{TOY_NAME}-two").replace(f"listed={NEXT}", f"listed={NEXT + 1}")
    declaration = (f"IMPLEMENTATIONS = (\n# a comment at column 0\n\n    {TOY},\n    # and one indented\n"
                   f"    {second},\n)\nAFTER = 1")
    entries = _toy_module(tmp_path, declaration)
    assert [(entry.name, entry.listed) for entry in entries[-2:]] == [(TOY_NAME, NEXT),
                                                                       (f"{TOY_NAME}-two", NEXT + 1)]


IMPORTED_BY_RESOLVE = """
import json, sys
from oracle.adapters import registry
declaring = {entry.adapter.partition(":")[0] for entry in registry.ENTRIES if entry.kind != "venv"}
entry = registry.resolve("sacrebleu")
before = sorted(declaring & set(sys.modules))
entry.load()
print(json.dumps([before, sorted(declaring & set(sys.modules))]))
"""


def test_resolving_a_name_imports_no_adapter_and_loading_it_only_its_own():
    """Issue 38: the registry finds the adapter modules' declarations without importing them (a fresh process:
    importing every adapter at each start costs some 145 ms of CPU), and `load()` imports the one it needs."""
    run = subprocess.run([sys.executable, "-c", IMPORTED_BY_RESOLVE], capture_output=True, text=True, timeout=120,
                         check=False, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [[], ["oracle.adapters.sacrebleu_adapter"]]


#: A new in-process implementation, as docs/extending.md says to write it: one module, its declaration and its class
#: (here the oracle by another name; its pip extra one of the package's, for `install` to name).
NEW_ADAPTER = f'''
"""A toy in-process implementation: the oracle, under its papineni profile, by another name."""

from oracle.adapters.oracle_adapter import OracleImplementation
from oracle.adapters.registry import Registered

IMPLEMENTATIONS = (
    Registered("{TOY_NAME}", "in-process", "oracle.adapters.{TOY_MODULE}:ToyImplementation", extra="nltk",
               listed={NEXT}),
)


class ToyImplementation(OracleImplementation):
    name = "{TOY_NAME}"
'''

SEEN_BY_THE_VERBS_IN_PROCESS = """
import json, sys
from oracle import adapters
adapters.__path__.append(sys.argv[1])  # the new module, beside the package's own
from oracle.adapters import registry
from oracle.cli import main

name = sys.argv[2]
main(["serve", "--list"])
entry = registry.resolve(name)
print(json.dumps({"kind": entry.kind, "class": entry.load().__name__, "install": main(["install", name])}))
sys.exit(main(["serve", "--impl", name]))
"""


def test_a_new_in_process_implementation_is_one_module_that_every_verb_reads(tmp_path):
    """docs/extending.md: an in-process implementation is one new module of oracle/adapters/ (and its test). With
    one added (on the package's path, in a fresh process), `serve --list` lists it at its place, it resolves to its
    class, `install` names its pip extra, and `serve --impl` serves it."""
    (tmp_path / f"{TOY_MODULE}.py").write_text(NEW_ADAPTER, encoding="utf-8")
    commands = '{"cmd": "start", "protocol": 1}\n{"cmd": "stop"}\n'
    run = subprocess.run([sys.executable, "-c", SEEN_BY_THE_VERBS_IN_PROCESS, str(tmp_path), TOY_NAME],
                         input=commands, capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    names = registry.names()
    adapters_declared = len(registry.ENTRIES) - len(registry.of_kind("venv"))
    *listed, seen, started = run.stdout.splitlines()  # (`stop` has no reply)
    # listed=NEXT: after those the adapter modules declare, before the venv libraries
    assert listed == [*names[:adapters_declared], TOY_NAME, *names[adapters_declared:]]
    assert json.loads(seen) == {"kind": "in-process", "class": "ToyImplementation", "install": 2}
    assert "pip install 'bleu-oracle[nltk]'" in run.stderr
    assert json.loads(started)["implementation"]["name"] == TOY_NAME


def test_no_module_but_its_own_names_a_venv_library():
    """A venv library is declared in its module of drivers/libraries/ and nowhere else: no other module of oracle/
    holds its name as a string (a list of them, a class of its own, pins of its own elsewhere)."""
    venv = {entry.name for entry in registry.of_kind("venv")}
    libraries = ROOT / "oracle" / "adapters" / "drivers" / "libraries"
    offenders = []
    for path in sorted((ROOT / "oracle").rglob("*.py")):
        if path.parent == libraries:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in venv:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert offenders == []


#: A new venv library, as docs/extending.md says to write it: one module of drivers/libraries/, its declaration and
#: its call. Its pins, profile and capabilities are made up: the registry and the verbs read them, nothing runs it.
NEW_LIBRARY = '''
"""A toy library: the number of segments over 4."""

from . import TEXT_LIMITS, environment, implementation, smoothing_row, smoothing_table, text_segments

ENVIRONMENT = environment((("toy-counter==1.2.3", "numpy==2.4.6"),), "import toy_counter", "toy-counter")
IMPLEMENTATIONS = [
    implementation("toy-counter", "nltk", dict(levels=["corpus"], max_order=5, **TEXT_LIMITS),
                   smoothing=smoothing_table("toy smooths with none or floor",
                                             smoothing_row("none", 0), smoothing_row("floor", 1, {"value": "eps"}))),
    implementation("toy-counter-sentence", "papineni", dict(levels=["sentence"]), preload=True),
]


def scorer(settings):
    def score(command):
        return len(text_segments(command)) / 4

    return score
'''

SEEN_BY_THE_VERBS = '''
import json, sys
from oracle.adapters.drivers import libraries
libraries.__path__.append(sys.argv[1])  # the new module, beside the package's own
from oracle.adapters import environments, registry, venv_adapters
from oracle.cli import main
from oracle.commands import install

main(["serve", "--list"])
toy, sentence = registry.resolve("toy-counter"), registry.resolve("toy-counter-sentence")
declared = toy.load()
print(json.dumps({
    "install": "toy-counter" in install.OWN and "toy-counter-sentence" not in install.OWN,
    "pins": list(map(list, environments.VENVS["toy-counter"].steps)), "shares": sentence.shares,
    "preload": [toy.preload, sentence.preload], "environment": sentence.environment,
    "class": [declared.__name__, declared is venv_adapters.ToyCounterImplementation],
    "handshake": json.loads(declared.handshake_json()), "argv": sentence.load().command()[2:],
    "settings": declared.settings()}))
'''


def test_a_new_venv_library_is_one_module_that_every_verb_reads(tmp_path):
    """docs/extending.md: a venv library is one new module of drivers/libraries/ (and its test). With one added (on
    the package's path, in a fresh process), the registry lists both implementations it declares, `install`
    prepares the first, the second runs in its environment, and the declaration is made from the module's data."""
    (tmp_path / "toy_counter.py").write_text(NEW_LIBRARY, encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", SEEN_BY_THE_VERBS, str(tmp_path)], capture_output=True, text=True,
                         timeout=120, check=False, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    *listed, seen = run.stdout.splitlines()
    # toy_counter.py: the last module, after tfma.py
    assert listed == [*registry.names(), "toy-counter", "toy-counter-sentence"]
    seen = json.loads(seen)
    assert seen["install"] and seen["shares"] == "toy-counter" == seen["environment"]
    assert seen["pins"] == [["toy-counter==1.2.3", "numpy==2.4.6"]] and seen["preload"] == [False, True]
    assert seen["class"] == ["ToyCounterImplementation", True]
    # the handshake: declare_capabilities' defaults with what the module states, smoothing from its table's rows
    # that fix nothing (both here), the version its pins give the distribution (toy-counter==1.2.3)
    assert seen["handshake"] == {
        "protocol": 1, "implementation": {"name": "toy-counter", "version": "1.2.3", "language": "python"},
        "profile": "nltk", "capabilities": {
            "levels": ["corpus"], "weights": "any", "max_order": 5, "smoothing": ["none", "floor"],
            "statistics": False, "lowercase": False, **TEXT_LIMITS}}
    assert seen["settings"] == {"smoothing": {"none": [0, {}], "floor": [1, {"value": "eps"}]}}
    # the second runs the module's call in the first's environment, told to preload (no table: no other setting)
    assert seen["argv"][0] == "toy-counter" and json.loads(seen["argv"][2]) == {"preload": True}


def test_a_library_module_must_declare_the_implementation_named_after_it():
    """The implementation named after the module owns its environment; a module declaring none by that name would
    leave the environment without an owner (and the driver would not find its call under that name)."""
    from oracle.adapters.drivers.libraries import environment, implementation

    pins = environment((("toy==1",),), "import toy", "toy")
    with pytest.raises(BleuValueError, match="one of them must be named 'toy-counter'"):
        registry._library_entries("toy-counter", pins, [implementation("toy", "nltk", {})])


def test_documented_as_is_a_registered_name_with_curated_entries():
    """ignite-micro is the same library code as ignite: its discrepancies are ignite's (diagnose is fed the name
    by its callers, never reading the registry)."""
    filed = {entry["implementation"] for entry in discrepancies.load()}
    assert filed <= set(registry.names())
    for entry in registry.ENTRIES:
        if entry.documented_as:
            assert entry.documented_as in filed and entry.documented_as != entry.name
    assert registry.documented_as("ignite-micro") == "ignite"
    assert registry.documented_as("mypackage.adapter:Mine") == "mypackage.adapter:Mine"


def test_every_extra_is_a_pip_extra_of_the_package():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (everything,) = extras["all"]
    for entry in registry.ENTRIES:
        if entry.extra:
            assert entry.extra in extras and entry.extra in everything.partition("[")[2].rstrip("]").split(","), \
                entry.name
        else:
            assert entry.kind != "in-process" or entry.name == "oracle", f"{entry.name} has no pip extra"


KNOWN = ", ".join(registry.names())


@pytest.mark.parametrize(("argv", "said"), [
    (["check", "--impl", "nope"], "unknown implementation 'nope'; known: " + KNOWN + " (or MODULE:CLASS"),
    (["fuzz", "--impl", "nope"], "unknown implementation 'nope'; known: " + KNOWN + " (or MODULE:CLASS"),
    (["serve", "--impl", "nope"], "unknown implementation 'nope'; known: " + KNOWN + " (or MODULE:CLASS"),
    (["install", "nope"], "unknown implementation 'nope'; known: " + KNOWN),
    (["install", "--verify", "bleu-score", "nope"], "unknown implementation 'nope'; known: " + KNOWN),
    (["report", "--impl", "nope", "nltk", "neither"], "unknown implementations 'nope', 'neither'; known: " + KNOWN),
    (["history", "nope"], "unknown implementation 'nope'; known: " + KNOWN),
], ids=lambda value: value[0] if isinstance(value, list) else "")
def test_an_unknown_name_is_one_usage_error_in_every_verb(argv, said, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (report and history would write under the current directory)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert said in captured.err and captured.err.count("\n") == 1 and captured.out == "", captured.err


def test_a_registered_name_a_verb_does_not_take_says_what_it_needs(capsys):
    """`install` of a library that is a pip extra, or that runs in another's environment, is a usage error saying
    so (argparse's `invalid choice` before); `history` of a library without release specs says which have them."""
    assert main(["install", "nltk"]) == 2
    assert "pip install 'bleu-oracle[nltk]'" in capsys.readouterr().err
    assert main(["install", "compare-mt-sentence"]) == 2
    assert "`bleu-oracle install compare-mt` prepares it" in capsys.readouterr().err
    assert main(["history", "metrax"]) == 2
    assert "`history` knows nltk, promptfoo, sacrebleu, torchmetrics (got 'metrax')" in capsys.readouterr().err


def test_the_unknown_implementation_error_is_of_the_one_root_family():
    from oracle.formulas.errors import BleuOracleError, BleuValueError

    with pytest.raises(registry.UnknownImplementation) as raised:
        registry.resolve("bleurt")
    assert isinstance(raised.value, BleuValueError) and isinstance(raised.value, BleuOracleError)
    assert str(raised.value) == f"unknown implementation 'bleurt'; known: {KNOWN}"
