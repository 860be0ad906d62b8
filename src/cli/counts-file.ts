// The counts file: raw counter values of instrumented modules, as the profile
// hook writes them at the end of a Node workload, or as a user saves them
// from another host (a browser) by calling the counter exports:
//
//   {"format": "wasm-compact-counts", "version": 1,
//    "modules": [{"map": "<profile map JSON>", "instances": 1, "counts": [0, 12, "9007199254740993", …]}]}
//
// `map` (the module's "wasm-compact.profile-map" section as text) may be
// left out when `wasm-compact profile --module INSTRUMENTED.wasm` names the
// module; `instances` defaults to 1; counts are numbers or decimal strings.

export const COUNTS_FORMAT = "wasm-compact-counts";
export const COUNTS_VERSION = 1;

export interface CountsEntry {
  map?: string;
  instances?: number;
  counts: (number | string)[];
}

export interface CountsFile {
  format: typeof COUNTS_FORMAT;
  version: typeof COUNTS_VERSION;
  modules: CountsEntry[];
}

/** Parses a counts file's text; throws Error with a one-line reason if it is not one. */
export function parseCountsFile(text: string): CountsEntry[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const o = v as Partial<CountsFile> | null;
  if (typeof o !== "object" || o === null || o.format !== COUNTS_FORMAT) throw new Error(`no "format": "${COUNTS_FORMAT}"`);
  if (o.version !== COUNTS_VERSION) throw new Error(`version ${String(o.version)} (this wasm-compact reads ${COUNTS_VERSION})`);
  if (!Array.isArray(o.modules)) throw new Error(`"modules" is not a list`);
  for (const [i, e] of o.modules.entries()) {
    const ok =
      typeof e === "object" && e !== null && Array.isArray(e.counts) &&
      e.counts.every((c) => (typeof c === "number" && Number.isInteger(c) && c >= 0) || (typeof c === "string" && /^\d+$/.test(c))) &&
      (e.map === undefined || typeof e.map === "string") &&
      (e.instances === undefined || (Number.isInteger(e.instances) && e.instances >= 0));
    if (!ok) throw new Error(`modules[${i}] is not {map?, instances?, counts: [non-negative integers]}`);
  }
  return o.modules;
}
