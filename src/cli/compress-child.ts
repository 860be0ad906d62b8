// A process that measures one module for the compression pool (see
// compress-pool.ts): the module on stdin; on stdout its gzip size (when the
// argument says "gzip") and then its brotli size, one number per line, the
// same numbers as compress.ts gives in the parent. It is a process, not a
// thread, for one reason: a thread inside native brotli cannot be stopped
// (exit waits for it), a process can be killed. The pool sends here the
// measures that may never be needed: the input's, started early.

import { readFileSync } from "node:fs";
import { brotliSize, gzipSize } from "./compress.js";

const bytes = new Uint8Array(readFileSync(0));
if (process.argv[2] === "gzip") process.stdout.write(`${gzipSize(bytes)}\n`);
process.stdout.write(`${brotliSize(bytes)}\n`);
