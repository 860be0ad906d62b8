// The layout pass's fast writes (OrderedWrites) against the slow way it
// replaced: read the base, redirect the functions, write. Every candidate
// order and some random ones, on modules with a name section (function,
// local and label names), more than 128 functions (indices and body sizes
// crossing LEB128 widths) and a hand-made one whose LEB128s are padded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { ByteWriter } from "../src/binary/bytes.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import type { Module } from "../src/ir/module.js";
import { redirectFunctions } from "../src/ir/renumber.js";
import { chooseLayout } from "../src/passes/layout/index.js";
import { candidateOrder, SAME_WIDTHS, type OrderName } from "../src/passes/layout/orders.js";
import { OrderedWrites } from "../src/passes/layout/ordered-writes.js";
import { signatures } from "../src/passes/layout/similarity.js";
import { referenceCounts } from "../src/passes/layout/use-counts.js";
import { contentKey, estimateView, SizeJudge, wholeLength } from "../src/size-target.js";
import { projectRoot } from "./spec/run-spec.js";
import { nodeMeasures } from "../src/cli/compress.js";

const NAMES: OrderName[] = ["swap", "tiered", "hybrid", "by-count", "similar"];

function decoded(bytes: Uint8Array): Module {
  const m = readModule(bytes);
  decodeAllBodies(m);
  return m;
}

/** What the layout pass did before OrderedWrites. */
function slowWrite(base: Uint8Array, order: readonly number[]): Uint8Array {
  const copy = readModule(base);
  redirectFunctions(copy, Int32Array.from({ length: copy.numImportedFuncs + copy.functions.length }, (_, i) => i), order);
  return writeModule(copy);
}

function orders(m: Module): Map<string, number[]> {
  const nImp = m.numImportedFuncs;
  const n = m.functions.length;
  const counts = referenceCounts(m);
  const sig = signatures(m);
  const out = new Map<string, number[]>(NAMES.map((name) => [name, candidateOrder(name, counts, nImp, n, () => sig)]));
  let seed = 12345;
  const rand = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k);
  for (let r = 0; r < 4; r++) {
    const order = Array.from({ length: n }, (_, i) => nImp + i);
    for (let i = n - 1; i > 0; i--) {
      const j = rand(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    out.set(`random ${r}`, order);
  }
  return out;
}

/** Every order: bytes() is the slow write, rawLength() its length; chooseLayout under raw picks the slow way's choice. */
function agrees(input: Uint8Array, label: string): OrderedWrites {
  const m = decoded(input);
  const base = writeModule(m);
  const writes = new OrderedWrites(m, base);
  const views = new OrderedWrites(m, base, true);
  let best: string | null = null;
  let bestLength = base.length;
  for (const [name, order] of orders(m)) {
    const slow = slowWrite(base, order);
    assert.deepEqual(writes.bytes(order), slow, `${label}: ${name} bytes`);
    assert.equal(writes.rawLength(order), slow.length, `${label}: ${name} raw length`);
    const view = views.bytes(order);
    assert.deepEqual(view, estimateView(slow), `${label}: ${name} written as its estimate view`);
    assert.equal(wholeLength(view), slow.length, `${label}: ${name} whole length`);
    if (NAMES.includes(name as OrderName) && slow.length < bestLength && order.some((v, k) => v !== m.numImportedFuncs + k)) {
      best = name;
      bestLength = slow.length;
    }
  }
  assert.equal(chooseLayout(decoded(input), new SizeJudge("raw")).name, best ?? "original", `${label}: the raw choice`);
  return writes;
}

// Calls to $hot (defined last, so with a 2-byte index) fill some bodies to
// just under 128 bytes: a shorter index takes their size prefix below a
// LEB128 width.
const FUNCS = 300;
const WAT = `(module
  (import "env" "log" (func $log (param i32)))
  (table $tab ${FUNCS} funcref)
  (elem (table $tab) (i32.const 0) func ${Array.from({ length: 150 }, (_, k) => `$f${k}`).join(" ")})
  (global $g funcref (ref.func $f7))
  ${Array.from(
    { length: FUNCS },
    (_, k) => `(func $f${k} (param $p i32) (result i32) (local $acc i32)
    (block $out${k} local.get $p br_if $out${k} ${k % 3 === 0 ? "local.get $p call $hot drop ".repeat(20 + (k % 7)) : ""}) local.get $p i32.const ${k} i32.add)`,
  ).join("\n  ")}
  (func $hot (param i32) (result i32) local.get 0 call $f${FUNCS - 2} i32.const 1 i32.add)
  (func $start (drop (call $hot (i32.const 5))))
  (start $start)
  (export "hot" (func $hot))
  (export "f200" (func $f200)))`;

test("layout's fast writes match read, redirect and write on a module with names and 300 functions", async () => {
  const writes = agrees(await parse(WAT), "names");
  assert.ok(writes.widthsDecide(), "written by our writer: the widths decide the raw length");
});

test("layout's fast writes match on the fixtures", () => {
  for (const name of ["graph-Oz-wasmopt", "interp-Oz-wasmopt", "json-Oz-wasmopt", "dispatch-O2"]) {
    agrees(new Uint8Array(readFileSync(join(projectRoot(), `fixtures/wasm/${name}.wasm`))), name);
  }
});

test("orders of equal widths tie under raw exactly when widthsDecide says so", async () => {
  const m = decoded(await parse(WAT));
  const writes = new OrderedWrites(m, writeModule(m));
  const os = orders(m);
  for (const [name, twin] of Object.entries(SAME_WIDTHS)) {
    const twinLength = twin === "original" ? writes.base.length : writes.rawLength(os.get(twin)!);
    assert.equal(writes.rawLength(os.get(name)!), twinLength, `${name} ties with ${twin}`);
  }
});

/** Unsigned LEB128 of v padded to 5 bytes (valid, not minimal). */
const padded = (v: number) => [0x80 | (v & 0x7f), 0x80 | ((v >>> 7) & 0x7f), 0x80 | ((v >>> 14) & 0x7f), 0x80 | ((v >>> 21) & 0x7f), (v >>> 28) & 0x0f];

interface HandMade {
  /** Write the call index in every tenth body as a padded LEB128. */
  paddedCalls?: boolean;
  /** Write the name subsection's size as a padded LEB128. */
  paddedNames?: boolean;
  /** Pad the first body with nops until the code section payload is this long. */
  codeBytes?: number;
}

/** 200 functions of type [] -> []; the last, exported, is called from every fifth one; function names. */
function handMade({ paddedCalls = false, paddedNames = false, codeBytes = 0 }: HandMade): Uint8Array {
  const n = 200;
  const code = (nops: number) => {
    const w = new ByteWriter();
    w.u32(n);
    for (let i = 0; i < n; i++) {
      const body = new ByteWriter();
      body.u8(0); // no locals
      if (i === 0) for (let k = 0; k < nops; k++) body.u8(0x01);
      if (i % 5 === 0) {
        body.u8(0x10);
        if (paddedCalls && i % 10 === 0) body.bytes(new Uint8Array(padded(n - 1)));
        else body.u32(n - 1);
      }
      body.u8(0x0b);
      w.sized(body);
    }
    return w;
  };
  let nops = 0;
  while (code(nops).len < codeBytes) nops += Math.max(1, codeBytes - code(nops).len - 2);
  const out = new ByteWriter();
  out.bytes(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const section = (id: number, fill: (w: ByteWriter) => void) => {
    const w = new ByteWriter();
    fill(w);
    out.u8(id);
    out.sized(w);
  };
  section(1, (w) => w.bytes(new Uint8Array([1, 0x60, 0, 0])));
  section(3, (w) => {
    w.u32(n);
    for (let i = 0; i < n; i++) w.u32(0);
  });
  section(7, (w) => {
    w.u32(1);
    w.name("last");
    w.u8(0);
    w.u32(n - 1);
  });
  section(10, (w) => w.bytes(code(nops).finish()));
  section(0, (w) => {
    w.name("name");
    const sub = new ByteWriter();
    sub.u32(n);
    for (let i = 0; i < n; i++) {
      sub.u32(i);
      sub.name(`f${i}`);
    }
    w.u8(1);
    if (paddedNames) w.bytes(new Uint8Array(padded(sub.len)));
    else w.u32(sub.len);
    w.bytes(sub.finish());
  });
  return out.finish();
}

test("layout's fast writes match on padded LEB128s, which widthsDecide notices", () => {
  for (const [calls, names] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    const label = `padded calls ${calls}, padded names ${names}`;
    const writes = agrees(handMade({ paddedCalls: calls, paddedNames: names }), label);
    assert.equal(writes.widthsDecide(), !calls && !names, label);
  }
});

test("layout's fast raw length follows the code section's size across a LEB128 width", () => {
  // 40 calls a byte shorter each take the payload from 16390 to 16350 bytes
  const input = handMade({ codeBytes: 16390 });
  const m = decoded(input);
  const writes = agrees(input, "code section of 16390 bytes");
  const swap = candidateOrder("swap", referenceCounts(m), 0, m.functions.length, () => new Uint32Array(0));
  assert.equal(input.length - writes.rawLength(swap), 42, "a byte each: 40 calls, the export, the name and the section size");
});

test("under gzip, layout takes a later candidate that beats the chosen one on gzip, though it has more raw bytes", async () => {
  const input = await parse(WAT);
  const m = decoded(input);
  const base = writeModule(m);
  const all = orders(m);
  const bytesOf = (name: OrderName): Uint8Array => slowWrite(base, all.get(name)!);
  // stand-in gzip sizes: "tiered" beats the earlier ones, "similar" (every
  // index keeps its width, so more raw bytes than tiered) beats it
  const gzip = new Map<string, number>([[contentKey(base), 1000]]);
  const want: Record<OrderName, number> = { swap: 900, tiered: 800, hybrid: 850, "by-count": 820, similar: 700 };
  for (const name of NAMES) gzip.set(contentKey(bytesOf(name)), want[name]);
  assert.ok(bytesOf("similar").length > bytesOf("tiered").length, "similar is longer than tiered");
  assert.ok(bytesOf("similar").length <= base.length, "and no longer than the base");
  const judge = new SizeJudge("gzip", { gzip: (b) => gzip.get(contentKey(b)) ?? 5000 });
  assert.equal(chooseLayout(decoded(input), judge).name, "similar");
  // under balanced raw bytes count: tiered stays
  const balanced = new SizeJudge("balanced", { gzip: (b) => gzip.get(contentKey(b)) ?? 5000, brotli: (b) => gzip.get(contentKey(b)) ?? 5000 });
  assert.equal(chooseLayout(decoded(input), balanced).name, "tiered");
});

test("under an estimator, layout writes its candidates as estimate views and picks what whole writes measured on their views pick", () => {
  // real compressors on the fixtures (they have data sections and custom sections the views leave out)
  for (const name of ["graph-Oz-wasmopt", "dispatch-O2"]) {
    const input = new Uint8Array(readFileSync(join(projectRoot(), `fixtures/wasm/${name}.wasm`)));
    const estimator = new SizeJudge("balanced", nodeMeasures).estimator()!;
    const orders = estimator.forOrders();
    assert.ok(orders.judgesViews);
    const seen: Uint8Array[] = [];
    const recording = (f: (b: Uint8Array) => number) => (b: Uint8Array) => (seen.push(b), f(b));
    // the same measures on the views of whole writes, by a judge that is given whole modules (layout before views)
    const wholeJudge = new SizeJudge("balanced", { gzip: recording((b) => nodeMeasures.gzip!(estimateView(b))), brotli: (b) => nodeMeasures.brotliFast!(estimateView(b)) });
    assert.ok(!wholeJudge.judgesViews);
    const byViews = chooseLayout(decoded(input), orders);
    const byWholes = chooseLayout(decoded(input), wholeJudge);
    assert.equal(byViews.name, byWholes.name, name);
    assert.deepEqual(byViews.order, byWholes.order, name);
    assert.ok(seen.length > 0 && seen.every((b) => estimateView(b).length < b.length), `${name}: the whole judge was given whole modules`);
  }
});
