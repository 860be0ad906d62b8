// Type checking of instruction sequences (function bodies and constant
// expressions): the validation algorithm of the WebAssembly 3.0 spec
// (appendix "Validation Algorithm"), extended with the legacy exception
// instructions (try/catch/catch_all/delegate/rethrow) and the threads
// proposal's atomics.
//
// Speed: the operand stack is a growable Int32Array of ValTypes (BOT = the
// unknown type of unreachable code), control frames live in parallel typed
// arrays, per-op data (kind, fixed signature, natural alignment, lane count)
// is computed once from the opcode table, and nothing is allocated per
// instruction. One CodeValidator is reused for every body of a module.
//
// The validator is also the project's stack typer: on request it records
// the typing of a body (analysis/body-typing.ts), and in open mode it types
// a sequence cut out of a body, whose pops below its start are its inputs
// (outline's candidates). Recording costs one null test per push and pop
// when it is off; open mode costs nothing outside the empty-stack path.

import { WasmValidationError } from "../binary/errors.js";
import { OPS, Imm, idOf } from "../binary/opcodes/index.js";
import { BLOCK_EMPTY, type Body } from "../ir/body.js";
import {
  F32,
  F64,
  HT_ANY,
  HT_ARRAY,
  HT_EQ,
  HT_EXN,
  HT_EXTERN,
  HT_FUNC,
  HT_I31,
  I16,
  I32,
  I64,
  I8,
  REF_BASE,
  V128,
  heapOf,
  refType,
  type FieldType,
  type ValType,
} from "../ir/types.js";
import {
  BOT,
  KIND_ARRAY,
  KIND_FUNC,
  KIND_STRUCT,
  REF_BOT,
  isDefaultable,
  isHeapSubtype,
  isStorageSubtype,
  isSubtype,
  isValidHeapType,
  isValidValType,
  topHeapType,
  typeName,
  unpacked,
  type TypeContext,
} from "./typecontext.js";
import type { ModuleEnv } from "./module-env.js";
import type { TypingRecorder } from "./body-typing.js";

// ---- per-op data, computed once ----

const enum K {
  INVALID = 0,
  SIG,
  MEM,
  LANE,
  MEMLANE,
  SHUFFLE,
  UNREACHABLE,
  NOP,
  BLOCK,
  LOOP,
  IF,
  ELSE,
  TRY,
  CATCH,
  THROW,
  RETHROW,
  THROW_REF,
  END,
  BR,
  BR_IF,
  BR_TABLE,
  RETURN,
  CALL,
  CALL_INDIRECT,
  RETURN_CALL,
  RETURN_CALL_INDIRECT,
  CALL_REF,
  RETURN_CALL_REF,
  DELEGATE,
  CATCH_ALL,
  DROP,
  SELECT,
  SELECT_T,
  TRY_TABLE,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  GLOBAL_GET,
  GLOBAL_SET,
  TABLE_GET,
  TABLE_SET,
  MEMORY_SIZE,
  MEMORY_GROW,
  REF_NULL,
  REF_IS_NULL,
  REF_FUNC,
  REF_EQ,
  REF_AS_NON_NULL,
  BR_ON_NULL,
  BR_ON_NON_NULL,
  MEMORY_INIT,
  DATA_DROP,
  MEMORY_COPY,
  MEMORY_FILL,
  TABLE_INIT,
  ELEM_DROP,
  TABLE_COPY,
  TABLE_GROW,
  TABLE_SIZE,
  TABLE_FILL,
  STRUCT_NEW,
  STRUCT_NEW_DEFAULT,
  STRUCT_GET,
  STRUCT_GET_S,
  STRUCT_GET_U,
  STRUCT_SET,
  ARRAY_NEW,
  ARRAY_NEW_DEFAULT,
  ARRAY_NEW_FIXED,
  ARRAY_NEW_DATA,
  ARRAY_NEW_ELEM,
  ARRAY_GET,
  ARRAY_GET_S,
  ARRAY_GET_U,
  ARRAY_SET,
  ARRAY_LEN,
  ARRAY_FILL,
  ARRAY_COPY,
  ARRAY_INIT_DATA,
  ARRAY_INIT_ELEM,
  REF_TEST,
  REF_TEST_NULL,
  REF_CAST,
  REF_CAST_NULL,
  BR_ON_CAST,
  BR_ON_CAST_FAIL,
  ANY_CONVERT_EXTERN,
  EXTERN_CONVERT_ANY,
  REF_I31,
  I31_GET_S,
  I31_GET_U,
}

const SPECIAL: [string, K][] = [
  ["unreachable", K.UNREACHABLE],
  ["nop", K.NOP],
  ["block", K.BLOCK],
  ["loop", K.LOOP],
  ["if", K.IF],
  ["else", K.ELSE],
  ["try", K.TRY],
  ["catch", K.CATCH],
  ["throw", K.THROW],
  ["rethrow", K.RETHROW],
  ["throw_ref", K.THROW_REF],
  ["end", K.END],
  ["br", K.BR],
  ["br_if", K.BR_IF],
  ["br_table", K.BR_TABLE],
  ["return", K.RETURN],
  ["call", K.CALL],
  ["call_indirect", K.CALL_INDIRECT],
  ["return_call", K.RETURN_CALL],
  ["return_call_indirect", K.RETURN_CALL_INDIRECT],
  ["call_ref", K.CALL_REF],
  ["return_call_ref", K.RETURN_CALL_REF],
  ["delegate", K.DELEGATE],
  ["catch_all", K.CATCH_ALL],
  ["drop", K.DROP],
  ["select", K.SELECT],
  ["select_t", K.SELECT_T],
  ["try_table", K.TRY_TABLE],
  ["local.get", K.LOCAL_GET],
  ["local.set", K.LOCAL_SET],
  ["local.tee", K.LOCAL_TEE],
  ["global.get", K.GLOBAL_GET],
  ["global.set", K.GLOBAL_SET],
  ["table.get", K.TABLE_GET],
  ["table.set", K.TABLE_SET],
  ["memory.size", K.MEMORY_SIZE],
  ["memory.grow", K.MEMORY_GROW],
  ["ref.null", K.REF_NULL],
  ["ref.is_null", K.REF_IS_NULL],
  ["ref.func", K.REF_FUNC],
  ["ref.eq", K.REF_EQ],
  ["ref.as_non_null", K.REF_AS_NON_NULL],
  ["br_on_null", K.BR_ON_NULL],
  ["br_on_non_null", K.BR_ON_NON_NULL],
  ["memory.init", K.MEMORY_INIT],
  ["data.drop", K.DATA_DROP],
  ["memory.copy", K.MEMORY_COPY],
  ["memory.fill", K.MEMORY_FILL],
  ["table.init", K.TABLE_INIT],
  ["elem.drop", K.ELEM_DROP],
  ["table.copy", K.TABLE_COPY],
  ["table.grow", K.TABLE_GROW],
  ["table.size", K.TABLE_SIZE],
  ["table.fill", K.TABLE_FILL],
  ["struct.new", K.STRUCT_NEW],
  ["struct.new_default", K.STRUCT_NEW_DEFAULT],
  ["struct.get", K.STRUCT_GET],
  ["struct.get_s", K.STRUCT_GET_S],
  ["struct.get_u", K.STRUCT_GET_U],
  ["struct.set", K.STRUCT_SET],
  ["array.new", K.ARRAY_NEW],
  ["array.new_default", K.ARRAY_NEW_DEFAULT],
  ["array.new_fixed", K.ARRAY_NEW_FIXED],
  ["array.new_data", K.ARRAY_NEW_DATA],
  ["array.new_elem", K.ARRAY_NEW_ELEM],
  ["array.get", K.ARRAY_GET],
  ["array.get_s", K.ARRAY_GET_S],
  ["array.get_u", K.ARRAY_GET_U],
  ["array.set", K.ARRAY_SET],
  ["array.len", K.ARRAY_LEN],
  ["array.fill", K.ARRAY_FILL],
  ["array.copy", K.ARRAY_COPY],
  ["array.init_data", K.ARRAY_INIT_DATA],
  ["array.init_elem", K.ARRAY_INIT_ELEM],
  ["ref.test", K.REF_TEST],
  ["ref.test_null", K.REF_TEST_NULL],
  ["ref.cast", K.REF_CAST],
  ["ref.cast_null", K.REF_CAST_NULL],
  ["br_on_cast", K.BR_ON_CAST],
  ["br_on_cast_fail", K.BR_ON_CAST_FAIL],
  ["any.convert_extern", K.ANY_CONVERT_EXTERN],
  ["extern.convert_any", K.EXTERN_CONVERT_ANY],
  ["ref.i31", K.REF_I31],
  ["i31.get_s", K.I31_GET_S],
  ["i31.get_u", K.I31_GET_U],
];

/** Placeholder in signatures for the memory's address type. */
const ADDR = -1;
const EMPTY_TYPES = new Int32Array(0);

const NOPS = OPS.length;
const OP_KIND = new Uint8Array(NOPS);
const SIG_PARAMS: Int32Array[] = new Array(NOPS).fill(EMPTY_TYPES);
const SIG_RESULTS: Int32Array[] = new Array(NOPS).fill(EMPTY_TYPES);
/** log2 of the natural alignment of memory accesses. */
const NAT_ALIGN = new Uint8Array(NOPS);
/** Number of lanes addressed by a lane immediate. */
const LANES = new Uint8Array(NOPS);
const IS_ATOMIC = new Uint8Array(NOPS);
/** Ops allowed in constant expressions. */
const CONST_OK = new Uint8Array(NOPS);

function parseSigTypes(s: string): Int32Array {
  const toks = s.trim().split(/\s+/).filter((t) => t.length > 0);
  return Int32Array.from(toks, (t) => {
    switch (t) {
      case "i32": return I32;
      case "i64": return I64;
      case "f32": return F32;
      case "f64": return F64;
      case "v128": return V128;
      case "a": return ADDR;
    }
    throw new Error(`bad signature token ${t}`);
  });
}

function naturalAlignLog2(name: string): number {
  if (name === "v128.load" || name === "v128.store") return 4;
  if (/^v128\.load\d+x\d+_[su]$/.test(name)) return 3;
  let mm = /^v128\.(?:load|store)(8|16|32|64)_(?:splat|lane|zero)$/.exec(name);
  if (mm) return Math.log2(Number(mm[1]) / 8);
  if (name === "memory.atomic.notify" || name === "memory.atomic.wait32") return 2;
  if (name === "memory.atomic.wait64") return 3;
  mm = /^(i32|i64|f32|f64)\.(?:atomic\.)?(?:load|store|rmw)(8|16|32)?/.exec(name);
  if (mm) {
    const bits = mm[2] ? Number(mm[2]) : mm[1] === "i32" || mm[1] === "f32" ? 32 : 64;
    return Math.log2(bits / 8);
  }
  throw new Error(`no natural alignment known for ${name}`);
}

function laneCount(name: string): number {
  const mm = /^v128\.(?:load|store)(8|16|32|64)_lane$/.exec(name);
  if (mm) return 128 / Number(mm[1]);
  const sh = /^[if](8|16|32|64)x(\d+)\./.exec(name);
  if (sh) return Number(sh[2]);
  throw new Error(`no lane count known for ${name}`);
}

{
  const special = new Map(SPECIAL);
  for (let id = 0; id < NOPS; id++) {
    const d = OPS[id]!;
    const k = special.get(d.name);
    if (k !== undefined) {
      OP_KIND[id] = k;
      continue;
    }
    if (d.sig === undefined) continue; // unknown to the validator: K.INVALID
    const [p, r] = d.sig.split("->");
    SIG_PARAMS[id] = parseSigTypes(p ?? "");
    SIG_RESULTS[id] = parseSigTypes(r ?? "");
    const hasMem = d.imms.includes(Imm.MemArg);
    const hasLane = d.imms.includes(Imm.Lane);
    if (d.imms.includes(Imm.Shuffle)) OP_KIND[id] = K.SHUFFLE;
    else if (hasMem && hasLane) OP_KIND[id] = K.MEMLANE;
    else if (hasMem) OP_KIND[id] = K.MEM;
    else if (hasLane) OP_KIND[id] = K.LANE;
    else OP_KIND[id] = K.SIG;
    if (hasMem) NAT_ALIGN[id] = naturalAlignLog2(d.name);
    if (hasLane) LANES[id] = laneCount(d.name);
    if (d.feature === "threads") IS_ATOMIC[id] = 1;
  }
  for (const name of [
    "i32.const", "i64.const", "f32.const", "f64.const", "v128.const", "ref.null", "ref.func", "global.get",
    "i32.add", "i32.sub", "i32.mul", "i64.add", "i64.sub", "i64.mul", "ref.i31", "struct.new", "struct.new_default",
    "array.new", "array.new_default", "array.new_fixed", "any.convert_extern", "extern.convert_any", "end",
  ]) CONST_OK[idOf(name)] = 1;
}

// Instruction groups: one method of CodeValidator each (see step).
const G_SIG = 0;
const G_CONTROL = 1;
const G_CALL = 2;
const G_VARIABLE = 3;
const G_MEMORY = 4;
const G_TABLE = 5;
const G_REFERENCE = 6;
const G_AGGREGATE = 7;
const G_INVALID = 8;
const GROUP = new Uint8Array(256).fill(G_INVALID);
{
  const groups: [number, K[]][] = [
    [G_SIG, [K.SIG]],
    [G_CONTROL, [K.UNREACHABLE, K.NOP, K.BLOCK, K.LOOP, K.IF, K.ELSE, K.END, K.BR, K.BR_IF, K.BR_TABLE, K.RETURN,
      K.TRY, K.CATCH, K.CATCH_ALL, K.DELEGATE, K.RETHROW, K.THROW, K.THROW_REF, K.TRY_TABLE]],
    [G_CALL, [K.CALL, K.CALL_INDIRECT, K.RETURN_CALL, K.RETURN_CALL_INDIRECT, K.CALL_REF, K.RETURN_CALL_REF]],
    [G_VARIABLE, [K.DROP, K.SELECT, K.SELECT_T, K.LOCAL_GET, K.LOCAL_SET, K.LOCAL_TEE, K.GLOBAL_GET, K.GLOBAL_SET]],
    [G_MEMORY, [K.MEM, K.MEMLANE, K.LANE, K.SHUFFLE, K.MEMORY_SIZE, K.MEMORY_GROW, K.MEMORY_FILL, K.MEMORY_COPY, K.MEMORY_INIT, K.DATA_DROP]],
    [G_TABLE, [K.TABLE_GET, K.TABLE_SET, K.TABLE_SIZE, K.TABLE_GROW, K.TABLE_FILL, K.TABLE_COPY, K.TABLE_INIT, K.ELEM_DROP]],
    [G_REFERENCE, [K.REF_NULL, K.REF_IS_NULL, K.REF_FUNC, K.REF_EQ, K.REF_AS_NON_NULL, K.BR_ON_NULL, K.BR_ON_NON_NULL,
      K.REF_I31, K.I31_GET_S, K.I31_GET_U, K.ANY_CONVERT_EXTERN, K.EXTERN_CONVERT_ANY,
      K.REF_TEST, K.REF_TEST_NULL, K.REF_CAST, K.REF_CAST_NULL, K.BR_ON_CAST, K.BR_ON_CAST_FAIL]],
    [G_AGGREGATE, [K.STRUCT_NEW, K.STRUCT_NEW_DEFAULT, K.STRUCT_GET, K.STRUCT_GET_S, K.STRUCT_GET_U, K.STRUCT_SET,
      K.ARRAY_NEW, K.ARRAY_NEW_DEFAULT, K.ARRAY_NEW_FIXED, K.ARRAY_NEW_DATA, K.ARRAY_NEW_ELEM, K.ARRAY_GET, K.ARRAY_GET_S,
      K.ARRAY_GET_U, K.ARRAY_SET, K.ARRAY_LEN, K.ARRAY_FILL, K.ARRAY_COPY, K.ARRAY_INIT_DATA, K.ARRAY_INIT_ELEM]],
  ];
  for (const [g, ks] of groups) for (const k of ks) GROUP[k] = g;
  for (let k = K.SIG; k <= K.I31_GET_U; k++) if (GROUP[k] === G_INVALID) throw new Error(`instruction kind ${k} has no group`);
}

// Control frame kinds.
const F_BLOCK = 0;
const F_LOOP = 1;
const F_IF = 2;
const F_ELSE = 3;
const F_TRY = 4;
const F_CATCH = 5;
const F_CATCH_ALL = 6;
const F_TRY_TABLE = 7;
const F_FUNC = 8;

const EXN_NONNULL = refType(HT_EXN, false);
const EQREF = refType(HT_EQ, true);
const I31REF = refType(HT_I31, true);
const ARRAYREF = refType(HT_ARRAY, true);
const EXNREF = refType(HT_EXN, true);

type Types = ArrayLike<number>;

/** Validates function bodies and constant expressions of one module; types bodies and sequences for passes. */
export class CodeValidator {
  private readonly ctx: TypeContext;
  // operand stack
  private vals = new Int32Array(256);
  private sp = 0;
  // control frames
  private fp = -1;
  private fKind = new Uint8Array(32);
  private fHeight = new Int32Array(32);
  private fUnreach = new Uint8Array(32);
  private fInit = new Int32Array(32);
  private fParams: Types[] = new Array(32);
  private fResults: Types[] = new Array(32);
  // locals
  private nLocals = 0;
  private nParams = 0;
  /** The validator's own local types (localTypes may point at a caller's array in open mode). */
  private ownLocalTypes: Int32Array = new Int32Array(64);
  private localTypes: Int32Array = this.ownLocalTypes;
  /** Large-locals mode: run-length declarations, searched by binary search. */
  private bigLocalEnds: Float64Array | null = null;
  private bigLocalTypes: Int32Array | null = null;
  private localInit = new Uint8Array(64);
  private bigInit: Set<number> | null = null;
  private initStack = new Int32Array(64);
  private initSp = 0;
  private trackInit = false;
  // current function
  private funcIndex: number | undefined = undefined;
  private body!: Body;
  private pc = 0;
  private constMode = false;
  private constGlobals = 0;
  private fallbackOffset = 0;
  // block types
  private btParams: Types = EMPTY_TYPES;
  private btResults: Types = EMPTY_TYPES;
  private readonly single = new Map<number, Int32Array>();
  /** Receives every push and pop while a body's typing is recorded. */
  private rec: TypingRecorder | null = null;
  /** Receives the stack height before each instruction while a body's typing is recorded. */
  private heights: Int32Array | null = null;
  // open mode (typing a sequence): see beginSequence
  private open = false;
  private refused = false;
  /** Open mode: the sequence's inputs (values popped from below its start), topmost first. */
  readonly inputsRev: ValType[] = [];
  /** Open mode: the sequence returns (return or a tail call). */
  returned = false;

  constructor(private readonly env: ModuleEnv) {
    this.ctx = env.ctx;
  }

  // ---- errors ----

  private fail(reason: string): never {
    const offs = this.body?.offsets;
    const offset = offs && this.pc < offs.length ? offs[this.pc]! : this.fallbackOffset;
    const fi = this.funcIndex;
    throw new WasmValidationError(reason, offset, fi, fi === undefined ? undefined : (this.env.funcNames?.get(fi) ?? undefined));
  }

  // ---- operand stack ----

  private push(t: number): void {
    if (this.sp === this.vals.length) {
      const n = new Int32Array(this.vals.length * 2);
      n.set(this.vals);
      this.vals = n;
    }
    if (this.rec !== null) this.rec.pushed(t, this.sp);
    this.vals[this.sp++] = t;
  }

  private pushTypes(ts: Types): void {
    for (let k = 0; k < ts.length; k++) this.push(ts[k]!);
  }

  /** Pops any value (BOT if the stack is polymorphic and empty). */
  private popAny(): number {
    const fp = this.fp;
    if (this.sp === this.fHeight[fp]) {
      if (this.fUnreach[fp] === 1) {
        if (this.rec !== null) this.rec.popped(BOT, -1);
        return BOT;
      }
      if (this.open && fp === 0) {
        // an input of no known type: the sequence cannot say what it takes
        this.refused = true;
        return BOT;
      }
      this.fail("type mismatch: expected a value, but the stack is empty");
    }
    const a = this.vals[--this.sp]!;
    if (this.rec !== null) this.rec.popped(a, this.sp);
    return a;
  }

  /** Pops a value that must match `e`. */
  private pop(e: number): void {
    const fp = this.fp;
    if (this.sp === this.fHeight[fp]) return this.popMissing(e);
    const a = this.vals[--this.sp]!;
    if (this.rec !== null) this.rec.popped(e, this.sp);
    if (a !== e && a !== BOT && !isSubtype(this.ctx, a, e)) {
      this.fail(`type mismatch: expected ${typeName(e)}, got ${typeName(a)}`);
    }
  }

  /** pop(e) on an empty frame: fine in unreachable code; an input of a sequence in open mode. */
  private popMissing(e: number): void {
    const fp = this.fp;
    if (this.fUnreach[fp] === 1) {
      if (this.rec !== null) this.rec.popped(e, -1);
      return;
    }
    if (this.open && fp === 0) {
      this.inputsRev.push(e);
      return;
    }
    this.fail(`type mismatch: expected ${typeName(e)}, but the stack is empty`);
  }

  private popTypes(ts: Types): void {
    for (let k = ts.length - 1; k >= 0; k--) this.pop(ts[k]!);
  }

  /** Pops a reference (REF_BOT for BOT). */
  private popRef(): number {
    const a = this.popAny();
    if (a === BOT) return REF_BOT;
    if (a < REF_BASE) this.fail(`type mismatch: expected a reference, got ${typeName(a)}`);
    return a;
  }

  private setUnreachable(): void {
    this.sp = this.fHeight[this.fp]!;
    this.fUnreach[this.fp] = 1;
  }

  // ---- control frames ----

  private pushCtrl(kind: number, params: Types, results: Types): void {
    const fp = ++this.fp;
    if (fp === this.fKind.length) this.growFrames();
    this.fKind[fp] = kind;
    this.fHeight[fp] = this.sp;
    this.fUnreach[fp] = 0;
    this.fInit[fp] = this.initSp;
    this.fParams[fp] = params;
    this.fResults[fp] = results;
    this.pushTypes(params);
  }

  private growFrames(): void {
    const n = this.fKind.length * 2;
    const k = new Uint8Array(n);
    k.set(this.fKind);
    this.fKind = k;
    const h = new Int32Array(n);
    h.set(this.fHeight);
    this.fHeight = h;
    const u = new Uint8Array(n);
    u.set(this.fUnreach);
    this.fUnreach = u;
    const ini = new Int32Array(n);
    ini.set(this.fInit);
    this.fInit = ini;
    this.fParams.length = n;
    this.fResults.length = n;
  }

  /** Checks the end of the current frame (results on the stack, nothing else) without popping it. */
  private checkFrameEnd(): void {
    const fp = this.fp;
    this.popTypes(this.fResults[fp]!);
    if (this.sp !== this.fHeight[fp]) this.fail("type mismatch: values remaining on the stack at the end of a block");
    this.resetInit(this.fInit[fp]!);
  }

  private labelTypes(depth: number): Types {
    const j = this.fp - depth;
    return this.fKind[j] === F_LOOP ? this.fParams[j]! : this.fResults[j]!;
  }

  private checkLabel(depth: number): void {
    if (!(depth >= 0 && depth <= this.fp)) this.fail(`unknown label ${depth >>> 0}`);
  }

  private blockType(w: number): void {
    if (w === BLOCK_EMPTY) {
      this.btParams = EMPTY_TYPES;
      this.btResults = EMPTY_TYPES;
    } else if (w < 0 && w >= -0x7fffffff) {
      const x = -w - 1;
      this.requireFuncType(x);
      this.btParams = this.ctx.params[x]!;
      this.btResults = this.ctx.results[x]!;
    } else {
      if (!isValidValType(this.ctx, w)) this.fail(`unknown type ${heapOf(w)}`);
      this.btParams = EMPTY_TYPES;
      let s = this.single.get(w);
      if (s === undefined) this.single.set(w, (s = Int32Array.of(w)));
      this.btResults = s;
    }
  }

  // ---- locals ----

  private resetInit(height: number): void {
    while (this.initSp > height) {
      const x = this.initStack[--this.initSp]!;
      if (this.bigInit) this.bigInit.delete(x);
      else this.localInit[x] = 0;
    }
  }

  private localType(x: number): number {
    if (!(x < this.nLocals)) this.fail(`unknown local ${x}`);
    if (this.bigLocalEnds === null) return this.localTypes[x]!;
    const ends = this.bigLocalEnds;
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.bigLocalTypes![lo]!;
  }

  private markInit(x: number, t: number): void {
    if (!this.trackInit || x < this.nParams || isDefaultable(t)) return;
    if (this.bigInit) {
      if (this.bigInit.has(x)) return;
      this.bigInit.add(x);
    } else {
      if (this.localInit[x] === 1) return;
      this.localInit[x] = 1;
    }
    if (this.initSp === this.initStack.length) {
      const n = new Int32Array(this.initStack.length * 2);
      n.set(this.initStack);
      this.initStack = n;
    }
    this.initStack[this.initSp++] = x;
  }

  private isInit(x: number, t: number): boolean {
    if (!this.trackInit || x < this.nParams || isDefaultable(t)) return true;
    return this.bigInit ? this.bigInit.has(x) : this.localInit[x] === 1;
  }

  private setupLocals(params: Types, locals: readonly { count: number; type: ValType }[]): void {
    let total = params.length;
    for (const l of locals) total += l.count;
    if (total > 0xffffffff) this.fail("too many locals");
    this.nLocals = total;
    this.nParams = params.length;
    this.trackInit = false;
    this.initSp = 0;
    this.bigInit = null;
    for (const l of locals) {
      if (!isValidValType(this.ctx, l.type)) this.fail(`unknown type ${heapOf(l.type)}`);
      if (l.count > 0 && !isDefaultable(l.type)) this.trackInit = true;
    }
    if (total <= 1 << 20) {
      this.bigLocalEnds = null;
      this.bigLocalTypes = null;
      if (this.ownLocalTypes.length < total) this.ownLocalTypes = new Int32Array(Math.max(total, this.ownLocalTypes.length * 2));
      const lt = (this.localTypes = this.ownLocalTypes);
      let k = 0;
      for (; k < params.length; k++) lt[k] = params[k]!;
      for (const l of locals) {
        lt.fill(l.type, k, k + l.count);
        k += l.count;
      }
      if (this.trackInit) {
        if (this.localInit.length < total) this.localInit = new Uint8Array(Math.max(total, this.localInit.length * 2));
        this.localInit.fill(0, 0, total);
      }
    } else {
      let end = params.length;
      // params first: one run per param (few)
      const runsEnds: number[] = [];
      const runsTypes: number[] = [];
      for (let k = 0; k < params.length; k++) {
        runsEnds.push(k + 1);
        runsTypes.push(params[k]!);
      }
      for (const l of locals) {
        end += l.count;
        runsEnds.push(end);
        runsTypes.push(l.type);
      }
      this.bigLocalEnds = Float64Array.from(runsEnds);
      this.bigLocalTypes = Int32Array.from(runsTypes);
      if (this.trackInit) this.bigInit = new Set();
    }
  }

  // ---- module entities ----

  private requireFuncType(x: number): void {
    const ctx = this.ctx;
    if (!(x >= 0 && x < ctx.count)) this.fail(`unknown type ${x >>> 0}`);
    if (ctx.kind[x] !== KIND_FUNC) this.fail(`type mismatch: type ${x} is not a function type`);
  }

  private structFields(x: number): readonly FieldType[] {
    const ctx = this.ctx;
    if (!(x >= 0 && x < ctx.count)) this.fail(`unknown type ${x >>> 0}`);
    const c = ctx.types[x]!.composite;
    if (c.kind !== "struct") this.fail(`type mismatch: type ${x} is not a struct type`);
    return c.fields;
  }

  private arrayElem(x: number): FieldType {
    const ctx = this.ctx;
    if (!(x >= 0 && x < ctx.count)) this.fail(`unknown type ${x >>> 0}`);
    const c = ctx.types[x]!.composite;
    if (c.kind !== "array") this.fail(`type mismatch: type ${x} is not an array type`);
    return c.element;
  }

  private structField(x: number, y: number): FieldType {
    const fields = this.structFields(x);
    if (!(y >= 0 && y < fields.length)) this.fail(`unknown field ${y >>> 0}`);
    return fields[y]!;
  }

  private table(x: number): void {
    if (!(x >= 0 && x < this.env.tableElem.length)) this.fail(`unknown table ${x >>> 0}`);
  }

  private memory(x: number): number {
    if (!(x >= 0 && x < this.env.memAddr.length)) this.fail(`unknown memory ${x >>> 0}`);
    return this.env.memAddr[x]!;
  }

  private data(x: number): void {
    if (!this.env.hasDataCount) this.fail("data count section required");
    if (!(x >= 0 && x < this.env.dataCount)) this.fail(`unknown data segment ${x >>> 0}`);
  }

  private elem(x: number): number {
    if (!(x >= 0 && x < this.env.elemTypes.length)) this.fail(`unknown elem segment ${x >>> 0}`);
    return this.env.elemTypes[x]!;
  }

  private tagParams(x: number): Types {
    if (!(x >= 0 && x < this.env.tagTypes.length)) this.fail(`unknown tag ${x >>> 0}`);
    return this.ctx.params[this.env.tagTypes[x]!]!;
  }

  private funcTypeOf(x: number): number {
    if (!(x >= 0 && x < this.env.funcTypes.length)) this.fail(`unknown function ${x >>> 0}`);
    return this.env.funcTypes[x]!;
  }

  private checkValType(t: number): void {
    if (!isValidValType(this.ctx, t)) this.fail(`unknown type ${heapOf(t)}`);
  }

  private checkHeapType(h: number): void {
    if (!isValidHeapType(this.ctx, h)) this.fail(`unknown type ${h}`);
  }

  /** return_call*: the callee's results must match the caller's. */
  private checkTailResults(results: Types): void {
    const own = this.fResults[0]!;
    if (own.length !== results.length) this.fail("type mismatch: tail call results do not match the function's results");
    for (let k = 0; k < own.length; k++) {
      if (!isSubtype(this.ctx, results[k]!, own[k]!)) this.fail(`type mismatch: tail call result ${typeName(results[k]!)} does not match ${typeName(own[k]!)}`);
    }
  }

  /** Label types of `l` must accept `ts` (+ an extra (ref exn) if `ref`). */
  private checkCatchLabel(l: number, ts: Types, ref: boolean): void {
    this.checkLabel(l);
    const lt = this.labelTypes(l);
    const n = ts.length + (ref ? 1 : 0);
    if (lt.length !== n) this.fail("type mismatch: catch label arity does not match");
    for (let k = 0; k < ts.length; k++) {
      if (!isSubtype(this.ctx, ts[k]!, lt[k]!)) this.fail(`type mismatch: catch label expects ${typeName(lt[k]!)}, got ${typeName(ts[k]!)}`);
    }
    if (ref && !isSubtype(this.ctx, EXN_NONNULL, lt[n - 1]!)) this.fail(`type mismatch: catch label expects ${typeName(lt[n - 1]!)}, got (ref exn)`);
  }

  /** Checks the top |lt| operands against label types in place (br_table). */
  private checkTopAgainst(lt: Types): void {
    const fp = this.fp;
    const h = this.fHeight[fp]!;
    const unreach = this.fUnreach[fp] === 1;
    const n = lt.length;
    for (let k = 0; k < n; k++) {
      const pos = this.sp - 1 - k;
      const e = lt[n - 1 - k]!;
      if (pos < h) {
        if (unreach) return;
        this.fail(`type mismatch: expected ${typeName(e)}, but the stack is empty`);
      }
      const a = this.vals[pos]!;
      if (a !== e && a !== BOT && !isSubtype(this.ctx, a, e)) this.fail(`type mismatch: expected ${typeName(e)}, got ${typeName(a)}`);
    }
  }

  // ---- entry points ----

  /** Validates the body of function `funcIndex` (type `typeIndex`, declared locals `locals`). */
  validateFunction(
    funcIndex: number,
    typeIndex: number,
    locals: readonly { count: number; type: ValType }[],
    body: Body,
    fallbackOffset = 0,
  ): void {
    this.startFunction(funcIndex, typeIndex, locals, body, fallbackOffset);
    this.run(this.ctx.results[typeIndex]!);
  }

  /**
   * Validates the body of function `funcIndex` as validateFunction does,
   * writing the stack height before each instruction to `heights` (-1 in
   * unreachable code) and reporting every push and pop to `rec`, if given
   * (analysis/body-typing.ts).
   */
  recordFunction(funcIndex: number, typeIndex: number, locals: readonly { count: number; type: ValType }[], body: Body, heights: Int32Array, rec: TypingRecorder | null): void {
    this.startFunction(funcIndex, typeIndex, locals, body, 0);
    this.heights = heights;
    this.rec = rec;
    try {
      this.run(this.ctx.results[typeIndex]!);
    } finally {
      this.heights = null;
      this.rec = null;
    }
  }

  private startFunction(funcIndex: number, typeIndex: number, locals: readonly { count: number; type: ValType }[], body: Body, fallbackOffset: number): void {
    this.funcIndex = funcIndex;
    this.constMode = false;
    this.open = false;
    this.body = body;
    this.pc = 0;
    this.fallbackOffset = fallbackOffset;
    this.setupLocals(this.ctx.params[typeIndex]!, locals);
  }

  /**
   * Validates a constant expression producing `type`; `globals` is the number
   * of globals it may read (imported and earlier defined ones).
   */
  validateConstExpr(body: Body, type: ValType, globals: number, fallbackOffset = 0): void {
    this.funcIndex = undefined;
    this.constMode = true;
    this.open = false;
    this.constGlobals = globals;
    this.body = body;
    this.pc = 0;
    this.fallbackOffset = fallbackOffset;
    this.nLocals = 0;
    this.nParams = 0;
    this.trackInit = false;
    this.bigLocalEnds = null;
    let s = this.single.get(type);
    if (s === undefined) this.single.set(type, (s = Int32Array.of(type)));
    this.run(s);
  }

  // ---- open mode: typing a sequence cut out of a body ----

  /**
   * Starts typing a sequence of `body` (open mode): the sequence is frame 0,
   * and a value it pops from below its start is an input of the type the
   * popping instruction requires. `localTypes`: the function's local types
   * (borrowed, not copied); `funcResults`: its results (for return). Then
   * call stepSequence per instruction.
   */
  beginSequence(body: Body, localTypes: Int32Array, funcResults: Types): void {
    this.funcIndex = undefined;
    this.constMode = false;
    this.open = true;
    this.refused = false;
    this.returned = false;
    this.inputsRev.length = 0;
    this.body = body;
    this.pc = 0;
    this.fallbackOffset = 0;
    this.localTypes = localTypes;
    this.nLocals = localTypes.length;
    this.nParams = 0;
    this.trackInit = false;
    this.bigLocalEnds = null;
    this.sp = 0;
    this.fp = -1;
    this.initSp = 0;
    // frame 0's results serve return and tail calls only: its end and labels are refused
    this.pushCtrl(F_FUNC, EMPTY_TYPES, funcResults);
  }

  /**
   * Types instruction i of the sequence. False (and the typer's state is then
   * undefined) if the sequence cannot be cut here: the instruction ends or
   * branches out of the sequence (a label at or outside frame 0, an end or
   * else of a frame opened before it), pops an input of no known type (drop,
   * select, ref.is_null ...), or is ill-typed.
   */
  stepSequence(i: number): boolean {
    const body = this.body;
    if (this.leavesSequence(OP_KIND[body.ops[i]!]!, body.immStart[i]!)) return false;
    this.pc = i;
    try {
      this.step(i);
    } catch (e) {
      if (e instanceof WasmValidationError) return false;
      throw e;
    }
    return !this.refused;
  }

  /** Open mode: nesting depth of the current frame (0: the sequence itself). */
  get depth(): number {
    return this.fp;
  }
  /** True if the current frame's stack is polymorphic (after br, return, unreachable ...). */
  get unreachable(): boolean {
    return this.fUnreach[this.fp] === 1;
  }
  /** Operands on the current frame's stack. */
  get height(): number {
    return this.sp - this.fHeight[this.fp]!;
  }
  /** Operands on the whole stack (in open mode at depth 0: the sequence's outputs so far). */
  get stackSize(): number {
    return this.sp;
  }
  /** Type of stack slot k (0: the bottom). */
  stackType(k: number): ValType {
    return this.vals[k]!;
  }

  /** Open mode: true if instruction `kind` at immediates `p` leaves frame 0 (the sequence). */
  private leavesSequence(kind: number, p: number): boolean {
    const fp = this.fp;
    const imm = this.body.imm;
    switch (kind) {
      case K.END:
      case K.ELSE:
      case K.CATCH:
      case K.CATCH_ALL:
        return fp === 0;
      case K.DELEGATE:
        // the label counts from the frames outside the try
        return fp === 0 || (imm[p]! >>> 0) >= fp - 1;
      case K.BR:
      case K.BR_IF:
      case K.BR_ON_NULL:
      case K.BR_ON_NON_NULL:
      case K.RETHROW:
        return (imm[p]! >>> 0) >= fp;
      case K.BR_ON_CAST:
      case K.BR_ON_CAST_FAIL:
        return (imm[p + 1]! >>> 0) >= fp;
      case K.BR_TABLE: {
        const n = imm[p]! >>> 0;
        for (let k = 0; k <= n; k++) if ((imm[p + 1 + k]! >>> 0) >= fp) return true;
        return false;
      }
      case K.TRY_TABLE: {
        const n = imm[p + 1]! >>> 0;
        for (let k = 0; k < n; k++) if ((imm[p + 2 + k * 3 + 2]! >>> 0) >= fp) return true;
        return false;
      }
    }
    return false;
  }

  // ---- the algorithm: one step per instruction ----

  private run(results: Types): void {
    const body = this.body;
    const ops = body.ops;
    const count = body.count;
    const rec = this.rec;
    const heights = this.heights;
    this.sp = 0;
    this.fp = -1;
    this.initSp = 0;
    this.pushCtrl(F_FUNC, EMPTY_TYPES, results);
    const constMode = this.constMode;
    for (let i = 0; i < count; i++) {
      this.pc = i;
      if (this.fp < 0) this.fail("unexpected instruction after the end of the function");
      if (constMode && CONST_OK[ops[i]!] !== 1) this.fail(`constant expression required: ${OPS[ops[i]!]?.name ?? "?"} is not constant`);
      if (heights !== null) heights[i] = this.fUnreach[this.fp] === 1 ? -1 : this.sp - this.fHeight[this.fp]!;
      if (rec !== null) rec.begin(i);
      this.step(i);
      if (rec !== null) rec.end(i);
    }
    if (this.fp >= 0) this.fail("unexpected end of the instruction sequence: missing end");
  }

  /** Types instruction i: fixed signatures here, the rest by group. */
  private step(i: number): void {
    const body = this.body;
    const id = body.ops[i]!;
    const kind = OP_KIND[id]!;
    if (kind === K.SIG) {
      const ps = SIG_PARAMS[id]!;
      for (let k = ps.length - 1; k >= 0; k--) this.pop(ps[k]!);
      const rs = SIG_RESULTS[id]!;
      for (let k = 0; k < rs.length; k++) this.push(rs[k]!);
      if (IS_ATOMIC[id] === 1 && !this.env.threads) this.fail("atomic instructions require the threads feature");
      return;
    }
    const p = body.immStart[i]!;
    switch (GROUP[kind]) {
      case G_VARIABLE:
        return this.variableOp(kind, p);
      case G_CONTROL:
        return this.controlOp(kind, p);
      case G_MEMORY:
        return this.memoryOp(kind, id, p);
      case G_CALL:
        return this.callOp(kind, p);
      case G_TABLE:
        return this.tableOp(kind, p);
      case G_REFERENCE:
        return this.referenceOp(kind, p);
      case G_AGGREGATE:
        return this.aggregateOp(kind, p);
    }
    this.fail(`unknown instruction ${OPS[id]?.name ?? id}`);
  }

  /** Blocks, branches, return, exceptions. */
  private controlOp(kind: number, p: number): void {
    const imm = this.body.imm;
    switch (kind) {
      case K.BLOCK:
      case K.LOOP:
      case K.TRY: {
        this.blockType(imm[p]!);
        const bp = this.btParams;
        this.popTypes(bp);
        this.pushCtrl(kind === K.BLOCK ? F_BLOCK : kind === K.LOOP ? F_LOOP : F_TRY, bp, this.btResults);
        return;
      }
      case K.IF: {
        this.blockType(imm[p]!);
        this.pop(I32);
        const bp = this.btParams;
        this.popTypes(bp);
        this.pushCtrl(F_IF, bp, this.btResults);
        return;
      }
      case K.ELSE: {
        const fp = this.fp;
        if (this.fKind[fp] !== F_IF) this.fail("else without matching if");
        this.checkFrameEnd();
        this.fKind[fp] = F_ELSE;
        this.fUnreach[fp] = 0;
        this.pushTypes(this.fParams[fp]!);
        return;
      }
      case K.END: {
        const fp = this.fp;
        this.checkFrameEnd();
        if (this.fKind[fp] === F_IF) {
          // implicit empty else: its params must match its results (not recorded: no instruction of its own)
          const rec = this.rec;
          this.rec = null;
          this.fUnreach[fp] = 0;
          this.pushTypes(this.fParams[fp]!);
          this.checkFrameEnd();
          this.rec = rec;
        }
        this.fp--;
        if (fp > 0) this.pushTypes(this.fResults[fp]!);
        return;
      }
      case K.BR: {
        const l = imm[p]!;
        this.checkLabel(l);
        this.popTypes(this.labelTypes(l));
        this.setUnreachable();
        return;
      }
      case K.BR_IF: {
        const l = imm[p]!;
        this.checkLabel(l);
        this.pop(I32);
        const lt = this.labelTypes(l);
        this.popTypes(lt);
        this.pushTypes(lt);
        return;
      }
      case K.BR_TABLE: {
        const n = imm[p]! >>> 0;
        this.pop(I32);
        const ld = imm[p + 1 + n]!;
        this.checkLabel(ld);
        const ldt = this.labelTypes(ld);
        const arity = ldt.length;
        for (let k = 0; k < n; k++) {
          const l = imm[p + 1 + k]!;
          this.checkLabel(l);
          const lt = this.labelTypes(l);
          if (lt.length !== arity) this.fail("type mismatch: br_table targets have different arities");
          this.checkTopAgainst(lt);
        }
        this.popTypes(ldt);
        this.setUnreachable();
        return;
      }
      case K.RETURN:
        this.returned = true;
        this.popTypes(this.fResults[0]!);
        this.setUnreachable();
        return;
      case K.UNREACHABLE:
        this.setUnreachable();
        return;
      case K.NOP:
        return;
      case K.TRY_TABLE: {
        this.blockType(imm[p]!);
        const bp = this.btParams;
        const br = this.btResults;
        this.popTypes(bp);
        const n = imm[p + 1]! >>> 0;
        for (let k = 0; k < n; k++) {
          const q = p + 2 + k * 3;
          const ck = imm[q]!;
          const l = imm[q + 2]!;
          if (ck === 0 || ck === 1) this.checkCatchLabel(l, this.tagParams(imm[q + 1]!), ck === 1);
          else this.checkCatchLabel(l, EMPTY_TYPES, ck === 3);
        }
        this.pushCtrl(F_TRY_TABLE, bp, br);
        return;
      }
      case K.THROW:
        this.popTypes(this.tagParams(imm[p]!));
        this.setUnreachable();
        return;
      case K.THROW_REF:
        this.pop(EXNREF);
        this.setUnreachable();
        return;
      case K.CATCH:
      case K.CATCH_ALL: {
        const fp = this.fp;
        const fk = this.fKind[fp];
        if (fk !== F_TRY && fk !== F_CATCH) this.fail(`${kind === K.CATCH ? "catch" : "catch_all"} without matching try`);
        const tp = kind === K.CATCH ? this.tagParams(imm[p]!) : EMPTY_TYPES;
        this.checkFrameEnd();
        this.fKind[fp] = kind === K.CATCH ? F_CATCH : F_CATCH_ALL;
        this.fUnreach[fp] = 0;
        this.pushTypes(tp);
        return;
      }
      case K.DELEGATE: {
        const fp = this.fp;
        if (this.fKind[fp] !== F_TRY) this.fail("delegate without matching try");
        this.checkFrameEnd();
        const l = imm[p]!;
        // the label is relative to the frames outside the try
        if (!(l >= 0 && l < fp)) this.fail(`unknown label ${l >>> 0}`);
        this.fp--;
        this.pushTypes(this.fResults[fp]!);
        return;
      }
      case K.RETHROW: {
        const l = imm[p]!;
        this.checkLabel(l);
        const fk = this.fKind[this.fp - l];
        if (fk !== F_CATCH && fk !== F_CATCH_ALL) this.fail(`invalid rethrow label ${l}`);
        this.setUnreachable();
        return;
      }
    }
  }

  /** Calls, tail calls included. */
  private callOp(kind: number, p: number): void {
    const imm = this.body.imm;
    const env = this.env;
    const ctx = this.ctx;
    switch (kind) {
      case K.CALL: {
        const t = this.funcTypeOf(imm[p]!);
        this.popTypes(ctx.params[t]!);
        this.pushTypes(ctx.results[t]!);
        return;
      }
      case K.CALL_INDIRECT:
      case K.RETURN_CALL_INDIRECT: {
        const x = imm[p]!;
        const tb = imm[p + 1]!;
        this.table(tb);
        this.requireFuncType(x);
        if (!isSubtype(ctx, env.tableElem[tb]!, refType(HT_FUNC, true))) this.fail(`type mismatch: call_indirect table ${tb} does not hold function references`);
        this.pop(env.tableAddr[tb]!);
        this.popTypes(ctx.params[x]!);
        if (kind === K.CALL_INDIRECT) this.pushTypes(ctx.results[x]!);
        else {
          this.returned = true;
          this.checkTailResults(ctx.results[x]!);
          this.setUnreachable();
        }
        return;
      }
      case K.RETURN_CALL: {
        const t = this.funcTypeOf(imm[p]!);
        this.returned = true;
        this.checkTailResults(ctx.results[t]!);
        this.popTypes(ctx.params[t]!);
        this.setUnreachable();
        return;
      }
      case K.CALL_REF:
      case K.RETURN_CALL_REF: {
        const x = imm[p]!;
        this.requireFuncType(x);
        this.pop(refType(x, true));
        this.popTypes(ctx.params[x]!);
        if (kind === K.CALL_REF) this.pushTypes(ctx.results[x]!);
        else {
          this.returned = true;
          this.checkTailResults(ctx.results[x]!);
          this.setUnreachable();
        }
        return;
      }
    }
  }

  /** Locals, globals, drop and select. */
  private variableOp(kind: number, p: number): void {
    const imm = this.body.imm;
    const env = this.env;
    switch (kind) {
      case K.LOCAL_GET: {
        const x = imm[p]! >>> 0;
        const t = this.localType(x);
        if (this.trackInit && !this.isInit(x, t)) this.fail(`uninitialized local ${x}`);
        this.push(t);
        return;
      }
      case K.LOCAL_SET: {
        const x = imm[p]! >>> 0;
        const t = this.localType(x);
        this.pop(t);
        this.markInit(x, t);
        return;
      }
      case K.LOCAL_TEE: {
        const x = imm[p]! >>> 0;
        const t = this.localType(x);
        this.pop(t);
        this.markInit(x, t);
        this.push(t);
        return;
      }
      case K.GLOBAL_GET: {
        const x = imm[p]!;
        const g = env.globalTypes;
        if (this.constMode) {
          if (!(x >= 0 && x < this.constGlobals)) this.fail(`unknown global ${x >>> 0}`);
          if (env.globalMut[x] === 1) this.fail(`constant expression required: global ${x} is mutable`);
        } else if (!(x >= 0 && x < g.length)) this.fail(`unknown global ${x >>> 0}`);
        this.push(g[x]!);
        return;
      }
      case K.GLOBAL_SET: {
        const x = imm[p]!;
        if (!(x >= 0 && x < env.globalTypes.length)) this.fail(`unknown global ${x >>> 0}`);
        if (env.globalMut[x] !== 1) this.fail(`immutable global ${x}: global.set requires a mutable global`);
        this.pop(env.globalTypes[x]!);
        return;
      }
      case K.DROP:
        this.popAny();
        return;
      case K.SELECT: {
        this.pop(I32);
        const t1 = this.popAny();
        const t2 = this.popAny();
        if (t1 >= REF_BASE || t2 >= REF_BASE) this.fail("type mismatch: select without a type annotation needs numeric or vector operands");
        if (t1 !== t2 && t1 !== BOT && t2 !== BOT) this.fail(`type mismatch: select operands ${typeName(t2)} and ${typeName(t1)} differ`);
        this.push(t1 === BOT ? t2 : t1);
        return;
      }
      case K.SELECT_T: {
        const n = imm[p]!;
        if (n !== 1) this.fail("invalid result arity: select must have exactly one result type");
        const t = imm[p + 1]!;
        this.checkValType(t);
        this.pop(I32);
        this.pop(t);
        this.pop(t);
        this.push(t);
        return;
      }
    }
  }

  /** Loads, stores, lanes, shuffles and the memory instructions. */
  private memoryOp(kind: number, id: number, p: number): void {
    const imm = this.body.imm;
    switch (kind) {
      case K.MEM:
      case K.MEMLANE: {
        const align = imm[p]!;
        const at = this.memory(imm[p + 1]!);
        const nat = NAT_ALIGN[id]!;
        if (IS_ATOMIC[id] === 1) {
          if (!this.env.threads) this.fail("atomic instructions require the threads feature");
          if (align !== nat) this.fail("alignment must be equal to natural (atomic access)");
        } else if (align > nat) this.fail("alignment must not be larger than natural");
        if (at === I32 && imm[p + 3] !== 0) this.fail("offset out of range: memory offset must be less than 2^32 for a 32-bit memory");
        if (kind === K.MEMLANE && (imm[p + 4]! >>> 0) >= LANES[id]!) this.fail(`invalid lane index ${imm[p + 4]!}`);
        const ps = SIG_PARAMS[id]!;
        for (let k = ps.length - 1; k >= 0; k--) {
          const t = ps[k]!;
          this.pop(t === ADDR ? at : t);
        }
        const rs = SIG_RESULTS[id]!;
        for (let k = 0; k < rs.length; k++) this.push(rs[k]!);
        return;
      }
      case K.LANE: {
        if ((imm[p]! >>> 0) >= LANES[id]!) this.fail(`invalid lane index ${imm[p]!}`);
        const ps = SIG_PARAMS[id]!;
        for (let k = ps.length - 1; k >= 0; k--) this.pop(ps[k]!);
        const rs = SIG_RESULTS[id]!;
        for (let k = 0; k < rs.length; k++) this.push(rs[k]!);
        return;
      }
      case K.SHUFFLE: {
        for (let k = 0; k < 16; k++) if ((imm[p + k]! >>> 0) >= 32) this.fail(`invalid lane index ${imm[p + k]!}`);
        this.pop(V128);
        this.pop(V128);
        this.push(V128);
        return;
      }
      case K.MEMORY_SIZE:
        this.push(this.memory(imm[p]!));
        return;
      case K.MEMORY_GROW: {
        const at = this.memory(imm[p]!);
        this.pop(at);
        this.push(at);
        return;
      }
      case K.MEMORY_FILL: {
        const at = this.memory(imm[p]!);
        this.pop(at);
        this.pop(I32);
        this.pop(at);
        return;
      }
      case K.MEMORY_COPY: {
        const ax = this.memory(imm[p]!);
        const ay = this.memory(imm[p + 1]!);
        this.pop(ax === I32 || ay === I32 ? I32 : I64);
        this.pop(ay);
        this.pop(ax);
        return;
      }
      case K.MEMORY_INIT: {
        const at = this.memory(imm[p + 1]!);
        this.data(imm[p]!);
        this.pop(I32);
        this.pop(I32);
        this.pop(at);
        return;
      }
      case K.DATA_DROP:
        this.data(imm[p]!);
        return;
    }
  }

  /** Table instructions. */
  private tableOp(kind: number, p: number): void {
    const imm = this.body.imm;
    const env = this.env;
    const ctx = this.ctx;
    switch (kind) {
    case K.TABLE_GET: {
      const x = imm[p]!;
      this.table(x);
      this.pop(env.tableAddr[x]!);
      this.push(env.tableElem[x]!);
      break;
    }
    case K.TABLE_SET: {
      const x = imm[p]!;
      this.table(x);
      this.pop(env.tableElem[x]!);
      this.pop(env.tableAddr[x]!);
      break;
    }
    case K.TABLE_SIZE: {
      const x = imm[p]!;
      this.table(x);
      this.push(env.tableAddr[x]!);
      break;
    }
    case K.TABLE_GROW: {
      const x = imm[p]!;
      this.table(x);
      const at = env.tableAddr[x]!;
      this.pop(at);
      this.pop(env.tableElem[x]!);
      this.push(at);
      break;
    }
    case K.TABLE_FILL: {
      const x = imm[p]!;
      this.table(x);
      const at = env.tableAddr[x]!;
      this.pop(at);
      this.pop(env.tableElem[x]!);
      this.pop(at);
      break;
    }
    case K.TABLE_COPY: {
      const x = imm[p]!;
      const y = imm[p + 1]!;
      this.table(x);
      this.table(y);
      if (!isSubtype(ctx, env.tableElem[y]!, env.tableElem[x]!)) this.fail(`type mismatch: table.copy from table ${y} (${typeName(env.tableElem[y]!)}) to table ${x} (${typeName(env.tableElem[x]!)})`);
      const ax = env.tableAddr[x]!;
      const ay = env.tableAddr[y]!;
      this.pop(ax === I32 || ay === I32 ? I32 : I64);
      this.pop(ay);
      this.pop(ax);
      break;
    }
    case K.TABLE_INIT: {
      const y = imm[p]!;
      const x = imm[p + 1]!;
      this.table(x);
      const et = this.elem(y);
      if (!isSubtype(ctx, et, env.tableElem[x]!)) this.fail(`type mismatch: table.init of elem segment ${y} (${typeName(et)}) into table ${x} (${typeName(env.tableElem[x]!)})`);
      this.pop(I32);
      this.pop(I32);
      this.pop(env.tableAddr[x]!);
      break;
    }
    case K.ELEM_DROP:
      this.elem(imm[p]!);
      break;
    }
  }

  /** Reference instructions: null, functions, i31, conversions, tests and casts. */
  private referenceOp(kind: number, p: number): void {
    const imm = this.body.imm;
    const env = this.env;
    const ctx = this.ctx;
    switch (kind) {
    case K.REF_NULL: {
      const h = imm[p]!;
      this.checkHeapType(h);
      this.push(refType(h, true));
      break;
    }
    case K.REF_IS_NULL:
      this.popRef();
      this.push(I32);
      break;
    case K.REF_FUNC: {
      const x = imm[p]!;
      const t = this.funcTypeOf(x);
      if (!this.constMode && env.declared[x] !== 1) this.fail(`undeclared function reference ${x}`);
      this.push(refType(t, false));
      break;
    }
    case K.REF_EQ:
      this.pop(EQREF);
      this.pop(EQREF);
      this.push(I32);
      break;
    case K.REF_AS_NON_NULL: {
      const r = this.popRef();
      this.push(refType(heapOf(r), false));
      break;
    }
    case K.BR_ON_NULL: {
      const l = imm[p]!;
      this.checkLabel(l);
      const r = this.popRef();
      const lt = this.labelTypes(l);
      this.popTypes(lt);
      this.pushTypes(lt);
      this.push(refType(heapOf(r), false));
      break;
    }
    case K.BR_ON_NON_NULL: {
      const l = imm[p]!;
      this.checkLabel(l);
      const lt = this.labelTypes(l);
      const n = lt.length;
      if (n === 0) this.fail("type mismatch: br_on_non_null target must take a reference");
      const r = this.popRef();
      const nn = refType(heapOf(r), false);
      if (!isSubtype(ctx, nn, lt[n - 1]!)) this.fail(`type mismatch: expected ${typeName(lt[n - 1]!)}, got ${typeName(nn)}`);
      for (let k = n - 2; k >= 0; k--) this.pop(lt[k]!);
      for (let k = 0; k < n - 1; k++) this.push(lt[k]!);
      break;
    }
    case K.REF_I31:
      this.pop(I32);
      this.push(refType(HT_I31, false));
      break;
    case K.I31_GET_S:
    case K.I31_GET_U:
      this.pop(I31REF);
      this.push(I32);
      break;
    case K.ANY_CONVERT_EXTERN:
    case K.EXTERN_CONVERT_ANY: {
      const from = kind === K.ANY_CONVERT_EXTERN ? HT_EXTERN : HT_ANY;
      const r = this.popRef();
      if (!isHeapSubtype(ctx, heapOf(r), from)) this.fail(`type mismatch: expected ${typeName(refType(from, true))}, got ${typeName(r)}`);
      this.push(refType(kind === K.ANY_CONVERT_EXTERN ? HT_ANY : HT_EXTERN, (r & 1) === 1));
      break;
    }
    case K.REF_TEST:
    case K.REF_TEST_NULL:
    case K.REF_CAST:
    case K.REF_CAST_NULL: {
      const h = imm[p]!;
      this.checkHeapType(h);
      this.pop(refType(topHeapType(ctx, h), true));
      if (kind === K.REF_TEST || kind === K.REF_TEST_NULL) this.push(I32);
      else this.push(refType(h, kind === K.REF_CAST_NULL));
      break;
    }
    case K.BR_ON_CAST:
    case K.BR_ON_CAST_FAIL: {
      const flags = imm[p]!;
      const l = imm[p + 1]!;
      const h1 = imm[p + 2]!;
      const h2 = imm[p + 3]!;
      this.checkHeapType(h1);
      this.checkHeapType(h2);
      const rt1 = refType(h1, (flags & 1) === 1);
      const rt2 = refType(h2, (flags & 2) === 2);
      if (!isSubtype(ctx, rt2, rt1)) this.fail(`type mismatch: cast target ${typeName(rt2)} does not match source ${typeName(rt1)}`);
      this.checkLabel(l);
      const lt = this.labelTypes(l);
      const n = lt.length;
      if (n === 0) this.fail("type mismatch: cast branch target must take a reference");
      const diff = refType(h1, (flags & 1) === 1 && (flags & 2) === 0);
      const toLabel = kind === K.BR_ON_CAST ? rt2 : diff;
      if (!isSubtype(ctx, toLabel, lt[n - 1]!)) this.fail(`type mismatch: expected ${typeName(lt[n - 1]!)}, got ${typeName(toLabel)}`);
      this.pop(rt1);
      for (let k = n - 2; k >= 0; k--) this.pop(lt[k]!);
      for (let k = 0; k < n - 1; k++) this.push(lt[k]!);
      this.push(kind === K.BR_ON_CAST ? diff : rt2);
      break;
    }
    }
  }

  /** Struct and array instructions. */
  private aggregateOp(kind: number, p: number): void {
    const imm = this.body.imm;
    const ctx = this.ctx;
    switch (kind) {
    case K.STRUCT_NEW: {
      const x = imm[p]!;
      const fields = this.structFields(x);
      for (let k = fields.length - 1; k >= 0; k--) this.pop(unpacked(fields[k]!.type));
      this.push(refType(x, false));
      break;
    }
    case K.STRUCT_NEW_DEFAULT: {
      const x = imm[p]!;
      const fields = this.structFields(x);
      for (const f of fields) if (!isDefaultable(f.type)) this.fail(`type mismatch: field type ${typeName(f.type)} of struct ${x} is not defaultable`);
      this.push(refType(x, false));
      break;
    }
    case K.STRUCT_GET:
    case K.STRUCT_GET_S:
    case K.STRUCT_GET_U: {
      const x = imm[p]!;
      const f = this.structField(x, imm[p + 1]!);
      const packed = f.type === I8 || f.type === I16;
      if (kind === K.STRUCT_GET && packed) this.fail("type mismatch: struct.get of a packed field needs struct.get_s or struct.get_u");
      if (kind !== K.STRUCT_GET && !packed) this.fail("type mismatch: struct.get_s/_u needs a packed field");
      this.pop(refType(x, true));
      this.push(unpacked(f.type));
      break;
    }
    case K.STRUCT_SET: {
      const x = imm[p]!;
      const f = this.structField(x, imm[p + 1]!);
      if (!f.mutable) this.fail(`immutable field ${imm[p + 1]!} of struct ${x}`);
      this.pop(unpacked(f.type));
      this.pop(refType(x, true));
      break;
    }
    case K.ARRAY_NEW: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      this.pop(I32);
      this.pop(unpacked(e.type));
      this.push(refType(x, false));
      break;
    }
    case K.ARRAY_NEW_DEFAULT: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      if (!isDefaultable(e.type)) this.fail(`type mismatch: element type ${typeName(e.type)} of array ${x} is not defaultable`);
      this.pop(I32);
      this.push(refType(x, false));
      break;
    }
    case K.ARRAY_NEW_FIXED: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      const n = imm[p + 1]! >>> 0;
      const t = unpacked(e.type);
      const avail = this.sp - this.fHeight[this.fp]!;
      const m = Math.min(n, avail);
      for (let k = 0; k < m; k++) this.pop(t);
      if (n > m && this.fUnreach[this.fp] !== 1) {
        if (this.open && this.fp === 0) for (let k = m; k < n; k++) this.pop(t); // inputs of a sequence
        else this.pop(t); // fails: stack empty
      }
      this.push(refType(x, false));
      break;
    }
    case K.ARRAY_NEW_DATA:
    case K.ARRAY_INIT_DATA: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      if (kind === K.ARRAY_INIT_DATA && !e.mutable) this.fail(`immutable array ${x}`);
      if (e.type >= REF_BASE) this.fail(`array type is not numeric or vector: array ${x} holds references`);
      this.data(imm[p + 1]!);
      this.pop(I32);
      this.pop(I32);
      if (kind === K.ARRAY_NEW_DATA) this.push(refType(x, false));
      else {
        this.pop(I32);
        this.pop(refType(x, true));
      }
      break;
    }
    case K.ARRAY_NEW_ELEM:
    case K.ARRAY_INIT_ELEM: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      if (kind === K.ARRAY_INIT_ELEM && !e.mutable) this.fail(`immutable array ${x}`);
      const et = this.elem(imm[p + 1]!);
      if (!isStorageSubtype(ctx, et, e.type)) this.fail(`type mismatch: elem segment type ${typeName(et)} does not match array element type ${typeName(e.type)}`);
      this.pop(I32);
      this.pop(I32);
      if (kind === K.ARRAY_NEW_ELEM) this.push(refType(x, false));
      else {
        this.pop(I32);
        this.pop(refType(x, true));
      }
      break;
    }
    case K.ARRAY_GET:
    case K.ARRAY_GET_S:
    case K.ARRAY_GET_U: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      const packed = e.type === I8 || e.type === I16;
      if (kind === K.ARRAY_GET && packed) this.fail("type mismatch: array.get of a packed array needs array.get_s or array.get_u");
      if (kind !== K.ARRAY_GET && !packed) this.fail("type mismatch: array.get_s/_u needs a packed array");
      this.pop(I32);
      this.pop(refType(x, true));
      this.push(unpacked(e.type));
      break;
    }
    case K.ARRAY_SET: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      if (!e.mutable) this.fail(`immutable array ${x}`);
      this.pop(unpacked(e.type));
      this.pop(I32);
      this.pop(refType(x, true));
      break;
    }
    case K.ARRAY_LEN:
      this.pop(ARRAYREF);
      this.push(I32);
      break;
    case K.ARRAY_FILL: {
      const x = imm[p]!;
      const e = this.arrayElem(x);
      if (!e.mutable) this.fail(`immutable array ${x}`);
      this.pop(I32);
      this.pop(unpacked(e.type));
      this.pop(I32);
      this.pop(refType(x, true));
      break;
    }
    case K.ARRAY_COPY: {
      const x = imm[p]!;
      const y = imm[p + 1]!;
      const ex = this.arrayElem(x);
      const ey = this.arrayElem(y);
      if (!ex.mutable) this.fail(`immutable array ${x}`);
      if (!isStorageSubtype(ctx, ey.type, ex.type)) this.fail(`array types do not match: array.copy from ${typeName(ey.type)} to ${typeName(ex.type)}`);
      this.pop(I32);
      this.pop(I32);
      this.pop(refType(y, true));
      this.pop(I32);
      this.pop(refType(x, true));
      break;
    }
    }
  }
}
