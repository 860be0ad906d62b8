// Which Wasm features a pass may introduce. A pass must not make the output
// need an engine feature the input did not need, unless the user allowed it:
// the output has to run wherever the input ran.
//   tail-call    return_call for thunks and outlined tails: only when the
//                module already uses tail calls, or the user enables it.
//   multi-value  functions with several results (outlined code that writes
//                several live locals): allowed by default, since every
//                engine has shipped it since 2020 and Binaryen's default
//                feature set includes it; the user can forbid it.

import { OPS } from "../binary/opcodes/index.js";
import { decodeFunctionBody } from "../binary/reader.js";
import type { Module } from "../ir/module.js";
import type { PassOptions } from "./pass.js";

export type IntroducibleFeature = "tail-call" | "multi-value";

/** User choices: true allows, false forbids, absent takes the default above. */
export type FeatureChoices = Partial<Record<IntroducibleFeature, boolean>>;

/** By op id (the scan looks up every instruction of a module without tail calls). */
const tailCallOps = Uint8Array.from(OPS, (d) => (d.feature === "tail-call" ? 1 : 0));

// Answers per module object: the scan decodes every body, and four passes ask.
// Passes only add tail calls where they may, so an answer stays right for the
// module as it changes (a "yes" that cleanup makes stale still describes the
// engine the input needed).
const tailCallsUsed = new WeakMap<Module, boolean>();

function usesTailCalls(m: Module): boolean {
  let used = tailCallsUsed.get(m);
  if (used === undefined) {
    used = false;
    scan: for (const f of m.functions) {
      const b = f.body ?? decodeFunctionBody(m, f);
      for (let i = 0; i < b.count; i++) {
        if (tailCallOps[b.ops[i]!]) {
          used = true;
          break scan;
        }
      }
    }
    tailCallsUsed.set(m, used);
  }
  return used;
}

/** May a pass add code that needs `feature` to this module? */
export function mayIntroduce(m: Module, options: PassOptions | undefined, feature: IntroducibleFeature): boolean {
  const choice = options?.features?.[feature];
  if (choice !== undefined) return choice || (feature === "tail-call" && usesTailCalls(m));
  return feature === "multi-value" ? true : usesTailCalls(m);
}
