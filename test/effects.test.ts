// analysis/effects.ts: hand-written instructions and ranges; every op of the
// table against its effect bits and immediates; and random ranges against a
// plain reference (a range is the union of its instructions, minus the
// branches that stay inside, found by a backward scan, and minus div traps
// its own safe constants rule out), purity against DIGEST §1.8's list.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Eff, Imm, OPS, TRAP_CLASSES, idOf } from "../src/binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../src/ir/body.js";
import { emptyModule, type Module } from "../src/ir/module.js";
import { I32, FUNCREF } from "../src/ir/types.js";
import { ANY, OP_EFFECTS, effectsContext, instrEffects, instrFlags, isPureFlags, rangeEffects, rangeFlags, type Effects, type EffectsContext } from "../src/analysis/effects.js";
import { addInstr, int, rng, type Rand } from "./random-body.js";

/** Globals: 0 imported immutable, 1 imported mutable, 2 defined mutable, 3 defined immutable. */
function module(): Module {
  const m = emptyModule();
  m.imports.push({ module: "env", name: "c", desc: { kind: "global", type: { type: I32, mutable: false } } });
  m.imports.push({ module: "env", name: "v", desc: { kind: "global", type: { type: I32, mutable: true } } });
  m.numImportedGlobals = 2;
  const init = new BodyBuilder().finish();
  m.globals.push({ type: { type: I32, mutable: true }, init: { body: init } }, { type: { type: I32, mutable: false }, init: { body: init } });
  return m;
}
const CTX = effectsContext(module());

type Ins = [string, ...number[]];
function body(...ins: Ins[]): Body {
  const b = new BodyBuilder();
  for (const [name, ...words] of ins) addInstr(b, idOf(name), rng(0), words);
  return b.finish();
}
const all = (b: Body, ctx: EffectsContext = CTX): Effects => rangeEffects(ctx, b, 0, b.count);
const set = (s: Set<number>): number[] => [...s].sort((a, b) => a - b);

test("constants, arithmetic, select and immutable globals are pure; mutable globals are state", () => {
  const e = all(body(["i32.const", 1], ["global.get", 3], ["i32.add"], ["local.get", 0], ["global.get", 0], ["select"], ["drop"]));
  assert.equal(e.flags, Eff.READ_LOCAL);
  assert.ok(e.pure && e.idempotent);
  assert.deepEqual(set(e.constGlobalsRead), [0, 3]);
  assert.deepEqual(set(e.globalsRead), []);
  const m = all(body(["global.get", 1], ["global.get", 2], ["global.set", 2]));
  assert.equal(m.flags, Eff.READ_GLOBAL | Eff.WRITE_GLOBAL);
  assert.deepEqual(set(m.globalsRead), [1, 2]);
  assert.deepEqual(set(m.globalsWritten), [2]);
  assert.ok(!m.pure && !m.idempotent);
  // without a module every global counts as mutable
  assert.equal(all(body(["global.get", 3]), effectsContext()).flags, Eff.READ_GLOBAL);
  // DIGEST §1.8: memory.size changes with grow; ref.func, ref.is_null, SIMD lane ops are pure
  assert.ok(!all(body(["memory.size", 0])).pure);
  assert.ok(all(body(["ref.func", 3], ["ref.is_null"], ["v128.const", 1, 2, 3, 4], ["i32x4.extract_lane", 1], ["f32.sqrt"], ["i32.trunc_sat_f32_s"])).pure);
  assert.ok(!all(body(["struct.new", 0])).pure, "allocation: identity is observable");
});

test("div/rem trap unless a safe constant divisor precedes them inside the range", () => {
  const cases: [Ins, Ins, boolean][] = [
    [["i32.const", 4], ["i32.div_u"], false],
    [["i32.const", 0], ["i32.div_u"], true],
    [["i32.const", -1], ["i32.div_s"], true],
    [["i32.const", -1], ["i32.rem_s"], false],
    [["i32.const", -1], ["i32.div_u"], false],
    [["i64.const", 7, 0], ["i64.rem_u"], false],
    [["i64.const", 0, 0], ["i64.rem_u"], true],
    [["i64.const", -1, -1], ["i64.div_s"], true],
    [["i64.const", -1, 0], ["i64.div_s"], false],
    [["local.get", 0], ["i32.div_s"], true],
  ];
  for (const [c, d, traps] of cases) {
    const b = body(["local.get", 1], c, d);
    const e = all(b);
    assert.equal(e.traps, traps ? Eff.TRAP_DIV : 0, `${c.join(" ")}; ${d[0]}`);
    assert.equal(e.pure, !traps);
    // the div alone: its divisor comes from outside the range
    assert.equal(instrFlags(CTX, b, 2), Eff.TRAP | Eff.TRAP_DIV);
  }
  assert.equal(instrEffects(CTX, body(["i32.trunc_f32_s"]), 0).traps, Eff.TRAP_FLOAT_INT);
  assert.equal(instrEffects(CTX, body(["unreachable"]), 0).flags, Eff.TRAP | Eff.TRAP_UNREACHABLE | Eff.UNCONDITIONAL);
});

test("memories, tables, segments and calls by index", () => {
  let e = all(body(["i32.load", 2, 1, 0, 0], ["i64.store", 3, 0, 8, 0], ["memory.copy", 2, 1], ["memory.init", 5, 3], ["data.drop", 6]));
  assert.deepEqual(set(e.memoriesRead), [1]); // the load and the copy's source
  assert.deepEqual(set(e.memoriesWritten), [0, 2, 3]);
  assert.deepEqual(set(e.dataRead), [5]);
  assert.deepEqual(set(e.dataDropped), [6]);
  assert.equal(e.traps, Eff.TRAP_MEMORY);
  e = all(body(["atomic.fence", 0]));
  assert.deepEqual(set(e.memoriesRead), [ANY]);
  assert.ok(e.flags & Eff.ATOMIC);
  e = all(body(["call_indirect", 0, 2], ["table.copy", 4, 5], ["table.init", 7, 1], ["elem.drop", 8], ["call", 9], ["return_call", 10]));
  assert.deepEqual(set(e.tablesRead), [2, 5]);
  assert.deepEqual(set(e.tablesWritten), [1, 4]);
  assert.deepEqual(set(e.elemsRead), [7]);
  assert.deepEqual(set(e.elemsDropped), [8]);
  assert.deepEqual(set(e.calls), [9, 10]);
  assert.ok(e.indirectCalls && e.returns);
  assert.equal(e.traps, Eff.TRAP_TABLE | Eff.TRAP_NULL_CAST | Eff.TRAP_SIGNATURE);
  assert.ok(!all(body(["call", 1])).indirectCalls);
  assert.ok(all(body(["call_ref", 0])).indirectCalls);
  e = all(body(["array.new_data", 0, 4], ["array.init_elem", 0, 2], ["struct.get", 1, 0]));
  assert.deepEqual(set(e.dataRead), [4]);
  assert.deepEqual(set(e.elemsRead), [2]);
  assert.equal(e.traps, Eff.TRAP_ARRAY | Eff.TRAP_MEMORY | Eff.TRAP_TABLE | Eff.TRAP_NULL_CAST);
});

test("branches inside the range are internal; those that leave it are listed by depth from the range's start", () => {
  // block; br 0; end: internal
  let b = body(["block", 0x40], ["br", 0], ["end"]);
  assert.equal(all(b).flags, Eff.STRUCTURE);
  // block; br_if 1; br_table [0 2] 0; end: br_if leaves to depth 0, br_table to depth 1
  b = body(["block", 0x40], ["br_if", 1], ["br_table", 1, 0, 2, 0], ["end"]);
  let e = all(b);
  assert.ok(e.flags & Eff.BRANCH && e.flags & Eff.UNCONDITIONAL);
  assert.deepEqual(set(e.branchesOut), [0, 1]);
  // the br alone leaves
  assert.deepEqual(set(instrEffects(CTX, b, 1).branchesOut), [1]);
  // a range that ends an outer construct: after the end, label 0 is two levels out from the start
  b = body(["nop"], ["end"], ["br", 0]);
  assert.deepEqual(set(all(b).branchesOut), [1]);
  // a loop's back edge stays inside
  assert.ok(all(body(["loop", 0x40], ["local.get", 0], ["br_if", 0], ["end"])).pure);
  // try_table's catch labels are seen from outside the try_table
  b = body(["try_table", 0x40, 1, 2, 0, 0], ["end"]);
  e = all(b);
  assert.equal(e.flags, Eff.STRUCTURE | Eff.BRANCH);
  assert.deepEqual(set(e.branchesOut), [0]);
  b = body(["block", 0x40], ["try_table", 0x40, 1, 2, 0, 0], ["end"], ["end"]);
  assert.equal(all(b).flags, Eff.STRUCTURE);
  // return and throw always leave
  e = all(body(["block", 0x40], ["return"], ["end"]));
  assert.ok(e.returns && !e.throws && e.flags & Eff.BRANCH);
  e = all(body(["throw", 0]));
  assert.ok(e.throws && !e.returns);
  // rethrow's label names a catch, not a branch target
  assert.deepEqual(set(all(body(["rethrow", 0])).branchesOut), []);
});

test("idempotent: local writes whose first access is an unconditional write, and no step out of the starting construct", () => {
  const yes = all(body(["local.get", 0], ["i32.const", 1], ["i32.add"], ["local.set", 1], ["local.get", 1], ["local.tee", 1], ["drop"]));
  assert.ok(yes.idempotent && !yes.pure);
  assert.deepEqual(set(yes.localsRead), [0, 1]);
  assert.deepEqual(set(yes.localsWritten), [1]);
  // reads its own result on a second run
  assert.ok(!all(body(["local.get", 0], ["i32.const", 1], ["i32.add"], ["local.set", 0])).idempotent);
  // the first write is conditional
  assert.ok(!all(body(["local.get", 0], ["if", 0x40], ["i32.const", 1], ["local.set", 1], ["end"], ["local.get", 1], ["drop"])).idempotent);
  // steps from a then-arm into the else-arm
  assert.ok(!all(body(["i32.const", 1], ["local.set", 1], ["else"], ["nop"])).idempotent);
  // a store is not
  assert.ok(!all(body(["i32.const", 0], ["i32.const", 1], ["i32.store", 2, 0, 0, 0])).idempotent);
});

// ---- randomized ----

const LABEL_WORD = OPS.map((d) => {
  let off = 0;
  for (const k of d.imms) {
    if (k === Imm.Label) return off;
    off++; // only one-word immediates come before a label
  }
  return -1;
});
const OPENERS = new Set(["block", "loop", "if", "try", "try_table"].map(idOf));
const CLOSERS = new Set(["end", "delegate"].map(idOf));
const TRY_TABLE = idOf("try_table");
const BR_TABLE = idOf("br_table");
const RETHROW = idOf("rethrow");
const DELEGATE = idOf("delegate");

/** Constructs opened in [from, i) that are still open at i: a backward scan. */
function openAt(b: Body, from: number, i: number): number {
  let skip = 0;
  let open = 0;
  for (let j = i - 1; j >= from; j--) {
    const op = b.ops[j]!;
    if (CLOSERS.has(op)) skip++;
    else if (OPENERS.has(op)) {
      if (skip > 0) skip--;
      else open++;
    }
  }
  return open;
}

/** Labels of the instruction at i (branch targets only), and the depth they are resolved at (i or before a try_table). */
function targets(b: Body, i: number): number[] {
  const op = b.ops[i]!;
  const p = b.immStart[i]!;
  if (op === BR_TABLE) return Array.from({ length: b.imm[p]! + 1 }, (_, j) => b.imm[p + 1 + j]!);
  if (op === TRY_TABLE) return Array.from({ length: b.imm[p + 1]! }, (_, j) => b.imm[p + 4 + 3 * j]!);
  if (op === RETHROW || op === DELEGATE || LABEL_WORD[op]! < 0) return [];
  return [b.imm[p + LABEL_WORD[op]!]!];
}

function safeConst(b: Body, i: number): boolean {
  const name = OPS[b.ops[i]!]!.name;
  const prev = OPS[b.ops[i - 1]!]!.name;
  const p = b.immStart[i - 1]!;
  const t = name.slice(0, 3);
  if (prev !== `${t}.const`) return false;
  const v = t === "i32" ? BigInt(b.imm[p]!) : BigInt.asIntN(64, (BigInt(b.imm[p + 1]!) << 32n) | BigInt(b.imm[p]! >>> 0));
  return v !== 0n && !(name.endsWith("div_s") && v === -1n);
}

/** The plain reference: union of the instructions' table bits, refined one instruction at a time. */
function reference(ctx: EffectsContext, b: Body, from: number, to: number, m: Module): { flags: number; out: Set<number> } {
  let flags = 0;
  const out = new Set<number>();
  const nImp = m.numImportedGlobals;
  for (let i = from; i < to; i++) {
    const op = b.ops[i]!;
    const d = OPS[op]!;
    let f = d.effects;
    if (d.name === "global.get") {
      const g = b.imm[b.immStart[i]!]!;
      const mutable = g < nImp ? (m.imports.filter((x) => x.desc.kind === "global")[g]!.desc as { type: { mutable: boolean } }).type.mutable : m.globals[g - nImp]?.type.mutable ?? true;
      if (!mutable) f &= ~Eff.READ_GLOBAL;
    }
    if (/^i(32|64)\.(div|rem)_/.test(d.name) && i > from && safeConst(b, i)) f &= ~(Eff.TRAP | Eff.TRAP_DIV);
    const ls = targets(b, i);
    if (op === TRY_TABLE || ls.length) {
      const open = openAt(b, from, i);
      const leaving = ls.filter((l) => l >= open);
      for (const l of leaving) out.add(l - open + closedBefore(b, from, i));
      if (op === TRY_TABLE) f |= leaving.length ? Eff.BRANCH : 0;
      else if (leaving.length === 0) f &= ~(Eff.BRANCH | Eff.UNCONDITIONAL);
    }
    flags |= f;
  }
  void ctx;
  return { flags, out };
}

/** Outer constructs the range closed before i (ends met with nothing of the range's own open). */
function closedBefore(b: Body, from: number, i: number): number {
  let depth = 0;
  let closed = 0;
  for (let j = from; j < i; j++) {
    const op = b.ops[j]!;
    if (OPENERS.has(op)) depth++;
    else if (CLOSERS.has(op)) {
      if (depth > 0) depth--;
      else closed++;
    }
  }
  return closed;
}

/** DIGEST §1.8's list of pure instructions, by name. */
const PURE_NAMES = new Set(["nop", "drop", "select", "select_t", "ref.null", "ref.is_null", "ref.func", "ref.eq", "ref.test", "ref.test_null", "ref.i31",
  "any.convert_extern", "extern.convert_any", "local.get", "block", "loop", "if", "else", "end", "try", "catch", "catch_all", "delegate", "try_table",
  "br", "br_if", "br_table", "br_on_null", "br_on_non_null", "br_on_cast", "br_on_cast_fail"]);
function pureByName(op: number): boolean {
  const d = OPS[op]!;
  if (PURE_NAMES.has(d.name)) return true;
  return d.sig !== undefined && !d.imms.includes(Imm.MemArg) && !/atomic|^i(32|64)\.(div|rem)_|^i(32|64)\.trunc_f/.test(d.name);
}

test("every op of the table: flags and accesses agree with its bits and immediates (fixed seed)", () => {
  const r = rng(2024);
  for (let op = 0; op < OPS.length; op++) {
    const d = OPS[op]!;
    for (let k = 0; k < 8; k++) {
      const b = new BodyBuilder();
      addInstr(b, op, r);
      const body = b.finish();
      const e = instrEffects(CTX, body, 0);
      const p = body.immStart[0]!;
      let want = d.effects;
      if (d.name === "global.get" && (body.imm[p] === 0 || body.imm[p] === 3)) want &= ~Eff.READ_GLOBAL;
      if (op === TRY_TABLE && body.imm[p + 1]! > 0) want |= Eff.BRANCH;
      assert.equal(e.flags, want, d.name);
      assert.equal(instrFlags(CTX, body, 0), want);
      assert.equal(OP_EFFECTS[op], d.effects);
      assert.equal(e.traps, d.effects & TRAP_CLASSES, d.name);
      assert.equal((d.effects & Eff.TRAP) !== 0, (d.effects & TRAP_CLASSES) !== 0, `${d.name}: TRAP iff a class`);
      const has = (bit: number, ...sets: Set<number>[]) => assert.equal((d.effects & bit) !== 0, sets.some((s) => s.size > 0), `${d.name}: ${bit}`);
      has(Eff.READ_MEM, e.memoriesRead, e.dataRead);
      has(Eff.WRITE_MEM, e.memoriesWritten, e.dataDropped);
      has(Eff.READ_TABLE, e.tablesRead, e.elemsRead);
      has(Eff.WRITE_TABLE, e.tablesWritten, e.elemsDropped);
      has(Eff.READ_LOCAL, e.localsRead);
      has(Eff.WRITE_LOCAL, e.localsWritten);
      has(Eff.WRITE_GLOBAL, e.globalsWritten);
      has(Eff.READ_GLOBAL, e.globalsRead, e.constGlobalsRead);
      assert.equal((d.effects & Eff.CALL) !== 0, e.calls.size > 0 || e.indirectCalls, d.name);
      if (d.imms.includes(Imm.Func) && d.effects & Eff.CALL) assert.deepEqual(set(e.calls), [body.imm[p]!]);
      if (d.imms[0] === Imm.MemArg) assert.ok(e.memoriesRead.has(body.imm[p + 1]!) || e.memoriesWritten.has(body.imm[p + 1]!), d.name);
      assert.equal(e.returns, (d.effects & Eff.RETURN) !== 0);
      assert.equal(e.throws, (d.effects & Eff.THROW) !== 0);
      assert.deepEqual(set(e.branchesOut), [...new Set(targets(body, 0))].sort((a, b) => a - b), d.name);
      const immutable = d.name === "global.get" && (body.imm[p] === 0 || body.imm[p] === 3);
      assert.equal(e.pure, immutable || (pureByName(op) && e.branchesOut.size === 0), `${d.name}: pure`);
    }
  }
});

/**
 * The idempotence reference: only pure instructions and local writes, no
 * branch, return or throw leaving, never an else/catch/end of a construct
 * opened before the range, and each written local first met as a write
 * outside every construct the range opens.
 */
function idempotent(b: Body, from: number, to: number, ref: { flags: number; out: Set<number> }): boolean {
  if (ref.out.size > 0 || ref.flags & (Eff.RETURN | Eff.THROW)) return false;
  const first = new Map<number, boolean>();
  for (let i = from; i < to; i++) {
    const op = b.ops[i]!;
    const name = OPS[op]!.name;
    const top = openAt(b, from, i) === 0;
    if (/^i(32|64)\.(div|rem)_/.test(name)) {
      if (!(i > from && safeConst(b, i))) return false;
    } else if (name === "global.get") {
      if (b.imm[b.immStart[i]!] !== 0 && b.imm[b.immStart[i]!] !== 3) return false;
    } else if (["else", "catch", "catch_all", "end", "delegate"].includes(name) && top) return false;
    else if (name === "local.set" || name === "local.tee") {
      const x = b.imm[b.immStart[i]!]!;
      if (!first.has(x)) first.set(x, top);
    } else if (name === "local.get") {
      const x = b.imm[b.immStart[i]!]!;
      if (!first.has(x)) first.set(x, false);
    } else if (!pureByName(op)) return false;
  }
  for (let i = from; i < to; i++) {
    const name = OPS[b.ops[i]!]!.name;
    if ((name === "local.set" || name === "local.tee") && !first.get(b.imm[b.immStart[i]!]!)) return false;
  }
  return true;
}

/** Op ids for random ranges: control, locals, consts and divs more often than the rest. */
function picker(r: Rand): () => number {
  const often = ["block", "loop", "if", "else", "end", "try_table", "br", "br_if", "br_table", "br_on_null", "local.get", "local.set", "local.tee",
    "i32.const", "i64.const", "i32.div_s", "i32.rem_u", "i64.div_s", "i64.rem_s", "global.get", "i32.add", "select", "delegate", "rethrow"].map(idOf);
  return () => (int(r, 3) ? often[int(r, often.length)]! : int(r, OPS.length));
}

test("random ranges: union of the instructions minus internal branches and safe divs; sets are the union of the instructions' (fixed seed)", () => {
  const m = module();
  const r = rng(77);
  const pick = picker(r);
  for (let round = 0; round < 2000; round++) {
    const n = 1 + int(r, 24);
    const b = new BodyBuilder(n);
    for (let i = 0; i < n; i++) addInstr(b, pick(), r);
    // small global and local indices so that the module's globals are hit
    const body = b.finish();
    for (let i = 0; i < body.count; i++) {
      if (OPS[body.ops[i]!]!.name.startsWith("global.")) body.imm[body.immStart[i]!] = int(r, 5);
    }
    const from = int(r, n);
    const to = from + 1 + int(r, n - from);
    const ref = reference(CTX, body, from, to, m);
    const e = rangeEffects(CTX, body, from, to);
    assert.equal(e.flags, ref.flags, `round ${round}: flags`);
    assert.equal(rangeFlags(CTX, body, from, to), ref.flags);
    assert.deepEqual(set(e.branchesOut), set(ref.out), `round ${round}: branches out`);
    const union = (pickSet: (x: Effects) => Set<number>) => {
      const u = new Set<number>();
      for (let i = from; i < to; i++) for (const v of pickSet(instrEffects(CTX, body, i))) u.add(v);
      return set(u);
    };
    for (const k of ["localsRead", "localsWritten", "globalsRead", "constGlobalsRead", "globalsWritten", "memoriesRead", "memoriesWritten",
      "tablesRead", "tablesWritten", "dataRead", "dataDropped", "elemsRead", "elemsDropped", "calls"] as const) {
      assert.deepEqual(set(e[k]), union((x) => x[k]), `round ${round}: ${k}`);
    }
    // purity against DIGEST's list: every instruction on it, no branch leaving, no mutable global, divs only by a safe constant
    let pure = ref.out.size === 0 && !(ref.flags & (Eff.RETURN | Eff.THROW));
    for (let i = from; i < to && pure; i++) {
      const op = body.ops[i]!;
      const name = OPS[op]!.name;
      if (/^i(32|64)\.(div|rem)_/.test(name)) pure = i > from && safeConst(body, i);
      else if (name === "global.get") pure = body.imm[body.immStart[i]!] === 0 || body.imm[body.immStart[i]!] === 3;
      else pure = pureByName(op);
    }
    assert.equal(e.pure, pure, `round ${round}: pure`);
    assert.equal(isPureFlags(e.flags), pure);
    assert.equal(e.idempotent, idempotent(body, from, to, ref), `round ${round}: idempotent`);
  }
});

test("a typed select of a reference is pure too", () => {
  assert.ok(all(body(["ref.null", -0x10], ["ref.null", -0x10], ["i32.const", 0], ["select_t", 1, FUNCREF])).pure);
});
