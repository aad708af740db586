"""`bleu-oracle serve`: run a built-in implementation as a protocol-v1 process."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import os
import sys

from oracle.adapters import registry
from oracle.adapters.base import AdapterUnavailable, Declared
from oracle.adapters.driven import DriverImplementation
from oracle.commands import SUMMARIES
from oracle.exitcodes import EXIT_OK, EXIT_UNDRIVABLE, EXIT_USAGE
from oracle.formulas.errors import BleuValueError, os_reason
from oracle.formulas.profiles import PROFILES

HELP = """Serve an implementation over protocol v1 on stdin/stdout (see PROTOCOL.md).

The runner (or you, by hand) writes one JSON command per line on stdin
({"cmd": "start", "protocol": 1}, then {"cmd": "score", ...}, then
{"cmd": "stop"}) and reads one JSON reply per line on stdout. Nothing else is
written to stdout: library chatter goes to stderr.

NAME is a built-in implementation ({names}; `--list` prints them; `oracle` is
this package's oracle under any --profile, default papineni) or MODULE:CLASS,
your own oracle.adapters.base.Implementation subclass. A library adapter needs
its library installed, e.g. pip install 'bleu-oracle[nltk]'. A library that runs
outside this Python ({driven}) is served by its own driver, which speaks
protocol v1 itself: this command becomes that process (`bleu-oracle install
NAME` prepares it first).
--profile applies to implementations that take one (the oracle); a library
adapter declares its own profile, and asking for another is a usage error.

Examples:
  bleu-oracle serve --impl oracle --profile nltk
  printf '%s\\n' '{"cmd":"start","protocol":1}' '{"cmd":"stop"}' | bleu-oracle serve --impl oracle
  bleu-oracle serve --impl mypackage.adapter:MyImplementation
  bleu-oracle serve --list

Exit codes: 0 after stop or end of input, 2 usage error, 3 the implementation
cannot be loaded (its library is missing), 4 an internal error (a bug in bleu-oracle).
"""


def register(subparsers):
    parser = subparsers.add_parser(
        "serve", help=SUMMARIES["serve"],
        description=HELP.replace("{names}", ", ".join(registry.names())).replace(
            "{driven}", ", ".join(entry.name for entry in registry.ENTRIES if entry.driven)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--impl", metavar="NAME", help="the implementation: a built-in name or MODULE:CLASS")
    parser.add_argument(
        "--profile", choices=sorted(PROFILES), default=None, metavar="P",
        help=f"the profile the oracle follows, one of {', '.join(sorted(PROFILES))} (default papineni); only "
        "for implementations that take one",
    )
    parser.add_argument("--list", action="store_true", help="print the built-in implementation names and exit")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for name in registry.names():
            print(name)
        return EXIT_OK
    if not args.impl:
        print("bleu-oracle serve: error: --impl NAME is required (or --list)", file=sys.stderr)
        return EXIT_USAGE
    try:
        implementation = load_implementation(args.impl, profile=args.profile)
    except (AdapterUnavailable, ImportError) as exc:
        print(f"bleu-oracle serve: cannot load implementation {args.impl!r}: {exc}", file=sys.stderr)
        return EXIT_UNDRIVABLE
    for stream, name, what in ((sys.stdin, "input", "reads its requests"),
                               (sys.stdout, "output", "writes its replies")):
        if stream is None:  # (started with that descriptor closed)
            raise BleuValueError(f"standard {name} is closed: `serve` {what} there (`bleu-oracle check --impl "
                                 f"{args.impl}` runs it with both)")
    if isinstance(implementation, DriverImplementation):
        return _become(implementation.command())
    from oracle.adapters.server import serve

    with _protocol_stdout() as out:
        return serve(implementation, sys.stdin.buffer, out)


def _current_directory_importable() -> None:
    """The current directory on sys.path (last, so that it shadows nothing installed): the installed `bleu-oracle`
    command is a console script, whose sys.path holds its own directory, not the user's, so a yourmodule.py beside
    the user was "No module named 'yourmodule'" where `python -m oracle serve` found it."""
    here = os.getcwd()
    if not any(entry in ("", ".") or os.path.abspath(entry) == here for entry in sys.path):
        sys.path.append(here)


def load_implementation(name: str, *, profile: str | None = None) -> Declared:
    """Construct the implementation called `name` (a registry name or "module:Class").

    Raises BleuValueError for usage errors (unknown name: `registry.UnknownImplementation`, a --profile it
    cannot follow), AdapterUnavailable or ImportError when its library is missing."""
    target = name if ":" in name else registry.resolve(name, own_class=True).adapter
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise BleuValueError(f"`--impl` {name!r}: MODULE:CLASS names a module and a class in it")
    if ":" in name:  # the user's own module: found in the current directory, as `python -m oracle` finds it
        _current_directory_importable()
    module = importlib.import_module(module_name)
    try:
        cls = getattr(module, class_name)
    except AttributeError:
        raise BleuValueError(f"`--impl` {name!r}: module {module_name!r} has no {class_name!r}") from None
    if not isinstance(cls, type) or not any(callable(getattr(cls, m, None)) for m in ("score", "command")):
        # checked before it is called: MODULE:CLASS must not run an arbitrary callable
        raise BleuValueError(f"`--impl` {name!r} is not an implementation: {class_name!r} is not a class with "
                             "score() (or a driver's command())")
    takes_profile = _takes_profile(cls)
    if profile is not None and not takes_profile:
        declared = getattr(cls, "profile", None)
        if declared != profile:
            raise BleuValueError(
                f"`--profile {profile}` does not apply to {name!r}: it declares profile {declared!r} "
                f"(only implementations that take a profile, like the oracle, follow --profile)"
            )
    implementation = cls(profile=profile) if takes_profile and profile is not None else cls()
    if profile is not None and implementation.profile != profile:
        raise BleuValueError(
            f"`--profile {profile}` does not apply to {name!r}: it declares profile {implementation.profile!r}"
        )
    # an adapter scores here; a library outside this Python has a driver to start instead
    for method in ("handshake", "command" if isinstance(implementation, DriverImplementation) else "score"):
        if not callable(getattr(implementation, method, None)):
            raise BleuValueError(f"`--impl` {name!r} is not an implementation: it has no {method}()")
    return implementation


def _become(argv: list[str]) -> int:
    """Replace this process by a driver that speaks protocol v1 itself (same stdin, stdout, stderr):
    one process, one protocol. Returns only when it cannot start (exit 3, saying why)."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        print(f"bleu-oracle serve: cannot start {argv[0]}: {os_reason(exc)}", file=sys.stderr)
    return EXIT_UNDRIVABLE


def _takes_profile(cls):
    try:
        return "profile" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False


@contextlib.contextmanager
def _protocol_stdout():
    """A private copy of file descriptor 1 for protocol lines; fd 1 itself (and so anything a
    native library writes there, and sys.stdout) goes to stderr while serving."""
    sys.stdout.flush()
    try:
        protocol_fd = os.dup(1)
        os.dup2(2, 1)
    except (OSError, AttributeError, ValueError):  # no real descriptors (embedded use): plain stdout
        yield sys.stdout
        return
    out = os.fdopen(protocol_fd, "w", encoding="ascii", newline="\n")
    try:
        yield out
    finally:
        sys.stdout.flush()
        os.dup2(protocol_fd, 1)
        try:
            out.close()
        except OSError:  # the reader has gone (broken pipe): nothing left to say
            pass
