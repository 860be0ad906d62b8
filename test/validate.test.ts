// Validator: acceptance and rejection for each instruction family and each
// module-level rule, the type system (iso-recursive equality, declared
// subtyping), and error locations.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { WasmValidationError } from "../src/binary/errors.js";
import { readModule } from "../src/binary/reader.js";
import { validateModule, type ValidateOptions } from "../src/analysis/validate.js";
import {
  BOT,
  REF_BOT,
  buildTypeContext,
  canonicalValType,
  funcType,
  isSubtype,
  topHeapType,
  typesEqual,
} from "../src/analysis/typecontext.js";
import {
  ANYREF,
  EXTERNREF,
  FUNCREF,
  HT_ANY,
  HT_EQ,
  HT_FUNC,
  HT_I31,
  HT_NOFUNC,
  HT_NONE,
  HT_STRUCT,
  I32,
  I64,
  refType,
} from "../src/ir/types.js";

async function validate(wat: string, options?: ValidateOptions): Promise<void> {
  const m = readModule(await parse(wat));
  validateModule(m, options);
}

async function ok(wat: string, options?: ValidateOptions): Promise<void> {
  await validate(wat, options);
}

async function bad(wat: string, reason: RegExp, options?: ValidateOptions): Promise<WasmValidationError> {
  let err: unknown = null;
  try {
    await validate(wat, options);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof WasmValidationError, `expected a WasmValidationError (${reason}), got ${err === null ? "success" : String(err)}`);
  assert.match(err.reason, reason);
  return err;
}

// ---- numeric, stack, errors ----

test("numeric instructions: accepts well-typed, rejects mismatches with location", async () => {
  await ok(`(module (func (param i32 i64) (result i64)
    (i64.add (i64.extend_i32_u (local.get 0)) (local.get 1))))`);
  const e = await bad(`(module (func $f (result i32) (i32.add (i32.const 1) (i64.const 2))))`, /^type mismatch: expected i32, got i64/);
  assert.equal(e.funcIndex, 0);
  assert.equal(e.funcName, "f");
  assert.ok(e.offset > 8, "offset points into the code section");
  await bad(`(module (func (result i32) (i32.const 1) (i32.const 2)))`, /^type mismatch/);
  await bad(`(module (func (result i32)))`, /^type mismatch/);
  await bad(`(module (func (i32.eqz) (drop)))`, /^type mismatch/);
  await ok(`(module (func (result f32) (f32.demote_f64 (f64.const 1))))`);
  await ok(`(module (func (result i32) (i32.trunc_sat_f64_s (f64.const 1))))`);
});

test("unreachable code: polymorphic stack, but (ref bot) is not numeric", async () => {
  await ok(`(module (func (result i32) unreachable i32.add))`);
  await ok(`(module (func (result i64) (block (result i64) unreachable) ))`);
  await ok(`(module (func unreachable select drop))`);
  await bad(`(module (func (result i32) unreachable i64.const 0 i32.add))`, /^type mismatch/);
  await bad(`(module (func (result i32) unreachable ref.as_non_null i32.eqz))`, /^type mismatch/);
  await bad(`(module (func unreachable ref.as_non_null i32.const 0 select drop))`, /^type mismatch/);
});

// ---- control ----

test("blocks, loops, if: multi-value params and results", async () => {
  await ok(`(module (func (result i32 i64)
    (i32.const 1) (i64.const 2)
    (block (param i32 i64) (result i32 i64))
    (loop (param i32 i64) (result i32 i64))))`);
  await ok(`(module (func (param i32) (result i32)
    (i32.const 5) (local.get 0) (if (param i32) (result i32) (then (i32.const 1) (i32.add)) (else (i32.const 2) (i32.sub)))))`);
  // if without else: params must equal results
  await ok(`(module (func (result i32) (i32.const 1) (i32.const 0) (if (param i32) (result i32) (then))))`);
  await bad(`(module (func (result i32) (i32.const 0) (if (result i32) (then (i32.const 1)))))`, /^type mismatch/);
  await bad(`(module (func (block (result i32))))`, /^type mismatch/);
  await bad(`(module (func (i32.const 1) (block (drop))))`, /^type mismatch/);
  await bad(`(module (type $t (struct)) (func (block (type $t))))`, /^type mismatch/);
});

test("br, br_if, br_table, return", async () => {
  await ok(`(module (func (result i32) (block (result i32) (br 0 (i32.const 1)))))`);
  await bad(`(module (func (br 1)))`, /^unknown label 1/);
  await bad(`(module (func (result i32) (block (result i32) (br 0 (i64.const 1)))))`, /^type mismatch/);
  await ok(`(module (func (param i32) (result i32) (block (result i32) (br_if 0 (i32.const 1) (local.get 0)))))`);
  await ok(`(module (func (param i32) (result i32)
    (block (result i32) (block (result i32) (br_table 0 1 (i32.const 7) (local.get 0))))))`);
  await bad(`(module (func (param i32)
    (block (result i32) (block (br_table 0 1 (i32.const 7) (local.get 0)))) drop))`, /^type mismatch/);
  // br_table with subtyping: a (ref func) operand goes to funcref and (ref func) labels
  await ok(`(module (func $f) (elem declare func $f) (func (param i32)
    (block (result funcref) (block (result (ref func)) (br_table 0 1 (ref.func $f) (local.get 0)))) drop))`);
  await ok(`(module (func (result i32) (return (i32.const 1))))`);
  await bad(`(module (func (result i32) (return (i64.const 1))))`, /^type mismatch/);
});

// ---- locals and globals ----

/** A module of one function `[] -> [result]` (result: the encoding of one value type, or none) with the given body bytes. */
function oneFunc(result: number[], body: number[]): Uint8Array {
  const sec = (id: number, payload: number[]): number[] => [id, payload.length, ...payload];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...sec(1, [1, 0x60, 0, result.length > 0 ? 1 : 0, ...result]),
    ...sec(3, [1, 0]),
    ...sec(10, [1, body.length, ...body]),
  ]);
}

test("locals: huge local counts (indices above 2^31, run-length lookup)", () => {
  const count = [0xff, 0xff, 0xff, 0xff, 0x0f]; // 2^32 - 1 locals
  validateModule(readModule(oneFunc([0x7e], [1, ...count, 0x7e, 0x20, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x0b])));
  assert.throws(
    () => validateModule(readModule(oneFunc([0x7e], [1, ...count, 0x7e, 0x20, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0b]))),
    (e: unknown) => e instanceof WasmValidationError && /^unknown local 4294967295/.test(e.reason),
  );
  assert.throws(
    () => validateModule(readModule(oneFunc([0x7d], [1, ...count, 0x7e, 0x20, 0x05, 0x0b]))),
    (e: unknown) => e instanceof WasmValidationError && /^type mismatch/.test(e.reason),
  );
  // 2^21 non-defaultable (ref extern) locals: initialization is still tracked
  const many = [0x80, 0x80, 0x80, 0x01];
  const refExtern = [0x64, 0x6f];
  assert.throws(
    () => validateModule(readModule(oneFunc(refExtern, [1, ...many, ...refExtern, 0x20, 0x07, 0x0b]))),
    (e: unknown) => e instanceof WasmValidationError && /^uninitialized local 7/.test(e.reason),
  );
  // local.tee 7 (local.get 7) is still uninitialized; set 7 from unreachable code then get
  validateModule(readModule(oneFunc(refExtern, [1, ...many, ...refExtern, 0x00, 0x21, 0x07, 0x20, 0x07, 0x0b])));
});

test("locals: indices, types, initialization of non-defaultable locals", async () => {
  await bad(`(module (func (local i32) (drop (local.get 1))))`, /^unknown local 1/);
  await bad(`(module (func (local i32) (local.set 0 (f32.const 0))))`, /^type mismatch/);
  await ok(`(module (func (param externref) (result i64) (local i64) (local.tee 1 (i64.const 3))))`);
  await ok(`(module (func (param (ref extern)) (result (ref extern)) (local (ref extern))
    (local.set 1 (local.get 0)) (local.get 1)))`);
  await bad(`(module (func (local (ref extern)) (drop (local.get 0))))`, /^uninitialized local/);
  // initialization inside a block does not survive the block's end
  await bad(`(module (func (param (ref extern)) (local (ref extern))
    (block (local.set 1 (local.get 0))) (drop (local.get 1))))`, /^uninitialized local/);
  // ... nor into the else branch
  await bad(`(module (func (param (ref extern) i32) (local (ref extern))
    (if (local.get 1) (then (local.set 2 (local.get 0))) (else (drop (local.get 2))))))`, /^uninitialized local/);
});

test("globals: mutability, constant expressions, extended const", async () => {
  await ok(`(module (global $g (mut i32) (i32.const 0)) (func (global.set $g (i32.const 1))))`);
  await bad(`(module (global $g i32 (i32.const 0)) (func (global.set $g (i32.const 1))))`, /^immutable global/);
  await bad(`(module (func (drop (global.get 0))))`, /^unknown global 0/);
  await ok(`(module (global $a i32 (i32.const 1)) (global i32 (i32.add (global.get $a) (i32.mul (i32.const 2) (i32.const 3)))))`);
  await ok(`(module (import "m" "g" (global i64)) (global i64 (i64.sub (global.get 0) (i64.const 1))))`);
  await bad(`(module (global i32 (global.get 1)) (global i32 (i32.const 0)))`, /^unknown global 1/);
  await bad(`(module (global $a (mut i32) (i32.const 1)) (global i32 (global.get $a)))`, /^constant expression required/);
  await bad(`(module (global i32 (i32.div_s (i32.const 1) (i32.const 1))))`, /^constant expression required/);
  await bad(`(module (global i32 (i64.const 0)))`, /^type mismatch/);
  await bad(`(module (global (ref func) (ref.null func)))`, /^type mismatch/);
});

// ---- memory ----

test("memory: alignment, memory index, address types, bulk ops", async () => {
  await ok(`(module (memory 1) (func (result i32) (i32.load align=4 (i32.const 0))))`);
  await bad(`(module (memory 1) (func (result i32) (i32.load align=8 (i32.const 0))))`, /^alignment must not be larger than natural/);
  await bad(`(module (memory 1) (func (result i32) (i32.load8_u align=2 (i32.const 0))))`, /^alignment must not be larger than natural/);
  await bad(`(module (func (result i32) (i32.load (i32.const 0))))`, /^unknown memory 0/);
  await bad(`(module (memory 1) (func (result i32) (i32.load (i64.const 0))))`, /^type mismatch/);
  await ok(`(module (memory i64 1) (func (result i64) (i64.load (i64.const 0))))`);
  await ok(`(module (memory i64 1) (func (result i64) (memory.grow (i64.const 1))))`);
  await bad(`(module (memory i64 1) (func (result i32) (memory.size)))`, /^type mismatch/);
  // multi-memory: memory.copy between an i32 and an i64 memory takes an i32 length
  await ok(`(module (memory $a 1) (memory $b i64 1)
    (func (memory.copy $b $a (i64.const 0) (i32.const 0) (i32.const 4))))`);
  await bad(`(module (memory $a 1) (memory $b i64 1)
    (func (memory.copy $b $a (i64.const 0) (i32.const 0) (i64.const 4))))`, /^type mismatch/);
  await ok(`(module (memory 1) (data $d "abc") (func (memory.init $d (i32.const 0) (i32.const 0) (i32.const 3)) (data.drop $d)))`);
  await ok(`(module (memory 1) (func (memory.fill (i32.const 0) (i32.const 0) (i32.const 3))))`);
  await bad(`(module (memory 1) (func (data.drop 3)))`, /^unknown data segment 3/);
});

test("SIMD: lanes, shuffles, lane memory ops", async () => {
  await ok(`(module (func (result i32) (i8x16.extract_lane_u 15 (v128.const i64x2 0 0))))`);
  await bad(`(module (func (result i32) (i8x16.extract_lane_u 16 (v128.const i64x2 0 0))))`, /^invalid lane index/);
  await bad(`(module (func (result i64) (i64x2.extract_lane 2 (v128.const i64x2 0 0))))`, /^invalid lane index/);
  await ok(`(module (func (result v128) (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 31 (v128.const i64x2 0 0) (v128.const i64x2 0 0))))`);
  await ok(`(module (memory 1) (func (result v128) (v128.load32_lane 3 (i32.const 0) (v128.const i64x2 0 0))))`);
  await bad(`(module (memory 1) (func (result v128) (v128.load32_lane 4 (i32.const 0) (v128.const i64x2 0 0))))`, /^invalid lane index/);
  await bad(`(module (memory 1) (func (result v128) (v128.load align=32 (i32.const 0))))`, /^alignment/);
  await ok(`(module (func (result v128) (i32x4.relaxed_laneselect (v128.const i64x2 0 0) (v128.const i64x2 0 0) (v128.const i64x2 0 0))))`);
  await bad(`(module (func (result v128) (i8x16.swizzle (v128.const i64x2 0 0) (i32.const 0))))`, /^type mismatch/);
});

test("atomics: exact alignment, threads option, shared memory limits", async () => {
  const mod = `(module (memory 1 1 shared) (func (result i32) (i32.atomic.rmw.add (i32.const 0) (i32.const 1))))`;
  await ok(mod);
  await bad(mod, /threads/, { threads: false });
  await bad(`(module (memory 1 1 shared) (func (result i32) (i32.atomic.load align=2 (i32.const 0))))`, /^alignment must be equal to natural/);
  await ok(`(module (memory 1 1 shared) (func (result i32) (memory.atomic.wait64 (i32.const 0) (i64.const 0) (i64.const -1))))`);
  await bad(`(module (memory 1 1 shared) (func (result i32) (memory.atomic.wait64 (i32.const 0) (i32.const 0) (i64.const -1))))`, /^type mismatch/);
  await bad(`(module (memory 1 shared))`, /^shared memory must have maximum/);
});

// ---- tables and references ----

test("tables: call_indirect, table ops, table64, initializers", async () => {
  await ok(`(module (type $t (func (param i32) (result i32))) (table 1 funcref)
    (func (result i32) (call_indirect (type $t) (i32.const 1) (i32.const 0))))`);
  await bad(`(module (type $t (func)) (table 1 externref) (func (call_indirect (type $t) (i32.const 0))))`, /^type mismatch/);
  await bad(`(module (type $t (func)) (func (call_indirect (type $t) (i32.const 0))))`, /^unknown table 0/);
  await ok(`(module (table $t i64 1 funcref) (func (result i64) (table.grow $t (ref.null func) (i64.const 1))))`);
  await bad(`(module (table $t i64 1 funcref) (func (drop (table.get $t (i32.const 0)))))`, /^type mismatch/);
  await bad(`(module (table $a 1 funcref) (table $b 1 externref) (func (table.copy $a $b (i32.const 0) (i32.const 0) (i32.const 0))))`, /^type mismatch/);
  await ok(`(module (table $a 1 funcref) (elem $e func) (func (table.init $a $e (i32.const 0) (i32.const 0) (i32.const 0)) (elem.drop $e)))`);
  await bad(`(module (table $a 1 externref) (elem $e func) (func (table.init $a $e (i32.const 0) (i32.const 0) (i32.const 0))))`, /^type mismatch/);
  await bad(`(module (type $f (func)) (table 1 (ref $f)))`, /^type mismatch/);
  await ok(`(module (type $f (func)) (func $g (type $f)) (table 1 (ref $f) (ref.func $g)))`);
  await bad(`(module (table 2 1 funcref))`, /^size minimum must not be greater than maximum/);
});

test("ref.func: declared functions only; ref ops", async () => {
  await bad(`(module (func $f (drop (ref.func $f))))`, /^undeclared function reference/);
  await ok(`(module (func $f (drop (ref.func $f))) (elem declare func $f))`);
  await ok(`(module (func $f (export "f") (drop (ref.func $f))))`);
  await ok(`(module (func $f (drop (ref.func $f))) (global funcref (ref.func $f)))`);
  await ok(`(module (type $t (func)) (func $f (type $t)) (elem declare func $f)
    (func (result (ref $t)) (ref.func $f)))`);
  await ok(`(module (func (param funcref) (result i32) (ref.is_null (local.get 0))))`);
  await bad(`(module (func (param i32) (result i32) (ref.is_null (local.get 0))))`, /^type mismatch/);
  await ok(`(module (func (param eqref eqref) (result i32) (ref.eq (local.get 0) (local.get 1))))`);
  await bad(`(module (func (param anyref eqref) (result i32) (ref.eq (local.get 0) (local.get 1))))`, /^type mismatch/);
  await ok(`(module (func (param externref) (result (ref extern)) (ref.as_non_null (local.get 0))))`);
  await ok(`(module (func (param externref) (result (ref extern))
    (block (br_on_null 0 (local.get 0)) (return)) unreachable))`);
  await ok(`(module (func (param externref) (result (ref extern))
    (block (result (ref extern)) (br_on_non_null 0 (local.get 0)) unreachable)))`);
  await bad(`(module (func (param externref)
    (block (br_on_non_null 0 (local.get 0)))))`, /^type mismatch/);
  await bad(`(module (func (select (ref.null func) (ref.null func) (i32.const 0)) drop))`, /^type mismatch/);
  await ok(`(module (func (select (result funcref) (ref.null func) (ref.null func) (i32.const 0)) drop))`);
});

// ---- calls ----

test("calls, tail calls, call_ref", async () => {
  await ok(`(module (func $f (param i32) (result i64) (i64.const 0)) (func (result i64) (call $f (i32.const 1))))`);
  await bad(`(module (func (call 5)))`, /^unknown function 5/);
  await bad(`(module (func $f (param i32)) (func (call $f (i64.const 1))))`, /^type mismatch/);
  await ok(`(module (func $f (result i32) (i32.const 0)) (func (result i32) (return_call $f)))`);
  await bad(`(module (func $f (result i64) (i64.const 0)) (func (result i32) (return_call $f)))`, /^type mismatch/);
  // callee results only need to be subtypes of the caller's
  await ok(`(module (func $f (result (ref func)) unreachable) (func (result funcref) (return_call $f)))`);
  await bad(`(module (func $f (result funcref) unreachable) (func (result (ref func)) (return_call $f)))`, /^type mismatch/);
  await ok(`(module (type $t (func (param i32) (result i32)))
    (func (param (ref null $t)) (result i32) (call_ref $t (i32.const 1) (local.get 0))))`);
  await bad(`(module (type $t (func (param i32) (result i32))) (type $u (func (param i64) (result i32)))
    (func (param (ref null $u)) (result i32) (call_ref $t (i32.const 1) (local.get 0))))`, /^type mismatch/);
});

// ---- GC ----

test("GC structs: fields, packing, mutability, defaults", async () => {
  const types = `(type $s (struct (field $a i32) (field $b (mut i8)) (field $c (ref func))))`;
  await ok(`(module ${types} (func (param (ref $s)) (result i32)
    (i32.add (struct.get $s $a (local.get 0)) (struct.get_s $s $b (local.get 0)))))`);
  await bad(`(module ${types} (func (param (ref $s)) (result i32) (struct.get $s $b (local.get 0))))`, /packed/);
  await bad(`(module ${types} (func (param (ref $s)) (result i32) (struct.get_u $s $a (local.get 0))))`, /packed/);
  await ok(`(module ${types} (func (param (ref $s)) (struct.set $s $b (local.get 0) (i32.const 300))))`);
  await bad(`(module ${types} (func (param (ref $s)) (struct.set $s $a (local.get 0) (i32.const 3))))`, /^immutable field/);
  await bad(`(module ${types} (func (drop (struct.new_default $s))))`, /defaultable/);
  await ok(`(module (type $p (struct (field i32) (field (mut i16)))) (func (result (ref $p)) (struct.new_default $p)))`);
  await bad(`(module (type $a (array i32)) (func (drop (struct.new $a))))`, /struct/);
});

test("GC arrays: new/get/set/copy/fill/init and segments", async () => {
  const types = `(type $v (array (mut i32))) (type $c (array i32)) (type $b (array (mut i8))) (type $f (array (mut funcref)))`;
  await ok(`(module ${types} (func (result i32) (array.get $v (array.new $v (i32.const 1) (i32.const 10)) (i32.const 0))))`);
  await ok(`(module ${types} (func (result (ref $c)) (array.new_fixed $c 3 (i32.const 1) (i32.const 2) (i32.const 3))))`);
  await bad(`(module ${types} (func (result (ref $c)) (array.new_fixed $c 3 (i32.const 1) (i32.const 2))))`, /^type mismatch/);
  await bad(`(module ${types} (func (param (ref $c)) (array.set $c (local.get 0) (i32.const 0) (i32.const 1))))`, /^immutable array/);
  await ok(`(module ${types} (func (param (ref $v) (ref $c)) (array.copy $v $c (local.get 0) (i32.const 0) (local.get 1) (i32.const 0) (i32.const 1))))`);
  await bad(`(module ${types} (func (param (ref $v) (ref $b)) (array.copy $v $b (local.get 0) (i32.const 0) (local.get 1) (i32.const 0) (i32.const 1))))`, /^array types do not match/);
  await ok(`(module ${types} (func (param (ref $b)) (result i32) (array.get_u $b (local.get 0) (i32.const 0))))`);
  await ok(`(module ${types} (func (param (ref $b)) (array.fill $b (local.get 0) (i32.const 0) (i32.const 7) (i32.const 2))))`);
  await ok(`(module ${types} (memory 1) (data $d "xyz") (func (result (ref $b)) (array.new_data $b $d (i32.const 0) (i32.const 3))))`);
  await bad(`(module ${types} (memory 1) (data $d "xyz") (func (result (ref $f)) (array.new_data $f $d (i32.const 0) (i32.const 3))))`, /^array type is not numeric or vector/);
  await ok(`(module ${types} (func $g) (elem $e func $g) (func (result (ref $f)) (array.new_elem $f $e (i32.const 0) (i32.const 1))))`);
  await bad(`(module ${types} (elem $e externref) (func (result (ref $f)) (array.new_elem $f $e (i32.const 0) (i32.const 1))))`, /^type mismatch/);
  await ok(`(module ${types} (func (param arrayref) (result i32) (array.len (local.get 0))))`);
  await ok(`(module ${types} (global (ref $c) (array.new_fixed $c 2 (i32.const 1) (i32.const 2))))`);
});

test("GC casts: ref.test, ref.cast, br_on_cast(_fail), i31, extern conversion", async () => {
  await ok(`(module (type $s (struct)) (func (param anyref) (result i32) (ref.test (ref $s) (local.get 0))))`);
  await ok(`(module (type $s (struct)) (func (param anyref) (result (ref null $s)) (ref.cast (ref null $s) (local.get 0))))`);
  await bad(`(module (func (param anyref) (result (ref func)) (ref.cast (ref func) (local.get 0))))`, /^type mismatch/);
  await ok(`(module (type $s (struct)) (func (param anyref) (result anyref)
    (block (result (ref $s)) (br_on_cast 0 anyref (ref $s) (local.get 0)) (return)) ))`);
  await ok(`(module (type $s (struct)) (func (param anyref) (result anyref)
    (block (result anyref) (br_on_cast_fail 0 anyref (ref $s) (local.get 0)) ) ))`);
  // the target type must be a subtype of the source type
  await bad(`(module (type $s (struct)) (func (param structref) (result anyref)
    (block (result anyref) (br_on_cast 0 structref (ref i31) (local.get 0))) ))`, /^type mismatch/);
  // the branch target must accept the cast type
  await bad(`(module (type $s (struct)) (type $t (struct (field i32))) (func (param anyref) (result anyref)
    (block (result (ref $t)) (br_on_cast 0 anyref (ref $s) (local.get 0)) (return)) ))`, /^type mismatch/);
  await ok(`(module (func (result i32) (i31.get_s (ref.i31 (i32.const 5)))))`);
  await ok(`(module (func (param externref) (result anyref) (any.convert_extern (local.get 0))))`);
  await bad(`(module (func (param externref) (result (ref any)) (any.convert_extern (local.get 0))))`, /^type mismatch/);
  await ok(`(module (func (param (ref any)) (result (ref extern)) (extern.convert_any (local.get 0))))`);
  await bad(`(module (func (param funcref) (result externref) (extern.convert_any (local.get 0))))`, /^type mismatch/);
});

test("type definitions: subtypes, finality, rec groups, iso-recursive equality", async () => {
  await ok(`(module (type $a (sub (struct (field i32)))) (type $b (sub $a (struct (field i32) (field i64)))))`);
  await bad(`(module (type $a (struct (field i32))) (type $b (sub $a (struct (field i32) (field i64)))))`, /final/);
  await bad(`(module (type $a (sub (struct (field i32)))) (type $b (sub $a (struct (field i64)))))`, /does not match/);
  await bad(`(module (type $a (sub (struct (field (mut i32))))) (type $b (sub $a (struct (field i32)))))`, /does not match/);
  await ok(`(module (type $a (sub (func (param (ref any)) (result anyref)))) (type $b (sub $a (func (param anyref) (result (ref any))))))`);
  await bad(`(module (type $a (sub (func (param anyref)))) (type $b (sub $a (func (param (ref any))))))`, /does not match/);
  await bad(`(module (rec (type $b (sub $a (struct))) (type $a (sub (struct)))))`, /forward use|unknown type/);
  // identical rec groups define the same types: a (ref $x1) is a (ref $x2)
  await ok(`(module
    (rec (type $x1 (struct (field (ref null $y1)))) (type $y1 (struct (field (ref null $x1)))))
    (rec (type $x2 (struct (field (ref null $y2)))) (type $y2 (struct (field (ref null $x2)))))
    (func (param (ref $x1)) (result (ref $x2)) (local.get 0)))`);
  // different group shapes: distinct types
  await bad(`(module
    (rec (type $x1 (struct)) (type (struct)))
    (type $x2 (struct))
    (func (param (ref $x1)) (result (ref $x2)) (local.get 0)))`, /^type mismatch/);
  // a subtype of a subtype
  await ok(`(module (type $a (sub (struct))) (type $b (sub $a (struct (field i32)))) (type $c (sub $b (struct (field i32) (field f32))))
    (func (param (ref $c)) (result (ref $a)) (local.get 0)))`);
  await bad(`(module (type $a (sub (struct))) (type $b (sub $a (struct (field i32))))
    (func (param (ref $a)) (result (ref $b)) (local.get 0)))`, /^type mismatch/);
});

// ---- exceptions ----

test("exceptions: throw, throw_ref, try_table catch clauses, tags", async () => {
  await ok(`(module (tag $e (param i32)) (func (throw $e (i32.const 1))))`);
  await bad(`(module (tag $e (param i32)) (func (throw $e (i64.const 1))))`, /^type mismatch/);
  await bad(`(module (tag $e (param i32) (result i32)))`, /^non-empty tag result type/);
  await ok(`(module (tag $e (param i32)) (func (result i32)
    (block $h (result i32) (try_table (catch $e $h) (throw $e (i32.const 1))) (i32.const 0))))`);
  await bad(`(module (tag $e (param i32)) (func (result i64)
    (block $h (result i64) (try_table (catch $e $h) (nop)) (i64.const 0))))`, /^type mismatch/);
  await ok(`(module (tag $e (param i32)) (func (result i32 exnref)
    (block $h (result i32 exnref) (try_table (catch_ref $e $h) (nop)) unreachable)))`);
  await ok(`(module (func (result exnref) (block $h (result exnref) (try_table (catch_all_ref $h) (nop)) unreachable)))`);
  await ok(`(module (func (block $h (try_table (catch_all $h) (nop)))))`);
  await bad(`(module (func (block $h (result i32) (try_table (catch_all $h) (nop)) (i32.const 0)) drop))`, /^type mismatch/);
  await ok(`(module (func (param exnref) (throw_ref (local.get 0))))`);
  await bad(`(module (func (param externref) (throw_ref (local.get 0))))`, /^type mismatch/);
  await bad(`(module (func (throw 0)))`, /^unknown tag 0/);
});

test("legacy exceptions: try/catch/catch_all/delegate/rethrow", async () => {
  await ok(`(module (tag $e (param i32)) (func (result i32)
    try (result i32) (i32.const 1) catch $e catch_all (i32.const 2) end))`);
  await bad(`(module (tag $e (param i32)) (func (result i32)
    try (result i32) (i32.const 1) catch $e (drop) end))`, /^type mismatch/);
  await ok(`(module (tag $e) (func try nop catch $e rethrow 0 end))`);
  await ok(`(module (tag $e) (func try nop catch_all block rethrow 1 end end))`);
  await bad(`(module (tag $e) (func try rethrow 0 catch $e end))`, /^invalid rethrow label/);
  await ok(`(module (func block try nop delegate 0 end))`);
  await bad(`(module (func try nop delegate 1))`, /^unknown label/);
});

// ---- module-level rules ----

test("module: exports, start, imports, limits, element and data segments", async () => {
  await bad(`(module (func (export "a")) (func (export "a")))`, /^duplicate export name/);
  await ok(`(module (func (export "a")) (func (export "b")))`);
  await ok(`(module (func $s) (start $s))`);
  await bad(`(module (func $s (param i32)) (start $s))`, /^start function/);
  await bad(`(module (memory 2 1))`, /^size minimum must not be greater than maximum/);
  await bad(`(module (memory 65537))`, /^memory size must be at most 65536 pages/);
  await ok(`(module (memory i64 65537))`);
  await bad(`(module (import "m" "t" (table 1 0 funcref)))`, /^size minimum/);
  await bad(`(module (type $s (struct)) (import "m" "f" (func (type $s))))`, /^type mismatch/);
  await bad(`(module (table 1 funcref) (elem (i32.const 0) externref (ref.null extern)))`, /^type mismatch/);
  await bad(`(module (table 1 funcref) (elem (i64.const 0) funcref (ref.null func)))`, /^type mismatch/);
  await ok(`(module (table i64 1 funcref) (elem (i64.const 0) funcref (ref.null func)))`);
  await bad(`(module (memory 1) (data (i64.const 0) "x"))`, /^type mismatch/);
  await ok(`(module (memory i64 1) (data (i64.const 0) "x"))`);
  await bad(`(module (data (i32.const 0) "x"))`, /^unknown memory 0/);
  await ok(`(module (type $t (func)) (func $f (type $t)) (table 1 (ref null $t)) (elem (i32.const 0) (ref $t) (ref.func $f)))`);
  // the function-index forms have type (ref func) (form 0) or funcref: too wide for a (ref null $t) table
  await bad(`(module (type $t (func)) (func $f (type $t)) (table 1 (ref null $t)) (elem (i32.const 0) $f))`, /^type mismatch/);
  await ok(`(module (func $f) (table 1 (ref func) (ref.func $f)) (elem (i32.const 0) $f))`);
  // so does form 2 (explicit table index, element kind byte)
  await ok(`(module (func $f) (table 1 (ref func) (ref.func $f)) (table $u 1 (ref func) (ref.func $f)) (elem (table $u) (i32.const 0) func $f))`);
  await bad(`(module (func $f) (table 1 funcref) (table $u 1 (ref func) (ref.func $f)) (elem (table $u) (i32.const 0) funcref (ref.null func)))`, /^type mismatch/);
});

// ---- the type context API ----

test("type context: subtyping and equality queries", async () => {
  const m = readModule(await parse(`(module
    (type $a (sub (struct (field i32))))
    (type $b (sub $a (struct (field i32) (field i64))))
    (type $f (func (param i32)))
    (rec (type $r1 (struct (field (ref null $r1)))))
    (rec (type $r2 (struct (field (ref null $r2))))))`));
  const ctx = buildTypeContext(m);
  assert.ok(isSubtype(ctx, refType(1, false), refType(0, true)));
  assert.ok(!isSubtype(ctx, refType(0, false), refType(1, false)));
  assert.ok(!isSubtype(ctx, refType(1, true), refType(0, false)));
  assert.ok(isSubtype(ctx, refType(1, false), refType(HT_STRUCT, false)));
  assert.ok(isSubtype(ctx, refType(1, false), refType(HT_EQ, true)));
  assert.ok(isSubtype(ctx, refType(HT_NONE, true), refType(1, true)));
  assert.ok(!isSubtype(ctx, refType(HT_NONE, true), refType(2, true)));
  assert.ok(isSubtype(ctx, refType(HT_NOFUNC, true), refType(2, true)));
  assert.ok(isSubtype(ctx, refType(2, false), FUNCREF));
  assert.ok(!isSubtype(ctx, refType(2, false), ANYREF));
  assert.ok(isSubtype(ctx, refType(HT_I31, false), ANYREF));
  assert.ok(!isSubtype(ctx, EXTERNREF, ANYREF));
  assert.ok(!isSubtype(ctx, I32, I64));
  assert.ok(isSubtype(ctx, BOT, I64));
  assert.ok(isSubtype(ctx, REF_BOT, refType(1, false)));
  assert.ok(typesEqual(ctx, refType(3, true), refType(4, true)));
  assert.equal(canonicalValType(ctx, refType(4, false)), refType(3, false));
  assert.ok(!typesEqual(ctx, refType(0, true), refType(1, true)));
  assert.deepEqual(funcType(ctx, 2), { params: [I32], results: [] });
  assert.throws(() => funcType(ctx, 0), WasmValidationError);
  assert.equal(topHeapType(ctx, 1), HT_ANY);
  assert.equal(topHeapType(ctx, 2), HT_FUNC);
});
