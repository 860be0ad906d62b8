// Prints instructions in the text format's flat (non-folded) syntax, driven
// by the opcode table. For debugging, tests and reports, not for re-parsing.

import { Imm, OPS } from "./opcodes/index.js";
import { BLOCK_EMPTY, type Body } from "../ir/body.js";
import { heapTypeName, valTypeName } from "../ir/types.js";

const f32 = new Float32Array(1);
const i32v = new Int32Array(f32.buffer);
const f64 = new Float64Array(1);
const i32x2 = new Int32Array(f64.buffer);

function fmtFloat(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (Object.is(v, -0)) return "-0";
  return String(v);
}

/** The text of instruction `i` (mnemonic and immediates). */
export function printInstruction(body: Body, i: number): string {
  const d = OPS[body.ops[i]!]!;
  const parts = [d.name];
  let p = body.immStart[i]!;
  const imm = body.imm;
  for (const k of d.imms) {
    switch (k) {
      case Imm.BlockType: {
        const v = imm[p++]!;
        if (v === BLOCK_EMPTY) break;
        parts.push(v < 0 ? `(type ${-v - 1})` : `(result ${valTypeName(v)})`);
        break;
      }
      case Imm.I64: {
        const v = (BigInt(imm[p + 1]!) << 32n) | BigInt(imm[p]! >>> 0);
        parts.push(String(BigInt.asIntN(64, v)));
        p += 2;
        break;
      }
      case Imm.F32:
        i32v[0] = imm[p++]!;
        parts.push(fmtFloat(f32[0]!));
        break;
      case Imm.F64:
        i32x2[0] = imm[p++]!;
        i32x2[1] = imm[p++]!;
        parts.push(fmtFloat(f64[0]!));
        break;
      case Imm.V128: {
        const words: string[] = [];
        for (let j = 0; j < 4; j++) words.push("0x" + (imm[p++]! >>> 0).toString(16).padStart(8, "0"));
        parts.push("i32x4 " + words.join(" "));
        break;
      }
      case Imm.MemArg: {
        const align = imm[p]!;
        const mem = imm[p + 1]!;
        const off = (BigInt(imm[p + 3]! >>> 0) << 32n) | BigInt(imm[p + 2]! >>> 0);
        if (mem !== 0) parts.push(String(mem));
        if (off !== 0n) parts.push(`offset=${off}`);
        parts.push(`align=${2 ** align}`);
        p += 4;
        break;
      }
      case Imm.LabelTable: {
        const n = imm[p++]!;
        for (let j = 0; j <= n; j++) parts.push(String(imm[p++]!));
        break;
      }
      case Imm.ValTypes: {
        const n = imm[p++]!;
        const ts: string[] = [];
        for (let j = 0; j < n; j++) ts.push(valTypeName(imm[p++]!));
        parts[0] = "select";
        if (n > 0) parts.push(`(result ${ts.join(" ")})`);
        break;
      }
      case Imm.I32:
        parts.push(String(imm[p++]!));
        break;
      case Imm.HeapType: {
        // ref.test_null / ref.cast_null are "ref.test (ref null ht)" in text
        const ht = heapTypeName(imm[p++]!);
        if (d.name.endsWith("_null")) {
          parts[0] = d.name.slice(0, -5);
          parts.push(`(ref null ${ht})`);
        } else parts.push(ht);
        break;
      }
      case Imm.Shuffle: {
        for (let j = 0; j < 16; j++) parts.push(String(imm[p++]!));
        break;
      }
      case Imm.Catches: {
        const n = imm[p++]!;
        const names = ["catch", "catch_ref", "catch_all", "catch_all_ref"];
        for (let j = 0; j < n; j++) {
          const kind = imm[p]!;
          parts.push(kind < 2 ? `(${names[kind]} ${imm[p + 1]} ${imm[p + 2]})` : `(${names[kind]} ${imm[p + 2]})`);
          p += 3;
        }
        break;
      }
      case Imm.ZeroByte:
        p++;
        break;
      default:
        parts.push(String(imm[p++]! >>> 0));
    }
  }
  return parts.join(" ");
}

/** The whole body, one instruction per line, indented by nesting. */
export function printBody(body: Body): string {
  const lines: string[] = [];
  let depth = 1;
  for (let i = 0; i < body.count; i++) {
    const name = OPS[body.ops[i]!]!.name;
    if (name === "end" || name === "else" || name === "catch" || name === "catch_all" || name === "delegate") depth--;
    lines.push("  ".repeat(Math.max(0, depth)) + printInstruction(body, i));
    if (name === "block" || name === "loop" || name === "if" || name === "else" || name === "try" || name === "try_table" || name === "catch" || name === "catch_all") depth++;
  }
  return lines.join("\n");
}
