// Behaviour comparison for the pass tests: instantiate two modules and call
// the same exports with the same arguments.

import assert from "node:assert/strict";

export type Exports = Record<string, (...a: unknown[]) => unknown>;

export function exportsOf(bytes: Uint8Array, imports: WebAssembly.Imports = {}): Exports {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), imports);
  return instance.exports as Exports;
}

/** The result of a call, or "trap: <message>" if it threw. */
function outcome(e: Exports, name: string, args: unknown[]): unknown {
  try {
    return e[name]!(...args);
  } catch (err) {
    return `trap: ${(err as Error).message}`;
  }
}

/** Same results (or the same trap) for every export on every argument list. */
export function sameBehaviour(a: Uint8Array, b: Uint8Array, calls: [string, unknown[]][], imports: WebAssembly.Imports = {}): void {
  const ea = exportsOf(a, imports);
  const eb = exportsOf(b, imports);
  for (const [name, args] of calls) assert.deepEqual(outcome(eb, name, args), outcome(ea, name, args), `${name}(${args.join(",")})`);
}

/**
 * A function body on (param i32) (local i32) big enough that folding or
 * merging it pays; `k` is the constant that differs between copies.
 */
export const BODY = (k: string) => `
    local.get 0 i32.const ${k} i32.add local.set 1
    local.get 1 local.get 1 i32.mul local.get 0 i32.xor local.set 1
    local.get 1 i32.const 13 i32.rotl local.get 0 i32.sub local.set 1
    local.get 1 i32.const 7 i32.shr_u local.get 1 i32.xor local.set 1
    local.get 1`;
