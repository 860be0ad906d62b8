// Builds the lookup structures over all opcode tables. An op's id is its index
// in OPS; bodies store ids, not bytes.

import type { OpDef } from "./defs.js";
import { CORE_OPS } from "./core.js";
import { MISC_OPS } from "./misc.js";
import { SIMD_OPS } from "./simd.js";
import { ATOMIC_OPS } from "./atomics.js";
import { GC_OPS } from "./gc.js";

export { Imm, Eff, Trap, TRAP_CLASSES, type OpDef, type ImmKind, type Feature } from "./defs.js";

export const OPS: readonly OpDef[] = [...CORE_OPS, ...MISC_OPS, ...SIMD_OPS, ...ATOMIC_OPS, ...GC_OPS];

/** Single-byte opcodes: byte -> id, or -1. */
export const BYTE_OPS = new Int16Array(256).fill(-1);
/** Prefixed opcodes: prefix -> (sub-opcode -> id). */
const PREFIXED = new Map<number, Map<number, number>>();
const BY_NAME = new Map<string, number>();

for (let id = 0; id < OPS.length; id++) {
  const d = OPS[id]!;
  d.id = id;
  if (d.prefix === 0) {
    if (BYTE_OPS[d.code] !== -1) throw new Error(`duplicate opcode 0x${d.code.toString(16)}`);
    BYTE_OPS[d.code] = id;
  } else {
    let m = PREFIXED.get(d.prefix);
    if (!m) PREFIXED.set(d.prefix, (m = new Map()));
    if (m.has(d.code)) throw new Error(`duplicate opcode 0x${d.prefix.toString(16)} ${d.code}`);
    m.set(d.code, id);
  }
  if (!BY_NAME.has(d.name)) BY_NAME.set(d.name, id);
}

/** Id of a prefixed opcode, or -1 if unknown. */
export function prefixedOp(prefix: number, code: number): number {
  return PREFIXED.get(prefix)?.get(code) ?? -1;
}

export function isPrefix(byte: number): boolean {
  return PREFIXED.has(byte);
}

/** Id of the op with this text mnemonic (throws if there is none: a programming error). */
export function idOf(name: string): number {
  const id = BY_NAME.get(name);
  if (id === undefined) throw new Error(`no opcode named ${name}`);
  return id;
}

/** A set of ops as a table by op id (1: in the set), for scans that look up every instruction. */
export function opSet(names: readonly string[]): Uint8Array {
  const t = new Uint8Array(OPS.length);
  for (const n of names) t[idOf(n)] = 1;
  return t;
}
