"""`bleu-oracle score`: score files with the oracle, optionally with the whole derivation."""

from __future__ import annotations

import itertools
import json
import sys

from oracle import counting, resolve_options
from oracle.commands import SUMMARIES
from oracle.formulas import bleu, explain
from oracle.formulas.bleu import parse_weights
from oracle.formulas.errors import BleuValueError
from oracle.formulas.tokenizers import TOKENIZERS
from oracle.signatures import signature
from oracle.textio import ordinal, read_parallel, same_file

from .common import add_scoring_arguments, check_weight_count, positive_int

HELP = """Score a hypothesis file against one or more reference files with the oracle.

Files have one segment per line (split on "\\n" only); plain or .gz. Each
--ref file is one reference stream, line i of every file belongs to segment i.
The corpus is read segment by segment, so memory holds only the running
statistics.

Tokenization: each line is tokenized by the profile's tokenizer unless
--tokenize says otherwise: `none` (split on whitespace: the text is already
tokenized; papineni, nltk, multi-bleu, matlab, mlpack), `13a` (mteval-v13a.pl's,
WMT's; sacrebleu and mteval), `intl` (mteval-v14.pl's international), `char`.
Detokenized text scored with `none` gives a different number from sacrebleu's
`13a`: give --profile sacrebleu or --tokenize 13a. Which characters separate
words is the profile's `token_split` (Python's str.split() by default; the
multi-bleu profile splits on ASCII whitespace only, as the Perl script does on
bytes, and mteval on Unicode White_Space), and --lowercase folds case by its
`case_fold` (A-Z only for multi-bleu and mteval, as Perl's lc and tr do).

Output: the text line prints BLEU and the precisions on the 0-100 scale, as
sacrebleu and multi-bleu.perl do; --json keeps `score` on the 0-1 scale of the
formulas and adds `score_100`. Both carry a signature naming every setting that
changes the number (profile, references, case, tokenizer, smoothing, weights,
version), in sacrebleu's style. A profile encodes its library's documentation;
where the library's code departs from it and computes another corpus number on
your files (nltk's corpus_bleu floors each segment's n-gram totals at 1), a
note under the signature gives the number the library as shipped prints and
the reading that reproduces it (--json: `as_shipped`; each such reading is one
more pass over the files).

Exit codes: 0 scored, 2 a usage or input error (a file missing or unreadable,
not UTF-8, files of different line counts, standard input (-) given for two
files; one line on stderr), 4 an internal
error (a bug in bleu-oracle).

Examples:
  bleu-oracle score --hyp out.txt --ref ref.txt
  bleu-oracle score --hyp out.txt --ref ref1.txt --ref ref2.txt --profile nltk --json
  bleu-oracle score --hyp cand.txt --ref r.txt --weights 0.5 0.5 --explain
  bleu-oracle score --hyp out.txt --ref ref.txt --sentence --smoothing exp
"""


def register(subparsers):
    parser = subparsers.add_parser("score", help=SUMMARIES["score"], description=HELP,
                                   formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    parser.add_argument("--hyp", required=True, metavar="FILE", help="hypothesis file")
    parser.add_argument(
        "--ref", required=True, action="append", metavar="FILE", help="reference file (repeat for more)"
    )
    add_scoring_arguments(parser)
    parser.add_argument("--tokenize", choices=list(TOKENIZERS), metavar="T",
                        help=f"how lines become tokens: {', '.join(TOKENIZERS)} (default: the profile's; "
                        "see Tokenization above)")
    parser.add_argument("--sentence", action="store_true", help="score each line as a sentence (one result per line)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="the BLEU line alone, without the signature line under it")
    parser.add_argument("--json", action="store_true", help="print JSON (one object, or one per line with --sentence)")
    parser.add_argument("--explain", action="store_true",
                        help="print the derivation: n-gram tables, p_n, r, BP, score (on stderr with --json)")
    parser.add_argument("--segment", type=positive_int, metavar="N",
                        help="with --explain: the derivation of segment N only (1-based), then the corpus result")
    parser.set_defaults(handler=run)


def run(args):
    overrides = {"tokenizer": args.tokenize} if args.tokenize else {}
    options = resolve_options(profile=args.profile, lowercase=args.lowercase, **overrides)
    try:
        weights = parse_weights(check_weight_count(args.weights), default_max_order=options.default_max_order)
    except BleuValueError as exc:  # (the formulas name their argument `weights`: the user typed --weights)
        given = " ".join(args.weights)
        spaced = " ".join(given.replace(",", " ").split())
        hint = f"; the weights are separate arguments: --weights {spaced}" if "," in given else ""
        raise BleuValueError(f"`--weights {given}`: {exc}{hint}") from None
    smoothing = args.smoothing or options.smoothing
    orders = bleu.counting_orders(weights, smoothing)
    out = sys.stdout
    # with --json, stdout holds JSON only: the derivation goes to stderr
    derivation = sys.stderr if args.json else out
    given = (("--hyp", args.hyp), *(("--ref", ref) for ref in args.ref))
    stdin = [f"{option} -" for option, path in given if path == "-"]
    if len(stdin) > 1:  # (the files would take turns reading one stream: every other line a hypothesis)
        raise BleuValueError(f"`{' '.join(stdin)}`: standard input (-) can be read once; give the other files by name")
    _warn_of_a_reference_given_twice(args.ref)
    segments = iter(read_parallel(args.hyp, args.ref, tokenizer=options.tokenizer, split=options.token_split))
    first = next(segments, None)
    if first is None:  # (the formulas would say `hypotheses` holds no segment: the user gave files)
        raise BleuValueError(f"`--hyp {args.hyp}` holds no line: nothing to score")
    segments = itertools.chain([first], segments)
    args.signature = signature(args.profile, references=len(args.ref), options=options, smoothing=smoothing,
                               weights=weights)

    if args.segment is not None and not args.explain:
        raise BleuValueError("`--segment` picks the segment --explain shows: give --explain too")

    def explained(pairs):
        count = 0
        for index, (hypothesis, references) in enumerate(pairs):
            count += 1
            if args.segment is None or args.segment == index + 1:
                derivation.write(explain.explain_segment(hypothesis, references, max_order=orders, options=options,
                                                         label=f"segment {index + 1}") + "\n")
            yield hypothesis, references
        if args.segment is not None and args.segment > count:
            raise BleuValueError(f"`--segment` {args.segment}: the files hold {count} segment(s)")

    if args.explain:
        segments = explained(segments)
    if args.sentence:
        for index, (hypothesis, references) in enumerate(segments):
            result = bleu.sentence_bleu(hypothesis, references, weights=weights, options=options, smoothing=smoothing,
                                        count_matches=counting.kernel_clipped_matches())
            _emit(result, args, out, derivation, index=index)
        return 0
    # the compiled counting where it was built (`oracle.counting`), else the formulas' own: the same numbers
    stats = bleu.sum_statistics(segments, max_order=orders, options=options,
                                count_matches=counting.kernel_clipped_matches())
    result = bleu.bleu_from_statistics(stats, weights=weights, options=options, smoothing=smoothing)
    wanted = args.json or not (args.quiet or args.explain)  # where the note would be shown
    shipped = _as_shipped(args, options, weights, smoothing, orders, result) if wanted else []
    _emit(result, args, out, derivation, shipped=shipped)
    return 0


def _warn_of_a_reference_given_twice(refs):
    """One warning line for each --ref naming a file an earlier --ref named: the score is the same (clipping takes
    the maximum count, and every length rule the same length, over two copies of one reference), but the signature's
    nrefs counts it twice."""
    for later, path in enumerate(refs):
        earlier = next((refs[i] for i in range(later) if same_file(refs[i], path)), None)
        if earlier is not None:
            first, second = ordinal(refs.index(earlier) + 1), ordinal(later + 1)
            print(f"bleu-oracle score: warning: --ref {earlier} and --ref {path} are the same file (the {first} and "
                  f"{second} --ref): one reference given twice scores as given once, but the signature says "
                  f"nrefs:{len(refs)}", file=sys.stderr)


def _as_shipped(args, options, weights, smoothing, orders, result):
    """[(departure, its result)] for each convention in which the profile's own library, as shipped, departs
    from the profile (`oracle.doctor.shipped`: nltk's corpus_bleu floors each segment's n-gram totals at 1) and
    so computes another corpus score on these files; each is another pass over the files."""
    from oracle.doctor.shipped import departures

    found = []
    for departure in departures(args.profile):
        if getattr(options, departure.convention) == departure.value:
            continue
        shipped_options = departure.options(options)
        segments = read_parallel(args.hyp, args.ref, tokenizer=options.tokenizer, split=options.token_split)
        stats = bleu.sum_statistics(segments, max_order=orders, options=shipped_options,
                                    count_matches=counting.kernel_clipped_matches())
        shipped = bleu.bleu_from_statistics(stats, weights=weights, options=shipped_options, smoothing=smoothing)
        if shipped.score != result.score:  # exact values (Fractions or Decimals), not floats
            found.append((departure, shipped))
    return found


def _shipped_signature(signature_text, departure):
    """The signature with the departure appended before its version, as doctor writes a reading's changes (and
    reads them back: `bleu-oracle doctor --signature`)."""
    head, _, version = signature_text.rpartition("|version:")
    return f"{head}|{departure.convention}:{departure.value}|version:{version}"


def _shipped_json(args, shipped):
    return [{"library": departure.library, "versions": departure.versions, "discrepancy": departure.discrepancy,
             "what": departure.what, "change": departure.change, "score": float(result.score),
             "score_100": float(result.score) * 100, "signature": _shipped_signature(args.signature, departure)}
            for departure, result in shipped]


def _shipped_note(args, departure, result, documented):
    """'note: nltk as shipped (3.2.5 .. 3.10.4) gives 0.2338336 (23.38) on these files, where nltk as documented
    (above) gives 0.2338685: ...': what the library's code computes, why, and the reading that reproduces it."""
    return (f"note: {departure.library} as shipped ({departure.versions}) gives {float(result.score):.7f} "
            f"({float(result.score) * 100:.2f}) on these files, where {args.profile} as documented (above) gives "
            f"{float(documented):.7f}: its code departs from its documentation, {departure.what} (discrepancy "
            f"{departure.discrepancy}). The reading that reproduces it: this profile with {departure.change}; "
            f"bleu-oracle doctor --signature \"{_shipped_signature(args.signature, departure)}\" computes it\n")


def _emit(result, args, out, derivation, index=None, shipped=()):
    if args.explain:
        derivation.write(explain.explain_result(result) + "\n")
    if args.json:
        payload = result.to_json()
        payload["profile"] = args.profile
        score = payload.get("score")
        payload["score_100"] = score * 100 if isinstance(score, (int, float)) else score
        payload["signature"] = args.signature
        if index is not None:
            payload["segment"] = index + 1
        else:
            payload["as_shipped"] = _shipped_json(args, shipped)
        out.write(json.dumps(payload) + "\n")
    elif not args.explain:
        prefix = f"{index + 1}\t" if index is not None else ""
        s = result.statistics
        precisions = "/".join("-" if p is None else f"{float(p) * 100:.1f}" for p in result.precisions)
        out.write(
            f"{prefix}BLEU = {float(result.score) * 100:.2f} {precisions} (BP = {float(result.bp):.3f} "
            f"ratio = {s.hyp_len / s.ref_len if s.ref_len else float('inf'):.3f} hyp_len = {s.hyp_len} ref_len = "
            f"{s.ref_len}) "
            f"[{args.profile}]\n"
        )
        if (
            index is None and not args.quiet
        ):  # one corpus score: its signature and scale under it (per line: once is enough)
            out.write(f"signature: {args.signature} (BLEU and precisions on the 0-100 scale)\n")
            for departure, shipped_result in shipped:
                out.write(_shipped_note(args, departure, shipped_result, result.score))
