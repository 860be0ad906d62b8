// Proposals wasm-compact does not read yet, recognised by their encodings,
// so that a module using one is refused with a message that names the
// proposal instead of a bare "illegal opcode" (the opcodes as wasm-tools
// and V8 decode them).

/** "<what>: <message>", so that the reader's " at offset …" still follows the message. */
const notYet = (proposal: string, message: string): string => `the ${proposal} proposal, which wasm-compact does not read yet: ${message}`;

interface OpRange {
  prefix: number | null;
  from: number;
  to: number;
  proposal: string;
}

const OP_RANGES: readonly OpRange[] = [
  { prefix: null, from: 0xe0, to: 0xe6, proposal: "stack switching (cont.new, resume, suspend, switch)" },
  { prefix: 0xfb, from: 0x20, to: 0x26, proposal: "custom descriptors (struct.new_desc, ref.get_desc, ref.cast_desc, br_on_cast_desc)" },
  { prefix: 0xfb, from: 0x80, to: 0xbf, proposal: "strings (stringref: string.new_*, string.const, stringview_*)" },
  { prefix: 0xfc, from: 0x30, to: 0x31, proposal: "fp16 (f32.load_f16, f32.store_f16)" },
  { prefix: 0xfd, from: 0x120, to: 0x14f, proposal: "fp16 (f16x8 instructions)" },
  { prefix: 0xfe, from: 0x4f, to: 0x7f, proposal: "shared-everything threads (global, table, struct and array atomics)" },
];

/** The message for an opcode this reader does not know: names the proposal when it is one it recognises. */
export function unknownOpcodeMessage(prefix: number | null, code: number): string {
  const hex = prefix === null ? `0x${code.toString(16)}` : `0x${prefix.toString(16)} ${code}`;
  const r = OP_RANGES.find((o) => o.prefix === prefix && code >= o.from && code <= o.to);
  return r ? notYet(r.proposal, `illegal opcode ${hex}`) : `illegal opcode ${hex}`;
}

/** Heap type bytes (as the s33 value's low 7 bits) of proposals not read. */
const HEAP_TYPES: ReadonlyMap<number, string> = new Map([
  [0x67, "strings (stringref)"],
  [0x66, "strings (stringview_wtf8)"],
  [0x62, "strings (stringview_wtf16)"],
  [0x61, "strings (stringview_iter)"],
  [0x68, "stack switching (cont)"],
  [0x75, "stack switching (nocont)"],
  [0x65, "shared-everything threads (shared)"],
]);

/** The message for a heap type byte this reader does not know. */
export function unknownHeapTypeMessage(byte: number, what: "heap type" | "value type"): string {
  const p = HEAP_TYPES.get(byte & 0x7f);
  const text = `malformed ${what} 0x${byte.toString(16)}`;
  return p ? notYet(p, text) : text;
}

const TYPE_FORMS: ReadonlyMap<number, string> = new Map([
  [0x5d, "stack switching (a continuation type)"],
  [0x4d, "custom descriptors (a descriptor clause)"],
  [0x4c, "custom descriptors (a describes clause)"],
  [0x65, "shared-everything threads (a shared type)"],
]);

/** `message` about a type form, naming the proposal when it is one recognised. */
export function typeFormMessage(form: number, message: string): string {
  const p = TYPE_FORMS.get(form);
  return p ? notYet(p, message) : message;
}

/** `message` about an import kind byte, naming the proposal when it is one recognised. */
export function importKindMessage(kind: number, message: string): string {
  return kind === 0x7e || kind === 0x7f ? notYet("compact import section", message) : message;
}

/** The message for an atomic access whose memarg asks for a memory ordering (bit 5). */
export const ORDERING_MESSAGE = notYet("acquire-release atomics", "memarg flags bit 5 (a memory-ordering immediate) on an atomic access");
