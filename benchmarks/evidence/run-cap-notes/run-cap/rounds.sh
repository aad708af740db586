#!/bin/bash
cd /tmp/rc/tree
ONLY="real:cosine-ngram-equality real:mean-of-smoothed-sentence-bleu heldout3:max-over-single-references heldout4:weights-by-hypothesis-length heldout4:last-segment-sentence-bleu-reported heldout4:characters-in-sentence-bleu heldout6:individual-bleu-scores-averaged-over-four heldout7:first-reference-length-and-pooled-reference-ngrams heldout8:tokens-paired-into-character-segments planted:r-first-reference-summed-clip"
for K in 4 8 16; do
  echo "== K=$K start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  BLEU_ORACLE_RUN_CAP=$K BLEU_ORACLE_SEARCH_CACHE=/tmp/rc/cache-K$K PYTHONPATH=$PWD /work/main/.venv/bin/python benchmarks/attribution.py --only $ONLY --before /tmp/rc/main > /tmp/rc/round-K$K.txt 2>&1
  echo "== K=$K end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
