"""`bleu-oracle profiles`: the named presets and, for each convention, where it is stated."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap

from oracle.commands import SUMMARIES
from oracle.formulas.conventions import (
    BOTH_EMPTY_RULES,
    EMPTY_ORDER_RULES,
    NO_MATCH_RULES,
    REFERENCE_LENGTH_RULES,
    WEIGHT_RULES,
)
from oracle.formulas.profiles import PROFILES

HELP = """List the profiles: each is a named preset of the conventions on which BLEU
implementations differ, every choice citing the document that states it
("decided" where the document is silent).

Conventions:
""" + "\n".join(
    f"  {name}: " + "; ".join(f"{k} = {v}" for k, v in rules.items())
    for name, rules in (
        ("reference_length", REFERENCE_LENGTH_RULES),
        ("empty_order", EMPTY_ORDER_RULES),
        ("both_empty", BOTH_EMPTY_RULES),
        ("no_match", NO_MATCH_RULES),
        ("weight_normalisation", WEIGHT_RULES),
    )
) + """

Exit codes: 0 listed, 2 a usage error (a NAME that is no profile), 4 an internal error (a bug in
bleu-oracle).

Examples:
  bleu-oracle profiles -q
  bleu-oracle profiles sacrebleu --json
"""


def register(subparsers):
    parser = subparsers.add_parser("profiles", help=SUMMARIES["profiles"],
                                   description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", nargs="?", choices=sorted(PROFILES), metavar="NAME",
                        help=f"show one profile only: {', '.join(sorted(PROFILES))}")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="one line per profile, its name and summary, without its conventions and citations")
    parser.set_defaults(handler=run)


def run(args):
    chosen = [PROFILES[args.name]] if args.name else list(PROFILES.values())
    if args.json:
        json.dump({p.name: {"summary": p.summary, "options": p.options.to_json(), "citations": dict(p.citations)}
                   for p in chosen}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for profile in chosen:
        print(f"{profile.name}: {profile.summary}")
        if args.quiet:
            continue
        for option, value in profile.options.to_json().items():
            citation = profile.citation(option)
            print(f"  {option} = {shown(option, value)}" + (f"\n{_wrapped(citation)}" if citation else ""))
        options = profile.options.to_json()
        for topic, citation in profile.citations:
            if topic not in options:
                print(f"  note on {topic}:\n{_wrapped(citation)}")
        print()
    return 0


def shown(option, value):
    """An option's value as a user writes it: `exp`, `floor:value=0.1` (the --smoothing syntax), true/false,
    and for an unset per-level override what applies instead."""
    if isinstance(value, dict) and "method" in value:
        parameters = ",".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                              for k, v in value.items() if k != "method")
        return value["method"] + (f":{parameters}" if parameters else "")
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "(unset: empty_order applies)" if option == "sentence_empty_order" else "(unset)"
    return str(value)


def _wrapped(text, width=100):
    return textwrap.fill(text, width=width, initial_indent="      ", subsequent_indent="      ")
