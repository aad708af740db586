// The npm packages' BLEU code as protocol-v1 implementation processes (PROTOCOL.md), by themselves.
// The runner starts it directly (`check --impl promptfoo`: one process, one protocol):
//
//   node npm_bleu.js promptfoo|bleu-score PACKAGE_DIR HANDSHAKE
//
// HANDSHAKE is the JSON handshake it answers `start` with: the adapter's declaration
// (oracle/adapters/npm_adapters.py), whose capabilities also decide what it refuses (`refusal`: a
// request outside them is unsupported; sentence level with other than one segment is rejected), as
// oracle/adapters/drivers/venv_bleu.py does for the venv libraries. Then one reply line per command:
// {"seq", "score"} (a finite number or "NaN"), {"seq", "unsupported" | "rejected" | "error"} (what the
// library threw: its name and message, the stack on stderr), {"error": "protocol error: ..."} for a
// line that is no command (with its seq when one could be read); `stop` or the end of input ends it.
// Tokens go to the libraries joined by single spaces, as each splits them again.
//
// promptfoo is loaded without its ~80 dependencies: its bundled dist/src/index.cjs is read (an older
// release's separate dist/src/assertions/bleu.js is loaded as CommonJS: `commonJs`), and the
// regions the bundler marks `src/assertions/ngrams.ts` and `src/assertions/bleu.ts` (the BLEU
// assertion's code, as shipped) are evaluated in a fresh context. bleu-score is required as is. Only
// protocol lines reach stdout: console.log and process.stdout.write go to stderr.
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const vm = require("vm");

const PROTOCOL_VERSION = 1;
const writeProtocol = process.stdout.write.bind(process.stdout); // (pipes are written synchronously on Linux)
process.stdout.write = process.stderr.write.bind(process.stderr);
console.log = console.info = console.debug = console.error;

const show = JSON.stringify;
const joined = (tokens) => tokens.join(" ");
const loaded = {};

// promptfoo before its bundle (0.100 .. 0.11x, as `bleu-oracle history` installs them): CommonJS files
// dist/src/assertions/bleu.js (and ngrams.js), loaded with a `require` that gives them their siblings and,
// for anything else they import (an invariant helper that only handleBleuScore calls), a function that throws.
function commonJs(file) {
  const module = { exports: {} };
  const siblingRequire = (name) => {
    if (name.startsWith("./")) return commonJs(path.join(path.dirname(file), name.slice(2) + ".js"));
    const invariant = (condition, message) => { if (!condition) throw new Error(message); };
    invariant.default = invariant;
    return invariant;
  };
  const wrapped = vm.runInThisContext(`(function (exports, require, module) {${fs.readFileSync(file, "utf8")}\n})`);
  wrapped(module.exports, siblingRequire, module);
  return module.exports;
}

function promptfoo(packageDir) {
  if (!loaded.promptfoo) {
    const separate = path.join(packageDir, "dist", "src", "assertions", "bleu.js");
    if (!fs.existsSync(path.join(packageDir, "dist", "src", "index.cjs")) && fs.existsSync(separate)) {
      loaded.promptfoo = commonJs(separate).calculateBleuScore;
      return loaded.promptfoo;
    }
    const bundle = fs.readFileSync(path.join(packageDir, "dist", "src", "index.cjs"), "utf8");
    const start = bundle.indexOf("//#region src/assertions/ngrams.ts");
    const bleu = bundle.indexOf("//#region src/assertions/bleu.ts");
    const end = bundle.indexOf("//#endregion", bleu);
    if (start < 0 || bleu < 0 || end < 0) throw new Error("promptfoo's bundle has no src/assertions/bleu.ts region");
    const context = vm.createContext({});
    loaded.promptfoo = vm.runInContext(bundle.slice(start, end) + "\n;calculateBleuScore", context);
  }
  return loaded.promptfoo;
}

function bleuScore(packageDir) {
  if (!loaded.bleuScore) loaded.bleuScore = require(path.resolve(packageDir)).bleu;
  return loaded.bleuScore;
}

// package -> (command, its directory) -> the library's number; a {kind, message} thrown is a refusal
const LIBRARIES = {
  promptfoo(command, packageDir) {
    const segment = command.segments[0];
    try {
      return promptfoo(packageDir)(joined(segment.hypothesis), segment.references.map(joined), command.weights);
    } catch (err) {
      // promptfoo validates with `throw new Error("Invalid inputs" | "Weights must ...")`
      const message = `${err && err.name}: ${err && err.message}`;
      if (/^Error: (Invalid inputs|Weights must)/.test(message)) throw { kind: "rejected", message };
      throw err;
    }
  },
  "bleu-score"(command, packageDir) {
    const segment = command.segments[0];
    if (segment.references.length !== 1) {
      throw { kind: "unsupported", message: "bleu-score scores one sentence against one reference" };
    }
    return bleuScore(packageDir)(joined(segment.references[0]), joined(segment.hypothesis), command.weights.length);
  },
};

function isUniform(weights) {
  // equal weights 1/N each, up to float rounding of 1/N (as oracle.adapters.base.is_uniform)
  return weights.every((w) => typeof w === "number" && Math.abs(w - 1 / weights.length) <= 1e-15);
}

// [kind, why] when the declared capabilities do not cover `command`, else null
function refusal(name, capabilities, command) {
  const { levels } = capabilities;
  if (!levels.includes(command.level)) {
    return ["unsupported", `${name} scores at ${levels.join(" and ")} level only (got ${show(command.level)})`];
  }
  const n = command.weights.length;
  if (n > capabilities.max_order) {
    return ["unsupported", `${name} takes at most ${capabilities.max_order} orders (got ${n} weights)`];
  }
  if (capabilities.orders && !capabilities.orders.includes(n)) {
    return ["unsupported", `${name} takes ${show(capabilities.orders)} orders only (got ${n} weights)`];
  }
  if (capabilities.weights === "uniform" && !isUniform(command.weights)) {
    return ["unsupported", `${name} weighs every order 1/N (got weights ${show(command.weights)})`];
  }
  const method = command.smoothing.method;
  if (!capabilities.smoothing.includes(method)) {
    return ["unsupported", `${name} smooths with ${show(capabilities.smoothing)} only (got ${show(method)})`];
  }
  if (command.lowercase && !capabilities.lowercase) return ["unsupported", `${name} does not fold case`];
  const tokenizers = capabilities.tokenizers || [];
  if (command.tokenize != null && !tokenizers.includes(command.tokenize)) {
    return ["unsupported", `${name} tokenizes with ${show(tokenizers)} only (got ${show(command.tokenize)})`];
  }
  const most = capabilities.max_references;
  const counts = command.segments.map((s) => s.references.length);
  if (most != null && counts.some((count) => count > most)) {
    return ["unsupported", `${name} takes at most ${most} reference(s) a segment (got ${Math.max(...counts)})`];
  }
  if (command.level === "sentence" && command.segments.length !== 1) {
    return ["rejected", `sentence level takes exactly one segment (got ${command.segments.length})`];
  }
  return null;
}

// a library's answer as the reply's outcome: the score, NaN as "NaN"; an infinity or a non-number an error
function scored(value) {
  if (typeof value !== "number") {
    return { error: `the library answered ${typeof value} ${String(value).slice(0, 200)}, not a number` };
  }
  if (Number.isNaN(value)) return { score: "NaN" };
  if (!Number.isFinite(value)) {
    return { error: `the library answered ${value}: protocol v1 takes a finite number or "NaN"` };
  }
  return { score: value };
}

function score(driver, command) {
  try {
    const refused = refusal(driver.name, driver.handshake.capabilities, command);
    if (refused) return { [refused[0]]: refused[1] };
    return scored(LIBRARIES[driver.library](command, driver.packageDir));
  } catch (err) {
    if (err && (err.kind === "rejected" || err.kind === "unsupported")) return { [err.kind]: err.message };
    process.stderr.write(`${(err && err.stack) || err}\n`);
    return { error: `${err && err.name}: ${err && err.message}` };
  }
}

// one command line -> [the reply or null, whether to stop]
function answer(driver, line) {
  let command;
  try {
    command = JSON.parse(line);
  } catch (err) {
    return [{ error: `protocol error: the line is not JSON (${err.message})` }, false];
  }
  if (command === null || typeof command !== "object" || Array.isArray(command)) {
    const shown = String(show(command)).slice(0, 200);
    return [{ error: `protocol error: a command must be a JSON object (got ${shown})` }, false];
  }
  const seq = Number.isInteger(command.seq) ? command.seq : null;
  if (command.cmd === "stop") return [null, true];
  if (command.cmd === "start") {
    if (command.protocol !== PROTOCOL_VERSION) {
      const error = `unsupported protocol version ${show(command.protocol)}: `
        + `this implementation speaks protocol ${PROTOCOL_VERSION}`;
      return [{ error }, false];
    }
    return [driver.handshake, false];
  }
  let reply;
  if (command.cmd !== "score") {
    reply = { error: `protocol error: \`cmd\` must be one of "start", "score", "stop" (got ${show(command.cmd)})` };
  } else if (seq === null) {
    reply = { error: "protocol error: `seq` must be an integer" };
  } else {
    reply = score(driver, command);
  }
  return [seq === null ? reply : { seq, ...reply }, false];
}

function main(argv) {
  if (argv.length !== 3 || !(argv[0] in LIBRARIES)) {
    process.stderr.write(`usage: node npm_bleu.js ${Object.keys(LIBRARIES).join("|")} PACKAGE_DIR HANDSHAKE\n`);
    process.exit(2);
  }
  const handshake = JSON.parse(argv[2]);
  const driver = { library: argv[0], packageDir: argv[1], handshake, name: handshake.implementation.name };
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const [reply, stop] = answer(driver, line);
    if (stop) process.exit(0);
    writeProtocol(JSON.stringify(reply) + "\n");
  });
  lines.on("close", () => process.exit(0));
}

if (require.main === module) main(process.argv.slice(2));
module.exports = { answer, refusal, scored };
