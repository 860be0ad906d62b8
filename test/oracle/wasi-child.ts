// Child process of the WASI runner (wasi-runner.ts): runs one module under
// node:wasi and reports how it ended on file descriptor 3.
//
//   node --no-warnings wasi-child.js MODULE.wasm SANDBOX-DIR CONFIG-JSON
//
// CONFIG-JSON is {"args": [...], "env": {...}}; args[0] is the program name.
// The module's stdin, stdout and stderr are this process's fds 0, 1 and 2
// (the parent connects them), and SANDBOX-DIR is preopened as "/" (the
// module's working directory, so relative paths land there). The report is
// one JSON line {"exitCode": number} or {"trap": string} written to fd 3.
//
// Run without arguments (as `node --test` does with every file under test/),
// it does nothing.

import { readFileSync, writeSync } from "node:fs";
import { WASI } from "node:wasi";

interface ChildConfig {
  args: string[];
  env: Record<string, string>;
}

export interface ChildReport {
  exitCode?: number;
  trap?: string;
}

function report(r: ChildReport): void {
  writeSync(3, JSON.stringify(r) + "\n");
}

async function main(argv: string[]): Promise<void> {
  const [wasmPath, sandbox, configJson] = argv;
  if (wasmPath === undefined || sandbox === undefined || configJson === undefined) return;
  const config = JSON.parse(configJson) as ChildConfig;
  const wasi = new WASI({
    version: "preview1",
    args: config.args,
    env: config.env,
    preopens: { "/": sandbox },
    returnOnExit: true,
  });
  let instance: WebAssembly.Instance;
  try {
    const module = await WebAssembly.compile(readFileSync(wasmPath));
    instance = await WebAssembly.instantiate(module, wasi.getImportObject() as WebAssembly.Imports);
  } catch (e) {
    report({ trap: `instantiation failed: ${e instanceof Error ? e.message : String(e)}` });
    return;
  }
  try {
    const code = wasi.start(instance);
    report({ exitCode: typeof code === "number" ? code : 0 });
  } catch (e) {
    // A trap (RuntimeError), a stack overflow (RangeError) or a WASI error.
    const name = e instanceof Error ? e.name : "Error";
    const message = e instanceof Error ? e.message : String(e);
    report({ trap: `${name}: ${message}` });
  }
}

if (process.argv.length > 2) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`wasi-child: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 70;
  });
}
