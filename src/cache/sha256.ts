// SHA-256 (FIPS 180-4), platform-neutral: the core has no crypto module, and
// a cache keyed by a weak hash (the FNV keys the size judge uses in memory)
// could hand back another module's output on a collision.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** An incremental SHA-256: update() with any number of parts, then hex() once. */
export class Sha256 {
  private readonly h = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  private readonly w = new Int32Array(64);
  private readonly block = new Uint8Array(64);
  private fill = 0;
  private length = 0;
  private done = false;

  update(data: Uint8Array | string): this {
    if (this.done) throw new Error("Sha256: update after digest");
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    this.length += bytes.length;
    let i = 0;
    if (this.fill > 0) {
      const take = Math.min(64 - this.fill, bytes.length);
      this.block.set(bytes.subarray(0, take), this.fill);
      this.fill += take;
      i = take;
      if (this.fill < 64) return this;
      this.compress(this.block, 0);
      this.fill = 0;
    }
    for (; i + 64 <= bytes.length; i += 64) this.compress(bytes, i);
    if (i < bytes.length) {
      this.block.set(bytes.subarray(i), 0);
      this.fill = bytes.length - i;
    }
    return this;
  }

  /** The digest as 64 lower-case hex digits. */
  hex(): string {
    if (!this.done) this.finish();
    let s = "";
    for (const v of this.h) s += (v >>> 0).toString(16).padStart(8, "0");
    return s;
  }

  private finish(): void {
    const bits = this.length * 8;
    const b = this.block;
    b[this.fill++] = 0x80;
    if (this.fill > 56) {
      b.fill(0, this.fill);
      this.compress(b, 0);
      this.fill = 0;
    }
    b.fill(0, this.fill, 56);
    const hi = Math.floor(bits / 2 ** 32);
    const lo = bits >>> 0;
    b[56] = hi >>> 24; b[57] = hi >>> 16; b[58] = hi >>> 8; b[59] = hi;
    b[60] = lo >>> 24; b[61] = lo >>> 16; b[62] = lo >>> 8; b[63] = lo;
    this.compress(b, 0);
    this.done = true;
  }

  private compress(p: Uint8Array, o: number): void {
    const w = this.w;
    for (let t = 0; t < 16; t++, o += 4) w[t] = (p[o]! << 24) | (p[o + 1]! << 16) | (p[o + 2]! << 8) | p[o + 3]!;
    for (let t = 16; t < 64; t++) {
      const a = w[t - 15]!;
      const b = w[t - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) | 0;
    }
    const h = this.h;
    let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!, f = h[5]!, g = h[6]!, k = h[7]!;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (k + S1 + ch + K[t]! + w[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] = (h[0]! + a) | 0; h[1] = (h[1]! + b) | 0; h[2] = (h[2]! + c) | 0; h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0; h[5] = (h[5]! + f) | 0; h[6] = (h[6]! + g) | 0; h[7] = (h[7]! + k) | 0;
  }
}

/** SHA-256 of `data` (bytes or UTF-8 text), as hex. */
export function sha256(data: Uint8Array | string): string {
  return new Sha256().update(data).hex();
}

/** SHA-256 of the parts one after the other, as hex (a host may give a faster one: CacheOptions.sha256). */
export type HashParts = (parts: readonly Uint8Array[]) => string;

export const sha256Parts: HashParts = (parts) => {
  const h = new Sha256();
  for (const p of parts) h.update(p);
  return h.hex();
};
