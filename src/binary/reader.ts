// Reads a binary module into the module model. Function bodies are not
// decoded here: each keeps a view of its original bytes and is decoded on
// demand by decodeFunctionBody (lazily, so untouched bodies are copied back).

import { ByteReader, decodeUtf8 } from "./bytes.js";
import { WasmDecodeError } from "./errors.js";
import { decodeInstructions } from "./code-reader.js";
import { idOf } from "./opcodes/index.js";
import { readHeapType, readValType } from "./type-reader.js";
import { importKindMessage, typeFormMessage } from "./proposals.js";

export { readHeapType, readValType };
import {
  emptyModule,
  type ConstExpr,
  type ElemSegment,
  type Func,
  type GlobalType,
  type Module,
  type NameMap,
  type TableType,
  type TagType,
} from "../ir/module.js";
import type { Body } from "../ir/body.js";
import {
  FUNCREF,
  isAbstractHeap,
  refType,
  I8,
  I16,
  type CompositeType,
  type FieldType,
  type HeapType,
  type Limits,
  type SubType,
  type ValType,
} from "../ir/types.js";

const SECTION_NAMES = [
  "custom", "type", "import", "function", "table", "memory", "global", "export",
  "start", "element", "code", "data", "data count", "tag",
];
/** Order in which known sections must appear, by id. */
const SECTION_RANK = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6];

/** Largest number of locals a function may declare (the spec's u32 bound). */
const MAX_LOCALS = 0xffffffff;

export interface ReadOptions {
  /** Decode every function body right away (reporting malformed bodies now). */
  decodeBodies?: boolean;
}

export function readModule(bytes: Uint8Array, options: ReadOptions = {}): Module {
  const r = new ByteReader(bytes);
  if (bytes.length < 4 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    if (bytes.length < 4) r.fail(bytes.length === 0 ? "empty file: magic header not detected" : "unexpected end: magic header not detected", 0);
    r.fail("magic header not detected (not a WebAssembly binary)", 0);
  }
  if (bytes.length < 8) r.fail("unexpected end: binary version missing", 4);
  r.pos = 4;
  const version = r.u32Fixed();
  if (version !== 1) {
    // 0x0d..: the component model layer; anything else is unknown.
    r.fail(`unknown binary version 0x${(version >>> 0).toString(16)}${(version & 0xffff) === 0x0d ? " (this is a WebAssembly component, not a core module)" : ""}`, 4);
  }

  const m = emptyModule();
  const funcTypeIndices: number[] = [];
  let lastId = 0;
  let lastRank = 0;
  let dataCount: number | null = null;
  let sawCode = false;

  while (!r.atEnd()) {
    const headerAt = r.pos;
    const id = r.u8();
    if (id > 13) r.fail(`malformed section id ${id}`, headerAt);
    const size = r.u32();
    const start = r.pos;
    if (size > bytes.length - start) {
      r.fail(`section size mismatch: ${SECTION_NAMES[id]} section declares ${size} bytes but only ${bytes.length - start} remain (unexpected end)`, headerAt);
    }
    const end = start + size;
    const s = new ByteReader(bytes, start, end);
    s.section = SECTION_NAMES[id];

    if (id !== 0) {
      const rank = SECTION_RANK[id]!;
      if (rank <= lastRank) {
        r.fail(`unexpected content after last section: ${SECTION_NAMES[id]} section out of order or repeated`, headerAt);
      }
      lastRank = rank;
      lastId = id;
    }

    switch (id) {
      case 0:
        readCustom(s, m, lastId);
        break;
      case 1:
        readTypes(s, m);
        break;
      case 2:
        readImports(s, m);
        break;
      case 3: {
        const n = s.count(1, "function");
        for (let i = 0; i < n; i++) funcTypeIndices.push(s.u32());
        break;
      }
      case 4: {
        const n = s.count(1, "table");
        for (let i = 0; i < n; i++) {
          if (s.buf[s.pos] === 0x40) {
            s.pos++;
            if (s.u8() !== 0x00) s.fail("malformed table: expected 0x00 after 0x40");
            const type = readTableType(s);
            m.tables.push({ type, init: readConstExpr(s) });
          } else {
            m.tables.push({ type: readTableType(s), init: null });
          }
        }
        break;
      }
      case 5: {
        const n = s.count(1, "memory");
        for (let i = 0; i < n; i++) m.memories.push({ limits: readLimits(s, true) });
        break;
      }
      case 6: {
        const n = s.count(2, "global");
        for (let i = 0; i < n; i++) {
          const type = readGlobalType(s);
          m.globals.push({ type, init: readConstExpr(s) });
        }
        break;
      }
      case 7: {
        const n = s.count(2, "export");
        for (let i = 0; i < n; i++) {
          const name = s.name();
          const kindAt = s.pos;
          const k = s.u8();
          if (k > 4) s.fail(`malformed export kind ${k}`, kindAt);
          const kind = (["func", "table", "memory", "global", "tag"] as const)[k]!;
          m.exports.push({ name, kind, index: s.u32() });
        }
        break;
      }
      case 8:
        m.start = s.u32();
        break;
      case 9: {
        const n = s.count(1, "element segment");
        for (let i = 0; i < n; i++) m.elements.push(readElem(s));
        break;
      }
      case 10: {
        sawCode = true;
        const n = s.count(1, "function body");
        if (n !== funcTypeIndices.length) {
          s.fail(`function and code section have inconsistent lengths (${funcTypeIndices.length} functions, ${n} bodies)`, start);
        }
        for (let i = 0; i < n; i++) {
          const bodySize = s.u32();
          const bodyStart = s.pos;
          if (bodySize > end - bodyStart) s.fail(`unexpected end of section or function: body ${i} declares ${bodySize} bytes`);
          m.functions.push(readFuncEntry(bytes, bodyStart, bodyStart + bodySize, funcTypeIndices[i]!, m.numImportedFuncs + i));
          s.pos = bodyStart + bodySize;
        }
        break;
      }
      case 11: {
        const n = s.count(1, "data segment");
        if (dataCount !== null && n !== dataCount) {
          s.fail(`data count and data section have inconsistent lengths (data count ${dataCount}, ${n} segments)`, start);
        }
        for (let i = 0; i < n; i++) {
          const flagsAt = s.pos;
          const flags = s.u32();
          if (flags === 0) {
            const offset = readConstExpr(s);
            m.data.push({ mode: { kind: "active", memory: 0, offset }, bytes: s.bytes(s.count(0, "data")), flags });
          } else if (flags === 1) {
            m.data.push({ mode: { kind: "passive" }, bytes: s.bytes(s.count(0, "data")), flags });
          } else if (flags === 2) {
            const memory = s.u32();
            const offset = readConstExpr(s);
            m.data.push({ mode: { kind: "active", memory, offset }, bytes: s.bytes(s.count(0, "data")), flags });
          } else {
            s.fail(`malformed data segment flags ${flags}`, flagsAt);
          }
        }
        break;
      }
      case 12:
        dataCount = s.u32();
        m.hasDataCount = true;
        break;
      case 13: {
        const n = s.count(2, "tag");
        for (let i = 0; i < n; i++) m.tags.push({ type: readTagType(s) });
        break;
      }
    }
    if (s.pos !== end) {
      s.fail(`section size mismatch: ${SECTION_NAMES[id]} section has ${end - s.pos} unread bytes`, s.pos);
    }
    r.pos = end;
  }

  if (!sawCode && funcTypeIndices.length > 0) {
    throw new WasmDecodeError(`function and code section have inconsistent lengths (${funcTypeIndices.length} functions, no code section)`, bytes.length);
  }
  if (dataCount !== null && m.data.length === 0 && dataCount !== 0) {
    throw new WasmDecodeError(`data count and data section have inconsistent lengths (data count ${dataCount}, no data section)`, bytes.length);
  }

  if (options.decodeBodies) decodeAllBodies(m);
  return m;
}

// ---- types ----

function readTypes(s: ByteReader, m: Module): void {
  const n = s.count(1, "type");
  for (let i = 0; i < n; i++) {
    if (s.buf[s.pos] === 0x4e) {
      s.pos++;
      const k = s.count(1, "recursion group");
      const start = m.types.length;
      for (let j = 0; j < k; j++) m.types.push(readSubType(s));
      m.recGroups.push({ start, count: k, explicit: true });
    } else {
      m.recGroups.push({ start: m.types.length, count: 1, explicit: false });
      m.types.push(readSubType(s));
    }
  }
}

function readSubType(s: ByteReader): SubType {
  const b = s.buf[s.pos];
  if (b === 0x50 || b === 0x4f) {
    s.pos++;
    const k = s.count(1, "supertype");
    const supertypes: number[] = [];
    for (let i = 0; i < k; i++) supertypes.push(s.u32());
    return { composite: readCompositeType(s), final: b === 0x4f, supertypes, form: b === 0x4f ? "subfinal" : "sub" };
  }
  return { composite: readCompositeType(s), final: true, supertypes: [], form: "bare" };
}

function readCompositeType(s: ByteReader): CompositeType {
  const at = s.pos;
  const form = s.u8();
  if (form === 0x60) {
    const np = s.count(1, "parameter");
    const params: ValType[] = new Array(np);
    for (let i = 0; i < np; i++) params[i] = readValType(s);
    const nr = s.count(1, "result");
    const results: ValType[] = new Array(nr);
    for (let i = 0; i < nr; i++) results[i] = readValType(s);
    return { kind: "func", params, results };
  }
  if (form === 0x5f) {
    const nf = s.count(2, "field");
    const fields: FieldType[] = [];
    for (let i = 0; i < nf; i++) fields.push(readFieldType(s));
    return { kind: "struct", fields };
  }
  if (form === 0x5e) return { kind: "array", element: readFieldType(s) };
  s.fail(typeFormMessage(form, `malformed type: unknown type form 0x${form.toString(16)} (integer representation too long or malformed)`), at);
}

function readFieldType(s: ByteReader): FieldType {
  const b = s.buf[s.pos];
  let type: ValType;
  if (b === 0x78 || b === 0x77) {
    s.pos++;
    type = b === 0x78 ? I8 : I16;
  } else type = readValType(s);
  return { type, mutable: readMut(s) };
}

function readMut(s: ByteReader): boolean {
  const at = s.pos;
  const m = s.u8();
  if (m > 1) s.fail(`malformed mutability 0x${m.toString(16)}`, at);
  return m === 1;
}

function readRefType(s: ByteReader): ValType {
  const at = s.pos;
  const t = readValType(s);
  if (t < 0x1000) s.fail("malformed reference type", at);
  return t;
}

function readLimits(s: ByteReader, memory: boolean): Limits {
  const at = s.pos;
  const flags = s.u8();
  // bit 0: has max, bit 1: shared, bit 2: 64-bit, bit 3 (memories, custom-page-sizes proposal): page size given
  const allowed = memory ? 0x0f : 0x05;
  if ((flags & ~allowed) !== 0) s.fail(`malformed limits flags 0x${flags.toString(16)}`, at);
  const is64 = (flags & 4) !== 0;
  // Wasm 3.0 reads every limit as u64; the validator bounds it per address type.
  const readNum = (): number | bigint => {
    const v = s.u64();
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  };
  const min = readNum();
  const max = flags & 1 ? readNum() : null;
  const limits: Limits = { min, max, shared: (flags & 2) !== 0, is64 };
  if (flags & 8) {
    const pageAt = s.pos;
    const log2 = s.u32();
    if (log2 >= 64) s.fail(`invalid custom page size 2^${log2}`, pageAt);
    limits.pageSizeLog2 = log2;
  }
  return limits;
}

function readTableType(s: ByteReader): TableType {
  const elem = readRefType(s);
  return { elem, limits: readLimits(s, false) };
}

function readGlobalType(s: ByteReader): GlobalType {
  const type = readValType(s);
  return { type, mutable: readMut(s) };
}

function readTagType(s: ByteReader): TagType {
  const at = s.pos;
  const attribute = s.u8();
  if (attribute !== 0) s.fail(`malformed tag attribute ${attribute}`, at);
  return { attribute, typeIndex: s.u32() };
}

function readImports(s: ByteReader, m: Module): void {
  const n = s.count(3, "import");
  for (let i = 0; i < n; i++) {
    const module = s.name();
    const name = s.name();
    const kindAt = s.pos;
    const kind = s.u8();
    switch (kind) {
      case 0:
        m.imports.push({ module, name, desc: { kind: "func", typeIndex: s.u32() } });
        m.numImportedFuncs++;
        break;
      case 1:
        m.imports.push({ module, name, desc: { kind: "table", type: readTableType(s) } });
        m.numImportedTables++;
        break;
      case 2:
        m.imports.push({ module, name, desc: { kind: "memory", type: { limits: readLimits(s, true) } } });
        m.numImportedMemories++;
        break;
      case 3:
        m.imports.push({ module, name, desc: { kind: "global", type: readGlobalType(s) } });
        m.numImportedGlobals++;
        break;
      case 4:
        m.imports.push({ module, name, desc: { kind: "tag", type: readTagType(s) } });
        m.numImportedTags++;
        break;
      default:
        s.fail(importKindMessage(kind, `malformed import kind ${kind}`), kindAt);
    }
  }
}

// ---- constant expressions, elements ----

// The fast path's shared arrays (bodies are immutable once built) and its
// per-expression words, handed out from slabs: each typed array costs about
// 170 bytes besides its contents, and a module can hold 100k constant
// expressions (esbuild's data segments).
const I32_CONST_ID = idOf("i32.const");
const END_ID = idOf("end");
const I32_CONST_OPS = Uint16Array.of(I32_CONST_ID, END_ID);
const I32_CONST_IMM_START = Uint32Array.of(0, 1, 1);
const SLAB_WORDS = 4096;
let immSlab = new Int32Array(SLAB_WORDS);
let immUsed = 0;
let offsetSlab = new Uint32Array(SLAB_WORDS);
let offsetUsed = 0;

export function readConstExpr(s: ByteReader): ConstExpr {
  // Fast path for the common `i32.const N end` (data and element offsets:
  // esbuild has 98k of them): no builder, shared ops, words from slabs.
  const at = s.pos;
  if (s.buf[at] === 0x41) {
    s.pos++;
    const v = s.s32();
    if (s.pos < s.end && s.buf[s.pos] === 0x0b) {
      s.pos++;
      if (immUsed + 1 > SLAB_WORDS) {
        immSlab = new Int32Array(SLAB_WORDS);
        immUsed = 0;
      }
      if (offsetUsed + 2 > SLAB_WORDS) {
        offsetSlab = new Uint32Array(SLAB_WORDS);
        offsetUsed = 0;
      }
      const imm = immSlab.subarray(immUsed, immUsed + 1);
      immUsed += 1;
      imm[0] = v;
      const offsets = offsetSlab.subarray(offsetUsed, offsetUsed + 2);
      offsetUsed += 2;
      offsets[0] = s.base + at;
      offsets[1] = s.base + s.pos - 1;
      return { body: { count: 2, ops: I32_CONST_OPS, immStart: I32_CONST_IMM_START, imm, offsets } };
    }
    s.pos = at;
  }
  const { body, end } = decodeInstructions(s.buf, s.pos, s.end, s.base, true, s.section);
  s.pos = end;
  return { body };
}

function readElemKind(s: ByteReader): void {
  const at = s.pos;
  const k = s.u8();
  if (k !== 0) s.fail(`malformed element kind ${k}`, at);
}

function readElem(s: ByteReader): ElemSegment {
  const flagsAt = s.pos;
  const flags = s.u32();
  if (flags > 7) s.fail(`malformed elements segment kind ${flags}`, flagsAt);
  const passiveOrDecl = (flags & 1) !== 0;
  const explicitTable = (flags & 2) !== 0;
  const usesExprs = (flags & 4) !== 0;
  let mode: ElemSegment["mode"];
  if (!passiveOrDecl) {
    const table = explicitTable ? s.u32() : 0;
    mode = { kind: "active", table, offset: readConstExpr(s) };
  } else {
    mode = explicitTable ? { kind: "declarative" } : { kind: "passive" };
  }
  let type: ValType = FUNCREF;
  if (passiveOrDecl || explicitTable) {
    if (usesExprs) type = readRefType(s);
    else readElemKind(s);
  }
  if (usesExprs) {
    const n = s.count(1, "element expression");
    const exprs: ConstExpr[] = [];
    for (let i = 0; i < n; i++) exprs.push(readConstExpr(s));
    return { mode, type, items: { kind: "exprs", exprs }, flags };
  }
  const n = s.count(1, "element function index");
  const funcs: number[] = new Array(n);
  for (let i = 0; i < n; i++) funcs[i] = s.u32();
  return { mode, type, items: { kind: "funcs", funcs }, flags };
}

// ---- code ----

function readFuncEntry(bytes: Uint8Array, start: number, end: number, typeIndex: number, origin: number): Func {
  const s = new ByteReader(bytes, start, end);
  s.section = "code";
  const groups = s.count(2, "local declaration");
  const locals: { count: number; type: ValType }[] = [];
  let total = 0;
  for (let i = 0; i < groups; i++) {
    const countAt = s.pos;
    const count = s.u32();
    total += count;
    if (total > MAX_LOCALS) s.fail(`too many locals (${total} declared)`, countAt);
    locals.push({ count, type: readValType(s) });
  }
  return {
    typeIndex,
    locals,
    localCount: total,
    raw: bytes.subarray(start, end),
    rawOffset: start,
    codeOffset: s.pos,
    body: null,
    dirty: false,
    origin,
  };
}

/** The body of `f`, decoded from its raw bytes on first use (and kept on `f`): the one way to get a function's instructions. */
export function bodyOf(m: Module, f: Func): Body {
  return decodeFunctionBody(m, f);
}

/** Decodes (and caches) the instructions of a defined function; outside this file, ask bodyOf. */
export function decodeFunctionBody(m: Module, f: Func): Body {
  if (f.body) return f.body;
  if (!f.raw) throw new Error("function has neither a body nor raw bytes");
  const raw = f.raw;
  const base = f.rawOffset;
  const startInRaw = f.codeOffset - base;
  const { body, end } = decodeInstructions(raw, startInRaw, raw.length, base, false, "code");
  if (end !== raw.length) {
    throw new WasmDecodeError(`section size mismatch: ${raw.length - end} bytes after the end of function body`, base + end, "code");
  }
  if (!m.hasDataCount) requireDataCount(body, f);
  f.body = body;
  return body;
}

export function decodeAllBodies(m: Module): void {
  for (const f of m.functions) decodeFunctionBody(m, f);
}

/**
 * Without a data count section, memory.init and data.drop cannot be decoded
 * in a single pass; the spec makes their use malformed. Checked as each body
 * is decoded, so reading stays lazy.
 */
function requireDataCount(body: Body, f: Func): void {
  for (let i = 0; i < body.count; i++) {
    const op = body.ops[i];
    if (op === MEMORY_INIT_ID || op === DATA_DROP_ID) {
      throw new WasmDecodeError("data count section required (memory.init or data.drop used without one)", body.offsets ? body.offsets[i]! : f.rawOffset, "code");
    }
  }
}

const MEMORY_INIT_ID = idOf("memory.init");
const DATA_DROP_ID = idOf("data.drop");

// ---- custom sections ----

function readCustom(s: ByteReader, m: Module, after: number): void {
  const name = s.name();
  const payload = s.bytes(s.end - s.pos);
  if (name === "name" && m.names === null) m.names = parseNameSection(payload);
  m.customs.push({ name, bytes: payload, after });
}

/** Parses the name section; returns null if it is not well-formed (it is then kept as raw bytes). */
export function parseNameSection(payload: Uint8Array): NameMap | null {
  const names: NameMap = { module: null, functions: new Map(), locals: new Map(), other: [], dirty: false };
  try {
    const s = new ByteReader(payload);
    let lastId = -1;
    while (!s.atEnd()) {
      const id = s.u8();
      const size = s.u32();
      const sub = new ByteReader(payload, s.pos, s.pos + size);
      if (size > s.remaining || id <= lastId) return null;
      lastId = id;
      if (id === 0) names.module = sub.name();
      else if (id === 1) readNameMap(sub, names.functions);
      else if (id === 2) {
        const n = sub.count(2);
        for (let i = 0; i < n; i++) {
          const fi = sub.u32();
          const map = new Map<number, string>();
          readNameMap(sub, map);
          names.locals.set(fi, map);
        }
      } else names.other.push({ id, bytes: payload.subarray(s.pos, s.pos + size) });
      if (id <= 2 && !sub.atEnd()) return null;
      s.pos += size;
    }
    return names;
  } catch (e) {
    if (e instanceof WasmDecodeError) return null;
    throw e;
  }
}

function readNameMap(s: ByteReader, into: Map<number, string>): void {
  const n = s.count(2);
  for (let i = 0; i < n; i++) {
    const idx = s.u32();
    into.set(idx, s.name());
  }
}

export { decodeUtf8 };
