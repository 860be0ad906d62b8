// Instrumentation for profile-guided mode: adds one counter per region (see
// regions.ts) and a way for the host to read them, without needing a memory,
// so that any module can be instrumented.
//
//   - counters: mutable i64 globals appended after the module's own, each
//     incremented by `global.get c; i64.const 1; i64.add; global.set c` in
//     front of its region's first instruction (stack-neutral, so valid
//     anywhere in a sequence);
//   - exports: `__wasm_compact_counters() -> i32` (how many) and
//     `__wasm_compact_counter(i32) -> i64` (one count; -1 out of range),
//     the latter a balanced binary decision tree over the globals: code
//     linear in the number of counters, nesting depth logarithmic (split
//     into chunk functions for large modules);
//   - the custom section "wasm-compact.profile-map" (profile-map.ts), with
//     the input's fingerprint.
//
// Everything else keeps its index (globals, functions and types are only
// appended), so the instrumented module behaves as the input does.

import { plainBytes } from "../binary/bytes.js";
import { decodeAllBodies, readModule } from "../binary/reader.js";
import { writeModule } from "../binary/writer.js";
import { validateModule } from "../analysis/validate.js";
import { idOf } from "../binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../ir/body.js";
import { ensureFuncType } from "../ir/func-types.js";
import type { Func, Module } from "../ir/module.js";
import { I32, I64 } from "../ir/types.js";
import { InternalError } from "../errors.js";
import { ProfileError } from "./errors.js";
import { fingerprint } from "./fingerprint.js";
import { encodeProfileMap, type MapFunction } from "./profile-map.js";
import { COUNTER_EXPORT, COUNT_EXPORT, MAP_SECTION } from "./names.js";
import { regionStarts } from "./regions.js";

export { COUNTER_EXPORT, COUNT_EXPORT };
/** Engines limit a module to 1,000,000 globals (the JS API's implementation limits). */
export const MAX_GLOBALS = 1_000_000;
/** Counters per reader function (a chunk's tree is about 12 bytes per counter). */
const CHUNK = 1 << 16;

export interface InstrumentOptions {
  /** Counters per reader function (default 65536; smaller only to exercise the split). */
  readerChunk?: number;
}

export interface InstrumentResult {
  binary: Uint8Array;
  /** Number of counters added. */
  counters: number;
  /** Fingerprint of the input (what a profile made with this module is valid for). */
  fingerprint: string;
}

const OP = {
  globalGet: idOf("global.get"),
  globalSet: idOf("global.set"),
  localGet: idOf("local.get"),
  i32Const: idOf("i32.const"),
  i64Const: idOf("i64.const"),
  i64Add: idOf("i64.add"),
  i32LtU: idOf("i32.lt_u"),
  call: idOf("call"),
  if: idOf("if"),
  else: idOf("else"),
  end: idOf("end"),
};

/**
 * Instruments `bytes` (which must be a valid module). Throws WasmDecodeError or
 * WasmValidationError for bad input, ProfileError if it is already instrumented
 * or would need more counters than engines allow.
 */
export function instrument(input: Uint8Array, options: InstrumentOptions = {}): InstrumentResult {
  const bytes = plainBytes(input);
  const chunk = options.readerChunk ?? CHUNK;
  const m = readModule(bytes);
  decodeAllBodies(m);
  validateModule(m);
  if (m.customs.some((c) => c.name === MAP_SECTION) || m.exports.some((e) => e.name === COUNTER_EXPORT || e.name === COUNT_EXPORT)) {
    throw new ProfileError("the module is already instrumented (instrument the original module instead)");
  }

  const firstGlobal = m.numImportedGlobals + m.globals.length;
  const functions: MapFunction[] = [];
  let counters = 0;
  const plans = m.functions.map((f) => {
    const starts = regionStarts(f.body!);
    functions.push({ origin: f.origin, starts: [...starts] });
    const base = counters;
    counters += starts.length;
    return { starts, base };
  });
  if (firstGlobal + counters > MAX_GLOBALS) {
    throw new ProfileError(`the module needs ${counters} counters, more than engines allow globals (${MAX_GLOBALS} in all); it is too large to instrument`);
  }
  m.functions.forEach((f, i) => {
    const { starts, base } = plans[i]!;
    f.body = withCounters(f.body!, starts, firstGlobal + base);
    f.dirty = true;
  });

  for (let k = 0; k < counters; k++) {
    const init = new BodyBuilder(2);
    init.begin(OP.i64Const);
    init.word(0);
    init.word(0);
    init.begin(OP.end);
    m.globals.push({ type: { type: I64, mutable: true }, init: { body: init.finish() } });
  }

  // The reader: one function up to CHUNK counters; beyond, a tree over chunk
  // functions, as engines limit a function body to about 7.6 MB.
  const i32ToI64 = ensureFuncType(m, [I32], [I64]);
  const getGlobal = (b: BodyBuilder, k: number): void => {
    b.begin(OP.globalGet);
    b.word(firstGlobal + k);
  };
  const chunks = counters > chunk ? Math.ceil(counters / chunk) : 0;
  const nFuncs = m.numImportedFuncs + m.functions.length;
  const counterFn = chunks === 0
    ? newFunc(i32ToI64, treeBody(counters, counters, (k) => k, getGlobal))
    : newFunc(i32ToI64, treeBody(counters, chunks, (k) => k * chunk, (b, k) => {
        b.begin(OP.localGet);
        b.word(0);
        b.begin(OP.call);
        b.word(nFuncs + 2 + k);
      }));
  m.functions.push(newFunc(ensureFuncType(m, [], [I32]), countBody(counters)), counterFn);
  for (let k = 0; k < chunks; k++) {
    const lo = k * chunk;
    const size = Math.min(chunk, counters - lo);
    // inside a chunk the index is already known to be in range: bound by `counters`, never taken
    m.functions.push(newFunc(i32ToI64, treeBody(counters, size, (j) => lo + j, (b, j) => getGlobal(b, lo + j))));
  }
  m.exports.push({ name: COUNT_EXPORT, kind: "func", index: nFuncs });
  m.exports.push({ name: COUNTER_EXPORT, kind: "func", index: nFuncs + 1 });

  const fp = fingerprint(bytes);
  m.customs.push({ name: MAP_SECTION, bytes: encodeProfileMap({ fingerprint: fp, counters, functions }), after: 11 });

  const binary = writeModule(m);
  try {
    const check = readModule(binary);
    decodeAllBodies(check);
    validateModule(check);
  } catch (e) {
    throw new InternalError(`the instrumented module does not validate: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e });
  }
  return { binary, counters, fingerprint: fp };
}

/** `body` with a counter increment in front of each region start; counter k is global `first + k`. */
function withCounters(body: Body, starts: Uint32Array, first: number): Body {
  const b = new BodyBuilder(body.count + 4 * starts.length);
  let next = 0;
  for (let i = 0; i < body.count; i++) {
    if (next < starts.length && starts[next] === i) {
      increment(b, first + next);
      next++;
    }
    b.begin(body.ops[i]!);
    for (let w = body.immStart[i]!; w < body.immStart[i + 1]!; w++) b.word(body.imm[w]!);
  }
  return b.finish();
}

function increment(b: BodyBuilder, global: number): void {
  b.begin(OP.globalGet);
  b.word(global);
  b.begin(OP.i64Const);
  b.word(1);
  b.word(0);
  b.begin(OP.i64Add);
  b.begin(OP.globalSet);
  b.word(global);
}

function countBody(n: number): Body {
  const b = new BodyBuilder(2);
  b.begin(OP.i32Const);
  b.word(n);
  b.begin(OP.end);
  return b.finish();
}

/**
 * `if (index < n) tree else -1`, where the tree tests `index < lowerBound(mid)`
 * down to leaf k, which leaves counter k's value (or that of the chunk
 * function for chunk k) on the stack.
 */
function treeBody(n: number, leaves: number, lowerBound: (k: number) => number, leaf: (b: BodyBuilder, k: number) => void): Body {
  const b = new BodyBuilder(8 * leaves + 8);
  const lessThan = (k: number): void => {
    b.begin(OP.localGet);
    b.word(0);
    b.begin(OP.i32Const);
    b.word(k);
    b.begin(OP.i32LtU);
    b.begin(OP.if);
    b.word(I64);
  };
  const tree = (lo: number, hi: number): void => {
    if (hi - lo === 1) return leaf(b, lo);
    const mid = lo + ((hi - lo) >> 1);
    lessThan(lowerBound(mid));
    tree(lo, mid);
    b.begin(OP.else);
    tree(mid, hi);
    b.begin(OP.end);
  };
  if (n > 0) {
    lessThan(n);
    tree(0, leaves);
    b.begin(OP.else);
  }
  b.begin(OP.i64Const);
  b.word(-1);
  b.word(-1);
  if (n > 0) b.begin(OP.end);
  b.begin(OP.end);
  return b.finish();
}

function newFunc(typeIndex: number, body: Body): Func {
  return { typeIndex, locals: [], localCount: 0, raw: null, rawOffset: 0, codeOffset: 0, body, dirty: true, origin: -1 };
}
