// The launcher (dist/cli/main.js) and the code cache the build makes for the
// bundled CLI: V8 accepts the cache, a cache made for other bytes is not
// used, and the command gives the same output with the cache, without it,
// with a stale one and under --enable-source-maps.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { CACHE_SUFFIX, cacheKey, usableCache, wrapBundle } from "../src/cli/code-cache.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // dist/test -> repository root
const CLI_DIR = join(ROOT, "dist/cli");
const BUNDLE = join(CLI_DIR, "wasm-compact.cjs");
const INPUT = join(ROOT, "fixtures/wasm/interp-Oz-wasmopt.wasm");

test("the build's code cache fits the bundle and V8 accepts it", () => {
  const source = readFileSync(BUNDLE, "utf8");
  const data = usableCache(source, readFileSync(BUNDLE + CACHE_SUFFIX));
  assert.ok(data && data.length > 100_000, "a cache of the compiled functions, made for these bytes");
  const script = new Script(wrapBundle(source), { filename: BUNDLE, cachedData: data });
  assert.equal(script.cachedDataRejected, false);
});

test("the cache maker keeps what each of its runs (--and) compiled", () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-cache-"));
  try {
    const make = (label: string, extra: string[]): Buffer => {
      const bundle = join(dir, `${label}.cjs`);
      cpSync(BUNDLE, bundle);
      const args = [join(ROOT, "dist/scripts/make-code-cache.js"), bundle, INPUT, "-o", join(dir, `${label}.wasm`), "--quiet", ...extra];
      const r = spawnSync(process.execPath, args, { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      return readFileSync(bundle + CACHE_SUFFIX);
    };
    const one = make("one", []);
    const two = make("two", ["--and", INPUT, "-o", join(dir, "two-b.wasm"), "--passes", "slices,fuse-branches", "--quiet"]);
    assert.ok(readFileSync(join(dir, "two-b.wasm")).length > 0, "the second run ran");
    assert.ok(two.length > one.length + 10_000, `the second run's passes compiled too (${one.length} -> ${two.length} bytes)`);
    const script = new Script(wrapBundle(readFileSync(BUNDLE, "utf8")), { filename: BUNDLE, cachedData: usableCache(readFileSync(BUNDLE, "utf8"), two) });
    assert.equal(script.cachedDataRejected, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a cache file made for other bytes, or cut short, is not used", () => {
  const source = readFileSync(BUNDLE, "utf8");
  const file = readFileSync(BUNDLE + CACHE_SUFFIX);
  const key = cacheKey(source);
  // one character changed, same length: V8's own check compares lengths only
  const i = source.indexOf("wasm-compact: ");
  const other = source.slice(0, i) + "W" + source.slice(i + 1);
  assert.equal(other.length, source.length);
  assert.equal(usableCache(other, file), undefined);
  assert.equal(usableCache(source, file.subarray(0, key.length)), undefined, "the key alone");
  assert.equal(usableCache(source, file.subarray(0, 10)), undefined);
  assert.equal(usableCache(source, Buffer.alloc(0)), undefined);
  assert.deepEqual(usableCache(source, file), file.subarray(key.length));
});

test("the command gives the same output with the cache, without it, with a stale one and under --enable-source-maps", () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-launch-"));
  try {
    const cli = join(dir, "cli");
    cpSync(CLI_DIR, cli, { recursive: true });
    const cache = join(cli, "wasm-compact.cjs" + CACHE_SUFFIX);
    const real = readFileSync(cache);
    const run = (label: string, nodeArgs: string[] = []): Buffer => {
      const out = join(dir, `${label}.wasm`);
      const r = spawnSync(process.execPath, [...nodeArgs, join(cli, "main.js"), INPUT, "-o", out, "--quiet", "--outline-hot"], { encoding: "utf8" });
      assert.equal(r.status, 0, `${label}: ${r.stderr}`);
      return readFileSync(out);
    };
    const withCache = run("cached");
    assert.ok(withCache.length < readFileSync(INPUT).length, "the passes ran");
    rmSync(cache);
    assert.deepEqual(run("no-cache"), withCache);
    // V8's data under another key, as a cache from an older build would be
    writeFileSync(cache, Buffer.concat([cacheKey("an older bundle"), real.subarray(32)]));
    assert.deepEqual(run("stale"), withCache);
    writeFileSync(cache, real);
    assert.deepEqual(run("source-maps", ["--enable-source-maps"]), withCache);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
