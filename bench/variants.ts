// Runtime rows come in variants: one per runtime size target (--runtime-targets),
// each also profile-guided with --profile-guided, and an A/A row with --aa;
// each variant is measured per engine and tiering mode (--engines, --tiering).
// Their labels, per-variant geomeans, the per engine x mode summary, and the
// table of the sizes each variant's modules had.

import type { BenchResults, EngineSummary, RuntimeResult } from "./results.js";
import { geomean } from "./stats.js";
import { DEFAULT_TARGET } from "./targets.js";

/** "balanced", "raw, profile-guided", "A/A" ...; rows from before variants existed are the default target. */
export function variantLabel(r: Pick<RuntimeResult, "target" | "profileGuided" | "aa">): string {
  if (r.aa === true) return "A/A";
  const t = r.target ?? DEFAULT_TARGET;
  return r.profileGuided === true ? `${t}, profile-guided` : t;
}

/** "node24 no-liftoff"; "" for rows from before --engines (the running node, default tiering). */
export function modeLabel(r: Pick<RuntimeResult, "engine" | "tiering">): string {
  return r.engine !== undefined ? `${r.engine} ${r.tiering ?? "default"}` : "";
}

/** The variant and, when recorded, the engine and mode: "balanced · node24 default". */
export function rowLabel(r: Pick<RuntimeResult, "target" | "profileGuided" | "aa" | "engine" | "tiering">): string {
  const m = modeLabel(r);
  return m === "" ? variantLabel(r) : `${variantLabel(r)} · ${m}`;
}

/** Rows that measured a slowdown (no error, a finite ratio). */
function measured(rows: readonly RuntimeResult[]): RuntimeResult[] {
  return rows.filter((r) => r.error === null && Number.isFinite(r.slowdown.ratio));
}

/** Geometric mean of the slowdown per variant and engine x mode (rowLabel), in the order they first appear. */
export function variantSlowdowns(runtime: readonly RuntimeResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const label of [...new Set(runtime.map(rowLabel))]) {
    const xs = measured(runtime.filter((r) => rowLabel(r) === label)).map((r) => r.slowdown.ratio);
    if (xs.length > 0) out[label] = geomean(xs);
  }
  return out;
}

/**
 * Per engine x tiering mode x variant, in the order measured: how many rows measured, the geomean slowdown, and
 * the worst row with its interval. Empty for results from before --engines.
 */
export function engineSummaries(runtime: readonly RuntimeResult[]): EngineSummary[] {
  const out: EngineSummary[] = [];
  const withEngine = runtime.filter((r) => r.engine !== undefined);
  const keys = [...new Set(withEngine.map((r) => `${modeLabel(r)}\0${variantLabel(r)}`))];
  for (const key of keys) {
    const rows = withEngine.filter((r) => `${modeLabel(r)}\0${variantLabel(r)}` === key);
    const ok = measured(rows);
    if (ok.length === 0) continue;
    const worst = ok.reduce((a, b) => (b.slowdown.ratio > a.slowdown.ratio ? b : a));
    const r0 = rows[0]!;
    out.push({
      engine: r0.engine!,
      engineVersion: r0.engineVersion ?? "",
      v8: r0.v8 ?? "",
      tiering: r0.tiering ?? "default",
      variant: variantLabel(r0),
      workloads: ok.length,
      geomean: geomean(ok.map((r) => r.slowdown.ratio)),
      worst: { workload: worst.workload, slowdown: worst.slowdown },
    });
  }
  return out;
}

/** The rows the headline is of: the default target without a profile (else the first target without one), on the first engine and mode. */
export function headlineVariant(runtime: readonly RuntimeResult[]): string | null {
  const plain = runtime.filter((r) => r.profileGuided !== true && r.aa !== true);
  const first = plain.find((r) => (r.target ?? DEFAULT_TARGET) === DEFAULT_TARGET) ?? plain[0];
  return first ? rowLabel(first) : null;
}

/** The headline geomean slowdown (of headlineVariant's rows), or null if none measured anything. */
export function headlineSlowdown(runtime: readonly RuntimeResult[]): number | null {
  const label = headlineVariant(runtime);
  const xs = measured(runtime.filter((r) => rowLabel(r) === label)).map((r) => r.slowdown.ratio);
  return xs.length > 0 ? geomean(xs) : null;
}

/** True if the run has more than the one plain variant (or several engines or modes), so labels and the sizes table are worth showing. */
export function hasVariants(r: BenchResults): boolean {
  return new Set(r.runtime.map(rowLabel)).size > 1 || r.runtime.some((w) => w.profileGuided === true || w.aa === true);
}

/** Markdown rows: workload, variant, module, file/code/gzip/brotli ratios vs the -Oz baseline, note. */
export function runtimeSizeRows(r: BenchResults, fmt: (x: number | null | undefined) => string): string[][] {
  const rows: string[][] = [];
  // the same modules are measured under every engine and mode: list them once
  const seen = new Set<string>();
  for (const w of r.runtime) {
    const key = `${w.workload}\0${variantLabel(w)}`;
    if (seen.has(key) || w.aa === true) continue;
    seen.add(key);
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
