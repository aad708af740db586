// The npm packages' BLEU code behind oracle/adapters/bridge.py: one JSON line in, one out.
//   node npm_bleu.js PROMPTFOO_DIR BLEU_SCORE_DIR     (either may be "-": not installed)
//   {"package": "promptfoo", "candidate": "...", "references": ["...", ...], "weights": [...]}
//   {"package": "bleu-score", "reference": "...", "candidate": "...", "maxN": 4}
// -> {"score": String(value)} | {"rejected": message} | {"error": message}
//
// promptfoo is loaded without its ~80 dependencies: its bundled dist/src/index.cjs is read, and the
// regions the bundler marks `src/assertions/ngrams.ts` and `src/assertions/bleu.ts` (the BLEU
// assertion's code, as shipped) are evaluated in a fresh context. bleu-score is required as is.
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const vm = require("vm");

const [promptfooDir, bleuScoreDir] = process.argv.slice(2);
const loaded = {};

function promptfoo() {
  if (!loaded.promptfoo) {
    const bundle = fs.readFileSync(path.join(promptfooDir, "dist", "src", "index.cjs"), "utf8");
    const start = bundle.indexOf("//#region src/assertions/ngrams.ts");
    const bleu = bundle.indexOf("//#region src/assertions/bleu.ts");
    const end = bundle.indexOf("//#endregion", bleu);
    if (start < 0 || bleu < 0 || end < 0) throw new Error("promptfoo's bundle has no src/assertions/bleu.ts region");
    const context = vm.createContext({});
    loaded.promptfoo = vm.runInContext(bundle.slice(start, end) + "\n;calculateBleuScore", context);
  }
  return loaded.promptfoo;
}

function bleuScore() {
  if (!loaded.bleuScore) loaded.bleuScore = require(path.resolve(bleuScoreDir)).bleu;
  return loaded.bleuScore;
}

function answer(message) {
  if (message.package === "promptfoo") {
    return promptfoo()(message.candidate, message.references, message.weights);
  }
  if (message.package === "bleu-score") {
    return bleuScore()(message.reference, message.candidate, message.maxN);
  }
  throw new Error(`unknown package ${JSON.stringify(message.package)}`);
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let reply;
  try {
    reply = { score: String(answer(JSON.parse(line))) };
  } catch (err) {
    // promptfoo validates with `throw new Error("Invalid inputs" | "Weights must ...")`
    const message = `${err && err.name}: ${err && err.message}`;
    reply = /^Error: (Invalid inputs|Weights must)/.test(message) ? { rejected: message } : { error: message };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
