// Debug info is never written stale: DWARF, a sourceMappingURL and code
// metadata stay when the code they describe is unchanged, and are removed
// with a note when it changed; stripDwarf removes DWARF on request.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { scanSections } from "../src/report.js";
import { codePrefixUnchanged, codeUnchanged, debugKind, withoutCustomSections } from "../src/debug-info.js";
import { BODY, sameBehaviour } from "./behaviour.js";
import { uleb as leb } from "./leb.js";

/** A custom section's bytes: id 0, size, name, payload. */
function custom(name: string, payload: Uint8Array): Uint8Array {
  const n = new TextEncoder().encode(name);
  const body = [...leb(n.length), ...n, ...payload];
  return Uint8Array.from([0, ...leb(body.length), ...body]);
}

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((k, p) => k + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

const payload = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

const customNames = (b: Uint8Array): string[] => scanSections(b).filter((s) => s.id === 0).map((s) => s.name.slice("custom:".length));

/** Two identical functions (fold-functions changes the code) and custom sections after everything. */
async function withDebugInfo(): Promise<Uint8Array> {
  const wat = `(module
    (func $a (param i32) (result i32) (local i32) ${BODY("5")})
    (func $b (param i32) (result i32) (local i32) ${BODY("5")})
    (func (export "run") (param i32) (result i32) (i32.add (call $a (local.get 0)) (call $b (local.get 0)))))`;
  return concat(
    await parse(wat),
    custom(".debug_info", payload(300, 1)),
    custom("producers", payload(20, 2)),
    custom(".debug_line", payload(200, 3)),
    custom("sourceMappingURL", new TextEncoder().encode("\x0athing.map")),
    custom("metadata.code.branch_hint", payload(10, 4)),
  );
}

test("debug info: kinds by section name", () => {
  assert.equal(debugKind(".debug_info"), "dwarf");
  assert.equal(debugKind("external_debug_info"), "dwarf");
  assert.equal(debugKind("sourceMappingURL"), "source map");
  assert.equal(debugKind("metadata.code.branch_hint"), "code metadata");
  assert.equal(debugKind("name"), null);
  assert.equal(debugKind("producers"), null);
  assert.equal(debugKind("target_features"), null);
});

// (the DWARF and branch hints here are junk: the rewrite refuses them, so they go with a note)
test("debug info: removed with a note when the passes changed the code; other custom sections stay", async () => {
  const input = await withDebugInfo();
  const { binary, report } = optimize(input, { passes: ["fold-functions"] });
  assert.equal(report.passes[0]!.stats?.functionsFolded, 1, "the code changed");
  assert.deepEqual(customNames(binary), ["name", "producers"]);
  assert.deepEqual(
    report.removedSections.map((s) => [s.name, s.kind, s.why]),
    [
      [".debug_info", "dwarf", "stale"],
      [".debug_line", "dwarf", "stale"],
      ["sourceMappingURL", "source map", "stale"],
      ["metadata.code.branch_hint", "code metadata", "stale"],
    ],
  );
  // the whole sections' bytes (id, size, name, payload)
  assert.equal(report.removedSections[0]!.bytes, custom(".debug_info", payload(300, 1)).length);
  assert.ok(report.notes.some((n) => n.startsWith("debug info: removed DWARF (2 sections: .debug_info, .debug_line;")), report.notes.join("\n"));
  assert.ok(report.notes.some((n) => n.includes("sourceMappingURL")));
  assert.ok(report.notes.some((n) => n.includes("metadata.code.branch_hint")));
  sameBehaviour(input, binary, [["run", [0]], ["run", [77]]]);
});

test("debug info: kept byte for byte, in its place, when the code did not change", async () => {
  const input = await withDebugInfo();
  const { binary, report } = optimize(input, { passes: [] });
  assert.deepEqual(customNames(binary), ["name", ".debug_info", "producers", ".debug_line", "sourceMappingURL", "metadata.code.branch_hint"]);
  assert.deepEqual(binary, input);
  assert.deepEqual(report.removedSections, []);
  assert.ok(!report.notes.some((n) => n.startsWith("debug info")));
});

test("debug info: stripDwarf removes DWARF without a note, also when nothing else changes", async () => {
  const input = await withDebugInfo();
  for (const passes of [[], ["fold-functions"]]) {
    const { binary, report } = optimize(input, { passes, stripDwarf: true });
    const names = customNames(binary);
    assert.ok(!names.includes(".debug_info") && !names.includes(".debug_line"), names.join(","));
    assert.ok(names.includes("producers"));
    assert.deepEqual(report.removedSections.filter((s) => s.kind === "dwarf").map((s) => s.why), ["stripped", "stripped"]);
    assert.ok(!report.notes.some((n) => n.startsWith("debug info: removed DWARF")));
    // the source map and code metadata follow the code
    assert.equal(names.includes("sourceMappingURL"), passes.length === 0);
  }
});

test("debug info: what each kind needs to stay true", async () => {
  const wat = `(module (memory 1) (data (i32.const 8) "abc") (func (export "f") (result i32) (i32.const 1)))`;
  const a = await parse(wat);
  const b = await parse(wat.replace('"abc"', '"xyz"'));
  const c = await parse(wat.replace("(i32.const 1)", "(i32.const 2)"));
  assert.ok(codeUnchanged(a, b), "data moves no code address");
  assert.ok(!codeUnchanged(a, c));
  // a section before the code moves every file offset (a source map's) but no code-section offset (DWARF's)
  const secs = scanSections(a);
  const code = secs.find((s) => s.id === 10)!;
  const shifted = concat(a.subarray(0, code.offset), custom("x", payload(5, 0)), a.subarray(code.offset));
  assert.ok(codeUnchanged(a, shifted));
  assert.ok(!codePrefixUnchanged(a, shifted));
  assert.ok(codePrefixUnchanged(a, concat(a, custom("y", payload(3, 0)))));
  assert.deepEqual(withoutCustomSections(shifted, (n) => n === "x"), a);
});

test("debug info changes no code: under target brotli, the output without its debug sections is the --strip-dwarf output", () => {
  // the brotli target runs four searches and keeps the smallest; measured with
  // the rewritten DWARF, a search 61 brotli bytes larger in code won on its DWARF
  const input = new Uint8Array(readFileSync(fileURLToPath(new URL("../../fixtures/wasm/interp-Oz-g.wasm", import.meta.url))));
  const kept = optimize(input, { target: "brotli", measures: nodeMeasures });
  const stripped = optimize(input, { target: "brotli", measures: nodeMeasures, stripDwarf: true });
  assert.ok(scanSections(kept.binary).some((s) => s.name === "custom:.debug_info"), "DWARF kept");
  assert.deepEqual(withoutCustomSections(kept.binary, (n) => debugKind(n) !== null), stripped.binary);
});
