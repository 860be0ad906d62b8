// compressorMeasures: which quality and window each measure asks the
// supplied brotli for (the CLI and the playground must ask the same), the
// fast screen shared with the estimate above LARGE, and gzip passed through.

import { test } from "node:test";
import assert from "node:assert/strict";
import { compressorMeasures, LARGE } from "../src/compressor-measures.js";
import { nodeMeasures, brotliAt, gzipSize } from "../src/cli/compress.js";

function recording() {
  const calls: string[] = [];
  const measures = compressorMeasures({
    gzip9: (b) => (calls.push(`gzip ${b.length}`), 1),
    brotli: (b, q, w) => (calls.push(`brotli q${q} w${w} ${b.length}`), q),
  });
  return { calls, measures };
}

test("compressorMeasures: q11 real, q7 estimate, q5 fast screen, window 22; gzip as given", () => {
  const { calls, measures } = recording();
  const b = new Uint8Array(100);
  assert.equal(measures.brotli!(b), 11);
  assert.equal(measures.brotliEstimate!(b), 7);
  assert.equal(measures.brotliFast!(b), 5);
  assert.equal(measures.brotliFast!(b), 5, "the fast size is remembered per array");
  assert.equal(measures.gzip!(b), 1);
  assert.deepEqual(calls, ["brotli q11 w22 100", "brotli q7 w22 100", "brotli q5 w22 100", "gzip 100"]);
});

test("compressorMeasures: above LARGE the estimate is the fast screen, run once for both", () => {
  const { calls, measures } = recording();
  const big = new Uint8Array(LARGE + 1);
  assert.equal(measures.brotliEstimate!(big), 5);
  assert.equal(measures.brotliFast!(big), 5);
  assert.deepEqual(calls, [`brotli q5 w22 ${LARGE + 1}`]);
});

test("nodeMeasures are Node's zlib at those settings", () => {
  const b = new TextEncoder().encode("wasm-compact ".repeat(200));
  assert.equal(nodeMeasures.brotli!(b), brotliAt(b, 11, 22));
  assert.equal(nodeMeasures.brotliEstimate!(b), brotliAt(b, 7, 22));
  assert.equal(nodeMeasures.brotliFast!(b), brotliAt(b, 5, 22));
  assert.equal(nodeMeasures.gzip!(b), gzipSize(b));
});
