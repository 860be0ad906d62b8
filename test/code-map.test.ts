// The DWARF code map's queries against a brute-force reading of the same
// pieces, on random address maps: image() with and without a clip window
// (both of within()'s strategies: one pass over the pieces, and the src
// index), start() and afterCall(). The reference looks at every piece, so
// it also checks that the index path finds every run that reaches into a
// range, however far back it starts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { AddressMap, type AddressEntry } from "../src/binary/address-map.js";
import { CodeMap, type CodeSpan, type Interval, type Piece } from "../src/dwarf/code-map.js";
import { rng } from "./random-body.js";

const OUT_START = 40;
const IN_START = 7;

interface Case {
  map: CodeMap;
  inputSize: number;
}

/**
 * Output functions made of runs (copied input bytes, sometimes a copy of
 * bytes already copied elsewhere), re-encoded instructions and glue; one
 * byte in four of the output code is a call opcode.
 */
function randomCase(seed: number): Case {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const inputSize = 200 + int(400);
  const entries: AddressEntry[] = [];
  const functions: CodeSpan[] = [];
  let pos = 0;
  const nf = 1 + int(6);
  for (let f = 0; f < nf; f++) {
    const start = pos;
    for (let p = 1 + int(30); p > 0; p--) {
      const kind = r();
      if (kind < 0.3) {
        const len = 1 + int(40);
        entries.push({ out: OUT_START + pos, src: IN_START + int(inputSize - len), len });
        pos += len;
      } else if (kind < 0.8) {
        entries.push({ out: OUT_START + pos, src: IN_START + int(inputSize), len: 0 });
        pos += 1 + int(5);
      } else {
        entries.push({ out: OUT_START + pos, src: 0, len: 0 });
        pos += 1 + int(4);
      }
    }
    functions.push({ start, end: pos });
  }
  const code = new Uint8Array(pos);
  for (let k = 0; k < pos; k++) code[k] = r() < 0.25 ? 0x10 : 0x20;
  return { map: new CodeMap(new AddressMap(entries), functions, OUT_START, IN_START, code, [{ start: 0, end: inputSize }]), inputSize };
}

const runLen = (p: Piece): number => p.end - p.out;

/** image() read off every piece in output order. */
function refImage(m: CodeMap, a: number, b: number): Interval[] {
  const found: { k: number; lo: number; hi: number }[] = [];
  m.pieces.forEach((p, k) => {
    if (p.src < 0) return;
    if (p.run ? p.src < b && p.src + runLen(p) > a : p.src >= a && p.src < b) {
      found.push({ k, lo: p.src >= a ? p.out : p.out + (a - p.src), hi: p.run ? Math.min(p.end, p.out + (b - p.src)) : p.end });
    }
  });
  const out: Interval[] = [];
  let last = -1;
  for (const w of found) {
    const prev = out[out.length - 1];
    const onlyGlue = () => m.pieces.slice(last + 1, w.k).every((p) => p.src < 0);
    if (prev && w.lo <= prev.hi) prev.hi = Math.max(prev.hi, w.hi);
    else if (prev && m.pieces[last]!.fn === m.pieces[w.k]!.fn && m.pieces[last]!.end === prev.hi && m.pieces[w.k]!.out === w.lo && onlyGlue()) prev.hi = w.hi;
    else out.push({ lo: w.lo, hi: w.hi });
    last = w.k;
  }
  return out;
}

function clipTo(xs: readonly Interval[], clip: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of xs) {
    for (const c of clip) {
      const lo = Math.max(x.lo, c.lo);
      const hi = Math.min(x.hi, c.hi);
      if (lo < hi) out.push({ lo, hi });
    }
  }
  return out;
}

test("code map: image, start and afterCall agree with a reading of every piece", () => {
  let queries = 0;
  let clipped = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { map, inputSize } = randomCase(seed);
    const r = rng(seed * 7919);
    const outEnd = map.functions[map.functions.length - 1]!.end;
    for (let q = 0; q < 40; q++) {
      const a = Math.floor(r() * inputSize);
      // short ranges take the src index, long ones (up to 2^32, as -Oz's
      // high_pc writes) one pass over the pieces
      const b = r() < 0.15 ? 2 ** 32 : a + 1 + Math.floor(r() * (r() < 0.5 ? 8 : inputSize));
      const want = refImage(map, a, b);
      assert.deepEqual(map.image(a, b), want, `seed ${seed}: image(${a}, ${b})`);
      const lo = Math.floor(r() * outEnd);
      const clip = [{ lo, hi: lo + 1 + Math.floor(r() * 30) }];
      if (r() < 0.5) clip.push({ lo: clip[0]!.hi + 2, hi: clip[0]!.hi + 10 });
      assert.deepEqual(clipTo(map.image(a, b, clip), clip), clipTo(want, clip), `seed ${seed}: image(${a}, ${b}) clipped to ${JSON.stringify(clip)}`);
      assert.deepEqual(map.image(a, b, []), []);
      queries++;
      if (want.length > 0 && clipTo(want, clip).length > 0) clipped++;

      const x = Math.floor(r() * inputSize);
      const at = refImage(map, x, x + 1);
      const hits = map.pieces.map((p, k) => ({ p, k })).filter(({ p }) => p.src >= 0 && (p.run ? p.src <= x && x < p.src + runLen(p) : p.src === x));
      const contiguous = hits.every((h, i) => i === 0 || h.p.out === hits[i - 1]!.p.end);
      assert.equal(map.start(x), hits.length > 0 && contiguous ? at[0]!.lo : null, `seed ${seed}: start(${x})`);

      const y = 1 + Math.floor(r() * inputSize);
      assert.equal(map.afterCall(y), refAfterCall(map, y), `seed ${seed}: afterCall(${y})`);
    }
  }
  assert.ok(clipped > 1000, `clip windows that cut into an answer: ${clipped} of ${queries}`);
});

/** afterCall(): the nearest run that holds or ends at x, else the one re-encoded call that began at the last origin before x. */
function refAfterCall(m: CodeMap, x: number): number | null {
  const order = m.pieces.map((p, k) => ({ p, k })).filter(({ p }) => p.src >= 0).sort((u, v) => u.p.src - v.p.src || u.k - v.k);
  for (let j = order.length - 1; j >= 0; j--) {
    const p = order[j]!.p;
    if (p.run && p.src < x && x <= p.src + runLen(p)) return p.out + (x - p.src);
  }
  const before = order.filter(({ p }) => p.src < x);
  if (before.length === 0) return null;
  const src = before[before.length - 1]!.p.src;
  const same = m.pieces.filter((p) => !p.run && p.src === src);
  if (same.length !== 1) return null;
  const op = (m as unknown as { code: Uint8Array }).code[same[0]!.out];
  return op === 0x10 || op === 0x11 || op === 0x14 ? same[0]!.end : null;
}
