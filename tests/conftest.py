"""Shared fixtures and helpers: generic only (paths to the repository's data, loading an adapter, the skip rule of
tests/skips.py). Keep this small."""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skips import disallowed, in_ci, skip_reason

REPO_ROOT = Path(__file__).resolve().parents[1]
#: The unmodified reference scripts (../shared/tools/moses): the Perl adapters run them where they are
#: present (tests of those adapters skip, with the reason, where they are not).
SCRIPTS = REPO_ROOT.parent / "shared" / "tools" / "moses"
for _variable, _script in (("BLEU_ORACLE_MULTI_BLEU", "multi-bleu.perl"), ("BLEU_ORACLE_MTEVAL", "mteval-v13a.pl")):
    if (SCRIPTS / _script).is_file():
        os.environ.setdefault(_variable, str(SCRIPTS / _script))
#: The fakes are scripts (they serve on stdin when imported): not for --doctest-modules to import.
collect_ignore = ["fakes"]


def load(name: str) -> Any:
    """The built-in implementation registered as `name`, to call `score` on (a library scored by its own
    driver: through that driver's process, `through_driver`); the test skips when its library is missing (under
    CI=true its environment is prepared first, and a skip is a failure: tests/skips.py)."""
    from through_driver import ThroughDriver

    from oracle.adapters import environments
    from oracle.adapters.base import AdapterUnavailable
    from oracle.adapters.driven import DriverImplementation
    from oracle.commands.serve import load_implementation

    try:
        if in_ci():  # CI prepares what a test needs (outside CI a missing environment is a skip saying so)
            environments.prepare(name)
        implementation = load_implementation(name)
    except AdapterUnavailable as exc:
        pytest.skip(str(exc))
    return ThroughDriver(implementation) if isinstance(implementation, DriverImplementation) else implementation



def prepared(name: str) -> Any:
    """The implementation `name`, its environment (venv, npm package, sdist or script) prepared first, as
    `check --impl NAME` does (once: kept in ~/.cache/bleu-oracle/implementations); the test skips when it
    cannot be prepared."""
    from oracle.adapters import environments
    from oracle.adapters.base import AdapterUnavailable

    try:
        environments.prepare(name)
    except AdapterUnavailable as exc:
        pytest.skip(f"{name} could not be prepared: {exc}")  # under CI=true a failure (pytest_runtest_makereport)
    return load(name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under CI=true a skip whose reason tests/skips.py does not allow is a failure showing that reason: an
    environment that could not be prepared, a tool the setup should have installed, data that should be there
    (outside CI the skip stands, and `scripts/test` prints its reason with -rs)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = skip_reason(report.longrepr)
    if disallowed(reason):
        report.outcome = "failed"
        report.longrepr = (f"skipped under CI=true for a reason tests/skips.py does not allow (a skip there may hide "
                           f"a failure): {reason}")

@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks (--dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that share a module-scoped fixture (one `report`, `check` or export run, one server process) share
    one xdist_group, so under `pytest -n N --dist loadgroup` they run on one worker and the fixture runs once,
    not once per worker that happens to get one of them. A test that names its own group keeps it (finer: one
    group per run the fixture caches)."""
    for item in items:
        definitions = getattr(item, "_fixtureinfo", None)
        if definitions is None or item.get_closest_marker("xdist_group"):  # a doctest; a test naming its group
            continue
        if any(fixture.scope == "module" for name in item.fixturenames
               for fixture in definitions.name2fixturedefs.get(name, ())):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(scope="session", autouse=True)
def _no_driver_left_running() -> Iterator[None]:
    """The driver processes `load` started are stopped when the tests end."""
    yield
    from through_driver import stop_all

    stop_all()


@pytest.fixture(scope="session", autouse=True)
def _search_cache_of_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every run the tests start keeps its search cache (oracle.harness.searchcache) in a temporary directory of
    this session's own (one per xdist worker, pytest's to clean up), never in the user's ~/.cache."""
    previous = os.environ.get("BLEU_ORACLE_SEARCH_CACHE")
    os.environ["BLEU_ORACLE_SEARCH_CACHE"] = str(tmp_path_factory.mktemp("search-cache"))
    yield
    if previous is None:
        os.environ.pop("BLEU_ORACLE_SEARCH_CACHE", None)
    else:
        os.environ["BLEU_ORACLE_SEARCH_CACHE"] = previous


@pytest.fixture(scope="session")
def repo_root():
    """The repository root (the directory holding `oracle/`, `cases/`, `tests/`)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def cases_dir():
    """The repository's case directory, `cases/`."""
    return REPO_ROOT / "cases"


@pytest.fixture(scope="session")
def seeds_dir():
    """The source documents, `../shared/seeds`; tests using it skip when it is absent."""
    path = REPO_ROOT.parent / "shared" / "seeds"
    if not path.is_dir():
        pytest.skip(f"the seed documents are not available ({path} is absent)")
    return path
