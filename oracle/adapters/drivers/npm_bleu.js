// The npm packages' BLEU code behind oracle/adapters/bridge.py: one JSON line in, one out, the answer
// echoing the request's id (null when the line could not be read):
//   node npm_bleu.js PROMPTFOO_DIR BLEU_SCORE_DIR     (either may be "-": not installed)
//   {"id": 1, "package": "promptfoo", "candidate": "...", "references": ["...", ...], "weights": [...]}
//   {"id": 2, "package": "bleu-score", "reference": "...", "candidate": "...", "maxN": 4}
// -> {"id": 2, "score": String(value)} | {"id": 2, "rejected": message} | {"id": 2, "error": message}
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
  let id = null;
  try {
    const message = JSON.parse(line);
    if (message !== null && Number.isInteger(message.id)) id = message.id;
    reply = { score: String(answer(message)) };
  } catch (err) {
    // promptfoo validates with `throw new Error("Invalid inputs" | "Weights must ...")`
    const message = `${err && err.name}: ${err && err.message}`;
    reply = /^Error: (Invalid inputs|Weights must)/.test(message) ? { rejected: message } : { error: message };
  }
  process.stdout.write(JSON.stringify({ id, ...reply }) + "\n");
});
