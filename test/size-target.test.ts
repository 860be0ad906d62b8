// The size judge: what each target counts, and how ties are broken.

import { test } from "node:test";
import assert from "node:assert/strict";
import { SizeJudge } from "../src/size-target.js";

const bytes = (n: number, fill = 0): Uint8Array => new Uint8Array(n).fill(fill);

test("raw counts only the .wasm bytes", () => {
  const j = new SizeJudge("raw");
  assert.equal(j.better(bytes(10), bytes(9)), true);
  assert.equal(j.better(bytes(10), bytes(10)), false);
  assert.equal(j.notWorse(bytes(10), bytes(10)), true);
  assert.equal(j.notWorse(bytes(10), bytes(11)), false);
});

test("gzip and brotli targets: the compressed size decides, raw bytes break a tie", () => {
  // a stand-in compressor: every module compresses to 100 bytes except those filled with 1s (90)
  const measure = (b: Uint8Array): number => (b[0] === 1 ? 90 : 100);
  for (const target of ["gzip", "brotli"] as const) {
    const j = new SizeJudge(target, { [target]: measure });
    assert.equal(j.better(bytes(10), bytes(12, 1)), true, `${target}: smaller transfer size wins even with more raw bytes`);
    assert.equal(j.better(bytes(10), bytes(9)), true, `${target}: same transfer size, fewer raw bytes`);
    assert.equal(j.better(bytes(10), bytes(10)), false, `${target}: nothing smaller`);
    assert.equal(j.better(bytes(10), bytes(11)), false, `${target}: same transfer size, more raw bytes`);
    assert.equal(j.better(bytes(10, 1), bytes(5)), false, `${target}: larger transfer size loses whatever the raw bytes`);
  }
});

test("balanced: raw bytes must shrink and neither compressed size may grow", () => {
  const gzip = (b: Uint8Array): number => (b[0] === 2 ? 110 : 100);
  const brotli = (b: Uint8Array): number => (b[0] === 3 ? 110 : 100);
  const j = new SizeJudge("balanced", { gzip, brotli });
  assert.equal(j.better(bytes(10), bytes(9)), true);
  assert.equal(j.better(bytes(10), bytes(10)), false);
  assert.equal(j.better(bytes(10), bytes(9, 2)), false, "gzip grew");
  assert.equal(j.better(bytes(10), bytes(9, 3)), false, "brotli grew");
  assert.throws(() => new SizeJudge("balanced", { gzip }), /needs a brotli measure/);
});

test("a fast brotli estimate only refuses: what it finds worse is not measured further", () => {
  let real = 0;
  const j = new SizeJudge("brotli", { brotli: (b) => (real++, b.length), brotliFast: (b) => (b[0] === 4 ? 200 : b.length) });
  assert.equal(j.better(bytes(10), bytes(9, 4)), false);
  assert.equal(real, 0, "refused on the estimate alone");
  assert.equal(j.better(bytes(10), bytes(9)), true);
  assert.equal(real, 2);
});

test("the estimator: balanced and brotli, on the brotli estimate, and the real measures are left alone", () => {
  let real = 0;
  const measures = { gzip: (b: Uint8Array) => b.length, brotli: (b: Uint8Array) => (real++, b.length), brotliEstimate: (b: Uint8Array) => (b[0] === 5 ? 200 : b.length) };
  const j = new SizeJudge("balanced", measures);
  const est = j.estimator()!;
  assert.equal(est.better(bytes(10), bytes(9)), true);
  assert.equal(est.better(bytes(10), bytes(9, 5)), false, "the estimate says brotli grew");
  assert.equal(real, 0, "no real brotli run");
  assert.equal(j.holds(bytes(10), bytes(9, 5)), true, "the real measure says it did not");
  // the brotli target has one too (the pipeline uses it above 4 MiB only, where a real measure per decision would take hours)
  real = 0;
  const bEst = new SizeJudge("brotli", measures).estimator()!;
  assert.equal(bEst.better(bytes(10), bytes(9, 5)), false, "the brotli target's estimator judges on the estimate");
  assert.equal(real, 0, "no real brotli run");
  assert.equal(new SizeJudge("gzip", measures).estimator(), null, "gzip is cheap: no estimator");
  assert.equal(new SizeJudge("balanced", { gzip: measures.gzip, brotli: measures.brotli }).estimator(), null, "no estimate given");
});

test("forOrders: an estimator chooses orders on the fast screen; any other judge is itself", () => {
  let estimates = 0;
  // byte 7 first: the screen says brotli grew, the estimate says it shrank
  const measures = {
    gzip: (b: Uint8Array) => b.length,
    brotli: (b: Uint8Array) => b.length,
    brotliEstimate: (b: Uint8Array) => (estimates++, b[0] === 7 ? 1 : b.length),
    brotliFast: (b: Uint8Array) => (b[0] === 7 ? 200 : b.length),
  };
  const j = new SizeJudge("balanced", measures);
  assert.equal(j.forOrders(), j, "the real judge decides orders itself");
  const est = j.estimator()!;
  const orders = est.forOrders();
  assert.notEqual(orders, est);
  assert.equal(orders.target, "balanced");
  assert.equal(orders.notWorse(bytes(10), bytes(10, 7)), false, "the screen decides");
  assert.equal(orders.notWorse(bytes(10), bytes(10)), true);
  assert.equal(estimates, 0, "no estimate run");
  assert.equal(est.notWorse(bytes(10), bytes(10, 7)), false, "the estimator screens first too");
  const bOrders = new SizeJudge("brotli", measures).estimator()!.forOrders();
  assert.equal(bOrders.target, "brotli");
  assert.equal(bOrders.notWorse(bytes(10), bytes(10, 7)), false);
  assert.equal(estimates, 0);
  // without a screen there is no cheaper judge
  const noFast = new SizeJudge("balanced", { gzip: measures.gzip, brotli: measures.brotli, brotliEstimate: measures.brotliEstimate }).estimator()!;
  assert.equal(noFast.forOrders(), noFast);
});

test("holds: a verification is not overruled by the fast brotli screen", () => {
  const j = new SizeJudge("balanced", { gzip: (b) => b.length, brotli: (b) => b.length, brotliFast: (b) => (b[0] === 6 ? 200 : b.length) });
  assert.equal(j.notWorse(bytes(10), bytes(9, 6)), false, "the screen refuses in a search");
  assert.equal(j.holds(bytes(10), bytes(9, 6)), true, "the real measures decide a verification");
});
