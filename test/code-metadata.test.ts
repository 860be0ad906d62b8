// Code metadata (`metadata.code.*`, here branch hints) follows the code: an
// item moves with its instruction to the function's new index and offset;
// one whose instruction is gone is dropped, with a note.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { optimize } from "../src/index.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Module } from "../src/ir/module.js";
import { sameBehaviour } from "./behaviour.js";
import { uleb } from "./leb.js";

const IF_BODY = `
    local.get 0 i32.const 3 i32.gt_s
    if (result i32) local.get 0 i32.const 7 i32.mul local.get 0 i32.xor
    else local.get 0 i32.const 11 i32.add i32.const 5 i32.rotl end
    local.set 1 local.get 1 local.get 1 i32.mul local.get 0 i32.xor`;

const WAT = `(module
  (func $a (param i32) (result i32) (local i32) ${IF_BODY})
  (func $b (param i32) (result i32) (local i32) ${IF_BODY})
  (func (export "run") (param i32) (result i32)
    (i32.add (i32.add (call $a (local.get 0)) (call $b (local.get 0))) (call $c (local.get 0))))
  (func $c (param i32) (result i32)
    (block $out
      local.get 0 i32.const 100 i32.gt_u br_if $out
      local.get 0 return)
    i32.const -1))`;
// (fold-functions moves the last function, $c, into the place of the one it removes)

/** (function index, offset from the body's start) of every instruction named `op`. */
function find(m: Module, op: string): [number, number][] {
  decodeAllBodies(m);
  const out: [number, number][] = [];
  m.functions.forEach((f, k) => {
    const b = f.body!;
    for (let i = 0; i < b.count; i++) if (OPS[b.ops[i]!]!.name === op) out.push([m.numImportedFuncs + k, b.offsets![i]! - f.rawOffset]);
  });
  return out;
}

/** A metadata.code.branch_hint section: per function (ascending), (offset, hint) items. */
function hintSection(items: [number, number, number][]): Uint8Array {
  const byFn = new Map<number, [number, number][]>();
  for (const [fi, off, hint] of items) byFn.set(fi, [...(byFn.get(fi) ?? []), [off, hint]]);
  const payload = [...uleb(byFn.size)];
  for (const [fi, list] of [...byFn].sort((x, y) => x[0] - y[0])) {
    payload.push(...uleb(fi), ...uleb(list.length));
    for (const [off, hint] of list) payload.push(...uleb(off), 1, hint);
  }
  const name = new TextEncoder().encode("metadata.code.branch_hint");
  const body = [...uleb(name.length), ...name, ...payload];
  return Uint8Array.from([0, ...uleb(body.length), ...body]);
}

function readHints(m: Module): [number, number, number][] {
  const c = m.customs.find((s) => s.name === "metadata.code.branch_hint");
  if (!c) return [];
  const b = c.bytes;
  let p = 0;
  const u = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const x = b[p++]!;
      v |= (x & 0x7f) << shift;
      if (!(x & 0x80)) return v;
      shift += 7;
    }
  };
  const out: [number, number, number][] = [];
  for (let n = u(); n > 0; n--) {
    const fi = u();
    for (let k = u(); k > 0; k--) {
      const off = u();
      assert.equal(u(), 1);
      out.push([fi, off, b[p++]!]);
    }
  }
  assert.equal(p, b.length);
  return out;
}

test("branch hints follow their instructions to new function indices; one whose instruction is gone is dropped with a note", async () => {
  const base = await parse(WAT);
  const ifs = find(readModule(base), "if");
  const brIfs = find(readModule(base), "br_if");
  assert.equal(ifs.length, 2);
  assert.equal(brIfs.length, 1);
  const hints: [number, number, number][] = [[...ifs[0]!, 1], [...ifs[1]!, 0], [...brIfs[0]!, 1]];
  const sec = hintSection(hints);
  const input = new Uint8Array(base.length + sec.length);
  input.set(base);
  input.set(sec, base.length);

  const r = optimize(input, { passes: ["fold-functions"] });
  assert.equal(r.report.passes[0]!.stats?.functionsFolded, 1, "the code changed");
  sameBehaviour(input, r.binary, [["run", [2]], ["run", [50]], ["run", [500]]]);
  const out = readModule(r.binary);
  const got = readHints(out);
  // one `if` is left (the folded copy's hint has nowhere to go) and the br_if moved down one index
  const outIfs = find(out, "if");
  const outBrIfs = find(out, "br_if");
  assert.equal(outIfs.length, 1);
  assert.notEqual(outBrIfs[0]![0], brIfs[0]![0], "the br_if's function has a new index");
  assert.deepEqual(
    got.map(([fi, off]) => [fi, off]),
    [outIfs[0]!, outBrIfs[0]!],
  );
  assert.equal(got[1]![2], 1, "the br_if's hint");
  assert.ok(r.report.notes.some((n) => n === "debug info: metadata.code.branch_hint: dropped 1 of 3 items: their instructions are gone or changed"), r.report.notes.join("\n"));
  assert.deepEqual(r.report.removedSections, []);
});

test("code metadata: a malformed section is removed with a note", async () => {
  const base = await parse(WAT);
  const bad = hintSection([[0, 9999, 1]]);
  const junk = Uint8Array.from([...bad.subarray(0, bad.length), 0xff]);
  junk[1]! += 1; // the section's size covers the junk byte
  const input = new Uint8Array(base.length + junk.length);
  input.set(base);
  input.set(junk, base.length);
  const r = optimize(input, { passes: ["fold-functions"] });
  assert.ok(!readModule(r.binary).customs.some((c) => c.name.startsWith("metadata.code.")));
  assert.deepEqual(r.report.removedSections.map((s) => [s.name, s.why]), [["metadata.code.branch_hint", "stale"]]);
  assert.ok(r.report.notes.some((n) => n.startsWith("debug info: removed metadata.code.branch_hint") && n.includes("bytes after its last function")), r.report.notes.join("\n"));
});
