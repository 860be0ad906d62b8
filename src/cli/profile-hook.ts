// Loaded into the user's workload by `wasm-compact profile` (NODE_OPTIONS
// --import). It notices every WebAssembly instance that exports the counter
// reader of an instrumented module, and when the process exits it writes
// their counts (added up per module) to a file in $WASM_COMPACT_COUNTS_DIR,
// in the counts format profile-command.ts reads. Without that variable it
// does nothing.
//
// Instances are found by wrapping WebAssembly.instantiate,
// WebAssembly.instantiateStreaming and the WebAssembly.Instance constructor
// (a Proxy, so `instanceof WebAssembly.Instance` still holds).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants } from "node:os";
import { COUNTER_EXPORT, COUNT_EXPORT, MAP_SECTION } from "../profile/names.js";
import { COUNTS_FORMAT, COUNTS_VERSION, type CountsFile } from "./counts-file.js";

const dir = process.env.WASM_COMPACT_COUNTS_DIR;

interface Seen {
  map: string;
  read: () => bigint[];
}

const seen: Seen[] = [];
const known = new WeakSet<object>();

function record(instance: WebAssembly.Instance, module: WebAssembly.Module): void {
  if (known.has(instance)) return;
  known.add(instance);
  const ex = instance.exports as Record<string, unknown>;
  const one = ex[COUNTER_EXPORT];
  const count = ex[COUNT_EXPORT];
  if (typeof one !== "function" || typeof count !== "function") return;
  const sections = WebAssembly.Module.customSections(module, MAP_SECTION);
  if (sections.length !== 1) return;
  const map = new TextDecoder().decode(sections[0]!);
  seen.push({
    map,
    read: () => {
      const n = Number(count());
      const out: bigint[] = new Array<bigint>(n);
      for (let i = 0; i < n; i++) out[i] = BigInt(one(i) as bigint);
      return out;
    },
  });
}

let dumped = false;

function dump(): void {
  if (dumped || seen.length === 0 || !dir) return;
  dumped = true;
  // instances of the same module add up
  const byMap = new Map<string, { instances: number; sums: bigint[] }>();
  for (const s of seen) {
    const counts = s.read();
    const e = byMap.get(s.map);
    if (!e) byMap.set(s.map, { instances: 1, sums: counts });
    else {
      e.instances++;
      for (let i = 0; i < counts.length && i < e.sums.length; i++) e.sums[i]! += counts[i]!;
    }
  }
  const file: CountsFile = {
    format: COUNTS_FORMAT,
    version: COUNTS_VERSION,
    modules: [...byMap].map(([map, e]) => ({ map, instances: e.instances, counts: e.sums.map(String) })),
  };
  const name = `counts-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.json`;
  writeFileSync(join(dir, name), JSON.stringify(file));
}

if (dir) {
  const WA = WebAssembly as unknown as Record<string, unknown>;
  const instantiate = WebAssembly.instantiate;
  const instantiateStreaming = WebAssembly.instantiateStreaming;
  const Instance = WebAssembly.Instance;

  WA.instantiate = async function (source: unknown, imports?: WebAssembly.Imports): Promise<unknown> {
    const r = (await (instantiate as (s: unknown, i?: WebAssembly.Imports) => Promise<unknown>)(source, imports)) as
      | WebAssembly.Instance
      | WebAssembly.WebAssemblyInstantiatedSource;
    if (r instanceof Instance) record(r, source as WebAssembly.Module);
    else record(r.instance, r.module);
    return r;
  };
  if (typeof instantiateStreaming === "function") {
    WA.instantiateStreaming = async function (source: unknown, imports?: WebAssembly.Imports): Promise<unknown> {
      const r = await (instantiateStreaming as (s: unknown, i?: WebAssembly.Imports) => Promise<WebAssembly.WebAssemblyInstantiatedSource>)(source, imports);
      record(r.instance, r.module);
      return r;
    };
  }
  WA.Instance = new Proxy(Instance, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget) as WebAssembly.Instance;
      record(instance, args[0] as WebAssembly.Module);
      return instance;
    },
  });
  process.on("exit", dump);
  // A process ended by a signal skips "exit" (esbuild stops its service
  // process with SIGTERM): save the counts first, then end the way the
  // signal would have, unless the program handles the signal itself.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      dump();
      if (process.listenerCount(signal) === 1) process.exit(128 + constants.signals[signal]);
    });
  }
}
