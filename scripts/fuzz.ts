// Differential fuzzing of the optimizer with random C programs from Csmith.
//
//   npm run fuzz -- [--count N] [--seed S] [--passes a,b|none|default+PASS] [--target T,…]
//                   [--outline-hot off|on|both] [--keep-dir DIR]
//                   [--jobs J] [--timeout MS] [--no-wasm-opt] [--verbose]
//   node dist/scripts/fuzz.js --compare A.wasm B.wasm
//
// --passes default+PASS runs each target's default pipeline with PASS right
// after outline (how a pass outside the defaults is tried inside them).
//
// For i in 0..N-1, with seed S+i:
//   1. csmith --seed S+i (bounded sizes, so programs run quickly);
//   2. clang-19 --target=wasm32-wasi -O<level> -c (the level cycles with the
//      seed through -O2 -Oz -Os -O1 -O0), then link without -O and with a PATH
//      that holds no wasm-opt, so clang cannot run wasm-opt itself;
//   3. a second variant: that module through wasm-opt -Oz (npm binaryen), as
//      our users run us after wasm-opt;
//   4. each variant is run under node:wasi (argument "1": Csmith then prints
//      the checksum of every global, not only the final one), optimized with
//      optimize() and run again; stdout, stderr, exit code and files must be
//      identical. Each target (--target) and outline-hot setting (on: the
//      passes rewrite hot code too, which in these small programs is most of
//      the code the static estimate protects by default) is its own comparison.
// Programs whose unoptimized module times out or does not exit with 0 are
// skipped (as are programs Csmith or clang fail on). On a difference, or if
// the optimizer throws, the C source, both modules and the difference are
// kept in DIR/seed-S+i and a one-line reproduction command is printed.
// The last line is "fuzz: N programs, D differences, S skipped in T s"; the
// exit status is 1 if there were differences.
//
// Needs Debian's clang-19, lld-19, wasi-libc, libclang-rt-19-dev-wasm32,
// csmith and libcsmith-dev (for csmith.h).

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { getPass, optimize, SIZE_TARGETS, type SizeTarget } from "../src/index.js";
import { defaultPipelineWith } from "../src/passes/registry.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { compareOutcomes, describeEnd, runWasi, type WasiOutcome } from "../test/oracle/wasi-runner.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WASM_OPT = join(REPO_ROOT, "node_modules", "binaryen", "bin", "wasm-opt");

export const CLANG = process.env["WASM_COMPACT_CLANG"] ?? "clang-19";
export const CSMITH = process.env["WASM_COMPACT_CSMITH"] ?? "csmith";

/** Csmith options that keep programs small and quick to run. */
export const CSMITH_OPTIONS: readonly string[] = [
  "--max-funcs", "8",
  "--max-block-depth", "4",
  "--max-block-size", "4",
  "--max-expr-complexity", "8",
  "--max-array-dim", "2",
  "--max-array-len-per-dim", "8",
  "--max-struct-fields", "6",
  "--max-union-fields", "4",
  "--max-pointer-depth", "2",
];

/** clang optimization levels, chosen by seed. */
export const OPT_LEVELS: readonly string[] = ["-O2", "-Oz", "-Os", "-O1", "-O0"];

export interface FuzzOptions {
  count: number;
  seed: number;
  /** Pass names; undefined: the default pipeline; []: none. */
  passes?: string[];
  /** Instead of `passes`: each target's default pipeline with this pass right after outline. */
  plus?: string;
  /**
   * Size targets the passes judge by; each compiled program is optimized and
   * run once per target (compiling is the slow part). Default: the library's
   * own default (raw, since the fuzzer gives no compressors).
   */
  targets?: SizeTarget[];
  /**
   * outlineHot settings to run each target under: false is the default (the
   * static estimate keeps calls out of hot code, which in these small programs
   * is most code), true lets the passes rewrite all of it. Default [false].
   */
  outlineHot?: boolean[];
  keepDir: string;
  jobs: number;
  /** Timeout for a run of an unoptimized module (ms). */
  timeoutMs: number;
  /** Also test the wasm-opt -Oz variant. */
  wasmOpt: boolean;
  verbose: boolean;
  /** Replaces optimize() (tests use it to check that differences are caught). */
  transform?: (bytes: Uint8Array) => Uint8Array;
  /** Where progress lines go; default stdout. */
  log?: (line: string) => void;
}

export interface FuzzFailure {
  seed: number;
  variant: string;
  dir: string;
  repro: string;
  difference: string;
}

export interface FuzzSummary {
  programs: number;
  differences: number;
  skipped: number;
  seconds: number;
  /** Modules compared before/after (up to two per program and target). */
  compared: number;
  skipReasons: Record<string, number>;
  failures: FuzzFailure[];
  /** Sum of module sizes before and after optimization, over compared modules. */
  bytesBefore: number;
  bytesAfter: number;
}

// ---------------------------------------------------------------- processes

interface ExecResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function exec(cmd: string, args: readonly string[], opts: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv }): Promise<ExecResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, opts.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolvePromise({ code: null, signal: null, stdout: "", stderr: String(e), timedOut: false });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        timedOut,
      });
    });
  });
}

/** PATH without directories that hold a wasm-opt (clang runs one when linking with -O). */
export function pathWithoutWasmOpt(path = process.env["PATH"] ?? ""): string {
  return path
    .split(delimiter)
    .filter((d) => d !== "" && !existsSync(join(d, "wasm-opt")))
    .join(delimiter);
}

function onPath(cmd: string, path = process.env["PATH"] ?? ""): boolean {
  if (cmd.includes("/")) return existsSync(cmd);
  return path.split(delimiter).some((d) => d !== "" && existsSync(join(d, cmd)));
}

export function csmithIncludeDir(): string | null {
  const candidates = [process.env["CSMITH_INCLUDE"], "/usr/include/csmith", "/usr/local/include/csmith"];
  for (const c of candidates) if (c && existsSync(join(c, "csmith.h"))) return c;
  return null;
}

/** What is missing to fuzz (empty when everything is installed). */
export function missingTools(wasmOpt = true): string[] {
  const missing: string[] = [];
  if (!onPath(CLANG)) missing.push(`${CLANG} (apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32)`);
  if (!onPath(CSMITH)) missing.push(`${CSMITH} (apt-get install csmith)`);
  if (!csmithIncludeDir()) missing.push("csmith.h (apt-get install libcsmith-dev)");
  // Debian's locations; clang-19 finds both without a --sysroot.
  if (!existsSync("/usr/include/wasm32-wasi/stdio.h")) missing.push("wasi-libc (apt-get install wasi-libc)");
  if (!existsSync("/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a")) {
    missing.push("libclang_rt.builtins-wasm32.a (apt-get install libclang-rt-19-dev-wasm32)");
  }
  if (wasmOpt && !existsSync(WASM_OPT)) missing.push(`${WASM_OPT} (npm ci)`);
  return missing;
}

// ------------------------------------------------------------------ fuzzing

interface ProgramResult {
  seed: number;
  skipped: string | null;
  compared: number;
  failures: FuzzFailure[];
  bytesBefore: number;
  bytesAfter: number;
  notes: string[];
}

function passesArg(passes: string[] | undefined, plus?: string): string {
  if (plus !== undefined) return ` --passes default+${plus}`;
  if (passes === undefined) return "";
  return ` --passes ${passes.length === 0 ? "none" : passes.join(",")}`;
}

function firstLines(s: string, n: number): string {
  const lines = s.split("\n");
  return lines.slice(0, n).join("\n") + (lines.length > n ? `\n… (${lines.length - n} more lines)` : "");
}

async function fuzzOne(seed: number, o: FuzzOptions, clangEnv: NodeJS.ProcessEnv, include: string): Promise<ProgramResult> {
  const result: ProgramResult = { seed, skipped: null, compared: 0, failures: [], bytesBefore: 0, bytesAfter: 0, notes: [] };
  const work = mkdtempSync(join(tmpdir(), `wasm-compact-fuzz-${seed}-`));
  const times: string[] = [];
  let t0 = performance.now();
  const lap = (what: string): void => {
    const t = performance.now();
    times.push(`${what} ${((t - t0) / 1000).toFixed(2)}s`);
    t0 = t;
  };
  try {
    const cFile = join(work, "prog.c");
    const gen = await exec(CSMITH, ["--seed", String(seed), ...CSMITH_OPTIONS, "-o", cFile], { timeoutMs: 60000, cwd: work });
    lap("csmith");
    if (gen.code !== 0 || !existsSync(cFile)) {
      result.skipped = "csmith failed";
      return result;
    }
    const level = OPT_LEVELS[seed % OPT_LEVELS.length]!;
    const obj = join(work, "prog.o");
    const wasmPath = join(work, "prog.wasm");
    const cc = await exec(CLANG, ["--target=wasm32-wasi", level, "-w", `-I${include}`, "-c", cFile, "-o", obj], {
      timeoutMs: 180000,
      cwd: work,
      env: clangEnv,
    });
    lap("clang -c");
    if (cc.code !== 0) {
      result.skipped = cc.timedOut ? "clang timed out" : "clang failed";
      if (o.verbose) result.notes.push(firstLines(cc.stderr, 5));
      return result;
    }
    const ld = await exec(CLANG, ["--target=wasm32-wasi", "-Wl,--strip-debug", obj, "-o", wasmPath], { timeoutMs: 60000, cwd: work, env: clangEnv });
    if (ld.code !== 0) {
      result.skipped = "link failed";
      if (o.verbose) result.notes.push(firstLines(ld.stderr, 5));
      return result;
    }
    // The clang module first: if it does not run cleanly the program is
    // skipped before the (slow) wasm-opt step.
    let reference: WasiOutcome | null = null;
    const variants = [{ name: `clang ${level}`, file: wasmPath, tag: "" }];
    for (let vi = 0; vi < variants.length; vi++) {
      const v = variants[vi]!;
      const original = new Uint8Array(readFileSync(v.file));
      const before = await runWasi(original, { args: ["1"], programName: "prog", timeoutMs: o.timeoutMs });
      lap(`run ${vi}`);
      if (before.timedOut || before.exitCode !== 0) {
        if (vi === 0) {
          result.skipped = before.timedOut ? "timed out unoptimized" : "crashed unoptimized";
          return result;
        }
        result.notes.push(`${v.name}: the unoptimized module ${describeEnd(before)}; variant not compared`);
        continue;
      }
      if (reference === null) reference = before;
      else if (compareOutcomes(reference, before, ["clang", "wasm-opt"]) !== null) {
        // Not ours to judge (binaryen, or a Csmith program with undefined behaviour).
        result.notes.push(`${v.name}: behaves differently from the clang module; compared with itself only`);
      }
      for (const target of o.targets ?? [undefined]) for (const outlineHot of o.outlineHot ?? [false]) {
        const variant = `${target ? `${v.name}, target ${target}` : v.name}${outlineHot ? ", outline-hot" : ""}`;
        let optimized: Uint8Array | null = null;
        let difference: string | null = null;
        try {
          optimized = o.transform
            ? o.transform(original.slice())
            : optimize(original.slice(), {
                ...(o.plus !== undefined ? { passes: defaultPipelineWith(target ?? "raw", o.plus) } : o.passes === undefined ? {} : { passes: o.passes }),
                ...(target ? { target, measures: nodeMeasures } : {}),
                ...(outlineHot ? { outlineHot } : {}),
              }).binary;
        } catch (e) {
          difference = `the optimizer threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
        }
        if (optimized) {
          const after = await runWasi(optimized, {
            args: ["1"],
            programName: "prog",
            timeoutMs: Math.max(10000, Math.ceil(before.durationMs * 5)),
          });
          difference = compareOutcomes(before, after);
          lap(`optimize+run ${vi}${target ? ` ${target}` : ""}${outlineHot ? " outline-hot" : ""}`);
          result.compared++;
          result.bytesBefore += original.length;
          result.bytesAfter += optimized.length;
        }
        if (difference !== null) {
          const dir = join(o.keepDir, `seed-${seed}${v.tag}${target ? `-${target}` : ""}${outlineHot ? "-outline-hot" : ""}`);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, "prog.c"), readFileSync(cFile));
          writeFileSync(join(dir, "original.wasm"), original);
          if (optimized) writeFileSync(join(dir, "optimized.wasm"), optimized);
          const repro = `npm run fuzz -- --count 1 --seed ${seed}${passesArg(o.passes, o.plus)}${target ? ` --target ${target}` : ""}${outlineHot ? " --outline-hot on" : ""}${o.wasmOpt ? "" : " --no-wasm-opt"}`;
          const compare = optimized ? `node dist/scripts/fuzz.js --compare ${join(dir, "original.wasm")} ${join(dir, "optimized.wasm")}` : "";
          writeFileSync(
            join(dir, "difference.txt"),
            [
              `seed ${seed}, variant: ${variant}, passes: ${o.plus !== undefined ? `default pipeline with ${o.plus}` : o.passes === undefined ? "default pipeline" : o.passes.length ? o.passes.join(",") : "none"}`,
              `csmith ${CSMITH_OPTIONS.join(" ")} --seed ${seed}`,
              `clang-19 --target=wasm32-wasi ${level} -c prog.c; linked without -O${v.tag ? "; then wasm-opt -Oz" : ""}`,
              `reproduce: ${repro}`,
              compare ? `compare the kept modules: ${compare}` : "",
              "",
              difference,
              "",
            ].join("\n"),
          );
          result.failures.push({ seed, variant, dir, repro, difference });
        }
      }
      if (vi === 0 && o.wasmOpt) {
        const woptPath = join(work, "prog.wasm-opt.wasm");
        const wo = await exec(process.execPath, [WASM_OPT, wasmPath, "-Oz", "-o", woptPath], { timeoutMs: 300000, cwd: work });
        lap("wasm-opt");
        if (wo.code === 0 && existsSync(woptPath)) variants.push({ name: `clang ${level} + wasm-opt -Oz`, file: woptPath, tag: "-wasm-opt" });
        else result.notes.push(`wasm-opt -Oz failed: ${firstLines(wo.stderr, 3)}`);
      }
    }
    return result;
  } finally {
    if (o.verbose) result.notes.push(times.join(", "));
    rmSync(work, { recursive: true, force: true });
  }
}

export async function fuzz(o: FuzzOptions): Promise<FuzzSummary> {
  const log = o.log ?? ((line: string) => process.stdout.write(line + "\n"));
  const include = csmithIncludeDir();
  const missing = missingTools(o.wasmOpt);
  if (missing.length || !include) throw new Error(`fuzz: missing ${missing.join(", ")}`);
  const clangEnv: NodeJS.ProcessEnv = { ...process.env, PATH: pathWithoutWasmOpt() };
  if (onPath("wasm-opt", clangEnv["PATH"])) throw new Error("fuzz: a wasm-opt is still on the PATH given to clang");

  const started = performance.now();
  const summary: FuzzSummary = {
    programs: o.count,
    differences: 0,
    skipped: 0,
    seconds: 0,
    compared: 0,
    skipReasons: {},
    failures: [],
    bytesBefore: 0,
    bytesAfter: 0,
  };
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < o.count) {
      const seed = o.seed + next++;
      const r = await fuzzOne(seed, o, clangEnv, include);
      done++;
      summary.compared += r.compared;
      summary.bytesBefore += r.bytesBefore;
      summary.bytesAfter += r.bytesAfter;
      if (r.skipped) {
        summary.skipped++;
        summary.skipReasons[r.skipped] = (summary.skipReasons[r.skipped] ?? 0) + 1;
      }
      if (r.failures.length) summary.differences++;
      for (const f of r.failures) {
        summary.failures.push(f);
        log(`DIFFERENCE seed ${f.seed} (${f.variant}), kept in ${f.dir}:`);
        log(firstLines(f.difference, 12).replace(/^/gm, "  "));
        log(`repro: ${f.repro}`);
      }
      if (o.verbose) {
        const what = r.skipped ? `skipped: ${r.skipped}` : r.failures.length ? "DIFFERENT" : `ok (${r.compared} modules)`;
        log(`seed ${seed}: ${what}${r.notes.length ? `\n  ${r.notes.join("\n  ")}` : ""}`);
      } else if (done % 25 === 0 && done < o.count) {
        const s = ((performance.now() - started) / 1000).toFixed(0);
        log(`fuzz: ${done}/${o.count} done, ${summary.differences} differences, ${summary.skipped} skipped (${s} s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.jobs) }, () => worker()));
  summary.failures.sort((a, b) => a.seed - b.seed);
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

export function summaryLine(s: FuzzSummary): string {
  return `fuzz: ${s.programs} programs, ${s.differences} differences, ${s.skipped} skipped in ${s.seconds.toFixed(1)} s`;
}

// ---------------------------------------------------------------------- CLI

const USAGE = `usage: npm run fuzz -- [--count N] [--seed S] [--passes a,b|none|default+PASS] [--target T1,T2,… (raw|gzip|brotli|balanced)]
                       [--outline-hot off|on|both] [--keep-dir DIR]
                       [--jobs J] [--timeout MS] [--no-wasm-opt] [--verbose]
       node dist/scripts/fuzz.js --compare A.wasm B.wasm`;

function parseArgs(argv: string[]): FuzzOptions | { compare: [string, string] } {
  const o: FuzzOptions = {
    count: 100,
    seed: 1,
    keepDir: join(tmpdir(), "wasm-compact-fuzz-failures"),
    jobs: 2,
    timeoutMs: 3000,
    wasmOpt: true,
    verbose: false,
  };
  const int = (name: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) throw new Error(`${name} needs an integer >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case "--count": o.count = int("--count", value(), 0); break;
      case "--seed": o.seed = int("--seed", value(), 0); break;
      case "--jobs": o.jobs = int("--jobs", value(), 1); break;
      case "--timeout": o.timeoutMs = int("--timeout", value(), 100); break;
      case "--keep-dir": {
        const v = value();
        if (!v) throw new Error("--keep-dir needs a directory");
        o.keepDir = resolve(v);
        break;
      }
      case "--passes": {
        const v = value();
        if (v === undefined) throw new Error("--passes needs a comma-separated list (or none)");
        if (v.startsWith("default+")) o.plus = v.slice("default+".length);
        else o.passes = v === "none" ? [] : v.split(",").map((s) => s.trim()).filter(Boolean);
        break;
      }
      case "--target": {
        const list = (value() ?? "").split(",").map((t) => t.trim());
        const bad = list.filter((t) => !SIZE_TARGETS.includes(t as SizeTarget));
        if (bad.length || list.length === 0) throw new Error(`--target needs a comma-separated list of ${SIZE_TARGETS.join(", ")}`);
        o.targets = [...new Set(list as SizeTarget[])];
        break;
      }
      case "--outline-hot": {
        const v = value();
        const modes: Record<string, boolean[]> = { off: [false], on: [true], both: [false, true] };
        if (v === undefined || !modes[v]) throw new Error("--outline-hot needs off, on or both");
        o.outlineHot = modes[v];
        break;
      }
      case "--no-wasm-opt": o.wasmOpt = false; break;
      case "--verbose": o.verbose = true; break;
      case "--compare": {
        const x = argv[++i], y = argv[++i];
        if (!x || !y) throw new Error("--compare needs two .wasm files");
        return { compare: [x, y] };
      }
      case "--help":
      case "-h":
        process.stdout.write(USAGE + "\n");
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${a}`);
    }
  }
  return o;
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`fuzz: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
    return 2;
  }
  if ("compare" in parsed) {
    const [x, y] = parsed.compare;
    const [a, b] = await Promise.all([
      runWasi(x, { args: ["1"], programName: "prog" }),
      runWasi(y, { args: ["1"], programName: "prog" }),
    ]);
    const d = compareOutcomes(a, b, [x, y]);
    process.stdout.write(d === null ? "same behaviour\n" : d + "\n");
    return d === null ? 0 : 1;
  }
  const unknown = [...(parsed.passes ?? []), ...(parsed.plus !== undefined ? [parsed.plus] : [])].filter((p) => !getPass(p));
  if (unknown.length) {
    process.stderr.write(`fuzz: unknown pass${unknown.length > 1 ? "es" : ""} ${unknown.join(", ")}\n`);
    return 2;
  }
  const missing = missingTools(parsed.wasmOpt);
  if (missing.length) {
    process.stderr.write(`fuzz: missing ${missing.join(", ")}\n`);
    return 2;
  }
  const s = await fuzz(parsed);
  const reasons = Object.entries(s.skipReasons).map(([k, v]) => `${v} ${k}`).join(", ");
  if (reasons) process.stdout.write(`skipped: ${reasons}\n`);
  if (s.compared > 0) {
    const pct = ((100 * (s.bytesAfter - s.bytesBefore)) / s.bytesBefore).toFixed(2);
    process.stdout.write(`compared ${s.compared} modules; total size ${s.bytesBefore} -> ${s.bytesAfter} bytes (${pct}%)\n`);
  }
  if (s.failures.length) process.stdout.write(`kept in ${parsed.keepDir}\n`);
  process.stdout.write(summaryLine(s) + "\n");
  return s.differences > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`fuzz: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 2;
    },
  );
}
