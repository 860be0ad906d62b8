// Runs passes one at a time on the module: after a pass that changed it,
// writes the module and lets the judge decide; a pass that made it worse is
// undone by re-reading the last good bytes. Keeps the reports, the merge-map
// entries and, for estimate-judged runs, the checkpoints to go back to.

import { decodeAllBodies, readModule } from "../binary/reader.js";
import { writeModule } from "../binary/writer.js";
import { validateModule } from "../analysis/validate.js";
import type { Module } from "../ir/module.js";
import { InternalError } from "../errors.js";
import type { Pass, PassContext, PassOptions, PassResult } from "../passes/pass.js";
import { newOrigin, type MergeMapEntry } from "../passes/merge-map.js";
import type { PassReport } from "../report.js";
import type { SizeJudge, SizeTarget } from "../size-target.js";
import { describe, type Blame } from "./blame.js";
import { ms, now, type Phases } from "./phases.js";
import type { Checkpoint } from "./verify.js";
import type { CodeOrigins } from "./code-origins.js";

/** Reads, fully decodes and validates `bytes`; throws what the reader or validator throws. */
export function readAndValidate(bytes: Uint8Array): Module {
  const m = readModule(bytes);
  decodeAllBodies(m);
  validateModule(m);
  return m;
}

/**
 * After an undo re-read the module from bytes, gives its functions back the
 * origins (input indices) they had before the pass, and moves the counter
 * for new origins past every origin in use, so the merge map stays exact.
 */
function restoreOrigins(m: Module, origins: readonly number[], entries: readonly MergeMapEntry[]): void {
  let lowest = 0;
  m.functions.forEach((f, i) => {
    f.origin = origins[i]!;
    lowest = Math.min(lowest, f.origin);
  });
  for (const e of entries) lowest = Math.min(lowest, e.function.origin, e.into.origin);
  while (newOrigin(m) > lowest) {
    // advance the fresh module's counter below every origin already used
  }
}

export interface RunnerSettings {
  phases: Phases;
  blame: Blame;
  /** Validate after every pass that changed the module. */
  checked: boolean;
  target: SizeTarget;
  /** The real judge: a pass judged by another one (the estimate) says so when undone. */
  judge: SizeJudge;
  /** Options every pass gets besides its judge. */
  shared: Omit<PassOptions, "judge">;
  /** Where the code came from, when a source map must follow it. */
  origins?: CodeOrigins | null;
}

export class PassRunner {
  readonly reports: PassReport[] = [];
  readonly mapEntries: MergeMapEntry[] = [];

  constructor(
    /** The module now (replaced when a pass is undone). */
    public m: Module,
    /** Its bytes as last written and kept. */
    public current: Uint8Array,
    private readonly s: RunnerSettings,
  ) {}

  /** Runs one pass with `judge` deciding, keeps or undoes it, and reports it; true if it changed the module and was kept. */
  run(pass: Pass, judge: SizeJudge, phaseName: string): boolean {
    const phases = this.s.phases;
    const blame: Blame = this.s.blame;
    phases.start(phaseName);
    const notes: string[] = [];
    const entries: MergeMapEntry[] = [];
    const origins = this.m.functions.map((f) => f.origin);
    const ctx: PassContext = {
      progress: (fraction) => phases.report(fraction),
      note: (message) => void notes.push(message),
      options: { judge, ...this.s.shared },
      record: (entry) => void entries.push(entry),
      written: this.current,
    };
    const before = this.current.length;
    const t = now();
    let result: PassResult;
    try {
      result = pass.run(this.m, ctx);
    } catch (e) {
      blame(e, `pass "${pass.name}" failed`, pass.name);
    }
    let after = before;
    let kept = true;
    if (result.changed) {
      let next: Uint8Array;
      try {
        next = this.s.origins ? this.s.origins.write(this.m) : writeModule(this.m);
      } catch (e) {
        blame(e, `writing the module after pass "${pass.name}" failed`, pass.name);
      }
      after = next.length;
      // (a reordering is checked on what chose it: on web-tree-sitter's debug build two runs
      // of the estimate, quality 9 then, 0.27 s, were a tenth of the run; verification still sees the result)
      const check = pass.ordersOnly ? judge.forOrders() : judge;
      if (!pass.mayGrow && !check.notWorse(this.current, next)) {
        // Undo: re-read the last good bytes (lazily, so this is cheap).
        kept = false;
        notes.push(`undone: the module grew (${check.explainGrowth(this.current, next)}) under target ${this.s.target}${judge === this.s.judge ? "" : " (estimated)"}`);
        try {
          this.m = readModule(this.current);
        } catch (e) {
          blame(e, `re-reading the module to undo pass "${pass.name}" failed`, pass.name);
        }
        this.s.origins?.read(this.m, this.current);
        restoreOrigins(this.m, origins, this.mapEntries);
      } else {
        if (this.s.checked) {
          try {
            readAndValidate(next);
          } catch (e) {
            throw new InternalError(`pass "${pass.name}" produced an invalid module: ${describe(e)}`, pass.name, { cause: e });
          }
        }
        this.current = next;
      }
    }
    // a loop, not push(...entries): outline on esbuild records more entries than a call may take arguments
    if (kept) for (const e of entries) this.mapEntries.push(e);
    this.reports.push({
      name: pass.name,
      bytesBefore: before,
      bytesAfter: kept ? after : before,
      timeMs: ms(now() - t),
      changed: result.changed,
      kept,
      stats: { ...(result.stats ?? {}) },
      notes,
    });
    phases.end();
    return result.changed && kept;
  }

  /** The state now, to go back to if a later one fails verification; `passes` have run. */
  checkpoint(passes: number): Checkpoint {
    return { bytes: this.current, passes, reports: this.reports.length, entries: this.mapEntries.length, origins: this.m.functions.map((f) => f.origin) };
  }

  /** Goes back to `cp`: the passes kept after it are reported undone, saying `why`. */
  backTo(cp: Checkpoint, why: string): void {
    this.current = cp.bytes;
    try {
      this.m = readModule(this.current);
    } catch (e) {
      this.s.blame(e, "re-reading the module after verification failed");
    }
    this.s.origins?.read(this.m, this.current);
    this.mapEntries.length = cp.entries;
    restoreOrigins(this.m, cp.origins, this.mapEntries);
    for (const r of this.reports.slice(cp.reports)) {
      if (!r.changed || !r.kept) continue;
      r.kept = false;
      r.bytesAfter = r.bytesBefore;
      r.notes.push(`undone: ${why}`);
    }
  }
}
