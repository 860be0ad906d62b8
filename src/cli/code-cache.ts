// What the launcher (launch.ts) and the build's cache maker
// (scripts/make-code-cache.ts) must agree on: how the bundle is wrapped into
// a script, and the key that ties a cache file to the bundle's bytes, the
// Node version and the architecture. A cache file is the key followed by
// V8's data.

import { createHash } from "node:crypto";

export const CACHE_SUFFIX = ".v8-cache";

/** The bundle as a CommonJS module function, the way Node wraps one. */
export function wrapBundle(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

export function cacheKey(source: string): Buffer {
  return createHash("sha256").update(`${process.version}\0${process.arch}\0`).update(source).digest();
}

/** V8's data in a cache file `data` made for `source` here, or undefined when the file was made for other bytes, another Node or another architecture. */
export function usableCache(source: string, data: Buffer): Buffer | undefined {
  const key = cacheKey(source);
  return data.length > key.length && data.subarray(0, key.length).equals(key) ? data.subarray(key.length) : undefined;
}
