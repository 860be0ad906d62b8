// The outliner's string: every function body as one run of symbols, one per
// instruction, followed by a unique separator. A symbol stands for an
// instruction with its immediates, except that a local index is replaced by
// the local's type, so the same computation on different locals gets the
// same symbols (the locals are matched up per candidate later). Code the
// outliner must not touch gets unique symbols: unreachable code, hot
// instructions, and whole functions the stack typer does not understand.

import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import { decodeFunctionBody } from "../../binary/reader.js";
import { idOf } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";
import type { Func, Module } from "../../ir/module.js";
import type { ValType } from "../../ir/types.js";
import type { HotCode } from "../pass.js";
import { analyzeStack, localTypesOf, StackTyper, type StackEnv } from "../../analysis/stack-types.js";
import { computeLiveness, type Liveness } from "../../analysis/liveness.js";
import { instrSize } from "./sizes.js";

const ELSE = idOf("else");
const END = idOf("end");
/** Control instructions: a sequence cannot simply grow to the left over them. */
const CONTROL = new Set(["block", "loop", "if", "else", "end", "br", "br_if", "br_table", "return", "unreachable", "return_call", "return_call_indirect", "drop", "select"].map(idOf));

export interface FuncInfo {
  /** Position in m.functions. */
  index: number;
  func: Func;
  body: Body;
  localTypes: Int32Array;
  results: readonly ValType[];
  /** String position of instruction 0. */
  start: number;
  liveness: Liveness | null | undefined;
}

export interface Corpus {
  /** Symbols in [0, alphabet). */
  s: Int32Array;
  alphabet: number;
  /** Per position: index into infos, -1 for a separator. */
  funcAt: Int32Array;
  infos: FuncInfo[];
  /** Prefix sums of instruction sizes: bytes of [p, q) = psize[q] - psize[p]. */
  psize: Float64Array;
  /** Per position: the local index of a local.get/set/tee, else -1. */
  localX: Int32Array;
}

export function liveness(info: FuncInfo): Liveness | null {
  if (info.liveness === undefined) info.liveness = computeLiveness(info.body, info.localTypes.length);
  return info.liveness;
}

function instrHash(body: Body, i: number, lt: Int32Array): number {
  const op = body.ops[i]!;
  let h = Math.imul(op + 0x9e3779b9, 0x85ebca6b);
  const s = body.immStart[i]!;
  const e = body.immStart[i + 1]!;
  const loc = LOCAL_WORDS[op];
  for (let p = s; p < e; p++) {
    const w = loc && loc.includes(p - s) ? lt[body.imm[p]!]! ^ 0x5bd1e995 : body.imm[p]!;
    h = Math.imul(h ^ w, 0x01000193) ^ (h >>> 15);
  }
  return h | 0;
}

function instrEqual(a: Body, i: number, la: Int32Array, b: Body, j: number, lb: Int32Array): boolean {
  const op = a.ops[i]!;
  if (b.ops[j] !== op) return false;
  const sa = a.immStart[i]!;
  const sb = b.immStart[j]!;
  const n = a.immStart[i + 1]! - sa;
  if (b.immStart[j + 1]! - sb !== n) return false;
  const loc = LOCAL_WORDS[op];
  for (let k = 0; k < n; k++) {
    const wa = a.imm[sa + k]!;
    const wb = b.imm[sb + k]!;
    if (loc && loc.includes(k)) {
      if (la[wa] !== lb[wb]) return false;
    } else if (wa !== wb) return false;
  }
  return true;
}

export function buildCorpus(m: Module, env: StackEnv, hot: HotCode | undefined): Corpus {
  const infos: FuncInfo[] = [];
  let total = 0;
  const typer = new StackTyper(env);
  const heights: (Int32Array | null)[] = [];
  for (let fi = 0; fi < m.functions.length; fi++) {
    const f = m.functions[fi]!;
    const body = f.body ?? decodeFunctionBody(m, f);
    const localTypes = localTypesOf(env, f.typeIndex, f.locals);
    const st = analyzeStack(env, f.typeIndex, localTypes, body, typer);
    if (!st) continue;
    infos.push({ index: fi, func: f, body, localTypes, results: env.results[f.typeIndex] ?? [], start: total, liveness: undefined });
    heights.push(st.height);
    total += body.count; // count - 1 instructions + 1 separator
  }
  const s = new Int32Array(total);
  const funcAt = new Int32Array(total).fill(-1);
  const psize = new Float64Array(total + 1);
  const localX = new Int32Array(total).fill(-1);
  const bySym = new Map<number, number[]>();
  const repBody: Body[] = [];
  const repInstr: number[] = [];
  const repLt: Int32Array[] = [];
  let next = 0;
  let acc = 0;
  infos.forEach((info, k) => {
    const { body, localTypes: lt, start, func } = info;
    const height = heights[k]!;
    for (let i = 0; i < body.count - 1; i++) {
      const p = start + i;
      const sz = instrSize(body, i);
      psize[p] = acc;
      acc += sz;
      funcAt[p] = k;
      const op = body.ops[i]!;
      const lw = LOCAL_WORDS[op];
      if (lw) localX[p] = body.imm[body.immStart[i]! + lw[0]!]!;
      const dead = height[i]! < 0 && op !== END && op !== ELSE;
      if (dead || (hot && hot.isHotInstruction(func, i))) {
        s[p] = next++;
        continue;
      }
      const h = instrHash(body, i, lt);
      let list = bySym.get(h);
      let sym = -1;
      if (list) {
        for (const c of list) {
          if (instrEqual(repBody[c]!, repInstr[c]!, repLt[c]!, body, i, lt)) {
            sym = c;
            break;
          }
        }
      } else bySym.set(h, (list = []));
      if (sym < 0) {
        sym = next++;
        list.push(sym);
        repBody[sym] = body;
        repInstr[sym] = i;
        repLt[sym] = lt;
      }
      s[p] = sym;
    }
    const sep = start + body.count - 1;
    psize[sep] = acc;
    s[sep] = next++;
  });
  psize[total] = acc;
  return { s, alphabet: next, funcAt, infos, psize, localX };
}

/** True if position q holds an instruction a sequence may be extended over to the left without changing its legality (not control; not drop/select, whose input type is open). */
export function plainAt(c: Corpus, q: number): boolean {
  const k = c.funcAt[q]!;
  if (k < 0) return false;
  const info = c.infos[k]!;
  return !CONTROL.has(info.body.ops[q - info.start]!);
}
