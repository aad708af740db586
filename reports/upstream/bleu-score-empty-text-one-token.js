// bleu-score splits on " ", so an empty sentence is one empty token: an empty candidate against an empty
// reference scores 1. Draft report: bleu-score-empty-text-one-token.md.
// Run: node bleu-score-empty-text-one-token.js [PACKAGE_DIR]
const { bleuScore, report } = require("./_npm.js");

// No token on either side: p1 = 0/0 and r/c = 0/0, so the formula gives no number (NaN), see the draft.
const DOCUMENTED = NaN;

report(DOCUMENTED, () => bleuScore()("", "", 1));
