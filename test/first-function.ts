// The first defined function of a text module, decoded, with its parameter
// and local counts: what the per-body analyses (SSA, GSA) take.

import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import type { Body } from "../src/ir/body.js";

export async function firstFunction(wat: string): Promise<{ body: Body; nParams: number; nLocals: number }> {
  const m = readModule(await parse(wat));
  decodeAllBodies(m);
  const f = m.functions[0]!;
  const t = m.types[f.typeIndex]!.composite;
  const nParams = t.kind === "func" ? t.params.length : 0;
  return { body: f.body!, nParams, nLocals: nParams + f.localCount };
}
