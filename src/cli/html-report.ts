// --html: the report page for one run. Measures what the report does not
// carry: whole-file gzip (level 9) and brotli (quality 11, the real measure)
// sizes of the input and the output, and each function's size in both,
// read from the two binaries. Only runs when --html is given.

import { gzipSync } from "node:zlib";
import { brotliSize } from "./compress.js";
import { moduleFunctions } from "../function-sizes.js";
import { functionRows } from "../function-fates.js";
import { reportHtml } from "../report-html.js";
import type { Report } from "../report.js";

export function htmlReport(input: Uint8Array, output: Uint8Array, report: Report, files: { input: string; output: string }): string {
  const gzip = (b: Uint8Array): number => gzipSync(b, { level: 9 }).length;
  const same = output === input;
  const gz = gzip(input);
  const br = brotliSize(input);
  return reportHtml({
    report,
    files,
    compressed: {
      gzip: { before: gz, after: same ? gz : gzip(output) },
      brotli: { before: br, after: same ? br : brotliSize(output) },
    },
    functions: functionRows(report.mergeMap, moduleFunctions(input), moduleFunctions(output)),
  });
}
