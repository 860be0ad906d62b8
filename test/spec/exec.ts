// Runs the spec test scripts' executable commands on Node's own V8 (the
// WebAssembly JS API), once with the modules as the suite gives them and once
// per optimizer variant with every module replaced by its optimized version
// (everywhere: `register`ed instances and module definitions included), and
// compares the outcomes command by command.
//
// The original run is judged against the suite: a command whose outcome in
// V8 is not what the suite expects (a feature Node 20's V8 lacks, a JS API
// limit) is not compared and is counted as skipped with its reason. Every
// other command must give the same outcome with the optimized modules:
//   module / module definition / module instance   instantiates (compiles)
//   register                                       the instance is registered
//   invoke / get                                   returns the same values (NaNs compare as NaN)
//   assert_return                                  the results match the expected values
//   assert_trap                                    traps (RuntimeError) with the same V8 message
//   assert_exhaustion                              overflows the stack (RangeError)
//   assert_exception                               throws a wasm exception
//   assert_unlinkable                              fails to link (LinkError, or TypeError for a missing module)
//   assert_uninstantiable                          traps while instantiating, same message
// assert_malformed / assert_invalid are reader and validator checks
// (run-spec.ts) and are not run here.
//
// Values cross the JS boundary exactly: every invocation goes through a small
// generated wrapper module that imports the function (with the type section
// of the function's own module copied in, so concrete reference types keep
// their identity), loads the numeric arguments from its memory, calls, and
// stores the numeric results into its memory (bit-exact for NaNs, and v128
// never meets JS). Extern references are passed and returned as JS values;
// other references are reported to JS as null / non-null.

import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { join, relative, sep } from "node:path";
import { createInterface } from "node:readline";
import { optimize } from "../../src/pipeline.js";
import { listPasses } from "../../src/passes/registry.js";
import { SIZE_TARGETS, type SizeTarget } from "../../src/size-target.js";
import { nodeMeasures } from "../../src/cli/compress.js";
import { WasmDecodeError, WasmValidationError } from "../../src/binary/errors.js";
import { parseWast, type SExpr, type SList, type WastCommand, type WastModule } from "./wast.js";
import { encodeModules, groupOf, projectRoot, type Converted, type RunOptions } from "./run-spec.js";

// ---------------------------------------------------------------------------
// Variants

/** An optimizer configuration: `passes` undefined is the default pipeline; `target` defaults to raw. */
export interface Variant {
  name: string;
  passes: string[] | undefined;
  target?: SizeTarget;
  /** Outline hot code too (the `outlineHot` option): the spec scripts' code is mostly hot by the static estimate. */
  outlineHot?: boolean;
}

/** The identity pipeline (`passes: []`). */
export const NONE: Variant = { name: "none", passes: [] };
/** The default pipeline. */
export const DEFAULT: Variant = { name: "default", passes: undefined };

/**
 * By name: "none" (passes: []), "default" (the default pipeline), or a
 * registered pass run alone; "NAME@TARGET" judges by another size target
 * than raw (e.g. "default@balanced"); "NAME+hot" outlines hot code too
 * (e.g. "outline+hot@balanced").
 */
export function variantByName(name: string): Variant {
  const at = name.indexOf("@");
  if (at >= 0) {
    const target = name.slice(at + 1);
    if (!SIZE_TARGETS.includes(target as SizeTarget)) throw new Error(`unknown size target in variant ${JSON.stringify(name)} (${SIZE_TARGETS.join(", ")})`);
    return { ...variantByName(name.slice(0, at)), name, target: target as SizeTarget };
  }
  if (name.endsWith("+hot")) return { ...variantByName(name.slice(0, -4)), name, outlineHot: true };
  if (name === "none") return NONE;
  if (name === "default") return DEFAULT;
  if (!listPasses().some((p) => p.name === name)) throw new Error(`unknown variant ${JSON.stringify(name)} (none, default, or a registered pass: ${listPasses().map((p) => p.name).join(", ")})`);
  return { name, passes: [name] };
}

/** The identity pipeline, every registered pass alone, and the default pipeline. */
export function allVariants(): Variant[] {
  return [NONE, ...listPasses().map((p) => ({ name: p.name, passes: [p.name] })), DEFAULT];
}

/**
 * The V8 flags of Node 20 that enable proposals the suite's core scripts use
 * (the executor runs in a child process with them). Multi-memory, exnref,
 * table64 and the final GC encoding have no flag in Node 20's V8 (11.3): the
 * scripts that need them are skipped with V8's own reason.
 */
export const V8_FLAGS: readonly string[] = [
  "--experimental-wasm-gc",
  "--experimental-wasm-typed-funcref",
  "--experimental-wasm-memory64",
  "--experimental-wasm-extended-const",
  "--experimental-wasm-relaxed-simd",
  "--experimental-wasm-return-call",
];

// ---------------------------------------------------------------------------
// Results

export interface ExecDifference {
  file: string;
  line: number;
  /** The command as written (shortened). */
  command: string;
  variant: string;
  original: string;
  optimized: string;
}

export interface ExecResult {
  file: string;
  group: string;
  variants: string[];
  /** Set when the whole script was not run (with the reason). */
  scriptSkipped?: string;
  /** Executable commands (everything but assert_malformed / assert_invalid). */
  commands: number;
  /** Commands whose original outcome is what the suite expects: these are compared. */
  checked: number;
  /** Of `checked`, the assertions (assert_*), the rest being modules, register, invoke, get. */
  checkedAssertions: number;
  /** Commands not compared, by reason. */
  skips: Record<string, number>;
  /** Comparisons (checked commands x variants) with the same outcome. */
  agree: number;
  /** Comparisons with a different outcome (each is listed in `differences`). */
  differ: number;
  /** Modules (x variants) the optimizer did not take (our reader/validator refused them), by reason; the original is used. */
  notOptimized: Record<string, number>;
  /** Distinct modules optimized (x variants). */
  optimized: number;
  /** Of those, the ones whose optimized bytes differ from the input. */
  changed: number;
  /** `changed` per variant. */
  changedBy: Record<string, number>;
  differences: ExecDifference[];
  /** With `keepOutcomes`: every executable command's original outcome. */
  outcomes?: { line: number; kind: string; status: "pass" | "fail" | "skip"; detail: string }[];
  ms: number;
}

// ---------------------------------------------------------------------------
// Bytes

class Writer {
  readonly b: number[] = [];
  byte(x: number): this {
    this.b.push(x & 0xff);
    return this;
  }
  bytes(a: ArrayLike<number>): this {
    for (let i = 0; i < a.length; i++) this.b.push(a[i]!);
    return this;
  }
  u32(n: number): this {
    let v = n >>> 0;
    do {
      let x = v & 0x7f;
      v >>>= 7;
      if (v !== 0) x |= 0x80;
      this.b.push(x);
    } while (v !== 0);
    return this;
  }
  name(s: string): this {
    const u = Buffer.from(s, "utf8");
    return this.u32(u.length).bytes(u);
  }
  /** A vector: count, then each item written by `f`. */
  vec<T>(items: readonly T[], f: (w: this, x: T) => void): this {
    this.u32(items.length);
    for (const x of items) f(this, x);
    return this;
  }
  section(id: number, content: Writer): this {
    return this.byte(id).u32(content.b.length).bytes(content.b);
  }
  out(): Uint8Array {
    return Uint8Array.from(this.b);
  }
}

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  u8(): number {
    if (this.pos >= this.buf.length) throw new Error("unexpected end");
    return this.buf[this.pos++]!;
  }
  peek(): number {
    return this.buf[this.pos] ?? -1;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.u8();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  }
  /** Skips a LEB128 of any width. */
  leb(): void {
    while ((this.u8() & 0x80) !== 0) {
      // continuation
    }
  }
  skip(n: number): void {
    this.pos += n;
  }
  name(): string {
    const n = this.u32();
    const s = Buffer.from(this.buf.subarray(this.pos, this.pos + n)).toString("utf8");
    this.pos += n;
    return s;
  }
}

/** Value type bytes (one-byte forms): numeric, vector and abstract reference shorthands. */
const SHORT_VALTYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f, 0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x69, 0x71, 0x72, 0x73, 0x74, 0x68, 0x75]);

function readHeapType(r: Reader): void {
  if (r.peek() === 0x62) {
    // exact (custom descriptors): 0x62 typeidx
    r.u8();
    r.u32();
    return;
  }
  r.leb();
}

/** Reads a value type and returns its encoding. */
function readValType(r: Reader): Uint8Array {
  const start = r.pos;
  const b = r.u8();
  if (b === 0x63 || b === 0x64) readHeapType(r);
  else if (!SHORT_VALTYPES.has(b)) throw new Error(`unknown value type 0x${b.toString(16)}`);
  return r.buf.subarray(start, r.pos);
}

function readLimits(r: Reader): void {
  const flags = r.u8();
  r.leb();
  if (flags & 1) r.leb();
  if (flags & 8) r.u32(); // custom page size
}

/** Skips a constant expression (the forms the suite's global initializers use). */
function skipConstExpr(r: Reader): void {
  for (;;) {
    const op = r.u8();
    switch (op) {
      case 0x0b:
        return;
      case 0x41:
      case 0x42:
      case 0x23:
      case 0xd2:
        r.leb();
        break;
      case 0x43:
        r.skip(4);
        break;
      case 0x44:
        r.skip(8);
        break;
      case 0xd0:
        readHeapType(r);
        break;
      case 0x6a: case 0x6b: case 0x6c: case 0x7c: case 0x7d: case 0x7e:
        break;
      case 0xfd: {
        const sub = r.u32();
        if (sub !== 12) throw new Error(`constant expression: 0xfd ${sub}`);
        r.skip(16);
        break;
      }
      case 0xfb: {
        const sub = r.u32();
        if (sub === 0 || sub === 1 || sub === 6 || sub === 7) r.u32();
        else if (sub === 8) {
          r.u32();
          r.u32();
        } else if (sub !== 0x1a && sub !== 0x1b && sub !== 0x1c) throw new Error(`constant expression: 0xfb ${sub}`);
        break;
      }
      default:
        throw new Error(`constant expression: opcode 0x${op.toString(16)}`);
    }
  }
}

interface FuncSig {
  params: Uint8Array[];
  results: Uint8Array[];
}

/** What the executor needs to know about a module binary to call into it. */
interface ModInfo {
  /** Entries (recursion groups) in the type section. */
  typeEntries: number;
  /** Types defined (the index the next type would get). */
  typeCount: number;
  /** The type section's entries as encoded (after the count). */
  typePayload: Uint8Array;
  /** A hash of typePayload (wrapper cache key). */
  typeKey: string;
  sigs: Map<number, FuncSig>;
  /** Type index of each function (imports first). */
  funcTypes: number[];
  /** Each global's type as encoded (value type and mutability byte), imports first; null if not readable. */
  globalTypes: Uint8Array[] | null;
  exports: Map<string, { kind: number; index: number }>;
}

function parseModInfo(bytes: Uint8Array): ModInfo {
  const r = new Reader(bytes);
  r.skip(8);
  const info: ModInfo = {
    typeEntries: 0,
    typeCount: 0,
    typePayload: new Uint8Array(0),
    typeKey: "",
    sigs: new Map(),
    funcTypes: [],
    globalTypes: [],
    exports: new Map(),
  };
  const subtype = (): void => {
    let b = r.peek();
    if (b === 0x50 || b === 0x4f) {
      r.u8();
      const n = r.u32();
      for (let i = 0; i < n; i++) r.u32();
    }
    b = r.peek();
    while (b === 0x4c || b === 0x4d) {
      // describes / descriptor (custom descriptors)
      r.u8();
      r.u32();
      b = r.peek();
    }
    const form = r.u8();
    const storage = (): void => {
      const s = r.peek();
      if (s === 0x78 || s === 0x77) r.u8();
      else readValType(r);
      r.u8(); // mutability
    };
    if (form === 0x60) {
      const params: Uint8Array[] = [];
      const results: Uint8Array[] = [];
      for (let n = r.u32(); n > 0; n--) params.push(readValType(r));
      for (let n = r.u32(); n > 0; n--) results.push(readValType(r));
      info.sigs.set(info.typeCount, { params, results });
    } else if (form === 0x5f) {
      for (let n = r.u32(); n > 0; n--) storage();
    } else if (form === 0x5e) storage();
    else if (form === 0x5d) r.u32();
    else throw new Error(`unknown composite type 0x${form.toString(16)}`);
    info.typeCount++;
  };
  const globals: Uint8Array[] = [];
  let globalsOk = true;
  while (r.pos < bytes.length) {
    const id = r.u8();
    const size = r.u32();
    const end = r.pos + size;
    switch (id) {
      case 1: {
        info.typeEntries = r.u32();
        const start = r.pos;
        for (let i = 0; i < info.typeEntries; i++) {
          if (r.peek() === 0x4e) {
            r.u8();
            for (let n = r.u32(); n > 0; n--) subtype();
          } else subtype();
        }
        info.typePayload = bytes.subarray(start, end);
        break;
      }
      case 2:
        for (let n = r.u32(); n > 0; n--) {
          r.name();
          r.name();
          const kind = r.u8();
          if (kind === 0) info.funcTypes.push(r.u32());
          else if (kind === 1) {
            readValType(r);
            readLimits(r);
          } else if (kind === 2) readLimits(r);
          else if (kind === 3) {
            const s = r.pos;
            readValType(r);
            r.u8();
            globals.push(bytes.subarray(s, r.pos));
          } else if (kind === 4) {
            r.u8();
            r.u32();
          } else throw new Error(`unknown import kind ${kind}`);
        }
        break;
      case 3:
        for (let n = r.u32(); n > 0; n--) info.funcTypes.push(r.u32());
        break;
      case 6:
        try {
          for (let n = r.u32(); n > 0; n--) {
            const s = r.pos;
            readValType(r);
            r.u8();
            globals.push(bytes.subarray(s, r.pos));
            skipConstExpr(r);
          }
        } catch {
          globalsOk = false;
        }
        break;
      case 7:
        for (let n = r.u32(); n > 0; n--) {
          const name = r.name();
          const kind = r.u8();
          const index = r.u32();
          info.exports.set(name, { kind, index });
        }
        break;
      default:
        break;
    }
    r.pos = end;
  }
  info.globalTypes = globalsOk ? globals : null;
  info.typeKey = createHash("sha1").update(info.typePayload).digest("hex");
  return info;
}

// ---------------------------------------------------------------------------
// Literals

export interface FloatFmt {
  mant: number;
  exp: number;
  bits: number;
}
export const F32: FloatFmt = { mant: 23, exp: 8, bits: 32 };
export const F64: FloatFmt = { mant: 52, exp: 11, bits: 64 };

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Rounds the positive rational num/den to the nearest float of `f` (ties to even); returns the bits without sign. */
function roundToFloat(num: bigint, den: bigint, f: FloatFmt): bigint {
  const infBits = ((1n << BigInt(f.exp)) - 1n) << BigInt(f.mant);
  if (num === 0n) return 0n;
  const bias = 2 ** (f.exp - 1) - 1;
  const emin = 1 - bias;
  const emax = bias;
  let e = bitLength(num) - bitLength(den);
  if (e >= 0 ? num < den << BigInt(e) : num << BigInt(-e) < den) e--;
  if (e > emax + 1) return infBits;
  if (e < emin) e = emin;
  const shift = f.mant - e;
  let n = num;
  let d = den;
  if (shift >= 0) n <<= BigInt(shift);
  else d <<= BigInt(-shift);
  let q = n / d;
  const twice = 2n * (n - q * d);
  if (twice > d || (twice === d && (q & 1n) === 1n)) q++;
  if (q === 1n << BigInt(f.mant + 1)) {
    q >>= 1n;
    e++;
  }
  if (q >= 1n << BigInt(f.mant)) {
    if (e > emax) return infBits;
    return (BigInt(e + bias) << BigInt(f.mant)) | (q - (1n << BigInt(f.mant)));
  }
  return q;
}

/** The bits of a float literal of the text format (decimal, hex, inf, nan, nan:0x...), correctly rounded. */
export function parseFloatBits(text: string, f: FloatFmt): bigint {
  let s = text.replace(/_/g, "");
  let neg = false;
  if (s[0] === "+" || s[0] === "-") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  const sign = neg ? 1n << BigInt(f.bits - 1) : 0n;
  const expOnes = ((1n << BigInt(f.exp)) - 1n) << BigInt(f.mant);
  if (s === "inf") return sign | expOnes;
  if (s === "nan") return sign | expOnes | (1n << BigInt(f.mant - 1));
  if (s.startsWith("nan:0x")) {
    const payload = BigInt(`0x${s.slice(6)}`);
    if (payload === 0n || payload >= 1n << BigInt(f.mant)) throw new Error(`NaN payload out of range: ${text}`);
    return sign | expOnes | payload;
  }
  let num: bigint;
  let den: bigint;
  const hex = /^0x([0-9a-f]*)(?:\.([0-9a-f]*))?(?:p([+-]?\d+))?$/i.exec(s);
  if (hex) {
    const int = hex[1]!;
    const frac = hex[2] ?? "";
    if (int === "" && frac === "") throw new Error(`bad float literal ${text}`);
    const mant = BigInt(`0x${int + frac || "0"}`);
    const digits = (int + frac).length;
    let e = Number(hex[3] ?? "0") - 4 * frac.length;
    e = Math.max(-(4 * digits + 5000), Math.min(e, 5000));
    num = e >= 0 ? mant << BigInt(e) : mant;
    den = e >= 0 ? 1n : 1n << BigInt(-e);
  } else {
    const dec = /^(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(s);
    if (!dec || (dec[1] === "" && !dec[2])) throw new Error(`bad float literal ${text}`);
    const int = dec[1]!;
    const frac = dec[2] ?? "";
    const mant = BigInt(int + frac || "0");
    const digits = (int + frac).length;
    let e = Number(dec[3] ?? "0") - frac.length;
    e = Math.max(-(digits + 1000), Math.min(e, 1000));
    num = e >= 0 ? mant * 10n ** BigInt(e) : mant;
    den = e >= 0 ? 1n : 10n ** BigInt(-e);
  }
  return sign | roundToFloat(num, den, f);
}

/** An integer literal (decimal or hex, signed or not), wrapped to `bits` as an unsigned value. */
export function parseIntBits(text: string, bits: number): bigint {
  let s = text.replace(/_/g, "");
  let neg = false;
  if (s[0] === "+" || s[0] === "-") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (!/^(0x[0-9a-f]+|\d+)$/i.test(s)) throw new Error(`bad integer literal ${text}`);
  const v = BigInt(s);
  return BigInt.asUintN(bits, neg ? -v : v);
}

function leBytes(v: bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = BigInt.asUintN(n * 8, v);
  for (let i = 0; i < n; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function leValue(bytes: Uint8Array, at: number, n: number): bigint {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]!);
  return v;
}

// ---------------------------------------------------------------------------
// Script values

type NumType = "i32" | "i64" | "f32" | "f64" | "v128";
const NUM_SIZE: Record<NumType, number> = { i32: 4, i64: 8, f32: 4, f64: 8, v128: 16 };

/** An argument of an action. */
type Arg =
  | { kind: "num"; type: NumType; bytes: Uint8Array }
  | { kind: "null" }
  | { kind: "host"; n: number; extern: boolean };

type Lane = { exact: bigint } | { nan: "canonical" | "arithmetic" };

/** An expected result of assert_return. */
type Expect =
  | { kind: "num"; type: Exclude<NumType, "v128">; lane: Lane }
  | { kind: "v128"; shape: string; lanes: Lane[] }
  | { kind: "null" }
  | { kind: "host"; n: number | undefined; extern: boolean }
  | { kind: "nonnull"; what: string }
  | { kind: "either"; alts: Expect[] };

/** A result as read back: numeric bytes, or a reference (its value only for extern references and requested identities). */
type Value =
  | { kind: "num"; type: NumType; bytes: Uint8Array }
  | { kind: "ref"; isNull: boolean; value?: unknown; extern: boolean };

/** A script value the executor cannot express; the command is skipped. */
class Unsupported extends Error {}

function isAnnotation(e: SExpr): boolean {
  return e.t === "list" && e.items[0]?.t === "atom" && e.items[0].v.startsWith("@");
}
function items(l: SList): SExpr[] {
  return l.items.filter((x) => !isAnnotation(x));
}
function atom(e: SExpr | undefined): string | undefined {
  return e?.t === "atom" ? e.v : undefined;
}
function head(e: SExpr | undefined): string | undefined {
  return e?.t === "list" ? atom(items(e)[0]) : undefined;
}
/** An atom as the UTF-8 text it is (atoms are held as Latin-1). */
function utf8Atom(v: string): string {
  return Buffer.from(v, "latin1").toString("utf8");
}

const LANES: Record<string, { n: number; bits: number; float?: FloatFmt }> = {
  i8x16: { n: 16, bits: 8 },
  i16x8: { n: 8, bits: 16 },
  i32x4: { n: 4, bits: 32 },
  i64x2: { n: 2, bits: 64 },
  f32x4: { n: 4, bits: 32, float: F32 },
  f64x2: { n: 2, bits: 64, float: F64 },
};

function laneOf(text: string, bits: number, float: FloatFmt | undefined, allowPatterns: boolean): Lane {
  if (float && (text === "nan:canonical" || text === "nan:arithmetic")) {
    if (!allowPatterns) throw new Unsupported(`${text} as an argument`);
    return { nan: text === "nan:canonical" ? "canonical" : "arithmetic" };
  }
  return { exact: float ? parseFloatBits(text, float) : parseIntBits(text, bits) };
}

function constParts(e: SExpr): { op: string; args: string[] } {
  if (e.t !== "list") throw new Unsupported("value expected");
  const it = items(e);
  const op = atom(it[0]);
  if (op === undefined) throw new Unsupported("value expected");
  const args = it.slice(1).map((x) => {
    const a = atom(x);
    if (a === undefined) throw new Unsupported(`value ${op} with a nested form`);
    return a;
  });
  return { op, args };
}

/** The type and lane of an `i32/i64/f32/f64.const` token (patterns such as nan:canonical only where `expect`). */
function scalarLane(op: string, args: string[], expect: boolean) {
  const type = op.slice(0, 3) as Exclude<NumType, "v128">;
  return { type, lane: laneOf(args[0] ?? "", Number(type.slice(1)), type === "f32" ? F32 : type === "f64" ? F64 : undefined, expect) };
}

/** The lane shape of `v128.const SHAPE lanes...`, checked against the number of lanes. */
function v128Shape(args: string[]) {
  const shape = LANES[args[0] ?? ""];
  if (!shape || args.length !== shape.n + 1) throw new Unsupported(`v128.const ${args.join(" ")}`);
  return shape;
}

function parseArg(e: SExpr): Arg {
  const { op, args } = constParts(e);
  switch (op) {
    case "i32.const":
    case "i64.const":
    case "f32.const":
    case "f64.const": {
      const { type, lane } = scalarLane(op, args, false);
      return { kind: "num", type, bytes: leBytes((lane as { exact: bigint }).exact, NUM_SIZE[type]) };
    }
    case "v128.const": {
      const shape = v128Shape(args);
      const bytes = new Uint8Array(16);
      const w = shape.bits / 8;
      args.slice(1).forEach((t, i) => bytes.set(leBytes((laneOf(t, shape.bits, shape.float, false) as { exact: bigint }).exact, w), i * w));
      return { kind: "num", type: "v128", bytes };
    }
    case "ref.null":
      return { kind: "null" };
    case "ref.extern":
    case "ref.host":
      if (args.length !== 1) throw new Unsupported(`${op} without a number as an argument`);
      return { kind: "host", n: Number(parseIntBits(args[0]!, 32)), extern: op === "ref.extern" };
    default:
      throw new Unsupported(`argument ${op}`);
  }
}

function parseExpect(e: SExpr): Expect {
  if (head(e) === "either") return { kind: "either", alts: items(e as SList).slice(1).map(parseExpect) };
  const { op, args } = constParts(e);
  switch (op) {
    case "i32.const":
    case "i64.const":
    case "f32.const":
    case "f64.const": {
      return { kind: "num", ...scalarLane(op, args, true) };
    }
    case "v128.const": {
      const shape = v128Shape(args);
      return { kind: "v128", shape: args[0]!, lanes: args.slice(1).map((t) => laneOf(t, shape.bits, shape.float, true)) };
    }
    case "ref.null":
      return { kind: "null" };
    case "ref.extern":
    case "ref.host":
      return { kind: "host", n: args.length > 0 ? Number(parseIntBits(args[0]!, 32)) : undefined, extern: op === "ref.extern" };
    case "ref.func":
    case "ref.any":
    case "ref.eq":
    case "ref.struct":
    case "ref.array":
    case "ref.i31":
    case "ref.exn":
      return { kind: "nonnull", what: op };
    default:
      throw new Unsupported(`expected value ${op}`);
  }
}

function laneMatches(lane: Lane, v: bigint, float: FloatFmt | undefined): boolean {
  if ("exact" in lane) return v === lane.exact;
  if (!float) return false;
  const mantMask = (1n << BigInt(float.mant)) - 1n;
  const expOnes = ((1n << BigInt(float.exp)) - 1n) << BigInt(float.mant);
  const quiet = 1n << BigInt(float.mant - 1);
  if ((v & expOnes) !== expOnes || (v & mantMask) === 0n) return false;
  return lane.nan === "canonical" ? (v & mantMask) === quiet : (v & quiet) !== 0n;
}

function matches(x: Expect, v: Value, host: (n: number) => object): boolean {
  switch (x.kind) {
    case "either":
      return x.alts.some((a) => matches(a, v, host));
    case "num":
      return v.kind === "num" && v.type === x.type && laneMatches(x.lane, leValue(v.bytes, 0, NUM_SIZE[x.type]), x.type === "f32" ? F32 : x.type === "f64" ? F64 : undefined);
    case "v128": {
      if (v.kind !== "num" || v.type !== "v128") return false;
      const shape = LANES[x.shape]!;
      const w = shape.bits / 8;
      return x.lanes.every((l, i) => laneMatches(l, leValue(v.bytes, i * w, w), shape.float));
    }
    case "null":
      return v.kind === "ref" && v.isNull;
    case "host":
      if (v.kind !== "ref" || v.isNull) return false;
      return x.n === undefined || v.value === host(x.n);
    case "nonnull":
      return v.kind === "ref" && !v.isNull && (x.what !== "ref.func" || !("value" in v) || typeof v.value === "function");
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function isNanBits(v: bigint, f: FloatFmt): boolean {
  const expOnes = ((1n << BigInt(f.exp)) - 1n) << BigInt(f.mant);
  return (v & expOnes) === expOnes && (v & ((1n << BigInt(f.mant)) - 1n)) !== 0n;
}

function bitsToFloat(v: bigint, f: FloatFmt): number {
  const dv = new DataView(new ArrayBuffer(8));
  if (f === F32) {
    dv.setUint32(0, Number(v));
    return dv.getFloat32(0);
  }
  dv.setBigUint64(0, v);
  return dv.getFloat64(0);
}

/** A value for reports; `normalize` writes every NaN as "nan" (payloads are nondeterministic). */
function showValue(v: Value, normalize = false): string {
  if (v.kind === "ref") {
    if (v.isNull) return "ref.null";
    if ("value" in v && v.value !== undefined && v.value !== null) {
      const h = (v.value as { hostRef?: number }).hostRef;
      return h !== undefined ? `ref.host ${h}` : `ref(${typeof v.value})`;
    }
    return "ref(non-null)";
  }
  const n = NUM_SIZE[v.type];
  if (v.type === "v128") return `v128:${hex(v.bytes)}`;
  const bits = leValue(v.bytes, 0, n);
  if (v.type === "i32") return `i32:${BigInt.asIntN(32, bits)}`;
  if (v.type === "i64") return `i64:${BigInt.asIntN(64, bits)}`;
  const f = v.type === "f32" ? F32 : F64;
  if (isNanBits(bits, f)) return normalize ? `${v.type}:nan` : `${v.type}:nan(0x${bits.toString(16)})`;
  return `${v.type}:${bitsToFloat(bits, f)}${normalize ? "" : ` (0x${bits.toString(16)})`}`;
}

function showExpect(x: Expect): string {
  const lane = (l: Lane, float: FloatFmt | undefined, bits: number): string =>
    "nan" in l ? `nan:${l.nan}` : float ? (isNanBits(l.exact, float) ? `nan(0x${l.exact.toString(16)})` : String(bitsToFloat(l.exact, float))) : String(BigInt.asIntN(bits, l.exact));
  switch (x.kind) {
    case "either":
      return `either(${x.alts.map(showExpect).join(", ")})`;
    case "num":
      return `${x.type}:${lane(x.lane, x.type === "f32" ? F32 : x.type === "f64" ? F64 : undefined, Number(x.type.slice(1)))}`;
    case "v128": {
      const s = LANES[x.shape]!;
      return `v128:${x.shape}[${x.lanes.map((l) => lane(l, s.float, s.bits)).join(" ")}]`;
    }
    case "null":
      return "ref.null";
    case "host":
      return `${x.extern ? "ref.extern" : "ref.host"}${x.n === undefined ? "" : ` ${x.n}`}`;
    case "nonnull":
      return x.what;
  }
}

// ---------------------------------------------------------------------------
// Wrappers: exact calls and global reads

function compile(bytes: Uint8Array): WebAssembly.Module {
  return new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
}

/** WebAssembly.Exception (the TypeScript DOM library does not declare it). */
const WasmException = (WebAssembly as unknown as { Exception: abstract new (...args: never[]) => object }).Exception;

const NUM_OF_BYTE: Record<number, NumType> = { 0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128" };
const LOAD: Record<NumType, number[]> = { i32: [0x28], i64: [0x29], f32: [0x2a], f64: [0x2b], v128: [0xfd, 0x00] };
const STORE: Record<NumType, number[]> = { i32: [0x36], i64: [0x37], f32: [0x38], f64: [0x39], v128: [0xfd, 0x0b] };

function numTypeOf(vt: Uint8Array): NumType | undefined {
  return vt.length === 1 ? NUM_OF_BYTE[vt[0]!] : undefined;
}
/** The heap type bytes of a reference value type. */
function heapBytes(vt: Uint8Array): Uint8Array {
  return vt[0] === 0x63 || vt[0] === 0x64 ? vt.subarray(1) : vt;
}
function isExternType(vt: Uint8Array): boolean {
  const h = heapBytes(vt);
  return h.length === 1 && (h[0] === 0x6f || h[0] === 0x72);
}
/** A reference type made nullable (wrapper locals must be defaultable). */
function nullable(vt: Uint8Array): Uint8Array {
  if (vt[0] !== 0x64) return vt;
  const out = Uint8Array.from(vt);
  out[0] = 0x63;
  return out;
}
function isNullableRef(vt: Uint8Array): boolean {
  return vt[0] !== 0x64;
}

const SLOT = 16;

interface Wrapped {
  run: (...args: unknown[]) => unknown;
  mem: Uint8Array;
  /** Memory offset of the results. */
  resultBase: number;
}

/** Wrapper modules by type section, type and call shape; compiled once. */
const wrapperModules = new Map<string, WebAssembly.Module>();
function cachedModule(key: string, build: () => Uint8Array): WebAssembly.Module {
  let m = wrapperModules.get(key);
  if (!m) {
    if (wrapperModules.size > 20000) wrapperModules.clear();
    m = compile(build());
    wrapperModules.set(key, m);
  }
  return m;
}

/** The type section of a wrapper: the target module's types, then `extra` as one more function type. */
function wrapperTypes(info: ModInfo, params: Uint8Array[], results: Uint8Array[]): Writer {
  const w = new Writer().u32(info.typeEntries + 1).bytes(info.typePayload);
  w.byte(0x60).vec(params, (x, p) => x.bytes(p)).vec(results, (x, r) => x.bytes(r));
  return w;
}

/**
 * How each result leaves the wrapper: "num" stored into memory, "raw"
 * returned to JS as it is (extern references, or identity wanted), "null"
 * reduced to ref.is_null (stored as an i32).
 */
type ResultWay = "num" | "raw" | "null";

function buildCallWrapper(info: ModInfo, typeIdx: number, sig: FuncSig, nullArgs: boolean[], ways: ResultWay[]): Uint8Array {
  const runParams = sig.params.filter((p, i) => numTypeOf(p) === undefined && !nullArgs[i]);
  const runResults = sig.results.filter((_, k) => ways[k] === "raw").map(nullable);
  const P = runParams.length;
  const resultBase = SLOT * sig.params.length;
  const pages = Math.max(1, Math.ceil((resultBase + SLOT * sig.results.length) / 65536));
  const code = new Writer();
  code.vec(sig.results, (w, r) => w.u32(1).bytes(nullable(r))); // one (defaultable) local per result
  let refParam = 0;
  sig.params.forEach((p, i) => {
    const t = numTypeOf(p);
    if (t) code.byte(0x41).byte(0x00).bytes(LOAD[t]).u32(0).u32(SLOT * i);
    else if (nullArgs[i]) code.byte(0xd0).bytes(heapBytes(p));
    else code.byte(0x20).u32(refParam++);
  });
  code.byte(0x10).u32(0);
  for (let k = sig.results.length - 1; k >= 0; k--) code.byte(0x21).u32(P + k);
  sig.results.forEach((r, k) => {
    const t = numTypeOf(r);
    const at = resultBase + SLOT * k;
    if (t) code.byte(0x41).byte(0x00).byte(0x20).u32(P + k).bytes(STORE[t]).u32(0).u32(at);
    else if (ways[k] === "raw") code.byte(0x20).u32(P + k);
    else code.byte(0x41).byte(0x00).byte(0x20).u32(P + k).byte(0xd1).bytes(STORE.i32).u32(0).u32(at);
  });
  code.byte(0x0b);
  const m = new Writer().bytes(HEADER);
  m.section(1, wrapperTypes(info, runParams, runResults));
  m.section(2, new Writer().u32(1).name("m").name("f").byte(0x00).u32(typeIdx));
  m.section(3, new Writer().u32(1).u32(info.typeCount));
  m.section(5, new Writer().u32(1).byte(0x00).u32(pages));
  m.section(7, new Writer().u32(2).name("run").byte(0x00).u32(1).name("mem").byte(0x02).u32(0));
  m.section(10, new Writer().u32(1).u32(code.b.length).bytes(code.b));
  return m.out();
}

function buildGlobalWrapper(info: ModInfo, globalType: Uint8Array, way: ResultWay): Uint8Array {
  const vt = globalType.subarray(0, globalType.length - 1);
  const t = numTypeOf(vt);
  const code = new Writer().u32(0);
  if (t) code.byte(0x41).byte(0x00).byte(0x23).u32(0).bytes(STORE[t]).u32(0).u32(0);
  else if (way === "raw") code.byte(0x23).u32(0);
  else code.byte(0x41).byte(0x00).byte(0x23).u32(0).byte(0xd1).bytes(STORE.i32).u32(0).u32(0);
  code.byte(0x0b);
  const m = new Writer().bytes(HEADER);
  m.section(1, wrapperTypes(info, [], way === "raw" ? [nullable(vt)] : []));
  m.section(2, new Writer().u32(1).name("m").name("g").byte(0x03).bytes(globalType));
  m.section(3, new Writer().u32(1).u32(info.typeCount));
  m.section(5, new Writer().u32(1).byte(0x00).u32(1));
  m.section(7, new Writer().u32(2).name("run").byte(0x00).u32(0).name("mem").byte(0x02).u32(0));
  m.section(10, new Writer().u32(1).u32(code.b.length).bytes(code.b));
  return m.out();
}

/** Per target (function or global object): its wrapper instances by call shape. */
const wrappers = new WeakMap<object, Map<string, Wrapped>>();

function wrapped(target: object, shape: string, make: () => { module: WebAssembly.Module; imports: WebAssembly.Imports; resultBase: number }): Wrapped {
  let byShape = wrappers.get(target);
  if (!byShape) {
    byShape = new Map();
    wrappers.set(target, byShape);
  }
  let w = byShape.get(shape);
  if (!w) {
    const { module, imports, resultBase } = make();
    const inst = new WebAssembly.Instance(module, imports);
    const ex = inst.exports as { run: (...a: unknown[]) => unknown; mem: WebAssembly.Memory };
    w = { run: ex.run, mem: new Uint8Array(ex.mem.buffer), resultBase };
    byShape.set(shape, w);
  }
  return w;
}

// ---------------------------------------------------------------------------
// The spectest host module (as the reference interpreter defines it)

let spectestModule: WebAssembly.Module | undefined;

function spectestBytes(): Uint8Array {
  const sigs: number[][] = [[], [0x7f], [0x7e], [0x7d], [0x7c], [0x7f, 0x7d], [0x7c, 0x7c]];
  const names = ["print", "print_i32", "print_i64", "print_f32", "print_f64", "print_i32_f32", "print_f64_f64"];
  const m = new Writer().bytes(HEADER);
  m.section(1, new Writer().vec(sigs, (w, p) => w.byte(0x60).vec(p, (x, t) => x.byte(t)).u32(0)));
  m.section(3, new Writer().vec(sigs, (w, _p) => w.u32(sigs.indexOf(_p))));
  m.section(7, new Writer().vec(names, (w, n) => w.name(n).byte(0x00).u32(names.indexOf(n))));
  m.section(10, new Writer().vec(sigs, (w) => w.u32(2).u32(0).byte(0x0b)));
  return m.out();
}

/** A fresh spectest instance: typed print functions, globals, table 10..20 funcref, memory 1..2, shared memory 1..2. */
function spectest(): Record<string, unknown> {
  spectestModule ??= compile(spectestBytes());
  const inst = new WebAssembly.Instance(spectestModule, {});
  return {
    ...inst.exports,
    global_i32: new WebAssembly.Global({ value: "i32", mutable: false }, 666),
    global_i64: new WebAssembly.Global({ value: "i64", mutable: false }, 666n),
    global_f32: new WebAssembly.Global({ value: "f32", mutable: false }, 666.6),
    global_f64: new WebAssembly.Global({ value: "f64", mutable: false }, 666.6),
    table: new WebAssembly.Table({ element: "anyfunc", initial: 10, maximum: 20 }),
    memory: new WebAssembly.Memory({ initial: 1, maximum: 2 }),
    shared_memory: new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true } as WebAssembly.MemoryDescriptor),
  };
}

// ---------------------------------------------------------------------------
// Running a script

/** What one command did. `key` is what a variant must reproduce. */
interface Outcome {
  status: "pass" | "fail" | "skip";
  key: string;
  /** For reports. */
  detail: string;
}

interface Inst {
  exports: Record<string, unknown>;
  bytes: Uint8Array;
  info?: ModInfo;
}

/** The bytes to use for a module in a run, or why it has none. */
type ModuleBytes = { bytes: Uint8Array; optimizeError?: string } | { unavailable: string };

function errorName(e: unknown): string {
  if (e instanceof WebAssembly.CompileError) return "CompileError";
  if (e instanceof WebAssembly.LinkError) return "LinkError";
  if (e instanceof WebAssembly.RuntimeError) return "RuntimeError";
  if (e instanceof WasmException) return "wasm exception";
  if (e instanceof Error) return e.name;
  return typeof e;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function describe(e: unknown): string {
  return `${errorName(e)}: ${message(e)}`;
}

/** A V8 message with positions and indices taken out, for grouping skip reasons. */
function shortMessage(e: unknown): string {
  return message(e)
    .replace(/^WebAssembly\.\w+\(\): /, "")
    .replace(/Compiling function #\d+(:"[^"]*")? failed: /, "")
    .replace(/Import #\d+ "[^"]*"( "[^"]*")?:/, "import:")
    .replace(/ @\+\d+/g, "")
    .replace(/#\d+/g, "#N")
    .replace(/\b(func|function|type|global|table|memory|tag|index|local)( index)? \d+(?![x\d])/gi, "$1 N")
    .slice(0, 160);
}

const ASSERTIONS = new Set(["assert_return", "assert_trap", "assert_exhaustion", "assert_exception", "assert_unlinkable", "assert_uninstantiable"]);
const NOT_RUN = new Set(["assert_malformed", "assert_invalid", "assert_malformed_custom", "assert_invalid_custom"]);

const SKIP_UNAVAILABLE = "its module is not available (V8 did not instantiate it, or it was not encodable)";
const SKIP_UNENCODABLE = "text module wasm-tools cannot encode";

class ScriptRun {
  private readonly registry = new Map<string, Record<string, unknown>>();
  /** Named instances; null when the module failed. */
  private readonly named = new Map<string, Inst | null>();
  /** Module definitions by name ("" for the last unnamed one). */
  private readonly defs = new Map<string, { bytes: Uint8Array; module: WebAssembly.Module } | null>();
  private lastDef: { bytes: Uint8Array; module: WebAssembly.Module } | null | undefined;
  /** The current module: undefined before any, null if the last one failed. */
  private current: Inst | null | undefined;
  private readonly hosts = new Map<number, object>();
  /** Set once V8 rejected or failed to instantiate a module the suite calls valid: later outcomes may follow from it. */
  afterFailedModule = false;

  constructor(private readonly bytesOf: (m: WastModule) => ModuleBytes) {
    this.registry.set("spectest", spectest());
  }

  readonly host = (n: number): object => {
    let h = this.hosts.get(n);
    if (!h) {
      h = { hostRef: n };
      this.hosts.set(n, h);
    }
    return h;
  };

  private instantiate(module: WebAssembly.Module): { ok: true; exports: Record<string, unknown> } | { ok: false; stage: "link" | "start"; error: unknown } {
    const imports: Record<string, Record<string, unknown>> = {};
    for (const imp of WebAssembly.Module.imports(module)) {
      const reg = this.registry.get(imp.module);
      if (reg) imports[imp.module] = reg;
    }
    try {
      const inst = new WebAssembly.Instance(module, imports as WebAssembly.Imports);
      return { ok: true, exports: inst.exports as Record<string, unknown> };
    } catch (error) {
      const link = error instanceof WebAssembly.LinkError || (error instanceof TypeError && /^WebAssembly\.Instance\(\): Import/.test(error.message));
      return { ok: false, stage: link ? "link" : "start", error };
    }
  }

  /** Compiles and instantiates a module of the script. */
  private load(mod: WastModule): { kind: "unavailable"; why: string } | { kind: "compile"; error: unknown; bytes: Uint8Array } | { kind: "link" | "start"; error: unknown; bytes: Uint8Array } | { kind: "ok"; inst: Inst } {
    const b = this.bytesOf(mod);
    if ("unavailable" in b) return { kind: "unavailable", why: b.unavailable };
    let module: WebAssembly.Module;
    try {
      module = compile(b.bytes);
    } catch (error) {
      return { kind: "compile", error, bytes: b.bytes };
    }
    const r = this.instantiate(module);
    if (!r.ok) return { kind: r.stage, error: r.error, bytes: b.bytes };
    return { kind: "ok", inst: { exports: r.exports, bytes: b.bytes } };
  }

  private resolve(name: string | undefined): Inst | string {
    const inst = name === undefined ? this.current : this.named.get(name);
    if (inst === undefined) return name === undefined ? "no module yet" : `unknown module ${name}`;
    if (inst === null) return SKIP_UNAVAILABLE;
    return inst;
  }

  private infoOf(inst: Inst): ModInfo {
    inst.info ??= parseModInfo(inst.bytes);
    return inst.info;
  }

  /** Runs an action: the values it returned, or what it threw. */
  private action(e: SExpr | undefined, expects: Expect[] | null): { unavailable: string } | { ok: true; values: Value[] } | { ok: false; error: unknown } {
    if (e === undefined || e.t !== "list") throw new Unsupported("action expected");
    const it = items(e);
    const kind = atom(it[0]);
    let k = 1;
    let modName: string | undefined;
    const a1 = atom(it[1]);
    if (a1 !== undefined && a1.startsWith("$")) {
      modName = utf8Atom(a1);
      k++;
    }
    const nameExpr = it[k];
    if (nameExpr?.t !== "string") throw new Unsupported("export name expected");
    const name = Buffer.from(nameExpr.bytes).toString("utf8");
    const inst = this.resolve(modName);
    if (typeof inst === "string") return { unavailable: inst };
    const target = inst.exports[name];
    if (kind === "invoke") {
      const args = it.slice(k + 1).map(parseArg);
      return this.invoke(inst, name, target, args, expects);
    }
    if (kind === "get") return this.get(inst, name, target, expects);
    throw new Unsupported(`action ${kind}`);
  }

  private invoke(inst: Inst, name: string, target: unknown, args: Arg[], expects: Expect[] | null): { ok: true; values: Value[] } | { ok: false; error: unknown } {
    if (typeof target !== "function") return { ok: false, error: new TypeError(`export ${JSON.stringify(name)} is not a function`) };
    const info = this.infoOf(inst);
    const ex = info.exports.get(name);
    if (!ex || ex.kind !== 0) throw new Unsupported(`export ${name} not found in the binary`);
    const typeIdx = info.funcTypes[ex.index];
    const sig = typeIdx === undefined ? undefined : info.sigs.get(typeIdx);
    if (typeIdx === undefined || !sig) throw new Unsupported(`type of export ${name}`);
    if (args.length !== sig.params.length) return { ok: false, error: new TypeError(`${args.length} arguments for ${sig.params.length} parameters`) };
    const refArgs: unknown[] = [];
    const nullArgs: boolean[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const p = sig.params[i]!;
      const t = numTypeOf(p);
      if (a.kind === "num") {
        if (a.type !== t) return { ok: false, error: new TypeError(`argument ${i} is ${a.type}, the parameter is not`) };
        nullArgs.push(false);
      } else if (t !== undefined) {
        return { ok: false, error: new TypeError(`argument ${i} is a reference, the parameter is ${t}`) };
      } else if (a.kind === "null") {
        if (!isNullableRef(p)) return { ok: false, error: new TypeError(`argument ${i} is null, the parameter is non-nullable`) };
        nullArgs.push(true);
      } else {
        nullArgs.push(false);
        refArgs.push(this.host(a.n));
      }
    }
    const ways: ResultWay[] = sig.results.map((r, k) => {
      if (numTypeOf(r) !== undefined) return "num";
      if (isExternType(r)) return "raw";
      const x = expects?.[k];
      return x && wantsIdentity(x) ? "raw" : "null";
    });
    const shape = `${nullArgs.map((n) => (n ? 1 : 0)).join("")}|${ways.join(",")}`;
    const w = wrapped(target, shape, () => ({
      module: cachedModule(`${info.typeKey}|f${typeIdx}|${shape}`, () => buildCallWrapper(info, typeIdx, sig, nullArgs, ways)),
      imports: { m: { f: target } } as WebAssembly.Imports,
      resultBase: SLOT * sig.params.length,
    }));
    args.forEach((a, i) => {
      if (a.kind === "num") w.mem.set(a.bytes, SLOT * i);
    });
    let returned: unknown;
    try {
      returned = w.run(...refArgs);
    } catch (error) {
      return { ok: false, error };
    }
    const raws = ways.filter((x) => x === "raw").length;
    const rawValues: unknown[] = raws === 0 ? [] : raws === 1 ? [returned] : [...(returned as Iterable<unknown>)];
    let rawAt = 0;
    const values: Value[] = sig.results.map((r, k) => {
      const at = w.resultBase + SLOT * k;
      const t = numTypeOf(r);
      if (t) return { kind: "num", type: t, bytes: w.mem.slice(at, at + NUM_SIZE[t]) };
      if (ways[k] === "raw") {
        const value = rawValues[rawAt++];
        return { kind: "ref", isNull: value === null, value, extern: isExternType(r) };
      }
      return { kind: "ref", isNull: w.mem[at] === 1, extern: false };
    });
    return { ok: true, values };
  }

  private get(inst: Inst, name: string, target: unknown, expects: Expect[] | null): { ok: true; values: Value[] } | { ok: false; error: unknown } {
    if (!(target instanceof WebAssembly.Global)) return { ok: false, error: new TypeError(`export ${JSON.stringify(name)} is not a global`) };
    const info = this.infoOf(inst);
    const ex = info.exports.get(name);
    if (!ex || ex.kind !== 3) throw new Unsupported(`export ${name} not found in the binary`);
    const gt = info.globalTypes?.[ex.index];
    if (!gt) throw new Unsupported(`type of global ${name}`);
    const vt = gt.subarray(0, gt.length - 1);
    const t = numTypeOf(vt);
    const x = expects?.[0];
    const way: ResultWay = t ? "num" : isExternType(vt) || (x !== undefined && wantsIdentity(x)) ? "raw" : "null";
    const w = wrapped(target, way, () => ({
      module: cachedModule(`${info.typeKey}|g${hex(gt)}|${way}`, () => buildGlobalWrapper(info, gt, way)),
      imports: { m: { g: target } } as WebAssembly.Imports,
      resultBase: 0,
    }));
    let returned: unknown;
    try {
      returned = w.run();
    } catch (error) {
      return { ok: false, error };
    }
    if (t) return { ok: true, values: [{ kind: "num", type: t, bytes: w.mem.slice(0, NUM_SIZE[t]) }] };
    if (way === "raw") return { ok: true, values: [{ kind: "ref", isNull: returned === null, value: returned, extern: isExternType(vt) }] };
    return { ok: true, values: [{ kind: "ref", isNull: w.mem[0] === 1, extern: false }] };
  }

  /** A command left out: a module it would define is unavailable to the commands after it. */
  notRun(c: WastCommand): void {
    if (c.kind !== "module" && c.kind !== "module_instance") return;
    this.afterFailedModule = true;
    if (c.kind === "module" && c.module!.definition) {
      this.lastDef = null;
      if (c.module!.name !== undefined) this.defs.set(c.module!.name, null);
      return;
    }
    this.current = null;
    const name = c.kind === "module" ? c.module!.name : atom((c.expr ? items(c.expr) : [])[2]);
    if (name !== undefined) this.named.set(c.kind === "module" ? name : utf8Atom(name), null);
  }

  /** Runs one command. */
  run(c: WastCommand): Outcome {
    try {
      return this.runCommand(c);
    } catch (e) {
      if (e instanceof Unsupported) return { status: "skip", key: "", detail: `executor: unsupported ${e.message}` };
      throw e;
    }
  }

  private moduleOutcome(c: WastCommand, mod: WastModule, optimizeNote: () => string | undefined): Outcome {
    const r = this.load(mod);
    const note = optimizeNote();
    const prefix = note ? `${note}; ` : "";
    switch (r.kind) {
      case "unavailable":
        return { status: "skip", key: "", detail: r.why };
      case "compile":
        this.afterFailedModule = true;
        return { status: "fail", key: "compile error", detail: `${prefix}V8 rejects the module: ${shortMessage(r.error)}` };
      case "link":
      case "start":
        if (c.kind === "assert_unlinkable" && r.kind === "link") return { status: "pass", key: "unlinkable", detail: `${prefix}unlinkable (${describe(r.error)})` };
        if ((c.kind === "assert_uninstantiable" || c.kind === "assert_trap") && r.kind === "start" && r.error instanceof WebAssembly.RuntimeError) {
          return { status: "pass", key: `trap: ${message(r.error)}`, detail: `${prefix}instantiation traps (${message(r.error)})` };
        }
        return { status: "fail", key: `${r.kind}: ${errorName(r.error)}`, detail: `${prefix}${r.kind === "link" ? "link error" : "instantiation fails"}: ${shortMessage(r.error)}` };
      case "ok":
        if (c.kind === "module") {
          if (mod.name !== undefined) this.named.set(mod.name, r.inst);
          this.current = r.inst;
          return { status: "pass", key: "instantiated", detail: `${prefix}instantiated` };
        }
        return { status: "fail", key: "instantiated", detail: `${prefix}instantiated (the suite expects ${c.kind === "assert_unlinkable" ? "a link error" : "a trap"})` };
    }
  }

  private noteOf(mod: WastModule): () => string | undefined {
    return () => {
      const b = this.bytesOf(mod);
      return "optimizeError" in b ? b.optimizeError : undefined;
    };
  }

  private runCommand(c: WastCommand): Outcome {
    const e = c.expr;
    switch (c.kind) {
      case "module": {
        const mod = c.module!;
        if (mod.definition) {
          const b = this.bytesOf(mod);
          if ("unavailable" in b) {
            this.lastDef = null;
            if (mod.name !== undefined) this.defs.set(mod.name, null);
            return { status: "skip", key: "", detail: b.unavailable };
          }
          try {
            const def = { bytes: b.bytes, module: compile(b.bytes) };
            this.lastDef = def;
            if (mod.name !== undefined) this.defs.set(mod.name, def);
            return { status: "pass", key: "compiled", detail: "compiled" };
          } catch (error) {
            this.afterFailedModule = true;
            this.lastDef = null;
            if (mod.name !== undefined) this.defs.set(mod.name, null);
            return { status: "fail", key: "compile error", detail: `V8 rejects the module: ${shortMessage(error)}` };
          }
        }
        const out = this.moduleOutcome(c, mod, this.noteOf(mod));
        if (out.status !== "pass") {
          this.afterFailedModule = true;
          this.current = null;
          if (mod.name !== undefined) this.named.set(mod.name, null);
        }
        return out;
      }
      case "module_instance": {
        const names = (e ? items(e).slice(2) : []).map(atom).filter((x): x is string => x !== undefined).map(utf8Atom);
        const instName = names[0];
        const defName = names[1];
        const def = defName !== undefined ? this.defs.get(defName) : this.lastDef;
        if (!def) {
          this.current = null;
          if (instName !== undefined) this.named.set(instName, null);
          return { status: "skip", key: "", detail: def === null ? SKIP_UNAVAILABLE : `unknown module definition ${defName ?? ""}` };
        }
        const r = this.instantiate(def.module);
        if (!r.ok) {
          this.afterFailedModule = true;
          this.current = null;
          if (instName !== undefined) this.named.set(instName, null);
          return { status: "fail", key: `${r.stage}: ${errorName(r.error)}`, detail: `instantiation fails: ${shortMessage(r.error)}` };
        }
        const inst: Inst = { exports: r.exports, bytes: def.bytes };
        this.current = inst;
        if (instName !== undefined) this.named.set(instName, inst);
        return { status: "pass", key: "instantiated", detail: "instantiated" };
      }
      case "register": {
        const it = e ? items(e) : [];
        const nameExpr = it[1];
        if (nameExpr?.t !== "string") throw new Unsupported("register without a name");
        const as = Buffer.from(nameExpr.bytes).toString("utf8");
        const m = atom(it[2]);
        const inst = this.resolve(m === undefined ? undefined : utf8Atom(m));
        if (typeof inst === "string") return { status: "skip", key: "", detail: inst };
        this.registry.set(as, inst.exports);
        return { status: "pass", key: "registered", detail: "registered" };
      }
      case "invoke":
      case "get": {
        const r = this.action(e, null);
        if ("unavailable" in r) return { status: "skip", key: "", detail: r.unavailable };
        if (!r.ok) return { status: "fail", key: `throws ${errorName(r.error)}: ${message(r.error)}`, detail: `${describe(r.error)} (the suite expects it to return)` };
        const shown = r.values.map((v) => showValue(v, true)).join(" ");
        return { status: "pass", key: `returns ${shown}`, detail: `returns ${r.values.map((v) => showValue(v)).join(" ") || "nothing"}` };
      }
      case "assert_return": {
        const it = items(e!);
        const expects = it.slice(2).map(parseExpect);
        const r = this.action(it[1], expects);
        if ("unavailable" in r) return { status: "skip", key: "", detail: r.unavailable };
        const want = `expects ${expects.map(showExpect).join(" ") || "nothing"}`;
        if (!r.ok) return { status: "fail", key: `throws ${errorName(r.error)}: ${message(r.error)}`, detail: `${describe(r.error)} (${want})` };
        const got = `returns ${r.values.map((v) => showValue(v)).join(" ") || "nothing"}`;
        const ok = r.values.length === expects.length && expects.every((x, i) => matches(x, r.values[i]!, this.host));
        return ok ? { status: "pass", key: "as expected", detail: got } : { status: "fail", key: `returns ${r.values.map((v) => showValue(v, true)).join(" ")}`, detail: `${got} (${want})` };
      }
      case "assert_trap":
      case "assert_exhaustion":
      case "assert_exception": {
        if (c.kind === "assert_trap" && c.module) return this.moduleOutcome(c, c.module, this.noteOf(c.module));
        const it = items(e!);
        const r = this.action(it[1], null);
        if ("unavailable" in r) return { status: "skip", key: "", detail: r.unavailable };
        if (r.ok) return { status: "fail", key: `returns ${r.values.map((v) => showValue(v, true)).join(" ")}`, detail: `returns ${r.values.map((v) => showValue(v)).join(" ") || "nothing"} (the suite expects ${c.kind === "assert_trap" ? "a trap" : c.kind === "assert_exhaustion" ? "stack exhaustion" : "an exception"})` };
        const err = r.error;
        if (c.kind === "assert_trap" && err instanceof WebAssembly.RuntimeError) return { status: "pass", key: `trap: ${message(err)}`, detail: `traps: ${message(err)}` };
        if (c.kind === "assert_exhaustion" && err instanceof RangeError) return { status: "pass", key: "exhaustion", detail: `exhausts the stack: ${message(err)}` };
        if (c.kind === "assert_exception" && err instanceof WasmException) return { status: "pass", key: "exception", detail: "throws a wasm exception" };
        return { status: "fail", key: `throws ${errorName(err)}: ${message(err)}`, detail: `${describe(err)} (the suite expects ${c.kind.slice(7)})` };
      }
      case "assert_unlinkable":
      case "assert_uninstantiable":
        return this.moduleOutcome(c, c.module!, this.noteOf(c.module!));
      default:
        return { status: "skip", key: "", detail: `command ${c.head} is not run by the executor` };
    }
  }
}

function wantsIdentity(x: Expect): boolean {
  if (x.kind === "either") return x.alts.some(wantsIdentity);
  return x.kind === "host" && x.n !== undefined;
}

// ---------------------------------------------------------------------------
// Scripts and variants

export interface ExecOptions extends RunOptions {
  variants: Variant[];
  /** Called as the script moves on ("original", then each variant's name). */
  onPhase?: (phase: string) => void;
  /** Keep each command's original outcome in the result (for tests and debugging). */
  keepOutcomes?: boolean;
  /** Commands not to run, by line, with the reason (commands V8 crashes on). */
  skipLines?: Record<string, string>;
  /** Called before each command of each run (to locate a crash). */
  onCommand?: (line: number) => void;
}

function commandText(src: string, c: WastCommand): string {
  if (!c.expr) return c.head;
  const t = Buffer.from(src.slice(c.expr.start, c.expr.end), "latin1").toString("utf8").replace(/\s+/g, " ");
  if (c.module && (c.kind === "module" || c.module.form !== "text" || t.length > 200)) {
    const m = c.module;
    const label = `(module${m.definition ? " definition" : ""}${m.name ? ` ${m.name}` : ""}${m.form === "text" ? "" : ` ${m.form}`} ...)`;
    return c.kind === "module" ? label : `(${c.kind} ${label})`;
  }
  return t.length > 200 ? `${t.slice(0, 197)}...` : t;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

function emptyResult(file: string, variants: Variant[]): ExecResult {
  return {
    file,
    group: groupOf(file),
    variants: variants.map((v) => v.name),
    commands: 0,
    checked: 0,
    checkedAssertions: 0,
    skips: {},
    agree: 0,
    differ: 0,
    notOptimized: {},
    optimized: 0,
    changed: 0,
    changedBy: {},
    differences: [],
    ms: 0,
  };
}

function bump(r: Record<string, number>, k: string, n = 1): void {
  r[k] = (r[k] ?? 0) + n;
}

/** Why an original outcome is not compared, as a reason to group by. */
function skipReason(c: WastCommand, o: Outcome, afterFailedModule: boolean): string {
  if (o.status === "skip") return o.detail;
  if (o.key === "compile error") {
    const why = o.detail.replace(/^V8 rejects the module: /, "");
    // V8 11.3 (Node 20) predates the final GC encoding: it reads 0x63/0x64 ((ref null ht)/(ref ht)) as string types.
    const hint = /stringview|'stringref'/.test(why) ? " (V8 11.3 predates the final GC type encoding: 0x63/0x64 are (ref null ht)/(ref ht) in the spec)" : "";
    return `V8 (Node ${process.versions.node}) rejects a module: ${why}${hint}`;
  }
  const after = afterFailedModule ? ", after V8 failed an earlier module of the script" : "";
  return `V8 disagrees with the suite (${c.kind}${after}): ${o.detail.replace(/\d+/g, "N").slice(0, 160)}`;
}

/** Runs one script: originals, then each variant, and compares. */
export async function execScript(path: string, suiteDir: string, options: ExecOptions): Promise<ExecResult> {
  const t0 = performance.now();
  const rel = relative(suiteDir, path).split(sep).join("/");
  const result = emptyResult(rel, options.variants);
  const source = readFileSync(path);
  const src = source.toString("latin1");
  let commands: WastCommand[];
  try {
    commands = parseWast(source);
  } catch (e) {
    result.scriptSkipped = `script not readable: ${message(e)}`;
    result.ms = performance.now() - t0;
    return result;
  }
  if (commands.some((c) => c.kind === "wait")) {
    result.scriptSkipped = "threads: its (thread ...) blocks run concurrently and wait on each other; this executor is single-threaded";
    result.ms = performance.now() - t0;
    return result;
  }
  const { converted } = await encodeModules(rel, commands, options);
  const runnable = commands.filter((c) => !NOT_RUN.has(c.kind));
  result.commands = runnable.length;
  const skipLines = options.skipLines ?? {};
  /** Runs a command, unless it is one to skip. */
  const runOne = (run: ScriptRun, c: WastCommand): Outcome => {
    const why = skipLines[String(c.line)];
    if (why !== undefined) {
      run.notRun(c);
      return { status: "skip", key: "", detail: why };
    }
    options.onCommand?.(c.line);
    return run.run(c);
  };

  const originalBytes = (m: WastModule): ModuleBytes => {
    if (m.form === "binary") return { bytes: m.bytes! };
    const conv: Converted | undefined = converted.get(m);
    if (!conv) return { unavailable: SKIP_UNENCODABLE };
    return "bytes" in conv ? { bytes: conv.bytes } : { unavailable: `${SKIP_UNENCODABLE}` };
  };

  options.onPhase?.("original");
  const base = new ScriptRun(originalBytes);
  const originals: Outcome[] = [];
  const compared: boolean[] = runnable.map((c) => {
    const after = base.afterFailedModule;
    const o = runOne(base, c);
    originals.push(o);
    if (o.status === "pass") {
      result.checked++;
      if (ASSERTIONS.has(c.kind)) result.checkedAssertions++;
      return true;
    }
    bump(result.skips, skipReason(c, o, after));
    return false;
  });
  if (options.keepOutcomes) result.outcomes = originals.map((o, i) => ({ line: runnable[i]!.line, kind: runnable[i]!.kind, status: o.status, detail: o.detail }));

  for (const v of options.variants) {
    options.onPhase?.(v.name);
    const cache = new Map<Uint8Array, ModuleBytes>();
    const variantBytes = (m: WastModule): ModuleBytes => {
      const orig = originalBytes(m);
      if ("unavailable" in orig) return orig;
      let out = cache.get(orig.bytes);
      if (!out) {
        try {
          out = { bytes: optimize(orig.bytes, { passes: v.passes, target: v.target ?? "raw", measures: nodeMeasures, outlineHot: v.outlineHot }).binary };
          result.optimized++;
          if (!sameBytes(out.bytes, orig.bytes)) {
            result.changed++;
            bump(result.changedBy, v.name);
          }
        } catch (e) {
          if (e instanceof WasmDecodeError || e instanceof WasmValidationError) {
            bump(result.notOptimized, `our ${e instanceof WasmDecodeError ? "reader" : "validator"} rejects the module (npm run spec lists it)`);
            out = { bytes: orig.bytes };
          } else {
            out = { bytes: orig.bytes, optimizeError: `optimize threw ${describe(e)}` };
          }
        }
        cache.set(orig.bytes, out);
      }
      return out;
    };
    const run = new ScriptRun(variantBytes);
    runnable.forEach((c, i) => {
      const o = runOne(run, c);
      if (!compared[i]) return;
      const orig = originals[i]!;
      const noted = c.module ? variantBytes(c.module) : undefined;
      const optimizeError = noted && "optimizeError" in noted ? noted.optimizeError : undefined;
      if (o.status === "pass" && o.key === orig.key && optimizeError === undefined) {
        result.agree++;
        return;
      }
      result.differ++;
      result.differences.push({
        file: rel,
        line: c.line,
        command: commandText(src, c),
        variant: v.name,
        original: orig.detail,
        optimized: optimizeError !== undefined && !o.detail.startsWith(optimizeError) ? `${optimizeError}; ${o.detail}` : o.detail,
      });
    });
  }
  result.ms = performance.now() - t0;
  return result;
}

// ---------------------------------------------------------------------------
// Child processes: the executor runs under V8_FLAGS, scripts spread over jobs

/** The CLI that runs scripts in child mode (built to dist/). */
export function childScript(): string {
  return join(projectRoot(), "dist", "scripts", "spec-exec.js");
}

/** One line a child writes per event. */
export type ChildEvent =
  | { event: "phase"; file: string; phase: string }
  | { event: "at"; file: string; line: number }
  | { event: "result"; result: ExecResult };

/** One line the parent writes to a child per script. */
export interface ChildJob {
  file: string;
  /** Commands not to run (by line), with the reason: the ones V8 crashed on. */
  skip?: Record<string, string>;
  /** Report every command before running it (to find the one V8 crashes on). */
  trace?: boolean;
}

export interface ParallelOptions {
  files: string[];
  suiteDir: string;
  variants: string[];
  jobs: number;
  /** A phase (one script's original run, or one variant of it) that takes longer is killed and reported. */
  phaseTimeoutMs?: number;
  cache?: boolean;
  onResult?: (r: ExecResult) => void;
}

/** A script ended by the watchdog or by a crashed child. */
function failedScript(file: string, suiteDir: string, variants: string[], phase: string | undefined, line: number | undefined, why: string): ExecResult {
  const rel = relative(suiteDir, file).split(sep).join("/");
  const r = emptyResult(rel, variants.map((name) => ({ name, passes: [] })));
  if (phase === undefined || phase === "original") {
    r.scriptSkipped = `the original run ${why}`;
  } else {
    r.differ = 1;
    r.differences.push({ file: rel, line: line ?? 0, command: line === undefined ? "(whole script)" : "(the command at this line)", variant: phase, original: "the original run completed", optimized: why });
  }
  return r;
}

/** The V8 fatal error in a crashed child's stderr, or its last lines. */
function crashReason(stderr: string): string {
  const fatal = /^# (Check failed: .*|Fatal error.*|Debug check failed: .*)$/m.exec(stderr.split("# Fatal error in").pop() ?? "") ?? /(Check failed: .*)/.exec(stderr);
  return fatal ? `V8 fatal error: ${fatal[1]!.trim()}` : stderr.trim().split("\n").slice(-3).join(" | ");
}

/** How often a script is retried after V8 crashed on one of its commands. */
const MAX_CRASH_RETRIES = 20;

/**
 * Runs scripts in `jobs` child processes (node with V8_FLAGS, the CLI in
 * child mode), biggest scripts first. A child that stalls is killed and its
 * script reported. A child that crashes in the original run (V8 itself
 * aborts on some modules) is rerun with every command traced, then again
 * with the command it crashed on skipped (with V8's message as the reason);
 * a crash in a variant only is a difference. Other scripts go on in a new child.
 */
export async function runInChildren(o: ParallelOptions): Promise<ExecResult[]> {
  const queue: ChildJob[] = [...o.files].sort((a, b) => sizeOf(b) - sizeOf(a)).map((file) => ({ file }));
  const attempts = new Map<string, number>();
  const results: ExecResult[] = [];
  const timeout = o.phaseTimeoutMs ?? 180_000;
  const report = (r: ExecResult): void => {
    results.push(r);
    o.onResult?.(r);
  };
  const worker = async (): Promise<void> => {
    while (queue.length > 0) {
      // A child takes scripts from the shared queue one at a time, through its stdin.
      await new Promise<void>((resolve) => {
        const child: ChildProcess = spawn(process.execPath, [...V8_FLAGS, childScript(), "--child", "--suite", o.suiteDir, "--variants", o.variants.join(","), ...(o.cache === false ? ["--no-cache"] : [])], {
          stdio: ["pipe", "pipe", "pipe"],
        });
        let current: ChildJob | undefined;
        let phase: string | undefined;
        let line: number | undefined;
        let timer: NodeJS.Timeout | undefined;
        let stderr = "";
        let finished = false;
        const arm = (): void => {
          if (timer) clearTimeout(timer);
          timer = setTimeout(() => {
            if (current !== undefined) {
              report(failedScript(current.file, o.suiteDir, o.variants, phase, line, `did not finish within ${timeout / 1000} s (phase ${phase ?? "start"})`));
              current = undefined;
            }
            child.kill("SIGKILL");
          }, timeout);
        };
        const next = (): void => {
          const job = queue.shift();
          if (job === undefined) {
            current = undefined;
            child.stdin!.end();
            return;
          }
          current = job;
          phase = undefined;
          line = undefined;
          arm();
          child.stdin!.write(`${JSON.stringify(job)}\n`);
        };
        child.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
          if (stderr.length > 20000) stderr = stderr.slice(-20000);
        });
        createInterface({ input: child.stdout! }).on("line", (text) => {
          let ev: ChildEvent;
          try {
            ev = JSON.parse(text) as ChildEvent;
          } catch {
            return;
          }
          if (ev.event === "phase") {
            phase = ev.phase;
            line = undefined;
            arm();
          } else if (ev.event === "at") {
            line = ev.line;
          } else {
            report(ev.result);
            next();
          }
        });
        child.on("exit", (code, signal) => {
          if (timer) clearTimeout(timer);
          if (finished) return;
          finished = true;
          const job = current;
          if (job !== undefined) {
            const why = `crashed node (exit ${code ?? signal}): ${crashReason(stderr)}`;
            const n = (attempts.get(job.file) ?? 0) + 1;
            attempts.set(job.file, n);
            if ((phase === undefined || phase === "original") && n <= MAX_CRASH_RETRIES) {
              // Find the command V8 crashes on, then skip it.
              const skip = { ...job.skip };
              if (job.trace && line !== undefined) skip[String(line)] = `V8 (Node ${process.versions.node}) crashed on it: ${crashReason(stderr)}`;
              queue.unshift({ file: job.file, skip, trace: true });
            } else {
              report(failedScript(job.file, o.suiteDir, o.variants, phase, job.trace ? line : undefined, why));
            }
          }
          resolve();
        });
        next();
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.jobs, o.files.length)) }, worker));
  return results;
}

function sizeOf(f: string): number {
  try {
    return readFileSync(f).length;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------
// Summaries

export interface ExecSummary {
  group: string;
  scripts: number;
  scriptsSkipped: number;
  commands: number;
  checked: number;
  checkedAssertions: number;
  skipped: number;
  agree: number;
  differ: number;
  optimized: number;
  changed: number;
  changedBy: Record<string, number>;
  skips: Record<string, number>;
  scriptSkips: Record<string, number>;
  notOptimized: Record<string, number>;
}

export function summarizeExec(results: ExecResult[], groupOfResult: (r: ExecResult) => string = (r) => r.group): ExecSummary[] {
  const by = new Map<string, ExecSummary>();
  for (const r of results) {
    const g = groupOfResult(r);
    let s = by.get(g);
    if (!s) {
      s = { group: g, scripts: 0, scriptsSkipped: 0, commands: 0, checked: 0, checkedAssertions: 0, skipped: 0, agree: 0, differ: 0, optimized: 0, changed: 0, changedBy: {}, skips: {}, scriptSkips: {}, notOptimized: {} };
      by.set(g, s);
    }
    s.scripts++;
    if (r.scriptSkipped !== undefined) {
      s.scriptsSkipped++;
      bump(s.scriptSkips, r.scriptSkipped);
    }
    s.commands += r.commands;
    s.checked += r.checked;
    s.checkedAssertions += r.checkedAssertions;
    s.agree += r.agree;
    s.differ += r.differ;
    s.optimized += r.optimized;
    s.changed += r.changed;
    for (const [k, n] of Object.entries(r.changedBy ?? {})) bump(s.changedBy, k, n);
    for (const [k, n] of Object.entries(r.skips)) {
      s.skipped += n;
      bump(s.skips, k, n);
    }
    for (const [k, n] of Object.entries(r.notOptimized)) bump(s.notOptimized, k, n);
  }
  return [...by.values()];
}
