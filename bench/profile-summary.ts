// Summarizes a V8 .cpuprofile (node --cpu-prof): self and total time per
// function and the hottest source lines inside each, mapped back to the
// TypeScript sources through tsc's source maps.
//
//   node dist/bench/profile-summary.js FILE.cpuprofile [--top N]

import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number; // 0-based
  columnNumber: number; // 0-based
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[]; // line 1-based
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface FunctionCost {
  name: string;
  /** "src/binary/reader.ts:123" (TypeScript when mapped), or the URL. */
  location: string;
  selfMs: number;
  totalMs: number;
  /** Hottest lines by self samples: location and ms. */
  lines: { location: string; ms: number }[];
}

export interface ProfileSummary {
  totalMs: number;
  functions: FunctionCost[];
}

const maps = new Map<string, { map: SourceMap | null; js: string[] }>();

function sourceInfo(url: string): { map: SourceMap | null; js: string[] } | null {
  if (!url.startsWith("file://")) return null;
  let info = maps.get(url);
  if (!info) {
    const path = fileURLToPath(url);
    const js = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
    let map: SourceMap | null = null;
    if (existsSync(path + ".map")) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(path + ".map", "utf8")));
      } catch {
        map = null;
      }
    }
    info = { map, js };
    maps.set(url, info);
  }
  return info;
}

const cwd = process.cwd();

function prettyPath(p: string): string {
  const path = p.startsWith("file://") ? fileURLToPath(p) : p;
  const r = relative(cwd, path);
  return r.startsWith("..") ? path : r;
}

/** Maps a 0-based JS line (and column, or the line's first non-blank column) to "file.ts:line". */
function locate(url: string, line0: number, col0: number | null): string {
  const info = sourceInfo(url);
  if (!url) return "(native)";
  if (info?.map) {
    const col = col0 ?? Math.max(0, (info.js[line0] ?? "").search(/\S/));
    const e = info.map.findEntry(line0, col) as { originalSource?: string; originalLine?: number };
    if (e && e.originalSource !== undefined && e.originalLine !== undefined) {
      // tsc writes sources relative to the map's folder.
      const src = e.originalSource.startsWith("file://") ? fileURLToPath(e.originalSource) : resolve(dirname(fileURLToPath(url)), e.originalSource);
      return `${prettyPath(src)}:${e.originalLine + 1}`;
    }
  }
  return `${prettyPath(url)}:${line0 + 1}`;
}

export function summarizeProfile(path: string): ProfileSummary {
  const prof = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of prof.nodes) byId.set(n.id, n);
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const samples = prof.samples ?? [];
  const deltas = prof.timeDeltas ?? [];
  const totalMs = (prof.endTime - prof.startTime) / 1000;
  // Time per sample: the delta to the next sample (V8's convention).
  const sampleMs = samples.map((_, i) => (deltas[i + 1] ?? deltas[i] ?? 0) / 1000);

  const keyOf = (cf: CallFrame) => `${cf.functionName}\0${cf.url}\0${cf.lineNumber}\0${cf.columnNumber}`;
  const costs = new Map<string, { cf: CallFrame; self: number; total: number; lines: Map<number, number> }>();
  const get = (cf: CallFrame) => {
    const k = keyOf(cf);
    let c = costs.get(k);
    if (!c) {
      c = { cf, self: 0, total: 0, lines: new Map() };
      costs.set(k, c);
    }
    return c;
  };

  const selfSamples = new Map<number, number>(); // node id -> ms
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    const ms = sampleMs[i]!;
    selfSamples.set(id, (selfSamples.get(id) ?? 0) + ms);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const cf = byId.get(n)!.callFrame;
      const k = keyOf(cf);
      if (seen.has(k)) continue;
      seen.add(k);
      get(cf).total += ms;
    }
  }
  for (const [id, ms] of selfSamples) {
    const node = byId.get(id)!;
    const c = get(node.callFrame);
    c.self += ms;
    const ticks = node.positionTicks ?? [];
    const all = ticks.reduce((s, t) => s + t.ticks, 0);
    for (const t of ticks) c.lines.set(t.line, (c.lines.get(t.line) ?? 0) + (ms * t.ticks) / all);
  }

  const functions: FunctionCost[] = [];
  for (const c of costs.values()) {
    const cf = c.cf;
    const name = cf.functionName || (cf.url ? "(anonymous)" : "(program)");
    const lines = [...c.lines.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([line, ms]) => ({ location: cf.url ? locate(cf.url, line - 1, null) : "?", ms }));
    functions.push({
      name,
      location: cf.url ? locate(cf.url, cf.lineNumber, cf.columnNumber) : "(native)",
      selfMs: c.self,
      totalMs: c.total,
      lines,
    });
  }
  functions.sort((a, b) => b.selfMs - a.selfMs);
  return { totalMs, functions };
}

export function formatSummary(s: ProfileSummary, top: number): string {
  const pct = (ms: number) => ((100 * ms) / s.totalMs).toFixed(1) + "%";
  const out = [
    `profile ${s.totalMs.toFixed(0)} ms`,
    "",
    "| self ms | self | total ms | total | function | where | hottest lines (self ms) |",
    "|---:|---:|---:|---:|:---|:---|:---|",
  ];
  for (const f of s.functions.slice(0, top)) {
    const lines = f.lines
      .filter((l) => l.ms >= 0.5)
      .map((l) => `${l.location.split("/").pop()} (${l.ms.toFixed(0)})`)
      .join(", ");
    out.push(`| ${f.selfMs.toFixed(0)} | ${pct(f.selfMs)} | ${f.totalMs.toFixed(0)} | ${pct(f.totalMs)} | ${f.name} | ${f.location} | ${lines} |`);
  }
  return out.join("\n");
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const args = process.argv.slice(2);
  let file: string | undefined;
  let top = 30;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--top") top = Number(args[++i]);
    else if (file === undefined) file = args[i];
    else top = NaN; // a second file: usage error
  }
  if (!file || !Number.isInteger(top) || top < 1) {
    console.error("usage: node dist/bench/profile-summary.js FILE.cpuprofile [--top N]");
    process.exit(2);
  }
  console.log(formatSummary(summarizeProfile(file), top));
}
