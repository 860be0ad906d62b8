// One timed process of the runtime benchmark:
//
//   node dist/bench/workload-child.js WORKLOAD.js MODULES.json CONFIG.json [OTHER.json]
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
//
// With OTHER.json (the other side's modules) the process runs both sides in
// rounds: warm-up alternates them, and each timed round runs one of each,
// the order rotating (AB, BA, ...). `other` then holds the other side's run
// times and one ratio per round (other / first): drift of the machine and a
// process that runs slow as a whole hit both sides of a round alike, which
// fresh-process samples of either side alone cannot cancel.

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
  /** With OTHER.json: the other side's timed runs, its output digest, and per round other / first (wall). */
  other?: { times: number[]; cpuTimes: number[]; digest: string; ratios: number[] };
}

function digestOf(o: Output, failed: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(o)).update("\0").update(failed.join("\n")).digest("hex");
}

async function main(): Promise<void> {
  const [workloadPath, modulesPath, configPath, otherPath] = process.argv.slice(2);
  if (!workloadPath || !modulesPath || !configPath) throw new Error("usage: workload-child WORKLOAD.js MODULES.json CONFIG.json [OTHER.json]");
  const mod = (await import(pathToFileURL(workloadPath).href)) as { workload?: Workload };
  const w = mod.workload;
  if (!w) throw new Error(`${workloadPath} does not export \`workload\``);
  const cfg = JSON.parse(readFileSync(configPath, "utf8")) as ChildConfig;
  const modulesOf = (path: string): Uint8Array[] => (JSON.parse(readFileSync(path, "utf8")) as string[]).map((p) => new Uint8Array(readFileSync(p)));
  const sides = [new Side(w, modulesOf(modulesPath))];
  if (otherPath) sides.push(new Side(w, modulesOf(otherPath)));

  const w0 = performance.now();
  let warm = 0;
  while (warm < cfg.maxWarmup && (warm < cfg.minWarmup || performance.now() - w0 < cfg.warmupMs)) {
    for (const side of sides) await side.once();
    warm++;
  }
  const ratios: number[] = [];
  const start = performance.now();
  for (let round = 0; ; round++) {
    const n = sides[0]!.times.length;
    if (n >= cfg.maxIterations || (n >= cfg.minIterations && performance.now() - start >= cfg.minMs)) break;
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) await side.timed();
    if (sides.length === 2) ratios.push(sides[1]!.times[n]! / sides[0]!.times[n]!);
  }
  const [a, b] = sides;
  const result: ChildResult = {
    warmup: warm,
    times: a!.times,
    cpuTimes: a!.cpuTimes,
    digest: a!.digest,
    stable: sides.every((x) => x.stable && x.digest === a!.digest),
    failedChecks: [...new Set(sides.flatMap((x) => [...x.failed]))],
    ...(b ? { other: { times: b.times, cpuTimes: b.cpuTimes, digest: b.digest, ratios } } : {}),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** One side's modules in this process: its runs, their times, the digest of its outputs. */
class Side {
  digest = "";
  stable = true;
  readonly failed = new Set<string>();
  readonly times: number[] = [];
  readonly cpuTimes: number[] = [];

  constructor(
    private readonly w: Workload,
    private readonly wasm: Uint8Array[],
  ) {}

  async once(): Promise<void> {
    const failed: string[] = [];
    const ctx: RunContext = { check: (ok, what) => void (ok || failed.push(what)) };
    const out = await this.w.run(this.wasm, ctx);
    const d = digestOf(out, failed);
    if (this.digest === "") this.digest = d;
    else if (d !== this.digest) this.stable = false;
    for (const f of failed) this.failed.add(f);
  }

  async timed(): Promise<void> {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await this.once();
    this.times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    this.cpuTimes.push((c.user + c.system) / 1000);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
