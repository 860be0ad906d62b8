// A reader for the WebAssembly spec test scripts (.wast): an s-expression
// splitter (strings with escapes, `;;` line comments, nested `(; ;)` block
// comments, `$"..."` identifiers) and a classifier that turns each top-level
// form into a command: which kind, which module (text, binary or quoted),
// which line, and which expected message.
//
// The source is handled as bytes: it is decoded as Latin-1 so that string
// offsets are byte offsets and a string literal's characters are its bytes;
// text that goes on to the WebAssembly text parser is re-decoded as UTF-8.

/** A syntax error in the script itself (not in a module under test). */
export class WastSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (line ${line})`);
    this.name = "WastSyntaxError";
  }
}

export interface SAtom {
  t: "atom";
  /** The token as written (Latin-1, one char per byte). */
  v: string;
  start: number;
  end: number;
}
export interface SString {
  t: "string";
  /** The string's bytes with escapes resolved. */
  bytes: Uint8Array;
  start: number;
  end: number;
}
export interface SList {
  t: "list";
  items: SExpr[];
  /** Offset of the opening parenthesis. */
  start: number;
  /** Offset just after the closing parenthesis. */
  end: number;
}
export type SExpr = SAtom | SString | SList;

/** How a module is given in the script. */
export type ModuleForm = "text" | "binary" | "quote";

export interface WastModule {
  form: ModuleForm;
  /** The `$id` after `module`, if any. */
  name?: string;
  /** `(module definition ...)`: a module that is only compiled, not instantiated. */
  definition: boolean;
  /**
   * For "text": the module as WebAssembly text, ready for a text-to-binary
   * encoder (`(module $id fields...)`, the `definition` keyword removed).
   * For "quote": the quoted text, concatenated and decoded as UTF-8.
   */
  text?: string;
  /** For "binary": the concatenated string bytes. */
  bytes?: Uint8Array;
  line: number;
}

export type CommandKind =
  | "module"
  | "module_instance"
  | "register"
  | "invoke"
  | "get"
  | "assert_return"
  | "assert_trap"
  | "assert_exhaustion"
  | "assert_exception"
  | "assert_malformed"
  | "assert_invalid"
  | "assert_unlinkable"
  | "assert_uninstantiable"
  | "assert_malformed_custom"
  | "assert_invalid_custom"
  | "wait"
  | "unknown";

export interface WastCommand {
  kind: CommandKind;
  /** The head keyword as written (differs from kind only for "unknown"). */
  head: string;
  /** 1-based line of the command's opening parenthesis. */
  line: number;
  /** The module a module command defines or an assertion is about. */
  module?: WastModule;
  /** The expected message of an assertion (assert_malformed, assert_invalid, assert_trap ...). */
  expected?: string;
  /** The command's own s-expression (absent for a script that is one inline module); the executor reads actions and values from it. */
  expr?: SList;
}

/** Bytes to a string of one char per byte (true ISO-8859-1, not windows-1252). */
function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
const UTF8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const UTF8_ENC = new TextEncoder();

/** Line numbers for offsets of one source. */
export class Lines {
  private readonly starts: number[] = [0];
  constructor(src: string) {
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  at(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Whether the char at `i` ends an atom: space, a parenthesis, a quote, or a `;;` comment. */
function endsAtom(src: string, i: number): boolean {
  const c = src.charCodeAt(i);
  return isSpace(c) || c === 0x28 /* ( */ || c === 0x29 /* ) */ || c === 0x22 /* " */ || (c === 0x3b /* ; */ && src.charCodeAt(i + 1) === 0x3b);
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Appends the UTF-8 encoding of code point `cp`. */
function pushUtf8(out: number[], cp: number): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}

/**
 * Reads the string literal whose opening quote is at `src[pos]` (Latin-1
 * source). Returns its bytes and the offset after the closing quote.
 * Escapes: \t \n \r \" \' \\ \hh (one byte) and \u{hex} (a code point, as UTF-8).
 */
export function readStringLiteral(src: string, pos: number, lineOf: (offset: number) => number = () => 0): { bytes: Uint8Array; end: number } {
  if (src.charCodeAt(pos) !== 0x22) throw new WastSyntaxError("string expected", lineOf(pos));
  const out: number[] = [];
  let i = pos + 1;
  for (;;) {
    if (i >= src.length) throw new WastSyntaxError("unterminated string", lineOf(pos));
    const c = src.charCodeAt(i);
    if (c === 0x22) return { bytes: Uint8Array.from(out), end: i + 1 };
    if (c === 0x0a) throw new WastSyntaxError("newline in string", lineOf(i));
    if (c !== 0x5c /* \ */) {
      out.push(c);
      i++;
      continue;
    }
    const e = src.charCodeAt(i + 1);
    switch (e) {
      case 0x74: out.push(0x09); i += 2; continue; // \t
      case 0x6e: out.push(0x0a); i += 2; continue; // \n
      case 0x72: out.push(0x0d); i += 2; continue; // \r
      case 0x22: out.push(0x22); i += 2; continue; // \"
      case 0x27: out.push(0x27); i += 2; continue; // \'
      case 0x5c: out.push(0x5c); i += 2; continue; // \\
      case 0x75: { // \u{...}
        if (src.charCodeAt(i + 2) !== 0x7b) throw new WastSyntaxError("malformed \\u escape", lineOf(i));
        let j = i + 3;
        let cp = 0;
        let digits = 0;
        for (;;) {
          const d = src.charCodeAt(j);
          if (d === 0x7d) break;
          if (d === 0x5f && digits > 0) { j++; continue; } // digit separator
          const v = hexVal(d);
          if (v < 0) throw new WastSyntaxError("malformed \\u escape", lineOf(i));
          cp = cp * 16 + v;
          if (cp > 0x10ffff) throw new WastSyntaxError("\\u escape out of range", lineOf(i));
          digits++;
          j++;
        }
        if (digits === 0 || (cp >= 0xd800 && cp < 0xe000)) throw new WastSyntaxError("malformed \\u escape", lineOf(i));
        pushUtf8(out, cp);
        i = j + 1;
        continue;
      }
      default: {
        const hi = hexVal(e);
        const lo = hexVal(src.charCodeAt(i + 2));
        if (hi < 0 || lo < 0) throw new WastSyntaxError(`unknown escape \\${String.fromCharCode(e)}`, lineOf(i));
        out.push(hi * 16 + lo);
        i += 3;
      }
    }
  }
}

/** Skips whitespace and comments from `pos`; returns the next significant offset. */
function skipTrivia(src: string, pos: number, lineOf: (offset: number) => number): number {
  let i = pos;
  for (;;) {
    const c = src.charCodeAt(i);
    if (isSpace(c)) { i++; continue; }
    if (c === 0x3b && src.charCodeAt(i + 1) === 0x3b) { // ;; line comment
      const nl = src.indexOf("\n", i);
      i = nl < 0 ? src.length : nl + 1;
      continue;
    }
    if (c === 0x28 && src.charCodeAt(i + 1) === 0x3b) { // (; block comment ;), nesting
      const open = i;
      let depth = 1;
      i += 2;
      while (depth > 0) {
        if (i >= src.length) throw new WastSyntaxError("unterminated block comment", lineOf(open));
        const d = src.charCodeAt(i);
        if (d === 0x28 && src.charCodeAt(i + 1) === 0x3b) { depth++; i += 2; }
        else if (d === 0x3b && src.charCodeAt(i + 1) === 0x29) { depth--; i += 2; }
        else i++;
      }
      continue;
    }
    return i;
  }
}

/**
 * Splits a source (Latin-1 decoded: one char per byte) into its top-level
 * s-expressions.
 */
export function parseSExprs(src: string, lines: Lines = new Lines(src)): SExpr[] {
  const lineOf = (o: number): number => lines.at(o);
  const top: SExpr[] = [];
  const stack: SList[] = [];
  let i = 0;
  const add = (e: SExpr): void => {
    const parent = stack[stack.length - 1];
    if (parent) parent.items.push(e);
    else top.push(e);
  };
  for (;;) {
    i = skipTrivia(src, i, lineOf);
    if (i >= src.length) break;
    const c = src.charCodeAt(i);
    if (c === 0x28) {
      stack.push({ t: "list", items: [], start: i, end: -1 });
      i++;
    } else if (c === 0x29) {
      const l = stack.pop();
      if (!l) throw new WastSyntaxError("unbalanced ')'", lineOf(i));
      i++;
      l.end = i;
      add(l);
    } else if (c === 0x22) {
      const { bytes, end } = readStringLiteral(src, i, lineOf);
      add({ t: "string", bytes, start: i, end });
      i = end;
    } else {
      // An atom; a lone `;` is a reserved token of its own kind (annotations may hold one).
      const start = i;
      while (i < src.length && !endsAtom(src, i)) i++;
      // `$"..."` is one identifier token.
      if (i - start === 1 && src.charCodeAt(start) === 0x24 && src.charCodeAt(i) === 0x22) {
        i = readStringLiteral(src, i, lineOf).end;
      }
      add({ t: "atom", v: src.slice(start, i), start, end: i });
    }
  }
  if (stack.length > 0) throw new WastSyntaxError("unbalanced '('", lineOf(stack[stack.length - 1]!.start));
  return top;
}

function isAtom(e: SExpr | undefined, v?: string): e is SAtom {
  return e !== undefined && e.t === "atom" && (v === undefined || e.v === v);
}

/** An annotation `(@id ...)`: whitespace to the script (the text parser reads the ones inside modules). */
function isAnnotation(e: SExpr): boolean {
  return e.t === "list" && e.items[0]?.t === "atom" && e.items[0].v.startsWith("@");
}

/** A list's items without its annotations. */
function plain(l: SList): SExpr[] {
  return l.items.some(isAnnotation) ? l.items.filter((x) => !isAnnotation(x)) : l.items;
}

function headOf(e: SExpr | undefined): string | undefined {
  if (e === undefined || e.t !== "list") return undefined;
  const first = plain(e)[0];
  return first?.t === "atom" ? first.v : undefined;
}

function concatStrings(items: SExpr[], from: number, lineOf: (o: number) => number): Uint8Array {
  const parts: Uint8Array[] = [];
  let len = 0;
  for (let k = from; k < items.length; k++) {
    const it = items[k]!;
    if (it.t !== "string") throw new WastSyntaxError("string expected in binary/quote module", lineOf(it.start));
    parts.push(it.bytes);
    len += it.bytes.length;
  }
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Re-decodes a Latin-1 slice of the source as the UTF-8 it really is. */
function utf8Slice(src: string, start: number, end: number): string {
  return Buffer.from(src.slice(start, end), "latin1").toString("utf8");
}

type ModuleOrInstance = { instance: true } | { instance: false; module: WastModule };

function parseModuleForm(src: string, l: SList, lineOf: (o: number) => number): ModuleOrInstance {
  const items = plain(l);
  let k = 1;
  let definition = false;
  if (isAtom(items[k], "instance")) return { instance: true };
  if (isAtom(items[k], "definition")) {
    definition = true;
    k++;
  }
  let name: string | undefined;
  const maybeName = items[k];
  if (isAtom(maybeName) && maybeName.v.startsWith("$")) {
    name = utf8Slice(src, maybeName.start, maybeName.end);
    k++;
  }
  const line = lineOf(l.start);
  if (isAtom(items[k], "binary")) {
    return { instance: false, module: { form: "binary", name, definition, bytes: concatStrings(items, k + 1, lineOf), line } };
  }
  if (isAtom(items[k], "quote")) {
    const text = UTF8.decode(concatStrings(items, k + 1, lineOf));
    return { instance: false, module: { form: "quote", name, definition, text, line } };
  }
  // The fields as written, with any annotations and comments among them.
  const fields = utf8Slice(src, items[k - 1]!.end, l.end - 1);
  const text = `(module${name !== undefined ? ` ${name}` : ""}${fields})`;
  return { instance: false, module: { form: "text", name, definition, text, line } };
}

const PLAIN_KINDS = new Set<CommandKind>([
  "register", "invoke", "get", "assert_return", "assert_exhaustion", "assert_exception", "wait",
]);
const MODULE_ASSERTS = new Set<CommandKind>([
  "assert_malformed", "assert_invalid", "assert_unlinkable", "assert_uninstantiable",
  "assert_malformed_custom", "assert_invalid_custom",
]);

/** Heads of module fields: a script made of these is one inline module. */
const MODULE_FIELDS = new Set(["type", "rec", "import", "func", "table", "memory", "global", "export", "start", "elem", "data", "tag"]);

function lastString(items: SExpr[]): string | undefined {
  const last = items[items.length - 1];
  return last && last.t === "string" ? UTF8.decode(last.bytes) : undefined;
}

function toCommands(src: string, e: SExpr, lineOf: (o: number) => number, out: WastCommand[]): void {
  if (e.t !== "list") throw new WastSyntaxError("command expected", lineOf(e.start));
  if (isAnnotation(e)) return;
  const items = plain(e);
  const head = headOf(e);
  const line = lineOf(e.start);
  const push = (c: WastCommand): void => void out.push({ ...c, expr: e });
  if (head === undefined) throw new WastSyntaxError("command keyword expected", line);
  if (head === "module") {
    const r = parseModuleForm(src, e, lineOf);
    if (r.instance) push({ kind: "module_instance", head, line });
    else push({ kind: "module", head, line, module: r.module });
    return;
  }
  if (head === "thread") {
    // (thread $T (shared (module $M))* command*): the commands run on a thread.
    for (const it of items.slice(1)) {
      if (it.t === "list" && headOf(it) !== "shared") toCommands(src, it, lineOf, out);
    }
    return;
  }
  const kind = head as CommandKind;
  if (PLAIN_KINDS.has(kind)) {
    push({ kind, head, line, expected: lastString(items) });
    return;
  }
  if (kind === "assert_trap") {
    const target = items[1];
    const cmd: WastCommand = { kind, head, line, expected: lastString(items) };
    if (target !== undefined && target.t === "list" && headOf(target) === "module") {
      const r = parseModuleForm(src, target, lineOf);
      if (!r.instance) cmd.module = r.module;
    }
    push(cmd);
    return;
  }
  if (MODULE_ASSERTS.has(kind)) {
    const target = items[1];
    if (target === undefined || target.t !== "list" || headOf(target) !== "module") {
      throw new WastSyntaxError(`${head}: module expected`, line);
    }
    const r = parseModuleForm(src, target, lineOf);
    const cmd: WastCommand = { kind, head, line, expected: lastString(items) };
    if (!r.instance) cmd.module = r.module;
    push(cmd);
    return;
  }
  push({ kind: "unknown", head, line });
}

/** Parses a whole .wast script into its commands. */
export function parseWast(source: Uint8Array | string): WastCommand[] {
  const src = latin1(typeof source === "string" ? UTF8_ENC.encode(source) : source);
  const lines = new Lines(src);
  const lineOf = (o: number): number => lines.at(o);
  const out: WastCommand[] = [];
  const exprs = parseSExprs(src, lines);
  const first = headOf(exprs[0]);
  if (first !== undefined && MODULE_FIELDS.has(first)) {
    // An inline module: the whole script is the fields of one module.
    const start = exprs[0]!.start;
    const text = `(module ${utf8Slice(src, start, src.length)}\n)`;
    out.push({ kind: "module", head: "module", line: lineOf(start), module: { form: "text", definition: false, text, line: lineOf(start) } });
    return out;
  }
  for (const e of exprs) toCommands(src, e, lineOf, out);
  return out;
}

/**
 * The module text of a `(module quote ...)`: the quoted text is either a
 * whole `(module ...)` or a sequence of module fields.
 */
export function quoteModuleText(text: string): string {
  try {
    const src = latin1(UTF8_ENC.encode(text));
    const exprs = parseSExprs(src);
    if (exprs.length === 1 && headOf(exprs[0]) === "module") return text;
  } catch {
    // Unbalanced or otherwise broken text: let the text parser report it.
  }
  return `(module ${text})`;
}

/** Bidirectional-control code points that wasm-tools refuses anywhere in a text ("confusing unicode"). */
const CONFUSING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u206f]/;

/**
 * Makes a valid text acceptable to wasm-tools, whose lexer rejects
 * bidirectional-control characters even where the spec allows them: inside
 * string literals they become `\u{...}` escapes (the same bytes), in comments
 * they become spaces. Text without them is returned unchanged.
 */
export function escapeConfusingUnicode(text: string): string {
  if (!CONFUSING.test(text)) return text;
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      // A string literal: copy escapes as they are, escape confusing characters.
      out += c;
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === "\\") {
          out += text.slice(i, i + 2);
          i += 2;
          continue;
        }
        const d = text[i]!;
        out += CONFUSING.test(d) ? `\\u{${d.charCodeAt(0).toString(16)}}` : d;
        i++;
      }
      if (i < n) out += text[i++];
    } else if (c === ";" && text[i + 1] === ";") {
      const nl = text.indexOf("\n", i);
      const end = nl < 0 ? n : nl;
      out += text.slice(i, end).replace(new RegExp(CONFUSING.source, "g"), " ");
      i = end;
    } else if (c === "(" && text[i + 1] === ";") {
      let depth = 0;
      const start = i;
      while (i < n) {
        if (text[i] === "(" && text[i + 1] === ";") { depth++; i += 2; }
        else if (text[i] === ";" && text[i + 1] === ")") { depth--; i += 2; if (depth === 0) break; }
        else i++;
      }
      out += text.slice(start, i).replace(new RegExp(CONFUSING.source, "g"), " ");
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function isFoldedTry(e: SExpr): boolean {
  return e.t === "list" && isAtom(e.items[0], "try") && e.items.some((x) => headOf(x) === "do");
}

function containsFoldedTry(e: SExpr): boolean {
  return e.t === "list" && (isFoldedTry(e) || e.items.some(containsFoldedTry));
}

/**
 * Rewrites the folded legacy exception-handling form, which wasm-tools no
 * longer reads, into the flat form it does:
 *   (try $l? bt (do i*) (catch $t i*)* (catch_all i*)?)  ->  try $l? bt i* catch $t i* ... catch_all i* end
 *   (try $l? bt (do i*) (delegate n))                    ->  try $l? bt i* delegate n
 * Everything else is kept as written. The result encodes to the same binary.
 */
export function unfoldLegacyTry(text: string): string {
  const src = latin1(UTF8_ENC.encode(text));
  const exprs = parseSExprs(src);
  const emit = (e: SExpr): string => {
    if (!containsFoldedTry(e)) return src.slice(e.start, e.end);
    const l = e as SList;
    if (!isFoldedTry(l)) return `(${l.items.map(emit).join(" ")})`;
    const out: string[] = ["try"];
    let k = 1;
    while (k < l.items.length && headOf(l.items[k]) !== "do") out.push(emit(l.items[k++]!));
    let delegated = false;
    for (; k < l.items.length; k++) {
      const clause = l.items[k]!;
      const head = headOf(clause);
      if (clause.t !== "list" || head === undefined) {
        out.push(emit(clause));
        continue;
      }
      if (head !== "do") out.push(head);
      if (head === "delegate") delegated = true;
      out.push(...clause.items.slice(1).map(emit));
    }
    if (!delegated) out.push("end");
    return out.join(" ");
  };
  // Keep the text between top-level forms (comments) as it is.
  let result = "";
  let at = 0;
  for (const e of exprs) {
    result += src.slice(at, e.start) + emit(e);
    at = e.end;
  }
  result += src.slice(at);
  return Buffer.from(result, "latin1").toString("utf8");
}
