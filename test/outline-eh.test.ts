// Outline in functions with exception handling: which sites a handler of the
// host could tell apart (a local written before a throw and read in the
// handler; a tail call under a handler), labels of rethrow, delegate and
// try_table catches that leave a sequence, exnref in signatures. Legacy
// modules run in Node's V8 before and after; standard ones (try_table,
// exnref: Node 20's V8 has neither) in binaryen's interpreter
// (wasm-opt --fuzz-exec-before), whose printout of every export's result or
// uncaught exception is compared.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { validateModule } from "../src/analysis/validate.js";
import { exceptionLandings } from "../src/analysis/cfg.js";
import { computeLiveness } from "../src/analysis/liveness.js";
import { optimize } from "../src/index.js";
import { EXNREF } from "../src/ir/types.js";
import type { Func, Module } from "../src/ir/module.js";
import { SEQ, paramsOf } from "./outline-shared.js";

async function run(wat: string, extra: Record<string, unknown> = {}) {
  const input = await parse(wat);
  const { binary, report } = optimize(input, { passes: ["outline"], checked: true, outlineHot: true, ...extra });
  const m = readModule(binary, { decodeBodies: true });
  validateModule(m);
  const before = readModule(input).functions.length;
  return { input, binary, m, added: m.functions.slice(before), outlined: report.passes[0]!.stats?.functionsOutlined ?? 0 };
}

const hasOp = (f: Func, name: string) => Array.from(f.body!.ops.subarray(0, f.body!.count)).includes(idOf(name));
/** Some local write comes before a call of $g (function 0) in f. */
const writeBeforeCall = (f: Func) => {
  const b = f.body!;
  let wrote = false;
  for (let i = 0; i < b.count; i++) {
    if (b.ops[i] === idOf("local.set") || b.ops[i] === idOf("local.tee")) wrote = true;
    else if (wrote && b.ops[i] === idOf("call") && b.imm[b.immStart[i]!] === 0) return true;
  }
  return false;
};


/** The tag (exported as "e") and $g, which throws its argument when it is odd. */
const THROWER = `(tag $e (export "e") (param i32))
  (func $g (param i32) local.get 0 i32.const 1 i32.and if local.get 0 throw $e end)`;

const ARGS: number[][] = [[0, 0], [1, 2], [2, 2], [3, 5], [12345, -7], [-1, 99999], [6, 7]];

/** The JS API of wasm exceptions (not in TypeScript's lib yet). */
interface WasmException {
  is(tag: unknown): boolean;
  getArg(tag: unknown, k: number): unknown;
}
const WasmExceptionClass = (WebAssembly as unknown as { Exception: new (...a: unknown[]) => WasmException }).Exception;

/** Every export on every argument list in V8, an escaping exception of tag "e" with its argument. */
function outcomes(bytes: Uint8Array, names: string[]): string[] {
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  const ex = inst.exports as Record<string, unknown>;
  const tag = ex["e"];
  const out: string[] = [];
  for (const n of names) {
    for (const a of ARGS) {
      try {
        out.push(`${n}(${a}) = ${(ex[n] as (...x: number[]) => number)(...a)}`);
      } catch (err) {
        out.push(`${n}(${a}) throws ${err instanceof WasmExceptionClass && err.is(tag) ? `e ${err.getArg(tag, 0)}` : String(err)}`);
      }
    }
  }
  return out;
}

function sameInV8(a: Uint8Array, b: Uint8Array, names: string[]): void {
  assert.deepEqual(outcomes(b, names), outcomes(a, names));
}

/** Argument-free wrappers "NAME_k" of exports NAME, for binaryen's interpreter (it calls every export without arguments). */
const wrappers = (names: string[]) =>
  names.flatMap((n) => ARGS.map((a, k) => `(func (export "${n}_${k}") (result i32) ${a.map((v) => `i32.const ${v}`).join(" ")} call $${n})`)).join("\n");

const wasmOpt = join(process.cwd(), "node_modules", ".bin", "wasm-opt");

/** binaryen's interpreter on every export: its printout (results and uncaught exceptions). */
function interpret(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "outline-eh-"));
  try {
    const file = join(dir, "m.wasm");
    writeFileSync(file, bytes);
    return execFileSync(wasmOpt, ["-all", file, "--fuzz-exec-before", "-q"], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sameInBinaryen(a: Uint8Array, b: Uint8Array): void {
  const before = interpret(a);
  assert.match(before, /note result/, "the interpreter ran the exports");
  assert.equal(interpret(b), before);
}

// ---- 1. a write before a throw, read in a host handler ----

/** Legacy: SEQ writes local 2, then $g may throw to the catch_all; `handler` is the catch_all's code. */
const legacyTry = (name: string, k: number, handler: string) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      ${SEQ(0, 1, 2)}
      local.get 2 call $g
      local.get 2 i32.const ${k} i32.add
    catch_all
      ${handler}
    end)`;

test("outline refuses a write before a throwing call inside a legacy try whose handler reads the local", async () => {
  const wat = `(module ${THROWER} ${legacyTry("a", 1, "local.get 2")} ${legacyTry("b", 2, "local.get 2")} ${legacyTry("c", 3, "local.get 2")})`;
  const { input, binary, added } = await run(wat);
  for (const f of added) assert.ok(!writeBeforeCall(f), "no outlined function writes a local and then calls $g");
  sameInV8(input, binary, ["a", "b", "c"]);
});

test("outline takes a write before a throwing call inside a legacy try whose handler does not read the local", async () => {
  const wat = `(module ${THROWER} ${legacyTry("a", 1, "i32.const -1")} ${legacyTry("b", 2, "i32.const -2")} ${legacyTry("c", 3, "i32.const -3")})`;
  const { input, binary, added } = await run(wat);
  assert.ok(added.some(writeBeforeCall), "the write and the call are outlined together");
  sameInV8(input, binary, ["a", "b", "c"]);
});

test("outline takes the same write before a throwing call outside any try", async () => {
  const fn = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    ${SEQ(0, 1, 2)} local.get 2 call $g local.get 2 i32.const ${k} i32.add)`;
  // a function with a handler elsewhere in the module: the corpus has handlers, these sites are outside them
  const wat = `(module ${THROWER} ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)} ${legacyTry("d", 4, "local.get 2")})`;
  const { input, binary, added } = await run(wat);
  assert.ok(added.some(writeBeforeCall));
  sameInV8(input, binary, ["a", "b", "c", "d"]);
});

test("outline refuses a write before a throw inside a try that delegates to a handler reading the local", async () => {
  const fn = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      block
        try
          ${SEQ(0, 1, 2)} local.get 2 call $g
          local.get 2 i32.const ${k} i32.add local.set 2
        delegate 1
      end
      local.get 2
    catch_all
      local.get 2 i32.const 1000 i32.add
    end)`;
  const wat = `(module ${THROWER} ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const { input, binary, added } = await run(wat);
  for (const f of added) assert.ok(!writeBeforeCall(f));
  sameInV8(input, binary, ["a", "b", "c"]);
});

/** Standard: SEQ writes local 2, then $g may throw to the try_table's catch_all, which lands on `handler`. */
const tableTry = (name: string, k: number, handler: string) => `(func $${name} (param i32 i32) (result i32) (local i32)
    block $h
      try_table (catch_all $h)
        ${SEQ(0, 1, 2)}
        local.get 2 call $g
        local.get 2 i32.const ${k} i32.add local.set 0
      end
      local.get 0 return
    end
    ${handler})`;

test("outline refuses a write before a throwing call inside a try_table whose handler reads the local", async () => {
  const wat = `(module ${THROWER} ${["a", "b", "c"].map((n, k) => tableTry(n, k, "local.get 2")).join(" ")} ${wrappers(["a", "b", "c"])})`;
  const { input, binary, added } = await run(wat);
  for (const f of added) assert.ok(!writeBeforeCall(f));
  sameInBinaryen(input, binary);
});

test("outline takes a write before a throwing call inside a try_table whose handler does not read the local", async () => {
  const wat = `(module ${THROWER} ${["a", "b", "c"].map((n, k) => tableTry(n, k, `i32.const -${k}`)).join(" ")} ${wrappers(["a", "b", "c"])})`;
  const { input, binary, added } = await run(wat);
  assert.ok(added.some(writeBeforeCall));
  sameInBinaryen(input, binary);
});

test("outline refuses a returning sequence that may throw under a handler (its return_call would skip the handler), and takes it outside", async () => {
  const fn = (name: string, k: number, inTry: boolean) => {
    const body = `local.get 0 i32.const 3 i32.gt_u if ${SEQ(0, 1, 2)} local.get 2 call $g local.get 2 return end i32.const ${k}`;
    return `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
      ${inTry ? `try (result i32) ${body} catch $e i32.const 1000 i32.add end` : body})`;
  };
  const inside = `(module ${THROWER} ${fn("a", 1, true)} ${fn("b", 2, true)} ${fn("c", 3, true)})`;
  const r1 = await run(inside, { features: { "tail-call": true } });
  for (const f of r1.added) assert.ok(!hasOp(f, "call"), "nothing that calls $g is outlined under the handler");
  sameInV8(r1.input, r1.binary, ["a", "b", "c"]);
  const outside = `(module ${THROWER} ${fn("a", 1, false)} ${fn("b", 2, false)} ${fn("c", 3, false)} ${fn("d", 4, true)})`;
  const r2 = await run(outside, { features: { "tail-call": true } });
  assert.ok(r2.added.some((f) => hasOp(f, "call")));
  assert.ok(r2.m.functions.some((f) => hasOp(f, "return_call")), "outside the handler the site is a return_call");
  sameInV8(r2.input, r2.binary, ["a", "b", "c", "d"]);
});

test("outline refuses a returning sequence with a return_call under a handler when the site would be a plain call", async () => {
  // without tail calls for the site, `call; return` would catch in the host what $t's return_call let out of the host
  const fn = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      local.get 0 i32.const 3 i32.gt_u if ${SEQ(0, 1, 2)} local.get 2 return_call $t end i32.const ${k}
    catch $e i32.const 1000 i32.add
    end)`;
  const wat = `(module ${THROWER} (func $t (param i32) (result i32) local.get 0 call $g local.get 0) ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const input = await parse(wat);
  const { binary } = optimize(input, { passes: ["outline"], checked: true, outlineHot: true, features: { "tail-call": false } });
  const m = readModule(binary, { decodeBodies: true });
  for (const f of m.functions.slice(5)) assert.ok(!hasOp(f, "return_call"), "the return_call stays in its host");
  sameInV8(input, binary, ["a", "b", "c"]);
});

// ---- 2. labels that leave the sequence ----

test("outline refuses a rethrow whose catch lies outside the sequence, and takes one whose catch is inside", async () => {
  const out = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      local.get 0 call $g i32.const 0
    catch_all
      ${SEQ(0, 1, 2)} local.get 2 i32.const 4 i32.and if rethrow 1 end
      local.get 2 i32.const ${k} i32.add
    end)`;
  const r1 = await run(`(module ${THROWER} ${out("a", 1)} ${out("b", 2)} ${out("c", 3)})`);
  assert.ok(r1.added.length >= 1, "the code before the rethrow is still outlined");
  for (const f of r1.added) assert.ok(!hasOp(f, "rethrow"));
  sameInV8(r1.input, r1.binary, ["a", "b", "c"]);
  const inside = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    ${SEQ(0, 1, 2)}
    try (result i32)
      local.get 0 call $g i32.const 0
    catch_all
      local.get 2 i32.const 4 i32.and if rethrow 1 end
      i32.const 1
    end
    local.get 2 i32.add i32.const ${k} i32.add)`;
  const r2 = await run(`(module ${THROWER} ${inside("a", 1)} ${inside("b", 2)} ${inside("c", 3)})`);
  assert.ok(r2.added.some((f) => hasOp(f, "rethrow") && hasOp(f, "catch_all")));
  sameInV8(r2.input, r2.binary, ["a", "b", "c"]);
});

test("outline refuses a delegate whose label lies outside the sequence, and takes one whose label is inside", async () => {
  const code = `try local.get 2 call $g delegate 0`;
  const out = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      block
        ${SEQ(0, 1, 2)} ${code}
        local.get 2 i32.const ${k} i32.add local.set 2
      end
      local.get 2
    catch_all i32.const -1
    end)`;
  const r1 = await run(`(module ${THROWER} ${out("a", 1)} ${out("b", 2)} ${out("c", 3)})`);
  for (const f of r1.added) assert.ok(!hasOp(f, "delegate"));
  sameInV8(r1.input, r1.binary, ["a", "b", "c"]);
  const inside = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      ${SEQ(0, 1, 2)} block ${code} end
      local.get 2 i32.const ${k} i32.add
    catch_all i32.const -1
    end)`;
  const r2 = await run(`(module ${THROWER} ${inside("a", 1)} ${inside("b", 2)} ${inside("c", 3)})`);
  assert.ok(r2.added.some((f) => hasOp(f, "delegate")));
  sameInV8(r2.input, r2.binary, ["a", "b", "c"]);
});

test("outline refuses a try_table whose catch label lies outside the sequence, and takes one whose label is inside", async () => {
  const out = (name: string, k: number) => `(func $${name} (param i32 i32) (result i32) (local i32)
    block $h
      try_table (catch_all $h) ${SEQ(0, 1, 2)} local.get 2 call $g end
      local.get 2 i32.const ${k} i32.add return
    end
    i32.const -${k})`;
  const r1 = await run(`(module ${THROWER} ${out("a", 1)} ${out("b", 2)} ${out("c", 3)} ${wrappers(["a", "b", "c"])})`);
  for (const f of r1.added) assert.ok(!hasOp(f, "try_table"));
  const inside = (name: string, k: number) => `(func $${name} (param i32 i32) (result i32) (local i32)
    i32.const -1 local.set 2
    block $h
      try_table (catch_all $h) ${SEQ(0, 1, 2)} local.get 2 call $g end
    end
    local.get 2 i32.const ${k} i32.add
    local.get 1 i32.const 7 i32.and if local.get 1 throw $e end)`;
  const r2 = await run(`(module ${THROWER} ${inside("a", 1)} ${inside("b", 2)} ${inside("c", 3)} ${wrappers(["a", "b", "c"])})`);
  assert.ok(r2.added.some((f) => hasOp(f, "try_table")));
  sameInBinaryen(r2.input, r2.binary);
});

// ---- 4. handler entries ----

test("outline takes a sequence starting at a catch's first instruction: the tag's values come in as parameters", async () => {
  // the catch itself is an arm boundary no sequence holds; what it pushes is an ordinary stack input
  const fn = (name: string, k: number) => `(func $${name} (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      local.get 0 call $g local.get 0 i32.const ${k} i32.add
    catch $e
      i32.const 77 i32.mul local.set 2 ${SEQ(2, 1, 2)} local.get 2
    end)`;
  const wat = `(module ${THROWER} ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const { input, binary, m, added } = await run(wat);
  // the new function starts with the handler's first instruction, on its first parameter: local.get 0 i32.const 77
  const startsAtHandler = (f: Func) => f.body!.ops[0] === idOf("local.get") && f.body!.imm[f.body!.immStart[0]!] === 0 &&
    f.body!.ops[1] === idOf("i32.const") && f.body!.imm[f.body!.immStart[1]!] === 77;
  assert.ok(added.some((f) => startsAtHandler(f) && paramsOf(m, f).length >= 2 && !hasOp(f, "catch")), "the handler's code is outlined from its first instruction");
  sameInV8(input, binary, ["a", "b", "c"]);
});

// ---- 3. exnref in the signature ----

test("outline passes an exnref local to the new function", async () => {
  const fn = (name: string, k: number) => `(func $${name} (param i32 i32) (result i32) (local i32 exnref)
    block $h (result exnref)
      try_table (catch_all_ref $h) local.get 0 call $g end
      i32.const ${k} return
    end
    local.set 3
    ${SEQ(0, 1, 2)} local.get 2 i32.const 2 i32.and if local.get 3 throw_ref end
    local.get 2)`;
  const wat = `(module ${THROWER} ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)} ${wrappers(["a", "b", "c"])})`;
  const { input, binary, m, added } = await run(wat);
  assert.ok(added.some((f) => hasOp(f, "throw_ref") && paramsOf(m, f).includes(EXNREF)), "the exnref is a parameter");
  sameInBinaryen(input, binary);
});

// ---- the analysis answers the rules use ----

test("exceptionLandings and liveBefore: a call in a legacy try body lands on its catch_all, which reads the local", async () => {
  const m = readModule(await parse(`(module ${THROWER} ${legacyTry("a", 1, "local.get 2")} ${legacyTry("b", 1, "i32.const 0")})`), { decodeBodies: true });
  for (const [fi, reads] of [[1, true], [2, false]] as const) {
    const body = m.functions[fi]!.body!;
    const call = Array.from(body.ops.subarray(0, body.count)).indexOf(idOf("call"));
    const catchAll = Array.from(body.ops.subarray(0, body.count)).indexOf(idOf("catch_all"));
    const l = exceptionLandings(body, call);
    assert.deepEqual(l, { to: [catchAll + 1], escapes: false });
    assert.equal(computeLiveness(body, 3)!.liveBefore(catchAll + 1, 2), reads);
    // outside the try (its opener): no handler
    assert.deepEqual(exceptionLandings(body, 0), { to: [], escapes: true });
  }
});
