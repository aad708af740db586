#!/bin/bash
# usage: collections.sh K  (run-cap's tree at commit in /tmp/rc/tree, BLEU_ORACLE_RUN_CAP=K)
K=$1
OUT=/tmp/rc/col-K$K
mkdir -p $OUT
cd /tmp/rc/tree
unset PYTHONDONTWRITEBYTECODE
PY=/work/main/.venv/bin/python
export BLEU_ORACLE_RUN_CAP=$K
for c in realbleu heldout3 heldout4 heldout5 heldout6 heldout7 heldout8; do
  echo "== $c $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $c = realbleu ]; then
    BLEU_ORACLE_SEARCH_CACHE=$OUT/cache-$c PYTHONPATH=$PWD $PY benchmarks/attribution.py --real --timeout 300 > $OUT/$c.md 2>&1
  else
    BLEU_ORACLE_SEARCH_CACHE=$OUT/cache-$c PYTHONPATH=$PWD $PY benchmarks/attribution.py --real --collection $c --timeout 300 > $OUT/$c.md 2>&1
  fi
done
echo "== planted $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
BLEU_ORACLE_SEARCH_CACHE=$OUT/cache-planted PYTHONPATH=$PWD $PY benchmarks/attribution.py --timeout 300 > $OUT/planted.md 2>&1
echo "== done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
