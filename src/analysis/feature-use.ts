// Which WebAssembly features a module needs (uses) and which its
// `target_features` custom section declares. Passes may add a feature only
// where the input uses or declares it (passes/features.ts), and the report
// lists both and what the output uses.
//
// "Uses" means an engine or validator without the feature would reject the
// module: an instruction of the feature (by its `feature` in the opcode
// table), a type only the feature allows (several results, v128, reference
// types beyond a funcref table), or a module structure (several tables or
// memories, shared or 64-bit memory, passive segments, mutable globals
// crossing the boundary, tags, GC types, extended constant expressions).

import { Imm, OPS, idOf, type Feature } from "../binary/opcodes/index.js";
import { bodyOf } from "../binary/reader.js";
import { BLOCK_EMPTY, type Body } from "../ir/body.js";
import { FUNCREF, HT_EXN, HT_EXTERN, HT_FUNC, V128, heapOf, isNullable, isRef, type Limits, type ValType } from "../ir/types.js";
import type { Module } from "../ir/module.js";
import { WASM_FEATURES, featureOfTargetName, type WasmFeature } from "./feature-names.js";

/** One bit per feature, in WASM_FEATURES order: the scan ORs numbers, not sets. */
const BIT = Object.fromEntries(WASM_FEATURES.map((f, i) => [f, 1 << i])) as Record<WasmFeature, number>;

/** What an opcode table feature needs, in our names (an opcode of one proposal may need others too). */
const OPCODE_FEATURE_BITS: Record<Feature, number> = {
  "mvp": 0,
  "sign-ext": BIT["sign-ext"],
  "sat-trunc": BIT["nontrapping-float-to-int"],
  "bulk-memory": BIT["bulk-memory"],
  "reference-types": BIT["reference-types"],
  "multi-value": BIT["multivalue"],
  "simd": BIT["simd"],
  "relaxed-simd": BIT["relaxed-simd"] | BIT["simd"],
  "threads": BIT["threads"],
  "tail-call": BIT["tail-call"],
  "exceptions-legacy": BIT["exception-handling"],
  "exceptions": BIT["exception-handling"] | BIT["reference-types"],
  // wasm-opt folds typed function references into gc
  "typed-funcref": BIT["gc"] | BIT["reference-types"],
  "gc": BIT["gc"] | BIT["reference-types"],
  "memory64": BIT["memory64"],
  "multi-memory": BIT["multimemory"],
  "extended-const": BIT["extended-const"],
  // its instructions return two values
  "wide-arithmetic": BIT["wide-arithmetic"] | BIT["multivalue"],
};

const OP_BITS = Int32Array.from(OPS, (d) => OPCODE_FEATURE_BITS[d.feature]);
const HAS_BLOCK_TYPE = Uint8Array.from(OPS, (d) => (d.imms[0] === Imm.BlockType ? 1 : 0));
const SELECT_T = idOf("select_t");
/** Arithmetic in a constant expression is the extended-const proposal. */
const EXTENDED_CONST_OPS = ["i32.add", "i32.sub", "i32.mul", "i64.add", "i64.sub", "i64.mul"].map(idOf);

function valTypeBits(t: ValType): number {
  if (t === V128) return BIT["simd"];
  if (!isRef(t)) return 0;
  const h = heapOf(t);
  if (isNullable(t) && (h === HT_FUNC || h === HT_EXTERN)) return BIT["reference-types"];
  if (isNullable(t) && h === HT_EXN) return BIT["exception-handling"] | BIT["reference-types"];
  return BIT["gc"] | BIT["reference-types"];
}

function limitsBits(l: Limits): number {
  return (l.shared ? BIT["threads"] : 0) | (l.is64 ? BIT["memory64"] : 0) | (l.pageSizeLog2 !== undefined ? BIT["custom-page-sizes"] : 0);
}

/** A table of funcref is MVP; any other element type is what that type needs. */
function tableBits(elem: ValType, limits: Limits): number {
  return (elem === FUNCREF ? 0 : valTypeBits(elem)) | limitsBits(limits);
}

function bodyBits(b: Body, constExpr: boolean): number {
  let bits = 0;
  const { ops, imm, immStart } = b;
  for (let i = 0; i < b.count; i++) {
    const op = ops[i]!;
    bits |= OP_BITS[op]!;
    if (HAS_BLOCK_TYPE[op]) {
      const bt = imm[immStart[i]!]!;
      // a type index: parameters or several results
      if (bt < 0) bits |= BIT["multivalue"];
      else if (bt !== BLOCK_EMPTY) bits |= valTypeBits(bt);
    } else if (op === SELECT_T) {
      const s = immStart[i]!;
      for (let k = 1; k <= imm[s]!; k++) bits |= valTypeBits(imm[s + k]!);
    } else if (constExpr && EXTENDED_CONST_OPS.includes(op)) {
      bits |= BIT["extended-const"];
    }
  }
  return bits;
}

function toSet(bits: number): Set<WasmFeature> {
  return new Set(WASM_FEATURES.filter((f) => (bits & BIT[f]) !== 0));
}

/** The features `m` uses as it is now (decodes every body it has not decoded yet). */
export function usedFeatures(m: Module): Set<WasmFeature> {
  let bits = 0;
  for (const t of m.types) {
    const c = t.composite;
    if (c.kind !== "func") bits |= BIT["gc"] | BIT["reference-types"];
    else {
      if (c.results.length > 1) bits |= BIT["multivalue"];
      for (const v of c.params) bits |= valTypeBits(v);
      for (const v of c.results) bits |= valTypeBits(v);
    }
    if (t.form !== "bare" || t.supertypes.length > 0) bits |= BIT["gc"];
  }
  if (m.recGroups.some((g) => g.explicit)) bits |= BIT["gc"];

  const mutableGlobal: boolean[] = [];
  for (const imp of m.imports) {
    const d = imp.desc;
    if (d.kind === "table") bits |= tableBits(d.type.elem, d.type.limits);
    else if (d.kind === "memory") bits |= limitsBits(d.type.limits);
    else if (d.kind === "tag") bits |= BIT["exception-handling"];
    else if (d.kind === "global") {
      mutableGlobal.push(d.type.mutable);
      bits |= valTypeBits(d.type.type) | (d.type.mutable ? BIT["mutable-globals"] : 0);
    }
  }
  if (m.tables.length + m.numImportedTables > 1) bits |= BIT["reference-types"];
  for (const t of m.tables) {
    bits |= tableBits(t.type.elem, t.type.limits);
    if (t.init) bits |= BIT["gc"] | bodyBits(t.init.body, true);
  }
  if (m.memories.length + m.numImportedMemories > 1) bits |= BIT["multimemory"];
  for (const mem of m.memories) bits |= limitsBits(mem.limits);
  for (const g of m.globals) {
    mutableGlobal.push(g.type.mutable);
    bits |= valTypeBits(g.type.type) | bodyBits(g.init.body, true);
  }
  if (m.tags.length > 0) bits |= BIT["exception-handling"];
  for (const e of m.exports) if (e.kind === "global" && mutableGlobal[e.index]) bits |= BIT["mutable-globals"];

  for (const e of m.elements) {
    if (e.flags !== 0) bits |= BIT["bulk-memory"];
    if (e.type !== FUNCREF) bits |= valTypeBits(e.type);
    if (e.mode.kind === "active") bits |= bodyBits(e.mode.offset.body, true);
    if (e.items.kind === "exprs") for (const x of e.items.exprs) bits |= bodyBits(x.body, true);
  }
  if (m.hasDataCount) bits |= BIT["bulk-memory"];
  for (const d of m.data) {
    if (d.flags !== 0) bits |= BIT["bulk-memory"];
    if (d.mode.kind === "active") bits |= bodyBits(d.mode.offset.body, true);
  }

  for (const f of m.functions) {
    for (const l of f.locals) bits |= valTypeBits(l.type);
    bits |= bodyBits(bodyOf(m, f), false);
  }
  return toSet(bits);
}

/**
 * The features the `target_features` custom section declares: entries with
 * prefix '+' (used) or '=' (required). '-' (must not be used) declares
 * nothing. A malformed section declares nothing: custom sections never make
 * a module invalid, and a tool that cannot read this one cannot rely on it.
 */
export function declaredFeatures(m: Module): Set<WasmFeature> {
  const out = new Set<WasmFeature>();
  for (const c of m.customs) {
    if (c.name !== "target_features") continue;
    const entries = readTargetFeatures(c.bytes);
    if (!entries) continue;
    for (const { prefix, name } of entries) {
      const f = featureOfTargetName(name);
      if (f && (prefix === "+" || prefix === "=")) out.add(f);
    }
  }
  return out;
}

/** The section's entries (prefix character and name), or null if it is malformed. */
export function readTargetFeatures(bytes: Uint8Array): { prefix: string; name: string }[] | null {
  let pos = 0;
  const u32 = (): number => {
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (pos >= bytes.length) throw new RangeError("unexpected end");
      const b = bytes[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
    }
    throw new RangeError("LEB128 too long");
  };
  try {
    const n = u32();
    const out: { prefix: string; name: string }[] = [];
    for (let i = 0; i < n; i++) {
      if (pos >= bytes.length) return null;
      const prefix = String.fromCharCode(bytes[pos++]!);
      const len = u32();
      if (pos + len > bytes.length) return null;
      const name = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(pos, pos + len));
      pos += len;
      out.push({ prefix, name });
    }
    return pos === bytes.length ? out : null;
  } catch {
    return null;
  }
}

export interface FeatureUse {
  /** What the module needs. */
  used: ReadonlySet<WasmFeature>;
  /** What its target_features section declares ('+' or '='). */
  declared: ReadonlySet<WasmFeature>;
}

/** Both, for the module as read (the pipeline computes this once, before any pass). */
export function featureUse(m: Module): FeatureUse {
  return { used: usedFeatures(m), declared: declaredFeatures(m) };
}
