// Argument cleanup for functions only called directly: a parameter that gets
// the same constant at every call site becomes a local set to that constant,
// and a parameter the function never reads is dropped; either way the
// argument disappears from every call site. Functions whose type the host or
// a table can see (exported, start, in an element segment, ref.func'd) keep
// their signature.

import { bodyOf } from "../binary/reader.js";
import { idOf, opSet } from "../binary/opcodes/index.js";
import { referencedFunctions } from "../analysis/func-identity.js";
import { BodyBuilder, type Body } from "../ir/body.js";
import { ensureFuncType, findFuncType, funcTypeCost } from "../ir/func-types.js";
import { LOCAL_WORDS } from "../ir/imm-layout.js";
import type { Func, Module } from "../ir/module.js";
import type { ValType } from "../ir/types.js";
import { functionCost, instrSize } from "../analysis/sizes.js";

const CALL = idOf("call");
const RETURN_CALL = idOf("return_call");
const LOCAL_GET = idOf("local.get");
const LOCAL_TEE = idOf("local.tee");
const LOCAL_SET = idOf("local.set");
const CONST_OPS = ["i32.const", "i64.const", "f32.const", "f64.const", "v128.const"];
const CONSTS = opSet(CONST_OPS);
/** Instructions that push one value, pop nothing and have no effect: removable when their value is unused. */
const PUSH_ONLY = opSet([...CONST_OPS, "local.get", "global.get", "ref.null", "ref.func"]);

interface Site {
  caller: number; // defined-function position
  at: number; // instruction index of the call
}

/**
 * How many of the last arguments of the call at `at` (up to `limit`) are
 * simple pushes: argument n - k is then pushed by instruction at - k.
 */
function simplePushes(body: Body, at: number, limit: number): number {
  let k = 0;
  while (k < limit && k < at && PUSH_ONLY[body.ops[at - 1 - k]!]) k++;
  return k;
}

/** Same op and immediates: instruction `i` of `a` and `j` of `b`. */
function sameInstr(a: Body, i: number, b: Body, j: number): boolean {
  if (a.ops[i] !== b.ops[j]) return false;
  const from = a.immStart[i]!;
  const len = a.immStart[i + 1]! - from;
  const bFrom = b.immStart[j]!;
  if (b.immStart[j + 1]! - bFrom !== len) return false;
  for (let k = 0; k < len; k++) if (a.imm[from + k] !== b.imm[bFrom + k]) return false;
  return true;
}

/** Copies `body` without the instructions in `drop`, with local indices mapped and `prefix` instructions first. */
function rebuild(body: Body, drop: ReadonlySet<number>, mapLocal: ((i: number) => number) | null, prefix: [number, number[]][] = []): Body {
  const b = new BodyBuilder(body.count + prefix.length, body.offsets !== null);
  for (const [op, words] of prefix) {
    b.begin(op);
    for (const w of words) b.word(w);
  }
  for (let i = 0; i < body.count; i++) {
    if (drop.has(i)) continue;
    const op = body.ops[i]!;
    b.begin(op, body.offsets ? body.offsets[i]! : 0);
    const s = body.immStart[i]!;
    const loc = mapLocal ? LOCAL_WORDS[op] : null;
    for (let p = s; p < body.immStart[i + 1]!; p++) b.word(loc && loc.includes(p - s) ? mapLocal!(body.imm[p]!) : body.imm[p]!);
  }
  return b.finish();
}

export interface ParamStats {
  constantsPropagated: number;
  deadParamsRemoved: number;
}

export function removeParams(m: Module): ParamStats {
  const stats: ParamStats = { constantsPropagated: 0, deadParamsRemoved: 0 };
  const nImp = m.numImportedFuncs;
  for (let round = 0; round < 16; round++) {
    const bodies = m.functions.map((f) => bodyOf(m, f));
    const fixed = new Uint8Array(nImp + bodies.length);
    for (const f of referencedFunctions(m)) fixed[f] = 1;
    for (const e of m.exports) if (e.kind === "func") fixed[e.index] = 1;
    if (m.start !== null) fixed[m.start] = 1;
    // call sites by callee; callees in the order their first site is met
    const listOf = new Int32Array(fixed.length).fill(-1);
    const sites: Site[][] = [];
    const callees: number[] = [];
    bodies.forEach((b, g) => {
      const { ops, immStart, imm } = b;
      for (let i = 0; i < b.count; i++) {
        const op = ops[i]!;
        if (op !== CALL && op !== RETURN_CALL) continue;
        const f = imm[immStart[i]!]!;
        if (f < nImp || fixed[f]) continue;
        if (listOf[f]! < 0) {
          listOf[f] = sites.length;
          sites.push([]);
          callees.push(f);
        }
        sites[listOf[f]!]!.push({ caller: g, at: i });
      }
    });
    let changed = false;
    const touched = new Uint8Array(bodies.length); // callers/callees already rewritten this round
    for (const [k, f] of callees.entries()) {
      const list = sites[k]!;
      const fi = f - nImp;
      const fn = m.functions[fi]!;
      const type = m.types[fn.typeIndex]!.composite;
      if (type.kind !== "func" || type.params.length === 0) continue;
      if (touched[fi] || list.some((s) => touched[s.caller])) continue;
      const n = type.params.length;
      // the last `simple` arguments are simple pushes at every site
      let simple = n;
      for (const s of list) if ((simple = simplePushes(bodies[s.caller]!, s.at, simple)) === 0) break;
      if (simple === 0) continue;
      const body = bodies[fi]!;
      const read = new Uint8Array(n);
      for (let i = 0; i < body.count; i++) {
        const op = body.ops[i]!;
        if (op === LOCAL_GET || op === LOCAL_TEE) {
          const l = body.imm[body.immStart[i]!]!;
          if (l < n) read[l] = 1;
        }
      }
      // the highest-numbered parameter that is dead or constant everywhere
      for (let p = n - 1; p >= n - simple; p--) {
        const prods = list.map((s) => s.at - (n - p));
        const dead = !read[p];
        const first = bodies[list[0]!.caller]!;
        const constant = !dead && CONSTS[first.ops[prods[0]!]!] === 1 && list.every((s, k) => sameInstr(bodies[s.caller]!, prods[k]!, first, prods[0]!));
        if (!dead && !constant) continue;
        if (tryRemove(m, fi, p, list, prods, bodies, constant)) {
          if (constant) stats.constantsPropagated++;
          else stats.deadParamsRemoved++;
          touched[fi] = 1;
          for (const s of list) touched[s.caller] = 1;
          changed = true;
        }
        break;
      }
    }
    if (!changed) break;
  }
  return stats;
}

/** Removes parameter `p` of function position `fi` if that saves bytes; returns whether it did. */
function tryRemove(m: Module, fi: number, p: number, sites: Site[], prods: number[], bodies: Body[], constant: boolean): boolean {
  const fn = m.functions[fi]!;
  const type = m.types[fn.typeIndex]!.composite;
  if (type.kind !== "func") return false;
  const n = type.params.length;
  const pType: ValType = type.params[p]!;
  const params = type.params.filter((_, i) => i !== p);
  const existing = findFuncType(m, params, type.results);
  // the parameter becomes the first declared local, at index n - 1
  const mapLocal = (l: number) => (l < p ? l : l === p ? n - 1 : l < n ? l - 1 : l);
  const first = sites[0]!;
  const prefix: [number, number[]][] = [];
  if (constant) {
    const src = bodies[first.caller]!;
    const at = prods[0]!;
    prefix.push([src.ops[at]!, Array.from(src.imm.subarray(src.immStart[at]!, src.immStart[at + 1]!))]);
    prefix.push([LOCAL_SET, [n - 1]]);
  }
  const newBody = rebuild(bodies[fi]!, new Set(), mapLocal, prefix);
  const candidate: Func = { ...fn, body: newBody, locals: [{ count: 1, type: pType }, ...fn.locals], localCount: fn.localCount + 1, raw: null, dirty: true };
  let saved = functionCost(fn) - functionCost(candidate) - (existing < 0 ? funcTypeCost(params, type.results) : 0);
  sites.forEach((s, k) => (saved += instrSize(bodies[s.caller]!, prods[k]!)));
  if (saved <= 0) return false;

  // call sites first (the callee may call itself), then the callee
  const drops = new Map<number, Set<number>>();
  sites.forEach((s, k) => {
    let d = drops.get(s.caller);
    if (!d) drops.set(s.caller, (d = new Set()));
    d.add(prods[k]!);
  });
  for (const [g, d] of drops) {
    const f = m.functions[g]!;
    f.body = rebuild(bodies[g]!, d, null);
    f.dirty = true;
    bodies[g] = f.body;
  }
  fn.body = rebuild(bodies[fi]!, new Set(), mapLocal, prefix);
  bodies[fi] = fn.body;
  fn.locals = [{ count: 1, type: pType }, ...fn.locals];
  fn.localCount += 1;
  fn.typeIndex = existing >= 0 ? existing : ensureFuncType(m, params, type.results);
  fn.dirty = true;
  const names = m.names?.locals.get(m.numImportedFuncs + fi);
  if (names && m.names) {
    const moved = new Map<number, string>();
    for (const [l, name] of names) moved.set(mapLocal(l), name);
    m.names.locals.set(m.numImportedFuncs + fi, moved);
    m.names.dirty = true;
  }
  return true;
}
