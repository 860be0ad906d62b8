// A static estimate of how often each instruction of a module runs, for
// deciding what is hot without a profile (Wu–Larus / Ball–Larus style, on
// wasm's structured control flow).
//
// Inside a function (entry = 1):
//   - a loop body runs `loopTrips` times per entry into the loop;
//   - each arm of an `if` gets `armShare` (the else arm, present or not,
//     the rest); an arm or a guarded run that can only end in a trap
//     (`unreachable`) is a cold path and gets `coldShare` instead;
//   - `catch` handlers get `coldShare` (exceptions are rare);
//   - at a construct's `end`, what arrives adds up: falling through, and the
//     branches to its label (a br_if passes on half its frequency, a br_table
//     all of it to each of its labels: a dispatch's cases are as hot as the
//     dispatch, which profiles of interpreters confirm), but never more than
//     the construct's entry frequency;
//   - a conditional branch does not lower what follows it (guards that exit
//     early are usually not taken), an unconditional one makes what follows
//     dead until the construct ends.
// Across functions, over the call graph in topological order of its strongly
// connected components: a function's entry frequency is its external weight
// (exports, the start function, functions in an exported or imported table)
// plus the sum over its call sites of the caller's entry frequency times the
// site's local frequency. A `call_indirect` or `call_ref` site may reach
// every address-taken function of its type, each as often as the site runs
// (sharing the frequency among them left 36 % of what draco's decoder ran,
// through C++ virtual calls, in cold code); a recursive
// component runs `recursionTrips` times per entry. A function's instruction
// then runs entry × local frequency times per external entry.
//
// The numbers only order code by how hot it probably is; what counts as hot
// is decided by the caller (profile/static-hot.ts).

import { Eff, OPS, idOf } from "../binary/opcodes/index.js";
import { bodyOf } from "../binary/reader.js";
import type { Body } from "../ir/body.js";
import type { Module } from "../ir/module.js";
import { funcTypeTable } from "../ir/func-types.js";
import { LABEL_WORDS } from "../ir/imm-layout.js";
import { referencedFunctions } from "./func-identity.js";
import { controlTree, FUNCTION } from "./control-tree.js";

export interface FrequencyModel {
  /** Iterations of a loop per entry into it. */
  loopTrips: number;
  /** Share of an `if`'s entries that take the then arm. */
  armShare: number;
  /** Share of entries that take a path ending in a trap, or a catch handler. */
  coldShare: number;
  /** Calls within a recursive component per entry into it. */
  recursionTrips: number;
  /** Indirect calls: "share" divides a site's frequency among the possible targets, "full" gives each all of it. */
  indirect: "share" | "full";
  /**
   * Where a construct ends, how often control arrives: "entry" says as often
   * as the construct was entered (if anything arrives at all); "flow" adds up
   * what arrives (falling through, and branches: a br_if passes on
   * `branchTaken` of its frequency, a br_table shares its frequency among its
   * labels), at most the entry frequency.
   */
  merge: "entry" | "flow";
  branchTaken: number;
  /** br_table: "share" divides its frequency among its labels, "full" gives each all of it. */
  table: "share" | "full";
}

/** Ball–Larus: a loop's back edge is taken 88 % of the time, about 8 iterations per entry. */
export const DEFAULT_MODEL: FrequencyModel = { loopTrips: 8, armShare: 0.5, coldShare: 0.01, recursionTrips: 8, indirect: "full", merge: "flow", branchTaken: 0.5, table: "full" };

/** Frequencies can grow like loopTrips^depth along call chains; keep them finite. */
const CAP = 1e30;

const BLOCK = idOf("block");
const LOOP = idOf("loop");
const IF = idOf("if");
const ELSE = idOf("else");
const END = idOf("end");
const TRY = idOf("try");
const TRY_TABLE = idOf("try_table");
const CATCH = idOf("catch");
const CATCH_ALL = idOf("catch_all");
const DELEGATE = idOf("delegate");
const UNREACHABLE = idOf("unreachable");
const BR = idOf("br");
const BR_TABLE = idOf("br_table");
const CALL = idOf("call");
const RETURN_CALL = idOf("return_call");
const CALL_INDIRECT = idOf("call_indirect");
const RETURN_CALL_INDIRECT = idOf("return_call_indirect");
const CALL_REF = idOf("call_ref");
const RETURN_CALL_REF = idOf("return_call_ref");

/** Branches after which control does not fall through. */
const UNCONDITIONAL = new Uint8Array(OPS.length);
for (const n of ["br", "br_table", "return", "unreachable", "throw", "rethrow", "throw_ref", "return_call", "return_call_indirect", "return_call_ref"]) {
  UNCONDITIONAL[idOf(n)] = 1;
}
/** Instructions that leave the function (a branch to the body's own label). */
const RETURNS = new Uint8Array(OPS.length);
for (const n of ["return", "return_call", "return_call_indirect", "return_call_ref"]) RETURNS[idOf(n)] = 1;
/** Branches that may or may not be taken (br_if, br_on_*): a label in the first immediate word. */
const CONDITIONAL = new Uint8Array(OPS.length);
for (let id = 0; id < OPS.length; id++) {
  if (OPS[id]!.effects & Eff.BRANCH && !UNCONDITIONAL[id] && LABEL_WORDS[id]) CONDITIONAL[id] = 1;
}

/** A direct call site: callee function index and the site's local frequency. */
export interface CallSite {
  callee: number;
  freq: number;
}

export interface LocalFrequency {
  /** Per instruction: runs per entry into the function. */
  freq: Float64Array;
  /** Per instruction: 1 inside a loop body (the loop's own `loop` and `end` excluded). */
  inLoop: Uint8Array;
  calls: CallSite[];
  /** Indirect sites (call_indirect, call_ref and their tail forms): type index and local frequency. */
  indirect: CallSite[];
}

interface Frame {
  entry: number;
  loop: boolean;
  isIf: boolean;
  hasElse: boolean;
  /** A branch to this construct's label was seen (for a loop: irrelevant). */
  targeted: boolean;
  /** How often branches and arms arrive at this construct's end (for merge "flow"). */
  incoming: number;
  /** An `if` without `else` whose then arm can only trap: the implicit else takes the rest. */
  coldThen: boolean;
  /** Where the current arm, or the run after the last conditional branch at this level, starts. */
  runStart: number;
  /** A conditional branch at this level started the current run (so reaching its end is a choice). */
  split: boolean;
  /** Some code in the current run branched or returned out of this construct. */
  escaped: boolean;
}

/** Local frequencies of one body (see the header). */
export function localFrequency(body: Body, model: FrequencyModel = DEFAULT_MODEL): LocalFrequency {
  const { ops, imm, immStart } = body;
  const tree = controlTree(body);
  const { constructOf, parent, innerLoop } = tree;
  const freq = new Float64Array(body.count);
  const inLoop = new Uint8Array(body.count);
  const calls: CallSite[] = [];
  const indirect: CallSite[] = [];
  // per construct, once it opens; the function body (construct 0) is an implicit block
  const frames: Frame[] = new Array<Frame>(tree.count);
  frames[0] = { entry: 1, loop: false, isIf: false, hasElse: false, targeted: false, incoming: 0, coldThen: false, runStart: 0, split: false, escaped: false };
  let cur = 1;
  /** A branch from inside construct `from` to construct t (-1: a label out of range). */
  const target = (from: number, t: number, amount: number): void => {
    const f = t >= 0 ? frames[t]! : undefined;
    if (f) {
      f.targeted = true;
      f.incoming += amount;
    }
    // the constructs inside the target are left (a loop's label is its start, so the loop is not)
    const stop = !f ? -1 : f.loop ? t : parent[t]!;
    for (let k = from; k !== stop && k >= 0; k = parent[k]!) frames[k]!.escaped = true;
  };
  for (let i = 0; i < body.count; i++) {
    const op = ops[i]!;
    const c = constructOf[i]!;
    freq[i] = cur;
    // inside a loop's body (a loop's own loop instruction runs outside it)
    if (op !== END && innerLoop[op === LOOP ? parent[c]! : c]! >= 0) inLoop[i] = 1;
    const w = immStart[i]!;
    if (op === BLOCK || op === TRY || op === TRY_TABLE) {
      frames[c] = { entry: cur, loop: false, isIf: false, hasElse: false, targeted: false, incoming: 0, coldThen: false, runStart: i + 1, split: false, escaped: false };
    } else if (op === LOOP) {
      frames[c] = { entry: cur, loop: true, isIf: false, hasElse: false, targeted: false, incoming: 0, coldThen: false, runStart: i + 1, split: false, escaped: false };
      cur = Math.min(cur * model.loopTrips, CAP);
    } else if (op === IF) {
      frames[c] = { entry: cur, loop: false, isIf: true, hasElse: false, targeted: false, incoming: 0, coldThen: false, runStart: i + 1, split: false, escaped: false };
      cur *= model.armShare;
    } else if (op === ELSE) {
      const f = frames[c]!;
      if (cur > 0) f.targeted = true; // the then arm falls through to the end
      f.incoming += cur;
      f.hasElse = true;
      f.runStart = i + 1;
      f.escaped = false;
      cur = f.entry * (1 - model.armShare);
    } else if (op === CATCH || op === CATCH_ALL) {
      const f = frames[c]!;
      if (cur > 0) f.targeted = true;
      f.incoming += cur;
      f.runStart = i + 1;
      f.escaped = false;
      cur = f.entry * model.coldShare;
    } else if (op === END || op === DELEGATE) {
      if (c === 0) break; // the function's own end
      const f = frames[c]!;
      // a branch to a loop's label goes back to its header: only falling through reaches its end
      const reached = cur > 0 || (!f.loop && f.targeted) || (f.isIf && !f.hasElse);
      if (op === DELEGATE) target(parent[c]!, tree.target(i, imm[w]!), cur);
      if (!reached) cur = 0;
      else if (model.merge === "entry" || f.loop) cur = f.entry;
      else cur = Math.min(f.entry, cur + f.incoming + (f.isIf && !f.hasElse ? f.entry * (1 - (f.coldThen ? model.coldShare : model.armShare)) : 0));
    } else {
      if (op === CALL || op === RETURN_CALL) calls.push({ callee: imm[w]!, freq: cur });
      else if (op === CALL_INDIRECT || op === RETURN_CALL_INDIRECT || op === CALL_REF || op === RETURN_CALL_REF) {
        indirect.push({ callee: imm[w]!, freq: cur });
      }
      if (RETURNS[op]) target(c, FUNCTION, cur);
      else if (op === BR || CONDITIONAL[op]) {
        target(c, tree.target(i, imm[w + LABEL_WORDS[op]![0]!]!), op === BR ? cur : cur * model.branchTaken);
      } else if (op === BR_TABLE) {
        const n = imm[w]!;
        for (let k = 0; k <= n; k++) target(c, tree.target(i, imm[w + 1 + k]!), model.table === "share" ? cur / (n + 1) : cur);
      }
      if (op === UNREACHABLE && cur > 0) {
        // the run that leads here can only trap: a cold path
        const f = frames[c]!;
        if ((f.isIf || f.split) && !f.escaped) {
          const scale = model.coldShare / (f.isIf ? (f.hasElse ? 1 - model.armShare : model.armShare) : 1);
          for (let k = f.runStart; k <= i; k++) freq[k]! *= Math.min(scale, 1);
          // and the other way takes what the cold path does not
          const rest = 1 - model.coldShare;
          if (f.isIf && !f.split) {
            if (f.hasElse) f.incoming += f.entry * Math.max(rest - model.armShare, 0);
            else f.coldThen = true;
          } else if (f.runStart > 0) f.incoming += freq[f.runStart - 1]! * Math.max(rest - model.branchTaken, 0);
        }
      }
      if (UNCONDITIONAL[op]) cur = 0;
      else if (CONDITIONAL[op]) {
        const f = frames[c]!;
        f.runStart = i + 1;
        f.split = true;
        f.escaped = false;
      }
    }
  }
  return { freq, calls, indirect, inLoop };
}

export interface ModuleFrequency {
  /** Entry frequency per function index (imports included, always 0 for them). */
  entry: Float64Array;
  /** Local frequencies per defined function (index into m.functions). */
  local: LocalFrequency[];
}

/** Functions the host may call: exports, the start function, and the elements of a table the host can reach. */
function externalEntries(m: Module): Set<number> {
  const out = new Set<number>();
  for (const e of m.exports) if (e.kind === "func") out.add(e.index);
  if (m.start !== null) out.add(m.start);
  const hostTables = new Set<number>();
  for (let t = 0; t < m.numImportedTables; t++) hostTables.add(t);
  for (const e of m.exports) if (e.kind === "table") hostTables.add(e.index);
  for (const e of m.elements) {
    if (e.mode.kind === "active" && !hostTables.has(e.mode.table)) continue;
    if (e.items.kind === "funcs") for (const f of e.items.funcs) out.add(f);
  }
  return out;
}

/** Entry frequencies of every function (see the header). */
export function moduleFrequency(m: Module, model: FrequencyModel = DEFAULT_MODEL): ModuleFrequency {
  const nImp = m.numImportedFuncs;
  const n = nImp + m.functions.length;
  const bodies = m.functions.map((f) => bodyOf(m, f));
  const local = bodies.map((b) => localFrequency(b, model));
  const typeOf = funcTypeTable(m);
  // indirect call targets per type: the address-taken defined functions of that type
  const targetsOf = new Map<number, number[]>();
  for (const f of [...referencedFunctions(m)].sort((a, b) => a - b)) {
    if (f < nImp || f >= n) continue;
    let list = targetsOf.get(typeOf[f]!);
    if (!list) targetsOf.set(typeOf[f]!, (list = []));
    list.push(f);
  }
  // graph nodes: functions 0..n-1, then one node per called type
  const types = [...new Set(local.flatMap((l) => l.indirect.map((s) => s.callee)))].sort((a, b) => a - b);
  const typeNode = new Map<number, number>(types.map((t, k) => [t, n + k]));
  const total = n + types.length;
  const succ = (v: number): number[] => {
    if (v >= n) return targetsOf.get(types[v - n]!) ?? [];
    if (v < nImp) return [];
    const l = local[v - nImp]!;
    return [...l.calls.map((c) => c.callee), ...l.indirect.map((s) => typeNode.get(s.callee)!)];
  };
  const sccs = stronglyConnected(total, succ);
  /** Calls `fn(w, f)` for every edge v -> w, where f is how often w is entered per entry of v. */
  const forEachEdge = (v: number, fn: (w: number, f: number) => void): void => {
    if (v >= n) {
      const targets = targetsOf.get(types[v - n]!) ?? [];
      const each = model.indirect === "share" ? 1 / Math.max(targets.length, 1) : 1;
      for (const g of targets) fn(g, each);
    } else if (v >= nImp) {
      const l = local[v - nImp]!;
      for (const s of l.calls) fn(s.callee, s.freq);
      for (const s of l.indirect) fn(typeNode.get(s.callee)!, s.freq);
    }
  };

  const entry = new Float64Array(total);
  for (const f of externalEntries(m)) if (f >= nImp && f < n) entry[f] = 1;
  const comp = new Int32Array(total);
  sccs.forEach((c, k) => c.forEach((v) => (comp[v] = k)));
  const add = (w: number, x: number): void => void (entry[w] = Math.min(entry[w]! + x, CAP));
  // Tarjan yields components callees-first: walk them callers-first
  for (let k = sccs.length - 1; k >= 0; k--) {
    const c = sccs[k]!;
    if (c.length > 1 || succ(c[0]!).includes(c[0]!)) {
      // a recursive component: inside it, along its edges less the back
      // edges (as through a loop body), then every member recursionTrips times
      const order = forwardOrder(c, (v) => succ(v).filter((w) => comp[w] === k), (v) => entry[v]! > 0);
      const rank = new Map(order.map((v, r) => [v, r]));
      for (const v of order) {
        const e = entry[v]!;
        if (e > 0) forEachEdge(v, (w, f) => comp[w] === k && rank.get(w)! > rank.get(v)! && add(w, e * f));
      }
      for (const v of c) entry[v] = Math.min(entry[v]! * model.recursionTrips, CAP);
    }
    for (const v of c) {
      const e = entry[v]!;
      if (e > 0) forEachEdge(v, (w, f) => comp[w] !== k && add(w, e * f));
    }
  }
  for (let f = 0; f < nImp; f++) entry[f] = 0;
  return { entry: entry.slice(0, n), local };
}

/**
 * The members of a component in reverse postorder of a depth-first search
 * that starts from the members `isEntry` accepts (then from the rest, in
 * order): an edge to a member earlier in the order is a back edge.
 */
function forwardOrder(members: readonly number[], succ: (v: number) => readonly number[], isEntry: (v: number) => boolean): number[] {
  const seen = new Set<number>();
  const post: number[] = [];
  const visit = (root: number): void => {
    if (seen.has(root)) return;
    seen.add(root);
    const work: { v: number; edges: readonly number[]; at: number }[] = [{ v: root, edges: succ(root), at: 0 }];
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      if (top.at < top.edges.length) {
        const w = top.edges[top.at++]!;
        if (!seen.has(w)) {
          seen.add(w);
          work.push({ v: w, edges: succ(w), at: 0 });
        }
        continue;
      }
      post.push(top.v);
      work.pop();
    }
  };
  for (const v of members) if (isEntry(v)) visit(v);
  for (const v of members) visit(v);
  return post.reverse();
}

/** Tarjan's algorithm without recursion; components in reverse topological order (a component before those that reach it). */
export function stronglyConnected(n: number, succ: (v: number) => readonly number[]): number[][] {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const out: number[][] = [];
  let next = 0;
  const work: { v: number; edges: readonly number[]; at: number }[] = [];
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const open = (v: number): void => {
      index[v] = low[v] = next++;
      stack.push(v);
      onStack[v] = 1;
      work.push({ v, edges: succ(v), at: 0 });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      if (top.at < top.edges.length) {
        const w = top.edges[top.at++]!;
        if (index[w] === -1) open(w);
        else if (onStack[w]) low[top.v] = Math.min(low[top.v]!, index[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.v;
        low[parent] = Math.min(low[parent]!, low[top.v]!);
      }
      if (low[top.v] === index[top.v]) {
        const c: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          c.push(w);
        } while (w !== top.v);
        out.push(c.reverse());
      }
    }
  }
  return out;
}
