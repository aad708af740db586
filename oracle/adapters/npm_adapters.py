"""Two npm packages' BLEU, declared here and scored by node running `drivers/npm_bleu.js`, which speaks
protocol v1 itself (`oracle.adapters.driven`).

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

from . import environments
from .base import declare_capabilities
from .driven import DriverImplementation, driver_script, node
from .preparations import NpmPin
from .registry import Registered

#: This module's implementations, as every verb knows them (docs/extending.md, "An implementation"): the
#: registry reads this statement from the source, without importing the module, so it holds plain data only.
IMPLEMENTATIONS = (
    Registered("promptfoo", "npm", "oracle.adapters.npm_adapters:PromptfooImplementation", prepared=NpmPin(
        "0.123.1", "sha512-9WzFeH6L+5E49R6CTulBo/WzmVPNcMpvgUZAyEsNlaKgpfmF9vV82jKUG1rQ+QH79P7gYAaxeY3TvLDV+x0Cbg=="),
               listed=19),
    Registered("bleu-score", "npm", "oracle.adapters.npm_adapters:BleuScoreNpmImplementation", prepared=NpmPin(
        "1.0.4", "sha512-GiBQK6KFuQhfAPBIfcorw15Ggn5pD2dNkptxxNAs9TtHHXlA5XalzMfGQVRVhEhIz4DeYoOqIXPzJytT83/N4A=="),
               listed=20),
)


#: What JavaScript's \s matches (ECMA-262 WhiteSpace and LineTerminator): promptfoo splits on it.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


class _NpmImplementation(DriverImplementation):
    language = "typescript"

    @classmethod
    def command(cls) -> list[str]:
        entry = cls.entry()
        package = str(environments.npm_package_dir(entry.environment))
        return [node(), driver_script("npm_bleu.js"), entry.driver_library, package, cls.handshake_json()]


class PromptfooImplementation(_NpmImplementation):
    name = "promptfoo"
    version = environments.NPM_PACKAGES["promptfoo"][0]
    profile = "papineni"
    capabilities = declare_capabilities(
        levels=["sentence"], weights="uniform", max_order=4, orders=[4], lowercase=True,
        forbidden_token_characters=JS_WHITESPACE, empty_tokens=False)


class BleuScoreNpmImplementation(_NpmImplementation):
    name = "bleu-score"
    version = environments.NPM_PACKAGES["bleu-score"][0]
    profile = "papineni"
    capabilities = declare_capabilities(levels=["sentence"], weights="uniform", max_order=12,
                                        forbidden_token_characters=" ", max_references=1)
