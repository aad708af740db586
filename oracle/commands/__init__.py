"""One module per CLI verb. Each defines `register(subparsers)`; the parser it adds
sets `handler`, a function of the parsed arguments that returns an exit code."""

#: Verbs in the order `--help` lists them.
VERBS = ["score", "profiles", "cases", "serve", "protocol", "check", "fuzz", "baseline", "report"]
