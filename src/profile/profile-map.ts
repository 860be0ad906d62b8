// The profile map: which counter of an instrumented module counts which
// region of which function. It travels inside the instrumented module as the
// custom section "wasm-compact.profile-map" (UTF-8 JSON), so whoever reads the
// counters can turn them into a profile without the original file:
//
//   {"version":1,"fingerprint":"fnv1a64:…","counters":N,
//    "functions":[[origin,[start,start,…]],…]}
//
// Counters are numbered in that order: the function list, then each
// function's region starts. `origin` is the function index in the input
// module (imports included); `start` an instruction index in its original
// body (see regions.ts); `fingerprint` identifies the input module's bytes.

import { ProfileError } from "./errors.js";
import { MAP_SECTION } from "./names.js";

export { MAP_SECTION };
export const MAP_VERSION = 1;

export interface MapFunction {
  origin: number;
  starts: number[];
}

export interface ProfileMap {
  fingerprint: string;
  /** Total counters (the sum of all functions' region counts). */
  counters: number;
  functions: MapFunction[];
}

export function encodeProfileMap(map: ProfileMap): Uint8Array {
  const json = JSON.stringify({
    version: MAP_VERSION,
    fingerprint: map.fingerprint,
    counters: map.counters,
    functions: map.functions.map((f) => [f.origin, f.starts]),
  });
  return new TextEncoder().encode(json);
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** Parses a map (section payload bytes or its text); throws ProfileError if it is not one. */
export function decodeProfileMap(data: Uint8Array | string): ProfileMap {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const bad = (why: string): never => {
    throw new ProfileError(`the ${MAP_SECTION} section is not usable: ${why}`);
  };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    bad("not JSON");
  }
  const o = v as { version?: unknown; fingerprint?: unknown; counters?: unknown; functions?: unknown };
  if (typeof o !== "object" || o === null) bad("not an object");
  if (o.version !== MAP_VERSION) bad(`version ${String(o.version)} (this wasm-compact reads ${MAP_VERSION})`);
  if (typeof o.fingerprint !== "string") bad("no fingerprint");
  if (!isIndex(o.counters)) bad("no counter count");
  if (!Array.isArray(o.functions)) bad("no function list");
  const functions: MapFunction[] = [];
  let total = 0;
  for (const e of o.functions as unknown[]) {
    if (!Array.isArray(e) || !isIndex(e[0]) || !Array.isArray(e[1]) || !(e[1] as unknown[]).every(isIndex)) bad("malformed function entry");
    const [origin, starts] = e as [number, number[]];
    total += starts.length;
    functions.push({ origin, starts });
  }
  if (total !== o.counters) bad(`${total} regions listed for ${String(o.counters)} counters`);
  return { fingerprint: o.fingerprint as string, counters: total, functions };
}
