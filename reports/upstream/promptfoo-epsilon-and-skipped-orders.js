// promptfoo's calculateBleuScore counts 1e-7 for an order whose n-grams all miss, so Papineni's own
// "the the the ..." example scores above 0. Draft report: promptfoo-epsilon-and-skipped-orders.md.
// Run: node promptfoo-epsilon-and-skipped-orders.js [PACKAGE_DIR]
const { calculateBleuScore, report } = require("./_npm.js");

// p2 = 0/6 (no "the the" in either reference): the geometric mean with a zero factor is 0.
const DOCUMENTED = 0.0;

report(DOCUMENTED, () =>
  calculateBleuScore()("the the the the the the the", ["the cat is on the mat", "there is a cat on the mat"]),
);
