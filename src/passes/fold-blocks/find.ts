// Finds groups of identical regions across all functions and chooses which
// to fold: exact byte balance per group, greedy by benefit, and a region
// inside (or around) one already folded is no longer available.

import { rangeSize } from "../../analysis/sizes.js";
import { bodyOf } from "../../binary/reader.js";
import { callSiteBytes } from "../../extract/call-site.js";
import { nameEntryBytes, SignaturePlan } from "../../extract/new-function.js";
import type { Body } from "../../ir/body.js";
import type { Func, Module } from "../../ir/module.js";
import type { ValType } from "../../ir/types.js";
import type { HotCode } from "../pass.js";
import type { Fold } from "./apply.js";
import { RegionBuckets } from "./buckets.js";
import { canonical, prefixHashes, rangeHash, WordBuffer, type Canonical } from "./canon.js";
import { callSiteOf, foldedBody, newBodyBytes, shapeOf, type FoldOptions, type FuncInfo, type Group, type Shape, type Site } from "./plan.js";
import { findRegions, type Region } from "./regions.js";

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
  const body = bodyOf(m, f);
  const c = m.types[f.typeIndex]!.composite;
  if (c.kind !== "func") return null;
  const localTypes: ValType[] = [...c.params];
  for (const g of f.locals) for (let k = 0; k < g.count; k++) localTypes.push(g.type);
  return { pos, func: f, body, localTypes, reads: null, results: c.results };
}

/**
 * Encoded bytes of a site's region, measured once: a region lives as long as
 * its function's body is unchanged (RegionCache), across rounds.
 */
export function regionBytes(s: Site): number {
  const r = s.region;
  if (r.bytes < 0) r.bytes = rangeSize(s.info.body, r.start, r.end);
  return r.bytes;
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
  // a region object lives as long as its function's body is unchanged
  private readonly canon = new WeakMap<Region, Canonical>();
  private readonly scratch = new WordBuffer();

  /** The canonical form of region `r` of `info` (see canon.ts), computed once. */
  canonicalOf(info: FuncInfo, r: Region): Canonical {
    let c = this.canon.get(r);
    if (!c) this.canon.set(r, (c = canonical(info.body, info.localTypes, r, this.scratch)));
    return c;
  }

  of(m: Module, pos: number, o: FindOptions): FuncRegions {
    const f = m.functions[pos]!;
    const old = this.byFunc.get(f);
    if (old && old.body === f.body && old.typeIndex === f.typeIndex && old.locals === f.locals) return old;
    const info = funcInfo(m, pos);
    let regions: Region[] = [];
    let hashes: Int32Array | null = null;
    if (info) {
      const { func } = info;
      const hot = o.hot && o.hot.isHotFunction(func) ? o.hot : null;
      regions = findRegions(info.body, MIN_INSTRUCTIONS, hot ? (i) => hot.isHotInstruction(func, i) : null);
      if (regions.length > 0) hashes = prefixHashes(info.body, info.localTypes);
    }
    const e: FuncRegions = { body: f.body, typeIndex: f.typeIndex, locals: f.locals, info, regions, hashes };
    this.byFunc.set(f, e);
    return e;
  }
}

/** All groups of at least two identical regions. */
export function findGroups(m: Module, o: FindOptions, progress: (f: number) => void, cache = new RegionCache()): Group[] {
  const n = m.functions.length;
  const found: FuncRegions[] = [];
  let total = 0;
  for (let pos = 0; pos < n; pos++) {
    if ((pos & 1023) === 0) progress((pos / n) * 0.5);
    const e = cache.of(m, pos, o);
    if (!e.info || e.regions.length === 0) continue;
    found.push(e);
    total += e.regions.length;
  }
  const buckets = new RegionBuckets(total);
  // the caller's results matter only to regions that return
  const resultIds = new Map<string, number>([["", 0]]);
  for (const { info, regions, hashes } of found) {
    let results = -1;
    for (const r of regions) {
      if (r.returns && results < 0) {
        const key = info!.results.join(",");
        results = resultIds.get(key) ?? resultIds.size;
        resultIds.set(key, results);
      }
      buckets.add(info!, r, r.returns ? results : 0, rangeHash(hashes!, r.start, r.end));
    }
  }
  const groups: Group[] = [];
  const exact: { g: Group; c: Canonical }[] = [];
  for (let b = 0; b < buckets.count; b++) {
    if (buckets.size[b]! < 2) continue;
    exact.length = 0;
    for (let item = buckets.first[b]!; item >= 0; item = buckets.next[item]!) {
      const info = buckets.infos[item]!;
      const region = buckets.regions[item]!;
      const c = cache.canonicalOf(info, region);
      const s: Site = { info, region, locals: c.locals };
      const e = exact.find((e) => e.c.hash === c.hash && sameWords(e.c.words, c.words));
      if (e) e.g.sites.push(s);
      else exact.push({ g: { sites: [s], use: c.use }, c });
    }
    for (const { g } of exact) if (g.sites.length > 1) groups.push(g);
  }
  return groups;
}

function sameWords(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** What folding some sites of a group takes, apart from where the new function and its type land. */
interface Plan {
  sites: Site[];
  shape: Shape;
  body: Body;
  /** Bytes of the new function's body entry (locals and instructions). */
  bodyBytes: number;
  /** Bytes of the regions the calls replace. */
  removed: number;
}

function planOf(m: Module, g: Group, sites: Site[], o: FindOptions): Plan | null {
  const shape = shapeOf(m, g, sites, o);
  if (!shape) return null;
  const body = foldedBody(m, sites[0]!, shape);
  let removed = 0;
  for (const s of sites) removed += regionBytes(s);
  return { sites, shape, body, bodyBytes: newBodyBytes(body, shape), removed };
}

/** Exact raw balance of a plan with the new function at index `callee`. */
function evaluate(m: Module, p: Plan, o: FindOptions, callee: number, sigs: SignaturePlan): Fold | null {
  const { sites, shape } = p;
  // names are folded_block$N; two digits assumed
  let cost = sigs.functionBytes(shape.params, shape.results, p.bodyBytes, m.names ? nameEntryBytes(callee, "folded_block$".length + 2) : 0);
  for (const s of sites) cost += callSiteBytes(callSiteOf(s, shape, callee), o.tailCall);
  if (p.removed / sites.length < o.minRegionBytes) return null;
  const benefit = p.removed - cost;
  return benefit >= o.minBenefit ? { sites, shape, body: p.body, benefit } : null;
}

/** Chooses foldings greedily by benefit; each region is folded at most once. */
export function chooseFolds(m: Module, groups: Group[], o: FindOptions): Fold[] {
  const base = m.numImportedFuncs + m.functions.length;
  // an upper bound on the new functions' indices makes every estimate safe
  const lastIndex = base + groups.length;
  const sigs = new SignaturePlan(m);
  const first: { g: Group; plan: Plan; benefit: number }[] = [];
  for (const g of groups) {
    const plan = planOf(m, g, g.sites, o);
    const f = plan && evaluate(m, plan, o, lastIndex, sigs);
    if (f) first.push({ g, plan: plan!, benefit: f.benefit });
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
  for (const { g, plan } of first) {
    const sites = g.sites.filter(free);
    if (sites.length < 2) continue;
    // with every site still free the plan stands; only the indices moved
    const p = sites.length === g.sites.length ? plan : planOf(m, g, sites, o);
    const f = p && evaluate(m, p, o, base + chosen.length, sigs);
    if (!f) continue;
    chosen.push(f);
    sigs.plan(f.shape.params, f.shape.results);
    for (const s of sites) {
      let marks = claimed.get(s.info.pos);
      if (!marks) claimed.set(s.info.pos, (marks = new Uint8Array(s.info.body.count)));
      marks.fill(1, s.region.start, s.region.end);
    }
  }
  return chosen;
}
