// The hinted lookup against the plain binary search, on sorted arrays with
// repeated keys, for every x around the keys and hints anywhere (before,
// at, after the answer, and out of range).

import { test } from "node:test";
import assert from "node:assert/strict";
import { lastAtOrBefore, lastAtOrBeforeFrom } from "../src/last-at-or-before.js";
import { rng } from "./random-body.js";

test("lastAtOrBeforeFrom finds what lastAtOrBefore finds, whatever the hint", () => {
  const r = rng(7);
  for (let round = 0; round < 200; round++) {
    const n = Math.floor(r() * 12);
    const keys: number[] = [];
    let v = Math.floor(r() * 5);
    for (let k = 0; k < n; k++) {
      keys.push(v);
      if (r() < 0.7) v += 1 + Math.floor(r() * 3);
    }
    const typed = Float64Array.from(keys);
    for (let x = -1; x <= v + 2; x++) {
      const want = lastAtOrBefore(keys, (k) => k, x);
      for (let hint = -2; hint <= n + 1; hint++) assert.equal(lastAtOrBeforeFrom(typed, x, hint), want, `keys ${keys} x ${x} hint ${hint}`);
    }
  }
});
