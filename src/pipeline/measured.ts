// The real compressed sizes a run measured of its input and of the output it
// returned, kept beside the result (not in the report) for the result cache:
// a later run re-checks the stored output under the size target with them
// instead of two more brotli quality-11 runs (see result-cache.ts).

import type { OptimizeResult } from "../pipeline.js";

export interface KnownSizes {
  gzip?: number;
  brotli?: number;
}

export interface Measured {
  input: KnownSizes;
  output: KnownSizes;
}

const measured = new WeakMap<OptimizeResult, Measured>();

export function recordMeasured(result: OptimizeResult, m: Measured): void {
  measured.set(result, { input: realOnly(m.input), output: realOnly(m.output) });
}

export function measuredOf(result: OptimizeResult): Measured | undefined {
  return measured.get(result);
}

/** Only the real measures (not the fast brotli screen). */
function realOnly(s: KnownSizes): KnownSizes {
  return { ...(s.gzip === undefined ? {} : { gzip: s.gzip }), ...(s.brotli === undefined ? {} : { brotli: s.brotli }) };
}
