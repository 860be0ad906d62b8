// Finds groups of identical regions across all functions and chooses which
// to fold: exact byte balance per group, greedy by benefit, and a region
// inside (or around) one already folded is no longer available.

import { u32Size, ByteWriter } from "../../binary/bytes.js";
import { encodeInstructions } from "../../binary/code-writer.js";
import { decodeFunctionBody } from "../../binary/reader.js";
import { findFuncType, funcTypeCost } from "../../ir/func-types.js";
import type { Func, Module } from "../../ir/module.js";
import type { ValType } from "../../ir/types.js";
import type { HotCode } from "../pass.js";
import { sigKey, type Fold } from "./apply.js";
import { canonical, prefixHashes, rangeHash } from "./canon.js";
import { callBytes, foldedBody, newFuncBytes, shapeOf, type FoldOptions, type FuncInfo, type Group, type Site } from "./plan.js";
import { findRegions, hasHandlers, type Region } from "./regions.js";
import { idOf } from "../../binary/opcodes/index.js";

const LOCAL_GET = idOf("local.get");
/** Regions shorter than this many instructions never pay for a call. */
const MIN_INSTRUCTIONS = 2;

export interface FindOptions extends FoldOptions {
  hot?: HotCode;
  /** Smallest benefit (bytes) a fold must have to be chosen. */
  minBenefit: number;
  /** Smallest average region size (bytes) per site. */
  minRegionBytes: number;
}

function funcInfo(m: Module, pos: number): FuncInfo | null {
  const f = m.functions[pos]!;
  const body = f.body ?? decodeFunctionBody(m, f);
  const c = m.types[f.typeIndex]!.composite;
  if (c.kind !== "func" || hasHandlers(body)) return null;
  const localTypes: ValType[] = [...c.params];
  for (const g of f.locals) for (let k = 0; k < g.count; k++) localTypes.push(g.type);
  const reads = new Int32Array(localTypes.length);
  for (let i = 0; i < body.count; i++) {
    if (body.ops[i] === LOCAL_GET) reads[body.imm[body.immStart[i]!]!]!++;
  }
  return { pos, func: f, body, localTypes, reads, results: c.results, offsets: null };
}

/** Byte offset of every instruction (computed once per function, only for functions with candidates). */
function offsetsOf(info: FuncInfo, w: ByteWriter): Uint32Array {
  if (info.offsets) return info.offsets;
  const body = info.body;
  const off = new Uint32Array(body.count + 1);
  w.len = 0;
  for (let i = 0; i < body.count; i++) {
    encodeInstructions(w, body, i, i + 1);
    off[i + 1] = w.len;
  }
  return (info.offsets = off);
}

/** What findGroups learns about one function: its info, regions and prefix hashes (null info: left alone). */
interface FuncRegions {
  /** The function's body, type and locals these were computed from. */
  body: Func["body"];
  typeIndex: number;
  locals: Func["locals"];
  info: FuncInfo | null;
  regions: Region[];
  hashes: Int32Array | null;
}

/**
 * Per-function results kept across the rounds of one fold-blocks run. A
 * round only appends functions and replaces the bodies of those it folds
 * from, so a function whose body, type and locals are unchanged has the
 * same regions and hashes (the next round mostly looks at the same code).
 */
export class RegionCache {
  private readonly byFunc = new Map<Func, FuncRegions>();

  of(m: Module, pos: number, o: FindOptions): FuncRegions {
    const f = m.functions[pos]!;
    const old = this.byFunc.get(f);
    if (old && old.body === f.body && old.typeIndex === f.typeIndex && old.locals === f.locals) return old;
    const info = funcInfo(m, pos);
    let regions: Region[] = [];
    let hashes: Int32Array | null = null;
    if (info) {
      const hot = o.hot && o.hot.isHotFunction(info.func) ? o.hot : null;
      regions = findRegions(info.body, MIN_INSTRUCTIONS, hot ? (i) => hot.isHotInstruction(info.func, i) : null);
      if (regions.length > 0) hashes = prefixHashes(info.body, info.localTypes);
    }
    const e: FuncRegions = { body: f.body, typeIndex: f.typeIndex, locals: f.locals, info, regions, hashes };
    this.byFunc.set(f, e);
    return e;
  }
}

/** All groups of at least two identical regions. */
export function findGroups(m: Module, o: FindOptions, progress: (f: number) => void, cache = new RegionCache()): Group[] {
  const buckets = new Map<string, Site[]>();
  const n = m.functions.length;
  for (let pos = 0; pos < n; pos++) {
    if ((pos & 1023) === 0) progress((pos / n) * 0.5);
    const { info, regions, hashes: h } = cache.of(m, pos, o);
    if (!info || regions.length === 0) continue;
    const resultsKey = info.results.join(",");
    for (const r of regions) {
      const key = `${r.kind}|${r.blockType}|${r.returns ? resultsKey : ""}|${r.end - r.start}|${rangeHash(h!, r.start, r.end)}`;
      let list = buckets.get(key);
      if (!list) buckets.set(key, (list = []));
      list.push({ info, region: r, locals: [] });
    }
  }
  const groups: Group[] = [];
  for (const [key, list] of buckets) {
    if (list.length < 2) continue;
    const exact = new Map<string, Group>();
    for (const s of list) {
      const c = canonical(s.info.body, s.info.localTypes, s.region, key);
      s.locals = c.locals;
      const g = exact.get(c.key);
      if (g) g.sites.push(s);
      else exact.set(c.key, { sites: [s], use: c.use });
    }
    for (const g of exact.values()) if (g.sites.length > 1) groups.push(g);
  }
  return groups;
}

/** Exact raw balance of folding `sites` as one new function at index `callee`. */
function evaluate(m: Module, g: Group, sites: Site[], o: FindOptions, callee: number, newTypes: Set<string>, w: ByteWriter): Fold | null {
  const shape = shapeOf(m, g, sites, o);
  if (!shape) return null;
  const body = foldedBody(m, sites[0]!, shape);
  const existing = findFuncType(m, shape.params, shape.results);
  const key = sigKey(shape.params, shape.results);
  const typeIndex = existing >= 0 ? existing : m.types.length + newTypes.size;
  let cost = newFuncBytes(typeIndex, body, shape);
  if (existing < 0 && !newTypes.has(key)) cost += funcTypeCost(shape.params, shape.results);
  if (m.names) cost += u32Size(callee) + 1 + "folded_block$".length + 2;
  let removed = 0;
  for (const s of sites) {
    const off = offsetsOf(s.info, w);
    const bytes = off[s.region.end]! - off[s.region.start]!;
    removed += bytes;
    cost += callBytes(s, shape, callee, o);
  }
  if (removed / sites.length < o.minRegionBytes) return null;
  const benefit = removed - cost;
  return benefit >= o.minBenefit ? { sites, shape, body, benefit } : null;
}

/** Chooses foldings greedily by benefit; each region is folded at most once. */
export function chooseFolds(m: Module, groups: Group[], o: FindOptions): Fold[] {
  const w = new ByteWriter(1 << 16);
  const base = m.numImportedFuncs + m.functions.length;
  // an upper bound on the new functions' indices makes every estimate safe
  const lastIndex = base + groups.length;
  const newTypes = new Set<string>();
  const first: { g: Group; benefit: number }[] = [];
  for (const g of groups) {
    const f = evaluate(m, g, g.sites, o, lastIndex, newTypes, w);
    if (f) first.push({ g, benefit: f.benefit });
  }
  first.sort((a, b) => b.benefit - a.benefit);
  const claimed = new Map<number, Uint8Array>();
  const free = (s: Site): boolean => {
    const marks = claimed.get(s.info.pos);
    if (!marks) return true;
    for (let i = s.region.start; i < s.region.end; i++) if (marks[i]) return false;
    return true;
  };
  const chosen: Fold[] = [];
  for (const { g } of first) {
    const sites = g.sites.filter(free);
    if (sites.length < 2) continue;
    const f = evaluate(m, g, sites, o, base + chosen.length, newTypes, w);
    if (!f) continue;
    chosen.push(f);
    newTypes.add(sigKey(f.shape.params, f.shape.results));
    for (const s of sites) {
      let marks = claimed.get(s.info.pos);
      if (!marks) claimed.set(s.info.pos, (marks = new Uint8Array(s.info.body.count)));
      marks.fill(1, s.region.start, s.region.end);
    }
  }
  return chosen;
}
