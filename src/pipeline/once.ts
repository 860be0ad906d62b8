// One run of the pipeline under one target (see ../pipeline.ts for the
// steps and the options). optimizeOnce reads as the list of its steps; each
// step is a function below that fits on a screen:
//
//   settingsOf    options resolved: target, passes, what to validate, progress
//   readStep      read and validate the input, set debug info aside, the judge
//   passStep      hot code, the pass runner, the passes (and verification)
//   checkOutput   the output validates and adds only allowed features
//   finishStep    debug info back, identity rule, the output's source map
//   reportOf      the report

import type { Module } from "../ir/module.js";
import type { Pass } from "../passes/pass.js";
import { resolveMergeMap } from "../passes/merge-map.js";
import { resolvePasses } from "../passes/registry.js";
import { normalizeChoices } from "../passes/features.js";
import { sortFeatures, type WasmFeature } from "../analysis/feature-names.js";
import { UsageError } from "../errors.js";
import { scanSections, sectionBytes, type Report, type SectionInfo, type Timings } from "../report.js";
import { VERSION } from "../version.js";
import { SizeJudge, wholePerView, type SizeMeasures, type SizeTarget } from "../size-target.js";
import { readSourceMap, type ReadSourceMap } from "../source-map.js";
import type { OptimizeOptions, OptimizeResult } from "../pipeline.js";
import { blamer, describe, type Blame } from "./blame.js";
import { chooseHotCode } from "./hot.js";
import { lastWord, type LastWord } from "./last-word.js";
import { checkFeatures, validateOutput, type OutputFeatures } from "./output-checks.js";
import { PassRunner } from "./pass-runner.js";
import { ms, now, Phases } from "./phases.js";
import { readInput, type Input } from "./read-input.js";
import { runPasses } from "./run-passes.js";
import { EARLY_INPUT_WHOLE, EXACT_MAX, PORTFOLIO_MAX } from "./verify.js";
import { CodeOrigins } from "./code-origins.js";
import { asideBytes, debugInfoToFollow, restoreDebugInfo, type DebugOutcome } from "../debug-info.js";
import { mapOutput } from "./source-map-out.js";
import { recordMeasured } from "./measured.js";

export function optimizeOnce(bytes: Uint8Array, options: OptimizeOptions): OptimizeResult {
  const s = settingsOf(options);
  // before the input is even parsed: a worker and its process take a while to start
  if (inputFirst(bytes, s.target) && s.measures.brotli && s.measures.prefetch) s.measures.prefetch([bytes], true);
  const r = readStep(bytes, s);
  const p = passStep(bytes, s, r);
  const out = checkOutput(s, r, p);
  const fin = finishStep(bytes, s, r, p, out);
  s.timings.totalMs = ms(now() - s.tStart);
  s.phases.finish();
  const result: OptimizeResult = { binary: fin.last.binary, report: reportOf(bytes, s, r, p, out, fin), ...(fin.sourceMap === undefined ? {} : { sourceMap: fin.sourceMap }) };
  // the sizes the judge measured, for a result cache's later check (outside the report)
  recordMeasured(result, { input: r.judge.known(bytes), output: r.judge.known(fin.last.binary) });
  return result;
}

/** What the run was asked to do, with its progress, blame and clocks. */
interface Settings {
  options: OptimizeOptions;
  featureChoices: ReturnType<typeof normalizeChoices>;
  measures: SizeMeasures;
  target: SizeTarget;
  passes: Pass[];
  validate: boolean;
  phases: Phases;
  blame: Blame;
  tStart: number;
  timings: Timings;
}

function settingsOf(options: OptimizeOptions): Settings {
  const featureChoices = normalizeChoices(options.features ?? {});
  const measures = options.measures ?? {};
  const target: SizeTarget = options.target ?? (measures.gzip && measures.brotli ? "balanced" : "raw");
  const passes = resolvePasses(options.passes, target);
  const validate = options.validate ?? true;
  return {
    options,
    featureChoices,
    measures,
    target,
    passes,
    validate,
    phases: new Phases(2 + passes.length + (validate ? 2 : 0), options.onProgress),
    blame: blamer(validate),
    tStart: now(),
    timings: { readMs: 0, validateInputMs: 0, passesMs: 0, writeMs: 0, validateOutputMs: 0, totalMs: 0 },
  };
}

interface ReadState {
  /** The input as read, but for its module, which the pass runner takes (see module). */
  input: Omit<Input, "m">;
  /**
   * The module as read, until the pass runner takes it: once a pass is
   * undone the runner reads another, and nothing may keep this one alive
   * (on esbuild it is 100 MB of bodies, analyses and data segments).
   */
  module: Module | null;
  judge: SizeJudge;
  inputMap: ReadSourceMap | null;
  origins: CodeOrigins | null;
}

/** Reads and validates the input, sets debug info aside, writes the baseline; the judge, with its first measures pinned. */
function readStep(bytes: Uint8Array, s: Settings): ReadState {
  const { options } = s;
  const inputMap = options.inputSourceMap === undefined ? null : readSourceMap(options.inputSourceMap);
  if (options.sourceMapUrl !== undefined && !inputMap) throw new UsageError("sourceMapUrl needs inputSourceMap: there is no map to name");
  // the code's origins are recorded where a source map, DWARF or code metadata must follow it
  const origins = inputMap || debugInfoToFollow(bytes, s.options.stripDwarf ?? false) ? new CodeOrigins(bytes) : null;
  const { m, ...input } = readInput(bytes, s.validate, s.phases, s.timings, s.blame, origins);
  // the result ships with the debug info set aside, which the passes' modules lack
  const judge = makeJudge(s.target, s.measures, asideBytes(input.aside, s.options.stripDwarf ?? false));
  // every pass compares against the module as read, and the result against
  // the input: their brotli sizes are kept for the last word
  judge.pin(bytes);
  judge.pin(input.baseline);
  return { input, module: m, judge, inputMap, origins };
}

interface PassState {
  runner: PassRunner;
  /** A result with its debug info put back, as the last word ships it (memoized). */
  shipped: (result: Uint8Array) => DebugOutcome;
  /** Results already validated, with their modules (see validated). */
  validated: WeakMap<Uint8Array, Module>;
  /** The run was estimate-judged and no pass kept anything: the input itself is returned (see lastWord). */
  noPassPaid: boolean;
  /** Notes of the run before the last word: hot code, verification. */
  notes: string[];
}

/**
 * What is hot (decided on the module as read), then the passes. Under a
 * compressed target, a module above EXACT_MAX is judged on the estimate
 * while the passes run and verified on the real measures at the end (see
 * verify.ts).
 */
/**
 * A result as it ships: the debug info set aside put back where it still
 * holds. Verification compares that with the input, the way the last word
 * does, so the last word finds its quality-11 sizes measured; the debug
 * info is put back once per result.
 */
function shippedForm(bytes: Uint8Array, s: Settings, r: ReadState): (result: Uint8Array) => DebugOutcome {
  const done = new WeakMap<Uint8Array, DebugOutcome>();
  const { origins } = r;
  return (result) => {
    let d = done.get(result);
    if (d === undefined) {
      try {
        d = restoreDebugInfo(bytes, result, r.input.aside, s.options.stripDwarf ?? false, origins ? () => origins.mapOf(result, result) : undefined);
      } catch (e) {
        s.blame(e, "putting the debug sections back failed");
      }
      done.set(result, d);
    }
    return d;
  };
}

/** The module as read, handed over once (no variable keeps it: see ReadState.module). */
function takeModule(r: ReadState): Module {
  const m = r.module!;
  r.module = null;
  return m;
}

function passStep(bytes: Uint8Array, s: Settings, r: ReadState): PassState {
  const { input, judge } = r;
  const { target, options } = s;
  const hot = chooseHotCode(r.module!, bytes, options);
  const notes = hot.note ? [hot.note] : [];
  const est = estimated(bytes, target) ? judge.estimator() : null;
  if (!est) prefetchInputs(judge, bytes, input.baseline);
  const runner = new PassRunner(takeModule(r), input.baseline, {
    phases: s.phases,
    blame: s.blame,
    checked: s.validate && (options.checked ?? false),
    target,
    judge,
    shared: {
      ...(hot.hot ? { hot: hot.hot } : {}),
      features: s.featureChoices,
      inputFeatures: input.features,
      ...(options.keepExportIdentity === undefined ? {} : { keepExportIdentity: options.keepExportIdentity }),
    },
    origins: r.origins,
  });
  const shipped = shippedForm(bytes, s, r);
  const tPasses = now();
  const validated = new WeakMap<Uint8Array, Module>();
  // the output's validation runs while the result's quality-11 run is on the other core
  // (a failure there is reported where the result is checked, if it is still the result then)
  const whileMeasuring = s.validate
    ? (b: Uint8Array): void => {
        try {
          validatedModule(b, runner, validated, s);
        } catch {
          // checkOutput validates it again and reports
        }
      }
    : undefined;
  const verified = runPasses(runner, { passes: s.passes, target, judge, est, input: bytes, shipped: (b) => shipped(b).binary, ...(whileMeasuring ? { whileMeasuring } : {}) }, s.phases);
  if (verified) notes.push(verified);
  s.timings.passesMs = ms(now() - tPasses);
  return { runner, shipped, validated, noPassPaid: est !== null && runner.current === input.baseline, notes };
}

/** The output validates (when asked) and adds no feature that was not allowed. */
function checkOutput(s: Settings, r: ReadState, p: PassState): OutputFeatures {
  // An estimate-judged run that kept nothing returns the input itself (see
  // lastWord): the module as rewritten is not shipped, so it is not checked
  // (0.8 s of brotli-wasm's 1 MB module)
  if (p.noPassPaid) return { used: new Set(r.input.features.used), added: [] };
  let output: Module | null = null;
  if (s.validate) {
    s.phases.start("validate output");
    output = validatedModule(p.runner.current, p.runner, p.validated, s);
    s.phases.end();
  }
  return checkFeatures(output, p.runner.current, r.input.features, s.featureChoices, s.blame);
}

/** `bytes` read and validated, once (verification may have validated the result already). */
function validatedModule(bytes: Uint8Array, runner: PassRunner, validated: WeakMap<Uint8Array, Module>, s: Settings): Module {
  let m = validated.get(bytes);
  if (m === undefined) {
    const t = now();
    m = validateOutput(bytes, runner.reports);
    s.timings.validateOutputMs += ms(now() - t);
    validated.set(bytes, m);
  }
  return m;
}

interface Finished {
  last: LastWord;
  sourceMap: string | undefined;
  notes: string[];
  outputSections: SectionInfo[];
}

/** Debug info back where it holds, the identity rule, the output's source map; the run's notes and the output's sections. */
function finishStep(bytes: Uint8Array, s: Settings, r: ReadState, p: PassState, features: OutputFeatures): Finished {
  const { input, inputMap, origins } = r;
  const { runner } = p;
  let last = lastWord({
    input: bytes,
    result: runner.current,
    debug: () => p.shipped(runner.current),
    stripDwarf: s.options.stripDwarf ?? false,
    noPassPaid: p.noPassPaid,
    anyPassChanged: runner.reports.some((x) => x.changed),
    target: s.target,
    judge: r.judge,
  });
  let sourceMap: string | undefined;
  if (inputMap && origins) {
    try {
      const mapped = mapOutput(inputMap, last, last.keptInput ? bytes : runner.current, origins, s.options.sourceMapUrl);
      sourceMap = mapped.sourceMap;
      last = { ...last, binary: mapped.binary, removedSections: mapped.removedSections, notes: mapped.notes };
    } catch (e) {
      s.blame(e, "following the source map failed");
    }
  }
  const notes = [...p.notes, ...last.notes];
  if (features.added.length > 0 && !last.keptInput) {
    const why = (f: WasmFeature): string => (input.features.declared.has(f) ? "declared in the input's target_features section" : "enabled");
    notes.push(`features: the output uses ${features.added.map((f) => `${f} (${why(f)})`).join(", ")}, which the input did not use`);
  }
  const outputSections = last.keptInput && sourceMap === undefined ? input.sections : scanSections(last.binary);
  return { last, sourceMap, notes, outputSections };
}

function reportOf(bytes: Uint8Array, s: Settings, r: ReadState, p: PassState, features: OutputFeatures, fin: Finished): Report {
  const { input } = r;
  const { last, outputSections } = fin;
  return {
    tool: { name: "wasm-compact", version: VERSION },
    sizes: {
      file: { before: bytes.length, after: last.binary.length },
      code: { before: sectionBytes(input.sections, 10), after: sectionBytes(outputSections, 10) },
      custom: { before: sectionBytes(input.sections, 0), after: sectionBytes(outputSections, 0) },
    },
    sections: { input: input.sections, output: outputSections },
    passes: p.runner.reports,
    validated: { input: s.validate, output: s.validate },
    keptInput: last.keptInput,
    features: {
      input: sortFeatures(input.features.used),
      declared: sortFeatures(input.features.declared),
      output: last.keptInput ? sortFeatures(input.features.used) : sortFeatures(features.used),
    },
    mergeMap: last.keptInput ? [] : resolveMergeMap(p.runner.m, p.runner.mapEntries),
    removedSections: last.removedSections,
    notes: fin.notes,
    timings: s.timings,
  };
}

function makeJudge(target: SizeTarget, measures: SizeMeasures, shipsExtra: number): SizeJudge {
  try {
    return new SizeJudge(target, measures, shipsExtra);
  } catch (e) {
    throw new UsageError(describe(e));
  }
}

/** Are the passes judged on the estimate (and the result verified on the real measures at the end)? */
function estimated(bytes: Uint8Array, target: SizeTarget): boolean {
  return (target === "balanced" && bytes.length > EXACT_MAX) || (target === "brotli" && bytes.length > PORTFOLIO_MAX);
}

/**
 * Does an estimate-judged run start the input's quality-11 run before
 * anything else, on the other core where the measures have one? It needs
 * the input's real sizes only if a pass pays (see runPasses), except where
 * most of the input is what the estimates leave out (data, debug info:
 * EARLY_INPUT_WHOLE): there that run costs about as much as the passes, and
 * verification would otherwise wait for it after the last pass. Should
 * nothing pay, the CLI does not wait for it: its measures make an early
 * one in a process of their own, killed when the run ends (cli/compress-pool.ts).
 */
function inputFirst(bytes: Uint8Array, target: SizeTarget): boolean {
  return target === "balanced" && estimated(bytes, target) && wholePerView(bytes) > EARLY_INPUT_WHOLE;
}

/** Where the passes judge on the real measures: the module as read (every pass's first comparison), then the input. */
function prefetchInputs(judge: SizeJudge, bytes: Uint8Array, baseline: Uint8Array): void {
  judge.prefetch([baseline]);
  // the input is measured only by the last word: its gzip size can be taken in the background too
  judge.prefetch([bytes], true);
}
