// Run bleu-oracle's papineni vectors against your BLEU: node --test
const { test } = require('node:test');
const assert = require('node:assert');
const { load, applies, whoseAnswer, acceptableConvention } = require('bleu-oracle-vectors');
const mine = require('./my-bleu'); // { capabilities, score(request) -> number, throws on invalid input }

const pack = load('papineni');
const { rel, abs } = pack.contract;
for (const v of pack.vectors.filter((vector) => applies(vector.needs, mine.capabilities))) {
  test(`${v.id} [${v.flags.join(' ')}]`, (t) => {
    let got;
    try { got = mine.score(v.request); } catch (error) { got = error; }
    // an input the documents leave undefined: refusing is recommended, a named convention's value is acceptable
    // too (to require refusals, as `bleu-oracle check --strict` does, delete these two lines)
    const convention = acceptableConvention(v, got, pack.contract);
    if (convention) return t.diagnostic(`acceptable: the ${convention} convention's value (refusing is recommended)`);
    // where BLEU's conventions split: "; your answer is the `reference_length=shortest` one: mlpack, ..." or ''
    const also = whoseAnswer(v, got, pack.contract);
    if (v.expected.rejected) return assert.ok(got instanceof Error, `got ${got}, want a rejection${also}`);
    if (got instanceof Error) throw new Error(`rejected: ${got.message}${also}`, { cause: got });
    const want = v.expected.score;
    if (want === 'NaN') return assert.ok(Number.isNaN(got), `NaN rule: got ${got}${also}`);
    if (v.expected.score_exact === '0') return assert.strictEqual(got, 0, `zero rule: got ${got}${also}`);
    assert.ok(Math.abs(got - want) <= abs + rel * Math.abs(want), `got ${got}, want ${want}${also}`);
    assert.ok(got !== 0 || want < 2.2250738585072014e-308, `zero rule: 0 for a non-zero value${also}`);
  });
}
