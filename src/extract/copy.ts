// Copying instructions from one body into a BodyBuilder: unchanged (the code
// around a call site), or with every local index renamed (the code moved into
// a new function). Local indices are found through the opcode table's
// immediate layout (LOCAL_WORDS), so every local op is covered.

import { idOf } from "../binary/opcodes/index.js";
import { originOf, type Body, type BodyBuilder } from "../ir/body.js";
import { LOCAL_WORDS } from "../ir/imm-layout.js";

const LOCAL_GET = idOf("local.get");

/**
 * Appends instructions [from, to) of `body` to `b` unchanged. A rebuilt
 * function is mostly unchanged code: it is copied in bulk while `b` has room
 * for it, else one instruction at a time (which grows `b`).
 */
export function copyRange(b: BodyBuilder, body: Body, from: number, to: number): void {
  const n = to - from;
  if (n <= 0) return;
  if ((b.offsets !== null && body.offsets === null) || b.count + n + 1 >= b.ops.length) {
    for (let i = from; i < to; i++) {
      b.begin(body.ops[i]!, originOf(body, i));
      for (let p = body.immStart[i]!; p < body.immStart[i + 1]!; p++) b.word(body.imm[p]!);
    }
    return;
  }
  const s = body.immStart[from]!;
  const at = b.reserve(body.immStart[to]! - s);
  b.imm.set(body.imm.subarray(s, body.immStart[to]!), at);
  b.ops.set(body.ops.subarray(from, to), b.count);
  if (b.offsets !== null) b.offsets.set(body.offsets!.subarray(from, to), b.count);
  const shift = at - s;
  for (let k = 0; k < n; k++) b.immStart[b.count + k] = body.immStart[from + k]! + shift;
  b.count += n;
}

/** Appends instructions [from, to) of `body` to `b`, each local index x written as rename(x). */
export function copyRenamed(b: BodyBuilder, body: Body, from: number, to: number, rename: (local: number) => number): void {
  for (let i = from; i < to; i++) {
    const op = body.ops[i]!;
    b.begin(op, originOf(body, i));
    const s = body.immStart[i]!;
    const e = body.immStart[i + 1]!;
    const loc = LOCAL_WORDS[op];
    for (let p = s; p < e; p++) b.word(loc && loc.includes(p - s) ? rename(body.imm[p]!) : body.imm[p]!);
  }
}

/** Appends `local.get x` for each x of `locals`, in order; `origin`: the file offset of the code they stand for (source maps). */
export function pushLocals(b: BodyBuilder, locals: ArrayLike<number>, origin = 0): void {
  for (let k = 0; k < locals.length; k++) {
    b.begin(LOCAL_GET, origin);
    b.word(locals[k]!);
  }
}

/** Appends `local.get 0 … local.get n-1`: a function's first n parameters, in order. */
export function pushParams(b: BodyBuilder, n: number, origin = 0): void {
  for (let k = 0; k < n; k++) {
    b.begin(LOCAL_GET, origin);
    b.word(k);
  }
}

/** One instruction written by hand: an op id and its immediate words. */
export interface Instr {
  op: number;
  words: readonly number[];
}

/** Appends `instrs`, each mapped to `origin`. */
export function emitInstrs(b: BodyBuilder, instrs: readonly Instr[], origin = 0): void {
  for (const ins of instrs) {
    b.begin(ins.op, origin);
    for (const w of ins.words) b.word(w);
  }
}
