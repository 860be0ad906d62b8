// Applies chosen candidates: one new function per candidate, and each
// occurrence replaced by its call site (local.get per parameter local, call,
// local.set or drop per result local).

import { idOf } from "../../binary/opcodes/index.js";
import { BodyBuilder, originOf, type Body } from "../../ir/body.js";
import { ensureFuncType } from "../../ir/func-types.js";
import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import type { Func, Module } from "../../ir/module.js";
import { newOrigin, type ExtractedCall } from "../merge-map.js";
import { NORMAL, RET, TRAP, type Candidate } from "./candidates.js";
import type { Corpus } from "./corpus.js";
import type { Chosen } from "./select.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const DROP = idOf("drop");
const CALL = idOf("call");
const RETURN_CALL = idOf("return_call");
const RETURN = idOf("return");
const UNREACHABLE = idOf("unreachable");
const END = idOf("end");

function copyInstr(out: BodyBuilder, body: Body, i: number): void {
  out.begin(body.ops[i]!, originOf(body, i));
  for (let p = body.immStart[i]!; p < body.immStart[i + 1]!; p++) out.word(body.imm[p]!);
}

/** The new function's body, built from the first kept occurrence. */
function calleeBody(corpus: Corpus, c: Candidate, k: number): Body {
  const p = c.occs[k]!;
  const info = corpus.infos[corpus.funcAt[p]!]!;
  const body = info.body;
  const i0 = p - info.start;
  const canonOf = new Map<number, number>();
  for (let ci = 0; ci < c.nc; ci++) canonOf.set(c.xs[k * c.nc + ci]!, ci);
  const b = new BodyBuilder(c.len + c.stackParams + c.resultLocals.length + 2, body.offsets !== null);
  // glue maps to the code it stands for: parameters to the first instruction, results and end to the last
  const first = originOf(body, i0);
  const last = originOf(body, i0 + c.len - 1);
  for (let s = 0; s < c.stackParams; s++) {
    b.begin(LOCAL_GET, first);
    b.word(s);
  }
  let n = c.len;
  if (c.stripReturn) n--;
  for (let t = 0; t < n; t++) {
    const i = i0 + t;
    const op = body.ops[i]!;
    const lw = LOCAL_WORDS[op];
    b.begin(op, originOf(body, i));
    const s = body.immStart[i]!;
    for (let q = s; q < body.immStart[i + 1]!; q++) {
      const w = body.imm[q]!;
      b.word(lw && lw.includes(q - s) ? c.newIndex[canonOf.get(w)!]! : w);
    }
  }
  if (c.kind === NORMAL) {
    for (const ci of c.resultLocals) {
      b.begin(LOCAL_GET, last);
      b.word(c.newIndex[ci]!);
    }
  }
  b.begin(END, last);
  return b.finish();
}

/** The call replacing occurrence k; `origin`: the file offset of the code it replaces (the glue maps there). */
function emitSite(out: BodyBuilder, c: Candidate, k: number, callee: number, tailCalls: boolean, origin: number): void {
  const xs = c.xs.subarray(k * c.nc, (k + 1) * c.nc);
  for (const ci of c.paramLocals) {
    out.begin(LOCAL_GET, origin);
    out.word(xs[ci]!);
  }
  out.begin(c.kind === RET && tailCalls ? RETURN_CALL : CALL, origin);
  out.word(callee);
  const nr = c.resultLocals.length;
  for (let r = nr - 1; r >= 0; r--) {
    if (c.live[k * nr + r]) {
      out.begin(LOCAL_SET, origin);
      out.word(xs[c.resultLocals[r]!]!);
    } else out.begin(DROP, origin);
  }
  if (c.kind === RET && !tailCalls) out.begin(RETURN, origin);
  if (c.kind === TRAP) out.begin(UNREACHABLE, origin);
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
    const typeIndex = ensureFuncType(m, c.params, c.results);
    const f: Func = {
      typeIndex,
      locals: c.locals.map((l) => ({ ...l })),
      localCount: c.locals.reduce((s, l) => s + l.count, 0),
      raw: null,
      rawOffset: 0,
      codeOffset: 0,
      body: calleeBody(corpus, c, ch.keep[0]!),
      dirty: true,
      origin: opts.trial ? -1 : newOrigin(m),
    };
    const index = nImp + m.functions.length;
    m.functions.push(f);
    callee[ci] = index;
    if (!opts.trial && m.names) {
      m.names.functions.set(index, `outlined$${opts.firstName + ci}`);
      m.names.dirty = true;
    }
  });
  let count = 0;
  for (const [fi, list] of sites) {
    const info = corpus.infos[fi]!;
    const body = info.body;
    list.sort((a, b) => a[0] - b[0]);
    const out = new BodyBuilder(body.count, body.offsets !== null);
    let i = 0;
    for (const [p, ci, k] of list) {
      const at = p - info.start;
      for (; i < at; i++) copyInstr(out, body, i);
      const c = chosen[ci]!.c;
      emitSite(out, c, k, callee[ci]!, opts.tailCalls, originOf(body, at));
      opts.calls?.push({ host: nImp + info.index, callee: callee[ci]!, tail: c.kind === RET && opts.tailCalls });
      i = at + c.len;
      count++;
    }
    for (; i < body.count; i++) copyInstr(out, body, i);
    const f = info.func;
    const nb = out.finish();
    if (opts.trial) m.functions[info.index] = { ...f, body: nb, dirty: true };
    else {
      f.body = nb;
      f.dirty = true;
    }
  }
  return count;
}
