// What the outline tests share: a computation long enough to pay when
// outlined, and a function's signature read from its module.

import type { Func, Module } from "../src/ir/module.js";

/** A computation on locals x, y into t; long enough that outlining it pays. */
export const SEQ = (x: number, y: number, t: number) => `
    local.get ${x} local.get ${y} i32.mul i32.const 12345 i32.add local.set ${t}
    local.get ${t} local.get ${t} i32.const 7 i32.shl i32.xor local.set ${t}
    local.get ${t} i32.const 99 i32.rotl local.get ${x} i32.sub local.set ${t}
    local.get ${t} i32.const 17 i32.shr_u local.get ${y} i32.xor local.set ${t}`;

export const resultsOf = (m: Module, f: Func) => (m.types[f.typeIndex]!.composite as { results: number[] }).results;
export const paramsOf = (m: Module, f: Func) => (m.types[f.typeIndex]!.composite as { params: number[] }).params;
