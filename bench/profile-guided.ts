// Profiles for the runtime benchmark's profile-guided rows, recorded the way a
// user would record them: `wasm-compact instrument` on each module the
// workload optimizes (its -Oz baseline, the module that then gets optimized
// with the profile), one run of the workload with those copies and the CLI's
// profile hook preloaded through NODE_OPTIONS (it saves the counters of every
// instrumented instance when a process exits, in processes the workload
// starts too, even when they are stopped with SIGTERM, as esbuild stops its service),
// then `wasm-compact profile --from-counts` once per module.

import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeFailure, runMeasured } from "./measure.js";
import { WORKLOAD_CHILD, type LoadedWorkload } from "./runtime.js";
import type { ChildConfig, ChildResult } from "./workload-child.js";

const HOOK = new URL("../cli/profile-hook.js", import.meta.url).href;

export const PROFILE_GUIDED_METHOD =
  "per workload: each optimized module's -Oz baseline is instrumented (wasm-compact instrument), the workload runs " +
  "once (no warm-up) with those copies in a child process with the CLI's profile hook preloaded, its checks must " +
  "pass, wasm-compact profile --from-counts turns the saved counters into one profile per module, and the baseline " +
  "is optimized with --profile under each runtime target; the baseline side of the measurement is the plain -Oz module";

/** The workload once, untimed: the counts of exactly one run. */
const ONCE: ChildConfig = { minWarmup: 0, maxWarmup: 0, warmupMs: 0, minIterations: 1, maxIterations: 1, minMs: 0 };

/**
 * Records a profile of every module with `optimize[i]` set, running `lw` once
 * with those modules instrumented (the others as `basePaths` gives them).
 * Writes into `dir`; returns the profile files (null where not optimized).
 * Throws with a one-line reason if any step fails.
 */
export async function recordProfiles(
  lw: LoadedWorkload,
  cli: string,
  basePaths: readonly string[],
  optimize: readonly boolean[],
  dir: string,
  timeoutMs: number,
): Promise<(string | null)[]> {
  const names = lw.workload.wasm().map((m) => m.name);
  const instrumented: (string | null)[] = [];
  for (const [i, base] of basePaths.entries()) {
    if (!optimize[i]) {
      instrumented.push(null);
      continue;
    }
    const out = join(dir, `${i}.instrumented.wasm`);
    const m = await runMeasured([cli, "instrument", base, "-o", out, "--quiet"]);
    if (m.exitCode !== 0) throw new Error(`wasm-compact instrument ${names[i]} failed: ${describeFailure(m)}`);
    instrumented.push(out);
  }

  const modulesJson = join(dir, "modules.json");
  const configJson = join(dir, "config.json");
  const countsDir = join(dir, "counts");
  mkdirSync(countsDir);
  writeFileSync(modulesJson, JSON.stringify(basePaths.map((p, i) => instrumented[i] ?? p)));
  writeFileSync(configJson, JSON.stringify(ONCE));
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${HOOK}`].filter((s) => s).join(" ");
  const run = await runMeasured([WORKLOAD_CHILD, lw.file, modulesJson, configJson], {
    nodeFlags: [...(lw.workload.nodeOptions ?? [])],
    env: { ...process.env, NODE_OPTIONS: nodeOptions, WASM_COMPACT_COUNTS_DIR: countsDir },
    timeoutMs,
  });
  if (run.exitCode !== 0) throw new Error(`the workload failed with the instrumented modules (${describeFailure(run)})`);
  const child = JSON.parse(run.stdout.trim().split("\n").pop() ?? "") as ChildResult;
  if (child.failedChecks.length > 0) {
    throw new Error(`the workload's checks failed with the instrumented modules: ${child.failedChecks.slice(0, 3).join("; ")}`);
  }
  const counts = readdirSync(countsDir).sort().map((f) => join(countsDir, f));
  if (counts.length === 0) throw new Error("the instrumented run saved no counts (no instrumented instance was seen)");

  const profiles: (string | null)[] = [];
  for (const [i, inst] of instrumented.entries()) {
    if (inst === null) {
      profiles.push(null);
      continue;
    }
    const out = join(dir, `${i}.profile.json`);
    const m = await runMeasured([cli, "profile", "-o", out, "--module", inst, "--quiet", ...counts.flatMap((c) => ["--from-counts", c])]);
    if (m.exitCode !== 0) throw new Error(`wasm-compact profile for ${names[i]} failed: ${describeFailure(m)}`);
    profiles.push(out);
  }
  return profiles;
}
