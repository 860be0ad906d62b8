// Builds the in-browser playground into a directory of static files
// (default dist/playground/site): index.html and playground.js, which holds
// the page's code and, as a string, the worker's (core, pako, the brotli
// encoder's wasm), so the page works served or opened as a file, offline.
// Bundles what tsc compiled (dist/playground/*.js). The worker bundle must
// not import a Node API: the build fails, naming the import, if it does.
//
//   node dist/scripts/build-playground.js [OUTDIR]

import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild-wasm";

const root = fileURLToPath(new URL("../..", import.meta.url)); // dist/scripts -> repository root
export const DEFAULT_SITE = join(root, "dist/playground/site");

/** Fails the build on any `node:` import (or a bare Node builtin esbuild would otherwise shim). */
const noNode: Plugin = {
  name: "no-node-apis",
  setup(b) {
    b.onResolve({ filter: /^(node:|fs$|path$|url$|os$|crypto$|worker_threads$|zlib$|module$|child_process$)/ }, (args) => ({
      errors: [{ text: `the playground must not use Node APIs: "${args.path}" imported by ${args.importer}` }],
    }));
  },
};

/** `brotli-size-wasm`: the brotli encoder (playground/brotli/), embedded as bytes. */
const brotliWasm: Plugin = {
  name: "brotli-size-wasm",
  setup(b) {
    b.onResolve({ filter: /^brotli-size-wasm$/ }, () => ({ path: join(root, "playground/brotli/brotli-size.wasm") }));
  },
};

/** Builds the site into `outdir` (emptied first). Returns the paths of its two files. */
export async function buildPlayground(outdir: string = DEFAULT_SITE): Promise<{ html: string; script: string }> {
  const compiled = join(root, "dist/playground");
  const common = { bundle: true, platform: "browser", target: "es2022", logLevel: "warning", minify: true, legalComments: "none" } as const;
  const worker = await build({
    ...common,
    entryPoints: [join(compiled, "worker.js")],
    format: "iife",
    write: false,
    loader: { ".wasm": "binary" },
    plugins: [noNode, brotliWasm],
  });
  const workerSource = worker.outputFiles[0]!.text;
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const script = join(outdir, "playground.js");
  await build({
    ...common,
    entryPoints: [join(compiled, "main.js")],
    outfile: script,
    format: "iife",
    define: { WORKER_SOURCE: JSON.stringify(workerSource) },
    plugins: [noNode],
  });
  const html = join(outdir, "index.html");
  copyFileSync(join(root, "playground/index.html"), html);
  return { html, script };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { html } = await buildPlayground(process.argv[2] ? resolve(process.argv[2]) : DEFAULT_SITE);
  console.log(`playground: ${pathToFileURL(html).href}`);
}
