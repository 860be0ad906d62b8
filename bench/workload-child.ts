// One timed process of the runtime benchmark:
//
//   node dist/bench/workload-child.js WORKLOAD.js MODULES.json CONFIG.json
//
// loads the workload, reads the module files listed in MODULES.json (in the
// order the workload's wasm() gives them), runs the workload untimed (at least
// `minWarmup` times, and more while under `warmupMs` ms, up to `maxWarmup`),
// then times runs until at least `minIterations` runs and `minMs` ms (at most
// `maxIterations`). So a slow workload is not run more often than needed and
// a fast one is timed long enough. Prints one JSON line on stdout:
// { times: wall ms per timed run, cpuTimes: CPU ms (user + system, all
// threads of the process) per timed run, digest: SHA-256 of the first output,
// stable: every output had that digest, failedChecks }.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Output, RunContext, Workload } from "../test/oracle/workload.js";

export interface ChildConfig {
  minWarmup: number;
  maxWarmup: number;
  warmupMs: number;
  minIterations: number;
  maxIterations: number;
  minMs: number;
}

export interface ChildResult {
  /** Untimed runs done. */
  warmup: number;
  times: number[];
  cpuTimes: number[];
  digest: string;
  stable: boolean;
  failedChecks: string[];
}

function digestOf(o: Output, failed: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(o)).update("\0").update(failed.join("\n")).digest("hex");
}

async function main(): Promise<void> {
  const [workloadPath, modulesPath, configPath] = process.argv.slice(2);
  if (!workloadPath || !modulesPath || !configPath) throw new Error("usage: workload-child WORKLOAD.js MODULES.json CONFIG.json");
  const mod = (await import(pathToFileURL(workloadPath).href)) as { workload?: Workload };
  const w = mod.workload;
  if (!w) throw new Error(`${workloadPath} does not export \`workload\``);
  const paths = JSON.parse(readFileSync(modulesPath, "utf8")) as string[];
  const cfg = JSON.parse(readFileSync(configPath, "utf8")) as ChildConfig;
  const wasm = paths.map((p) => new Uint8Array(readFileSync(p)));

  let digest = "";
  let stable = true;
  const allFailed = new Set<string>();
  const once = async (): Promise<void> => {
    const failed: string[] = [];
    const ctx: RunContext = { check: (ok, what) => void (ok || failed.push(what)) };
    const out = await w.run(wasm, ctx);
    const d = digestOf(out, failed);
    if (digest === "") digest = d;
    else if (d !== digest) stable = false;
    for (const f of failed) allFailed.add(f);
  };

  const w0 = performance.now();
  let warm = 0;
  while (warm < cfg.maxWarmup && (warm < cfg.minWarmup || performance.now() - w0 < cfg.warmupMs)) {
    await once();
    warm++;
  }
  const times: number[] = [];
  const cpuTimes: number[] = [];
  const start = performance.now();
  while (times.length < cfg.maxIterations && (times.length < cfg.minIterations || performance.now() - start < cfg.minMs)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await once();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuTimes.push((c.user + c.system) / 1000);
  }
  const result: ChildResult = { warmup: warm, times, cpuTimes, digest, stable, failedChecks: [...allFailed] };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
