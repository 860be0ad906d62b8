// A module that uses a proposal wasm-compact does not read is refused with
// a message that names the proposal, not a bare "illegal opcode".

import { test } from "node:test";
import assert from "node:assert/strict";
import { optimize, WasmDecodeError } from "../src/index.js";
import { uleb as leb } from "./leb.js";

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const section = (id: number, payload: number[]): number[] => [id, ...leb(payload.length), ...payload];
const str = (s: string): number[] => [...leb(s.length), ...new TextEncoder().encode(s)];

/** One function of type () -> () with `locals` declarations and body `code` (without the final end), and a memory. */
function withBody(code: number[], locals: number[] = [0]): Uint8Array {
  const body = [...locals, ...code, 0x0b];
  return Uint8Array.from([
    ...HEADER,
    ...section(1, [1, 0x60, 0, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x03, 1, 1]), // shared memory, for atomics
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

const refused = (bytes: Uint8Array, pattern: RegExp): void => {
  assert.throws(
    () => optimize(bytes),
    (e: unknown) => {
      assert.ok(e instanceof WasmDecodeError, String(e));
      assert.match((e as Error).message, pattern);
      return true;
    },
  );
};

test("instructions of proposals not read name the proposal", () => {
  refused(withBody([0xe0, 0]), /stack switching/);
  refused(withBody([0xfd, ...leb(0x120)]), /fp16 \(f16x8/);
  refused(withBody([0x41, 0, 0xfc, 0x30, 1, 0, 0x1a]), /fp16 \(f32\.load_f16/);
  refused(withBody([0xfb, ...leb(0x82), 0]), /strings \(stringref/);
  refused(withBody([0xfb, 0x22, 0]), /custom descriptors/);
  refused(withBody([0xfe, 0x4f, 0, 0]), /shared-everything threads/);
  // i32.atomic.load with the ordering bit in its flags
  refused(withBody([0x41, 0, 0xfe, 0x10, 0x22, 0, 0, 0x1a]), /acquire-release atomics/);
  // an opcode no proposal has: still the plain message
  refused(withBody([0xfd, ...leb(0x1ff)]), /^illegal opcode 0xfd 511 at offset/);
});

test("types and imports of proposals not read name the proposal", () => {
  // a local of type stringref (abstract heap type 0x67)
  refused(withBody([], [1, 1, 0x67]), /strings \(stringref\)/);
  // a continuation type in the type section
  refused(Uint8Array.from([...HEADER, ...section(1, [1, 0x5d, 0])]), /stack switching \(a continuation type\)/);
  // a compact import group
  refused(Uint8Array.from([...HEADER, ...section(2, [1, ...str("env"), ...str(""), 0x7f, 0])]), /compact import section/);
});
