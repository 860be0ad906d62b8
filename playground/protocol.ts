// Messages between the playground page and its worker.

import type { SizeTarget } from "../src/size-target.js";

export interface PassInfo {
  name: string;
  description: string;
}

/** Page -> worker: optimize these bytes. */
export interface OptimizeRequest {
  type: "optimize";
  id: number;
  /** The input's file name (shown in the report; the output is named after it). */
  name: string;
  bytes: Uint8Array;
  target: SizeTarget;
  /** Pass names in order; absent: the target's default pipeline (as the CLI without --passes). */
  passes?: string[];
}

/** A size before and after. */
export interface Change {
  before: number;
  after: number;
}

export type WorkerMessage =
  /** Sent once the brotli encoder is loaded: the passes the page offers and each target's default order. */
  | { type: "ready"; passes: PassInfo[]; pipelines: Record<SizeTarget, string[]> }
  | { type: "progress"; id: number; done: number; total: number; phase: string }
  | {
      type: "result";
      id: number;
      output: Uint8Array;
      outputName: string;
      sizes: {
        raw: Change;
        /** gzip level 9 and brotli quality 11: what the CLI measures and judges by. */
        gzip9: Change;
        brotli: Change;
        /** gzip through the browser's CompressionStream (its own level). */
        gzipStream: Change;
      };
      /** The --html report page of this run. */
      reportHtml: string;
      timeMs: number;
    }
  | { type: "error"; id: number; message: string };
