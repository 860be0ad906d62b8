// Worker side of the parallel brotli measure (see compress-pool.ts): takes
// jobs whose state slot is still QUEUED, measures gzip where asked to
// (published at once: it takes a twentieth of the brotli run), then brotli;
// publishes the size and wakes the main thread if it is waiting for that job.

import { parentPort } from "node:worker_threads";
import { brotliSize, gzipSize } from "./compress.js";

/** State slot values shared with compress-pool.ts. */
export const QUEUED = 0;
export const TAKEN = 1;
export const DONE = 2;

export interface Job {
  slot: number;
  bytes: Uint8Array;
  /** Measure gzip too, first. */
  gzip: boolean;
}

export interface Init {
  /** Per slot: state (QUEUED, TAKEN, DONE). */
  states: SharedArrayBuffer;
  /** Per slot: the compressed size once DONE. */
  sizes: SharedArrayBuffer;
  /** Per slot: the gzip size + 1 once measured (0 until then). */
  gzips: SharedArrayBuffer;
}

let states: Int32Array | null = null;
let sizes: Int32Array | null = null;
let gzips: Int32Array | null = null;

parentPort?.on("message", (msg: Init | Job) => {
  if ("states" in msg) {
    states = new Int32Array(msg.states);
    sizes = new Int32Array(msg.sizes);
    gzips = new Int32Array(msg.gzips);
    return;
  }
  if (!states || !sizes || !gzips) return;
  // the main thread may have taken the job itself in the meantime
  if (Atomics.compareExchange(states, msg.slot, QUEUED, TAKEN) !== QUEUED) return;
  if (msg.gzip) Atomics.store(gzips, msg.slot, gzipSize(msg.bytes) + 1);
  sizes[msg.slot] = brotliSize(msg.bytes);
  Atomics.store(states, msg.slot, DONE);
  Atomics.notify(states, msg.slot);
});
