// I/O benchmark: reader, body decoder, validator and writer on the real-world
// corpus (test/corpus/corpus.ts).
//
//   npm run bench:io [-- --only NAME[,NAME…]] [--runs N] [--profile] [--json FILE]
//
// Each module is measured in a fresh child process (its bytes arrive on
// stdin, as a CLI reads its input), so that peak RSS is that module's alone.
// One run is:
//   decode    readModule + decodeAllBodies
//   validate  validateModule (every body)
//   encode    writeModule with every body re-encoded (none copied)
// Speeds are input bytes per second. Small modules run several times and
// report the median; "first run" is the cold run (JIT warm-up included), which
// is what one CLI invocation pays. "peak RSS" is process.resourceUsage().maxRSS
// right after the first run: the whole process, Node itself included (the
// baseline of an idle child is printed below the table).
//
// --profile writes a V8 CPU profile per module to .cache/profiles/ and prints
// its hot spots (bench/profile-summary.ts).
//
// Target: esbuild.wasm decoded, fully validated and re-encoded in ≤ 2 s and
// ≤ 1 GB peak RSS (first run).

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { corpus } from "../test/corpus/corpus.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { validateModule } from "../src/analysis/validate.js";
import { summarizeProfile, formatSummary } from "./profile-summary.js";

export interface Run {
  decode: number;
  validate: number;
  encode: number;
  total: number;
  /** CPU time of the whole process during the run (user + system, all threads), ms. */
  cpu: number;
}

export interface ChildResult {
  name: string;
  size: number;
  funcs: number;
  outSize: number;
  runs: Run[];
  /** maxRSS (bytes) after the first run. */
  peakFirst: number;
  /** maxRSS (bytes) after all runs. */
  peakAll: number;
}

const TARGET_NAME = "esbuild";
const TARGET_MS = 2000;
const TARGET_RSS = 1024 * 1024 * 1024;

// ---------------------------------------------------------------- child

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const b = Buffer.concat(chunks);
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

function oneRun(bytes: Uint8Array): { run: Run; funcs: number; outSize: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const m = readModule(bytes);
  decodeAllBodies(m);
  const t1 = performance.now();
  validateModule(m);
  const t2 = performance.now();
  const out = writeModule(m, { reencodeAll: true });
  const t3 = performance.now();
  const c = process.cpuUsage(c0);
  return {
    run: { decode: t1 - t0, validate: t2 - t1, encode: t3 - t2, total: t3 - t0, cpu: (c.user + c.system) / 1000 },
    funcs: m.functions.length,
    outSize: out.length,
  };
}

async function child(name: string, runs: number): Promise<void> {
  const bytes = await readStdin();
  const result: ChildResult = { name, size: bytes.length, funcs: 0, outSize: 0, runs: [], peakFirst: 0, peakAll: 0 };
  for (let i = 0; i < runs; i++) {
    const r = oneRun(bytes);
    result.runs.push(r.run);
    result.funcs = r.funcs;
    result.outSize = r.outSize;
    if (i === 0) result.peakFirst = process.resourceUsage().maxRSS * 1024;
  }
  result.peakAll = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify(result) + "\n");
}

async function baselineChild(): Promise<void> {
  const bytes = await readStdin();
  process.stdout.write(JSON.stringify({ size: bytes.length, peak: process.resourceUsage().maxRSS * 1024 }) + "\n");
}

// ---------------------------------------------------------------- parent

function spawnChild(args: string[], nodeArgs: string[], input: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...nodeArgs, fileURLToPath(import.meta.url), ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    p.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    p.on("error", reject);
    p.on("close", (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`child ${args.join(" ")} exited with ${code}:\n${err.trim()}`));
    });
    p.stdin.on("error", () => {}); // the close handler reports a failed child
    p.stdin.end(input);
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

/** Runs per module: enough for a stable median on small modules, few on big ones. */
function defaultRuns(size: number): number {
  if (size >= 4e6) return 3;
  if (size >= 5e5) return 7;
  return 15;
}

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json"))) {
      const name = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown }).name;
      if (name === "wasm-compact") return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the wasm-compact project root");
    dir = up;
  }
}

const fmtMB = (b: number) => (b / 1e6).toFixed(2);
const fmtMiB = (b: number) => (b / 1048576).toFixed(0);
const speed = (size: number, ms: number) => (ms > 0 ? (size / 1e6 / (ms / 1000)).toFixed(1) : "∞");

interface Args {
  only: string[] | null;
  runs: number | null;
  profile: boolean;
  json: string | null;
}

const USAGE = "usage: node dist/bench/io.js [--only NAME[,NAME…]] [--runs N] [--profile] [--json FILE]";

function parseArgs(argv: string[]): Args {
  const a: Args = { only: null, runs: null, profile: false, json: null };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) usage(`${x} needs a value`);
      return v;
    };
    if (x === "--only") a.only = value().split(",");
    else if (x === "--runs") {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) usage("--runs needs a positive integer");
      a.runs = n;
    } else if (x === "--profile") a.profile = true;
    else if (x === "--json") a.json = value();
    else if (x === "--help" || x === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else usage(`unknown argument ${x}`);
  }
  return a;
}

function usage(msg: string): never {
  console.error(`${msg}\n${USAGE}`);
  process.exit(2);
}

async function parent(args: Args): Promise<void> {
  let entries = corpus();
  if (args.only) {
    const unknown = args.only.filter((n) => !entries.some((e) => e.name === n));
    if (unknown.length) usage(`no corpus module named ${unknown.join(", ")} (have: ${entries.map((e) => e.name).join(", ")})`);
    entries = entries.filter((e) => args.only!.includes(e.name));
  }
  const profDir = join(projectRoot(), ".cache", "profiles");
  if (args.profile) mkdirSync(profDir, { recursive: true });

  const baseline = JSON.parse(await spawnChild(["--baseline"], [], entries[0]!.bytes())) as { peak: number };

  const results: ChildResult[] = [];
  const profiles: { name: string; path: string }[] = [];
  for (const e of entries) {
    const runs = args.runs ?? defaultRuns(e.size);
    const nodeArgs: string[] = [];
    if (args.profile) {
      const file = `io-${e.name}.cpuprofile`;
      nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${file}`);
      profiles.push({ name: e.name, path: join(profDir, file) });
    }
    process.stderr.write(`bench:io ${e.name} (${fmtMB(e.size)} MB, ${runs} run${runs > 1 ? "s" : ""})\n`);
    const r = JSON.parse(await spawnChild(["--child", e.name, "--runs", String(runs)], nodeArgs, e.bytes())) as ChildResult;
    results.push(r);
  }

  const rows = results.map((r) => {
    const med = (k: keyof Run) => median(r.runs.map((x) => x[k]));
    return [
      r.name,
      fmtMB(r.size),
      String(r.funcs),
      speed(r.size, med("decode")),
      speed(r.size, med("validate")),
      speed(r.size, med("encode")),
      med("total").toFixed(1),
      r.runs[0]!.total.toFixed(1),
      r.runs[0]!.cpu.toFixed(0),
      fmtMiB(r.peakFirst),
      String(r.runs.length),
    ];
  });
  const head = ["module", "size MB", "funcs", "decode MB/s", "validate MB/s", "encode MB/s", "total ms (median)", "total ms (first run)", "CPU ms (first run)", "peak RSS MiB", "runs"];
  const right = head.map((_, i) => i > 0);
  const lines = [
    `| ${head.join(" | ")} |`,
    `|${right.map((r) => (r ? "---:" : ":---")).join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
  console.log(lines.join("\n"));
  const totalSize = results.reduce((s, r) => s + r.size, 0);
  const totalFirst = results.reduce((s, r) => s + r.runs[0]!.total, 0);
  console.log(`\n${results.length} modules, ${fmtMB(totalSize)} MB; first runs together ${totalFirst.toFixed(0)} ms.`);
  console.log(`Speeds: input MB per second of the median run. CPU: user + system time of the child during its first run, all threads (GC helpers included). Peak RSS: whole child process after its first run; an idle child reading the same stdin peaks at ${fmtMiB(baseline.peak)} MiB.`);
  const load = loadavg();
  console.log(`Machine: ${cpus().length} CPUs, load average ${load.map((x) => x.toFixed(2)).join(" ")} (1/5/15 min) at the end, Node ${process.version}.`);

  const t = results.find((r) => r.name === TARGET_NAME);
  if (t) {
    const first = t.runs[0]!;
    const okT = first.total <= TARGET_MS;
    const okM = t.peakFirst <= TARGET_RSS;
    const busy = first.cpu < 0.8 * first.total;
    console.log(
      `\nTarget (${TARGET_NAME}.wasm, first run): decode ${first.decode.toFixed(0)} + validate ${first.validate.toFixed(0)} + encode ${first.encode.toFixed(0)} = ${first.total.toFixed(0)} ms wall, ${first.cpu.toFixed(0)} ms CPU; ` +
        `≤ ${TARGET_MS} ms: ${okT ? "met" : "NOT met"}. Peak RSS ${fmtMiB(t.peakFirst)} MiB; ≤ ${fmtMiB(TARGET_RSS)} MiB: ${okM ? "met" : "NOT met"}.` +
        (busy ? `\n(The child got ${((100 * first.cpu) / first.total).toFixed(0)}% of a CPU: the machine was busy, so wall times are inflated; CPU time is the better guide.)` : ""),
    );
  }

  if (args.json) writeFileSync(args.json, JSON.stringify({ baselinePeak: baseline.peak, results }, null, 2) + "\n");

  for (const p of profiles) {
    if (!existsSync(p.path)) {
      console.log(`\n(no profile written for ${p.name})`);
      continue;
    }
    console.log(`\n## CPU profile: ${p.name} (${p.path})\n`);
    console.log(formatSummary(summarizeProfile(p.path), 25));
  }
}

// ---------------------------------------------------------------- entry

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  const runsAt = argv.indexOf("--runs");
  await child(argv[1]!, runsAt > 0 ? Number(argv[runsAt + 1]) : 1);
} else if (argv[0] === "--baseline") {
  await baselineChild();
} else {
  await parent(parseArgs(argv));
}
