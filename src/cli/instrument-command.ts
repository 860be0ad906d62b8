// `wasm-compact instrument IN.wasm -o OUT.wasm`: writes a copy of the module
// that counts how often each region of its code runs (profile/instrument.ts),
// the first step of profile-guided mode.

import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { WasmDecodeError, WasmValidationError } from "../binary/errors.js";
import { UsageError } from "../errors.js";
import { instrument } from "../profile/instrument.js";
import { EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE, oneLine, parseArgsMessage, sameFile } from "./common.js";
import { fsMessage, writeWhole } from "./files.js";
import type { CliIO } from "./run.js";

export const INSTRUMENT_USAGE = "usage: wasm-compact instrument IN.wasm -o OUT.wasm [--quiet]";

export const INSTRUMENT_HELP = `wasm-compact instrument: adds block counters to a module (profile-guided mode, step 1)

${INSTRUMENT_USAGE}

Writes a copy of IN.wasm that counts how often each block of its code runs,
in i64 globals it adds, and exports __wasm_compact_counters() -> i32 and
__wasm_compact_counter(i32) -> i64 to read them. It behaves like IN.wasm
otherwise. Run your workload with it under \`wasm-compact profile\`, then
optimize IN.wasm (not the instrumented copy) with --profile.

options:
  -o, --output FILE   where to write the instrumented module (required)
  -q, --quiet         print nothing unless something fails
  -h, --help          print this help
`;

export function runInstrument(argv: readonly string[], io: CliIO): number {
  const usage = (message: string): number => {
    io.stderr(`error: ${oneLine(message)}\n${INSTRUMENT_USAGE}\n`);
    return EXIT_USAGE;
  };
  let values: { output?: string; quiet?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: true,
      options: { output: { type: "string", short: "o" }, quiet: { type: "boolean", short: "q" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (e) {
    return usage(e instanceof Error ? parseArgsMessage(e) : String(e));
  }
  if (values.help) {
    io.stdout(INSTRUMENT_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1 || positionals[0] === "") return usage(positionals.length === 0 ? "missing input file" : "expected one input file");
  const input = positionals[0]!;
  const output = values.output;
  if (output === undefined || output === "") return usage("missing -o OUT.wasm (where to write the instrumented module)");

  let bytes: Uint8Array;
  try {
    const st = statSync(input);
    if (st.isDirectory()) return usage(`${input}: is a directory, expected a .wasm file`);
    let outSt = null;
    try {
      outSt = statSync(output);
    } catch {
      // a new file
    }
    if (outSt?.isDirectory()) return usage(`${output}: is a directory; -o needs a file name`);
    if ((outSt && sameFile(st, outSt)) || resolve(output) === resolve(input)) return usage(`-o ${output} is the input file`);
    const buf = readFileSync(input);
    bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (e) {
    return usage(`${input}: cannot read: ${fsMessage(e)}`);
  }

  let result;
  try {
    result = instrument(bytes);
  } catch (e) {
    if (e instanceof WasmDecodeError || e instanceof WasmValidationError) {
      io.stderr(`error: ${input}: ${oneLine(e.message)}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof UsageError) return usage(`${input}: ${e.message}`);
    throw e;
  }
  try {
    writeWhole(output, result.binary);
  } catch (e) {
    return usage(`${output}: cannot write: ${fsMessage(e)}`);
  }
  if (!values.quiet) {
    io.stderr(
      `wasm-compact: instrumented ${input} -> ${output}: ${result.counters} counters, ` +
        `${bytes.length} -> ${result.binary.length} bytes (input ${result.fingerprint})\n`,
    );
  }
  return EXIT_OK;
}
