// Helpers shared by the oracle's workloads: deterministic inputs, compact and
// exact descriptions of outputs, and fresh copies of packages in temporary
// folders (so that a run never shares a module instance with another run and
// never touches node_modules).

import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { packageDir } from "../corpus/corpus.js";
import type { Output } from "./workload.js";

export { packageDir };

/** Hex SHA-256 of bytes or a string. */
export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Exact but compact description of a byte string: the bytes themselves when short, else length and SHA-256. */
export function bytesOut(b: Uint8Array): string {
  if (b.length <= 48) return `bytes[${b.length}]:${Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex")}`;
  return `bytes[${b.length}]:sha256:${sha256(b)}`;
}

/** What `f` returns, or "error: MESSAGE" when it throws: a package's own error, as an output to compare. */
export function attempt<T extends Output>(f: () => T): T | string {
  try {
    return f();
  } catch (e) {
    return `error: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** attempt for a function that returns bytes: their bytesOut, or the error. */
export function attemptBytes(f: () => Uint8Array): string {
  return attempt(() => bytesOut(f()));
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;
}

/**
 * Turns any value a package returns into an Output without losing anything
 * JSON would lose: -0, NaN, infinities, bigints, undefined, byte arrays.
 */
export function toOutput(v: unknown): Output {
  if (v === null) return null;
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "number":
      if (Number.isFinite(v) && !Object.is(v, -0)) return v;
      return `number:${Object.is(v, -0) ? "-0" : String(v)}`;
    case "bigint":
      return `bigint:${v.toString()}`;
    case "undefined":
      return "undefined";
    case "object": {
      if (v instanceof Uint8Array) return bytesOut(v);
      if (ArrayBuffer.isView(v)) return bytesOut(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
      if (Array.isArray(v)) return v.map(toOutput);
      const o: { [k: string]: Output } = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = toOutput(x);
      return o;
    }
    default:
      return `${typeof v}`;
  }
}

/** A deterministic pseudo-random generator (mulberry32); same seed, same sequence. */
export { rng } from "../../bench/stats.js";
import { rng } from "../../bench/stats.js";

/** `n` deterministic pseudo-random bytes. */
export function randomBytes(seed: number, n: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (r() * 256) | 0;
  return out;
}

/** Bytes with a skewed distribution and repeats (compressible, but not trivially). */
export function skewedBytes(seed: number, n: number): Uint8Array {
  const r = rng(seed);
  const out = new Uint8Array(n);
  let i = 0;
  while (i < n) {
    if (i > 64 && r() < 0.3) {
      // Copy an earlier run, like text does.
      const len = 3 + ((r() * 40) | 0);
      const from = i - 1 - ((r() * Math.min(i - 1, 30000)) | 0);
      for (let k = 0; k < len && i < n; k++) out[i++] = out[from + k]!;
    } else {
      const x = r();
      out[i++] = x < 0.5 ? 97 + ((x * 10) | 0) : (x * x * 256) | 0;
    }
  }
  return out;
}

/** A file from an installed package, read-only (real-world text inputs for workloads). */
export function packageFile(pkg: string, path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(packageDir(pkg), path)));
}

export function packageText(pkg: string, path: string): string {
  return readFileSync(join(packageDir(pkg), path), "utf8");
}

/** A temporary folder that removes itself. */
export class TempDir {
  readonly path: string;
  constructor(prefix: string) {
    this.path = mkdtempSync(join(tmpdir(), `wasm-compact-${prefix}-`));
  }
  file(rel: string): string {
    return join(this.path, rel);
  }
  write(rel: string, data: Uint8Array | string): string {
    const p = join(this.path, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, data);
    return p;
  }
  /** Copies `rel` (a file or folder) of an installed package into this folder under `to` (default: same path). */
  copyFromPackage(pkg: string, rel: string, to = rel): string {
    const dst = join(this.path, to);
    mkdirSync(dirname(dst), { recursive: true });
    cpSync(join(packageDir(pkg), rel), dst, { recursive: true });
    return dst;
  }
  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

/** Runs `f` with a fresh temporary folder, removed afterwards. */
export async function withTempDir<T>(prefix: string, f: (dir: TempDir) => Promise<T>): Promise<T> {
  const dir = new TempDir(prefix);
  try {
    return await f(dir);
  } finally {
    dir.remove();
  }
}

let importCounter = 0;

/** Imports an ES module file as a new module instance (a cache-busting query on its URL). */
export async function importFresh<T>(path: string): Promise<T> {
  const url = pathToFileURL(path);
  url.search = `?oracle=${process.pid}-${++importCounter}`;
  return (await import(url.href)) as T;
}

/** Loads a CommonJS file that lives in a fresh temporary folder (a new path, so a new module instance). */
export function requireFrom<T>(path: string): T {
  return createRequire(path)(path) as T;
}

/** Times `f` (milliseconds). */
export async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t };
}
