// Brotli measures on several cores (`--threads`). A brotli q11 run of the whole module is most
// of the time a compressed size target costs (about 1.6 µs per byte, 5-15
// runs per file), and the judge often knows what it will measure next: the
// input while the first passes plan, every candidate order of `layout`, the
// "before" and "after" of a comparison. It says so with `prefetch`; a worker
// thread compresses those while the main thread goes on, and a measure that
// is still queued is taken by whichever thread gets to it first, so the main
// thread never idles while there is queued work. Results are the same
// numbers as the single-threaded measure (same compressor, same settings).
// A module hinted early (the input, while the passes run) has its gzip size
// measured by the worker too, first: the judge asks for it before brotli.
// With more than one worker (`--threads N` runs N - 1) every job goes to
// every worker over one shared copy of its bytes, and whichever is free first
// takes it (the same compare-and-swap as above): the candidates a judge
// hints together are compressed side by side. An early hint (the input,
// whose size may never be asked for: when no pass pays, the run returns the
// input unmeasured) is compressed by a child process a worker starts, which
// close() kills: a worker thread inside native brotli would hold the
// process's exit until it finished (seconds on a large module).

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { contentKey, type SizeMeasures } from "../size-target.js";
import { brotliSize, gzipSize, nodeMeasures } from "./compress.js";
import { DONE, QUEUED, TAKEN, type Init, type Job, type Stop } from "./compress-worker.js";

/** Slots are never reused (a stale message could otherwise take a new job): this bounds prefetches per pool. */
const SLOTS = 1 << 16;
/**
 * Modules above this are measured on the main thread only. At quality 11
 * with window 22 a second compressor of esbuild.wasm (14 MB) needs about
 * 80 MiB besides its copy of the module (peak RSS of a process doing only
 * that: 124 MiB), so every size goes to the worker; the limit stays as the
 * place to say otherwise. (At quality 9 with window 24 it had cost 480 MiB.)
 */
const PARALLEL_MAX = Number.POSITIVE_INFINITY;
/** Results kept for measures that were prefetched but not asked for yet. */
const KEEP = 64;

interface Pending {
  slot: number;
  bytes: Uint8Array;
}

export class BrotliPool {
  private workers: Worker[] = [];
  private readonly states = new Int32Array(new SharedArrayBuffer(4 * SLOTS));
  private readonly sizes = new Int32Array(new SharedArrayBuffer(4 * SLOTS));
  private readonly gzips = new Int32Array(new SharedArrayBuffer(4 * SLOTS));
  private readonly pids = new Int32Array(new SharedArrayBuffer(4 * SLOTS));
  /** [0]: 1 once closing (see compress-worker.ts). */
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
  /** Slots of prefetched modules whose gzip size was not asked for yet, by content key. */
  private readonly gzipSlots = new Map<string, number>();
  private next = 0;
  /** Set when the worker failed: everything is measured on the main thread from then on. */
  private broken = false;
  /** Queued or running on the worker, by content key, in prefetch order. */
  private readonly pending = new Map<string, Pending>();
  private readonly done = new Map<string, number>();
  /** Measures run, by thread (for tests and reports). */
  readonly counts = { main: 0, worker: 0, gzipWorker: 0 };

  /** @param workerCount compression workers besides the calling thread (at least 1), started on the first prefetch */
  constructor(readonly workerCount = 1) {
    if (!Number.isInteger(workerCount) || workerCount < 1) throw new RangeError(`BrotliPool needs at least one worker, got ${workerCount}`);
  }

  /**
   * Starts compressing these in the background (no-op for ones already known
   * or queued); `early`: modules not needed soon and perhaps never, whose
   * gzip sizes are measured too (otherwise the main thread measures gzip
   * while the worker would), by a child process that close() can kill.
   */
  prefetch(list: readonly Uint8Array[], early = false): void {
    for (const bytes of list) {
      if (this.broken || bytes.length > PARALLEL_MAX || this.next >= SLOTS) continue;
      const key = contentKey(bytes);
      if (this.pending.has(key) || this.done.has(key)) continue;
      const slot = this.next++;
      // one copy the workers share (a copy per worker would multiply the memory), and the one this thread
      // compresses if it takes the job back: the caller may change its bytes after the hint
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
      shared.set(bytes);
      this.states[slot] = QUEUED;
      this.pending.set(key, { slot, bytes: shared });
      if (early) {
        if (this.gzipSlots.size >= KEEP) this.gzipSlots.delete(this.gzipSlots.keys().next().value!);
        this.gzipSlots.set(key, slot);
      }
      for (const w of this.ensureWorkers()) w.postMessage({ slot, bytes: shared, gzip: early, child: early } satisfies Job);
    }
  }

  /** The brotli size of `bytes`: from the worker when it has it (waiting if it is compressing it), else computed here. */
  measure(bytes: Uint8Array): number {
    const key = contentKey(bytes);
    const known = this.done.get(key);
    if (known !== undefined) {
      this.done.delete(key);
      return known;
    }
    const p = this.pending.get(key);
    if (!p) {
      this.counts.main++;
      return brotliSize(bytes);
    }
    this.pending.delete(key);
    if (Atomics.compareExchange(this.states, p.slot, QUEUED, TAKEN) === QUEUED) {
      this.counts.main++;
      return brotliSize(bytes);
    }
    // the worker has it: help with other queued work meanwhile, newest first;
    // a worker that died (its exit cannot be seen while this thread blocks)
    // is outwaited by a generous deadline, then the measure is made here
    const deadline = performance.now() + 10_000 + bytes.length / 50;
    while (Atomics.load(this.states, p.slot) !== DONE) {
      if (this.helpOnce()) continue;
      if (performance.now() > deadline) {
        this.broken = true;
        this.counts.main++;
        return brotliSize(bytes);
      }
      Atomics.wait(this.states, p.slot, TAKEN, 50);
    }
    this.counts.worker++;
    return this.sizes[p.slot]!;
  }

  /** The gzip size of `bytes`: the worker's, if it measured it (prefetched with gzip), else computed here. */
  gzip(bytes: Uint8Array): number {
    const key = contentKey(bytes);
    const slot = this.gzipSlots.get(key);
    if (slot !== undefined) {
      const v = Atomics.load(this.gzips, slot);
      if (v > 0) {
        this.gzipSlots.delete(key);
        this.counts.gzipWorker++;
        return v - 1;
      }
    }
    return gzipSize(bytes);
  }

  /** Takes one queued job from the worker's queue and runs it here; false if there was none. */
  private helpOnce(): boolean {
    const entries = [...this.pending.entries()];
    for (let k = entries.length - 1; k >= 0; k--) {
      const [key, q] = entries[k]!;
      if (Atomics.compareExchange(this.states, q.slot, QUEUED, TAKEN) !== QUEUED) continue;
      this.pending.delete(key);
      this.counts.main++;
      this.remember(key, brotliSize(q.bytes));
      Atomics.store(this.states, q.slot, DONE);
      return true;
    }
    return false;
  }

  private remember(key: string, size: number): void {
    if (this.done.size >= KEEP) this.done.delete(this.done.keys().next().value!);
    this.done.set(key, size);
  }

  private ensureWorkers(): Worker[] {
    while (this.workers.length < this.workerCount) {
      const w = new Worker(new URL("./compress-worker.js", import.meta.url));
      w.unref();
      w.on("error", () => void (this.broken = true));
      w.postMessage({
        states: this.states.buffer as SharedArrayBuffer,
        sizes: this.sizes.buffer as SharedArrayBuffer,
        gzips: this.gzips.buffer as SharedArrayBuffer,
        pids: this.pids.buffer as SharedArrayBuffer,
        control: this.control.buffer as SharedArrayBuffer,
      } satisfies Init);
      this.workers.push(w);
    }
    return this.workers;
  }

  /** Workers started so far (for tests). */
  get started(): number {
    return this.workers.length;
  }

  /** Hinted jobs not finished yet, queued or being compressed (for tests). */
  get unfinished(): number {
    let n = 0;
    for (const p of this.pending.values()) if (Atomics.load(this.states, p.slot) !== DONE) n++;
    return n;
  }

  /** Pids of the child processes measuring now (for tests). */
  get children(): number[] {
    const out: number[] = [];
    for (let slot = 0; slot < this.next; slot++) if (Atomics.load(this.pids, slot) > 0) out.push(Atomics.load(this.pids, slot));
    return out;
  }

  /**
   * Stops the workers and kills their child processes at once (jobs still
   * queued or running are dropped). A worker ends by itself once its child
   * is gone and reaped; one still inside a measure of its own is terminated
   * (the process's exit waits for that measure: only early ones go to a
   * child).
   */
  async close(): Promise<void> {
    Atomics.store(this.control, 0, 1);
    for (let slot = 0; slot < this.next; slot++) {
      const pid = Atomics.exchange(this.pids, slot, 0);
      if (pid <= 0) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // it ended meanwhile
      }
    }
    const ws = this.workers;
    this.workers = [];
    this.pending.clear();
    this.gzipSlots.clear();
    await Promise.all(ws.map((w) => ended(w)));
  }
}

/** Asks worker `w` to stop and waits until it has ended; terminates it if it has not within 2 s. */
function ended(w: Worker): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => void w.terminate().then(() => resolve()), 2000);
    timer.unref();
    w.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    w.ref(); // the wait keeps the event loop (and the process) alive until it ends
    w.postMessage({ stop: true } satisfies Stop);
  });
}

/**
 * The default thread count: the available cores, at most 4. The judge hints at a handful of modules at a time
 * (the two sides of a comparison, layout's candidates, the input), and a worker compressing a large module at
 * quality 11 holds about 80 MB: more workers would add memory, not speed.
 */
export function defaultThreads(): number {
  return Math.min(availableParallelism(), 4);
}

/**
 * Node's measures with brotli on `threads` threads: the caller's and threads - 1 workers (plain measures, no
 * worker, for 1); `pool.close()` when done. The numbers are the same whatever the count, so is the output.
 */
export function parallelNodeMeasures(threads = defaultThreads()): { measures: SizeMeasures; pool: BrotliPool } {
  const pool = new BrotliPool(Math.max(1, threads - 1));
  if (threads < 2) return { pool, measures: nodeMeasures };
  return {
    pool,
    measures: {
      ...nodeMeasures,
      gzip: (b) => pool.gzip(b),
      brotli: (b) => pool.measure(b),
      prefetch: (list, early) => pool.prefetch(list, early),
    },
  };
}
