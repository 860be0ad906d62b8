// Worker side of the parallel brotli measure (see compress-pool.ts): takes
// jobs whose state slot is still QUEUED, one at a time, measures gzip where
// asked to (published at once: it takes a twentieth of the brotli run), then
// brotli; publishes the size and wakes the main thread if it is waiting for
// that job. A job marked `child` (a measure that may never be needed) is
// made by a child process (compress-child.ts), whose pid is published so
// the pool can kill it at once when the run ends: exit would wait for a
// thread inside native brotli, not for a killed process. If the child
// cannot run or fails, the worker measures the job itself, unless the pool
// is stopping: then the worker ends once its child is gone (and reaped: a
// bundler's watch process runs many builds).

import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
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
  /** Measure in a child process (killable). */
  child: boolean;
}

export interface Init {
  /** Per slot: state (QUEUED, TAKEN, DONE). */
  states: SharedArrayBuffer;
  /** Per slot: the compressed size once DONE. */
  sizes: SharedArrayBuffer;
  /** Per slot: the gzip size + 1 once measured (0 until then). */
  gzips: SharedArrayBuffer;
  /** Per slot: the pid of the child process measuring it while it runs (0 otherwise). */
  pids: SharedArrayBuffer;
  /** [0]: 1 once the pool is closing (set before it kills the children). */
  control: SharedArrayBuffer;
}

/** The pool is closing: drop the queue, end the worker once no child runs. */
export interface Stop {
  stop: true;
}

interface Shared {
  states: Int32Array;
  sizes: Int32Array;
  gzips: Int32Array;
  pids: Int32Array;
  control: Int32Array;
}

let shared: Shared | null = null;
const queue: Job[] = [];
let draining = false;
let running: ChildProcess | null = null;

parentPort?.on("message", (msg: Init | Job | Stop) => {
  if ("states" in msg) {
    shared = {
      states: new Int32Array(msg.states),
      sizes: new Int32Array(msg.sizes),
      gzips: new Int32Array(msg.gzips),
      pids: new Int32Array(msg.pids),
      control: new Int32Array(msg.control),
    };
    return;
  }
  if ("stop" in msg) {
    queue.length = 0;
    // a child still running ends the worker when it is gone (see inChild)
    if (running) running.kill("SIGKILL");
    else process.exit(0);
    return;
  }
  queue.push(msg);
  if (!draining) void drain();
});

const stopping = (s: Shared): boolean => Atomics.load(s.control, 0) === 1;

async function drain(): Promise<void> {
  draining = true;
  try {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const s = shared;
      // the main thread may have taken the job itself in the meantime
      if (!s || Atomics.compareExchange(s.states, job.slot, QUEUED, TAKEN) !== QUEUED) continue;
      const size = job.child ? await inChild(job, s).catch(() => null) : null;
      if (stopping(s)) return; // killed by the pool: measuring it here would hold the exit
      if (job.gzip && Atomics.load(s.gzips, job.slot) === 0) Atomics.store(s.gzips, job.slot, gzipSize(job.bytes) + 1);
      s.sizes[job.slot] = size ?? brotliSize(job.bytes);
      Atomics.store(s.states, job.slot, DONE);
      Atomics.notify(s.states, job.slot);
    }
  } finally {
    draining = false;
  }
}

const CHILD = fileURLToPath(new URL("./compress-child.js", import.meta.url));

/** The job's brotli size from a child process (its gzip size published as soon as the child gives it). */
function inChild(job: Job, s: Shared): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, job.gzip ? "gzip" : "brotli"], { stdio: ["pipe", "pipe", "ignore"] });
    running = child;
    if (child.pid !== undefined) Atomics.store(s.pids, job.slot, child.pid);
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
      const lines = out.split("\n");
      if (job.gzip && lines.length > 1 && Atomics.load(s.gzips, job.slot) === 0) Atomics.store(s.gzips, job.slot, Number(lines[0]) + 1);
    });
    child.on("error", (e) => {
      running = null;
      reject(e);
    });
    child.on("close", (code) => {
      running = null;
      Atomics.store(s.pids, job.slot, 0);
      if (stopping(s)) process.exit(0); // reaped: the worker can end
      const lines = out.split("\n");
      const size = Number(lines[job.gzip ? 1 : 0]);
      if (code === 0 && Number.isInteger(size) && size > 0) resolve(size);
      else reject(new Error(`compress child exited with ${code}`));
    });
    child.stdin.on("error", () => {
      // the child died before reading everything: "close" says so
    });
    child.stdin.end(Buffer.from(job.bytes));
  });
}
