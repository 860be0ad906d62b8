// The HotCode that both a profile (hot-code.ts) and the static estimate
// (static-hot.ts) hand to the passes: per function (by input origin), the
// body's op sequence as it was decided on and a mark per instruction.
// Instruction-level answers hold while a function's body is still that one
// (same op sequence); after a pass rewrote it, the function-level answer
// stands in. Functions without marks, and functions a pass created, are not
// hot: passes build new functions only out of code that was not hot.

import type { Body } from "../ir/body.js";
import type { Func } from "../ir/module.js";
import type { HotCode } from "../passes/pass.js";

export interface HotMarks {
  /** The op sequence the marks were decided on. */
  ops: Uint16Array;
  /** 1 per hot instruction; at least one is set. */
  hot: Uint8Array;
}

export class MarkedHotCode implements HotCode {
  private readonly unchanged = new WeakMap<Body, boolean>();
  constructor(private readonly byOrigin: ReadonlyMap<number, HotMarks>) {}

  isHotFunction(f: Func): boolean {
    return this.byOrigin.has(f.origin);
  }

  isHotInstruction(f: Func, instr: number): boolean {
    const p = this.byOrigin.get(f.origin);
    if (!p) return false;
    const body = f.body;
    if (!body || !this.isMarked(body, p.ops)) return true;
    return p.hot[instr] === 1;
  }

  private isMarked(body: Body, ops: Uint16Array): boolean {
    let same = this.unchanged.get(body);
    if (same === undefined) {
      same = body.count === ops.length;
      for (let i = 0; same && i < ops.length; i++) same = body.ops[i] === ops[i];
      this.unchanged.set(body, same);
    }
    return same;
  }
}
