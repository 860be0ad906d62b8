// Writes the real-world corpus (test/corpus/corpus.ts) to .cache/corpus/ as
// <name>.wasm files plus manifest.json, for tools that want plain files.
//
//   node dist/scripts/corpus-extract.js [--out DIR] [--quiet]
//
// Files whose content is already right are left alone; .wasm files listed by
// a previous manifest but no longer in the corpus are removed. Every file is
// written whole (temporary name, then rename). Exit 0 on success, 1 if the
// corpus cannot be read, 2 on a usage error.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { corpus } from "../test/corpus/corpus.js";

export interface ManifestEntry {
  name: string;
  /** File name inside the output folder. */
  file: string;
  package: string;
  version: string;
  extraction: "file" | "base64-in-js";
  /** Path inside the package the module was taken from. */
  source: string;
  aliases: string[];
  label: string | null;
  size: number;
  sha256: string;
  large: boolean;
}

export interface Manifest {
  generatedBy: string;
  modules: ManifestEntry[];
}

const USAGE = "usage: node dist/scripts/corpus-extract.js [--out DIR] [--quiet]";

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = join(dir, "package.json");
    if (existsSync(pj)) {
      const name = (JSON.parse(readFileSync(pj, "utf8")) as { name?: unknown }).name;
      if (name === "wasm-compact") return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the wasm-compact project root");
    dir = up;
  }
}

function writeWhole(path: string, data: Uint8Array | string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

function sha256(b: Uint8Array): string {
  return createHash("sha256").update(b).digest("hex");
}

function main(argv: string[]): number {
  let out: string | null = null;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--out") {
      const v = argv[++i];
      if (!v) {
        console.error(`--out needs a folder\n${USAGE}`);
        return 2;
      }
      out = v;
    } else if (a.startsWith("--out=")) out = a.slice(6);
    else if (a === "--quiet" || a === "-q") quiet = true;
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      return 0;
    } else {
      console.error(`unknown argument ${a}\n${USAGE}`);
      return 2;
    }
  }
  const dir = resolve(out ?? join(projectRoot(), ".cache", "corpus"));
  mkdirSync(dir, { recursive: true });

  let entries;
  try {
    entries = corpus();
  } catch (e) {
    console.error(`cannot read the corpus: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }

  const manifestPath = join(dir, "manifest.json");
  const previous = new Set<string>();
  if (existsSync(manifestPath)) {
    try {
      const old = JSON.parse(readFileSync(manifestPath, "utf8")) as Partial<Manifest>;
      for (const m of old.modules ?? []) if (typeof m.file === "string") previous.add(m.file);
    } catch {
      // An unreadable old manifest only means no stale files are removed.
    }
  }

  const modules: ManifestEntry[] = [];
  let written = 0;
  for (const e of entries) {
    const file = `${e.name}.wasm`;
    const path = join(dir, file);
    const bytes = e.bytes();
    if (!existsSync(path) || sha256(new Uint8Array(readFileSync(path))) !== e.sha256) {
      writeWhole(path, bytes);
      written++;
    }
    previous.delete(file);
    modules.push({
      name: e.name,
      file,
      package: e.package,
      version: e.version,
      extraction: e.extraction,
      source: e.source,
      aliases: e.aliases,
      label: e.label,
      size: e.size,
      sha256: e.sha256,
      large: e.large,
    });
  }
  for (const stale of previous) {
    const p = join(dir, stale);
    if (!stale.includes("/") && stale.endsWith(".wasm") && existsSync(p)) unlinkSync(p);
  }
  const manifest: Manifest = { generatedBy: "scripts/corpus-extract.ts", modules };
  writeWhole(manifestPath, JSON.stringify(manifest, null, 2) + "\n");

  if (!quiet) {
    const total = modules.reduce((s, m) => s + m.size, 0);
    console.log(`${modules.length} modules (${(total / 1e6).toFixed(2)} MB) in ${dir}; ${written} written, ${modules.length - written} already up to date`);
    for (const m of modules) console.log(`  ${m.file.padEnd(32)} ${String(m.size).padStart(10)}  ${m.package}/${m.source}`);
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
