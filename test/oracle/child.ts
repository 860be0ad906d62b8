// Runs one workload once, in its own process, so that no module cache, wasm
// instance or global state is shared between the run with the original
// modules and the run with the optimized ones.
//
//   node dist/test/oracle/child.js <workload> <result.json> <module.wasm>...
//
// Writes { ok: true, output, problems, ms } or { ok: false, error, problems }
// to result.json (stdout and stderr are left to the package under test).

import { readFileSync, writeFileSync } from "node:fs";
import { findWorkload } from "./workloads/index.js";
import type { Output } from "./workload.js";

export interface ChildResult {
  ok: boolean;
  output?: Output;
  error?: string;
  problems: string[];
  /** Wall time of the run. */
  ms: number;
  /** CPU time (user + system) of this process during the run; work in helper processes (esbuild's service) is not included. */
  cpuMs: number;
}

async function main(): Promise<void> {
  const [name, resultFile, ...files] = process.argv.slice(2);
  if (!name || !resultFile) {
    process.stderr.write("usage: child.js <workload> <result.json> <module.wasm>...\n");
    process.exit(2);
  }
  const problems: string[] = [];
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  const cpuMs = (): number => {
    const c = process.cpuUsage(cpu0);
    return (c.user + c.system) / 1000;
  };
  let result: ChildResult;
  try {
    const w = findWorkload(name);
    const wasm = files.map((f) => new Uint8Array(readFileSync(f)));
    const output = await w.run(wasm, {
      check(ok, what) {
        if (!ok) problems.push(what);
      },
    });
    result = { ok: true, output, problems, ms: performance.now() - t, cpuMs: cpuMs() };
  } catch (e) {
    const err = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    result = { ok: false, error: err, problems, ms: performance.now() - t, cpuMs: cpuMs() };
  }
  writeFileSync(resultFile, JSON.stringify(result));
  // Some packages keep handles open (worker threads, services); the result is written, so leave now.
  process.exit(0);
}

void main();
