// One folding: a group of identical regions, the function that replaces
// them, the call sequence at each site, and its exact byte balance.

import { idOf } from "../../binary/opcodes/index.js";
import { BLOCK_EMPTY, type Body } from "../../ir/body.js";
import type { CallSite } from "../../extract/call-site.js";
import { groupLocals } from "../../extract/new-function.js";
import type { Instr } from "../../extract/copy.js";
import { movedBody, siteRename } from "../../extract/moved-body.js";
import type { Func, Module } from "../../ir/module.js";
import type { ValType } from "../../ir/types.js";
import { isDefaultable } from "../../analysis/typecontext.js";
import { funcEntrySize } from "../../analysis/sizes.js";
import { computeLiveness, type Liveness } from "../../analysis/liveness.js";
import type { LocalUse } from "./canon.js";
import { BLOCK, END, IF, LOOP, type Region } from "./regions.js";

const LOCAL_GET = idOf("local.get");
const UNREACHABLE = idOf("unreachable");
const I32 = 0x7f;

/** What the pass knows about a function it takes regions from. */
export interface FuncInfo {
  /** Position in m.functions. */
  pos: number;
  func: Func;
  body: Body;
  localTypes: ValType[];
  /** local.get count per local in the whole body (counted by readsOf when first needed). */
  reads: Int32Array | null;
  /** Liveness of the body's locals (computed when first needed; null if the body is too large to analyse). */
  liveness?: Liveness | null;
  results: ValType[];
}

export interface Site {
  info: FuncInfo;
  region: Region;
  /** canonical local -> this site's local index */
  locals: number[];
}

export interface Group {
  sites: Site[];
  use: LocalUse;
}

/** How the sites of a group are rewritten, independent of where the new function lands. */
export interface Shape {
  stackParams: ValType[];
  /** Canonical locals passed in, in parameter order. */
  paramLocals: number[];
  /** Canonical locals handed back, in result order (after the region's own results). */
  outLocals: number[];
  params: ValType[];
  results: ValType[];
  /** The site leaves through the call: `return_call`, `call; return` or `call; unreachable`. */
  tail: "none" | "return" | "trap";
  /** Canonical local -> local index in the new function. */
  newIndex: Int32Array;
  internal: ValType[];
}

export interface FoldOptions {
  multiValue: boolean;
  tailCall: boolean;
}

/** local.get count per local of the function (only functions with a candidate site need it). */
export function readsOf(info: FuncInfo): Int32Array {
  if (info.reads) return info.reads;
  const { ops, imm, immStart, count } = info.body;
  const reads = new Int32Array(info.localTypes.length);
  for (let i = 0; i < count; i++) if (ops[i] === LOCAL_GET) reads[imm[immStart[i]!]!]!++;
  return (info.reads = reads);
}

/** The shared liveness of the function's locals, computed once per FuncInfo. */
function livenessOf(info: FuncInfo): Liveness | null {
  if (info.liveness === undefined) info.liveness = computeLiveness(info.body, info.localTypes.length);
  return info.liveness;
}

/**
 * True if the site's local `l`, which the region writes, may be read after
 * the region before it is written again (so the new function must hand it
 * back). From the shared liveness: after the region's last instruction, on
 * every way control goes on, including around an enclosing loop into the
 * region itself. Without liveness (a body too large to analyse): read
 * anywhere else in the function, or read in the region while an enclosing
 * loop can run it again.
 */
function liveAfterRegion(s: Site, l: number, readsInRegion: number): boolean {
  const lv = livenessOf(s.info);
  if (lv) return lv.liveAfter(s.region.end - 1, l);
  return readsOf(s.info)[l]! - readsInRegion > 0 || (s.region.inLoop && readsInRegion > 0);
}

/** Parameters and results of a block type word. */
export function blockSig(m: Module, bt: number): { params: ValType[]; results: ValType[] } | null {
  if (bt === BLOCK_EMPTY) return { params: [], results: [] };
  if (bt >= 0) return { params: [], results: [bt] };
  const c = m.types[-bt - 1]?.composite;
  return c && c.kind === "func" ? { params: c.params, results: c.results } : null;
}

/** Decides parameters, results and locals for `sites` of one group, or null if they cannot be folded. */
export function shapeOf(m: Module, g: Group, sites: readonly Site[], o: FoldOptions): Shape | null {
  const r = sites[0]!.region;
  const sig = blockSig(m, r.blockType);
  if (!sig) return null;
  const use = g.use;
  const n = use.types.length;
  const out = new Array<boolean>(n).fill(false);
  if (!r.tail) {
    for (let c = 0; c < n; c++) {
      if (!use.written[c]) continue;
      out[c] = sites.some((s) => liveAfterRegion(s, s.locals[c]!, use.reads[c]!));
    }
  }
  const paramLocals: number[] = [];
  const outLocals: number[] = [];
  const internal: ValType[] = [];
  const isParam = (c: number) => (use.reads[c]! > 0 && !use.definedFirst[c]) || out[c]!;
  for (let c = 0; c < n; c++) if (isParam(c)) paramLocals.push(c);
  for (let c = 0; c < n; c++) if (out[c]) outLocals.push(c);
  const stackParams = [...sig.params];
  if (r.kind === "construct" && sites[0]!.info.body.ops[r.start] === IF) stackParams.push(I32);
  const newIndex = new Int32Array(n);
  paramLocals.forEach((c, k) => (newIndex[c] = stackParams.length + k));
  let next = stackParams.length + paramLocals.length;
  for (let c = 0; c < n; c++) {
    if (isParam(c)) continue;
    if (!isDefaultable(use.types[c]!)) return null;
    newIndex[c] = next++;
    internal.push(use.types[c]!);
  }
  const returns = r.returns;
  const callerResults = sites[0]!.info.results;
  const regionResults = r.tail ? (returns ? callerResults : []) : sig.results;
  const results = [...regionResults, ...outLocals.map((c) => use.types[c]!)];
  if (results.length > 1 && !o.multiValue) return null;
  return {
    stackParams,
    paramLocals,
    outLocals,
    params: [...stackParams, ...paramLocals.map((c) => use.types[c]!)],
    results,
    tail: !r.tail ? "none" : returns ? "return" : "trap",
    newIndex,
    internal,
  };
}

/**
 * The body of the new function, made from the group's first site (see
 * extract/moved-body.ts); fold-blocks' own part is the framing: a block
 * whose result needs no locals after it is copied without its opener and
 * end (the function's label stands in for the block's), an arm that hands
 * locals back is wrapped in a block of its type, and a tail loop or if
 * whose results are not the function's is followed by `unreachable`.
 */
export function foldedBody(m: Module, site: Site, shape: Shape): Body {
  const { region: r, info } = site;
  const first = info.body.ops[r.start]!;
  const hasOut = shape.outLocals.length > 0;
  let from = r.start;
  let to = r.end;
  const before: Instr[] = [];
  const after: Instr[] = [];
  if (r.kind === "construct" && first === BLOCK && !hasOut) {
    from++;
    to--;
  } else if (r.kind === "arm" && hasOut) {
    before.push({ op: BLOCK, words: [r.blockType] });
    after.push({ op: END, words: [] });
  }
  if (r.tail && r.kind === "construct" && (first === LOOP || first === IF)) {
    // the construct's results need not match the function's: its end is never reached
    const sig = blockSig(m, r.blockType)!;
    const same = sig.results.length === shape.results.length && sig.results.every((t, k) => t === shape.results[k]);
    if (!same) after.push({ op: UNREACHABLE, words: [] });
  }
  return movedBody({
    body: info.body,
    from,
    to,
    span: { start: r.start, end: r.end },
    stackParams: shape.stackParams.length,
    rename: siteRename(site.locals, shape.newIndex),
    outLocals: shape.outLocals.map((c) => shape.newIndex[c]!),
    before,
    after,
  });
}

/** The call site that replaces `site` (see extract/call-site.ts; the region's stack operands are already pushed). */
export function callSiteOf(site: Site, shape: Shape, callee: number): CallSite {
  return {
    callee,
    args: shape.paramLocals.map((c) => site.locals[c]!),
    stores: shape.outLocals.map((c) => site.locals[c]!),
    exit: shape.tail,
  };
}

/** Bytes of the new function's body entry (locals and instructions; its type index plays no part). */
export function newBodyBytes(body: Body, shape: Shape): number {
  return funcEntrySize(groupLocals(shape.internal), body);
}
