// hash-wasm (22 small hand-written C modules, embedded as base64 in the
// package's JavaScript): every algorithm over inputs of the sizes that hit
// block boundaries (0..129 bytes, 4 KiB, 1 MiB), one-shot and streamed in
// uneven chunks with save()/load() of the state mid-stream, with keys, seeds
// and output lengths; HMAC, PBKDF2, scrypt, Argon2i/d/id and bcrypt.
// Cross-checked against node:crypto (MD4 and Whirlpool when OpenSSL's legacy
// provider is there), node:zlib's crc32, small JavaScript reference
// implementations (CRC-32C, CRC-64, Adler-32, xxHash32, xxHash64) and known
// test vectors (Keccak, BLAKE3).
//
// hash-wasm has no option to pass modules in: it decodes base64 literals
// from its own JavaScript. The run imports a copy of dist/index.esm.js, in a
// temporary folder, in which each module's literal is replaced.

import { createHash, createHmac, getHashes, pbkdf2Sync, scryptSync } from "node:crypto";
import { crc32 as zlibCrc32 } from "node:zlib";
import { corpus, type CorpusEntry } from "../../corpus/corpus.js";
import { importFresh, packageText, randomBytes, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

type Data = Uint8Array | string;
type Digest = (data: Data, ...rest: never[]) => Promise<string>;
interface Hasher {
  init(): Hasher;
  update(data: Data): Hasher;
  digest(type?: "hex" | "binary"): string | Uint8Array;
  save(): Uint8Array;
  load(state: Uint8Array): Hasher;
  blockSize: number;
  digestSize: number;
}
type HashWasm = Record<string, (...args: never[]) => Promise<unknown>>;

/** The corpus modules of hash-wasm, in name order. */
function modules(): CorpusEntry[] {
  return corpus().filter((e) => e.package === "hash-wasm");
}

const SIZES = [0, 1, 3, 31, 32, 33, 55, 56, 57, 63, 64, 65, 111, 112, 113, 127, 128, 129, 200, 1000, 4096, 65537];

function inputs(): Record<string, Data> {
  const out: Record<string, Data> = {};
  for (const n of SIZES) out[`random${n}`] = randomBytes(1000 + n, n);
  out["mib"] = randomBytes(77, 1 << 20);
  out["unicode"] = "Grüße, 世界! 😀 — ∑∞ ".repeat(30);
  out["abc"] = "abc";
  return out;
}

// --- small reference implementations for cross-checks ---

function tableCrc32(poly: number): Uint32Array {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
}
const CRC32C = tableCrc32(0x82f63b78);
function crc32c(b: Uint8Array): string {
  let c = 0xffffffff;
  for (const x of b) c = CRC32C[(c ^ x) & 0xff]! ^ (c >>> 8);
  return ((c ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0");
}
function crc64(b: Uint8Array): string {
  const poly = 0xc96c5795d7870f42n;
  const mask = 0xffffffffffffffffn;
  const table: bigint[] = [];
  for (let i = 0n; i < 256n; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n;
    table.push(c);
  }
  let c = mask;
  for (const x of b) c = table[Number((c ^ BigInt(x)) & 0xffn)]! ^ (c >> 8n);
  return ((c ^ mask) & mask).toString(16).padStart(16, "0");
}
function adler32(b: Uint8Array): string {
  let a = 1;
  let s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return (((s << 16) | a) >>> 0).toString(16).padStart(8, "0");
}
function xxh32(b: Uint8Array, seed: number): string {
  const P1 = 2654435761, P2 = 2246822519, P3 = 3266489917, P4 = 668265263, P5 = 374761393;
  const rotl = (x: number, r: number): number => ((x << r) | (x >>> (32 - r))) >>> 0;
  const u32 = (i: number): number => (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
  const round = (acc: number, x: number): number => Math.imul(rotl((acc + Math.imul(x, P2)) >>> 0, 13), P1) >>> 0;
  let i = 0;
  let h: number;
  if (b.length >= 16) {
    let v1 = (seed + P1 + P2) >>> 0, v2 = (seed + P2) >>> 0, v3 = seed >>> 0, v4 = (seed - P1) >>> 0;
    for (; i + 16 <= b.length; i += 16) {
      v1 = round(v1, u32(i));
      v2 = round(v2, u32(i + 4));
      v3 = round(v3, u32(i + 8));
      v4 = round(v4, u32(i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else h = (seed + P5) >>> 0;
  h = (h + b.length) >>> 0;
  for (; i + 4 <= b.length; i += 4) h = Math.imul(rotl((h + Math.imul(u32(i), P3)) >>> 0, 17), P4) >>> 0;
  for (; i < b.length; i++) h = Math.imul(rotl((h + Math.imul(b[i]!, P5)) >>> 0, 11), P1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), P2) >>> 0;
  h = Math.imul(h ^ (h >>> 13), P3) >>> 0;
  return ((h ^ (h >>> 16)) >>> 0).toString(16).padStart(8, "0");
}
function xxh64(b: Uint8Array, seed: bigint): string {
  const M = 0xffffffffffffffffn;
  const P1 = 11400714785074694791n, P2 = 14029467366897019727n, P3 = 1609587929392839161n, P4 = 9650029242287828579n, P5 = 2870177450012600261n;
  const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M;
  const dv = new DataView(b.buffer, b.byteOffset, b.length);
  const round = (acc: bigint, x: bigint): bigint => (rotl((acc + x * P2) & M, 31n) * P1) & M;
  const merge = (acc: bigint, v: bigint): bigint => (((acc ^ round(0n, v)) * P1 + P4) & M);
  let i = 0;
  let h: bigint;
  if (b.length >= 32) {
    let v1 = (seed + P1 + P2) & M, v2 = (seed + P2) & M, v3 = seed, v4 = (seed - P1) & M;
    for (; i + 32 <= b.length; i += 32) {
      v1 = round(v1, dv.getBigUint64(i, true));
      v2 = round(v2, dv.getBigUint64(i + 8, true));
      v3 = round(v3, dv.getBigUint64(i + 16, true));
      v4 = round(v4, dv.getBigUint64(i + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M;
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else h = (seed + P5) & M;
  h = (h + BigInt(b.length)) & M;
  for (; i + 8 <= b.length; i += 8) h = (rotl(h ^ round(0n, dv.getBigUint64(i, true)), 27n) * P1 + P4) & M;
  for (; i + 4 <= b.length; i += 4) h = (rotl(h ^ ((BigInt(dv.getUint32(i, true)) * P1) & M), 23n) * P2 + P3) & M;
  for (; i < b.length; i++) h = (rotl(h ^ ((BigInt(b[i]!) * P5) & M), 11n) * P1) & M;
  h = ((h ^ (h >> 33n)) * P2) & M;
  h = ((h ^ (h >> 29n)) * P3) & M;
  return (h ^ (h >> 32n)).toString(16).padStart(16, "0");
}

function bytesOf(d: Data): Uint8Array {
  return typeof d === "string" ? new TextEncoder().encode(d) : d;
}

/** node:crypto's digest, or null if this OpenSSL does not have the algorithm. */
function nodeDigest(alg: string, d: Data): string | null {
  if (!getHashes().includes(alg)) return null;
  try {
    return createHash(alg).update(bytesOf(d)).digest("hex");
  } catch {
    return null;
  }
}

async function exercise(hw: HashWasm, ctx: RunContext): Promise<Output> {
  const h = hw as unknown as Record<string, Digest>;
  const ins = inputs();
  const out: Record<string, Output> = {};

  // One-shot digests of every input with every algorithm and variant.
  const algorithms: [string, (d: Data) => Promise<string>, ((d: Data) => string | null) | null][] = [
    ["md4", (d) => h.md4!(d), (d) => nodeDigest("md4", d)],
    ["md5", (d) => h.md5!(d), (d) => nodeDigest("md5", d)],
    ["sha1", (d) => h.sha1!(d), (d) => nodeDigest("sha1", d)],
    ["sha224", (d) => h.sha224!(d), (d) => nodeDigest("sha224", d)],
    ["sha256", (d) => h.sha256!(d), (d) => nodeDigest("sha256", d)],
    ["sha384", (d) => h.sha384!(d), (d) => nodeDigest("sha384", d)],
    ["sha512", (d) => h.sha512!(d), (d) => nodeDigest("sha512", d)],
    ["sha3-224", (d) => (h.sha3 as (d: Data, bits: number) => Promise<string>)(d, 224), (d) => nodeDigest("sha3-224", d)],
    ["sha3-256", (d) => (h.sha3 as (d: Data, bits: number) => Promise<string>)(d, 256), (d) => nodeDigest("sha3-256", d)],
    ["sha3-384", (d) => (h.sha3 as (d: Data, bits: number) => Promise<string>)(d, 384), (d) => nodeDigest("sha3-384", d)],
    ["sha3-512", (d) => (h.sha3 as (d: Data, bits: number) => Promise<string>)(d, 512), (d) => nodeDigest("sha3-512", d)],
    ["keccak-256", (d) => (h.keccak as (d: Data, bits: number) => Promise<string>)(d, 256), null],
    ["keccak-512", (d) => (h.keccak as (d: Data, bits: number) => Promise<string>)(d, 512), null],
    ["ripemd160", (d) => h.ripemd160!(d), (d) => nodeDigest("ripemd160", d)],
    ["whirlpool", (d) => h.whirlpool!(d), (d) => nodeDigest("whirlpool", d)],
    ["sm3", (d) => h.sm3!(d), (d) => nodeDigest("sm3", d)],
    ["blake2b-512", (d) => h.blake2b!(d), (d) => nodeDigest("blake2b512", d)],
    ["blake2b-160-keyed", (d) => (h.blake2b as (d: Data, bits: number, key: string) => Promise<string>)(d, 160, "secret key"), null],
    ["blake2s-256", (d) => h.blake2s!(d), (d) => nodeDigest("blake2s256", d)],
    ["blake2s-128-keyed", (d) => (h.blake2s as (d: Data, bits: number, key: string) => Promise<string>)(d, 128, "k"), null],
    ["blake3-256", (d) => h.blake3!(d), null],
    ["blake3-512-keyed", (d) => (h.blake3 as (d: Data, bits: number, key: Uint8Array) => Promise<string>)(d, 512, randomBytes(5, 32)), null],
    ["crc32", (d) => h.crc32!(d), (d) => (zlibCrc32(bytesOf(d)) >>> 0).toString(16).padStart(8, "0")],
    ["crc32c", (d) => (h.crc32 as (d: Data, poly: number) => Promise<string>)(d, 0x82f63b78), (d) => crc32c(bytesOf(d))],
    ["crc64", (d) => h.crc64!(d), (d) => crc64(bytesOf(d))],
    ["adler32", (d) => h.adler32!(d), (d) => adler32(bytesOf(d))],
    ["xxhash32", (d) => (h.xxhash32 as (d: Data, seed: number) => Promise<string>)(d, 0x9747b28c), (d) => xxh32(bytesOf(d), 0x9747b28c)],
    ["xxhash64", (d) => (h.xxhash64 as (d: Data, lo: number, hi: number) => Promise<string>)(d, 0x01234567, 0x89abcdef), (d) => xxh64(bytesOf(d), 0x89abcdef01234567n)],
    ["xxhash3", (d) => (h.xxhash3 as (d: Data, lo: number, hi: number) => Promise<string>)(d, 7, 0), null],
    ["xxhash128", (d) => (h.xxhash128 as (d: Data, lo: number, hi: number) => Promise<string>)(d, 0, 99), null],
  ];
  const digests: Record<string, Output> = {};
  for (const [name, f, reference] of algorithms) {
    const row: Record<string, Output> = {};
    for (const [inName, data] of Object.entries(ins)) {
      const d = await f(data);
      row[inName] = d;
      if (reference) {
        const r = reference(data);
        if (r !== null) ctx.check(d === r, `${name}(${inName}) = ${d}, reference ${r}`);
      }
    }
    digests[name] = row;
  }
  out.digests = digests;

  // Known vectors for algorithms node:crypto does not have.
  const vectors: [string, Promise<string>, string][] = [
    ["keccak-256('')", (h.keccak as (d: Data, bits: number) => Promise<string>)("", 256), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"],
    ["blake3('')", h.blake3!(""), "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"],
    ["crc32c('123456789')", (h.crc32 as (d: Data, poly: number) => Promise<string>)("123456789", 0x82f63b78), "e3069283"],
    ["crc64('123456789')", h.crc64!("123456789"), "995dc9bbdf1939fa"],
    ["xxhash32('', 0)", h.xxhash32!(""), "02cc5d05"],
    ["xxhash64('', 0)", h.xxhash64!(""), "ef46db3751d8e999"],
  ];
  for (const [what, p, want] of vectors) {
    const got = await p;
    ctx.check(got === want, `${what} = ${got}, expected ${want}`);
  }

  // Streaming in uneven chunks, with the state saved and restored midway.
  const creators: [string, () => Promise<Hasher>, string | null][] = [
    ["md5", () => hw.createMD5!() as Promise<Hasher>, "md5"],
    ["sha1", () => hw.createSHA1!() as Promise<Hasher>, "sha1"],
    ["sha256", () => hw.createSHA256!() as Promise<Hasher>, "sha256"],
    ["sha512", () => hw.createSHA512!() as Promise<Hasher>, "sha512"],
    ["sha3-256", () => (hw.createSHA3 as (bits: number) => Promise<Hasher>)(256), "sha3-256"],
    ["blake2b", () => hw.createBLAKE2b!() as Promise<Hasher>, "blake2b512"],
    ["blake3", () => hw.createBLAKE3!() as Promise<Hasher>, null],
    ["xxhash64", () => hw.createXXHash64!() as Promise<Hasher>, null],
    ["xxhash128", () => hw.createXXHash128!() as Promise<Hasher>, null],
    ["whirlpool", () => hw.createWhirlpool!() as Promise<Hasher>, "whirlpool"],
    ["sm3", () => hw.createSM3!() as Promise<Hasher>, "sm3"],
    ["crc64", () => hw.createCRC64!() as Promise<Hasher>, null],
  ];
  const big = ins["mib"] as Uint8Array;
  const streamed: Record<string, Output> = {};
  for (const [name, create, nodeName] of creators) {
    const hasher = await create();
    hasher.init();
    let at = 0;
    let step = 1;
    let saved: Uint8Array | null = null;
    while (at < big.length) {
      const n = Math.min(step, big.length - at);
      hasher.update(big.subarray(at, at + n));
      at += n;
      step = (step * 7 + 3) % 50000;
      if (saved === null && at > big.length / 2) saved = hasher.save();
    }
    const whole = hasher.digest("hex") as string;
    // Resume from the saved state in a second hasher and finish the same way.
    const second = await create();
    second.load(saved!);
    let at2 = 0;
    let step2 = 1;
    let resumed: string | null = null;
    while (at2 < big.length) {
      const n = Math.min(step2, big.length - at2);
      at2 += n;
      step2 = (step2 * 7 + 3) % 50000;
      if (at2 > big.length / 2) {
        second.update(big.subarray(at2));
        resumed = second.digest("hex") as string;
        break;
      }
    }
    const bin = hasher.init().update("abc").digest("binary") as Uint8Array;
    streamed[name] = { whole, resumed, blockSize: hasher.blockSize, digestSize: hasher.digestSize, binaryAbc: Buffer.from(bin).toString("hex") };
    ctx.check(resumed === whole, `${name}: resuming from save() gives another digest`);
    const r = nodeName ? nodeDigest(nodeName, big) : null;
    if (r !== null) ctx.check(whole === r, `streamed ${name} differs from node:crypto`);
  }
  out.streamed = streamed;

  // Keyed and password hashing.
  const kdf: Record<string, Output> = {};
  for (const [alg, create] of [
    ["md5", hw.createMD5!],
    ["sha1", hw.createSHA1!],
    ["sha256", hw.createSHA256!],
    ["sha512", hw.createSHA512!],
    ["sha3-256", () => (hw.createSHA3 as (bits: number) => Promise<Hasher>)(256)],
  ] as [string, () => Promise<unknown>][]) {
    for (const key of ["", "key", "k".repeat(200)]) {
      const hmac = (await (hw.createHMAC as (h: Promise<unknown>, k: string) => Promise<Hasher>)(create(), key)).init();
      const mac = hmac.update(ins["random1000"]!).digest("hex") as string;
      kdf[`hmac-${alg}-${key.length}`] = mac;
      ctx.check(mac === createHmac(alg, key).update(ins["random1000"] as Uint8Array).digest("hex"), `HMAC-${alg} differs from node:crypto`);
    }
  }
  for (const [alg, create, iterations, len] of [
    ["sha1", hw.createSHA1!, 1000, 20],
    ["sha256", hw.createSHA256!, 2000, 64],
    ["sha512", hw.createSHA512!, 500, 100],
  ] as [string, () => Promise<unknown>, number, number][]) {
    const dk = (await (hw.pbkdf2 as (o: object) => Promise<string>)({ password: "pässwörd", salt: "NaCl-salt", iterations, hashLength: len, hashFunction: create(), outputType: "hex" })) as string;
    kdf[`pbkdf2-${alg}`] = dk;
    ctx.check(dk === pbkdf2Sync("pässwörd", "NaCl-salt", iterations, len, alg).toString("hex"), `PBKDF2-${alg} differs from node:crypto`);
  }
  for (const [N, r, p, len] of [
    [1024, 8, 1, 64],
    [256, 4, 3, 32],
    [2048, 1, 2, 48],
  ] as const) {
    const dk = await (hw.scrypt as (o: object) => Promise<string>)({ password: "password", salt: "salt", costFactor: N, blockSize: r, parallelism: p, hashLength: len, outputType: "hex" });
    kdf[`scrypt-${N}-${r}-${p}`] = dk;
    ctx.check(dk === scryptSync("password", "salt", len, { N, r, p }).toString("hex"), `scrypt N=${N} r=${r} p=${p} differs from node:crypto`);
  }
  for (const variant of ["argon2i", "argon2d", "argon2id"]) {
    for (const [iterations, memorySize, parallelism, hashLength] of [
      [2, 1024, 1, 32],
      [3, 4096, 4, 64],
      [1, 64, 2, 16],
    ] as const) {
      const opts = { password: "correct horse", salt: randomBytes(3, 16), secret: "pepper", iterations, memorySize, parallelism, hashLength };
      const encoded = await (hw[variant] as (o: object) => Promise<string>)({ ...opts, outputType: "encoded" });
      const hex = await (hw[variant] as (o: object) => Promise<string>)({ ...opts, outputType: "hex" });
      kdf[`${variant}-${iterations}-${memorySize}-${parallelism}`] = [encoded, hex];
      const ok = await (hw.argon2Verify as (o: object) => Promise<boolean>)({ password: "correct horse", secret: "pepper", hash: encoded });
      const bad = await (hw.argon2Verify as (o: object) => Promise<boolean>)({ password: "correct horsE", secret: "pepper", hash: encoded });
      ctx.check(ok && !bad, `${variant}: argon2Verify does not accept exactly the right password`);
    }
  }
  for (const cost of [4, 6]) {
    const encoded = await (hw.bcrypt as (o: object) => Promise<string>)({ password: "hunter2 — ünïcode", salt: randomBytes(9, 16), costFactor: cost, outputType: "encoded" });
    kdf[`bcrypt-${cost}`] = encoded;
    const ok = await (hw.bcryptVerify as (o: object) => Promise<boolean>)({ password: "hunter2 — ünïcode", hash: encoded });
    const bad = await (hw.bcryptVerify as (o: object) => Promise<boolean>)({ password: "hunter3 — ünïcode", hash: encoded });
    ctx.check(ok && !bad, `bcrypt cost ${cost}: bcryptVerify does not accept exactly the right password`);
  }
  out.kdf = kdf;
  return out;
}

export const workload: Workload = {
  name: "hash-wasm",
  size: "small",
  description: "hash-wasm: 30 hash variants x 27 inputs (0 B..1 MiB), streaming with save/load, HMAC, PBKDF2, scrypt, Argon2, bcrypt; vs node:crypto and references",
  nodeOptions: ["--openssl-legacy-provider"],
  wasm: () => modules().map((e) => ({ name: e.name, bytes: e.bytes() })),
  async run(wasm, ctx) {
    const entries = modules();
    if (entries.length !== wasm.length) throw new Error(`expected ${entries.length} hash-wasm modules, got ${wasm.length}`);
    let js = packageText("hash-wasm", "dist/index.esm.js");
    for (const [i, e] of entries.entries()) {
      if (e.source !== "dist/index.esm.js" && !e.aliases.includes("dist/index.esm.js")) {
        throw new Error(`hash-wasm module ${e.name} is not in dist/index.esm.js`);
      }
      const literal = `"${Buffer.from(e.bytes()).toString("base64")}"`;
      const at = js.indexOf(literal);
      if (at < 0 || js.indexOf(literal, at + 1) >= 0) throw new Error(`the base64 literal of ${e.name} is not in dist/index.esm.js exactly once`);
      js = js.slice(0, at) + `"${Buffer.from(wasm[i]!).toString("base64")}"` + js.slice(at + literal.length);
    }
    return withTempDir("hash-wasm", async (dir) => {
      const hw = await importFresh<HashWasm>(dir.write("index.mjs", js));
      return exercise(hw, ctx);
    });
  },
};
