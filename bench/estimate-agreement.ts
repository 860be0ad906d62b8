// How often the estimate judge agrees with the real measures. Runs the
// default pipeline under balanced on each file (one thread, Node's zlib),
// records every comparison the estimator makes (both modules), then measures
// each pair again: the estimate's inputs (the modules' estimate views:
// gzip -9, and brotli at each quality asked for) and the real measures of the
// whole modules (gzip -9, brotli quality 11). For each quality it prints how
// often the estimator's verdict, with that quality as its brotli measure,
// agrees with the real measures' verdict, and how it errs. This is how the
// estimate's quality (compressor-measures.ts) was chosen.
//
//   node dist/bench/estimate-agreement.js [--qualities 5,7,8,9] [--jsonl FILE] FILE.wasm...
//
// Only modules from 64 KiB to 4 MiB are judged on the estimate. A quality-11
// run of each module compared, so it takes minutes on the corpus.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { optimize } from "../src/index.js";
import { brotliAt, gzipSize, nodeMeasures } from "../src/cli/compress.js";
import { estimateView, SizeJudge } from "../src/size-target.js";

interface Pair {
  file: string;
  strict: boolean;
  verdict: boolean;
  before: Uint8Array;
  after: Uint8Array;
}

/**
 * One pair measured: raw lengths, the views' gzip and brotli per quality, the
 * whole modules' gzip and brotli q11, and the verdicts SizeJudge gives on them:
 * the estimator's with each quality as its estimate, and the real measures'.
 */
interface Measured {
  file: string;
  strict: boolean;
  verdict: boolean;
  raw: [number, number];
  viewGzip: [number, number];
  viewBrotli: Record<number, [number, number]>;
  gzip: [number, number];
  brotli11: [number, number];
  estimated: Record<number, boolean>;
  real: boolean;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { qualities: { type: "string", default: "5,7,8,9" }, jsonl: { type: "string" } } });
const qualities = values.qualities!.split(",").map(Number);
if (positionals.length === 0 || qualities.some((q) => !Number.isInteger(q) || q < 0 || q > 11)) {
  console.error("usage: node dist/bench/estimate-agreement.js [--qualities 5,7,8,9] [--jsonl FILE] FILE.wasm...");
  process.exit(2);
}

/** Records the estimator's comparisons: the judges whose brotli measure is not the real one and that screen. */
function recording(file: string, into: Pair[]): () => void {
  const proto = SizeJudge.prototype as unknown as Record<"better" | "notWorse", (this: SizeJudge, b: Uint8Array, a: Uint8Array) => boolean>;
  const saved = { better: proto.better, notWorse: proto.notWorse };
  for (const m of ["better", "notWorse"] as const) {
    const orig = saved[m];
    proto[m] = function (this: SizeJudge, before: Uint8Array, after: Uint8Array): boolean {
      const verdict = orig.call(this, before, after);
      const ms = (this as unknown as { measures: { brotli?: unknown; brotliFast?: unknown } }).measures;
      if (this.target === "balanced" && ms.brotli !== nodeMeasures.brotli && ms.brotliFast !== undefined) {
        into.push({ file, strict: m === "better", verdict, before: before.slice(), after: after.slice() });
      }
      return verdict;
    };
  }
  return () => Object.assign(proto, saved);
}

const known = new Map<string, number>();
function cached(tag: string, b: Uint8Array, f: () => number): number {
  const key = `${tag}:${createHash("sha1").update(b).digest("hex")}`;
  let v = known.get(key);
  if (v === undefined) known.set(key, (v = f()));
  return v;
}
// the pipeline's own measures (Node's zlib: gzip -9, brotli at window 22), cached by content
const gzip = (b: Uint8Array): number => cached("gzip", b, () => gzipSize(b));
const brotli = (b: Uint8Array, q: number): number => cached(`brotli${q}`, b, () => brotliAt(b, q));

/**
 * The judges that decide a pair, on the measures above (content-keyed, so
 * every size is computed once): per quality q, the estimator of a balanced
 * judge whose estimate is quality q (the quality-5 screen, then gzip and
 * quality q of the views, as the pipeline's estimator judges), and the
 * balanced judge on the real measures of the whole modules.
 */
const estimators = new Map(
  qualities.map((q) => {
    const top = new SizeJudge("balanced", { gzip, brotli: (b) => brotli(b, 11), brotliFast: (b) => brotli(b, 5), brotliEstimate: (b) => brotli(b, q) });
    return [q, top.estimator()!] as const;
  }),
);
const realJudge = new SizeJudge("balanced", { gzip, brotli: (b) => brotli(b, 11) });

function verdict(judge: SizeJudge, p: Pair): boolean {
  return p.strict ? judge.better(p.before, p.after) : judge.notWorse(p.before, p.after);
}

function measure(p: Pair): Measured {
  const vb = estimateView(p.before);
  const va = estimateView(p.after);
  const viewBrotli: Record<number, [number, number]> = {};
  for (const q of new Set([5, ...qualities])) viewBrotli[q] = [brotli(vb, q), brotli(va, q)];
  const estimated: Record<number, boolean> = {};
  for (const [q, judge] of estimators) estimated[q] = verdict(judge, p);
  return {
    file: p.file,
    strict: p.strict,
    verdict: p.verdict,
    raw: [p.before.length, p.after.length],
    viewGzip: [gzip(vb), gzip(va)],
    viewBrotli,
    gzip: [gzip(p.before), gzip(p.after)],
    brotli11: [brotli(p.before, 11), brotli(p.after, 11)],
    estimated,
    real: verdict(realJudge, p),
  };
}

const rows: Measured[] = [];
for (const file of positionals) {
  const pairs: Pair[] = [];
  const restore = recording(basename(file), pairs);
  try {
    optimize(new Uint8Array(readFileSync(file)), { target: "balanced", measures: nodeMeasures });
  } finally {
    restore();
  }
  for (const p of pairs) rows.push(measure(p));
  console.log(`${basename(file)}: ${pairs.length} comparisons`);
}
if (values.jsonl) writeFileSync(values.jsonl, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");

console.log(`\n${rows.length} comparisons in ${new Set(rows.map((r) => r.file)).size} files; the real measures take ${rows.filter((r) => r.real).length}`);
for (const q of qualities) {
  let agree = 0;
  let wrongYes = 0;
  let wrongNo = 0;
  for (const r of rows) {
    const e = r.estimated[q]!;
    if (e === r.real) agree++;
    else if (e) wrongYes++;
    else wrongNo++;
  }
  const share = rows.length > 0 ? ((100 * agree) / rows.length).toFixed(1) : "-";
  console.log(`quality ${q}: agrees on ${agree} (${share} %); takes ${wrongYes} the real measures refuse, refuses ${wrongNo} they take`);
}
