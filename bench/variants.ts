// Runtime rows come in variants: one per runtime size target (--runtime-targets),
// each also profile-guided with --profile-guided. Their labels, per-variant
// geomeans, and the table of the sizes each variant's modules had.

import type { BenchResults, RuntimeResult } from "./results.js";
import { geomean } from "./stats.js";
import { DEFAULT_TARGET } from "./targets.js";

/** "balanced", "raw, profile-guided" ...; rows from before variants existed are the default target. */
export function variantLabel(r: Pick<RuntimeResult, "target" | "profileGuided">): string {
  const t = r.target ?? DEFAULT_TARGET;
  return r.profileGuided === true ? `${t}, profile-guided` : t;
}

/** Rows that measured a slowdown (no error, a finite ratio). */
function measured(rows: readonly RuntimeResult[]): RuntimeResult[] {
  return rows.filter((r) => r.error === null && Number.isFinite(r.slowdown.ratio));
}

/** Geometric mean of the slowdown per variant, in the order the variants first appear. */
export function variantSlowdowns(runtime: readonly RuntimeResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const label of [...new Set(runtime.map(variantLabel))]) {
    const xs = measured(runtime.filter((r) => variantLabel(r) === label)).map((r) => r.slowdown.ratio);
    if (xs.length > 0) out[label] = geomean(xs);
  }
  return out;
}

/** The variant the headline geomean is of: the default target without a profile, else the first target without one. */
export function headlineVariant(runtime: readonly RuntimeResult[]): string | null {
  const plain = runtime.filter((r) => r.profileGuided !== true);
  const first = plain.find((r) => (r.target ?? DEFAULT_TARGET) === DEFAULT_TARGET) ?? plain[0];
  return first ? variantLabel(first) : null;
}

/** The headline geomean slowdown (of headlineVariant's rows), or null if none measured anything. */
export function headlineSlowdown(runtime: readonly RuntimeResult[]): number | null {
  const label = headlineVariant(runtime);
  const xs = measured(runtime.filter((r) => variantLabel(r) === label)).map((r) => r.slowdown.ratio);
  return xs.length > 0 ? geomean(xs) : null;
}

/** True if the run has more than the one plain variant, so labels and the sizes table are worth showing. */
export function hasVariants(r: BenchResults): boolean {
  return new Set(r.runtime.map(variantLabel)).size > 1 || r.runtime.some((w) => w.profileGuided === true);
}

/** Markdown rows: workload, variant, module, file/code/gzip/brotli ratios vs the -Oz baseline, note. */
export function runtimeSizeRows(r: BenchResults, fmt: (x: number | null | undefined) => string): string[][] {
  const rows: string[][] = [];
  for (const w of r.runtime) {
    const note = w.profileGuided === true && w.identicalToStatic === true ? "same bytes as without the profile" : "";
    if (!w.moduleSizes || w.moduleSizes.length === 0) {
      if (w.error) rows.push([w.workload, variantLabel(w), "-", "-", "-", "-", "-", `error: ${w.error.slice(0, 80)}`]);
      continue;
    }
    for (const m of w.moduleSizes) {
      rows.push([w.workload, variantLabel(w), m.module, fmt(m.ratio.file), fmt(m.ratio.code), fmt(m.ratio.gzip), fmt(m.ratio.brotli), note]);
    }
  }
  return rows;
}
