// Where each byte of a written module's code came from: file offsets of the
// output mapped to file offsets of the module it was made from. Source maps
// (and later DWARF) follow the code through it.
//
// Two kinds of entry, sorted by output offset:
//   a run   (len > 0): bytes copied unchanged, so out + k came from src + k;
//   a point (len = 0): one re-encoded instruction, whose bytes all came from
//                      the instruction at src (0: glue with no origin).
// A point covers its instruction up to the next entry.

import { lastAtOrBefore } from "../last-at-or-before.js";

export interface AddressEntry {
  out: number;
  src: number;
  len: number;
}

/** Collects entries while a module is written. */
export class AddressRecorder {
  readonly entries: AddressEntry[] = [];

  /** Entries recorded so far (a mark for shiftSince). */
  get size(): number {
    return this.entries.length;
  }

  /** Adds `delta` to the output offset of every entry recorded since `mark`: entries are recorded relative to a buffer placed later. */
  shiftSince(mark: number, delta: number): void {
    for (let k = mark; k < this.entries.length; k++) this.entries[k]!.out += delta;
  }

  run(out: number, src: number, len: number): void {
    if (len > 0) this.entries.push({ out, src, len });
  }

  point(out: number, src: number): void {
    this.entries.push({ out, src, len: 0 });
  }

  finish(): AddressMap {
    return new AddressMap(this.entries);
  }
}

export class AddressMap {
  readonly entries: readonly AddressEntry[];

  constructor(entries: readonly AddressEntry[]) {
    for (let k = 1; k < entries.length; k++) {
      if (entries[k]!.out < entries[k - 1]!.out) throw new Error("address map entries out of order");
    }
    this.entries = entries;
  }

  /** Index of the last entry at or before `out`, or -1. */
  private at(out: number): number {
    return lastAtOrBefore(this.entries, (e) => e.out, out);
  }

  /** The source offset of output offset `out`, or 0 if it has none (glue, or outside the code). */
  lookup(out: number): number {
    const k = this.at(out);
    if (k < 0) return 0;
    const e = this.entries[k]!;
    if (e.len === 0) return e.src;
    return out < e.out + e.len ? e.src + (out - e.out) : 0;
  }

  /**
   * This map followed by `inner` (which maps this map's sources further back):
   * a map from this map's outputs to `inner`'s sources.
   */
  then(inner: AddressMap): AddressMap {
    const out: AddressEntry[] = [];
    for (const e of this.entries) {
      if (e.len === 0) {
        out.push({ out: e.out, src: e.src === 0 ? 0 : inner.lookup(e.src), len: 0 });
        continue;
      }
      // A run: split where `inner` changes inside [e.src, e.src + e.len).
      const end = e.src + e.len;
      let k = inner.at(e.src);
      let pos = e.src;
      while (pos < end) {
        const cur = k >= 0 ? inner.entries[k]! : null;
        const nextStart = k + 1 < inner.entries.length ? Math.min(inner.entries[k + 1]!.out, end) : end;
        const o = e.out + (pos - e.src);
        if (cur === null) out.push({ out: o, src: 0, len: 0 });
        else if (cur.len === 0) out.push({ out: o, src: cur.src, len: 0 });
        else {
          const inRun = Math.min(cur.out + cur.len, nextStart);
          if (pos < inRun) out.push({ out: o, src: cur.src + (pos - cur.out), len: inRun - pos });
          if (inRun < nextStart) out.push({ out: e.out + (inRun - e.src), src: 0, len: 0 });
        }
        pos = nextStart;
        k++;
      }
    }
    return new AddressMap(out);
  }

  /** This map with every output offset moved by `delta` (a section inserted or removed before the code). */
  shifted(delta: number): AddressMap {
    return delta === 0 ? this : new AddressMap(this.entries.map((e) => ({ ...e, out: e.out + delta })));
  }
}
