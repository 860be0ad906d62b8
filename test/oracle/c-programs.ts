// The behaviour oracle for our own C and C++ programs (fixtures/c, fixtures/cpp),
// compiled to wasm32-wasi by scripts/build-fixtures.sh into fixtures/wasm in
// three variants each (-O2, -Oz, -Oz then wasm-opt -Oz).
//
// Every program has workloads: arguments, standard input and input files.
// checkFixture() runs each workload with the original module and with the
// optimized one, each in a fresh node:wasi child process, and compares
// stdout, stderr, exit code (or trap) and the files left in the sandbox.
// Each workload also states what the original run must show (exit code and
// a piece of stdout), so a workload that silently stopped doing its work
// (a missing input file, say) fails instead of comparing two empty runs.
//
// Passes: by default the oracle optimizes with the default pipeline. The
// environment variable WASM_COMPACT_ORACLE_PASSES selects others: a comma-
// separated list of pass names, or "none" for the identity pipeline.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { optimize, type OptimizeOptions } from "../../src/index.js";
import { compareOutcomes, describeEnd, runWasi, type WasiOutcome } from "./wasi-runner.js";

/** The repository root (this file is dist/test/oracle/c-programs.js once built). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const FIXTURES_DIR = join(REPO_ROOT, "fixtures");
export const FIXTURE_WASM_DIR = join(FIXTURES_DIR, "wasm");

export const VARIANTS = ["O2", "Oz", "Oz-wasmopt"] as const;
export type Variant = (typeof VARIANTS)[number];

export interface Workload {
  name: string;
  args: string[];
  /** Sandbox file name -> path under fixtures/inputs. */
  inputs?: Record<string, string>;
  /** Path under fixtures/inputs whose contents are the standard input. */
  stdin?: string;
  /** Exit code the original run must end with. */
  expectExit: number;
  /** Text the original run's stdout must contain. */
  expectStdout: string;
  /** Files (sandbox names) the original run must leave behind. */
  expectFiles?: string[];
}

export interface FixtureProgram {
  name: string;
  language: "c" | "c++";
  source: string;
  workloads: Workload[];
}

export const PROGRAMS: readonly FixtureProgram[] = [
  {
    name: "interp",
    language: "c",
    source: "fixtures/c/interp.c",
    workloads: [
      {
        name: "algorithms",
        args: ["algorithms.src", "algorithms.dis"],
        inputs: { "algorithms.src": "interp/algorithms.src" },
        expectExit: 0,
        expectStdout: "fib 19 = 4181",
        expectFiles: ["algorithms.dis"],
      },
      {
        name: "sort",
        args: ["sort.src", "sort.dis"],
        inputs: { "sort.src": "interp/sort.src" },
        expectExit: 0,
        expectStdout: "merge",
        expectFiles: ["sort.dis"],
      },
      {
        name: "runtime-error",
        args: ["error.src"],
        inputs: { "error.src": "interp/error.src" },
        expectExit: 3,
        expectStdout: "division by zero",
      },
      {
        name: "syntax-error",
        args: ["syntax.src"],
        inputs: { "syntax.src": "interp/syntax.src" },
        expectExit: 2,
        expectStdout: "expected an expression",
      },
    ],
  },
  {
    name: "compress",
    language: "c",
    source: "fixtures/c/compress.c",
    workloads: [
      {
        name: "prose",
        args: ["prose.txt", "prose.lzh"],
        inputs: { "prose.txt": "text/prose.txt" },
        expectExit: 0,
        expectStdout: "decompressed ok",
        expectFiles: ["prose.lzh"],
      },
      {
        name: "generated",
        args: ["gen:120000:7", "gen.lzh", "1", "4"],
        expectExit: 0,
        expectStdout: "level 4:",
        expectFiles: ["gen.lzh"],
      },
      {
        name: "self",
        args: ["interp.c", "interp.lzh", "2", "3"],
        inputs: { "interp.c": "../c/interp.c" },
        expectExit: 0,
        expectStdout: "round trip ok",
        expectFiles: ["interp.lzh"],
      },
    ],
  },
  {
    name: "json",
    language: "c",
    source: "fixtures/c/json.c",
    workloads: [
      {
        name: "catalog",
        args: ["catalog.json", "catalog.min.json", ".packages[2].name", ".deep.a.b.c.d.e.f.g.h[-1]", ".numbers[13]", ".duplicate", ".nope", ".strings[4]"],
        inputs: { "catalog.json": "json/catalog.json" },
        expectExit: 0,
        expectStdout: "re-parse equal",
        expectFiles: ["catalog.min.json"],
      },
      {
        name: "broken",
        args: ["broken.json", "broken.out.json"],
        inputs: { "broken.json": "json/broken.json" },
        expectExit: 2,
        expectStdout: "unexpected character",
      },
    ],
  },
  {
    name: "hashtable",
    language: "c",
    source: "fixtures/c/hashtable.c",
    workloads: [
      { name: "seed42", args: ["42", "30000", "report.txt"], expectExit: 0, expectStdout: "errors: 0", expectFiles: ["report.txt"] },
      { name: "seed7", args: ["7", "5000"], expectExit: 0, expectStdout: "errors: 0" },
    ],
  },
  {
    name: "numeric",
    language: "c",
    source: "fixtures/c/numeric.c",
    workloads: [
      {
        name: "kernels",
        args: ["40", "spectrum.csv", "nan", "-0", "1e-310", "-7.5", "3e9", "inf", "0x1.8p1", "-nan"],
        expectExit: 0,
        expectStdout: "integer digest",
        expectFiles: ["spectrum.csv"],
      },
    ],
  },
  {
    name: "strings",
    language: "c",
    source: "fixtures/c/strings.c",
    workloads: [
      {
        name: "prose",
        args: ["concordance.txt", "8"],
        stdin: "text/prose.txt",
        expectExit: 0,
        expectStdout: "anagram classes",
        expectFiles: ["concordance.txt"],
      },
      { name: "empty", args: ["empty.txt"], expectExit: 0, expectStdout: "0 words" },
    ],
  },
  {
    name: "dispatch",
    language: "c",
    source: "fixtures/c/dispatch.c",
    workloads: [
      {
        name: "machine",
        args: ["program.asm", "calc.txt", "trace.txt"],
        inputs: { "program.asm": "dispatch/program.asm", "calc.txt": "dispatch/calc.txt" },
        expectExit: 0,
        expectStdout: "implementations agree: yes",
        expectFiles: ["trace.txt"],
      },
    ],
  },
  {
    // near-identical function families, mutually recursive clones, pointers
    // to family members: what fold-functions and merge-functions rewrite
    name: "families",
    language: "c",
    source: "fixtures/c/families.c",
    workloads: [
      { name: "seed1", args: ["60", "1"], expectExit: 0, expectStdout: "total " },
      { name: "seed99", args: ["25", "99"], expectExit: 0, expectStdout: "round 20:" },
    ],
  },
  {
    name: "templates",
    language: "c++",
    source: "fixtures/cpp/templates.cpp",
    workloads: [
      {
        name: "shapes",
        args: ["shapes.txt", "shapes.report", "400"],
        inputs: { "shapes.txt": "cpp/shapes.txt" },
        expectExit: 0,
        expectStdout: "newton roots",
        expectFiles: ["shapes.report"],
      },
    ],
  },
  {
    name: "graph",
    language: "c++",
    source: "fixtures/cpp/graph.cpp",
    workloads: [
      {
        name: "cities",
        args: ["cities.txt", "cities.dot", "200", "7"],
        inputs: { "cities.txt": "cpp/cities.txt" },
        expectExit: 2,
        expectStdout: "max flow",
        expectFiles: ["cities.dot"],
      },
    ],
  },
];

export interface Fixture {
  /** e.g. "interp-Oz-wasmopt" */
  name: string;
  program: FixtureProgram;
  variant: Variant;
  wasmPath: string;
}

export function fixtureWasmPath(program: string, variant: Variant): string {
  return join(FIXTURE_WASM_DIR, `${program}-${variant}.wasm`);
}

/** Every program in every variant. */
export function listFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const program of PROGRAMS)
    for (const variant of VARIANTS)
      out.push({ name: `${program.name}-${variant}`, program, variant, wasmPath: fixtureWasmPath(program.name, variant) });
  return out;
}

/** Passes from WASM_COMPACT_ORACLE_PASSES (comma-separated, or "none"); undefined: the default pipeline. */
export function oraclePasses(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const v = env["WASM_COMPACT_ORACLE_PASSES"];
  if (v === undefined || v.trim() === "") return undefined;
  if (v.trim() === "none") return [];
  return v.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

export function oracleOptions(env: NodeJS.ProcessEnv = process.env): OptimizeOptions {
  const passes = oraclePasses(env);
  return passes === undefined ? { checked: true } : { passes, checked: true };
}

/** Reads the sandbox files and stdin of a workload from fixtures/inputs. */
export function workloadInputs(w: Workload): { files: Record<string, Buffer>; stdin: Buffer } {
  const files: Record<string, Buffer> = {};
  for (const [name, rel] of Object.entries(w.inputs ?? {})) files[name] = readFileSync(join(FIXTURES_DIR, "inputs", rel));
  const stdin = w.stdin ? readFileSync(join(FIXTURES_DIR, "inputs", w.stdin)) : Buffer.alloc(0);
  return { files, stdin };
}

export async function runWorkload(wasm: Uint8Array | string, program: FixtureProgram, w: Workload, timeoutMs = 60000): Promise<WasiOutcome> {
  const { files, stdin } = workloadInputs(w);
  return runWasi(wasm, { args: w.args, programName: program.name, files, stdin, timeoutMs });
}

/** Problems with an original run that make the comparison meaningless; empty if it did its work. */
export function checkExpectations(w: Workload, o: WasiOutcome): string[] {
  const problems: string[] = [];
  if (o.exitCode !== w.expectExit) problems.push(`expected exit code ${w.expectExit}, but the original ${describeEnd(o)}`);
  if (!o.stdout.toString("utf8").includes(w.expectStdout)) problems.push(`stdout does not contain ${JSON.stringify(w.expectStdout)}`);
  for (const f of w.expectFiles ?? []) if (!o.files.has(f)) problems.push(`the run did not write ${f}`);
  if (o.stderr.length > 0) problems.push(`unexpected stderr: ${o.stderr.toString("utf8").slice(0, 300)}`);
  return problems;
}

export interface WorkloadResult {
  workload: string;
  original: WasiOutcome;
  optimized: WasiOutcome;
  /** Why the original run is not a valid reference (see checkExpectations). */
  problems: string[];
  /** compareOutcomes(original, optimized). */
  difference: string | null;
}

export interface FixtureResult {
  fixture: string;
  bytesBefore: number;
  bytesAfter: number;
  workloads: WorkloadResult[];
}

/**
 * Runs every workload of a fixture with the original module and with
 * `transform(original)` (by default optimize() with oracleOptions()).
 */
export async function checkFixture(
  f: Fixture,
  transform: (bytes: Uint8Array) => Uint8Array = (bytes) => optimize(bytes, oracleOptions()).binary,
): Promise<FixtureResult> {
  if (!existsSync(f.wasmPath)) throw new Error(`${f.wasmPath} is missing: run scripts/build-fixtures.sh`);
  const original = new Uint8Array(readFileSync(f.wasmPath));
  const optimized = transform(original.slice());
  const workloads: WorkloadResult[] = [];
  for (const w of f.program.workloads) {
    const [a, b] = await Promise.all([runWorkload(original, f.program, w), runWorkload(optimized, f.program, w)]);
    workloads.push({
      workload: w.name,
      original: a,
      optimized: b,
      problems: checkExpectations(w, a),
      difference: compareOutcomes(a, b),
    });
  }
  return { fixture: f.name, bytesBefore: original.length, bytesAfter: optimized.length, workloads };
}

/** A failure message for a fixture result, or null if every workload agreed. */
export function describeFailures(r: FixtureResult): string | null {
  const parts: string[] = [];
  for (const w of r.workloads) {
    if (w.problems.length) parts.push(`${r.fixture} / ${w.workload}: the original run is not a valid reference:\n  ${w.problems.join("\n  ")}`);
    if (w.difference) parts.push(`${r.fixture} / ${w.workload}: behaviour differs after optimization:\n${w.difference}`);
  }
  return parts.length ? parts.join("\n\n") : null;
}
