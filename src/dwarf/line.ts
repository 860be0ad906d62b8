// Line programs (.debug_line, DWARF 4 and 5): each program is read into its
// sequences of rows, and a new program is written for the output code with
// the same header (file and directory tables are kept byte for byte), so
// only the opcodes after the header change.

import { DwarfReader, DwarfWriter, refuse } from "./bytes.js";

export const STMT = 1;
const BASIC_BLOCK = 2;
const PROLOGUE_END = 4;
const EPILOGUE_BEGIN = 8;

/**
 * Line table rows, column by column (a large module has hundreds of
 * thousands: one object each made the rewrite slow to start): row k is
 * address[k], file[k], line[k], column[k], flags[k] (STMT | BASIC_BLOCK |
 * PROLOGUE_END | EPILOGUE_BEGIN), isa[k], discriminator[k]. Rows are only
 * appended; the arrays are replaced as they grow, so read them from here.
 */
export class Rows {
  length = 0;
  address = new Float64Array(256);
  file = new Float64Array(256);
  line = new Float64Array(256);
  column = new Float64Array(256);
  flags = new Uint8Array(256);
  isa = new Float64Array(256);
  discriminator = new Float64Array(256);

  push(address: number, file: number, line: number, column: number, flags: number, isa: number, discriminator: number): void {
    const k = this.length;
    if (k === this.address.length) this.grow();
    this.address[k] = address;
    this.file[k] = file;
    this.line[k] = line;
    this.column[k] = column;
    this.flags[k] = flags;
    this.isa[k] = isa;
    this.discriminator[k] = discriminator;
    this.length = k + 1;
  }

  private grow(): void {
    const n = this.address.length * 2;
    const wider = <T extends Float64Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.address = wider(this.address);
    this.file = wider(this.file);
    this.line = wider(this.line);
    this.column = wider(this.column);
    this.flags = wider(this.flags);
    this.isa = wider(this.isa);
    this.discriminator = wider(this.discriminator);
  }
}

export interface Sequence {
  /** Its rows, in address order (the end_sequence row left out): rows[from..to) of a shared store. */
  rows: Rows;
  from: number;
  to: number;
  /** The address of the end_sequence row. */
  end: number;
}

export interface LineProgram {
  offset: number;
  /** Bytes from the version field up to the first opcode (the header without its length). */
  header: Uint8Array;
  addressSize: number;
  defaultIsStmt: boolean;
  lineBase: number;
  lineRange: number;
  opcodeBase: number;
  sequences: Sequence[];
}

export function readLineProgram(line: Uint8Array, offset: number, unitAddressSize: number): LineProgram {
  const r = new DwarfReader(line, offset, line.length, ".debug_line");
  const length = r.u32();
  if (length >= 0xfffffff0) refuse("64-bit DWARF");
  const end = r.pos + length;
  if (end > line.length) refuse(`.debug_line: a program at offset ${offset} runs past the end`);
  r.end = end;
  const headerStart = r.pos;
  const version = r.u16();
  if (version !== 4 && version !== 5) refuse(`a version ${version} line program (only 4 and 5 are rewritten)`);
  let addressSize = unitAddressSize;
  if (version === 5) {
    addressSize = r.u8();
    if (r.u8() !== 0) refuse("segmented addresses in a line program");
  }
  const headerLength = r.u32();
  const programStart = r.pos + headerLength;
  const minInst = r.u8();
  const maxOps = r.u8();
  if (minInst !== 1 || maxOps !== 1) refuse(`a line program with minimum_instruction_length ${minInst} and maximum_operations_per_instruction ${maxOps}`);
  const defaultIsStmt = r.u8() !== 0;
  const lineBase = (r.u8() << 24) >> 24;
  const lineRange = r.u8();
  const opcodeBase = r.u8();
  if (lineRange === 0 || opcodeBase === 0) refuse("a line program header with line_range or opcode_base 0");
  const argCounts: number[] = [];
  for (let k = 1; k < opcodeBase; k++) argCounts.push(r.u8());
  const header = line.slice(headerStart, programStart);
  r.pos = programStart;

  const sequences: Sequence[] = [];
  const rows = new Rows();
  let from = 0;
  // the state machine's registers
  let address = 0;
  let file = 1;
  let lineNo = 1;
  let column = 0;
  let flags = defaultIsStmt ? STMT : 0;
  let isa = 0;
  let discriminator = 0;
  const emit = (): void => {
    rows.push(address, file, lineNo, column, flags, isa, discriminator);
    flags &= STMT;
    discriminator = 0;
  };
  const constAddPc = Math.floor((255 - opcodeBase) / lineRange);
  while (r.pos < end) {
    const op = r.u8();
    if (op >= opcodeBase) {
      const adj = op - opcodeBase;
      address += Math.floor(adj / lineRange);
      lineNo += lineBase + (adj % lineRange);
      emit();
      continue;
    }
    switch (op) {
      case 0: {
        const len = r.uleb();
        const next = r.pos + len;
        if (len === 0) refuse(".debug_line: an empty extended opcode");
        const sub = r.u8();
        if (sub === 1) {
          sequences.push({ rows, from, to: rows.length, end: address });
          from = rows.length;
          address = 0;
          file = 1;
          lineNo = 1;
          column = 0;
          flags = defaultIsStmt ? STMT : 0;
          isa = 0;
          discriminator = 0;
        } else if (sub === 2) address = r.uN(len - 1);
        else if (sub === 3) refuse("DW_LNE_define_file in a line program");
        else if (sub === 4) discriminator = r.uleb();
        if (r.pos > next) refuse(`.debug_line: extended opcode ${sub} longer than its length`);
        r.pos = next;
        break;
      }
      case 1:
        emit();
        break;
      case 2:
        address += r.uleb();
        break;
      case 3:
        lineNo += r.sleb();
        break;
      case 4:
        file = r.uleb();
        break;
      case 5:
        column = r.uleb();
        break;
      case 6:
        flags ^= STMT;
        break;
      case 7:
        flags |= BASIC_BLOCK;
        break;
      case 8:
        address += constAddPc;
        break;
      case 9:
        address += r.u16();
        break;
      case 10:
        flags |= PROLOGUE_END;
        break;
      case 11:
        flags |= EPILOGUE_BEGIN;
        break;
      case 12:
        isa = r.uleb();
        break;
      default:
        for (let k = argCounts[op - 1]!; k > 0; k--) r.uleb();
    }
  }
  if (rows.length > from) refuse(`.debug_line: the program at offset ${offset} ends inside a sequence`);
  return { offset, header, addressSize, defaultIsStmt, lineBase, lineRange, opcodeBase, sequences };
}

/** Writes `p`'s header followed by `sequences` (rows sorted by address in each) as a line program unit. */
export function writeLineProgram(w: DwarfWriter, p: LineProgram, sequences: readonly Sequence[]): void {
  const lengthAt = w.len;
  w.u32(0);
  w.bytes(p.header);
  const { lineBase, lineRange, opcodeBase } = p;
  const special = (dAddr: number, dLine: number): number => {
    if (dLine < lineBase || dLine >= lineBase + lineRange) return -1;
    const op = dLine - lineBase + lineRange * dAddr + opcodeBase;
    return op <= 255 ? op : -1;
  };
  for (const seq of sequences) {
    if (seq.to <= seq.from) continue;
    const { address, file, line, column, flags, isa, discriminator } = seq.rows;
    // the registers as the rows written so far leave them
    let stAddress = address[seq.from]!;
    let stFile = 1;
    let stLine = 1;
    let stColumn = 0;
    let stFlags = p.defaultIsStmt ? STMT : 0;
    let stIsa = 0;
    w.u8(0);
    w.uleb(1 + p.addressSize);
    w.u8(2);
    w.uN(stAddress, p.addressSize);
    for (let k = seq.from; k < seq.to; k++) {
      const rowFlags = flags[k]!;
      if (file[k] !== stFile) {
        w.u8(4);
        w.uleb(file[k]!);
      }
      if (column[k] !== stColumn) {
        w.u8(5);
        w.uleb(column[k]!);
      }
      if ((rowFlags & STMT) !== (stFlags & STMT)) w.u8(6);
      if (rowFlags & BASIC_BLOCK) w.u8(7);
      if (rowFlags & PROLOGUE_END) w.u8(10);
      if (rowFlags & EPILOGUE_BEGIN) w.u8(11);
      if (isa[k] !== stIsa) {
        w.u8(12);
        w.uleb(isa[k]!);
      }
      if (discriminator[k] !== 0) {
        w.u8(0);
        w.uleb(1 + ulebSize(discriminator[k]!));
        w.u8(4);
        w.uleb(discriminator[k]!);
      }
      const dAddr = address[k]! - stAddress;
      const dLine = line[k]! - stLine;
      let op = special(dAddr, dLine);
      if (op < 0) {
        if (dLine !== 0) {
          w.u8(3);
          w.sleb(dLine);
        }
        op = special(dAddr, 0);
        if (op < 0) {
          if (dAddr > 0) {
            w.u8(2);
            w.uleb(dAddr);
          }
          op = 1;
        }
      }
      w.u8(op);
      stAddress = address[k]!;
      stFile = file[k]!;
      stLine = line[k]!;
      stColumn = column[k]!;
      stFlags = rowFlags & STMT;
      stIsa = isa[k]!;
    }
    if (seq.end > stAddress) {
      w.u8(2);
      w.uleb(seq.end - stAddress);
    }
    w.u8(0);
    w.uleb(1);
    w.u8(1);
  }
  w.patchU32(lengthAt, w.len - lengthAt - 4);
}

function ulebSize(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}
