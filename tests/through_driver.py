"""A library scored by its own driver (`oracle.adapters.driven`) called as an adapter is, for the tests
that call `score` in process: each call is one protocol-v1 request through the transport `check` uses
(`oracle.harness.transport.ImplementationProcess`), to the driver process `check --impl NAME` runs."""

from __future__ import annotations

from oracle.adapters.base import Implementation, Rejected, ScoreAnswer, Unsupported
from oracle.adapters.driven import DriverImplementation
from oracle.harness.transport import ImplementationProcess
from oracle.models.protocol import ScoreRequest

#: Seconds a driver may take (the first score of keras-hub loads TensorFlow).
TIMEOUT = 120.0
#: The driver processes started, stopped at the end of the test session (`stop_all`).
STARTED: list[ImplementationProcess] = []


class DriverFailed(RuntimeError):
    """The driver answered error (its message is the library's exception), or crashed, or broke the protocol."""


class ThroughDriver(Implementation):
    def __init__(self, declared: DriverImplementation) -> None:
        self.name, self.version, self.language = declared.name, declared.version, declared.language
        self.profile, self.capabilities = declared.profile, declared.capabilities
        self.process = ImplementationProcess(declared.command(), timeout=TIMEOUT)
        STARTED.append(self.process)
        self.process.start()
        self.seq = 0

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        self.seq += 1
        reply = self.process.request(request.with_seq(self.seq).to_json())
        if reply.kind == "score" and reply.score is not None:
            return ScoreAnswer(reply.score, None if reply.statistics is None else reply.statistics.to_json())
        if reply.kind == "rejected":
            raise Rejected(reply.message)
        if reply.kind == "unsupported":
            raise Unsupported(reply.message)
        raise DriverFailed(reply.message if reply.kind == "error" else f"{reply.kind}: {reply.message}")


def stop_all() -> None:
    while STARTED:
        STARTED.pop().stop()
