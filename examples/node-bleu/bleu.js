#!/usr/bin/env node
// node-bleu: a small BLEU (Papineni, Roukos, Ward and Zhu 2002) in plain node,
// speaking bleu-oracle protocol v1 on stdin/stdout (see PROTOCOL.md).
//
//   node examples/node-bleu/bleu.js        # then type protocol lines, or let the runner drive it
//
// It follows the "papineni" profile: clipped n-gram counts; r is the reference
// length closest to the hypothesis length, ties to the shorter; BP = 1 if c > r,
// else e^(1 - r/c); BLEU = BP * exp(sum w_n log p_n) with the weights used as
// given; an order with weight 0 is left out; p_n = 0 (or an order with no
// n-grams) gives 0; empty hypotheses and references everywhere give NaN.
// Smoothing: none, floor (value) and exp (the NIST geometric sequence).
//
// No npm packages. stdout carries protocol lines only; diagnostics go to stderr.

'use strict';

const readline = require('node:readline');

const PROTOCOL = 1;
const HANDSHAKE = {
  protocol: PROTOCOL,
  implementation: { name: 'node-bleu', version: '1.0.0', language: 'javascript' },
  profile: 'papineni',
  capabilities: {
    levels: ['corpus', 'sentence'],
    weights: 'any',
    max_order: 10, // any order works; 10 is what we promise
    smoothing: ['none', 'floor', 'exp'],
    statistics: true,
    lowercase: true,
  },
};

// The input is invalid: answered {"seq", "rejected": message}.
class Rejected extends Error {}
// We cannot compute this: answered {"seq", "unsupported": message}.
class Unsupported extends Error {}

// -- Counting -----------------------------------------------------------------

// How often each n-gram occurs; an n-gram is keyed by the JSON of its tokens (unambiguous).
function ngramCounts(tokens, n) {
  const counts = new Map();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = JSON.stringify(tokens.slice(i, i + n));
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  return counts;
}

// The reference length closest to the hypothesis length; ties go to the shorter.
function closestReferenceLength(hypLen, refLens) {
  let best = refLens[0];
  for (const len of refLens) {
    const d = Math.abs(len - hypLen);
    const bestD = Math.abs(best - hypLen);
    if (d < bestD || (d === bestD && len < best)) best = len;
  }
  return best;
}

// c, r, clipped matches and totals for orders 1..maxOrder of one segment.
function segmentStatistics(hypothesis, references, maxOrder) {
  const matches = [];
  const totals = [];
  for (let n = 1; n <= maxOrder; n++) {
    const maxRefCounts = new Map(); // the largest count in any single reference
    for (const reference of references) {
      for (const [gram, count] of ngramCounts(reference, n)) {
        if (count > (maxRefCounts.get(gram) || 0)) maxRefCounts.set(gram, count);
      }
    }
    let clipped = 0;
    for (const [gram, count] of ngramCounts(hypothesis, n)) {
      clipped += Math.min(count, maxRefCounts.get(gram) || 0);
    }
    matches.push(clipped);
    totals.push(Math.max(hypothesis.length - n + 1, 0));
  }
  const refLen = closestReferenceLength(hypothesis.length, references.map((r) => r.length));
  return { hyp_len: hypothesis.length, ref_len: refLen, matches, totals };
}

// Corpus statistics: the sums over segments, before any division.
function corpusStatistics(segments, maxOrder, lowercase) {
  const total = { hyp_len: 0, ref_len: 0, matches: new Array(maxOrder).fill(0), totals: new Array(maxOrder).fill(0) };
  segments.forEach((segment, i) => {
    let { hypothesis, references } = segment;
    if (!Array.isArray(references) || references.length === 0) {
      throw new Rejected(`segment ${i}: \`references\` must hold at least one reference (got [])`);
    }
    if (lowercase) {
      hypothesis = hypothesis.map((t) => t.toLowerCase());
      references = references.map((r) => r.map((t) => t.toLowerCase()));
    }
    const s = segmentStatistics(hypothesis, references, maxOrder);
    total.hyp_len += s.hyp_len;
    total.ref_len += s.ref_len;
    for (let n = 0; n < maxOrder; n++) {
      total.matches[n] += s.matches[n];
      total.totals[n] += s.totals[n];
    }
  });
  return total;
}

// -- Scoring --------------------------------------------------------------------

// Matched counts after smoothing: only orders that have n-grams but no matches change.
function smoothedMatches(stats, smoothing) {
  const m = stats.matches.slice();
  let k = 0;
  for (let n = 0; n < m.length; n++) {
    if (stats.totals[n] > 0 && m[n] === 0) {
      k += 1;
      if (smoothing.method === 'floor') m[n] = smoothing.value;
      else if (smoothing.method === 'exp') m[n] = 1 / 2 ** k; // the k-th order with no matches
    }
  }
  return m;
}

function bleu(stats, weights, smoothing) {
  const c = stats.hyp_len;
  const r = stats.ref_len;
  if (c === 0 && r === 0) return { score: NaN, bp: NaN }; // every p_n and r/c are 0/0
  const bp = c > r ? 1 : c === 0 ? 0 : Math.exp(1 - r / c);
  if (c === 0) return { score: 0, bp };
  const m = smoothedMatches(stats, smoothing);
  let logMean = 0;
  for (let n = 0; n < weights.length; n++) {
    if (weights[n] === 0) continue; // 0 * log 0 is taken as 0: a zero weight switches an order off
    if (stats.totals[n] === 0 || m[n] === 0) return { score: 0, bp }; // log 0 = -Infinity
    logMean += weights[n] * Math.log(m[n] / stats.totals[n]);
  }
  return { score: bp * Math.exp(logMean), bp };
}

// -- Requests -------------------------------------------------------------------

function checkRequest(command) {
  const { level, segments, weights, smoothing } = command;
  if (!['corpus', 'sentence'].includes(level)) throw new Error(`\`level\` must be "corpus" or "sentence" (got ${JSON.stringify(level)})`);
  if (!Array.isArray(segments)) throw new Error('`segments` must be an array');
  if (!Array.isArray(weights) || weights.length === 0 || !weights.every((w) => typeof w === 'number')) {
    throw new Error('`weights` must be a non-empty array of numbers');
  }
  if (!smoothing || typeof smoothing.method !== 'string') throw new Error('`smoothing.method` must be a string');
  if (!HANDSHAKE.capabilities.smoothing.includes(smoothing.method)) {
    throw new Unsupported(`smoothing method ${JSON.stringify(smoothing.method)} is not implemented (only ${HANDSHAKE.capabilities.smoothing.join(', ')})`);
  }
  if (segments.length === 0) throw new Rejected('`segments` must hold at least one segment (got [])');
  if (level === 'sentence' && segments.length !== 1) throw new Rejected(`sentence level takes exactly one segment (got ${segments.length})`);
  if (weights.some((w) => w < 0)) throw new Rejected(`\`weights\` must be non-negative (got ${JSON.stringify(weights)})`);
  if (weights.every((w) => w === 0)) throw new Rejected(`\`weights\` must not be all zero (got ${JSON.stringify(weights)})`);
  if (smoothing.method === 'floor' && !(typeof smoothing.value === 'number' && smoothing.value >= 0)) {
    throw new Rejected(`\`smoothing.value\` must be a non-negative number (got ${JSON.stringify(smoothing.value)})`);
  }
  segments.forEach((segment, i) => {
    const tokenList = (x) => Array.isArray(x) && x.every((t) => typeof t === 'string');
    if (!segment || !tokenList(segment.hypothesis) || !Array.isArray(segment.references) || !segment.references.every(tokenList)) {
      throw new Rejected(`segment ${i}: hypothesis and references must be lists of string tokens`);
    }
  });
}

function score(command) {
  checkRequest(command);
  const stats = corpusStatistics(command.segments, command.weights.length, command.lowercase === true);
  const { score: value, bp } = bleu(stats, command.weights, command.smoothing);
  return { ...stats, score: value, bp };
}

// JSON has no NaN: the protocol sends it as the string "NaN".
const number = (x) => (Number.isNaN(x) ? 'NaN' : x);

function answer(command) {
  switch (command.cmd) {
    case 'start':
      if (command.protocol !== PROTOCOL) {
        return { error: `unsupported protocol version ${JSON.stringify(command.protocol)}: node-bleu speaks protocol ${PROTOCOL}` };
      }
      return HANDSHAKE;
    case 'score': {
      const seq = command.seq;
      try {
        const s = score(command);
        return {
          seq,
          score: number(s.score),
          statistics: { hyp_len: s.hyp_len, ref_len: s.ref_len, matches: s.matches, totals: s.totals, bp: number(s.bp) },
        };
      } catch (e) {
        if (e instanceof Rejected) return { seq, rejected: e.message };
        if (e instanceof Unsupported) return { seq, unsupported: e.message };
        process.stderr.write(`${e.stack}\n`);
        return { seq, error: `${e.name}: ${e.message}` };
      }
    }
    default:
      return { ...(Number.isInteger(command.seq) ? { seq: command.seq } : {}), error: `unknown command ${JSON.stringify(command.cmd)}` };
  }
}

function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let command;
    try {
      command = JSON.parse(line);
    } catch (e) {
      process.stdout.write(`${JSON.stringify({ error: `not JSON: ${e.message}` })}\n`);
      return;
    }
    if (command === null || typeof command !== 'object' || Array.isArray(command)) {
      process.stdout.write(`${JSON.stringify({ error: 'a command must be a JSON object' })}\n`);
      return;
    }
    if (command.cmd === 'stop') process.exit(0); // stdout writes to a pipe are synchronous on POSIX
    process.stdout.write(`${JSON.stringify(answer(command))}\n`);
  });
  // End of input: the process ends by itself.
}

if (require.main === module) main();

module.exports = { segmentStatistics, corpusStatistics, bleu, score };
