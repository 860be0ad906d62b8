// A small module whose function names come from the caller (hostile ones by
// default: markup, quotes, a closing script tag), for the HTML report's tests.

import { uleb } from "./leb.js";

const str = (s: string): number[] => {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
};
const section = (id: number, payload: number[]): number[] => [id, ...uleb(payload.length), ...payload];
const I32 = 0x7f;
export const ADD1 = [0x00, 0x20, 0, 0x41, 1, 0x6a, 0x0b]; // local.get 0, i32.const 1, i32.add
export const MUL7 = [0x00, 0x20, 0, 0x41, 7, 0x6c, 0x0b]; // local.get 0, i32.const 7, i32.mul

export const HOSTILE = ["<script>alert(1)</script>", `"quoted" & 'single'`, "</script><img src=x onerror=alert(2)>"];

/**
 * Three (i32) -> i32 functions named `names`, exported as "a", "b" and
 * "c": 0 and 1 identical (1 folds into 0 under fold-functions).
 */
export function namedModule(names: readonly string[] = HOSTILE): Uint8Array {
  const body = (b: number[]) => [...uleb(b.length), ...b];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, I32, 1, I32]),
    ...section(3, [3, 0, 0, 0]),
    ...section(7, [3, ...str("a"), 0x00, 0, ...str("b"), 0x00, 1, ...str("c"), 0x00, 2]),
    ...section(10, [3, ...body(ADD1), ...body(ADD1), ...body(MUL7)]),
    ...section(0, [...str("name"), ...section(1, [3, ...names.flatMap((n, i) => [i, ...str(n)])])]),
  ]);
}

