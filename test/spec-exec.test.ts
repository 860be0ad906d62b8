// The spec test suite's scripts executed on V8 with optimized modules: every
// command whose original outcome is what the suite expects must give the same
// outcome with the modules optimized by the identity pipeline and by the
// default pipeline. (`npm run spec:exec` also runs every registered pass
// alone; here only these two, to keep CI fast.) Plus: the checker is not
// vacuous (a deliberately broken pass is caught), and the executor's literal
// parsing is exact.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  execScript,
  F32,
  F64,
  NONE,
  parseFloatBits,
  parseIntBits,
  runInChildren,
  summarizeExec,
  variantByName,
  type ExecResult,
} from "./spec/exec.js";
import { findSuiteDir, selectFiles } from "./spec/run-spec.js";
import { registerPass, unregisterPass } from "../src/passes/registry.js";
import { decodeFunctionBody } from "../src/binary/reader.js";
import { idOf } from "../src/binary/opcodes/index.js";
import type { Pass } from "../src/passes/pass.js";

function listDifferences(results: ExecResult[]): string {
  return results
    .flatMap((r) => r.differences)
    .slice(0, 30)
    .map((d) => `${d.file}:${d.line} [${d.variant}] ${d.command}\n    original:  ${d.original}\n    optimized: ${d.optimized}`)
    .join("\n");
}

test("core spec scripts on V8: the identity and default pipelines change no outcome", { timeout: 900_000 }, async () => {
  const suite = findSuiteDir();
  const files = selectFiles(suite, "core");
  const results = await runInChildren({ files, suiteDir: suite, variants: ["none", "default"], jobs: 2 });
  assert.equal(results.length, files.length, "every script gives a result");
  const s = summarizeExec(results, () => "core")[0]!;
  assert.equal(s.differ, 0, `differences:\n${listDifferences(results)}`);
  // Scripts may only be skipped when V8 itself crashes on them (a V8 bug, see the report of npm run spec:exec).
  for (const r of results) {
    if (r.scriptSkipped !== undefined) assert.match(r.scriptSkipped, /V8 fatal error/, `${r.file}: ${r.scriptSkipped}`);
  }
  // Not vacuous: nearly all of the suite's commands are checked, on both variants.
  assert.ok(s.checked >= 0.9 * s.commands, `checked ${s.checked} of ${s.commands} commands`);
  assert.ok(s.checkedAssertions > 50_000, `only ${s.checkedAssertions} assertions checked`);
  assert.equal(s.agree, 2 * s.checked);
  assert.ok(s.changed > 0, "some modules are changed by the optimizer");
});

/** Adds 1 to every i32.const in one function body per module (the first that has one): wrong on purpose. */
const bumpConst: Pass = {
  name: "test-bump-i32-const",
  description: "test only: adds 1 to every i32.const of one function (breaks programs)",
  mayGrow: true,
  run(m) {
    const I32_CONST = idOf("i32.const");
    for (const f of m.functions) {
      const body = f.body ?? decodeFunctionBody(m, f);
      let hit = false;
      for (let i = 0; i < body.count; i++) {
        if (body.ops[i] === I32_CONST) {
          body.imm[body.immStart[i]!] = (body.imm[body.immStart[i]!]! + 1) | 0;
          hit = true;
        }
      }
      if (hit) {
        f.body = body;
        f.dirty = true;
        return { changed: true };
      }
    }
    return { changed: false };
  },
};

test("the checker is not vacuous: a broken pass is reported, with file, line, outcomes and pass", async () => {
  const suite = findSuiteDir();
  const scripts = ["block.wast", "call.wast", "memory_trap.wast", "fac.wast"];
  registerPass(bumpConst);
  let broken: ExecResult[];
  try {
    broken = [];
    for (const f of scripts) broken.push(await execScript(join(suite, f), suite, { variants: [NONE, { name: bumpConst.name, passes: [bumpConst.name] }] }));
  } finally {
    unregisterPass(bumpConst.name);
  }
  const diffs = broken.flatMap((r) => r.differences);
  assert.ok(diffs.length >= 5, `only ${diffs.length} differences reported`);
  assert.ok(diffs.every((d) => d.variant === bumpConst.name), "the identity pipeline gives no difference");
  const one = diffs.find((d) => d.file === "block.wast" && d.line === 354);
  assert.ok(one, "block.wast:354 (singular returns 7) is reported");
  assert.equal(one.original, "returns i32:7");
  assert.match(one.optimized, /returns i32:8 \(expects i32:7\)/);
  assert.match(one.command, /assert_return \(invoke "singular"\)/);
  // A changed trap is caught too: a store that was in bounds now traps.
  assert.ok(diffs.some((d) => d.file === "memory_trap.wast" && /RuntimeError: memory access out of bounds/.test(d.optimized)), "memory_trap.wast: a new trap is reported");
  for (const r of broken) assert.equal(r.differ, r.differences.length);
});

/** Each command says what the executor must judge: ";; pass" (V8 does what the suite says) or ";; fail". */
const JUDGE_SCRIPT = String.raw`(module
  (func (export "i32") (result i32) (i32.const -1))
  (func (export "i64") (result i64) (i64.const 0x8000000000000000))
  (func (export "f32nan") (result f32) (f32.const nan:0x600000))
  (func (export "f32can") (result f32) (f32.const -nan))
  (func (export "f64") (result f64) (f64.const -0x1p-1074))
  (func (export "v128") (result v128) (v128.const i32x4 1 2 3 4))
  (func (export "multi") (result i32 i64 f32) (i32.const 1) (i64.const 2) (f32.const 3))
  (func (export "id") (param externref) (result externref) (local.get 0))
  (func (export "null") (result funcref) (ref.null func))
  (func $f (export "fn") (result funcref) (ref.func $f))
  (func (export "div") (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
  (func $rec (export "rec") (call $rec))
  (func (export "echo-f32") (param f32) (result f32) (local.get 0))
  (func (export "echo-v128") (param i64 v128 f64) (result v128) (local.get 1))
  (global (export "g") f32 (f32.const nan:0x1))
)
(assert_return (invoke "i32") (i32.const -1))  ;; pass
(assert_return (invoke "i32") (i32.const 0xffffffff))  ;; pass
(assert_return (invoke "i32") (i32.const 1))  ;; fail
(assert_return (invoke "i64") (i64.const -0x8000000000000000))  ;; pass
(assert_return (invoke "f32nan") (f32.const nan:arithmetic))  ;; pass
(assert_return (invoke "f32nan") (f32.const nan:canonical))  ;; fail
(assert_return (invoke "f32can") (f32.const nan:canonical))  ;; pass
(assert_return (invoke "f64") (f64.const -0x1p-1074))  ;; pass
(assert_return (invoke "f64") (f64.const 0x1p-1074))  ;; fail
(assert_return (invoke "v128") (v128.const i32x4 1 2 3 4))  ;; pass
(assert_return (invoke "v128") (v128.const i64x2 0x200000001 0x400000003))  ;; pass
(assert_return (invoke "v128") (v128.const i32x4 1 2 3 5))  ;; fail
(assert_return (invoke "multi") (i32.const 1) (i64.const 2) (f32.const 3))  ;; pass
(assert_return (invoke "multi") (i32.const 1) (i64.const 2))  ;; fail
(assert_return (invoke "id" (ref.extern 1)) (ref.extern 1))  ;; pass
(assert_return (invoke "id" (ref.extern 1)) (ref.extern 2))  ;; fail
(assert_return (invoke "id" (ref.null extern)) (ref.null extern))  ;; pass
(assert_return (invoke "null") (ref.null func))  ;; pass
(assert_return (invoke "fn") (ref.func))  ;; pass
(assert_return (invoke "fn") (ref.null func))  ;; fail
(assert_return (invoke "echo-f32" (f32.const nan:0x1)) (f32.const nan:0x1))  ;; pass
(assert_return (invoke "echo-v128" (i64.const 0) (v128.const f32x4 nan:0x1 -0 1 -inf) (f64.const 0)) (v128.const i32x4 0x7f800001 0x80000000 0x3f800000 0xff800000))  ;; pass
(assert_return (get "g") (f32.const nan:0x1))  ;; pass
(assert_trap (invoke "div" (i32.const 0)) "integer divide by zero")  ;; pass
(assert_trap (invoke "div" (i32.const 1)) "integer divide by zero")  ;; fail
(assert_exhaustion (invoke "rec") "call stack exhausted")  ;; pass
(assert_return (invoke "i32") (either (i32.const 0) (i32.const -1)))  ;; pass
(assert_return (invoke "i32") (either (i32.const 0) (i32.const 1)))  ;; fail
(invoke "div" (i32.const 0))  ;; fail
(register "M")  ;; pass
(module
  (import "M" "i32" (func $i (result i32)))
  (global (import "spectest" "global_i32") i32)
  (global (import "spectest" "global_f32") f32)
  (global (export "gi") i32 (global.get 0))
  (global (export "gf") f32 (global.get 1))
  (func (export "call") (result i32) (call $i))
)
(assert_return (invoke "call") (i32.const -1))  ;; pass
(assert_return (get "gi") (i32.const 666))  ;; pass
(assert_return (get "gf") (f32.const 666.6))  ;; pass
(assert_unlinkable (module (import "spectest" "print_i32" (func (param i64)))) "incompatible import type")  ;; pass
(assert_unlinkable (module (import "spectest" "print_i32" (func (param i32)))) "incompatible import type")  ;; fail
(assert_unlinkable (module (import "nowhere" "f" (func))) "unknown import")  ;; pass
(assert_trap (module (func $f unreachable) (start $f)) "unreachable")  ;; pass
(assert_uninstantiable (module (func $f unreachable) (start $f)) "unreachable")  ;; pass
`;

test("the executor judges exactly: integers, float bits, NaN patterns, v128 lanes, references, traps, linking", async () => {
  const dir = mkdtempSync(join(tmpdir(), "spec-exec-"));
  try {
    const path = join(dir, "judge.wast");
    writeFileSync(path, JUDGE_SCRIPT);
    const r = await execScript(path, dir, { variants: [NONE], keepOutcomes: true, cacheDir: null });
    const lines = JUDGE_SCRIPT.split("\n");
    const want = new Map<number, string>();
    lines.forEach((l, i) => {
      const m = /;; (pass|fail)$/.exec(l);
      if (m) want.set(i + 1, m[1]!);
    });
    assert.ok(want.size >= 38, `${want.size} judged lines`);
    const got = new Map(r.outcomes!.map((o) => [o.line, o]));
    for (const [line, status] of want) {
      const o = got.get(line);
      assert.ok(o, `line ${line} was run`);
      assert.equal(o.status, status, `line ${line}: ${lines[line - 1]} -> ${o.detail}`);
    }
    assert.equal(r.differ, 0);
    assert.equal(r.checked, [...want.values()].filter((s) => s === "pass").length + 2, "the passing commands and the two modules are compared");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("executor literals: integers wrap, floats round correctly (ties to even, subnormals, NaN payloads)", () => {
  assert.equal(parseIntBits("-1", 32), 0xffffffffn);
  assert.equal(parseIntBits("0xffff_ffff", 32), 0xffffffffn);
  assert.equal(parseIntBits("-0x8000_0000_0000_0000", 64), 0x8000000000000000n);
  assert.equal(parseIntBits("18446744073709551615", 64), 0xffffffffffffffffn);
  const f32 = (s: string): string => parseFloatBits(s, F32).toString(16);
  assert.equal(f32("16777217"), "4b800000"); // tie: to even (16777216)
  assert.equal(f32("16777219"), "4b800002"); // tie: to even (16777220)
  assert.equal(f32("0x1p-149"), "1");
  assert.equal(f32("0x1p-150"), "0"); // half the smallest subnormal: ties to even, 0
  assert.equal(f32("0x1.8p-149"), "2"); // 1.5 ulp: ties to even, 2
  assert.equal(f32("0x1.fffffep127"), "7f7fffff");
  assert.equal(f32("0x1.fffffefffffffp127"), "7f7fffff");
  assert.equal(f32("-0x1p-126"), "80800000");
  assert.equal(f32("1.1754942e-38"), "7fffff"); // largest subnormal
  assert.equal(f32("nan:0x200000"), "7fa00000");
  assert.equal(f32("-nan"), "ffc00000");
  assert.equal(f32("-inf"), "ff800000");
  assert.equal(f32("+0x1.00000100000000000p-50"), "26800000"); // just below the tie: down (from float_literals.wast)
  assert.equal(f32("+0x1.000001000000000001p-50"), "26800001"); // just above the tie: up
  assert.equal(f32("1.000000059604644775390625"), "3f800000"); // exactly halfway: to even
  assert.equal(f32("1.00000005960464477539062500001"), "3f800001");
  assert.equal(parseFloatBits("0x1p-1074", F64), 1n);
  assert.equal(parseFloatBits("nan:0x4000000000000", F64).toString(16), "7ff4000000000000");
  // Decimal f64 literals agree with JavaScript's (correctly rounded) parser.
  const dv = new DataView(new ArrayBuffer(8));
  let seed = 12345;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 2000; i++) {
    const digits = String(Math.floor(rnd() * 1e17)).padStart(17, "0");
    const s = `${digits.slice(0, 1 + Math.floor(rnd() * 16))}.${digits.slice(1)}e${Math.floor(rnd() * 640) - 330}`;
    dv.setFloat64(0, Number(s));
    assert.equal(parseFloatBits(s, F64), dv.getBigUint64(0), s);
  }
});

test("variant names: NAME@TARGET judges by another target, NAME+hot outlines hot code too", () => {
  assert.deepEqual(variantByName("outline"), { name: "outline", passes: ["outline"] });
  assert.deepEqual(variantByName("outline+hot@balanced"), { name: "outline+hot@balanced", passes: ["outline"], outlineHot: true, target: "balanced" });
  assert.deepEqual(variantByName("default+hot"), { name: "default+hot", passes: undefined, outlineHot: true });
  assert.throws(() => variantByName("nosuchpass+hot"), /unknown variant/);
});
