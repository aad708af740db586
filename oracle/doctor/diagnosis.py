"""`diagnose_files`: the layout lint, every reading, each number reconstructed, each difference explained.

One pass streams every file in step: the lint watches the lines, the stream table counts every token
stream once. Then, from the counts alone: the readings table, the search for each number, each signature's
reading, the waterfalls between them. Last, each layout problem's effect, measured under the reading the
user's own number points to (a pass over the files per problem that needs one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import zip_longest
from os import PathLike

from oracle.formulas.bleu import Statistics
from oracle.formulas.errors import BleuTypeError, BleuValueError
from oracle.formulas.profiles import PROFILES

from . import model
from .effects import Measured, measure
from .history import versions_for
from .layout import Finding, LayoutWatch
from .rawtext import BOM, read_raw_lines
from .readings import Reading, Scorer, on_scale, table_readings
from .search import GivenNumber, Match, Search, departures, differ, needs, parse_number
from .shipped import departures as shipped_departures
from .signatures import ParsedSignature, parse_signature
from .streams import SENTENCE_LEVEL_LIMIT, StreamTable
from .waterfall import Point, Waterfall, waterfall

#: How many explanations of a number the report lists (all are counted).
EXPLANATIONS_LISTED = 50
#: Effects are measured under this reading when no number or signature names one.
DEFAULT_READING = Reading("sacrebleu", "13a", False)


def diagnose_files(hypothesis: str | PathLike, references: Sequence[str | PathLike], *, numbers: Iterable[str] = (),
                   signatures: Iterable[str] = (), sentence_limit: int = SENTENCE_LEVEL_LIMIT,
                   fail_on: str = "error") -> model.DoctorReport:
    """Diagnose a hypothesis file against reference files (one reference stream each), explaining `numbers`
    (strings as printed, either scale: their digits say how exactly they are known) and `signatures`. The
    report's exit code is 1 when a number is not explained or a layout finding is at least as severe as `fail_on`
    ("error", "warning"; "never": findings leave it alone).

        >>> report = diagnose_files("hyp.txt", ["ref.txt"], numbers=["26.65"])   # doctest: +SKIP
        >>> report.numbers[0].explanations[0].profile                           # doctest: +SKIP
        'sacrebleu'
    """
    if isinstance(references, (str, bytes)) or not references:
        raise BleuTypeError("`references` must be a non-empty list of files (one reference stream each)")
    if fail_on not in model.FAILING_SEVERITIES:
        raise BleuValueError(f"`fail_on` must be one of {list(model.FAILING_SEVERITIES)} (got {fail_on!r})")
    given = [parse_number(number) for number in numbers]
    parsed = [parse_signature(text) for text in signatures]
    paths = [str(hypothesis), *(str(r) for r in references)]
    references_count = len(paths) - 1
    table, watch = _scan(paths, sentence_limit)
    findings = watch.findings()
    if table is None:
        return _assemble(paths, 0, [_layout_finding(f, "no line is in every file", references_count) for f in findings],
                         [], [_number_report(number, [], None, None, references_count) for number in given],
                         [_signature_report(sig, None, references_count) for sig in parsed], [], [],
                         ["no line is in every file: nothing to score"], fail_on)
    notes = [] if table.sentence_level else [
        f"{table.segments} segments: readings that average sentence scores keep at most {table.limit} and were "
        "not searched"]
    scorer = Scorer(table)
    search = Search(scorer) if given else None
    results = [(number, search.matches(number)) for number in given] if search is not None else []
    points = [_number_point(number, matches) for number, matches in results if matches]
    points += [Point(sig.text, sig.reading, "0-100") for sig in parsed if scorer.can_score(sig.reading)]
    effect_reading = points[0].reading if points else DEFAULT_READING
    return _assemble(
        paths, table.segments,
        [_layout_finding(f, effect, references_count)
         for f, effect in _effects(findings, effect_reading, scorer, paths)],
        _readings(scorer),
        [_number_report(number, matches, search, scorer, references_count) for number, matches in results],
        [_signature_report(sig, scorer, references_count) for sig in parsed],
        [_difference(waterfall(points[0], point, scorer), references_count) for point in points[1:]],
        _as_shipped(scorer), notes, fail_on)


#: How many findings of one kind get their effect measured: each fix re-scores every file (50 copies of one
#: reference are 49 duplicated-reference findings; measuring each took minutes).
MEASURED_PER_KIND = 4


def _effects(findings: list[Finding], reading: Reading, scorer: Scorer,
             paths: list) -> list[tuple[Finding, Measured | str]]:
    """(finding, its measured effect or why there is none) for each finding, the first MEASURED_PER_KIND of each
    kind measured."""
    seen: Counter[str] = Counter()
    out: list[tuple[Finding, Measured | str]] = []
    for finding in findings:
        seen[finding.kind] += 1
        if seen[finding.kind] > MEASURED_PER_KIND:
            out.append((finding, f"only the first {MEASURED_PER_KIND} findings of each kind are measured: each "
                                 "fix re-scores every file"))
        else:
            out.append((finding, measure(finding, reading, scorer, paths)))
    return out


def _scan(paths: list, sentence_limit: int) -> tuple[StreamTable | None, LayoutWatch]:
    readers = [read_raw_lines(path) for path in paths]
    watch = LayoutWatch(paths[0], paths[1:])
    table = None
    for index, lines in enumerate(zip_longest(*readers)):
        watch.see(index, lines)
        if any(line is None for line in lines):
            continue
        texts = tuple(line.text for line in lines)
        if table is None:
            table = StreamTable(len(paths) - 1, bom=any(text.startswith(BOM) for text in texts), limit=sentence_limit)
        table.add(texts)
    return table, watch


def _number_point(number: GivenNumber, matches: list) -> Point:
    best = matches[0]
    return Point(number.text, best.reading, best.scale, number.on_100(best.scale),
                 float(number.half_unit) * (100 if best.scale == "0-1" else 1))


def _readings(scorer: Scorer) -> list:
    rows = []
    for reading in table_readings():
        value = scorer.value(reading)
        rows.append(model.Reading(
            profile=reading.profile, tokenize=reading.tokenizer, lowercase=reading.lowercase,
            aggregation=reading.aggregation, score=value.score, score_100=value.score * 100, bp=value.bp,
            statistics=_statistics(value.statistics), signature=reading.signature(scorer.table.references)))
    return rows


def _statistics(stats: Statistics | None) -> model.Statistics | None:
    """A corpus reading's summed statistics; None for a mean of sentence scores, which sums none."""
    if stats is None:
        return None
    return model.Statistics(hyp_len=stats.hyp_len, ref_len=stats.ref_len, matches=list(stats.matches),
                            totals=list(stats.totals))


def _explanation(reading: Reading, scale: str, score: float, references: int, *, difference: float | None = None,
                 match: str | None = None, kind: type[model.Explanation] = model.Explanation,
                 **extra) -> model.Explanation:
    return kind(profile=reading.profile, tokenize=reading.tokenizer, lowercase=reading.lowercase,
                conventions=reading.conventions(), aggregation=reading.aggregation, scale=scale, score=score,
                difference=difference, match=match, signature=reading.signature(references),
                departures=departures(reading), versions=versions_for(reading.profile, reading.conventions()), **extra)


def _from_match(m: Match, references: int, **extra) -> model.Explanation:
    return _explanation(m.reading, m.scale, m.score, references, difference=m.difference, match=m.match, **extra)


def _layout_finding(finding: Finding, effect: Measured | str, references: int) -> model.LayoutFinding:
    return model.LayoutFinding(
        kind=finding.kind, severity=finding.severity, message=finding.message,
        where=[model.Location(file=w.file, line=w.line, column=w.column) for w in finding.where], count=finding.count,
        effect=_effect(effect, references) if isinstance(effect, Measured) else None,
        no_effect_reason=effect if isinstance(effect, str) else None)


def _effect(effect: Measured, references: int) -> model.Effect:
    return model.Effect(reading=effect.reading.label(), signature=effect.reading.signature(references),
                        change=effect.description, before=effect.before, after=effect.after, delta=effect.delta)


def _number_report(number: GivenNumber, matches: list, search: Search | None, scorer: Scorer | None,
                   references: int) -> model.NumberReport:
    nearest = (
        []
        if matches or search is None or scorer is None
        else [
            _from_match(
                m,
                references,
                kind=model.NearReading,
                needs=[
                    model.Need(statistic=n.statistic, current=n.current, needed=n.needed, reproduces=n.reproduces)
                    for n in needs(m, number, scorer)
                ],
            )
            for m in search.nearest(number)
        ]
    )
    return model.NumberReport(
        given=number.text, value=float(number.value), half_unit=float(number.half_unit), scales=list(number.scales),
        explained=bool(matches), explanation_count=len(matches),
        explanations=[_from_match(m, references) for m in matches[:EXPLANATIONS_LISTED]], nearest=nearest)


def _assemble(paths: list, segments: int, layout: list, readings: list, numbers: list, signatures: list,
              differences: list, as_shipped: list, notes: list, fail_on: str) -> model.DoctorReport:
    from oracle import __version__

    failing = any(finding.severity in model.FAILING_SEVERITIES[fail_on] for finding in layout)
    unexplained = not all(number.explained for number in numbers)
    return model.DoctorReport(oracle_version=__version__, hypothesis=paths[0], references=paths[1:], segments=segments,
                              layout=layout, readings=readings, numbers=numbers, signatures=signatures,
                              differences=differences, as_shipped=as_shipped, notes=notes, fail_on=fail_on,
                              exit_code=1 if failing or unexplained else 0)


def _as_shipped(scorer: Scorer) -> list[model.ShippedReading]:
    """Each profile's library whose code, as shipped, gives another number than the profile on these files (under
    the profile's own tokenizer and case): the reading that reproduces it."""
    out = []
    for profile in PROFILES:
        documented = Reading(profile, PROFILES[profile].options.tokenizer, PROFILES[profile].options.lowercase)
        for departure in shipped_departures(profile):
            reading = documented.changed(departure.convention, departure.value)
            if not (scorer.can_score(documented) and scorer.can_score(reading)):
                continue
            documented_value, shipped_value = scorer.value(documented), scorer.value(reading)
            if not differ(documented_value, shipped_value):
                continue
            before, after = documented_value.score * 100, shipped_value.score * 100
            out.append(model.ShippedReading(
                library=departure.library, versions=departure.versions, discrepancy=departure.discrepancy,
                what=departure.what, documented=before,
                reading=_explanation(reading, "0-100", after, scorer.table.references)))
    return out


def _signature_report(sig: ParsedSignature, scorer: Scorer | None, references: int) -> model.SignatureReport:
    notes = list(sig.notes)
    if sig.references is not None and sig.references != references:
        notes.append(f"it says nrefs:{sig.references}, and {references} reference file(s) are given here")
    score = float("nan")
    if scorer is None or not scorer.can_score(sig.reading):
        notes.append("its reading cannot be computed on these files")
    else:
        score = scorer.value(sig.reading).score * 100
    return model.SignatureReport(given=sig.text, format=sig.format, references=sig.references, notes=notes,
                                 reading=_explanation(sig.reading, "0-100", score, references))


def _difference(path: Waterfall, references: int) -> model.Difference:
    def end(point: Point, score_100: float) -> model.Explanation:
        return _explanation(point.reading, point.scale, on_scale(score_100 / 100, point.scale), references)

    given = path.given
    return model.Difference(
        source=path.start.label, target=path.end.label, start=end(path.start, path.start_score),
        end=end(path.end, path.end_score), start_score=path.start_score, end_score=path.end_score,
        computed=path.computed, given=given, rounding=None if given is None else given - path.computed,
        steps=[model.WaterfallStep(step=s.step, change=s.change, score=s.score, delta=s.delta, share=s.share)
               for s in path.steps])



