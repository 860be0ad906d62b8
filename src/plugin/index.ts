// wasm-compact/bundler: the optimizer as a build step of Vite, Rollup,
// Rolldown, webpack, Rspack and esbuild, from one unplugin. It works on the
// files a build emits, not on modules as they are loaded, so it meets every
// .wasm whoever emitted it; each bundler's hook for emitted files is in
// rollup-hooks.ts, webpack-hooks.ts and esbuild-hooks.ts. Node only (zlib and
// a worker thread for the gzip/brotli measures, as the CLI), unlike the core.

import { createUnplugin, type UnpluginInstance } from "unplugin";
import { AssetOptimizer } from "./asset-optimizer.js";
import { esbuildSetup } from "./esbuild-hooks.js";
import { resolveOptions, type WasmCompactPluginOptions } from "./options.js";
import { rollupHooks } from "./rollup-hooks.js";
import { webpackHooks } from "./webpack-hooks.js";

export type { WasmCompactPluginOptions } from "./options.js";
export type { AssetResult } from "./asset-result.js";
export { WasmCompactPluginError } from "./asset-optimizer.js";

export const wasmCompact: UnpluginInstance<WasmCompactPluginOptions | undefined, false> = createUnplugin((options) => {
  const optimizer = new AssetOptimizer(resolveOptions(options));
  const hooks = rollupHooks(optimizer);
  return {
    name: "wasm-compact",
    // the dev server serves source files as they are; only builds emit assets
    vite: { apply: "build", ...hooks },
    rollup: hooks,
    rolldown: hooks,
    webpack: webpackHooks(optimizer),
    rspack: webpackHooks(optimizer),
    esbuild: { setup: esbuildSetup(optimizer) },
  };
});

export const vite = wasmCompact.vite;
export const rollup = wasmCompact.rollup;
export const rolldown = wasmCompact.rolldown;
export const webpack = wasmCompact.webpack;
export const rspack = wasmCompact.rspack;
export const esbuild = wasmCompact.esbuild;
export default wasmCompact;
