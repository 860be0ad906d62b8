// fuse-branches: the two arms of an `if … else … end` become one sequence
// (HyBF's SEME-Fusion, DIGEST §2.3/§2.5, at statement granularity): pieces
// of the arms are aligned, matched pieces are emitted once with `select` on
// the saved condition for differing pure operands and results, unmatched
// runs are guarded by the condition. CFG diamonds and SEME triangles (the
// branches clang -Oz emits without wasm-opt, diamond.ts) are fused as the
// ifs they stand for. Each fusion is kept only where it makes the function's
// code entry smaller in exact bytes (with the table slots it appends). Per branch, plain alignment and CFM-CS
// (alignment that also melds isomorphic blocks and loops, and replicates a
// block or loop around straight-line code on the other side, align.ts) are
// both tried and the smaller kept. Calls of two functions of one type become
// one call_indirect on the selected slot: slots the functions already have in
// table 0, or slots appended for them where no one can see the table grow
// (slots.ts), their bytes counted against the function's saving.

import { bodyOf } from "../../binary/reader.js";
import { BodyBuilder, type Body } from "../../ir/body.js";
import type { Func, Module } from "../../ir/module.js";
import { I32 } from "../../ir/types.js";
import { controlTree, type ControlTree } from "../../analysis/control-tree.js";
import { typeBody, type BodyTyping } from "../../analysis/body-typing.js";
import { moduleEnv, type ModuleEnv } from "../../analysis/module-env.js";
import { effectsContext, type EffectsContext } from "../../analysis/effects.js";
import { funcEntrySize, rangeSize } from "../../analysis/sizes.js";
import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import { idOf } from "../../binary/opcodes/index.js";
import { copyRange } from "../../extract/copy.js";
import { mayIntroduce } from "../features.js";
import { judgeInHalves, judgementBudget } from "../../extract/judging.js";
import { replaceBody, trialCopy, writeTrial } from "../../extract/trial.js";
import type { HotCode, Pass, PassContext, PassOptions, PassResult } from "../pass.js";
import { armsOf, ifElseCandidates, type Arm } from "./arms.js";
import { shapeAsIf, shapesOf, type Shape } from "./diamond.js";
import { alignArms, type AlignOptions } from "./align.js";
import { emitFused, type CondPlace, type Fused } from "./emit.js";
import { reserveSlots, slotSectionBytes, slotTable, writeSlots, type SlotTable } from "./slots.js";

const LOCAL_GET = idOf("local.get"), LOCAL_SET = idOf("local.set"), LOCAL_TEE = idOf("local.tee");
const BLOCK = idOf("block"), LOOP = idOf("loop");

/** Alignment options that hold for the whole module. */
type BaseAlign = Pick<AlignOptions, "ectx" | "simd" | "maxPairs" | "callees">;
/** Where a callee without a slot may get one: its new slot, or undefined. */
type NewSlot = (f: number) => number | undefined;

export interface FuseStats {
  /** if/else constructs with two non-empty arms. */
  candidates: number;
  /** CFG diamonds (block block … br_if 0 … br 1 end … end). */
  diamonds: number;
  /** SEME triangles (block … br_if 0 … <branch or return> end, then the rest of the enclosing construct), the inner blocks of diamonds not counted. */
  triangles: number;
  /** Diamonds and triangles with a branch that has no if form, a triangle whose stack does not start empty, or over the work budget. */
  shapesRefused: number;
  /** Fused as diamonds, or through their inner block's triangle form. */
  diamondsFused: number;
  trianglesFused: number;
  /** Of bytesSaved, what writing the fused diamonds and triangles as ifs saves by itself. */
  shapeBytes: number;
  /** Left alone: a profile or the static estimate calls them hot. */
  hot: number;
  /** Left alone: block parameters, exception handling or dead code in an arm. */
  unsupported: number;
  /** No pair of pieces matches with a gain (or too many pieces to compare). */
  unaligned: number;
  /** Aligned, but the fused code is not smaller. */
  notPaying: number;
  fused: number;
  /** Fusions that meld at least one pair of regions or replicate one (CFM-CS kept over plain alignment); region pairs melded; regions replicated. */
  fusedByMeld: number;
  melds: number;
  replicas: number;
  /** Calls of two callees made one call_indirect through their table slots. */
  indirect: number;
  /** Slots appended to table 0 for callees that had none, and the table and element bytes they cost (counted in bytesSaved). */
  newSlots: number;
  slotBytes: number;
  /** Of newSlots, slots kept only to keep later slots in place (their rewrite was refused by the size target's judge). */
  unusedSlots: number;
  selects: number;
  guards: number;
  /** Bytes saved in code entries (local declarations included). */
  bytesSaved: number;
  judgements: number;
  refused: number;
}

export interface FuseOptions {
  hot?: HotCode;
  simd: boolean;
  /** Fusions within a function must save at least this many bytes together. */
  minBenefit: number;
  /** Table 0's stable slots and those appended so far (differing callees through call_indirect), or null. */
  table: SlotTable | null;
  /** function index -> type index */
  types: Int32Array;
}

/** One function's rewrite. */
interface Rewrite {
  pos: number;
  body: Body;
  locals: Func["locals"];
  saved: number;
  fused: number;
  diamonds: number;
  triangles: number;
  shapeBytes: number;
  fusedByMeld: number;
  melds: number;
  replicas: number;
  indirect: number;
  selects: number;
  guards: number;
  /** Slots to append (function index -> slot), dense from the table's next slot, and their bytes (subtracted from saved). */
  newSlots: Map<number, number>;
  slotBytes: number;
}

/** A fusion as a replacement of instructions [from, to) of the function's body. */
interface Site extends Fused {
  shape: "diamond" | "triangle" | null;
  /** For a shape: bytes its if form saves by itself. */
  shapeBytes: number;
}

export function newStats(): FuseStats {
  return { candidates: 0, diamonds: 0, triangles: 0, shapesRefused: 0, diamondsFused: 0, trianglesFused: 0, shapeBytes: 0, hot: 0, unsupported: 0, unaligned: 0, notPaying: 0, fused: 0, fusedByMeld: 0, melds: 0, replicas: 0, indirect: 0, newSlots: 0, slotBytes: 0, unusedSlots: 0, selects: 0, guards: 0, bytesSaved: 0, judgements: 0, refused: 0 };
}

/** Most piece pairs compared per if. */
const MAX_PAIRS = 40_000;
/** Most instructions retyped per function for diamonds and triangles (each is typed as an if in a copy of the body). */
const MAX_SHAPE_WORK = 4_000_000;

/**
 * The fusions of one function that pay, or null; "slots" where they use new
 * slots and do not pay with them. `allowFresh` false: only fusions that need
 * no new local; `newSlot` null: only slots the table has.
 */
function planFunction(m: Module, pos: number, env: ModuleEnv, ectx: EffectsContext, o: FuseOptions, stats: FuseStats | null, allowFresh: boolean, newSlot: NewSlot | null): Rewrite | "slots" | null {
  const f = m.functions[pos]!;
  const body = bodyOf(m, f);
  const ct = controlTree(body);
  const cands = ifElseCandidates(ct);
  const shapes = shapesOf(body, ct);
  if (stats) {
    stats.candidates += cands.length;
    for (const x of shapes) if (!x.inDiamond) stats[x.kind === "diamond" ? "diamonds" : "triangles"]++;
  }
  if (cands.length === 0 && shapes.length === 0) return null;
  const hot = o.hot && o.hot.isHotFunction(f) ? o.hot : null;
  const t = typeBody(m, m.numImportedFuncs + pos, env);
  const nParams = env.ctx.params[f.typeIndex]!.length;
  const fresh = nParams + f.localCount;
  const table = o.table;
  const callees = table && (table.slots.size > 0 || newSlot) ? { table: 0, slots: table.slots, types: o.types, newSlot } : null;
  const ao: BaseAlign = { ectx, simd: o.simd, maxPairs: MAX_PAIRS, callees };
  // if/else constructs and shapes in the order they open; outermost first
  const sites: (number | Shape)[] = [...cands, ...shapes].sort((a, b) => startOf(ct, a) - startOf(ct, b));
  const chosen: Site[] = [];
  let coveredTo = -1;
  let work = 0;
  for (const site of sites) {
    const s = startOf(ct, site);
    if (s < coveredTo) continue; // inside a fused if or shape
    if (hot && hot.isHotInstruction(f, s)) {
      if (stats) stats.hot++;
      continue;
    }
    let fused: Site | null;
    if (typeof site === "number") {
      const x = fuseIf(body, ct, t, env, site, fresh, ao, stats);
      fused = x && { ...x, shape: null, shapeBytes: 0 };
    } else {
      work += body.count;
      fused = work <= MAX_SHAPE_WORK ? fuseShape(m, pos, body, ct, t, env, site, fresh, ao, stats) : null;
      if (work > MAX_SHAPE_WORK && stats) stats.shapesRefused++;
    }
    if (!fused || (fused.usesFresh && !allowFresh)) continue;
    chosen.push(fused);
    coveredTo = fused.to;
  }
  if (chosen.length === 0) return null;
  const locals = chosen.some((x) => x.usesFresh) ? [...f.locals, { count: 1, type: I32 }] : f.locals;
  const b = new BodyBuilder(body.count + 16, body.offsets !== null);
  let i = 0;
  for (const x of chosen) {
    copyRange(b, body, i, x.from);
    copyRange(b, x.code, 0, x.code.count);
    i = x.to;
  }
  copyRange(b, body, i, body.count);
  const nb = b.finish();
  // against the body re-encoded: what the writer gains by re-encoding a function (padded LEBs, as wasm-ld leaves them) is not the fusion's
  const newSlots = new Map<number, number>();
  for (const x of chosen) for (const [g, slot] of x.newSlots) newSlots.set(g, slot);
  // as the slots will be appended: dense, in the order of the slots used here
  const slotBytes = newSlots.size > 0 ? slotSectionBytes(m, table!, slotOrder(newSlots)) - slotSectionBytes(m, table!, []) : 0;
  const saved = funcEntrySize(f.locals, body) - funcEntrySize(locals, nb) - slotBytes;
  if (saved < o.minBenefit) {
    if (newSlots.size > 0) return "slots";
    // the new local's declaration may be what keeps it from paying
    return allowFresh && locals !== f.locals ? planFunction(m, pos, env, ectx, o, null, false, newSlot) : null;
  }
  return {
    pos, body: nb, locals, saved, fused: chosen.length, newSlots, slotBytes,
    diamonds: chosen.filter((x) => x.shape === "diamond").length, triangles: chosen.filter((x) => x.shape === "triangle").length,
    shapeBytes: chosen.reduce((n, x) => n + x.shapeBytes, 0),
    fusedByMeld: chosen.filter((x) => x.melds + x.replicas > 0).length, melds: chosen.reduce((n, x) => n + x.melds, 0),
    replicas: chosen.reduce((n, x) => n + x.replicas, 0), indirect: chosen.reduce((n, x) => n + x.indirect, 0),
    selects: chosen.reduce((n, x) => n + x.selects, 0), guards: chosen.reduce((n, x) => n + x.guards, 0),
  };
}

/**
 * planFunction with new slots where they pay. Slots are first handed out as
 * callees are compared, so the fusions kept may use them with gaps; the
 * function is then planned again with the slots it used, numbered densely,
 * until what it uses is dense (or without new slots if that does not settle
 * or pay). The slots taken are reserved for the functions planned after it.
 */
function planWithSlots(m: Module, pos: number, env: ModuleEnv, ectx: EffectsContext, o: FuseOptions, stats: FuseStats): Rewrite | null {
  const t = o.table;
  if (!t || !t.canAppend) return orNull(planFunction(m, pos, env, ectx, o, stats, true, null));
  const asked = new Map<number, number>();
  let r = planFunction(m, pos, env, ectx, o, stats, true, (f) => {
    let s = asked.get(f);
    if (s === undefined) asked.set(f, (s = t.next + asked.size));
    return s;
  });
  for (let round = 0; round < 4 && r !== null && r !== "slots" && !isDense(r.newSlots, t.next); round++) {
    const fixed = new Map(slotOrder(r.newSlots).map((f, k) => [f, t.next + k]));
    r = planFunction(m, pos, env, ectx, o, null, true, (f) => fixed.get(f));
  }
  if (r === "slots" || (r !== null && !isDense(r.newSlots, t.next))) r = planFunction(m, pos, env, ectx, o, null, true, null);
  if (r === null || r === "slots") return null;
  if (r.newSlots.size > 0) reserveSlots(t, slotOrder(r.newSlots));
  return r;
}

function orNull(r: Rewrite | "slots" | null): Rewrite | null {
  return r === "slots" ? null : r;
}

/** The functions of a slot map in slot order. */
function slotOrder(slots: ReadonlyMap<number, number>): number[] {
  return [...slots].sort((a, b) => a[1] - b[1]).map((e) => e[0]);
}

/** The slots are next, next + 1, … */
function isDense(slots: ReadonlyMap<number, number>, next: number): boolean {
  const s = [...slots.values()].sort((a, b) => a - b);
  return s.every((x, k) => x === next + k);
}

function startOf(ct: ControlTree, site: number | Shape): number {
  return typeof site === "number" ? ct.start[site]! : site.from;
}

/**
 * A diamond or triangle fused: written as an if in a copy of the body, typed
 * there, fused like any if; the result replaces the shape's instructions.
 * Null if it has no if form or the fused code is not smaller than that if.
 */
function fuseShape(m: Module, pos: number, body: Body, ct: ControlTree, t: BodyTyping, env: ModuleEnv, x: Shape, fresh: number, ao: BaseAlign, stats: FuseStats | null): Site | null {
  const f = m.functions[pos]!;
  const conv = shapeAsIf(body, ct, t, env, f.typeIndex, x);
  if (!conv) {
    if (stats) stats.shapesRefused++;
    return null;
  }
  const trial: Module = { ...m, functions: m.functions.slice() };
  trial.functions[pos] = { ...f, body: conv.body };
  const ct2 = controlTree(conv.body);
  const t2 = typeBody(trial, m.numImportedFuncs + pos, env);
  const fused = fuseIf(conv.body, ct2, t2, env, ct2.constructOf[conv.ifAt]!, fresh, ao, stats);
  if (!fused) return null;
  const end = x.from + conv.length;
  const b = new BodyBuilder(conv.length + 4, body.offsets !== null);
  copyRange(b, conv.body, x.from, fused.from);
  copyRange(b, fused.code, 0, fused.code.count);
  copyRange(b, conv.body, fused.to, end);
  return {
    ...fused, from: x.from, to: x.to, code: b.finish(), shape: x.inDiamond ? "diamond" : x.kind,
    shapeBytes: rangeSize(body, x.from, x.to) - rangeSize(conv.body, x.from, end),
  };
}

/**
 * The fused code of if construct c if it is smaller than the if (estimating
 * the new local's declaration apart), else null. Both methods are tried:
 * alignment alone (SEME-Fusion), and alignment that melds isomorphic blocks
 * and loops (CFM-CS); the smaller exact encoding is kept.
 */
function fuseIf(body: Body, ct: ControlTree, t: BodyTyping, env: ModuleEnv, c: number, fresh: number, base: BaseAlign, stats: FuseStats | null): Fused | null {
  const arms = armsOf(body, ct, t, c);
  if (!arms.ok) {
    if (stats) stats.unsupported++;
    return null;
  }
  const s = ct.start[c]!;
  const bt = body.imm[body.immStart[s]!]!;
  const results = bt >= 0 ? (bt === 0x40 ? [] : [bt]) : env.ctx.results[-bt - 1]!;
  const cond = condPlace(body, ct, c, fresh);
  let aligned = false;
  const attempt = (meld: boolean): Fused | null => {
    const cols = alignArms(body, arms.then, arms.else, { ...base, meld, ct, t });
    if (!cols) return null;
    aligned = true;
    const fused = emitFused({ body, ct, c, A: arms.then, B: arms.else, cols, results, blockType: bt, cond });
    return fused && rangeSize(fused.code, 0, fused.code.count) < rangeSize(body, fused.from, fused.to) ? fused : null;
  };
  const plain = attempt(false);
  const melded = hasRegions(body, arms.then) || hasRegions(body, arms.else) ? attempt(true) : null;
  const size = (x: Fused) => rangeSize(x.code, 0, x.code.count) + (x.usesFresh ? 1 : 0);
  const best = melded && melded.melds + melded.replicas > 0 && (!plain || size(melded) < size(plain)) ? melded : plain;
  if (!best && stats) stats[aligned ? "notPaying" : "unaligned"]++;
  return best;
}

/** The arm holds a block or loop, which CFM-CS might meld or replicate. */
function hasRegions(body: Body, arm: Arm): boolean {
  for (let i = arm.from; i < arm.to; i++) if (body.ops[i] === BLOCK || body.ops[i] === LOOP) return true;
  return false;
}

/** The local read just before the if when no arm writes it, else the fresh local. */
function condPlace(body: Body, ct: ControlTree, c: number, fresh: number): CondPlace {
  const s = ct.start[c]!;
  if (s > 0 && body.ops[s - 1] === LOCAL_GET) {
    const x = body.imm[body.immStart[s - 1]! + LOCAL_WORDS[LOCAL_GET]![0]!]!;
    let written = false;
    for (let i = s + 1; i < ct.end[c]! && !written; i++) {
      const op = body.ops[i]!;
      written = (op === LOCAL_SET || op === LOCAL_TEE) && body.imm[body.immStart[i]!] === x;
    }
    if (!written) return { k: "reuse", local: x };
  }
  return { k: "fresh", local: fresh };
}

function apply(m: Module, list: readonly Rewrite[], trial: boolean): void {
  for (const r of list) replaceBody(m, r.pos, r.body, trial, r.locals);
}

/** Fuses in place; returns what it did. */
export function fuseBranches(m: Module, options: PassOptions | undefined, progress: (f: number) => void = () => {}): FuseStats {
  const stats = newStats();
  const judge = options?.judge?.compressed ? options.judge : null;
  const env = moduleEnv(m);
  const o: FuseOptions = {
    ...(options?.hot ? { hot: options.hot } : {}),
    simd: mayIntroduce(m, options, "simd"),
    // a compressor already shares much of what two similar arms repeat
    minBenefit: judge ? 4 : 1,
    table: slotTable(m),
    types: env.funcTypes,
  };
  const ectx = effectsContext(m);
  let rewrites: Rewrite[] = [];
  const n = m.functions.length;
  for (let pos = 0; pos < n; pos++) {
    const r = planWithSlots(m, pos, env, ectx, o, stats);
    if (r) rewrites.push(r);
    if ((pos & 255) === 0) progress(pos / n);
  }
  if (judge && rewrites.length > 0) {
    const write = (taken: readonly Rewrite[], batch: readonly Rewrite[]): Uint8Array => {
      const trial = trialCopy(m);
      apply(trial, [...taken, ...batch], true);
      // every slot reserved, before and after: slots are numbered in planning order (their bytes were counted when planned)
      if (o.table) writeSlots(trial, o.table);
      return writeTrial(trial, judge);
    };
    const before = write([], []);
    const r = judgeInHalves(rewrites, { judge, budget: judgementBudget("fuse-branches", before, judge.shipsExtra), before, write, benefit: (r) => r.saved });
    stats.judgements = r.used;
    stats.refused = r.refused;
    rewrites = r.accepted;
  }
  apply(m, rewrites, false);
  if (o.table && o.table.added.size > 0) {
    // slots past the last one a rewrite taken uses are dropped; a refused rewrite's slots before it stay (filled, unused)
    let upTo = 0;
    for (const r of rewrites) for (const slot of r.newSlots.values()) upTo = Math.max(upTo, slot + 1);
    writeSlots(m, o.table, upTo);
    const kept = [...o.table.added.values()].filter((s) => s < upTo).length;
    stats.newSlots = kept;
    stats.unusedSlots = kept - rewrites.reduce((n, r) => n + r.newSlots.size, 0);
  }
  for (const r of rewrites) {
    stats.fused += r.fused;
    stats.diamondsFused += r.diamonds;
    stats.trianglesFused += r.triangles;
    stats.shapeBytes += r.shapeBytes;
    stats.fusedByMeld += r.fusedByMeld;
    stats.melds += r.melds;
    stats.replicas += r.replicas;
    stats.indirect += r.indirect;
    stats.slotBytes += r.slotBytes;
    stats.selects += r.selects;
    stats.guards += r.guards;
    stats.bytesSaved += r.saved;
  }
  return stats;
}

export const fuseBranchesPass: Pass = {
  name: "fuse-branches",
  description: "fuse the two arms of an if/else, CFG diamond or SEME triangle: align their statements, select differing pure operands, guard the rest, meld like blocks and loops (HyBF SEME-Fusion and CFM-CS)",
  run(m: Module, ctx: PassContext): PassResult {
    const s = fuseBranches(m, ctx.options, (f) => ctx.progress(f));
    if (s.refused > 0) ctx.note(`${s.refused} raw-paying function rewrites refused under the size target`);
    return {
      changed: s.fused > 0,
      stats: {
        candidates: s.candidates, diamonds: s.diamonds, triangles: s.triangles, shapesRefused: s.shapesRefused,
        diamondsFused: s.diamondsFused, trianglesFused: s.trianglesFused, shapeBytes: s.shapeBytes, fused: s.fused, fusedByMeld: s.fusedByMeld, melds: s.melds, replicas: s.replicas, indirect: s.indirect, newSlots: s.newSlots, slotBytes: s.slotBytes, unusedSlots: s.unusedSlots, selects: s.selects, guards: s.guards, bytesSaved: s.bytesSaved,
        hot: s.hot, unsupported: s.unsupported, unaligned: s.unaligned, notPaying: s.notPaying, judgements: s.judgements,
      },
    };
  },
};
