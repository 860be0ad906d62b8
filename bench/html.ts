// The benchmark's HTML report: one self-contained file (inline CSS and SVG,
// no scripts from anywhere, no fonts, no network) that a person can open in
// a browser. Charts are drawn here as SVG; every number in a chart is also in
// a table below it or in the element's tooltip.

import type { BenchResults, FileResult } from "./results.js";
import { fmtKiB, fmtMs, renderMarkdown, thousands } from "./markdown.js";
import { fmtBounds, fmtInterval } from "./stats.js";
import { hasVariants, headlineVariant, rowLabel } from "./variants.js";

export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
const FONT = `font-family="system-ui, sans-serif" font-size="12"`;

function legend(items: { label: string; color: string }[], x: number, y: number): string {
  let out = "";
  let cx = x;
  for (const it of items) {
    out += `<rect x="${cx}" y="${y - 9}" width="10" height="10" fill="${it.color}"/>`;
    out += `<text x="${cx + 14}" y="${y}" ${FONT}>${esc(it.label)}</text>`;
    cx += 30 + it.label.length * 7.5;
  }
  return out;
}

/** A "nice" step for an axis spanning `span` with about `n` ticks. */
function niceStep(span: number, n: number): number {
  const raw = span / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

interface Series {
  label: string;
  color: string;
  /** One value per row (percent change), or null for "no data". */
  values: (number | null)[];
  /** Tooltip per row. */
  titles: string[];
}

/**
 * Horizontal grouped bars of percent changes around 0 (left = smaller =
 * better, right = larger), one group per row.
 */
function divergingBars(rows: string[], series: Series[], caption: string): string {
  const barH = 9;
  const groupH = series.length * barH + 8;
  const left = 190;
  const width = 560;
  const top = 34;
  const h = top + rows.length * groupH + 30;
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  let ext = Math.max(0.5, ...all.map((v) => Math.abs(v)));
  const step = niceStep(2 * ext, 6);
  ext = Math.ceil(ext / step) * step;
  const x = (v: number): number => left + ((v + ext) / (2 * ext)) * width;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 30}" height="${h}" role="img" aria-label="${esc(caption)}">`;
  svg += legend(series.map((s) => ({ label: s.label, color: s.color })), left, 14);
  for (let t = -ext; t <= ext + 1e-9; t += step) {
    const xx = x(t);
    svg += `<line x1="${xx}" y1="${top - 6}" x2="${xx}" y2="${h - 24}" stroke="${Math.abs(t) < 1e-9 ? "#333" : "#ddd"}"/>`;
    svg += `<text x="${xx}" y="${h - 10}" text-anchor="middle" ${FONT}>${t > 0 ? "+" : ""}${+t.toFixed(3)}%</text>`;
  }
  rows.forEach((name, i) => {
    const gy = top + i * groupH;
    svg += `<text x="${left - 8}" y="${gy + groupH / 2 + 2}" text-anchor="end" ${FONT}>${esc(name)}</text>`;
    series.forEach((s, j) => {
      const v = s.values[i];
      const y = gy + j * barH + 2;
      if (v === null || v === undefined || !Number.isFinite(v)) {
        svg += `<text x="${x(0) + 4}" y="${y + barH - 1}" font-size="9" fill="#999">n/a</text>`;
        return;
      }
      const x0 = Math.min(x(0), x(v));
      const w = Math.max(1, Math.abs(x(v) - x(0)));
      svg += `<rect x="${x0}" y="${y}" width="${w}" height="${barH - 1}" fill="${s.color}"><title>${esc(s.titles[i] ?? "")}</title></rect>`;
      if (Math.abs(v) >= 0.005) {
        const label = `${v > 0 ? "+" : ""}${v.toFixed(2)}%`;
        svg += v < 0
          ? `<text x="${x0 - 3}" y="${y + barH - 2}" text-anchor="end" font-family="system-ui, sans-serif" font-size="9">${label}</text>`
          : `<text x="${x0 + w + 3}" y="${y + barH - 2}" font-family="system-ui, sans-serif" font-size="9">${label}</text>`;
      }
    });
  });
  svg += `</svg>`;
  return `<figure>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}

/** Horizontal stacked bars of shares (each row sums to 100 %). */
function stackedShares(rows: string[], parts: { label: string; color: string }[], values: number[][], caption: string, unit = "bytes"): string {
  const left = 190;
  const width = 560;
  const barH = 16;
  const top = 34;
  const h = top + rows.length * (barH + 6) + 10;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 30}" height="${h}" role="img" aria-label="${esc(caption)}">`;
  svg += legend(parts, left, 14);
  rows.forEach((name, i) => {
    const y = top + i * (barH + 6);
    const vals = values[i]!;
    const total = vals.reduce((a, b) => a + b, 0);
    svg += `<text x="${left - 8}" y="${y + barH - 4}" text-anchor="end" ${FONT}>${esc(name)}</text>`;
    let cx = left;
    vals.forEach((v, j) => {
      if (v <= 0 || total <= 0) return;
      const w = (v / total) * width;
      const pct = ((v / total) * 100).toFixed(1);
      svg += `<rect x="${cx}" y="${y}" width="${w}" height="${barH}" fill="${parts[j]!.color}"><title>${esc(`${name}: ${parts[j]!.label} ${thousands(v)} ${unit} (${pct} %)`)}</title></rect>`;
      cx += w;
    });
  });
  svg += `</svg>`;
  return `<figure>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}

/** Grouped horizontal bars on a log scale (for times and memory that span orders of magnitude). */
function logBars(rows: string[], series: Series[], caption: string, fmt: (v: number) => string, tick: (v: number) => string): string {
  const barH = 10;
  const groupH = series.length * barH + 8;
  const left = 190;
  const width = 520;
  const top = 34;
  const h = top + rows.length * groupH + 30;
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null && v > 0));
  if (all.length === 0) return "";
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const x = (v: number): number => left + ((Math.log10(v) - Math.log10(lo)) / Math.max(1e-9, Math.log10(hi) - Math.log10(lo))) * width;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 80}" height="${h}" role="img" aria-label="${esc(caption)}">`;
  svg += legend(series.map((s) => ({ label: s.label, color: s.color })), left, 14);
  for (let t = lo; t <= hi * 1.0001; t *= 10) {
    svg += `<line x1="${x(t)}" y1="${top - 6}" x2="${x(t)}" y2="${h - 24}" stroke="#ddd"/>`;
    svg += `<text x="${x(t)}" y="${h - 10}" text-anchor="middle" ${FONT}>${esc(tick(t))}</text>`;
  }
  rows.forEach((name, i) => {
    const gy = top + i * groupH;
    svg += `<text x="${left - 8}" y="${gy + groupH / 2 + 2}" text-anchor="end" ${FONT}>${esc(name)}</text>`;
    series.forEach((s, j) => {
      const v = s.values[i];
      if (v === null || v === undefined || !(v > 0)) return;
      const y = gy + j * barH + 2;
      svg += `<rect x="${left}" y="${y}" width="${Math.max(1, x(v) - left)}" height="${barH - 1}" fill="${s.color}"><title>${esc(s.titles[i] ?? "")}</title></rect>`;
      svg += `<text x="${x(v) + 4}" y="${y + barH - 2}" font-family="system-ui, sans-serif" font-size="9">${esc(fmt(v))}</text>`;
    });
  });
  svg += `</svg>`;
  return `<figure>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}

/** Point estimates with 95 % interval whiskers around a ratio of 1, with the ±target band shaded. */
function intervalChart(r: BenchResults): string {
  const rows = r.runtime;
  if (rows.length === 0) return "<p><em>No runtime measurements.</em></p>";
  // with several targets, profile-guided or A/A rows, engines or modes, each row is labelled with its variant, engine and mode too
  const label = hasVariants(r) ? (w: (typeof rows)[number]): string => `${w.workload} · ${rowLabel(w)}` : (w: (typeof rows)[number]): string => w.workload;
  const left = Math.max(190, 20 + 7 * Math.max(...rows.map((w) => label(w).length)));
  const width = 520;
  const top = 34;
  const rowH = 30;
  const h = top + rows.length * rowH + 30;
  const vals = rows.flatMap((w) =>
    [w.slowdown.ratio, w.slowdown.lo, w.slowdown.hi, w.cpuSlowdown.ratio, w.cpuSlowdown.lo, w.cpuSlowdown.hi, w.pairedSlowdown?.ratio, w.pairedSlowdown?.lo, w.pairedSlowdown?.hi].filter(
      (v): v is number => v !== null && v !== undefined && Number.isFinite(v),
    ),
  );
  let ext = Math.max(0.05, r.options.targetHalfWidth * 2, ...vals.map((v) => Math.abs(v - 1)));
  const step = niceStep(2 * ext, 6);
  ext = Math.ceil(ext / step) * step;
  const x = (v: number): number => left + ((v - (1 - ext)) / (2 * ext)) * width;
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 40}" height="${h}" role="img" aria-label="runtime slowdown">`;
  const band = r.options.targetHalfWidth;
  svg += legend([{ label: "wall time", color: "#4e79a7" }, { label: "CPU time", color: "#f28e2b" }, { label: "paired in-process", color: "#59a14f" }], left, 14);
  svg += `<rect x="${x(1 - band)}" y="${top - 6}" width="${x(1 + band) - x(1 - band)}" height="${h - top - 18}" fill="#eef5ee"><title>±${(band * 100).toFixed(1)} % target</title></rect>`;
  for (let t = 1 - ext; t <= 1 + ext + 1e-9; t += step) {
    svg += `<line x1="${x(t)}" y1="${top - 6}" x2="${x(t)}" y2="${h - 24}" stroke="${Math.abs(t - 1) < 1e-9 ? "#333" : "#ddd"}"/>`;
    svg += `<text x="${x(t)}" y="${h - 10}" text-anchor="middle" ${FONT}>${t.toFixed(3)}</text>`;
  }
  rows.forEach((w, i) => {
    const y = top + i * rowH + rowH / 2;
    svg += `<text x="${left - 8}" y="${y + 4}" text-anchor="end" ${FONT}>${esc(label(w))}</text>`;
    const marks: [typeof w.slowdown, string, number, string][] = [
      [w.slowdown, w.error ? "#e15759" : "#4e79a7", -7, "wall time"],
      [w.cpuSlowdown, "#f28e2b", 0, "CPU time"],
    ];
    if (w.pairedSlowdown) marks.push([w.pairedSlowdown, "#59a14f", 7, "paired in-process"]);
    for (const [c, color, dy, what] of marks) {
      const title = `${label(w)} (${what}): ${fmtInterval(c)}, stopped by ${w.stoppedBy}`;
      if (c.lo !== null && c.hi !== null) {
        svg += `<line x1="${x(Math.max(c.lo, 1 - ext))}" y1="${y + dy}" x2="${x(Math.min(c.hi, 1 + ext))}" y2="${y + dy}" stroke="${color}" stroke-width="2"><title>${esc(title)}</title></line>`;
      }
      if (Number.isFinite(c.ratio)) {
        const cx = x(Math.min(Math.max(c.ratio, 1 - ext), 1 + ext));
        svg += `<circle cx="${cx}" cy="${y + dy}" r="3.5" fill="${color}"><title>${esc(title)}</title></circle>`;
      }
    }
  });
  svg += `</svg>`;
  return `<figure>${svg}<figcaption>Runtime slowdown (optimized / baseline) with 95 % intervals, wall time (what a user waits for; the stopping rule uses it) CPU time of the process (less sensitive to a busy machine), and the paired in-process ratio (both sides in one process, in alternating rounds); shaded: ±${(band * 100).toFixed(1)} % target. Below 1 = faster. No whisker: too few pairs for an interval.</figcaption></figure>`;
}

function sectionGroup(name: string): string {
  if (name === "code" || name === "data") return name;
  if (name.startsWith("custom:")) return "custom sections";
  return "other sections";
}

function whereBytesWent(files: FileResult[]): string {
  const withBase = files.filter((f) => f.baseline);
  const groups = ["code", "data", "custom sections", "other sections"];
  const parts = groups.map((g, i) => ({ label: g, color: COLORS[i]! }));
  const values = withBase.map((f) => {
    const v = groups.map(() => 0);
    for (const [name, size] of Object.entries(f.baseline!.sections)) v[groups.indexOf(sectionGroup(name))]! += size;
    return v;
  });
  let out = stackedShares(
    withBase.map((f) => f.name),
    parts,
    values,
    "Where the bytes are: sections of the -Oz baseline, as shares of the file (hover for bytes).",
  );
  // Where our savings came from: bytes saved per pass, as shares of the total saved.
  const passNames = [...new Set(files.flatMap((f) => (f.ours?.passes ?? []).map((p) => p.name)))];
  const saving = files.filter((f) => (f.ours?.passes ?? []).some((p) => p.kept && p.bytesSaved > 0));
  if (saving.length > 0) {
    out += stackedShares(
      saving.map((f) => f.name),
      passNames.map((p, i) => ({ label: p, color: COLORS[i % COLORS.length]! })),
      saving.map((f) => passNames.map((n) => f.ours!.passes.filter((p) => p.name === n && p.kept).reduce((a, p) => a + Math.max(0, p.bytesSaved), 0))),
      "Where our savings came from: bytes saved by each pass, as shares of the bytes saved in that file.",
      "bytes saved",
    );
  } else {
    out += `<p><em>No pass of ours saved any bytes in this run${passNames.length === 0 ? " (no passes ran: the pipeline is empty)" : ""}.</em></p>`;
  }
  // Where the bytes went: change of each section that changed anywhere, in percent of the baseline file,
  // so that a file's bars add up to its total change.
  const both = files.filter((f) => f.baseline && f.ours);
  const changed = new Set<string>();
  for (const f of both) {
    for (const n of new Set([...Object.keys(f.baseline!.sections), ...Object.keys(f.ours!.sections)])) {
      if ((f.baseline!.sections[n] ?? 0) !== (f.ours!.sections[n] ?? 0)) changed.add(n);
    }
  }
  if (both.length > 0 && changed.size > 0) {
    const names = [...changed].sort((a, b) => (a === "code" ? -1 : b === "code" ? 1 : a < b ? -1 : a > b ? 1 : 0));
    const series: Series[] = names.map((n, i) => ({
      label: n,
      color: COLORS[i % COLORS.length]!,
      values: both.map((f) => (((f.ours!.sections[n] ?? 0) - (f.baseline!.sections[n] ?? 0)) / f.baseline!.sizes.file) * 100),
      titles: both.map((f) => {
        const a = f.baseline!.sections[n] ?? 0;
        const b = f.ours!.sections[n] ?? 0;
        return `${f.name} ${n} section: ${thousands(a)} -> ${thousands(b)} bytes (${b - a >= 0 ? "+" : ""}${thousands(b - a)})`;
      }),
    }));
    out += divergingBars(
      both.map((f) => f.name),
      series,
      "Where the bytes went: change of each section, ours vs baseline, in percent of the baseline file (a file's bars add up to its total change).",
    );
  } else if (both.length > 0) {
    out += "<p><em>No section changed size in any file.</em></p>";
  }
  return out;
}

function charts(r: BenchResults): string {
  const both = r.files.filter((f) => f.ratio);
  const names = both.map((f) => f.name);
  const pct = (x: number): number => (x - 1) * 100;
  const keys = ["file", "code", "gzip", "brotli"] as const;
  const sizeSeries: Series[] = keys.map((k, i) => ({
    label: k,
    color: COLORS[i]!,
    values: both.map((f) => pct(f.ratio![k])),
    titles: both.map((f) => `${f.name} ${k}: ${thousands(f.baseline!.sizes[k])} -> ${thousands(f.ours!.sizes[k])} bytes (ratio ${f.ratio![k].toFixed(5)})`),
  }));
  let out = `<h2>Size ratios per file</h2>`;
  out += both.length > 0 ? divergingBars(names, sizeSeries, "Size change of wasm-compact's output vs the -Oz baseline, percent (left = smaller).") : "<p><em>No sizes.</em></p>";

  const labels = [...new Set(r.files.flatMap((f) => f.binaryenPasses.map((p) => p.label)))];
  if (labels.length > 0) {
    const withB = r.files.filter((f) => f.baseline);
    const series: Series[] = [
      {
        label: "wasm-compact",
        color: COLORS[0]!,
        values: withB.map((f) => (f.ratio ? pct(f.ratio.file) : null)),
        titles: withB.map((f) => `${f.name} wasm-compact: ${f.ours ? thousands(f.ours.sizes.file) : "-"} bytes`),
      },
      ...labels.map((l, i) => ({
        label: l,
        color: COLORS[(i + 1) % COLORS.length]!,
        values: withB.map((f) => {
          const p = f.binaryenPasses.find((x) => x.label === l);
          return p?.ratio ? pct(p.ratio.file) : null;
        }),
        titles: withB.map((f) => {
          const p = f.binaryenPasses.find((x) => x.label === l);
          return `${f.name} ${l} (${p?.args.join(" ") ?? ""}): ${p?.sizes ? `${thousands(p.sizes.file)} bytes` : p?.error ?? "-"}`;
        }),
      })),
    ];
    out += `<h2>Attribution: Binaryen's size passes on the same input</h2>`;
    out += divergingBars(withB.map((f) => f.name), series, "File size change vs the -Oz baseline, percent: ours and each Binaryen pass run on the baseline.");
  }

  out += `<h2>Where the bytes went</h2>` + whereBytesWent(r.files);

  const timed = r.files.filter((f) => f.timing);
  if (timed.length > 0) {
    out += `<h2>Time and memory</h2>`;
    out += logBars(
      timed.map((f) => f.name),
      [
        { label: "wasm-opt -Oz", color: COLORS[1]!, values: timed.map((f) => f.timing!.wasmOpt.medianWallMs), titles: timed.map((f) => `${f.name} wasm-opt -Oz: ${f.timing!.wasmOpt.wallMs.map(fmtMs).join(", ")}`) },
        { label: "wasm-compact", color: COLORS[0]!, values: timed.map((f) => f.timing!.ours.medianWallMs), titles: timed.map((f) => `${f.name} wasm-compact: ${f.timing!.ours.wallMs.map(fmtMs).join(", ")}`) },
      ],
      "Wall time (median; log scale), both tools on the -Oz output, Node start-up included.",
      fmtMs,
      (ms) => (ms >= 1000 ? `${+(ms / 1000).toPrecision(3)} s` : `${+ms.toPrecision(3)} ms`),
    );
    out += logBars(
      timed.map((f) => f.name),
      [
        { label: "wasm-opt -Oz", color: COLORS[1]!, values: timed.map((f) => f.timing!.wasmOpt.medianPeakRssKiB), titles: timed.map((f) => `${f.name} wasm-opt: ${fmtKiB(f.timing!.wasmOpt.medianPeakRssKiB)}`) },
        { label: "wasm-compact", color: COLORS[0]!, values: timed.map((f) => f.timing!.ours.medianPeakRssKiB), titles: timed.map((f) => `${f.name} wasm-compact: ${fmtKiB(f.timing!.ours.medianPeakRssKiB)}`) },
      ],
      "Peak resident set size (VmHWM, median; log scale).",
      (k) => (k >= 1024 * 1024 ? `${(k / 1024 / 1024).toFixed(2)} GiB` : `${(k / 1024).toFixed(0)} MiB`),
      (k) => (k >= 1024 * 1024 ? `${+(k / 1024 / 1024).toPrecision(3)} GiB` : k >= 1024 ? `${+(k / 1024).toPrecision(3)} MiB` : `${k} KiB`),
    );
  }
  out += `<h2>Runtime</h2>` + intervalChart(r);
  return out;
}

/** Minimal markdown for the subset renderMarkdown emits: headings, tables, lists, paragraphs, **bold**, _italic_. */
export function markdownToHtml(md: string): string {
  const inline = (s: string): string =>
    esc(s)
      .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
      .replace(/(^|[\s(])_(.+?)_(?=$|[\s).,:])/g, "$1<em>$2</em>");
  const out: string[] = [];
  const blocks = md.split(/\n{2,}/);
  for (const b of blocks) {
    const lines = b.split("\n");
    if (/^#{1,6} /.test(lines[0]!)) {
      const level = Math.min(6, lines[0]!.indexOf(" ") + 1);
      out.push(`<h${level}>${inline(lines[0]!.replace(/^#+ /, ""))}</h${level}>`);
      if (lines.length > 1) out.push(markdownToHtml(lines.slice(1).join("\n")));
    } else if (lines[0]!.startsWith("|")) {
      const cells = (l: string): string[] =>
        l.replace(/^\|\s?/, "").replace(/\s?\|$/, "").split(/\s\|\s/).map((c) => c.replace(/\\\|/g, "|"));
      const align = cells(lines[1] ?? "").map((c) => (c.endsWith(":") && !c.startsWith(":") ? "right" : "left"));
      let t = "<table><thead><tr>";
      cells(lines[0]!).forEach((c, i) => (t += `<th style="text-align:${align[i] ?? "left"}">${inline(c)}</th>`));
      t += "</tr></thead><tbody>";
      for (const l of lines.slice(2)) {
        t += "<tr>";
        cells(l).forEach((c, i) => (t += `<td style="text-align:${align[i] ?? "left"}">${inline(c)}</td>`));
        t += "</tr>";
      }
      out.push(`${t}</tbody></table>`);
    } else if (lines.every((l) => l.startsWith("- "))) {
      out.push(`<ul>${lines.map((l) => `<li>${inline(l.slice(2))}</li>`).join("")}</ul>`);
    } else {
      out.push(`<p>${inline(b)}</p>`);
    }
  }
  return out.join("\n");
}

export function renderHtml(r: BenchResults): string {
  const s = r.summary;
  const card = (label: string, value: string, sub: string): string =>
    `<div class="card"><div class="v">${esc(value)}</div><div class="l">${esc(label)}</div><div class="s">${esc(sub)}</div></div>`;
  const g = s.geomeanRatio;
  const cards = [
    card("file size", g ? g.file.toFixed(4) : "-", "geomean ours / -Oz"),
    card("code section", g ? g.code.toFixed(4) : "-", "geomean ours / -Oz"),
    card("gzip -9", g ? g.gzip.toFixed(4) : "-", "geomean ours / -Oz"),
    card("brotli q11", g ? g.brotli.toFixed(4) : "-", "geomean ours / -Oz"),
    card("wall time", s.geomeanWallRatio !== null ? s.geomeanWallRatio.toFixed(3) : "-", "geomean ours / wasm-opt -Oz"),
    card("peak RSS", s.geomeanRssRatio !== null ? s.geomeanRssRatio.toFixed(3) : "-", "geomean ours / wasm-opt -Oz"),
    card("runtime", s.geomeanSlowdown !== null ? s.geomeanSlowdown.toFixed(3) : "-", `geomean slowdown, optimized / baseline${hasVariants(r) ? ` (${headlineVariant(r.runtime) ?? "-"})` : ""}`),
    ...(s.engineSummary && s.engineSummary.length > 0
      ? s.engineSummary.map((e) =>
          card(`runtime, ${e.engine} ${e.tiering}`, e.geomean.toFixed(3), `${e.variant}: geomean slowdown over ${e.workloads} workload${e.workloads === 1 ? "" : "s"}; worst ${e.worst.slowdown.ratio.toFixed(3)} ${fmtBounds(e.worst.slowdown)} (${e.worst.workload})`),
        )
      : Object.entries(s.variantSlowdown ?? {})
          .filter(([l]) => l.endsWith("profile-guided"))
          .map(([l, g]) => card("runtime", g.toFixed(3), `geomean slowdown, ${l}`))),
  ].join("");
  const features = r.files
    .filter((f) => f.features)
    .map((f) => `<tr><td>${esc(f.name)}</td><td>${esc(f.features!.flags.join(" ") || "(none)")}</td><td>${esc(f.features!.targetFeatures ? `target_features: ${f.features!.targetFeatures.join(" ")}` : f.features!.used.join(", ") || "mvp")}</td></tr>`)
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wasm-compact benchmark ${esc(r.startedAt)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; } h3 { font-size: 1.05em; margin-top: 1.5em; }
table { border-collapse: collapse; font-size: 12px; margin: .5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; white-space: nowrap; }
th { background: #f4f4f4; }
tbody tr:nth-child(even) { background: #fafafa; }
.cards { display: flex; flex-wrap: wrap; gap: .75em; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: .5em 1em; min-width: 9em; }
.card .v { font-size: 1.4em; font-weight: 600; } .card .l { font-weight: 600; } .card .s { font-size: .8em; color: #666; }
figure { margin: 1em 0; overflow-x: auto; } figcaption { font-size: .85em; color: #555; }
dt { font-weight: 600; margin-top: .5em; } dd { margin-left: 1em; font-size: .9em; }
.tables { overflow-x: auto; }
</style>
</head>
<body>
<h1>wasm-compact ${esc(r.tool.version)} vs <code>wasm-opt -Oz</code> (binaryen ${esc(r.binaryen)})</h1>
<p>${esc(r.startedAt)} &middot; ${r.durationSeconds} s &middot; Node ${esc(r.node)} &middot; ${esc(r.platform)} &middot; ${esc(r.cpus)}${r.options.quick ? " &middot; <strong>--quick (smoke test: single runs, no intervals)</strong>" : ""} &middot; ${s.files} file(s)${s.filesWithErrors ? `, <strong>${s.filesWithErrors} with errors</strong>` : ""}</p>
<div class="cards">${cards}</div>
${charts(r)}
<h2>Tables</h2>
<div class="tables">${markdownToHtml(renderMarkdown(r))}</div>
<h2>Feature flags passed to wasm-opt</h2>
<table><thead><tr><th>module</th><th>flags</th><th>features</th></tr></thead><tbody>${features}</tbody></table>
</body>
</html>
`;
}
