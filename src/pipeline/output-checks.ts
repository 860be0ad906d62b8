// What the output must satisfy before it is returned: it validates, and it
// uses no feature the input neither used nor declared unless the options
// enabled it. Failures here are ours (InternalError).

import { readModule, decodeAllBodies } from "../binary/reader.js";
import type { Module } from "../ir/module.js";
import { InternalError } from "../errors.js";
import { usedFeatures, type FeatureUse } from "../analysis/feature-use.js";
import { sortFeatures, type WasmFeature } from "../analysis/feature-names.js";
import type { PassReport } from "../report.js";
import { describe, type Blame } from "./blame.js";
import { readAndValidate } from "./pass-runner.js";

/** The output, read and validated; InternalError naming the passes that changed it if it does not validate. */
export function validateOutput(bytes: Uint8Array, reports: readonly PassReport[]): Module {
  try {
    return readAndValidate(bytes);
  } catch (e) {
    const last = reports.filter((p) => p.changed && p.kept).map((p) => p.name);
    const by = last.length > 0 ? ` (passes that changed it: ${last.join(", ")})` : "";
    throw new InternalError(`the optimized module does not validate${by}: ${describe(e)}`, undefined, { cause: e });
  }
}

export interface OutputFeatures {
  used: Set<WasmFeature>;
  /** Used by the output but not by the input (each declared or enabled), sorted. */
  added: WasmFeature[];
}

/** The output's features (`output`: its module if already read); InternalError if it adds one that was not allowed. */
export function checkFeatures(
  output: Module | null,
  bytes: Uint8Array,
  input: FeatureUse,
  choices: Partial<Record<WasmFeature, boolean>>,
  blame: Blame,
): OutputFeatures {
  let used: Set<WasmFeature>;
  try {
    if (!output) {
      output = readModule(bytes);
      decodeAllBodies(output);
    }
    used = usedFeatures(output);
  } catch (e) {
    blame(e, "scanning the output's features failed");
  }
  const added = sortFeatures([...used].filter((f) => !input.used.has(f)));
  const unallowed = added.filter((f) => !input.declared.has(f) && choices[f] !== true);
  if (unallowed.length > 0) {
    throw new InternalError(`the optimized module uses ${unallowed.join(", ")}, which the input neither uses nor declares and the options do not enable`);
  }
  return { used, added };
}
