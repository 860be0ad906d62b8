// Passes judged on the estimates write their trials as estimate views
// (extract/trial.ts writeTrial). They must decide exactly as they did when
// every trial was a whole module whose view the estimates measured: the same
// module and the same number of judgements, on fixtures with data and custom
// sections the views leave out, with real compressors.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import type { Module } from "../src/ir/module.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { estimateView, SizeJudge } from "../src/size-target.js";
import { outline } from "../src/passes/outline/index.js";
import { foldBlocks } from "../src/passes/fold-blocks/index.js";
import { mergeFunctions } from "../src/passes/merge-functions.js";
import { projectRoot } from "./spec/run-spec.js";

const FIXTURES = ["graph-O2", "dispatch-O2"];

function load(name: string): Module {
  const m = readModule(new Uint8Array(readFileSync(join(projectRoot(), `fixtures/wasm/${name}.wasm`))));
  decodeAllBodies(m);
  return m;
}

/** The estimator (trials written as views), and a judge with the same measures on the views of whole modules. */
function judges(): { views: SizeJudge; wholes: SizeJudge } {
  const views = new SizeJudge("balanced", nodeMeasures).estimator()!;
  const on = (f: (b: Uint8Array) => number) => (b: Uint8Array) => f(estimateView(b));
  const wholes = new SizeJudge("balanced", { gzip: on(nodeMeasures.gzip!), brotli: on(nodeMeasures.brotliEstimate!), brotliFast: on(nodeMeasures.brotliFast!) });
  assert.ok(views.judgesViews && !wholes.judgesViews);
  return { views, wholes };
}

test("judged passes decide the same on estimate views as on whole trials (outline, fold-blocks, merge-functions)", () => {
  for (const name of FIXTURES) {
    const m0 = load(name);
    assert.ok(m0.data.length > 0, `${name} has data the views leave out`);
    const runs: Record<string, { bytes: Uint8Array; judgements: number }[]> = { outline: [], "fold-blocks": [], "merge-functions": [] };
    for (const which of ["views", "wholes"] as const) {
      const judge = judges()[which];
      let m = load(name);
      const o = outline(m, { judge });
      runs.outline!.push({ bytes: writeModule(m), judgements: o.judgements });
      m = load(name);
      const f = foldBlocks(m, { progress: () => {}, note: () => {}, options: { judge } });
      runs["fold-blocks"]!.push({ bytes: writeModule(m), judgements: f.judgements });
      m = load(name);
      let judged = 0;
      const counting = new Proxy(judge, { get: (t, k) => (k === "better" ? (a: Uint8Array, b: Uint8Array) => (judged++, t.better(a, b)) : Reflect.get(t, k, t)) });
      mergeFunctions(m, { judge: counting });
      runs["merge-functions"]!.push({ bytes: writeModule(m), judgements: judged });
    }
    let judgedSomewhere = 0;
    for (const [pass, [a, b]] of Object.entries(runs)) {
      assert.deepEqual(a!.bytes, b!.bytes, `${name}: ${pass} gives the same module`);
      assert.equal(a!.judgements, b!.judgements, `${name}: ${pass} makes the same judgements`);
      judgedSomewhere += a!.judgements;
    }
    assert.ok(judgedSomewhere > 0, `${name}: some pass judged`);
  }
});
