// Little-endian fixed-size integers and LEB128 as DWARF encodes them, read
// from and written to plain byte arrays. A malformed or unsupported input
// throws DwarfRefusal: the caller then removes the DWARF with a note.

/** DWARF that cannot be rewritten exactly; `message` says what and where. */
export class DwarfRefusal extends Error {}

export function refuse(message: string): never {
  throw new DwarfRefusal(message);
}

export class DwarfReader {
  pos: number;
  constructor(
    readonly b: Uint8Array,
    pos = 0,
    public end = b.length,
    readonly what = "DWARF",
  ) {
    this.pos = pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.end) refuse(`${this.what}: truncated at offset ${this.pos}`);
  }

  u8(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.b[this.pos]! | (this.b[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const b = this.b;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
  }

  /** An unsigned integer of `size` bytes (1, 2, 4 or 8; 8 only below 2^53). */
  uN(size: number): number {
    switch (size) {
      case 1:
        return this.u8();
      case 2:
        return this.u16();
      case 4:
        return this.u32();
      case 8: {
        const lo = this.u32();
        const hi = this.u32();
        if (hi >= 0x200000) refuse(`${this.what}: a 64-bit value above 2^53 at offset ${this.pos - 8}`);
        return hi * 0x100000000 + lo;
      }
    }
    return refuse(`${this.what}: a ${size}-byte integer`);
  }

  // LEB128 values up to 64 bits (10 bytes); above 2^53 they are rounded,
  // which only constants can be (addresses, offsets and indices are small)
  uleb(): number {
    let v = 0;
    let mul = 1;
    for (let n = 1; ; n++) {
      const x = this.u8();
      v += (x & 0x7f) * mul;
      if ((x & 0x80) === 0) break;
      mul *= 128;
      if (n === 10) refuse(`${this.what}: a LEB128 longer than 10 bytes at offset ${this.pos}`);
    }
    return v;
  }

  sleb(): number {
    let v = 0;
    let mul = 1;
    let x: number;
    let n = 0;
    do {
      x = this.u8();
      v += (x & 0x7f) * mul;
      mul *= 128;
      if (++n === 10 && x & 0x80) refuse(`${this.what}: a LEB128 longer than 10 bytes at offset ${this.pos}`);
    } while (x & 0x80);
    if (x & 0x40) v -= mul;
    return v;
  }

  /** Skips a NUL-terminated string. */
  cstr(): void {
    while (this.u8() !== 0);
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
}

/** A growing little-endian byte buffer. */
export class DwarfWriter {
  private buf: Uint8Array;
  len = 0;
  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.len++] = v & 0xff;
  }

  u16(v: number): void {
    this.u8(v);
    this.u8(v >>> 8);
  }

  u32(v: number): void {
    this.room(4);
    putU32(this.buf, this.len, v);
    this.len += 4;
  }

  uN(v: number, size: number): void {
    if (size === 4) this.u32(v);
    else if (size === 8) {
      this.u32(v % 0x100000000);
      this.u32(Math.floor(v / 0x100000000));
    } else if (size === 2) this.u16(v);
    else if (size === 1) this.u8(v);
    else refuse(`a ${size}-byte integer`);
  }

  uleb(v: number): void {
    do {
      let x = v % 128;
      v = Math.floor(v / 128);
      if (v > 0) x |= 0x80;
      this.u8(x);
    } while (v > 0);
  }

  sleb(v: number): void {
    for (;;) {
      const x = ((v % 128) + 128) % 128;
      v = Math.floor(v / 128);
      const done = (v === 0 && (x & 0x40) === 0) || (v === -1 && (x & 0x40) !== 0);
      this.u8(done ? x : x | 0x80);
      if (done) return;
    }
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** Overwrites 4 bytes at `at` (a length written before its contents were known). */
  patchU32(at: number, v: number): void {
    putU32(this.buf, at, v);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export function putU32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
}

/** Writes `v` into `size` little-endian bytes at `at`; refuses if it does not fit. */
export function putUN(b: Uint8Array, at: number, size: number, v: number): void {
  if (v < 0 || (size < 8 && v >= 2 ** (8 * size))) refuse(`a value ${v} does not fit in ${size} bytes`);
  let x = v;
  for (let k = 0; k < size; k++) {
    b[at + k] = x % 256;
    x = Math.floor(x / 256);
  }
}

/** Writes `v` as a ULEB128 of exactly `size` bytes at `at` (padded with continuation bytes, which readers accept); refuses if it does not fit. */
export function putPaddedUleb(b: Uint8Array, at: number, size: number, v: number): void {
  if (v < 0 || v >= 2 ** (7 * size)) refuse(`a value ${v} does not fit in a ${size}-byte LEB128`);
  let x = v;
  for (let k = 0; k < size; k++) {
    const low = x % 128;
    x = Math.floor(x / 128);
    b[at + k] = k < size - 1 ? low | 0x80 : low;
  }
}
