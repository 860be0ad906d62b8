// SSA over locals: hand-written functions, and random structured bodies
// checked against reaching definitions computed by plain iterative dataflow
// (each local.get's SSA value, expanded through φ operands, must be exactly
// the set of definitions that reach it), against dominance (a definition or
// φ dominates every read of it), and against runs: an interpreter walks each
// body along random paths, as its semantics allow, and the definition each
// local.get actually reads must be one its SSA value names.

import { test } from "node:test";
import assert from "node:assert/strict";
import { idOf, OPS } from "../src/binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../src/ir/body.js";
import { cfgOf } from "../src/analysis/cfg.js";
import { dominatorTree } from "../src/analysis/dominators.js";
import { DEF, localSsa, PARAM, PHI, UNREACHABLE, ZERO, type LocalSsa } from "../src/analysis/ssa.js";
import { randomBody, refSucc, rng, withLocals } from "./control-gen.js";
import { firstFunction } from "./first-function.js";

const GET = idOf("local.get");
const SET = idOf("local.set");
const TEE = idOf("local.tee");

async function ssaOf(wat: string): Promise<{ body: Body; s: LocalSsa }> {
  const { body, nParams, nLocals } = await firstFunction(wat);
  return { body, s: localSsa(body, nParams, nLocals) };
}

/** The values the local.gets read, in body order, described. */
function reads(body: Body, s: LocalSsa): string[] {
  const out: string[] = [];
  for (let i = 0; i < body.count; i++) {
    if (body.ops[i] !== GET) continue;
    const v = s.readOf(i);
    out.push(v === UNREACHABLE ? "unreachable" : describe(s, v));
  }
  return out;
}

function describe(s: LocalSsa, v: number): string {
  switch (s.kind[v]) {
    case PARAM: return `param ${s.local[v]}`;
    case ZERO: return `zero ${s.local[v]}`;
    case DEF: return `def@${s.at[v]}`;
    default: return `phi(${s.operands[v]!.map((o) => (o < 0 ? "-" : describe(s, o))).join(", ")})`;
  }
}

test("straight-line code: a get reads the parameter, the zero of a declared local, or the last set before it", async () => {
  const { body, s } = await ssaOf(`(module (func (param i32) (result i32) (local i32)
    local.get 0 local.get 1 i32.add local.set 1 local.get 1 local.tee 0 local.get 0 i32.add))`);
  assert.deepEqual(reads(body, s), ["param 0", "zero 1", "def@3", "def@5"]);
});

test("if/else: two definitions merge in a φ; an arm that sets nothing passes the value from before", async () => {
  const { body, s } = await ssaOf(`(module (func (param i32) (result i32) (local i32)
    (if (local.get 0) (then (local.set 1 (i32.const 1))) (else (local.set 1 (i32.const 2))))
    (if (local.get 0) (then (local.set 0 (i32.const 5))))
    local.get 1 local.get 0 i32.add))`);
  const r = reads(body, s);
  assert.equal(r[0], "param 0");
  assert.equal(r[1], "param 0");
  assert.match(r[2]!, /^phi\(def@\d+, def@\d+\)$/);
  assert.match(r[3]!, /^phi\((param 0, def@\d+|def@\d+, param 0)\)$/);
});

test("a loop: the header merges the entry value and the loop's own definition; a local the loop leaves alone needs no φ", async () => {
  const { body, s } = await ssaOf(`(module (func (param i32 i32) (result i32)
    (loop $l
      (local.set 0 (i32.add (local.get 0) (local.get 1)))
      (br_if $l (i32.lt_u (local.get 0) (i32.const 100))))
    local.get 0))`);
  const r = reads(body, s);
  assert.match(r[0]!, /^phi\((param 0, def@\d+|def@\d+, param 0)\)$/, "x at the loop header");
  assert.equal(r[1], "param 1", "y is never set: no φ");
  assert.match(r[2]!, /^def@\d+$/);
  assert.match(r[3]!, /^def@\d+$/, "after the loop: the loop's definition (the only way out is after it)");
  // def-use chains
  const phi = s.readOf(body.ops.indexOf(GET));
  assert.equal(s.kind[phi], PHI);
  assert.deepEqual(s.getsOf(phi), [body.ops.indexOf(GET)]);
  const def = s.operands[phi]!.find((o) => s.kind[o] === DEF)!;
  assert.deepEqual(s.phisUsing(def), [phi]);
  assert.equal(s.getsOf(def).length, 2);
});

test("values are made one local at a time: asking about one local makes no φ of another", async () => {
  const { body, s } = await ssaOf(`(module (func (param i32 i32) (result i32)
    (loop $l
      (local.set 0 (i32.add (local.get 0) (i32.const 1)))
      (local.set 1 (i32.add (local.get 1) (i32.const 2)))
      (br_if $l (i32.lt_u (local.get 0) (i32.const 100))))
    (i32.add (local.get 0) (local.get 1))))`);
  const phisOf = (x: number): number => {
    let n = 0;
    for (let v = 0; v < s.count; v++) if (s.kind[v] === PHI && s.live(v) && s.local[v] === x) n++;
    return n;
  };
  const firstGet = body.ops.indexOf(GET);
  assert.equal(s.kind[s.readOf(firstGet)], PHI, "x at the loop header");
  assert.equal(phisOf(0), 1);
  assert.equal(phisOf(1), 0, "y was not asked about");
  const defsOfY = s.getsOf(s.defined[body.ops.lastIndexOf(SET)]!);
  assert.equal(defsOfY.length, 1, "after the loop, y's definition is read once");
  assert.equal(phisOf(1), 1, "asking about a value of y made y's φ");
  assert.equal(s.completeAll().count, s.count, "nothing left to make");
});

test("a get in code no path from the entry reaches reads nothing", async () => {
  const { body, s } = await ssaOf(`(module (func (param i32) (result i32)
    (block $b (br $b) (drop (local.get 0)))
    local.get 0))`);
  assert.deepEqual(reads(body, s), ["unreachable", "param 0"]);
});

/** Per local.get: the definitions (instruction, or -1 - local for its entry value) that reach it, by iterative dataflow; null if unreachable. */
function reachingDefs(body: Body, nLocals: number): Map<number, number[] | null> {
  const g = cfgOf(body);
  const reach = (b: number): boolean => g.rpoIndex[b]! >= 0;
  const out: Set<number>[][] = [];
  const transfer = (b: number, state: Set<number>[], onGet?: (i: number, defs: Set<number>) => void): Set<number>[] => {
    const st = state.map((x) => new Set(x));
    for (let i = g.blockStart[b]!; i < g.blockStart[b + 1]!; i++) {
      const op = body.ops[i]!;
      if (op !== GET && op !== SET && op !== TEE) continue;
      const x = body.imm[body.immStart[i]!]!;
      if (op === GET) onGet?.(i, st[x]!);
      else st[x] = new Set([i]);
    }
    return st;
  };
  const inOf = (b: number): Set<number>[] => {
    // the entry block is entered from the function's entry too (and may be a loop header)
    const st = Array.from({ length: nLocals }, (_, x) => new Set<number>(b === g.entry ? [-1 - x] : []));
    for (let k = g.predStart[b]!; k < g.predStart[b + 1]!; k++) {
      const p = g.pred[k]!;
      if (!reach(p) || !out[p]) continue;
      out[p]!.forEach((d, x) => d.forEach((v) => st[x]!.add(v)));
    }
    return st;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (let b = 0; b < g.count; b++) {
      if (!reach(b)) continue;
      const next = transfer(b, inOf(b));
      const old = out[b];
      if (!old || next.some((d, x) => d.size !== old[x]!.size)) {
        out[b] = next;
        changed = true;
      }
    }
  }
  const result = new Map<number, number[] | null>();
  for (let b = 0; b < g.count; b++) {
    if (!reach(b)) {
      for (let i = g.blockStart[b]!; i < g.blockStart[b + 1]!; i++) if (body.ops[i] === GET) result.set(i, null);
      continue;
    }
    transfer(b, inOf(b), (i, defs) => result.set(i, [...defs].sort((p, q) => p - q)));
  }
  return result;
}

test("random bodies: SSA agrees with reaching definitions, and every value dominates its reads", () => {
  const rand = rng(0x55a);
  let gets = 0;
  let phis = 0;
  for (let n = 0; n < 300; n++) {
    const nLocals = 1 + Math.floor(rand() * 4);
    const nParams = Math.floor(rand() * (nLocals + 1));
    const body = withLocals(rand, randomBody(rand, { eh: n % 3 === 0, size: 10 + Math.floor(rand() * 60) }), nLocals);
    const s = localSsa(body, nParams, nLocals);
    const ref = reachingDefs(body, nLocals);
    const g = cfgOf(body);
    const dom = dominatorTree(body);
    for (const [i, defs] of ref) {
      gets++;
      const v = s.readOf(i);
      if (defs === null) {
        assert.equal(v, UNREACHABLE, `body ${n}: get at ${i} is unreachable`);
        continue;
      }
      const got = s.origins(v).map((o) => (s.kind[o] === DEF ? s.at[o]! : -1 - s.local[o]!)).sort((p, q) => p - q);
      assert.deepEqual(got, defs, `body ${n}: definitions reaching the get at ${i}`);
      // the value's definition point dominates the read
      const where = s.kind[v] === DEF ? g.blockOf[s.at[v]!]! : s.kind[v] === PHI ? s.at[v]! : g.entry;
      assert.ok(dom.dominates(where, g.blockOf[i]!), `body ${n}: value of the get at ${i} dominates it`);
      if (s.kind[v] === DEF && where === g.blockOf[i]) assert.ok(s.at[v]! < i);
      if (s.kind[v] === PHI) phis++;
      // a value of the right local
      assert.equal(s.local[v], body.imm[body.immStart[i]!]);
      if (s.kind[v] === PARAM) assert.ok(s.local[v]! < nParams);
      if (s.kind[v] === ZERO) assert.ok(s.local[v]! >= nParams);
    }
    // no live φ merges a single value (minimal on these reducible graphs)
    for (let v = 0; v < s.count; v++) {
      if (s.kind[v] !== PHI || !s.live(v)) continue;
      const distinct = new Set(s.operands[v]!.filter((o) => o >= 0 && o !== v));
      assert.ok(distinct.size >= 2, `body ${n}: φ ${v} merges ${distinct.size} value(s)`);
    }
  }
  assert.ok(gets > 2000 && phis > 100, `enough cases (${gets} gets, ${phis} read φs)`);
});

test("random bodies: on random runs, every local.get reads a definition its SSA value names", () => {
  const rand = rng(0xd1ce);
  let checked = 0;
  for (let n = 0; n < 200; n++) {
    const nLocals = 1 + Math.floor(rand() * 4);
    const nParams = Math.floor(rand() * (nLocals + 1));
    const body = withLocals(rand, randomBody(rand, { eh: n % 3 === 0, size: 10 + Math.floor(rand() * 60) }), nLocals);
    const s = localSsa(body, nParams, nLocals);
    // the semantics' successors of each instruction (a plain reference, not the CFG under test)
    const succ = Array.from({ length: body.count }, (_, i) => refSucc(body, i));
    const origins = new Map<number, Set<number>>();
    for (let run = 0; run < 20; run++) {
      // last writer of each local: the set/tee instruction, or -1 - x for its value on entry
      const writer = Array.from({ length: nLocals }, (_, x) => -1 - x);
      let i = 0;
      for (let step = 0; step < 400 && i >= 0; step++) {
        const op = body.ops[i]!;
        if (op === GET || op === SET || op === TEE) {
          const x = body.imm[body.immStart[i]!]!;
          if (op === GET) {
            const v = s.readOf(i);
            let names = origins.get(v);
            if (!names) origins.set(v, (names = new Set(s.origins(v).map((o) => (s.kind[o] === DEF ? s.at[o]! : -1 - s.local[o]!)))));
            assert.ok(names.has(writer[x]!), `body ${n}, run ${run}: the get at ${i} read ${writer[x]}, SSA names ${[...names]}`);
            checked++;
          } else writer[x] = i;
        }
        const next = succ[i]!;
        i = next[Math.floor(rand() * next.length)]!;
      }
    }
  }
  assert.ok(checked > 10_000, `enough reads checked (${checked})`);
});

test("a long chain of merges does not exhaust the call stack", () => {
  // 20,000 ifs in a row, each an empty-armed merge, then a read of the parameter
  const b = new BodyBuilder(100_000);
  const op = (name: string, ...w: number[]): void => {
    b.begin(idOf(name));
    for (const x of w) b.word(x);
  };
  for (let k = 0; k < 20_000; k++) {
    op("local.get", 0);
    op("if", 0x40);
    op("local.get", 0);
    op("local.set", 1);
    op("end");
  }
  op("local.get", 1);
  op("drop");
  op("end");
  const body = b.finish();
  const s = localSsa(body, 1, 2);
  const last = s.readOf(body.count - 3);
  assert.equal(s.kind[last], PHI);
  assert.equal(s.origins(last).length, 20_001, "every set and the zero on entry");
  assert.ok(OPS.length > 0);
});
