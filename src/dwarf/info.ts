// Walks .debug_info (DWARF 4 and 5, 32-bit) with its .debug_abbrev and
// collects what addresses the code: each unit's header and every attribute
// that holds a code address or points into a section of them (line
// programs, range and location lists, the address table). Everything else is
// only skipped: the rewrite patches values in place, so .debug_info keeps its
// size and every DIE its offset. A form or attribute it does not understand
// is refused (see bytes.ts): a value it cannot place might be an address.

import { DwarfReader, refuse } from "./bytes.js";

export const AT = {
  location: 0x02,
  stmt_list: 0x10,
  low_pc: 0x11,
  high_pc: 0x12,
  entry_pc: 0x52,
  ranges: 0x55,
  addr_base: 0x73,
  rnglists_base: 0x74,
  loclists_base: 0x8c,
  call_return_pc: 0x7d,
  call_pc: 0x81,
} as const;

export const FORM = {
  addr: 0x01,
  data2: 0x05,
  data4: 0x06,
  data8: 0x07,
  data1: 0x0b,
  sdata: 0x0d,
  udata: 0x0f,
  sec_offset: 0x17,
  addrx: 0x1b,
  implicit_const: 0x21,
  loclistx: 0x22,
  rnglistx: 0x23,
  addrx1: 0x29,
  addrx2: 0x2a,
  addrx3: 0x2b,
  addrx4: 0x2c,
} as const;

/** Attributes whose sec_offset or loclistx value names a location list. */
const LOCLIST_ATTRS = new Set([0x02, 0x19, 0x2a, 0x2e, 0x38, 0x40, 0x48, 0x4a, 0x4d]);
/** Attributes whose sec_offset points into sections with no code addresses. */
const HARMLESS_OFFSETS = new Set([0x72 /* str_offsets_base */, 0x79 /* macros */, 0x43 /* macro_info */, 0x2119 /* GNU_macros */]);
/** Attributes that hold a code address (in an address form). */
const CODE_ADDRESS_ATTRS = new Set<number>([AT.low_pc, AT.high_pc, AT.entry_pc, AT.call_return_pc, AT.call_pc]);

export interface Attr {
  at: number;
  form: number;
  /** Offset of the value in .debug_info. */
  pos: number;
  /** Bytes the value takes there. */
  size: number;
  /** The value (an address, an index, an offset, a constant). */
  value: number;
}

export interface Die {
  offset: number;
  tag: number;
  /** Index of the parent in its unit's `dies`, or -1 for the unit DIE. */
  parent: number;
  /** Only the attributes the rewrite cares about. */
  attrs: Attr[];
}

export interface Unit {
  offset: number;
  version: number;
  unitType: number;
  addressSize: number;
  end: number;
  dies: Die[];
}

interface AbbrevAttr {
  at: number;
  form: number;
  implicit: number;
  /** Whether the rewrite must see it (interesting()), decided at its first use: 0 not yet, 1 yes, 2 no. */
  seen: 0 | 1 | 2;
}
interface Abbrev {
  tag: number;
  children: boolean;
  attrs: AbbrevAttr[];
}

function readAbbrevs(abbrev: Uint8Array, offset: number): Map<number, Abbrev> {
  const r = new DwarfReader(abbrev, offset, abbrev.length, ".debug_abbrev");
  const out = new Map<number, Abbrev>();
  for (;;) {
    const code = r.uleb();
    if (code === 0) return out;
    const tag = r.uleb();
    const children = r.u8() !== 0;
    const attrs: AbbrevAttr[] = [];
    for (;;) {
      const at = r.uleb();
      const form = r.uleb();
      if (at === 0 && form === 0) break;
      attrs.push({ at, form, implicit: form === FORM.implicit_const ? r.sleb() : 0, seen: 0 });
    }
    out.set(code, { tag, children, attrs });
  }
}

const ADDRX_SIZES: Record<number, number> = { [FORM.addrx1]: 1, [FORM.addrx2]: 2, [FORM.addrx3]: 3, [FORM.addrx4]: 4 };

/** Reads one attribute value, returning it (or 0 where only its extent matters); `r` ends after it. */
function readValue(r: DwarfReader, form: number, unit: Unit, implicit: number): number {
  switch (form) {
    case FORM.addr:
      return r.uN(unit.addressSize);
    case 0x0b: // data1
    case 0x11: // ref1
    case 0x0c: // flag
    case 0x25: // strx1
    case 0x29: // addrx1
      return r.u8();
    case 0x05: // data2
    case 0x12: // ref2
    case 0x26: // strx2
    case 0x2a: // addrx2
      return r.u16();
    case 0x27: // strx3
    case 0x2b: {
      // addrx3
      const lo = r.u16();
      return lo + r.u8() * 0x10000;
    }
    case 0x06: // data4
    case 0x13: // ref4
    case 0x0e: // strp
    case 0x10: // ref_addr (32-bit DWARF, version >= 3)
    case 0x17: // sec_offset
    case 0x1f: // line_strp
    case 0x1d: // strp_sup
    case 0x1c: // ref_sup4
    case 0x28: // strx4
    case 0x2c: // addrx4
      return r.u32();
    case 0x07: // data8
    case 0x14: // ref8
    case 0x20: // ref_sig8
    case 0x24: // ref_sup8
      r.skip(8);
      return 0;
    case 0x1e: // data16
      r.skip(16);
      return 0;
    case 0x0d: // sdata
      return r.sleb();
    case 0x0f: // udata
    case 0x15: // ref_udata
    case 0x1a: // strx
    case 0x1b: // addrx
    case 0x22: // loclistx
    case 0x23: // rnglistx
      return r.uleb();
    case 0x08: // string
      r.cstr();
      return 0;
    case 0x0a: // block1
      r.skip(r.u8());
      return 0;
    case 0x03: // block2
      r.skip(r.u16());
      return 0;
    case 0x04: // block4
      r.skip(r.u32());
      return 0;
    case 0x09: // block
    case 0x18: // exprloc
      r.skip(r.uleb());
      return 0;
    case 0x19: // flag_present
      return 1;
    case 0x21: // implicit_const
      return implicit;
  }
  return refuse(`.debug_info: unknown attribute form 0x${form.toString(16)} at offset ${r.pos}`);
}

const isAddrx = (form: number): boolean => form === FORM.addrx || form in ADDRX_SIZES;

/** Decides whether the rewrite must see an attribute; refuses those it cannot handle. */
function interesting(at: number, form: number, version: number, where: number): boolean {
  if (form === 0x16) refuse(`.debug_info: DW_FORM_indirect at offset ${where}`);
  if (at === 0x76 || at === 0x2130 || at === 0x2131) refuse("split DWARF (a dwo name): the code addresses live in another file");
  if (at === 0x2132 || at === 0x2133) refuse("GNU split-DWARF attributes");
  const addressForm = form === FORM.addr || isAddrx(form);
  if (CODE_ADDRESS_ATTRS.has(at)) {
    // high_pc may be a length; any other code address as a constant would be relative to a low_pc that moves
    if (addressForm || at === AT.high_pc) return true;
    refuse(`.debug_info: attribute 0x${at.toString(16)} gives a code address as a constant (form 0x${form.toString(16)}, offset ${where})`);
  }
  if (addressForm) refuse(`.debug_info: attribute 0x${at.toString(16)} holds an address (offset ${where}), and which kind is not known`);
  if (at === AT.stmt_list || at === AT.ranges || at === AT.addr_base || at === AT.rnglists_base || at === AT.loclists_base) return true;
  if (LOCLIST_ATTRS.has(at) && (form === FORM.sec_offset || form === FORM.loclistx)) return true;
  if (form === FORM.loclistx || form === FORM.rnglistx) refuse(`.debug_info: attribute 0x${at.toString(16)} names a list (offset ${where}) the rewrite does not know`);
  if (form === FORM.sec_offset && !HARMLESS_OFFSETS.has(at)) refuse(`.debug_info: attribute 0x${at.toString(16)} is a section offset (offset ${where}) the rewrite does not know`);
  if (version < 4 && LOCLIST_ATTRS.has(at) && (form === FORM.data4 || form === FORM.data8)) refuse("DWARF 3 location lists");
  return false;
}

/** Every unit of .debug_info with the DIEs and attributes the rewrite needs. */
export function readUnits(info: Uint8Array, abbrev: Uint8Array): Unit[] {
  const units: Unit[] = [];
  const abbrevCache = new Map<number, Map<number, Abbrev>>();
  let at = 0;
  while (at < info.length) {
    const r = new DwarfReader(info, at, info.length, ".debug_info");
    const length = r.u32();
    if (length >= 0xfffffff0) refuse("64-bit DWARF");
    const end = r.pos + length;
    if (end > info.length) refuse(`.debug_info: a unit at offset ${at} runs past the end`);
    r.end = end;
    const version = r.u16();
    if (version !== 4 && version !== 5) refuse(`DWARF version ${version} (only 4 and 5 are rewritten)`);
    let unitType = 1;
    let abbrevOffset: number;
    let addressSize: number;
    if (version === 5) {
      unitType = r.u8();
      addressSize = r.u8();
      abbrevOffset = r.u32();
      if (unitType === 4 || unitType === 5 || unitType === 6) refuse("split DWARF units");
      if (unitType === 2) r.skip(12); // type signature, type offset
      else if (unitType !== 1 && unitType !== 3) refuse(`a DWARF 5 unit of type ${unitType}`);
    } else {
      abbrevOffset = r.u32();
      addressSize = r.u8();
    }
    if (addressSize !== 4 && addressSize !== 8) refuse(`an address size of ${addressSize}`);
    // per version too: whether an attribute is interesting depends on it
    const key = abbrevOffset * 8 + version;
    let abbrevs = abbrevCache.get(key);
    if (!abbrevs) {
      abbrevs = readAbbrevs(abbrev, abbrevOffset);
      abbrevCache.set(key, abbrevs);
    }
    const unit: Unit = { offset: at, version, unitType, addressSize, end, dies: [] };
    const stack: number[] = [];
    while (r.pos < end) {
      const dieOffset = r.pos;
      const code = r.uleb();
      if (code === 0) {
        stack.pop();
        continue;
      }
      const ab = abbrevs.get(code);
      if (!ab) refuse(`.debug_info: abbreviation ${code} not found (offset ${dieOffset})`);
      const die: Die = { offset: dieOffset, tag: ab.tag, parent: stack.length > 0 ? stack[stack.length - 1]! : -1, attrs: [] };
      for (const a of ab.attrs) {
        const pos = r.pos;
        const value = readValue(r, a.form, unit, a.implicit);
        // the same for every use of this abbreviation (tables are cached per version); a refusal comes at the first
        if (a.seen === 0) {
          a.seen = interesting(a.at, a.form, version, pos) ? 1 : 2;
        }
        if (a.seen === 1) die.attrs.push({ at: a.at, form: a.form, pos, size: r.pos - pos, value });
      }
      const index = unit.dies.length;
      unit.dies.push(die);
      if (ab.children) stack.push(index);
    }
    units.push(unit);
    at = end;
  }
  return units;
}

export const attrOf = (die: Die, at: number): Attr | undefined => die.attrs.find((a) => a.at === at);
