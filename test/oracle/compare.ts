// Exact comparison of two outputs, reporting the first place they differ.

import type { Output } from "./workload.js";

function show(v: Output | undefined, max = 120): string {
  const s = v === undefined ? "(missing)" : JSON.stringify(v);
  return s.length <= max ? s : s.slice(0, max) + "…";
}

function showStringAt(s: string, at: number): string {
  const from = Math.max(0, at - 30);
  const piece = s.slice(from, at + 50);
  return `${from > 0 ? "…" : ""}${JSON.stringify(piece)}${at + 50 < s.length ? "…" : ""}`;
}

/**
 * The first place where two outputs differ, as `path: a vs b`, or null when
 * they are identical. Paths look like `$.queries[3][0].values[2][1]`.
 */
export function firstDifference(a: Output | undefined, b: Output | undefined, path = "$"): string | null {
  if (a === b) return null;
  const ta = a === null ? "null" : Array.isArray(a) ? "array" : typeof a;
  const tb = b === null ? "null" : Array.isArray(b) ? "array" : typeof b;
  if (ta !== tb || a === undefined || b === undefined || a === null || b === null) {
    return `${path}: ${show(a)} vs ${show(b)}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    if (a.length !== b.length) return `${path}: length ${a.length} vs ${b.length}`;
    return null;
  }
  if (typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...Object.keys(a)];
    for (const k of Object.keys(b)) if (!(k in a)) keys.push(k);
    for (const k of keys) {
      const p = /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
      if (!(k in a)) return `${p}: (missing) vs ${show(b[k])}`;
      if (!(k in b)) return `${p}: ${show(a[k])} vs (missing)`;
      const d = firstDifference(a[k], b[k], p);
      if (d) return d;
    }
    return null;
  }
  if (typeof a === "string" && typeof b === "string") {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    if (a.length <= 120 && b.length <= 120) return `${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
    return `${path} (at character ${i}): ${showStringAt(a, i)} vs ${showStringAt(b, i)}`;
  }
  return `${path}: ${show(a)} vs ${show(b)}`;
}
