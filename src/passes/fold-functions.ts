// Identical function folding by partition refinement over the call graph (as
// lld's ICF does): start from classes of functions equal in everything but
// the functions they reference, then split classes until every member's
// references point into the same classes. What is left are functions that
// are identical if their callees are — including mutually recursive clones,
// which a pairwise comparison never proves equal.

import { bodyOf } from "../binary/reader.js";
import { funcRefs, groupBy, shapeEqual, shapeHash, type ShapeMode } from "../analysis/func-shape.js";
import { observableIdentity } from "../analysis/func-identity.js";
import { fillHolesOrder, redirectFunctions } from "../ir/renumber.js";
import type { Module } from "../ir/module.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import { funcOrigin, paramCount, thunkBody } from "../extract/thunk.js";
import { replaceBody } from "../extract/trial.js";
import { functionCost } from "../analysis/sizes.js";
import { mayIntroduce } from "./features.js";
import { funcLabel, type MergeMapEntry } from "./merge-map.js";
import { cleanup } from "./cleanup.js";

const MODE: ShapeMode = { skipFuncs: true, skipConsts: false };

export interface FoldResult {
  folded: number;
  thunks: number;
  classes: number;
  entries: MergeMapEntry[];
}

export function foldFunctions(m: Module, keepExportIdentity: boolean, tail = false): FoldResult {
  const nImp = m.numImportedFuncs;
  const total = nImp + m.functions.length;
  const bodies = m.functions.map((f) => bodyOf(m, f));
  const defined: number[] = [];
  for (let i = nImp; i < total; i++) defined.push(i);
  const fn = (i: number) => m.functions[i - nImp]!;
  const body = (i: number) => bodies[i - nImp]!;

  // 1. classes by shape, ignoring function-index immediates
  const groups = groupBy(
    defined,
    (i) => shapeHash(fn(i), body(i), MODE),
    (a, b) => shapeEqual(fn(a), body(a), fn(b), body(b), MODE),
  );
  const cls = new Int32Array(total);
  for (let i = 0; i < nImp; i++) cls[i] = i;
  let nextClass = nImp;
  let classes: number[][] = [];
  for (const g of groups) {
    const id = nextClass++;
    for (const i of g) cls[i] = id;
    if (g.length > 1) classes.push(g);
  }

  // 2. refine: members stay together only while their references agree
  const refs = new Map<number, number[]>();
  for (const g of classes) for (const i of g) refs.set(i, funcRefs(body(i)));
  for (let changed = true; changed; ) {
    changed = false;
    const next: number[][] = [];
    for (const g of classes) {
      const parts = groupBy(
        g,
        (i) => refs.get(i)!.map((r) => cls[r]).join(","),
        (a, b) => {
          const ra = refs.get(a)!;
          const rb = refs.get(b)!;
          return ra.every((r, k) => cls[r] === cls[rb[k]!]);
        },
      );
      if (parts.length > 1) changed = true;
      for (let k = 0; k < parts.length; k++) {
        const p = parts[k]!;
        if (k > 0) {
          const id = nextClass++;
          for (const i of p) cls[i] = id;
        }
        if (p.length > 1) next.push(p);
      }
    }
    classes = next;
  }

  // 3. fold: one representative per class; the others are redirected, or
  //    become thunks where the host could see their identity
  const observable = observableIdentity(m, keepExportIdentity);
  const target = new Int32Array(total);
  for (let i = 0; i < total; i++) target[i] = i;
  const entries: MergeMapEntry[] = [];
  let folded = 0;
  let thunks = 0;
  for (const g of classes) {
    const rep = g.find((i) => observable[i]) ?? g[0]!;
    for (const i of g) {
      if (i === rep) continue;
      if (!observable[i]) {
        target[i] = rep;
        folded++;
        entries.push({ function: funcLabel(m, i), became: "folded", into: funcLabel(m, rep) });
        continue;
      }
      const f = fn(i);
      const thunk = thunkBody(paramCount(m, f.typeIndex), rep, [], tail, funcOrigin(f));
      if (functionCost({ ...f, body: thunk, locals: [], localCount: 0, raw: null, dirty: true }) >= functionCost(f)) continue;
      replaceBody(m, i - nImp, thunk, false, []);
      thunks++;
      entries.push({ function: funcLabel(m, i), became: "thunk", into: funcLabel(m, rep), args: [] });
    }
  }
  if (folded > 0) redirectFunctions(m, target, fillHolesOrder(nImp, target));
  return { folded, thunks, classes: classes.length, entries };
}

export const foldFunctionsPass: Pass = {
  name: "fold-functions",
  description: "fold identical functions, including mutually recursive clones (partition refinement over the call graph)",
  run(m: Module, ctx: PassContext): PassResult {
    // Fold and clean up to a fixed point: removing dead code can make more
    // functions identical.
    const total = { folded: 0, thunks: 0, classes: 0, rounds: 0, functionsRemoved: 0, instructionsRemoved: 0 };
    const tail = mayIntroduce(m, ctx.options, "tail-call");
    for (;;) {
      const c = cleanup(m);
      total.functionsRemoved += c.functionsRemoved;
      total.instructionsRemoved += c.instructionsRemoved + c.constantsPropagated + c.deadParamsRemoved;
      const r = foldFunctions(m, ctx.options?.keepExportIdentity ?? false, tail);
      for (const e of r.entries) ctx.record?.(e);
      total.rounds++;
      total.folded += r.folded;
      total.thunks += r.thunks;
      total.classes = Math.max(total.classes, r.classes);
      if (r.folded === 0) break;
    }
    const changed = total.folded + total.thunks + total.functionsRemoved + total.instructionsRemoved > 0;
    return {
      changed,
      stats: {
        functionsFolded: total.folded,
        thunks: total.thunks,
        identicalClasses: total.classes,
        rounds: total.rounds,
        deadFunctionsRemoved: total.functionsRemoved,
        deadInstructionsRemoved: total.instructionsRemoved,
      },
    };
  },
};
