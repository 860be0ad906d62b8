// Effects of one instruction or of a range [from, to) of a body: what state
// it reads and writes (memories, globals, tables, segments, locals), whether
// and why it may trap, what it calls, how control leaves it, and whether it
// is pure or idempotent in the sense of DIGEST §1.8 (idempotent slices).
//
// Driven by the opcode table's effect bits (binary/opcodes/defs.ts, Eff),
// refined with the immediates and the module:
// - global.get of an immutable global reads no state (READ_GLOBAL cleared);
// - div/rem right after a constant divisor that cannot trap (not 0, and not
//   -1 for div_s) in the same range does not trap;
// - a branch whose target label lies inside the range is internal: it adds
//   neither BRANCH nor UNCONDITIONAL (try_table's catch labels count as
//   branches of the try_table).
// So a range's flags are the union of its instructions' flags minus the
// internal branches and the div traps its own constants rule out.
//
// Nothing is cached per body: bodies are still renumbered in place
// (cleanup, ir/renumber), and a flag scan is one table lookup per
// instruction, about as cheap as reading a cached array would be.

import { Eff, Imm, OPS, TRAP_CLASSES, idOf, type ImmKind } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import { GLOBAL_WORDS, LABEL_WORDS, LOCAL_WORDS, immWidth } from "../ir/imm-layout.js";
import type { Module } from "../ir/module.js";

/** Per op id: the table's effect bits (Eff), as a typed array for scans. */
export const OP_EFFECTS: Uint32Array = Uint32Array.from(OPS, (d) => d.effects);

/** Flags a pure range may have: it reads locals and may contain structured control that stays inside. */
const PURE_ALLOWED = Eff.READ_LOCAL | Eff.STRUCTURE;
/** Flags an idempotent range may have: a pure range that may also write locals (see Effects.idempotent). */
const IDEMPOTENT_ALLOWED = PURE_ALLOWED | Eff.WRITE_LOCAL;

/** True if an instruction or range with these flags may trap (calls not counted: check Eff.CALL too). */
export function mayTrap(flags: number): boolean {
  return (flags & Eff.TRAP) !== 0;
}

/** True if these flags allow no effect a caller could observe or reorder against: no state read or written but locals read, no trap, call, allocation or control leaving. */
export function isPureFlags(flags: number): boolean {
  return (flags & ~PURE_ALLOWED) === 0;
}

/** The state an instruction or range touches, how it may trap and how control may leave it. */
export interface Effects {
  /** Eff bits, refined as described at the top of this file. */
  flags: number;
  /** The trap classes (Eff.TRAP_* bits of flags). */
  traps: number;
  localsRead: Set<number>;
  localsWritten: Set<number>;
  /** Mutable globals read (global.get). */
  globalsRead: Set<number>;
  /** Immutable globals read: constants, no state. */
  constGlobalsRead: Set<number>;
  globalsWritten: Set<number>;
  /** Memory indices read / written; ANY (-1) for an access to no particular memory (atomic.fence). */
  memoriesRead: Set<number>;
  memoriesWritten: Set<number>;
  tablesRead: Set<number>;
  tablesWritten: Set<number>;
  /** Data segments read (memory.init, array.new_data, array.init_data) and dropped (data.drop). */
  dataRead: Set<number>;
  dataDropped: Set<number>;
  /** Element segments read (table.init, array.new_elem, array.init_elem) and dropped (elem.drop). */
  elemsRead: Set<number>;
  elemsDropped: Set<number>;
  /** Functions called directly (call, return_call). */
  calls: Set<number>;
  /** Some call is indirect (call_indirect, call_ref and their return_ forms). */
  indirectCalls: boolean;
  /**
   * Labels outside the range that a branch in it targets, as depths seen
   * from the range's start (0: the innermost construct around `from`).
   */
  branchesOut: Set<number>;
  /** Some instruction leaves the function normally (return, return_call*). */
  returns: boolean;
  /** Some instruction throws (throw, rethrow, throw_ref; a call may throw too, see calls). */
  throws: boolean;
  /**
   * DIGEST §1.8's classifier: only constants, non-trapping numeric and SIMD
   * ops, select, drop, ref.null/is_null/func/eq/test/i31, conversions,
   * global.get of immutable globals, div/rem by a safe constant inside the
   * range, local reads, and control that stays inside. No memory or table
   * access, no mutable global, no call, trap, throw, allocation or GC read.
   * It says nothing about nesting: a pure range may end constructs it did
   * not open (ask the control tree whether a range is well nested).
   */
  pure: boolean;
  /**
   * Pure, except that it may also write locals: running it again with the
   * same inputs gives the same values. Every local it writes is first
   * accessed by a write outside any construct the range opens (so no value
   * it reads is one it changed), and the range never steps out of the
   * construct it starts in (no else/catch/end of an outer construct).
   */
  idempotent: boolean;
}

/** A memory access with no memory index (atomic.fence orders all of them). */
export const ANY = -1;

/** What the scan needs to know about the module: which globals are mutable. */
export interface EffectsContext {
  /** Per global index (imports first): 1 if mutable. An index past the end counts as mutable. */
  mutableGlobals: Uint8Array;
}

/** The context for module `m`; without a module every global counts as mutable. */
export function effectsContext(m?: Module): EffectsContext {
  if (!m) return { mutableGlobals: new Uint8Array(0) };
  const out: number[] = [];
  for (const imp of m.imports) if (imp.desc.kind === "global") out.push(imp.desc.type.mutable ? 1 : 0);
  for (const g of m.globals) out.push(g.type.mutable ? 1 : 0);
  return { mutableGlobals: Uint8Array.from(out) };
}

// What the scan does per op (one lookup per instruction; PLAIN: take the table's bits).
const PLAIN = 0, GLOBAL_GET = 1, DIV = 2, LABEL = 3, LABEL_TABLE = 4, OPEN = 5, TRY_TABLE = 6, CLOSE = 7, SPLIT = 8;
const KIND = new Uint8Array(OPS.length);
/** Per op: word offset of its branch label (LABEL ops). */
const LABEL_AT = new Uint8Array(OPS.length);
/** div/rem ops: 1 for i32, 2 for i64; 4 added for div_s (-1 traps too). */
const DIV_SHAPE = new Uint8Array(OPS.length);
const I32_CONST = idOf("i32.const");
const I64_CONST = idOf("i64.const");

for (let op = 0; op < OPS.length; op++) {
  const d = OPS[op]!;
  const e = d.effects;
  if (d.imms[0] === Imm.BlockType) KIND[op] = d.imms.includes(Imm.Catches) ? TRY_TABLE : OPEN;
  else if (e & Eff.BRANCH && !(e & (Eff.THROW | Eff.RETURN))) {
    // br, br_if, br_table, br_on_*: a label or a label table (rethrow's label names a catch, not a target)
    if (d.imms.includes(Imm.LabelTable)) KIND[op] = LABEL_TABLE;
    else {
      KIND[op] = LABEL;
      LABEL_AT[op] = LABEL_WORDS[op]![0]!;
    }
  }
}
KIND[idOf("global.get")] = GLOBAL_GET;
KIND[idOf("end")] = KIND[idOf("delegate")] = CLOSE;
for (const n of ["else", "catch", "catch_all"]) KIND[idOf(n)] = SPLIT;
for (const t of ["i32", "i64"]) {
  for (const o of ["div_s", "div_u", "rem_s", "rem_u"]) {
    const op = idOf(`${t}.${o}`);
    KIND[op] = DIV;
    DIV_SHAPE[op] = (t === "i32" ? 1 : 2) + (o === "div_s" ? 4 : 0);
  }
}

/** True if the divisor of the div/rem at i is a constant pushed at i - 1 (inside [from, ...)) that cannot trap. */
function safeDivisor(body: Body, from: number, i: number): boolean {
  if (i - 1 < from) return false;
  const shape = DIV_SHAPE[body.ops[i]!]!;
  const prev = body.ops[i - 1]!;
  const p = body.immStart[i - 1]!;
  if ((shape & 3) === 1) {
    if (prev !== I32_CONST) return false;
    const c = body.imm[p]!;
    return c !== 0 && !(shape & 4 && c === -1);
  }
  if (prev !== I64_CONST) return false;
  const lo = body.imm[p]!;
  const hi = body.imm[p + 1]!;
  return !(lo === 0 && hi === 0) && !(shape & 4 && lo === -1 && hi === -1);
}

function isMutable(ctx: EffectsContext, g: number): boolean {
  return g >= ctx.mutableGlobals.length || ctx.mutableGlobals[g] === 1;
}

/** Eff bits of instructions [from, to) of `body` (see the top of this file). */
export function rangeFlags(ctx: EffectsContext, body: Body, from: number, to: number): number {
  return scan(ctx, body, from, to, null);
}

/** Eff bits of instruction i alone (a range of one: every branch leaves it). */
export function instrFlags(ctx: EffectsContext, body: Body, i: number): number {
  return scan(ctx, body, i, i + 1, null);
}

/** The effects of instructions [from, to) of `body`. */
export function rangeEffects(ctx: EffectsContext, body: Body, from: number, to: number): Effects {
  const e: Effects = {
    flags: 0,
    traps: 0,
    localsRead: new Set(),
    localsWritten: new Set(),
    globalsRead: new Set(),
    constGlobalsRead: new Set(),
    globalsWritten: new Set(),
    memoriesRead: new Set(),
    memoriesWritten: new Set(),
    tablesRead: new Set(),
    tablesWritten: new Set(),
    dataRead: new Set(),
    dataDropped: new Set(),
    elemsRead: new Set(),
    elemsDropped: new Set(),
    calls: new Set(),
    indirectCalls: false,
    branchesOut: new Set(),
    returns: false,
    throws: false,
    pure: false,
    idempotent: false,
  };
  const flags = scan(ctx, body, from, to, e);
  e.flags = flags;
  e.traps = flags & TRAP_CLASSES;
  e.returns = (flags & Eff.RETURN) !== 0;
  e.throws = (flags & Eff.THROW) !== 0;
  e.pure = isPureFlags(flags);
  if (e.idempotent) e.idempotent = (flags & ~IDEMPOTENT_ALLOWED) === 0;
  return e;
}

/** The effects of instruction i alone. */
export function instrEffects(ctx: EffectsContext, body: Body, i: number): Effects {
  return rangeEffects(ctx, body, i, i + 1);
}

/**
 * The flag scan; with `e`, also the sets, branchesOut, and e.idempotent's
 * local and nesting conditions (rangeEffects adds its flag condition).
 */
function scan(ctx: EffectsContext, body: Body, from: number, to: number, e: Effects | null): number {
  const { ops, imm, immStart } = body;
  let flags = 0;
  // constructs opened inside the range and still open; outer constructs the range closed
  let open = 0;
  let closed = 0;
  // idempotence: no step out of the starting construct; locals whose first access is a top-level write
  let nested = true;
  const firstWrite = e ? new Set<number>() : null;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    let f = OP_EFFECTS[op]!;
    switch (KIND[op]) {
      case GLOBAL_GET:
        if (!isMutable(ctx, imm[immStart[i]!]!)) f &= ~Eff.READ_GLOBAL;
        break;
      case DIV:
        if (safeDivisor(body, from, i)) f &= ~(Eff.TRAP | Eff.TRAP_DIV);
        break;
      case LABEL: {
        const l = imm[immStart[i]! + LABEL_AT[op]!]! >>> 0;
        if (l < open) f &= ~(Eff.BRANCH | Eff.UNCONDITIONAL);
        else if (e) e.branchesOut.add(l - open + closed);
        break;
      }
      case LABEL_TABLE: {
        const p = immStart[i]!;
        const n = imm[p]!;
        let out = false;
        for (let j = 0; j <= n; j++) {
          const l = imm[p + 1 + j]! >>> 0;
          if (l < open) continue;
          out = true;
          if (e) e.branchesOut.add(l - open + closed);
        }
        if (!out) f &= ~(Eff.BRANCH | Eff.UNCONDITIONAL);
        break;
      }
      case TRY_TABLE: {
        // catch labels are resolved outside the try_table's own label
        const p = immStart[i]! + 1;
        const n = imm[p]!;
        for (let j = 0; j < n; j++) {
          const l = imm[p + 3 + 3 * j]! >>> 0;
          if (l < open) continue;
          f |= Eff.BRANCH;
          if (e) e.branchesOut.add(l - open + closed);
        }
        open++;
        break;
      }
      case OPEN:
        open++;
        break;
      case CLOSE:
        if (open > 0) open--;
        else {
          closed++;
          nested = false;
        }
        break;
      case SPLIT:
        if (open === 0) nested = false;
        break;
    }
    flags |= f;
    if (e) collect(ctx, body, i, op, f, open, e, firstWrite!);
  }
  if (e) e.idempotent = nested && [...e.localsWritten].every((x) => firstWrite!.has(x));
  return flags;
}

// Where each op's state accesses sit among its immediate words, and what they are.
const MEM_READ = 0, MEM_WRITE = 1, DATA_READ = 2, DATA_DROP = 3, TABLE_READ = 4, TABLE_WRITE = 5, ELEM_READ = 6, ELEM_DROP = 7, CALL_DIRECT = 8;
/** Per op: [role, word offset] pairs (word offset -1: no index, ANY). */
const ACCESSES: (readonly (readonly [number, number])[] | null)[] = OPS.map((d) => {
  const at = (k: ImmKind): number[] => {
    const out: number[] = [];
    let off = 0;
    for (const kind of d.imms) {
      if (kind === k) out.push(off);
      const w = immWidth(kind);
      if (w < 0) break; // no op has these kinds after a vector
      off += w;
    }
    return out;
  };
  const e = d.effects;
  const out: [number, number][] = [];
  // memories: a memarg's index is its second word; memory.copy is (dst, src); memory.init is (data, memory)
  for (const w of at(Imm.MemArg)) {
    if (e & Eff.READ_MEM) out.push([MEM_READ, w + 1]);
    if (e & Eff.WRITE_MEM) out.push([MEM_WRITE, w + 1]);
  }
  const mems = at(Imm.Memory);
  const data = at(Imm.Data);
  if (mems.length === 2) out.push([MEM_WRITE, mems[0]!], [MEM_READ, mems[1]!]);
  else if (mems.length === 1 && data.length === 1) out.push([DATA_READ, data[0]!], [MEM_WRITE, mems[0]!]);
  else if (mems.length === 1) {
    if (e & Eff.READ_MEM) out.push([MEM_READ, mems[0]!]);
    if (e & Eff.WRITE_MEM) out.push([MEM_WRITE, mems[0]!]);
  } else if (data.length === 1) out.push([e & Eff.WRITE_MEM ? DATA_DROP : DATA_READ, data[0]!]);
  if (d.imms.includes(Imm.ZeroByte) && e & (Eff.READ_MEM | Eff.WRITE_MEM)) out.push([MEM_READ, -1], [MEM_WRITE, -1]);
  // tables: table.copy is (dst, src); table.init is (elem, table)
  const tables = at(Imm.Table);
  const elems = at(Imm.Elem);
  if (tables.length === 2) out.push([TABLE_WRITE, tables[0]!], [TABLE_READ, tables[1]!]);
  else if (tables.length === 1 && elems.length === 1) out.push([ELEM_READ, elems[0]!], [TABLE_WRITE, tables[0]!]);
  else if (tables.length === 1) {
    if (e & Eff.READ_TABLE) out.push([TABLE_READ, tables[0]!]);
    if (e & Eff.WRITE_TABLE) out.push([TABLE_WRITE, tables[0]!]);
  } else if (elems.length === 1) out.push([e & Eff.WRITE_TABLE ? ELEM_DROP : ELEM_READ, elems[0]!]);
  if (e & Eff.CALL) for (const w of at(Imm.Func)) out.push([CALL_DIRECT, w]);
  return out.length ? out : null;
});

/** Per op: 1 for calls with a function-index immediate (call, return_call). */
const FUNC_CALL = Uint8Array.from(OPS, (d) => (d.effects & Eff.CALL && d.imms.includes(Imm.Func) ? 1 : 0));

/** Adds instruction i's accesses (op `op`, refined flags `f`, inside `open` constructs of the range) to `e`. */
function collect(ctx: EffectsContext, body: Body, i: number, op: number, f: number, open: number, e: Effects, firstWrite: Set<number>): void {
  const p = body.immStart[i]!;
  const imm = body.imm;
  const lw = LOCAL_WORDS[op];
  if (lw) {
    const x = imm[p + lw[0]!]!;
    if (f & Eff.READ_LOCAL) e.localsRead.add(x);
    if (f & Eff.WRITE_LOCAL) {
      if (!e.localsRead.has(x) && !e.localsWritten.has(x) && open === 0) firstWrite.add(x);
      e.localsWritten.add(x);
    }
  }
  const gw = GLOBAL_WORDS[op];
  if (gw) {
    const g = imm[p + gw[0]!]!;
    if (OP_EFFECTS[op]! & Eff.READ_GLOBAL) (isMutable(ctx, g) ? e.globalsRead : e.constGlobalsRead).add(g);
    if (f & Eff.WRITE_GLOBAL) e.globalsWritten.add(g);
  }
  if (f & Eff.CALL && !(FUNC_CALL[op])) e.indirectCalls = true;
  const acc = ACCESSES[op];
  if (!acc) return;
  for (const [role, w] of acc) {
    const x = w < 0 ? ANY : imm[p + w]!;
    switch (role) {
      case MEM_READ: e.memoriesRead.add(x); break;
      case MEM_WRITE: e.memoriesWritten.add(x); break;
      case DATA_READ: e.dataRead.add(x); break;
      case DATA_DROP: e.dataDropped.add(x); break;
      case TABLE_READ: e.tablesRead.add(x); break;
      case TABLE_WRITE: e.tablesWritten.add(x); break;
      case ELEM_READ: e.elemsRead.add(x); break;
      case ELEM_DROP: e.elemsDropped.add(x); break;
      case CALL_DIRECT: e.calls.add(x); break;
    }
  }
}
