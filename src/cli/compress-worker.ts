// Worker side of the parallel brotli measure (see compress-pool.ts): takes
// jobs whose state slot is still QUEUED, compresses, publishes the size and
// wakes the main thread if it is waiting for that job.

import { parentPort } from "node:worker_threads";
import { brotliSize } from "./compress.js";

/** State slot values shared with compress-pool.ts. */
export const QUEUED = 0;
export const TAKEN = 1;
export const DONE = 2;

export interface Job {
  slot: number;
  bytes: Uint8Array;
}

export interface Init {
  /** Per slot: state (QUEUED, TAKEN, DONE). */
  states: SharedArrayBuffer;
  /** Per slot: the compressed size once DONE. */
  sizes: SharedArrayBuffer;
}

let states: Int32Array | null = null;
let sizes: Int32Array | null = null;

parentPort?.on("message", (msg: Init | Job) => {
  if ("states" in msg) {
    states = new Int32Array(msg.states);
    sizes = new Int32Array(msg.sizes);
    return;
  }
  if (!states || !sizes) return;
  // the main thread may have taken the job itself in the meantime
  if (Atomics.compareExchange(states, msg.slot, QUEUED, TAKEN) !== QUEUED) return;
  sizes[msg.slot] = brotliSize(msg.bytes);
  Atomics.store(states, msg.slot, DONE);
  Atomics.notify(states, msg.slot);
});
