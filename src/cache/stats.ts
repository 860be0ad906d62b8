// What a cached run tells its caller: whether the whole result came from the
// cache, how many lookups of each kind found a usable entry, and the notes on
// entries that were ignored (another version, corrupt, truncated, failing
// their check) or on a store that failed.

import type { CacheStore } from "./store.js";
import type { HashParts } from "./sha256.js";

export interface CacheOptions {
  store: CacheStore;
  /**
   * Names the compressors behind `measures` and their settings (the CLI:
   * Node's zlib and brotli versions). Outputs judged by other compressors
   * are other outputs, and the core cannot look inside a function: with
   * measures and without this id, nothing is cached (a note says so).
   */
  measuresId?: string;
  /**
   * Names the exact build, where the version does not (a development build
   * between releases): entries of another build are not used. The CLI gives
   * the SHA-256 of its own bundle.
   */
  buildId?: string;
  /**
   * Re-run the brotli quality-11 measures when checking a stored output
   * under a compressed target. By default the check re-measures raw and
   * gzip sizes and takes the brotli sizes the storing run measured of these
   * exact bytes (kept in the entry, under its checksum, and keyed by
   * measuresId): two quality-11 runs cost a third to two thirds of a cold
   * run on mid-size files.
   */
  remeasureBrotli?: boolean;
  /**
   * SHA-256 of the parts one after the other, as hex, where the host has a
   * faster one than the core's (the CLI: node:crypto, about 10 times faster).
   * It must be SHA-256: keys and checksums of entries stored by other hosts
   * must agree.
   */
  sha256?: HashParts;
}

export interface CacheStats {
  /**
   * The whole result: "hit" (the stored output, checked again: it validates,
   * adds no feature that is not allowed, and passes the size target's final
   * check), "miss" (computed, then stored), "off" (this run cannot be cached:
   * see notes).
   */
  result: "hit" | "miss" | "off";
  /** Lookups that found a usable entry, by kind of entry. */
  hits: Record<string, number>;
  /** Lookups that found none, or one that was ignored, by kind. */
  misses: Record<string, number>;
  /** Entries written. */
  writes: number;
  /** Entries ignored and store failures, one line each ("cache: ..."). */
  notes: string[];
}

export function newStats(): CacheStats {
  return { result: "miss", hits: {}, misses: {}, writes: 0, notes: [] };
}

export function count(into: Record<string, number>, kind: string, n = 1): void {
  into[kind] = (into[kind] ?? 0) + n;
}
