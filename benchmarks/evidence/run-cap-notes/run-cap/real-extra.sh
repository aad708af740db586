#!/bin/bash
cd /tmp/rc/tree
unset PYTHONDONTWRITEBYTECODE
for K in 16 8; do
  mkdir -p /tmp/rc/col-K$K
  echo "== realbleu K=$K $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  BLEU_ORACLE_RUN_CAP=$K BLEU_ORACLE_SEARCH_CACHE=/tmp/rc/col-K$K/cache-realbleu PYTHONPATH=$PWD /work/main/.venv/bin/python benchmarks/attribution.py --real --timeout 300 > /tmp/rc/col-K$K/realbleu.md 2>&1
done
echo "== done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
