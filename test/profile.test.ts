// Profile-guided mode: instrumentation (exact counts on a hand-written module,
// same behaviour on a real C program), the CLI round trip instrument ->
// profile -> --profile, fingerprint and workload errors, the HotCode answers,
// and merge-functions keeping away from hot functions.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { validateModule } from "../src/analysis/validate.js";
import { BodyBuilder } from "../src/ir/body.js";
import { idOf } from "../src/binary/opcodes/index.js";
import {
  COUNTER_EXPORT,
  ProfileError,
  fingerprint,
  formatProfile,
  hotCodeFromProfile,
  instrument,
  optimize,
  parseProfile,
  profileFromCounts,
  type Profile,
} from "../src/index.js";
import { compareOutcomes, runWasi } from "./oracle/wasi-runner.js";
import { BODY } from "./behaviour.js";
import { LOOPS_WAT, instantiate, mapOf, readCounters } from "./profiled-module.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // <build>/test -> repository root
const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const INTERP = join(ROOT, "fixtures/wasm/interp-Oz-wasmopt.wasm");
const INTERP_INPUTS = join(ROOT, "fixtures/inputs/interp");
const JSON_WASM = join(ROOT, "fixtures/wasm/json-Oz-wasmopt.wasm");

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 120_000, env: { ...process.env, WASM_COMPACT_DEBUG: "" } });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tempDir = (): string => mkdtempSync(join(tmpdir(), "wasm-compact-profile-"));


test("instrumented loops count exactly what ran, and compute the same", async () => {
  const input = await parse(LOOPS_WAT);
  const { binary, counters, fingerprint: fp } = instrument(input);
  const m = readModule(binary);
  decodeAllBodies(m);
  validateModule(m);
  assert.equal(fp, fingerprint(input));
  assert.equal(counters, 12);

  const e = instantiate(binary);
  assert.equal(e.run!(5), 10); // 0 + 0 + 1 + 3 + 6
  assert.equal(e[COUNTER_EXPORT]!(-1), -1n);
  assert.equal(e[COUNTER_EXPORT]!(12), -1n);
  const p = profileFromCounts(mapOf(binary), [readCounters(e)]);
  assert.equal(p.fingerprint, fp);
  // $inner: entry, loop header (n + 1 per call), after br_if (n per call),
  // after `br` (dead), after the loop's end (only reached by branching out: never), after the block
  // run: entry, loop header, after br_if, after the loop, the `then` arm (t = 10: never), after the if
  assert.deepEqual(p.functions, [
    { origin: 0, blocks: [[0, 5], [2, 15], [6, 10], [15, 0], [16, 0], [17, 5]] },
    { origin: 1, blocks: [[0, 1], [1, 5], [14, 1], [15, 1], [19, 0], [22, 1]] },
  ]);

  // a second call adds up; the `then` arm runs once (t = C(20, 3) = 1140)
  assert.equal(e.run!(20), 100);
  const p2 = profileFromCounts(mapOf(binary), [readCounters(e)]);
  assert.deepEqual(p2.functions[1]!.blocks, [[0, 2], [1, 25], [14, 2], [15, 2], [19, 1], [22, 2]]);

  const plain = instantiate(input);
  const fresh = instantiate(binary);
  for (const k of [0, 1, 7, 19, 40]) assert.equal(fresh.run!(k), plain.run!(k), `run(${k})`);

  // the reader split into chunk functions (as for modules with more than 65536 counters) reads the same
  const split = instrument(input, { readerChunk: 5 });
  assert.ok(WebAssembly.validate(split.binary as Uint8Array<ArrayBuffer>));
  const es = instantiate(split.binary);
  assert.equal(es.run!(5), 10);
  const whole = instantiate(binary);
  whole.run!(5);
  assert.deepEqual(readCounters(es), readCounters(whole));
  assert.equal(es[COUNTER_EXPORT]!(12), -1n);
  assert.throws(() => instrument(binary), ProfileError, "instrumenting twice is refused");
});

test("an instrumented C program validates and behaves the same under node:wasi", async () => {
  const input = new Uint8Array(readFileSync(INTERP));
  const { binary, counters } = instrument(input);
  assert.ok(counters > 1000, `${counters} counters`);
  const m = readModule(binary);
  decodeAllBodies(m);
  validateModule(m);
  const options = { args: ["sort.src"], files: { "sort.src": readFileSync(join(INTERP_INPUTS, "sort.src")) } };
  const before = await runWasi(input, options);
  const after = await runWasi(binary, options);
  assert.equal(before.exitCode, 0);
  assert.equal(compareOutcomes(before, after), null);
});

/** A node script that runs a WASI module (path, sandbox dir, then its arguments). */
const RUN_WASI = `import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";
const [wasm, dir, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: "preview1", args: ["interp", ...args], preopens: { "/": dir } });
const { instance } = await WebAssembly.instantiate(readFileSync(wasm), wasi.getImportObject());
process.exitCode = wasi.start(instance);
`;

test("CLI: instrument, profile a node workload, optimize with --profile", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "run-wasi.mjs"), RUN_WASI);
  const ins = cli(["instrument", INTERP, "-o", "interp.instrumented.wasm"], dir);
  assert.equal(ins.status, 0, ins.stderr);
  assert.match(ins.stderr, /instrumented .* \d+ counters/);

  // two runs of the workload (one node process each, through a shell) add up
  const workload = `node run-wasi.mjs interp.instrumented.wasm ${INTERP_INPUTS} algorithms.src && node run-wasi.mjs interp.instrumented.wasm ${INTERP_INPUTS} sort.src`;
  const prof = cli(["profile", "-o", "interp.profile.json", "--", "sh", "-c", workload], dir);
  assert.equal(prof.status, 0, prof.stderr);
  assert.match(prof.stdout, /fib 19 = 4181/, "the workload's output goes through");
  const profile = parseProfile(readFileSync(join(dir, "interp.profile.json"), "utf8"));
  assert.equal(profile.instances, 2);
  assert.equal(profile.fingerprint, fingerprint(new Uint8Array(readFileSync(INTERP))));
  assert.ok(profile.functions.length > 10);

  const opt = cli([INTERP, "-o", "interp.min.wasm", "--profile", "interp.profile.json", "--json", "report.json"], dir);
  assert.equal(opt.status, 0, opt.stderr);
  assert.match(opt.stderr, /note: profile: \d+ of \d+ blocks hot .* in [1-9]\d* of \d+ functions that ran/);
  const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as { notes: string[] };
  assert.ok(report.notes.some((n) => n.startsWith("profile: ")));
  const options = { args: ["algorithms.src"], files: { "algorithms.src": readFileSync(join(INTERP_INPUTS, "algorithms.src")) } };
  const before = await runWasi(INTERP, options);
  const after = await runWasi(join(dir, "interp.min.wasm"), options);
  assert.equal(compareOutcomes(before, after), null);

  // counts saved by another host, given with the module they came from
  const counts = { format: "wasm-compact-counts", version: 1, modules: [{ counts: new Array(mapOf(readFileSync(join(dir, "interp.instrumented.wasm"))).counters).fill(3) }] };
  writeFileSync(join(dir, "counts.json"), JSON.stringify(counts));
  const noModule = cli(["profile", "-o", "p2.json", "--from-counts", "counts.json"], dir);
  assert.equal(noModule.status, 2);
  assert.match(noModule.stderr, /--module/);
  const fromCounts = cli(["profile", "-o", "p2.json", "--from-counts", "counts.json", "--module", "interp.instrumented.wasm"], dir);
  assert.equal(fromCounts.status, 0, fromCounts.stderr);
  assert.equal(parseProfile(readFileSync(join(dir, "p2.json"), "utf8")).functions[0]!.blocks[0]![1], 3);
});

test("CLI profile: instances made with new WebAssembly.Instance and instantiate(module) add up", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "loops.instrumented.wasm"), instrument(await parse(LOOPS_WAT)).binary);
  writeFileSync(join(dir, "two.mjs"), `import { readFileSync } from "node:fs";
const module = new WebAssembly.Module(readFileSync("loops.instrumented.wasm"));
const a = new WebAssembly.Instance(module, {});
const b = await WebAssembly.instantiate(module, {});
if (!(a instanceof WebAssembly.Instance) || !(b instanceof WebAssembly.Instance)) throw new Error("instanceof broke");
console.log(a.exports.run(5), b.exports.run(3));
`);
  const r = cli(["profile", "-o", "loops.profile.json", "--", process.execPath, "two.mjs"], dir);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, "10 1\n");
  const p = parseProfile(readFileSync(join(dir, "loops.profile.json"), "utf8"));
  assert.equal(p.instances, 2);
  // $inner ran for n = 0..4 and n = 0..2: 8 calls, 15 + 6 loop headers
  assert.deepEqual(p.functions[0]!.blocks.slice(0, 2), [[0, 8], [2, 21]]);
});

test("CLI: a profile of another module, a bad profile file, a failing or unprofiled workload", async () => {
  const dir = tempDir();
  const input = new Uint8Array(readFileSync(INTERP));
  const profile: Profile = { fingerprint: fingerprint(input), instances: 1, functions: [{ origin: 12, blocks: [[0, 5]] }] };
  writeFileSync(join(dir, "interp.profile.json"), formatProfile(profile));

  const other = cli([JSON_WASM, "-o", "out.wasm", "--profile", "interp.profile.json"], dir);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /^error: interp\.profile\.json: the profile was recorded for a different module \(profile fnv1a64:\w+:\d+, input fnv1a64:\w+:\d+\); instrument this exact input and profile again\n/);
  assert.equal(existsSync(join(dir, "out.wasm")), false, "nothing written");

  writeFileSync(join(dir, "bad.json"), "{\"format\": \"something else\"}");
  const bad = cli([INTERP, "-o", "out.wasm", "--profile", "bad.json"], dir);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: bad\.json: not a wasm-compact profile/);
  const threshold = cli([INTERP, "-o", "out.wasm", "--profile", "interp.profile.json", "--hot-threshold", "2"], dir);
  assert.equal(threshold.status, 2);
  assert.match(threshold.stderr, /--hot-threshold: expected a number from 0 to 1/);
  assert.equal(cli([INTERP, "-o", "out.wasm", "--profile", "interp.profile.json", "--hot-threshold", "0.5", "-q"], dir).status, 0);

  writeFileSync(join(dir, "broken.wasm"), new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1]));
  const broken = cli(["instrument", "broken.wasm", "-o", "out.inst.wasm"], dir);
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /^error: broken\.wasm: .*\n$/);
  const inst = new Uint8Array(instrument(input).binary);
  writeFileSync(join(dir, "twice.wasm"), inst);
  const twice = cli(["instrument", "twice.wasm", "-o", "out.inst.wasm"], dir);
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, /already instrumented/);
  assert.equal(existsSync(join(dir, "out.inst.wasm")), false);

  const failing = cli(["profile", "-o", "p.json", "--", process.execPath, "-e", "process.exit(4)"], dir);
  assert.equal(failing.status, 1);
  assert.match(failing.stderr, /the workload exited with code 4; no profile written/);
  const nothing = cli(["profile", "-o", "p.json", "--", process.execPath, "-e", "1"], dir);
  assert.equal(nothing.status, 1);
  assert.match(nothing.stderr, /no counts: the workload created no instance of an instrumented module/);
  assert.equal(existsSync(join(dir, "p.json")), false);
  assert.deepEqual(readdirSync(dir).sort(), ["bad.json", "broken.wasm", "interp.profile.json", "out.wasm", "twice.wasm"]);
});

test("HotCode answers by instruction while the body is the profiled one, by function after a change", async () => {
  const input = await parse(LOOPS_WAT);
  const m = readModule(input);
  // $inner: only the loop body (regions at 2 and 6) ran often; run: cold
  const profile: Profile = {
    fingerprint: fingerprint(input),
    instances: 1,
    functions: [
      { origin: 0, blocks: [[0, 1], [2, 1000], [6, 999], [15, 0], [16, 0], [17, 1]] },
      { origin: 1, blocks: [[0, 1], [1, 1], [14, 1], [15, 1], [19, 0], [22, 1]] },
    ],
  };
  const { hot, summary } = hotCodeFromProfile(profile, input, m);
  assert.equal(summary.hotBlocks, 2);
  assert.equal(summary.hotFunctions, 1);
  const [inner, run] = m.functions as [typeof m.functions[0], typeof m.functions[0]];
  assert.equal(hot.isHotFunction(inner), true);
  assert.equal(hot.isHotFunction(run), false);
  const hotAt = (f: typeof inner) => Array.from({ length: f.body!.count }, (_, i) => (hot.isHotInstruction(f, i) ? 1 : 0)).join("");
  assert.equal(hotAt(inner), "0011111111111110000");
  assert.equal(hotAt(run), "0".repeat(24));

  // re-read from bytes (as after a pass is undone): same ops, same answers
  const again = readModule(writeModule(m));
  decodeAllBodies(again);
  assert.equal(hotAt(again.functions[0]!), "0011111111111110000");

  // a rewritten body: the function-level answer
  const b = new BodyBuilder();
  b.begin(idOf("nop"));
  const old = inner.body!;
  for (let i = 0; i < old.count; i++) {
    b.begin(old.ops[i]!);
    for (let w = old.immStart[i]!; w < old.immStart[i + 1]!; w++) b.word(old.imm[w]!);
  }
  inner.body = b.finish();
  inner.dirty = true;
  assert.equal(hotAt(inner), "1".repeat(20));
  run.body = b.finish();
  assert.equal(hot.isHotInstruction(run, 3), false, "a cold function stays cold");
  assert.equal(hot.isHotInstruction({ ...inner, origin: -1 }, 3), false, "a new function is not hot");

  // thresholds: 0 makes nothing hot, 1 everything that ran
  assert.equal(hotCodeFromProfile(profile, input, readModule(input), 0).summary.hotBlocks, 0);
  assert.equal(hotCodeFromProfile(profile, input, readModule(input), 1).summary.hotBlocks, 9);
  assert.throws(() => hotCodeFromProfile(profile, new Uint8Array([...input, 0]), readModule(input)), /recorded for a different module/);
  const misfit = { ...profile, functions: [{ origin: 0, blocks: [[0, 1], [99, 1]] as [number, number][] }] };
  assert.throws(() => hotCodeFromProfile(misfit, input, readModule(input)), /does not fit the module/);
});


test("merge-functions leaves a hot function alone", async () => {
  // $a runs 1000 times, $b and $c once
  const input = await parse(`(module
    (func $a (param i32) (result i32) (local i32) ${BODY("5")})
    (func $b (param i32) (result i32) (local i32) ${BODY("1000")})
    (func $c (param i32) (result i32) (local i32) ${BODY("-77777")})
    (func (export "run") (param i32) (result i32) (local i32 i32)
      (loop $l
        (local.set 2 (i32.add (local.get 2) (call $a (local.get 1))))
        (local.set 1 (i32.add (local.get 1) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get 1) (i32.const 1000))))
      (i32.add (local.get 2) (i32.add (call $b (local.get 0)) (call $c (local.get 0))))))`);
  const plain = optimize(input, { passes: ["merge-functions"], outlineHot: true });
  assert.equal(plain.report.passes[0]!.stats?.functionsMerged, 3, "with hot code allowed all three merge");
  const estimated = optimize(input, { passes: ["merge-functions"] });
  assert.equal(estimated.report.passes[0]!.stats?.functionsMerged, 2, "the static estimate also finds $a hot (called from a loop)");
  assert.ok(estimated.report.mergeMap.every((entry) => entry.function.origin !== 0));

  const { binary } = instrument(input);
  const e = instantiate(binary);
  const expected = e.run!(7);
  const profile = profileFromCounts(mapOf(binary), [readCounters(e)]);
  const guided = optimize(input, { passes: ["merge-functions"], profile });
  assert.equal(guided.report.passes[0]!.stats?.functionsMerged, 2);
  assert.ok(guided.report.mergeMap.every((entry) => entry.function.origin !== 0), "$a is neither merged nor a thunk");
  assert.equal(instantiate(guided.binary).run!(7), expected);
});
