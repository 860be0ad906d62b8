// The canonical form of a slice: the body of the function it becomes.
// Emitted from the value DAG, operands first (the slice is pure, so the
// parent's statement order does not matter): stop values become parameters
// and the other locals are numbered in the order of first use, a value used
// twice is kept in a local (local.tee, then local.get), a declared local's
// default becomes a constant. Two slices compute the same function exactly
// when their forms are equal, so the form's key (types, ops and immediate
// words) serves as hash and exact comparison at once.

import { idOf } from "../../binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../../ir/body.js";
import { F32, F64, I32, I64, V128, type ValType } from "../../ir/types.js";
import { codeSize, localDeclsSize } from "../../analysis/sizes.js";
import type { Slice } from "./identify.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_TEE = idOf("local.tee");
const END = idOf("end");
const ZERO_CONST: Record<number, [number, number]> = {
  [I32]: [idOf("i32.const"), 1],
  [I64]: [idOf("i64.const"), 2],
  [F32]: [idOf("f32.const"), 1],
  [F64]: [idOf("f64.const"), 2],
  [V128]: [idOf("v128.const"), 4],
};

export interface CanonicalSlice {
  /** Parameter types: the stop values in order of first use. */
  params: ValType[];
  result: ValType;
  /** Per parameter: the index of its stop in Slice.stops. */
  paramStops: number[];
  /** The function's own locals, in order of first use (one declaration each; the writer merges runs). */
  locals: ValType[];
  body: Body;
  /** Bytes of the code-section entry without its size prefix (local declarations and code). */
  entrySize: number;
  /** Equal keys: equal functions. */
  key: string;
}

/** The canonical function of slice `s` of `parent` (the parent's body supplies the operations' immediates). */
export function canonicalSlice(parent: Body, s: Slice): CanonicalSlice {
  const uses = new Int32Array(s.nodes.length);
  for (const n of s.nodes) if (n.kind === "op") for (const a of n.args) uses[a]!++;
  const paramOf = new Int32Array(s.stops.length).fill(-1);
  const paramStops: number[] = [];
  const params: ValType[] = [];
  const locals: ValType[] = [];
  /** Per node kept in a local: its local index (after the parameters); -1 not yet emitted. */
  const localOf = new Int32Array(s.nodes.length).fill(-1);
  const ops: number[] = [];
  const words: number[][] = [];
  const emit = (op: number, w: number[]): void => {
    ops.push(op);
    words.push(w);
  };
  // locals come after the parameters, whose number is known only at the end: emit local indices as -(k + 1) and patch
  const visit = (k: number): void => {
    const n = s.nodes[k]!;
    if (n.kind === "stop") {
      if (paramOf[n.stop]! < 0) {
        paramOf[n.stop] = params.length;
        params.push(n.type);
        paramStops.push(n.stop);
      }
      emit(LOCAL_GET, [paramOf[n.stop]!]);
      return;
    }
    if (n.kind === "zero") {
      const [op, nw] = ZERO_CONST[n.type]!;
      emit(op, new Array<number>(nw).fill(0));
      return;
    }
    if (localOf[k]! >= 0) {
      emit(LOCAL_GET, [-(localOf[k]! + 1)]);
      return;
    }
    for (const a of n.args) visit(a);
    const p = n.instr;
    emit(parent.ops[p]!, Array.from(parent.imm.subarray(parent.immStart[p]!, parent.immStart[p + 1]!)));
    if (uses[k]! > 1) {
      localOf[k] = locals.length;
      locals.push(n.type);
      emit(LOCAL_TEE, [-(locals.length)]);
    }
  };
  visit(s.nodes.length - 1);
  const b = new BodyBuilder(ops.length + 1);
  const np = params.length;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    b.begin(op);
    const w = words[i]!;
    if ((op === LOCAL_GET || op === LOCAL_TEE) && w[0]! < 0) b.word(np - w[0]! - 1);
    else for (const x of w) b.word(x);
  }
  b.begin(END);
  const body = b.finish();
  const result = s.nodes[s.nodes.length - 1]!.type;
  const decls = locals.map((type) => ({ count: 1, type }));
  const entrySize = localDeclsSize(decls) + codeSize(body);
  const key = `${params.join(",")}>${result};${locals.join(",")};${Array.from(body.ops).join(",")};${Array.from(body.imm).join(",")}`;
  return { params, result, paramStops, locals, body, entrySize, key };
}
