// Module validation (WebAssembly 3.0, plus the legacy exception instructions
// and, unless disabled, the threads proposal): types, imports, functions,
// tables, memories, globals, tags, exports, start, element and data segments,
// and every function body. Throws WasmValidationError on the first error.
//
// Data count: memory.init / data.drop without a data count section is
// "malformed" in the spec (a binary-format rule); the reader reports it for
// input files (WasmDecodeError). The validator checks it too, as a
// WasmValidationError, so that a module built or changed by a pass cannot
// slip through.
//
// Offsets: the module model keeps file offsets for instructions (Body.offsets)
// only; errors about other entities (types, imports, limits, exports ...) carry
// offset 0 and name the entity in the reason.
//
// Declared functions (C.refs, for ref.func in function bodies): functions
// named in element segments, global and table initializers, segment offsets,
// and exports — as the reference interpreter and wasmparser have it.
//
// Contexts of constant expressions (3.0): table initializers see the imported
// globals; global initializers the imported and earlier defined globals;
// element and data segment offsets and items all globals. global.get in a
// constant expression needs an immutable global.
//
// Threads: accepted by default (shared memories, atomics; atomic accesses
// need exactly the natural alignment). `{ threads: false }` rejects them.
// The rules of the threads proposal's own tests that predate multi-memory
// ("multiple memories", "multiple tables") are not applied: Wasm 3.0 allows both.

import { WasmValidationError } from "../binary/errors.js";
import { bodyOf } from "../binary/reader.js";
import type { ConstExpr, Module, TableType } from "../ir/module.js";
import { FUNCREF, REF_BASE, refType, type Limits, type ValType } from "../ir/types.js";
import { CodeValidator } from "./validate-code.js";
import { moduleEnv } from "./module-env.js";
import {
  KIND_FUNC,
  buildTypeContext,
  isSubtype,
  isValidValType,
  isDefaultable,
  typeName,
  type TypeContext,
} from "./typecontext.js";

export interface ValidateOptions {
  /** Accept the threads proposal (shared memories, atomic instructions). Default true. */
  threads?: boolean;
}

function fail(reason: string, offset = 0): never {
  throw new WasmValidationError(reason, offset);
}

function big(v: number | bigint): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}

function exprOffset(e: ConstExpr): number {
  const o = e.body.offsets;
  return o && o.length > 0 ? o[0]! : 0;
}

export function validateModule(m: Module, options: ValidateOptions = {}): void {
  const threads = options.threads ?? true;
  const ctx = buildTypeContext(m);

  const checkVal = (t: ValType, what: string): void => {
    if (!isValidValType(ctx, t)) fail(`unknown type: invalid value type in ${what}`);
  };
  const checkFuncTypeIndex = (x: number, what: string): void => {
    if (!(x >= 0 && x < ctx.count)) fail(`unknown type ${x >>> 0} in ${what}`);
    if (ctx.kind[x] !== KIND_FUNC) fail(`type mismatch: type ${x} of ${what} is not a function type`);
  };
  const checkTag = (x: number, what: string): void => {
    checkFuncTypeIndex(x, what);
    if (ctx.results[x]!.length !== 0) fail(`non-empty tag result type in ${what}`);
  };
  const checkTableType = (t: TableType, what: string): void => {
    if (t.elem < REF_BASE) fail(`type mismatch: table element type of ${what} is not a reference type`);
    checkVal(t.elem, what);
    const l = t.limits;
    const limit = l.is64 ? (1n << 64n) - 1n : (1n << 32n) - 1n;
    if (big(l.min) > limit || (l.max !== null && big(l.max) > limit)) fail(`table size must be at most 2^${l.is64 ? 64 : 32}-1 in ${what}`);
    checkMinMax(l, what);
    if (l.shared) fail(`tables cannot be shared (${what})`);
  };
  const checkMemType = (l: Limits, what: string): void => {
    const log2 = l.pageSizeLog2 ?? 16;
    if (log2 !== 0 && log2 !== 16) fail(`invalid custom page size 2^${log2} (must be 1 or 65536 bytes) in ${what}`);
    // byte-sized pages: the page count itself must fit the address type
    const bits = l.is64 ? 64 : 32;
    const pages = log2 === 0 ? (1n << BigInt(bits)) - 1n : 1n << BigInt(bits - log2);
    if (big(l.min) > pages || (l.max !== null && big(l.max) > pages)) {
      fail(l.is64 ? `memory size must be at most 2^48 pages (in ${what})` : `memory size must be at most 65536 pages (4GiB) (in ${what})`);
    }
    checkMinMax(l, what);
    if (l.shared) {
      if (!threads) fail(`shared memories require the threads feature (${what})`);
      if (l.max === null) fail(`shared memory must have maximum (${what})`);
    }
  };

  // ---- index spaces (checked here, built by moduleEnv) ----
  let nFuncs = 0;
  let nTables = 0;
  let nMems = 0;
  let nGlobals = 0;
  let nTags = 0;
  for (let i = 0; i < m.imports.length; i++) {
    const imp = m.imports[i]!;
    const what = `import ${i} ("${imp.module}" "${imp.name}")`;
    const d = imp.desc;
    switch (d.kind) {
      case "func":
        checkFuncTypeIndex(d.typeIndex, what);
        nFuncs++;
        break;
      case "table":
        checkTableType(d.type, what);
        nTables++;
        break;
      case "memory":
        checkMemType(d.type.limits, what);
        nMems++;
        break;
      case "global":
        checkVal(d.type.type, what);
        nGlobals++;
        break;
      case "tag":
        checkTag(d.type.typeIndex, what);
        nTags++;
        break;
    }
  }
  const nImportedGlobals = nGlobals;
  for (const f of m.functions) checkFuncTypeIndex(f.typeIndex, `function ${nFuncs++}`);
  for (const t of m.tables) checkTableType(t.type, `table ${nTables++}`);
  for (const mem of m.memories) checkMemType(mem.limits, `memory ${nMems++}`);
  for (const g of m.globals) checkVal(g.type.type, `global ${nGlobals++}`);
  for (const t of m.tags) checkTag(t.type.typeIndex, `tag ${nTags++}`);
  for (let i = 0; i < m.elements.length; i++) {
    const e = m.elements[i]!;
    if (e.type < REF_BASE) fail(`type mismatch: element segment ${i} type is not a reference type`);
    checkVal(e.type, `element segment ${i}`);
  }

  const env = moduleEnv(m, ctx, threads);
  const { funcTypes, tableElem, tableAddr, memAddr, elemTypes } = env;
  const cv = new CodeValidator(env);

  // ---- definitions with constant expressions ----
  for (let i = 0; i < m.tables.length; i++) {
    const t = m.tables[i]!;
    if (t.init) cv.validateConstExpr(t.init.body, t.type.elem, nImportedGlobals, exprOffset(t.init));
    else if (!isDefaultable(t.type.elem)) {
      fail(`type mismatch: table ${m.numImportedTables + i} of non-nullable type ${typeName(t.type.elem)} needs an initializer`);
    }
  }
  for (let i = 0; i < m.globals.length; i++) {
    const g = m.globals[i]!;
    cv.validateConstExpr(g.init.body, g.type.type, nImportedGlobals + i, exprOffset(g.init));
  }

  // ---- exports ----
  const names = new Set<string>();
  for (const ex of m.exports) {
    if (names.has(ex.name)) fail(`duplicate export name "${ex.name}"`);
    names.add(ex.name);
    const x = ex.index;
    const n =
      ex.kind === "func" ? nFuncs
      : ex.kind === "table" ? tableElem.length
      : ex.kind === "memory" ? memAddr.length
      : ex.kind === "global" ? nGlobals
      : nTags;
    if (!(x >= 0 && x < n)) fail(`unknown ${ex.kind === "func" ? "function" : ex.kind} ${x >>> 0} in export "${ex.name}"`);
  }

  // ---- start ----
  if (m.start !== null) {
    const x = m.start;
    if (!(x >= 0 && x < nFuncs)) fail(`unknown function ${x >>> 0} (start function)`);
    const t = funcTypes[x]!;
    if (ctx.params[t]!.length !== 0 || ctx.results[t]!.length !== 0) fail(`start function ${x} must have type [] -> []`);
  }

  // ---- element segments ----
  for (let i = 0; i < m.elements.length; i++) {
    const e = m.elements[i]!;
    if (e.mode.kind === "active") {
      const x = e.mode.table;
      if (!(x >= 0 && x < tableElem.length)) fail(`unknown table ${x >>> 0} in element segment ${i}`, exprOffset(e.mode.offset));
      cv.validateConstExpr(e.mode.offset.body, tableAddr[x]!, nGlobals, exprOffset(e.mode.offset));
      if (!isSubtype(ctx, elemTypes[i]!, tableElem[x]!)) {
        fail(`type mismatch: element segment ${i} of type ${typeName(elemTypes[i]!)} does not fit table ${x} of type ${typeName(tableElem[x]!)}`, exprOffset(e.mode.offset));
      }
    }
    if (e.items.kind === "funcs") {
      for (const f of e.items.funcs) {
        if (!(f >= 0 && f < nFuncs)) fail(`unknown function ${f >>> 0} in element segment ${i}`);
        if (e.type !== FUNCREF && !isSubtype(ctx, refType(funcTypes[f]!, false), e.type)) {
          fail(`type mismatch: function ${f} in element segment ${i} of type ${typeName(e.type)}`);
        }
      }
    } else {
      for (const x of e.items.exprs) cv.validateConstExpr(x.body, e.type, nGlobals, exprOffset(x));
    }
  }

  // ---- data segments ----
  for (let i = 0; i < m.data.length; i++) {
    const d = m.data[i]!;
    if (d.mode.kind !== "active") continue;
    const x = d.mode.memory;
    if (!(x >= 0 && x < memAddr.length)) fail(`unknown memory ${x >>> 0} in data segment ${i}`, exprOffset(d.mode.offset));
    cv.validateConstExpr(d.mode.offset.body, memAddr[x]!, nGlobals, exprOffset(d.mode.offset));
  }

  // ---- code ----
  const base = m.numImportedFuncs;
  for (let i = 0; i < m.functions.length; i++) {
    const f = m.functions[i]!;
    const body = bodyOf(m, f);
    cv.validateFunction(base + i, f.typeIndex, f.locals, body, f.codeOffset);
  }
}

function checkMinMax(l: Limits, what: string): void {
  if (l.max !== null && big(l.min) > big(l.max)) fail(`size minimum must not be greater than maximum (${what})`);
}

/** Convenience for passes: the type context of a module (validating its type section). */
export function moduleTypeContext(m: Module): TypeContext {
  return buildTypeContext(m);
}
