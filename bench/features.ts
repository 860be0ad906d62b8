// Which wasm-opt feature flags a module needs.
//
// wasm-opt reads a module's `target_features` custom section when there is
// one; then no flags are needed, except where binaryen wants more than the
// spec (table.fill: bulk-memory too). Otherwise it assumes its default feature set
// (in binaryen 132: sign-ext and mutable-globals) and rejects anything beyond
// it. For such files we enable exactly the features the module uses, found by
// scanning it with our own reader: every instruction's feature from the opcode
// table, plus the module-level constructs that need a feature (multi-value
// types, v128 and reference types, passive segments, tags, shared or 64-bit
// memories ...). Enabling only what the input already uses keeps the baseline
// runnable wherever the input ran: with more features on, -Oz could emit
// instructions the original target never had (e.g. memory.fill from
// memory-packing). `--all-features` is never used.

import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { OPS, Imm, type Feature } from "../src/binary/opcodes/index.js";
import { immWordCount } from "../src/ir/imm-layout.js";
import type { Body } from "../src/ir/body.js";
import type { ConstExpr, Module } from "../src/ir/module.js";
import { FUNCREF, I32, I64, F32, F64, V128, isRef, type ValType } from "../src/ir/types.js";

/** Binaryen's flags for each of our feature names. */
const BINARYEN_FLAGS: Record<Exclude<Feature, "mvp">, string[]> = {
  "sign-ext": ["--enable-sign-ext"],
  "sat-trunc": ["--enable-nontrapping-float-to-int"],
  "bulk-memory": ["--enable-bulk-memory"],
  "reference-types": ["--enable-reference-types"],
  "multi-value": ["--enable-multivalue"],
  simd: ["--enable-simd"],
  "relaxed-simd": ["--enable-simd", "--enable-relaxed-simd"],
  threads: ["--enable-threads"],
  "tail-call": ["--enable-tail-call"],
  "exceptions-legacy": ["--enable-exception-handling"],
  exceptions: ["--enable-exception-handling", "--enable-reference-types"],
  "typed-funcref": ["--enable-reference-types", "--enable-gc"],
  gc: ["--enable-reference-types", "--enable-gc"],
  memory64: ["--enable-memory64"],
  "multi-memory": ["--enable-multimemory"],
  "extended-const": ["--enable-extended-const"],
  "wide-arithmetic": ["--enable-wide-arithmetic"],
};

/** Features binaryen 132 enables without any flag (`wasm-opt --print-features` on an empty module). */
const BINARYEN_DEFAULT: ReadonlySet<string> = new Set(["sign-ext", "mutable-globals"]);

export interface FeatureInfo {
  /** The module's own target_features section, as "+name"/"-name" entries, or null if it has none. */
  targetFeatures: string[] | null;
  /** Features the module uses (our names), sorted; empty when `targetFeatures` decided. */
  used: string[];
  /** Flags to pass to wasm-opt. */
  flags: string[];
  /** One sentence saying how the flags were chosen. */
  how: string;
}

export function detectFeatures(bytes: Uint8Array): FeatureInfo {
  const m = readModule(bytes);
  const tf = m.customs.find((c) => c.name === "target_features");
  decodeAllBodies(m);
  if (tf) {
    const list = parseTargetFeatures(tf.bytes);
    // Binaryen's validator wants bulk-memory for table.fill as well as reference-types; wasm-bindgen's
    // externref table setup uses table.fill and declares only reference-types (photon).
    const fill = !list.includes("+bulk-memory") && usesOp(m, "table.fill");
    return {
      targetFeatures: list,
      used: [],
      flags: fill ? ["--enable-bulk-memory"] : [],
      how:
        "the module has a target_features section; wasm-opt takes its features from there" +
        (fill ? ", plus bulk-memory, which binaryen requires for the table.fill the module uses" : ""),
    };
  }
  const used = [...usedFeatures(m)].sort();
  const flags: string[] = [];
  for (const f of used) {
    if (BINARYEN_DEFAULT.has(f)) continue;
    const fl = f === "mutable-globals" ? [] : BINARYEN_FLAGS[f as Exclude<Feature, "mvp">];
    for (const x of fl ?? []) if (!flags.includes(x)) flags.push(x);
  }
  return {
    targetFeatures: null,
    used,
    flags,
    how:
      "no target_features section: binaryen's defaults (sign-ext, mutable-globals) plus every feature the module uses " +
      "(found by scanning its instructions and declarations)",
  };
}

/** Parses a target_features payload: a vector of (prefix byte, name). */
export function parseTargetFeatures(p: Uint8Array): string[] {
  let pos = 0;
  const u32 = (): number => {
    let r = 0;
    let shift = 0;
    for (;;) {
      const b = p[pos++];
      if (b === undefined) throw new Error("truncated target_features section");
      r |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return r >>> 0;
      shift += 7;
    }
  };
  const n = u32();
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const prefix = String.fromCharCode(p[pos++] ?? 0x3f);
    const len = u32();
    out.push(prefix + new TextDecoder().decode(p.subarray(pos, pos + len)));
    pos += len;
  }
  return out;
}

function usedFeatures(m: Module): Set<string> {
  const used = new Set<string>();
  const valType = (t: ValType): void => {
    if (t === V128) used.add("simd");
    else if (isRef(t)) {
      if (t !== FUNCREF) used.add("reference-types");
    } else if (t !== I32 && t !== I64 && t !== F32 && t !== F64) used.add("gc"); // packed i8/i16 only occur in GC fields
  };
  // Types.
  for (const st of m.types) {
    const c = st.composite;
    if (c.kind === "func") {
      if (c.results.length > 1) used.add("multi-value");
      c.params.forEach(valType);
      c.results.forEach(valType);
    } else {
      used.add("gc");
    }
    if (st.supertypes.length > 0 || st.form !== "bare") used.add("gc");
  }
  if (m.recGroups.some((g) => g.explicit)) used.add("gc");
  // Imports, tables, memories, globals, tags.
  for (const imp of m.imports) {
    const d = imp.desc;
    if (d.kind === "global") {
      if (d.type.mutable) used.add("mutable-globals");
      valType(d.type.type);
    } else if (d.kind === "memory") {
      if (d.type.limits.shared) used.add("threads");
      if (d.type.limits.is64) used.add("memory64");
    } else if (d.kind === "table") {
      valType(d.type.elem);
      if (d.type.limits.is64) used.add("memory64");
    } else if (d.kind === "tag") {
      used.add("exceptions-legacy");
    }
  }
  for (const t of m.tables) {
    valType(t.type.elem);
    if (t.type.limits.is64) used.add("memory64");
    if (t.init) constExpr(t.init);
  }
  if (m.numImportedTables + m.tables.length > 1) used.add("reference-types");
  for (const mem of m.memories) {
    if (mem.limits.shared) used.add("threads");
    if (mem.limits.is64) used.add("memory64");
  }
  if (m.numImportedMemories + m.memories.length > 1) used.add("multi-memory");
  for (const g of m.globals) {
    valType(g.type.type);
    constExpr(g.init);
  }
  for (const e of m.exports) {
    if (e.kind === "global") {
      const gi = e.index - m.numImportedGlobals;
      const mutable = gi < 0 ? importedGlobalMutable(m, e.index) : m.globals[gi]?.type.mutable;
      if (mutable) used.add("mutable-globals");
    }
  }
  if (m.tags.length > 0) used.add("exceptions-legacy");
  // Segments.
  for (const e of m.elements) {
    if (e.mode.kind === "passive" || e.mode.kind === "declarative") used.add("bulk-memory");
    if (e.mode.kind === "active") constExpr(e.mode.offset);
    if (e.type !== FUNCREF) valType(e.type);
    if (e.items.kind === "exprs") for (const x of e.items.exprs) constExpr(x);
    // Flags 2, 4..7 (explicit table index or expression items) need reference types in binaryen.
    if (e.mode.kind === "active" && e.mode.table !== 0) used.add("reference-types");
  }
  for (const d of m.data) {
    if (d.mode.kind === "passive") used.add("bulk-memory");
    else constExpr(d.mode.offset);
  }
  if (m.hasDataCount) used.add("bulk-memory");
  // Function bodies.
  for (const f of m.functions) {
    for (const l of f.locals) valType(l.type);
    if (f.body) body(f.body);
  }
  return used;

  function constExpr(c: ConstExpr): void {
    const b = c.body;
    for (let i = 0; i < b.count; i++) {
      const d = OPS[b.ops[i]!]!;
      if (d.feature !== "mvp") used.add(d.feature);
      if (!/^(i32|i64|f32|f64|v128)\.const$|^global\.get$|^ref\.(null|func)$|^end$/.test(d.name)) {
        if (/^i(32|64)\.(add|sub|mul)$/.test(d.name)) used.add("extended-const");
        else if (d.feature === "mvp") used.add("gc");
      }
    }
  }

  function body(b: Body): void {
    for (let i = 0; i < b.count; i++) {
      const d = OPS[b.ops[i]!]!;
      if (d.feature !== "mvp") used.add(d.feature);
      const imms = d.imms;
      let w = b.immStart[i]!;
      for (const k of imms) {
        if (k === Imm.BlockType) {
          const bt = b.imm[w]!;
          if (bt < 0) {
            const st = m.types[-bt - 1];
            if (st && st.composite.kind === "func" && (st.composite.params.length > 0 || st.composite.results.length > 1)) {
              used.add("multi-value");
            }
          } else if (bt !== 0x40) valType(bt);
          w += 1;
        } else if (k === Imm.ValTypes) {
          const n = b.imm[w]!;
          for (let j = 0; j < n; j++) valType(b.imm[w + 1 + j]!);
          used.add("reference-types"); // typed select
          w += 1 + n;
        } else if (k === Imm.Table) {
          if (b.imm[w] !== 0) used.add("reference-types");
          w += 1;
        } else if (k === Imm.Memory) {
          if (b.imm[w] !== 0) used.add("multi-memory");
          w += 1;
        } else if (k === Imm.MemArg) {
          if (b.imm[w + 1] !== 0) used.add("multi-memory");
          w += 4;
        } else {
          w += immWordCount(k, b.imm, w);
        }
      }
    }
  }
}


function usesOp(m: Module, name: string): boolean {
  return m.functions.some((f) => {
    const b = f.body;
    if (!b) return false;
    for (let i = 0; i < b.count; i++) if (OPS[b.ops[i]!]!.name === name) return true;
    return false;
  });
}

function importedGlobalMutable(m: Module, index: number): boolean {
  let k = 0;
  for (const imp of m.imports) {
    if (imp.desc.kind !== "global") continue;
    if (k === index) return imp.desc.type.mutable;
    k++;
  }
  return false;
}
