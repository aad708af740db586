"""Build the vector packs (`scripts/build-packs`): the test vectors of every profile (`cases export
--all-profiles`) as an npm package and as a data-only Python wheel, each with its README and consumer test.

Nothing is published and nothing is downloaded: `npm pack` and `pip wheel --no-index --no-build-isolation`
(setuptools from the project's environment) work offline. The templates beside this file (npm/, python/) are
the packages' code, README templates (README.template.md) and consumer tests; the README shows the consumer
test verbatim.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from oracle import __version__
from oracle.formulas.profiles import PROFILES
from oracle.models.export import EXPORT_FORMAT
from oracle.reports.export import SCHEMA_FILE, write_export
from oracle.suite import SUITE_VERSION
from oracle.suite.cases import load_cases

HERE = Path(__file__).resolve().parent
NAME = "bleu-oracle-vectors"
MODULE = "bleu_oracle_vectors"
#: Each package's README template (npm/, python/): named so, as its `{{...}}` placeholders are filled here, and
#: its first line says so to anyone who opens it in the repository.
README_TEMPLATE = "README.template.md"
TEMPLATE_NOTE = ("<!-- A template, not a README: scripts/build-packs (packs/build.py) renders it into the package's "
                 "README.md, filling in its placeholders. -->")
#: The longest a packaging tool may take (it runs offline, on a few hundred kilobytes).
TOOL_SECONDS = 300


def pack_version(suite_version: str = SUITE_VERSION, oracle_version: str = __version__) -> str:
    """MAJOR is the suite's version (a case format or an id changes it); MINOR.PATCH the release's."""
    _, minor, patch = (oracle_version.split(".") + ["0", "0"])[:3]
    return f"{int(suite_version)}.{minor}.{patch}"


def render_readme(template: Path, consumer_test: Path, version: str) -> str:
    """A package's README from its template (`README_TEMPLATE`): the first line, which says it is a template,
    dropped; every placeholder filled, the consumer test shown verbatim."""
    first, _, text = template.read_text(encoding="utf-8").partition("\n")
    if first != TEMPLATE_NOTE:
        raise RuntimeError(f"{template}: the first line must be {TEMPLATE_NOTE!r} (got {first[:200]!r})")
    values = {"{{VERSION}}": version, "{{ORACLE_VERSION}}": __version__, "{{PROFILES}}": ", ".join(PROFILES),
              "{{FORMAT}}": EXPORT_FORMAT,
              "{{CONSUMER_TEST}}": consumer_test.read_text(encoding="utf-8")}
    unknown = sorted(set(re.findall(r"\{\{[^{}\n]{0,40}\}\}", text)) - set(values))
    if unknown:  # a placeholder this script does not fill would ship as text
        raise RuntimeError(f"{template}: placeholders build-packs does not fill: {', '.join(unknown)}")
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def pack_metadata(version: str) -> str:
    return json.dumps({"name": NAME, "version": version, "suite_version": SUITE_VERSION,
                       "oracle_version": __version__, "profiles": list(PROFILES)}, indent=1) + "\n"


def copy_vectors(vectors: Path, into: Path) -> None:
    """The vector files into `into`/vectors, their schema into `into`."""
    (into / "vectors").mkdir(parents=True)
    for profile in PROFILES:
        shutil.copy2(vectors / f"{profile}.json", into / "vectors" / f"{profile}.json")
    shutil.copy2(vectors / SCHEMA_FILE, into / SCHEMA_FILE)


def run(command: list[str], cwd: Path) -> str:
    """Run a packaging tool; its output, or a RuntimeError with its own words when it fails."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TOOL_SECONDS, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {(done.stderr or done.stdout)[-2000:]}")
    return done.stdout


def build_npm(vectors: Path, stage: Path, out: Path, version: str) -> Path:
    package = stage / "npm"
    copy_vectors(vectors, package)
    shutil.copy2(HERE / "npm" / "index.js", package / "index.js")
    (package / "pack.json").write_text(pack_metadata(version), encoding="utf-8")
    (package / "README.md").write_text(render_readme(HERE / "npm" / README_TEMPLATE, HERE / "npm" / "consumer.test.js",
                                                     version), encoding="utf-8")
    (package / "package.json").write_text(json.dumps({
        "name": NAME, "version": version, "description": "BLEU test vectors: every profile's cases, flagged, "
        "with what each needs of an implementation (bleu-oracle)", "main": "index.js", "license": "Apache-2.0",
        "engines": {"node": ">=18"}, "keywords": ["bleu", "test-vectors", "conformance"],
        "files": ["index.js", "pack.json", "vectors/", SCHEMA_FILE, "README.md"],
    }, indent=1) + "\n", encoding="utf-8")
    run(["npm", "pack", "--offline", "--silent", "--pack-destination", str(out)], package)
    return out / f"{NAME}-{version}.tgz"


def build_python(vectors: Path, stage: Path, out: Path, version: str) -> Path:
    project = stage / "python"
    module = project / MODULE
    copy_vectors(vectors, module)
    for source in (HERE / "python" / MODULE).glob("*.py"):
        shutil.copy2(source, module / source.name)
    (module / "pack.json").write_text(pack_metadata(version), encoding="utf-8")
    (project / "README.md").write_text(render_readme(HERE / "python" / README_TEMPLATE, HERE / "python" /
                                                     "test_consumer.py", version), encoding="utf-8")
    (project / "pyproject.toml").write_text(f"""[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "{NAME}"
version = "{version}"
description = "BLEU test vectors: every profile's cases, flagged, with what each needs of an implementation (bleu-oracle)"
readme = "README.md"
license = "Apache-2.0"
requires-python = ">=3.9"

[tool.setuptools]
packages = ["{MODULE}"]

[tool.setuptools.package-data]
{MODULE} = ["*.json", "vectors/*.json"]
""", encoding="utf-8")
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-index", "--no-build-isolation", "--no-deps",
         "--wheel-dir", str(out), str(project)], project)
    return out / f"{MODULE}-{version}-py3-none-any.whl"


def build(out: Path) -> tuple[Path, Path]:
    """Both packs into `out`: (the npm tarball, the wheel)."""
    if shutil.which("npm") is None:  # before minutes of work, not after
        raise RuntimeError("npm is not on PATH: it packs the npm package (Debian: apt-get install npm)")
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    version = pack_version()
    with tempfile.TemporaryDirectory(prefix="build-packs.") as scratch:
        stage = Path(scratch)
        write_export(load_cases(), stage / "vectors", list(PROFILES))
        return build_npm(stage / "vectors", stage, out, version), build_python(stage / "vectors", stage, out, version)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/build-packs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("dist/packs"), help="where the packs go (default dist/packs)")
    args = parser.parse_args(argv)
    try:
        for path in build(args.out):
            print(path)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"build-packs: {' '.join(str(exc).split())}", file=sys.stderr)  # one line
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
