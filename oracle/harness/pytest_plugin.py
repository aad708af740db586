"""A pytest plugin: a Python library tests its own BLEU function against the oracle, in its own test suite.

In the library's tests (the plugin is registered through the `pytest11` entry point, so installing
bleu-oracle is all it takes)::

    from oracle.harness.pytest_plugin import conformance

    def my_bleu(request):            # an oracle.models.protocol.ScoreRequest
        ...                          # request.level, .segments (.hypothesis, .references), .weights,
        return score                 # .smoothing.method, .lowercase; a float (0-1), or (score, statistics)

    test_my_bleu = conformance(my_bleu, profile="papineni", capabilities={"weights": "any", "max_order": 4})

collects one test per documented case and per seeded random example (`--bleu-oracle-examples N`,
`--bleu-oracle-seed S` on the command line override the counts given here). Each runs the function
in process through the same server and judge `bleu-oracle check` uses: a case outside the declared
capabilities is skipped with the reason; a failure names the first diverging layer, the root cause
and the input, as `check` does. Raise `ValueError` (or `oracle.adapters.base.Rejected`) to reject an
input; a returned `statistics` dict ({"hyp_len", "ref_len", "matches", "totals"}) is held to the
oracle's too. On an input the documents leave undefined (an empty corpus, every weight zero: PROTOCOL.md),
refusing is recommended and a named convention's value is acceptable, as in `check`: the test passes
(`conformance(..., strict=True)`, like `check --strict`, fails it instead).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field

import pytest

from oracle.adapters.base import Implementation, Rejected, ScoreAnswer, declare_capabilities
from oracle.diagnose.attribute import attribute
from oracle.diagnose.expect import case_expected, oracle_expected
from oracle.diagnose.judge import Contract, judge, token_count_layers
from oracle.escaping import json_shown, shown
from oracle.formulas.profiles import PROFILES
from oracle.models.case import Case
from oracle.models.outcomes import Outcome

from .generate import example_id, example_request
from .inprocess import InProcessImplementation
from .requests import case_to_request, not_applicable_reason
from .shrink import DEFAULT_BUDGET as SHRINK_BUDGET
from .shrink import DEFAULT_SHRINK_SECONDS, SameFailure, deadline_after, shrink

DEFAULT_EXAMPLES = 50
#: Seconds a failing example may spend shrinking (as `check --shrink-seconds`' default: a safety limit, the query
#: budget decides first).
SHRINK_SECONDS = DEFAULT_SHRINK_SECONDS


class _FunctionImplementation(Implementation):
    """The user's function as a built-in implementation: what it returns becomes a protocol reply."""

    language = "python"

    def __init__(self, function, profile, capabilities, name):
        self.function, self.profile, self.capabilities = function, profile, capabilities
        self.name, self.version = name, "under test"

    def score(self, request):
        try:
            answer = self.function(request)
        except ValueError as exc:
            raise Rejected(str(exc) or type(exc).__name__) from None
        if isinstance(answer, ScoreAnswer):
            return answer
        if isinstance(answer, tuple):
            return ScoreAnswer(*answer)
        return ScoreAnswer(answer)


@dataclass
class _Spec:
    function: object
    profile: str
    capabilities: dict
    examples: int
    seed: int
    cases: bool
    name: str
    rel: float
    abs: float
    strict: bool = False
    _transport: object = field(default=None, repr=False)

    def contract(self):
        return Contract(rel=self.rel, abs=self.abs, strict=self.strict)

    def transport(self):
        if self._transport is None:  # one server per spec, started on first use
            self._transport = InProcessImplementation(
                _FunctionImplementation(self.function, self.profile, self.capabilities, self.name))
            self._transport.start()
        return self._transport

    def items(self, examples, seed):
        out = []
        if self.cases:
            from oracle.suite.cases import load_cases

            for case in load_cases():
                out.append(_Item(self, f"case:{case.id}", case=case))
        for index in range(examples):
            out.append(_Item(self, f"example:{example_id(seed, index)}", seed=seed, index=index))
        return out


@dataclass
class _Item:
    spec: _Spec
    id: str
    case: Case | None = None
    seed: int = 0
    index: int = 0

    def run(self, nodeid: str = "") -> None:
        spec = self.spec
        options = PROFILES[spec.profile].options
        transport = spec.transport()
        capabilities = transport.handshake.capabilities
        if self.case is not None:
            item = case_to_request(self.case, seq=0, profile=spec.profile)
            if item.request is None:  # no request: `invalid` says why
                pytest.skip(f"not applicable: {item.invalid}")
            reason = item.invalid or not_applicable_reason(item.request, capabilities)
            if reason:
                pytest.skip(f"not applicable: {reason}")
            request, overrides = item.request, item.overrides
            expected = case_expected(request, spec.profile, overrides=overrides, document=item.document,
                                     profiles=item.profiles)
        else:
            request = example_request(self.seed, self.index, capabilities, uniform_only=options.uniform_weights_only,
                                      profile_smoothing=options.smoothing.to_json())
            overrides, expected = None, oracle_expected(request, spec.profile)
        reply = transport.request(request.with_seq(1).to_json())
        verdict = judge(expected, reply, spec.contract(), max_order=len(request.weights),
                        token_counts=token_count_layers(request))
        if verdict.outcome in (Outcome.PASS, Outcome.REJECTED, Outcome.ACCEPTABLE):  # acceptable: not under strict
            return
        if self.case is None and verdict.outcome in (Outcome.FAIL, Outcome.ERROR):  # as check: the minimal input
            request, reply, verdict, expected = _shrunk(transport, request, reply, verdict, expected, spec,
                                                        capabilities)
        cause = attribute(request, reply, verdict, expected, spec.profile, overrides=overrides)
        layer = f" at {verdict.layer}" + (f" (order {verdict.order})" if verdict.order else "") if verdict.layer else ""
        payload = json_shown(json.dumps(request.replay_payload(), ensure_ascii=False))
        fits = f" (fits as well: {', '.join(cause.fits)})" if cause.fits else ""
        # the implementation's message and the input's tokens are outside text: each line shown escaped
        pytest.fail("\n".join(shown(line) for line in (
            f"{verdict.outcome.value}{layer}: {verdict.message}",
            f"root cause: {cause.name}{fits}: {cause.description}",
            f"input: {payload if len(payload) <= 2000 else payload[:2000] + '... (cut)'}",
            f"reproduce: {_reproduce_line(self, spec, nodeid)}")), pytrace=False)


def _shrunk(transport, request, reply, verdict, expected, spec, capabilities):
    """The minimal input that fails the same way (`oracle.harness.shrink`, check's shrinker and predicate,
    check's budgets), with its reply, verdict and expectation; the original where nothing simpler fails."""
    contract = spec.contract()

    def send(candidate):
        sent = candidate.with_seq(1)
        return sent, transport.request(sent.to_json())

    still_fails = SameFailure(request, verdict, reply, profile=spec.profile, capabilities=capabilities, send=send,
                              contract=contract, given_up=lambda: False, expected=expected)
    outcome = shrink(request, still_fails, capabilities=capabilities, budget=SHRINK_BUDGET,
                     deadline=deadline_after(SHRINK_SECONDS))
    last = still_fails.last
    if not outcome.steps or last is None:
        return request, reply, verdict, expected
    return last.request, last.reply, last.verdict, last.expected


def _reproduce_line(item, spec, nodeid):
    """The command that runs this one test again: its node id, with the seed its input was drawn from."""
    seed = f" --bleu-oracle-seed {item.seed}" if item.case is None else ""
    return f"pytest {shlex.quote(nodeid or item.id)}{seed}"


def conformance(function, *, profile, capabilities=None, examples=DEFAULT_EXAMPLES, seed=0, cases=True,
                name="function under test", rel=1e-9, abs=1e-12, strict=False):
    """A test function (assign it to a `test_...` name) that checks `function` against the oracle under
    `profile`: every documented case its `capabilities` cover (protocol v1's: levels, weights, max_order,
    smoothing, statistics, lowercase, and the optional limits; the defaults declare corpus and sentence
    level, any weights up to order 4, no smoothing, no statistics, no case folding), then `examples`
    seeded random inputs; judged under the numeric contract |actual - expected| <= abs + rel * |expected|.
    `strict`: an input the documents leave undefined must be refused (a named convention's value fails)."""
    if profile not in PROFILES:
        raise ValueError(f"`profile` must be one of {sorted(PROFILES)} (got {profile!r})")
    declared = declare_capabilities(**(capabilities or {}))

    def test_bleu_oracle_conformance(bleu_oracle_item, request):
        bleu_oracle_item.run(request.node.nodeid)

    test_bleu_oracle_conformance.bleu_oracle = _Spec(function, profile, declared, examples, seed, cases, name, rel, abs,
                                                     strict)
    return test_bleu_oracle_conformance


def pytest_addoption(parser):
    group = parser.getgroup("bleu-oracle", "bleu-oracle conformance tests (oracle.harness.pytest_plugin)")
    group.addoption("--bleu-oracle-examples", type=int, default=None, metavar="N",
                    help="random examples per conformance test (default: what conformance() was given)")
    group.addoption("--bleu-oracle-seed", type=int, default=None, metavar="S",
                    help="seed of the random examples (default: what conformance() was given)")


def pytest_generate_tests(metafunc):
    spec = getattr(metafunc.function, "bleu_oracle", None)
    if spec is None or "bleu_oracle_item" not in metafunc.fixturenames:
        return
    examples = metafunc.config.getoption("bleu_oracle_examples", None)
    seed = metafunc.config.getoption("bleu_oracle_seed", None)
    items = spec.items(spec.examples if examples is None else examples, spec.seed if seed is None else seed)
    metafunc.parametrize("bleu_oracle_item", items, ids=[item.id for item in items])
