// The two arms of an `if … else … end` cut into pieces for fusion. An arm
// is a run of arm-level nodes (an instruction, or a whole nested construct
// from its opener to its end); a piece is a shortest run of nodes that takes
// nothing from the nodes before it: it consumes only values it makes, and
// what it leaves on the stack are the arm's results. Inside a piece, when
// every node but the last of each tree pushes one value, the nodes form
// expression trees in postfix; alignment matches those trees node by node.
// Typing (producers of operands, pushed types) comes from the one typer.

import { OPS, Eff, idOf } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";
import type { ControlTree } from "../../analysis/control-tree.js";
import { producerOf, popCount, type BodyTyping } from "../../analysis/body-typing.js";
import { OP_EFFECTS } from "../../analysis/effects.js";

const IF = idOf("if");
/** Ops whose label arithmetic this pass does not handle (legacy and new exception handling). */
const REFUSED = new Set(["try", "try_table", "delegate", "rethrow", "catch", "catch_all"].map(idOf));

export interface Node {
  /** Instructions [from, to) of the body: one instruction, or a nested construct with its end. */
  from: number;
  to: number;
  /** Per operand (deepest first): the node in this arm that produced it. */
  kids: number[];
  /** Types pushed (a construct's results). */
  pushes: number[];
  /** Control never falls through it (br, return, unreachable …). */
  unconditional: boolean;
}

export interface Piece {
  /** Nodes [first, last] of the arm. */
  first: number;
  last: number;
  /** Roots of its trees, in order (nodes whose values are not consumed inside the piece). */
  roots: number[];
  /** The piece is a sequence of postfix expression trees (see the top of this file). */
  trees: boolean;
  /** Types it leaves on the stack (the arm's results), or null if it never falls through. */
  leaves: number[] | null;
}

export interface Arm {
  /** Instructions [from, to): the arm's contents, without if/else/end. */
  from: number;
  to: number;
  nodes: Node[];
  pieces: Piece[];
  /** The arm ends in an unconditional node (SEME arm: it leaves through a branch or return). */
  exits: boolean;
  /** Some branch inside names the if itself. */
  branchesToIf: boolean;
}

/** Why an if cannot be fused at all, or its arms. */
export type ArmsResult = { ok: true; then: Arm; else: Arm } | { ok: false; reason: string };

/** The if constructs of `ct` with an else and two non-empty arms. */
export function ifElseCandidates(ct: ControlTree): number[] {
  const out: number[] = [];
  for (let c = 1; c < ct.count; c++) {
    if (ct.opener[c] !== IF) continue;
    const e = ct.firstArm(c);
    if (e < 0 || e === ct.start[c]! + 1 || ct.end[c] === e + 1) continue;
    out.push(c);
  }
  return out;
}

/** Cuts both arms of if construct `c` into nodes and pieces, or says why not. */
export function armsOf(body: Body, ct: ControlTree, t: BodyTyping, c: number): ArmsResult {
  const s = ct.start[c]!;
  const e = ct.firstArm(c);
  const end = ct.end[c]!;
  if (t.height[s]! < 0) return { ok: false, reason: "unreachable" };
  if (popCount(t, s) !== 1) return { ok: false, reason: "block params" };
  for (let i = s + 1; i < end; i++) if (REFUSED.has(body.ops[i]!)) return { ok: false, reason: "exception handling" };
  const a = armOf(body, ct, t, c, s + 1, e);
  if (!a) return { ok: false, reason: "dead code in an arm" };
  const b = armOf(body, ct, t, c, e + 1, end);
  if (!b) return { ok: false, reason: "dead code in an arm" };
  return { ok: true, then: a, else: b };
}

export function armOf(body: Body, ct: ControlTree, t: BodyTyping, c: number, from: number, to: number): Arm | null {
  const nodes: Node[] = [];
  /** Instruction whose pushes are a node's values (a construct's end) → node index. */
  const nodeAt = new Map<number, number>();
  let branchesToIf = false;
  for (let i = from; i < to; ) {
    const op = body.ops[i]!;
    const k = ct.constructOf[i]!;
    const opens = ct.start[k] === i;
    const last = opens ? ct.end[k]! : i;
    if (nodes.length > 0 && nodes[nodes.length - 1]!.unconditional) return null;
    const kids: number[] = [];
    for (let q = 0; q < popCount(t, i); q++) {
      const p = producerOf(t, i, q);
      const n = nodeAt.get(p);
      if (n === undefined) return null; // an operand from outside the arm (block params) or none (dead code)
      kids.push(n);
    }
    const pushes: number[] = [];
    for (let w = t.pushStart[last]!; w < t.pushStart[last + 1]!; w++) pushes.push(t.pushType[w]!);
    nodeAt.set(last, nodes.length);
    nodes.push({ from: i, to: last + 1, kids, pushes, unconditional: !opens && (OP_EFFECTS[op]! & Eff.UNCONDITIONAL) !== 0 });
    for (let j = i; j <= last; j++) if (!branchesToIf && ct.targets(j).includes(c)) branchesToIf = true;
    i = last + 1;
  }
  return { from, to, nodes, pieces: piecesOf(nodes), exits: nodes.length > 0 && nodes[nodes.length - 1]!.unconditional, branchesToIf };
}

/** Pieces: cut before node j when no value made before j is consumed at or after j. */
function piecesOf(nodes: Node[]): Piece[] {
  const n = nodes.length;
  const consumer = new Int32Array(n).fill(-1);
  const uses = new Int32Array(n);
  for (let j = 0; j < n; j++) for (const k of nodes[j]!.kids) {
    consumer[k] = Math.max(consumer[k]!, j);
    uses[k]!++;
  }
  const out: Piece[] = [];
  let first = 0;
  let reach = -1;
  for (let j = 0; j < n; j++) {
    reach = Math.max(reach, consumer[j]!);
    if (reach > j) continue;
    out.push(pieceOf(nodes, first, j, consumer, uses));
    first = j + 1;
  }
  return out;
}

function pieceOf(nodes: Node[], first: number, last: number, consumer: Int32Array, uses: Int32Array): Piece {
  const roots: number[] = [];
  let trees = true;
  const leaves: number[] = [];
  for (let j = first; j <= last; j++) {
    const nd = nodes[j]!;
    // values not consumed stay below later ones: the bottom pushes.length - uses of them
    const kept = nd.pushes.length - uses[j]!;
    if (kept > 0) leaves.push(...nd.pushes.slice(0, kept));
    if (consumer[j]! < 0) roots.push(j);
    else if (nd.pushes.length !== 1 || uses[j] !== 1) trees = false;
  }
  // with single-value inner nodes, each root's tree must fill the range since the previous root
  if (trees) {
    const size = new Int32Array(last - first + 1);
    let prev = first - 1;
    for (let j = first; j <= last; j++) {
      let s = 1;
      for (const k of nodes[j]!.kids) s += size[k - first]!;
      size[j - first] = s;
      if (consumer[j]! < 0) {
        if (j - s !== prev) trees = false;
        prev = j;
      }
    }
  }
  return { first, last, roots, trees, leaves: nodes[last]!.unconditional ? null : leaves };
}

/** Name of the op at instruction i (for notes and tests). */
export function opName(body: Body, i: number): string {
  return OPS[body.ops[i]!]!.name;
}
