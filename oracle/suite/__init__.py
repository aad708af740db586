"""The suite: the documented cases (case files in `cases/`, loaded with file:line errors) and the edge
cases of the report's matrix, as data."""

#: The version of the suite's case format and ids, recorded in every results.jsonl header: it changes
#: when a case file's format changes or an id is retired (cases/retired.yaml), not with each new case.
SUITE_VERSION = "1"
