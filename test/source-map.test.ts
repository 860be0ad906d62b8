// A source map follows the code: after every target's passes, each
// instruction of the output maps to the source location the input's map
// gives for the same instruction. "The same instruction" is found without
// the optimizer's own bookkeeping: per function (by name), the input's and
// the output's instruction sequences are aligned (longest common
// subsequence of opcodes and their non-index immediates), and the input map
// is read with another library (@jridgewell/trace-mapping). Call-site glue
// (a call to code a pass extracted, and its arguments) maps to the first
// instruction of the code it replaced (test/debug-oracle.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { optimize, SIZE_TARGETS } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { compareLocations } from "./debug-oracle.js";
import { instructions } from "./instr-align.js";
import { parseSourceMap } from "../src/source-map.js";
import { AddressMap } from "../src/binary/address-map.js";
import { scanSections } from "../src/report.js";
import { withoutCustomSections } from "../src/debug-info.js";

const FIXTURE = fileURLToPath(new URL("../../fixtures/wasm/interp-Oz-sm.wasm", import.meta.url));
const input = new Uint8Array(readFileSync(FIXTURE));
const inputMap = readFileSync(`${FIXTURE}.map`, "utf8");

const where = (map: TraceMap, offset: number): string => {
  const p = originalPositionFor(map, { line: 1, column: offset });
  return p.source === null ? "-" : `${p.source}:${p.line}:${p.column}`;
};

for (const target of SIZE_TARGETS) {
  test(`source map follows the code under target ${target}`, () => {
    const r = optimize(input, { target, measures: nodeMeasures, inputSourceMap: inputMap, sourceMapUrl: "out.wasm.map" });
    assert.ok(r.sourceMap, "a source map comes back");
    // following a map changes no decision: the same output but for the URL section
    const plain = optimize(input, { target, measures: nodeMeasures });
    const noUrl = (b: Uint8Array): Uint8Array => withoutCustomSections(b, (n) => n === "sourceMappingURL");
    assert.deepEqual(noUrl(r.binary), noUrl(plain.binary));
    if (target === "raw") assert.ok(r.report.passes.some((p) => p.kept && p.changed && p.name === "outline"), "outline changed the code (else this test shows little)");
    const inMap = new TraceMap(inputMap);
    const outMap = new TraceMap(r.sourceMap);
    const c = compareLocations(input, r.binary, { whereIn: (o) => where(inMap, o), whereOut: (o) => where(outMap, o), mergeMap: r.report.mergeMap });
    assert.ok(c.checked > 2000, `checked ${c.checked} instructions`);
    console.log(`# ${target}: ${c.checked} aligned instructions checked, ${c.wrong} elsewhere; ${c.glue} of call-site glue, ${c.glueWrong} elsewhere`);
    // glue (a call to extracted code and its arguments) maps to the code it replaced (test/debug-oracle.ts)
    assert.deepEqual(c.examples, [], "instructions mapped elsewhere than in the input");
    // the output names the new map
    const url = scanSections(r.binary).find((s) => s.name === "custom:sourceMappingURL");
    assert.ok(url, "a sourceMappingURL section");
    assert.ok(!r.report.notes.some((n) => n.includes("sourceMappingURL")), r.report.notes.join("\n"));
  });
}

test("every instruction of the output has a source where the input's had one", () => {
  const r = optimize(input, { target: "raw", measures: nodeMeasures, inputSourceMap: inputMap });
  const outMap = new TraceMap(r.sourceMap!);
  const inMap = new TraceMap(inputMap);
  const m = readModule(r.binary);
  decodeAllBodies(m);
  let total = 0;
  let mapped = 0;
  for (const f of m.functions) {
    for (let i = 0; i < f.body!.count; i++) {
      total++;
      if (where(outMap, f.body!.offsets![i]!) !== "-") mapped++;
    }
  }
  const inM = readModule(input);
  decodeAllBodies(inM);
  let inTotal = 0;
  let inMapped = 0;
  for (const f of inM.functions) {
    for (let i = 0; i < f.body!.count; i++) {
      inTotal++;
      if (where(inMap, f.body!.offsets![i]!) !== "-") inMapped++;
    }
  }
  // outlined code and call sites map too, so the share can only grow a little, never fall much
  assert.ok(mapped / total >= (inMapped / inTotal) * 0.98, `output ${mapped}/${total} mapped, input ${inMapped}/${inTotal}`);
  // without a URL the input's section goes as stale, with a note saying the new map is not named
  assert.ok(r.report.notes.some((n) => n.includes("no sourceMappingURL given")), r.report.notes.join("\n"));
});

test("the input returned unchanged keeps its map, shifted where sections moved", () => {
  const r = optimize(input, { passes: [], inputSourceMap: inputMap, sourceMapUrl: "x.map" });
  const outMap = new TraceMap(r.sourceMap!);
  const inMap = new TraceMap(inputMap);
  const a = instructions(readModule(input));
  const b = instructions(readModule(r.binary));
  let n = 0;
  for (const [name, ins] of a) {
    const outs = b.get(name)!;
    assert.equal(outs.length, ins.length);
    ins.forEach((x, k) => {
      assert.equal(where(outMap, outs[k]!.offset), where(inMap, x.offset), `${name} #${k}`);
      n++;
    });
  }
  assert.ok(n > 1000);
});

test("a bad input map is a usage error that says what is wrong", () => {
  assert.throws(() => optimize(input, { inputSourceMap: "{" }), /input source map: not JSON/);
  assert.throws(() => optimize(input, { inputSourceMap: JSON.stringify({ version: 2, sources: [], mappings: "" }) }), /version 2/);
  assert.throws(() => optimize(input, { inputSourceMap: JSON.stringify({ version: 3, sources: [], names: [], mappings: "AAAA" }) }), /names source 0, but there are 0/);
  assert.throws(() => optimize(input, { inputSourceMap: JSON.stringify({ version: 3, sources: ["a"], names: [], mappings: "AAAA;AAAA" }) }), /on one line/);
  assert.throws(() => optimize(input, { sourceMapUrl: "x" }), /needs inputSourceMap/);
  assert.throws(() => parseSourceMap("[]"), /not a JSON object/);
});

test("address maps compose: runs split where the inner map changes", () => {
  const outer = new AddressMap([
    { out: 100, src: 10, len: 20 },
    { out: 120, src: 50, len: 0 },
    { out: 125, src: 0, len: 0 },
  ]);
  const inner = new AddressMap([
    { out: 5, src: 1000, len: 10 },
    { out: 15, src: 2000, len: 0 },
    { out: 20, src: 3000, len: 40 },
  ]);
  const c = outer.then(inner);
  assert.equal(c.lookup(100), 1005); // in inner's first run
  assert.equal(c.lookup(104), 1009);
  assert.equal(c.lookup(105), 2000); // inner's point
  assert.equal(c.lookup(109), 2000);
  assert.equal(c.lookup(110), 3000); // inner's second run
  assert.equal(c.lookup(119), 3009);
  assert.equal(c.lookup(120), 3030); // a point through a run
  assert.equal(c.lookup(125), 0); // glue
  assert.equal(c.shifted(7).lookup(127), 3030);
});

test("CLI: --input-source-map / --output-source-map / --output-source-map-url", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-sm-"));
  try {
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(root, "dist/cli/main.js"), ...args], { encoding: "utf8" });
    mkdirSync(join(dir, "maps"));
    let r = cli(FIXTURE, "-o", join(dir, "out.wasm"), "--target", "raw", "-q", "--input-source-map", `${FIXTURE}.map`, "--output-source-map", join(dir, "maps/out.wasm.map"));
    assert.equal(r.status, 0, r.stderr);
    const map = parseSourceMap(readFileSync(join(dir, "maps/out.wasm.map"), "utf8"), "output map");
    assert.ok(map.mappings.length > 1000);
    const out = new Uint8Array(readFileSync(join(dir, "out.wasm")));
    const url = readModule(out).customs.find((c) => c.name === "sourceMappingURL")!;
    assert.equal(new TextDecoder().decode(url.bytes.subarray(1)), "maps/out.wasm.map", "the default URL is the map's path from the output's directory");
    r = cli(FIXTURE, "-o", join(dir, "out2.wasm"), "-q", "--input-source-map", `${FIXTURE}.map`, "--output-source-map", join(dir, "o2.map"), "--output-source-map-url", "https://example.com/o2.map");
    assert.equal(r.status, 0, r.stderr);
    const url2 = readModule(new Uint8Array(readFileSync(join(dir, "out2.wasm")))).customs.find((c) => c.name === "sourceMappingURL")!;
    assert.equal(new TextDecoder().decode(url2.bytes.subarray(1)), "https://example.com/o2.map");
    // usage errors and a bad map: exit 2, nothing written
    writeFileSync(join(dir, "bad.map"), '{"version":3,"sources":[]}');
    for (const [args, msg] of [
      [["--input-source-map", `${FIXTURE}.map`], /needs --output-source-map/],
      [["--output-source-map", join(dir, "x.map")], /needs --input-source-map/],
      [["--input-source-map", join(dir, "missing.map"), "--output-source-map", join(dir, "x.map")], /missing\.map: cannot read/],
      [["--input-source-map", join(dir, "bad.map"), "--output-source-map", join(dir, "x.map")], /bad\.map: no "mappings" string/],
    ] as const) {
      r = cli(FIXTURE, "-o", join(dir, "never.wasm"), ...args);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, msg);
      assert.throws(() => statSync(join(dir, "never.wasm")));
      assert.throws(() => statSync(join(dir, "x.map")));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
