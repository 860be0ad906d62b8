// Runs a Node program as a child process and measures it: wall time seen by
// the parent (spawn to exit, so Node start-up is included, for both tools
// alike), the child's own peak resident set size and CPU time (reported by
// probe.ts, preloaded with --import).

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface ProcessMeasurement {
  /** Wall time from spawn to exit, ms. */
  wallMs: number;
  /**
   * Peak resident set size, KiB: the child's own (VmHWM), or the peak of its
   * whole process tree sampled every 25 ms when that was higher (a tool's
   * child processes count: wasm-compact measures an early brotli size in
   * one); null if the child died before reporting.
   */
  peakRssKiB: number | null;
  userMs: number | null;
  sysMs: number | null;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  /** The first 2 KiB of stderr (where Node prints the error of an uncaught exception). */
  stderrHead: string;
  /** The last 4 KiB of stderr. */
  stderrTail: string;
  timedOut: boolean;
}

export const TIMING_METHOD =
  "each tool runs as a fresh child process (`node --import probe.js ...`); wall time = spawn to exit as seen by the " +
  "parent (Node start-up included for both tools); peak RSS = VmHWM from /proc/self/status read by the child at exit " +
  "(its own high-water mark since exec; getrusage ru_maxrss is not used because a forked child inherits the parent's " +
  "high-water mark), or, when higher, the peak over its process tree (its own processes included) of the summed VmRSS " +
  "sampled every 25 ms; the two tools alternate (A B B A ...) and the median of the runs is reported; each target of " +
  "--time-targets other than the default gets its own wasm-opt -Oz runs to alternate with";

const PROBE = fileURLToPath(new URL("./probe.js", import.meta.url));

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Extra node flags placed before the script (e.g. --max-old-space-size=8192). */
  nodeFlags?: string[];
  /** The node binary (default: the running one, process.execPath); see engines.ts. */
  execPath?: string;
}

/** Runs `node [nodeFlags] --import probe.js ...args` (node: options.execPath, else the running one) and measures it. */
export function runMeasured(args: readonly string[], options: RunOptions = {}): Promise<ProcessMeasurement> {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-probe-"));
  const probeOut = join(dir, "probe.json");
  const env = { ...(options.env ?? process.env), WASM_COMPACT_PROBE_OUT: probeOut };
  const argv = [...(options.nodeFlags ?? []), "--import", pathToFileURL(PROBE).href, ...args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(options.execPath ?? process.execPath, argv, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    let head = "";
    let timedOut = false;
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, options.timeoutMs)
        : null;
    let treePeakKiB = 0;
    const sampler = setInterval(() => {
      if (child.pid !== undefined) treePeakKiB = Math.max(treePeakKiB, treeRssKiB(child.pid));
    }, 25);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => {
      const text = b.toString("utf8");
      if (head.length < 2048) head = (head + text).slice(0, 2048);
      err += text;
      if (err.length > 8192) err = err.slice(-4096);
    });
    child.on("error", (e) => {
      clearInterval(sampler);
      if (timer) clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      reject(e);
    });
    child.on("exit", (code, signal) => {
      const wallMs = performance.now() - t0;
      clearInterval(sampler);
      if (timer) clearTimeout(timer);
      // Wait for the pipes to drain before resolving.
      child.on("close", () => {
        let probe: { vmHWMKiB: number; ruMaxRSSKiB: number; userMs: number; sysMs: number } | null = null;
        try {
          probe = JSON.parse(readFileSync(probeOut, "utf8"));
        } catch {
          probe = null;
        }
        rmSync(dir, { recursive: true, force: true });
        resolve({
          wallMs,
          peakRssKiB: probe ? Math.max(probe.vmHWMKiB >= 0 ? probe.vmHWMKiB : probe.ruMaxRSSKiB, treePeakKiB) : null,
          userMs: probe?.userMs ?? null,
          sysMs: probe?.sysMs ?? null,
          exitCode: code,
          signal,
          stdout: Buffer.concat(out).toString("utf8"),
          stderrHead: head,
          stderrTail: err.slice(-4096),
          timedOut,
        });
      });
    });
  });
}

/** Summed VmRSS of process `pid` and its descendants now, KiB (Linux /proc; 0 where there is none). */
function treeRssKiB(pid: number): number {
  let sum = 0;
  const stack = [pid];
  for (let p = stack.pop(); p !== undefined; p = stack.pop()) {
    try {
      sum += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const kids = readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim();
        if (kids) stack.push(...kids.split(" ").map(Number));
      }
    } catch {
      // gone meanwhile, or no /proc
    }
  }
  return sum;
}

/** A one-line description of a failed run. */
export function describeFailure(m: ProcessMeasurement): string {
  const why = m.timedOut ? "timed out" : m.signal ? `killed by ${m.signal}` : `exit code ${m.exitCode}`;
  // The informative lines: not stack frames, not Node's version banner, not blank.
  const useful = (s: string): string[] =>
    s.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !/^at /.test(l) && !/^Node\.js v/.test(l) && l !== "^");
  const lines = [...new Set([...useful(m.stderrHead).slice(0, 3), ...useful(m.stderrTail).slice(-2)])];
  return `${why}${lines.length > 0 ? `: ${lines.join(" | ").slice(0, 500)}` : ""}`;
}
