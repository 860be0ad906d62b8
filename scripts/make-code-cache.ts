// Makes the V8 code cache for dist/cli/wasm-compact.cjs (see
// src/cli/launch.ts): runs the bundle the way the launcher does, on the
// arguments after the bundle's path, and on exit writes the bytecode of
// every function that run compiled, behind the cache key. bundle-cli runs
// it as a child process on a fixture with --target brotli, which also runs
// the other targets' searches, so nearly every pass and judge is compiled,
// and again with the passes no default pipeline has (slices,
// fuse-branches), so a user who asks for them does not pay for compiling
// them. Several runs are separated by --and; the cache holds what any of
// them compiled.
//
// usage: node dist/scripts/make-code-cache.js BUNDLE CLI-ARGS... [--and CLI-ARGS...]...

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Script } from "node:vm";
import { CACHE_SUFFIX, cacheKey, compileBundle } from "../src/cli/code-cache.js";

const [given, ...args] = process.argv.slice(2);
if (!given) {
  process.stderr.write("usage: node dist/scripts/make-code-cache.js BUNDLE CLI-ARGS...\n");
  process.exit(2);
}
const bundle = resolve(given);
const source = readFileSync(bundle, "utf8");
const runs: string[][] = [[]];
for (const a of args) {
  if (a === "--and") runs.push([]);
  else runs[runs.length - 1]!.push(a);
}
let script: Script | null = null;
// at exit, so the cache also holds what runs after the script returns (closing the compression worker)
process.on("exit", (code) => {
  if (code !== 0 || !script) return;
  const out = bundle + CACHE_SUFFIX;
  writeFileSync(`${out}.tmp`, Buffer.concat([cacheKey(source), script.createCachedData()]));
  renameSync(`${out}.tmp`, out);
});
const compiled = compileBundle(bundle, source);
for (const run of runs) {
  process.argv = [process.argv[0]!, bundle, ...run];
  compiled.run();
  if ((process.exitCode ?? 0) !== 0) break; // no cache from a failed run
}
script = compiled.script;
