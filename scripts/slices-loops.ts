// What stage c of the slices pass (slices that contain whole inner loops,
// issue 15) could find, measured before building it: every `loop` whose
// every instruction a slice could hold (control, locals, and the
// idempotent operations of identify.ts's classifier: no load, store, call,
// mutable global or trapping op), per file, in all code and in cold code
// (the static hot rule); and how many of those loops repeat in the module
// as the same code up to a renumbering of locals. A loop met once can only
// pay inside a slice class that repeats, and every such class holds a
// repeated pure loop, so the repeated loops' bytes bound what stage c adds
// (outline already takes repeats that are contiguous).
// Usage (after tsc into dist):
//   nice -n 19 node dist/scripts/slices-loops.js FILE.wasm...

import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { Eff, OPS, idOf } from "../src/binary/opcodes/index.js";
import { bodyOf, readModule } from "../src/binary/reader.js";
import type { Body } from "../src/ir/body.js";
import { controlTree } from "../src/analysis/control-tree.js";
import { effectsContext, instrFlags, isPureFlags, rangeFlags } from "../src/analysis/effects.js";
import { rangeSize } from "../src/analysis/sizes.js";
import { staticHotCode } from "../src/profile/static-hot.js";

const LOCALS = new Set(["local.get", "local.set", "local.tee"].map(idOf));
const CONTROL = new Set(["block", "loop", "if", "else", "end", "br", "br_if", "br_table", "nop"].map(idOf));
const DIVS = new Set(["div_s", "div_u", "rem_s", "rem_u"].flatMap((o) => [idOf(`i32.${o}`), idOf(`i64.${o}`)]));

/** The loop's code as text with locals numbered by first use, or null if a slice could not hold it. */
function pureLoopKey(body: Body, effects: ReturnType<typeof effectsContext>, from: number, to: number): string | null {
  const renumber = new Map<number, number>();
  const parts: string[] = [];
  for (let i = from; i <= to; i++) {
    const op = body.ops[i]!;
    const imm = Array.from(body.imm.subarray(body.immStart[i]!, body.immStart[i + 1]!));
    if (LOCALS.has(op)) {
      const x = imm[0]!;
      if (!renumber.has(x)) renumber.set(x, renumber.size);
      parts.push(`${op}:${renumber.get(x)}`);
      continue;
    }
    if (!CONTROL.has(op)) {
      if (OPS[op]!.effects & Eff.STRUCTURE) return null; // try, throw and the like
      const pure = DIVS.has(op)
        ? i > from && isPureFlags(rangeFlags(effects, body, i - 1, i + 1))
        : isPureFlags(instrFlags(effects, body, i));
      if (!pure) return null;
    }
    parts.push(`${op}:${imm.join(",")}`);
  }
  return parts.join(" ");
}

console.log(["file", "bytes", "loops", "pure", "pure-bytes", "cold-pure", "cold-pure-bytes", "repeated-classes", "repeated-loops", "repeated-bytes", "cold-repeated-loops", "cold-repeated-bytes"].join("\t"));
const total = { loops: 0, pure: 0, pureBytes: 0, coldPure: 0, repeated: 0, repeatedBytes: 0, coldRepeated: 0, coldRepeatedBytes: 0 };
for (const file of process.argv.slice(2)) {
  const m = readModule(new Uint8Array(readFileSync(file)));
  const effects = effectsContext(m);
  const { hot } = staticHotCode(m);
  let loops = 0, pure = 0, pureBytes = 0, coldPure = 0, coldPureBytes = 0;
  const classes = new Map<string, { bytes: number; cold: number; n: number }>();
  for (const f of m.functions) {
    const body = bodyOf(m, f);
    const tree = controlTree(body);
    for (let c = 0; c < tree.count; c++) {
      if (!tree.isLoop(c)) continue;
      loops++;
      const from = tree.start[c]!, to = tree.end[c]!;
      const key = pureLoopKey(body, effects, from, to);
      if (key === null) continue;
      const bytes = rangeSize(body, from, to + 1);
      const cold = !hot.isHotInstruction(f, from + 1);
      pure++;
      pureBytes += bytes;
      if (cold) {
        coldPure++;
        coldPureBytes += bytes;
      }
      const k = classes.get(key) ?? { bytes, cold: 0, n: 0 };
      k.n++;
      if (cold) k.cold++;
      classes.set(key, k);
    }
  }
  const rep = [...classes.values()].filter((k) => k.n > 1);
  const repLoops = rep.reduce((s, k) => s + k.n, 0);
  const repBytes = rep.reduce((s, k) => s + k.n * k.bytes, 0);
  const coldRep = rep.filter((k) => k.cold > 1);
  const coldRepLoops = coldRep.reduce((s, k) => s + k.cold, 0);
  const coldRepBytes = coldRep.reduce((s, k) => s + k.cold * k.bytes, 0);
  console.log([basename(file).slice(0, 32), statSync(file).size, loops, pure, pureBytes, coldPure, coldPureBytes, rep.length, repLoops, repBytes, coldRepLoops, coldRepBytes].join("\t"));
  total.loops += loops;
  total.pure += pure;
  total.pureBytes += pureBytes;
  total.coldPure += coldPure;
  total.repeated += repLoops;
  total.repeatedBytes += repBytes;
  total.coldRepeated += coldRepLoops;
  total.coldRepeatedBytes += coldRepBytes;
}
console.log(`total: ${total.loops} loops, ${total.pure} pure (${total.pureBytes} B, ${total.coldPure} in cold code); ${total.repeated} pure loops repeat in their module (${total.repeatedBytes} B), ${total.coldRepeated} of them in cold code (${total.coldRepeatedBytes} B)`);
