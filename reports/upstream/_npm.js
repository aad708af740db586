// The npm packages for the JavaScript reproductions: bleu-score is required as users require it; promptfoo's
// calculateBleuScore (src/assertions/bleu.ts, not exported from the package) is taken from its bundle, the
// region that file compiles to, and evaluated alone. The package directory is the first argument, else the
// package is resolved by name from node_modules.
const fs = require("fs");
const path = require("path");
const vm = require("vm");

function packageDir(name) {
  return process.argv[2] ? path.resolve(process.argv[2]) : path.dirname(require.resolve(`${name}/package.json`));
}

function bleuScore() {
  return require(packageDir("bleu-score")).bleu;
}

function calculateBleuScore() {
  const bundle = fs.readFileSync(path.join(packageDir("promptfoo"), "dist", "src", "index.cjs"), "utf8");
  const start = bundle.indexOf("//#region src/assertions/ngrams.ts");
  const bleu = bundle.indexOf("//#region src/assertions/bleu.ts");
  const end = bundle.indexOf("//#endregion", bleu);
  if (start < 0 || bleu < 0 || end < 0) throw new Error("promptfoo's bundle has no src/assertions/bleu.ts region");
  return vm.runInContext(bundle.slice(start, end) + "\n;calculateBleuScore", vm.createContext({}));
}

// What the test reads: the value the library gives and the documented one (NaN and errors as text).
function report(documented, run) {
  let observed;
  try {
    observed = run();
  } catch (error) {
    observed = `${error.name}: ${error.message}`;
  }
  const show = (v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v);
  // shown: the value as node prints it, which the draft quotes
  console.log(JSON.stringify({ observed: show(observed), documented: show(documented), shown: String(observed) }));
}

module.exports = { bleuScore, calculateBleuScore, report };
