// Executed work per workload run, counted exactly: the deterministic side of
// the runtime benchmark. Per workload and variant, the modules are
// instrumented (wasm-compact instrument), the workload runs once with them
// (recordProfiles, as the profile-guided rows record theirs) and the counts
// become instructions and calls executed (src/profile/executed-work.ts). The
// -Oz baseline is recorded twice: equal counts show the workload run is
// deterministic, so a difference between the sides is the optimizer's doing.

import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { executedWork, type ExecutedWork } from "../src/profile/executed-work.js";
import { parseProfile } from "../src/profile/profile.js";
import { recordProfiles } from "./profile-guided.js";
import type { WorkResult } from "./results.js";
import type { LoadedWorkload } from "./runtime.js";

export const WORK_METHOD =
  "per workload and variant: each optimized module is instrumented (wasm-compact instrument), the workload runs once " +
  "(no warm-up) with those copies, its checks must pass, and the region counts become instructions executed (structure " +
  "markers other than if left out) and calls executed (direct, indirect and tail calls), summed over the optimized " +
  "modules; the -Oz side is recorded twice, and deterministic says whether the two counts agreed. Ratios are ours / -Oz";

/** The work of the optimized modules in one instrumented run of the workload with `paths`. */
export async function recordWork(
  lw: LoadedWorkload,
  cli: string,
  paths: readonly string[],
  optimize: readonly boolean[],
  dir: string,
  timeoutMs: number,
): Promise<ExecutedWork> {
  mkdirSync(dir, { recursive: true });
  const profiles = await recordProfiles(lw, cli, paths, optimize, dir, timeoutMs);
  const sum: ExecutedWork = { instructions: 0, calls: 0, indirectCalls: 0, functionsRun: 0 };
  for (const [i, p] of profiles.entries()) {
    if (p === null) continue;
    const w = executedWork(parseProfile(readFileSync(p, "utf8")), readFileSync(paths[i]!));
    sum.instructions += w.instructions;
    sum.calls += w.calls;
    sum.indirectCalls += w.indirectCalls;
    sum.functionsRun += w.functionsRun;
  }
  return sum;
}

/** Two recordings of the baseline: the first is the reference; equal counts make the workload deterministic. */
export async function recordBaselineWork(
  lw: LoadedWorkload,
  cli: string,
  basePaths: readonly string[],
  optimize: readonly boolean[],
  dir: string,
  timeoutMs: number,
): Promise<BaselineWork> {
  const a = await recordWork(lw, cli, basePaths, optimize, join(dir, "a"), timeoutMs);
  const b = await recordWork(lw, cli, basePaths, optimize, join(dir, "b"), timeoutMs);
  const same = a.instructions === b.instructions && a.calls === b.calls && a.indirectCalls === b.indirectCalls;
  return { work: a, again: b, deterministic: same };
}

/** The -Oz side's two recordings: the first is the reference, the second shows how much the workload itself varies. */
export interface BaselineWork {
  work: ExecutedWork;
  again: ExecutedWork;
  deterministic: boolean;
}

/** ours / baseline for one count; 1 when both are 0. */
export function workRatio(base: number, ours: number): number {
  return base === 0 ? (ours === 0 ? 1 : Infinity) : ours / base;
}

/** The row for one variant, from the baseline's and the variant's counts. */
export function workResult(
  lw: LoadedWorkload,
  meta: Pick<WorkResult, "target" | "profileGuided" | "aa" | "optimizedModules" | "identicalBytes">,
  base: BaselineWork | null,
  ours: ExecutedWork | null,
  error: string | null,
): WorkResult {
  return {
    workload: lw.workload.name,
    ...meta,
    baseline: base?.work ?? null,
    baselineAgain: base?.again ?? null,
    ours,
    deterministic: base?.deterministic ?? false,
    instructionRatio: base && ours ? workRatio(base.work.instructions, ours.instructions) : null,
    callRatio: base && ours ? workRatio(base.work.calls, ours.calls) : null,
    addedCalls: base && ours ? ours.calls - base.work.calls : null,
    error,
  };
}
