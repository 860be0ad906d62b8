// The real-world corpus: WebAssembly modules shipped inside npm packages that
// are installed as devDependencies (never modified; only read).
//
//   file          a .wasm file inside the package;
//   base64-in-js  a module embedded as a base64 string literal in the package's
//                 JavaScript (hash-wasm), decoded here.
//
// Modules are deduplicated by content hash: a file that is byte-identical to
// a listed one is recorded as an alias of it. `unlistedWasmFiles()` reports
// any .wasm file in a corpus package that is neither listed nor an alias, so a
// package update that adds a module does not go unnoticed.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export type Extraction = "file" | "base64-in-js";

export interface CorpusEntry {
  /** Short unique name, usable as a file name (e.g. "sql-wasm", "hash-wasm-md5"). */
  name: string;
  /** npm package the module comes from. */
  package: string;
  /** Installed version of that package. */
  version: string;
  extraction: Extraction;
  /** Path (relative to the package directory) of the file the module was taken from. */
  source: string;
  /** Other files in the package holding exactly the same module. */
  aliases: string[];
  /** Byte length of the module. */
  size: number;
  /** Hex SHA-256 of the module. */
  sha256: string;
  /** For embedded modules: the algorithm name found next to the literal (null if none was). */
  label: string | null;
  /** True for modules large enough that a test may want to treat them apart (esbuild). */
  large: boolean;
  /** A fresh copy of the module's bytes. */
  bytes(): Uint8Array;
}

/** One listed .wasm file: package, path inside it, corpus name. */
interface FileSpec {
  package: string;
  path: string;
  name: string;
}

/**
 * The .wasm files that make up the corpus. Files not listed here must be
 * byte-identical to a listed file of the same package (see unlistedWasmFiles).
 */
const FILES: readonly FileSpec[] = [
  { package: "sql.js", path: "dist/sql-wasm.wasm", name: "sql-wasm" },
  { package: "sql.js", path: "dist/sql-wasm-debug.wasm", name: "sql-wasm-debug" },
  { package: "brotli-wasm", path: "pkg.node/brotli_wasm_bg.wasm", name: "brotli-node" },
  { package: "brotli-wasm", path: "pkg.web/brotli_wasm_bg.wasm", name: "brotli-web" },
  { package: "brotli-wasm", path: "pkg.bundler/brotli_wasm_bg.wasm", name: "brotli-bundler" },
  { package: "@bokuweb/zstd-wasm", path: "dist/common/zstd.wasm", name: "zstd" },
  { package: "vscode-oniguruma", path: "release/onig.wasm", name: "onig" },
  { package: "web-tree-sitter", path: "web-tree-sitter.wasm", name: "web-tree-sitter" },
  { package: "web-tree-sitter", path: "debug/web-tree-sitter.wasm", name: "web-tree-sitter-debug" },
  { package: "tree-sitter-javascript", path: "tree-sitter-javascript.wasm", name: "tree-sitter-javascript" },
  { package: "esbuild-wasm", path: "esbuild.wasm", name: "esbuild" },
  // Runtime corpus: workloads that spend their time in loops and calls (issue 13).
  { package: "box2d-wasm", path: "dist/umd/Box2D.wasm", name: "box2d" },
  { package: "box2d-wasm", path: "dist/umd/Box2D.simd.wasm", name: "box2d-simd" },
  { package: "draco3d", path: "draco_encoder.wasm", name: "draco-encoder" },
  { package: "draco3d", path: "draco_decoder.wasm", name: "draco-decoder" },
  { package: "@jsquash/jpeg", path: "codec/enc/mozjpeg_enc.wasm", name: "mozjpeg-enc" },
  { package: "@jsquash/jpeg", path: "codec/dec/mozjpeg_dec.wasm", name: "mozjpeg-dec" },
  { package: "@dimforge/rapier2d-compat", path: "dist/rapier_wasm2d_bg.wasm", name: "rapier2d" },
  { package: "tiktoken", path: "lite/tiktoken_bg.wasm", name: "tiktoken-lite" },
  { package: "tiktoken", path: "tiktoken_bg.wasm", name: "tiktoken" },
  { package: "@silvia-odwyer/photon-node", path: "photon_rs_bg.wasm", name: "photon" },
  // Added after issue 13's calibration, to check its rules on programs they were not tuned on.
  { package: "@wasm-fmt/ruff_fmt", path: "ruff_fmt_bg.wasm", name: "ruff-fmt" },
  { package: "@resvg/resvg-wasm", path: "index_bg.wasm", name: "resvg" },
];

/** Packages whose JavaScript embeds base64 modules: package, folder to scan, name prefix. */
const EMBEDDED: readonly { package: string; dir: string; prefix: string }[] = [
  { package: "hash-wasm", dir: "dist", prefix: "hash-wasm-" },
];

/** Every package the corpus draws from. */
export const CORPUS_PACKAGES: readonly string[] = [
  ...new Set([...FILES.map((f) => f.package), ...EMBEDDED.map((e) => e.package)]),
];

/** Modules at least this big are flagged `large`. */
const LARGE_BYTES = 4 * 1024 * 1024;

const WASM_MAGIC = "AGFzbQ"; // base64 of "\0asm"

function sha256(b: Uint8Array): string {
  return createHash("sha256").update(b).digest("hex");
}

/** Finds `node_modules/<pkg>` the way Node resolves packages: walking up from this file. */
export function packageDir(pkg: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "node_modules", pkg);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error(`corpus package ${pkg} is not installed (npm install)`);
    dir = up;
  }
}

function packageVersion(dir: string): string {
  const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown };
  return typeof json.version === "string" ? json.version : "unknown";
}

function walk(dir: string, accept: (name: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      if (name !== "node_modules") walk(p, accept, out);
    } else if (accept(name)) out.push(p);
  }
  return out;
}

function toPosix(p: string): string {
  return p.split(sep).join("/");
}

function makeEntry(
  name: string,
  pkg: string,
  version: string,
  extraction: Extraction,
  source: string,
  data: Uint8Array,
  hash: string,
  label: string | null = null,
): CorpusEntry {
  return {
    name,
    package: pkg,
    version,
    extraction,
    source,
    aliases: [],
    size: data.length,
    sha256: hash,
    label,
    large: data.length >= LARGE_BYTES,
    bytes: () => data.slice(),
  };
}

/**
 * A base64 module literal in JavaScript text, with the algorithm name that
 * labels it: `{name:"md5",data:"AGFzbQ..."}` (minified) or
 * `var name$d = "md5"; ... var data$d = "AGFzbQ..."` (rollup output).
 */
export interface EmbeddedModule {
  label: string | null;
  base64: string;
}

const LITERAL = /(["'])(AGFzbQ[A-Za-z0-9+/]*={0,2})\1/g;
const LABEL = /name(?:\$\w*)?\s*[:=]\s*(["'])([\w.-]+)\1/g;

/** Finds every base64 wasm literal in `js` with the nearest preceding `name` label (within 300 chars). */
export function findEmbeddedModules(js: string): EmbeddedModule[] {
  const out: EmbeddedModule[] = [];
  for (const m of js.matchAll(LITERAL)) {
    const at = m.index;
    const before = js.slice(Math.max(0, at - 300), at);
    let label: string | null = null;
    for (const l of before.matchAll(LABEL)) label = l[2]!;
    out.push({ label, base64: m[2]! });
  }
  return out;
}

function decodeBase64Wasm(b64: string, where: string): Uint8Array {
  const buf = Buffer.from(b64, "base64");
  const data = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  if (data.length < 8 || data[0] !== 0 || data[1] !== 0x61 || data[2] !== 0x73 || data[3] !== 0x6d) {
    throw new Error(`${where}: base64 literal does not decode to a wasm module`);
  }
  return data;
}

let cached: CorpusEntry[] | null = null;

/**
 * Lists the corpus (read from node_modules on first call, then cached).
 * Order: the listed files, then embedded modules sorted by name.
 */
export function corpus(): CorpusEntry[] {
  if (cached) return cached;
  const entries: CorpusEntry[] = [];
  const byHash = new Map<string, CorpusEntry>();
  const names = new Set<string>();

  for (const f of FILES) {
    const dir = packageDir(f.package);
    const path = join(dir, f.path);
    if (!existsSync(path)) throw new Error(`corpus file missing: ${f.package}/${f.path}`);
    const data = new Uint8Array(readFileSync(path));
    const hash = sha256(data);
    const dup = byHash.get(hash);
    if (dup) throw new Error(`corpus files ${dup.package}/${dup.source} and ${f.package}/${f.path} are identical; list only one`);
    if (names.has(f.name)) throw new Error(`duplicate corpus name ${f.name}`);
    const e = makeEntry(f.name, f.package, packageVersion(dir), "file", f.path, data, hash);
    entries.push(e);
    byHash.set(hash, e);
    names.add(f.name);
  }

  // Aliases: other .wasm files of the same packages with identical bytes.
  for (const pkg of new Set(FILES.map((f) => f.package))) {
    const dir = packageDir(pkg);
    for (const p of walk(dir, (n) => n.endsWith(".wasm"))) {
      const rel = toPosix(relative(dir, p));
      const e = byHash.get(sha256(new Uint8Array(readFileSync(p))));
      if (e && e.package === pkg && e.source !== rel) e.aliases.push(rel);
    }
  }

  for (const emb of EMBEDDED) {
    const dir = packageDir(emb.package);
    const version = packageVersion(dir);
    const root = join(dir, emb.dir);
    // Unminified ESM first, so `source` names the most readable file.
    const files = walk(root, (n) => n.endsWith(".js")).sort((a, b) => rankJs(a) - rankJs(b) || (a < b ? -1 : a > b ? 1 : 0));
    const found: CorpusEntry[] = [];
    for (const p of files) {
      const rel = toPosix(relative(dir, p));
      const js = readFileSync(p, "utf8");
      if (!js.includes(WASM_MAGIC)) continue;
      for (const { label, base64 } of findEmbeddedModules(js)) {
        const data = decodeBase64Wasm(base64, `${emb.package}/${rel}`);
        const hash = sha256(data);
        const dup = byHash.get(hash);
        if (dup) {
          if (dup.source !== rel && !dup.aliases.includes(rel)) dup.aliases.push(rel);
          continue;
        }
        let name = emb.prefix + (label ?? hash.slice(0, 8));
        if (names.has(name)) name += "-" + hash.slice(0, 8);
        const e = makeEntry(name, emb.package, version, "base64-in-js", rel, data, hash, label);
        found.push(e);
        byHash.set(hash, e);
        names.add(name);
      }
    }
    if (found.length === 0) throw new Error(`no embedded wasm modules found in ${emb.package}/${emb.dir}`);
    found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    entries.push(...found);
  }

  cached = entries;
  return entries;
}

function rankJs(p: string): number {
  const n = p.split(sep).pop()!;
  if (n === "index.esm.js") return 0;
  if (n.endsWith(".min.js")) return 2;
  return 1;
}

/**
 * .wasm files inside the corpus packages that are neither listed nor
 * byte-identical to a listed module (package/path).
 */
export function unlistedWasmFiles(): string[] {
  const known = new Set(corpus().map((e) => `${e.package}\0${e.sha256}`));
  const out: string[] = [];
  for (const pkg of CORPUS_PACKAGES) {
    const dir = packageDir(pkg);
    for (const p of walk(dir, (n) => n.endsWith(".wasm"))) {
      if (!known.has(`${pkg}\0${sha256(new Uint8Array(readFileSync(p)))}`)) out.push(`${pkg}/${toPosix(relative(dir, p))}`);
    }
  }
  return out;
}

/** Looks an entry up by name. */
export function corpusEntry(name: string): CorpusEntry {
  const e = corpus().find((x) => x.name === name);
  if (!e) throw new Error(`no corpus module named ${name}`);
  return e;
}
