// The table slots fuse-branches calls differing callees through: the slots
// of table 0 that hold a function for good, and the slots it may append for
// callees that have none. Appending is allowed only where no one can see the
// table grow or change its new slots: merge-functions' conditions (no
// imported table, no instruction that writes, sizes or grows a table, a plain
// funcref table 0 or none at all), and beyond them the table is not
// exported, and every active segment on it has a constant offset and fits in
// its initial size (so the segments set the same slots, and an instantiation
// that failed on a segment out of bounds still fails). A new slot goes at the
// end of table 0 (made if the module has none) in one MVP element segment,
// as merge-functions adds its own: no feature the input lacks, no second
// table. What the slots cost is counted in exact bytes of the table and
// element sections.

import { idOf } from "../../binary/opcodes/index.js";
import { sectionSize } from "../../binary/writer.js";
import type { Module } from "../../ir/module.js";
import { FUNC_WORDS } from "../../ir/imm-layout.js";
import { appendSlots, findCalleeTable } from "../merge-functions.js";

const I32_CONST = idOf("i32.const"), REF_FUNC = idOf("ref.func");
const TABLE_SECTION = 4, ELEMENT_SECTION = 9;

/** Table 0's slots as fuse-branches may use them. */
export interface SlotTable {
  /** function index -> a slot that holds it for good (the lowest), slots added included */
  slots: Map<number, number>;
  /** New slots may be appended. */
  canAppend: boolean;
  /** Slots appended so far: function index -> slot, in slot order. */
  added: Map<number, number>;
  /** The next slot to append. */
  next: number;
}

/** Table 0's stable slots and whether slots may be appended, or null where neither applies. */
export function slotTable(m: Module): SlotTable | null {
  const t = findCalleeTable(m);
  if (!t) return null;
  if (m.tables.length === 0) return { slots: new Map(), canAppend: true, added: new Map(), next: 0 };
  if (m.exports.some((e) => e.kind === "table" && e.index === 0)) return null;
  const min = Number(m.tables[0]!.type.limits.min);
  // slots as the active segments leave them, in order: a later segment wins
  const slotFunc = new Map<number, number | null>();
  let fits = true;
  for (const e of m.elements) {
    if (e.mode.kind !== "active" || e.mode.table !== 0) continue;
    const off = e.mode.offset.body;
    // a segment whose offset is not a constant may set any slot
    if (off.count !== 2 || off.ops[0] !== I32_CONST) return null;
    const base = off.imm[off.immStart[0]!]! >>> 0;
    const n = e.items.kind === "funcs" ? e.items.funcs.length : e.items.exprs.length;
    if (base + n > min) fits = false;
    for (let k = 0; k < n; k++) slotFunc.set(base + k, e.items.kind === "funcs" ? e.items.funcs[k]! : refFuncOf(e.items.exprs[k]!.body));
  }
  const slots = new Map<number, number>();
  for (const [slot, f] of [...slotFunc].sort((a, b) => a[0] - b[0])) if (f !== null && !slots.has(f)) slots.set(f, slot);
  return { slots, canAppend: fits, added: new Map(), next: min };
}

/** The function an element expression names (`ref.func f`), or null (a null reference, a global). */
function refFuncOf(body: Module["globals"][number]["init"]["body"]): number | null {
  return body.count === 2 && body.ops[0] === REF_FUNC ? body.imm[body.immStart[0]! + FUNC_WORDS[REF_FUNC]![0]!]! : null;
}

/** Bytes of the table and element sections with the slots added so far and `extra` functions appended after them. */
export function slotSectionBytes(m: Module, t: SlotTable, extra: readonly number[]): number {
  const added = new Map(t.added);
  extra.forEach((f, k) => added.set(f, t.next + k));
  if (added.size === 0) return sectionSize(m, TABLE_SECTION) + sectionSize(m, ELEMENT_SECTION);
  const c: Module = { ...m, elements: m.elements.slice(), tables: m.tables.map((x) => ({ ...x, type: { ...x.type, limits: { ...x.type.limits } } })) };
  appendSlots(c, { index: 0, existing: new Map(), added, nextSlot: t.next + extra.length });
  return sectionSize(c, TABLE_SECTION) + sectionSize(c, ELEMENT_SECTION);
}

/** Reserves slots for `fs` at the end (after those added so far). */
export function reserveSlots(t: SlotTable, fs: readonly number[]): void {
  for (const f of fs) {
    t.added.set(f, t.next);
    t.slots.set(f, t.next++);
  }
}

/** Appends the slots reserved to the module (a trial copy or the real one): one element segment at the end of table 0. */
export function writeSlots(m: Module, t: SlotTable, upTo = t.next): void {
  const added = new Map([...t.added].filter(([, s]) => s < upTo));
  if (added.size > 0) appendSlots(m, { index: 0, existing: new Map(), added, nextSlot: upTo });
}
