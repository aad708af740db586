"""The exit codes of every `bleu-oracle` verb (README, "exit code")."""

#: success; for check and fuzz: conforming (baseline applied)
EXIT_OK = 0
#: deviations found
EXIT_DEVIATIONS = 1
#: usage or configuration error
EXIT_USAGE = 2
#: the implementation could not be driven (would not start, no or wrong handshake)
EXIT_UNDRIVABLE = 3
#: an internal error: a bug in bleu-oracle (one line on stderr; BLEU_ORACLE_TRACEBACK=1 shows the traceback)
EXIT_INTERNAL = 4
#: the run was interrupted by ^C (SIGINT); SIGTERM gives 143 (128 + the signal's number)
EXIT_INTERRUPTED = 130
