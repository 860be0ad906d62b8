// Sizes per size target: the bench can run wasm-compact once per target
// (`--targets raw,gzip,brotli,balanced`) to show what each choice of "smaller"
// gives on each file. The default target's run is the timed run itself.

import { SIZE_TARGETS, type SizeTarget } from "../src/size-target.js";
import type { BenchResults, FileResult, SizeRatios, TargetTiming, TimingComparison } from "./results.js";
import { geomean } from "./stats.js";

/** What the CLI optimizes for without --target (src/cli/run.ts). */
export const DEFAULT_TARGET: SizeTarget = "balanced";

/** Parses `raw,gzip,...` (order kept, duplicates dropped); throws on an unknown name or an empty list. */
export function parseTargets(s: string, flag = "--targets"): SizeTarget[] {
  const out: SizeTarget[] = [];
  for (const part of s.split(",").map((x) => x.trim()).filter((x) => x !== "")) {
    if (!(SIZE_TARGETS as readonly string[]).includes(part)) {
      throw new Error(`${flag}: unknown size target ${JSON.stringify(part)} (use ${SIZE_TARGETS.join(", ")})`);
    }
    if (!out.includes(part as SizeTarget)) out.push(part as SizeTarget);
  }
  if (out.length === 0) throw new Error(`${flag} needs at least one size target`);
  return out;
}

/** Geometric mean of the ratios per target, over the files that have a result for it. */
export function targetGeomeans(files: readonly FileResult[], targets: readonly SizeTarget[]): Partial<Record<SizeTarget, SizeRatios>> {
  const out: Partial<Record<SizeTarget, SizeRatios>> = {};
  for (const t of targets) {
    const rs = files.flatMap((f) => (f.targets ?? []).filter((x) => x.target === t && x.ratio !== null).map((x) => x.ratio!));
    if (rs.length === 0) continue;
    const gm = (k: keyof SizeRatios): number => geomean(rs.map((r) => r[k]));
    out[t] = { file: gm("file"), code: gm("code"), gzip: gm("gzip"), brotli: gm("brotli") };
  }
  return out;
}

/** A file's timing under `target`: the default target's timed run, or its --time-targets runs. */
export function timingOf(f: FileResult, target: SizeTarget): TimingComparison | null {
  if (target === DEFAULT_TARGET) return f.timing;
  return f.targets?.find((t) => t.target === target)?.timing ?? null;
}

/** Geomean and largest time ratio per timed target, over the files timed under it. */
export function targetTimings(files: readonly FileResult[], timeTargets: readonly SizeTarget[]): Partial<Record<SizeTarget, TargetTiming>> {
  const out: Partial<Record<SizeTarget, TargetTiming>> = {};
  for (const t of timeTargets) {
    const timed = files.flatMap((f) => {
      const x = timingOf(f, t);
      return x ? [{ name: f.name, ratio: x.wallRatio }] : [];
    });
    if (timed.length === 0) continue;
    const slowest = timed.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    out[t] = { files: timed.length, geomeanWallRatio: geomean(timed.map((x) => x.ratio)), maxWallRatio: slowest.ratio, slowest: slowest.name };
  }
  return out;
}

/**
 * Rows for the time-per-target table: file, then per timed target its median
 * wall time and the ratio to wasm-opt -Oz's median of the runs it alternated
 * with; a geomean row and a largest-ratio row.
 */
export function targetTimingRows(r: BenchResults, fmtMs: (ms: number) => string): string[][] {
  const targets = r.options.timeTargets ?? [DEFAULT_TARGET];
  const rows: string[][] = [];
  for (const f of r.files) {
    rows.push([f.name, ...targets.map((t) => {
      const x = timingOf(f, t);
      return x ? `${fmtMs(x.ours.medianWallMs)} (${x.wallRatio.toFixed(3)})` : "-";
    })]);
  }
  const s = r.summary.targetTiming ?? {};
  rows.push(["**geomean ratio**", ...targets.map((t) => (s[t] ? `**${s[t]!.geomeanWallRatio.toFixed(3)}**` : "-"))]);
  rows.push(["**largest ratio**", ...targets.map((t) => (s[t] ? `**${s[t]!.maxWallRatio.toFixed(3)}** (${s[t]!.slowest})` : "-"))]);
  return rows;
}

/** Rows for the markdown table: file, target, the four ratios vs the -Oz baseline; a geomean row per target. */
export function targetRows(r: BenchResults, fmt: (x: number | null | undefined) => string): string[][] {
  const rows: string[][] = [];
  for (const f of r.files) {
    for (const t of f.targets ?? []) {
      rows.push([f.name, t.target, fmt(t.ratio?.file), fmt(t.ratio?.code), fmt(t.ratio?.gzip), fmt(t.ratio?.brotli), t.error ? `error: ${t.error.slice(0, 80)}` : ""]);
    }
  }
  for (const t of r.options.targets ?? []) {
    const g = r.summary.targetGeomean?.[t];
    if (g) rows.push(["**geomean**", `**${t}**`, `**${fmt(g.file)}**`, `**${fmt(g.code)}**`, `**${fmt(g.gzip)}**`, `**${fmt(g.brotli)}**`, ""]);
  }
  return rows;
}
