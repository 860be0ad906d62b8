// Which code passes that add calls must leave alone: a profile's hot blocks
// when one is given, else a static estimate of execution frequency (under
// every target, see profile/static-hot.ts), unless the caller lets passes
// rewrite hot code too.

import type { Module } from "../ir/module.js";
import type { HotCode } from "../passes/pass.js";
import type { Profile } from "../profile/profile.js";
import { hotCodeFromProfile } from "../profile/hot-code.js";
import { staticHotCode } from "../profile/static-hot.js";

const percent = (part: number, whole: number): string => `${whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0}%`;

export interface HotChoice {
  hot?: HotCode;
  /** What was decided, for the report's notes. */
  note?: string;
}

/** Decides on `m` as read from `bytes`, before any pass. */
export function chooseHotCode(m: Module, bytes: Uint8Array, options: { profile?: Profile; hotThreshold?: number; outlineHot?: boolean; loopsHot?: boolean }): HotChoice {
  if (options.profile) {
    const { hot, summary: s } = hotCodeFromProfile(options.profile, bytes, m, options.hotThreshold);
    const cover = `${Math.round(s.threshold * 1000) / 10}% of executed instructions`;
    return {
      hot,
      note:
        s.hotBlocks === 0
          ? `profile: no block hot (threshold ${cover}); ${s.functionsRun} functions ran`
          : `profile: ${s.hotBlocks} of ${s.blocks} blocks hot (run ${s.cutoffCount}+ times, covering ${cover}) ` +
            `in ${s.hotFunctions} of ${s.functionsRun} functions that ran`,
    };
  }
  const outlineHot = options.outlineHot ?? options.loopsHot === false;
  if (outlineHot) return {};
  const { hot, summary: s } = staticHotCode(m);
  return {
    hot,
    note:
      `no profile: a static estimate calls ${s.hotFunctions} of ${s.functions} functions hot (${percent(s.hotInstructions, s.instructions)} of the code); ` +
      "passes that add calls leave hot code alone (--outline-hot rewrites it too)",
  };
}
