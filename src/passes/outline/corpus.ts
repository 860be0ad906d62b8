// The outliner's string: every function body as one run of symbols, one per
// instruction, followed by a unique separator. A symbol stands for an
// instruction with its immediates, except that a local index is replaced by
// the local's type, so the same computation on different locals gets the
// same symbols (the locals are matched up per candidate later). Code the
// outliner must not touch, unreachable or hot, gets one unique symbol per run
// (a position stands for an instruction or for such a run); functions with
// instructions outline has not been taught (GC, call_ref: see OUTLINE_OPS)
// are left out.

import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import { bodyOf } from "../../binary/reader.js";
import { OPS, idOf, opSet } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";
import type { Func, Module } from "../../ir/module.js";
import type { ValType } from "../../ir/types.js";
import type { HotCode } from "../pass.js";
import { localTypesOf, type ModuleEnv } from "../../analysis/module-env.js";
import { stackHeights } from "../../analysis/body-typing.js";
import { computeLiveness, type Liveness } from "../../analysis/liveness.js";
import { instrSize } from "../../analysis/sizes.js";

const TRY = idOf("try");
const TRY_TABLE = idOf("try_table");
/** Arm boundaries and ends: they start reachable code again, so they keep their symbol after unreachable code. */
const BOUNDARY = opSet(["else", "end", "catch", "catch_all", "delegate"]);
/**
 * Per op: 1 if outline may move it. Instructions with a fixed signature
 * (numeric, vector, memory, atomics), the MVP-era control, variable, table
 * and reference instructions, and exception handling, standard and legacy
 * (the sites a handler of the host could tell apart are refused per site:
 * exceptions.ts); not GC, call_ref and the branches on references, which
 * outline has not been taught. A function that uses one is left out of the
 * corpus.
 */
const OUTLINE_OPS = opSet([
  "unreachable", "nop", "block", "loop", "if", "else", "end", "br", "br_if", "br_table", "return", "call", "call_indirect",
  "return_call", "return_call_indirect", "drop", "select", "select_t", "local.get", "local.set", "local.tee", "global.get",
  "global.set", "table.get", "table.set", "table.size", "table.grow", "table.fill", "table.copy", "table.init", "elem.drop",
  "memory.size", "memory.grow", "memory.init", "memory.copy", "memory.fill", "data.drop", "ref.null", "ref.is_null", "ref.func",
  "try", "catch", "catch_all", "delegate", "rethrow", "throw", "throw_ref", "try_table",
]);
for (const d of OPS) if (d.sig !== undefined) OUTLINE_OPS[d.id!] = 1;

function outlineUnderstands(body: Body): boolean {
  for (let i = 0; i < body.count; i++) if (OUTLINE_OPS[body.ops[i]!] === 0) return false;
  return true;
}

/** Per op: 1 for control instructions (a sequence cannot simply grow to the left over them). */
const CONTROL = opSet(["block", "loop", "if", "else", "end", "br", "br_if", "br_table", "return", "unreachable", "return_call", "return_call_indirect", "drop", "select",
  "try", "catch", "catch_all", "delegate", "rethrow", "throw", "throw_ref", "try_table"]);
/**
 * Per op: 1 for the instructions that can make a site refused by
 * exceptions.ts when a sequence grows over them (a local write before a
 * throw, a throw under a tail call): not plain where some function has
 * handlers.
 */
const HANDLER_SENSITIVE = opSet(["local.set", "local.tee", "call", "call_indirect"]);

export interface FuncInfo {
  /** Position in m.functions. */
  index: number;
  func: Func;
  body: Body;
  localTypes: Int32Array;
  results: readonly ValType[];
  /** Facts shared with other rounds, liveness among them (computed on first use). */
  facts: { liveness: Liveness | null | undefined };
}

export interface Corpus {
  /** Symbols in [0, alphabet). */
  s: Int32Array;
  alphabet: number;
  /** Per position: index into infos, -1 for a separator or a run of instructions no repeat may hold. */
  funcAt: Int32Array;
  /** Per position where funcAt is set: the instruction's index in its body (a repeat's copies are contiguous in both). */
  instrAt: Int32Array;
  infos: FuncInfo[];
  /** Prefix sums of instruction sizes: bytes of [p, q) = psize[q] - psize[p]. */
  psize: Int32Array;
  /** Per position: the local index of a local.get/set/tee, else -1. */
  localX: Int32Array;
  /**
   * Per local.get/set/tee: distance back to the previous access of the same
   * local in its function, 0 if none; -1 for other positions. Two copies of
   * a repeat use their locals in the same pattern exactly when these agree
   * wherever they point inside the copy (Baker's prev encoding).
   */
  localPrev: Int32Array;
  /** Some function of the corpus has exception handlers (try, try_table). */
  handlers: boolean;
  /** Instructions and separators of the functions in the corpus, whether or not each has a position. */
  instructions: number;
}

export function liveness(info: FuncInfo): Liveness | null {
  const f = info.facts;
  if (f.liveness === undefined) f.liveness = computeLiveness(info.body, info.localTypes.length);
  return f.liveness;
}

function instrHash(body: Body, i: number, lt: Int32Array): number {
  const op = body.ops[i]!;
  let h = Math.imul(op + 0x9e3779b9, 0x85ebca6b);
  const s = body.immStart[i]!;
  const e = body.immStart[i + 1]!;
  const loc = LOCAL_WORDS[op];
  for (let p = s; p < e; p++) {
    const w = loc && loc.includes(p - s) ? lt[body.imm[p]!]! ^ 0x5bd1e995 : body.imm[p]!;
    h = Math.imul(h ^ w, 0x01000193) ^ (h >>> 15);
  }
  return h | 0;
}

function instrEqual(a: Body, i: number, la: Int32Array, b: Body, j: number, lb: Int32Array): boolean {
  const op = a.ops[i]!;
  if (b.ops[j] !== op) return false;
  const sa = a.immStart[i]!;
  const sb = b.immStart[j]!;
  const n = a.immStart[i + 1]! - sa;
  if (b.immStart[j + 1]! - sb !== n) return false;
  const loc = LOCAL_WORDS[op];
  for (let k = 0; k < n; k++) {
    const wa = a.imm[sa + k]!;
    const wb = b.imm[sb + k]!;
    if (loc && loc.includes(k)) {
      if (la[wa] !== lb[wb]) return false;
    } else if (wa !== wb) return false;
  }
  return true;
}

/** What buildCorpus learns about one function that depends only on its body. */
interface FuncFacts {
  /** The body these facts are about (decoded here when the function had none). */
  body: Body;
  typeIndex: number;
  locals: Func["locals"];
  localTypes: Int32Array;
  /** Stack heights (body-typing's stackHeights); null when outline leaves the function out (OUTLINE_OPS). */
  height: Int32Array | null;
  /** Per instruction: content id in the cache's intern table (-1: unreachable or hot code, which no repeat may hold: not interned). */
  ids: Int32Array;
  /** Per instruction: encoded size. */
  sizes: Int32Array;
  liveness: Liveness | null | undefined;
  /** The body has a try or try_table. */
  handlers: boolean;
}

/**
 * Per-function facts kept across the rounds of one outline run. A round
 * only appends types and functions and replaces the bodies of functions it
 * outlines from, so a function whose body, type and locals are the ones a
 * fact was computed from has the same typing, liveness and symbols; only
 * changed and new functions are analysed again.
 */
export class CorpusCache {
  readonly facts = new Map<Func, FuncFacts>();
  // intern table of instruction contents (a local index stands for its local's
  // type): open addressing on the content hash, slots hold id + 1
  private slots = new Int32Array(1 << 12);
  private hashOf = new Int32Array(1 << 11);
  readonly repBody: Body[] = [];
  readonly repInstr: number[] = [];
  readonly repLt: Int32Array[] = [];

  intern(body: Body, i: number, lt: Int32Array): number {
    const h = instrHash(body, i, lt);
    const mask = this.slots.length - 1;
    let slot = (h ^ (h >>> 16)) & mask;
    for (let e = this.slots[slot]!; e !== 0; e = this.slots[slot]!) {
      const c = e - 1;
      if (this.hashOf[c] === h && instrEqual(this.repBody[c]!, this.repInstr[c]!, this.repLt[c]!, body, i, lt)) return c;
      slot = (slot + 1) & mask;
    }
    const id = this.repBody.length;
    if (id === this.hashOf.length) this.grow();
    this.hashOf[id] = h;
    this.repBody.push(body);
    this.repInstr.push(i);
    this.repLt.push(lt);
    if (2 * (id + 1) > this.slots.length) this.grow();
    else this.slots[slot] = id + 1;
    return id;
  }

  /** Doubles the table (and the hash per id), placing every id again. */
  private grow(): void {
    const n = this.repBody.length;
    if (n >= this.hashOf.length) {
      const h = new Int32Array(this.hashOf.length * 2);
      h.set(this.hashOf);
      this.hashOf = h;
    }
    if (2 * n <= this.slots.length) return;
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < n; id++) {
      const h = this.hashOf[id]!;
      let slot = (h ^ (h >>> 16)) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }

  /** `hot`: the same for every call on one cache (facts of an unchanged body are reused). */
  factsOf(m: Module, env: ModuleEnv, funcIndex: number, hot: HotCode | undefined): FuncFacts {
    const f = m.functions[funcIndex - m.numImportedFuncs]!;
    const old = this.facts.get(f);
    if (old && (f.body === null || f.body === old.body) && f.typeIndex === old.typeIndex && f.locals === old.locals) return old;
    const body = bodyOf(m, f);
    const localTypes = localTypesOf(env, f.typeIndex, f.locals);
    const height = outlineUnderstands(body) ? stackHeights(m, funcIndex, env) : null;
    const n = body.count - 1;
    const ids = new Int32Array(height ? n : 0);
    const sizes = new Int32Array(height ? n : 0);
    let handlers = false;
    if (height) {
      const mayHot = hot !== undefined && hot.isHotFunction(f);
      for (let i = 0; i < n; i++) {
        sizes[i] = instrSize(body, i);
        const op = body.ops[i]!;
        if (op === TRY || op === TRY_TABLE) handlers = true;
        const none = (height[i]! < 0 && BOUNDARY[op] === 0) || (mayHot && hot.isHotInstruction(f, i));
        ids[i] = none ? -1 : this.intern(body, i, localTypes);
      }
    }
    const facts: FuncFacts = { body, typeIndex: f.typeIndex, locals: f.locals, localTypes, height, ids, sizes, liveness: undefined, handlers };
    this.facts.set(f, facts);
    return facts;
  }
}

/** `cache`: one per outline run, always with the same `hot`. */
export function buildCorpus(m: Module, env: ModuleEnv, hot: HotCode | undefined, cache = new CorpusCache()): Corpus {
  const infos: FuncInfo[] = [];
  const facts: FuncFacts[] = [];
  let instructions = 0;
  let handlers = false;
  for (let fi = 0; fi < m.functions.length; fi++) {
    const f = m.functions[fi]!;
    const ff = cache.factsOf(m, env, m.numImportedFuncs + fi, hot);
    if (!ff.height) continue;
    infos.push({ index: fi, func: f, body: ff.body, localTypes: ff.localTypes, results: env.ctx.results[f.typeIndex] ?? [], facts: ff });
    facts.push(ff);
    handlers ||= ff.handlers;
    instructions += ff.body.count; // count - 1 instructions + 1 separator
  }
  // Which instructions stand for themselves: the rest (unreachable code, hot
  // code) can be in no repeat, and each run of them is one unique symbol, so
  // the string of a module whose code is mostly hot is mostly short
  let total = 0;
  for (const { ids } of facts) {
    let prevOwn = true;
    for (let i = 0; i < ids.length; i++) {
      const mine = ids[i]! >= 0;
      if (mine || prevOwn) total++;
      prevOwn = mine;
    }
    total++; // separator
  }
  const s = new Int32Array(total);
  const funcAt = new Int32Array(total).fill(-1);
  const instrAt = new Int32Array(total).fill(-1);
  const psize = new Int32Array(total + 1);
  const localX = new Int32Array(total).fill(-1);
  const localPrev = new Int32Array(total).fill(-1);
  let maxLocals = 0;
  for (const info of infos) maxLocals = Math.max(maxLocals, info.localTypes.length);
  // last access position per local, valid where lastIn holds the function's number + 1
  const lastAt = new Int32Array(maxLocals);
  const lastIn = new Int32Array(maxLocals);
  // symbols are numbered by first appearance, as interning in this order would number them
  const symOf = new Int32Array(cache.repBody.length).fill(-1);
  let next = 0;
  let acc = 0;
  let p = 0;
  for (let k = 0; k < infos.length; k++) {
    const { body } = infos[k]!;
    const { ids, sizes } = facts[k]!;
    let prevOwn = true;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const mine = id >= 0;
      if (!mine && !prevOwn) {
        // one more instruction of the current run: its bytes count, it has no position of its own
        acc += sizes[i]!;
        continue;
      }
      prevOwn = mine;
      psize[p] = acc;
      acc += sizes[i]!;
      if (!mine) {
        s[p++] = next++;
        continue;
      }
      funcAt[p] = k;
      instrAt[p] = i;
      const op = body.ops[i]!;
      const lw = LOCAL_WORDS[op];
      if (lw) {
        // accesses in runs are not recorded: a copy lies between two runs, so an
        // earlier access it does not contain points outside it either way
        const x = body.imm[body.immStart[i]! + lw[0]!]!;
        localX[p] = x;
        localPrev[p] = lastIn[x] === k + 1 ? p - lastAt[x]! : 0;
        lastIn[x] = k + 1;
        lastAt[x] = p;
      }
      let sym = symOf[id]!;
      if (sym < 0) symOf[id] = sym = next++;
      s[p++] = sym;
    }
    psize[p] = acc;
    s[p++] = next++;
  }
  psize[total] = acc;
  return { s, alphabet: next, funcAt, instrAt, infos, psize, localX, localPrev, handlers, instructions };
}

/**
 * True if position q holds an instruction a sequence may be extended over to
 * the left without changing its legality nor which of its sites may be
 * taken (not control; not drop/select, whose input type is open; where
 * some function has handlers, not a local write or call: see
 * HANDLER_SENSITIVE).
 */
export function plainAt(c: Corpus, q: number): boolean {
  const k = c.funcAt[q]!;
  if (k < 0) return false;
  const info = c.infos[k]!;
  const op = info.body.ops[c.instrAt[q]!]!;
  return CONTROL[op] === 0 && !(c.handlers && HANDLER_SENSITIVE[op] === 1);
}
