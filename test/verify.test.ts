// verify: the estimate-judged result checked on the real measures, falling
// back to earlier checkpoints, two measured at a time where the measures
// work in the background.

import { test } from "node:test";
import assert from "node:assert/strict";
import { SizeJudge } from "../src/size-target.js";
import { verify, type Checkpoint } from "../src/pipeline/verify.js";

const cp = (id: number): Checkpoint => ({ bytes: Uint8Array.of(id), passes: id, reports: id, entries: 0, origins: [] });

test("when the last checkpoint grows, the earlier ones are tried latest first, each next one started in the background while one is measured", () => {
  const input = Uint8Array.of(100);
  // brotli sizes by first byte: the input 50; checkpoints 1 and 2 grow, 0 holds; 4 is the baseline
  const size = new Map([[100, 50], [0, 49], [1, 60], [2, 70], [3, 80], [4, 50]]);
  const log: string[] = [];
  const judge = new SizeJudge("brotli", {
    brotli: (b) => (log.push(`measure ${b[0]}`), size.get(b[0]!)!),
    prefetch: (list, early) => void log.push(`prefetch ${list.map((b) => b[0]).join(",")}${early ? " early" : ""}`),
  });
  const checkpoints = [cp(0), cp(1), cp(2), cp(3)];
  const r = verify(judge, input, cp(4), checkpoints, (c) => c.bytes, () => true);
  assert.equal(r?.passes, 0);
  assert.match(r!.why, /brotli 50 -> 80/);
  // the last (3) and the input first; then 2 here while 1 and 0 start elsewhere
  const firstMeasures = log.filter((l) => l.startsWith("measure")).slice(0, 2).sort();
  assert.deepEqual(firstMeasures, ["measure 100", "measure 3"]);
  // then each earlier one here while the next starts elsewhere
  const after = log.slice(log.indexOf("measure 3") + 1).filter((l) => l.startsWith("measure") || l.endsWith("early"));
  assert.deepEqual(after, ["prefetch 1 early", "measure 2", "prefetch 0 early", "measure 1", "measure 0"]);
});

test("checkpoints not worth a quality-11 run are passed over unmeasured and not started", () => {
  const input = Uint8Array.of(100);
  const size = new Map([[100, 50], [0, 49], [1, 40], [2, 70], [3, 80]]);
  const log: string[] = [];
  const judge = new SizeJudge("brotli", {
    brotli: (b) => (log.push(`measure ${b[0]}`), size.get(b[0]!)!),
    prefetch: (list, early) => void log.push(`prefetch ${list.map((b) => b[0]).join(",")}${early ? " early" : ""}`),
  });
  // checkpoint 1 would hold, but saved too little to be worth measuring
  const r = verify(judge, input, cp(4), [cp(0), cp(1), cp(2), cp(3)], (c) => c.bytes, (c) => c.passes !== 1);
  assert.equal(r?.passes, 0);
  assert.ok(!log.includes("measure 1"));
  assert.ok(log.includes("prefetch 0 early"), log.join("; "));
});

test("a last checkpoint that holds is the result: nothing earlier is measured or started", () => {
  const log: string[] = [];
  const judge = new SizeJudge("brotli", {
    brotli: (b) => (log.push(`measure ${b[0]}`), b[0] === 100 ? 50 : 40),
    prefetch: (list, early) => void log.push(`prefetch ${list.map((b) => b[0]).join(",")}${early ? " early" : ""}`),
  });
  assert.equal(verify(judge, Uint8Array.of(100), cp(4), [cp(0), cp(1), cp(2)], (c) => c.bytes, () => true), null);
  assert.deepEqual(log.filter((l) => l.endsWith("early")), []);
  assert.ok(!log.includes("measure 0") && !log.includes("measure 1"));
});

test("without background measures, an earlier checkpoint's shipped form is made only when its turn comes", () => {
  const made: number[] = [];
  const judge = new SizeJudge("brotli", { brotli: (b) => (b[0] === 100 ? 50 : b[0] === 1 ? 40 : 70) });
  const r = verify(judge, Uint8Array.of(100), cp(4), [cp(0), cp(1), cp(2), cp(3)], (c) => (made.push(c.passes), c.bytes), () => true);
  assert.equal(r?.passes, 1);
  assert.deepEqual(made, [3, 2, 1], "checkpoint 0, never measured, is never shipped");
});
