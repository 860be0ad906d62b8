// Where a cache keeps its entries: a key-value store the caller injects, so
// the core stays platform-neutral (the CLI gives it a directory, see
// cli/cache-dir.ts; a browser could give it a Map or IndexedDB-backed copy).
// The store only keeps bytes: every entry is checked when read (entry.ts),
// so a store that loses, truncates or mixes up entries costs time, never a
// wrong output.

export interface CacheStore {
  /** The bytes last stored under `key`, or undefined. May throw: the run notes it and goes on without the entry. */
  get(key: string): Uint8Array | undefined;
  /**
   * Stores `value` under `key`, replacing what was there. A reader must see
   * the old value, the new one, or none, never a mix (the directory store
   * writes a temp file and renames it). May throw: the run notes it.
   */
  set(key: string, value: Uint8Array): void;
}

/** A store in memory (tests, and hosts without a file system). */
export class MemoryCacheStore implements CacheStore {
  readonly entries = new Map<string, Uint8Array>();

  get(key: string): Uint8Array | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: Uint8Array): void {
    this.entries.set(key, value.slice());
  }
}
