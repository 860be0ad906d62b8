// Runs a WebAssembly module under node:wasi in a fresh child process and
// captures everything it does that can be observed from outside: stdout,
// stderr, the exit code (or the trap), and the files it leaves in its
// sandbox directory. compareOutcomes() turns two such outcomes into a
// readable description of their differences (or null when they agree).
//
// One child process and one WASI instance per run: a run cannot disturb the
// next one, a module that loops forever is killed after a timeout, and a
// module that crashes the engine only loses its own run.

import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildReport } from "./wasi-child.js";

export interface WasiRunOptions {
  /** Command-line arguments after the program name. */
  args?: readonly string[];
  /** argv[0]; default "program". */
  programName?: string;
  /** Standard input; default empty. */
  stdin?: string | Uint8Array;
  /** Files placed in the sandbox before the run: sandbox-relative path -> contents. */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /** Environment variables visible to the module; default none. */
  env?: Readonly<Record<string, string>>;
  /** Kill the run after this many milliseconds; default 30000. */
  timeoutMs?: number;
}

export interface WasiOutcome {
  stdout: Buffer;
  stderr: Buffer;
  /** The WASI exit code; null if the module trapped, timed out or the runner failed. */
  exitCode: number | null;
  /** "RuntimeError: unreachable" and the like; null if the module exited. */
  trap: string | null;
  timedOut: boolean;
  /** Set when the child process ended without reporting (engine crash, out of memory). */
  runnerFailure: string | null;
  /** Every regular file in the sandbox after the run (input files included), by relative path. */
  files: Map<string, Buffer>;
  durationMs: number;
}

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "wasi-child.js");

function listFiles(root: string, dir = "", out = new Map<string, Buffer>()): Map<string, Buffer> {
  const entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) listFiles(root, rel, out);
    else if (e.isFile()) out.set(rel, readFileSync(join(root, rel)));
  }
  return out;
}

/** Runs `wasm` (bytes or a file path) once under node:wasi in a new child process. */
export async function runWasi(wasm: Uint8Array | string, options: WasiRunOptions = {}): Promise<WasiOutcome> {
  const base = mkdtempSync(join(tmpdir(), "wasm-compact-wasi-"));
  try {
    const sandbox = join(base, "sandbox");
    mkdirSync(sandbox);
    let wasmPath: string;
    if (typeof wasm === "string") {
      wasmPath = wasm;
    } else {
      wasmPath = join(base, "module.wasm");
      writeFileSync(wasmPath, wasm);
    }
    for (const [rel, contents] of Object.entries(options.files ?? {})) {
      if (rel.startsWith("/") || rel.split("/").includes("..")) throw new Error(`sandbox file name must be relative: ${rel}`);
      mkdirSync(dirname(join(sandbox, rel)), { recursive: true });
      writeFileSync(join(sandbox, rel), contents);
    }
    const stdinPath = join(base, "stdin");
    writeFileSync(stdinPath, options.stdin ?? "");
    const config = {
      args: [options.programName ?? "program", ...(options.args ?? [])],
      env: { ...(options.env ?? {}) },
    };
    const stdinFd = openSync(stdinPath, "r");
    const started = performance.now();
    let result: Omit<WasiOutcome, "files" | "durationMs">;
    try {
      result = await new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ["--no-warnings", CHILD, wasmPath, sandbox, JSON.stringify(config)], {
          stdio: [stdinFd, "pipe", "pipe", "pipe"],
          env: {},
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        const rep: Buffer[] = [];
        child.stdout!.on("data", (d: Buffer) => out.push(d));
        child.stderr!.on("data", (d: Buffer) => err.push(d));
        const fd3 = child.stdio[3] as NodeJS.ReadableStream;
        fd3.on("data", (d: Buffer) => rep.push(d));
        let timedOut = false;
        // When this process's event loop was blocked (a synchronous optimize
        // in a parallel job, a loaded machine), the timer can fire before the
        // child's exit is processed: let the poll phase run once, then kill
        // only a child that is really still running.
        const timer = setTimeout(() => {
          setImmediate(() => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            timedOut = true;
            child.kill("SIGKILL");
          });
        }, options.timeoutMs ?? 30000);
        child.on("error", (e) => {
          clearTimeout(timer);
          reject(e);
        });
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          const stdout = Buffer.concat(out);
          const stderr = Buffer.concat(err);
          if (timedOut) {
            resolve({ stdout, stderr, exitCode: null, trap: null, timedOut: true, runnerFailure: null });
            return;
          }
          const text = Buffer.concat(rep).toString("utf8").trim();
          let r: ChildReport | null = null;
          try {
            r = text ? (JSON.parse(text) as ChildReport) : null;
          } catch {
            r = null;
          }
          if (r && typeof r.exitCode === "number") {
            resolve({ stdout, stderr, exitCode: r.exitCode, trap: null, timedOut: false, runnerFailure: null });
          } else if (r && typeof r.trap === "string") {
            resolve({ stdout, stderr, exitCode: null, trap: r.trap, timedOut: false, runnerFailure: null });
          } else {
            const how = signal ? `signal ${signal}` : `exit status ${code}`;
            resolve({ stdout, stderr, exitCode: null, trap: null, timedOut: false, runnerFailure: `the runner process ended by ${how} without a report` });
          }
        });
      });
    } finally {
      closeSync(stdinFd);
    }
    const durationMs = performance.now() - started;
    return { ...result, files: listFiles(sandbox), durationMs };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------ comparison

/** How an outcome ended, in words. */
export function describeEnd(o: WasiOutcome): string {
  if (o.timedOut) return "timed out";
  if (o.runnerFailure !== null) return o.runnerFailure;
  if (o.trap !== null) return `trapped (${o.trap})`;
  return `exited with code ${o.exitCode}`;
}

function isText(b: Buffer): boolean {
  const n = Math.min(b.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c === 0 || (c < 0x09) || (c > 0x0d && c < 0x20 && c !== 0x1b)) return false;
  }
  return true;
}

function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function clip(s: string, max = 160): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function hexAround(b: Buffer, at: number): string {
  const start = Math.max(0, at - 8);
  const bytes = [...b.subarray(start, Math.min(b.length, at + 8))].map((x) => x.toString(16).padStart(2, "0"));
  return `@${start}: ${bytes.join(" ")}`;
}

/** Describes how two byte streams differ (first differing line for text, bytes otherwise); null if equal. */
export function diffBytes(what: string, a: Buffer, b: Buffer, labels: readonly [string, string]): string | null {
  if (a.equals(b)) return null;
  const at = firstDifference(a, b);
  const head = `${what} differs at byte ${at} (${labels[0]} ${a.length} bytes, ${labels[1]} ${b.length} bytes)`;
  const w = Math.max(labels[0].length, labels[1].length) + 1;
  if (isText(a) && isText(b)) {
    const la = a.toString("utf8").split("\n");
    const lb = b.toString("utf8").split("\n");
    let line = 0;
    while (line < la.length && line < lb.length && la[line] === lb[line]) line++;
    const out = [`${head}, first at line ${line + 1}:`];
    if (line > 0) out.push(`  ${"".padEnd(w)}   ${clip(la[line - 1]!)}`);
    out.push(`  ${(labels[0] + ":").padEnd(w)} - ${line < la.length ? JSON.stringify(clip(la[line]!)) : "(end)"}`);
    out.push(`  ${(labels[1] + ":").padEnd(w)} + ${line < lb.length ? JSON.stringify(clip(lb[line]!)) : "(end)"}`);
    return out.join("\n");
  }
  return [`${head}:`, `  ${(labels[0] + ":").padEnd(w)} ${hexAround(a, at)}`, `  ${(labels[1] + ":").padEnd(w)} ${hexAround(b, at)}`].join("\n");
}

/**
 * Everything observable that differs between two runs, as readable text, or
 * null when they behaved the same: how they ended (exit code, trap message,
 * timeout), stdout, stderr, and every file left in the sandbox.
 */
export function compareOutcomes(
  a: WasiOutcome,
  b: WasiOutcome,
  labels: readonly [string, string] = ["original", "optimized"],
): string | null {
  const diffs: string[] = [];
  const endA = describeEnd(a);
  const endB = describeEnd(b);
  if (endA !== endB) diffs.push(`end: ${labels[0]} ${endA}, ${labels[1]} ${endB}`);
  const so = diffBytes("stdout", a.stdout, b.stdout, labels);
  if (so) diffs.push(so);
  const se = diffBytes("stderr", a.stderr, b.stderr, labels);
  if (se) diffs.push(se);
  const names = [...new Set([...a.files.keys(), ...b.files.keys()])].sort();
  for (const name of names) {
    const fa = a.files.get(name);
    const fb = b.files.get(name);
    if (!fa) diffs.push(`file ${name}: only after the ${labels[1]} run (${fb!.length} bytes)`);
    else if (!fb) diffs.push(`file ${name}: only after the ${labels[0]} run (${fa.length} bytes)`);
    else {
      const d = diffBytes(`file ${name}`, fa, fb, labels);
      if (d) diffs.push(d);
    }
  }
  return diffs.length ? diffs.join("\n") : null;
}
