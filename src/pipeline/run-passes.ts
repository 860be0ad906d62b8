// Step 3 of a run: the passes in order, then, for an estimate-judged run,
// the verification of its result on the real measures.

import type { Pass } from "../passes/pass.js";
import type { SizeJudge, SizeTarget } from "../size-target.js";
import type { PassRunner } from "./pass-runner.js";
import type { Phases } from "./phases.js";
import { MIN_VERIFIED_SHARE, tooLittleToVerify, verify, type Checkpoint } from "./verify.js";

export interface PassPlan {
  passes: readonly Pass[];
  target: SizeTarget;
  /** The real measures. */
  judge: SizeJudge;
  /** The estimate the passes decide on, or null: they decide on the real measures. */
  est: SizeJudge | null;
  /** The input as given: verification compares with it, as the last word does. */
  input: Uint8Array;
  /**
   * A result as it would ship: with the debug info set aside put back (the
   * last word's form), so that verification is the last word's comparison
   * and its quality-11 runs serve both. web-tree-sitter's debug build (two
   * thirds DWARF) took four quality-11 runs where two do.
   */
  shipped: (bytes: Uint8Array) => Uint8Array;
  /**
   * Work on the result that can go on while its quality-11 run is on the
   * other core (the output's validation), called once verification starts.
   */
  whileMeasuring?: (bytes: Uint8Array) => void;
}

/** Runs the passes; returns the note on verification, if there was one. The runner holds the result. */
export function runPasses(runner: PassRunner, plan: PassPlan, phases: Phases): string | null {
  const { passes, target, judge, est, input, shipped } = plan;
  const baseline = runner.checkpoint(0);
  const checkpoints: Checkpoint[] = [];
  const paidOnEstimate: boolean[] = [];
  passes.forEach((pass, k) => {
    paidOnEstimate[k] = runner.run(pass, est ?? judge, `pass ${pass.name}`);
    if (!paidOnEstimate[k] || !est) return;
    // not measured yet: verification needs the last one only, unless it fails
    // (each real brotli run of a mid-size module costs a third of what
    // wasm-opt -Oz takes on it)
    checkpoints.push(runner.checkpoint(k + 1));
    // Once the passes saved enough to be verified (gains only grow from one
    // checkpoint to the next), verification will need the real sizes of the
    // input: where the measures have another core it starts now, while the
    // later passes run. Nothing is measured ahead
    // that may not be needed: a process cannot exit while a worker thread is
    // inside a compressor run, so a needless run costs its time at the end.
    if (target !== "balanced" || !tooLittleToVerify(est, baseline.bytes, runner.current)) judge.prefetch([input]);
  });
  if (!est || checkpoints.length === 0) return null;

  // real brotli runs of the checkpoints, some perhaps still on the other core
  phases.total++;
  phases.start("verify");
  const last = checkpoints[checkpoints.length - 1]!;
  const gain = baseline.bytes.length - last.bytes.length;
  const tooLittle = target === "balanced" && tooLittleToVerify(est, baseline.bytes, last.bytes);
  if (!tooLittle) {
    judge.prefetch([input, shipped(last.bytes)]);
    plan.whileMeasuring?.(last.bytes);
  }
  const back = tooLittle
    ? { ...baseline, why: `it saved ${gain} bytes and under ${MIN_VERIFIED_SHARE * 100} % of the estimated gzip and brotli sizes: not worth verifying on the real measures` }
    : verify(
        judge,
        input,
        baseline,
        checkpoints,
        (cp) => shipped(cp.bytes),
        (cp) => target !== "balanced" || !tooLittleToVerify(est, baseline.bytes, cp.bytes),
      );
  phases.end();
  if (tooLittle) {
    runner.backTo(back!, back!.why);
    return (
      `under target ${target} the passes were judged on a fast brotli estimate and saved ${gain} bytes, under ${MIN_VERIFIED_SHARE * 100} % of the file and of its estimated gzip and brotli sizes: ` +
      "not worth two brotli quality-11 runs to verify, so the input is returned unchanged"
    );
  }
  let how = "held";
  if (back) {
    // Back to the last checkpoint that holds. The passes after it are not
    // run again on the real measures: that took 2-3 times as long as
    // wasm-opt -Oz on the files where it happened (onig: 55 of 85 s, each
    // of outline's judgements a quality-11 run), for 0.1 % of raw bytes.
    runner.backTo(back, back.why);
    const kept = passes.slice(0, back.passes).filter((_, k) => paidOnEstimate[k]).map((p) => p.name);
    how = `failed (${back.why.replace(/^on the real measures /, "")}), so the result is the last state that holds (${kept.length > 0 ? `after ${kept.join(", ")}` : "the module as read"})`;
  }
  return `under target ${target} the passes were judged on a fast brotli estimate and the result verified on the real measures: it ${how}`;
}
