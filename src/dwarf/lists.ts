// Range and location lists: .debug_ranges and .debug_loc (DWARF 4), and
// .debug_rnglists and .debug_loclists (DWARF 5, in contributions with an
// offset table). Lists are read into input address ranges (with each
// location's expression), and written back as absolute ranges: DWARF 4
// pairs after a base address selection of 0 where the unit's base is not 0,
// DWARF 5 start_length entries, so no list needs the address table.

import { DwarfReader, DwarfWriter, refuse } from "./bytes.js";

export interface ListEntry {
  lo: number;
  hi: number;
  /** A location's expression (location lists only). */
  expr?: Uint8Array;
}

export interface ReadList {
  entries: ListEntry[];
  /** DW_LLE_default_location expressions: they hold wherever no entry does, so they keep no address. */
  defaults: Uint8Array[];
}

export interface ListContext {
  addressSize: number;
  /** The unit's base address (its DW_AT_low_pc), in input addresses. */
  base: number;
  /** Reads entry `index` of the unit's address table. */
  addr: (index: number) => number;
}

/** Reads a DWARF 4 range (loc = false) or location list at `offset`. */
export function readV4List(sec: Uint8Array, offset: number, loc: boolean, cx: ListContext, name: string): ReadList {
  const r = new DwarfReader(sec, offset, sec.length, name);
  const max = 2 ** (8 * cx.addressSize) - 1;
  let base = cx.base;
  const entries: ListEntry[] = [];
  for (;;) {
    const a = r.uN(cx.addressSize);
    const b = r.uN(cx.addressSize);
    if (a === 0 && b === 0) break;
    if (a === max) {
      base = b;
      continue;
    }
    const e: ListEntry = { lo: base + a, hi: base + b };
    if (loc) {
      const n = r.u16();
      e.expr = sec.slice(r.pos, r.pos + n);
      r.skip(n);
    }
    entries.push(e);
  }
  return { entries, defaults: [] };
}

/** Reads a DWARF 5 range (loc = false) or location list at `offset`. */
export function readV5List(sec: Uint8Array, offset: number, loc: boolean, cx: ListContext, name: string): ReadList {
  const r = new DwarfReader(sec, offset, sec.length, name);
  let base = cx.base;
  const entries: ListEntry[] = [];
  const defaults: Uint8Array[] = [];
  const expr = (): Uint8Array => {
    const n = r.uleb();
    const e = sec.slice(r.pos, r.pos + n);
    r.skip(n);
    return e;
  };
  const push = (lo: number, hi: number): void => {
    const e: ListEntry = { lo, hi };
    if (loc) e.expr = expr();
    entries.push(e);
  };
  // the kinds are numbered alike but for loclists' default_location (5), which shifts the rest by one
  for (;;) {
    let kind = r.u8();
    if (kind === 0) break;
    if (loc && kind === 5) {
      defaults.push(expr());
      continue;
    }
    if (loc && kind > 5) kind--;
    switch (kind) {
      case 1:
        base = cx.addr(r.uleb());
        break;
      case 2: {
        const lo = cx.addr(r.uleb());
        push(lo, cx.addr(r.uleb()));
        break;
      }
      case 3: {
        const lo = cx.addr(r.uleb());
        push(lo, lo + r.uleb());
        break;
      }
      case 4: {
        const lo = r.uleb();
        push(base + lo, base + r.uleb());
        break;
      }
      case 5:
        base = r.uN(cx.addressSize);
        break;
      case 6: {
        const lo = r.uN(cx.addressSize);
        push(lo, r.uN(cx.addressSize));
        break;
      }
      case 7: {
        const lo = r.uN(cx.addressSize);
        push(lo, lo + r.uleb());
        break;
      }
      default:
        refuse(`${name}: unknown list entry kind ${kind} at offset ${r.pos - 1}`);
    }
  }
  return { entries, defaults };
}

/** Writes a DWARF 4 list of output entries; `base` is the unit's new base address. */
export function writeV4List(w: DwarfWriter, entries: readonly ListEntry[], loc: boolean, addressSize: number, base: number): void {
  if (base !== 0 && entries.length > 0) {
    w.uN(2 ** (8 * addressSize) - 1, addressSize);
    w.uN(0, addressSize);
  }
  for (const e of entries) {
    w.uN(e.lo, addressSize);
    w.uN(e.hi, addressSize);
    if (loc) {
      if (e.expr!.length > 0xffff) refuse("a location expression longer than 65535 bytes");
      w.u16(e.expr!.length);
      w.bytes(e.expr!);
    }
  }
  w.uN(0, addressSize);
  w.uN(0, addressSize);
}

/** Writes a DWARF 5 list of output entries. */
export function writeV5List(w: DwarfWriter, list: ReadList, loc: boolean, addressSize: number): void {
  for (const d of list.defaults) {
    w.u8(5);
    w.uleb(d.length);
    w.bytes(d);
  }
  for (const e of list.entries) {
    w.u8(loc ? 8 : 7);
    w.uN(e.lo, addressSize);
    w.uleb(e.hi - e.lo);
    if (loc) {
      w.uleb(e.expr!.length);
      w.bytes(e.expr!);
    }
  }
  w.u8(0);
}

/** One DWARF 5 rnglists/loclists contribution: its header and offset table. */
export interface Contribution {
  start: number;
  end: number;
  /** Where its offsets table begins: what DW_AT_rnglists_base / loclists_base name. */
  base: number;
  /** Bytes of the header from the version field through offset_entry_count. */
  header: Uint8Array;
  addressSize: number;
  /** Absolute section offsets of the lists its offset table names. */
  table: number[];
}

export function readContributions(sec: Uint8Array, name: string): Contribution[] {
  const out: Contribution[] = [];
  let at = 0;
  while (at < sec.length) {
    const r = new DwarfReader(sec, at, sec.length, name);
    const length = r.u32();
    if (length >= 0xfffffff0) refuse("64-bit DWARF");
    const end = r.pos + length;
    if (end > sec.length) refuse(`${name}: a contribution at offset ${at} runs past the end`);
    const version = r.u16();
    if (version !== 5) refuse(`${name}: version ${version}`);
    const addressSize = r.u8();
    if (r.u8() !== 0) refuse(`${name}: segmented addresses`);
    const count = r.u32();
    const base = r.pos;
    const header = sec.slice(at + 4, base);
    const table: number[] = [];
    for (let k = 0; k < count; k++) table.push(base + r.u32());
    out.push({ start: at, end, base, header, addressSize, table });
    at = end;
  }
  return out;
}
