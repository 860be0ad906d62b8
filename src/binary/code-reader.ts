// Decodes an instruction sequence (function body or constant expression) into
// the compact Body form, driven by the opcode table. Checks the binary
// grammar of structured instructions (else only in if, catch only in try ...)
// so that malformed nesting is reported here, not by the validator.

import { ByteReader } from "./bytes.js";
import { BYTE_OPS, Imm, OPS, isPrefix, prefixedOp, idOf } from "./opcodes/index.js";
import { BodyBuilder, BLOCK_EMPTY, type Body } from "../ir/body.js";
import { isAbstractHeap } from "../ir/types.js";
import { readHeapType, readValType } from "./type-reader.js";
import { ORDERING_MESSAGE, unknownOpcodeMessage } from "./proposals.js";

// Structured-instruction kinds on the reader's nesting stack.
const K_BLOCK = 1;
const K_IF = 2;
const K_ELSE = 3;
const K_TRY = 4;
const K_CATCH = 5;
const K_CATCH_ALL = 6;

const ID_BLOCK = idOf("block");
const ID_LOOP = idOf("loop");
const ID_IF = idOf("if");
const ID_ELSE = idOf("else");
const ID_END = idOf("end");
const ID_TRY = idOf("try");
const ID_CATCH = idOf("catch");
const ID_CATCH_ALL = idOf("catch_all");
const ID_DELEGATE = idOf("delegate");
const ID_TRY_TABLE = idOf("try_table");

/** Per op id: its immediate kinds (shared arrays from the table). */
const IMMS = OPS.map((d) => d.imms);

export function decodeInstructions(
  buf: Uint8Array,
  start: number,
  end: number,
  base: number,
  isConstExpr: boolean,
  section: string | undefined,
): { body: Body; end: number } {
  const s = new ByteReader(buf, start, end, base);
  s.section = section;
  const b = new BodyBuilder(isConstExpr ? 4 : Math.max(16, ((end - start) / 1.6) | 0), true);
  let nest = new Uint8Array(16);
  let depth = 0;

  for (;;) {
    if (s.pos >= end) {
      s.fail(isConstExpr ? "unexpected end of section or function: constant expression without end" : "unexpected end of section or function: END opcode expected");
    }
    const at = s.pos;
    const byte = buf[s.pos++]!;
    let id = BYTE_OPS[byte]!;
    if (id < 0) {
      if (isPrefix(byte)) {
        const code = s.u32();
        id = prefixedOp(byte, code);
        if (id < 0) s.fail(unknownOpcodeMessage(byte, code), at);
      } else {
        s.fail(unknownOpcodeMessage(null, byte), at);
      }
    }
    b.begin(id, base + at);

    // structure
    if (id === ID_BLOCK || id === ID_LOOP || id === ID_IF || id === ID_TRY || id === ID_TRY_TABLE) {
      if (depth === nest.length) {
        const n = new Uint8Array(nest.length * 2);
        n.set(nest);
        nest = n;
      }
      nest[depth++] = id === ID_IF ? K_IF : id === ID_TRY ? K_TRY : K_BLOCK;
    } else if (id === ID_END) {
      if (depth === 0) {
        readImms(s, b, IMMS[id]!);
        return { body: b.finish(), end: s.pos };
      }
      depth--;
    } else if (id === ID_ELSE) {
      if (depth === 0 || nest[depth - 1] !== K_IF) s.fail("illegal opcode: else without matching if", at);
      nest[depth - 1] = K_ELSE;
    } else if (id === ID_CATCH || id === ID_CATCH_ALL) {
      const k = depth === 0 ? 0 : nest[depth - 1]!;
      if (k !== K_TRY && k !== K_CATCH) s.fail(`illegal opcode: ${OPS[id]!.name} without matching try`, at);
      nest[depth - 1] = id === ID_CATCH ? K_CATCH : K_CATCH_ALL;
    } else if (id === ID_DELEGATE) {
      if (depth === 0 || nest[depth - 1] !== K_TRY) s.fail("illegal opcode: delegate without matching try", at);
      depth--;
    }

    const imms = IMMS[id]!;
    if (imms.length !== 0) readImms(s, b, imms, byte === 0xfe);
  }
}

/** `atomic`: the instruction is a threads one (0xfe prefix), whose memarg may not ask for an ordering. */
function readImms(s: ByteReader, b: BodyBuilder, imms: readonly number[], atomic = false): void {
  const buf = s.buf;
  for (let k = 0; k < imms.length; k++) {
    switch (imms[k]) {
      case Imm.BlockType: {
        const c = buf[s.pos];
        if (c === 0x40) {
          s.pos++;
          b.word(BLOCK_EMPTY);
        } else if (c !== undefined && ((c >= 0x7b && c <= 0x7f) || c === 0x63 || c === 0x64 || isAbstractHeap(c - 0x80))) {
          b.word(readValType(s));
        } else {
          const at = s.pos;
          const v = s.s33();
          if (v < 0) s.fail("malformed block type", at);
          b.word(-(v + 1));
        }
        break;
      }
      case Imm.I32:
        b.word(s.s32());
        break;
      case Imm.I64: {
        const at = b.reserve(2);
        s.s64Words(b.imm, at);
        break;
      }
      case Imm.F32:
        b.word(s.u32Fixed());
        break;
      case Imm.F64:
        b.word(s.u32Fixed());
        b.word(s.u32Fixed());
        break;
      case Imm.V128:
        for (let i = 0; i < 4; i++) b.word(s.u32Fixed());
        break;
      case Imm.MemArg: {
        const at = s.pos;
        const flags = s.u32();
        if (flags >= 0x80) s.fail(`malformed memop flags 0x${flags.toString(16)}`, at);
        if (flags & 0x20 && atomic) s.fail(ORDERING_MESSAGE, at);
        let mem = 0;
        if (flags & 0x40) mem = s.u32();
        b.word(flags & 0x3f);
        b.word(mem);
        const w = b.reserve(2);
        s.u64Words(b.imm, w);
        break;
      }
      case Imm.LabelTable: {
        const n = s.count(1, "br_table target");
        b.word(n);
        for (let i = 0; i <= n; i++) b.word(s.u32());
        break;
      }
      case Imm.ValTypes: {
        const n = s.count(1, "select type");
        b.word(n);
        for (let i = 0; i < n; i++) b.word(readValType(s));
        break;
      }
      case Imm.HeapType:
        b.word(readHeapType(s));
        break;
      case Imm.Lane:
        b.word(s.u8());
        break;
      case Imm.Shuffle:
        for (let i = 0; i < 16; i++) b.word(s.u8());
        break;
      case Imm.CastFlags: {
        const at = s.pos;
        const f = s.u8();
        if (f > 3) s.fail(`malformed cast flags ${f}`, at);
        b.word(f);
        break;
      }
      case Imm.Catches: {
        const n = s.count(2, "catch clause");
        b.word(n);
        for (let i = 0; i < n; i++) {
          const at = s.pos;
          const kind = s.u8();
          if (kind > 3) s.fail(`malformed catch clause kind ${kind}`, at);
          b.word(kind);
          b.word(kind < 2 ? s.u32() : 0);
          b.word(s.u32());
        }
        break;
      }
      case Imm.ZeroByte: {
        const at = s.pos;
        const z = s.u8();
        if (z !== 0) s.fail("malformed reserved byte: zero byte expected", at);
        b.word(0);
        break;
      }
      default:
        // every index-like immediate is one u32
        b.word(s.u32());
    }
  }
}
