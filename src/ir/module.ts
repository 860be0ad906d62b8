// The module model. It mirrors the binary's index spaces (imports first, then
// definitions); passes that delete or merge entities renumber through
// ir/renumber (one general remapping mechanism) rather than by hand.

import type { Body } from "./body.js";
import type { Limits, RecGroup, SubType, ValType } from "./types.js";

export type ExternKind = "func" | "table" | "memory" | "global" | "tag";

export interface TableType {
  elem: ValType; // a reference type
  limits: Limits;
}
export interface MemoryType {
  limits: Limits;
}
export interface GlobalType {
  type: ValType;
  mutable: boolean;
}
export interface TagType {
  attribute: number; // 0 = exception
  typeIndex: number;
}

export type ImportDesc =
  | { kind: "func"; typeIndex: number }
  | { kind: "table"; type: TableType }
  | { kind: "memory"; type: MemoryType }
  | { kind: "global"; type: GlobalType }
  | { kind: "tag"; type: TagType };

export interface Import {
  module: string;
  name: string;
  desc: ImportDesc;
}

export interface Export {
  name: string;
  kind: ExternKind;
  index: number;
}

/** A constant expression (global init, segment offsets, element items). */
export interface ConstExpr {
  /** Decoded instructions, including the final `end`. */
  body: Body;
}

export interface Table {
  type: TableType;
  /** Present when the table has an explicit initializer (0x40 0x00 encoding). */
  init: ConstExpr | null;
}

export interface Global {
  type: GlobalType;
  init: ConstExpr;
}

export interface Tag {
  type: TagType;
}

/** A defined function. Its body is decoded on demand. */
export interface Func {
  typeIndex: number;
  /** Run-length local declarations as written: [count, type] pairs. */
  locals: { count: number; type: ValType }[];
  /** Total number of declared locals (not counting parameters). */
  localCount: number;
  /** The original bytes of the body entry after its size: locals + expression. Null for a new function. */
  raw: Uint8Array | null;
  /** File offset of `raw` (for error messages). */
  rawOffset: number;
  /** File offset where the instructions start (after the locals). */
  codeOffset: number;
  /** Decoded instructions, or null while untouched. */
  body: Body | null;
  /** True once a pass replaced `body`; the writer then re-encodes it. */
  dirty: boolean;
  /** Index of this function in the input module (-1 for a function a pass created); for merge maps. */
  origin: number;
}

export type ElemMode =
  | { kind: "passive" }
  | { kind: "declarative" }
  | { kind: "active"; table: number; offset: ConstExpr };

export interface ElemSegment {
  mode: ElemMode;
  /** Element reference type (funcref for the index-vector forms). */
  type: ValType;
  /** Either function indices (the compact forms) or expressions. */
  items: { kind: "funcs"; funcs: number[] } | { kind: "exprs"; exprs: ConstExpr[] };
  /** Binary flags 0..7 as read (kept so identity output is byte-identical). */
  flags: number;
}

export type DataMode = { kind: "passive" } | { kind: "active"; memory: number; offset: ConstExpr };

export interface DataSegment {
  mode: DataMode;
  bytes: Uint8Array;
  /** Binary flags 0..2 as read. */
  flags: number;
}

/**
 * Where a custom section sits: after the last known section with this id
 * (0 = before all known sections). Custom sections are written back there.
 */
export interface CustomSection {
  name: string;
  bytes: Uint8Array; // the payload after the name
  after: number;
}

export interface NameMap {
  module: string | null;
  functions: Map<number, string>;
  locals: Map<number, Map<number, string>>;
  /** Other subsections (labels, types, globals ...) kept as raw bytes, by id. */
  other: { id: number; bytes: Uint8Array }[];
  /** Set by any change; the writer then re-encodes the "name" custom section from this map. */
  dirty: boolean;
}

export interface Module {
  /** All types in index order. */
  types: SubType[];
  /** Recursion groups covering `types` in order. */
  recGroups: RecGroup[];
  imports: Import[];
  functions: Func[];
  tables: Table[];
  memories: MemoryType[];
  globals: Global[];
  tags: Tag[];
  exports: Export[];
  start: number | null;
  elements: ElemSegment[];
  data: DataSegment[];
  /** True if the input had a data count section (required by memory.init/data.drop). */
  hasDataCount: boolean;
  customs: CustomSection[];
  /**
   * The parsed "name" section, if present and well-formed. Its raw bytes stay
   * in `customs` (so its position is kept); when `names.dirty` is set the
   * writer encodes this map in its place instead.
   */
  names: NameMap | null;
  /** Counts of imported entities, cached by the reader and kept by mutators. */
  numImportedFuncs: number;
  numImportedTables: number;
  numImportedMemories: number;
  numImportedGlobals: number;
  numImportedTags: number;
}

export function emptyModule(): Module {
  return {
    types: [],
    recGroups: [],
    imports: [],
    functions: [],
    tables: [],
    memories: [],
    globals: [],
    tags: [],
    exports: [],
    start: null,
    elements: [],
    data: [],
    hasDataCount: false,
    customs: [],
    names: null,
    numImportedFuncs: 0,
    numImportedTables: 0,
    numImportedMemories: 0,
    numImportedGlobals: 0,
    numImportedTags: 0,
  };
}

/** Type index of function `index` (imports included). */
export function funcTypeIndex(m: Module, index: number): number {
  if (index < m.numImportedFuncs) {
    let i = 0;
    for (const imp of m.imports) {
      if (imp.desc.kind === "func") {
        if (i === index) return imp.desc.typeIndex;
        i++;
      }
    }
  }
  return m.functions[index - m.numImportedFuncs]!.typeIndex;
}

/** Every constant expression of the module: global and table initializers, segment offsets, element items. */
export function constExprs(m: Module): ConstExpr[] {
  const out: ConstExpr[] = [];
  for (const g of m.globals) out.push(g.init);
  for (const t of m.tables) if (t.init) out.push(t.init);
  for (const e of m.elements) {
    if (e.mode.kind === "active") out.push(e.mode.offset);
    if (e.items.kind === "exprs") out.push(...e.items.exprs);
  }
  for (const d of m.data) if (d.mode.kind === "active") out.push(d.mode.offset);
  return out;
}
