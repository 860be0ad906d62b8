// What the launcher (launch.ts) and the build's cache maker
// (scripts/make-code-cache.ts) share: how the bundle is compiled and run as a
// script, and the key that ties a cache file to the bundle's bytes, the Node
// version and the architecture. A cache file is the key followed by V8's data.

import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Script } from "node:vm";

export const CACHE_SUFFIX = ".v8-cache";

/** The bundle as a CommonJS module function, the way Node wraps one. */
export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

/**
 * Compiles the bundle at path `bundle`, whose text is `source`, as Node wraps
 * a CommonJS module (with V8's `cachedData` when given); `run` runs it (again
 * for each call: the cache maker runs it once per set of arguments, so the
 * script's cache holds what every run compiled).
 */
export function compileBundle(bundle: string, source: string, cachedData?: Buffer): { script: Script; run: () => void } {
  const script = new Script(wrapBundle(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  const wrapper = script.runInThisContext() as (exports: object, require: NodeRequire, module: object, filename: string, dirname: string) => void;
  const run = (): void => {
    const module = { exports: {} };
    wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  };
  return { script, run };
}

/** Compiles and runs the bundle once (see compileBundle); returns the script. */
export function runBundle(bundle: string, source: string, cachedData?: Buffer): Script {
  const b = compileBundle(bundle, source, cachedData);
  b.run();
  return b.script;
}

export function cacheKey(source: string): Buffer {
  return createHash("sha256").update(`${process.version}\0${process.arch}\0`).update(source).digest();
}

/** V8's data in a cache file `data` made for `source` here, or undefined when the file was made for other bytes, another Node or another architecture. */
export function usableCache(source: string, data: Buffer): Buffer | undefined {
  const key = cacheKey(source);
  return data.length > key.length && data.subarray(0, key.length).equals(key) ? data.subarray(key.length) : undefined;
}
