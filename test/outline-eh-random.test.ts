// Randomized check of outline under exception handlers: functions built from
// a small pool of straight-line chunks (local writes, calls of $g, which
// throws its argument when it is odd), nested in legacy try/catch/catch_all/
// delegate/rethrow or in try_table, whose handlers read and write the same
// locals. Repeats are everywhere, so outline (hot code included) moves much
// of it; every export must give the same results and let out the same
// exceptions before and after; the legacy ones also after fold-blocks.
// Legacy modules run in V8; try_table ones in binaryen's interpreter (Node
// 20's V8 cannot run them). More seeds: OUTLINE_EH_SEEDS=N.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { optimize } from "../src/index.js";
import { rng } from "../bench/stats.js";

const LOCALS = 6; // params 0, 1 and locals 2..5, all i32
const ARGS: number[][] = [[0, 0], [1, 2], [2, 4], [3, 3], [10, -7], [-1, 99], [6, 7], [8, 5]];

function generator(seed: number, standard: boolean) {
  const rand = rng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const loc = () => pick(LOCALS);
  const stmt = (): string => {
    const a = loc();
    const b = loc();
    const c = 2 + pick(LOCALS - 2);
    switch (pick(5)) {
      case 0: return `local.get ${a} call $g`;
      case 1: return `local.get ${a} i32.const ${pick(1000)} i32.add local.set ${c}`;
      case 2: return `local.get ${a} local.get ${b} i32.${["mul", "xor", "sub", "rotl"][pick(4)]} local.set ${c}`;
      case 3: return `local.get ${a} i32.const ${1 + pick(5)} i32.shl local.get ${b} i32.add local.tee ${c} drop`;
      default: return `local.get ${a} i32.const ${pick(3)} i32.and if local.get ${b} i32.const 1 i32.or call $g end`;
    }
  };
  const pool = Array.from({ length: 5 }, () => Array.from({ length: 4 + pick(8) }, stmt).join("\n"));
  // kinds of the open frames, innermost last: "catch" where rethrow may name it
  const list = (open: string[]): string => {
    const n = 1 + pick(3);
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      const r = pick(open.length >= 3 ? 2 : 6);
      // a chunk alone, or as a block (a region fold-blocks may fold)
      if (r <= 1) out.push(pick(2) === 0 ? pool[pick(pool.length)]! : `block ${pool[pick(pool.length)]!} end`);
      else if (standard) {
        const c = 2 + pick(LOCALS - 2);
        out.push(pick(2) === 0
          ? `block (result i32) try_table (catch $e 0) ${list([...open, "b", "t"])} end i32.const -1 end local.get ${c} i32.add local.set ${c}`
          : `block try_table (catch_all 0) ${list([...open, "b", "t"])} end end`);
      } else if (r === 2) out.push(`try ${list([...open, "try"])} catch $e local.set ${2 + pick(LOCALS - 2)} ${list([...open, "catch"])} end`);
      else if (r === 3) out.push(`try ${list([...open, "try"])} catch_all ${list([...open, "catch"])} end`);
      else if (r === 4) out.push(`block try ${list([...open, "b", "try"])} delegate ${pick(open.length + 2)} end`);
      else {
        const at = open.lastIndexOf("catch");
        out.push(at >= 0 && pick(2) === 0
          ? `local.get ${loc()} i32.const 4 i32.and if rethrow ${open.length - at} end`
          : `block ${list([...open, "b"])} end`);
      }
    }
    return out.join("\n");
  };
  const funcs = Array.from({ length: 5 }, (_, f) => `(func $f${f} (param i32 i32) (result i32) (local i32 i32 i32 i32)
    ${list([])}
    local.get 2 local.get 3 i32.add local.get 4 i32.xor local.get 5 i32.add local.get 0 i32.add)`);
  const exports = standard
    ? funcs.map((_, f) => ARGS.map((a, k) => `(func (export "f${f}_${k}") (result i32) i32.const ${a[0]} i32.const ${a[1]} call $f${f})`).join("\n")).join("\n")
    : funcs.map((_, f) => `(export "f${f}" (func $f${f}))`).join("\n");
  return `(module (tag $e (export "e") (param i32))
    (func $g (param i32) local.get 0 i32.const 1 i32.and if local.get 0 throw $e end)
    ${funcs.join("\n")}
    ${exports})`;
}

interface WasmException {
  is(tag: unknown): boolean;
  getArg(tag: unknown, k: number): unknown;
}
const WasmExceptionClass = (WebAssembly as unknown as { Exception: new (...a: unknown[]) => WasmException }).Exception;

function v8Outcomes(bytes: Uint8Array): string[] {
  const ex = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).exports as Record<string, unknown>;
  const out: string[] = [];
  for (let f = 0; f < 5; f++) {
    for (const a of ARGS) {
      try {
        out.push(`f${f}(${a}) = ${(ex[`f${f}`] as (...x: number[]) => number)(...a)}`);
      } catch (err) {
        out.push(`f${f}(${a}) throws ${err instanceof WasmExceptionClass && err.is(ex["e"]) ? err.getArg(ex["e"], 0) : String(err)}`);
      }
    }
  }
  return out;
}

function binaryenOutcomes(bytes: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "outline-eh-"));
  try {
    writeFileSync(join(dir, "m.wasm"), bytes);
    return execFileSync(join(process.cwd(), "node_modules", ".bin", "wasm-opt"), ["-all", join(dir, "m.wasm"), "--fuzz-exec-before", "-q"], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const seeds = Number(process.env["OUTLINE_EH_SEEDS"] ?? 0);

test(`fold-blocks on random legacy try modules: same results and exceptions (${seeds || 40} seeds)`, async () => {
  let changed = 0;
  for (let seed = 1; seed <= (seeds || 40); seed++) {
    const input = await parse(generator(seed * 7919, false));
    const { binary, report } = optimize(input, { passes: ["fold-blocks"], checked: true, outlineHot: true });
    if ((report.passes[0]!.stats?.sitesReplaced ?? 0) > 0) changed++;
    assert.deepEqual(v8Outcomes(binary), v8Outcomes(input), `seed ${seed}`);
  }
  assert.ok(changed >= (seeds || 40) / 2, `folded in ${changed} modules`);
});

for (const [standard, count] of [[false, seeds || 40], [true, seeds ? Math.ceil(seeds / 8) : 2]] as const) {
  test(`outline on random ${standard ? "try_table" : "legacy try"} modules: same results and exceptions (${count} seeds)`, async () => {
    let changed = 0;
    let threw = 0;
    for (let seed = 1; seed <= count; seed++) {
      const input = await parse(generator(seed * 7919 + (standard ? 1 : 0), standard));
      const { binary, report } = optimize(input, { passes: ["outline"], checked: true, outlineHot: true });
      if ((report.passes[0]!.stats?.functionsOutlined ?? 0) > 0) changed++;
      if (standard) {
        const before = binaryenOutcomes(input);
        if (before.includes("exception thrown")) threw++;
        assert.equal(binaryenOutcomes(binary), before, `seed ${seed}`);
      } else {
        const before = v8Outcomes(input);
        if (before.some((s) => s.includes("throws"))) threw++;
        assert.deepEqual(v8Outcomes(binary), before, `seed ${seed}`);
      }
    }
    // the generator must exercise what it is for: outlining, and exceptions that get out
    assert.ok(changed >= count / 2, `outlined in ${changed} of ${count} modules`);
    assert.ok(threw >= count / 2, `exceptions escaped in ${threw} of ${count} modules`);
  });
}
