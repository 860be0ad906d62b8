// The benchmark's markdown report (printed on stdout).

import type { BenchResults, FileResult, SizeRatios, WorkResult } from "./results.js";
import { fmtBounds, fmtInterval } from "./stats.js";
import { DEFAULT_TARGET, targetRows, targetTimingRows } from "./targets.js";
import { hasVariants, modeLabel, runtimeSizeRows, variantLabel } from "./variants.js";

export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function fmtRatio(x: number | null | undefined, digits = 4): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(digits);
}

export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "-";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

export function fmtKiB(k: number | null | undefined): string {
  if (k === null || k === undefined) return "-";
  return `${(k / 1024).toFixed(0)} MiB`;
}

/** How far the -Oz side's two recordings are apart, for a workload that does not run the same way twice. */
function workloadVaries(w: WorkResult): string {
  const a = w.baseline;
  const b = w.baselineAgain;
  if (!a || !b) return "the -Oz side's two recordings differ: counts are not exact";
  const pct = (x: number, y: number): string => {
    const d = ((y - x) / x) * 100;
    return `${d === 0 || Math.abs(d) >= 0.001 ? d.toFixed(3) : d.toPrecision(2)} %`;
  };
  return `the workload varies: two -Oz runs differ by ${pct(a.instructions, b.instructions)} in instructions, ${pct(a.calls, b.calls)} in calls`;
}

/** One row per workload and variant: the counts of both sides, their ratios, the calls added. */
function workTable(r: BenchResults): string {
  const n = (x: number): string => x.toLocaleString("en-US");
  const rows = (r.work ?? []).map((w) => [
    w.workload,
    variantLabel(w),
    w.baseline ? n(w.baseline.instructions) : "-",
    w.ours ? n(w.ours.instructions) : "-",
    fmtRatio(w.instructionRatio),
    w.baseline ? n(w.baseline.calls) : "-",
    w.ours ? n(w.ours.calls) : "-",
    fmtRatio(w.callRatio),
    w.addedCalls === null ? "-" : `${w.addedCalls > 0 ? "+" : ""}${n(w.addedCalls)}`,
    [w.error ?? (w.deterministic ? "" : workloadVaries(w)), w.identicalBytes && !w.aa ? "our modules are byte-identical to -Oz's" : ""].filter(Boolean).join("; "),
  ]);
  return table(
    ["workload", "variant", "instructions -Oz", "instructions ours", "ratio", "calls -Oz", "calls ours", "ratio", "calls added", "note"],
    rows,
    ["l", "l", "r", "r", "r", "r", "r", "r", "r", "l"],
  );
}

function table(header: string[], rows: string[][], align: ("l" | "r")[]): string {
  const sep = align.map((a) => (a === "r" ? "---:" : ":---"));
  const line = (cells: string[]): string => `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(header), `|${sep.join("|")}|`, ...rows.map(line)].join("\n");
}

const SIZE_KEYS: (keyof SizeRatios)[] = ["file", "code", "gzip", "brotli"];

function sizesTable(r: BenchResults): string {
  const header = ["module"];
  for (const k of SIZE_KEYS) header.push(`${k} -Oz`, `${k} ours`, `${k} ratio`);
  const rows: string[][] = [];
  for (const f of r.files) {
    const row = [f.name];
    for (const k of SIZE_KEYS) {
      row.push(f.baseline ? thousands(f.baseline.sizes[k]) : "-", f.ours ? thousands(f.ours.sizes[k]) : "-", fmtRatio(f.ratio?.[k]));
    }
    rows.push(row);
  }
  const s = r.summary;
  if (s.totalBytes && s.geomeanRatio) {
    const row = ["**total / geomean**"];
    for (const k of SIZE_KEYS) row.push(thousands(s.totalBytes.baseline[k]), thousands(s.totalBytes.ours[k]), `**${fmtRatio(s.geomeanRatio[k])}**`);
    rows.push(row);
  }
  return table(header, rows, ["l", ...SIZE_KEYS.flatMap((): ("l" | "r")[] => ["r", "r", "r"])]);
}

function timingTable(r: BenchResults): string {
  const rows: string[][] = [];
  for (const f of r.files) {
    const t = f.timing;
    if (!t) {
      rows.push([f.name, "-", "-", "-", "-", "-", "-", "-"]);
      continue;
    }
    rows.push([
      f.name,
      String(t.reps),
      fmtMs(t.wasmOpt.medianWallMs),
      fmtKiB(t.wasmOpt.medianPeakRssKiB),
      fmtMs(t.ours.medianWallMs),
      fmtKiB(t.ours.medianPeakRssKiB),
      fmtRatio(t.wallRatio, 3),
      fmtRatio(t.rssRatio, 3),
    ]);
  }
  rows.push(["**geomean**", "", "", "", "", "", `**${fmtRatio(r.summary.geomeanWallRatio, 3)}**`, `**${fmtRatio(r.summary.geomeanRssRatio, 3)}**`]);
  return table(
    ["module", "runs", "wasm-opt -Oz wall", "wasm-opt peak RSS", "wasm-compact wall", "wasm-compact peak RSS", "time ratio", "RSS ratio"],
    rows,
    ["l", "r", "r", "r", "r", "r", "r", "r"],
  );
}

function runtimeTable(r: BenchResults): string {
  const rows = r.runtime.map((w) => [
    w.workload,
    variantLabel(w),
    modeLabel(w) || "-",
    (w.optimizedModules.length === w.modules.length ? "all" : w.optimizedModules.join(", ")) +
      (w.aa === true ? " (a byte-identical copy of the baseline: the A/A row, the spread is noise)" : w.identicalBytes ? " (byte-identical to the baseline: an A/A run, the spread is noise)" : "") +
      (w.profileGuided === true && w.identicalToStatic === true && !w.identicalBytes ? " (same bytes as without the profile)" : ""),
    fmtRatio(w.slowdown.ratio, 3),
    fmtBounds(w.slowdown),
    w.slowdown.halfWidth !== null ? `±${(w.slowdown.halfWidth * 100).toFixed(1)} %` : "n/a",
    w.bestSlowdown ? `${fmtRatio(w.bestSlowdown.ratio, 3)} ${fmtBounds(w.bestSlowdown)}` : "-",
    w.pairedSlowdown ? `${fmtRatio(w.pairedSlowdown.ratio, 3)} ${fmtBounds(w.pairedSlowdown)}` : "-",
    `${w.slowdown.n} (${w.warmup}+${w.iterations})`,
    w.baselineMs.length > 0 ? fmtMs(median(w.baselineMs)) : "-",
    `${fmtRatio(w.cpuSlowdown.ratio, 3)} ${fmtBounds(w.cpuSlowdown)}`,
    `${w.stoppedBy} (load ${w.loadAverage.start[0]?.toFixed(1) ?? "?"}→${w.loadAverage.end[0]?.toFixed(1) ?? "?"})`,
    w.error ? `error: ${w.error.slice(0, 120)}` : w.outputsEqual ? "yes" : "**NO**",
  ]);
  const perVariant = Object.entries(r.summary.variantSlowdown ?? {});
  if ((r.summary.engineSummary ?? []).length > 0) {
    // the geomeans are in the per engine and mode table below
  } else if (perVariant.length > 0) {
    for (const [label, g] of perVariant) {
      const [variant, mode] = label.split(" · ");
      rows.push(["**geomean**", `**${variant}**`, mode ? `**${mode}**` : "", "", `**${fmtRatio(g, 3)}**`, "", "", "", "", "", "", "", "", ""]);
    }
  } else {
    rows.push(["**geomean**", "", "", "", `**${fmtRatio(r.summary.geomeanSlowdown, 3)}**`, "", "", "", "", "", "", "", "", ""]);
  }
  return table(
    ["workload", "target", "engine, tiering", "optimized modules", "slowdown (wall)", "95 % CI", "half-width", "best processes [95 % CI]", "paired in-process [95 % CI]", "pairs (warm-up+timed runs per process)", "baseline run", "CPU-time slowdown [95 % CI]", "stopped by (1-min load)", "outputs equal"],
    rows,
    ["l", "l", "l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "l", "l"],
  );
}

/** Per engine x tiering mode x variant: geomean and worst slowdown (with its interval); "" for results from before --engines. */
function engineTable(r: BenchResults): string {
  const es = r.summary.engineSummary ?? [];
  if (es.length === 0) return "";
  const rows = es.map((e) => [
    e.engine,
    `${e.engineVersion}, V8 ${e.v8.split(".").slice(0, 2).join(".")}`,
    e.tiering,
    e.variant,
    String(e.workloads),
    fmtRatio(e.geomean, 3),
    fmtInterval(e.worst.slowdown),
    e.worst.workload,
  ]);
  return table(["engine", "version", "tiering", "target", "workloads", "geomean slowdown", "worst slowdown [95 % CI]", "worst workload"], rows, ["l", "l", "l", "l", "r", "r", "r", "l"]);
}

/** The sizes of the modules each runtime row measured, and what wasm-compact said about each profile. */
function runtimeSizes(r: BenchResults): string {
  const out = [
    table(["workload", "target", "module", "file", "code", "gzip", "brotli", "note"], runtimeSizeRows(r, (x) => fmtRatio(x)), ["l", "l", "l", "r", "r", "r", "r", "l"]),
  ];
  const notes = r.runtime.flatMap((w) => (w.profileNotes ?? []).map((n) => `- ${w.workload} (${variantLabel(w)}): ${n}`));
  if (notes.length > 0) out.push(notes.join("\n"));
  return out.join("\n\n");
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function passesTable(r: BenchResults): string {
  const rows: string[][] = [];
  let idle = 0;
  for (const f of r.files) {
    for (const p of f.ours?.passes ?? []) {
      const did = p.changed || p.bytesSaved !== 0 || !p.kept;
      if (!did) {
        idle++;
        continue;
      }
      rows.push([f.name, p.name, thousands(p.bytesSaved), p.timeMs.toFixed(1), p.kept ? "yes" : "undone", statsText(p.stats)]);
    }
  }
  for (const t of r.summary.passTotals) {
    rows.push([`**all files**`, `**${t.name}**`, `**${thousands(t.bytesSaved)}**`, t.timeMs.toFixed(1), "", statsText(t.stats)]);
  }
  if (rows.length === 0) return "_No passes ran: the pipeline is empty, so wasm-compact only read, validated and rewrote each module._";
  const note = idle > 0 ? `\n\n_${idle} (module, pass) runs that left the module unchanged are not listed; the JSON has them all, with their times and counts._` : "";
  return table(["module", "pass", "bytes saved", "ms", "kept", "counts"], rows, ["l", "l", "r", "r", "l", "l"]) + note;
}

/** Non-zero counters only ("functionsFolded=8, identicalClasses=2"), or "-". */
function statsText(stats: Record<string, number>): string {
  const nz = Object.entries(stats).filter(([, v]) => v !== 0);
  return nz.length > 0 ? nz.map(([k, v]) => `${k}=${v}`).join(", ") : "-";
}

function binaryenTable(r: BenchResults): string {
  const labels = [...new Set(r.files.flatMap((f) => f.binaryenPasses.map((p) => p.label)))];
  if (labels.length === 0) return "_Not run (--quick or --no-attribution)._";
  const rows: string[][] = [];
  for (const f of r.files) {
    const row = [f.name];
    for (const l of labels) {
      const p = f.binaryenPasses.find((x) => x.label === l);
      if (!p || !p.sizes || !p.ratio || !f.baseline) row.push(p?.error ? "failed" : "-");
      else row.push(`${fmtRatio(p.ratio.file)} (${signed(p.sizes.file - f.baseline.sizes.file)}; gz ${fmtRatio(p.ratio.gzip)})`);
    }
    rows.push(row);
  }
  rows.push(["**geomean**", ...labels.map((l) => {
    const g = r.summary.binaryenGeomean[l];
    return g ? `**${fmtRatio(g.file)}** (gz ${fmtRatio(g.gzip)})` : "-";
  })]);
  return table(["module", ...labels], rows, ["l", ...labels.map((): "r" => "r")]);
}

function signed(n: number): string {
  return n > 0 ? `+${thousands(n)} B` : n < 0 ? `-${thousands(-n)} B` : "±0 B";
}

function errorsList(r: BenchResults): string {
  const lines: string[] = [];
  for (const e of r.errors) lines.push(`- ${e}`);
  for (const f of r.files) for (const e of f.errors) lines.push(`- ${f.name}: ${e}`);
  for (const w of r.runtime) if (w.error) lines.push(`- workload ${w.workload}: ${w.error}`);
  return lines.join("\n");
}

function notes(f: FileResult): string[] {
  const out: string[] = [];
  if (f.ours && !f.ours.deterministic) out.push(`${f.name}: output differs between runs`);
  return out;
}

export function renderMarkdown(r: BenchResults): string {
  const parts: string[] = [];
  parts.push(`## wasm-compact ${r.tool.version} vs wasm-opt -Oz (binaryen ${r.binaryen})`);
  parts.push(
    `${r.startedAt}, ${r.durationSeconds} s, Node ${r.node}, ${r.platform}, ${r.cpus}, ` +
      `load average ${r.loadAverage.start[0]?.toFixed(1)} at start, ${r.loadAverage.end[0]?.toFixed(1)} at end` +
      `${r.options.quick ? ", **--quick** (smoke test: one run each, no intervals)" : ""}` +
      `${r.options.passes ? `, passes: ${r.options.passes.join(",")}` : ", default pipeline"}`,
  );
  parts.push("### Sizes (bytes; ratio = ours / -Oz baseline, below 1 is smaller)\n\n" + sizesTable(r));
  const tRows = targetRows(r, (x) => fmtRatio(x));
  if (tRows.length > 0) {
    parts.push(
      `### Sizes per size target (ratio = ours / -Oz baseline; targets: ${(r.options.targets ?? []).join(", ")})\n\n` +
        table(["module", "target", "file", "code", "gzip", "brotli", "note"], tRows, ["l", "l", "r", "r", "r", "r", "l"]),
    );
  }
  parts.push(
    `### Time and peak RSS on the same input (the -Oz output), median of ${r.options.reps} alternating run(s)\n\n` + timingTable(r),
  );
  const timeTargets = r.options.timeTargets ?? [DEFAULT_TARGET];
  if (timeTargets.some((t) => t !== DEFAULT_TARGET)) {
    parts.push(
      `### Time per size target (median wall time of ${r.options.reps} run(s), and its ratio to wasm-opt -Oz's median of the runs it alternated with)\n\n` +
        table(["module", ...timeTargets], targetTimingRows(r, fmtMs), ["l", ...timeTargets.map((): "r" => "r")]),
    );
  }
  if (r.runtime.length > 0) {
    parts.push(
      "### Runtime of the behaviour workloads (slowdown = optimized / baseline: ratio of the medians over fresh processes, 95 % bootstrap interval of that ratio)\n\n" + runtimeTable(r),
    );
    const et = engineTable(r);
    if (et !== "") parts.push("### Runtime per engine and tiering mode (geomean over the workloads; the worst one with its 95 % interval)\n\n" + et);
    if (hasVariants(r)) {
      parts.push("### Sizes of the modules in the runtime rows (ratio = output / -Oz baseline)\n\n" + runtimeSizes(r));
    }
  } else if ((r.work ?? []).length === 0) {
    parts.push("### Runtime of the behaviour workloads\n\n_Not measured (no workload uses the selected modules, or --no-runtime)._");
  }
  if ((r.work ?? []).length > 0) {
    parts.push("### Executed work per workload run (exact counts from instrumented runs; ratio = ours / -Oz)\n\n" + workTable(r));
  }
  parts.push("### Our passes\n\n" + passesTable(r));
  parts.push("### Binaryen's size passes on the -Oz baseline (ratio of file bytes, bytes changed, gzip ratio)\n\n" + binaryenTable(r));
  const errs = errorsList(r);
  const extra = r.files.flatMap(notes);
  if (errs || extra.length > 0) parts.push("### Problems\n\n" + [errs, ...extra.map((x) => `- ${x}`)].filter(Boolean).join("\n"));
  parts.push(
    "### Methods\n\n" +
      [
        `- sizes: ${r.methods.sizes}`,
        `- timing: ${r.methods.timing}`,
        `- runtime: ${r.methods.runtime}`,
        `- interval: ${r.methods.ci}`,
        `- feature flags: ${r.methods.features}`,
        `- Binaryen passes: ${r.methods.binaryenPasses}`,
        ...(r.methods.profileGuided ? [`- profile-guided: ${r.methods.profileGuided}`] : []),
        ...(r.methods.work ? [`- executed work: ${r.methods.work}`] : []),
      ].join("\n"),
  );
  return parts.join("\n\n") + "\n";
}
