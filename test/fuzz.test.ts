// A small fixed-seed batch of the Csmith fuzzer (scripts/fuzz.ts), and a
// check that the fuzzer notices a broken optimizer. Runs only where Debian's
// clang-19 (+ lld-19, wasi-libc, libclang-rt-19-dev-wasm32) and csmith
// (+ libcsmith-dev) are installed; elsewhere the tests are skipped and say why.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { decodeFunctionBody, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { fuzz, missingTools, summaryLine } from "../scripts/fuzz.js";

const missing = missingTools(true);
// On CI (.ci/run installs the tools) a missing tool is a failure, not a skip.
const skip = missing.length && process.env["CI"] !== "true" ? `needs ${missing.join(", ")}` : false;

/** CRC-32 polynomial used by csmith.h's crc32_gentab (the checksum every Csmith program prints). */
const CRC_POLY = 0xedb88320 | 0;
const I32_CONST = idOf("i32.const");

function breakCrc(bytes: Uint8Array): { bytes: Uint8Array; changed: number } {
  const m = readModule(bytes);
  let changed = 0;
  for (const f of m.functions) {
    const body = decodeFunctionBody(m, f);
    for (let i = 0; i < body.count; i++) {
      if (body.ops[i] === I32_CONST && body.imm[body.immStart[i]!] === CRC_POLY) {
        body.imm[body.immStart[i]!] = CRC_POLY ^ 0x10;
        f.dirty = true;
        changed++;
      }
    }
  }
  return { bytes: writeModule(m), changed };
}

describe("csmith fuzzing", () => {
  it("a fixed-seed batch of 8 programs shows no difference", { skip, timeout: 15 * 60 * 1000 }, async () => {
    const keepDir = mkdtempSync(join(tmpdir(), "wasm-compact-fuzz-test-"));
    try {
      const lines: string[] = [];
      const s = await fuzz({ count: 8, seed: 1000, keepDir, jobs: 2, timeoutMs: 3000, wasmOpt: true, verbose: false, log: (l) => lines.push(l) });
      assert.equal(s.differences, 0, lines.join("\n"));
      assert.ok(s.compared >= 4, `only ${s.compared} modules were compared (${s.skipped} programs skipped)`);
      assert.match(summaryLine(s), /^fuzz: 8 programs, 0 differences, \d+ skipped in \d+\.\d s$/);
    } finally {
      rmSync(keepDir, { recursive: true, force: true });
    }
  });

  it("a broken optimizer is caught, with the evidence kept", { skip, timeout: 10 * 60 * 1000 }, async () => {
    const keepDir = mkdtempSync(join(tmpdir(), "wasm-compact-fuzz-test-"));
    try {
      let found = 0;
      const lines: string[] = [];
      const s = await fuzz({
        count: 3,
        seed: 1000,
        keepDir,
        jobs: 2,
        timeoutMs: 3000,
        wasmOpt: false,
        verbose: false,
        log: (l) => lines.push(l),
        transform: (bytes) => {
          const r = breakCrc(bytes);
          found += r.changed;
          return r.bytes;
        },
      });
      assert.ok(s.compared > 0, "no program ran");
      assert.ok(found > 0, "no module had the CRC-32 polynomial as an i32.const");
      assert.equal(s.differences, s.compared, lines.join("\n"));
      const f = s.failures[0]!;
      for (const name of ["prog.c", "original.wasm", "optimized.wasm", "difference.txt"]) {
        assert.ok(existsSync(join(f.dir, name)), `${name} was not kept`);
      }
      assert.match(f.repro, new RegExp(`^npm run fuzz -- --count 1 --seed ${f.seed} --no-wasm-opt$`));
      assert.ok(lines.some((l) => l === `repro: ${f.repro}`), "the reproduction command was not printed on one line");
      assert.match(f.difference, /stdout differs/);
      assert.match(readFileSync(join(f.dir, "difference.txt"), "utf8"), /checksum/);
    } finally {
      rmSync(keepDir, { recursive: true, force: true });
    }
  });
});
