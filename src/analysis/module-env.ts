// What typing an instruction needs to know about its module: the index
// spaces (imports first) of functions, tables, memories, globals, tags and
// segments, as flat arrays. One environment for the validator and for the
// passes that ask it for types (analysis/validate-code.ts). It describes one
// state of the module: build a new one after a pass adds or changes entities.

import { idOf } from "../binary/opcodes/index.js";
import type { ConstExpr, Module } from "../ir/module.js";
import { FUNCREF, HT_FUNC, I32, I64, refType, type ValType } from "../ir/types.js";
import { buildTypeContext, type TypeContext } from "./typecontext.js";

export interface ModuleEnv {
  ctx: TypeContext;
  /** Type index of every function. */
  funcTypes: Int32Array;
  /** Element type of every table. */
  tableElem: Int32Array;
  /** Address type (I32 / I64) of every table. */
  tableAddr: Int32Array;
  /** Address type (I32 / I64) of every memory. */
  memAddr: Int32Array;
  globalTypes: Int32Array;
  /** 1 if the global is mutable. */
  globalMut: Uint8Array;
  /** Type index of every tag. */
  tagTypes: Int32Array;
  /** Reference type of every element segment. */
  elemTypes: Int32Array;
  /** Number of data segments. */
  dataCount: number;
  /** False if the module has no data count section (memory.init / data.drop then are not allowed). */
  hasDataCount: boolean;
  /** Per function: 1 if it may be named by ref.func inside a function body (C.refs). */
  declared: Uint8Array;
  /** Atomic instructions allowed. */
  threads: boolean;
  /** Function names for error messages. */
  funcNames: Map<number, string> | null;
}

const ID_REF_FUNC = idOf("ref.func");
const REF_FUNC = refType(HT_FUNC, false);

/**
 * The environment of module `m`. It does not check the module's declarations
 * (validateModule does that before it builds one); `ctx` may be passed when
 * the caller has built it already.
 */
export function moduleEnv(m: Module, ctx: TypeContext = buildTypeContext(m), threads = true): ModuleEnv {
  const funcTypes: number[] = [];
  const tableElem: number[] = [];
  const tableAddr: number[] = [];
  const memAddr: number[] = [];
  const globalTypes: number[] = [];
  const globalMut: number[] = [];
  const tagTypes: number[] = [];
  for (const imp of m.imports) {
    const d = imp.desc;
    switch (d.kind) {
      case "func":
        funcTypes.push(d.typeIndex);
        break;
      case "table":
        tableElem.push(d.type.elem);
        tableAddr.push(d.type.limits.is64 ? I64 : I32);
        break;
      case "memory":
        memAddr.push(d.type.limits.is64 ? I64 : I32);
        break;
      case "global":
        globalTypes.push(d.type.type);
        globalMut.push(d.type.mutable ? 1 : 0);
        break;
      case "tag":
        tagTypes.push(d.type.typeIndex);
        break;
    }
  }
  for (const f of m.functions) funcTypes.push(f.typeIndex);
  for (const t of m.tables) {
    tableElem.push(t.type.elem);
    tableAddr.push(t.type.limits.is64 ? I64 : I32);
  }
  for (const mem of m.memories) memAddr.push(mem.limits.is64 ? I64 : I32);
  for (const g of m.globals) {
    globalTypes.push(g.type.type);
    globalMut.push(g.type.mutable ? 1 : 0);
  }
  for (const t of m.tags) tagTypes.push(t.type.typeIndex);
  // The function-index forms (flags 0..3) have type (ref func), as the
  // reference interpreter and the 3.0 test suite have it (elem.wast: form 2
  // with element kind 0x00 fills a (ref func) table).
  const elemTypes = m.elements.map((e) => (e.items.kind === "funcs" && e.type === FUNCREF ? REF_FUNC : e.type));
  return {
    ctx,
    funcTypes: Int32Array.from(funcTypes),
    tableElem: Int32Array.from(tableElem),
    tableAddr: Int32Array.from(tableAddr),
    memAddr: Int32Array.from(memAddr),
    globalTypes: Int32Array.from(globalTypes),
    globalMut: Uint8Array.from(globalMut),
    tagTypes: Int32Array.from(tagTypes),
    elemTypes: Int32Array.from(elemTypes),
    dataCount: m.data.length,
    hasDataCount: m.hasDataCount,
    declared: declaredFunctions(m, funcTypes.length),
    threads,
    funcNames: m.names?.functions ?? null,
  };
}

/**
 * C.refs, the functions ref.func may name in a function body: those named
 * in exports, element segments, and global, table and segment initializers
 * and offsets, as the reference interpreter and wasmparser have it.
 */
function declaredFunctions(m: Module, nFuncs: number): Uint8Array {
  const declared = new Uint8Array(nFuncs);
  const declare = (x: number): void => {
    if (x >= 0 && x < nFuncs) declared[x] = 1;
  };
  const scan = (e: ConstExpr): void => {
    const b = e.body;
    for (let i = 0; i < b.count; i++) if (b.ops[i] === ID_REF_FUNC) declare(b.imm[b.immStart[i]!]!);
  };
  for (const ex of m.exports) if (ex.kind === "func") declare(ex.index);
  for (const g of m.globals) scan(g.init);
  for (const t of m.tables) if (t.init) scan(t.init);
  for (const e of m.elements) {
    if (e.mode.kind === "active") scan(e.mode.offset);
    if (e.items.kind === "funcs") for (const x of e.items.funcs) declare(x);
    else for (const x of e.items.exprs) scan(x);
  }
  for (const d of m.data) if (d.mode.kind === "active") scan(d.mode.offset);
  return declared;
}

/** Types of a function's locals (params first), indexed by local index. */
export function localTypesOf(env: ModuleEnv, typeIndex: number, locals: readonly { count: number; type: ValType }[]): Int32Array {
  const params = env.ctx.params[typeIndex] ?? [];
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
