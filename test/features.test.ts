// Feature discipline: what a module uses and declares (analysis/feature-use),
// what passes may add (passes/features), and that outline and fold-blocks
// add no multi-value to a module that has none while still doing their
// single-result work.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { declaredFeatures, readTargetFeatures, usedFeatures } from "../src/analysis/feature-use.js";
import { featureByName } from "../src/analysis/feature-names.js";
import { mayIntroduce } from "../src/passes/features.js";
import { optimize, UsageError } from "../src/index.js";
import type { Module } from "../src/ir/module.js";
import { sameBehaviour } from "./behaviour.js";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { uleb } from "./leb.js";

const wat = async (text: string): Promise<Uint8Array> => await parse(text);
const used = (bytes: Uint8Array): string[] => [...usedFeatures(readModule(bytes))].sort();

/** `bytes` with a target_features custom section appended: entries like "+multivalue", "-simd128". */
function withTargetFeatures(bytes: Uint8Array, entries: string[]): Uint8Array {
  const str = (s: string) => {
    const b = [...new TextEncoder().encode(s)];
    return [...uleb(b.length), ...b];
  };
  const payload = [...str("target_features"), ...uleb(entries.length), ...entries.flatMap((e) => [e.charCodeAt(0), ...str(e.slice(1))])];
  return new Uint8Array([...bytes, 0, ...uleb(payload.length), ...payload]);
}

test("detection: an MVP module uses nothing", async () => {
  assert.deepEqual(used(await wat(`(module (memory 1) (func (export "f") (param i32) (result i32) (i32.load (local.get 0))))`)), []);
});

test("detection: a function type with two results, or a block with a parameter, is multi-value", async () => {
  assert.deepEqual(used(await wat(`(module (func (result i32 i32) i32.const 1 i32.const 2))`)), ["multivalue"]);
  assert.deepEqual(used(await wat(`(module (func (param i32) (result i32) local.get 0 (block (param i32) (result i32) i32.const 1 i32.add)))`)), ["multivalue"]);
  // a single-result block type is MVP
  assert.deepEqual(used(await wat(`(module (func (result i32) (block (result i32) i32.const 1)))`)), []);
});

test("detection: tail calls, SIMD, sign-ext, saturating truncation, bulk memory", async () => {
  assert.deepEqual(used(await wat(`(module (func $g (result i32) i32.const 1) (func (result i32) return_call $g))`)), ["tail-call"]);
  assert.deepEqual(used(await wat(`(module (func (local v128)))`)), ["simd"]);
  assert.deepEqual(used(await wat(`(module (func (result i32) (i32x4.extract_lane 0 (v128.const i32x4 1 2 3 4))))`)), ["simd"]);
  assert.deepEqual(used(await wat(`(module (func (param i32) (result i32) (i32.extend8_s (local.get 0))))`)), ["sign-ext"]);
  assert.deepEqual(used(await wat(`(module (func (param f32) (result i32) (i32.trunc_sat_f32_s (local.get 0))))`)), ["nontrapping-float-to-int"]);
  assert.deepEqual(used(await wat(`(module (memory 1) (func (memory.fill (i32.const 0) (i32.const 0) (i32.const 1))))`)), ["bulk-memory"]);
});

test("detection: module structure (mutable global export, two tables, shared memory, typed select, externref)", async () => {
  assert.deepEqual(used(await wat(`(module (global (export "g") (mut i32) (i32.const 0)))`)), ["mutable-globals"]);
  assert.deepEqual(used(await wat(`(module (global (mut i32) (i32.const 0)))`)), [], "a mutable global that stays inside is MVP");
  assert.deepEqual(used(await wat(`(module (table 1 funcref) (table 1 funcref))`)), ["reference-types"]);
  assert.deepEqual(used(await wat(`(module (memory 1 1 shared))`)), ["threads"]);
  assert.deepEqual(used(await wat(`(module (func (param i32 i32 i32) (result i32) (select (result i32) (local.get 0) (local.get 1) (local.get 2))))`)), ["reference-types"]);
  assert.deepEqual(used(await wat(`(module (func (param externref)))`)), ["reference-types"]);
  assert.deepEqual(used(await wat(`(module (global (import "m" "g") i32) (global i32 (i32.add (global.get 0) (i32.const 1))))`)), ["extended-const"]);
});

test("target_features: '+' and '=' declare, '-' does not; LLVM names map to wasm-opt's", async () => {
  const bytes = withTargetFeatures(await wat(`(module)`), ["+multivalue", "-simd128", "=tail-call", "+nontrapping-fptoint", "+bulk-memory-opt", "+unknown-thing"]);
  const m = readModule(bytes);
  assert.deepEqual([...declaredFeatures(m)].sort(), ["multivalue", "nontrapping-float-to-int", "tail-call"]);
  assert.deepEqual([...usedFeatures(m)], [], "declared is not used");
  assert.deepEqual(readTargetFeatures(new Uint8Array([1, 0x2b, 4, 0x73, 0x69])), null, "a truncated section is malformed");
  const bad = withTargetFeatures(await wat(`(module)`), ["+multivalue"]);
  bad[bad.length - 1] = 0xff; // "multivaluÿ": not UTF-8 text
  assert.deepEqual([...declaredFeatures(readModule(bad))], [], "a malformed section declares nothing");
});

test("mayIntroduce: allowed iff used or declared, unless the options say otherwise", async () => {
  const plain = readModule(await wat(`(module (func))`));
  const declared = readModule(withTargetFeatures(await wat(`(module (func))`), ["+multivalue"]));
  const tail = readModule(await wat(`(module (func $g) (func return_call $g))`));
  const may = (m: Module, o: object | undefined, f: "multivalue" | "tail-call") => mayIntroduce(m, o, f);
  assert.equal(may(plain, undefined, "multivalue"), false);
  assert.equal(may(plain, undefined, "tail-call"), false);
  assert.equal(may(declared, undefined, "multivalue"), true);
  assert.equal(may(tail, undefined, "tail-call"), true);
  assert.equal(may(plain, { features: { multivalue: true } }, "multivalue"), true);
  assert.equal(may(tail, { features: { "tail-call": false } }, "tail-call"), false, "disable wins over use");
});

test("feature names: wasm-opt's spelling, aliases, LLVM's; unknown names are a usage error", () => {
  assert.equal(featureByName("multivalue"), "multivalue");
  assert.equal(featureByName("multi-value"), "multivalue");
  assert.equal(featureByName("simd128"), "simd");
  assert.equal(featureByName("no-such-feature"), null);
  assert.throws(() => optimize(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), { features: { "no-such-feature": true } }), UsageError);
});

// Two live locals out of a repeated sequence (needs two results) in a, b, c;
// a repeated single-result computation in d, e, f.
const TWO = (x: number, s: number, t: number) => `
    local.get ${x} i32.const 1234 i32.mul i32.const 77 i32.xor local.set ${s}
    local.get ${s} i32.const 9 i32.rotl local.get ${x} i32.add local.set ${t}
    local.get ${t} i32.const 3 i32.shr_u local.get ${s} i32.xor local.set ${s}
    local.get ${s} i32.const 5 i32.shl local.get ${t} i32.sub local.set ${t}`;
const ONE = (x: number, y: number, t: number) => `
    local.get ${x} local.get ${y} i32.mul i32.const 12345 i32.add local.set ${t}
    local.get ${t} local.get ${t} i32.const 7 i32.shl i32.xor local.set ${t}
    local.get ${t} i32.const 99 i32.rotl local.get ${x} i32.sub local.set ${t}`;
const OUTLINE_WAT = `(module
  ${["a", "b", "c"].map((n, k) => `(func (export "${n}") (param i32 i32) (result i32) (local i32 i32)
    ${TWO(0, 2, 3)} local.get 2 local.get 3 i32.const ${k + 3} i32.mul i32.sub)`).join("\n")}
  ${["d", "e", "f"].map((n, k) => `(func (export "${n}") (param i32 i32) (result i32) (local i32)
    ${ONE(0, 1, 2)} local.get 2 i32.const ${k + 1} i32.add)`).join("\n")})`;
const CALLS = ["a", "b", "c", "d", "e", "f"].flatMap((n) => [[0, 0], [1, 2], [12345, -7], [-1, 99999]].map((a) => [n, a] as [string, unknown[]]));

function maxResults(bytes: Uint8Array): number {
  const m = readModule(bytes);
  return Math.max(0, ...m.types.map((t) => (t.composite.kind === "func" ? t.composite.results.length : 0)));
}

test("outline: no multi-value in a module without it, single-result sequences still outlined", async () => {
  const input = await wat(OUTLINE_WAT);
  assert.deepEqual(used(input), []);
  const plain = optimize(input, { passes: ["outline"], checked: true, outlineHot: true });
  assert.equal(maxResults(plain.binary), 1, "no function type with two results");
  assert.ok((plain.report.passes[0]!.stats["functionsOutlined"] ?? 0) >= 1, "the single-result sequence is outlined");
  assert.deepEqual(plain.report.features, { input: [], declared: [], output: [] });
  assert.ok(!plain.report.notes.some((n) => n.startsWith("features:")));
  sameBehaviour(input, plain.binary, CALLS);

  // enabled by the user, or declared by the module: two results, and a note says so
  const enabled = optimize(input, { passes: ["outline"], checked: true, outlineHot: true, features: { "multi-value": true } });
  assert.equal(maxResults(enabled.binary), 2);
  assert.deepEqual(enabled.report.features.output, ["multivalue"]);
  assert.ok(enabled.report.notes.includes("features: the output uses multivalue (enabled), which the input did not use"), enabled.report.notes.join("\n"));
  sameBehaviour(input, enabled.binary, CALLS);
  const declared = optimize(withTargetFeatures(input, ["+multivalue"]), { passes: ["outline"], checked: true, outlineHot: true });
  assert.equal(maxResults(declared.binary), 2);
  assert.deepEqual(declared.report.features, { input: [], declared: ["multivalue"], output: ["multivalue"] });
});

const ARM2 = `(local.set 1 (i32.mul (local.get 0) (i32.const 3)))
      (local.set 2 (i32.add (local.get 1) (i32.rotl (local.get 0) (i32.const 5))))
      (local.set 1 (i32.xor (local.get 1) (i32.const 0x5555)))
      (local.set 2 (i32.sub (local.get 2) (i32.shl (local.get 1) (i32.const 2))))
      (local.set 1 (i32.add (local.get 1) (i32.rotl (local.get 2) (i32.const 9))))
      (local.set 2 (i32.xor (local.get 2) (i32.shr_s (local.get 1) (i32.const 3))))`;
const ARM1 = `(local.set 1 (i32.mul (local.get 0) (i32.const 7)))
      (local.set 1 (i32.xor (local.get 1) (i32.shr_u (local.get 1) (i32.const 11))))
      (local.set 1 (i32.add (local.get 1) (i32.rotl (local.get 1) (i32.const 13))))
      (local.set 1 (i32.sub (local.get 1) (i32.shl (local.get 0) (i32.const 3))))
      (local.set 1 (i32.xor (local.get 1) (i32.const 0x3333)))`;
const FOLD_WAT = `(module
  ${["a", "b"].map((n) => `(func (export "${n}") (param i32) (result i32) (local i32 i32)
    (if (local.get 0) (then ${ARM2})) (i32.add (local.get 1) (local.get 2)))`).join("\n")}
  ${["c", "d"].map((n) => `(func (export "${n}") (param i32) (result i32) (local i32)
    (if (local.get 0) (then ${ARM1})) (local.get 1))`).join("\n")})`;

test("fold-blocks: no multi-value in a module without it, single-result regions still folded", async () => {
  const input = await wat(FOLD_WAT);
  const calls = ["a", "b", "c", "d"].flatMap((n) => [0, 1, 7, -3, 123456].map((x) => [n, [x]] as [string, unknown[]]));
  const plain = optimize(input, { passes: ["fold-blocks"], checked: true, outlineHot: true });
  assert.equal(plain.report.passes[0]!.stats["blocksFolded"], 1, "only the arm with one live-out local");
  assert.equal(maxResults(plain.binary), 1);
  sameBehaviour(input, plain.binary, calls);
  const enabled = optimize(input, { passes: ["fold-blocks"], checked: true, outlineHot: true, features: { multivalue: true } });
  assert.equal(enabled.report.passes[0]!.stats["blocksFolded"], 2, "both arms");
  assert.equal(maxResults(enabled.binary), 2);
  sameBehaviour(input, enabled.binary, calls);
});

test("CLI: one note line when the output uses a feature the input did not (only when enabled)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-features-"));
  try {
    const input = join(dir, "in.wasm");
    writeFileSync(input, await wat(OUTLINE_WAT));
    const cli = fileURLToPath(new URL("../cli/main.js", import.meta.url)); // dist/test -> dist/cli
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, input, "-o", join(dir, "out.wasm"), "--target", "raw", "--passes", "outline", "--outline-hot", ...args], { encoding: "utf8" });
    const plain = run();
    assert.equal(plain.status, 0, plain.stderr);
    assert.doesNotMatch(plain.stderr, /note: features/);
    const enabled = run("--enable", "multivalue");
    assert.equal(enabled.status, 0, enabled.stderr);
    assert.deepEqual(enabled.stderr.split("\n").filter((l) => l.startsWith("note: features")), ["note: features: the output uses multivalue (enabled), which the input did not use"]);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
