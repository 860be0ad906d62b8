// Runs fuse-branches alone on a module (text or binary) and gives back the
// written, validated output with the pass's stats and the bodies as text;
// and random programs fused and checked in V8. Shared by the fuse-branches
// test files.

import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule, decodeAllBodies } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { printBody } from "../src/binary/printer.js";
import { validateModule } from "../src/analysis/validate.js";
import type { PassOptions } from "../src/passes/pass.js";
import { fuseBranchesPass } from "../src/passes/fuse-branches/index.js";
import { sameBehaviour } from "./behaviour.js";
import { randomIfElseProgram } from "./fuse-gen.js";

/** Runs fuse-branches alone on a module given as text. */
export async function fuse(wat: string, options: PassOptions = {}) {
  const input = await parse(wat);
  return fuseBinary(input, options);
}

export function fuseBinary(input: Uint8Array, options: PassOptions = {}) {
  const m = readModule(input);
  decodeAllBodies(m);
  const r = fuseBranchesPass.run(m, { progress: () => {}, note: () => {}, options });
  const binary = writeModule(m);
  const out = readModule(binary, { decodeBodies: true });
  validateModule(out);
  const text = out.functions.map((f) => printBody(f.body!)).join("\n---\n");
  return { input, binary, stats: r.stats!, text, changed: r.changed };
}

/**
 * Program `p` of a randomized test: a random program of `randomIfElseProgram(r, shape, regions, callees)`, fused, then
 * 12 random calls of its functions compared in V8 before and after (an error shows both). Returns the pass's stats.
 */
export async function fusedRandomProgram(r: () => number, p: number, shape: "if" | "diamond" | "triangle" = "if", regions = false, callees = false) {
  const wat = randomIfElseProgram(r, shape, regions, callees);
  const out = await fuse(wat);
  const calls: [string, unknown[]][] = [];
  for (let k = 0; k < 12; k++) {
    const args = [Math.floor(r() * 7) - 2, Math.floor(r() * 5), Math.floor(r() * 9) - 4];
    calls.push([`f${k % 3}`, args], ["log", []], ["sum", []]);
  }
  try {
    sameBehaviour(out.input, out.binary, calls);
  } catch (e) {
    throw new Error(`program ${p}:\n${wat}\n---\n${out.text}\n${(e as Error).message}`);
  }
  return out.stats;
}
