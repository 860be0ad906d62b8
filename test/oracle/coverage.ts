// Function coverage of the oracle's workloads: which defined functions of each
// module a workload actually executes. A function no workload runs is one the
// oracle cannot vouch for, whatever the optimizer does to it.
//
// instrument() adds, at the entry of every defined function, code that sets
// the function's bit in one of a few new exported i32 globals
// (`__wasm_compact_cov_<module>_<word>`); nothing else changes, so the
// instrumented module computes what the original does (the runner checks that
// too: the instrumented run's output must equal the original run's).
// Every Node process of a coverage run (the workload's child process and the
// processes it starts, like esbuild's service) preloads coverage-hook.js via
// NODE_OPTIONS: installCoverageHooks() records every instance created through
// WebAssembly.instantiate or new WebAssembly.Instance, and at exit the process
// writes collectCoverage() (the bits read back) into the coverage folder,
// where readCoverageFolder() merges them.

import { decodeFunctionBody, readModule } from "../../src/binary/reader.js";
import { writeModule } from "../../src/binary/writer.js";
import { idOf } from "../../src/binary/opcodes/index.js";
import { BodyBuilder } from "../../src/ir/body.js";
import { I32 } from "../../src/ir/types.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Environment variable naming the folder where processes write their coverage. */
export const COVERAGE_DIR_ENV = "WASM_COMPACT_ORACLE_COVERAGE_DIR";
/** The preload module for NODE_OPTIONS. */
export const COVERAGE_HOOK = new URL("./coverage-hook.js", import.meta.url).href;
const PREFIX = "__wasm_compact_cov_";

/** Returns the module with coverage counters, and the body size in bytes of each defined function. */
export function instrument(bytes: Uint8Array, moduleIndex: number): { bytes: Uint8Array; bodySizes: number[] } {
  const m = readModule(bytes);
  const n = m.functions.length;
  const bodySizes = m.functions.map((f) => f.raw?.length ?? 0);
  const words = Math.ceil(n / 32);
  const firstGlobal = m.numImportedGlobals + m.globals.length;
  const I32_CONST = idOf("i32.const");
  const END = idOf("end");
  for (let w = 0; w < words; w++) {
    const init = new BodyBuilder(2);
    init.begin(I32_CONST);
    init.word(0);
    init.begin(END);
    m.globals.push({ type: { type: I32, mutable: true }, init: { body: init.finish() } });
    m.exports.push({ name: `${PREFIX}${moduleIndex}_${w}`, kind: "global", index: firstGlobal + w });
  }
  const GLOBAL_GET = idOf("global.get");
  const GLOBAL_SET = idOf("global.set");
  const I32_OR = idOf("i32.or");
  for (const [i, f] of m.functions.entries()) {
    const b = decodeFunctionBody(m, f);
    const out = new BodyBuilder(b.count + 4);
    const g = firstGlobal + (i >>> 5);
    out.begin(GLOBAL_GET);
    out.word(g);
    out.begin(I32_CONST);
    out.word((1 << (i & 31)) | 0);
    out.begin(I32_OR);
    out.begin(GLOBAL_SET);
    out.word(g);
    for (let k = 0; k < b.count; k++) {
      out.begin(b.ops[k]!);
      for (let x = b.immStart[k]!; x < b.immStart[k + 1]!; x++) out.word(b.imm[x]!);
    }
    f.body = out.finish();
    f.dirty = true;
  }
  return { bytes: writeModule(m), bodySizes };
}

const instances: WebAssembly.Instance[] = [];

/** Records every wasm instance this process creates from now on (for collectCoverage). */
export function installCoverageHooks(): void {
  const wa = WebAssembly as unknown as Record<string, unknown>;
  const OriginalInstance = WebAssembly.Instance;
  wa.Instance = new Proxy(OriginalInstance, {
    construct(target, args, newTarget) {
      const inst = Reflect.construct(target, args, newTarget === wa.Instance ? target : newTarget) as WebAssembly.Instance;
      instances.push(inst);
      return inst;
    },
  });
  const originalInstantiate = WebAssembly.instantiate.bind(WebAssembly) as (...a: unknown[]) => Promise<unknown>;
  wa.instantiate = async (...args: unknown[]): Promise<unknown> => {
    const r = await originalInstantiate(...args);
    instances.push(r instanceof OriginalInstance ? r : (r as { instance: WebAssembly.Instance }).instance);
    return r;
  };
}

/** Executed defined-function indices per module index, over all recorded instances. */
export function collectCoverage(): Record<string, number[]> {
  const bits = new Map<number, Map<number, number>>();
  for (const inst of instances) {
    for (const [name, value] of Object.entries(inst.exports)) {
      if (!name.startsWith(PREFIX) || !(value instanceof WebAssembly.Global)) continue;
      const [mod, word] = name.slice(PREFIX.length).split("_").map(Number) as [number, number];
      let words = bits.get(mod);
      if (!words) bits.set(mod, (words = new Map()));
      words.set(word, (words.get(word) ?? 0) | (value.value as number));
    }
  }
  const out: Record<string, number[]> = {};
  for (const [mod, words] of bits) {
    const executed: number[] = [];
    for (const [word, w] of words) for (let b = 0; b < 32; b++) if (w & (1 << b)) executed.push(word * 32 + b);
    out[String(mod)] = executed.sort((x, y) => x - y);
  }
  return out;
}

/**
 * Merges the coverage that processes wrote into `dir`, after waiting (up to
 * `waitMs`) for every process that started to have written its part.
 */
export async function readCoverageFolder(dir: string, waitMs = 10_000): Promise<Record<string, number[]>> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const started = readdirSync(dir).filter((f) => f.endsWith(".start"));
    const pending = started.filter((f) => !existsSync(join(dir, f.replace(/\.start$/, ".json"))));
    if (pending.length === 0 || performance.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const merged = new Map<string, Set<number>>();
  for (const f of readdirSync(dir).filter((x) => x.endsWith(".json"))) {
    const part = JSON.parse(readFileSync(join(dir, f), "utf8")) as Record<string, number[]>;
    for (const [mod, fns] of Object.entries(part)) {
      let set = merged.get(mod);
      if (!set) merged.set(mod, (set = new Set()));
      for (const fn of fns) set.add(fn);
    }
  }
  const out: Record<string, number[]> = {};
  for (const [mod, set] of merged) out[mod] = [...set].sort((a, b) => a - b);
  return out;
}
