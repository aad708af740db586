"""The kinds of work a session judges, each producing `oracle.harness.stages.Item`s or its own judgement and
record: a random example with the inputs it brings along and the search cache (`examples`), a metamorphic
relation on a passing example (`relations`), a stateful plan (`plans`). Series are judged by
`oracle.harness.series`; cases and replays are still `Session` methods (`run_cases`, `run_replay`)."""
