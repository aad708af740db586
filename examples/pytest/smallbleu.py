"""A small, correct corpus BLEU (Papineni et al. 2002) for the plugin example: plain Python, no oracle.

It follows the papineni profile: clipped counts against the largest count in any reference; per
segment the reference length closest to the hypothesis length, ties to the shorter; statistics summed
over the corpus before dividing; BP = exp(1 - r/c) when c <= r; weights used as given, a zero weight
switching its order off; an order without n-grams or matches makes the score 0; c = r = 0 is NaN.
"""

import math
from collections import Counter


def ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def statistics(request):
    """c, r, clipped matches and totals per order, summed over the segments."""
    order = len(request.weights)
    c = r = 0
    matches, totals = [0] * order, [0] * order
    for segment in request.segments:
        if not segment.references:
            raise ValueError("every segment needs a reference")
        fold = (lambda t: t.lower()) if request.lowercase else (lambda t: t)
        hypothesis = [fold(t) for t in segment.hypothesis]
        references = [[fold(t) for t in reference] for reference in segment.references]
        c += len(hypothesis)
        r += min((len(ref) for ref in references), key=lambda length: (abs(length - len(hypothesis)), length))
        for n in range(1, order + 1):
            most = Counter()
            for reference in references:
                for gram, k in ngrams(reference, n).items():
                    most[gram] = max(most[gram], k)
            matches[n - 1] += sum(min(k, most[gram]) for gram, k in ngrams(hypothesis, n).items())
            totals[n - 1] += max(len(hypothesis) - n + 1, 0)
    return c, r, matches, totals


def bleu(request):
    """The score of an oracle ScoreRequest, with its statistics; ValueError for an input BLEU cannot score."""
    weights = [float(w) for w in request.weights]
    if not request.segments:
        raise ValueError("no segments")
    if any(w < 0 for w in weights) or not any(weights):
        raise ValueError(f"weights must be non-negative and not all zero (got {weights})")
    if request.smoothing.method != "none":
        raise ValueError("no smoothing here")
    c, r, matches, totals = statistics(request)
    stats = {"hyp_len": c, "ref_len": r, "matches": matches, "totals": totals}
    if c == 0:
        return (math.nan if r == 0 else 0.0), stats
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_mean = 0.0
    for weight, matched, total in zip(weights, matches, totals):
        if weight == 0:
            continue  # 0 * log 0 is taken as 0: the order is off
        if matched == 0:
            return 0.0, {**stats, "bp": bp}
        log_mean += weight * math.log(matched / total)
    return bp * math.exp(log_mean), {**stats, "bp": bp}
