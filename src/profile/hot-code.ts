// Deciding what is hot from a profile, and answering the passes' questions.
//
// Rule: weigh each region by count × its length in instructions (the
// instructions it executed). Sorted by count, the most-run regions that
// together cover `threshold` (default 99 %) of all executed instructions are
// hot, and so is every region run as often as the last one taken (ties are
// never split). A region that never ran is never hot. A function is hot if
// any of its regions is.
//
// The answers come from marked-hot.ts, as the static estimate's do: they use
// the original instruction indices while a function's body is the one that
// was profiled, and the function-level answer after a pass rewrote it.

import type { Module } from "../ir/module.js";
import type { HotCode } from "../passes/pass.js";
import { MarkedHotCode, type HotMarks } from "./marked-hot.js";
import { ProfileError } from "./errors.js";
import { profiledBodies } from "./profiled-bodies.js";
import type { Profile } from "./profile.js";
import { regionOf } from "./regions.js";

export const DEFAULT_HOT_THRESHOLD = 0.99;

export interface HotSummary {
  threshold: number;
  /** Regions in the profile, and how many are hot. */
  blocks: number;
  hotBlocks: number;
  /** Functions that ran, and how many are hot. */
  functionsRun: number;
  hotFunctions: number;
  /** The smallest count of a hot region (0 when nothing is hot). */
  cutoffCount: number;
}

interface FuncProfile {
  /** The profiled body's op sequence. */
  ops: Uint16Array;
  starts: Uint32Array;
  /** 1 per hot region. */
  hot: Uint8Array;
  anyHot: boolean;
}

/**
 * Builds the HotCode for `m`, the module just read from `input` (before any
 * pass ran). Throws ProfileError if the profile was recorded for another
 * module or does not fit this one.
 */
export function hotCodeFromProfile(
  profile: Profile,
  input: Uint8Array,
  m: Module,
  threshold = DEFAULT_HOT_THRESHOLD,
): { hot: HotCode; summary: HotSummary } {
  if (!(threshold >= 0 && threshold <= 1)) throw new ProfileError(`the hot threshold must be between 0 and 1, got ${threshold}`);
  interface Blk { fn: FuncProfile; index: number; count: number; weight: number }
  const blocks: Blk[] = [];
  const byOrigin = new Map<number, FuncProfile>();
  for (const { pf, body } of profiledBodies(profile, input, m)) {
    const starts = Uint32Array.from(pf.blocks, (b) => b[0]);
    if (starts[starts.length - 1]! >= body.count) throw new ProfileError(`the profile does not fit the module: function ${pf.origin} has ${body.count} instructions`);
    const fn: FuncProfile = { ops: body.ops.slice(), starts, hot: new Uint8Array(starts.length), anyHot: false };
    byOrigin.set(pf.origin, fn);
    pf.blocks.forEach(([start, count], index) => {
      const end = index + 1 < starts.length ? starts[index + 1]! : body.count;
      blocks.push({ fn, index, count, weight: count * (end - start) });
    });
  }

  const total = blocks.reduce((s, b) => s + b.weight, 0);
  const order = blocks.filter((b) => b.count > 0).sort((a, b) => b.count - a.count);
  let cutoff = Infinity;
  let covered = 0;
  if (threshold > 0) {
    for (const b of order) {
      covered += b.weight;
      cutoff = b.count;
      if (covered >= threshold * total) break;
    }
  }
  let hotBlocks = 0;
  for (const b of order) {
    if (b.count < cutoff) break;
    b.fn.hot[b.index] = 1;
    b.fn.anyHot = true;
    hotBlocks++;
  }
  // regions to instructions, for the functions with a hot region
  const marks = new Map<number, HotMarks>();
  for (const [origin, fn] of byOrigin) {
    if (!fn.anyHot) continue;
    const hot = new Uint8Array(fn.ops.length);
    for (let i = 0; i < hot.length; i++) hot[i] = fn.hot[regionOf(fn.starts, i)]!;
    marks.set(origin, { ops: fn.ops, hot });
  }
  return {
    hot: new MarkedHotCode(marks),
    summary: {
      threshold,
      blocks: blocks.length,
      hotBlocks,
      functionsRun: profile.functions.length,
      hotFunctions: marks.size,
      cutoffCount: hotBlocks > 0 ? cutoff : 0,
    },
  };
}
