"""`bleu-oracle`: a thin command line over the library API.

Exit codes: 0 success (conforming), 1 deviations found, 2 usage or
configuration error, 3 an implementation could not be driven, 4 an internal error of bleu-oracle.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import TextIO

from oracle import __version__
from oracle.commands import SUMMARIES, VERBS
from oracle.commands.common import HelpFormatter, add_verbosity
from oracle.escaping import close_name, shown
from oracle.exitcodes import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from oracle.formulas.errors import BleuOracleError, os_reason
from oracle.signals import Interrupted


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs["formatter_class"] = HelpFormatter  # one width, paragraphs kept apart, on every verb
        super().__init__(*args, **kwargs)

    def _get_values(self, action, arg_strings):
        """An option naming a file or directory given an empty value (`--report "$OUT"`, OUT unset) is refused: read
        as a path, "" is the current directory."""
        if _PATH_METAVAR.search(str(action.metavar or "")) and any(not text.strip() for text in arg_strings):
            raise argparse.ArgumentError(action, "is empty (an unset shell variable?): give a path")
        return super()._get_values(action, arg_strings)

    def error(self, message):  # one line, as every usage error: what was wrong, and where the usage is
        self.exit(EXIT_USAGE, f"{self.prog}: error: {_with_guess(message)} (`{self.prog} --help` shows the usage)\n")


#: The metavars of the options and arguments that name a file or a directory (FILE, DIR, DIR|FILE, FILE_OR_JSON,
#: RESULTS, RUN).
_PATH_METAVAR = re.compile(r"\b(FILE|DIR|RESULTS|RUN)\b|FILE_OR_JSON")


#: argparse's refusal of a value outside an argument's choices (Python 3.11's wording).
_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<typed>[^']*)' \(choose from (?P<choices>.*)\)$")


def _with_guess(message: str) -> str:
    """argparse's message, with "did you mean 'nltk'?" after a misspelt choice (`--profile nlkt`)."""
    refused = _INVALID_CHOICE.search(message)
    if refused is None:
        return message
    meant = close_name(refused["typed"], re.findall(r"'([^']*)'", refused["choices"]))
    return message if meant is None else f"{message}; did you mean {meant!r}?"


def _verb_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The parser of the verb (and action: `baseline write`) `argv` names: the deepest whose name it gives."""
    for word in argv:
        children = next((action.choices for action in parser._actions
                         if isinstance(action, argparse._SubParsersAction)), None)
        if children is None:
            break
        if word in children:
            parser = children[word]
    return parser


def _refuse_unrecognized(parser: argparse.ArgumentParser, unrecognized: list[str]) -> None:
    """Exit 2: `unrecognized` are arguments `parser` does not take; a misspelt option is given its close name."""
    options = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    typed = next((word.split("=", 1)[0] for word in unrecognized if word.startswith("--")), None)
    meant = close_name(typed, options) if typed else None
    guess = f"; did you mean {meant!r}?" if meant else ""
    parser.error(f"unrecognized arguments: {' '.join(unrecognized)}{guess}")


def build_parser(verbs=VERBS, *, only=None):
    """The parser. With `only`, just that verb's module is imported and registered in full; the others
    are listed by name and one-line help (what `bleu-oracle --help` shows), so start-up pays for one verb."""
    parser = _Parser(
        prog="bleu-oracle",
        description="A literal reference oracle and conformance suite for BLEU.",
        epilog="Exit codes: 0 ok/conforming, 1 deviations found, 2 usage or configuration error, "
        "3 the implementation could not be driven, 4 an internal error (a bug in bleu-oracle; "
        "BLEU_ORACLE_TRACEBACK=1 shows its traceback). `bleu-oracle VERB --help` documents each verb.\n\n"
        "Examples:\n"
        "  bleu-oracle check --command \"node examples/node-bleu/bleu.js\"   # your BLEU, speaking PROTOCOL.md\n"
        "  bleu-oracle check --impl nltk                                 # a built-in one (serve --list)\n"
        "  bleu-oracle doctor --hyp out.txt --ref ref.txt --number 26.65  # why this number on these files\n"
        "  bleu-oracle score --hyp out.txt --ref ref.txt --profile sacrebleu",
    )
    parser.add_argument("--version", action="version", version=f"bleu-oracle {__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    subparsers.required = True
    for verb in verbs:
        if only is None or verb == only:
            importlib.import_module(f"oracle.commands.{verb}").register(subparsers)
            _with_verbosity(subparsers.choices[verb])
        else:
            subparsers.add_parser(verb, help=SUMMARIES[verb])
    return parser


def _with_verbosity(parser):
    """-q and -v on a verb and on each of its actions (`cases list`, `baseline write`, ...)."""
    add_verbosity(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _with_verbosity(child)


def main(argv=None, *, verbs=VERBS):
    """Run `bleu-oracle` with `argv`; `verbs` limits the parser to some verbs (tests)."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    _never_fail_on_text(sys.stdout)
    verb = next((a for a in argv if not a.startswith("-")), "")
    parser = build_parser(verbs, only=verb if verb in verbs else "")
    args, unrecognized = parser.parse_known_args(argv)
    if unrecognized:  # (refused by the verb's own parser: its name and its usage, not the list of verbs)
        _refuse_unrecognized(_verb_parser(parser, argv), unrecognized)
    spoken = " ".join(filter(None, (args.verb, getattr(args, "action", None))))  # `baseline update`, as argparse says
    try:
        return args.handler(args)
    except BleuOracleError as exc:
        print(shown(f"bleu-oracle {spoken}: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `bleu-oracle ... | head` is not an error
        return EXIT_OK
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Interrupted as exc:  # SIGTERM or ^C while a report was being finished: it was, then the run stops
        print(f"bleu-oracle {spoken}: interrupted (exit {exc.exit_code})", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a file or directory that cannot be read or written; standard output (a full disk)
        where = f"{exc.filename}: " if exc.filename else ""
        print(shown(f"bleu-oracle {spoken}: error: {where}{os_reason(exc)}"), file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - a bug here must not look like "deviations found" (exit 1)
        if os.environ.get("BLEU_ORACLE_TRACEBACK") or getattr(args, "verbose", False):
            import traceback

            traceback.print_exc()  # and still exit 4: a traceback is never "deviations found"
        print(shown(f"bleu-oracle {spoken}: internal error: {type(exc).__name__}: {exc} -- a bug in bleu-oracle; "
                    "run again with BLEU_ORACLE_TRACEBACK=1 for the traceback"), file=sys.stderr)
        return EXIT_INTERNAL


def _never_fail_on_text(stream: TextIO) -> None:
    """Text a stream's encoding cannot carry (a lone surrogate from a command-line argument, which Python
    reads with surrogateescape) is printed as its escape, as stderr already does, not raised as an error."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")


if __name__ == "__main__":
    sys.exit(main())
