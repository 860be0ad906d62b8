// What the HTML report shows besides the report itself: whole-file gzip and
// brotli sizes of the input and the output (with the compressors the caller
// supplies: Node's zlib for --html, the browser's encoders in the
// playground) and each function's size in both, read from the two binaries.

import { moduleFunctions } from "./function-sizes.js";
import { functionRows } from "./function-fates.js";
import type { HtmlReportData } from "./report-html.js";
import type { Report } from "./report.js";

export interface WholeFileSizes {
  /** gzip level 9 size. */
  gzip: (bytes: Uint8Array) => number;
  /** brotli quality 11 size (the real measure). */
  brotli: (bytes: Uint8Array) => number;
}

export function htmlReportData(input: Uint8Array, output: Uint8Array, report: Report, files: { input: string; output: string }, sizes: WholeFileSizes): HtmlReportData {
  const same = output === input;
  const gz = sizes.gzip(input);
  const br = sizes.brotli(input);
  return {
    report,
    files,
    compressed: {
      gzip: { before: gz, after: same ? gz : sizes.gzip(output) },
      brotli: { before: br, after: same ? br : sizes.brotli(output) },
    },
    functions: functionRows(report.mergeMap, moduleFunctions(input), moduleFunctions(output)),
  };
}
