// Random structured bodies and plain (quadratic, obviously right) answers
// about their control, for the randomized tests of the control tree, the
// CFG and the dominators. The bodies nest properly and their labels are in
// range; operand types are not modelled (the analyses only look at
// structure), so they need not validate.

import { OPS, idOf } from "../src/binary/opcodes/index.js";
import { BLOCK_EMPTY, BodyBuilder, type Body } from "../src/ir/body.js";

/** mulberry32: a small seeded generator (the bench's). */
import { rng } from "../bench/stats.js";
export { rng };

export interface GenOptions {
  /** Generate try/catch/delegate, try_table, throw and rethrow. */
  eh: boolean;
  /** Rough instruction budget. */
  size: number;
}

/** A random structured body. */
export function randomBody(rand: () => number, opts: GenOptions): Body {
  const b = new BodyBuilder(64);
  const pick = (n: number): number => Math.floor(rand() * n);
  let budget = opts.size;
  /** Kinds of the open constructs, innermost last ("catch" for a try whose catch arm is running). */
  const open: string[] = [];
  const op = (name: string, ...words: number[]): void => {
    b.begin(idOf(name));
    for (const w of words) b.word(w);
    budget--;
  };
  // mostly near labels, as compilers write them
  const label = (): number => Math.floor(rand() * rand() * (open.length + 1));
  /** A run of instructions that may fall through, sometimes ended by one that does not (the rest of the arm is dead). */
  const seq = (): void => {
    const len = pick(5);
    for (let k = 0; k < len && budget > 0; k++) instr();
    if (rand() < 0.2) transfer();
    if (rand() < 0.1) instr();
  };
  const nested = (kind: string, body: () => void): void => {
    open.push(kind);
    body();
    open.pop();
  };
  /** An unconditional transfer of control. */
  const transfer = (): void => {
    switch (pick(opts.eh ? 8 : 6)) {
      case 0: case 1: return op("br", label());
      case 2: {
        const n = pick(4);
        const ls = Array.from({ length: n + 1 }, label);
        return op("br_table", n, ...ls);
      }
      case 3: return rand() < 0.5 ? op("return") : op("return_call", 0);
      case 4: case 5: return op("unreachable");
      case 6: return op("throw", 0);
      default: {
        // rethrow names a catch arm around it
        const at = open.lastIndexOf("catch");
        return at >= 0 ? op("rethrow", open.length - 1 - at) : op("throw_ref");
      }
    }
  };
  const instr = (): void => {
    switch (pick(opts.eh ? 17 : 14)) {
      case 0: case 1: return op("nop");
      case 2: return op("call", 0);
      case 3: case 4: case 5: return op("br_if", label());
      case 6: return op("br_on_null", label());
      case 7: case 8:
        op("block", BLOCK_EMPTY);
        nested("block", seq);
        return op("end");
      case 9: case 10:
        op("loop", BLOCK_EMPTY);
        nested("loop", seq);
        return op("end");
      case 11: case 12: case 13:
        op("if", BLOCK_EMPTY);
        nested("if", () => {
          seq();
          if (rand() < 0.6) {
            op("else");
            seq();
          }
        });
        return op("end");
      case 14: case 15: {
        op("try", BLOCK_EMPTY);
        open.push("try");
        seq();
        if (rand() < 0.25) {
          open.pop();
          return op("delegate", label());
        }
        open[open.length - 1] = "catch";
        const n = pick(3);
        for (let k = 0; k < n; k++) {
          op("catch", 0);
          seq();
        }
        if (rand() < 0.5) {
          op("catch_all");
          seq();
        }
        open.pop();
        return op("end");
      }
      default: {
        const n = pick(3);
        const words: number[] = [];
        for (let k = 0; k < n; k++) words.push(pick(4), 0, label());
        op("try_table", BLOCK_EMPTY, n, ...words);
        nested("try_table", seq);
        return op("end");
      }
    }
  };
  while (budget > 0 && rand() < 0.9) instr();
  if (rand() < 0.3) transfer();
  op("end");
  return b.finish();
}

/** A random structured body with local.get/set/tee of `nLocals` locals sprinkled before its plain instructions. */
export function withLocals(rand: () => number, body: Body, nLocals: number): Body {
  const b = new BodyBuilder(body.count * 2);
  for (let i = 0; i < body.count; i++) {
    while (rand() < 0.45) {
      const r = rand();
      b.begin(idOf(r < 0.45 ? "local.get" : r < 0.85 ? "local.set" : "local.tee"));
      b.word(Math.floor(rand() * nLocals));
    }
    b.begin(body.ops[i]!);
    for (let w = body.immStart[i]!; w < body.immStart[i + 1]!; w++) b.word(body.imm[w]!);
  }
  return b.finish();
}

const name = (body: Body, i: number): string => OPS[body.ops[i]!]!.name;
const OPENERS = new Set(["block", "loop", "if", "try", "try_table"]);
const CLOSERS = new Set(["end", "delegate"]);
const ARMS = new Set(["else", "catch", "catch_all"]);

/** The closing instruction of the construct opened at s (-1 for the function: its last instruction). */
export function refEnd(body: Body, s: number): number {
  if (s < 0) return body.count - 1;
  let d = 0;
  for (let j = s + 1; j < body.count; j++) {
    if (OPENERS.has(name(body, j))) d++;
    else if (CLOSERS.has(name(body, j))) {
      if (d === 0) return j;
      d--;
    }
  }
  throw new Error("unclosed");
}

/** The else/catch/catch_all of the construct opened at s. */
export function refArms(body: Body, s: number): number[] {
  const out: number[] = [];
  let d = 0;
  for (let j = s + 1; j < body.count; j++) {
    const n = name(body, j);
    if (OPENERS.has(n)) d++;
    else if (CLOSERS.has(n)) {
      if (d === 0) break;
      d--;
    } else if (d === 0 && ARMS.has(n)) out.push(j);
  }
  return out;
}

/** Openers of the constructs whose inside holds instruction i, outermost first (not counting the function). */
export function refOpenAt(body: Body, i: number): number[] {
  const st: number[] = [];
  for (let j = 0; j < i; j++) {
    const n = name(body, j);
    if (OPENERS.has(n)) st.push(j);
    else if (CLOSERS.has(n)) st.pop();
  }
  // a construct's own closing instruction runs outside it
  if (CLOSERS.has(name(body, i)) && i < body.count - 1) st.pop();
  return st;
}

/** Opener named by label l from an open-construct stack (-1: the function, -2: out of range). */
export function refLabel(st: readonly number[], l: number): number {
  const k = st.length - 1 - l;
  return k >= 0 ? st[k]! : k === -1 ? -1 : -2;
}

/** Where a branch to the construct opened at s arrives (-1: the exit). */
function refLand(body: Body, s: number): number {
  if (s < 0) return -1;
  return name(body, s) === "loop" ? s : refEnd(body, s);
}

/** Handler starts an exception at i may reach (-1: the exit), and whether it may escape (see cfg.ts). */
export function refHandlers(body: Body, i: number): { to: number[]; escapes: boolean } {
  const { imm, immStart } = body;
  const st = refOpenAt(body, i);
  const to: number[] = [];
  let k = st.length - 1;
  let pos = i;
  while (k >= 0) {
    const s = st[k]!;
    const n = name(body, s);
    if (n === "try") {
      const arms = refArms(body, s);
      const e = refEnd(body, s);
      if (pos < (arms[0] ?? e)) {
        if (name(body, e) === "delegate") {
          // thrown again where this try sits inside the construct the label names
          const t = refLabel(st.slice(0, k), imm[immStart[e]!]!);
          if (t < 0) return { to, escapes: true };
          k = st.indexOf(t);
          pos = s;
          continue;
        }
        for (const a of arms) {
          to.push(a + 1);
          if (name(body, a) === "catch_all") return { to, escapes: false };
        }
      }
    } else if (n === "try_table") {
      const w = immStart[s]!;
      const cnt = imm[w + 1]!;
      for (let c = 0; c < cnt; c++) {
        const kind = imm[w + 2 + 3 * c]!;
        to.push(refLand(body, refLabel(st.slice(0, k), imm[w + 2 + 3 * c + 2]!)));
        if (kind >= 2) return { to, escapes: false };
      }
    }
    pos = s;
    k--;
  }
  return { to, escapes: true };
}

/** Instructions that may run right after instruction i (-1: leaving the function), as the semantics say. */
export function refSucc(body: Body, i: number): number[] {
  const { imm, immStart } = body;
  const n = name(body, i);
  const w = immStart[i]!;
  const st = refOpenAt(body, i);
  const land = (l: number): number => refLand(body, refLabel(st, l));
  switch (n) {
    case "if": {
      const arms = refArms(body, i);
      return [i + 1, arms.length ? arms[0]! + 1 : refEnd(body, i)];
    }
    case "else": case "catch": case "catch_all":
      return [refEnd(body, st[st.length - 1]!)];
    case "end": case "delegate":
      return i === body.count - 1 ? [-1] : [i + 1];
    case "br": return [land(imm[w]!)];
    case "br_if": case "br_on_null": return [land(imm[w]!), i + 1];
    case "br_table": {
      const out: number[] = [];
      for (let k = 0; k <= imm[w]!; k++) out.push(land(imm[w + 1 + k]!));
      return out;
    }
    case "return": case "return_call": case "unreachable": return [-1];
    case "throw": case "rethrow": case "throw_ref": {
      const h = refHandlers(body, i);
      return h.escapes ? [...h.to, -1] : h.to;
    }
    case "call": return [i + 1, ...refHandlers(body, i).to];
    default: return [i + 1];
  }
}

/** A call that may throw to a handler in this function. */
export function refCallInTry(body: Body, i: number): boolean {
  return name(body, i) === "call" && refHandlers(body, i).to.length > 0;
}

/** Bodies the hand-written and random tests share: some seeds, with and without exception handling. */
export function randomBodies(seed: number, count: number): Body[] {
  const rand = rng(seed);
  return Array.from({ length: count }, (_, k) => randomBody(rand, { eh: k % 3 === 2, size: 10 + Math.floor(rand() * 60) }));
}
