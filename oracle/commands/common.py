"""Argument types and groups shared by the verbs: profile, weights, smoothing, case folding; and the
implementation, report, limits and numeric contract of a `check` or `fuzz` session; and the preparing
step of `check`, `fuzz` and `report` (`prepare_implementations`)."""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from oracle.escaping import shown
from oracle.formulas.bounds import MAX_COUNT, MAX_DIGITS, MAX_ORDER
from oracle.formulas.conventions import SMOOTHING_METHODS, Smoothing
from oracle.formulas.errors import BleuOracleError, BleuValueError
from oracle.formulas.profiles import PROFILES

#: The largest number a float option takes (seconds, tolerances): anything beyond is a typo, not a setting.
FLOAT_OPTION_LIMIT = 1e6


def _finite_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number (got {text})") from None
    if value != value or abs(value) > FLOAT_OPTION_LIMIT:
        raise argparse.ArgumentTypeError(f"must be a finite number up to {FLOAT_OPTION_LIMIT:g} (got {text})")
    return value


def positive_float(text):
    value = _finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number (got {text})")
    return value


def non_negative_float(text):
    value = _finite_float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative number (got {text})")
    return value


def tolerance(text):
    """A relative or absolute tolerance of the numeric contract: 0 to 1 (a wider one would pass anything)."""
    value = non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be at most 1 (got {text}): a wider tolerance would pass any score")
    return value


#: The largest count an integer option takes (--examples, --shrink-budget, ...): past it a run would not end in
#: any lifetime, and the number itself says it is a typo.
MAX_OPTION_COUNT = 10**9
#: The most processes --jobs starts: more than any machine's cores is a typo, and each costs an implementation.
MAX_JOBS = 256


def _integer(text: str, lowest: int, *, most: int = MAX_OPTION_COUNT) -> int:
    """An integer option from `lowest` to `most`, or a usage error saying which, in the user's words."""
    what = "a non-negative integer" if lowest == 0 else "a positive integer"
    shown = text if len(text) <= 40 else text[:40] + "..."
    digits = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", digits):
        raise argparse.ArgumentTypeError(f"must be {what} (got {shown!r})")
    value = int(digits) if len(digits.lstrip("+-")) <= len(str(most)) else most + 1  # (never int() of 5,000 digits)
    if value < lowest:
        raise argparse.ArgumentTypeError(f"must be {what} (got {shown})")
    if value > most:
        raise argparse.ArgumentTypeError(f"must be at most {most:,} (got {shown})")
    return value


def non_negative_int(text):
    return _integer(text, 0)


def positive_int(text):
    return _integer(text, 1)


def job_count(text):
    """--jobs N: processes to run at once, 1 to MAX_JOBS."""
    return _integer(text, 1, most=MAX_JOBS)


def parse_smoothing(text):
    """`METHOD` or `METHOD:param=value[,param=value]`, e.g. `floor:value=0.1`; each value within the bounds of
    a number (`oracle.formulas.bounds`). A bad one is a usage error saying why (argparse would otherwise
    say only "invalid parse_smoothing value")."""
    method, _, params = text.partition(":")
    spec = {"method": method}
    for item in filter(None, params.split(",")):
        name, sep, value = item.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"parameters are name=value (got {item!r} in {text!r})")
        if name.strip() in spec:  # the second would silently win
            raise argparse.ArgumentTypeError(f"{name.strip()!r} is given twice in {text!r}")
        spec[name.strip()] = value.strip()
    try:
        return Smoothing.parse(spec)
    except BleuOracleError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seed_number(text: str) -> int:
    """A search seed: an integer of at most MAX_COUNT in magnitude (`oracle.formulas.bounds`), as a
    baseline records it."""
    try:
        value = int(text) if len(text) <= MAX_DIGITS else None
    except ValueError:
        value = None
    if value is None or abs(value) > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be an integer of magnitude at most {MAX_COUNT} (got {text[:40]})")
    return value


def read_shard_option(args: argparse.Namespace) -> None:
    """`--shard K/N` read into an `oracle.harness.shards.Shard` (None when not given), in place; a bad one is a
    usage error of one line saying what a shard is (raised as BleuValueError, not argparse's usage text)."""
    from oracle.harness.shards import Shard, parse_shard

    if isinstance(args.shard, str):
        args.shard = parse_shard(args.shard)
    if args.shard is not None and not isinstance(args.shard, Shard):
        raise BleuValueError(f"`--shard` must be K/N (got {args.shard!r:.40})")


#: The files a run's report writes itself: an output named by the user must not be one of them.
REPORT_OWN_FILES = ("results.jsonl", "summary.md", ".bleu-oracle-report.json")
#: Named files of a command line: (how the user named the option, the path given or None).
Named = Iterable[tuple[str, "str | os.PathLike | None"]]


def outputs_apart(outputs: Named, *, inputs: Named, report: Path,
                  input_directories: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse, before anything runs, an output file (`--junit FILE`) that would overwrite what the run reads or
    writes: one of its inputs (a reviewed baseline, a case file, a replay file), a file inside an input directory
    (a shard being merged), another output, or a file of the report itself (results.jsonl, summary.md, replay/)."""
    taken: dict[str, str] = {}
    for option, name in inputs:
        if name is not None and _names_a_file(name):  # (a --replay may be inline JSON instead)
            taken[os.path.realpath(name)] = f"{option} {name}"
    for own in REPORT_OWN_FILES:
        taken[os.path.realpath(report / own)] = f"the report's own {own}"
    directories = {os.path.realpath(d): f"the input directory {d}" for d in input_directories}
    directories[os.path.realpath(report / "replay")] = "the report's own replay/"
    for option, name in outputs:
        if name is None:
            continue
        where = os.path.realpath(name)
        clash = taken.get(where) or next((shown for real, shown in directories.items()
                                          if Path(where).is_relative_to(real)), None)
        if clash is not None:
            raise BleuValueError(f"`{option} {name}` would overwrite {clash}: name another file")
        inside = Path(where).is_relative_to(os.path.realpath(report))  # (the report's own checks say more there)
        problem = None if inside else _unwritable(Path(where))
        if problem is not None:  # found now, not after the whole run
            raise BleuValueError(f"`{option} {name}`: {problem}")
        taken[where] = f"{option} {name}"


def _unwritable(path: Path) -> str | None:
    """Why a file cannot be written at `path` (a directory there; no directory above it that can be written),
    or None."""
    if path.is_dir():
        return "a directory is in the way (a file is written there)"
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{parent} cannot be written"
    return None


def _names_a_file(name: str | os.PathLike) -> bool:
    try:
        return Path(name).is_file()
    except (OSError, ValueError):  # a name too long for a path, or with a NUL in it: not a file
        return False


def sharded(args: argparse.Namespace) -> bool:
    """True for a `check` or `fuzz` run that is one shard of several (`--shard K/N`, N > 1): whether it judged
    anything, and which baseline entries no record matched, only the whole run can say (`bleu-oracle merge`).
    Raises BleuValueError for --shard with --replay."""
    read_shard_option(args)
    if args.shard is None:
        return False
    if getattr(args, "replay", None):
        raise BleuValueError("`--shard` splits the cases and the random examples; `--replay` runs the inputs given, "
                             "all of them: give one or the other")
    return not args.shard.whole


def check_weight_count(weights: list[str] | None) -> list[str] | None:
    """`--weights` holds at most MAX_ORDER weights: their count is the maximum order."""
    if weights is not None and len(weights) > MAX_ORDER:
        raise BleuValueError(f"`--weights` must hold at most {MAX_ORDER} weights: their count is the maximum order "
                             f"(got {len(weights)})")
    return weights


def add_scoring_arguments(parser, *, profile_default="papineni"):
    parser.add_argument(
        "--profile", choices=sorted(PROFILES), default=profile_default, metavar="P",
        help=f"the conventions to score under, one of {', '.join(sorted(PROFILES))} (default: {profile_default}); "
        "`bleu-oracle profiles` describes them",
    )
    parser.add_argument(
        "--weights", nargs="+", metavar="W",
        help="n-gram weights w_1 .. w_N; their count is the maximum order (default: the profile's, 4 uniform)",
    )
    parser.add_argument(
        "--smoothing", type=parse_smoothing, metavar="METHOD[:PARAM=VALUE,...]",
        help=f"smoothing method and parameters, e.g. floor:value=0.1 (methods: {', '.join(SMOOTHING_METHODS)}; "
        "default: the profile's)",
    )
    parser.add_argument("--lowercase", action="store_true", default=None, help="fold case before counting")


def add_session_arguments(parser, *, report_help):
    """The arguments `check` and `fuzz` share: the implementation, the judged profile, the report,
    the process limits, the numeric contract, shrinking and verbosity. `--report` defaults to None:
    the verb chooses the directory (`report_help` says which)."""
    # The harness's defaults, imported here: only check and fuzz pay for importing the harness.
    from oracle.diagnose.judge import DEFAULT_ABS, DEFAULT_REL
    from oracle.harness.shrink import DEFAULT_BUDGET
    from oracle.harness.transport import DEFAULT_MAX_RESTARTS, DEFAULT_SHRINK_FIRST, DEFAULT_TIMEOUT, SHRINK_BLOCK

    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--impl", metavar="NAME",
                        help="a built-in implementation (`bleu-oracle serve --list`) or MODULE:CLASS: runs "
                        "`python -m oracle serve --impl NAME` (with --profile P passed on when NAME is oracle)")
    target.add_argument("--command", metavar="CMD",
                        help="the command that starts the implementation (split like a shell would, run without one)")
    parser.add_argument("--profile", choices=sorted(PROFILES), metavar="P",
                        help="judge against profile P instead of the profile the implementation declares "
                        f"({', '.join(sorted(PROFILES))})")
    parser.add_argument("--report", metavar="DIR",
                        help=f"report directory for results.jsonl and summary.md ({report_help})")
    add_report_force(parser)
    parser.add_argument("--junit", metavar="FILE", help="JUnit XML file (default DIR/junit.xml)")
    parser.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"per-request and handshake timeout (default {DEFAULT_TIMEOUT:g}); a hung "
                        "implementation is killed and restarted")
    parser.add_argument("--max-restarts", type=non_negative_int, default=DEFAULT_MAX_RESTARTS, metavar="N",
                        help=f"restarts after a crash or timeout (default {DEFAULT_MAX_RESTARTS}); after that, "
                        "remaining requests are recorded as crash without being sent. One budget for the run, "
                        "spent in example order: --jobs N spends it as one process does")
    parser.add_argument("--rel", type=tolerance, default=DEFAULT_REL, metavar="R",
                        help=f"relative tolerance of the numeric contract (default {DEFAULT_REL:g})")
    parser.add_argument("--abs", type=tolerance, default=DEFAULT_ABS, metavar="A",
                        help=f"absolute tolerance of the numeric contract (default {DEFAULT_ABS:g})")
    parser.add_argument("--strict", action="store_true",
                        help="hold the implementation to refusing the inputs the documents leave undefined (an "
                        "empty corpus, every weight zero: PROTOCOL.md): the value of a named convention there, "
                        "otherwise `acceptable`, fails in the rejection layer (a baseline whose header says "
                        "`strict: true` sets it too)")
    parser.add_argument("--shrink-budget", type=non_negative_int, default=DEFAULT_BUDGET, metavar="N",
                        help=f"requests spent shrinking each failing example (default {DEFAULT_BUDGET}; "
                        "0: no shrinking)")
    parser.add_argument("--shrink-first", type=non_negative_int, default=DEFAULT_SHRINK_FIRST, metavar="N",
                        help=f"shrink the first N failing examples of each kind of failure (outcome, layer, order) "
                        f"in every block of {SHRINK_BLOCK} examples (default {DEFAULT_SHRINK_FIRST}); the others are "
                        "classified as they are. The choice depends only on the examples, never on --jobs")
    parser.add_argument("--shard", metavar="K/N",
                        help="run only shard K of N of this run (cases dealt round-robin by their position among "
                        "those selected, random example I to shard (I div 50) mod N + 1), on N machines together "
                        "exactly the work of one; `bleu-oracle merge` combines their report directories into the "
                        "whole run's report and gate (a shard's own exit code speaks for its share only)")
    parser.add_argument("--no-search-cache", dest="search_cache", action="store_false",
                        help="compute every random example's inputs and the oracle's expectation afresh, without "
                        "reading or writing the search cache ($BLEU_ORACLE_SEARCH_CACHE, default "
                        "~/.cache/bleu-oracle/search, a directory of its own: one holding other files is refused; what "
                        "is deterministic per seed, example, capabilities, profile, oracle and Python version, kept "
                        "across runs; a damaged or stale entry is never trusted)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr and no summary on stdout")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="more detail on failures: every group of deviations and every distinct minimal input, "
                        "inputs in full (not cut at 600 characters); an internal error prints its traceback")


def add_report_force(parser):
    """--report-force: write a report into a directory that holds other files (which are left alone)."""
    parser.add_argument("--report-force", action="store_true",
                        help="write the report into DIR even when DIR holds files that are not a bleu-oracle report "
                        "(refused by default, before anything runs); its files are put beside them, nothing else in "
                        "DIR is touched")


# -- one vocabulary across verbs ---------------------------------------------------------------

#: Help text is wrapped to this many columns, whatever the terminal.
HELP_WIDTH = 100


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions wrapped to HELP_WIDTH paragraph by paragraph, blank lines between paragraphs kept; an
    indented line (a list entry, an example command) keeps its place and wraps under its own text."""

    def __init__(self, prog, **kwargs):
        kwargs["width"] = min(kwargs.get("width") or HELP_WIDTH, HELP_WIDTH)
        super().__init__(prog, **kwargs)

    def _fill_text(self, text, width, indent):
        import re
        import textwrap

        width = min(width, HELP_WIDTH)
        out = []
        for block in re.split(r"\n\s*\n", text.strip("\n")):
            lines = block.split("\n")
            if not any(line[:1].isspace() for line in lines[1:]) and not lines[0][:1].isspace():
                out.append(textwrap.fill(" ".join(line.strip() for line in lines), width, initial_indent=indent,
                                         subsequent_indent=indent, break_on_hyphens=False, break_long_words=False))
                continue
            wrapped = []
            for line in lines:
                if len(indent + line) <= width:
                    wrapped.append(indent + line)
                    continue
                lead = re.match(r"\s*(\S+\s{2,})?", line).group(0)  # hang under an entry's description
                wrapped.append(
                    textwrap.fill(
                        line.strip(),
                        width,
                        initial_indent=indent + line[: len(line) - len(line.lstrip())],
                        subsequent_indent=indent + " " * len(lead),
                        break_on_hyphens=False,
                        break_long_words=False,
                    )
                )
            out.append("\n".join(wrapped))
        return "\n\n".join(out)


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option: still works, says once on stderr which spelling replaced it."""

    def __init__(self, option_strings, dest, *, replacement, append=False, **kwargs):
        self.replacement, self.append = replacement, append
        kwargs.setdefault("help", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import sys

        print(f"bleu-oracle: {option_string} is deprecated; use {self.replacement}", file=sys.stderr)
        if self.append:
            setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        else:
            setattr(namespace, self.dest, values)


#: What -v does on every verb; a verb with more to say declares its own -v and says what else it shows.
VERBOSE_HELP = "an internal error prints its traceback (as BLEU_ORACLE_TRACEBACK=1 does); the exit code stays 4"


def add_verbosity(parser):
    """-q/--quiet and -v/--verbose on a verb that has not declared them (the CLI adds them to every verb
    and action, so a script may pass them to any). A verb whose -q or -v does more declares its own with
    its own help; here, -q is accepted where there is nothing to leave out, and -v shows an internal
    error's traceback."""
    existing = {s for action in parser._actions for s in action.option_strings}
    if "--quiet" not in existing:
        parser.add_argument("-q", "--quiet", action="store_true",
                            help="print only results and errors (this verb prints no progress or notes)")
    if "--verbose" not in existing:
        parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)


def prepare_implementations(verb: str, names: Iterable[str | None], *, quiet: bool = False) -> int | None:
    """The preparing step of `check`, `fuzz` and `report`, before any implementation starts: each of `names`
    that lives outside this environment (an npm package, a venv of its own) is prepared if it is not yet,
    saying so first ("preparing keras-hub (a venv of its own, once: ~1 min)"), and its installed code
    verified. None when all are ready; else the exit code, after one line on stderr: 3 when one cannot be
    prepared or does not verify, 130 / 143 when ^C or SIGTERM stopped npm or pip (nothing half-built is left)."""
    wanted = [name for name in names if name is not None]  # (None: no `--impl`, the run drives a `--command`)
    if not wanted:  # nothing to prepare: the environments' module and the registry go unimported (tens of ms of CPU)
        return None
    from oracle.adapters import environments, registry  # (here: every verb's start-up imports this module)
    from oracle.adapters.base import AdapterUnavailable
    from oracle.exitcodes import EXIT_UNDRIVABLE
    from oracle.signals import Interrupted, exit_code_of, stopped_by_signals

    name = None
    try:
        with stopped_by_signals():
            for name in wanted:  # (compare-mt-sentence is driven in compare-mt's environment)
                environments.ready(registry.environment_of(name), log=io.StringIO() if quiet else sys.stderr)
    except AdapterUnavailable as exc:
        print(shown(f"bleu-oracle {verb}: {name} cannot be driven: {exc}"), file=sys.stderr)
        return EXIT_UNDRIVABLE
    except (KeyboardInterrupt, Interrupted) as exc:
        print(f"bleu-oracle {verb}: interrupted while preparing {name}: it was not installed "
              "(nothing half-built is left)", file=sys.stderr)
        return exit_code_of(exc)
    return None
