// The playground page: takes a .wasm (dropped or chosen), sends it with the
// chosen target and passes to the worker, shows its progress, then the size
// table, the report of the run and the download links. The worker's code is
// bundled into this script (WORKER_SOURCE) and started from a blob, so the
// page also works opened as a file.

import { PassPicker } from "./pass-picker.js";
import { fillSizeTable } from "./size-table.js";
import type { OptimizeRequest, WorkerMessage } from "./protocol.js";
import type { SizeTarget } from "../src/size-target.js";

declare const WORKER_SOURCE: string;

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const drop = $<HTMLLabelElement>("drop");
const fileInput = $<HTMLInputElement>("file");
const targetSelect = $<HTMLSelectElement>("target");
const runButton = $<HTMLButtonElement>("run");
const stopButton = $<HTMLButtonElement>("stop");
const progress = $<HTMLProgressElement>("progress");
const phase = $<HTMLSpanElement>("phase");
const status = $<HTMLParagraphElement>("status");
const results = $<HTMLElement>("results");
const download = $<HTMLAnchorElement>("download");
const downloadReport = $<HTMLAnchorElement>("download-report");
const frame = $<HTMLIFrameElement>("report-frame");

let worker: Worker;
let picker: PassPicker | null = null;
let input: { name: string; bytes: Uint8Array } | null = null;
let running = 0; // id of the run in progress, 0 when idle
let waiting = false; // a module came before the optimizer was ready
let nextId = 1;
const urls: string[] = [];

/** body[data-state]: idle, running, done or error (the browser test waits on it). */
function setState(state: "idle" | "running" | "done" | "error", text: string): void {
  document.body.dataset.state = state;
  status.textContent = text;
  status.className = state === "error" ? "error" : "";
  const busy = state === "running";
  runButton.disabled = busy || !input || !picker;
  stopButton.hidden = !busy;
  progress.hidden = !busy;
  if (!busy) phase.textContent = "";
}

function startWorker(): void {
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
  worker = new Worker(url);
  URL.revokeObjectURL(url);
  worker.onmessage = (e: MessageEvent<WorkerMessage>) => onMessage(e.data);
  worker.onerror = (e) => {
    running = 0;
    setState("error", `The optimizer stopped: ${e.message}`);
  };
}

function onMessage(m: WorkerMessage): void {
  if (m.type === "ready") {
    if (!picker) {
      picker = new PassPicker($<HTMLFieldSetElement>("passes"), m.passes, m.pipelines);
      picker.show(targetSelect.value as SizeTarget);
    }
    if (waiting) {
      waiting = false;
      run();
    } else if (document.body.dataset.state !== "running") setState("idle", input ? "" : "Choose a module to optimize.");
    return;
  }
  if (m.id !== running) return; // a run that was stopped
  if (m.type === "progress") {
    progress.value = m.total > 0 ? m.done / m.total : 0;
    phase.textContent = m.phase;
  } else if (m.type === "error") {
    running = 0;
    setState("error", `Error: ${m.message}`);
  } else {
    running = 0;
    showResult(m);
  }
}

function blobUrl(data: BlobPart, type: string): string {
  const url = URL.createObjectURL(new Blob([data], { type }));
  urls.push(url);
  return url;
}

function showResult(m: Extract<WorkerMessage, { type: "result" }>): void {
  for (const u of urls.splice(0)) URL.revokeObjectURL(u);
  const s = m.sizes;
  fillSizeTable($<HTMLTableElement>("size-table"), [
    { label: "raw (.wasm bytes)", change: s.raw },
    { label: "gzip (the browser's CompressionStream)", change: s.gzipStream },
    { label: "gzip -9 (as the CLI measures)", change: s.gzip9 },
    { label: "brotli q11 (as the CLI measures)", change: s.brotli },
  ]);
  download.href = blobUrl(m.output as Uint8Array<ArrayBuffer>, "application/wasm");
  download.download = m.outputName;
  download.textContent = `Download ${m.outputName} (${m.output.length.toLocaleString("en-US")} bytes)`;
  downloadReport.href = blobUrl(m.reportHtml, "text/html");
  downloadReport.download = `${m.outputName.replace(/\.wasm$/, "")}.report.html`;
  const done = `Done in ${(m.timeMs / 1000).toFixed(1)} s: ${s.raw.before.toLocaleString("en-US")} → ${s.raw.after.toLocaleString("en-US")} bytes.`;
  frame.addEventListener("load", () => setState("done", done), { once: true }); // done once the report shows
  frame.srcdoc = m.reportHtml;
  results.hidden = false;
}

function run(): void {
  if (!input || !picker) return;
  const target = targetSelect.value as SizeTarget;
  const passes = picker.chosen(target);
  const id = nextId++;
  running = id;
  progress.value = 0;
  setState("running", `Optimizing ${input.name}…`);
  const bytes = input.bytes.slice(); // the worker takes this copy; the page keeps the input for another run
  const req: OptimizeRequest = { type: "optimize", id, name: input.name, bytes, target, ...(passes ? { passes } : {}) };
  worker.postMessage(req, [bytes.buffer]);
}

async function take(file: File): Promise<void> {
  input = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  if (running) stop();
  if (picker) run();
  else {
    waiting = true;
    setState("idle", `${file.name} is ready; the optimizer is still loading.`);
  }
}

function stop(): void {
  worker.terminate(); // the optimizer is synchronous: ending the worker is the only way to stop it
  running = 0;
  startWorker();
  setState("idle", "Stopped.");
}

fileInput.addEventListener("change", () => {
  const f = fileInput.files?.[0];
  if (f) void take(f);
});
// a file dropped anywhere on the page is taken (the browser would otherwise open it)
document.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
document.addEventListener("dragleave", (e) => {
  if (e.relatedTarget === null) drop.classList.remove("over");
});
document.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const f = e.dataTransfer?.files[0];
  if (f) void take(f);
});
targetSelect.addEventListener("change", () => picker?.show(targetSelect.value as SizeTarget));
runButton.addEventListener("click", run);
stopButton.addEventListener("click", stop);

startWorker();
setState("idle", "Loading the optimizer…");
