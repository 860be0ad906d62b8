// Buckets regions by their cheap identity (kind, block type, the caller's
// results for a region that returns, length, prefix hash) in an open-addressing
// table over those fields, instead of one string key per region: a module has
// a region per construct and arm, and building their keys dominated the pass.
// Buckets are numbered in order of first appearance and keep their regions in
// order (findGroups reports groups in that order; ties in benefit keep it).

import type { FuncInfo } from "./plan.js";
import type { Region } from "./regions.js";

function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  return (h ^ (h >>> 15)) | 0;
}

export class RegionBuckets {
  /** Buckets made so far (numbered 0 .. count - 1). */
  count = 0;
  /** Per bucket: its first region (an item number), -1 when none. */
  readonly first: Int32Array;
  /** Per bucket: number of regions in it. */
  readonly size: Int32Array;
  /** Per item: the next item of its bucket, -1 at the end. */
  readonly next: Int32Array;
  readonly infos: FuncInfo[] = [];
  readonly regions: Region[] = [];
  /** Per slot: bucket number + 1, 0 when empty. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly last: Int32Array;
  private readonly kind: Uint8Array;
  private readonly blockType: Int32Array;
  private readonly results: Int32Array;
  private readonly len: Int32Array;
  private readonly hash: Int32Array;

  /** `capacity`: the number of regions that will be added. */
  constructor(capacity: number) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.slots = new Int32Array(n);
    this.mask = n - 1;
    this.first = new Int32Array(capacity);
    this.last = new Int32Array(capacity);
    this.size = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.blockType = new Int32Array(capacity);
    this.results = new Int32Array(capacity);
    this.len = new Int32Array(capacity);
    this.hash = new Int32Array(capacity);
  }

  /** Adds region `r` of `info`; `results` numbers the caller's results (0 unless `r` returns), `hash` its range hash. */
  add(info: FuncInfo, r: Region, results: number, hash: number): void {
    const item = this.regions.length;
    this.infos.push(info);
    this.regions.push(r);
    this.next[item] = -1;
    const kind = r.kind === "arm" ? 1 : 0;
    const len = r.end - r.start;
    let slot = mix(mix(mix(mix(hash, len), r.blockType), results), kind) & this.mask;
    for (;;) {
      const b = this.slots[slot]! - 1;
      if (b < 0) break;
      if (this.hash[b] === hash && this.len[b] === len && this.blockType[b] === r.blockType &&
          this.results[b] === results && this.kind[b] === kind) {
        this.next[this.last[b]!] = item;
        this.last[b] = item;
        this.size[b]!++;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
    const b = this.count++;
    this.slots[slot] = b + 1;
    this.first[b] = this.last[b] = item;
    this.size[b] = 1;
    this.kind[b] = kind;
    this.blockType[b] = r.blockType;
    this.results[b] = results;
    this.len[b] = len;
    this.hash[b] = hash;
  }
}
