// Rebuilds examples/hello.wasm from examples/hello.wat with the wasm-tools
// text parser (npm package @bytecodealliance/jco-transpile), then checks that
// the result is a valid module. Run: npm run build:example

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";

// The project's lib settings do not include the WebAssembly JS API types.
declare const WebAssembly: { validate(bytes: Uint8Array): boolean };

const root = fileURLToPath(new URL("../..", import.meta.url)); // dist/scripts -> repo root
const wat = readFileSync(`${root}/examples/hello.wat`, "utf8");
const wasm = await parse(wat);
if (!WebAssembly.validate(wasm)) throw new Error("examples/hello.wat compiled to an invalid module");
writeFileSync(`${root}/examples/hello.wasm`, wasm);
console.log(`examples/hello.wasm: ${wasm.length} bytes`);
