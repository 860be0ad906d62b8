// One general mechanism for changing the type index space: remove types or
// redirect references from one type to another, and every reference follows
// — function and import signatures, tags, value types (locals, globals,
// tables, element segments, params, results, fields), instruction
// immediates (call_indirect, call_ref, struct/array ops, block types, heap
// types, select's types), subtype supertypes and the name section's type
// and field names.

import { bodyOf } from "../binary/reader.js";
import { ByteReader, ByteWriter } from "../binary/bytes.js";
import { Imm, OPS } from "../binary/opcodes/index.js";
import type { Body } from "./body.js";
import { immWordCount } from "./imm-layout.js";
import { constExprs, type Module } from "./module.js";
import { redirection } from "./renumber.js";
import { heapOf, isNullable, isRef, refType, type SubType, type ValType } from "./types.js";

type TypeMap = (old: number) => number;

/** A value type with its concrete heap type (if any) mapped. */
export function mapValType(v: ValType, fn: TypeMap): ValType {
  if (!isRef(v)) return v;
  const h = heapOf(v);
  return h >= 0 ? refType(fn(h), isNullable(v)) : v;
}

/** `body` with the type indices in its immediates mapped: itself if none changed, else a new Body (bodies are never changed in place). */
export function mapBodyTypes(body: Body, fn: TypeMap): Body {
  const { ops, immStart } = body;
  let imm = body.imm;
  let copied = false;
  const set = (p: number, v: number): void => {
    if (imm[p] === v) return;
    if (!copied) {
      imm = imm.slice();
      copied = true;
    }
    imm[p] = v;
  };
  for (let i = 0; i < body.count; i++) {
    const kinds = OPS[ops[i]!]!.imms;
    if (kinds.length === 0) continue;
    let p = immStart[i]!;
    for (const k of kinds) {
      const w = imm[p]!;
      switch (k) {
        case Imm.Type:
          set(p, fn(w));
          break;
        case Imm.BlockType:
          set(p, w < 0 ? -(fn(-w - 1) + 1) : mapValType(w, fn));
          break;
        case Imm.HeapType:
          if (w >= 0) set(p, fn(w));
          break;
        case Imm.ValTypes:
          for (let j = 1; j <= w; j++) set(p + j, mapValType(imm[p + j]!, fn));
          break;
      }
      p += immWordCount(k, imm, p);
    }
  }
  return copied ? { ...body, imm } : body;
}

/** Maps the type references inside a type definition (fields, params, results, supertypes) in place. */
export function mapSubTypeRefs(t: SubType, fn: TypeMap): void {
  const c = t.composite;
  if (c.kind === "func") {
    c.params = c.params.map((v) => mapValType(v, fn));
    c.results = c.results.map((v) => mapValType(v, fn));
  } else if (c.kind === "struct") {
    for (const f of c.fields) f.type = mapValType(f.type, fn);
  } else {
    c.element.type = mapValType(c.element.type, fn);
  }
  t.supertypes = t.supertypes.map(fn);
}

/**
 * Maps every type reference outside the type section in place (functions,
 * imports, tags, globals, tables, element segments, locals, bodies, constant
 * expressions); functions whose bytes change are marked dirty. With an
 * identity `fn` this only visits (marks nothing dirty).
 */
export function mapModuleTypeRefs(m: Module, fn: TypeMap): void {
  for (const imp of m.imports) {
    const d = imp.desc;
    if (d.kind === "func") d.typeIndex = fn(d.typeIndex);
    else if (d.kind === "tag") d.type.typeIndex = fn(d.type.typeIndex);
    else if (d.kind === "global") d.type.type = mapValType(d.type.type, fn);
    else if (d.kind === "table") d.type.elem = mapValType(d.type.elem, fn);
  }
  for (const t of m.tags) t.type.typeIndex = fn(t.type.typeIndex);
  for (const g of m.globals) g.type.type = mapValType(g.type.type, fn);
  for (const t of m.tables) t.type.elem = mapValType(t.type.elem, fn);
  for (const e of m.elements) e.type = mapValType(e.type, fn);
  for (const x of constExprs(m)) x.body = mapBodyTypes(x.body, fn);
  for (const f of m.functions) {
    f.typeIndex = fn(f.typeIndex);
    let changed = false;
    for (const l of f.locals) {
      const t = mapValType(l.type, fn);
      if (t !== l.type) {
        l.type = t;
        changed = true;
      }
    }
    const body = bodyOf(m, f);
    const mapped = mapBodyTypes(body, fn);
    if (mapped !== body) {
      f.body = mapped;
      changed = true;
    }
    if (changed) f.dirty = true;
  }
}

/**
 * Redirects and removes types. `target[i]` is i to keep type i, another kept
 * index to send references to i there (the types must be equivalent), or -1
 * to remove i (nothing may reference it then). A recursion group is kept or
 * removed whole: removing part of one would change its members' identity.
 * Kept types keep their relative order.
 */
export function redirectTypes(m: Module, target: Int32Array): void {
  const total = m.types.length;
  if (target.length !== total) throw new Error(`redirectTypes: map has ${target.length} entries, module has ${total} types`);
  for (const g of m.recGroups) {
    if (g.count < 2) continue;
    const kept = target[g.start] === g.start;
    for (let i = g.start; i < g.start + g.count; i++) {
      if ((target[i] === i) !== kept) throw new Error(`redirectTypes: recursion group at ${g.start} must be kept or removed whole`);
    }
  }
  const newIndex = new Int32Array(total).fill(-1);
  let next = 0;
  for (let i = 0; i < total; i++) if (target[i] === i) newIndex[i] = next++;
  const fn = redirection(target, newIndex, next, "redirectTypes", "type");
  if (!fn) return;
  mapModuleTypeRefs(m, fn);
  const types: SubType[] = [];
  const groups: Module["recGroups"] = [];
  for (const g of m.recGroups) {
    if (target[g.start] !== g.start) continue;
    groups.push({ start: types.length, count: g.count, explicit: g.explicit });
    for (let i = g.start; i < g.start + g.count; i++) {
      const t = m.types[i]!;
      mapSubTypeRefs(t, fn);
      types.push(t);
    }
  }
  m.types = types;
  m.recGroups = groups;
  if (m.names) {
    m.names.other = m.names.other.flatMap((o) => {
      if (o.id !== 4 && o.id !== 10) return [o];
      const bytes = remapNameSubsection(o.bytes, o.id === 10, (i) => (i < total ? newIndex[i]! : -1));
      return bytes ? [{ id: o.id, bytes }] : [];
    });
    m.names.dirty = true;
  }
}

/**
 * Renumbers a name subsection keyed by type index (4: type names, a name
 * map; 10: field names, an indirect map); entries of removed types go.
 * Returns null if it does not parse (it is then dropped rather than left wrong).
 */
function remapNameSubsection(bytes: Uint8Array, indirect: boolean, fn: (i: number) => number): Uint8Array | null {
  try {
    const r = new ByteReader(bytes);
    const entries: { index: number; raw: Uint8Array }[] = [];
    const n = r.u32();
    for (let k = 0; k < n; k++) {
      const index = r.u32();
      const from = r.pos;
      if (indirect) {
        const c = r.u32();
        for (let j = 0; j < c; j++) {
          r.u32();
          r.name();
        }
      } else {
        r.name();
      }
      const to = fn(index);
      if (to >= 0) entries.push({ index: to, raw: bytes.subarray(from, r.pos) });
    }
    if (!r.atEnd()) return null;
    const w = new ByteWriter(bytes.length);
    w.u32(entries.length);
    for (const e of entries) {
      w.u32(e.index);
      w.bytes(e.raw);
    }
    return w.finish();
  } catch {
    return null;
  }
}
