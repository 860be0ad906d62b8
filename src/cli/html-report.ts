// --html: the report page for one run, with whole-file sizes from Node's
// zlib (gzip level 9, brotli quality 11: the real measure). Only runs when
// --html is given.

import { brotliSize, gzipSize } from "./compress.js";
import { htmlReportData } from "../report-data.js";
import { reportHtml } from "../report-html.js";
import type { Report } from "../report.js";

export function htmlReport(input: Uint8Array, output: Uint8Array, report: Report, files: { input: string; output: string }): string {
  return reportHtml(htmlReportData(input, output, report, files, { gzip: gzipSize, brotli: brotliSize }));
}
