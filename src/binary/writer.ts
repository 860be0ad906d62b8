// Writes the module model back to bytes. Untouched function bodies are copied
// byte for byte; everything that is encoded uses minimal LEB128, so the
// identity pipeline never makes a file larger.

import { ByteWriter, u32Size, utf8Length } from "./bytes.js";
import { leftOutOfEstimates } from "./sections.js";
import type { AddressRecorder } from "./address-map.js";
import { encodeInstructions } from "./code-writer.js";
import { writeValType } from "./type-writer.js";
import { bodyOf } from "./reader.js";
import type {
  ConstExpr,
  ElemSegment,
  Func,
  GlobalType,
  Module,
  NameMap,
  TableType,
  TagType,
} from "../ir/module.js";
import { FUNCREF, type CompositeType, type FieldType, type Limits, type SubType } from "../ir/types.js";

export interface WriteOptions {
  /** Re-encode every function body from its decoded form (decoding it if needed), instead of copying untouched ones. */
  reencodeAll?: boolean;
  /** Called with (bodies written, total) while writing the code section. */
  onProgress?: (done: number, total: number) => void;
  /** Records where each byte of the code came from (the file offsets the bodies carry), for source maps. */
  addresses?: AddressRecorder;
  /**
   * Leaves out the data section and every custom section but "name": the
   * part of the module size estimates look at (size-target's estimateView
   * of the whole write, byte for byte), without copying a data section of
   * megabytes into every trial module. Not a valid module when there is data.
   */
  estimateView?: boolean;
}

/** Known sections in the order they must appear. */
const ORDER = [1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11];

export function writeModule(m: Module, options: WriteOptions = {}): Uint8Array {
  // Buffers sized up front: the code and data sections are most of a module,
  // and growing them by doubling cost a pass's trial write more time than
  // writing them (fresh large buffers, copied at every step).
  const view = options.estimateView === true;
  const code = codeCapacity(m);
  const data = view ? 0 : dataCapacity(m);
  let customs = 0;
  for (const c of m.customs) if (!view || !leftOutOfEstimates(0, c.name)) customs += c.bytes.length + c.name.length + 16;
  const out = new ByteWriter(code + data + customs + (1 << 16));
  out.bytes(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
  writeCustoms(out, m, 0, view);
  for (const id of ORDER) {
    if (view && leftOutOfEstimates(id, "")) {
      writeCustoms(out, m, id, view);
      continue;
    }
    const sec = new ByteWriter(id === 10 ? code : id === 11 ? data : 256);
    const mark = options.addresses?.size ?? 0;
    if (writeSection(sec, m, id, options)) {
      out.u8(id);
      out.sized(sec);
      options.addresses?.shiftSince(mark, out.len - sec.len);
    }
    writeCustoms(out, m, id, view);
  }
  return out.finish();
}

/**
 * Bytes a whole write of `m` has that its estimateView write leaves out: the
 * data section and the custom sections but "name" (counted without copying
 * any segment's bytes).
 */
export function estimateViewLeftOut(m: Module): number {
  let n = 0;
  if (m.data.length > 0) {
    const heads = new ByteWriter(64);
    let payload = u32Size(m.data.length);
    for (const d of m.data) {
      heads.len = 0;
      writeDataHead(heads, d);
      payload += heads.len + u32Size(d.bytes.length) + d.bytes.length;
    }
    n += 1 + u32Size(payload) + payload;
  }
  for (const c of m.customs) {
    if (!leftOutOfEstimates(0, c.name)) continue;
    const payload = nameSize(c.name) + c.bytes.length;
    n += 1 + u32Size(payload) + payload;
  }
  return n;
}

/** About the code section's payload size (exact where every body is copied as read; re-encoded ones are guessed from their old size). */
function codeCapacity(m: Module): number {
  let n = 16;
  for (const f of m.functions) n += (f.raw ? f.raw.length : 64) + 5;
  return n;
}

/** The data section's payload size, give or take each segment's offset expression. */
function dataCapacity(m: Module): number {
  let n = 16;
  for (const d of m.data) n += d.bytes.length + 24;
  return n;
}

/** Bytes section `id` takes in the written module: id, size and payload (0 when the writer leaves it out). */
export function sectionSize(m: Module, id: number): number {
  const sec = new ByteWriter(256);
  if (!writeSection(sec, m, id, {})) return 0;
  return 1 + u32Size(sec.len) + sec.len;
}

function writeCustoms(out: ByteWriter, m: Module, after: number, view: boolean): void {
  for (const c of m.customs) {
    if (c.after !== after || (view && leftOutOfEstimates(0, c.name))) continue;
    const sec = new ByteWriter(c.bytes.length + 16);
    sec.name(c.name);
    if (c.name === "name" && m.names?.dirty) writeNames(sec, m.names);
    else sec.bytes(c.bytes);
    out.u8(0);
    out.sized(sec);
  }
}

/** Writes section `id`'s payload; returns false if the section is to be omitted. */
function writeSection(w: ByteWriter, m: Module, id: number, options: WriteOptions): boolean {
  switch (id) {
    case 1: {
      if (m.types.length === 0) return false;
      w.u32(m.recGroups.length);
      for (const g of m.recGroups) {
        if (g.explicit || g.count !== 1) {
          w.u8(0x4e);
          w.u32(g.count);
        }
        for (let i = g.start; i < g.start + g.count; i++) writeSubType(w, m.types[i]!);
      }
      return true;
    }
    case 2: {
      if (m.imports.length === 0) return false;
      w.u32(m.imports.length);
      for (const imp of m.imports) {
        w.name(imp.module);
        w.name(imp.name);
        const d = imp.desc;
        switch (d.kind) {
          case "func":
            w.u8(0);
            w.u32(d.typeIndex);
            break;
          case "table":
            w.u8(1);
            writeTableType(w, d.type);
            break;
          case "memory":
            w.u8(2);
            writeLimits(w, d.type.limits);
            break;
          case "global":
            w.u8(3);
            writeGlobalType(w, d.type);
            break;
          case "tag":
            w.u8(4);
            writeTagType(w, d.type);
            break;
        }
      }
      return true;
    }
    case 3: {
      if (m.functions.length === 0) return false;
      w.u32(m.functions.length);
      for (const f of m.functions) w.u32(f.typeIndex);
      return true;
    }
    case 4: {
      if (m.tables.length === 0) return false;
      w.u32(m.tables.length);
      for (const t of m.tables) {
        if (t.init) {
          w.u8(0x40);
          w.u8(0x00);
          writeTableType(w, t.type);
          writeConstExpr(w, t.init);
        } else writeTableType(w, t.type);
      }
      return true;
    }
    case 5: {
      if (m.memories.length === 0) return false;
      w.u32(m.memories.length);
      for (const mem of m.memories) writeLimits(w, mem.limits);
      return true;
    }
    case 13: {
      if (m.tags.length === 0) return false;
      w.u32(m.tags.length);
      for (const t of m.tags) writeTagType(w, t.type);
      return true;
    }
    case 6: {
      if (m.globals.length === 0) return false;
      w.u32(m.globals.length);
      for (const g of m.globals) {
        writeGlobalType(w, g.type);
        writeConstExpr(w, g.init);
      }
      return true;
    }
    case 7: {
      if (m.exports.length === 0) return false;
      w.u32(m.exports.length);
      const kinds = { func: 0, table: 1, memory: 2, global: 3, tag: 4 } as const;
      for (const e of m.exports) {
        w.name(e.name);
        w.u8(kinds[e.kind]);
        w.u32(e.index);
      }
      return true;
    }
    case 8:
      if (m.start === null) return false;
      w.u32(m.start);
      return true;
    case 9: {
      if (m.elements.length === 0) return false;
      w.u32(m.elements.length);
      for (const e of m.elements) writeElem(w, e);
      return true;
    }
    case 12:
      if (!m.hasDataCount) return false;
      w.u32(m.data.length);
      return true;
    case 10: {
      if (m.functions.length === 0) return false;
      const n = m.functions.length;
      w.u32(n);
      const body = new ByteWriter(1024);
      for (let i = 0; i < n; i++) {
        const f = m.functions[i]!;
        const rec = options.addresses;
        if (f.raw && !f.dirty && !options.reencodeAll) {
          w.u32(f.raw.length);
          rec?.run(w.len, f.rawOffset, f.raw.length);
          w.bytes(f.raw);
        } else {
          bodyOf(m, f);
          body.len = 0;
          const mark = rec?.size ?? 0;
          writeFuncBody(body, f, rec);
          rec?.shiftSince(mark, w.len + u32Size(body.len));
          w.sized(body);
        }
        if (options.onProgress && (i & 1023) === 1023) options.onProgress(i + 1, n);
      }
      return true;
    }
    case 11: {
      if (m.data.length === 0) return false;
      w.u32(m.data.length);
      for (const d of m.data) {
        writeDataHead(w, d);
        w.u32(d.bytes.length);
        w.bytes(d.bytes);
      }
      return true;
    }
  }
  return false;
}

/** A data segment's flags and placement: everything before its byte count. */
function writeDataHead(w: ByteWriter, d: Module["data"][number]): void {
  if (d.mode.kind === "passive") w.u8(1);
  else if (d.mode.memory !== 0 || d.flags === 2) {
    w.u8(2);
    w.u32(d.mode.memory);
    writeConstExpr(w, d.mode.offset);
  } else {
    w.u8(0);
    writeConstExpr(w, d.mode.offset);
  }
}

/** Bytes a name takes, length included (UTF-8). */
function nameSize(s: string): number {
  const n = utf8Length(s);
  return u32Size(n) + n;
}

/** Writes a function's locals and instructions; `rec` gets each instruction's place in `w` and its origin (0: none). */
export function writeFuncBody(w: ByteWriter, f: Func, rec?: AddressRecorder): void {
  writeLocals(w, f.locals);
  const body = f.body!;
  if (!rec) {
    encodeInstructions(w, body);
    return;
  }
  for (let i = 0; i < body.count; i++) {
    rec.point(w.len, body.offsets ? body.offsets[i]! : 0);
    encodeInstructions(w, body, i, i + 1);
  }
}

/** A function body's local declarations, as writeFuncBody writes them. */
export function writeLocals(w: ByteWriter, locals: Func["locals"]): void {
  // Merge adjacent runs of the same type: minimal and equivalent.
  const groups: { count: number; type: number }[] = [];
  for (const g of locals) {
    if (g.count === 0) continue;
    const last = groups[groups.length - 1];
    if (last && last.type === g.type) last.count += g.count;
    else groups.push({ count: g.count, type: g.type });
  }
  w.u32(groups.length);
  for (const g of groups) {
    w.u32(g.count);
    writeValType(w, g.type);
  }
}

function writeSubType(w: ByteWriter, t: SubType): void {
  let form = t.form;
  if (form === "bare" && (t.supertypes.length > 0 || !t.final)) form = t.final ? "subfinal" : "sub";
  if (form !== "bare") {
    w.u8(form === "subfinal" ? 0x4f : 0x50);
    w.u32(t.supertypes.length);
    for (const s of t.supertypes) w.u32(s);
  }
  writeComposite(w, t.composite);
}

function writeComposite(w: ByteWriter, c: CompositeType): void {
  switch (c.kind) {
    case "func":
      w.u8(0x60);
      w.u32(c.params.length);
      for (const p of c.params) writeValType(w, p);
      w.u32(c.results.length);
      for (const r of c.results) writeValType(w, r);
      return;
    case "struct":
      w.u8(0x5f);
      w.u32(c.fields.length);
      for (const f of c.fields) writeField(w, f);
      return;
    case "array":
      w.u8(0x5e);
      writeField(w, c.element);
  }
}

function writeField(w: ByteWriter, f: FieldType): void {
  writeValType(w, f.type); // I8/I16 are their own bytes (0x78/0x77)
  w.u8(f.mutable ? 1 : 0);
}

function writeLimits(w: ByteWriter, l: Limits): void {
  const custom = l.pageSizeLog2 !== undefined;
  w.u8((l.max !== null ? 1 : 0) | (l.shared ? 2 : 0) | (l.is64 ? 4 : 0) | (custom ? 8 : 0));
  const put = (v: number | bigint) => w.u64(v);
  put(l.min);
  if (l.max !== null) put(l.max);
  if (custom) w.u32(l.pageSizeLog2!);
}

function writeTableType(w: ByteWriter, t: TableType): void {
  writeValType(w, t.elem);
  writeLimits(w, t.limits);
}

function writeGlobalType(w: ByteWriter, g: GlobalType): void {
  writeValType(w, g.type);
  w.u8(g.mutable ? 1 : 0);
}

function writeTagType(w: ByteWriter, t: TagType): void {
  w.u8(t.attribute);
  w.u32(t.typeIndex);
}

export function writeConstExpr(w: ByteWriter, e: ConstExpr): void {
  encodeInstructions(w, e.body);
}

function writeElem(w: ByteWriter, e: ElemSegment): void {
  const exprs = e.items.kind === "exprs";
  let flags: number;
  if (e.mode.kind === "active") {
    const implicit = e.mode.table === 0 && e.type === FUNCREF && (e.flags & 2) === 0;
    flags = implicit ? 0 : 2;
  } else flags = e.mode.kind === "passive" ? 1 : 3;
  if (exprs) flags |= 4;
  w.u32(flags);
  if (e.mode.kind === "active") {
    if (flags & 2) w.u32(e.mode.table);
    writeConstExpr(w, e.mode.offset);
  }
  if (flags & 3) {
    if (exprs) writeValType(w, e.type);
    else w.u8(0x00); // elemkind funcref
  }
  if (e.items.kind === "exprs") {
    w.u32(e.items.exprs.length);
    for (const x of e.items.exprs) writeConstExpr(w, x);
  } else {
    w.u32(e.items.funcs.length);
    for (const f of e.items.funcs) w.u32(f);
  }
}

function writeNames(w: ByteWriter, n: NameMap): void {
  const sub = new ByteWriter(256);
  const emit = (id: number) => {
    w.u8(id);
    w.sized(sub);
    sub.len = 0;
  };
  if (n.module !== null) {
    sub.name(n.module);
    emit(0);
  }
  const other = [...n.other].sort((a, b) => a.id - b.id);
  if (n.functions.size > 0) {
    writeNameMap(sub, n.functions);
    emit(1);
  }
  if (n.locals.size > 0) {
    const fns = [...n.locals.keys()].sort((a, b) => a - b);
    sub.u32(fns.length);
    for (const fi of fns) {
      sub.u32(fi);
      writeNameMap(sub, n.locals.get(fi)!);
    }
    emit(2);
  }
  for (const o of other) {
    sub.bytes(o.bytes);
    emit(o.id);
  }
}

function writeNameMap(w: ByteWriter, map: Map<number, string>): void {
  const keys = [...map.keys()].sort((a, b) => a - b);
  w.u32(keys.length);
  for (const k of keys) {
    w.u32(k);
    w.name(map.get(k)!);
  }
}
