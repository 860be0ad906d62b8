// Region identity up to local renaming. A cheap prefix hash over the body
// (local indices replaced by their types) buckets every region in O(1); only
// regions that share a bucket get the exact canonical form, in which locals
// are numbered by first use.

import { idOf } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";
import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import type { ValType } from "../../ir/types.js";
import { controlTree } from "../../analysis/control-tree.js";
import { BLOCK, LOOP, type Region } from "./regions.js";

/** Per op: word offset of its local-index immediate, -1 if none (local.get/set/tee have one, first). */
const LOCAL_AT = Int32Array.from(LOCAL_WORDS, (w) => {
  if (w && w.length > 1) throw new Error("an instruction with two local immediates");
  return w ? w[0]! : -1;
});

function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  return (h ^ (h >>> 15)) | 0;
}

const BASE = 0x01000193;
let powers = new Int32Array([1]);

/** BASE^k (mod 2^32) for k up to n. */
function powersUpTo(n: number): Int32Array {
  if (powers.length > n) return powers;
  const p = new Int32Array(Math.max(n + 1, powers.length * 2));
  p[0] = 1;
  for (let k = 1; k < p.length; k++) p[k] = Math.imul(p[k - 1]!, BASE);
  return (powers = p);
}

/** Prefix hashes: H[i] covers instructions [0, i). */
export function prefixHashes(body: Body, localTypes: readonly ValType[]): Int32Array {
  const { ops, imm, immStart } = body;
  const h = new Int32Array(body.count + 1);
  for (let i = 0; i < body.count; i++) {
    const op = ops[i]!;
    let t = mix(0x2f1, op);
    const s = immStart[i]!;
    const e = immStart[i + 1]!;
    const loc = s + LOCAL_AT[op]!;
    for (let p = s; p < e; p++) t = mix(t, p === loc ? (localTypes[imm[p]!] ?? -1) : imm[p]!);
    h[i + 1] = (Math.imul(h[i]!, BASE) + t) | 0;
  }
  powersUpTo(body.count);
  return h;
}

/** Hash of instructions [start, end) from prefix hashes. */
export function rangeHash(h: Int32Array, start: number, end: number): number {
  return (h[end]! - Math.imul(h[start]!, powers[end - start]!)) | 0;
}

/** What a region does with each local, numbered by first use (equal for equal keys). */
export interface LocalUse {
  types: ValType[];
  /** local.get count inside the region. */
  reads: number[];
  written: boolean[];
  /** The first use is a write that runs before every later use in the region. */
  definedFirst: boolean[];
}

/** A growable list of words (the canonical form of one region at a time). */
export class WordBuffer {
  words = new Int32Array(256);
  length = 0;

  push(w: number): void {
    if (this.length === this.words.length) {
      const a = new Int32Array(this.words.length * 2);
      a.set(this.words);
      this.words = a;
    }
    this.words[this.length++] = w;
  }
}

export interface Canonical {
  /** canonical local number -> the site's local index */
  locals: number[];
  use: LocalUse;
  /** The canonical form (see canonical) and its hash. */
  words: Int32Array;
  hash: number;
}

const GET_ID = idOf("local.get");

/**
 * The exact identity of a region among regions of one bucket (same kind,
 * signature, caller results and length): each op and its immediate words,
 * local indices replaced by their canonical numbers (the op fixes where they
 * are), then the canonical locals' types. Two regions of a bucket are
 * identical up to local renaming exactly when these words are equal. `out`
 * is scratch space.
 */
export function canonical(body: Body, localTypes: readonly ValType[], r: Region, out: WordBuffer): Canonical {
  const { ops, imm, immStart } = body;
  out.length = 0;
  const canon = new Map<number, number>();
  const locals: number[] = [];
  const use: LocalUse = { types: [], reads: [], written: [], definedFirst: [] };
  // nesting depth (inside the region) at which straight-line code runs before everything after it
  const first = ops[r.start]!;
  const domDepth = r.kind === "arm" ? 0 : first === BLOCK || first === LOOP ? 1 : -1;
  const tree = controlTree(body);
  const base = tree.depthAt(r.start);
  for (let i = r.start; i < r.end; i++) {
    const op = ops[i]!;
    out.push(op);
    const s = immStart[i]!;
    const e = immStart[i + 1]!;
    const loc = s + LOCAL_AT[op]!;
    for (let p = s; p < e; p++) {
      if (p !== loc) {
        out.push(imm[p]!);
        continue;
      }
      const l = imm[p]!;
      let c = canon.get(l);
      if (c === undefined) {
        c = locals.length;
        canon.set(l, c);
        locals.push(l);
        use.types.push(localTypes[l]!);
        use.reads.push(0);
        use.written.push(false);
        use.definedFirst.push(op !== GET_ID && tree.depthAt(i) - base === domDepth);
      }
      if (op === GET_ID) use.reads[c]!++;
      else use.written[c] = true;
      out.push(c);
    }
  }
  for (const t of use.types) out.push(t);
  let hash = out.length;
  for (let k = 0; k < out.length; k++) hash = mix(hash, out.words[k]!);
  return { locals, use, words: out.words.slice(0, out.length), hash };
}
