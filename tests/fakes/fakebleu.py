"""A small, independent BLEU implementation speaking protocol v1, with switchable bugs.

Test doubles for `bleu-oracle check`: this module does not import `oracle` at
all. It computes BLEU in plain floats the way the papineni profile documents
it (closest reference length, ties to the shorter; an order with no n-grams
counts as p_n = 0; c = r = 0 gives NaN; weights as given, zero weights switch
an order off; smoothing none / floor / add-k / exp), or the matlab profile
(the same, with weights normalised to sum to one, and an order with p_n = 0
giving 0 even when its weight is 0).

Each `tests/fakes/*.py` script calls `serve(...)` with one mutation (a bug
`check` must catch) or one misbehaviour (crash, hang, garbage, ...).
Command-line flags every script accepts:

  --profile papineni|matlab   the profile to declare and follow (default papineni)
  --no-stats                  do not return statistics
  --chatty                    write 200 kB to stderr on every request
  --uniform                   declare uniform weights only
  --touch FILE                write FILE when started, holding this process's id (a test's proof that the
                              implementation ran, and of which process)
  --name NAME                 the implementation's name in the handshake (default fakebleu+BUGS)
  --hang-note DIR             (hang-seq-2) create DIR/hanging-PID before hanging
  --flaky-errors              (nondeterministic) answer an error, not a perturbed score, on a wrong turn
  --sticky                    (nondeterministic) another third of the inputs are wrong on their first two calls
"""

import json
import math
import os
import struct
import sys
import time
import zlib
from collections import Counter

MUTATIONS = {
    "no-clipping": "counts every hypothesis n-gram that occurs in some reference, unclipped",
    "max-ref-sum": "clips against the sum of the references' counts instead of the maximum",
    "ties-longer": "breaks reference-length ties towards the longer reference",
    "mean-sentence": "corpus score = mean of the sentence scores",
    "normalise-weights": "divides the weights by their sum (papineni uses them as given)",
    "weights-as-given": "uses the weights as given (matlab normalises them)",
    "weights-not-passed": "uses uniform weights 1/N whatever weights are sent (N their number)",
    "bp-always": "applies e^(1 - r/c) also when c > r",
    "bp-missing": "no brevity penalty at all",
    "totals-off-by-one": "n-gram totals len - n instead of len - n + 1",
    # Decided: caught under the default contract (rel 1e-9 is a float64 contract; single precision
    # is ~6e-8 relative), except where the score is exact in float32 (0, 1, NaN); it passes with
    # `check --rel 1e-5` (tests/commands/test_check.py::test_float32_passes_under_a_looser_contract).
    "float32": "computes in single precision",
    "lowercase-ignored": "ignores the lowercase flag",
    "references-lowercased-only": "folds the references' case, not the hypothesis's, where the request asks",
    "hypothesis-lowercased-only": "folds the hypothesis's case, not the references', where the request asks",
    "hypothesis-always-lowercased": "folds the hypothesis's case whatever the request asks (the references' only where "
                                    "it asks)",
    "empty-order-one": "an order with no n-grams counts as p_n = 1 instead of 0",
    "ngram-recall": "n-gram recall for precision: per order, each reference's n-grams matched in the hypothesis "
                    "(min of the two counts), summed over the references, over their n-gram counts (each at least 1)",
    "empty-reference-split": "splits an empty reference into one empty token (''.split(' ') is ['']), its length 1",
    "fractions-normalised": "keeps each segment's (matches, total) of an order as a reduced fraction before summing "
                            "(Fraction(m, t) normalised: 2/4 as 1/2, 0/3 as 0/1)",
    "empty-hypothesis-one": "scores a corpus with no hypothesis token (c = 0, whatever r) 1, BP 1: an early return "
                            "of a perfect score where there is nothing to count",
    "last-line-chopped": "the last segment's hypothesis, as a line without its newline, loses its last character to a "
                         "chop: its last token is cut by one character, or left out where that leaves nothing",
    "first-hypothesis-length": "the corpus's hypothesis length is the first segment's, the other lengths and counts "
                               "summed",
    "references-capped": "every reference is cut to its first 5 tokens before counting; the hypotheses are not",
    "drop-empty-pairs": "leaves out of the corpus a segment whose hypothesis or first reference is empty (a wrapper's "
                        "`if not prediction or not reference: continue` over its pairs)",
    # Bugs no explanation of the classifier names (the cost of an unexplained run: benchmarks/attribution.py).
    "score-power-1.1": "returns the score raised to the power 1.1",
    "bp-squared-when-short": "squares the brevity penalty when c < r: e^(2 (1 - r/c))",
    "trigram-precision-scaled": "multiplies the 3-gram precision by 0.9",
    # Not bugs: the inputs the documents leave undefined (PROTOCOL.md) scored as the formulas read, where the
    # oracle refuses them: acceptable, a failure only under `check --strict`.
    "undefined-by-formula": "scores an empty corpus 0 (nothing matches) and all-zero weights BP (exp(0) = 1)",
    # A value no convention gives: a failure, strict or not.
    "empty-corpus-half": "scores an empty corpus 0.5",
}
#: references-capped: the most tokens a reference keeps
REFERENCE_CAP = 5
#: The mutations that score the inputs the documents leave undefined instead of refusing them.
SCORES_UNDEFINED = ("undefined-by-formula", "empty-corpus-half")
BEHAVIOURS = ("wrong-seq", "crash-3rd", "crash-some", "hang-seq-2", "garbage", "no-handshake", "protocol-2",
              "huge-max-order", "nondeterministic", "error-empty-segment", "crash-empty-segment", "error-log-of-zero",
              "error-references-all-empty", "error-one-reference", "error-one-segment",
              "error-every-input", "error-guarded-log-of-zero", "error-guarded-integer-division",
              "error-order-above-one")
#: nondeterministic: the score is multiplied by this on a wrong turn (0.41 becomes 0.369)
PERTURBATION = 0.9


def f32(x):
    if math.isnan(x) or math.isinf(x):
        return x
    return struct.unpack("f", struct.pack("f", x))[0]


def ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def segment_stats(hyp, refs, order, bugs, lowercase):
    if "hypothesis-always-lowercased" in bugs:
        hyp = [t.lower() for t in hyp]
    if lowercase and "lowercase-ignored" not in bugs:
        if "references-lowercased-only" not in bugs:
            hyp = [t.lower() for t in hyp]
        if "hypothesis-lowercased-only" not in bugs:
            refs = [[t.lower() for t in r] for r in refs]
    if "empty-reference-split" in bugs:
        refs = [r if r else [""] for r in refs]
    matches, totals = [], []
    for n in range(1, order + 1):
        counts = ngrams(hyp, n)
        limit = Counter()
        for ref in refs:
            for gram, k in ngrams(ref, n).items():
                if "max-ref-sum" in bugs:
                    limit[gram] += k
                else:
                    limit[gram] = max(limit[gram], k)
        if "ngram-recall" in bugs:  # each reference's n-grams found in the hypothesis, over the reference's own
            matches.append(sum(min(k, counts[gram]) for ref in refs for gram, k in ngrams(ref, n).items()))
            totals.append(sum(max(1, len(ref) - n + 1) for ref in refs))
            continue
        if "no-clipping" in bugs:
            matches.append(sum(k for gram, k in counts.items() if limit[gram] > 0))
        else:
            matches.append(sum(min(k, limit[gram]) for gram, k in counts.items()))
        total = len(hyp) - n + (0 if "totals-off-by-one" in bugs else 1)
        totals.append(max(total, 0))
    c = len(hyp)
    lengths = [len(r) for r in refs]
    if "ties-longer" in bugs:
        r = min(lengths, key=lambda x: (abs(x - c), -x))
    else:
        r = min(lengths, key=lambda x: (abs(x - c), x))
    return c, r, matches, totals


def reduced_fractions(matches, totals):
    """fractions-normalised: each (m, t) divided by gcd(m, t) (0/t is 0/1; an order without n-grams stays 0/0)."""
    divisors = [math.gcd(m, t) if t else 1 for m, t in zip(matches, totals, strict=True)]
    reduced_matches = [m // d for m, d in zip(matches, divisors, strict=True)]
    return reduced_matches, [t // d for t, d in zip(totals, divisors, strict=True)]


def score_from_stats(c, r, matches, totals, weights, smoothing, bugs, profile):
    fl = f32 if "float32" in bugs else (lambda x: x)
    if c == 0 and "empty-hypothesis-one" in bugs:
        return 1.0, 1.0
    if c == 0 and r == 0:
        return math.nan, math.nan
    m, t = _smoothed(matches, totals, smoothing)
    w = _weights_used(weights, bugs, profile)
    if c == 0:
        return 0.0, 0.0
    if "bp-missing" in bugs:
        bp = 1.0
    elif c > r and "bp-always" not in bugs:
        bp = 1.0
    else:
        bp = fl(math.exp(fl(1 - fl(r / c))))
    if "bp-squared-when-short" in bugs and c < r:
        bp = bp * bp
    s = _weighted_log_sum(m, t, w, bugs, profile, fl)
    if s is None:
        return 0.0, bp
    score = fl(bp * fl(math.exp(s)))
    return (score ** 1.1 if "score-power-1.1" in bugs else score), bp


def _smoothed(matches, totals, smoothing):
    """The matches and totals as floats, smoothed by the request's method."""
    m = [float(x) for x in matches]
    t = [float(x) for x in totals]
    method = smoothing.get("method", "none")
    if method == "floor":
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                m[i] = float(smoothing.get("value", 0.1))
    elif method == "add-k":
        k = float(smoothing.get("k", 1.0))
        for i in range(1, len(m)):
            m[i] += k
            t[i] += k
    elif method == "exp":
        j = 0
        for i in range(len(m)):
            if t[i] > 0 and m[i] == 0:
                j += 1
                m[i] = 1.0 / 2 ** j
    return m, t


def _weights_used(weights, bugs, profile):
    """The weights as floats, normalised where the profile (matlab) or a planted bug says so."""
    w = [float(x) for x in weights]
    normalise = profile == "matlab"
    if "normalise-weights" in bugs:
        normalise = True
    if "weights-as-given" in bugs:
        normalise = False
    if "weights-not-passed" in bugs:
        return [1.0 / len(w)] * len(w)
    if normalise and sum(w) != 1:
        total = sum(w)
        w = [x / total for x in w]
    return w


def _weighted_log_sum(m, t, w, bugs, profile, fl):
    """sum of w_n log p_n, or None where an order makes the score 0."""
    counted = profile == "matlab"  # matlab: an order with p_n = 0 gives 0 whatever its weight
    s = 0.0
    for i, (mi, ti, wi) in enumerate(zip(m, t, w, strict=False)):
        if wi == 0 and not counted:
            continue
        if ti == 0:
            if "empty-order-one" in bugs:
                continue
            return None
        if mi == 0:
            return None
        if wi == 0:
            continue
        p = mi / ti * (0.9 if i == 2 and "trigram-precision-scaled" in bugs else 1.0)
        s = fl(s + fl(wi * fl(math.log(fl(p)))))
    return s


def invalid(request, bugs=()):
    """Why the papineni/matlab profiles reject this input, or None (the oracle's validation, restated)."""
    weights = request["weights"]
    undefined_scored = any(bug in bugs for bug in SCORES_UNDEFINED)
    if any(w < 0 for w in weights):
        return f"weights must be non-negative (got {weights})"
    if not any(weights) and "undefined-by-formula" not in bugs:
        return f"weights must not be all zero (got {weights})"
    if not request["segments"] and not undefined_scored:
        return "at least one segment is needed"
    for i, segment in enumerate(request["segments"]):
        if not segment["references"]:
            return f"segment {i} has no references"
    for name, value in request["smoothing"].items():
        if name != "method" and value < 0:
            return f"smoothing parameter {name} must be non-negative (got {value})"
    return None


def answer(request, bugs, profile, with_stats):
    problem = invalid(request, bugs)
    if problem:
        return {"seq": request["seq"], "rejected": problem}
    segments = request["segments"]
    if "drop-empty-pairs" in bugs:
        segments = [s for s in segments if s["hypothesis"] and s["references"][0]]
    weights = request["weights"]
    order = len(weights)
    if not segments:  # an empty corpus scored: its sums are all 0, nothing matches
        out = {"seq": request["seq"], "score": 0.5 if "empty-corpus-half" in bugs else 0.0}
        if with_stats:  # (no bp: it is e^(1 - 0/0), and the protocol lets it be left out)
            out["statistics"] = {"hyp_len": 0, "ref_len": 0, "matches": [0] * order, "totals": [0] * order}
        return out
    if "last-line-chopped" in bugs and segments[-1]["hypothesis"]:
        *kept, last = segments[-1]["hypothesis"]
        segments = [*segments[:-1], {**segments[-1], "hypothesis": kept + ([last[:-1]] if len(last) > 1 else [])}]
    if "references-capped" in bugs:
        segments = [{**s, "references": [r[:REFERENCE_CAP] for r in s["references"]]} for s in segments]
    lowercase = bool(request.get("lowercase"))
    per_segment = [segment_stats(s["hypothesis"], s["references"], order, bugs, lowercase) for s in segments]
    if "first-hypothesis-length" in bugs:
        per_segment = [(per_segment[0][0] if i == 0 else 0, *x[1:]) for i, x in enumerate(per_segment)]
    if "fractions-normalised" in bugs:
        per_segment = [(c, r, *reduced_fractions(m, t)) for c, r, m, t in per_segment]
    c = sum(x[0] for x in per_segment)
    r = sum(x[1] for x in per_segment)
    matches = [sum(x[2][i] for x in per_segment) for i in range(order)]
    totals = [sum(x[3][i] for x in per_segment) for i in range(order)]
    score, bp = score_from_stats(c, r, matches, totals, weights, request["smoothing"], bugs, profile)
    if "mean-sentence" in bugs and request["level"] == "corpus" and len(per_segment) > 1:
        scores = [score_from_stats(*x, weights, request["smoothing"], bugs, profile)[0] for x in per_segment]
        score = sum(scores) / len(scores)
    out = {"seq": request["seq"], "score": "NaN" if math.isnan(score) else score}
    if with_stats:
        out["statistics"] = {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals,
                             "bp": "NaN" if math.isnan(bp) else bp}
    return out


def crashes_on(command):
    """crash-some: about one input in four kills the process, chosen by the input alone (not by how
    many requests the process has seen), so any process given that input crashes on it."""
    return zlib.crc32(_content(command).encode("utf-8")) % 4 == 0


def unstable(command):
    """nondeterministic: about one input in three is answered two ways, chosen by the input alone (not by how
    many requests the process has seen), so any process given that input does it."""
    return zlib.crc32(_content(command).encode("utf-8")) % 3 == 0


def sticky(command):
    """nondeterministic --sticky: another third of the inputs, answered wrong twice before they are answered right
    (sent once more, such an input is answered alike)."""
    return zlib.crc32(_content(command).encode("utf-8")) % 3 == 1


def _content(command):
    return json.dumps({k: v for k, v in command.items() if k != "seq"}, sort_keys=True)


def _wrong_turn(reply, command, calls, argv):
    """nondeterministic: the reply to the k-th time this process gets an unstable input (seq aside): wrong on the
    1st, 3rd, 5th ... (the score perturbed, or an error with --flaky-errors), right on the 2nd, 4th ...: the same
    request answered two ways in turn, deterministically given the process's calls."""
    key = _content(command)
    calls[key] = calls.get(key, 0) + 1
    wrong = (unstable(command) and calls[key] % 2 == 1) or ("--sticky" in argv and sticky(command) and calls[key] <= 2)
    if not wrong or not isinstance(reply.get("score"), float) or not reply["score"]:
        return reply
    if "--flaky-errors" in argv:
        return {"seq": reply["seq"], "error": f"transient failure on call {calls[key]} of this input"}
    return {**reply, "score": reply["score"] * PERTURBATION}


def empty_segment(command):
    """error-empty-segment: a segment whose hypothesis and every reference hold no token (a valid input)."""
    return any(not s["hypothesis"] and s["references"] and not any(s["references"]) for s in command["segments"])


def _corpus_smoothed(command):
    """(m, l): the corpus's matches and totals of every order 1..N, after the request's smoothing (`_smoothed`)."""
    order = len(command["weights"])
    lowercase = bool(command.get("lowercase"))
    per_segment = [segment_stats(s["hypothesis"], s["references"], order, (), lowercase) for s in command["segments"]]
    matches = [sum(x[2][i] for x in per_segment) for i in range(order)]
    totals = [sum(x[3][i] for x in per_segment) for i in range(order)]
    return _smoothed(matches, totals, command["smoothing"])


def unguarded_log_mean(command):
    """error-log-of-zero: sum w_n log(m_n / l_n) over every order (a zero weight too), as BLEU's formula reads, with
    no guard: an order whose (smoothed) matches are 0 raises ValueError (math domain error), one without n-grams
    ZeroDivisionError. Returns the sum where neither happens."""
    m, t = _corpus_smoothed(command)
    return math.fsum(w * math.log(mi / ti) for mi, ti, w in zip(m, t, command["weights"], strict=False))


def references_all_empty(command):
    """error-references-all-empty: a segment with references, every one of them empty (its hypothesis any)."""
    return any(s["references"] and not any(s["references"]) for s in command["segments"])


def one_reference(command):
    """error-one-reference: a segment with exactly one reference."""
    return any(len(s["references"]) == 1 for s in command["segments"])


def one_segment(command):
    """error-one-segment: a request of exactly one segment (every sentence request, and a corpus of one)."""
    return len(command["segments"]) == 1


def _in_force_smoothed(command):
    """(m_n, l_n) over the corpus of each order whose weight is above 0, after the request's smoothing (`_smoothed`)."""
    m, t = _corpus_smoothed(command)
    return [(mi, ti) for mi, ti, w in zip(m, t, command["weights"], strict=True) if float(w) > 0]


def guarded_log_error(command, integer_division):
    """error-guarded-log-of-zero (a precision returned as 0) and error-guarded-integer-division (`m // l`): a guard
    answers 0 where an order in force has no n-gram or, once smoothed, no match (the right score there); past it the
    logarithm of p_n is taken for every order in force, which is 0 for every one (returned as 0), or for each whose
    matches are fewer than its n-grams (`m // l`): ValueError. So the first errs on every input but where an order
    in force has a precision of 0; the second on every input but those and where every order in force has a
    precision of 1. The error message, or None where it answers."""
    if not command["segments"] or invalid(command, []):
        return None
    pairs = _in_force_smoothed(command)
    if not pairs or any(m == 0 or t == 0 for m, t in pairs):
        return None
    if integer_division and all(m == t for m, t in pairs):
        return None
    return "ValueError: math domain error"


def planted_error(command, bugs):
    """The error message a planted error bug answers this request with, or None."""
    if "error-every-input" in bugs:  # (a statistics list one order short, indexed on every request)
        return "IndexError: list index out of range"
    if "error-order-above-one" in bugs and len(command["weights"]) > 1:  # (one order's statistics, indexed on each)
        return "IndexError: list index out of range"
    if "error-guarded-log-of-zero" in bugs or "error-guarded-integer-division" in bugs:
        return guarded_log_error(command, "error-guarded-integer-division" in bugs)
    if "error-empty-segment" in bugs and empty_segment(command):
        return "ZeroDivisionError: float division by zero"
    if "error-references-all-empty" in bugs and references_all_empty(command):
        return "ValueError: a segment has no non-empty reference"
    if "error-one-reference" in bugs and one_reference(command):
        return "AssertionError: each segment needs at least two references"
    if "error-one-segment" in bugs and one_segment(command):
        return "TypeError: object of type 'numpy.int32' has no len()"
    if "error-log-of-zero" in bugs:
        return log_error(command, bugs)
    return None


def log_error(command, bugs):
    """The exception `unguarded_log_mean` raises on a valid, non-empty request, as an error message; else None."""
    if not command["segments"] or invalid(command, bugs):
        return None
    try:
        unguarded_log_mean(command)
    except (ValueError, ZeroDivisionError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _write(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _crash_or_hang(command, bugs, argv, requests_seen):
    """The planted faults that strike before a reply: a crash (the third request, or inputs like some) or a hang."""
    if "crash-3rd" in bugs and requests_seen == 3:
        sys.stderr.write("about to crash on purpose\n")
        sys.stderr.flush()
        raise RuntimeError("crash-3rd: the third request kills this process")
    if "crash-some" in bugs and crashes_on(command):
        sys.stderr.write("crashing on this input, as on every input like it\n")
        sys.stderr.flush()
        raise RuntimeError("crash-some: this input kills the process")
    if "crash-empty-segment" in bugs and empty_segment(command):
        raise RuntimeError("crash-empty-segment: division by an empty segment's length, unhandled")
    if "hang-seq-2" in bugs and command["seq"] == 2:
        if "--hang-note" in argv:  # tell the test where this process hangs: a file named by its pid
            with open(f"{argv[argv.index('--hang-note') + 1]}/hanging-{os.getpid()}", "w"):
                pass
        time.sleep(3600)


def serve(*bugs, name=None):
    argv = sys.argv[1:]
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else "papineni"
    with_stats = "--no-stats" not in argv
    chatty = "--chatty" in argv
    if "--name" in argv:
        name = argv[argv.index("--name") + 1]
    if "--touch" in argv:
        with open(argv[argv.index("--touch") + 1], "w") as touched:
            touched.write(str(os.getpid()))
    bugs = set(bugs)
    for bug in bugs:
        if bug not in MUTATIONS and bug not in BEHAVIOURS:
            raise SystemExit(f"unknown mutation {bug!r}")
    capabilities = {
        "levels": ["corpus", "sentence"],
        "weights": "uniform" if "--uniform" in argv else "any",
        "max_order": 10**12 if "huge-max-order" in bugs else 6,
        "smoothing": ["none", "floor", "add-k", "exp"],
        "statistics": with_stats,
        "lowercase": True,
    }
    requests_seen = 0
    calls = {}  # nondeterministic: input (seq aside) -> how many times this process got it
    for line in sys.stdin:
        command = json.loads(line)
        cmd = command.get("cmd")
        if cmd == "start":
            if "no-handshake" in bugs:
                time.sleep(3600)
            _write({"protocol": 2 if "protocol-2" in bugs else 1,
                    "implementation": {"name": name or "fakebleu+" + ",".join(sorted(bugs) or ["clean"]),
                                       "version": "0.0", "language": "python"},
                    "profile": profile, "capabilities": capabilities})
        elif cmd == "stop":
            return
        elif cmd == "score":
            requests_seen += 1
            if chatty:
                sys.stderr.write(f"chatty stderr line for seq {command['seq']}\n" * 7000)
                sys.stderr.flush()
            _crash_or_hang(command, bugs, argv, requests_seen)
            if "garbage" in bugs:
                sys.stdout.write("this is not JSON, sorry\n")
                sys.stdout.flush()
                continue
            error = planted_error(command, bugs)
            if error:
                _write({"seq": command["seq"], "error": error})
                continue
            reply = answer(command, bugs, profile, with_stats)
            if "nondeterministic" in bugs:
                reply = _wrong_turn(reply, command, calls, argv)
            if "wrong-seq" in bugs:
                reply["seq"] = command["seq"] + 1
            _write(reply)
        else:
            _write({"seq": command.get("seq"), "error": f"unknown command {cmd!r}"})
