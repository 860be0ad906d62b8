// Byte-level reading and writing: LEB128, fixed-width numbers, names.
// The reader never allocates based on an unchecked count; callers use
// `count()` which bounds a vector length by the bytes that remain.

import { WasmDecodeError } from "./errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8enc = new TextEncoder();

export class ByteReader {
  pos: number;
  section: string | undefined;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    public end = buf.length,
    /** Added to positions in error messages (offset of buf within the file). */
    readonly base = 0,
  ) {
    this.pos = start;
  }

  fail(message: string, at = this.pos): never {
    throw new WasmDecodeError(message, this.base + at, this.section);
  }

  get remaining(): number {
    return this.end - this.pos;
  }
  atEnd(): boolean {
    return this.pos >= this.end;
  }

  u8(): number {
    if (this.pos >= this.end) this.fail("unexpected end");
    return this.buf[this.pos++]!;
  }

  bytes(n: number): Uint8Array {
    if (n > this.end - this.pos) this.fail("unexpected end");
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  u32(): number {
    const buf = this.buf;
    let p = this.pos;
    if (p < this.end) {
      const b = buf[p]!;
      if (b < 0x80) {
        this.pos = p + 1;
        return b;
      }
    }
    let result = 0;
    let shift = 0;
    for (;;) {
      if (p >= this.end) this.fail("unexpected end", p);
      const b = buf[p++]!;
      if (shift === 28) {
        if ((b & 0x70) !== 0 || (b & 0x80) !== 0) {
          this.pos = p;
          this.fail(b & 0x80 ? "integer representation too long" : "integer too large", p - 1);
        }
        result = (result | (b << 28)) >>> 0;
        break;
      }
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
    }
    this.pos = p;
    return result >>> 0;
  }

  s32(): number {
    const buf = this.buf;
    let p = this.pos;
    let result = 0;
    let shift = 0;
    let b: number;
    for (;;) {
      if (p >= this.end) this.fail("unexpected end", p);
      b = buf[p++]!;
      if (shift === 28) {
        if (b & 0x80) this.fail("integer representation too long", p - 1);
        // remaining bits must be a sign extension of bit 3
        const top = b & 0x78;
        if (top !== 0 && top !== 0x78) this.fail("integer too large", p - 1);
        result |= b << 28;
        break;
      }
      result |= (b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) === 0) {
        if (shift < 32 && b & 0x40) result |= -1 << shift;
        break;
      }
    }
    this.pos = p;
    return result | 0;
  }

  /** Signed 33-bit (block types, heap types). Returns a JS number. */
  s33(): number {
    const buf = this.buf;
    let p = this.pos;
    let result = 0;
    let mul = 1;
    let b: number;
    for (let i = 0; ; i++) {
      if (p >= this.end) this.fail("unexpected end", p);
      b = buf[p++]!;
      if (i === 4) {
        if (b & 0x80) this.fail("integer representation too long", p - 1);
        const top = b & 0x70;
        if (top !== 0 && top !== 0x70) this.fail("integer too large", p - 1);
        result += (b & 0x7f) * mul;
        mul *= 128;
        if (b & 0x40) result -= mul;
        break;
      }
      result += (b & 0x7f) * mul;
      mul *= 128;
      if ((b & 0x80) === 0) {
        if (b & 0x40) result -= mul;
        break;
      }
    }
    this.pos = p;
    return result;
  }

  /** Signed 64-bit as [lo, hi] 32-bit words, without BigInt. */
  s64Words(out: Int32Array | number[], at: number): void {
    const buf = this.buf;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    let b: number;
    for (let i = 0; ; i++) {
      if (p >= this.end) this.fail("unexpected end", p);
      b = buf[p++]!;
      if (i === 9) {
        if (b & 0x80) this.fail("integer representation too long", p - 1);
        if (b !== 0 && b !== 0x7f) this.fail("integer too large", p - 1);
        hi |= (b & 1) << 31;
        break;
      }
      const v = b & 0x7f;
      if (shift < 28) {
        lo |= v << shift;
      } else if (shift === 28) {
        lo |= v << 28;
        hi |= v >>> 4;
      } else {
        hi |= v << (shift - 32);
      }
      shift += 7;
      if ((b & 0x80) === 0) {
        if (b & 0x40) {
          // sign-extend from bit `shift`
          if (shift < 32) {
            lo |= -1 << shift;
            hi = -1;
          } else if (shift < 64) {
            hi |= -1 << (shift - 32);
          }
        }
        break;
      }
    }
    this.pos = p;
    out[at] = lo | 0;
    out[at + 1] = hi | 0;
  }

  /** Unsigned 64-bit (memory64 offsets and limits) as [lo, hi] words. */
  u64Words(out: Int32Array | number[], at: number): void {
    const buf = this.buf;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; ; i++) {
      if (p >= this.end) this.fail("unexpected end", p);
      const b = buf[p++]!;
      if (i === 9) {
        if (b & 0x80) this.fail("integer representation too long", p - 1);
        if (b & 0x7e) this.fail("integer too large", p - 1);
        hi |= (b & 1) << 31;
        break;
      }
      const v = b & 0x7f;
      if (shift < 28) lo |= v << shift;
      else if (shift === 28) {
        lo |= v << 28;
        hi |= v >>> 4;
      } else hi |= v << (shift - 32);
      shift += 7;
      if ((b & 0x80) === 0) break;
    }
    this.pos = p;
    out[at] = lo | 0;
    out[at + 1] = hi | 0;
  }

  u64(): bigint {
    const w = [0, 0];
    this.u64Words(w, 0);
    return (BigInt(w[1]! >>> 0) << 32n) | BigInt(w[0]! >>> 0);
  }

  s64(): bigint {
    const w = [0, 0];
    this.s64Words(w, 0);
    return BigInt.asIntN(64, (BigInt(w[1]! >>> 0) << 32n) | BigInt(w[0]! >>> 0));
  }

  u32Fixed(): number {
    if (this.end - this.pos < 4) this.fail("unexpected end");
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) | 0;
  }

  /**
   * A vector length. Each element takes at least `minElemBytes` bytes, so a
   * count larger than the remaining bytes allow is rejected before anything
   * is allocated for it.
   */
  count(minElemBytes = 1, what = "vector"): number {
    const at = this.pos;
    const n = this.u32();
    if (minElemBytes > 0 && n > (this.end - this.pos) / minElemBytes) {
      this.fail(`${what} length ${n} exceeds the remaining ${this.end - this.pos} bytes (length out of bounds)`, at);
    }
    return n;
  }

  name(): string {
    const n = this.u32();
    const at = this.pos;
    const b = this.bytes(n);
    try {
      return utf8.decode(b);
    } catch {
      this.fail("malformed UTF-8 encoding", at);
    }
  }
}

/** Bytes `s` takes in UTF-8. */
export function utf8Length(s: string): number {
  return utf8enc.encode(s).length;
}

export function decodeUtf8(b: Uint8Array): string {
  return utf8.decode(b);
}

/** Growable byte buffer with LEB128 writers. Minimal encodings throughout. */
export class ByteWriter {
  buf: Uint8Array;
  len = 0;
  constructor(initial = 1024) {
    this.buf = new Uint8Array(initial);
  }

  private grow(need: number): void {
    let cap = this.buf.length * 2;
    while (cap < this.len + need) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.buf.subarray(0, this.len));
    this.buf = nb;
  }

  u8(b: number): void {
    if (this.len + 1 > this.buf.length) this.grow(1);
    this.buf[this.len++] = b;
  }

  bytes(b: Uint8Array): void {
    if (this.len + b.length > this.buf.length) this.grow(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  u32(v: number): void {
    if (this.len + 5 > this.buf.length) this.grow(5);
    const buf = this.buf;
    let p = this.len;
    v >>>= 0;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p++] = v;
    this.len = p;
  }

  s32(v: number): void {
    if (this.len + 5 > this.buf.length) this.grow(5);
    const buf = this.buf;
    let p = this.len;
    v |= 0;
    for (;;) {
      const b = v & 0x7f;
      v >>= 7;
      if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
        buf[p++] = b;
        break;
      }
      buf[p++] = b | 0x80;
    }
    this.len = p;
  }

  /** Signed 33-bit value (JS number in [-2^32, 2^32)). */
  s33(v: number): void {
    if (v >= -0x80000000 && v <= 0x7fffffff) {
      this.s32(v);
      return;
    }
    this.s64Words(v >>> 0, Math.floor(v / 4294967296) | 0);
  }

  s64Words(lo: number, hi: number): void {
    if (this.len + 10 > this.buf.length) this.grow(10);
    const buf = this.buf;
    let p = this.len;
    lo >>>= 0;
    hi |= 0;
    for (;;) {
      const b = lo & 0x7f;
      // shift the 64-bit pair right by 7 (arithmetic)
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>= 7;
      const done = (hi === 0 && lo === 0 && (b & 0x40) === 0) || (hi === -1 && lo === 0xffffffff && (b & 0x40) !== 0);
      if (done) {
        buf[p++] = b;
        break;
      }
      buf[p++] = b | 0x80;
    }
    this.len = p;
  }

  u64Words(lo: number, hi: number): void {
    if (this.len + 10 > this.buf.length) this.grow(10);
    const buf = this.buf;
    let p = this.len;
    lo >>>= 0;
    hi >>>= 0;
    for (;;) {
      const b = lo & 0x7f;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
      if (hi === 0 && lo === 0) {
        buf[p++] = b;
        break;
      }
      buf[p++] = b | 0x80;
    }
    this.len = p;
  }

  u64(v: bigint | number): void {
    const b = BigInt(v);
    this.u64Words(Number(b & 0xffffffffn), Number((b >> 32n) & 0xffffffffn));
  }

  s64(v: bigint): void {
    const u = BigInt.asUintN(64, v);
    this.s64Words(Number(u & 0xffffffffn), Number(u >> 32n) | 0);
  }

  u32Fixed(v: number): void {
    this.u8(v & 0xff);
    this.u8((v >>> 8) & 0xff);
    this.u8((v >>> 16) & 0xff);
    this.u8((v >>> 24) & 0xff);
  }

  name(s: string): void {
    const b = utf8enc.encode(s);
    this.u32(b.length);
    this.bytes(b);
  }

  /** Writes `inner` prefixed by its length. */
  sized(inner: ByteWriter): void {
    this.u32(inner.len);
    this.bytes(inner.finish());
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/**
 * `b` as a plain Uint8Array over the same memory. A subclass may change what
 * the methods mean: Node's Buffer makes slice() a view, not a copy, and the
 * code here takes slice() for a copy it may write to (the DWARF rewrite
 * patched the caller's input that way). Every entry point that takes bytes
 * from a caller passes them through this.
 */
export function plainBytes(b: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(b) === Uint8Array.prototype ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Byte-for-byte equality. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytes taken by the minimal unsigned LEB128 encoding of v. */
export function u32Size(v: number): number {
  v >>>= 0;
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Bytes taken by the minimal signed LEB128 encoding of v. */
export function s32Size(v: number): number {
  v |= 0;
  if (v >= -64 && v < 64) return 1;
  if (v >= -8192 && v < 8192) return 2;
  if (v >= -1048576 && v < 1048576) return 3;
  if (v >= -134217728 && v < 134217728) return 4;
  return 5;
}

/** Bytes of the minimal signed LEB128 encoding of the 64-bit value (hi, lo) (as ByteWriter.s64Words writes it). */
export function s64WordsSize(lo: number, hi: number): number {
  lo >>>= 0;
  hi |= 0;
  if (hi === (lo | 0) >> 31) return s32Size(lo);
  let n = 1;
  for (;;) {
    const b = lo & 0x7f;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>= 7;
    if ((hi === 0 && lo === 0 && (b & 0x40) === 0) || (hi === -1 && lo === 0xffffffff && (b & 0x40) !== 0)) return n;
    n++;
  }
}

/** Bytes of the minimal unsigned LEB128 encoding of the 64-bit value (hi, lo) (as ByteWriter.u64Words writes it). */
export function u64WordsSize(lo: number, hi: number): number {
  hi >>>= 0;
  if (hi === 0) return u32Size(lo);
  // bits above the low 32: 32 + the bit length of hi
  return Math.ceil((64 - Math.clz32(hi)) / 7);
}

/** Bytes of the minimal signed LEB128 encoding of a 33-bit value in [-2^32, 2^32) (as ByteWriter.s33 writes it). */
export function s33Size(v: number): number {
  if (v >= -0x80000000 && v <= 0x7fffffff) return s32Size(v);
  return s64WordsSize(v >>> 0, Math.floor(v / 4294967296) | 0);
}
