"""The layout lint: what makes BLEU silently wrong on real files, seen while the files stream past.

`LayoutWatch` is fed every file's lines in step (None for a file that has ended) and keeps bounded state:
counts, the first few line numbers of each problem, a window of lines for alignment. `findings()` then
names each problem with its file and line, and says how its effect is measured (`Fix`): a reading changed
in the table (lowercasing, the 13a tokenizer, the byte-order mark kept) or a pass over the files with the
problem undone (re-aligned, exchanged, without the empty lines, ...), which `effects.py` runs.

The heuristics, each with its threshold stated where it is defined:
- alignment: hypothesis line j is compared with reference lines j-K..j+K by word overlap; a reference
  whose lines match best at one offset k != 0 from some line on is shifted by k from there; one whose own
  line matches no better than lines K away is misaligned (permuted, or another text);
- swapped arguments: the hypothesis identical to a reference on most lines, much longer than every
  reference on most lines, or named like a reference while a reference is not;
- transposed references: as many reference files as hypothesis lines, each with another number of lines;
- one side lowercased, the text already tokenized (13a changes almost nothing) on one side only, a
  reference file duplicated, empty lines, a byte-order mark, CR line ends, NUL, bytes that are not UTF-8;
- a character other than "\\n" at which `str.splitlines()` ends a line (U+2028, U+2029, NEL, VT, FF, FS, GS,
  RS, a CR that ends no CR LF) inside a line: a reader that splits that way reads more lines than there are
  segments, and pairs every later hypothesis with another segment's references.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

from oracle.textio import ordinal, same_file

from .rawtext import BOM, LINE_SEPARATORS, Line
from .streams import tokens_13a

#: Alignment looks this many lines either side.
WINDOW = 4
#: Per-line best offsets are kept for this many hypothesis lines (memory stays bounded).
ALIGNMENT_LIMIT = 200_000
#: A line takes part in the alignment when its hypothesis has at least this many distinct words.
INFORMATIVE_WORDS = 3
#: A shift is reported when, from its first line on, at least this share of the informative lines match best
#: at the shifted offset, over at least `SHIFT_LINES` informative lines.
SHIFT_SHARE = 0.8
SHIFT_LINES = 20
#: Misaligned: the own line overlaps no more than this many times the overlap of lines WINDOW away.
MISALIGNED_RATIO = 1.5
#: Swapped: identical on at least this share of lines; or the hypothesis at least LONGER_FACTOR times every
#: reference's length on at least this share of lines.
SWAP_SHARE = 0.5
LONGER_FACTOR = 2.0
#: Lowercased: at most this share of the lines with letters hold a capital, against at least OTHER_CASED on
#: the other side.
LOWERCASED_SHARE = 0.01
OTHER_CASED = 0.3
#: Tokenized: on at most this share of (the first TOKENIZED_SAMPLE non-empty) lines does 13a change the
#: words; detokenized: on at least DETOKENIZED_SHARE.
TOKENIZED_SHARE = 0.15
DETOKENIZED_SHARE = 0.4
TOKENIZED_SAMPLE = 1000
#: Duplicated reference: identical on at least this share of lines.
DUPLICATE_SHARE = 0.95
#: How many line numbers a finding lists.
SHOWN = 5
_WORDS = re.compile(r"\w+")
_LINE_SEPARATOR = re.compile("[" + "".join(LINE_SEPARATORS) + "]")
_REFERENCE_NAME = re.compile(r"(^|[^a-z])(ref|refs|reference|references|gold|target|tgt)([^a-z]|$)")


@dataclass(frozen=True)
class Location:
    file: str
    line: int | None = None
    #: 1-based character position in the line, for a finding about one character
    column: int | None = None


@dataclass(frozen=True)
class Fix:
    """How a finding's effect is measured: `kind` "reading" (the reading with `change`, from the table) or
    "pass" (the files read again with `transform` applied)."""

    kind: str
    description: str
    #: for "reading": (convention or "lowercase" or "tokenizer", value)
    change: tuple = ()
    #: for "pass": "realign", "exchange", "drop-empty", "drop-file", "transpose", "strip-cr", "drop-nul",
    #: "drop-bom", "ignore-invalid", "split-lines"
    transform: str = ""
    #: split-lines: the character the file is split at, as `str.splitlines()` splits it
    separator: str = ""
    #: the file index the transform concerns (0 the hypothesis, 1.. the references)
    file: int = 0
    #: realign: the first hypothesis line (1-based) that moves, and by how many reference lines
    start: int = 0
    offset: int = 0


@dataclass(frozen=True)
class Finding:
    kind: str
    #: "error" (the number is wrong), "warning" (probably wrong), "note" (worth knowing)
    severity: str
    message: str
    where: tuple
    #: how many lines (or files) it concerns
    count: int
    fix: Fix | None = None
    #: why no effect is measured (when `fix` is None)
    no_effect_reason: str = ""


@dataclass
class _FileWatch:
    """What one file's lines showed."""

    name: str
    lines: int = 0
    bom: bool = False
    marks: list = field(default_factory=list)
    mark_count: int = 0
    crlf: list = field(default_factory=list)
    crlf_count: int = 0
    nul: list = field(default_factory=list)
    nul_count: int = 0
    invalid: list = field(default_factory=list)
    invalid_count: int = 0
    #: each line separator other than "\n" found inside a line: its first (line, column) places (a line each),
    #: how many lines hold it, how many times it occurs
    separators: dict = field(default_factory=dict)
    separator_lines: Counter = field(default_factory=Counter)
    separator_count: Counter = field(default_factory=Counter)
    #: how many more lines than here a `str.splitlines()` reader reads in this file
    splitlines_extra: int = 0
    empty: list = field(default_factory=list)
    empty_count: int = 0
    #: the number of the last line with text (the lines after it are empty)
    last_text_line: int = 0
    lettered: int = 0
    capitalised: int = 0
    sampled: int = 0
    changed_by_13a: int = 0

    def see(self, line: Line) -> None:
        self.lines += 1
        text = line.text
        if text.startswith(BOM):
            if line.number == 1:
                self.bom = True
            else:
                self.mark_count += _noted(self.marks, line.number)
        if text.endswith("\r"):
            self.crlf_count += _noted(self.crlf, line.number)
        if "\x00" in text:
            self.nul_count += _noted(self.nul, line.number)
        if line.invalid_at is not None:
            self.invalid_count += _noted(self.invalid, (line.number, line.invalid_at))
        inner = line.inner()
        if _LINE_SEPARATOR.search(inner):
            self._see_separators(line, inner)
        stripped = text.lstrip(BOM) if line.number == 1 else text
        if not stripped.strip():
            self.empty_count += _noted(self.empty, line.number)
            return
        self.last_text_line = line.number
        if stripped.lower() != stripped.upper():
            self.lettered += 1
            self.capitalised += stripped != stripped.lower()
        if self.sampled < TOKENIZED_SAMPLE:
            self.sampled += 1
            self.changed_by_13a += tokens_13a(stripped) != tuple(stripped.split())  # the table asks for it next


    def _see_separators(self, line: Line, inner: str) -> None:
        first: dict[str, int] = {}
        for match in _LINE_SEPARATOR.finditer(inner):
            character = match.group()
            self.separator_count[character] += 1
            first.setdefault(character, match.start() + 1)
        for character, column in first.items():
            self.separator_lines[character] += 1
            places = self.separators.setdefault(character, [])
            if len(places) < SHOWN:
                places.append((line.number, column))
        self.splitlines_extra += line.splitlines_count() - 1


def _noted(kept: list, item: object) -> int:
    """Count one more occurrence; keep its place while fewer than SHOWN are kept."""
    if len(kept) < SHOWN:
        kept.append(item)
    return 1


class _Alignment:
    """Hypothesis line j against reference lines j-WINDOW .. j+WINDOW, by word overlap."""

    def __init__(self) -> None:
        #: (line index, word set) waiting for the reference lines after them
        self.hyp: deque[tuple[int, set[str]]] = deque()
        self.ref: dict[int, set[str]] = {}  # line index -> word set, the last 2 * WINDOW + 1 reference lines
        self.best = array("b")  # the best offset of each informative line, while ALIGNMENT_LIMIT lasts
        self.lines = array("q")  # the 0-based hypothesis line of each
        self.informative = 0
        self.own_overlap = 0.0
        self.far_overlap = 0.0

    def see(self, index: int, hyp: str | None, ref: str | None) -> None:
        if ref is not None:
            self.ref[index] = _word_set(ref)
            self.ref.pop(index - 2 * WINDOW - 1, None)
        if hyp is not None:
            self.hyp.append((index, _word_set(hyp)))
        while self.hyp and self.hyp[0][0] + WINDOW <= index:
            self._compare(*self.hyp.popleft())

    def finish(self) -> None:
        while self.hyp:
            self._compare(*self.hyp.popleft())

    def _compare(self, index: int, words: set) -> None:
        if len(words) < INFORMATIVE_WORDS:
            return
        overlaps = {k: len(words & self.ref[index + k]) / len(words) for k in range(-WINDOW, WINDOW + 1)
                    if index + k in self.ref}
        if 0 not in overlaps:
            return
        self.informative += 1
        self.own_overlap += overlaps[0]
        far = [overlaps[k] for k in (-WINDOW, WINDOW) if k in overlaps]
        self.far_overlap += sum(far) / len(far) if far else overlaps[0]
        if len(self.best) < ALIGNMENT_LIMIT:
            best = max(overlaps, key=lambda k: (overlaps[k], k == 0, -abs(k)))
            self.best.append(best)
            self.lines.append(index)

    def shift(self) -> tuple | None:
        """(first moved hypothesis line, 0-based; offset; share from there) of a shift, or None.

        The offset is the most frequent non-zero best offset; the first moved line is where the lines before
        it best disagree with that offset and the lines from it on best agree with it (the split maximising
        both counts), and it counts as a shift when at least SHIFT_SHARE of at least SHIFT_LINES lines from
        there agree."""
        counts = Counter(k for k in self.best if k != 0)
        if not counts:
            return None
        offset, total = counts.most_common(1)[0]
        best_split, best_score, before = 0, -1, 0
        for position, k in enumerate(self.best):
            score = (position - before) + (total - before)  # lines before that disagree + lines from here that agree
            if score > best_score:
                best_split, best_score = position, score
            before += k == offset
        tail = self.best[best_split:]
        agreeing = sum(k == offset for k in tail)
        if len(tail) < SHIFT_LINES or agreeing < SHIFT_SHARE * len(tail):
            return None
        return self.lines[best_split], offset, agreeing / len(tail)

    def misaligned(self) -> tuple | None:
        """(mean overlap with the own line, with lines WINDOW away) when the own line is no better, else None."""
        if self.informative < SHIFT_LINES:
            return None
        own, far = self.own_overlap / self.informative, self.far_overlap / self.informative
        return (own, far) if own <= MISALIGNED_RATIO * far else None


def _word_set(text: str) -> set:
    return set(_WORDS.findall(text.lower()))


class LayoutWatch:
    """Fed each file's lines in step; `findings()` at the end."""

    def __init__(self, hyp: str, refs: list) -> None:
        self.names = [str(hyp), *(str(r) for r in refs)]
        self.files = [_FileWatch(name) for name in self.names]
        self.alignments = [_Alignment() for _ in refs]
        self.segments = 0
        self.identical = [0] * len(refs)
        self.longer = 0
        self.compared = 0
        self.duplicates: Counter[tuple[int, int]] = Counter()

    def see(self, index: int, lines: tuple) -> None:
        """Line `index` (0-based) of every file, None for a file that has ended."""
        for watch, line in zip(self.files, lines, strict=True):
            if line is not None:
                watch.see(line)
        hyp = lines[0]
        for alignment, ref in zip(self.alignments, lines[1:], strict=True):
            alignment.see(index, None if hyp is None else hyp.text, None if ref is None else ref.text)
        if any(line is None for line in lines):
            return
        self.segments += 1
        texts = [line.text.strip().lstrip(BOM) for line in lines]
        if not texts[0]:
            return
        self.compared += 1
        hyp_words = len(texts[0].split())
        self.longer += hyp_words >= LONGER_FACTOR * max(len(t.split()) for t in texts[1:]) + 1
        for j, ref in enumerate(texts[1:]):
            self.identical[j] += ref == texts[0]
        first_with: dict[str, int] = {}  # each reference against the first one with its text: linear in references
        for b in range(1, len(texts)):
            a = first_with.setdefault(texts[b], b)
            if a != b:
                self.duplicates[(a, b)] += 1

    def findings(self) -> list:
        for alignment in self.alignments:
            alignment.finish()
        found = []
        found += self._counts()
        found += self._transposed()
        found += self._alignment()
        found += self._swapped()
        found += self._duplicated()
        linted = set()
        for index, watch in enumerate(self.files):
            if watch.name not in linted:  # one file given twice (as --hyp and --ref): its bytes' findings once
                found += self._encoding(index, watch)
            linted.add(watch.name)
            found += self._empty(index, watch)  # (by role: an empty reference line is an error, a hypothesis's not)
        found += self._case()
        found += self._tokenization()
        return found

    # -- each kind ---------------------------------------------------------------------------------

    def _counts(self) -> list:
        counts = {watch.name: watch.lines for watch in self.files}
        if len(set(counts.values())) == 1:
            return []
        shortest = min(counts.values())
        listed = ", ".join(f"{name} {n}" for name, n in counts.items())
        ended = Path(next(name for name, n in counts.items() if n == shortest)).name
        blank = "".join(  # (the commonest cause: an empty line left at the end of a file, "\n\n")
            f"; {Path(watch.name).name}'s "
            + (f"line {shortest + 1}, past the end of {ended}, is empty" if watch.lines == shortest + 1 else
               f"lines {shortest + 1}-{watch.lines}, past the end of {ended}, are empty")
            + " (an empty line left at the end of the file?)"
            for watch in self.files if watch.lines > shortest and watch.last_text_line <= shortest)
        return [Finding("line-count", "error", f"the files have different numbers of lines ({listed}){blank}; the "
                        f"readings score the first {shortest} lines of each, as zip() would, and sacrebleu refuses "
                        "such files",
                        tuple(Location(name, shortest + 1) for name, n in counts.items() if n > shortest),
                        len(counts), None, "the lines past the shortest file have no partner to be scored with")]

    def _transposed(self) -> list:
        refs = self.files[1:]
        hyp_lines = self.files[0].lines
        per_file = {watch.lines for watch in refs}
        if len(refs) < 2 or len(refs) != hyp_lines or len(per_file) != 1 or per_file == {hyp_lines}:
            return []
        (m,) = per_file
        return [Finding("transposed-references", "error",
                        f"{len(refs)} reference files of {m} line(s) each for {hyp_lines} hypothesis lines: the "
                        f"reference list looks transposed (one file per segment instead of one file per reference)",
                        (Location(refs[0].name, 1),), len(refs),
                        Fix("pass", f"each segment's references taken from its own file ({m} per segment)",
                            transform="transpose"))]

    def _alignment(self) -> list:
        found = []
        for j, alignment in enumerate(self.alignments):
            ref, hyp = self.names[j + 1], self.names[0]
            shift = alignment.shift()
            if shift is not None:
                start, offset, share = shift
                what = (f"{ref} has {offset} line(s) more than the hypothesis before this point" if offset > 0 else
                        f"{ref} lacks {-offset} line(s) before this point")
                found.append(
                    Finding(
                        "shifted-reference",
                        "error",
                        f"from line {start + 1} of {hyp} on, hypothesis line i matches line i{offset:+d} of {ref} best "
                        f"({share:.0%} of the informative lines from there): {what}",
                        (Location(hyp, start + 1), Location(ref, start + 1 + offset)),
                        alignment.informative,
                        Fix(
                            "pass",
                            f"{ref} re-aligned: line i{offset:+d} paired with hypothesis line i from line {start + 1} "
                            "on",
                            transform="realign",
                            file=j + 1,
                            start=start + 1,
                            offset=offset,
                        ),
                    )
                )
                continue
            misaligned = alignment.misaligned()
            if misaligned is not None:
                own, far = misaligned
                found.append(Finding(
                    "misaligned-reference", "error",
                    f"hypothesis lines overlap their own line of {ref} no more than lines {WINDOW} away (mean word "
                    f"overlap {own:.2f} against {far:.2f}): its lines are in another order, or it is another text",
                    (Location(ref, 1),), alignment.informative, None,
                    "the right order cannot be recovered from the files"))
        return found

    def _swapped(self) -> list:
        hyp = self.names[0]
        reasons, exchange = [], None
        sampled = self.compared >= SHIFT_LINES  # shares of a handful of lines say nothing
        for j, same in enumerate(self.identical if sampled else ()):
            if same >= SWAP_SHARE * self.compared:
                reasons.append(f"the hypothesis is identical to {self.names[j + 1]} on {same} of {self.compared} lines")
                exchange = j + 1 if exchange is None else exchange
        if sampled and self.longer >= SWAP_SHARE * self.compared:
            reasons.append(f"the hypothesis is at least {LONGER_FACTOR:g} times as long as every reference on "
                           f"{self.longer} of {self.compared} lines")
        named_reference = _REFERENCE_NAME.search(Path(hyp).name.lower())
        plain_refs = [
            j for j, name in enumerate(self.names[1:], 1) if not _REFERENCE_NAME.search(Path(name).name.lower())
        ]
        if named_reference and plain_refs:
            reasons.append(f"the hypothesis file is named like a reference ({Path(hyp).name}) and "
                           f"{self.names[plain_refs[0]]} is not")
            exchange = plain_refs[0] if exchange is None else exchange
        if not reasons:
            return []
        exchange = exchange or 1
        return [
            Finding(
                "swapped-arguments",
                "warning",
                "the hypothesis and a reference look swapped (or the hypothesis "
                "is not the system's output): " + "; ".join(reasons),
                (Location(hyp, 1), Location(self.names[exchange], 1)),
                self.compared,
                Fix("pass", f"{hyp} and {self.names[exchange]} exchanged", transform="exchange", file=exchange),
            )
        ]

    def _duplicated(self) -> list:
        found = []
        for (a, b), same in sorted(self.duplicates.items()):
            if self.segments and same >= DUPLICATE_SHARE * self.segments:
                first, second = self.names[a], self.names[b]
                if same_file(first, second):  # (one path given twice: not two files that happen to agree)
                    said = (f"{second} is given twice (the {ordinal(a)} and {ordinal(b)} --ref): the same "
                            "reference counted twice")
                    where: tuple = (Location(second, 1),)
                    fix = f"the {ordinal(b)} --ref ({second}) left out"
                else:
                    said = f"{second} repeats {first} on {same} of {self.segments} lines: one reference counted twice"
                    where = (Location(first, 1), Location(second, 1))
                    fix = f"{second} left out"
                found.append(Finding("duplicated-reference", "warning",
                                     f"{said} (nrefs is wrong; clipping and the length rule see no second opinion)",
                                     where, same, Fix("pass", fix, transform="drop-file", file=b)))
        return found

    def _encoding(self, index: int, watch: _FileWatch) -> list:
        found = []
        name = watch.name
        if watch.bom:
            found.append(Finding("byte-order-mark", "note",
                                 f"{name} starts with a UTF-8 byte-order mark: `bleu-oracle score` drops it; sacrebleu "
                                 "and the Perl scripts keep it glued to the first token",
                                 (Location(name, 1),), 1, Fix("reading", "the mark glued to the first token",
                                                              change=("bom", "kept"))))
        for kind, severity, lines, count, what, fix in (
            ("byte-order-mark-inside", "warning", watch.marks, watch.mark_count,
             "a byte-order mark starts a line inside the file (files concatenated?)",
             Fix("pass", "the marks removed", transform="drop-bom", file=index)),
            ("crlf", "note", watch.crlf, watch.crlf_count, "CR LF line ends (a CR before each newline)",
             Fix("pass", "the CRs removed", transform="strip-cr", file=index)),
            ("nul", "warning", watch.nul, watch.nul_count, "NUL characters", Fix("pass", "the NULs removed",
                                                                              transform="drop-nul", file=index)),
        ):
            if count:
                found.append(Finding(kind, severity, f"{name}: {what} on {count} line(s)",
                                     tuple(Location(name, n) for n in lines), count, fix))
        found += _separators(index, watch)
        if watch.invalid_count:
            first = ", ".join(f"line {n} byte {at}" for n, at in watch.invalid)
            found.append(
                Finding(
                    "invalid-utf8",
                    "error",
                    f"{name}: bytes that are not UTF-8 on {watch.invalid_count} line(s) ({first}); read "
                    "here as U+FFFD, refused by `score` and by sacrebleu",
                    tuple(Location(name, n) for n, _ in watch.invalid),
                    watch.invalid_count,
                    Fix(
                        "pass",
                        "the bad bytes dropped instead of read as U+FFFD",
                        transform="ignore-invalid",
                        file=index,
                    ),
                )
            )
        return found

    def _empty(self, index: int, watch: _FileWatch) -> list:
        if not watch.empty_count:
            return []
        side = "hypothesis" if index == 0 else "reference"
        return [Finding("empty-lines", "warning" if index == 0 else "error",
                        f"{watch.name}: {watch.empty_count} empty {side} line(s)" + (
                            " (a system may output nothing; a shifted or truncated file often shows as empty lines)"
                            if index == 0 else " (an empty reference makes every n-gram of its segment unmatched)"),
                        tuple(Location(watch.name, n) for n in watch.empty), watch.empty_count,
                        Fix("pass", "those segments left out", transform="drop-empty", file=index))]

    def _case(self) -> list:
        found = []
        shares = [(w.capitalised / w.lettered) if w.lettered >= SHIFT_LINES else None for w in self.files]
        for index, share in enumerate(shares):
            others = [s for j, s in enumerate(shares) if j != index and s is not None and (index == 0 or j == 0)]
            if share is not None and share <= LOWERCASED_SHARE and others and min(others) >= OTHER_CASED:
                watch = self.files[index]
                found.append(
                    Finding(
                        "lowercased-one-side",
                        "error",
                        f"{watch.name} is lowercased ({watch.capitalised} of {watch.lettered} lines hold a "
                        f"capital) and the other side is not (at least {min(others):.0%} of its lines do): "
                        "every capitalised word misses",
                        (Location(watch.name, 1),),
                        watch.lettered,
                        Fix("reading", "both sides lowercased", change=("lowercase", True)),
                    )
                )
        return found

    def _tokenization(self) -> list:
        states = []
        for watch in self.files:
            share = watch.changed_by_13a / watch.sampled if watch.sampled >= SHIFT_LINES else None
            states.append(None if share is None else "tokenized" if share <= TOKENIZED_SHARE else
                          "detokenized" if share >= DETOKENIZED_SHARE else None)
        found = []
        hyp_state = states[0]
        mismatched = [j for j, state in enumerate(states[1:], 1) if state and hyp_state and state != hyp_state]
        if mismatched:
            ref = self.files[mismatched[0]]
            found.append(Finding("tokenization-mismatch", "error",
                                 f"{self.files[0].name} is {hyp_state} and {ref.name} is {states[mismatched[0]]}: "
                                 "'word,' and 'word ,' do not match unless both sides are tokenized alike",
                                 (Location(self.files[0].name, 1), Location(ref.name, 1)), len(mismatched) + 1,
                                 Fix("reading", "both sides tokenized with 13a", change=("tokenizer", "13a"))))
        elif hyp_state == "tokenized" and all(state == "tokenized" for state in states[1:]):
            found.append(Finding("tokenized", "note",
                                 "the files are already tokenized (13a changes the words of few lines): `none` and "
                                 "`13a` readings are close, and a detokenizing tool (sacrebleu) expects raw text",
                                 (Location(self.files[0].name, 1),), len(states),
                                 Fix("reading", "tokenized again with 13a", change=("tokenizer", "13a"))))
        return found


def _separators(index: int, watch: _FileWatch) -> list:
    """A finding per line separator other than "\\n" inside the lines of a file, in `LINE_SEPARATORS` order: where
    (line and column), what `str.splitlines()` readers make of the file, and the effect of reading it their way."""
    found = []
    name, lines, extra = watch.name, watch.lines, watch.splitlines_extra
    for character, label in LINE_SEPARATORS.items():
        places = watch.separators.get(character)
        if not places:
            continue
        first_line, first_column = places[0]
        also = "; for a CR, Python's open() in text mode too" if character == "\r" else ""
        found.append(Finding(
            "line-separator", "warning",
            f"{name}: {label} inside {watch.separator_lines[character]} line(s) ({watch.separator_count[character]} "
            f"in all; the first at line {first_line}, column {first_column}). str.splitlines() ends a line there "
            f"(Python's, and the readers built on it{also}): such a reader reads {name} as {lines + extra} lines, "
            f"not {lines} as here (sacrebleu and `bleu-oracle score` too end lines at \"\\n\" only), and from line "
            f"{first_line} on pairs each hypothesis with another segment's references",
            tuple(Location(name, number, column) for number, column in places),
            watch.separator_lines[character],
            Fix("pass", f"{name} read as str.splitlines() reads it, a line ended at each {label}",
                transform="split-lines", file=index, separator=character)))
    return found
