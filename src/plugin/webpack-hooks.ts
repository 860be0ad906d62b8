// webpack 5 and Rspack (the same compilation API): every .wasm asset is
// optimized in processAssets at the OPTIMIZE_SIZE stage, where minimizers
// run: after every asset is emitted (asset modules `asset/resource`, `new
// URL("./x.wasm", import.meta.url)`, `experiments.asyncWebAssembly`) and
// before OPTIMIZE_HASH, so with `optimization.realContentHash` (on in
// production mode) a `[contenthash]` in the name is the optimized file's, and
// before OPTIMIZE_TRANSFER, where compression plugins run.

import { AssetOptimizer, WasmCompactPluginError, type BuildLog } from "./asset-optimizer.js";

/** What the hooks use of a webpack or Rspack compiler. */
interface Compiler {
  webpack?: BundlerApi;
  rspack?: BundlerApi;
  hooks: { thisCompilation: { tap(name: string, fn: (compilation: Compilation) => void): void } };
}

interface BundlerApi {
  Compilation: { PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE: number };
  sources: { RawSource: new (buffer: Buffer) => unknown };
  WebpackError?: new (message: string) => Error;
}

interface Compilation {
  hooks: { processAssets: { tapPromise(options: { name: string; stage: number }, fn: () => Promise<void>): void } };
  getAssets(): readonly { name: string; source: { buffer(): Buffer } }[];
  updateAsset(name: string, source: unknown): void;
  getLogger(name: string): { info(message: string): void };
  warnings: Error[];
  errors: Error[];
}

const NAME = "wasm-compact";

export function webpackHooks(optimizer: AssetOptimizer) {
  return (compiler: Compiler): void => {
    const api = compiler.rspack ?? compiler.webpack;
    if (!api) throw new Error("wasm-compact: this compiler has neither `rspack` nor `webpack` (webpack 5 or Rspack is needed)");
    // webpack prints warnings and errors without the plugin's name
    const problem = (line: string): Error => {
      const message = `${NAME}: ${line}`;
      return api.WebpackError ? new api.WebpackError(message) : new Error(message);
    };
    compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
      compilation.hooks.processAssets.tapPromise({ name: NAME, stage: api.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE }, async () => {
        const logger = compilation.getLogger(NAME);
        const log: BuildLog = { info: (m) => logger.info(m), warn: (m) => compilation.warnings.push(problem(m)) };
        try {
          for (const asset of compilation.getAssets()) {
            if (!optimizer.wants(asset.name)) continue;
            const buf = asset.source.buffer();
            const input = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
            const output = optimizer.process(asset.name, input, log);
            if (output !== input) compilation.updateAsset(asset.name, new api.sources.RawSource(Buffer.from(output.buffer, output.byteOffset, output.byteLength)));
          }
        } catch (e) {
          if (!(e instanceof WasmCompactPluginError)) throw e;
          compilation.errors.push(problem(e.message));
        } finally {
          optimizer.finishBuild(log);
        }
      });
    });
  };
}
