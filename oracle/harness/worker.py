"""`check --jobs N`: the differential search in N worker processes, merged back into one stream.

Worker k (``python -m oracle.harness.worker_process SPEC``) is a session of its own: it starts its own
implementation process, draws the examples `shards.worker_of` deals it (one of each N consecutive indices;
each example is deterministic per seed and index, so which process draws it changes nothing), judges, shrinks
and classifies them, and writes its records to its own results.jsonl, each gated as it is built by the run's baseline
(handed to the worker in its spec: it searches the baseline's root causes first too, as one process does). The
parent reads those files as they grow (for its progress line), then merges them in example order, counting each
record's baseline status and id on its own gate (`BaselineTracker.heard`: stale entries are those no record had), so
the run's results.jsonl holds the same records in the same order as with one process; only durations and the
protocol's seq numbers differ.

**One restart budget.** `--max-restarts N` is the run's, not each worker's: the implementation is
started again after each of its first N deaths (crash, timeout, failed restart) counted in example
order, as one process counts them (`transport.RestartBudget`), and every request after the (N+1)-th
is "not attempted". A worker reports each death, and each example it finishes, to the parent on its
stdout (`SharedBudget`); when its implementation must be restarted during example i, it asks, and the
parent (`BudgetKeeper`) answers once every example before i is judged, from the deaths charged to
them and to i so far: the answer one process would have reached. A worker whose implementation is
alive does not ask, so it may judge an example that one process would not have attempted (the
budget was spent, by another worker, on an earlier example); the parent replaces such a record by the
"not attempted" record one process writes (`_record_not_attempted`). Waiting happens only around
deaths, which the budget bounds, so the search stays parallel.

**Nothing outlives the parent.** Each worker runs in its own process group, gets SIGTERM from the
kernel when the parent dies (Linux: `oracle.adapters.lifetimes.die_with_parent`), and watches its
stdin, a pipe from the parent, whose end of file says the same anywhere (`follow_parent`); either
way it stops its implementation and exits. The implementation itself is signalled when its worker
dies, so a SIGKILLed worker leaves no implementation behind.

A worker that cannot drive its implementation, or fails, makes the run fail with its stderr's last
line; SIGTERM or ^C to the parent stops every worker (each stops its implementation first) and the
records judged so far are kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from oracle.adapters.lifetimes import die_with_parent
from oracle.models.outcomes import RIDING_KINDS
from oracle.models.results import Footer, Record, ResultsFormatError, parse_line

from .budget import (
    DEFAULT_SHRINK_FIRST,
    Cause,
    block_causes,
    failure_kind,
    full_search_allowed,
    resend_waived,
    search_tokens_left,
    shrink_allowed,
    shrink_hints,
)
from .channel import Channel
from .events import RESULTS_FILE, example_index, in_example_order, lightened
from .generate import example_id
from .shards import ExampleShare, Shard
from .stages import Item
from .transport import Reply, RestartBudget, given_up_message
from .work.examples import judge_companions

#: Seconds a stopped worker has to stop its implementation before it is killed.
STOP_GRACE = 5.0
#: Seconds between two looks at the workers' results files.
POLL = 0.2
#: The key of a worker's spec that holds the run's baseline, as the parent read it (`Baseline`, as JSON).
BASELINE_SPEC = "gate_baseline"
#: The longest message line a worker sends its parent (bytes); a longer one is dropped.
MESSAGE_LIMIT = 4096
#: The kinds of record whose root cause, once shrunk, the parent's budget keeps (`BudgetKeeper.read`).
SHRUNK_KINDS = ("example", "series")


@dataclass
class WorkerRun:
    """One worker process and the directory it writes into."""

    index: int
    directory: Path
    process: subprocess.Popen
    #: its share of the examples (`start_workers`)
    share: ExampleShare = ExampleShare()
    _handle: object = None
    _partial: bytes = b""
    lines_read: int = 0
    _footer: Footer | None = None
    _said: bytes = b""
    #: the smallest example of this worker's share it has not finished (all before it are judged)
    next_example: int = -1
    #: its stdout reached end of file: it has exited, and every message it sent was heard
    silent: bool = False

    def __post_init__(self):
        if self.next_example < 0:
            self.next_example = self.share.next_owned(0)

    @property
    def results(self):
        return self.directory / RESULTS_FILE

    def new_lines(self):
        """Complete lines the worker has written since the last call."""
        if self._handle is None:
            if not self.results.exists():
                return []
            self._handle = open(self.results, "rb")  # noqa: SIM115 (kept open while the worker writes)
        data = self._partial + self._handle.read()
        *lines, self._partial = data.split(b"\n")
        return lines

    def messages(self, data):
        """The worker's messages completed by `data` (read from its stdout)."""
        *lines, self._said = (self._said + data).split(b"\n")
        if len(self._said) > MESSAGE_LIMIT:  # not a message of ours: dropped
            self._said = b""
        for line in lines:
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if isinstance(message, dict):
                    yield message

    def finished_before(self, example):
        """True when this worker has judged every example of its share before `example`."""
        return self.silent or self.next_example >= example

    def tell(self, message):
        """Send the worker one message on its stdin (it may have gone: then nobody is listening)."""
        with contextlib.suppress(OSError, ValueError):
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()

    def close(self):
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()

    def footer(self):
        """The worker's footer (counts, coverage, restarts, examples), or None when it wrote none."""
        return self._footer

    def failure(self):
        """Why this worker failed (None when it ran to its end: exit 0 or 1)."""
        code = self.process.returncode
        if code in (0, 1):
            return None
        try:
            lines = (self.directory / "stderr.txt").read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            lines = []
        return f"search worker {self.index} ended with exit {code}" + (f": {lines[-1][:500]}" if lines else "")


# -- the restart budget, shared ---------------------------------------------------------------------


def causes_sent(causes: Iterable[Cause]) -> list[list[str]]:
    """Root causes (hints, a block's causes, a search's names) as a message on the pipe carries them: each as the
    list of its mechanisms (`budget.Cause`), never as a written name to be split again."""
    return [list(parts) for parts in causes]


def causes_heard(value: object) -> tuple[Cause, ...]:
    """Root causes read back from a message on the pipe (`causes_sent`): the pipe's JSON boundary. A cause that is
    not a list of names is dropped, as any malformed part of a message is."""
    if not isinstance(value, list):
        return ()
    return tuple(tuple(parts) for parts in value
                 if isinstance(parts, list) and all(isinstance(part, str) for part in parts))



class SharedBudget(RestartBudget):
    """A worker's side of the run's one restart budget: each death and each finished example is told
    to the parent on `channel`; whether to restart is asked, and the answer read from `answers` (a
    queue `follow_parent` fills; None when the parent has gone)."""

    def __init__(self, max_restarts, channel, answers, shrink_first=DEFAULT_SHRINK_FIRST):
        super().__init__(max_restarts, shrink_first)
        self.channel, self.answers = channel, answers

    def _say(self, **message):
        self.channel.write(json.dumps(message) + "\n")
        self.channel.flush()

    def died(self):
        super().died()
        self._say(death=self.example)

    def may_restart(self):
        self._say(ask=self.example)
        answer = self.answers.get()
        return bool(isinstance(answer, dict) and answer.get("restart"))

    def may_shrink(self, kind):
        """Asked of the parent, which alone hears every worker's failures and reads their root causes."""
        self._say(shrink=self.example, kind=list(kind))
        answer = self.answers.get()
        if not isinstance(answer, dict):
            return False, ()
        return bool(answer.get("shrink")), causes_heard(answer.get("hints"))

    def may_search_all(self, kind):
        """Asked of the parent, which charges it (`BudgetKeeper.answer`)."""
        self._say(search=self.example, kind=list(kind))
        answer = self.answers.get()
        return bool(isinstance(answer, dict) and answer.get("search"))

    def searched_named(self, kind, names):
        """Told to the parent, before the example is done (`BudgetKeeper.heard`)."""
        self._say(named=self.example, kind=list(kind), names=causes_sent(names))

    def search_tokens(self, kind):
        """Asked of the parent, which hears what every worker's searches spent (`BudgetKeeper.heard`), less what this
        example's own earlier failures of the kind spent."""
        self._say(spend=self.example, kind=list(kind))
        answer = self.answers.get()
        left = answer.get("left") if isinstance(answer, dict) else None
        return (left if isinstance(left, int) else 0) - self._charged_here(kind)

    def block_causes(self, kind):
        """Asked of the parent, which alone reads every worker's root causes (`BudgetKeeper.answer`)."""
        self._say(others=self.example, kind=list(kind))
        answer = self.answers.get()
        return causes_heard(answer.get("others")) if isinstance(answer, dict) else ()

    def searches_charged(self, kind, net):
        """Kept for this example's later failures, and told to the parent, before the example is done."""
        super().searches_charged(kind, net)
        self._say(spent=self.example, kind=list(kind), net=int(net))

    def waives_resend(self, kind):
        """Asked of the parent, which alone hears every worker's failures."""
        self._say(resend=self.example, kind=list(kind))
        answer = self.answers.get()
        return bool(isinstance(answer, dict) and answer.get("waived"))

    def classified(self, names):
        """The parent reads root causes from the records themselves."""

    def example_finished(self, index):
        self._say(done=index)

    def warn(self, text):
        """Said for the run by the parent: a worker's stderr is its own file."""
        self._say(warning=text)


#: The questions a worker asks about a failure of an example (with its kind): shrink it, search it among every
#: explanation, report it without sending it again, how many token computations its searches may spend, which root
#: causes other kinds of failure were named in its block before it (`block_causes`).
QUESTIONS = ("shrink", "search", "resend", "spend", "others")


class BudgetKeeper:
    """The parent's side: the deaths charged to each example, and the workers' pending questions.
    `spent`: deaths charged before the search (the cases, in this process)."""

    def __init__(self, runs, max_restarts, spent=0, shrink_first=DEFAULT_SHRINK_FIRST, warn=None):
        self.runs, self.max_restarts, self.spent = runs, max_restarts, spent
        #: what says a worker's warning for the run (the parent session's `warn`: once per run)
        self.warn = warn
        self.shrink_first = shrink_first
        self.deaths = Counter()
        #: failures, example index -> their kinds, as the workers asked whether to shrink them
        self.failures: dict[int, list[tuple]] = {}
        #: the root causes of shrunk failures (name, then the others that fit), (index, kind) -> their parts, from
        #: records, and of failures searched among every explanation, as the workers tell them
        self.causes: dict[tuple[int, tuple], tuple[Cause, ...]] = {}
        #: failures not shrunk searched among every explanation, example index -> their kinds, as the workers asked
        self.searched: dict[int, list[tuple]] = {}
        #: what the searches for failures not shrunk spent beyond what they earned, example index -> (kind, net token
        #: computations), as the workers tell it (`RestartBudget.charged`)
        self.charged: dict[int, list[tuple[tuple, int]]] = {}
        #: (the worker, the example, the kind of failure or None, the question: QUESTIONS)
        self.questions = []

    def heard(self, run, message):
        if isinstance(message.get("death"), int):
            self.deaths[message["death"]] += 1
        elif isinstance(message.get("done"), int):
            run.next_example = run.share.next_owned(message["done"] + 1)
        elif isinstance(message.get("ask"), int):
            self.questions.append((run, message["ask"], None, "ask"))
        elif (question := next((q for q in QUESTIONS if isinstance(message.get(q), int)), None)) is not None \
                and isinstance(message.get("kind"), list):
            self.questions.append((run, message[question], tuple(message["kind"]), question))
        elif isinstance(message.get("named"), int) and isinstance(message.get("kind"), list) \
                and isinstance(message.get("names"), list):
            key = (message["named"], tuple(message["kind"]))  # (as `RestartBudget.searched_named` keeps them)
            names = causes_heard(message["names"])
            self.causes[key] = tuple(dict.fromkeys((*self.causes.get(key, ()), *names)))
        elif isinstance(message.get("spent"), int) and isinstance(message.get("kind"), list) \
                and isinstance(message.get("net"), int):
            self.charged.setdefault(message["spent"], []).append((tuple(message["kind"]), message["net"]))
        elif isinstance(message.get("warning"), str) and self.warn is not None:
            self.warn(message["warning"][:MESSAGE_LIMIT])

    def answer(self):
        """Answer each question whose earlier examples are all judged: may the worker restart its
        implementation in example i (yes while the deaths up to it are within the budget), shrink failing
        example i (`shrink_allowed`, from every worker's failures before it), search a failure of it among every
        explanation (`full_search_allowed`), report one without sending it again (`resend_waived`), or how many
        token computations the searches for a failure of it may spend (`search_tokens_left`)?"""
        for question in list(self.questions):
            run, example, kind, asked = question
            if not all(other is run or other.finished_before(example) for other in self.runs):
                continue
            run.tell(self._answer(example, kind, asked))
            self.questions.remove(question)

    def _answer(self, example, kind, asked):
        """The answer to one question (`answer`), charged as one process charges it (`RestartBudget`)."""
        if asked == "ask":
            charged = self.spent + sum(n for index, n in self.deaths.items() if index <= example)
            return {"restart": charged <= self.max_restarts}
        if asked == "search":
            allowed = full_search_allowed(example, kind, self.searched, self.shrink_first)
            if allowed:
                self.searched.setdefault(example, []).append(kind)
            return {"search": allowed}
        if asked == "resend":
            return {"waived": resend_waived(example, kind, self.failures, self.shrink_first)}
        if asked == "spend":
            return {"left": search_tokens_left(example, kind, self.charged)}
        if asked == "others":
            return {"others": causes_sent(block_causes(example, kind, self.causes))}
        allowed = shrink_allowed(example, kind, self.failures, self.shrink_first)
        hints = [] if allowed else causes_sent(shrink_hints(example, kind, self.failures, self.causes))
        self.failures.setdefault(example, []).append(kind)
        return {"shrink": allowed, "hints": hints}

    def read(self, record):
        """A worker's record, read by the parent before it answers: a shrunk example's root cause."""
        if record.kind in SHRUNK_KINDS and record.shrunk is not None and record.classification is not None:
            kind = failure_kind(record.kind, record.outcome.value, record.layer, record.order)
            self.causes[(example_index(record), kind)] = (record.classification.parts, *record.classification.fit_parts)

    def cut(self):
        """The first example one process would not attempt at all (the budget was spent before it), or None."""
        charged = self.spent
        for index in sorted(self.deaths):
            charged += self.deaths[index]
            if charged > self.max_restarts:
                return index + 1
        return None


def follow_parent(answers):
    """In a worker, on a thread: the parent's answers, read from stdin into `answers`; at end of file
    the parent has gone, and the worker stops as SIGTERM stops it (its implementation first)."""
    pending = b""
    # os.read, not sys.stdin: a daemon thread blocked in a buffered reader aborts the interpreter's exit
    with contextlib.suppress(OSError):
        for data in iter(lambda: os.read(0, MESSAGE_LIMIT), b""):
            *lines, pending = (pending + data).split(b"\n")
            pending = pending[-MESSAGE_LIMIT:]
            for line in lines:
                with contextlib.suppress(ValueError):
                    answers.put(json.loads(line))
    answers.put(None)
    os.kill(os.getpid(), signal.SIGTERM)


# -- the parent ------------------------------------------------------------------------------------


def search(session):
    """`session`'s random examples in `session.settings.jobs` workers, written to its stream in
    example order as one process writes them. SIGTERM or ^C stops the workers (each stops its
    implementation) and keeps what they judged."""
    settings = session.settings
    started = time.perf_counter()
    runs = start_workers(settings, session.profile, session.work_dir, session.tracker.baseline)
    keeper = BudgetKeeper(runs, settings.max_restarts, spent=session.budget.deaths,
                          shrink_first=settings.shrink_first, warn=session.warn)
    try:
        wait(runs, session.progress, keeper)
    finally:
        stop(runs)
        cut = keeper.cut()
        # the examples no process attempted, judged against a transport that sends nothing, numbered on from the
        # session's requests, and counted on the progress line by the worker that judged them already
        not_sent = Channel(_NotSent(given_up_message(settings.max_restarts)), session.profile,
                           seq=session.channel.seq, progress=False)
        for record, written in merged_records(runs):
            index = example_index(record)
            if cut is None or index < cut:
                session.tracker.heard(record)  # (gated by the worker, by the same baseline)
                session.account(record, progress=False, written=written)  # (its line copied, not built again)
            elif record.kind == "example" and "~" not in record.id:  # (not a relation, nor a companion)
                _record_not_attempted(session, index, not_sent)
        footers = [footer for footer in (run.footer() for run in runs) if footer is not None]
        session.examples_run += sum(f.examples or 0 for f in footers)
        session.budget_spent = any(f.time_budget_spent for f in footers)
        session.worker_restarts = sum(f.restarts for f in footers)
        for footer in footers:
            if footer.coverage is not None:
                session.coverage.merge(footer.coverage)
        collect_replays(runs, session.work_dir)
        cleanup(runs)
    failed = [run for run in runs if run.failure()]
    if failed:
        from oracle.formulas.errors import BleuValueError

        raise BleuValueError("; ".join(run.failure() for run in failed))
    session.progress.note(f"{len(runs)} workers searched in {time.perf_counter() - started:.1f} s")


class _NotSent:
    """A transport that sends nothing: every request is the crash one process records once its
    restart budget is spent."""

    def __init__(self, message):
        self.given_up = message

    def submit(self, wire, line=None):
        return Reply("crash", message=self.given_up)

    def collect(self, pending):
        return pending


def _record_not_attempted(session, index, channel):
    """Write example `index` as one process writes it after its restart budget is spent: judged, by
    the session's own code, on `channel`, whose transport sends nothing. Its coverage and progress were
    counted by the worker that judged it (the channel's coverage is not the run's, and it counts no progress)."""
    with session.on(channel):
        session.evaluate(Item(example_id(session.settings.seed, index), "example", session.example_request(index)))
        judge_companions(session, index, session.example_inputs(index))


def worker_count(settings) -> int:
    """How many workers `--jobs` starts: never more than the run (or its shard) has examples to deal, since each
    starts an implementation (`--jobs 256 --examples 3` starts 3)."""
    owned = Shard(settings.shard[0] + 1, settings.shard[1]).examples_owned(settings.examples)
    return max(1, min(settings.jobs, owned))


def start_workers(settings, profile, work_dir, baseline=None):
    """Start `settings.jobs` workers judging under `profile`, each writing under WORK_DIR/.workers/K/ its records
    gated by `baseline` (a `Baseline`; None: an empty one). The run's own share of the examples (`--shard`: whole
    blocks) is dealt among them (`shards.worker_of`: one of each `jobs` consecutive indices to each), for
    `worker_count(settings)` workers."""
    jobs = worker_count(settings)
    runs = []
    root = Path(work_dir) / ".workers"
    for index in range(jobs):
        directory = root / str(index)
        directory.mkdir(parents=True, exist_ok=True)
        share = ExampleShare(*settings.shard, index, jobs)
        spec = {**dataclasses.asdict(settings), "profile": profile, "jobs": 1, "shard": list(settings.shard),
                "worker": [index, jobs], "quiet": True, "parent": os.getpid(),
                BASELINE_SPEC: baseline.model_dump(mode="json", exclude_none=True) if baseline is not None else None}
        spec_path = directory / "spec.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        with open(directory / "stderr.txt", "wb") as stderr:
            process = subprocess.Popen([sys.executable, "-m", "oracle.harness.worker_process", str(spec_path)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                       start_new_session=True, preexec_fn=die_with_parent(signal.SIGTERM))
        runs.append(WorkerRun(index, directory, process, share=share))
    return runs


def _record_lines(lines):
    """The records among complete lines of a worker's stream as plain JSON, their models not built: the progress
    line needs only a record's kind, id and outcome, and the restart budget the few a shrunk root cause was named
    for (`_names_a_cause`); the merge builds every record's model once (`merged_records`). A line that is not a
    record, or was torn by a stopped worker, is left out."""
    for text in lines:
        line = _counted_fields(text)
        if line is None:
            try:
                line = json.loads(text)
            except ValueError:  # a line torn by a stopped worker
                continue
        if isinstance(line, dict) and line.get("type") == "record" and isinstance(line.get("kind"), str) \
                and isinstance(line.get("id"), str) and isinstance(line.get("outcome"), str):
            yield line


#: How a worker's record line begins (`ResultsWriter`: compact JSON, the model's fields in order).
_RECORD_START = b'{"type":"record","id":"'
_KIND_NEXT = b',"kind":"'
_OUTCOME_KEY = b'"outcome":"'


def _counted_fields(text):
    """A record line's type, id, kind and outcome read from its bytes without parsing the rest, or None where this
    read cannot be sure (then the line is parsed). Exact: in compact JSON a `"` that is not escaped opens or closes
    a string, so `"outcome":"` outside a string is a key `outcome` with a string value; the record has one at the top
    level, so a line holding it once holds no other. Its id and kind are its first fields. A line whose record was
    shrunk (`"shrunk":{` anywhere: a superset) is parsed, for `_names_a_cause`; a value holding an escape too."""
    if not text.startswith(_RECORD_START) or b'"shrunk":{' in text or text.count(_OUTCOME_KEY) != 1:
        return None
    ident, at = _plain_string(text, len(_RECORD_START))
    if ident is None or not text.startswith(_KIND_NEXT, at):
        return None
    kind, _ = _plain_string(text, at + len(_KIND_NEXT))
    outcome, _ = _plain_string(text, text.index(_OUTCOME_KEY) + len(_OUTCOME_KEY))
    if kind is None or outcome is None:
        return None
    return {"type": "record", "id": ident, "kind": kind, "outcome": outcome}


def _plain_string(text, start):
    """(the JSON string whose text begins at `start`, where the text after it begins) when the string holds no
    escape (its text is then its value), else (None, start)."""
    end = text.find(b'"', start)
    value = text[start:end]
    if end < 0 or b"\\" in value:
        return None, start
    try:
        return value.decode("utf-8"), end + 1
    except UnicodeDecodeError:
        return None, start


def _names_a_cause(line):
    """True when a record line (plain JSON) is one `BudgetKeeper.read` keeps the root cause of: a shrunk example or
    series with a classification. (Record's `shrunk` and `classification` are None exactly when the line holds
    null or leaves them out.)"""
    return line["kind"] in SHRUNK_KINDS and line.get("shrunk") is not None \
        and line.get("classification") is not None


def _lines(lines):
    """Each line of a worker's stream that holds a header, record or footer, as (its model, its text without the
    newline), a good record built light (`_read`); a line torn by a stopped worker is left out."""
    for text in lines:
        try:
            line = json.loads(text)
            if isinstance(line, dict) and line.get("type") == "record":
                line = lightened(line)
            line = parse_line(line)
        except (ValueError, ResultsFormatError):  # a line torn by a stopped worker
            continue
        yield line, text.removesuffix(b"\n")


def wait(runs, progress, keeper):
    """Wait for every worker: answer its questions about the restart budget, and count the examples
    it judges on `progress`."""
    selector = selectors.DefaultSelector()
    for run in runs:
        selector.register(run.process.stdout, selectors.EVENT_READ, run)
    while selector.get_map() or any(run.process.poll() is None for run in runs):
        if not selector.get_map():  # every worker closed its stdout; one has yet to exit
            time.sleep(POLL)
        for key, _ in selector.select(timeout=POLL) if selector.get_map() else ():
            run = key.data
            data = os.read(key.fd, 65536)
            if not data:  # it exited, and everything it said was heard
                selector.unregister(key.fileobj)
                run.silent = True
            for message in run.messages(data):
                keeper.heard(run, message)
        # records before answers: a worker writes an example's record before it says the example is done
        for run in runs:
            for line in _record_lines(run.new_lines()):
                if _names_a_cause(line):
                    with contextlib.suppress(ResultsFormatError):  # (as the merge, which leaves it out too)
                        keeper.read(parse_line(line))
                if line["kind"] not in RIDING_KINDS and "~" not in line["id"]:
                    progress.update(line["outcome"])
                else:
                    progress.tally(line["outcome"])
        keeper.answer()
    selector.close()


def stop(runs):
    """Stop the workers still running: SIGTERM (each stops its implementation), then SIGKILL."""
    for run in runs:
        if run.process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(run.process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for run in runs:
        try:
            run.process.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(run.process.pid, signal.SIGKILL)
            run.process.wait()
        run.close()


def _read(run):
    """A worker's records, in its order, each with its line as the worker wrote it; its footer is kept on the run.
    A good record no baseline entry speaks for is built light (`events.lightened`): the parent only copies its line
    and counts its outcome and id (`Session.account`, `BaselineTracker.heard`), so its request, expectation and
    answer need not be built again; a failing or gated record is built whole (its root cause, its gate status)."""
    if not run.results.exists():
        return
    with open(run.results, "rb") as handle:
        for line, text in _lines(handle):
            if isinstance(line, Footer):
                run._footer = line
            elif isinstance(line, Record):
                yield line, text


def merged_records(runs):
    """Every worker's records in example order (an example's relation record right after it), each with its line as
    the worker wrote it: copied into the run's stream, which is the line the parent would write from the record
    (the same `ResultsWriter`), without building it again."""
    return in_example_order([_read(run) for run in runs], index_of=lambda pair: example_index(pair[0]))


def collect_replays(runs, work_dir):
    """Move the workers' replay files (inputs too long for a command line) into WORK_DIR/replay/."""
    for run in runs:
        replay = run.directory / "replay"
        if replay.is_dir():
            target = Path(work_dir) / "replay"
            target.mkdir(parents=True, exist_ok=True)
            for path in replay.iterdir():
                os.replace(path, target / path.name)


def cleanup(runs):
    if runs:
        shutil.rmtree(runs[0].directory.parent, ignore_errors=True)
