// The real-world corpus (wasm shipped in npm packages, see test/corpus/corpus.ts)
// through the foundation: reader, body decoder, validator and writer.
//
// Per module:
//   read      readModule + decodeAllBodies + validateModule succeed;
//   identity  writeModule of the unchanged module is byte-identical to the
//             input or at least not larger, and re-reads and validates (ours);
//   reencode  writeModule with every body re-encoded from its decoded form
//             is not larger, re-reads, validates (ours), and decodes to the
//             same functions: same type, same locals, same instructions
//             (ops and immediate words);
//   binaryen  both outputs validate under npm binaryen with all features;
//   wabt      both outputs validate under wabt with all its features, for
//             modules whose original wabt accepts (otherwise skipped, saying
//             why).
// External validators run in worker threads while our checks go on. For
// large modules (esbuild) they check only the re-encoded output by default: it
// exercises every section writer the identity output does plus every body
// encoder (ours still checks both). CORPUS_FULL=1 checks both outputs always.

import { after, describe, it, test } from "node:test";
import assert from "node:assert/strict";
import { corpus, unlistedWasmFiles } from "./corpus/corpus.js";
import { closeExternalValidators, validateWith, type ExternalResult, type Tool } from "./corpus/external.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { printInstruction } from "../src/binary/printer.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { validateModule } from "../src/analysis/validate.js";
import type { Body } from "../src/ir/body.js";
import type { Module } from "../src/ir/module.js";

after(() => closeExternalValidators());

const entries = corpus();

test("corpus: every wasm file in the corpus packages is listed or an alias of a listed one", () => {
  assert.deepEqual(unlistedWasmFiles(), []);
});

test("corpus: holds the expected real-world modules", () => {
  const names = new Set(entries.map((e) => e.name));
  const runtime = ["box2d", "box2d-simd", "draco-encoder", "draco-decoder", "mozjpeg-enc", "mozjpeg-dec", "rapier2d", "tiktoken", "tiktoken-lite", "photon", "ruff-fmt", "resvg"];
  for (const n of ["sql-wasm", "brotli-node", "brotli-web", "zstd", "onig", "web-tree-sitter", "tree-sitter-javascript", "esbuild", ...runtime]) {
    assert.ok(names.has(n), `corpus lacks ${n}`);
  }
  const hash = entries.filter((e) => e.package === "hash-wasm");
  assert.ok(hash.length >= 20, `only ${hash.length} hash-wasm modules found`);
  for (const e of hash) {
    assert.ok(e.label !== null, `hash-wasm module ${e.name} (${e.source}) has no algorithm name`);
    assert.equal(e.name, `hash-wasm-${e.label}`);
  }
  for (const e of ["md5", "sha256", "sha512", "blake3", "argon2", "xxhash64", "crc32"]) {
    assert.ok(names.has(`hash-wasm-${e}`), `corpus lacks hash-wasm-${e}`);
  }
  assert.equal(new Set(entries.map((e) => e.sha256)).size, entries.length, "corpus modules are not distinct");
});

// The harness must be able to fail: both external validators reject a module
// whose only function claims to return an i32 but returns nothing.
test("external validators reject an invalid module", async () => {
  // (module (func (result i32)))
  const bad = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // header
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type: () -> i32
    0x03, 0x02, 0x01, 0x00, // func 0: type 0
    0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // code: no locals, end
  ]);
  for (const tool of ["binaryen", "wabt"] as const) {
    const r = await validateWith(tool, bad);
    assert.equal(r.ok, false, `${tool} accepted an invalid module`);
  }
  // The same module returning i32.const 0 is accepted.
  const fixed = new Uint8Array([...bad.subarray(0, 19), 0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x00, 0x0b]);
  for (const tool of ["binaryen", "wabt"] as const) {
    const r = await validateWith(tool, fixed);
    assert.equal(r.ok, true, `${tool} rejected a valid module: ${r.error}`);
  }
});

/** Describes the first difference between two decoded bodies, or null if equal. */
function bodyDifference(a: Body, b: Body): string | null {
  const n = Math.min(a.count, b.count);
  for (let i = 0; i < n; i++) {
    let same = a.ops[i] === b.ops[i];
    const as = a.immStart[i]!, ae = a.immStart[i + 1]!;
    const bs = b.immStart[i]!, be = b.immStart[i + 1]!;
    if (same && ae - as !== be - bs) same = false;
    for (let k = 0; same && k < ae - as; k++) if (a.imm[as + k] !== b.imm[bs + k]) same = false;
    if (!same) return `instruction ${i}: ${printInstruction(a, i)} became ${printInstruction(b, i)}`;
  }
  if (a.count !== b.count) return `instruction count ${a.count} became ${b.count}`;
  return null;
}

function expandLocals(ls: { count: number; type: number }[]): number[] {
  const out: number[] = [];
  for (const l of ls) for (let i = 0; i < l.count; i++) out.push(l.type);
  return out;
}

/** Compares the functions of two modules: type, locals (expanded), instructions. */
function functionDifferences(a: Module, b: Module, limit = 5): string[] {
  const diffs: string[] = [];
  if (a.functions.length !== b.functions.length) return [`function count ${a.functions.length} became ${b.functions.length}`];
  for (let i = 0; i < a.functions.length && diffs.length < limit; i++) {
    const fa = a.functions[i]!, fb = b.functions[i]!;
    const where = `function ${a.numImportedFuncs + i}`;
    if (fa.typeIndex !== fb.typeIndex) diffs.push(`${where}: type ${fa.typeIndex} became ${fb.typeIndex}`);
    if (fa.localCount !== fb.localCount) diffs.push(`${where}: ${fa.localCount} locals became ${fb.localCount}`);
    else {
      const la = expandLocals(fa.locals), lb = expandLocals(fb.locals);
      const k = la.findIndex((t, j) => t !== lb[j]);
      if (la.length !== lb.length || k >= 0) diffs.push(`${where}: declared local ${k} type ${la[k]} became ${lb[k]}`);
    }
    const d = bodyDifference(fa.body!, fb.body!);
    if (d) diffs.push(`${where}: ${d}`);
  }
  return diffs;
}

// The instruction comparison must be able to fail: a changed constant and a
// changed local type are both reported.
test("function comparison detects a changed immediate and a changed local", () => {
  const e = entries.find((x) => x.name === "hash-wasm-md5") ?? entries[entries.length - 1]!;
  const a = readAll(e.bytes());
  const b = readAll(e.bytes());
  assert.deepEqual(functionDifferences(a, b), []);
  const I32_CONST = idOf("i32.const");
  let changed = false;
  for (const f of b.functions) {
    const body = f.body!;
    const i = body.ops.indexOf(I32_CONST);
    if (i < 0) continue;
    body.imm[body.immStart[i]!]! += 1;
    changed = true;
    break;
  }
  assert.ok(changed, `${e.name} has no i32.const`);
  const d = functionDifferences(a, b);
  assert.equal(d.length, 1);
  assert.match(d[0]!, /i32\.const/);
  const c = readAll(e.bytes());
  const f = c.functions.find((x) => x.locals.length > 0);
  assert.ok(f, `${e.name} has no function with locals`);
  f.locals[0] = { count: f.locals[0]!.count, type: f.locals[0]!.type === 0x7f ? 0x7e : 0x7f };
  assert.match(functionDifferences(a, c).join("\n"), /declared local 0 type/);
});

function readAll(bytes: Uint8Array): Module {
  const m = readModule(bytes);
  decodeAllBodies(m);
  return m;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

function mb(n: number): string {
  return (n / 1e6).toFixed(2) + " MB";
}

/** State shared by one module's checks; later checks need earlier results. */
interface State {
  input: Uint8Array;
  m: Module | null;
  identity: Uint8Array | null;
  reencoded: Uint8Array | null;
  /** External validations, started as soon as their input exists; key "tool:label". */
  external: Map<string, Promise<ExternalResult>>;
}

const TOOLS: readonly Tool[] = ["binaryen", "wabt"];
const FULL = process.env["CORPUS_FULL"] === "1";

function external(s: State, tool: Tool, label: "input" | "identity" | "reencoded", bytes: Uint8Array): Promise<ExternalResult> {
  const key = `${tool}:${label}`;
  let p = s.external.get(key);
  if (!p) {
    p = validateWith(tool, bytes);
    p.catch(() => {}); // awaited (and reported) by the tool's check
    s.external.set(key, p);
  }
  return p;
}

function need<T>(v: T | null, what: string): T {
  if (v === null) throw new Error(`not checked: ${what} failed`);
  return v;
}

for (const e of entries) {
  describe(`${e.name} (${e.package}, ${mb(e.size)})`, () => {
    const s: State = { input: e.bytes(), m: null, identity: null, reencoded: null, external: new Map() };
    // Let the module (esbuild's is hundreds of MB decoded) go once its checks are done.
    // The validators' wasm heaps never shrink: after a large module, restart them.
    after(async () => {
      s.m = null;
      s.identity = null;
      s.reencoded = null;
      s.external.clear();
      if (e.large) await closeExternalValidators();
    });

    it("reads, decodes every body and validates", (t) => {
      const t0 = performance.now();
      const m = readAll(s.input);
      const t1 = performance.now();
      validateModule(m);
      const t2 = performance.now();
      s.m = m;
      t.diagnostic(`${m.functions.length} functions; decode ${(t1 - t0).toFixed(0)} ms, validate ${(t2 - t1).toFixed(0)} ms`);
    });

    it("identity write is byte-identical or smaller, and re-reads and validates", (t) => {
      const m = need(s.m, "reading");
      const out = writeModule(m);
      s.identity = out;
      const identical = sameBytes(out, s.input);
      if (!identical && (FULL || !e.large)) for (const tool of TOOLS) void external(s, tool, "identity", out);
      t.diagnostic(identical ? "byte-identical" : `${s.input.length - out.length} bytes smaller`);
      assert.ok(out.length <= s.input.length, `identity output is ${out.length - s.input.length} bytes larger than the input`);
      const m2 = readAll(out);
      validateModule(m2);
      // Not byte-identical: the functions must still be the same.
      if (!identical) assert.deepEqual(functionDifferences(m, m2), []);
    });

    it("re-encoding every body gives a valid module with the same instructions, not larger", (t) => {
      const m = need(s.m, "reading");
      const t0 = performance.now();
      const out = writeModule(m, { reencodeAll: true });
      const t1 = performance.now();
      s.reencoded = out;
      for (const tool of TOOLS) void external(s, tool, "reencoded", out);
      t.diagnostic(`encode ${(t1 - t0).toFixed(0)} ms; ${s.input.length - out.length} bytes smaller than the input`);
      const m2 = readAll(out);
      validateModule(m2);
      assert.deepEqual(functionDifferences(m, m2), []);
      assert.ok(out.length <= s.input.length, `re-encoded output is ${out.length - s.input.length} bytes larger than the input`);
    });

    const outputs = FULL || !e.large ? "both outputs" : "the re-encoded output";
    it(`binaryen validates ${outputs} (all features)`, async () => {
      await checkExternal(s, "binaryen", false, FULL || !e.large);
    });

    it(`wabt validates ${outputs} (where wabt accepts the input)`, async (t) => {
      const skip = await checkExternal(s, "wabt", true, FULL || !e.large);
      if (skip) t.skip(skip);
    });
  });
}

/**
 * Awaits `tool`'s verdicts on the re-encoded output and, if `withIdentity`,
 * the identity output (a byte-identical one is checked as the input). If one is
 * rejected, the input is checked too: when `skipIfInputRejected` and the tool
 * rejects the input as well, the reason to skip is returned; otherwise the
 * check fails, saying whether the tool accepts the input.
 */
async function checkExternal(s: State, tool: Tool, skipIfInputRejected: boolean, withIdentity: boolean): Promise<string | null> {
  const identity = need(s.identity, "the identity write");
  const reencoded = need(s.reencoded, "the re-encoding write");
  const identical = sameBytes(identity, s.input);
  const verdicts: [string, ExternalResult][] = [];
  if (withIdentity) verdicts.push(["identity", await external(s, tool, identical ? "input" : "identity", identical ? s.input : identity)]);
  verdicts.push(["re-encoded", await external(s, tool, "reencoded", reencoded)]);
  const problems = verdicts.filter(([, r]) => !r.ok).map(([label, r]) => `${label}: ${r.error}`);
  if (problems.length === 0) return null;
  const input = await external(s, tool, "input", s.input);
  if (!input.ok && skipIfInputRejected) return `${tool} rejects the original: ${input.error?.split("\n")[0]}`;
  assert.fail(`${tool} rejected the output (${tool} ${input.ok ? "accepts" : "also rejects"} the original):\n${problems.join("\n")}`);
}
