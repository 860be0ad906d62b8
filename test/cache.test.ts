// The result cache (--cache DIR, options.cache): byte-identical output with
// and without it, cold and warm, under every target; entries that are
// corrupt, truncated, from another version or interleaved by two writers are
// ignored with a note; a stored output that fails its final check is not
// returned; the directory store is atomic and bounded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { optimize, type OptimizeOptions } from "../src/pipeline.js";
import { MemoryCacheStore } from "../src/cache/store.js";
import { sha256, sha256Parts } from "../src/cache/sha256.js";
import { decodeEntry, encodeEntry, packParts, unpackParts } from "../src/cache/entry.js";
import { DirCacheStore, nodeSha256 } from "../src/cli/cache-dir.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { SIZE_TARGETS, type SizeTarget } from "../src/size-target.js";
import { VERSION } from "../src/version.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "dist/cli/main.js");
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(ROOT, "fixtures/wasm", name)));
const FAMILIES = fixture("families-Oz-wasmopt.wasm");
// shrinks under every target with outlineHot (the default leaves it as it is under brotli and balanced)
const STRINGS = fixture("strings-Oz-wasmopt.wasm");
const HELLO = new Uint8Array(readFileSync(join(ROOT, "examples/hello.wasm")));

const tempDir = (): string => mkdtempSync(join(tmpdir(), "wasm-compact-cache-"));
const opts = (target: SizeTarget, store: MemoryCacheStore | DirCacheStore | null): OptimizeOptions => ({
  target,
  outlineHot: true,
  measures: nodeMeasures,
  ...(store ? { cache: { store, measuresId: "test zlib" } } : {}),
});

test("sha256: the FIPS 180-4 test vectors, across update boundaries", () => {
  assert.equal(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const long = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  assert.equal(sha256(long), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  assert.equal(sha256("a".repeat(1_000_000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
});

for (const target of SIZE_TARGETS) {
  test(`target ${target}: the same output without a cache, cold with one and warm`, () => {
    const plain = optimize(STRINGS, opts(target, null));
    const store = new MemoryCacheStore();
    const cold = optimize(STRINGS, opts(target, store));
    assert.deepEqual(cold.binary, plain.binary, "cold run with a cache");
    assert.equal(cold.cache?.result, "miss");
    assert.equal(cold.cache?.writes, 1);
    // the warm check measures raw and gzip anew and takes the brotli quality-11 sizes the cold run measured
    let brotliRuns = 0;
    const counted = { ...nodeMeasures, brotli: (b: Uint8Array) => (brotliRuns++, nodeMeasures.brotli!(b)) };
    const warm = optimize(STRINGS, { ...opts(target, store), measures: counted });
    assert.equal(warm.cache?.result, "hit");
    assert.equal(brotliRuns, 0, "no brotli quality-11 run");
    const remeasured = optimize(STRINGS, { ...opts(target, store), measures: counted, cache: { store, measuresId: "test zlib", remeasureBrotli: true } });
    assert.equal(remeasured.cache?.result, "hit");
    assert.equal(brotliRuns, target === "brotli" || target === "balanced" ? 2 : 0, "remeasureBrotli: the input and the output");
    assert.deepEqual(warm.cache?.hits, { result: 1 });
    assert.deepEqual(warm.binary, plain.binary, "warm run");
    assert.deepEqual(warm.report.sizes, plain.report.sizes);
    assert.deepEqual(warm.report.mergeMap, plain.report.mergeMap);
    assert.deepEqual(warm.report.notes, plain.report.notes);
    assert.ok(plain.binary.length < STRINGS.length, "the fixture shrinks: the check has something to check");
  });
}

test("every option that changes the output changes the key; onProgress does not", () => {
  const store = new MemoryCacheStore();
  optimize(HELLO, { cache: { store } });
  assert.equal(optimize(HELLO, { cache: { store }, onProgress: () => {} }).cache?.result, "hit");
  for (const other of [{ passes: ["cleanup"] }, { stripDwarf: true }, { keepExportIdentity: true }, { features: { multivalue: true } }, { outlineHot: true }, { validate: false }] as OptimizeOptions[]) {
    assert.equal(optimize(HELLO, { ...other, cache: { store } }).cache?.result, "miss", JSON.stringify(other));
  }
  const changed = HELLO.slice();
  changed[changed.length - 1]! ^= 1; // a byte of the name section
  assert.equal(optimize(changed, { cache: { store } }).cache?.result, "miss", "other input bytes");
  assert.equal(optimize(HELLO, { target: "gzip", measures: nodeMeasures, cache: { store, measuresId: "zlib 1" } }).cache?.result, "miss");
  assert.equal(optimize(HELLO, { target: "gzip", measures: nodeMeasures, cache: { store, measuresId: "zlib 2" } }).cache?.result, "miss", "other compressors");
  assert.equal(optimize(HELLO, { target: "gzip", measures: nodeMeasures, cache: { store, measuresId: "zlib 1" } }).cache?.result, "hit");
});

test("not cached, with a note: measures without an id, a pass that is not built in", () => {
  const store = new MemoryCacheStore();
  const r = optimize(HELLO, { target: "gzip", measures: nodeMeasures, cache: { store } });
  assert.equal(r.cache?.result, "off");
  assert.match(r.report.notes.join("\n"), /cache: not used: compressed-size measures were given without cache\.measuresId/);
  const mine = { name: "mine", description: "nothing", run: () => ({ changed: false }) };
  const p = optimize(HELLO, { passes: [mine], cache: { store } });
  assert.equal(p.cache?.result, "off");
  assert.match(p.report.notes.join("\n"), /pass "mine" is not built in/);
  assert.equal(store.entries.size, 0);
});

/** The one entry of `store`, rewritten by `edit`, then a run: it must recompute the same output and say why. */
function spoiled(edit: (raw: Uint8Array) => Uint8Array, why: RegExp): void {
  const store = new MemoryCacheStore();
  const first = optimize(FAMILIES, { cache: { store } });
  const [key, raw] = [...store.entries][0]!;
  store.entries.set(key, edit(raw));
  const again = optimize(FAMILIES, { cache: { store } });
  assert.equal(again.cache?.result, "miss");
  assert.deepEqual(again.binary, first.binary);
  assert.match(again.report.notes.join("\n"), why);
  assert.equal(optimize(FAMILIES, { cache: { store } }).cache?.result, "hit", "the entry was replaced by a good one");
}

test("a truncated entry is ignored with a note and replaced", () => {
  spoiled((raw) => raw.slice(0, raw.length - 100), /cache: the stored result for this input was ignored: truncated/);
  spoiled((raw) => raw.slice(0, 10), /ignored: not a wasm-compact cache entry/);
  spoiled(() => new Uint8Array(0), /ignored: not a wasm-compact cache entry/);
});

test("a corrupt entry is ignored with a note", () => {
  spoiled((raw) => {
    const r = raw.slice();
    r[r.length - 500]! ^= 0x40;
    return r;
  }, /ignored: corrupt \(its checksum does not match\)/);
  spoiled((raw) => {
    const r = raw.slice();
    r[23] = 0x78; // the header JSON's opening brace
    return r;
  }, /ignored: its header is corrupt/);
});

test("an entry from another version is ignored with a note", () => {
  spoiled((raw) => {
    const text = Buffer.from(raw).toString("latin1");
    const other = VERSION.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
    assert.equal(other.length, VERSION.length);
    return new Uint8Array(Buffer.from(text.replace(`"version":"${VERSION}"`, `"version":"${other}"`), "latin1"));
  }, /ignored: written by another version \(wasm-compact \d/);
});

test("an entry two writers interleaved (no atomic rename) is ignored with a note", () => {
  const a = encodeEntry("result", "k", new Uint8Array(5000).fill(1));
  const b = encodeEntry("result", "k", new Uint8Array(5000).fill(2));
  const mixed = new Uint8Array(a.length);
  mixed.set(a.subarray(0, 2000));
  mixed.set(b.subarray(2000), 2000);
  assert.match((decodeEntry(mixed, "result", "k") as { problem: string }).problem, /corrupt/);
  assert.deepEqual(decodeEntry(a, "result", "k"), { payload: new Uint8Array(5000).fill(1) });
  assert.match((decodeEntry(a, "result", "other") as { problem: string }).problem, /another key/);
});

test("a stored output that fails its final check is not returned", () => {
  for (const [spoil, why] of [
    [(b: Uint8Array) => b.subarray(0, b.length >> 1), /ignored: .*(unexpected end|out of bounds|truncated|past the end|end of)/i],
    // a valid module, but larger than the input: a custom section appended
    [(b: Uint8Array) => Uint8Array.from([...FAMILIES, 0, 6, 1, 0x78, 1, 2, 3, 4]), /ignored: its output \(\d+ bytes\) is larger than the input/],
  ] as [(b: Uint8Array) => Uint8Array, RegExp][]) {
    const store = new MemoryCacheStore();
    const first = optimize(FAMILIES, { cache: { store } });
    const [storeKey, raw] = [...store.entries][0]!;
    const key = storeKey.slice("result-".length);
    // a well-formed entry (checksum and all) whose output is spoiled
    const { json, bytes } = unpackParts((decodeEntry(raw, "result", key) as { payload: Uint8Array }).payload);
    store.entries.set(storeKey, encodeEntry("result", key, packParts(json, spoil(bytes))));
    const again = optimize(FAMILIES, { cache: { store } });
    assert.equal(again.cache?.result, "miss");
    assert.deepEqual(again.binary, first.binary);
    assert.match(again.report.notes.join("\n"), why);
  }
});

test("a store that throws costs a note, never the run", () => {
  const store = {
    get: (): Uint8Array => {
      throw new Error("disk on fire");
    },
    set: (): void => {
      throw new Error("disk full");
    },
  };
  const r = optimize(HELLO, { cache: { store } });
  const plain = optimize(HELLO);
  assert.deepEqual(r.binary, plain.binary);
  assert.match(r.report.notes.join("\n"), /cache: reading the stored result failed \(disk on fire\)/);
  assert.match(r.report.notes.join("\n"), /cache: storing the result failed \(disk full\)/);
});

test("directory store: atomic files, least recently used evicted past the bound, dead temp files removed", () => {
  const dir = join(tempDir(), "made");
  const store = new DirCacheStore(dir, 2500);
  store.set("a", new Uint8Array(1000).fill(1));
  store.set("b", new Uint8Array(1000).fill(2));
  const old = new Date(Date.now() - 10_000);
  utimesSync(join(dir, "a.wcc"), old, old);
  utimesSync(join(dir, "b.wcc"), new Date(Date.now() - 20_000), new Date(Date.now() - 20_000));
  assert.deepEqual(store.get("a"), new Uint8Array(1000).fill(1), "a read makes a the most recently used");
  const dead = join(dir, "c.wcc.tmp-1-abc");
  writeFileSync(dead, "half");
  utimesSync(dead, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
  store.set("c", new Uint8Array(1000).fill(3));
  assert.deepEqual(readdirSync(dir).sort(), ["a.wcc", "c.wcc"], "b, used longest ago, was evicted; no temp file is left");
  assert.equal(store.get("b"), undefined);
  assert.throws(() => store.get("../x"), /invalid cache key/);
});

/** The CLI in a child process; resolves with its exit code and stderr. */
function cliAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, WASM_COMPACT_DEBUG: "1" } });
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("error", reject);
    p.on("close", (status) => resolve({ status, stderr }));
  });
}

test("CLI: two processes writing the same cache directory at once, then a warm run", async () => {
  const dir = tempDir();
  const input = join(dir, "in.wasm");
  writeFileSync(input, FAMILIES);
  const cache = join(dir, "cache");
  const args = (out: string, more: string[] = []): string[] => [input, "-o", join(dir, out), "--target", "raw", ...more];
  const [a, b, plain] = await Promise.all([cliAsync(args("a.wasm", ["--cache", cache])), cliAsync(args("b.wasm", ["--cache", cache])), cliAsync(args("plain.wasm"))]);
  for (const r of [a, b, plain]) assert.equal(r.status, 0, r.stderr);
  const want = readFileSync(join(dir, "plain.wasm"));
  assert.deepEqual(readFileSync(join(dir, "a.wasm")), want);
  assert.deepEqual(readFileSync(join(dir, "b.wasm")), want);
  assert.deepEqual(readdirSync(cache).filter((n) => !n.endsWith(".wcc")), [], "no temp file left behind");
  const warm = await cliAsync(args("c.wasm", ["--cache", cache]));
  assert.equal(warm.status, 0, warm.stderr);
  assert.match(warm.stderr, /result from the cache/);
  assert.doesNotMatch(warm.stderr, /note: cache/);
  assert.deepEqual(readFileSync(join(dir, "c.wasm")), want);
  // a garbage entry in its place: a note, the same output, the entry replaced
  const entry = readdirSync(cache).find((n) => n.endsWith(".wcc"))!;
  writeFileSync(join(cache, entry), "garbage");
  const after = await cliAsync(args("d.wasm", ["--cache", cache]));
  assert.equal(after.status, 0, after.stderr);
  assert.match(after.stderr, /note: cache: the stored result for this input was ignored: not a wasm-compact cache entry/);
  assert.deepEqual(readFileSync(join(dir, "d.wasm")), want);
  assert.ok(statSync(join(cache, entry)).size > 1000, "replaced by a whole entry");
  // --cache naming a file is a usage error
  const bad = await cliAsync(args("e.wasm", ["--cache", input]));
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--cache needs a directory/);
});

test("the CLI's node:crypto SHA-256 and the core's agree, so entries are shared across hosts", () => {
  const parts = [new TextEncoder().encode("abc"), new Uint8Array(100_000).map((_, i) => i * 31), new Uint8Array(0)];
  assert.equal(nodeSha256(parts), sha256Parts(parts));
  const store = new MemoryCacheStore();
  optimize(HELLO, { cache: { store, sha256: nodeSha256 } });
  assert.equal(optimize(HELLO, { cache: { store } }).cache?.result, "hit");
});

test("a changed module: the stats say nothing was reused (only whole results are cached), and the output is a fresh run's", () => {
  const store = new MemoryCacheStore();
  const first = optimize(STRINGS, { outlineHot: true, cache: { store } });
  assert.deepEqual([first.cache?.hits, first.cache?.misses, first.cache?.writes], [{}, { result: 1 }, 1]);
  // one function's constant changed: find an i32.const 1 in the code section and make it 2
  const changed = STRINGS.slice();
  const at = changed.findIndex((b, i) => i > 1000 && b === 0x41 && changed[i + 1] === 1 && changed[i + 2] === 0x6a);
  assert.ok(at > 0);
  changed[at + 1] = 2;
  const second = optimize(changed, { outlineHot: true, cache: { store } });
  assert.deepEqual([second.cache?.result, second.cache?.hits, second.cache?.misses], ["miss", {}, { result: 1 }]);
  assert.deepEqual(second.binary, optimize(changed, { outlineHot: true }).binary);
  assert.equal(store.entries.size, 2, "one entry per input");
});
