#!/usr/bin/env node
// The wasm-compact command. All logic is in run.ts; this wires it to the process.

import { readFileSync } from "node:fs";
import { runSafely } from "./run.js";

process.exitCode = runSafely(process.argv.slice(2), {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
  stderrIsTTY: process.stderr.isTTY === true,
  stdoutBytes: (b) => void process.stdout.write(b),
  stdoutIsTTY: process.stdout.isTTY === true,
  readStdin: () => new Uint8Array(readFileSync(0)),
  env: process.env,
});
