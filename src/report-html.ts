// The report as one self-contained HTML page (--html, and the playground):
// sizes before and after (raw, gzip, brotli), what each pass saved and how
// long it took, every function before and after (a sortable, searchable
// table and a treemap of the output's code section), the merge map, notes,
// removed sections and features. Everything is rendered here, so the page
// reads without scripts; its inline script only sorts and filters tables.
// It loads nothing: a Content-Security-Policy forbids every fetch. Function
// names come from the module's name section, so every text is escaped.

import { percentChange, type Report, type SizeChange } from "./report.js";
import type { FuncLabel, MergeMapEntry } from "./passes/merge-map.js";
import type { FunctionRow } from "./function-fates.js";
import { squarify } from "./treemap.js";

export interface HtmlReportData {
  report: Report;
  /** How the input and output are called on the page (file names, "<stdin>"). */
  files: { input: string; output: string };
  /** Whole-file compressed sizes (gzip level 9, brotli quality 11), when measured. */
  compressed?: { gzip: SizeChange; brotli: SizeChange };
  /** What became of each function (see function-fates.ts). */
  functions: FunctionRow[];
}

/** The treemap shows at most this many functions; the rest are one tile. */
const TREEMAP_MAX = 2000;
const TREEMAP_W = 1000;
const TREEMAP_H = 560;

/** Text made safe for HTML content and double- or single-quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
const esc = escapeHtml;

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A numeric cell: shown with separators, sorted by value (missing values sort last). */
function num(n: number | undefined, shown: string = n === undefined ? "" : thousands(n)): string {
  return `<td class="n" data-v="${n === undefined ? "" : n}">${esc(shown)}</td>`;
}

function td(text: string, cls?: string): string {
  return `<td${cls ? ` class="${cls}"` : ""}>${esc(text)}</td>`;
}

function th(text: string, numeric = false): string {
  return `<th scope="col"${numeric ? ` data-type="num" class="n"` : ""}>${esc(text)}</th>`;
}

function ratio(c: SizeChange): string {
  return c.before === 0 ? "-" : (c.after / c.before).toFixed(3);
}

function labelText(l: FuncLabel): string {
  const name = l.name ?? (l.origin < 0 ? "new function" : "func");
  const from = l.origin < 0 ? "created by a pass" : `input #${l.origin}`;
  const to = l.output === undefined ? "gone from the output" : `output #${l.output}`;
  return `${name} (${from}, ${to})`;
}

function sizeTable(data: HtmlReportData): string {
  const { sizes } = data.report;
  const rows: [string, SizeChange][] = [
    ["whole file", sizes.file],
    ["code section", sizes.code],
    ["custom sections", sizes.custom],
  ];
  if (data.compressed) rows.push(["gzip -9 (whole file)", data.compressed.gzip], ["brotli q11 (whole file)", data.compressed.brotli]);
  const body = rows
    .map(([label, c]) => `<tr>${td(label)}${num(c.before)}${num(c.after)}${num(c.before - c.after)}${num(c.before === 0 ? undefined : c.after / c.before, ratio(c))}${td(percentChange(c), "n")}</tr>`)
    .join("\n");
  return `<table id="sizes"><thead><tr>${th("")}${th("before", true)}${th("after", true)}${th("saved", true)}${th("ratio", true)}${th("change", true)}</tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

function passTable(report: Report): string {
  if (report.passes.length === 0) return "<p>No passes ran.</p>";
  const status = (p: Report["passes"][number]): string => (!p.kept ? "undone (made it larger)" : p.changed ? "kept" : "no change");
  const rows = report.passes.map((p) => {
    const stats = Object.entries(p.stats).map(([k, v]) => `${k} ${v}`).join(", ");
    return `<tr>${td(p.name)}${num(p.bytesBefore)}${num(p.bytesAfter)}${num(p.bytesBefore - p.bytesAfter)}${num(p.timeMs, p.timeMs.toFixed(1))}${td(status(p))}${td(stats)}${td(p.notes.join("; "))}</tr>`;
  });
  const saved = report.passes.reduce((s, p) => s + p.bytesBefore - p.bytesAfter, 0);
  const time = report.passes.reduce((s, p) => s + p.timeMs, 0);
  return `<table id="passes" class="sortable"><thead><tr>${th("pass")}${th("bytes before", true)}${th("bytes after", true)}${th("saved", true)}${th("time (ms)", true)}${th("status")}${th("stats")}${th("notes")}</tr></thead>
<tbody>\n${rows.join("\n")}\n</tbody>
<tfoot><tr>${td("all passes")}<td></td><td></td>${num(saved)}${num(time, time.toFixed(1))}<td></td><td></td><td></td></tr></tfoot></table>`;
}

/** For each function a pass created (by output index): how many functions' code it holds, extracted or merged. */
interface Sources {
  extracted: number;
  merged: number;
}

function fateText(r: FunctionRow, createdFrom: ReadonlyMap<number, Sources>): string {
  let s: string;
  switch (r.fate) {
    case "kept":
      s = r.matchedBy && r.matchedBy !== "merge map" ? `kept (matched by ${r.matchedBy})` : "kept";
      break;
    case "folded":
      s = `folded into ${labelText(r.into!)}`;
      break;
    case "thunk":
      s = `merged into ${labelText(r.into!)}; now a thunk calling it`;
      break;
    case "removed":
      s = "removed (nothing used it)";
      break;
    case "new": {
      const from = createdFrom.get(r.output!.index) ?? { extracted: 0, merged: 0 };
      const parts = [];
      if (from.merged > 0) parts.push(`merges ${from.merged} function${from.merged === 1 ? "" : "s"}`);
      if (from.extracted > 0 || parts.length === 0) parts.push(`holds code extracted from ${from.extracted} function${from.extracted === 1 ? "" : "s"}`);
      s = `new: ${parts.join("; ")}`;
      break;
    }
    case "unmatched":
      s = r.input ? "not matched: nothing identifies it in the output" : "not matched to an input function";
      break;
  }
  if (r.extracted.length > 0) {
    const places = r.extracted.reduce((n, e) => n + e.sites, 0);
    const each = r.extracted.map((e) => `${e.into.name ?? "new"} (${e.into.output === undefined ? "gone" : `#${e.into.output}`})${e.sites > 1 ? ` \u00d7${e.sites}` : ""}`);
    s += `; code from ${places} place${places === 1 ? "" : "s"} extracted into ${r.extracted.length} new function${r.extracted.length === 1 ? "" : "s"}: ${each.join(", ")}`;
  }
  return s;
}

function rowId(r: FunctionRow): string {
  return r.input ? `fn-i${r.input.index}` : `fn-o${r.output!.index}`;
}

function functionTable(data: HtmlReportData): string {
  const createdFrom = new Map<number, Sources>();
  for (const e of data.report.mergeMap) {
    if (e.into.origin >= 0 || e.into.output === undefined) continue;
    let from = createdFrom.get(e.into.output);
    if (!from) createdFrom.set(e.into.output, (from = { extracted: 0, merged: 0 }));
    if (e.became === "extracted") from.extracted++;
    else from.merged++;
  }
  const rows = data.functions.map((r) => {
    const change = r.input && r.output ? r.output.size - r.input.size : r.input && !r.output && r.fate !== "unmatched" ? -r.input.size : undefined;
    return `<tr id="${rowId(r)}" class="f-${r.fate}">${num(r.input?.index)}${td(r.name ?? "")}${num(r.input?.size)}${num(r.output?.index)}${num(r.output?.size)}${num(change, change === undefined ? "" : `${change > 0 ? "+" : ""}${thousands(change)}`)}${td(fateText(r, createdFrom))}</tr>`;
  });
  const counts = new Map<string, number>();
  for (const r of data.functions) counts.set(r.fate, (counts.get(r.fate) ?? 0) + 1);
  const summary = [...counts].map(([k, v]) => `${v} ${k}`).join(", ");
  return `<p>${esc(`${data.functions.length} rows: ${summary || "no functions"}.`)} Sizes are bytes in the code section (size prefix, locals and code). Functions the merge map does not name are matched by name, then export, then an identical body.</p>
<p><label>Search functions <input type="search" data-filter="functions" placeholder="name, index or fate"></label> <span id="functions-count" class="count"></span></p>
<table id="functions" class="sortable"><thead><tr>${th("input #", true)}${th("name")}${th("input size", true)}${th("output #", true)}${th("output size", true)}${th("change", true)}${th("what became of it")}</tr></thead>
<tbody>\n${rows.join("\n")}\n</tbody></table>`;
}

function treemap(data: HtmlReportData): string {
  const inOutput = data.functions.filter((r) => r.output && r.output.size > 0).sort((a, b) => b.output!.size - a.output!.size);
  if (inOutput.length === 0) return "<p>The output defines no functions.</p>";
  const shown = inOutput.slice(0, TREEMAP_MAX);
  const rest = inOutput.slice(TREEMAP_MAX);
  type Tile = { row?: FunctionRow; label: string; size: number };
  const tiles: { value: number; item: Tile }[] = shown.map((r) => ({ value: r.output!.size, item: { row: r, label: r.name ?? `func[${r.output!.index}]`, size: r.output!.size } }));
  if (rest.length > 0) {
    const size = rest.reduce((s, r) => s + r.output!.size, 0);
    tiles.push({ value: size, item: { label: `${rest.length} smaller functions`, size } });
  }
  const total = inOutput.reduce((s, r) => s + r.output!.size, 0);
  const rects = squarify(tiles, { x: 0, y: 0, w: TREEMAP_W, h: TREEMAP_H }).map(({ x, y, w, h, item }) => {
    const r = item.row;
    const where = r ? `output #${r.output!.index}${r.input ? `, input #${r.input.index}` : ""}` : "";
    const title = `${item.label}: ${thousands(item.size)} bytes (${((item.size / total) * 100).toFixed(1)}%)${where ? `; ${where}` : ""}${r ? `; ${r.fate}` : ""}`;
    const f = (v: number): string => v.toFixed(2);
    const maxChars = Math.floor((w - 4) / 6.2);
    const text = h >= 13 && maxChars >= 3 ? `<text x="${f(x + 2)}" y="${f(y + 11)}">${esc(item.label.length > maxChars ? `${item.label.slice(0, maxChars - 1)}…` : item.label)}</text>` : "";
    const link = r ? ` data-row="${rowId(r)}"` : "";
    return `<g class="t-${r ? r.fate : "rest"}"${link}><rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}"><title>${esc(title)}</title></rect>${text}</g>`;
  });
  return `<p>${esc(`The output's code section by function: ${thousands(total)} bytes in ${inOutput.length} functions${rest.length ? ` (the ${TREEMAP_MAX} largest drawn, the rest as one tile)` : ""}.`)} Click a tile to find its row.</p>
<p class="legend"><span class="t-kept">kept</span> <span class="t-thunk">thunk</span> <span class="t-new">new (merged or extracted code)</span> <span class="t-unmatched">not matched</span></p>
<svg id="treemap" viewBox="0 0 ${TREEMAP_W} ${TREEMAP_H}" role="img" aria-label="treemap of the output's functions by size">\n${rects.join("\n")}\n</svg>`;
}

function mergeMapTable(entries: readonly MergeMapEntry[]): string {
  if (entries.length === 0) return "<p>No function was folded, merged or extracted.</p>";
  const became = (e: MergeMapEntry): string => (e.became === "thunk" ? "merged (thunk)" : e.became);
  const detail = (e: MergeMapEntry): string => {
    if (e.became === "thunk") return e.args && e.args.length > 0 ? `passes ${e.args.join(", ")}` : "";
    if (e.became === "extracted") return `${e.sites ?? 1} place${e.sites === 1 ? "" : "s"}${e.tail ? ", some tail calls" : ""}`;
    return "";
  };
  const rows = entries.map(
    (e) => `<tr>${num(e.function.origin < 0 ? undefined : e.function.origin, e.function.origin < 0 ? "new" : undefined)}${td(e.function.name ?? "")}${num(e.function.output)}${td(became(e))}${td(labelText(e.into))}${td(detail(e))}</tr>`,
  );
  return `<p><label>Search the merge map <input type="search" data-filter="mergemap" placeholder="name or index"></label> <span id="mergemap-count" class="count"></span></p>
<table id="mergemap" class="sortable"><thead><tr>${th("input #", true)}${th("function")}${th("output #", true)}${th("became")}${th("into")}${th("details")}</tr></thead>
<tbody>\n${rows.join("\n")}\n</tbody></table>`;
}

function sectionTable(report: Report): string {
  const before = new Map<string, number>();
  const after = new Map<string, number>();
  for (const s of report.sections.input) before.set(s.name, (before.get(s.name) ?? 0) + s.size);
  for (const s of report.sections.output) after.set(s.name, (after.get(s.name) ?? 0) + s.size);
  const names = [...new Set([...before.keys(), ...after.keys()])];
  const rows = names.map((n) => `<tr>${td(n)}${num(before.get(n))}${num(after.get(n))}${num((before.get(n) ?? 0) - (after.get(n) ?? 0))}</tr>`);
  return `<table id="sections" class="sortable"><thead><tr>${th("section")}${th("before", true)}${th("after", true)}${th("saved", true)}</tr></thead>\n<tbody>\n${rows.join("\n")}\n</tbody></table>`;
}

function list(items: readonly string[], empty: string): string {
  return items.length === 0 ? `<p>${esc(empty)}</p>` : `<ul>\n${items.map((s) => `<li>${esc(s)}</li>`).join("\n")}\n</ul>`;
}

function notes(report: Report): string {
  const all = [...report.passes.flatMap((p) => p.notes.map((n) => `${p.name}: ${n}`)), ...report.notes];
  if (report.keptInput) all.unshift("the optimized module was not smaller, so the output is the input unchanged");
  return list(all, "No notes.");
}

function features(report: Report): string {
  const f = report.features;
  const line = (label: string, fs: readonly string[]): string => `<tr>${td(label)}${td(fs.length ? fs.join(", ") : "none")}</tr>`;
  return `<table id="features"><tbody>\n${line("the input uses", f.input)}\n${line("the input declares (target_features)", f.declared)}\n${line("the output uses", f.output)}\n</tbody></table>`;
}

/** The whole page. */
export function reportHtml(data: HtmlReportData): string {
  const { report, files } = data;
  const title = `wasm-compact report: ${files.input}`;
  const removed = report.removedSections.map((s) => `${s.name} (${thousands(s.bytes)} bytes, ${s.kind}): ${s.why === "stale" ? "the code it describes changed" : "removed on request"}`);
  const t = report.timings;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>wasm-compact report</h1>
<p class="files"><code>${esc(files.input)}</code> &rarr; <code>${esc(files.output)}</code>, ${esc(`wasm-compact ${report.tool.version}; ${report.validated.input ? "validated" : "not validated"}; total ${t.totalMs.toFixed(0)} ms (read ${t.readMs.toFixed(0)}, passes ${t.passesMs.toFixed(0)}, write ${t.writeMs.toFixed(0)}, validation ${(t.validateInputMs + t.validateOutputMs).toFixed(0)})`)}</p>
<h2 id="h-sizes">Sizes</h2>
${sizeTable(data)}
<h2 id="h-passes">Passes</h2>
${passTable(report)}
<h2 id="h-treemap">Output code by function</h2>
${treemap(data)}
<h2 id="h-functions">Functions before and after</h2>
${functionTable(data)}
<h2 id="h-mergemap">Merge map</h2>
${mergeMapTable(report.mergeMap)}
<h2 id="h-notes">Notes</h2>
${notes(report)}
<h2 id="h-removed">Removed sections</h2>
${list(removed, "No section was removed.")}
<h2 id="h-features">Features</h2>
${features(report)}
<h2 id="h-sections">Sections</h2>
${sectionTable(report)}
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#1b1b1b;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}
th,td{padding:.2em .6em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f4f4f4}.n{text-align:right}
table.sortable th{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
tfoot td{font-weight:600}
#functions td:nth-child(2),#mergemap td:nth-child(2){overflow-wrap:anywhere;min-width:12em;max-width:28em}
#functions td:last-child{font-size:.92em}
tr.hit{outline:2px solid #d33}
.count{color:#666}
svg#treemap{width:100%;height:auto;border:1px solid #ccc;display:block}
svg#treemap rect{stroke:#fff;stroke-width:.6;cursor:pointer}
svg#treemap text{font:10px system-ui,sans-serif;fill:#fff;pointer-events:none}
svg#treemap g:hover rect{opacity:.8}
.t-kept rect,.legend .t-kept{fill:#3b6ea8;background:#3b6ea8}
.t-thunk rect,.legend .t-thunk{fill:#d08a2a;background:#d08a2a}
.t-new rect,.legend .t-new{fill:#3c8d4f;background:#3c8d4f}
.t-unmatched rect,.legend .t-unmatched,.t-rest rect{fill:#777;background:#777}
.legend span{color:#fff;padding:0 .4em;border-radius:3px}
code{background:#f4f4f4;padding:0 .2em}
`;

// Sorting (click or Enter on a column head: numbers largest first, text A-Z
// first, again to reverse), filtering, and treemap tiles that find their row.
const SCRIPT = `
"use strict";
(() => {
  for (const table of document.querySelectorAll("table.sortable")) {
    const heads = [...table.tHead.rows[0].cells];
    heads.forEach((head, col) => {
      head.tabIndex = 0;
      const numeric = head.dataset.type === "num";
      const sort = () => {
        const was = head.getAttribute("aria-sort");
        const dir = was ? (was === "ascending" ? "descending" : "ascending") : numeric ? "descending" : "ascending";
        for (const h of heads) h.removeAttribute("aria-sort");
        head.setAttribute("aria-sort", dir);
        const sign = dir === "ascending" ? 1 : -1;
        const body = table.tBodies[0];
        const keyed = [...body.rows].map((row) => {
          const cell = row.cells[col];
          const raw = cell ? (cell.dataset.v ?? cell.textContent) : "";
          return { row, key: numeric ? (raw === "" ? NaN : Number(raw)) : raw.toLowerCase() };
        });
        keyed.sort((a, b) => {
          if (numeric) {
            if (Number.isNaN(a.key)) return Number.isNaN(b.key) ? 0 : 1;
            if (Number.isNaN(b.key)) return -1;
            return (a.key - b.key) * sign;
          }
          return a.key < b.key ? -sign : a.key > b.key ? sign : 0;
        });
        body.append(...keyed.map((k) => k.row));
      };
      head.addEventListener("click", sort);
      head.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          sort();
        }
      });
    });
  }
  const filter = (input) => {
    const table = document.getElementById(input.dataset.filter);
    const count = document.getElementById(input.dataset.filter + "-count");
    const q = input.value.trim().toLowerCase();
    let shown = 0;
    const rows = table.tBodies[0].rows;
    for (const row of rows) {
      const hit = q === "" || row.textContent.toLowerCase().includes(q);
      row.hidden = !hit;
      if (hit) shown++;
    }
    if (count) count.textContent = q === "" ? "" : shown + " of " + rows.length + " rows";
  };
  for (const input of document.querySelectorAll("input[data-filter]")) input.addEventListener("input", () => filter(input));
  const svg = document.getElementById("treemap");
  if (svg) {
    svg.addEventListener("click", (e) => {
      const tile = e.target.closest("g[data-row]");
      const row = tile && document.getElementById(tile.dataset.row);
      if (!row) return;
      const search = document.querySelector('input[data-filter="functions"]');
      if (search && search.value !== "") {
        search.value = "";
        filter(search);
      }
      for (const old of document.querySelectorAll("tr.hit")) old.classList.remove("hit");
      row.classList.add("hit");
      row.scrollIntoView({ block: "center" });
    });
  }
})();
`;
