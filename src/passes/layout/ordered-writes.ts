// The module written with its defined functions in a candidate order. Every
// candidate starts from the same written base: read it, redirect the
// functions, write it. Reading a copy is cheap (bodies stay undecoded), and
// the copy is written without bodies; its code section is then put together
// from the base's bodies, each encoded once with its function indices cut out
// (spliced-code.ts), instead of decoding, redirecting and encoding every body
// for every order, which cost most of the layout pass. Under the raw target
// only the length counts: the code section's length follows from where
// function indices sit in the bodies, so no body is encoded or copied.

import { ByteWriter, u32Size } from "../../binary/bytes.js";
import { sectionSpans } from "../../binary/sections.js";
import { bodyOf, readModule } from "../../binary/reader.js";
import { estimateViewLeftOut, writeModule } from "../../binary/writer.js";
import type { Body } from "../../ir/body.js";
import type { Module } from "../../ir/module.js";
import { reorderFunctions } from "../../ir/renumber.js";
import { funcRefs } from "../../analysis/func-shape.js";
import { funcEntrySize } from "../../analysis/sizes.js";
import { SplicedCode } from "./spliced-code.js";
import { asEstimateView } from "../../size-target.js";

const CODE_SECTION = 10;

/** A body without instructions: redirectFunctions leaves it (and the function's raw bytes) alone. */
const NO_CODE: Body = { count: 0, ops: new Uint16Array(0), immStart: new Uint32Array(1), imm: new Int32Array(0), offsets: null };
const NO_BYTES = new Uint8Array(0);

/** What the code section of an ordered copy weighs, per function that references functions. */
interface CodeSizes {
  /** Positions (0-based) of the defined functions whose bodies hold function indices. */
  funcs: Int32Array;
  /** Their function indices, concatenated; funcs[k]'s end at refEnd[k]. */
  refs: Int32Array;
  refEnd: Uint32Array;
  /** Body length in the base, and re-encoded with its indices unchanged (they differ if the base's encoding is not minimal). */
  baseLen: Int32Array;
  encodedLen: Int32Array;
  /** Code section payload length in the base. */
  payload: number;
  /** Does the base have a parsed name section (which every order rewrites)? */
  names: boolean;
}

/** A copy of the base with bodies left out, in some order: base function i is now function at[i]. */
interface Shell {
  m: Module;
  at: Int32Array;
  /** Base body lengths, in base order. */
  rawLen: Int32Array;
  /** What the shell's code section payload of empty bodies takes, with its size. */
  codeBytes: number;
}

export class OrderedWrites {
  private readonly bodies: Body[];
  /** The function indices in each body, concatenated: defined function i's end at refEnd[i]. */
  readonly refs: Int32Array;
  private readonly refEnd: Uint32Array;
  private code: CodeSizes | null = null;
  private widths: boolean | null = null;
  private shellCopy: Shell | null = null;
  /** The code section's pieces (undefined until the first write; null: written the slow way). */
  private spliced: SplicedCode | null | undefined = undefined;

  /**
   * `base` must be writeModule(m), with m unchanged since. `views`: bytes()
   * writes each order as its estimate view (see extract/trial.ts writeTrial),
   * for a judge that sees only those.
   */
  constructor(
    private readonly m: Module,
    readonly base: Uint8Array,
    private readonly views = false,
  ) {
    this.bodies = m.functions.map((f) => bodyOf(m, f));
    const refs: number[] = [];
    this.refEnd = Uint32Array.from(this.bodies, (b) => funcRefs(b, refs).length);
    this.refs = Int32Array.from(refs);
  }

  /** The base with the defined functions in `order` (old indices): what readModule(base), redirectFunctions and writeModule give. */
  bytes(order: readonly number[]): Uint8Array {
    if (this.spliced === undefined) this.spliced = SplicedCode.of(this.m.functions, this.bodies);
    if (this.spliced) return this.splicedBytes(order, this.spliced);
    const copy = readModule(this.base);
    copy.functions.forEach((f, i) => {
      // shared: renumbering builds a new Body where an index changes (ir/body.ts mapWords)
      f.body = this.bodies[i]!;
    });
    reorderFunctions(copy, order);
    return this.marked(writeModule(copy, { estimateView: this.views }));
  }

  /** What a whole write has that a view leaves out: the same for every order. */
  private leftOut = -1;

  /** `bytes` registered as an estimate view, when written as one. */
  private marked(bytes: Uint8Array): Uint8Array {
    if (!this.views) return bytes;
    if (this.leftOut < 0) this.leftOut = estimateViewLeftOut(this.m);
    return asEstimateView(bytes, bytes.length + this.leftOut);
  }

  /**
   * bytes(order) without encoding a body: every section but the code is
   * written from a copy without bodies, redirected to the order, and the
   * code section is put together from the base's bodies (spliced-code.ts).
   */
  private splicedBytes(order: readonly number[], code: SplicedCode): Uint8Array {
    const copy = readModule(this.base);
    // the base's bodies, as read (copied where an order changes no index in them)
    const raw = copy.functions.map((f) => f.raw!);
    for (const f of copy.functions) {
      f.body = NO_CODE;
      f.raw = NO_BYTES;
    }
    reorderFunctions(copy, order);
    const shell = writeModule(copy, { estimateView: this.views });
    const nImp = this.m.numImportedFuncs;
    const newIndex = identity(nImp + order.length);
    order.forEach((old, k) => (newIndex[old] = nImp + k));
    const payload = code.payload(order, nImp, newIndex, raw);
    const span = sectionSpans(shell).find((s) => s.id === CODE_SECTION)!;
    const out = new ByteWriter(shell.length + payload.length + 8);
    out.bytes(shell.subarray(0, span.start));
    out.u8(CODE_SECTION);
    out.u32(payload.length);
    out.bytes(payload);
    out.bytes(shell.subarray(span.end));
    return this.marked(out.finish());
  }

  /** bytes(order).length, encoding no function body. */
  rawLength(order: readonly number[]): number {
    if (order.length === 0) return this.base.length;
    const code = (this.code ??= this.codeSizes());
    const shell = this.shell();
    const nImp = this.m.numImportedFuncs;
    const newIndex = new Int32Array(nImp + order.length);
    for (let i = 0; i < nImp; i++) newIndex[i] = i;
    order.forEach((old, k) => (newIndex[old] = nImp + k));
    reorderFunctions(
      shell.m,
      order.map((old) => shell.at[old]!),
    );
    shell.at = newIndex;
    // everything but the code section's payload, written for real
    const rest = writeModule(shell.m).length - shell.codeBytes;
    const { funcs, refs, refEnd, baseLen, encodedLen, payload } = code;
    let grown = 0;
    let from = 0;
    for (let k = 0; k < funcs.length; k++) {
      const to = refEnd[k]!;
      let delta = 0;
      let changed = false;
      for (let r = from; r < to; r++) {
        const old = refs[r]!;
        const now = newIndex[old]!;
        if (now !== old) {
          changed = true;
          delta += u32Size(now) - u32Size(old);
        }
      }
      from = to;
      // a body whose indices all stay is copied as it was
      if (!changed) continue;
      const len = encodedLen[k]! + delta;
      grown += len + u32Size(len) - baseLen[k]! - u32Size(baseLen[k]!);
    }
    return rest + u32Size(payload + grown) + payload + grown;
  }

  /**
   * True if an order's raw length follows from the index width it gives each
   * function alone, so that orders giving every function the same widths
   * tie. That holds when every part an order re-encodes (the bodies holding
   * function indices, the name section) is as short in the base as the
   * writer makes it; a base read from a file that pads its LEB128s is not.
   */
  widthsDecide(): boolean {
    if (this.widths !== null) return this.widths;
    const code = (this.code ??= this.codeSizes());
    this.widths = code.encodedLen.every((v, k) => v === code.baseLen[k]) && (!code.names || this.namesKeepLength());
    return this.widths;
  }

  /** Two functions of one index width trade places: does the rewritten name section keep its length? */
  private namesKeepLength(): boolean {
    const nImp = this.m.numImportedFuncs;
    const order = this.m.functions.map((_, k) => nImp + k);
    const k = order.findIndex((v, k) => k + 1 < order.length && u32Size(v) === u32Size(v + 1));
    if (k < 0) return false;
    [order[k], order[k + 1]] = [order[k + 1]!, order[k]!];
    return this.rawLength(order) === this.base.length;
  }

  /**
   * The base without code, for lengths. Read once (on esbuild a read takes
   * 40 ms) and redirected from each order to the next: that leaves it as a
   * fresh copy redirected to the new order would be, but for the order of
   * entries in the name section, which no length depends on.
   */
  private shell(): Shell {
    if (!this.shellCopy) {
      const m = readModule(this.base);
      const rawLen = Int32Array.from(m.functions, (f) => f.raw!.length);
      // no body is written: copying them cost more than the rest of the write
      for (const f of m.functions) {
        f.body = NO_CODE;
        f.raw = NO_BYTES;
      }
      const n = m.functions.length;
      const empty = u32Size(n) + n;
      this.shellCopy = { m, at: identity(m.numImportedFuncs + n), rawLen, codeBytes: u32Size(empty) + empty };
    }
    return this.shellCopy;
  }

  /** Does defined function i's body hold a function index (and so may change)? */
  private hasRefs(i: number): boolean {
    return this.refEnd[i]! > (this.refEnd[i - 1] ?? 0);
  }

  private codeSizes(): CodeSizes {
    const shell = this.shell();
    const funcs: number[] = [];
    const refs: number[] = [];
    const refEnd: number[] = [];
    const baseLen: number[] = [];
    const encodedLen: number[] = [];
    let payload = u32Size(shell.rawLen.length);
    shell.rawLen.forEach((len, i) => {
      payload += u32Size(len) + len;
      if (!this.hasRefs(i)) return;
      funcs.push(i);
      for (let r = this.refEnd[i - 1] ?? 0; r < this.refEnd[i]!; r++) refs.push(this.refs[r]!);
      refEnd.push(refs.length);
      baseLen.push(len);
      const mf = this.m.functions[i]!;
      // a body the writer encoded is as short as it gets already
      if (mf.dirty || !mf.raw) {
        encodedLen.push(len);
        return;
      }
      encodedLen.push(funcEntrySize(mf.locals, this.bodies[i]!));
    });
    return {
      funcs: Int32Array.from(funcs),
      refs: Int32Array.from(refs),
      refEnd: Uint32Array.from(refEnd),
      baseLen: Int32Array.from(baseLen),
      encodedLen: Int32Array.from(encodedLen),
      payload,
      names: shell.m.names !== null,
    };
  }
}

function identity(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}
