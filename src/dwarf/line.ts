// Line programs (.debug_line, DWARF 4 and 5): each program is read into its
// sequences of rows, and a new program is written for the output code with
// the same header (file and directory tables are kept byte for byte), so
// only the opcodes after the header change.

import { DwarfReader, DwarfWriter, refuse } from "./bytes.js";

export const STMT = 1;
const BASIC_BLOCK = 2;
const PROLOGUE_END = 4;
const EPILOGUE_BEGIN = 8;

export interface Row {
  address: number;
  file: number;
  line: number;
  column: number;
  /** STMT | BASIC_BLOCK | PROLOGUE_END | EPILOGUE_BEGIN */
  flags: number;
  isa: number;
  discriminator: number;
}

export interface Sequence {
  /** Rows in address order (the end_sequence row left out). */
  rows: Row[];
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
  let rows: Row[] = [];
  const fresh = (): Row => ({ address: 0, file: 1, line: 1, column: 0, flags: defaultIsStmt ? STMT : 0, isa: 0, discriminator: 0 });
  let st = fresh();
  const emit = (): void => {
    rows.push({ address: st.address, file: st.file, line: st.line, column: st.column, flags: st.flags, isa: st.isa, discriminator: st.discriminator });
    st.flags &= STMT;
    st.discriminator = 0;
  };
  const constAddPc = Math.floor((255 - opcodeBase) / lineRange);
  while (r.pos < end) {
    const op = r.u8();
    if (op >= opcodeBase) {
      const adj = op - opcodeBase;
      st.address += Math.floor(adj / lineRange);
      st.line += lineBase + (adj % lineRange);
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
          sequences.push({ rows, end: st.address });
          rows = [];
          st = fresh();
        } else if (sub === 2) st.address = r.uN(len - 1);
        else if (sub === 3) refuse("DW_LNE_define_file in a line program");
        else if (sub === 4) st.discriminator = r.uleb();
        if (r.pos > next) refuse(`.debug_line: extended opcode ${sub} longer than its length`);
        r.pos = next;
        break;
      }
      case 1:
        emit();
        break;
      case 2:
        st.address += r.uleb();
        break;
      case 3:
        st.line += r.sleb();
        break;
      case 4:
        st.file = r.uleb();
        break;
      case 5:
        st.column = r.uleb();
        break;
      case 6:
        st.flags ^= STMT;
        break;
      case 7:
        st.flags |= BASIC_BLOCK;
        break;
      case 8:
        st.address += constAddPc;
        break;
      case 9:
        st.address += r.u16();
        break;
      case 10:
        st.flags |= PROLOGUE_END;
        break;
      case 11:
        st.flags |= EPILOGUE_BEGIN;
        break;
      case 12:
        st.isa = r.uleb();
        break;
      default:
        for (let k = argCounts[op - 1]!; k > 0; k--) r.uleb();
    }
  }
  if (rows.length > 0) refuse(`.debug_line: the program at offset ${offset} ends inside a sequence`);
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
    if (seq.rows.length === 0) continue;
    let st: Row = { address: seq.rows[0]!.address, file: 1, line: 1, column: 0, flags: p.defaultIsStmt ? STMT : 0, isa: 0, discriminator: 0 };
    w.u8(0);
    w.uleb(1 + p.addressSize);
    w.u8(2);
    w.uN(st.address, p.addressSize);
    for (const row of seq.rows) {
      if (row.file !== st.file) {
        w.u8(4);
        w.uleb(row.file);
      }
      if (row.column !== st.column) {
        w.u8(5);
        w.uleb(row.column);
      }
      if ((row.flags & STMT) !== (st.flags & STMT)) w.u8(6);
      if (row.flags & BASIC_BLOCK) w.u8(7);
      if (row.flags & PROLOGUE_END) w.u8(10);
      if (row.flags & EPILOGUE_BEGIN) w.u8(11);
      if (row.isa !== st.isa) {
        w.u8(12);
        w.uleb(row.isa);
      }
      if (row.discriminator !== 0) {
        w.u8(0);
        w.uleb(1 + ulebSize(row.discriminator));
        w.u8(4);
        w.uleb(row.discriminator);
      }
      const dAddr = row.address - st.address;
      const dLine = row.line - st.line;
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
      st = { address: row.address, file: row.file, line: row.line, column: row.column, flags: row.flags & STMT, isa: row.isa, discriminator: 0 };
    }
    if (seq.end > st.address) {
      w.u8(2);
      w.uleb(seq.end - st.address);
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
