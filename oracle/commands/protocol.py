"""`bleu-oracle protocol schema [NAME]`: print (or regenerate) the protocol-v1 JSON Schemas."""

from __future__ import annotations

import argparse
import json
import sys

from oracle.commands import SUMMARIES
from oracle.models import protocol

HELP = """Print the JSON Schemas of protocol v1 (see PROTOCOL.md), generated from the
typed models in oracle/models/protocol.py; the same schemas are committed under
oracle/models/schemas/protocol-v1/.

  bleu-oracle protocol schema            all schemas, as one JSON object by name
  bleu-oracle protocol schema reply      one schema (start, handshake, score, reply, stop)
  bleu-oracle protocol schema --write    regenerate the committed files (for maintainers)

Exit codes: 0 printed (or written), 2 a usage error (a schema name that is none
of these), 4 an internal error (a bug in bleu-oracle).

Examples:
  bleu-oracle protocol schema handshake > handshake.schema.json
"""


def register(subparsers):
    parser = subparsers.add_parser(
        "protocol", help=SUMMARIES["protocol"], description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    schema = actions.add_parser("schema", help="print the JSON Schemas", description=HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    schema.add_argument("name", nargs="?", choices=list(protocol.MESSAGES), metavar="NAME",
                        help=f"one message: {', '.join(protocol.MESSAGES)} (default: all)")
    schema.add_argument(
        "--write",
        action="store_true",
        help=f"write the files under {protocol.SCHEMA_DIR.relative_to(protocol.SCHEMA_DIR.parents[3])} instead of "
             "printing",
    )
    schema.set_defaults(handler=run)


def run(args):
    if args.write:
        for path in protocol.write_schemas():
            print(path)
        return 0
    schemas = protocol.json_schemas()
    payload = schemas[args.name] if args.name else schemas
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return 0
