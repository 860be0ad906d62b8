// Behaviour oracle on our own C/C++ programs: every fixture module is run
// before and after optimize() under node:wasi, and stdout, stderr, exit code
// and written files must be identical. See test/oracle/c-programs.ts
// (WASM_COMPACT_ORACLE_PASSES selects the passes).
//
// The oracle itself is tested too: a module with one changed constant, a
// module that traps and synthetic outcomes must all be reported as
// differences, so a broken comparison cannot pass silently.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { decodeFunctionBody, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { BodyBuilder } from "../src/ir/body.js";
import {
  checkExpectations,
  checkFixture,
  describeFailures,
  fixtureWasmPath,
  listFixtures,
  oracleOptions,
  oraclePasses,
  PROGRAMS,
  runWorkload,
} from "./oracle/c-programs.js";
import { compareOutcomes, runWasi, type WasiOutcome } from "./oracle/wasi-runner.js";

const I32_CONST = idOf("i32.const");
const UNREACHABLE = idOf("unreachable");

/**
 * Returns a copy of `bytes` in which every `i32.const FROM` becomes
 * `i32.const TO`, and how many were changed.
 */
function replaceI32Const(bytes: Uint8Array, from: number, to: number): { bytes: Uint8Array; changed: number } {
  const m = readModule(bytes);
  let changed = 0;
  for (const f of m.functions) {
    const body = decodeFunctionBody(m, f);
    let hit = false;
    for (let i = 0; i < body.count; i++) {
      if (body.ops[i] === I32_CONST && body.imm[body.immStart[i]!] === from) {
        body.imm[body.immStart[i]!] = to;
        hit = true;
        changed++;
      }
    }
    if (hit) f.dirty = true;
  }
  return { bytes: writeModule(m), changed };
}

/** Returns a copy of `bytes` in which every function containing `i32.const VALUE` starts with `unreachable`. */
function trapWhereConst(bytes: Uint8Array, value: number): { bytes: Uint8Array; changed: number } {
  const m = readModule(bytes);
  let changed = 0;
  for (const f of m.functions) {
    const body = decodeFunctionBody(m, f);
    let hit = false;
    for (let i = 0; i < body.count; i++) if (body.ops[i] === I32_CONST && body.imm[body.immStart[i]!] === value) hit = true;
    if (!hit) continue;
    const b = new BodyBuilder(body.count + 1);
    b.begin(UNREACHABLE);
    for (let i = 0; i < body.count; i++) {
      b.begin(body.ops[i]!);
      for (let k = body.immStart[i]!; k < body.immStart[i + 1]!; k++) b.word(body.imm[k]!);
    }
    f.body = b.finish();
    f.dirty = true;
    changed++;
  }
  return { bytes: writeModule(m), changed };
}

describe("C/C++ fixtures: behaviour before and after optimization", { concurrency: 2 }, () => {
  const passes = oraclePasses();
  it(`uses ${passes === undefined ? "the default pipeline" : passes.length === 0 ? "no passes" : passes.join(",")} (WASM_COMPACT_ORACLE_PASSES)`, () => {
    assert.deepEqual(oracleOptions().passes, passes);
  });
  for (const f of listFixtures()) {
    it(f.name, async (t) => {
      assert.ok(existsSync(f.wasmPath), `${f.wasmPath} is missing: run scripts/build-fixtures.sh`);
      const r = await checkFixture(f);
      t.diagnostic(`${r.bytesBefore} -> ${r.bytesAfter} bytes, ${r.workloads.length} workloads`);
      const failure = describeFailures(r);
      assert.equal(failure, null, failure ?? "");
    });
  }
});

describe("the oracle reports differences", { concurrency: 2 }, () => {
  const hashtable = PROGRAMS.find((p) => p.name === "hashtable")!;
  const seed42 = hashtable.workloads.find((w) => w.name === "seed42")!;
  // 16777619 is the FNV-1a prime in hashtable.c's fnv1a() (the string hash of table A).
  const FNV_PRIME = 16777619;

  it("a module with a changed constant in a function the program uses", async () => {
    const original = new Uint8Array(readFileSync(fixtureWasmPath("hashtable", "O2")));
    const broken = replaceI32Const(original, FNV_PRIME, FNV_PRIME + 2);
    assert.ok(broken.changed > 0, "hashtable-O2.wasm has no i32.const 16777619");
    const [a, b] = await Promise.all([runWorkload(original, hashtable, seed42), runWorkload(broken.bytes, hashtable, seed42)]);
    assert.deepEqual(checkExpectations(seed42, a), []);
    const diff = compareOutcomes(a, b);
    assert.ok(diff !== null, "the oracle did not notice the changed hash constant");
    assert.match(diff, /stdout differs/);
    // The probe counts of the Robin Hood table depend on the hash.
    assert.match(diff, /probes/);
  });

  it("the same check through checkFixture with a breaking transform", async () => {
    const f = listFixtures().find((x) => x.name === "hashtable-Oz-wasmopt")!;
    const r = await checkFixture(f, (bytes) => {
      const broken = replaceI32Const(bytes, FNV_PRIME, FNV_PRIME + 2);
      assert.ok(broken.changed > 0, "hashtable-Oz-wasmopt.wasm has no i32.const 16777619");
      return broken.bytes;
    });
    const failure = describeFailures(r);
    assert.ok(failure !== null);
    assert.match(failure, /behaviour differs after optimization/);
    assert.ok(r.workloads.every((w) => w.problems.length === 0), "the original runs must be valid references");
  });

  it("a module that traps", async () => {
    const original = new Uint8Array(readFileSync(fixtureWasmPath("hashtable", "Oz")));
    const broken = trapWhereConst(original, FNV_PRIME);
    assert.ok(broken.changed > 0);
    const [a, b] = await Promise.all([runWorkload(original, hashtable, seed42), runWorkload(broken.bytes, hashtable, seed42)]);
    assert.equal(b.exitCode, null);
    assert.match(b.trap ?? "", /unreachable/);
    const diff = compareOutcomes(a, b);
    assert.ok(diff !== null);
    assert.match(diff, /^end: original exited with code 0, optimized trapped \(RuntimeError: unreachable\)/);
  });

  it("identical runs compare equal, and the runner captures exit code, stdin and files", async () => {
    const interp = PROGRAMS.find((p) => p.name === "interp")!;
    const err = interp.workloads.find((w) => w.name === "runtime-error")!;
    const wasm = fixtureWasmPath("interp", "Oz");
    const [a, b] = await Promise.all([runWorkload(wasm, interp, err), runWorkload(wasm, interp, err)]);
    assert.equal(a.exitCode, 3);
    assert.equal(compareOutcomes(a, b), null);
    assert.ok(a.files.has("error.src"), "input files stay in the sandbox listing");

    const strings = PROGRAMS.find((p) => p.name === "strings")!;
    const s = await runWasi(fixtureWasmPath("strings", "O2"), { args: ["out.txt", "3"], stdin: "Level level LEVEL noon.\n" });
    assert.equal(s.exitCode, 0);
    assert.match(s.stdout.toString(), /4 words, 2 distinct/);
    assert.match(s.files.get("out.txt")?.toString() ?? "", /^level\s+3: 1$/m);
    assert.ok(strings.workloads.length > 0);
  });

  it("a run that never ends is killed and reported as timed out", async () => {
    // (module (func (export "_start") (loop (br 0))) (memory (export "memory") 1))
    const loop = new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00,
      0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x13, 0x02, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x00, 0x06,
      0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x0a, 0x09, 0x01, 0x07, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b,
      0x0b,
    ]);
    const o = await runWasi(loop, { timeoutMs: 1500 });
    assert.equal(o.timedOut, true);
    assert.equal(o.exitCode, null);
  });

  it("describes differences in end, stdout, stderr and files", () => {
    const base: WasiOutcome = {
      stdout: Buffer.from("a\nb\nc\n"),
      stderr: Buffer.alloc(0),
      exitCode: 0,
      trap: null,
      timedOut: false,
      runnerFailure: null,
      files: new Map([
        ["out.txt", Buffer.from("x")],
        ["data.bin", Buffer.from([0, 1, 2, 3])],
      ]),
      durationMs: 1,
    };
    assert.equal(compareOutcomes(base, { ...base }), null);
    const other: WasiOutcome = {
      ...base,
      stdout: Buffer.from("a\nB\nc\n"),
      stderr: Buffer.from("oops\n"),
      exitCode: 1,
      files: new Map([
        ["data.bin", Buffer.from([0, 1, 9, 3])],
        ["new.txt", Buffer.from("n")],
      ]),
    };
    const d = compareOutcomes(base, other);
    assert.ok(d !== null);
    assert.match(d, /end: original exited with code 0, optimized exited with code 1/);
    assert.match(d, /stdout differs at byte 2 .* first at line 2/);
    assert.match(d, /- "b"/);
    assert.match(d, /\+ "B"/);
    assert.match(d, /stderr differs/);
    assert.match(d, /file data\.bin differs at byte 2/);
    assert.match(d, /file new\.txt: only after the optimized run/);
    assert.match(d, /file out\.txt: only after the original run/);
    assert.match(compareOutcomes(base, { ...base, exitCode: null, trap: "RuntimeError: unreachable" }) ?? "", /trapped/);
    assert.match(compareOutcomes(base, { ...base, exitCode: null, timedOut: true }) ?? "", /timed out/);
  });

  it("rejects a reference run that did not do its work", () => {
    const w = hashtable.workloads[0]!;
    const empty: WasiOutcome = {
      stdout: Buffer.from("cannot read\n"),
      stderr: Buffer.alloc(0),
      exitCode: 1,
      trap: null,
      timedOut: false,
      runnerFailure: null,
      files: new Map(),
      durationMs: 1,
    };
    const problems = checkExpectations(w, empty);
    assert.ok(problems.some((p) => p.includes("expected exit code 0")));
    assert.ok(problems.some((p) => p.includes("stdout does not contain")));
  });
});
