// Bundles the compiled CLI (dist/src/cli/*.js and everything it imports) into
// dist/cli/, the files package.json's `bin` runs. Node start-up resolves and
// compiles each ES module separately: for the 85 files of dist/src that is
// about 30 ms per run, a sixth of the time a small module takes in all. The
// worker and the profile hook are their own entry points next to main.js,
// because the CLI finds them by URL relative to itself. Runs after tsc in
// `npm run build`; the library entry (dist/src/index.js) is not bundled.

import { chmodSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild-wasm";

const root = fileURLToPath(new URL("../..", import.meta.url)); // dist/scripts -> repo root
const outdir = `${root}/dist/cli`;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: ["main", "compress-worker", "profile-hook"].map((n) => `${root}/dist/src/cli/${n}.js`),
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: "chunk-[hash]",
  format: "esm",
  platform: "node",
  target: "node20",
  // tsc's maps are chained, so `node --enable-source-maps` names .ts lines
  sourcemap: "linked",
  logLevel: "warning",
});
chmodSync(`${outdir}/main.js`, 0o755);
