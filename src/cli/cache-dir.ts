// The CLI's cache store (--cache DIR): one file per entry, DIR/<key>.wcc.
// Writes are atomic (a temp file in DIR, fsync, rename), so a reader sees a
// whole old entry, a whole new one or none, and two processes writing the
// same entry at once leave one of their two whole files. The directory is
// bounded: past its size limit the entries used longest ago (by mtime, which
// a read refreshes) are removed. Every entry is checked when read (see
// cache/entry.ts): this store only moves bytes.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CacheStore } from "../cache/store.js";
import { commit, discard, writeTemp } from "./files.js";

/** Default bound on the directory's entries: 256 MiB. */
export const DEFAULT_CACHE_BYTES = 256 << 20;
const SUFFIX = ".wcc";
/** A temp file this old belongs to a writer that died: removed when the directory is trimmed. */
const STALE_TEMP_MS = 60 * 60 * 1000;

export class DirCacheStore implements CacheStore {
  constructor(
    readonly dir: string,
    readonly maxBytes: number = DEFAULT_CACHE_BYTES,
  ) {}

  private path(key: string): string {
    if (!/^[a-z0-9-]{1,200}$/.test(key)) throw new Error(`invalid cache key ${JSON.stringify(key)}`);
    return join(this.dir, key + SUFFIX);
  }

  get(key: string): Uint8Array | undefined {
    const path = this.path(key);
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return undefined;
      throw e;
    }
    try {
      // used now: the last to be evicted
      const t = new Date();
      utimesSync(path, t, t);
    } catch {
      // another process may have evicted or replaced it meanwhile: no matter
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  set(key: string, value: Uint8Array): void {
    const pending = writeTemp(this.path(key), value);
    try {
      commit(pending);
    } catch (e) {
      discard(pending);
      throw e;
    }
    this.trim(key + SUFFIX);
  }

  /** Removes the least recently used entries until the directory is within its bound (never `keep`), and dead writers' temp files. */
  trim(keep?: string): void {
    const entries: { name: string; size: number; mtime: number }[] = [];
    let total = 0;
    const nowMs = Date.now();
    for (const name of readdirSync(this.dir)) {
      let st;
      try {
        st = statSync(join(this.dir, name));
      } catch {
        continue; // removed by another process meanwhile
      }
      if (!st.isFile()) continue;
      if (name.includes(`${SUFFIX}.tmp-`)) {
        if (nowMs - st.mtimeMs > STALE_TEMP_MS) rmSync(join(this.dir, name), { force: true });
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      entries.push({ name, size: st.size, mtime: st.mtimeMs });
      total += st.size;
    }
    if (total <= this.maxBytes) return;
    entries.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (total <= this.maxBytes) break;
      if (e.name === keep) continue;
      rmSync(join(this.dir, e.name), { force: true });
      total -= e.size;
    }
  }
}

/** SHA-256 by node:crypto (the core's own is about 10 times slower: 35-80 ms for 700 KB). */
export function nodeSha256(parts: readonly Uint8Array[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex");
}

/** Names Node's compressors, which the size measures of the CLI are: another zlib or brotli may judge otherwise. */
export function nodeMeasuresId(): string {
  return `node zlib ${process.versions.zlib}, brotli ${process.versions.brotli ?? "?"}`;
}

/**
 * Names this build: the SHA-256 of the code this file is part of (the
 * bundled CLI, or this module when run unbundled), so that a development
 * build, whose version stays the same between releases, never takes an
 * entry another build stored.
 */
export function cliBuildId(): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(fileURLToPath(import.meta.url))).digest("hex");
  } catch {
    return undefined;
  }
}
