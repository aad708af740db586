"""A documented case and its parts, as the loader (`oracle.suite`) reads them from a case file: its
source, profiles, input, options, what the document prints, and (for a case found by fuzzing) the
root cause that explains the implementation's answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from oracle.formulas.conventions import (
    Smoothing,
)
from oracle.formulas.errors import BleuOracleError

# -- The case model ----------------------------------------------------------


@dataclass(frozen=True)
class CaseSource:
    """Where a case comes from: document, section, and a quote found verbatim in `seed`."""

    document: str
    section: str
    quote: str
    #: The seed file holding the quote (the case file's `seed` unless the case names another);
    #: None in a `found_by` file (no document to quote).
    seed: str | None


@dataclass(frozen=True)
class ExplainedBy:
    """The root cause `oracle.diagnose.classify` named for an implementation's value (a `found_by: fuzz` case):
    `change` is `Explanation.change` -- (option, value) pairs, ("smoothing", mapping) and
    ("computation", name) -- replayed by `oracle.diagnose.classify.explained_value`."""

    name: str
    change: tuple

    def convention_changes(self):
        """The convention overrides among the changes (no smoothing, no computation), as `oracle.score`
        keywords; like `oracle.diagnose.classify`, a changed empty-order rule applies at sentence level too."""
        changes = {k: v for k, v in self.change if k not in ("smoothing", "computation")}
        if "empty_order" in changes:
            changes.setdefault("sentence_empty_order", None)
        if "weight_normalisation" in changes:
            changes.setdefault("uniform_weights_only", False)
        return changes

    @property
    def computations(self):
        return tuple(v for k, v in self.change if k == "computation")


@dataclass(frozen=True)
class CaseSegment:
    hypothesis: tuple
    references: tuple


@dataclass(frozen=True)
class CaseInput:
    level: str
    segments: tuple

    def oracle_arguments(self):
        """(hypotheses, references) as `oracle.score` takes them at this level."""
        if self.level == "sentence":
            segment = self.segments[0]
            return list(segment.hypothesis), [list(r) for r in segment.references]
        return (
            [list(s.hypothesis) for s in self.segments],
            [[list(r) for r in s.references] for s in self.segments],
        )


@dataclass(frozen=True)
class CaseOptions:
    """Options a case sets. `weights` entries are exact (int, Decimal or Fraction);
    `smoothing` is a tuple of (name, value) pairs, method first; `conventions` too."""

    weights: tuple | None = None
    smoothing: tuple | None = None
    lowercase: bool | None = None
    conventions: tuple = ()


@dataclass(frozen=True)
class ExpectedStatistics:
    """Any subset of the sufficient statistics, BP and precisions a document states.

    `bp` and each precision are a Fraction (exact) or a Decimal (compared within
    the case's tolerance); `precisions` is a tuple of (order, value) pairs, value
    None meaning "the order is left out (0/0)"."""

    hyp_len: int | None = None
    ref_len: int | None = None
    matches: tuple | None = None
    totals: tuple | None = None
    bp: Fraction | Decimal | None = None
    precisions: tuple | None = None


@dataclass(frozen=True)
class CaseExpect:
    """`score` is a Fraction (exact), a Decimal (within `tolerance`), Decimal NaN, or None."""

    score: Fraction | Decimal | None = None
    tolerance: Decimal | None = None
    exact: bool = False
    statistics: ExpectedStatistics | None = None
    rejected: bool = False


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    source: CaseSource
    profiles: tuple
    kind: str
    input: CaseInput
    options: CaseOptions
    expect: CaseExpect
    note: str | None
    path: Path = field(compare=False)
    line: int = field(compare=False)
    #: The case file's `document`.
    document: str = field(compare=False, default="")
    #: The case file's `found_by` (None: the case is taken from a seed document).
    found_by: str | None = field(compare=False, default=None)
    #: The root cause of the observed value (`found_by` cases only).
    explained_by: ExplainedBy | None = None

    @property
    def level(self):
        return self.input.level

    def convention_overrides(self):
        """The convention overrides (Options fields) this case sets, as a dict."""
        return dict(self.options.conventions)

    def oracle_kwargs(self):
        """Keyword arguments for `oracle.score` besides hypotheses, references and profile:
        level, the protocol fields the case sets (exact values) and convention overrides."""
        kwargs = {"level": self.input.level}
        if self.options.weights is not None:
            kwargs["weights"] = list(self.options.weights)
        if self.options.smoothing is not None:
            kwargs["smoothing"] = dict(self.options.smoothing)
        if self.options.lowercase is not None:
            kwargs["lowercase"] = self.options.lowercase
        kwargs.update(self.convention_overrides())
        return kwargs

    def options_for_oracle(self, profile):
        """The `Options` the oracle uses for this case under `profile` (profile + overrides)."""
        from oracle import resolve_options

        return resolve_options(profile=profile, lowercase=self.options.lowercase, **self.convention_overrides())

    def request_fields(self, profile=None):
        """The protocol-v1 request fields (JSON-ready): level, segments, and weights, smoothing
        and lowercase. Without `profile`, only the protocol fields the case sets are given;
        with one, unset fields take that profile's defaults. Convention overrides are not
        protocol fields: see `convention_overrides()`."""
        out = {
            "level": self.input.level,
            "segments": [
                {"hypothesis": list(s.hypothesis), "references": [list(r) for r in s.references]}
                for s in self.input.segments
            ],
        }
        options = self.options_for_oracle(profile) if profile is not None else None
        if self.options.weights is not None:
            # float() of a Fraction, Decimal or int; .inf / .nan stay as they are (a case may expect a rejection)
            out["weights"] = [float(w) for w in self.options.weights]
        elif options is not None:
            out["weights"] = [1.0 / options.default_max_order] * options.default_max_order
        if self.options.smoothing is not None:
            try:  # the protocol form, with the method's default parameters filled in
                out["smoothing"] = Smoothing.parse(dict(self.options.smoothing)).to_json()
            except BleuOracleError:  # a value the oracle refuses: pass it on as written
                out["smoothing"] = {k: (v if k == "method" else float(v)) for k, v in self.options.smoothing}
        elif options is not None:
            out["smoothing"] = options.smoothing.to_json()
        if self.options.lowercase is not None:
            out["lowercase"] = self.options.lowercase
        elif options is not None:
            out["lowercase"] = options.lowercase
        return out


@dataclass(frozen=True)
class RetiredId:
    id: str
    reason: str
    path: Path = field(compare=False)
    line: int = field(compare=False)


