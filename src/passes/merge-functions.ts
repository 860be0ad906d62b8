// Similar-function merging, as in the optimistic global function merger:
// functions equal in everything but numeric constants and direct-call
// targets are merged into one function that takes the differing values as
// extra parameters; each original becomes a thunk that calls it, so call
// sites, exports, table slots and call_indirect types stay as they were.
// Locations whose value sequences are equal across the group share one
// parameter (the paper's Figure 6). Differing callees go through a table
// slot and call_indirect (LLVM and Rust output has no typed function
// references). Merging happens only where the exact byte count drops.

import { u32Size } from "../binary/bytes.js";
import { bodyOf } from "../binary/reader.js";
import { idOf } from "../binary/opcodes/index.js";
import { CALL, groupBy, isParamOp, shapeEqual, shapeHash, type ShapeMode } from "../analysis/func-shape.js";
import { BodyBuilder, originOf, type Body } from "../ir/body.js";
import type { Module } from "../ir/module.js";
import { FUNCREF, I32, I64, F32, F64, type ValType } from "../ir/types.js";
import type { HotCode, Pass, PassContext, PassResult } from "./pass.js";
import { funcOrigin, thunkBody, type ThunkArg } from "../extract/thunk.js";
import { addFunction, newFunctionBytes, type NewFunction } from "../extract/new-function.js";
import { copyRenamed } from "../extract/copy.js";
import { replaceBody, trialCopy, writeTrial } from "../extract/trial.js";
import { funcEntrySize, functionCost } from "../analysis/sizes.js";
import { mayIntroduce } from "./features.js";
import { funcLabel, type MergeMapEntry } from "./merge-map.js";
import { printInstruction } from "../binary/printer.js";
import { findFuncType, funcTypeCost, funcTypeTable } from "../ir/func-types.js";
import { writeModule } from "../binary/writer.js";
import type { SizeJudge } from "../size-target.js";
import { judgeInHalves, judgementBudget } from "../extract/judging.js";

const LOCAL_GET = idOf("local.get");
const CALL_INDIRECT = idOf("call_indirect");
const I32_CONST = idOf("i32.const");
const CONST_TYPE = new Map<number, ValType>([
  [idOf("i32.const"), I32],
  [idOf("i64.const"), I64],
  [idOf("f32.const"), F32],
  [idOf("f64.const"), F64],
]);
/** Table instructions whose results or effects would see the slots this pass appends. */
const TABLE_WRITERS = ["table.set", "table.fill", "table.copy", "table.init", "table.size", "table.grow"].map(idOf);

/** Upper bound on extra parameters: beyond this a merge never pays and bodies get unwieldy. */
const MAX_EXTRA_PARAMS = 64;

export interface MergeStats {
  groups: number;
  functionsMerged: number;
  parameters: number;
  tableSlots: number;
  entries: MergeMapEntry[];
}

/** The table differing callees go through: its index and the slots already holding each function. */
export interface CalleeTable {
  index: number;
  /** function index -> existing slot (only for tables whose contents no one else can change). */
  existing: Map<number, number>;
  /** slots this pass appends: function index -> slot */
  added: Map<number, number>;
  nextSlot: number;
}

/** The table for differing callees, or null where the host or the code may change table contents (fuse-branches reads its `existing` slots too). */
export function findCalleeTable(m: Module): CalleeTable | null {
  if (m.numImportedTables > 0) return null;
  const writesTables = m.functions.some((f) => {
    const b = bodyOf(m, f);
    for (let i = 0; i < b.count; i++) if (TABLE_WRITERS.includes(b.ops[i]!)) return true;
    return false;
  });
  if (writesTables) return null;
  if (m.tables.length === 0) return { index: 0, existing: new Map(), added: new Map(), nextSlot: 0 };
  const t = m.tables[0]!;
  if (t.type.elem !== FUNCREF || t.type.limits.is64 || t.init) return null;
  // the host may read, write and grow an exported table, the appended slots too
  if (m.exports.some((e) => e.kind === "table" && e.index === 0)) return null;
  const existing = new Map<number, number>();
  // slots set by active segments with constant offsets; a later segment wins
  const slotFunc = new Map<number, number>();
  for (const e of m.elements) {
    if (e.mode.kind !== "active" || e.mode.table !== 0) continue;
    const off = e.mode.offset.body;
    // a segment at a computed offset may write any slot, the appended ones too
    if (off.count !== 2 || off.ops[0] !== I32_CONST) return null;
    const base = off.imm[off.immStart[0]!]!;
    if (e.items.kind === "funcs") e.items.funcs.forEach((f, k) => slotFunc.set(base + k, f));
    // expression items (ref.func, ref.null, global.get): not known here, so no slot they write is trusted
    else e.items.exprs.forEach((_, k) => slotFunc.delete(base + k));
  }
  for (const [slot, f] of [...slotFunc].sort((a, b) => a[0] - b[0])) if (!existing.has(f)) existing.set(f, slot);
  return { index: 0, existing, added: new Map(), nextSlot: Number(t.type.limits.min) };
}




interface Param {
  type: ValType;
  /** per member: the thunk argument */
  args: ThunkArg[];
  isCallee: boolean;
  /** for a callee parameter: the callees' function type */
  calleeType: number;
}

export interface MergeOptions {
  /** Decides per candidate group (numbered in discovery order) whether to take it. */
  accept?: (ordinal: number) => boolean;
  /**
   * Judges each merge on the whole written module, before against after.
   * Without one (or with a raw-only judge), exact raw bytes decide.
   */
  judge?: SizeJudge;
  /** Most whole-module judgements to spend (default: extract/judging.ts judgementBudget); groups left unjudged are not merged. */
  maxJudgements?: number;
  /** Thunks end in return_call (only where tail calls may be used: see features.ts). */
  tail?: boolean;
  /** Hot code from a profile: hot functions are not merged (a thunk call and parameters instead of constants would slow them). */
  hot?: HotCode;
}

/** A group of similar functions and how they would be merged. */
interface Plan {
  members: number[]; // defined-function positions
  nParams: number;
  results: ValType[];
  params: Param[];
  paramOf: Int32Array;
  body: Body;
}

/** A plan and its rewrite as made when it was last planned. */
interface Item {
  plan: Plan;
  r: Rewrite;
}

/** A plan made concrete against the current module: exact bytes and what to add. */
interface Rewrite {
  plan: Plan;
  /** The merged function (its type: params -> plan.results). */
  merged: NewFunction;
  thunks: Body[];
  newSlots: Map<number, number>;
}

export function mergeFunctions(m: Module, opts: MergeOptions = {}): MergeStats {
  const stats: MergeStats = { groups: 0, functionsMerged: 0, parameters: 0, tableSlots: 0, entries: [] };
  const table = findCalleeTable(m);
  const plans = planMerges(m, table, opts.hot);
  const judge = opts.judge && opts.judge.compressed ? opts.judge : null;

  // Raw-paying rewrites, made one after another (slots and types accumulate).
  // With a compressed-size judge, each batch is tried on a clone of the
  // module and taken only if the whole written module is better.
  const release = (batch: Rewrite[]): void => {
    // a batch's slots are the most recently reserved ones, so this keeps them dense
    if (!table) return;
    for (const r of batch) for (const f of r.newSlots.keys()) table.added.delete(f);
    table.nextSlot -= batch.reduce((n, r) => n + r.newSlots.size, 0);
  };
  const apply = (batch: Rewrite[]): void => {
    for (const r of batch) record(m, r, applyRewrite(m, r, false), stats);
  };
  /** The module as it stands (merges taken applied) with `batch` applied on a trial copy, and the slots reserved so far. */
  const trialBytes = (batch: readonly Item[], slots: (t: CalleeTable) => void): Uint8Array => {
    const trial = trialCopy(m);
    for (const x of batch) applyRewrite(trial, x.r, true);
    if (table) {
      const tt = cloneTable(table);
      slots(tt);
      if (tt.added.size > 0) appendSlots(trial, tt);
    }
    return judge ? writeTrial(trial, judge) : writeModule(trial);
  };
  let segmentOverheadPaid = false;
  /** Rewrites for `plans`, in order, after the merges taken so far (their slots reserved). */
  const build = (plans: readonly Plan[]): Item[] => {
    const out: Item[] = [];
    for (const plan of plans) {
      const r = concretize(m, table, plan, !segmentOverheadPaid, m.functions.length + out.length, opts.tail ?? false);
      if (!r) continue;
      if (r.newSlots.size > 0) segmentOverheadPaid = true;
      out.push({ plan, r });
    }
    return out;
  };
  let ordinal = -1;
  const items: Item[] = [];
  for (const plan of plans) {
    const r = concretize(m, table, plan, !segmentOverheadPaid, m.functions.length + items.length, opts.tail ?? false);
    if (!r) continue;
    ordinal++;
    if (opts.accept && !opts.accept(ordinal)) {
      release([r]);
      continue;
    }
    if (r.newSlots.size > 0) segmentOverheadPaid = true;
    items.push({ plan, r });
  }
  if (!judge) apply(items.map((x) => x.r));
  else if (items.length > 0) {
    // All raw-paying merges are judged together first (see extract/judging.ts);
    // a refused batch is released and its halves are rebuilt when their turn
    // comes (merged-function indices and slots follow what was taken).
    judgeInHalves(items, {
      judge,
      budget: opts.maxJudgements !== undefined && opts.maxJudgements >= 0 ? opts.maxJudgements : judgementBudget("merge-functions", writeTrial(m, judge), judge.shipsExtra),
      // the merges taken and their slots; the table as reserved with the batch's slots too
      before: (batch) => trialBytes([], (t) => {
        for (const x of batch) for (const f of x.r.newSlots.keys()) t.added.delete(f);
      }),
      write: (_taken, batch) => trialBytes(batch, () => {}), // taken merges are already applied to m
      replan: (half) => build(half.map((x) => x.plan)),
      onTaken: (batch) => apply(batch.map((x) => x.r)),
      onRefused: (batch) => release(batch.map((x) => x.r)),
    });
  }

  if (table && table.added.size > 0) {
    stats.tableSlots = table.added.size;
    appendSlots(m, table);
  }
  return stats;
}

/** Finds the groups of similar functions and their parameters. */
function planMerges(m: Module, table: CalleeTable | null, hot?: HotCode): Plan[] {
  const nImp = m.numImportedFuncs;
  const bodies = m.functions.map((f) => bodyOf(m, f));
  // call targets are hashed by their type, once per call instruction: look types up in a table
  const funcTypes = funcTypeTable(m);
  const mode: ShapeMode = { skipFuncs: false, skipConsts: true, ...(table ? { callType: (f: number) => funcTypes[f]! } : {}) };
  // candidates: not self-recursive (a self call would go through the thunk)
  const candidates: number[] = [];
  for (let i = 0; i < m.functions.length; i++) {
    const b = bodies[i]!;
    if (b.count < 4) continue;
    if (hot?.isHotFunction(m.functions[i]!)) continue;
    let selfCall = false;
    for (let k = 0; k < b.count; k++) if (b.ops[k] === CALL && b.imm[b.immStart[k]!] === nImp + i) selfCall = true;
    if (!selfCall) candidates.push(i);
  }
  const groups = groupBy(
    candidates,
    (i) => shapeHash(m.functions[i]!, bodies[i]!, mode),
    (a, b) => shapeEqual(m.functions[a]!, bodies[a]!, m.functions[b]!, bodies[b]!, mode),
  ).filter((g) => g.length > 1);

  const plans: Plan[] = [];
  for (const g of groups) {
    const rep = m.functions[g[0]!]!;
    const body = bodies[g[0]!]!;
    const type = m.types[rep.typeIndex]!.composite;
    if (type.kind !== "func") continue;
    // parameter locations and the value sequences across the group
    const paramOf = new Int32Array(body.count).fill(-1);
    const params: Param[] = [];
    const bySequence = new Map<string, number>();
    let ok = true;
    for (let i = 0; i < body.count && ok; i++) {
      const op = body.ops[i]!;
      if (!isParamOp(op, mode)) continue;
      const s = body.immStart[i]!;
      const e = body.immStart[i + 1]!;
      const values = g.map((fi) => Array.from(bodies[fi]!.imm.subarray(s, e)).join(":"));
      if (values.every((v) => v === values[0])) continue;
      const key = `${op}/${values.join(",")}`;
      let pid = bySequence.get(key);
      if (pid === undefined) {
        pid = params.length;
        if (pid >= MAX_EXTRA_PARAMS) {
          ok = false;
          break;
        }
        bySequence.set(key, pid);
        if (op === CALL) {
          params.push({ type: I32, isCallee: true, calleeType: funcTypes[body.imm[s]!]!, args: g.map((fi) => ({ op: I32_CONST, words: [bodies[fi]!.imm[s]!] })) });
        } else {
          params.push({ type: CONST_TYPE.get(op)!, isCallee: false, calleeType: -1, args: g.map((fi) => ({ op, words: Array.from(bodies[fi]!.imm.subarray(s, e)) })) });
        }
      }
      paramOf[i] = pid;
    }
    if (!ok || params.length === 0) continue;
    plans.push({ members: g, nParams: type.params.length, results: [...type.results], params, paramOf, body });
  }
  return plans;
}

/** Makes a plan concrete (slots, type, merged body, thunks) if it pays in exact raw bytes; reserves its slots. */
function concretize(m: Module, table: CalleeTable | null, plan: Plan, payOverhead: boolean, mergedPos: number, tail: boolean): Rewrite | null {
  const { params, nParams } = plan;
  const newSlots = new Map<number, number>();
  let slotBytes = 0;
  if (params.some((p) => p.isCallee)) {
    if (!table) return null;
    let next = table.nextSlot;
    for (const p of params) {
      if (!p.isCallee) continue;
      for (const a of p.args) {
        const f = a.words[0]!;
        if (table.existing.has(f) || table.added.has(f) || newSlots.has(f)) continue;
        newSlots.set(f, next++);
        slotBytes += u32Size(f);
      }
    }
    if (newSlots.size > 0 && payOverhead) slotBytes += 8; // flags, offset expression, count
  }
  const slotOf = (f: number) => table!.existing.get(f) ?? table!.added.get(f) ?? newSlots.get(f)!;
  const rep = m.functions[plan.members[0]!]!;
  const repType = m.types[rep.typeIndex]!.composite;
  if (repType.kind !== "func") return null;
  const mergedParams = [...repType.params, ...params.map((p) => p.type)];
  const mergedType = findFuncType(m, mergedParams, plan.results);
  const mergedIndex = m.numImportedFuncs + mergedPos;
  const merged: NewFunction = {
    params: mergedParams,
    results: plan.results,
    locals: rep.locals,
    body: buildMergedBody(plan.body, plan.paramOf, params, nParams, params.map((p) => p.calleeType), table?.index ?? 0),
  };
  // a new type is paid for by every merge that needs it (not planned across merges)
  const mergedBytes = mergedType < 0
    ? newFunctionBytes(m.types.length, funcTypeCost(mergedParams, plan.results), funcEntrySize(merged.locals, merged.body), 0)
    : newFunctionBytes(mergedType, 0, funcEntrySize(merged.locals, merged.body), 0);
  let before = 0;
  let after = mergedBytes + slotBytes;
  const thunks: Body[] = [];
  plan.members.forEach((fi, k) => {
    const f = m.functions[fi]!;
    before += functionCost(f);
    const args = params.map((p) => (p.isCallee ? { op: I32_CONST, words: [slotOf(p.args[k]!.words[0]!)] } : p.args[k]!));
    const tb = thunkBody(nParams, mergedIndex, args, tail, funcOrigin(f));
    thunks.push(tb);
    after += functionCost({ ...f, body: tb, locals: [], raw: null, dirty: true });
  });
  if (after >= before) return null;
  if (table) {
    for (const [f, slot] of newSlots) table.added.set(f, slot);
    table.nextSlot += newSlots.size;
  }
  return { plan, merged, thunks, newSlots };
}

/** Applies a rewrite to `m`: the real module, or a trial copy (see extract/trial.ts). Returns the merged function's index. */
function applyRewrite(m: Module, r: Rewrite, trial: boolean): number {
  const index = addFunction(m, r.merged, { trial }); // named by record()
  r.plan.members.forEach((fi, k) => replaceBody(m, fi, r.thunks[k]!, trial, []));
  return index;
}

function cloneTable(t: CalleeTable): CalleeTable {
  return { index: t.index, existing: t.existing, added: new Map(t.added), nextSlot: t.nextSlot };
}

/** Names, merge-map entries and counters for a rewrite that was taken. */
function record(m: Module, r: Rewrite, mergedIndex: number, stats: MergeStats): void {
  const nImp = m.numImportedFuncs;
  const g = r.plan.members;
  const nParams = r.plan.nParams;
  const repName = m.names?.functions.get(nImp + g[0]!);
  if (m.names) {
    m.names.functions.set(mergedIndex, `merged[${g.length}]$${repName ?? `f${nImp + g[0]!}`}`);
    const repLocals = m.names.locals.get(nImp + g[0]!);
    if (repLocals) {
      const shifted = new Map<number, string>();
      for (const [li, n] of repLocals) shifted.set(li < nParams ? li : li + r.plan.params.length, n);
      r.plan.params.forEach((_, k) => shifted.set(nParams + k, `merge_param${k}`));
      m.names.locals.set(mergedIndex, shifted);
    }
    for (const fi of g) {
      const ln = m.names.locals.get(nImp + fi);
      if (ln) for (const li of [...ln.keys()]) if (li >= nParams) ln.delete(li);
    }
    m.names.dirty = true;
  }
  const into = funcLabel(m, mergedIndex);
  g.forEach((fi, k) => {
    stats.entries.push({ function: funcLabel(m, nImp + fi), became: "thunk", into, args: describeArgs(r.thunks[k]!, nParams) });
  });
  stats.groups++;
  stats.functionsMerged += g.length;
  stats.parameters += r.plan.params.length;
}

function describeArgs(thunk: Body, nParams: number): string[] {
  const out: string[] = [];
  for (let i = nParams; i < thunk.count - 2; i++) out.push(printInstruction(thunk, i));
  return out;
}

function buildMergedBody(body: Body, paramOf: Int32Array, params: Param[], nParams: number, calleeTypes: number[], tableIndex: number): Body {
  const shift = params.length;
  const b = new BodyBuilder(body.count + 8, body.offsets !== null);
  // the extra parameters come after the original ones: declared locals move up
  const rename = (x: number) => (x >= nParams ? x + shift : x);
  for (let i = 0; i < body.count; i++) {
    const op = body.ops[i]!;
    const pid = paramOf[i]!;
    if (pid >= 0) {
      const origin = originOf(body, i);
      b.begin(LOCAL_GET, origin);
      b.word(nParams + pid);
      if (op === CALL) {
        b.begin(CALL_INDIRECT, origin);
        b.word(calleeTypes[pid]!);
        b.word(tableIndex);
      }
      continue;
    }
    copyRenamed(b, body, i, i + 1, rename);
  }
  return b.finish();
}

/** Adds the new slots as one active element segment at the end of table 0 (creating the table if there is none). */
export function appendSlots(m: Module, t: CalleeTable): void {
  const entries = [...t.added].sort((a, b) => a[1] - b[1]);
  const first = entries[0]![1];
  const end = t.nextSlot;
  if (m.tables.length === 0) {
    m.tables.push({ type: { elem: FUNCREF, limits: { min: end, max: end, shared: false, is64: false } }, init: null });
  } else {
    const lim = m.tables[0]!.type.limits;
    lim.min = end;
    if (lim.max !== null && Number(lim.max) < end) lim.max = end;
  }
  const off = new BodyBuilder(2);
  off.begin(I32_CONST);
  off.word(first);
  off.begin(idOf("end"));
  m.elements.push({
    mode: { kind: "active", table: 0, offset: { body: off.finish() } },
    type: FUNCREF,
    items: { kind: "funcs", funcs: entries.map((e) => e[0]) },
    flags: 0,
  });
}

export const mergeFunctionsPass: Pass = {
  name: "merge-functions",
  description: "merge functions that differ only in constants and callees into one with extra parameters; originals become thunks",
  run(m: Module, ctx: PassContext): PassResult {
    const o = ctx.options;
    const s = mergeFunctions(m, {
      ...(o?.judge ? { judge: o.judge } : {}),
      ...(o?.hot ? { hot: o.hot } : {}),
      tail: mayIntroduce(m, o, "tail-call"),
    });
    for (const e of s.entries) ctx.record?.(e);
    return {
      changed: s.groups > 0,
      stats: { groupsMerged: s.groups, functionsMerged: s.functionsMerged, parameters: s.parameters, tableSlots: s.tableSlots },
    };
  },
};
