"""A failing record's input as summary.md, junit.xml and the console show it: whole up to INPUT_SHOWN_CHARACTERS
characters of its JSON, past them an excerpt that says what it leaves out and where the whole input is.

The whole input is always in results.jsonl (the record's `replay`, or its shrunk input: the reports are derived from
it), and, where its reproduction line replays it from a file (`replay/<id>.json`, written for an input too long for a
command line: `oracle.harness.reproduction`), in that file too; neither is changed here. An excerpt is never silent:
its text ends its segments where it is cut with " …" (so it is not mistaken for a replayable input: it is not JSON),
keeps the request's other fields (level, weights, smoothing, ...) after them, and its marker (`InputShown.note`) says
how many tokens of how many it shows and where the whole input is.

Why the bound is 2,000 characters: about 25 lines of an 80-column view and, on the search's inputs, 140 to 330
tokens (6 to 14 characters of JSON a token, with its quotes and separator): what a reader compares by eye in a
summary or a CI test view. A shrunk input is nearly always far below it (101 of the 105 shrunk inputs of the five
structural runs of benchmarks/README.md, "report-size", under 400 characters); what passes it is mostly an unshrunk
input (a later failure of a kind in its block of 50 examples), up to the 131,272 tokens (919,184 characters) of a
search's longest runs, which nobody reads in a report: its shape and its place are what a reader uses. Writing those
whole made a failing run's summary.md about 1.2 MB and its junit.xml 0.5-0.75 MB.
"""

from __future__ import annotations

import json
import json.encoder
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from oracle.escaping import json_shown
from oracle.models.protocol import ScoreRequest, encode

#: An input's JSON (as shown: every character that is not printable as its escape) is shown whole up to this many
#: characters, and cut past them (the module's docstring says why this many).
INPUT_SHOWN_CHARACTERS = 2000

#: The console's listing without -v prints an input that shrinking did not reduce up to this many characters (its
#: line of up to 20 inputs is read on a terminal; -v prints up to INPUT_SHOWN_CHARACTERS, as the reports show it).
INPUT_PRINTED_CHARACTERS = 600

#: What ends a cut input's segments.
CUT = " …"
#: A replay argument longer than this is the input itself (a path is shorter): not parsed for a file's name.
_PATH_LIMIT = 4096


@dataclass(frozen=True)
class InputShown:
    """An input's text as shown (`text`: its JSON whole, or an excerpt) and, for an excerpt, what it leaves out:
    `shown` of `total` units (tokens; characters of raw text in a text request: `unit`) in `segments` segments
    (None, None where the request's fields alone passed the bound and the text is cut by characters: `characters`,
    the whole text's length), the record's id, and where its reproduction line reads it from (`replay_file`, or
    `in_line` where the line holds it)."""

    text: str
    cut: bool = False
    shown: int | None = None
    total: int = 0
    unit: str = "tokens"
    segments: int = 0
    characters: int | None = None
    record_id: str = ""
    replay_file: str | None = None
    in_line: bool = False
    #: the bound it was cut at
    limit: int = INPUT_SHOWN_CHARACTERS

    def note(self, code: Callable[[str], str] = str) -> str | None:
        """The marker of an excerpt (None: the input is whole), outside text (the record's id, a path) passed
        through `code` (summary.md: a code span): "cut at 2,000 characters: 163 of its 131,237 tokens shown (3
        segments), 131,074 left out; the whole input: /r/replay/random-0-29.json (the reproduction line replays it)
        and results.jsonl (record random-0-29)"."""
        if not self.cut:
            return None
        if self.shown is None:
            what = f"the first {len(self.text) - len(CUT):,} of its {self.characters or 0:,} characters shown"
        else:
            plural = "" if self.segments == 1 else "s"
            what = (f"{self.shown:,} of its {self.total:,} {self.unit} shown ({self.segments:,} segment{plural}), "
                    f"{self.total - self.shown:,} left out")
        where = []
        if self.replay_file is not None:
            where.append(f"{code(self.replay_file)} (the reproduction line replays it)")
        elif self.in_line:
            where.append("the reproduction line")
        where.append(f"results.jsonl (record {code(self.record_id)})")
        return f"cut at {self.limit:,} characters: {what}; the whole input: {' and '.join(where)}"


def input_shown(request: ScoreRequest, *, record_id: str, reproduce: str | None, compact: bool = False,
                limit: int = INPUT_SHOWN_CHARACTERS) -> InputShown:
    """`request` (a record's reported input) as shown: its JSON, every character that is not printable as its escape
    (`json_shown`: the same value), `compact` as the protocol writes it (`","`, `":"`: the console) or as summary.md
    and junit.xml write it (`", "`, `": "`), whole when that is at most `limit` characters, else an excerpt (the
    module's docstring). A long input is never encoded whole: a unit takes at least one character, so one of more
    units than `limit` is cut without being encoded, and its excerpt costs what it shows."""
    item, key = (",", ":") if compact else (", ", ": ")
    if request.token_count <= limit:  # (small: encoded whole, as it is shown when it fits)
        whole = json_shown(encode(request.replay_form(), ensure_ascii=False) if compact
                           else json.dumps(request.replay_form(), ensure_ascii=False))
        if len(whole) <= limit:
            return InputShown(whole)
    replay_file, in_line = _where_replayed(reproduce)
    cut = InputShown("", cut=True, record_id=record_id, replay_file=replay_file, in_line=in_line, limit=limit)
    excerpt = _excerpt(request, limit, item, key)
    if excerpt is None:  # (the request's other fields alone pass the bound: its text cut by characters)
        whole = json_shown(json.dumps(request.replay_form(), ensure_ascii=False, separators=(item, key)))
        return replace(cut, text=whole[: limit - len(CUT)] + CUT, characters=len(whole))
    text, shown = excerpt
    return replace(cut, text=text, shown=shown, total=request.token_count, segments=len(request.segments),
                   unit="characters of text" if request.is_text else "tokens")


#: Stands for the segments in the rest of the request's JSON (`_excerpt`): a string no JSON value of the request's
#: other fields holds (a control character, escaped).
_SEGMENTS = "\x00segments\x00"


def _excerpt(request: ScoreRequest, limit: int, item: str, key: str) -> tuple[str, int] | None:
    """(the excerpt's text, the units it shows): the request's JSON with its segments as far as `limit` characters
    allow (at least one unit), then CUT, then its other fields whole; None where they alone take half the bound."""
    form = request.replay_form()
    rest = json_shown(json.dumps({**form, "segments": _SEGMENTS}, ensure_ascii=False, separators=(item, key)))
    stand_in = json.dumps(_SEGMENTS)
    if rest.count(stand_in) != 1 or len(rest) > limit // 2:
        return None
    head, _, tail = rest.partition(stand_in)
    room = limit - len(head) - len(tail) - len(CUT)
    pieces: list[str] = []
    used = shown = 0
    for text, units in _pieces(request, item, key):
        if used + len(text) > room:
            if units > 1:  # (raw text: as many of its characters as fit, at least one)
                part, count = _text_cut(text, room - used)
                pieces.append(part)
                shown += count
            elif not shown and units:  # (one token longer than the bound: shown cut, as part of it)
                pieces.append(text[: max(room - used, 2)])
            break
        pieces.append(text)
        used += len(text)
        shown += units
    return head + "".join(pieces).rstrip(item) + CUT + tail, shown


def _pieces(request: ScoreRequest, item: str, key: str) -> Iterator[tuple[str, int]]:
    """The segments' JSON (as `json.dumps` writes them with these separators, each character that is not printable
    as its escape), in pieces: (text, the units it holds: a token 1, a raw text its characters, structure 0)."""
    yield "[", 0
    for number, segment in enumerate(request.segments):
        yield ("{" if not number else item + "{") + f'"hypothesis"{key}', 0
        yield from _sequence(segment.hypothesis, item)
        yield f'{item}"references"{key}[', 0
        for index, reference in enumerate(segment.references):
            if index:
                yield item, 0
            yield from _sequence(reference, item)
        yield "]}", 0


def _sequence(tokens, item: str) -> Iterator[tuple[str, int]]:
    if isinstance(tokens, str):  # a text request's raw text: one string
        yield _quoted(tokens), len(tokens)
        return
    yield "[", 0
    for index, token in enumerate(tokens):
        yield (item if index else "") + _quoted(token), 1
    yield "]", 0


def _quoted(text: str) -> str:
    """`text` as a JSON string, as `json.dumps(text, ensure_ascii=False)` writes it (its C function, without the
    encoder json.dumps builds a call: a few hundred tokens an excerpt), each character that is not printable
    escaped (`json_shown`)."""
    quoted = _JSON_STRING(text)
    return quoted if quoted.isprintable() else json_shown(quoted)


_JSON_STRING = json.encoder.encode_basestring


def _text_cut(quoted: str, room: int) -> tuple[str, int]:
    """(the beginning of a JSON string, without its closing quote, in at most `room` characters (at least one of
    its characters), how many of its characters that is): a raw text cut where the bound falls, never inside an
    escape."""
    value = json.loads(quoted)
    count = max(1, room - 1)
    while True:
        part = _quoted(value[:count])[:-1]
        if len(part) <= room or count == 1:
            return part, count
        count = max(1, count - (len(part) - room))


def _where_replayed(reproduce: str | None) -> tuple[str | None, bool]:
    """(the replay file a reproduction line reads its input from, whether the line holds the input itself): a line
    replays its input last, `--replay FILE` or `--replay JSON` (`Reproduction.line`)."""
    if not reproduce or " --replay " not in reproduce:
        return None, False
    argument = reproduce.rpartition(" --replay ")[2]
    if len(argument) > _PATH_LIMIT:
        return None, True
    try:
        words = shlex.split(argument)
    except ValueError:
        return None, False
    if len(words) != 1:
        return None, False
    return (None, True) if words[0].lstrip().startswith("{") else (words[0], False)
