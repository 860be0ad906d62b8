// The playground's worker: runs the platform-neutral core on a dropped
// module with the CLI's defaults and measures, so its output is the CLI's
// (`wasm-compact IN -o OUT --target T [--passes P]`), and renders the --html
// report of the run. Posts progress while the optimizer (synchronous) runs.

import { optimize } from "../src/pipeline.js";
import { defaultPipeline, listPasses } from "../src/passes/registry.js";
import { SIZE_TARGETS, type SizeTarget } from "../src/size-target.js";
import { BROTLI_QUALITY, BROTLI_WINDOW, compressorMeasures } from "../src/compressor-measures.js";
import { htmlReportData } from "../src/report-data.js";
import { reportHtml } from "../src/report-html.js";
import { loadCompressors, memoByArray, streamGzipSize } from "./compressors.js";
import type { OptimizeRequest, WorkerMessage } from "./protocol.js";

interface WorkerScope {
  postMessage(message: WorkerMessage, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<OptimizeRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;

/** Progress messages at most this often (the optimizer calls back far more often). */
const PROGRESS_MS = 50;

/** The output's name: x.wasm -> x.min.wasm. */
function outputName(input: string): string {
  return input.toLowerCase().endsWith(".wasm") ? `${input.slice(0, -5)}.min.wasm` : `${input}.min.wasm`;
}

const ready = loadCompressors().then((c) => {
  // the real measures, remembered per array: the report asks again for sizes the judge measured
  const gzip9 = memoByArray(c.gzip9);
  const brotli11 = memoByArray((b) => c.brotli(b, BROTLI_QUALITY, BROTLI_WINDOW));
  const measures = { ...compressorMeasures(c), gzip: gzip9, brotli: brotli11 };
  const pipelines = Object.fromEntries(SIZE_TARGETS.map((t) => [t, [...defaultPipeline(t)]])) as Record<SizeTarget, string[]>;
  const passes = listPasses()
    .filter((p) => p.name !== "identity")
    .map((p) => ({ name: p.name, description: p.description }));
  scope.postMessage({ type: "ready", passes, pipelines });
  return { measures, gzip9, brotli11 };
});
ready.catch((err: unknown) => {
  // id 0: the page shows it while no run is going
  scope.postMessage({ type: "error", id: 0, message: `the optimizer could not start: ${err instanceof Error ? err.message : String(err)}` });
});

async function run(req: OptimizeRequest): Promise<void> {
  const { measures, gzip9, brotli11 } = await ready;
  const t0 = performance.now();
  let last = 0;
  const progress = (done: number, total: number, phase: string): void => {
    const t = performance.now();
    if (t - last < PROGRESS_MS && phase !== "done") return;
    last = t;
    scope.postMessage({ type: "progress", id: req.id, done, total, phase });
  };
  // the CLI's options when only --target and --passes are given (see src/cli/run.ts)
  const { binary, report } = optimize(req.bytes, {
    ...(req.passes ? { passes: req.passes } : {}),
    validate: true,
    checked: false,
    keepExportIdentity: false,
    target: req.target,
    measures,
    features: {},
    onProgress: progress,
  });
  progress(1, 1, "measuring sizes and writing the report");
  const name = outputName(req.name);
  const data = htmlReportData(req.bytes, binary, report, { input: req.name, output: name }, { gzip: gzip9, brotli: brotli11 });
  const html = reportHtml(data);
  const [streamBefore, streamAfter] = await Promise.all([streamGzipSize(req.bytes), streamGzipSize(binary)]);
  const output = binary === req.bytes ? binary.slice() : binary;
  scope.postMessage(
    {
      type: "result",
      id: req.id,
      output,
      outputName: name,
      sizes: { raw: report.sizes.file, gzip9: data.compressed!.gzip, brotli: data.compressed!.brotli, gzipStream: { before: streamBefore, after: streamAfter } },
      reportHtml: html,
      timeMs: performance.now() - t0,
    },
    [output.buffer as ArrayBuffer],
  );
}

scope.onmessage = (e) => {
  const req = e.data;
  run(req).catch((err: unknown) => {
    scope.postMessage({ type: "error", id: req.id, message: err instanceof Error ? err.message : String(err) });
  });
};
