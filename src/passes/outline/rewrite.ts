// Applies chosen candidates: one new function per candidate, and each
// occurrence replaced by its call site (extract/call-site.ts: local.get per
// parameter local, call, local.set or drop per result local).

import { BodyBuilder, originOf, type Body } from "../../ir/body.js";
import type { Module } from "../../ir/module.js";
import { copyRange } from "../../extract/copy.js";
import { movedBody, siteRename } from "../../extract/moved-body.js";
import { emitCallSite, isTailCall, type CallSite } from "../../extract/call-site.js";
import { addFunction } from "../../extract/new-function.js";
import { replaceBody } from "../../extract/trial.js";
import { type ExtractedCall } from "../merge-map.js";
import { EXIT, NORMAL, type Candidate } from "./candidates.js";
import type { Corpus } from "./corpus.js";
import type { Chosen } from "./select.js";

/**
 * The new function's body, built from the first kept occurrence (see
 * extract/moved-body.ts); outline's own part: a final `return` the callee's
 * `end` stands for is not copied, and only a candidate that falls through
 * hands locals back.
 */
function calleeBody(corpus: Corpus, c: Candidate, k: number): Body {
  const p = c.occs[k]!;
  const info = corpus.infos[corpus.funcAt[p]!]!;
  const i0 = corpus.instrAt[p]!;
  return movedBody({
    body: info.body,
    from: i0,
    to: i0 + (c.stripReturn ? c.len - 1 : c.len),
    span: { start: i0, end: i0 + c.len },
    stackParams: c.stackParams,
    rename: siteRename(c.xs.subarray(k * c.nc, (k + 1) * c.nc), c.newIndex),
    outLocals: c.kind === NORMAL ? c.resultLocals.map((ci) => c.newIndex[ci]!) : [],
  });
}

/** The call site that replaces occurrence k of `c`. */
function siteOf(c: Candidate, k: number, callee: number, origin: number): CallSite {
  const xs = c.xs.subarray(k * c.nc, (k + 1) * c.nc);
  const nr = c.resultLocals.length;
  return {
    callee,
    args: c.paramLocals.map((ci) => xs[ci]!),
    stores: c.resultLocals.map((ci, r) => (c.live[k * nr + r] ? xs[ci]! : -1)),
    exit: EXIT[c.kind]!,
    origin,
  };
}

export interface ApplyOptions {
  tailCalls: boolean;
  /** Trial on a copy: replace changed Func objects instead of mutating them, and leave names alone. */
  trial: boolean;
  /** Numbering for names of new functions (outlined$N). */
  firstName: number;
  /** Receives every call site made (for the merge map). */
  calls?: ExtractedCall[];
}

/** Rewrites `m` (whose bodies are the ones `corpus` was built from). Returns the number of call sites. */
export function applyChosen(m: Module, corpus: Corpus, chosen: readonly Chosen[], opts: ApplyOptions): number {
  const nImp = m.numImportedFuncs;
  // sites per function: [position, chosen index, occurrence index]
  const sites = new Map<number, [number, number, number][]>();
  chosen.forEach((ch, ci) => {
    for (const k of ch.keep) {
      const p = ch.c.occs[k]!;
      const fi = corpus.funcAt[p]!;
      let l = sites.get(fi);
      if (!l) sites.set(fi, (l = []));
      l.push([p, ci, k]);
    }
  });
  const callee: number[] = [];
  chosen.forEach((ch, ci) => {
    const c = ch.c;
    const nf = { params: c.params, results: c.results, locals: c.locals, body: calleeBody(corpus, c, ch.keep[0]!) };
    callee[ci] = addFunction(m, nf, { trial: opts.trial, name: `outlined$${opts.firstName + ci}` });
  });
  let count = 0;
  for (const [fi, list] of sites) {
    const info = corpus.infos[fi]!;
    const body = info.body;
    list.sort((a, b) => a[0] - b[0]);
    const out = new BodyBuilder(body.count, body.offsets !== null);
    let i = 0;
    for (const [p, ci, k] of list) {
      const at = corpus.instrAt[p]!;
      copyRange(out, body, i, at);
      const c = chosen[ci]!.c;
      const site = siteOf(c, k, callee[ci]!, originOf(body, at));
      emitCallSite(out, site, opts.tailCalls);
      opts.calls?.push({ host: nImp + info.index, callee: callee[ci]!, tail: isTailCall(site, opts.tailCalls) });
      i = at + c.len;
      count++;
    }
    copyRange(out, body, i, body.count);
    replaceBody(m, info.index, out.finish(), opts.trial);
  }
  return count;
}
