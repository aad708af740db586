// bleu-oracle-vectors: bleu-oracle's BLEU test vectors, one file per profile (vectors/<profile>.json),
// with the JSON Schema they validate against (suite.schema.json). docs/vectors.md of bleu-oracle
// describes a vector; this module only finds the files and says whether a vector applies.

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
    && Object.entries(needs.conventions).every(([name, rule]) => ((c.conventions || {})[name] || []).includes(rule));
}

module.exports = { load, applies, profiles, version, schema: path.join(__dirname, 'suite.schema.json') };
