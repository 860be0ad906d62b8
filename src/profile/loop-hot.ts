// Hot code without a profile: code inside a loop. Outlining or folding it
// puts a call (and argument shuffling) on every iteration; measured on the
// corpus workloads, doing so made brotli-wasm's encoder 2.7 times slower
// under the balanced target. Without a profile, passes that add calls
// therefore keep out of loops unless the user asks for raw size.

import { decodeFunctionBody } from "../binary/reader.js";
import { idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import type { Func, Module } from "../ir/module.js";
import type { HotCode } from "../passes/pass.js";

const LOOP = idOf("loop");
const OPENERS = new Set(["block", "if", "try", "try_table"].map(idOf));
const END = idOf("end");
const DELEGATE = idOf("delegate");

/** Per instruction: 1 if it is inside a loop (the loop's own `loop` and `end` included). */
function inLoop(body: Body): Uint8Array {
  const out = new Uint8Array(body.count);
  const stack: boolean[] = []; // per open construct: is it a loop
  let loops = 0;
  for (let i = 0; i < body.count; i++) {
    const op = body.ops[i]!;
    if (op === LOOP) {
      stack.push(true);
      loops++;
    } else if (OPENERS.has(op)) stack.push(false);
    if (loops > 0) out[i] = 1;
    if ((op === END || op === DELEGATE) && stack.length > 0 && stack.pop()) loops--;
  }
  return out;
}

/** A HotCode that calls every instruction inside a loop hot (and a function with a loop hot). */
export function loopHotCode(m: Module): HotCode {
  const cache = new WeakMap<Body, Uint8Array>();
  const marks = (f: Func): Uint8Array => {
    const body = f.body ?? decodeFunctionBody(m, f);
    let r = cache.get(body);
    if (!r) cache.set(body, (r = inLoop(body)));
    return r;
  };
  return {
    isHotFunction: (f) => marks(f).includes(1),
    isHotInstruction: (f, i) => marks(f)[i] === 1,
  };
}
