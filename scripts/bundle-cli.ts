// Bundles the compiled CLI (dist/src/cli/*.js and everything it imports) into
// dist/cli/, the files package.json's `bin` runs, and makes its V8 code cache.
// Node start-up resolves and compiles each ES module separately (for the 85
// files of dist/src that was about 30 ms per run), and then every function a
// run calls is parsed and compiled on first call (the cache saves 8-10 ms
// per run: 5-9 % on a small module). So:
// - wasm-compact.cjs: the CLI as one classic script, which V8 can cache;
// - wasm-compact.cjs.v8-cache: the bytecode of every function a --target
//   brotli run on a fixture compiled, and a run with the passes no default
//   pipeline has (see scripts/make-code-cache.ts);
// - main.js: the launcher (src/cli/launch.ts) that runs the script with the
//   cache, and without it when the cache does not fit;
// - compress-worker.js, compress-child.js (which the worker starts) and
//   profile-hook.js: their own entry points next to it, because the CLI
//   finds them by URL relative to itself (and a chunk the first two share).
// Runs after tsc in `npm run build`; the library entry (dist/src/index.js) is
// not bundled.

import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild-wasm";

const root = fileURLToPath(new URL("../..", import.meta.url)); // dist/scripts -> repo root
const src = `${root}/dist/src/cli`;
const outdir = `${root}/dist/cli`;
const common = { bundle: true, platform: "node", target: "node20", logLevel: "warning" } as const;
rmSync(outdir, { recursive: true, force: true });

// the CLI: import.meta.url becomes the script's own file URL; strict, as the ES modules were
const bundle = `${outdir}/wasm-compact.cjs`;
await build({
  ...common,
  entryPoints: [`${src}/main.js`],
  outfile: bundle,
  format: "cjs",
  define: { "import.meta.url": "__wasm_compact_url" },
  banner: { js: '"use strict";\nconst __wasm_compact_url = require("node:url").pathToFileURL(__filename).href;' },
  // tsc's maps are chained, so `node --enable-source-maps` names .ts lines
  sourcemap: "linked",
});
// the launcher runs it as a function body, where a #! line is a syntax error: make it a comment of the same length
const text = readFileSync(bundle, "utf8");
if (text.startsWith("#!")) writeFileSync(bundle, `//${text.slice(2)}`);

await build({
  ...common,
  entryPoints: { main: `${src}/launch.js`, "compress-worker": `${src}/compress-worker.js`, "compress-child": `${src}/compress-child.js`, "profile-hook": `${src}/profile-hook.js` },
  outdir,
  splitting: true,
  chunkNames: "chunk-[hash]",
  format: "esm",
  sourcemap: "linked",
});
chmodSync(`${outdir}/main.js`, 0o755);

// the code cache, from a run that compiles nearly everything (--target brotli also runs the other targets' searches) and one with the other passes
const tmp = mkdtempSync(join(tmpdir(), "wasm-compact-cache-"));
try {
  const fixture = `${root}/fixtures/wasm/graph-Oz-wasmopt.wasm`;
  const extra = "fold-functions,merge-functions,fold-blocks,outline,slices,fuse-branches,cleanup,layout"; // and the passes no default pipeline has
  const args = [`${root}/dist/scripts/make-code-cache.js`, bundle, fixture, "-o", join(tmp, "out.wasm"), "--target", "brotli", "--quiet", "--and", fixture, "-o", join(tmp, "out2.wasm"), "--passes", extra, "--quiet"];
  const r = spawnSync(process.execPath, args, { encoding: "utf8" });
  if (r.status !== 0) {
    process.stderr.write(`bundle-cli: making the code cache failed (exit ${String(r.status)}):\n${r.stderr}`);
    process.exit(1);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
