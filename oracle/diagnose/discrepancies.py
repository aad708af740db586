"""The curated discrepancy classes (oracle/diagnose/data/discrepancies.yaml): where a library departs from the
documentation it claims, each with its root cause; `check`, `fuzz`, `report` and the tests read them here."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from oracle.formulas.errors import BleuValueError

if TYPE_CHECKING:
    from oracle.models.discrepancy import Discrepancy

# The YAML reader and the entries' model are imported where the file is read: a `--jobs` worker imports this module
# with the session, and reads the file only when it classifies a failure (about 15 ms of CPU a process, never used
# on a run that classifies none).

PATH = Path(__file__).resolve().parent / "data" / "discrepancies.yaml"


@lru_cache(maxsize=1)
def _file_models():
    """The file's entries as validated models, read and validated once."""
    from oracle.suite.safeyaml import load_yaml

    try:
        entries = load_yaml(PATH.read_text(encoding="utf-8"), name=str(PATH))["discrepancies"]
    except (OSError, KeyError, TypeError) as exc:
        raise BleuValueError(f"{PATH}: cannot read the discrepancy classes ({type(exc).__name__}: {exc})") from None
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise BleuValueError(f"{PATH}: `discrepancies` must be a list of entries")
    return tuple(models(entries))


def check():
    """Read and validate the file (once, as `load`), raising what `load` raises, without building `load`'s
    dictionaries: what a session checks before anything starts. A `check` that classifies no failure (a `--jobs`
    parent, a clean run) never needs them, and dumping the entries costs about 20 ms of CPU the first time."""
    _file_models()


@lru_cache(maxsize=1)
def load():
    """Every entry, in file order (read once). A file that cannot be read is a BleuValueError naming it."""
    return tuple(model.model_dump(exclude_none=True) for model in _file_models())


def models(entries=None):
    """The entries as validated `Discrepancy` models (of the file when `entries` is None); a malformed
    entry is a BleuValueError naming it and the field."""
    from pydantic import ValidationError

    from oracle.models.discrepancy import Discrepancy

    if entries is None:
        return list(_file_models())
    out, seen = [], set()
    for index, entry in enumerate(entries):
        try:
            model = Discrepancy.model_validate(entry)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "entry"
            raise BleuValueError(f"{PATH}: entry {index} ({entry.get('id', '?')}): `{where}`: {error['msg']}") from None
        if model.id in seen:
            raise BleuValueError(f"{PATH}: entry {index}: id {model.id!r} repeats an earlier entry's")
        seen.add(model.id)
        out.append(model)
    return out


def entries_for(*names):
    """The entries filed under any of `names` (the name an implementation is documented as, which its registry
    entry gives: `oracle.adapters.registry.documented_as`, ignite-micro's is ignite; or its handshake name)."""
    wanted = {name for name in names if name}
    return [entry for entry in load() if entry.get("implementation") in wanted]


def models_for(*names):
    """The entries filed under any of `names`, as `entries_for` gives them, as their validated models."""
    wanted = {name for name in names if name}
    return [model for model in _file_models() if model.implementation in wanted]


def classes_for(name):
    """The `oracle.diagnose.classify` names of the classes filed under `name` (as `entries_for`), sorted."""
    return sorted({entry["classify"] for entry in entries_for(name) if entry.get("classify")})


def reproduces(entry: Discrepancy, answer: float | str | None) -> bool:
    """Whether `answer` (a score; NaN, or its JSON text "NaN", too) is the score curated entry `entry` (a
    `Discrepancy` model) recorded from its library: within the numeric contract, or, where the entry states one,
    within its `reproduced_within` (float32 kernels whose last bit differs by CPU), the zero rule kept either way.
    False where the entry records no score (a rejection, statistics only)."""
    from .judge import Contract, breaks_zero_rule

    recorded = entry.example.implementation.get("score")
    if recorded is None or answer is None:
        return False
    given, kept = float(answer), float(recorded)  # ("NaN" as JSON keeps it)
    contracts = [Contract()]
    if entry.reproduced_within is not None:
        contracts.append(Contract(rel=entry.reproduced_within.relative, abs=entry.reproduced_within.absolute))
    return any(contract.close(given, kept) for contract in contracts) and not breaks_zero_rule(given, kept)
