// What a profiled run executed, counted exactly: instructions and calls. The
// runtime benchmark compares these counts between the -Oz module and our
// output for the same workload run. Timings on a busy machine cannot resolve
// a few per cent; these counts are deterministic, so a change that adds calls
// or instructions to what a workload runs shows up here even when it hides in
// the timing noise.
//
// A profile counts how often control entered each region (straight-line runs,
// see regions.ts), so an instruction ran as often as its region was entered
// (a region left by a trap or a throw over-counts its rest). Structure
// markers (block, loop, else, end, try, …) are not counted: they compile to
// nothing or to a jump that the branch before them already stands for; `if`
// is counted, it is a conditional branch.

import { Eff, OPS, idOf } from "../binary/opcodes/index.js";
import { readModule } from "../binary/reader.js";
import type { Module } from "../ir/module.js";
import { ProfileError } from "./errors.js";
import { profiledBodies } from "./profiled-bodies.js";
import type { Profile } from "./profile.js";

export interface ExecutedWork {
  /** Instructions executed (structure markers other than `if` left out). */
  instructions: number;
  /** Calls of every kind: call, call_indirect, call_ref and their return_call forms. */
  calls: number;
  /** Of those, the indirect ones (call_indirect, call_ref and their tail forms). */
  indirectCalls: number;
  /** Defined functions that were entered at least once. */
  functionsRun: number;
}

const enum Kind {
  Skip = 0,
  Plain = 1,
  Call = 2,
  Indirect = 3,
}

const KIND = new Uint8Array(OPS.length).fill(Kind.Plain);
for (let id = 0; id < OPS.length; id++) if (OPS[id]!.effects & Eff.STRUCTURE) KIND[id] = Kind.Skip;
KIND[idOf("if")] = Kind.Plain;
KIND[idOf("nop")] = Kind.Skip;
for (const name of ["call", "return_call"]) KIND[idOf(name)] = Kind.Call;
for (const name of ["call_indirect", "return_call_indirect", "call_ref", "return_call_ref"]) KIND[idOf(name)] = Kind.Indirect;

/**
 * The work `profile` recorded on the module `input` (the exact bytes that were
 * instrumented; `m` is that module read, if the caller has it). Throws
 * ProfileError if the profile belongs to another module or does not fit it.
 */
export function executedWork(profile: Profile, input: Uint8Array, m: Module = readModule(input)): ExecutedWork {
  const work: ExecutedWork = { instructions: 0, calls: 0, indirectCalls: 0, functionsRun: 0 };
  for (const { pf, body } of profiledBodies(profile, input, m)) {
    if ((pf.blocks[0]?.[1] ?? 0) > 0) work.functionsRun++;
    for (let r = 0; r < pf.blocks.length; r++) {
      const [start, count] = pf.blocks[r]!;
      const end = r + 1 < pf.blocks.length ? pf.blocks[r + 1]![0] : body.count;
      if (start >= body.count || end > body.count || end < start) {
        throw new ProfileError(`the profile does not fit the module: function ${pf.origin} has ${body.count} instructions`);
      }
      if (count === 0) continue;
      let plain = 0;
      let calls = 0;
      let indirect = 0;
      for (let i = start; i < end; i++) {
        const k = KIND[body.ops[i]!]!;
        if (k === Kind.Skip) continue;
        plain++;
        if (k === Kind.Call) calls++;
        else if (k === Kind.Indirect) indirect++;
      }
      work.instructions += plain * count;
      work.calls += (calls + indirect) * count;
      work.indirectCalls += indirect * count;
    }
  }
  return work;
}
