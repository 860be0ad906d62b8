// Where the code of each binary a run keeps came from in the input, when a
// source map must follow it. The bodies carry file offsets of the binary
// their module was read from: the input, or, after an undo, a binary the run
// wrote itself. So each kept binary gets its map back to the input, and a
// module re-read from one of them is written through that binary's map.

import { AddressMap, AddressRecorder } from "../binary/address-map.js";
import { writeModule, type WriteOptions } from "../binary/writer.js";
import { sectionSpans } from "../binary/sections.js";
import type { Module } from "../ir/module.js";

export class CodeOrigins {
  private readonly maps = new WeakMap<Uint8Array, AddressMap>();
  private readonly readFrom = new WeakMap<Module, Uint8Array>();

  constructor(private readonly input: Uint8Array) {}

  /** Writes `m`, recording where its code came from in the input. */
  write(m: Module, options: WriteOptions = {}): Uint8Array {
    const rec = new AddressRecorder();
    const bytes = writeModule(m, { ...options, addresses: rec });
    let map = rec.finish();
    const from = this.readFrom.get(m);
    if (from) {
      const back = this.maps.get(from);
      if (!back) throw new Error("code origins: a module was read from a binary with no recorded origins");
      map = map.then(back);
    }
    this.maps.set(bytes, map);
    return bytes;
  }

  /** `m` was read from `bytes`, which this run wrote (or the input). */
  read(m: Module, bytes: Uint8Array): void {
    if (bytes === this.input) this.readFrom.delete(m);
    else this.readFrom.set(m, bytes);
  }

  /**
   * Output file offset → input file offset for `final`, which is `written`
   * (a binary this run wrote, or the input) with custom sections put back or
   * removed: the code is the same bytes, perhaps at another place.
   */
  mapOf(final: Uint8Array, written: Uint8Array): AddressMap {
    const codeAt = (b: Uint8Array): { payload: number; end: number } | undefined => sectionSpans(b).find((s) => s.id === 10);
    const a = codeAt(final);
    const b = codeAt(written);
    if (!a || !b) return new AddressMap([]);
    if (written === this.input) return new AddressMap([{ out: a.payload, src: b.payload, len: b.end - b.payload }]);
    const map = this.maps.get(written);
    if (!map) throw new Error("code origins: no recorded origins for the result");
    return map.shifted(a.payload - b.payload);
  }
}
