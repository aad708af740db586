"""Two npm packages' BLEU behind protocol v1, run by node (`drivers/npm_bleu.js`).

- **promptfoo** 0.123.1 (TypeScript; its `bleu` assertion): `calculateBleuScore(candidate, references)`
  as the assertion calls it, with its default weights (the assertion has no weights option): BLEU-4,
  sentence level. It lowercases (always: a request that keeps case is folded all the same, which
  the judge sees) and splits on /\\s+/ itself, so tokens are joined with spaces and may hold no
  JavaScript whitespace. Its code cites Papineni et al. 2002: profile `papineni`.
- **bleu-score** 1.0.4 (npm, TypeScript compiled to js/bleu.js): `bleu(reference, candidate, maxN)`,
  one sentence against one reference, split on " " (so an empty token survives the join; a segment
  of no tokens arrives as one empty token: the library cannot express it). Uniform weights 1/maxN.
  Its README claims nothing beyond "Calculate BLEU score": profile `papineni`.

Both packages are fetched once, tarball only, into the project's implementations directory
(`oracle.adapters.environments`); node must be on PATH.
"""

from __future__ import annotations

import importlib.resources
import shutil

from oracle.models.protocol import ScoreRequest

from . import environments
from .base import AdapterUnavailable, Implementation, Rejected, ScoreAnswer, Unsupported, declare_capabilities, is_uniform
from .bridge import Bridge

#: What JavaScript's \s matches (ECMA-262 WhiteSpace and LineTerminator): promptfoo splits on it.
JS_WHITESPACE = "\t\n\x0b\x0c\r \xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000\ufeff"

_bridge = None


def _driver():
    """One node process for both packages (the adapter runs one of them per server)."""
    global _bridge
    if _bridge is None:
        node = shutil.which("node")
        if node is None:
            raise AdapterUnavailable("node is not installed (it runs the npm packages; Debian: apt-get install nodejs)")
        script = importlib.resources.files("oracle.adapters").joinpath("drivers/npm_bleu.js")
        dirs = [str(environments.npm_package_dir(name)) if environments.is_prepared(name) else "-"
                for name in ("promptfoo", "bleu-score")]
        _bridge = Bridge([node, str(script), *dirs], what="node (npm_bleu.js)")
    return _bridge


def _require(name):
    if not environments.is_prepared(name):
        raise AdapterUnavailable(f"the npm package {name} is not installed: {environments.install_hint(name)}")
    environments.verify(name)  # every file as its tarball had it, or exit 3 naming the one that is not
    return environments.NPM_PACKAGES[name][0]


class PromptfooImplementation(Implementation):
    name = "promptfoo"
    language = "typescript"
    profile = "papineni"
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=4, orders=[4],
                                        lowercase=True, forbidden_token_characters=JS_WHITESPACE, empty_tokens=False)

    def __init__(self):
        self.version = _require("promptfoo")
        self._driver = _driver()

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if len(request.weights) != 4 or not is_uniform(request.weights):
            raise Unsupported(f"promptfoo's bleu assertion is uniform BLEU-4 (got weights {list(request.weights)})")
        if request.smoothing.method != "none":
            raise Unsupported("promptfoo's bleu assertion has no smoothing option")
        if len(request.segments) != 1:
            raise Rejected(f"sentence level takes exactly one segment (got {len(request.segments)})")
        segment = request.segments[0]
        return ScoreAnswer(self._driver.call({
            "package": "promptfoo", "candidate": " ".join(segment.hypothesis),
            "references": [" ".join(r) for r in segment.references], "weights": list(request.weights)}))


class BleuScoreNpmImplementation(Implementation):
    name = "bleu-score"
    language = "typescript"
    profile = "papineni"
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=12,
                                        forbidden_token_characters=" ", max_references=1)

    def __init__(self):
        self.version = _require("bleu-score")
        self._driver = _driver()

    def score(self, request: ScoreRequest) -> ScoreAnswer:
        if not is_uniform(request.weights):
            raise Unsupported(f"bleu-score weighs every order 1/maxN (got weights {list(request.weights)})")
        if request.smoothing.method != "none":
            raise Unsupported("bleu-score does not smooth")
        if request.lowercase:
            raise Unsupported("bleu-score does not fold case")
        if len(request.segments) != 1 or len(request.segments[0].references) != 1:
            raise Unsupported("bleu-score scores one sentence against one reference")
        segment = request.segments[0]
        return ScoreAnswer(self._driver.call({
            "package": "bleu-score", "reference": " ".join(segment.references[0]),
            "candidate": " ".join(segment.hypothesis), "maxN": len(request.weights)}))
