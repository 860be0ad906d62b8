// The code section of a candidate order, put together from pieces instead of
// re-encoding bodies. An order changes a body only in the function indices
// it holds (calls, return_calls, ref.func), so each such body is encoded
// once, split at those indices; an order writes the pieces with its own
// indices between them. A body whose indices all stay is copied from the
// base as it is. The bytes are exactly what reordering a copy of the module
// and writing it gives (ordered-writes.ts checks nothing else differs).

import { ByteWriter, u32Size } from "../../binary/bytes.js";
import { encodeInstructions } from "../../binary/code-writer.js";
import { Imm, OPS } from "../../binary/opcodes/index.js";
import { writeLocals } from "../../binary/writer.js";
import type { Body } from "../../ir/body.js";
import type { Func } from "../../ir/module.js";
import { FUNC_WORDS } from "../../ir/imm-layout.js";

/** Ops whose only immediate is a function index: the index is the last thing their encoding writes. */
const INDEX_LAST = Uint8Array.from(OPS, (d) => (d.imms.length === 1 && d.imms[0] === Imm.Func ? 1 : 0));

/** A body encoded with its function indices cut out: pieces[k] is followed by refs[k]; the last piece ends it. */
interface SplitBody {
  bytes: Uint8Array;
  /** Where each index goes in `bytes` (the pieces are the spans between). */
  cuts: Int32Array;
  refs: Int32Array;
}

/** `body` (with `locals`) as writeFuncBody encodes it, split at its function indices; null if an op holds one elsewhere than last. */
function splitBody(locals: Func["locals"], body: Body, w: ByteWriter): SplitBody | null {
  w.len = 0;
  writeLocals(w, locals);
  const cuts: number[] = [];
  const refs: number[] = [];
  let from = 0;
  for (let i = 0; i < body.count; i++) {
    const op = body.ops[i]!;
    if (!FUNC_WORDS[op]) continue;
    if (!INDEX_LAST[op]) return null;
    encodeInstructions(w, body, from, i + 1);
    const index = body.imm[body.immStart[i]!]!;
    w.len -= u32Size(index);
    cuts.push(w.len);
    refs.push(index);
    from = i + 1;
  }
  encodeInstructions(w, body, from, body.count);
  return { bytes: w.buf.slice(0, w.len), cuts: Int32Array.from(cuts), refs: Int32Array.from(refs) };
}

/** Code sections of the base's functions in other orders. */
export class SplicedCode {
  private constructor(
    /** Per defined function: its body split, or null if it holds no function index. */
    private readonly splits: (SplitBody | null)[],
  ) {}

  /**
   * For the defined functions `funcs` with decoded `bodies`; null where some
   * op holds a function index the pieces cannot cut out.
   */
  static of(funcs: readonly Func[], bodies: readonly Body[]): SplicedCode | null {
    const w = new ByteWriter(1 << 12);
    const splits: (SplitBody | null)[] = [];
    for (let i = 0; i < bodies.length; i++) {
      const body = bodies[i]!;
      let refs = false;
      for (let k = 0; k < body.count && !refs; k++) refs = Boolean(FUNC_WORDS[body.ops[k]!]);
      if (!refs) {
        splits.push(null);
        continue;
      }
      const s = splitBody(funcs[i]!.locals, body, w);
      if (!s) return null;
      splits.push(s);
    }
    return new SplicedCode(splits);
  }

  /**
   * The code section payload with the defined functions in `order` (old
   * indices); `newIndex`: old index -> new; `raw`: each function's body entry
   * as the base has it (after its size), copied where no index changes.
   */
  payload(order: readonly number[], nImp: number, newIndex: Int32Array, raw: readonly Uint8Array[]): Uint8Array {
    let total = 0;
    for (const r of raw) total += r.length + 5;
    const w = new ByteWriter(total + 5);
    w.u32(order.length);
    for (const old of order) {
      const i = old - nImp;
      const s = this.splits[i];
      let changed = false;
      if (s) for (let k = 0; k < s.refs.length && !changed; k++) changed = newIndex[s.refs[k]!] !== s.refs[k];
      if (!s || !changed) {
        w.u32(raw[i]!.length);
        w.bytes(raw[i]!);
        continue;
      }
      let size = s.bytes.length;
      for (let k = 0; k < s.refs.length; k++) size += u32Size(newIndex[s.refs[k]!]!);
      w.u32(size);
      let from = 0;
      for (let k = 0; k < s.refs.length; k++) {
        const cut = s.cuts[k]!;
        w.bytes(s.bytes.subarray(from, cut));
        w.u32(newIndex[s.refs[k]!]!);
        from = cut;
      }
      w.bytes(s.bytes.subarray(from));
    }
    return w.finish();
  }
}
