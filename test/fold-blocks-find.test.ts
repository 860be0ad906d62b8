// fold-blocks' finding and choosing against plain versions of the same rules
// (a string key per region, every fold evaluated from scratch, byte offsets
// of whole functions, instruction-by-instruction copies): the bucket table,
// the canonical words, the plan reuse, the region-size cache and the bulk
// copy must give the same groups, folds and bodies, also in a second round
// that reuses the first round's RegionCache.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readModule, decodeAllBodies } from "../src/binary/reader.js";
import { ByteWriter, u32Size } from "../src/binary/bytes.js";
import { encodeInstructions } from "../src/binary/code-writer.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../src/ir/body.js";
import { findFuncType, funcTypeCost } from "../src/ir/func-types.js";
import { LOCAL_WORDS } from "../src/ir/imm-layout.js";
import type { Module } from "../src/ir/module.js";
import { funcEntrySize, functionCostOf } from "../src/analysis/sizes.js";
import type { ValType } from "../src/ir/types.js";
import { applyFolds, type Fold } from "../src/passes/fold-blocks/apply.js";
import { groupLocals } from "../src/extract/new-function.js";
import { copyRange } from "../src/extract/copy.js";
import { callSiteBytes } from "../src/extract/call-site.js";
import { rangeHash } from "../src/passes/fold-blocks/canon.js";
import { chooseFolds, findGroups, regionBytes, RegionCache, type FindOptions } from "../src/passes/fold-blocks/find.js";
import { callSiteOf, foldedBody, readsOf, shapeOf, type FuncInfo, type Group, type Site } from "../src/passes/fold-blocks/plan.js";
import type { Region } from "../src/passes/fold-blocks/regions.js";
import { RegionBuckets } from "../src/passes/fold-blocks/buckets.js";

const LOCAL_GET = idOf("local.get");
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURES = ["graph", "json", "interp", "dispatch"];

function load(name: string): Module {
  const m = readModule(new Uint8Array(readFileSync(join(ROOT, `fixtures/wasm/${name}-Oz-wasmopt.wasm`))));
  decodeAllBodies(m);
  return m;
}

/** The exact key as the pass first wrote it: ops and immediates, locals numbered by first use, then their types. */
function refKey(info: FuncInfo, r: Region): { key: string; locals: number[] } {
  const { ops, imm, immStart } = info.body;
  const parts: (number | string)[] = [];
  const canon = new Map<number, number>();
  const locals: number[] = [];
  for (let i = r.start; i < r.end; i++) {
    parts.push(ops[i]!);
    const loc = LOCAL_WORDS[ops[i]!];
    for (let p = immStart[i]!; p < immStart[i + 1]!; p++) {
      if (!loc || !loc.includes(p - immStart[i]!)) parts.push(imm[p]!);
      else {
        if (!canon.has(imm[p]!)) canon.set(imm[p]!, canon.size), locals.push(imm[p]!);
        parts.push(`l${canon.get(imm[p]!)}`);
      }
    }
  }
  parts.push("|", ...locals.map((l) => info.localTypes[l]!));
  return { key: parts.join(","), locals };
}

/** Groups by one string key per region, then by the exact key, both in order of first appearance. */
function refGroups(m: Module, o: FindOptions): string[][] {
  const cache = new RegionCache();
  const buckets = new Map<string, { info: FuncInfo; region: Region }[]>();
  for (let pos = 0; pos < m.functions.length; pos++) {
    const { info, regions, hashes } = cache.of(m, pos, o);
    if (!info) continue;
    for (const r of regions) {
      const key = `${r.kind}|${r.blockType}|${r.returns ? info.results.join(",") : ""}|${r.end - r.start}|${rangeHash(hashes!, r.start, r.end)}`;
      if (!buckets.has(key)) buckets.set(key, []);
      buckets.get(key)!.push({ info, region: r });
    }
  }
  const out: string[][] = [];
  for (const list of buckets.values()) {
    if (list.length < 2) continue;
    const exact = new Map<string, string[]>();
    for (const { info, region } of list) {
      const { key, locals } = refKey(info, region);
      if (!exact.has(key)) exact.set(key, []);
      exact.get(key)!.push(`${info.pos}:${region.start}-${region.end}:${locals.join(",")}`);
    }
    for (const g of exact.values()) if (g.length > 1) out.push(g);
  }
  return out;
}

const describeGroup = (g: Group) => g.sites.map((s) => `${s.info.pos}:${s.region.start}-${s.region.end}:${s.locals.join(",")}`);

/** Byte offset of every instruction of a body, one instruction at a time. */
function offsets(body: Body): Uint32Array {
  const w = new ByteWriter(1024);
  const off = new Uint32Array(body.count + 1);
  for (let i = 0; i < body.count; i++) {
    encodeInstructions(w, body, i, i + 1);
    off[i + 1] = w.len;
  }
  return off;
}

const sigKey = (params: readonly ValType[], results: readonly ValType[]) => `${params.join(",")}>${results.join(",")}`;

/** Greedy choice with every candidate evaluated from scratch (shape, body, type and sizes). */
function refChoose(m: Module, groups: Group[], o: FindOptions): string[] {
  const base = m.numImportedFuncs + m.functions.length;
  const newTypes = new Set<string>();
  const evaluate = (g: Group, sites: Site[], callee: number): number | null => {
    const shape = shapeOf(m, g, sites, o);
    if (!shape) return null;
    const body = foldedBody(m, sites[0]!, shape);
    const existing = findFuncType(m, shape.params, shape.results);
    const typeIndex = existing >= 0 ? existing : m.types.length + newTypes.size;
    let cost = functionCostOf(typeIndex, funcEntrySize(groupLocals(shape.internal), body));
    if (existing < 0 && !newTypes.has(sigKey(shape.params, shape.results))) cost += funcTypeCost(shape.params, shape.results);
    if (m.names) cost += u32Size(callee) + 1 + "folded_block$".length + 2;
    let removed = 0;
    for (const s of sites) {
      const off = offsets(s.info.body);
      removed += off[s.region.end]! - off[s.region.start]!;
      cost += callSiteBytes(callSiteOf(s, shape, callee), o.tailCall);
    }
    if (removed / sites.length < o.minRegionBytes) return null;
    return removed - cost >= o.minBenefit ? removed - cost : null;
  };
  const first = groups
    .map((g) => ({ g, benefit: evaluate(g, g.sites, base + groups.length) }))
    .filter((x) => x.benefit !== null)
    .sort((a, b) => b.benefit! - a.benefit!);
  const claimed = new Set<string>();
  const out: string[] = [];
  for (const { g } of first) {
    const sites = g.sites.filter((s) => {
      for (let i = s.region.start; i < s.region.end; i++) if (claimed.has(`${s.info.pos}:${i}`)) return false;
      return true;
    });
    if (sites.length < 2) continue;
    const benefit = evaluate(g, sites, base + out.length);
    if (benefit === null) continue;
    const shape = shapeOf(m, g, sites, o)!;
    newTypes.add(sigKey(shape.params, shape.results));
    out.push(`${benefit}:${sites.map((s) => `${s.info.pos}:${s.region.start}`).join(" ")}`);
    for (const s of sites) for (let i = s.region.start; i < s.region.end; i++) claimed.add(`${s.info.pos}:${i}`);
  }
  return out;
}

const describeFold = (f: Fold) => `${f.benefit}:${f.sites.map((s) => `${s.info.pos}:${s.region.start}`).join(" ")}`;

for (const [label, o] of [
  ["raw", { multiValue: true, tailCall: false, minBenefit: 1, minRegionBytes: 0 }],
  ["compressed", { multiValue: false, tailCall: true, minBenefit: 8, minRegionBytes: 12 }],
] as [string, FindOptions][]) {
  test(`groups, folds and region sizes match the plain rules over two rounds (${label} options)`, () => {
    for (const name of FIXTURES) {
      const m = load(name);
      const cache = new RegionCache();
      for (let round = 0; round < 2; round++) {
        const groups = findGroups(m, o, () => {}, cache);
        assert.deepEqual(groups.map(describeGroup), refGroups(m, o), `${name} round ${round}: groups`);
        assert.ok(groups.length > 0, `${name} round ${round}: some groups`);
        for (const g of groups) {
          for (const s of g.sites) {
            const off = offsets(s.info.body);
            assert.equal(regionBytes(s), off[s.region.end]! - off[s.region.start]!, `${name}: size of region at ${s.region.start}`);
            const reads = new Int32Array(s.info.localTypes.length);
            for (let i = 0; i < s.info.body.count; i++) if (s.info.body.ops[i] === LOCAL_GET) reads[s.info.body.imm[s.info.body.immStart[i]!]!]!++;
            assert.deepEqual(readsOf(s.info), reads, `${name}: local reads of function ${s.info.pos}`);
          }
        }
        const folds = chooseFolds(m, groups, o);
        assert.deepEqual(folds.map(describeFold), refChoose(m, groups, o), `${name} round ${round}: folds`);
        // the second round sees rewritten callers next to cached unchanged functions
        applyFolds(m, folds, o, false);
      }
    }
  });
}

test("copyRange appends the same instructions in bulk and, when the builder is full, one at a time", () => {
  const body = load("graph").functions.reduce((a, f) => (f.body!.count > a.count ? f.body! : a), load("graph").functions[0]!.body!);
  const slow = (from: number, to: number): BodyBuilder => {
    const b = new BodyBuilder(4);
    b.begin(0);
    for (let i = from; i < to; i++) {
      b.begin(body.ops[i]!);
      for (let p = body.immStart[i]!; p < body.immStart[i + 1]!; p++) b.word(body.imm[p]!);
    }
    return b;
  };
  const cuts = [0, 1, 7, body.count >> 1, body.count - 1, body.count];
  for (const from of cuts) {
    for (const to of cuts) {
      if (to < from) continue;
      const want = slow(from, to).finish();
      for (const capacity of [4, body.count + 8]) {
        const b = new BodyBuilder(capacity);
        b.begin(0); // something before, so offsets into imm shift
        copyRange(b, body, from, to);
        const got = b.finish();
        assert.equal(got.count, want.count);
        assert.deepEqual([...got.ops], [...want.ops], `ops ${from}-${to} capacity ${capacity}`);
        assert.deepEqual([...got.immStart], [...want.immStart], `immStart ${from}-${to} capacity ${capacity}`);
        assert.deepEqual([...got.imm], [...want.imm], `imm ${from}-${to} capacity ${capacity}`);
      }
    }
  }
});

test("the bucket table puts regions together exactly when kind, block type, results, length and hash agree", () => {
  type Tuple = [Region["kind"], number, number, number, number];
  const check = (tuples: Tuple[]) => {
    const b = new RegionBuckets(tuples.length * 2);
    // every tuple twice, the second time after all others
    for (const [kind, blockType, results, len, hash] of [...tuples, ...tuples]) {
      const r: Region = { kind, start: 10, end: 10 + len, blockType, tail: false, returns: results > 0, inLoop: false, bytes: -1 };
      b.add({} as FuncInfo, r, results, hash);
    }
    assert.equal(b.count, tuples.length);
    for (let k = 0; k < tuples.length; k++) {
      assert.equal(b.size[k], 2);
      assert.equal(b.first[k], k);
      assert.equal(b.next[k], k + tuples.length);
      assert.equal(b.next[k + tuples.length], -1);
    }
  };
  const mixed: Tuple[] = [];
  for (const kind of ["construct", "arm"] as const) {
    for (const blockType of [0x40, 0x7f, -1, -2]) {
      for (const results of [0, 1, 2, 3]) for (const len of [2, 3, 4, 5]) for (const hash of [0, 1, -1, 7, 1 << 30, 1 << 31, 12345, 99]) {
        mixed.push([kind, blockType, results, len, hash]);
      }
    }
  }
  check(mixed);
  // a thousand keys that differ in one field only: many of them meet while probing
  const many = Array.from({ length: 1024 }, (_, k) => k);
  check(many.map((k): Tuple => ["arm", -1 - k, 0, 3, 5]));
  check(many.map((k): Tuple => ["arm", 0x40, k, 3, 5]));
  check(many.map((k): Tuple => ["arm", 0x40, 0, 2 + k, 5]));
  check(many.map((k): Tuple => ["arm", 0x40, 0, 3, Math.imul(k, 0x9e3779b1)]));
  // pairs that differ in one field only, each pair alone in the smallest table:
  // about one in 16 probes into the other's slot, so every field's comparison is needed
  for (const k of many) {
    const base: Tuple = ["construct", 0x40, 1, 3, Math.imul(k, 0x9e3779b1)];
    for (let f = 0; f < 5; f++) {
      const other = [...base] as Tuple;
      if (f === 0) other[0] = "arm";
      else (other[f] as number) = f === 4 ? base[4] ^ 1 : (base[f] as number) + 1;
      check([base, other]);
    }
  }
});
