// The two-core brotli measure gives the same numbers as the plain one,
// whichever thread ends up compressing.

import { test } from "node:test";
import assert from "node:assert/strict";
import { BrotliPool, parallelNodeMeasures } from "../src/cli/compress-pool.js";
import { brotliSize } from "../src/cli/compress.js";
import { optimize } from "../src/index.js";
import { gzipSize, nodeMeasures } from "../src/cli/compress.js";
import { existsSync, readFileSync } from "node:fs";
import { projectRoot } from "./spec/run-spec.js";
import { join } from "node:path";

function sample(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    b[i] = i % 7 === 0 ? x >>> 24 : (i * 31) & 0xff; // compressible, but not trivially
  }
  return b;
}

test("prefetched and plain measures agree, in any order of asking, also when the caller changed its bytes", async () => {
  const pool = new BrotliPool();
  try {
    const list = [0, 1, 2, 3, 4, 5].map((k) => sample(40_000 + 1000 * k, k + 1));
    const keep = list.map((b) => b.slice());
    pool.prefetch(list);
    pool.prefetch(list); // a second hint for the same content is a no-op
    for (const b of list) b.fill(0); // whoever compresses a job (a worker, or this thread taking it back) uses the hinted bytes
    for (const k of [3, 0, 5, 1, 4, 2]) assert.equal(pool.measure(keep[k]!), brotliSize(keep[k]!));
    const fresh = sample(30_000, 99);
    assert.equal(pool.measure(fresh), brotliSize(fresh), "not prefetched: measured on the spot");
    assert.equal(pool.counts.main + pool.counts.worker, 7, "each measure was made once");
  } finally {
    await pool.close();
  }
});

test("three workers share the jobs: every measure made once, the same numbers, the caller's bytes free to change", async () => {
  const pool = new BrotliPool(3);
  try {
    const list = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => sample(60_000 + 1000 * k, k + 11));
    const expected = list.map((b) => brotliSize(b));
    const keys = list.map((b) => b.slice());
    pool.prefetch(list);
    assert.equal(pool.started, 3);
    // the workers compress a copy: changing the caller's bytes now changes nothing they measure
    for (const b of list) b.fill(0);
    // the workers finish every job by themselves
    const deadline = Date.now() + 120_000;
    while (pool.unfinished > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pool.unfinished, 0);
    for (const k of [7, 0, 6, 1, 5, 2, 4, 3]) assert.equal(pool.measure(keys[k]!), expected[k]!, `module ${k}`);
    assert.deepEqual([pool.counts.main, pool.counts.worker], [0, 8], "each measure was made once, by a worker");
  } finally {
    await pool.close();
  }
  assert.throws(() => new BrotliPool(0), /at least one worker/);
});

test("a module prefetched early has its gzip size measured by the worker; others by the caller", async () => {
  const pool = new BrotliPool();
  try {
    const early = sample(50_000, 7);
    const soon = sample(45_000, 8);
    pool.prefetch([early], true);
    pool.prefetch([soon]);
    // the worker takes the jobs once it has started (the main thread does not
    // wait here, so it may not have): its gzip size arrives before brotli's
    const deadline = Date.now() + 30_000;
    while (pool.counts.gzipWorker === 0 && Date.now() < deadline) {
      assert.equal(pool.gzip(early), gzipSize(early));
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(pool.counts.gzipWorker, 1);
    assert.equal(pool.measure(early), brotliSize(early));
    assert.equal(pool.measure(soon), brotliSize(soon));
    assert.equal(pool.gzip(soon), gzipSize(soon));
    assert.equal(pool.gzip(early), gzipSize(early), "asked again: measured here");
    assert.equal(pool.counts.gzipWorker, 1, "only the early one came from the worker");
  } finally {
    await pool.close();
  }
});

/** Is there a process `pid` (running, or a zombie nobody reaped)? Linux's /proc; null where there is none. */
function exists(pid: number): boolean | null {
  if (!existsSync("/proc/self/stat")) return null;
  return existsSync(`/proc/${pid}/stat`);
}

test("an early measure runs in a child process, which close() kills and the worker reaps (a thread inside brotli would hold the exit)", async () => {
  const pool = new BrotliPool();
  const big = sample(4 << 20, 5); // seconds at quality 11
  pool.prefetch([big], true);
  const deadline = Date.now() + 30_000;
  while (pool.children.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const [pid] = pool.children;
  assert.ok(pid !== undefined, "a child process measures the early module");
  assert.equal(exists(pid) ?? true, true);
  await pool.close();
  assert.deepEqual(pool.children, []);
  // the worker ended after its child was gone: nothing left behind, not even a zombie
  assert.notEqual(exists(pid), true, "killed by close() and reaped");
});

test("the CLI's parallel measures give the same optimized module as the plain ones", async () => {
  const input = new Uint8Array(readFileSync(join(projectRoot(), "fixtures/wasm/graph-Oz-wasmopt.wasm")));
  const { measures, pool } = parallelNodeMeasures();
  try {
    const a = optimize(input, { target: "balanced", measures }).binary;
    const b = optimize(input, { target: "balanced", measures: nodeMeasures }).binary;
    assert.deepEqual(a, b);
  } finally {
    await pool.close();
  }
});
