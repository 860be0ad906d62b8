// Runs the official WebAssembly spec test scripts against our binary reader,
// validator and writer. Only the binary form is our product: text modules are
// encoded to binaries by wasm-tools (cached on disk), quoted text that the
// suite calls malformed is a text-format matter and is skipped, and actions
// (invoke, assert_return ...) are execution and are skipped here.
//
// Checks, per module the suite names:
//   valid     a module the suite treats as valid reads (readModule + every
//             function body) and validates;
//   identity  that module, written back unchanged, is never larger, reads and
//             validates again, and is either byte-identical to the input or
//             differs only in encoding (non-minimal LEB128, empty sections):
//             both then re-encode to the same canonical bytes;
//   malformed an assert_malformed binary is rejected by the reader
//             (WasmDecodeError);
//   invalid   an assert_invalid module reads and is rejected by the validator
//             (WasmValidationError); rejected by the reader instead, it is
//             counted apart as "rejected as malformed".

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as watToBinary } from "@bytecodealliance/jco-transpile/wasm-tools";
import { WasmDecodeError, WasmValidationError } from "../../src/binary/errors.js";
import { decodeAllBodies, readModule } from "../../src/binary/reader.js";
import { writeModule } from "../../src/binary/writer.js";
import { validateModule } from "../../src/analysis/validate.js";
import type { Module } from "../../src/ir/module.js";
import { escapeConfusingUnicode, parseWast, quoteModuleText, unfoldLegacyTry, type WastCommand, type WastModule } from "./wast.js";

export type Category = "valid" | "identity" | "malformed" | "invalid";
export const CATEGORIES: readonly Category[] = ["valid", "identity", "malformed", "invalid"];

export const SKIP_EXECUTION = "execution (issue 3 re-runs these)";
export const SKIP_TEXT_SYNTAX = "text-format syntax (not binary)";
export const SKIP_TEXT_UNENCODABLE = "text module wasm-tools cannot encode";
export const SKIP_CUSTOM_SYNTAX = "custom annotation text syntax (not binary)";
export const SKIP_NOT_ACCEPTED = "module not accepted (see valid)";
export const SKIP_UNKNOWN = "unknown script command";

export interface Tally {
  agree: number;
  disagree: number;
  skipped: number;
  /** invalid only: the reader rejected what the suite calls invalid. */
  rejectedAsMalformed: number;
}

/** One check that did not agree, or an assert_invalid the reader rejected, or a noted skip. */
export interface Finding {
  file: string;
  line: number;
  category: Category;
  /** The command as the script has it, e.g. "assert_invalid (module binary)". */
  command: string;
  /** What the suite expects (its message, or "valid"). */
  expected: string;
  /** What we did, e.g. "accepted", "validator rejected", "reader rejected". */
  actual: string;
  /** Our error message, if we threw. */
  error?: string;
}

export interface FileResult {
  /** Path relative to the suite root, with forward slashes. */
  file: string;
  /** core, custom, legacy, or proposals/NAME. */
  group: string;
  tallies: Record<Category, Tally>;
  /** Skip reason -> count (actions, text-format checks ...). */
  skips: Map<string, number>;
  disagreements: Finding[];
  /** assert_invalid modules our reader rejected (with the suite's message). */
  rejectedAsMalformed: Finding[];
  /** Text modules wasm-tools could not encode (with its message). */
  unencodable: Finding[];
  /** A script the splitter could not read (counts as a disagreement of the file). */
  scriptError?: string;
  /** Text modules encoded by wasm-tools in this run (cache misses). */
  converted: number;
  ms: number;
}

export interface RunOptions {
  /** Where converted binaries are cached; null disables the cache. */
  cacheDir?: string | null;
}

// ---------------------------------------------------------------------------
// Locations

/** The project root: the nearest directory above this file with a package.json. */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("project root (package.json) not found");
    dir = up;
  }
}

/**
 * The spec test suite: $WASM_TESTSUITE, or a `wasm-testsuite` folder in the
 * project, beside it, or in ../shared.
 */
export function findSuiteDir(): string {
  const env = process.env.WASM_TESTSUITE;
  const root = projectRoot();
  const candidates = env ? [env] : [join(root, "wasm-testsuite"), join(root, "..", "wasm-testsuite"), join(root, "..", "shared", "wasm-testsuite")];
  for (const c of candidates) if (existsSync(join(c, "binary.wast"))) return c;
  throw new Error(`WebAssembly spec test suite not found (looked in ${candidates.join(", ")}); set WASM_TESTSUITE`);
}

export function defaultCacheDir(): string {
  return join(projectRoot(), ".cache", "spec");
}

function listWast(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(".wast") && statSync(join(dir, n)).isFile())
    .sort()
    .map((n) => join(dir, n));
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory())
    .sort();
}

/** The group a script belongs to, from its path relative to the suite root. */
export function groupOf(rel: string): string {
  const parts = rel.split("/");
  if (parts.length === 1) return "core";
  if (parts[0] === "proposals" && parts.length >= 3) return `proposals/${parts[1]}`;
  return parts[0]!;
}

/**
 * The scripts of a selection: "core" (top-level files), "custom", "legacy",
 * "proposals" (all proposals), "proposals/NAME", or "all".
 */
export function selectFiles(suiteDir: string, selection: string): string[] {
  const sel = selection.replace(/\/+$/, "");
  if (sel === "core") return listWast(suiteDir);
  if (sel === "all") {
    const out = listWast(suiteDir);
    for (const d of subdirs(suiteDir)) {
      if (d === "proposals") for (const p of subdirs(join(suiteDir, d))) out.push(...listWastDeep(join(suiteDir, d, p)));
      else out.push(...listWastDeep(join(suiteDir, d)));
    }
    return out;
  }
  const dir = join(suiteDir, sel);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    if (existsSync(dir) && dir.endsWith(".wast")) return [dir];
    throw new Error(`no such test folder: ${sel}`);
  }
  return listWastDeep(dir);
}

function listWastDeep(dir: string): string[] {
  const out = listWast(dir);
  for (const d of subdirs(dir)) out.push(...listWastDeep(join(dir, d)));
  return out;
}

// ---------------------------------------------------------------------------
// Text to binary, cached

function converterVersion(): string {
  try {
    const p = join(projectRoot(), "node_modules", "@bytecodealliance", "jco-transpile", "package.json");
    return (JSON.parse(readFileSync(p, "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}
let cachedVersion: string | undefined;

/** Bump when the way text is prepared for wasm-tools changes (invalidates the cache). */
const CONVERSION_SCHEME = 2;

export type Converted = { bytes: Uint8Array } | { error: string };
type CacheEntry = { b: string } | { e: string };

/** The message of a wasm-tools error (its Debug rendering), shortened to the reason and position. */
export function converterMessage(e: unknown): string {
  const raw = e instanceof Error ? String(e.message) : String(e);
  const custom = /kind: Custom\("((?:[^"\\]|\\.)*)"\)/.exec(raw);
  const pos = /line: (\d+), col: (\d+)/.exec(raw);
  const where = pos ? ` (text line ${Number(pos[1]) + 1}, col ${Number(pos[2]) + 1})` : "";
  if (custom) return custom[1]!.replace(/\\"/g, '"').replace(/\\\\/g, "\\") + where;
  // Otherwise the innermost `kind: Name(...)`, parentheses balanced.
  const at = raw.lastIndexOf("kind: ");
  if (at < 0) return raw.slice(0, 200);
  let depth = 0;
  let end = at + 6;
  for (; end < raw.length; end++) {
    const ch = raw[end];
    if (ch === "(") depth++;
    else if (ch === ")") {
      if (depth === 0) break;
      if (--depth === 0) {
        end++;
        break;
      }
    } else if ((ch === " " || ch === ",") && depth === 0) break;
  }
  return raw.slice(at + 6, end) + where;
}

/**
 * Encodes a text module with wasm-tools. wasm-tools no longer reads the
 * folded legacy `(try (do ...) (catch ...))` form: such text is retried in
 * the flat form, which encodes to the same binary.
 */
export async function encodeText(text: string): Promise<Converted> {
  try {
    return { bytes: await watToBinary(text) };
  } catch (e) {
    const error = converterMessage(e);
    if (/\(\s*try\b/.test(text)) {
      try {
        return { bytes: await watToBinary(unfoldLegacyTry(text)) };
      } catch {
        // Report the error of the text as written.
      }
    }
    return { error };
  }
}

class ConversionCache {
  private entries: Record<string, CacheEntry> = {};
  private dirty = false;
  constructor(private readonly path: string | null) {
    if (path && existsSync(path)) {
      try {
        this.entries = JSON.parse(readFileSync(path, "utf8")) as Record<string, CacheEntry>;
      } catch {
        this.entries = {};
      }
    }
  }
  private readonly used = new Set<string>();
  get(key: string): Converted | undefined {
    const e = this.entries[key];
    if (!e) return undefined;
    this.used.add(key);
    return "b" in e ? { bytes: new Uint8Array(Buffer.from(e.b, "base64")) } : { error: e.e };
  }
  set(key: string, c: Converted): void {
    this.entries[key] = "bytes" in c ? { b: Buffer.from(c.bytes).toString("base64") } : { e: c.error };
    this.used.add(key);
    this.dirty = true;
  }
  /** Writes the entries this run used (dropping those of texts that changed), if anything changed. */
  save(): void {
    if (!this.path) return;
    const keys = Object.keys(this.entries);
    if (!this.dirty && keys.length === this.used.size) return;
    const kept: Record<string, CacheEntry> = {};
    for (const k of keys) if (this.used.has(k)) kept[k] = this.entries[k]!;
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(kept));
    renameSync(tmp, this.path);
  }
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

// ---------------------------------------------------------------------------
// The checks

type Outcome =
  | { ok: true; module: Module }
  | { ok: false; stage: "reader" | "validator"; error: unknown };

function describeError(e: unknown): string {
  if (e instanceof WasmDecodeError || e instanceof WasmValidationError) return e.message;
  if (e instanceof Error) return `${e.name}: ${e.message}${e.stack ? ` [${e.stack.split("\n")[1]?.trim() ?? ""}]` : ""}`;
  return String(e);
}

/** Reads (all bodies included) and validates. */
function readAndValidate(bytes: Uint8Array): Outcome {
  let m: Module;
  try {
    m = readModule(bytes);
    decodeAllBodies(m);
  } catch (error) {
    return { ok: false, stage: "reader", error };
  }
  try {
    validateModule(m);
  } catch (error) {
    return { ok: false, stage: "validator", error };
  }
  return { ok: true, module: m };
}

/** What an outcome says, for reports: "accepted", "reader rejected", "validator rejected", or a crash. */
function actualOf(o: Outcome): { actual: string; error?: string } {
  if (o.ok) return { actual: "accepted" };
  const e = o.error;
  if (e instanceof WasmDecodeError) return { actual: `reader rejected (WasmDecodeError)${o.stage === "validator" ? " during validation" : ""}`, error: e.message };
  if (e instanceof WasmValidationError) return { actual: `validator rejected (WasmValidationError)${o.stage === "reader" ? " during reading" : ""}`, error: e.message };
  return { actual: `${o.stage} crashed`, error: describeError(e) };
}

function firstDiff(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

const SECTION_NAMES = ["custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count", "tag"];

/** Which section of a binary holds `offset` (for identity reports), e.g. "code section (id 10)". */
export function sectionAt(bytes: Uint8Array, offset: number): string {
  if (offset < 8) return "header";
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p]!;
    let size = 0;
    let shift = 0;
    let q = p + 1;
    for (; q < bytes.length && q < p + 6; q++) {
      size += (bytes[q]! & 0x7f) * 2 ** shift;
      shift += 7;
      if ((bytes[q]! & 0x80) === 0) break;
    }
    const end = q + 1 + size;
    if (offset < end) {
      const empty = id !== 0 && size === 1 && bytes[q + 1] === 0 ? ", an empty section" : "";
      const overlong = q - p > 1 && bytes[q] === 0 ? ", its size is a non-minimal LEB128" : "";
      return `${SECTION_NAMES[id] ?? "unknown"} section (id ${id}) at 0x${p.toString(16)}${empty}${overlong}`;
    }
    p = end;
  }
  return "end of input";
}

function commandLabel(c: WastCommand, mod: WastModule | undefined): string {
  if (!mod) return c.head;
  const form = mod.form === "text" ? "" : ` ${mod.form}`;
  const def = mod.definition ? " definition" : "";
  const inner = `(module${def}${mod.name ? ` ${mod.name}` : ""}${form})`;
  return c.kind === "module" ? inner : `${c.head} ${inner}`;
}

function emptyTallies(): Record<Category, Tally> {
  const t = {} as Record<Category, Tally>;
  for (const c of CATEGORIES) t[c] = { agree: 0, disagree: 0, skipped: 0, rejectedAsMalformed: 0 };
  return t;
}

/**
 * Encodes a script's text and quoted modules with wasm-tools, through the
 * on-disk cache (by a hash of the text): each module's bytes, or wasm-tools'
 * error. Binary modules and quoted text the suite calls malformed are left
 * out. `encoded` counts the cache misses.
 */
export async function encodeModules(rel: string, commands: WastCommand[], options: RunOptions = {}): Promise<{ converted: Map<WastModule, Converted>; encoded: number }> {
  // Encode the text modules that need it (cached by a hash of their text).
  cachedVersion ??= `${converterVersion()}/${CONVERSION_SCHEME}`;
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
  const cache = new ConversionCache(cacheDir ? join(cacheDir, `${sha256(`${cachedVersion}\0${rel}\0`).slice(0, 16)}.json`) : null);
  const converted = new Map<WastModule, Converted>();
  let encoded = 0;
  for (const c of commands) {
    const mod = c.module;
    if (!mod || mod.form === "binary") continue;
    if (mod.form === "quote" && (c.kind === "assert_malformed" || c.kind === "assert_malformed_custom")) continue;
    const text = escapeConfusingUnicode(mod.form === "quote" ? quoteModuleText(mod.text!) : mod.text!);
    const key = sha256(`${cachedVersion}\0${text}`);
    let conv = cache.get(key);
    if (!conv) {
      conv = await encodeText(text);
      cache.set(key, conv);
      encoded++;
    }
    converted.set(mod, conv);
  }
  cache.save();
  return { converted, encoded };
}

/** Runs one script. */
export async function runFile(path: string, suiteDir: string, options: RunOptions = {}): Promise<FileResult> {
  const t0 = performance.now();
  const rel = relative(suiteDir, path).split(sep).join("/");
  const source = readFileSync(path);
  const result: FileResult = {
    file: rel,
    group: groupOf(rel),
    tallies: emptyTallies(),
    skips: new Map(),
    disagreements: [],
    rejectedAsMalformed: [],
    unencodable: [],
    converted: 0,
    ms: 0,
  };
  const skip = (cat: Category | null, reason: string): void => {
    if (cat) result.tallies[cat].skipped++;
    result.skips.set(reason, (result.skips.get(reason) ?? 0) + 1);
  };

  let commands: WastCommand[];
  try {
    commands = parseWast(source);
  } catch (e) {
    result.scriptError = e instanceof Error ? e.message : String(e);
    result.ms = performance.now() - t0;
    return result;
  }

  const { converted, encoded } = await encodeModules(rel, commands, options);
  result.converted = encoded;

  /** The module's bytes, or null after counting it as skipped. */
  const bytesOf = (c: WastCommand, mod: WastModule, cat: Category, expected: string): Uint8Array | null => {
    if (mod.form === "binary") return mod.bytes!;
    const conv = converted.get(mod)!;
    if ("bytes" in conv) return conv.bytes;
    skip(cat, SKIP_TEXT_UNENCODABLE);
    result.unencodable.push({ file: rel, line: c.line, category: cat, command: commandLabel(c, mod), expected, actual: "wasm-tools rejected the text", error: conv.error });
    return null;
  };

  const checkValid = (c: WastCommand, mod: WastModule): void => {
    const bytes = bytesOf(c, mod, "valid", "valid");
    if (!bytes) {
      skip("identity", SKIP_NOT_ACCEPTED);
      return;
    }
    const label = commandLabel(c, mod);
    const o = readAndValidate(bytes);
    if (!o.ok) {
      result.tallies.valid.disagree++;
      result.disagreements.push({ file: rel, line: c.line, category: "valid", command: label, expected: c.expected ? `valid (${c.kind}: ${c.expected})` : "valid", ...actualOf(o) });
      skip("identity", SKIP_NOT_ACCEPTED);
      return;
    }
    result.tallies.valid.agree++;
    checkIdentity(c, label, bytes, o.module);
  };

  const checkIdentity = (c: WastCommand, label: string, input: Uint8Array, m: Module): void => {
    const fail = (actual: string, error?: string): void => {
      result.tallies.identity.disagree++;
      result.disagreements.push({ file: rel, line: c.line, category: "identity", command: label, expected: "written back as the same module, never larger, re-reads and validates", actual, ...(error !== undefined ? { error } : {}) });
    };
    let out: Uint8Array;
    try {
      out = writeModule(m);
    } catch (e) {
      fail("writer crashed", describeError(e));
      return;
    }
    const again = readAndValidate(out);
    if (!again.ok) {
      const a = actualOf(again);
      fail(`output does not re-read/validate: ${a.actual}`, a.error);
      return;
    }
    if (out.length > input.length) {
      const d = firstDiff(input, out);
      fail(`output larger: ${out.length} bytes from ${input.length}, first difference at byte 0x${d.toString(16)} in the input's ${sectionAt(input, d)}`);
      return;
    }
    if (out.length !== input.length || firstDiff(input, out) !== out.length) {
      // smaller: allowed only as a re-encoding of the same module
      const canon = (b: Uint8Array) => writeModule(readModule(b, { decodeBodies: true }), { reencodeAll: true });
      const ci = canon(input);
      const co = canon(out);
      if (ci.length !== co.length || firstDiff(ci, co) !== ci.length) {
        const d = firstDiff(input, out);
        fail(`output is a different module: ${out.length} bytes from ${input.length}, first difference at byte 0x${d.toString(16)} in the input's ${sectionAt(input, d)}`);
        return;
      }
    }
    result.tallies.identity.agree++;
  };

  for (const c of commands) {
    const mod = c.module;
    switch (c.kind) {
      case "module":
        checkValid(c, mod!);
        break;
      case "assert_unlinkable":
      case "assert_uninstantiable":
      case "assert_invalid_custom": // the custom section is wrong, the module itself is valid
        if (mod) checkValid(c, mod);
        else skip(null, SKIP_EXECUTION);
        break;
      case "assert_trap":
        if (mod) checkValid(c, mod);
        else skip(null, SKIP_EXECUTION);
        break;
      case "assert_malformed": {
        if (!mod) break;
        const expected = c.expected ?? "";
        if (mod.form === "quote") {
          skip("malformed", SKIP_TEXT_SYNTAX);
          break;
        }
        if (mod.form === "text") {
          const conv = converted.get(mod)!;
          if ("error" in conv) {
            skip("malformed", SKIP_TEXT_SYNTAX);
            break;
          }
        }
        const bytes = bytesOf(c, mod, "malformed", expected);
        if (!bytes) break;
        const o = readAndValidate(bytes);
        if (!o.ok && o.error instanceof WasmDecodeError) {
          result.tallies.malformed.agree++;
        } else {
          result.tallies.malformed.disagree++;
          result.disagreements.push({ file: rel, line: c.line, category: "malformed", command: commandLabel(c, mod), expected, ...actualOf(o) });
        }
        break;
      }
      case "assert_invalid": {
        if (!mod) break;
        const expected = c.expected ?? "";
        const bytes = bytesOf(c, mod, "invalid", expected);
        if (!bytes) break;
        const o = readAndValidate(bytes);
        const finding: Finding = { file: rel, line: c.line, category: "invalid", command: commandLabel(c, mod), expected, ...actualOf(o) };
        if (!o.ok && o.error instanceof WasmValidationError) {
          result.tallies.invalid.agree++;
        } else if (!o.ok && o.error instanceof WasmDecodeError) {
          result.tallies.invalid.rejectedAsMalformed++;
          result.rejectedAsMalformed.push(finding);
        } else {
          result.tallies.invalid.disagree++;
          result.disagreements.push(finding);
        }
        break;
      }
      case "assert_malformed_custom":
        skip("malformed", SKIP_CUSTOM_SYNTAX);
        break;
      case "module_instance":
      case "register":
      case "invoke":
      case "get":
      case "assert_return":
      case "assert_exhaustion":
      case "assert_exception":
      case "wait":
        skip(null, SKIP_EXECUTION);
        break;
      case "unknown":
        skip(null, `${SKIP_UNKNOWN}: ${c.head}`);
        break;
    }
  }
  result.ms = performance.now() - t0;
  return result;
}

/** Runs scripts one after another (conversion is in-process, so running them concurrently would not be faster). */
export async function runFiles(paths: string[], suiteDir: string, options: RunOptions = {}, onFile?: (r: FileResult) => void): Promise<FileResult[]> {
  const out: FileResult[] = [];
  for (const p of paths) {
    const r = await runFile(p, suiteDir, options);
    onFile?.(r);
    out.push(r);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Summaries

export interface GroupSummary {
  group: string;
  files: number;
  tallies: Record<Category, Tally>;
  skips: Map<string, number>;
  disagreements: number;
  scriptErrors: number;
}

export function summarize(results: FileResult[], groupOfResult: (r: FileResult) => string = (r) => r.group): GroupSummary[] {
  const by = new Map<string, GroupSummary>();
  for (const r of results) {
    const g = groupOfResult(r);
    let s = by.get(g);
    if (!s) {
      s = { group: g, files: 0, tallies: emptyTallies(), skips: new Map(), disagreements: 0, scriptErrors: 0 };
      by.set(g, s);
    }
    s.files++;
    for (const c of CATEGORIES) {
      const a = s.tallies[c];
      const b = r.tallies[c];
      a.agree += b.agree;
      a.disagree += b.disagree;
      a.skipped += b.skipped;
      a.rejectedAsMalformed += b.rejectedAsMalformed;
    }
    for (const [k, v] of r.skips) s.skips.set(k, (s.skips.get(k) ?? 0) + v);
    s.disagreements += r.disagreements.length;
    if (r.scriptError) s.scriptErrors++;
  }
  return [...by.values()];
}

/** Sort order of groups in reports: core, custom, legacy, then proposals. */
export function groupRank(g: string): string {
  if (g === "core") return "0";
  if (g === "custom") return "1";
  if (g === "legacy") return "2";
  return `3${g}`;
}

export function formatFinding(f: Finding): string {
  const err = f.error !== undefined ? `\n      ours: ${f.error}` : "";
  return `  ${f.file}:${f.line}  [${f.category}] ${f.command}\n      expected: ${JSON.stringify(f.expected)}\n      we: ${f.actual}${err}`;
}
