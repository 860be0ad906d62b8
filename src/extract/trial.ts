// Trial copies: a module a call-adding pass may rewrite to measure the
// result (the size judge writes it whole) while the real module stays as it
// is. A copy shares every Func, type and Body with the original; a rewrite on
// it replaces what it changes (replaceBody, addFunction with trial set) and
// never mutates a shared object.

import { estimateViewLeftOut, writeModule } from "../binary/writer.js";
import type { Body } from "../ir/body.js";
import type { Func, Module } from "../ir/module.js";
import { asEstimateView, type SizeJudge } from "../size-target.js";

/**
 * A copy of `m` whose lists a rewrite may change: functions, types and rec
 * groups (new functions and signatures), element segments and tables (new
 * table slots). Trials carry no name section: names are not judged.
 */
export function trialCopy(m: Module): Module {
  return {
    ...m,
    functions: m.functions.slice(),
    types: m.types.slice(),
    recGroups: m.recGroups.slice(),
    elements: m.elements.slice(),
    tables: m.tables.map((t) => ({ ...t, type: { ...t.type, limits: { ...t.type.limits } } })),
    names: null,
  };
}

/**
 * Gives defined function `pos` the body `body` (and the local declarations
 * `locals` when given). On a trial copy the Func is replaced by a new object;
 * on the real module it is updated in place (the writer re-encodes it).
 */
export function replaceBody(m: Module, pos: number, body: Body, trial: boolean, locals?: Func["locals"]): void {
  const f = m.functions[pos]!;
  const decls = locals ?? f.locals;
  const localCount = locals ? locals.reduce((n, g) => n + g.count, 0) : f.localCount;
  if (trial) m.functions[pos] = { ...f, body, locals: decls, localCount, dirty: true };
  else {
    f.body = body;
    f.locals = decls;
    f.localCount = localCount;
    f.dirty = true;
  }
}

/**
 * Writes a module (a trial copy, or the module as it stands) for `judge` to
 * compare: whole, or where the judge sees estimate views only, as that view
 * (no data section, no custom section but "name"), so a trial does not copy
 * a data section of megabytes (tiktoken: 4.9 MB per trial, garbage the
 * collector frees only after about 64 MB). Every module one comparison
 * sees must be written here, with the same judge.
 */
export function writeTrial(m: Module, judge: SizeJudge): Uint8Array {
  if (!judge.judgesViews) return writeModule(m);
  const view = writeModule(m, { estimateView: true });
  return asEstimateView(view, view.length + estimateViewLeftOut(m));
}
