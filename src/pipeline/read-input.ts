// Step 1 of a run: read and validate the input (errors here are the input's),
// note what it uses and declares, set its debug info aside, and write the
// module once: the baseline every pass is measured against.

import { decodeAllBodies, readModule } from "../binary/reader.js";
import { writeModule } from "../binary/writer.js";
import { validateModule } from "../analysis/validate.js";
import type { Module } from "../ir/module.js";
import { featureUse, type FeatureUse } from "../analysis/feature-use.js";
import { scanSections, type SectionInfo, type Timings } from "../report.js";
import { recordProducer } from "../producers.js";
import { setAsideDebugInfo, type SetAside } from "../debug-info.js";
import type { Blame } from "./blame.js";
import type { CodeOrigins } from "./code-origins.js";
import { ms, now, type Phases } from "./phases.js";

export interface Input {
  m: Module;
  sections: SectionInfo[];
  /** What the input needs and declares, before any pass: passes may add a feature only where it is in here or the user enabled it. */
  features: FeatureUse;
  /** Debug info that names code offsets: back at the end only where it still holds, and the size judges need not compress it. */
  aside: SetAside;
  /** The module as read, written once (without the debug info set aside, with the producers entry). */
  baseline: Uint8Array;
}

/** `origins`: when a source map must follow the code, where the baseline's code came from is recorded there. */
export function readInput(bytes: Uint8Array, validate: boolean, phases: Phases, timings: Timings, blame: Blame, origins: CodeOrigins | null = null): Input {
  phases.start("read");
  let t = now();
  const m = readModule(bytes);
  const sections = scanSections(bytes);
  timings.readMs = ms(now() - t);
  phases.end();
  if (validate) {
    phases.start("validate input");
    t = now();
    decodeAllBodies(m);
    validateModule(m);
    timings.validateInputMs = ms(now() - t);
    phases.end();
  }
  let features: FeatureUse;
  try {
    features = featureUse(m);
  } catch (e) {
    blame(e, "scanning the input's features failed");
  }
  const aside = setAsideDebugInfo(m);
  // the output says it went through wasm-compact (where the input has a producers section)
  recordProducer(m);

  phases.start("write");
  t = now();
  let baseline: Uint8Array;
  try {
    const onProgress = (d: number, n: number): void => phases.report(n > 0 ? d / n : 1);
    baseline = origins ? origins.write(m, { onProgress }) : writeModule(m, { onProgress });
  } catch (e) {
    blame(e, "writing the module failed");
  }
  timings.writeMs = ms(now() - t);
  phases.end();
  return { m, sections, features, aside, baseline };
}
