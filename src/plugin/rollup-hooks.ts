// Rollup, Rolldown and Vite (whose builds are Rolldown's): every .wasm asset
// of the output bundle is optimized in generateBundle, before other plugins'
// generateBundle hooks (order "pre"), so what they see (compression,
// manifests, integrity hashes) is the optimized file. Whoever emitted an
// asset did so before this hook: Vite's `?init`, `?url` and direct `.wasm`
// imports and `new URL(..., import.meta.url)` (all through Vite's fileToUrl),
// vite-plugin-wasm in client builds (through `?url`), any plugin's
// this.emitFile. WebAssembly that a bundler or plugin inlined into the
// JavaScript as base64 is not an asset and is not touched. The hash in the
// file name is the bundler's, of the input bytes.

import { AssetOptimizer, WasmCompactPluginError, type BuildLog } from "./asset-optimizer.js";

/** What the hook uses of an output file (Rollup's and Rolldown's OutputAsset / OutputChunk). */
interface OutputFile {
  type: "asset" | "chunk";
  fileName: string;
  source?: string | Uint8Array;
}

/** What the hook uses of the plugin context. */
interface Context {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): never;
}

export function rollupHooks(optimizer: AssetOptimizer) {
  return {
    generateBundle: {
      order: "pre" as const,
      handler(this: Context, _options: unknown, bundle: Record<string, OutputFile>): void {
        const log: BuildLog = { info: (m) => this.info(m), warn: (m) => this.warn(m) };
        try {
          for (const file of Object.values(bundle)) {
            if (file.type !== "asset" || file.source === undefined || !optimizer.wants(file.fileName)) continue;
            const input = typeof file.source === "string" ? new TextEncoder().encode(file.source) : file.source;
            const output = optimizer.process(file.fileName, input, log);
            if (output !== input) file.source = output;
          }
        } catch (e) {
          if (e instanceof WasmCompactPluginError) this.error(e.message);
          throw e;
        } finally {
          optimizer.finishBuild(log);
        }
      },
    },
  };
}
