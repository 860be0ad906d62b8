// Operand-stack shapes for passes that move instruction sequences around
// (outline, fold-blocks). Two uses share one typer:
//   stackHeights   one pass over a function body: per instruction the stack
//                  height within its frame (or -1 in unreachable code).
//   StackTyper     in "open" mode types a sequence cut out of a body: values
//                  it pops from below its start are its inputs, what is left
//                  its outputs.
// Only MVP-style code is understood (numeric, vector, bulk memory, tables,
// reference basics, tail calls, atomics with fixed signatures); exceptions
// and GC instructions make stackHeights return null, so callers skip the
// function rather than guess.

import { OPS, Imm, idOf } from "../binary/opcodes/index.js";
import { BLOCK_EMPTY, type Body } from "../ir/body.js";
import type { Module } from "../ir/module.js";
import { funcTypeTable } from "../ir/func-types.js";
import { F32, F64, FUNCREF, I32, I64, V128, refType, type ValType } from "../ir/types.js";

/** What typing needs from the module. */
export interface StackEnv {
  /** Per type index: params / results of function types (empty for others). */
  params: readonly (readonly ValType[])[];
  results: readonly (readonly ValType[])[];
  /** Type index of every function (imports first). */
  funcTypes: Int32Array;
  globalTypes: Int32Array;
  tableElem: Int32Array;
  /** I32 or I64 per memory. */
  memAddr: Int32Array;
  /** I32 or I64 per table. */
  tableAddr: Int32Array;
  /**
   * Whether `ref.func $f` is typed (ref $t), its exact type, rather than funcref. An outlined
   * sequence that ends in it returns what it pushed, and a caller that passes the value where
   * (ref null $t) is required needs the exact type; but naming (ref $t) in a new signature needs
   * typed function references, so only where the output may use them (the input does, or they
   * were enabled).
   */
  typedFuncRefs: boolean;
}

/** `typedFuncRefs`: see StackEnv; a pass passes mayIntroduce(m, options, "gc"). */
export function stackEnv(m: Module, typedFuncRefs = false): StackEnv {
  const params = m.types.map((t) => (t.composite.kind === "func" ? t.composite.params : []));
  const results = m.types.map((t) => (t.composite.kind === "func" ? t.composite.results : []));
  const globals: number[] = [];
  const tables: number[] = [];
  const tableAddr: number[] = [];
  const mems: number[] = [];
  for (const imp of m.imports) {
    const d = imp.desc;
    if (d.kind === "global") globals.push(d.type.type);
    else if (d.kind === "table") {
      tables.push(d.type.elem);
      tableAddr.push(d.type.limits.is64 ? I64 : I32);
    } else if (d.kind === "memory") mems.push(d.type.limits.is64 ? I64 : I32);
  }
  for (const g of m.globals) globals.push(g.type.type);
  for (const t of m.tables) {
    tables.push(t.type.elem);
    tableAddr.push(t.type.limits.is64 ? I64 : I32);
  }
  for (const mt of m.memories) mems.push(mt.limits.is64 ? I64 : I32);
  return {
    params,
    results,
    funcTypes: funcTypeTable(m),
    globalTypes: Int32Array.from(globals),
    tableElem: Int32Array.from(tables),
    memAddr: Int32Array.from(mems),
    tableAddr: Int32Array.from(tableAddr),
    typedFuncRefs,
  };
}

// ---- per-op data ----

const enum K {
  UNSUPPORTED = 0,
  SIG,
  UNREACHABLE,
  NOP,
  BLOCK,
  LOOP,
  IF,
  ELSE,
  END,
  BR,
  BR_IF,
  BR_TABLE,
  RETURN,
  CALL,
  CALL_INDIRECT,
  RETURN_CALL,
  RETURN_CALL_INDIRECT,
  DROP,
  SELECT,
  SELECT_T,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  GLOBAL_GET,
  GLOBAL_SET,
  TABLE_GET,
  TABLE_SET,
  TABLE_SIZE,
  TABLE_GROW,
  TABLE_FILL,
  TABLE_COPY,
  TABLE_INIT,
  ELEM_DROP,
  MEMORY_SIZE,
  MEMORY_GROW,
  MEMORY_INIT,
  MEMORY_COPY,
  MEMORY_FILL,
  DATA_DROP,
  REF_NULL,
  REF_IS_NULL,
  REF_FUNC,
}

const SPECIAL: [string, K][] = [
  ["unreachable", K.UNREACHABLE], ["nop", K.NOP], ["block", K.BLOCK], ["loop", K.LOOP], ["if", K.IF],
  ["else", K.ELSE], ["end", K.END], ["br", K.BR], ["br_if", K.BR_IF], ["br_table", K.BR_TABLE],
  ["return", K.RETURN], ["call", K.CALL], ["call_indirect", K.CALL_INDIRECT], ["return_call", K.RETURN_CALL],
  ["return_call_indirect", K.RETURN_CALL_INDIRECT], ["drop", K.DROP], ["select", K.SELECT], ["select_t", K.SELECT_T],
  ["local.get", K.LOCAL_GET], ["local.set", K.LOCAL_SET], ["local.tee", K.LOCAL_TEE], ["global.get", K.GLOBAL_GET],
  ["global.set", K.GLOBAL_SET], ["table.get", K.TABLE_GET], ["table.set", K.TABLE_SET], ["table.size", K.TABLE_SIZE],
  ["table.grow", K.TABLE_GROW], ["table.fill", K.TABLE_FILL], ["table.copy", K.TABLE_COPY], ["table.init", K.TABLE_INIT],
  ["elem.drop", K.ELEM_DROP], ["memory.size", K.MEMORY_SIZE], ["memory.grow", K.MEMORY_GROW],
  ["memory.init", K.MEMORY_INIT], ["memory.copy", K.MEMORY_COPY], ["memory.fill", K.MEMORY_FILL],
  ["data.drop", K.DATA_DROP], ["ref.null", K.REF_NULL], ["ref.is_null", K.REF_IS_NULL], ["ref.func", K.REF_FUNC],
];

/** Marks the memory's address type in a signature. */
const ADDR = -1;
/** A popped value of any type (drop, untyped select). */
export const ANY: ValType = -2;
const EMPTY = new Int32Array(0);

const NOPS = OPS.length;
const KIND = new Uint8Array(NOPS);
const SIG_POP: Int32Array[] = new Array(NOPS).fill(EMPTY);
const SIG_PUSH: Int32Array[] = new Array(NOPS).fill(EMPTY);
/** Word offset of the first MemArg immediate (its memory index is the next word), or -1. */
const MEMARG_AT = new Int8Array(NOPS).fill(-1);

function sigTypes(s: string): Int32Array {
  const map: Record<string, number> = { i32: I32, i64: I64, f32: F32, f64: F64, v128: V128, a: ADDR };
  return Int32Array.from(s.trim().split(/\s+/).filter((t) => t), (t) => {
    const v = map[t];
    if (v === undefined) throw new Error(`bad signature token ${t}`);
    return v;
  });
}

for (const d of OPS) {
  const id = d.id!;
  if (d.sig !== undefined) {
    const [p, r] = d.sig.split("->");
    KIND[id] = K.SIG;
    SIG_POP[id] = sigTypes(p ?? "");
    SIG_PUSH[id] = sigTypes(r ?? "");
    let off = 0;
    for (const k of d.imms) {
      if (k === Imm.MemArg) {
        MEMARG_AT[id] = off;
        break;
      }
      off += k === Imm.I64 || k === Imm.F64 ? 2 : k === Imm.V128 ? 4 : k === Imm.Shuffle ? 16 : 1;
    }
  }
}
for (const [name, k] of SPECIAL) KIND[idOf(name)] = k;

const F_BLOCK = 0;
const F_LOOP = 1;
const F_IF = 2;
const F_ELSE = 3;
const F_FUNC = 4;

/**
 * A stack typer over one body. In closed mode (a whole function) popping an
 * empty frame is a type error; in open mode (a sequence) popping below the
 * start of the outermost frame records an input instead. `ok` turns false
 * when the code is ill-typed, unsupported, or (open mode) pops an input of
 * unknown type or branches out of the sequence.
 */
export class StackTyper {
  ok = true;
  vals = new Int32Array(64);
  sp = 0;
  fp = -1;
  private fKind = new Uint8Array(16);
  private fBase = new Int32Array(16);
  private fUnreach = new Uint8Array(16);
  private fParams: (readonly ValType[])[] = [];
  private fResults: (readonly ValType[])[] = [];
  /** Open mode: inputs popped from below the start, topmost first. */
  inputsRev: ValType[] = [];
  /** Open mode: a `return` (or return_call) was seen. */
  returns = false;
  private open = false;
  private funcResults: readonly ValType[] = [];

  constructor(private readonly env: StackEnv) {}

  /**
   * Starts typing. `funcResults`: the enclosing function's results (for
   * `return`); open: type a sequence (frame 0 is the sequence itself).
   */
  reset(funcResults: readonly ValType[], open: boolean): void {
    this.ok = true;
    this.sp = 0;
    this.fp = -1;
    this.inputsRev.length = 0;
    this.returns = false;
    this.open = open;
    this.funcResults = funcResults;
    this.pushFrame(F_FUNC, [], open ? [] : funcResults);
  }

  /** Depth of the innermost frame (0 = the function or sequence itself). */
  get depth(): number {
    return this.fp;
  }
  /** True if the current frame's stack is polymorphic (after br, return, unreachable). */
  get unreachable(): boolean {
    return this.fUnreach[this.fp] === 1;
  }
  /** Height of the current frame's stack above its base. */
  get height(): number {
    return this.sp - this.fBase[this.fp]!;
  }

  private pushFrame(kind: number, params: readonly ValType[], results: readonly ValType[]): void {
    const fp = ++this.fp;
    if (fp === this.fKind.length) {
      const n = fp * 2;
      const k = new Uint8Array(n); k.set(this.fKind); this.fKind = k;
      const b = new Int32Array(n); b.set(this.fBase); this.fBase = b;
      const u = new Uint8Array(n); u.set(this.fUnreach); this.fUnreach = u;
    }
    this.fKind[fp] = kind;
    this.fBase[fp] = this.sp;
    this.fUnreach[fp] = 0;
    this.fParams[fp] = params;
    this.fResults[fp] = results;
    for (const t of params) this.push(t);
  }

  push(t: ValType): void {
    if (this.sp === this.vals.length) {
      const n = new Int32Array(this.sp * 2);
      n.set(this.vals);
      this.vals = n;
    }
    this.vals[this.sp++] = t;
  }

  /** Pops a value expected to be `e` (ANY: whatever is there); returns its type (ANY if unknown). */
  pop(e: ValType): ValType {
    const fp = this.fp;
    if (this.sp === this.fBase[fp]) {
      if (this.fUnreach[fp] === 1) return e;
      if (this.open && fp === 0 && e !== ANY) {
        this.inputsRev.push(e);
        return e;
      }
      this.ok = false;
      return e;
    }
    return this.vals[--this.sp]!;
  }

  private popAll(ts: readonly ValType[]): void {
    for (let k = ts.length - 1; k >= 0; k--) this.pop(ts[k]!);
  }

  private pushAll(ts: readonly ValType[]): void {
    for (let k = 0; k < ts.length; k++) this.push(ts[k]!);
  }

  private setUnreachable(): void {
    this.sp = this.fBase[this.fp]!;
    this.fUnreach[this.fp] = 1;
  }

  /** Label types of relative depth l, or null (open mode: a label outside the sequence). */
  private label(l: number): readonly ValType[] | null {
    const j = this.fp - l;
    if (j < 0 || (this.open && j === 0) || l < 0) return null;
    return this.fKind[j] === F_LOOP ? this.fParams[j]! : this.fResults[j]!;
  }

  private blockType(w: number): [readonly ValType[], readonly ValType[]] {
    if (w === BLOCK_EMPTY) return [[], []];
    if (w < 0) return [this.env.params[-w - 1] ?? [], this.env.results[-w - 1] ?? []];
    return [[], [w]];
  }

  private memAddr(body: Body, i: number, op: number): ValType {
    const at = MEMARG_AT[op]!;
    const mem = at < 0 ? 0 : body.imm[body.immStart[i]! + at + 1]!;
    return this.env.memAddr[mem] ?? I32;
  }

  /** Types instruction i of body; localTypes[x] is the type of local x. */
  step(body: Body, i: number, localTypes: Int32Array): void {
    const op = body.ops[i]!;
    const w = body.immStart[i]!;
    const imm = body.imm;
    const env = this.env;
    switch (KIND[op] as K) {
      case K.SIG: {
        const pops = SIG_POP[op]!;
        const pushes = SIG_PUSH[op]!;
        let a = I32;
        if (pops.includes(ADDR) || pushes.includes(ADDR)) a = this.memAddr(body, i, op);
        for (let k = pops.length - 1; k >= 0; k--) this.pop(pops[k] === ADDR ? a : pops[k]!);
        for (let k = 0; k < pushes.length; k++) this.push(pushes[k] === ADDR ? a : pushes[k]!);
        return;
      }
      case K.NOP:
        return;
      case K.UNREACHABLE:
        this.setUnreachable();
        return;
      case K.BLOCK:
      case K.LOOP: {
        const [p, r] = this.blockType(imm[w]!);
        this.popAll(p);
        this.pushFrame(KIND[op] === K.BLOCK ? F_BLOCK : F_LOOP, p, r);
        return;
      }
      case K.IF: {
        const [p, r] = this.blockType(imm[w]!);
        this.pop(I32);
        this.popAll(p);
        this.pushFrame(F_IF, p, r);
        return;
      }
      case K.ELSE: {
        if (this.fp <= 0 || this.fKind[this.fp] !== F_IF) return void (this.ok = false);
        const p = this.fParams[this.fp]!;
        const r = this.fResults[this.fp]!;
        this.popAll(r);
        this.fp--;
        this.pushFrame(F_ELSE, p, r);
        return;
      }
      case K.END: {
        if (this.fp <= 0) return void (this.ok = false);
        const r = this.fResults[this.fp]!;
        // an `if` without `else` needs equal params and results; treat as ill-typed otherwise
        if (this.fKind[this.fp] === F_IF && !sameTypes(this.fParams[this.fp]!, r)) this.ok = false;
        this.popAll(r);
        if (this.sp !== this.fBase[this.fp]) this.ok = false;
        this.fp--;
        this.pushAll(r);
        return;
      }
      case K.BR: {
        const lt = this.label(imm[w]!);
        if (!lt) return void (this.ok = false);
        this.popAll(lt);
        this.setUnreachable();
        return;
      }
      case K.BR_IF: {
        const lt = this.label(imm[w]!);
        if (!lt) return void (this.ok = false);
        this.pop(I32);
        this.popAll(lt);
        this.pushAll(lt);
        return;
      }
      case K.BR_TABLE: {
        const n = imm[w]!;
        this.pop(I32);
        const lt = this.label(imm[w + 1 + n]!);
        if (!lt) return void (this.ok = false);
        for (let k = 0; k < n; k++) {
          const o = this.label(imm[w + 1 + k]!);
          if (!o || o.length !== lt.length) return void (this.ok = false);
        }
        this.popAll(lt);
        this.setUnreachable();
        return;
      }
      case K.RETURN:
        this.returns = true;
        this.popAll(this.funcResults);
        this.setUnreachable();
        return;
      case K.CALL:
      case K.RETURN_CALL: {
        const t = env.funcTypes[imm[w]!]!;
        this.popAll(env.params[t]!);
        if (KIND[op] === K.CALL) this.pushAll(env.results[t]!);
        else {
          this.returns = true;
          this.setUnreachable();
        }
        return;
      }
      case K.CALL_INDIRECT:
      case K.RETURN_CALL_INDIRECT: {
        const t = imm[w]!;
        this.pop(env.tableAddr[imm[w + 1]!] ?? I32);
        this.popAll(env.params[t]!);
        if (KIND[op] === K.CALL_INDIRECT) this.pushAll(env.results[t]!);
        else {
          this.returns = true;
          this.setUnreachable();
        }
        return;
      }
      case K.DROP:
        this.pop(ANY);
        return;
      case K.SELECT: {
        this.pop(I32);
        const b = this.pop(ANY);
        const a = this.pop(ANY);
        if (a === ANY && b === ANY && !this.unreachable) return void (this.ok = false);
        this.push(a === ANY ? b : a);
        return;
      }
      case K.SELECT_T: {
        const t = imm[w + 1]!;
        this.pop(I32);
        this.pop(t);
        this.pop(t);
        this.push(t);
        return;
      }
      case K.LOCAL_GET:
        this.push(localTypes[imm[w]!]!);
        return;
      case K.LOCAL_SET:
        this.pop(localTypes[imm[w]!]!);
        return;
      case K.LOCAL_TEE: {
        const t = localTypes[imm[w]!]!;
        this.pop(t);
        this.push(t);
        return;
      }
      case K.GLOBAL_GET:
        this.push(env.globalTypes[imm[w]!]!);
        return;
      case K.GLOBAL_SET:
        this.pop(env.globalTypes[imm[w]!]!);
        return;
      case K.TABLE_GET:
        this.pop(env.tableAddr[imm[w]!]!);
        this.push(env.tableElem[imm[w]!]!);
        return;
      case K.TABLE_SET:
        this.pop(env.tableElem[imm[w]!]!);
        this.pop(env.tableAddr[imm[w]!]!);
        return;
      case K.TABLE_SIZE:
        this.push(env.tableAddr[imm[w]!]!);
        return;
      case K.TABLE_GROW: {
        const a = env.tableAddr[imm[w]!]!;
        this.pop(a);
        this.pop(env.tableElem[imm[w]!]!);
        this.push(a);
        return;
      }
      case K.TABLE_FILL: {
        const a = env.tableAddr[imm[w]!]!;
        this.pop(a);
        this.pop(env.tableElem[imm[w]!]!);
        this.pop(a);
        return;
      }
      case K.TABLE_COPY: {
        // table.copy dst src: operands d (dst addr), s (src addr), n (min addr)
        const ad = env.tableAddr[imm[w]!]!;
        const as = env.tableAddr[imm[w + 1]!]!;
        this.pop(ad === I64 && as === I64 ? I64 : I32);
        this.pop(as);
        this.pop(ad);
        return;
      }
      case K.TABLE_INIT:
        this.pop(I32);
        this.pop(I32);
        this.pop(env.tableAddr[imm[w + 1]!]!);
        return;
      case K.ELEM_DROP:
      case K.DATA_DROP:
        return;
      case K.MEMORY_SIZE:
        this.push(env.memAddr[imm[w]!] ?? I32);
        return;
      case K.MEMORY_GROW: {
        const a = env.memAddr[imm[w]!] ?? I32;
        this.pop(a);
        this.push(a);
        return;
      }
      case K.MEMORY_INIT:
        this.pop(I32);
        this.pop(I32);
        this.pop(env.memAddr[imm[w + 1]!] ?? I32);
        return;
      case K.MEMORY_COPY: {
        const ad = env.memAddr[imm[w]!] ?? I32;
        const as = env.memAddr[imm[w + 1]!] ?? I32;
        this.pop(ad === I64 && as === I64 ? I64 : I32);
        this.pop(as);
        this.pop(ad);
        return;
      }
      case K.MEMORY_FILL: {
        const a = env.memAddr[imm[w]!] ?? I32;
        this.pop(a);
        this.pop(I32);
        this.pop(a);
        return;
      }
      case K.REF_NULL:
        this.push(refType(imm[w]!, true));
        return;
      case K.REF_IS_NULL:
        this.pop(ANY);
        this.push(I32);
        return;
      case K.REF_FUNC: {
        const t = env.funcTypes[imm[w]!];
        this.push(env.typedFuncRefs && t !== undefined ? refType(t, false) : FUNCREF);
        return;
      }
      default:
        this.ok = false;
    }
  }
}

function sameTypes(a: readonly ValType[], b: readonly ValType[]): boolean {
  return a.length === b.length && a.every((t, k) => t === b[k]);
}

/** Local types of a function (params first), as a lookup. */
export function localTypesOf(env: StackEnv, typeIndex: number, locals: readonly { count: number; type: ValType }[]): Int32Array {
  const params = env.params[typeIndex] ?? [];
  let n = params.length;
  for (const l of locals) n += l.count;
  const out = new Int32Array(n);
  let k = 0;
  for (const p of params) out[k++] = p;
  for (const l of locals) {
    out.fill(l.type, k, k + l.count);
    k += l.count;
  }
  return out;
}

/**
 * Types a whole function body: per instruction the stack height above the
 * base of its frame, -1 where the code is unreachable. Null if the body uses
 * an instruction the typer does not understand (or does not type-check,
 * which valid input never does).
 */
export function stackHeights(env: StackEnv, typeIndex: number, localTypes: Int32Array, body: Body, typer = new StackTyper(env)): Int32Array | null {
  const n = body.count;
  const height = new Int32Array(n);
  typer.reset(env.results[typeIndex] ?? [], false);
  for (let i = 0; i < n; i++) {
    if (KIND[body.ops[i]!] === K.UNSUPPORTED) return null;
    height[i] = typer.unreachable ? -1 : typer.height;
    if (i === n - 1) break; // the function's own end
    typer.step(body, i, localTypes);
    if (!typer.ok) return null;
  }
  return height;
}
