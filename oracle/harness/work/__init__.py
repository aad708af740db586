"""The kinds of work a session judges, each producing `oracle.harness.stages.Item`s or its own judgement and
record: a random example with the inputs it brings along and the search cache (`examples`), a metamorphic
relation on a passing example (`relations`), a stateful plan (`plans`), the cases of a case file and the inputs a
user replays (`cases`), a series of short requests to one process (`series`)."""
