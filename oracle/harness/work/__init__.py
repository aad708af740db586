"""The kinds of work a session judges, each producing `oracle.harness.stages.Item`s: the random examples with their
companions and the search cache (`examples`); cases, relations, stateful plans, series and replays are to follow
out of `oracle.harness.session`."""
