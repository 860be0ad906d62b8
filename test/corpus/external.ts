// Validation by independent tools, npm binaryen (all features enabled) and
// wabt (every feature it knows), each run in its own worker thread so that
// large modules validate in parallel with our own work on the main thread.
//
// This file is both the client (main thread) and the worker entry: a worker
// is started on this same file with `workerData.externalTool` set. Loaded on
// the main thread (or by a test runner), it does nothing by itself.

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

export type Tool = "binaryen" | "wabt";
export const TOOLS: readonly Tool[] = ["binaryen", "wabt"];

export interface ExternalResult {
  tool: Tool;
  /** The module was parsed and validated. */
  ok: boolean;
  /** Why not (the tool's own message). */
  error: string | null;
  /** Wall time inside the worker, ms. */
  ms: number;
}

interface Request {
  id: number;
  bytes: Uint8Array;
  /** wabt only: the feature flags to read and validate with (default: all of WABT_FEATURES). */
  features?: WabtFeatures;
}

/** wabt's feature flags by its own names (sign_extension, multi_value ...). */
export type WabtFeatures = Readonly<Record<string, boolean>>;

interface Reply {
  id: number;
  ok: boolean;
  error: string | null;
  ms: number;
  /** The tool aborted and its instance may be unusable: the worker exits after replying. */
  fatal: boolean;
}

// Every feature flag wabt's JS API accepts.
export const WABT_FEATURES = {
  exceptions: true,
  mutable_globals: true,
  sat_float_to_int: true,
  sign_extension: true,
  simd: true,
  threads: true,
  function_references: true,
  multi_value: true,
  tail_call: true,
  bulk_memory: true,
  reference_types: true,
  annotations: true,
  code_metadata: true,
  gc: true,
  memory64: true,
  extended_const: true,
  relaxed_simd: true,
  multi_memory: true,
} as const;

// ---------------------------------------------------------------- worker side

type Validator = (bytes: Uint8Array, features?: WabtFeatures) => { ok: boolean; error: string | null; fatal: boolean };

async function makeBinaryen(): Promise<Validator> {
  // Binaryen prints validation errors through console.log/console.error,
  // bound when the module initializes: capture them before it loads.
  let captured: string[] = [];
  const capture = (...a: unknown[]) => {
    captured.push(a.map(String).join(" "));
  };
  console.log = capture;
  console.error = capture;
  console.warn = capture;
  const binaryen = (await import("binaryen")).default;
  return (bytes) => {
    captured = [];
    let mod: ReturnType<typeof binaryen.readBinary> | null = null;
    try {
      mod = binaryen.readBinary(bytes);
      mod.setFeatures(binaryen.Features.All);
      const valid = mod.validate();
      if (valid) return { ok: true, error: null, fatal: false };
      return { ok: false, error: "binaryen validation failed: " + clip(captured.join("\n")), fatal: false };
    } catch (e) {
      return { ok: false, error: "binaryen could not read the module: " + clip(String(e) + "\n" + captured.join("\n")), fatal: true };
    } finally {
      mod?.dispose();
    }
  };
}

async function makeWabt(): Promise<Validator> {
  const wabt = await (await import("wabt")).default();
  return (bytes, features = WABT_FEATURES) => {
    let mod: ReturnType<typeof wabt.readWasm> | null = null;
    try {
      mod = wabt.readWasm(bytes, { readDebugNames: false, ...features });
      // without its own flags, validate() checks under wabt's defaults (multi-value on, among others)
      (mod as unknown as { validate(f: WabtFeatures): void }).validate(features);
      return { ok: true, error: null, fatal: false };
    } catch (e) {
      return { ok: false, error: "wabt: " + clip(e instanceof Error ? e.message : String(e)), fatal: false };
    } finally {
      mod?.destroy();
    }
  };
}

function clip(s: string): string {
  const t = s.trim();
  return t.length > 2000 ? t.slice(0, 2000) + " …" : t;
}

async function workerMain(tool: Tool): Promise<void> {
  const port = parentPort!;
  const validate = tool === "binaryen" ? await makeBinaryen() : await makeWabt();
  port.on("message", (req: Request) => {
    const t0 = performance.now();
    const r = validate(req.bytes, req.features);
    const reply: Reply = { id: req.id, ok: r.ok, error: r.error, ms: performance.now() - t0, fatal: r.fatal };
    port.postMessage(reply);
    if (r.fatal) process.exit(0);
  });
  port.postMessage({ ready: true });
}

const wd = workerData as { externalTool?: Tool } | null;
if (!isMainThread && wd && (wd.externalTool === "binaryen" || wd.externalTool === "wabt")) {
  void workerMain(wd.externalTool);
}

// ---------------------------------------------------------------- client side

class ToolWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, { resolve: (r: ExternalResult) => void; reject: (e: Error) => void }>();

  constructor(readonly tool: Tool) {}

  private start(): Worker {
    const w = new Worker(new URL(import.meta.url), { workerData: { externalTool: this.tool } });
    w.on("message", (msg: Reply | { ready: true }) => {
      if ("ready" in msg) return;
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.fatal) this.worker = null; // it exits; the next request starts a fresh one
      p.resolve({ tool: this.tool, ok: msg.ok, error: msg.error, ms: msg.ms });
      this.idle();
    });
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = null;
      for (const [, p] of this.pending) p.reject(err);
      this.pending.clear();
    };
    w.on("error", fail);
    w.on("exit", (code) => {
      if (this.pending.size) fail(new Error(`${this.tool} worker exited (code ${code}) with requests pending`));
      else if (this.worker === w) this.worker = null;
    });
    return w;
  }

  /** Lets the process exit while no request is pending. */
  private idle(): void {
    if (this.pending.size === 0) this.worker?.unref();
  }

  validate(bytes: Uint8Array, features?: WabtFeatures): Promise<ExternalResult> {
    if (!this.worker) this.worker = this.start();
    const w = this.worker;
    w.ref();
    const id = this.nextId++;
    const copy = bytes.slice();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ id, bytes: copy, ...(features ? { features } : {}) } satisfies Request, [copy.buffer]);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

const workers = new Map<Tool, ToolWorker>();

/** Parses and validates `bytes` with `tool` in a worker thread (wabt: with these feature flags, default all). */
export function validateWith(tool: Tool, bytes: Uint8Array, wabtFeatures?: WabtFeatures): Promise<ExternalResult> {
  let w = workers.get(tool);
  if (!w) {
    w = new ToolWorker(tool);
    workers.set(tool, w);
  }
  return w.validate(bytes, tool === "wabt" ? wabtFeatures : undefined);
}

/** Stops the worker threads. */
export async function closeExternalValidators(): Promise<void> {
  const all = [...workers.values()];
  workers.clear();
  await Promise.all(all.map((w) => w.close()));
}
