#!/usr/bin/env node
// The installed command (dist/cli/main.js). It runs the bundled CLI,
// wasm-compact.cjs (one classic script), with the V8 code cache `npm run
// build` made for it: the bytecode of every function a run compiles, so a
// run skips parsing and compiling them (8-10 ms per run, 5-9 % of the run
// on a small module). The cache is used only when it was made from these
// exact bundle bytes on this Node version and architecture; V8 itself
// refuses it when its own flags differ. Without a usable cache the bundle
// runs as it is, only slower to start. Under `node --enable-source-maps` it
// is loaded by Node's own loader instead, which maps stack traces through its
// source map to the .ts sources (Node 20 does not map code run by vm).
// Only Node built-ins and code-cache.ts: nothing of the CLI is loaded twice.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { CACHE_SUFFIX, runBundle, usableCache } from "./code-cache.js";

const bundle = fileURLToPath(new URL("./wasm-compact.cjs", import.meta.url));
const sourceMaps = (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled === true || process.execArgv.includes("--enable-source-maps");

if (sourceMaps) createRequire(bundle)(bundle);
else runCached();

function runCached(): void {
  const source = readFileSync(bundle, "utf8");
  let data: Buffer | undefined;
  try {
    data = usableCache(source, readFileSync(bundle + CACHE_SUFFIX));
  } catch {
    // no cache file: run without
  }
  runBundle(bundle, source, data);
}
