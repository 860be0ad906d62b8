// The canonical form of a slice: the body of the function it becomes.
// Emitted from the value DAG, operands first (the slice is pure, so the
// parent's statement order does not matter): stop values become parameters
// and the other locals are numbered in the order of first use, a value used
// twice is kept in a local (local.tee, then local.get), a declared local's
// default becomes a constant. A γ becomes `select` when each side has at
// most SELECT_MAX_SIDE operations of its own (both sides then run; they are
// pure and cannot trap), else `if (result t) … else … end`, whose arms
// compute only what that side alone needs: a value both need, or one the
// arm and code outside it need, is computed before the `if` into a local.
// Both forms are MVP (a select of a numeric type; an if with one result).
// Two slices compute the same function exactly
// when their forms are equal, so the form's key (types, ops and immediate
// words) serves as hash and exact comparison at once.

import { idOf } from "../../binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../../ir/body.js";
import { F32, F64, I32, I64, V128, type ValType } from "../../ir/types.js";
import { codeSize, localDeclsSize } from "../../analysis/sizes.js";
import { isConst, type Slice } from "./identify.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_TEE = idOf("local.tee");
const END = idOf("end");
const LOCAL_SET = idOf("local.set");
const SELECT = idOf("select");
const IF = idOf("if");
const ELSE = idOf("else");

/** The largest side (operations but constants, γs included) of a γ that still becomes a select. */
export const SELECT_MAX_SIDE = 4;
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
export function canonicalSlice(parent: Body, s: Slice, selectMaxSide = SELECT_MAX_SIDE): CanonicalSlice {
  const uses = new Int32Array(s.nodes.length);
  for (const n of s.nodes) if (n.kind === "op" || n.kind === "gamma") for (const a of n.args) uses[a]!++;
  const asIf = ifGammas(parent, s, selectMaxSide);
  const { sides, pre } = regionsOf(s, asIf);
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
    if (n.kind === "gamma" && asIf[k]) {
      const [whenTrue, whenFalse, cond] = n.args as [number, number, number];
      visit(cond);
      emit(IF, [n.type]);
      enter(sides[k]!);
      visit(whenTrue);
      emit(ELSE, []);
      enter(sides[k]! + 1);
      visit(whenFalse);
      emit(END, []);
    } else {
      for (const a of n.args) visit(a);
      if (n.kind === "gamma") emit(SELECT, []);
      else {
        const p = n.instr;
        emit(parent.ops[p]!, Array.from(parent.imm.subarray(parent.immStart[p]!, parent.immStart[p + 1]!)));
      }
    }
    if (uses[k]! > 1) {
      localOf[k] = locals.length;
      locals.push(n.type);
      emit(LOCAL_TEE, [-(locals.length)]);
    }
  };
  /** On entering region r: the values it computes for deeper regions too, into their locals. */
  const enter = (r: number): void => {
    for (const k of pre[r] ?? []) {
      if (localOf[k]! >= 0) continue;
      visit(k); // a value used twice or more: it ends in its local.tee
      ops[ops.length - 1] = LOCAL_SET;
    }
  };
  enter(0);
  visit(s.nodes.length - 1);
  const b = new BodyBuilder(ops.length + 1);
  const np = params.length;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    b.begin(op);
    const w = words[i]!;
    if ((op === LOCAL_GET || op === LOCAL_TEE || op === LOCAL_SET) && w[0]! < 0) b.word(np - w[0]! - 1);
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

/** Per node: 1 for a γ that becomes an `if` (a side with more than maxSide operations of its own), 0 otherwise. */
function ifGammas(parent: Body, s: Slice, maxSide: number): Uint8Array {
  const all = new Uint8Array(s.nodes.length);
  s.nodes.forEach((n, k) => (all[k] = n.kind === "gamma" ? 1 : 0));
  // with every γ an if, a side's region holds exactly what that side alone computes (inner γs' sides included)
  const { region, regionParent, sides } = regionsOf(s, all);
  const ops = new Int32Array(regionParent.length);
  s.nodes.forEach((n, k) => {
    if (n.kind === "gamma" || (n.kind === "op" && !isConst(parent.ops[n.instr]!))) {
      for (let r = region[k]!; r >= 0; r = regionParent[r]!) ops[r]!++;
    }
  });
  const out = new Uint8Array(s.nodes.length);
  s.nodes.forEach((n, k) => {
    if (n.kind === "gamma" && (ops[sides[k]!]! > maxSide || ops[sides[k]! + 1]! > maxSide)) out[k] = 1;
  });
  return out;
}

interface Regions {
  /** Per node: the region that computes it. */
  region: Int32Array;
  /** Per region: the region around it (-1 for the function's). */
  regionParent: number[];
  /** Per γ made an if: the region of its true side (its false side's is the next); -1 for other nodes. */
  sides: Int32Array;
  /** Per region: the values it computes that a deeper region uses too (computed on entry, into their locals), operands first. */
  pre: number[][];
}

/**
 * Where each node is computed when the γs marked in asIf are ifs: regions
 * are the function's (0) and, per such γ, its true and false sides. A node
 * sits in the innermost region around all its uses.
 */
function regionsOf(s: Slice, asIf: Uint8Array): Regions {
  const n = s.nodes.length;
  const region = new Int32Array(n).fill(-1);
  const regionParent: number[] = [-1];
  const regionDepth: number[] = [0];
  const lca = (a: number, b: number): number => {
    while (regionDepth[a]! > regionDepth[b]!) a = regionParent[a]!;
    while (regionDepth[b]! > regionDepth[a]!) b = regionParent[b]!;
    while (a !== b) {
      a = regionParent[a]!;
      b = regionParent[b]!;
    }
    return a;
  };
  const place = (a: number, r: number): void => {
    region[a] = region[a]! < 0 ? r : lca(region[a]!, r);
  };
  region[n - 1] = 0;
  const sides = new Int32Array(n).fill(-1);
  for (let k = n - 1; k >= 0; k--) {
    const node = s.nodes[k]!;
    if (node.kind !== "op" && node.kind !== "gamma") continue;
    const r = region[k]!;
    if (node.kind === "gamma" && asIf[k]) {
      const t = regionParent.length;
      regionParent.push(r, r);
      regionDepth.push(regionDepth[r]! + 1, regionDepth[r]! + 1);
      sides[k] = t;
      place(node.args[0]!, t);
      place(node.args[1]!, t + 1);
      place(node.args[2]!, r);
    } else for (const a of node.args) place(a, r);
  }
  const pre: number[][] = [];
  const marked = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const node = s.nodes[k]!;
    if (node.kind !== "op" && node.kind !== "gamma") continue;
    node.args.forEach((a, j) => {
      const at = sides[k]! >= 0 && j < 2 ? sides[k]! + j : region[k]!;
      const kind = s.nodes[a]!.kind;
      if (at !== region[a] && (kind === "op" || kind === "gamma") && !marked[a]) {
        marked[a] = 1;
        (pre[region[a]!] ??= []).push(a);
      }
    });
  }
  for (const l of pre) l?.sort((x, y) => x - y);
  return { region, regionParent, sides, pre };
}
