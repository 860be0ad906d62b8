// The profile file: how often each region of each function ran, for one
// input module (identified by its fingerprint). JSON, one function per line:
//
//   {
//     "format": "wasm-compact-profile",
//     "version": 1,
//     "fingerprint": "fnv1a64:0123456789abcdef:48213",
//     "instances": 2,
//     "functions": [
//       {"origin": 7, "blocks": [[0, 1], [5, 1000], [19, 1]]},
//       …
//     ]
//   }
//
// `instances`: how many module instances' counts were added up. `origin`:
// function index in the input module (imports included). `blocks`: pairs
// [start, count] — a region starting at that instruction index of the
// original body (running to the next start, or the end) and how many times
// control entered it. Functions whose counts are all zero may be left out.

import { ProfileError } from "./errors.js";
import type { ProfileMap } from "./profile-map.js";

export const PROFILE_FORMAT = "wasm-compact-profile";
export const PROFILE_VERSION = 1;

export interface ProfileFunction {
  origin: number;
  /** [start instruction index, count], starts ascending. */
  blocks: [number, number][];
}

export interface Profile {
  fingerprint: string;
  instances: number;
  functions: ProfileFunction[];
}

/**
 * Adds up the counter values of several instances of modules instrumented
 * with `map` (each `counts` has map.counters entries) into a profile.
 * `instances`: how many instances the runs stand for (default: one each).
 */
export function profileFromCounts(
  map: ProfileMap,
  runs: readonly (readonly (number | bigint | string)[])[],
  instances = runs.length,
): Profile {
  const sums: bigint[] = new Array<bigint>(map.counters).fill(0n);
  for (const counts of runs) {
    if (counts.length !== map.counters) {
      throw new ProfileError(`a counts list has ${counts.length} entries, but the module has ${map.counters} counters`);
    }
    for (let i = 0; i < counts.length; i++) {
      const v = counts[i]!;
      const c = typeof v === "string" && !/^\d+$/.test(v) ? -1n : BigInt(v);
      if (c < 0n) throw new ProfileError(`counter ${i} is not a non-negative integer (${String(v)})`);
      sums[i]! += c;
    }
  }
  const functions: ProfileFunction[] = [];
  let k = 0;
  for (const f of map.functions) {
    const blocks = f.starts.map((s, j): [number, number] => [s, Number(sums[k + j]!)]);
    k += f.starts.length;
    if (blocks.some((b) => b[1] > 0)) functions.push({ origin: f.origin, blocks });
  }
  return { fingerprint: map.fingerprint, instances, functions };
}

/** The profile as the JSON text described above. */
export function formatProfile(p: Profile): string {
  const fns = p.functions.map((f) => `    ${JSON.stringify({ origin: f.origin, blocks: f.blocks })}`);
  return (
    "{\n" +
    `  "format": ${JSON.stringify(PROFILE_FORMAT)},\n` +
    `  "version": ${PROFILE_VERSION},\n` +
    `  "fingerprint": ${JSON.stringify(p.fingerprint)},\n` +
    `  "instances": ${p.instances},\n` +
    `  "functions": [${fns.length ? `\n${fns.join(",\n")}\n  ` : ""}]\n` +
    "}\n"
  );
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** Parses a profile file's text; throws ProfileError naming what is wrong. */
export function parseProfile(text: string): Profile {
  const bad = (why: string): never => {
    throw new ProfileError(`not a wasm-compact profile: ${why}`);
  };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    bad(`not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const o = v as Record<string, unknown>;
  if (typeof o !== "object" || o === null || o.format !== PROFILE_FORMAT) bad(`no "format": "${PROFILE_FORMAT}"`);
  if (o.version !== PROFILE_VERSION) bad(`version ${String(o.version)} (this wasm-compact reads version ${PROFILE_VERSION})`);
  if (typeof o.fingerprint !== "string") bad(`no "fingerprint"`);
  if (!isCount(o.instances)) bad(`"instances" is not a count`);
  if (!Array.isArray(o.functions)) bad(`"functions" is not a list`);
  const functions: ProfileFunction[] = [];
  const seen = new Set<number>();
  for (const [i, f] of (o.functions as unknown[]).entries()) {
    const e = f as { origin?: unknown; blocks?: unknown };
    const where = `functions[${i}]`;
    if (typeof e !== "object" || e === null || !isCount(e.origin)) bad(`${where}: no "origin" function index`);
    if (seen.has(e.origin as number)) bad(`${where}: function ${String(e.origin)} is listed twice`);
    seen.add(e.origin as number);
    if (!Array.isArray(e.blocks) || e.blocks.length === 0) bad(`${where}: "blocks" is not a non-empty list`);
    let last = -1;
    for (const blk of e.blocks as unknown[]) {
      if (!Array.isArray(blk) || blk.length !== 2 || !isCount(blk[0]) || !isCount(blk[1])) bad(`${where}: a block is not [start, count]`);
      const start = (blk as number[])[0]!;
      if (start <= last) bad(`${where}: block starts are not ascending`);
      last = start;
    }
    if ((e.blocks as number[][])[0]![0] !== 0) bad(`${where}: the first block does not start at instruction 0`);
    functions.push({ origin: e.origin as number, blocks: (e.blocks as [number, number][]).map((b) => [b[0], b[1]]) });
  }
  return { fingerprint: o.fingerprint as string, instances: o.instances as number, functions };
}
