// Running wasm-opt from the npm `binaryen` package (Binaryen compiled to
// wasm, driven by a Node script), with a disk cache for results that take long
// to compute (-Oz on esbuild.wasm takes minutes).

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageDir } from "../test/corpus/corpus.js";
import { describeFailure, runMeasured, type ProcessMeasurement } from "./measure.js";

export function wasmOptScript(): string {
  return join(packageDir("binaryen"), "bin", "wasm-opt");
}

let versionCache: string | null = null;
export function binaryenVersion(): string {
  if (versionCache === null) {
    const pj = JSON.parse(readFileSync(join(packageDir("binaryen"), "package.json"), "utf8")) as { version: string };
    versionCache = pj.version;
  }
  return versionCache;
}

export interface WasmOptResult {
  bytes: Uint8Array;
  /** True if the result came from the cache (then `run` is the run that filled it). */
  cached: boolean;
  /** The measurement of the run that produced the bytes. */
  run: { wallMs: number; peakRssKiB: number | null; when: string };
}

/** Runs `wasm-opt IN args... -o OUT` once, measured; throws with the tail of stderr on failure. */
export async function wasmOptMeasured(inPath: string, outPath: string, args: readonly string[], timeoutMs?: number): Promise<ProcessMeasurement> {
  const m = await runMeasured([wasmOptScript(), inPath, ...args, "-o", outPath], timeoutMs !== undefined ? { timeoutMs } : {});
  if (m.exitCode !== 0) throw new Error(`wasm-opt ${args.join(" ")} failed: ${describeFailure(m)}`);
  return m;
}

function sha256(b: Uint8Array | string): string {
  return createHash("sha256").update(b).digest("hex");
}

/**
 * wasm-opt with `args` on `input`, from the cache in `cacheDir` when the same
 * input (by SHA-256), binaryen version and arguments were run before.
 */
export async function wasmOptCached(
  input: Uint8Array,
  args: readonly string[],
  cacheDir: string,
  tmpDir: string,
  options: { useCache?: boolean; timeoutMs?: number } = {},
): Promise<WasmOptResult> {
  const key = `${sha256(input).slice(0, 24)}-binaryen${binaryenVersion()}-${sha256(JSON.stringify(args)).slice(0, 12)}`;
  const wasmPath = join(cacheDir, `${key}.wasm`);
  const metaPath = join(cacheDir, `${key}.json`);
  if (options.useCache !== false && existsSync(wasmPath) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, "utf8")) as { run: WasmOptResult["run"]; sha256: string };
    const bytes = new Uint8Array(readFileSync(wasmPath));
    if (sha256(bytes) === meta.sha256) return { bytes, cached: true, run: meta.run };
  }
  mkdirSync(cacheDir, { recursive: true });
  const inPath = join(tmpDir, `${key}.in.wasm`);
  const outPath = join(tmpDir, `${key}.out.wasm`);
  writeFileSync(inPath, input);
  const m = await wasmOptMeasured(inPath, outPath, args, options.timeoutMs);
  const bytes = new Uint8Array(readFileSync(outPath));
  const run = { wallMs: m.wallMs, peakRssKiB: m.peakRssKiB, when: new Date().toISOString() };
  // Write whole files under temporary names, then rename: a killed run never leaves a half cache entry.
  // (The temporary names carry the pid, so two benchmarks filling the same entry do not trip over each other.)
  writeFileSync(`${wasmPath}.${process.pid}.tmp`, bytes);
  renameSync(`${wasmPath}.${process.pid}.tmp`, wasmPath);
  const meta = JSON.stringify({ args, binaryen: binaryenVersion(), sha256: sha256(bytes), run }, null, 2);
  writeFileSync(`${metaPath}.${process.pid}.tmp`, meta);
  renameSync(`${metaPath}.${process.pid}.tmp`, metaPath);
  return { bytes, cached: false, run };
}
