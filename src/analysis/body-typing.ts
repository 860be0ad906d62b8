// The typing of a function body as the validator infers it, per
// instruction: the stack height before it, the types it pops and pushes,
// and for each operand the push that produced it. The validator itself
// does the typing (analysis/validate-code.ts records it on request), so
// passes see exactly the types the final validation checks: `ref.func $f`
// pushes (ref $t), a GC instruction its exact reference type.
//
// Values and producers: every push is a numbered slot; a pop names the slot
// of the value it takes, or -1 where no instruction produced it (popped
// from the polymorphic stack of unreachable code). Values that enter a
// frame are pushed by the instruction that opens it: a block's parameters
// by block/loop/if/try_table (and again by else), a catch's tag values by
// catch; a frame's results leave it as pushes of its end (or delegate), a
// br_if's label values as its own pushes. The implicit else of an if
// without else has no instruction and is not recorded (its values are the
// if's parameters, passed through).

import { bodyOf } from "../binary/reader.js";
import type { Body } from "../ir/body.js";
import type { Func, Module } from "../ir/module.js";
import { moduleEnv, type ModuleEnv } from "./module-env.js";
import { CodeValidator } from "./validate-code.js";

export interface BodyTyping {
  /** The environment the body was typed in. */
  readonly env: ModuleEnv;
  /** Instructions typed: the body's count (its final end included). */
  readonly count: number;
  /** Per instruction: operands on the stack of its frame before it, -1 in unreachable code (a polymorphic stack). */
  readonly height: Int32Array;
  /** Per instruction i (length count + 1): its pops are slots popStart[i] .. popStart[i + 1] - 1, deepest operand first. */
  readonly popStart: Int32Array;
  /**
   * Per pop: the type the instruction requires; where it takes any value
   * (drop, select, ref.is_null, ref.as_non_null, br_on_null ...) the
   * operand's own type; BOT (analysis/typecontext) where neither is known.
   */
  readonly popType: Int32Array;
  /** Per pop: the push slot that produced the operand, -1 if none did (unreachable code). */
  readonly popFrom: Int32Array;
  /** Per instruction i (length count + 1): its pushes are slots pushStart[i] .. pushStart[i + 1] - 1, bottom first. */
  readonly pushStart: Int32Array;
  /** Per push slot: the exact type pushed. */
  readonly pushType: Int32Array;
  /** Per push slot: the instruction that pushed it. */
  readonly pushedBy: Int32Array;
}

/** Receives the validator's pushes and pops while it types one body. */
export class TypingRecorder {
  readonly popStart: Int32Array;
  readonly pushStart: Int32Array;
  popType: Int32Array;
  popFrom: Int32Array;
  pushType: Int32Array;
  pushedBy: Int32Array;
  nPop = 0;
  nPush = 0;
  /** Per operand-stack slot: the push slot of the value there. */
  private srcs: Int32Array = new Int32Array(256);
  private instr = 0;

  constructor(count: number) {
    this.popStart = new Int32Array(count + 1);
    this.pushStart = new Int32Array(count + 1);
    const cap = Math.max(16, count * 2);
    this.popType = new Int32Array(cap);
    this.popFrom = new Int32Array(cap);
    this.pushType = new Int32Array(cap);
    this.pushedBy = new Int32Array(cap);
  }

  begin(i: number): void {
    this.instr = i;
    this.popStart[i] = this.nPop;
    this.pushStart[i] = this.nPush;
  }

  /** Pops were recorded topmost first: turn them around. */
  end(i: number): void {
    let a = this.popStart[i]!;
    let b = this.nPop - 1;
    const t = this.popType;
    const f = this.popFrom;
    while (a < b) {
      const ta = t[a]!;
      t[a] = t[b]!;
      t[b] = ta;
      const fa = f[a]!;
      f[a] = f[b]!;
      f[b] = fa;
      a++;
      b--;
    }
    this.popStart[i + 1] = this.nPop;
    this.pushStart[i + 1] = this.nPush;
  }

  /** Value of type t pushed to stack slot `sp`. */
  pushed(t: number, sp: number): void {
    const s = this.nPush++;
    if (s === this.pushType.length) {
      this.pushType = grow(this.pushType);
      this.pushedBy = grow(this.pushedBy);
    }
    this.pushType[s] = t;
    this.pushedBy[s] = this.instr;
    if (sp >= this.srcs.length) this.srcs = grow(this.srcs, sp + 1);
    this.srcs[sp] = s;
  }

  /** Operand popped with type t from stack slot `sp` (-1: none, unreachable code). */
  popped(t: number, sp: number): void {
    const k = this.nPop++;
    if (k === this.popType.length) {
      this.popType = grow(this.popType);
      this.popFrom = grow(this.popFrom);
    }
    this.popType[k] = t;
    this.popFrom[k] = sp < 0 ? -1 : this.srcs[sp]!;
  }

  /** The typing recorded (exact-size copies: the buffers have slack). */
  typing(env: ModuleEnv, height: Int32Array): BodyTyping {
    return {
      env,
      count: height.length,
      height,
      popStart: this.popStart,
      popType: this.popType.slice(0, this.nPop),
      popFrom: this.popFrom.slice(0, this.nPop),
      pushStart: this.pushStart,
      pushType: this.pushType.slice(0, this.nPush),
      pushedBy: this.pushedBy.slice(0, this.nPush),
    };
  }
}

function grow(a: Int32Array, least = 0): Int32Array {
  const b = new Int32Array(Math.max(a.length * 2, least));
  b.set(a);
  return b;
}

/** Typings by body, with the signature and locals they were computed for (a pass may give a body new ones). */
const cache = new WeakMap<Body, { typing: BodyTyping; typeIndex: number; locals: Func["locals"] }>();
const validators = new WeakMap<ModuleEnv, CodeValidator>();

/**
 * The typing of function `funcIndex` (imports first) of `m`, cached per
 * body and environment. Pass one `env` (analysis/module-env) for all the
 * functions of one state of the module; without it one is built per call.
 * Throws WasmValidationError if the body does not validate.
 */
export function typeBody(m: Module, funcIndex: number, env: ModuleEnv = moduleEnv(m)): BodyTyping {
  const { f, body } = definedBody(m, funcIndex);
  const old = cache.get(body);
  if (old && old.typing.env === env && old.typeIndex === f.typeIndex && old.locals === f.locals) return old.typing;
  const height = new Int32Array(body.count);
  const rec = new TypingRecorder(body.count);
  validatorFor(env).recordFunction(funcIndex, f.typeIndex, f.locals, body, height, rec);
  const typing = rec.typing(env, height);
  cache.set(body, { typing, typeIndex: f.typeIndex, locals: f.locals });
  return typing;
}

/**
 * Only the heights of typeBody (per instruction: operands on its frame's
 * stack before it, -1 in unreachable code), for passes that need no more:
 * about as fast as validating the body, and not cached.
 */
export function stackHeights(m: Module, funcIndex: number, env: ModuleEnv = moduleEnv(m)): Int32Array {
  const { f, body } = definedBody(m, funcIndex);
  const old = cache.get(body);
  if (old && old.typing.env === env && old.typeIndex === f.typeIndex && old.locals === f.locals) return old.typing.height;
  const height = new Int32Array(body.count);
  validatorFor(env).recordFunction(funcIndex, f.typeIndex, f.locals, body, height, null);
  return height;
}

function definedBody(m: Module, funcIndex: number): { f: Func; body: Body } {
  const f = m.functions[funcIndex - m.numImportedFuncs];
  if (!f) throw new RangeError(`function ${funcIndex} is not defined in the module`);
  return { f, body: bodyOf(m, f) };
}

/** One validator per environment: it keeps its buffers between bodies. */
export function validatorFor(env: ModuleEnv): CodeValidator {
  let cv = validators.get(env);
  if (!cv) validators.set(env, (cv = new CodeValidator(env)));
  return cv;
}

/** The instruction that produced operand k (0: the deepest) of instruction i, or -1 (unreachable code). */
export function producerOf(t: BodyTyping, i: number, k: number): number {
  const s = t.popFrom[t.popStart[i]! + k]!;
  return s < 0 ? -1 : t.pushedBy[s]!;
}

/** Number of operands instruction i pops. */
export function popCount(t: BodyTyping, i: number): number {
  return t.popStart[i + 1]! - t.popStart[i]!;
}

/** Number of values instruction i pushes. */
export function pushCount(t: BodyTyping, i: number): number {
  return t.pushStart[i + 1]! - t.pushStart[i]!;
}
