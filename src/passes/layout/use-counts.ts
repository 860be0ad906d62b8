// How often each function index is written in the module: every such
// occurrence is one LEB128 whose width depends on the index, so these counts
// are what a layout trades when it hands out short indices.

import { bodyOf } from "../../binary/reader.js";
import type { Body } from "../../ir/body.js";
import { FUNC_WORDS } from "../../ir/imm-layout.js";
import { constExprs, type Module } from "../../ir/module.js";

function countBody(body: Body, counts: Uint32Array): void {
  const { ops, immStart, imm } = body;
  for (let i = 0; i < body.count; i++) {
    const at = FUNC_WORDS[ops[i]!];
    if (at) for (const off of at) counts[imm[immStart[i]! + off]!]!++;
  }
}

/**
 * Occurrences of each function index (imports included) in bodies, elements,
 * exports, start and constant expressions. `bodyRefs`: the indices in the
 * bodies, if the caller has them already.
 */
export function referenceCounts(m: Module, bodyRefs?: Int32Array): Uint32Array {
  const counts = new Uint32Array(m.numImportedFuncs + m.functions.length);
  if (bodyRefs) for (const i of bodyRefs) counts[i]!++;
  else for (const f of m.functions) countBody(bodyOf(m, f), counts);
  for (const e of m.elements) if (e.items.kind === "funcs") for (const i of e.items.funcs) counts[i]!++;
  for (const x of constExprs(m)) countBody(x.body, counts);
  for (const e of m.exports) if (e.kind === "func") counts[e.index]!++;
  if (m.start !== null) counts[m.start]!++;
  return counts;
}
