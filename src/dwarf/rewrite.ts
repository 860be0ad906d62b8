// DWARF follows the code: every address-bearing part of a module's DWARF is
// rewritten through the run's address map (code-map.ts), or the whole of it
// is refused (DwarfRefusal) and the caller removes it with a note.
//
//   - line programs: new sequences, one per output function, in the program
//     of the unit most of its code came from; each output instruction gets
//     the rows its input instruction had (glue with no origin, and code from
//     another unit, gets line 0): see line-follow.ts;
//   - DIEs: low_pc/high_pc and ranges become the output code that came from
//     their input ranges, within their parent's. A single range (low/high)
//     keeps the part holding its entry, else its largest part: code moved
//     out into another function keeps its lines but leaves its scope. A DIE
//     whose code is all gone gets the tombstone address (all ones), as
//     linkers mark dead code;
//   - location lists: each entry becomes one per output part of its range;
//   - call sites: the return address after the same call, or the tombstone;
//   - .debug_aranges is rebuilt from the units' new ranges.
//
// .debug_info keeps its size (values are patched in place), so no DIE moves
// and the sections that only name DIEs or strings stay as they are.

import { DwarfRefusal, DwarfWriter, putPaddedUleb, putU32, putUN, refuse } from "./bytes.js";
import type { CodeMap, Interval } from "./code-map.js";
import { AT, FORM, attrOf, readUnits, type Attr, type Die, type Unit } from "./info.js";
import { readLineProgram, writeLineProgram, type LineProgram } from "./line.js";
import { followLines } from "./line-follow.js";
import { readContributions, readV4List, readV5List, writeV4List, writeV5List, type ListContext, type ReadList } from "./lists.js";

export { DwarfRefusal };

/** Sections with no code addresses and no offsets into the sections rewritten. */
const UNCHANGED = new Set([".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets", ".debug_pubnames", ".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes", ".debug_names", ".debug_types", ".debug_macinfo"]);
const REWRITTEN = new Set([".debug_info", ".debug_line", ".debug_ranges", ".debug_loc", ".debug_rnglists", ".debug_loclists", ".debug_addr", ".debug_aranges"]);

const TAG_COMPILE_UNIT = 0x11;
const TAG_PARTIAL_UNIT = 0x3c;
const TAG_GNU_CALL_SITE = 0x4109;
const LOCLIST_ATTRS = new Set([0x02, 0x19, 0x2a, 0x2e, 0x38, 0x40, 0x48, 0x4a, 0x4d]);

interface UnitState {
  unit: Unit;
  addrBase: number | null;
  rnglistsBase: number | null;
  loclistsBase: number | null;
  /** The unit's base address in the input (its DW_AT_low_pc), and in the output. */
  base: number;
  newBase: number;
}

interface ListUse {
  /** Absolute offset of the list in its input section. */
  offset: number;
  out: ReadList;
  addressSize: number;
  newBase: number;
}

/** Intervals of `a` inside `b` (both sorted, disjoint). */
function intersect(a: readonly Interval[], b: readonly Interval[] | null): Interval[] {
  if (b === null) return a.slice();
  const out: Interval[] = [];
  let j = 0;
  for (const x of a) {
    while (j < b.length && b[j]!.hi <= x.lo) j++;
    for (let k = j; k < b.length && b[k]!.lo < x.hi; k++) {
      const lo = Math.max(x.lo, b[k]!.lo);
      const hi = Math.min(x.hi, b[k]!.hi);
      if (lo < hi) out.push({ lo, hi });
    }
  }
  return out;
}

function union(list: Interval[]): Interval[] {
  list.sort((x, y) => x.lo - y.lo);
  const out: Interval[] = [];
  for (const x of list) {
    const last = out[out.length - 1];
    if (last && x.lo <= last.hi) last.hi = Math.max(last.hi, x.hi);
    else out.push({ ...x });
  }
  return out;
}

/**
 * The module's DWARF sections (name → payload) rewritten for the output
 * code `code` maps back to the input. Throws DwarfRefusal naming the part
 * that cannot be rewritten exactly.
 */
export function rewriteDwarf(sections: ReadonlyMap<string, Uint8Array>, code: CodeMap): Map<string, Uint8Array> {
  for (const name of sections.keys()) {
    if (name === "external_debug_info") refuse("external_debug_info names DWARF in another file, which cannot be rewritten here");
    if (!UNCHANGED.has(name) && !REWRITTEN.has(name)) refuse(`a ${name} section, which the rewrite does not know`);
  }
  const info = sections.get(".debug_info");
  const result = new Map(sections);
  if (!info) {
    for (const n of REWRITTEN) if (sections.has(n)) refuse(`${n} without .debug_info`);
    return result;
  }
  const abbrev = sections.get(".debug_abbrev") ?? refuse(".debug_info without .debug_abbrev");
  const units = readUnits(info, abbrev);
  const newInfo = info.slice();
  const addrIn = sections.get(".debug_addr");
  const newAddr = addrIn?.slice();
  const addrPatched = new Map<number, number>();

  const states: UnitState[] = units.map((unit) => {
    const top = unit.dies[0];
    const get = (at: number): number | null => (top ? (attrOf(top, at)?.value ?? null) : null);
    const st: UnitState = { unit, addrBase: get(AT.addr_base), rnglistsBase: get(AT.rnglists_base), loclistsBase: get(AT.loclists_base), base: 0, newBase: 0 };
    const low = top ? attrOf(top, AT.low_pc) : undefined;
    if (low) st.base = addrValue(st, low);
    return st;
  });

  function addrEntryPos(st: UnitState, index: number): number {
    if (!addrIn) refuse("an indexed address without .debug_addr");
    if (st.addrBase === null) refuse("an indexed address in a unit without DW_AT_addr_base");
    const pos = st.addrBase + index * st.unit.addressSize;
    if (pos + st.unit.addressSize > addrIn.length) refuse(`.debug_addr: entry ${index} past the end`);
    return pos;
  }
  function addrAt(st: UnitState, index: number): number {
    const pos = addrEntryPos(st, index);
    let v = 0;
    for (let k = st.unit.addressSize - 1; k >= 0; k--) v = v * 256 + addrIn![pos + k]!;
    return v;
  }
  function addrValue(st: UnitState, a: Attr): number {
    return a.form === FORM.addr ? a.value : addrAt(st, a.value);
  }
  function setAddr(st: UnitState, a: Attr, v: number): void {
    if (a.form === FORM.addr) {
      putUN(newInfo, a.pos, st.unit.addressSize, v);
      return;
    }
    const pos = addrEntryPos(st, a.value);
    const had = addrPatched.get(pos);
    if (had !== undefined && had !== v) refuse(`.debug_addr: entry ${a.value} is shared by addresses that now differ`);
    addrPatched.set(pos, v);
    putUN(newAddr!, pos, st.unit.addressSize, v);
  }
  const tombstone = (st: UnitState): number => 2 ** (8 * st.unit.addressSize) - 1;
  function setConst(a: Attr, v: number): void {
    switch (a.form) {
      case FORM.data1:
      case FORM.data2:
      case FORM.data4:
      case FORM.data8:
        putUN(newInfo, a.pos, a.size, v);
        return;
      case FORM.udata:
        putPaddedUleb(newInfo, a.pos, a.size, v);
        return;
      case FORM.sdata:
        if (v >= 2 ** (7 * a.size - 1)) refuse(`a value ${v} does not fit in a ${a.size}-byte signed LEB128`);
        putPaddedUleb(newInfo, a.pos, a.size, v);
        return;
      case FORM.implicit_const:
        if (v !== a.value) refuse("a high_pc given as an implicit constant, which cannot change");
        return;
    }
    refuse(`a high_pc of form 0x${a.form.toString(16)}`);
  }

  // ---- line programs ----
  const programs = new Map<number, LineProgram>();
  const line = sections.get(".debug_line");
  for (const st of states) {
    for (const die of st.unit.dies) {
      const a = attrOf(die, AT.stmt_list);
      if (!a) continue;
      if (!line) refuse("DW_AT_stmt_list without .debug_line");
      if (!programs.has(a.value)) programs.set(a.value, readLineProgram(line, a.value, st.unit.addressSize));
    }
  }
  if (line) {
    const newSeqs = followLines([...programs.values()], code);
    const w = new DwarfWriter(line.length + 1024);
    const moved = new Map<number, number>();
    for (const p of [...programs.values()].sort((x, y) => x.offset - y.offset)) {
      moved.set(p.offset, w.len);
      writeLineProgram(w, p, newSeqs.get(p) ?? []);
    }
    result.set(".debug_line", w.finish());
    for (const st of states) for (const die of st.unit.dies) {
      const a = attrOf(die, AT.stmt_list);
      if (a) putU32(newInfo, a.pos, moved.get(a.value)!);
    }
  }

  // ---- lists: where each referenced list is, read lazily ----
  const v4 = (name: ".debug_ranges" | ".debug_loc") => ({ name, sec: sections.get(name), uses: new Map<number, ListUse>(), refs: [] as { pos: number; offset: number }[] });
  const ranges4 = v4(".debug_ranges");
  const loc4 = v4(".debug_loc");
  const v5 = (name: ".debug_rnglists" | ".debug_loclists") => {
    const sec = sections.get(name);
    return { name, sec, contribs: sec ? readContributions(sec, name) : [], uses: new Map<number, ListUse>(), refs: [] as { pos: number; offset: number }[] };
  };
  const rng5 = v5(".debug_rnglists");
  const loc5 = v5(".debug_loclists");
  const contextOf = (st: UnitState): ListContext => ({ addressSize: st.unit.addressSize, base: st.base, addr: (i) => addrAt(st, i) });

  /** The input list an attribute names: its section's record, and its absolute offset. */
  function listOf(st: UnitState, a: Attr, loc: boolean): { set: typeof ranges4 | typeof rng5; offset: number; read: () => ReadList } {
    if (st.unit.version === 4) {
      const set = loc ? loc4 : ranges4;
      if (!set.sec) refuse(`a list in ${set.name}, which is missing`);
      return { set, offset: a.value, read: () => readV4List(set.sec!, a.value, loc, contextOf(st), set.name) };
    }
    const set = loc ? loc5 : rng5;
    if (!set.sec) refuse(`a list in ${set.name}, which is missing`);
    let offset = a.value;
    if (a.form === FORM.rnglistx || a.form === FORM.loclistx) {
      const base = loc ? st.loclistsBase : st.rnglistsBase;
      const c = set.contribs.find((x) => x.base === base);
      if (!c) refuse(`an indexed list in ${set.name} in a unit without a matching base`);
      if (a.value >= c.table.length) refuse(`${set.name}: list index ${a.value} past the offset table`);
      offset = c.table[a.value]!;
    }
    return { set, offset, read: () => readV5List(set.sec!, offset, loc, contextOf(st), set.name) };
  }
  function useList(st: UnitState, a: Attr, loc: boolean, follow: (l: ReadList) => ReadList): ReadList {
    const { set, offset, read } = listOf(st, a, loc);
    if (a.form === FORM.sec_offset) set.refs.push({ pos: a.pos, offset });
    const out = follow(read());
    const had = set.uses.get(offset);
    if (had) {
      const same = had.out.entries.length === out.entries.length && had.out.entries.every((e, k) => e.lo === out.entries[k]!.lo && e.hi === out.entries[k]!.hi);
      if (!same) refuse(`${set.name}: a list shared by scopes whose code now differs`);
    } else set.uses.set(offset, { offset, out, addressSize: st.unit.addressSize, newBase: st.newBase });
    return out;
  }
  const followLocations = (l: ReadList): ReadList => ({
    defaults: l.defaults,
    entries: l.entries.flatMap((e) => code.image(e.lo, e.hi).map((x) => ({ lo: x.lo, hi: x.hi, expr: e.expr! }))),
  });

  // ---- DIEs ----
  const cuRanges: { unit: Unit; ranges: Interval[] }[] = [];
  for (const st of states) {
    const dies = st.unit.dies;
    const out: (Interval[] | null)[] = new Array(dies.length).fill(null);
    // under a scope whose code is all gone
    const deadUnder: boolean[] = new Array(dies.length).fill(false);
    const within = (die: Die): Interval[] | null => {
      for (let p = die.parent; p >= 0; p = dies[p]!.parent) if (out[p] !== null) return out[p]!;
      return null;
    };
    for (let k = 0; k < dies.length; k++) {
      const die = dies[k]!;
      const p = die.parent;
      const dead = p >= 0 && (deadUnder[p]! || (out[p] !== null && out[p]!.length === 0));
      deadUnder[k] = dead;
      // most DIEs have nothing that addresses code
      if (die.attrs.length === 0) continue;
      const isUnit = die.parent < 0 && (die.tag === TAG_COMPILE_UNIT || die.tag === TAG_PARTIAL_UNIT);
      let low: Attr | undefined;
      let high: Attr | undefined;
      let rangesA: Attr | undefined;
      for (const a of die.attrs) {
        if (a.at === AT.low_pc) low ??= a;
        else if (a.at === AT.high_pc) high ??= a;
        else if (a.at === AT.ranges) rangesA ??= a;
      }
      if (rangesA) {
        if (isUnit && low) {
          setAddr(st, low, 0);
          st.newBase = 0;
        }
        const parent = within(die);
        let got: Interval[] = [];
        useList(st, rangesA, false, (l) => {
          got = intersect(union(l.entries.flatMap((e) => code.image(e.lo, e.hi, parent))), parent);
          return { defaults: [], entries: got.map((x) => ({ lo: x.lo, hi: x.hi })) };
        });
        out[k] = got;
        if (low && !isUnit) setAddr(st, low, got.length === 0 ? tombstone(st) : (code.start(addrValue(st, low)) ?? got[0]!.lo));
      } else if (low && high) {
        const lo = addrValue(st, low);
        const hi = isAddressForm(high.form) ? addrValue(st, high) : lo + high.value;
        const parent = dead ? null : within(die);
        const cands = dead ? [] : intersect(code.image(lo, hi, parent), parent);
        const entry = code.start(lo);
        let pick: Interval | undefined = cands.find((x) => entry !== null && x.lo <= entry && entry < x.hi);
        for (const x of cands) if (!pick || x.hi - x.lo > pick.hi - pick.lo) pick = x;
        if (!pick) {
          setAddr(st, low, tombstone(st));
          if (isAddressForm(high.form)) setAddr(st, high, tombstone(st));
          else setConst(high, 0);
          out[k] = [];
        } else {
          setAddr(st, low, pick.lo);
          if (isAddressForm(high.form)) setAddr(st, high, pick.hi);
          else setConst(high, pick.hi - pick.lo);
          out[k] = [pick];
        }
        if (isUnit) st.newBase = out[k]!.length > 0 ? out[k]![0]!.lo : 0;
      } else if (low) {
        if (isUnit) {
          setAddr(st, low, 0);
          st.newBase = 0;
        } else {
          const x = addrValue(st, low);
          const to = dead ? null : die.tag === TAG_GNU_CALL_SITE ? code.afterCall(x) : code.start(x);
          setAddr(st, low, to ?? tombstone(st));
        }
      } else if (high) refuse(`.debug_info: a DW_AT_high_pc without DW_AT_low_pc (offset ${die.offset})`);
      if (isUnit && out[k] !== null) cuRanges.push({ unit: st.unit, ranges: out[k]! });
      for (const a of die.attrs) {
        if (a.at === AT.entry_pc) {
          const mine = out[k] ?? within(die);
          setAddr(st, a, dead || (mine !== null && mine.length === 0) ? tombstone(st) : (code.start(addrValue(st, a)) ?? mine?.[0]?.lo ?? tombstone(st)));
        } else if (a.at === AT.call_return_pc) setAddr(st, a, dead ? tombstone(st) : (code.afterCall(addrValue(st, a)) ?? tombstone(st)));
        else if (a.at === AT.call_pc) setAddr(st, a, dead ? tombstone(st) : (code.start(addrValue(st, a)) ?? tombstone(st)));
        else if (LOCLIST_ATTRS.has(a.at)) useList(st, a, true, followLocations);
      }
    }
  }

  // ---- the list sections, written anew ----
  for (const set of [ranges4, loc4]) {
    if (!set.sec) continue;
    const loc = set === loc4;
    const w = new DwarfWriter(set.sec.length + 256);
    const map = new Map<number, number>();
    for (const u of [...set.uses.values()].sort((x, y) => x.offset - y.offset)) {
      map.set(u.offset, w.len);
      writeV4List(w, u.out.entries, loc, u.addressSize, u.newBase);
    }
    result.set(set.name, w.finish());
    for (const r of set.refs) putU32(newInfo, r.pos, map.get(r.offset)!);
  }
  for (const set of [rng5, loc5]) {
    if (!set.sec) continue;
    const loc = set === loc5;
    const w = new DwarfWriter(set.sec.length + 256);
    const map = new Map<number, number>();
    const newBases = new Map<number, number>();
    for (const c of set.contribs) {
      const start = w.len;
      w.u32(0);
      w.bytes(c.header);
      const base = w.len;
      newBases.set(c.base, base);
      const tableAt = w.len;
      for (let k = 0; k < c.table.length; k++) w.u32(0);
      for (const off of c.table) {
        if (set.uses.has(off)) continue;
        // a list no DIE names: read it in the context of the unit whose base this is
        const st = states.find((x) => (loc ? x.loclistsBase : x.rnglistsBase) === c.base) ?? refuse(`${set.name}: a contribution no unit names`);
        const l = readV5List(set.sec, off, loc, contextOf(st), set.name);
        const o = loc ? followLocations(l) : { defaults: [], entries: union(l.entries.flatMap((e) => code.image(e.lo, e.hi))).map((x) => ({ lo: x.lo, hi: x.hi })) };
        set.uses.set(off, { offset: off, out: o, addressSize: st.unit.addressSize, newBase: st.newBase });
      }
      const mine = [...set.uses.values()].filter((u) => u.offset >= c.base && u.offset < c.end).sort((x, y) => x.offset - y.offset);
      for (const u of mine) {
        map.set(u.offset, w.len);
        writeV5List(w, u.out, loc, c.addressSize);
      }
      c.table.forEach((off, k) => w.patchU32(tableAt + 4 * k, map.get(off)! - base));
      w.patchU32(start, w.len - start - 4);
    }
    result.set(set.name, w.finish());
    for (const r of set.refs) putU32(newInfo, r.pos, map.get(r.offset)!);
    const baseAttr = loc ? AT.loclists_base : AT.rnglists_base;
    for (const st of states) {
      const a = st.unit.dies[0] ? attrOf(st.unit.dies[0], baseAttr) : undefined;
      if (!a) continue;
      const nb = newBases.get(a.value);
      if (nb === undefined) refuse(`${set.name}: a unit's base names no contribution`);
      putU32(newInfo, a.pos, nb);
    }
  }

  if (sections.has(".debug_aranges")) result.set(".debug_aranges", writeAranges(cuRanges));
  result.set(".debug_info", newInfo);
  if (newAddr) result.set(".debug_addr", newAddr);
  return result;
}

const isAddressForm = (form: number): boolean => form === FORM.addr || form === FORM.addrx || (form >= FORM.addrx1 && form <= FORM.addrx4);

/** .debug_aranges: one set per unit with code, its ranges in the output. */
function writeAranges(units: readonly { unit: Unit; ranges: Interval[] }[]): Uint8Array {
  const w = new DwarfWriter(256);
  for (const { unit, ranges } of units) {
    if (ranges.length === 0) continue;
    const size = unit.addressSize;
    const start = w.len;
    w.u32(0);
    w.u16(2);
    w.u32(unit.offset);
    w.u8(size);
    w.u8(0);
    while ((w.len - start) % (2 * size) !== 0) w.u8(0);
    for (const r of ranges) {
      w.uN(r.lo, size);
      w.uN(r.hi - r.lo, size);
    }
    w.uN(0, size);
    w.uN(0, size);
    w.patchU32(start, w.len - start - 4);
  }
  return w.finish();
}
