// esbuild: .wasm output files (the `file` loader, `copy` loader) are
// optimized in onEnd. With `write: false` the result's outputFiles are
// changed in place; otherwise esbuild has already written the files when
// onEnd runs, so each .wasm among the metafile's outputs is rewritten on disk
// (whole: temp file, then rename). The setup turns `metafile` on for that.
// The `[hash]` in an esbuild file name is of the input bytes.
// esbuild has no log for plugins, and has printed its own summary by the
// time onEnd runs: summary lines go to stderr unless logLevel is "silent",
// "error" or "warning", warnings too unless it is "silent" or "error"; both
// warnings and errors are also returned in the build result (esbuild throws
// on errors and prints them).

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { writeWhole } from "../cli/files.js";
import { AssetOptimizer, WasmCompactPluginError, type BuildLog } from "./asset-optimizer.js";

/** What the hooks use of esbuild's PluginBuild. */
interface PluginBuild {
  initialOptions: { write?: boolean; metafile?: boolean; logLevel?: string; absWorkingDir?: string };
  onEnd(fn: (result: BuildResult) => { errors?: Message[]; warnings?: Message[] } | undefined): void;
}

interface BuildResult {
  errors: readonly unknown[];
  outputFiles?: { path: string; contents: Uint8Array }[];
  metafile?: { outputs: Record<string, unknown> };
}

interface Message {
  text: string;
}

const NAME = "wasm-compact";
const NO_INFO = new Set(["silent", "error", "warning"]);
const NO_WARNINGS = new Set(["silent", "error"]);

export function esbuildSetup(optimizer: AssetOptimizer) {
  return (build: PluginBuild): void => {
    const options = build.initialOptions;
    const inMemory = options.write === false;
    if (!inMemory) options.metafile = true;
    build.onEnd((result) => {
      if (result.errors.length > 0) return undefined; // esbuild reports them; nothing was emitted whole
      const warnings: Message[] = [];
      const level = options.logLevel ?? "info";
      const log: BuildLog = {
        info: (m) => void (NO_INFO.has(level) || process.stderr.write(`${NAME}: ${m}\n`)),
        warn: (m) => {
          warnings.push({ text: `${NAME}: ${m}` });
          if (!NO_WARNINGS.has(level)) process.stderr.write(`${NAME}: warning: ${m}\n`);
        },
      };
      const cwd = options.absWorkingDir ?? process.cwd();
      try {
        if (inMemory) {
          for (const file of result.outputFiles ?? []) {
            if (!optimizer.wants(file.path)) continue;
            file.contents = optimizer.process(displayName(file.path, cwd), file.contents, log);
          }
        } else {
          for (const out of Object.keys(result.metafile?.outputs ?? {})) {
            if (!optimizer.wants(out)) continue;
            const path = resolve(cwd, out);
            const buf = readFileSync(path);
            const input = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
            const output = optimizer.process(out, input, log);
            if (output !== input) writeWhole(path, output);
          }
        }
      } catch (e) {
        if (!(e instanceof WasmCompactPluginError)) throw e;
        return { errors: [{ text: `${NAME}: ${e.message}` }], warnings };
      } finally {
        optimizer.finishBuild(log);
      }
      return { warnings };
    });
  };
}

/** An output path relative to the working directory, as the metafile names outputs. */
function displayName(path: string, cwd: string): string {
  const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
