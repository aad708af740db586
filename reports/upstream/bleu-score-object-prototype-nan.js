// bleu-score counts n-grams in plain objects: a token named like an Object.prototype property reads a
// function, and the score is NaN. Draft report: bleu-score-object-prototype-nan.md.
// Run: node bleu-score-object-prototype-nan.js [PACKAGE_DIR]
const { bleuScore, report } = require("./_npm.js");

// "the constructor" against itself: both unigrams match, p1 = 2/2, c = r = 2, BP = 1: BLEU-1 = 1.
const DOCUMENTED = 1.0;

report(DOCUMENTED, () => bleuScore()("the constructor", "the constructor", 1));
