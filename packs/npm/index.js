// bleu-oracle-vectors: bleu-oracle's BLEU test vectors, one file per profile (vectors/<profile>.json),
// with the JSON Schema they validate against (suite.schema.json). docs/vectors.md of bleu-oracle
// describes a vector; this module only finds the files, says whether a vector applies to an implementation,
// which convention's answer an implementation gave and which named convention's value it gave on an input the
// documents leave undefined.

'use strict';

const path = require('node:path');
const { profiles, version } = require('./pack.json');

// The vector file of one profile (papineni, nltk, sacrebleu, ...), parsed.
function load(profile) {
  if (!profiles.includes(profile)) throw new Error(`unknown profile ${JSON.stringify(profile)}: one of ${profiles.join(', ')}`);
  return require(path.join(__dirname, 'vectors', `${profile}.json`));
}

// Whether an implementation with these protocol-v1 capabilities can take a vector that needs `needs`.
function applies(needs, c) {
  const forbidden = c.forbidden_token_characters || '';
  return c.levels.includes(needs.level)
    && (needs.weights === 'uniform' || c.weights === 'any')
    && needs.max_order <= c.max_order && (!c.orders || c.orders.includes(needs.max_order))
    && c.smoothing.includes(needs.smoothing)
    && (!needs.lowercase || c.lowercase === true)
    && (needs.tokenizer === null || (c.tokenizers || []).includes(needs.tokenizer))
    && (!needs.reference_counts_differ || !c.same_reference_count)
    && (!c.max_references || needs.references <= c.max_references)
    && !needs.token_characters.some((ch) => forbidden.includes(ch))
    && (!needs.empty_tokens || c.empty_tokens !== false)
    && !(needs.texts || []).some((text) => (c.forbidden_text_sequences || []).some((s) => text.includes(s)))
    && Object.entries(needs.conventions).every(([name, rule]) => ((c.conventions || {})[name] || []).includes(rule));
}

// A float's smallest normal number: a positive exact value at least this large is never answered 0 (the zero rule).
const SMALLEST_NORMAL = 2.2250738585072014e-308;

// Whether `got` (a number, or the Error an implementation threw) is `answer` (a vector's `expected` or one of
// its `answers`) under `contract` (the file's): the tolerance, the zero rule and the NaN rule.
function isAnswer(got, answer, { rel, abs }) {
  if (answer.rejected) return got instanceof Error;
  if (typeof got !== 'number') return false;
  const want = Number(answer.score); // "NaN" is NaN
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (answer.score_exact === '0') return got === 0;
  if (got === 0 && want >= SMALLEST_NORMAL) return false;
  return Math.abs(got - want) <= abs + rel * Math.abs(want);
}

// A convention's value in a message: a string as it is; null as `unset` (the convention is not set, another
// rules: sentence_empty_order unset is empty_order's rule), not a word of one language; else its JSON.
function conventionValue(value) {
  if (typeof value === 'string') return value;
  return value === null ? 'unset' : JSON.stringify(value);
}

// For a failure message: which other convention's answer `got` is, from the vector's own `answers`, as
// "; your answer is the `reference_length=shortest` one: mlpack, tensorflow-nmt"; '' when it is none of them.
function whoseAnswer(vector, got, contract) {
  const answer = (vector.answers || []).find((a) => !a.profiles.includes(vector.profile) && isAnswer(got, a, contract));
  if (!answer) return '';
  const rules = Object.entries(answer.conventions).map(([name, value]) => `${name}=${conventionValue(value)}`);
  const which = rules.length ? `the \`${rules.join(', ')}\` one` : 'the one of the profiles';
  return `; your answer is ${which}: ${answer.profiles.join(', ')}`;
}

// On an input the documents leave undefined (flag `undefined-input`, `result` acceptable): the named convention
// (bleu-oracle's PROTOCOL.md) whose value `got` is, e.g. 'empty-corpus-zero' for 0 on an empty corpus; such an
// answer is acceptable, though refusing (`expected`) is recommended. null for a refusal, for any other answer,
// and on every other vector.
function acceptableConvention(vector, got, contract) {
  const answer = (vector.answers || []).find((a) => a.convention && isAnswer(got, a, contract));
  return answer ? answer.convention : null;
}

module.exports = {
  load, applies, isAnswer, whoseAnswer, acceptableConvention, profiles, version,
  schema: path.join(__dirname, 'suite.schema.json'),
};
